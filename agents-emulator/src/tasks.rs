//! Tasks: the account's list, one task's record, and a finished task's result.

use std::sync::Arc;

use agents_schema::Json as Written;
use axum::extract::State as AxState;
use axum::http::StatusCode;
use axum::{Extension, Json};
use serde_json::{Value, json};

use crate::error::ApiError;
use crate::lifecycle::{Task, TaskEnd, TaskState};
use crate::request::{ApiPath, ApiQuery, Ctx};
use crate::state::{State, lock};

type Shared = Arc<State>;

pub(crate) fn find_task(state: &State, ctx: &Ctx, id: &str) -> Result<Task, ApiError> {
    lock(&state.tasks)
        .get(id)
        .filter(|t| t.account == ctx.account.name)
        .cloned()
        .ok_or_else(|| ApiError::not_found(format!("no task {id}")).at("task_id"))
}

/// Query of the task list (vendor models: a cursor and a page size).
#[derive(Debug, Default, serde::Deserialize)]
pub(crate) struct TaskListQuery {
    /// Where the previous page ended (its `next_cursor`).
    cursor: Option<String>,
    /// Tasks per page (default 50; at most 1,000 are returned).
    limit: Option<String>,
}

/// The account's tasks, newest first, a page at a time (`{data, pagination}`).
pub(crate) async fn list(
    AxState(state): AxState<Shared>,
    Extension(ctx): Extension<Ctx>,
    ApiQuery(query): ApiQuery<TaskListQuery>,
) -> Result<Json<Value>, ApiError> {
    let offset = match query.cursor.as_deref().filter(|c| !c.is_empty()) {
        None => 0,
        Some(c) => c.parse::<usize>().map_err(|_| {
            ApiError::refused(
                "cursor",
                format!("unknown cursor {c:?}: pass a next_cursor back"),
            )
        })?,
    };
    let limit = crate::catalog::parse_count("limit", query.limit.as_deref(), 50)?.clamp(1, 1_000);
    let now = state.clock.now();
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

pub(crate) async fn get(
    AxState(state): AxState<Shared>,
    Extension(ctx): Extension<Ctx>,
    ApiPath(id): ApiPath<String>,
) -> Result<Json<Value>, ApiError> {
    let t = find_task(&state, &ctx, &id)?;
    let base = state.base_url.get().map_or("", String::as_str);
    Ok(Json(t.record(state.clock.now(), base)))
}

/// Results of a task: the run result once `success`; 400 while pending; 422 when it failed.
pub(crate) async fn results(
    AxState(state): AxState<Shared>,
    Extension(ctx): Extension<Ctx>,
    ApiPath(id): ApiPath<String>,
) -> Result<Json<Written>, ApiError> {
    let t = find_task(&state, &ctx, &id)?;
    match (t.state(state.clock.now()), &t.end) {
        (TaskState::Pending, _) => Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            "TASK_NOT_READY",
            format!("task {id} is pending; poll the task until its state is success"),
        )
        .at("task_id")),
        (_, TaskEnd::Success(spec)) => Ok(Json(spec.result(&t.id, t.created))),
        (_, TaskEnd::Value(v)) => Ok(Json(Written::from(&**v))),
        (_, TaskEnd::Error(e)) => Err(ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "TASK_FAILED",
            format!("task {id} ended in state error: {e}"),
        )
        .at("task_id")),
    }
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
        endpoint::TASK_LIST => on(method, list),
        endpoint::TASK_GET => on(method, get),
        endpoint::TASK_RESULTS => on(method, results),
        _ => return None,
    })
}
