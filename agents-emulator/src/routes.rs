//! The HTTP surface: routes, and the layers every request passes (request id, auth, rate limit,
//! faults), outermost first.

use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use axum::body::{Body, Bytes};
use axum::extract::{Request, State as AxState};
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Extension, Json, Router};
use serde_json::{Map, Value, json};
use tower_http::catch_panic::CatchPanicLayer;

use crate::catalog::ListQuery;
use crate::config::{AccountStatus, Fault, RateLimitShape};
use crate::error::ApiError;
use crate::generate;
use crate::lifecycle::{Flow, Generation, GenerationEnd, Task, TaskEnd, TaskState};
use crate::params;
use crate::request::{
    ApiJson, ApiPath, ApiQuery, Ctx, drain, formats, http_url, optional_str, required_str,
};
use crate::state::{FaultRule, State, lock};
use crate::synth;

pub use crate::request::MAX_BODY;

type Shared = Arc<State>;

/// The router of the whole /v1 interface.
pub fn router(state: Shared) -> Router {
    let api = Router::new()
        .route("/v1/agents", get(list_agents))
        .route("/v1/agents/{name}", get(agent_details))
        .route("/v1/agents/run", post(run))
        .route("/v1/agents/async", post(run_async))
        .route("/v1/agent/async", post(run_async))
        .route("/v1/tasks", get(list_tasks))
        .route("/v1/tasks/{id}", get(task))
        .route("/v1/tasks/{id}/results", get(task_results))
        .route("/v1/agents/generations", post(create_generation))
        .route("/v1/agents/generations/{id}", get(generation))
        .route("/v1/agents/batch", post(crate::batch::create))
        .route("/v1/extract", post(crate::web::extract::<false>))
        .route("/v1/extract/async", post(crate::web::extract::<true>))
        .route("/v1/extract/batch", post(crate::batch::create_extract))
        .route("/v1/search", post(crate::web::search::<false>))
        .route("/v1/search/async", post(crate::web::search::<true>))
        .route("/v1/map", post(crate::web::map::<false>))
        .route("/v1/map/async", post(crate::web::map::<true>))
        .route(
            "/v1/crawl",
            post(crate::web::crawl).get(crate::web::crawl_list),
        )
        .route(
            "/v1/crawl/{id}",
            get(crate::web::crawl_get).delete(crate::web::crawl_delete),
        )
        .route("/v1/batches", get(crate::batch::list))
        .route("/v1/batches/{id}", get(crate::batch::details))
        .route("/v1/batches/{id}/progress", get(crate::batch::progress))
        .method_not_allowed_fallback(method_not_allowed)
        .route_layer(middleware::from_fn_with_state(state.clone(), faults))
        .route_layer(middleware::from_fn_with_state(state.clone(), rate_limit))
        .route_layer(middleware::from_fn_with_state(state.clone(), authenticate));
    api.fallback(not_found)
        .layer(middleware::from_fn(request_id))
        .layer(CatchPanicLayer::custom(panic_answer))
        .layer(middleware::from_fn(crate::request::keep_alive))
        .with_state(state)
}

/// A handler that panicked answers a JSON 500 (and the panic is logged) instead of dropping the
/// connection.
fn panic_answer(panic: Box<dyn std::any::Any + Send + 'static>) -> Response {
    let what = panic
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| panic.downcast_ref::<&str>().copied())
        .unwrap_or("a panic without a message");
    tracing::error!(panic = what, "handler panicked");
    ApiError::new(
        StatusCode::INTERNAL_SERVER_ERROR,
        "INTERNAL_ERROR",
        format!("the emulator failed while answering (a bug; please report it): {what}"),
    )
    .into_response()
}

async fn not_found(req: Request) -> ApiError {
    ApiError::not_found(format!("no endpoint {} {}", req.method(), req.uri().path()))
}

async fn method_not_allowed(req: Request) -> ApiError {
    ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        "METHOD_NOT_ALLOWED",
        format!("{} is not allowed on {}", req.method(), req.uri().path()),
    )
}

// ---------------------------------------------------------------------------------------------
// Layers

const X_TASK_ID: HeaderName = HeaderName::from_static("x-task-id");

/// Gives every request an id, sent back as `x-task-id` on every response.
async fn request_id(mut req: Request, next: Next) -> Response {
    let id = uuid::Uuid::new_v4().to_string();
    req.extensions_mut().insert(RequestId(id.clone()));
    let mut resp = next.run(req).await;
    if !resp.headers().contains_key(X_TASK_ID)
        && let Ok(v) = HeaderValue::from_str(&id)
    {
        resp.headers_mut().insert(X_TASK_ID, v);
    }
    resp
}

#[derive(Debug, Clone)]
struct RequestId(String);

/// The key of an `Authorization` header: the scheme `Bearer` in any case (RFC 9110 makes
/// schemes case-insensitive), then the key.
fn bearer_key(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?.trim();
    let (scheme, key) = value.split_once(|c: char| c.is_ascii_whitespace())?;
    let key = key.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !key.is_empty()).then_some(key)
}

/// Answers before the handler ran: the request body is drained first (bounded), so the
/// connection stays usable for the client's next request.
async fn reject(req: Request, answer: impl IntoResponse) -> Response {
    drain(req.into_body()).await;
    answer.into_response()
}

/// `Authorization: Bearer <key>`: 401 when missing or unknown, 402 and 403 for accounts
/// configured so. Requests are counted only for configured keys, so what strangers send leaves no
/// state behind.
async fn authenticate(AxState(state): AxState<Shared>, mut req: Request, next: Next) -> Response {
    let Some(key) = bearer_key(req.headers()) else {
        let answer = ApiError::new(
            StatusCode::UNAUTHORIZED,
            "UNAUTHORIZED",
            "missing credentials: send `Authorization: Bearer <API key>`",
        );
        return reject(req, answer).await;
    };
    state.count_request(key);
    let Some(account) = state.accounts.get(key).cloned() else {
        let answer = ApiError::new(StatusCode::UNAUTHORIZED, "UNAUTHORIZED", "invalid API key");
        return reject(req, answer).await;
    };
    let refusal = match account.status {
        AccountStatus::NoBudget => Some(ApiError::new(
            StatusCode::PAYMENT_REQUIRED,
            "PAYMENT_REQUIRED",
            format!("account {} has no budget left", account.name),
        )),
        AccountStatus::Blocked => Some(ApiError::new(
            StatusCode::FORBIDDEN,
            "FORBIDDEN",
            format!("account {} is blocked", account.name),
        )),
        AccountStatus::Active => None,
    };
    if let Some(answer) = refusal {
        return reject(req, answer).await;
    }
    let task_id = req
        .extensions()
        .get::<RequestId>()
        .map(|r| r.0.clone())
        .unwrap_or_default();
    let task_faults = crate::lifecycle::TaskFaults::from_headers(req.headers());
    req.extensions_mut().insert(Ctx {
        task_id,
        account,
        drift: false,
        task_faults,
    });
    next.run(req).await
}

/// Per-key rate limit: rate-limit headers in both spellings on every answer, 429 in the
/// configured body shape with `retry_after`, `Retry-After` and `retry-after-ms` when exceeded.
async fn rate_limit(AxState(state): AxState<Shared>, req: Request, next: Next) -> Response {
    let Some(ctx) = req.extensions().get::<Ctx>().cloned() else {
        return next.run(req).await;
    };
    let Some(info) = state.take(&ctx.account.key) else {
        return next.run(req).await;
    };
    let mut resp = match info.retry_after {
        Some(wait) => reject(req, rate_limited(&state, wait)).await,
        None => next.run(req).await,
    };
    let h = resp.headers_mut();
    for (name, value) in [
        ("x-ratelimit-limit", info.limit.to_string()),
        ("x-ratelimit-remaining", info.remaining.to_string()),
        ("x-ratelimit-reset", info.reset.to_string()),
        ("ratelimit-limit", info.limit.to_string()),
        ("ratelimit-remaining", info.remaining.to_string()),
    ] {
        if let Ok(v) = HeaderValue::from_str(&value) {
            h.insert(HeaderName::from_static(name), v);
        }
    }
    resp
}

/// A 429 answer. `retry_after` in the body and `Retry-After` are whole seconds, rounded up (the
/// documented unit); `retry-after-ms` carries the exact wait.
fn rate_limited(state: &State, wait: Duration) -> Response {
    let secs = wait.as_secs_f64().ceil().max(1.0) as u64;
    let message = format!("rate limit exceeded; retry in {} ms", wait.as_millis());
    let body = match state.next_shape() {
        RateLimitShape::Flat => json!({ "status": "failed", "msg": message }),
        _ => json!({
            "error": { "code": "RATE_LIMIT_EXCEEDED", "message": message, "retry_after": secs }
        }),
    };
    let mut resp = (StatusCode::TOO_MANY_REQUESTS, Json(body)).into_response();
    let h = resp.headers_mut();
    if let Ok(v) = HeaderValue::from_str(&secs.to_string()) {
        h.insert(header::RETRY_AFTER, v);
    }
    if let Ok(v) = HeaderValue::from_str(&wait.as_millis().max(1).to_string()) {
        h.insert(HeaderName::from_static("retry-after-ms"), v);
    }
    resp
}

/// Fault injection: the key's configured faults plus `x-emulator-fault` (comma-separated, see
/// [`Fault::parse`]) and `x-emulator-latency-ms` on the request.
async fn faults(AxState(state): AxState<Shared>, mut req: Request, next: Next) -> Response {
    let Some(mut ctx) = req.extensions().get::<Ctx>().cloned() else {
        return next.run(req).await;
    };
    let mut faults = state.take_faults(&ctx.account.key);
    let asked = req
        .headers()
        .get("x-emulator-fault")
        .and_then(|v| v.to_str().ok())
        .map_or(Ok(Vec::new()), |v| {
            v.split(',')
                .map(|part| {
                    Fault::parse(part).ok_or_else(|| {
                        ApiError::bad_request("x-emulator-fault", format!("unknown fault {part:?}"))
                    })
                })
                .collect::<Result<Vec<_>, _>>()
        });
    match asked {
        Ok(asked) => faults.extend(asked),
        Err(answer) => return reject(req, answer).await,
    }
    if let Some(ms) = req
        .headers()
        .get("x-emulator-latency-ms")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok())
    {
        faults.push(Fault::Latency(Duration::from_millis(ms.min(60_000))));
    }
    if faults.is_empty() {
        return next.run(req).await;
    }
    let mut after = None;
    for f in &faults {
        match f {
            Fault::Latency(d) => tokio::time::sleep(*d).await,
            Fault::Status(code) => {
                let status =
                    StatusCode::from_u16(*code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
                let code = match code {
                    500 => "INTERNAL_ERROR",
                    501 => "PROXY_ERROR",
                    555 => "REQUEST_TIMEOUT",
                    _ => "INJECTED_FAULT",
                };
                let answer = ApiError::new(
                    status,
                    code,
                    format!("injected fault: status {}", status.as_u16()),
                );
                return reject(req, answer).await;
            }
            Fault::RateLimited => {
                return reject(req, rate_limited(&state, Duration::from_millis(1000))).await;
            }
            Fault::Drift => ctx.drift = true,
            Fault::Panic => panic!("injected fault: panic"),
            Fault::Reset | Fault::Truncate | Fault::Malformed => after = Some(f.clone()),
        }
    }
    req.extensions_mut().insert(ctx);
    let resp = next.run(req).await;
    match after {
        Some(fault) => corrupt(resp, &fault).await,
        None => resp,
    }
}

/// Damages a response after the handler made it.
async fn corrupt(resp: Response, fault: &Fault) -> Response {
    let (mut parts, body) = resp.into_parts();
    let bytes = axum::body::to_bytes(body, usize::MAX)
        .await
        .unwrap_or_default();
    parts.headers.remove(header::CONTENT_LENGTH);
    let half = bytes.slice(..bytes.len() / 2);
    match fault {
        Fault::Reset => {
            let chunks: Vec<Result<Bytes, std::io::Error>> = vec![
                Ok(half),
                Err(std::io::Error::new(
                    std::io::ErrorKind::ConnectionReset,
                    "injected connection reset",
                )),
            ];
            Response::from_parts(parts, Body::from_stream(futures::stream::iter(chunks)))
        }
        Fault::Truncate => {
            parts.status = StatusCode::OK;
            Response::from_parts(parts, Body::from(half))
        }
        _ => {
            parts.status = StatusCode::OK;
            Response::from_parts(parts, Body::from("{\"url\": \"<html>not json</html>\", ]"))
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Request fields

// ---------------------------------------------------------------------------------------------
// Catalog

async fn list_agents(
    AxState(state): AxState<Shared>,
    Extension(ctx): Extension<Ctx>,
    ApiQuery(query): ApiQuery<ListQuery>,
) -> Result<Json<Vec<Value>>, ApiError> {
    state.settle(Instant::now());
    let catalog = state
        .catalog
        .read()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    catalog.list(&ctx.account.name, &query).map(Json)
}

async fn agent_details(
    AxState(state): AxState<Shared>,
    Extension(ctx): Extension<Ctx>,
    ApiPath(name): ApiPath<String>,
) -> Result<Json<Value>, ApiError> {
    state.settle(Instant::now());
    let catalog = state
        .catalog
        .read()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    match catalog.get(&ctx.account.name, &name) {
        Some(e) => serde_json::to_value(&*e.record).map(Json).map_err(|e| {
            ApiError::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                "INTERNAL_ERROR",
                e.to_string(),
            )
        }),
        None => Err(catalog.unknown(&ctx.account.name, &name, StatusCode::NOT_FOUND)),
    }
}

// ---------------------------------------------------------------------------------------------
// Agent runs

/// A checked agent request, ready to run.
pub(crate) struct Checked {
    pub(crate) spec: synth::RunSpec,
    pub(crate) request: Value,
}

fn check_run(state: &State, ctx: &Ctx, body: Map<String, Value>) -> Result<Checked, ApiError> {
    state.settle(Instant::now());
    let agent = required_str(&body, "agent")?;
    if body.get("params").is_none_or(Value::is_null) {
        return Err(ApiError::bad_request(
            "params",
            "missing required field `params`",
        ));
    }
    let formats = formats(&body, "formats")?;
    let record = state.find_agent(&ctx.account.name, agent)?;
    let params = body.get("params").cloned().unwrap_or(Value::Null);
    params::check(&record, &params, body.get("localization"), "params")?;
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

async fn run(
    AxState(state): AxState<Shared>,
    Extension(ctx): Extension<Ctx>,
    ApiJson(body): ApiJson,
) -> Result<Json<Value>, ApiError> {
    let checked = check_run(&state, &ctx, body)?;
    Ok(Json(checked.spec.result(&ctx.task_id)))
}

async fn run_async(
    AxState(state): AxState<Shared>,
    Extension(ctx): Extension<Ctx>,
    ApiJson(mut body): ApiJson,
) -> Result<Json<Value>, ApiError> {
    crate::delivery::check(&mut body)?;
    let deliver = crate::delivery::Delivery::from_body(&body);
    let checked = check_run(&state, &ctx, body)?;
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
        (duration, end),
        checked.request,
    );
    let answer = task.created(
        Instant::now(),
        state.base_url.get().map_or("", String::as_str),
    );
    lock(&state.tasks).insert(task_id.clone(), task);
    if let Some(d) = deliver {
        crate::delivery::schedule(state.clone(), task_id, d);
    }
    Ok(Json(answer))
}

pub(crate) fn find_task(state: &State, ctx: &Ctx, id: &str) -> Result<Task, ApiError> {
    lock(&state.tasks)
        .get(id)
        .filter(|t| t.account == ctx.account.name)
        .cloned()
        .ok_or_else(|| ApiError::not_found(format!("no task {id}")).at("task_id"))
}

/// Query of `GET /v1/tasks` (vendor models: a cursor and a page size).
#[derive(Debug, Default, serde::Deserialize)]
pub(crate) struct TaskListQuery {
    /// Where the previous page ended (its `next_cursor`).
    cursor: Option<String>,
    /// Tasks per page (default 50; at most 1,000 are returned).
    limit: Option<String>,
}

/// `GET /v1/tasks`: the account's tasks, newest first, a page at a time (`{data, pagination}`).
async fn list_tasks(
    AxState(state): AxState<Shared>,
    Extension(ctx): Extension<Ctx>,
    ApiQuery(query): ApiQuery<TaskListQuery>,
) -> Result<Json<Value>, ApiError> {
    let offset = match query.cursor.as_deref().filter(|c| !c.is_empty()) {
        None => 0,
        Some(c) => c.parse::<usize>().map_err(|_| {
            ApiError::invalid(
                "cursor",
                format!("unknown cursor {c:?}: pass a next_cursor back"),
            )
        })?,
    };
    let limit = crate::catalog::parse_count("limit", query.limit.as_deref(), 50)?.clamp(1, 1_000);
    let now = Instant::now();
    let base = state.base_url.get().map_or("", String::as_str);
    let tasks = lock(&state.tasks);
    let mut mine: Vec<&Task> = tasks
        .values()
        .filter(|t| t.account == ctx.account.name)
        .collect();
    mine.sort_by(|a, b| b.created.cmp(&a.created).then_with(|| a.id.cmp(&b.id)));
    let total = mine.len();
    let data: Vec<Value> = mine
        .iter()
        .skip(offset)
        .take(limit)
        .map(|t| t.json(now, base))
        .collect();
    let next = offset.saturating_add(limit);
    Ok(Json(json!({
        "data": data,
        "pagination": {
            "has_next": next < total,
            "next_cursor": (next < total).then(|| next.to_string()),
            "total": total,
        },
    })))
}

async fn task(
    AxState(state): AxState<Shared>,
    Extension(ctx): Extension<Ctx>,
    ApiPath(id): ApiPath<String>,
) -> Result<Json<Value>, ApiError> {
    let t = find_task(&state, &ctx, &id)?;
    let base = state.base_url.get().map_or("", String::as_str);
    Ok(Json(t.record(Instant::now(), base)))
}

/// Results of a task: the run result once `success`; 400 while pending; 422 when it failed.
async fn task_results(
    AxState(state): AxState<Shared>,
    Extension(ctx): Extension<Ctx>,
    ApiPath(id): ApiPath<String>,
) -> Result<Json<Value>, ApiError> {
    let t = find_task(&state, &ctx, &id)?;
    match (t.state(Instant::now()), &t.end) {
        (TaskState::Pending, _) => Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            "TASK_NOT_READY",
            format!("task {id} is pending; poll GET /v1/tasks/{id} until its state is success"),
        )
        .at("task_id")),
        (_, TaskEnd::Success(spec)) => Ok(Json(spec.result(&t.id))),
        (_, TaskEnd::Value(v)) => Ok(Json((**v).clone())),
        (_, TaskEnd::Error(e)) => Err(ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "TASK_FAILED",
            format!("task {id} ended in state error: {e}"),
        )
        .at("task_id")),
    }
}

// ---------------------------------------------------------------------------------------------
// Generations

async fn create_generation(
    AxState(state): AxState<Shared>,
    Extension(ctx): Extension<Ctx>,
    ApiJson(body): ApiJson,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    state.settle(Instant::now());
    let prompt = required_str(&body, "prompt")?;
    if prompt.trim().is_empty() {
        return Err(ApiError::bad_request("prompt", "prompt must not be empty"));
    }
    let account = ctx.account.name.clone();
    let lifecycle = state.config.lifecycle;
    let (agent_name, source_version, end, running) = if let Some(from) =
        optional_str(&body, "from_agent")?
    {
        let catalog = state
            .catalog
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let entry = catalog
            .get(&account, from)
            .ok_or_else(|| ApiError::invalid("from_agent", format!("unknown agent `{from}`")))?;
        if entry.owner.is_none() {
            return Err(ApiError::invalid(
                "from_agent",
                format!("`{from}` is a public agent; only your own agents can be refined"),
            ));
        }
        let end = match generate::refine(&entry.record, prompt) {
            Ok(record) => success(record),
            Err(e) => GenerationEnd::Failed(e),
        };
        (
            from.to_owned(),
            entry.version.clone(),
            end,
            lifecycle.generation_refine,
        )
    } else {
        let url = required_str(&body, "url")?;
        if !http_url(url) {
            return Err(ApiError::bad_request(
                "url",
                format!("invalid url {url:?}: expected an http(s) URL of a sample page"),
            ));
        }
        let (field, name) = match (
            optional_str(&body, "agent_name")?,
            optional_str(&body, "name")?,
        ) {
            (Some(n), _) => ("agent_name", n.to_owned()),
            (None, Some(n)) => ("name", n.to_owned()),
            (None, None) => ("url", generate::name_from_url(url)),
        };
        if !generate::valid_name(&name) {
            return Err(ApiError::invalid(
                field,
                format!("agent name {name:?} must be lowercase letters, digits and underscores"),
            ));
        }
        let taken = state
            .catalog
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .exists(&name)
            || lock(&state.generations)
                .values()
                .any(|g| g.agent_name == name && !g.published && g.source_version_id.is_none());
        if taken {
            return Err(ApiError::invalid(
                field,
                format!(
                    "an agent named `{name}` already exists; refine it with from_agent or choose another name"
                ),
            ));
        }
        let end = match generate::new_agent(
            &name,
            prompt,
            url,
            body.get("input_schema").filter(|v| !v.is_null()),
            body.get("output_schema").filter(|v| !v.is_null()),
            body.get("metadata").filter(|v| !v.is_null()),
        ) {
            Ok(record) => success(record),
            Err(e) => GenerationEnd::Failed(e),
        };
        (name, None, end, lifecycle.generation_new)
    };
    {
        let mut log = lock(&state.generation_log);
        let today = crate::state::generations_today(&log, &account);
        if today >= state.config.generation_daily_limit as usize {
            return Err(ApiError::new(
                StatusCode::PAYMENT_REQUIRED,
                "GENERATION_LIMIT_REACHED",
                format!(
                    "daily limit of {} agent generations reached for account {account}",
                    state.config.generation_daily_limit
                ),
            ));
        }
        log.entry(account.clone())
            .or_default()
            .push(SystemTime::now());
    }
    let now = Instant::now();
    let id = uuid::Uuid::new_v4().to_string();
    let generation = Generation {
        id: id.clone(),
        account,
        agent_name: agent_name.clone(),
        source_version_id: source_version,
        created: SystemTime::now(),
        created_at: now,
        starts_at: now + lifecycle.generation_queued,
        ends_at: now + lifecycle.generation_queued + running,
        end,
        published: false,
    };
    lock(&state.generations).insert(id.clone(), generation);
    Ok((
        StatusCode::CREATED,
        Json(json!({ "id": id, "status": "queued", "agent_name": agent_name })),
    ))
}

fn success(record: agents_schema::AgentRecord) -> GenerationEnd {
    let fields = record.output_schema.as_ref().map_or(0, |s| s.len());
    let summary = format!(
        "Extracts {fields} fields ({}) from {} pages",
        record
            .output_schema
            .as_ref()
            .map(|s| s.keys().cloned().collect::<Vec<_>>().join(", "))
            .unwrap_or_default(),
        record.domain.as_deref().unwrap_or("the sample site's"),
    );
    GenerationEnd::Success {
        record: Box::new(record),
        version_id: uuid::Uuid::new_v4().to_string(),
        summary,
    }
}

async fn generation(
    AxState(state): AxState<Shared>,
    Extension(ctx): Extension<Ctx>,
    ApiPath(id): ApiPath<String>,
) -> Result<Json<Value>, ApiError> {
    let now = Instant::now();
    state.settle(now);
    lock(&state.generations)
        .get(&id)
        .filter(|g| g.account == ctx.account.name)
        .map(|g| Json(g.record(now)))
        .ok_or_else(|| ApiError::not_found(format!("no generation {id}")).at("generation_id"))
}

/// Adds a fault rule for `key` (used by the handle).
pub(crate) fn inject(state: &State, key: &str, fault: Fault, times: Option<u32>) {
    lock(&state.faults)
        .entry(key.to_owned())
        .or_default()
        .push(FaultRule { fault, times });
}
