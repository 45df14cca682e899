//! Extraction agents (`/v1`), which `/v2` calls extract templates: the catalog, versions, runs
//! and async runs. One handler per endpoint serves both versions of the interface; where they
//! differ (the run field naming the agent, the shape of records and lists) the handler asks the
//! version it was routed under.

use std::sync::Arc;

use agents_runtime::endpoint::ApiVersion;
use agents_schema::Json as Written;
use axum::extract::State as AxState;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use serde_json::{Map, Value, json};

use crate::catalog::{Entry, ListQuery, ordered, parse_count, parse_page_size};
use crate::error::ApiError;
use crate::lifecycle::{Flow, Task, TaskEnd};
use crate::params;
use crate::patched;
use crate::request::{ApiJson, ApiJsonWritten, ApiPath, ApiQuery, Ctx, formats, required_str};
use crate::state::{State, lock};
use crate::synth;

type Shared = Arc<State>;

/// The list: `/v1` a bare array of list items (filtered by privacy, search and maintainer);
/// `/v2` a page of template records, `{items, limit, offset, total}`.
pub(crate) async fn list(
    AxState(state): AxState<Shared>,
    Extension(ctx): Extension<Ctx>,
    Extension(version): Extension<ApiVersion>,
    ApiQuery(query): ApiQuery<ListQuery>,
) -> Result<Json<Written>, ApiError> {
    state.settle(state.clock.now());
    let catalog = state
        .catalog
        .read()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    match version {
        ApiVersion::V1 => Ok(Json(
            Value::Array(catalog.list(&ctx.account.name, &query)?).into(),
        )),
        ApiVersion::V2 => {
            let all: Vec<&Entry> = catalog.visible(&ctx.account.name).collect();
            Ok(Json(page(&query, all.len(), |o, l| {
                all.iter()
                    .skip(o)
                    .take(l)
                    .map(|e| e.template_json())
                    .collect()
            })?))
        }
    }
}

/// A `/v2` page: `{items, limit, offset, total}` from the query's `limit` (default 100) and
/// `offset` (default 0).
fn page(
    query: &ListQuery,
    total: usize,
    items: impl FnOnce(usize, usize) -> Vec<Written>,
) -> Result<Written, ApiError> {
    let offset = parse_count("offset", query.offset.as_deref(), 0)?;
    let limit = parse_page_size("limit", query.limit.as_deref(), 100)?;
    Ok(ordered([
        ("items", Written::Array(items(offset, limit))),
        ("limit", json!(limit).into()),
        ("offset", json!(offset).into()),
        ("total", json!(total).into()),
    ]))
}

/// One agent's record (`/v1`) or template record with its published version (`/v2`). The
/// record is written straight from its model, so its fields keep their order (a `Value` would
/// sort them, and bindings generated from the fetched record would list them in another order).
pub(crate) async fn get(
    AxState(state): AxState<Shared>,
    Extension(ctx): Extension<Ctx>,
    Extension(version): Extension<ApiVersion>,
    ApiPath(name): ApiPath<String>,
) -> Result<Response, ApiError> {
    with_entry(&state, &ctx, version, &name, |e| match version {
        ApiVersion::V1 => serde_json::to_string(&*e.record)
            .map(|text| ([(header::CONTENT_TYPE, "application/json")], text).into_response())
            .map_err(|e| {
                ApiError::new(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "INTERNAL_ERROR",
                    e.to_string(),
                )
            }),
        ApiVersion::V2 => Ok(Json(e.template_json()).into_response()),
    })
}

/// A template's versions, oldest first, as a page.
pub(crate) async fn versions(
    AxState(state): AxState<Shared>,
    Extension(ctx): Extension<Ctx>,
    Extension(version): Extension<ApiVersion>,
    ApiPath(name): ApiPath<String>,
    ApiQuery(query): ApiQuery<ListQuery>,
) -> Result<Json<Written>, ApiError> {
    with_entry(&state, &ctx, version, &name, |e| {
        let all: Vec<_> = e.versions().collect();
        page(&query, all.len(), |o, l| {
            all.iter().skip(o).take(l).map(|v| v.json()).collect()
        })
    })
    .map(Json)
}

/// One version of a template, by its id.
pub(crate) async fn version(
    AxState(state): AxState<Shared>,
    Extension(ctx): Extension<Ctx>,
    Extension(api): Extension<ApiVersion>,
    ApiPath((name, id)): ApiPath<(String, String)>,
) -> Result<Json<Written>, ApiError> {
    with_entry(&state, &ctx, api, &name, |e| {
        e.versions()
            .find(|v| v.id == id)
            .map(|v| v.json())
            .ok_or_else(|| {
                ApiError::not_found(format!("template `{name}` has no version {id}"))
                    .at("version_id")
            })
    })
    .map(Json)
}

/// Runs `f` on the template `name` as the account sees it; 404 naming the nearest names.
fn with_entry<T>(
    state: &State,
    ctx: &Ctx,
    version: ApiVersion,
    name: &str,
    f: impl FnOnce(&Entry) -> Result<T, ApiError>,
) -> Result<T, ApiError> {
    state.settle(state.clock.now());
    let catalog = state
        .catalog
        .read()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    match catalog.get(&ctx.account.name, name) {
        Some(e) => f(e),
        None => Err(catalog
            .unknown(&ctx.account.name, name, StatusCode::NOT_FOUND, version)
            .at(version.words().template_ref)),
    }
}

/// The fields of a template record an update may not change, as JSON pointers.
const READ_ONLY: [&str; 9] = [
    "/id",
    "/name",
    "/created_at",
    "/updated_at",
    "/published_version_id",
    "/published_version/id",
    "/published_version/name",
    "/published_version/version_number",
    "/published_version/created_at",
];

/// Changes one of the account's templates with a JSON Patch document (RFC 6902) applied to its
/// record: metadata and samples change the published version in place; a changed input or
/// output schema publishes the next version. A patch that fails (a `test` that does not hold,
/// a path that does not exist) changes nothing: 422 naming the operation.
pub(crate) async fn update(
    AxState(state): AxState<Shared>,
    Extension(ctx): Extension<Ctx>,
    Extension(version): Extension<ApiVersion>,
    ApiPath(name): ApiPath<String>,
    ApiJsonWritten(body): ApiJsonWritten,
) -> Result<Json<Written>, ApiError> {
    let patch: json_patch::Patch = serde_json::from_value(body.to_value()).map_err(|e| {
        ApiError::malformed(
            "body",
            format!("the body must be a JSON Patch document (RFC 6902): {e}"),
        )
    })?;
    state.settle(state.clock.now());
    let mut catalog = state
        .catalog
        .write()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let Some(entry) = catalog.get_mut(&ctx.account.name, &name) else {
        return Err(catalog
            .unknown(&ctx.account.name, &name, StatusCode::NOT_FOUND, version)
            .at(version.words().template_ref));
    };
    let Some(owner) = entry.owner.clone() else {
        return Err(public(&name, version));
    };
    let written = entry.template_json();
    let before = written.to_value();
    let mut doc = before.clone();
    json_patch::patch(&mut doc, &patch).map_err(|e| {
        ApiError::refused(
            format!("body[{}]", e.operation),
            format!("operation {} ({}) failed: {}", e.operation, e.path, e.kind),
        )
    })?;
    if let Some(ptr) = READ_ONLY
        .iter()
        .find(|p| doc.pointer(p) != before.pointer(p))
    {
        return Err(ApiError::refused(
            format!("body{}", ptr.replace('/', ".")),
            format!("{ptr} is set by the service and cannot be changed"),
        ));
    }
    let doc = patched::in_written_order(&doc, &body, &written);
    let part = |key: &str| {
        doc.get("published_version")
            .and_then(|v| v.get(key))
            .cloned()
            .unwrap_or(Written::Null)
    };
    // The output schema is what values are made for and checked against: a type JSON Schema
    // does not define is refused (inputs keep the record's own words, which /v1 leaves open).
    crate::request::read_schema(
        &part("output_schema").to_value(),
        "body.published_version.output_schema",
    )?;
    let present = |key: &str| Some(part(key)).filter(|v| *v != Written::Null);
    let mut record = agents_schema::json_schema::record(
        &name,
        present("input_schema").as_ref(),
        present("output_schema").as_ref(),
        present("metadata").map(|m| m.to_value()).as_ref(),
    )
    .map_err(|e| {
        // The first path at fault, in the template record's words (the version is its
        // `published_version`); the message lists every one.
        let field = match &e {
            agents_schema::RecordError::Invalid(errors) => errors.first().map_or_else(
                || "body".to_owned(),
                |f| format!("body.published_version{}", f.path.trim_start_matches('$')),
            ),
            agents_schema::RecordError::Syntax { .. } => "body".to_owned(),
        };
        ApiError::refused(field, format!("the patched template is not valid: {e}"))
    })?;
    match part("samples").to_value() {
        Value::Null => {}
        Value::Array(samples) => {
            if let Some(bad) = samples
                .iter()
                .position(|x| !x.get("input").is_none_or(Value::is_object))
            {
                return Err(ApiError::refused(
                    format!("body.published_version.samples[{bad}].input"),
                    "a sample's input is an object of params",
                ));
            }
            record.extra.insert("samples".into(), Value::Array(samples));
        }
        other => {
            return Err(ApiError::wrong_type(
                "body.published_version.samples",
                format!(
                    "samples must be a list, not {}",
                    crate::params::kind(&other)
                ),
            ));
        }
    }
    let schemas_changed = ["input_schema", "output_schema"]
        .iter()
        .any(|k| part(k).to_value() != before["published_version"][*k]);
    if schemas_changed {
        catalog.insert_private(
            &owner,
            record,
            uuid::Uuid::new_v4().to_string(),
            state.clock.wall(),
        );
    } else {
        let record = Arc::new(record);
        entry.record = record.clone();
        entry.published.record = record;
        entry.touch(state.clock.wall());
    }
    let Some(entry) = catalog.get(&ctx.account.name, &name) else {
        return Err(ApiError::not_found(format!("template `{name}` is gone")));
    };
    Ok(Json(entry.template_json()))
}

/// Deletes one of the account's templates: 204, and the name runs nothing afterwards.
pub(crate) async fn delete(
    AxState(state): AxState<Shared>,
    Extension(ctx): Extension<Ctx>,
    Extension(version): Extension<ApiVersion>,
    ApiPath(name): ApiPath<String>,
) -> Result<StatusCode, ApiError> {
    state.settle(state.clock.now());
    let mut catalog = state
        .catalog
        .write()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    match catalog.get(&ctx.account.name, &name) {
        None => Err(catalog
            .unknown(&ctx.account.name, &name, StatusCode::NOT_FOUND, version)
            .at(version.words().template_ref)),
        Some(e) if e.owner.is_none() => Err(public(&name, version)),
        Some(_) => {
            catalog.remove(&name);
            Ok(StatusCode::NO_CONTENT)
        }
    }
}

/// The answer to changing a public template.
fn public(name: &str, version: ApiVersion) -> ApiError {
    ApiError::new(
        StatusCode::FORBIDDEN,
        "FORBIDDEN",
        format!("`{name}` is a public template; only your own templates can be changed"),
    )
    .at(version.words().template_ref)
}

/// A checked run request, ready to run.
pub(crate) struct Checked {
    pub(crate) spec: synth::RunSpec,
    pub(crate) request: Value,
}

fn check_run(
    state: &State,
    ctx: &Ctx,
    version: ApiVersion,
    body: Map<String, Value>,
) -> Result<Checked, ApiError> {
    state.settle(state.clock.now());
    let field = version.words().run_field;
    let agent = required_str(&body, field)?;
    if body.get("params").is_none_or(Value::is_null) {
        return Err(ApiError::missing(
            "params",
            "missing required field `params`",
        ));
    }
    let formats = formats(&body, "formats")?;
    let record = state
        .find_agent(&ctx.account.name, agent, version)
        .map_err(|e| e.at(field))?;
    let params = body.get("params").cloned().unwrap_or(Value::Null);
    let check = agents_runtime::validate::RequestCheck::new(&record);
    params::check(&check, &params, body.get("localization"), "params")?;
    let params = params.as_object().cloned().unwrap_or_default();
    let pages = state.pages(&record.name);
    Ok(Checked {
        spec: synth::RunSpec {
            record,
            params,
            formats,
            drift: ctx.drift,
            pages,
            empty_past_end: state.config.empty_past_end,
        },
        request: Value::Object(body),
    })
}

/// Runs an agent and answers its result.
pub(crate) async fn run(
    AxState(state): AxState<Shared>,
    Extension(ctx): Extension<Ctx>,
    Extension(version): Extension<ApiVersion>,
    ApiJson(body): ApiJson,
) -> Result<Json<Written>, ApiError> {
    let checked = check_run(&state, &ctx, version, body)?;
    Ok(Json(checked.spec.result(&ctx.task_id, state.clock.wall())))
}

/// Starts a run as a task (with delivery to a bucket or a callback when asked).
pub(crate) async fn run_async(
    AxState(state): AxState<Shared>,
    Extension(ctx): Extension<Ctx>,
    Extension(version): Extension<ApiVersion>,
    ApiJson(mut body): ApiJson,
) -> Result<Json<Value>, ApiError> {
    crate::delivery::check(&mut body)?;
    let deliver = crate::delivery::Delivery::from_body(&body);
    let checked = check_run(&state, &ctx, version, body)?;
    let task_id = ctx.task_id.clone();
    let faults = ctx.task_faults;
    let agent = checked.spec.record.name.clone();
    let end = faults.end(0, TaskEnd::Success(Arc::new(checked.spec)));
    let duration = faults.duration(state.config.lifecycle.task);
    let task = Task::new(
        task_id.clone(),
        &ctx.account.name,
        agent,
        "agent",
        Flow::Started,
        (&state.clock, duration, end),
        checked.request,
    )
    .made_in(version);
    let answer = task.created(
        state.clock.now(),
        state.base_url.get().map_or("", String::as_str),
    );
    lock(&state.tasks).insert(task_id.clone(), task);
    if let Some(d) = deliver {
        crate::delivery::schedule(state.clone(), task_id, d);
    }
    Ok(Json(answer))
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
        endpoint::TEMPLATE_LIST => on(method, list),
        endpoint::TEMPLATE_GET => on(method, get),
        endpoint::TEMPLATE_UPDATE => on(method, update),
        endpoint::TEMPLATE_DELETE => on(method, delete),
        endpoint::TEMPLATE_VERSIONS => on(method, versions),
        endpoint::TEMPLATE_VERSION => on(method, version),
        endpoint::TEMPLATE_RUN => on(method, run),
        endpoint::TEMPLATE_ASYNC | endpoint::TEMPLATE_ASYNC_SINGULAR => on(method, run_async),
        _ => return None,
    })
}
