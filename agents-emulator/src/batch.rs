//! Agent batches: up to 1,000 items, each an independent async
//! task; progress, details and listing.

use std::sync::Arc;
use std::time::{Instant, SystemTime};

use axum::Extension;
use axum::Json;
use axum::extract::State as AxState;
use serde_json::{Map, Value, json};

use agents_runtime::endpoint::ApiVersion;

use crate::error::ApiError;
use crate::lifecycle::{Flow, Task, TaskEnd, TaskState};
use crate::params;
use crate::request::{ApiJson, ApiPath, Ctx, formats, required_str};
use crate::wire::timestamp;

use crate::state::{State, lock};
use crate::synth::RunSpec;

/// Items per batch.
pub const MAX_ITEMS: usize = 1_000;

pub use crate::model::Batch;

type Shared = Arc<State>;

/// An agent (template) batch. The whole batch is refused (naming `inputs[i]…`) when any item is
/// invalid, so nothing runs half-checked. `x-emulator-task-error-every: N` makes every Nth task
/// end in `error`; `x-emulator-task-ms` sets how long tasks take (each item up to 50% longer, so
/// progress moves).
pub(crate) async fn create(
    AxState(state): AxState<Shared>,
    Extension(ctx): Extension<Ctx>,
    Extension(version): Extension<ApiVersion>,
    ApiJson(body): ApiJson,
) -> Result<Json<Value>, ApiError> {
    let field = version.words().run_field;
    state.settle(state.clock.now());
    let (inputs, mut shared) = batch_parts(&body)?;
    if !body.get("shared_inputs").is_some_and(Value::is_object) {
        return Err(ApiError::missing(
            "shared_inputs",
            format!(
                "missing required field `shared_inputs` (its `{field}` names the {})",
                version.words().noun
            ),
        ));
    }
    crate::delivery::check(&mut shared)?;
    let deliver = crate::delivery::Delivery::from_body(&shared);
    let agent = required_str(&shared, field).map_err(|e| e.at(format!("shared_inputs.{field}")))?;
    let record = state
        .find_agent(&ctx.account.name, agent, version)
        .map_err(|e| e.at(format!("shared_inputs.{field}")))?;
    let shared_params = match shared.get("params") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(m)) => m.clone(),
        Some(_) => {
            return Err(ApiError::malformed(
                "shared_inputs.params",
                "shared_inputs.params must be an object",
            ));
        }
    };
    let shared_formats = formats(&shared, "shared_inputs.formats")?;
    let pages = state.pages(&record.name);
    let mut specs = Vec::with_capacity(inputs.len());
    let check = agents_runtime::validate::RequestCheck::new(&record);
    for (i, item) in inputs.iter().enumerate() {
        let at = format!("inputs[{i}]");
        let Some(item) = item.as_object() else {
            return Err(ApiError::malformed(&at, format!("{at} must be an object")));
        };
        if item.contains_key(field) {
            return Err(ApiError::refused(
                format!("{at}.{field}"),
                format!("{field} is set only in shared_inputs and applies to every item"),
            ));
        }
        // Rule 3: item params merge over shared params; the item wins.
        let mut merged = shared_params.clone();
        match item.get("params") {
            None | Some(Value::Null) => {}
            Some(Value::Object(p)) => merged.extend(p.clone()),
            Some(_) => {
                return Err(ApiError::malformed(
                    format!("{at}.params"),
                    format!("{at}.params must be an object"),
                ));
            }
        }
        // Rule 2: item localization and formats override the shared ones.
        let localization = item
            .get("localization")
            .filter(|v| !v.is_null())
            .or_else(|| shared.get("localization"));
        let merged = Value::Object(merged);
        params::check(&check, &merged, localization, &format!("{at}.params"))?;
        let formats = if item.get("formats").is_some_and(|v| !v.is_null()) {
            formats(item, &format!("{at}.formats"))?
        } else {
            shared_formats.clone()
        };
        specs.push(RunSpec {
            record: record.clone(),
            params: match merged {
                Value::Object(m) => m,
                _ => Map::new(),
            },
            formats,
            drift: ctx.drift,
            pages,
            empty_past_end: state.config.empty_past_end,
        });
    }

    let ends = specs
        .into_iter()
        .map(|spec| {
            let input = json!({ "params": spec.params.clone() });
            (TaskEnd::Success(Arc::new(spec)), input)
        })
        .collect();
    Ok(Json(register(
        &state,
        &ctx,
        version,
        &record.name,
        ends,
        deliver,
    )))
}

/// Stores a batch's tasks and answers with the batch record. `x-emulator-task-error-every: N`
/// turns every Nth task into one that ends in `error`; `x-emulator-task-ms` sets how long tasks
/// take (each item up to 50% longer, so progress moves).
fn register(
    state: &Shared,
    ctx: &Ctx,
    version: ApiVersion,
    api: &str,
    ends: Vec<(TaskEnd, Value)>,
    deliver: Option<crate::delivery::Delivery>,
) -> Value {
    let batch_id = uuid::Uuid::new_v4().to_string();
    let faults = ctx.task_faults;
    let base = faults.duration(state.config.lifecycle.task);
    let now = state.clock.now();
    let base_url = state.base_url.get().map_or("", String::as_str);
    let mut ids = Vec::with_capacity(ends.len());
    let mut listed = Vec::with_capacity(ends.len());
    {
        let mut tasks = lock(&state.tasks);
        for (i, (end, input)) in ends.into_iter().enumerate() {
            let id = uuid::Uuid::new_v4().to_string();
            let stretch = agents_schema::sample::mix(0, &id) % 50;
            let duration = base + base * u32::try_from(stretch).unwrap_or(0) / 100;
            let end = match faults.end(i, end) {
                // Results computed before the id existed get it now.
                TaskEnd::Value(v) if v.get("task_id").is_some_and(|t| t == "") => {
                    let mut v = (*v).clone();
                    v["task_id"] = json!(id);
                    TaskEnd::Value(Arc::new(v))
                }
                other => other,
            };
            let task = Task::new(
                id.clone(),
                &ctx.account.name,
                api,
                crate::lifecycle::api_type(api),
                Flow::Queued,
                (&state.clock, duration, end),
                input,
            )
            .in_batch(&batch_id)
            .made_in(version);
            listed.push(task.json(now, base_url));
            tasks.insert(id.clone(), task);
            ids.push(id);
        }
    }
    if let Some(d) = &deliver {
        for id in &ids {
            // A shared object name would have every task overwrite one object: each task's
            // object is `<name>-<task_id>`.
            let mut per_task = d.clone();
            per_task.object_name = d.object_name.as_ref().map(|n| format!("{n}-{id}"));
            crate::delivery::schedule(state.clone(), id.clone(), per_task);
        }
    }
    let total = ids.len();
    lock(&state.batches).insert(
        batch_id.clone(),
        Batch {
            id: batch_id.clone(),
            account: ctx.account.name.clone(),
            created: state.clock.wall(),
            tasks: ids,
        },
    );
    json!({
        "batch_id": batch_id,
        "batch_size": total,
        "total": total,
        "tasks": listed,
    })
}

/// Checks `inputs` (1 to 1,000 items) and `shared_inputs` (an object) of a batch body.
fn batch_parts(body: &Map<String, Value>) -> Result<(&Vec<Value>, Map<String, Value>), ApiError> {
    let inputs = match body.get("inputs") {
        Some(Value::Array(items)) => items,
        None | Some(Value::Null) => {
            return Err(ApiError::missing(
                "inputs",
                "missing required field `inputs`",
            ));
        }
        Some(_) => return Err(ApiError::malformed("inputs", "inputs must be an array")),
    };
    if inputs.is_empty() {
        return Err(ApiError::malformed("inputs", "inputs is empty"));
    }
    if inputs.len() > MAX_ITEMS {
        return Err(ApiError::malformed(
            "inputs",
            format!(
                "a batch has at most {MAX_ITEMS} items, this one has {}",
                inputs.len()
            ),
        ));
    }
    let shared = match body.get("shared_inputs") {
        Some(Value::Object(m)) => m.clone(),
        None | Some(Value::Null) => Map::new(),
        Some(_) => {
            return Err(ApiError::malformed(
                "shared_inputs",
                "shared_inputs must be an object",
            ));
        }
    };
    Ok((inputs, shared))
}

/// An extract batch: each item's fields over the shared ones, every item checked; all invalid
/// items are reported together (each with its index) and nothing runs.
pub(crate) async fn create_extract(
    AxState(state): AxState<Shared>,
    Extension(ctx): Extension<Ctx>,
    Extension(version): Extension<ApiVersion>,
    ApiJson(body): ApiJson,
) -> Result<Json<Value>, ApiError> {
    let (inputs, shared, deliver) = web_batch_parts(&body)?;
    let at = state.clock.wall();
    let ends = each_item(inputs, &shared, |merged| async move {
        let result = crate::web::extract_result(&merged, "", at).await?;
        Ok((result, json!({ "url": merged.get("url") })))
    })
    .await?;
    Ok(Json(register(
        &state, &ctx, version, "extract", ends, deliver,
    )))
}

/// A SERP batch: as an extract batch, each item a SERP request.
pub(crate) async fn create_serp(
    AxState(state): AxState<Shared>,
    Extension(ctx): Extension<Ctx>,
    Extension(version): Extension<ApiVersion>,
    ApiJson(body): ApiJson,
) -> Result<Json<Value>, ApiError> {
    let (inputs, shared, deliver) = web_batch_parts(&body)?;
    let at = state.clock.wall();
    let ends = each_item(inputs, &shared, |merged| async move {
        let result = crate::serp::serp_result(&merged, "", at)?;
        Ok((result, Value::Object(merged)))
    })
    .await?;
    Ok(Json(register(&state, &ctx, version, "serp", ends, deliver)))
}

/// An extract or SERP batch's items, its shared inputs, and the delivery they ask for.
type WebBatch<'a> = (
    &'a Vec<Value>,
    Map<String, Value>,
    Option<crate::delivery::Delivery>,
);

/// The parts of an extract or SERP batch, the shared inputs' delivery fields checked.
fn web_batch_parts(body: &Map<String, Value>) -> Result<WebBatch<'_>, ApiError> {
    let (inputs, mut shared) = batch_parts(body)?;
    crate::delivery::check(&mut shared)?;
    let deliver = crate::delivery::Delivery::from_body(&shared);
    Ok((inputs, shared, deliver))
}

/// Runs `check` on every item merged over `shared` (the item wins), collecting each item's
/// result and input, or every item's error at once, named `inputs[i].field`.
async fn each_item<F, Fut>(
    inputs: &[Value],
    shared: &Map<String, Value>,
    check: F,
) -> Result<Vec<(TaskEnd, Value)>, ApiError>
where
    F: Fn(Map<String, Value>) -> Fut,
    Fut: std::future::Future<Output = Result<(Value, Value), ApiError>>,
{
    let mut ends = Vec::with_capacity(inputs.len());
    let mut errors = Vec::new();
    for (i, item) in inputs.iter().enumerate() {
        let at = format!("inputs[{i}]");
        let Some(item) = item.as_object() else {
            errors.push(ApiError::malformed(&at, format!("{at} must be an object")));
            continue;
        };
        let mut merged = shared.clone();
        merged.extend(item.clone());
        match check(merged).await {
            Ok((result, input)) => ends.push((TaskEnd::Value(Arc::new(result)), input)),
            Err(e) => {
                let field = match &e.field {
                    Some(f) => format!("{at}.{f}"),
                    None => at,
                };
                errors.push(e.at(field));
            }
        }
    }
    match ApiError::items(errors) {
        Some(e) => Err(e),
        None => Ok(ends),
    }
}

fn find(state: &State, ctx: &Ctx, id: &str) -> Result<Batch, ApiError> {
    lock(&state.batches)
        .get(id)
        .filter(|b| b.account == ctx.account.name)
        .cloned()
        .ok_or_else(|| ApiError::not_found(format!("no batch {id}")).at("batch_id"))
}

/// The progress record (as the live service answers: `{id, completed, completed_count, progress, status,
/// completed_at}`), plus `total` and `failed_count`.
fn progress_of(state: &State, batch: &Batch, now: Instant) -> Value {
    let tasks = lock(&state.tasks);
    let mut done = 0usize;
    let mut failed = 0usize;
    let mut last_end: Option<SystemTime> = None;
    for id in &batch.tasks {
        if let Some(t) = tasks.get(id) {
            match t.state(now) {
                TaskState::Pending => {}
                s => {
                    done += 1;
                    if s == TaskState::Error {
                        failed += 1;
                    }
                    let end = t.created + t.duration;
                    last_end = Some(last_end.map_or(end, |l: SystemTime| l.max(end)));
                }
            }
        }
    }
    let total = batch.tasks.len();
    let completed = done == total;
    json!({
        "id": batch.id,
        "completed": completed,
        "completed_count": done,
        "failed_count": failed,
        "total": total,
        "progress": if total == 0 { 1.0 } else { done as f64 / total as f64 },
        // The vendor's models allow only "success" here (the call succeeded); `completed` says
        // whether the batch is done.
        "status": "success",
        "completed_at": if completed { last_end.map(timestamp) } else { None },
    })
}

/// `GET /v1/batches/{id}/progress`: the lightweight poll.
pub(crate) async fn progress(
    AxState(state): AxState<Shared>,
    Extension(ctx): Extension<Ctx>,
    ApiPath(id): ApiPath<String>,
) -> Result<Json<Value>, ApiError> {
    let batch = find(&state, &ctx, &id)?;
    Ok(Json(progress_of(&state, &batch, state.clock.now())))
}

/// `GET /v1/batches/{id}`: progress plus every task record (state, download URL).
pub(crate) async fn details(
    AxState(state): AxState<Shared>,
    Extension(ctx): Extension<Ctx>,
    ApiPath(id): ApiPath<String>,
) -> Result<Json<Value>, ApiError> {
    let batch = find(&state, &ctx, &id)?;
    let now = state.clock.now();
    let mut out = progress_of(&state, &batch, now);
    let base = state.base_url.get().map_or("", String::as_str);
    let tasks = lock(&state.tasks);
    let list: Vec<Value> = batch
        .tasks
        .iter()
        .map(|id| tasks.get(id).map_or(Value::Null, |t| t.json(now, base)))
        .collect();
    out["created_at"] = json!(timestamp(batch.created));
    out["tasks"] = Value::Array(list);
    Ok(Json(out))
}

/// `GET /v1/batches`: the account's batches, newest first, as progress records.
pub(crate) async fn list(
    AxState(state): AxState<Shared>,
    Extension(ctx): Extension<Ctx>,
) -> Json<Value> {
    let mut mine: Vec<Batch> = lock(&state.batches)
        .values()
        .filter(|b| b.account == ctx.account.name)
        .cloned()
        .collect();
    mine.sort_by(|a, b| b.created.cmp(&a.created).then_with(|| a.id.cmp(&b.id)));
    let now = state.clock.now();
    Json(Value::Array(
        mine.iter().map(|b| progress_of(&state, b, now)).collect(),
    ))
}

/// This area's endpoints and their handlers, under the endpoint's `method`: the router asks
/// every area, so serving a new endpoint of the area is an arm here and nothing in `routes.rs`.
pub(crate) fn handler(
    e: &agents_runtime::endpoint::Endpoint,
    method: axum::routing::MethodFilter,
) -> Option<axum::routing::MethodRouter<Shared>> {
    use agents_runtime::endpoint;
    use axum::routing::on;
    Some(match *e {
        endpoint::TEMPLATE_BATCH => on(method, create),
        endpoint::BATCH_LIST => on(method, list),
        endpoint::BATCH_GET => on(method, details),
        endpoint::BATCH_PROGRESS => on(method, progress),
        endpoint::EXTRACT_BATCH => on(method, create_extract),
        endpoint::SERP_BATCH => on(method, create_serp),
        _ => return None,
    })
}
