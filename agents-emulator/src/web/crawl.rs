//! Crawls: discovered pages as tasks on the lifecycle clock, their records, the webhook calls,
//! and listing and terminating them.

use std::sync::Arc;
use std::time::{Instant, SystemTime};

use axum::Extension;
use axum::Json;
use axum::extract::State as AxState;
use axum::http::StatusCode;
use serde_json::{Map, Value, json};

use crate::error::ApiError;
use crate::lifecycle::{Flow, Task, TaskEnd, TaskState};
use crate::params::kind;
use crate::request::{ApiJson, ApiPath, Ctx, required_str};
use crate::state::{State, lock};
use crate::wire::timestamp;

use super::discover::{Discover, MAX_CRAWL_PAGES, discover, discover_options};
use super::extract::extract_result;
use super::page::{Shared, parse_url};

pub use crate::model::Crawl;

/// The crawl's page statuses and counts at `now`.
pub(super) struct CrawlPages {
    list: Vec<Value>,
    done: usize,
    failed: usize,
    pending: usize,
    /// When the last page ended, once every page has.
    last_end: Option<SystemTime>,
}

pub(super) fn crawl_pages(state: &State, c: &Crawl, now: Instant) -> CrawlPages {
    let tasks = lock(&state.tasks);
    let mut pages = CrawlPages {
        list: Vec::with_capacity(c.tasks.len()),
        done: 0,
        failed: 0,
        pending: 0,
        last_end: None,
    };
    for t in c.tasks.iter().filter_map(|id| tasks.get(id)) {
        let state = t.state(now);
        let status = match state {
            TaskState::Pending if c.canceled_at.is_some() => "failed",
            TaskState::Pending => "pending",
            TaskState::Success => "completed",
            TaskState::Error => "failed",
        };
        match status {
            "pending" => pages.pending += 1,
            "completed" => pages.done += 1,
            _ => pages.failed += 1,
        }
        let updated = if state == TaskState::Pending {
            t.created
        } else {
            t.created + t.duration
        };
        if state != TaskState::Pending {
            pages.last_end = Some(pages.last_end.map_or(updated, |l| l.max(updated)));
        }
        pages.list.push(json!({
            "task_id": t.id,
            "status": status,
            "created_at": timestamp(t.created),
            "updated_at": timestamp(updated),
        }));
    }
    pages
}

/// The crawl record at `now` (as the live service and the vendor's models answer): `completed_at` is when the last page
/// ended (or the crawl was canceled), the same on every read.
pub(super) fn crawl_record(state: &State, c: &Crawl, now: Instant) -> Value {
    let pages = crawl_pages(state, c, now);
    let status = if c.canceled_at.is_some() {
        "canceled"
    } else if pages.pending > 0 && now < c.started + c.queued_for {
        "queued"
    } else if pages.pending > 0 {
        "running"
    } else if pages.done == 0 && pages.failed > 0 {
        "failed"
    } else {
        "succeeded"
    };
    let completed_at = match (c.canceled_at, pages.pending) {
        (Some(t), _) => Some(t),
        (None, 0) => Some(pages.last_end.unwrap_or(c.created)),
        _ => None,
    };
    let updated = completed_at.or(pages.last_end).unwrap_or(c.created);
    json!({
        "crawl_id": c.id,
        "account_name": c.account,
        "name": c.options.get("name"),
        "url": c.url,
        "status": status,
        "tasks": pages.list,
        "total": c.tasks.len(),
        "completed": pages.done,
        "failed": pages.failed,
        "pending": pages.pending,
        "created_at": timestamp(c.created),
        "updated_at": timestamp(updated),
        "completed_at": completed_at.map(timestamp),
        "crawl_options": c.options,
        "extract_options": c.options.get("extract_options"),
    })
}

/// `crawl_options` as the record echoes them: what was asked, with the defaults filled in.
pub(super) fn crawl_options(body: &Map<String, Value>, d: &Discover) -> Value {
    let mut o = body.clone();
    o.remove("url");
    for flag in [
        "allow_external_links",
        "allow_subdomains",
        "crawl_entire_domain",
        "ignore_query_parameters",
    ] {
        o.entry(flag).or_insert(json!(false));
    }
    o.entry("limit").or_insert(json!(d.limit));
    o.entry("max_discovery_depth").or_insert(json!(d.max_depth));
    o.insert("sitemap".into(), json!(d.sitemap));
    Value::Object(o)
}

/// Crawl webhook events (as the live service answers).
pub(super) const CRAWL_EVENTS: [&str; 4] = ["started", "page", "completed", "failed"];

/// A crawl's `callback`: a URL, or `{url, headers, metadata, events}`.
#[derive(Debug, Clone)]
pub(super) struct Callback {
    url: String,
    headers: Map<String, Value>,
    metadata: Value,
    events: Vec<String>,
}

pub(super) fn crawl_callback(body: &Map<String, Value>) -> Result<Option<Callback>, ApiError> {
    let url_of = |v: &str, at: &str| {
        parse_url(v, at)?;
        Ok::<_, ApiError>(v.to_owned())
    };
    match body.get("callback") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(u)) => Ok(Some(Callback {
            url: url_of(u, "callback")?,
            headers: Map::new(),
            metadata: Value::Null,
            events: CRAWL_EVENTS.iter().map(|e| (*e).to_owned()).collect(),
        })),
        Some(Value::Object(o)) => {
            let url = match o.get("url") {
                Some(Value::String(u)) => url_of(u, "callback.url")?,
                _ => {
                    return Err(ApiError::missing(
                        "callback.url",
                        "callback needs a url (a string)",
                    ));
                }
            };
            let headers = match o.get("headers") {
                None | Some(Value::Null) => Map::new(),
                Some(Value::Object(h)) if h.values().all(Value::is_string) => h.clone(),
                Some(_) => {
                    return Err(ApiError::wrong_type(
                        "callback.headers",
                        "callback.headers must map header names to strings",
                    ));
                }
            };
            let events = match o.get("events") {
                None | Some(Value::Null) => CRAWL_EVENTS.iter().map(|e| (*e).to_owned()).collect(),
                Some(Value::Array(list)) => list
                    .iter()
                    .enumerate()
                    .map(|(i, e)| match e.as_str() {
                        Some(e) if CRAWL_EVENTS.contains(&e) => Ok(e.to_owned()),
                        _ => Err(ApiError::refused(
                            format!("callback.events[{i}]"),
                            format!("unknown event {e}; known: {}", CRAWL_EVENTS.join(", ")),
                        )),
                    })
                    .collect::<Result<_, _>>()?,
                Some(_) => {
                    return Err(ApiError::wrong_type(
                        "callback.events",
                        "callback.events must be a list",
                    ));
                }
            };
            Ok(Some(Callback {
                url,
                headers,
                metadata: o.get("metadata").cloned().unwrap_or(Value::Null),
                events,
            }))
        }
        Some(other) => Err(ApiError::wrong_type(
            "callback",
            format!("callback must be a URL or an object, not {}", kind(other)),
        )),
    }
}

/// Calls a crawl's webhook as it moves: `started` now, `page` as each page ends, then `completed`
/// or `failed`; problems are kept as the crawl's delivery errors.
pub(super) fn schedule_callbacks(state: Arc<State>, crawl_id: String, cb: Callback) {
    tokio::spawn(async move {
        let mut errors = Vec::new();
        let send = |event: &'static str, extra: Value| {
            let cb = &cb;
            let crawl_id = &crawl_id;
            let at = state.clock.wall();
            async move {
                if !cb.events.iter().any(|e| e == event) {
                    return Ok(());
                }
                let mut payload = json!({
                    "event": event,
                    "crawl_id": crawl_id,
                    "metadata": cb.metadata,
                    "timestamp": timestamp(at),
                });
                if let (Value::Object(p), Value::Object(x)) = (&mut payload, extra) {
                    p.extend(x);
                }
                crate::delivery::post_webhook(&cb.url, &cb.headers, &payload).await
            }
        };
        errors.extend(send("started", json!({})).await.err());
        let ends: Vec<(String, Instant)> = {
            let crawls = lock(&state.crawls);
            let tasks = lock(&state.tasks);
            crawls
                .get(&crawl_id)
                .map(|c| {
                    c.tasks
                        .iter()
                        .filter_map(|id| tasks.get(id).map(|t| (t.id.clone(), t.ends_at)))
                        .collect()
                })
                .unwrap_or_default()
        };
        let mut ends = ends;
        ends.sort_by_key(|(_, at)| *at);
        for (task_id, at) in ends {
            state.clock.sleep_until(at).await;
            let status = lock(&state.tasks).get(&task_id).map_or("failed", |t| {
                match t.state(state.clock.now()) {
                    TaskState::Success => "completed",
                    _ => "failed",
                }
            });
            let page = json!({ "task_id": task_id, "status": status });
            errors.extend(send("page", page).await.err());
        }
        let record = lock(&state.crawls)
            .get(&crawl_id)
            .cloned()
            .map(|c| crawl_record(&state, &c, state.clock.now()));
        let ended = record
            .as_ref()
            .and_then(|r| r["status"].as_str())
            .unwrap_or("failed");
        let event = if ended == "succeeded" {
            "completed"
        } else {
            "failed"
        };
        errors.extend(send(event, json!({ "status": ended })).await.err());
        if !errors.is_empty() {
            tracing::warn!(crawl = %crawl_id, ?errors, "crawl callback problems");
            lock(&state.delivery_errors).insert(crawl_id, errors);
        }
    });
}

/// `POST /v1/crawl`: discovers up to `limit` pages and makes each an extract task.
pub(crate) async fn crawl(
    AxState(state): AxState<Shared>,
    Extension(ctx): Extension<Ctx>,
    ApiJson(body): ApiJson,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    let url = parse_url(required_str(&body, "url")?, "url")?;
    let d = discover_options(&body, 10, MAX_CRAWL_PAGES)?;
    let callback = crawl_callback(&body)?;
    if let Some(o) = body
        .get("extract_options")
        .filter(|v| !v.is_null() && !v.is_object())
    {
        return Err(ApiError::wrong_type(
            "extract_options",
            format!("extract_options must be an object, not {}", kind(o)),
        ));
    }
    let options = crawl_options(&body, &d);
    let pages = discover(&url, &d).await;
    let now = state.clock.now();
    let created = state.clock.wall();
    let base = state.config.lifecycle.task;
    let mut ids = Vec::new();
    for (i, (u, page)) in pages.into_iter().enumerate() {
        let id = uuid::Uuid::new_v4().to_string();
        let end = match page {
            Some(_) => {
                let mut req = Map::new();
                req.insert("url".into(), json!(u.as_str()));
                req.insert("formats".into(), json!(["html", "markdown", "links"]));
                match extract_result(&req, &id, state.clock.wall()).await {
                    Ok(r) => TaskEnd::Value(Arc::new(r)),
                    Err(e) => TaskEnd::Error(e.message),
                }
            }
            None => TaskEnd::Error(format!("cannot fetch {u}")),
        };
        let duration = base + base * u32::try_from(i % 5).unwrap_or(0) / 4;
        lock(&state.tasks).insert(
            id.clone(),
            Task::new(
                id.clone(),
                &ctx.account.name,
                "crawl",
                "extract",
                Flow::Pending,
                (&state.clock, duration, end),
                json!({ "url": u.as_str() }),
            ),
        );
        ids.push(id);
    }
    let c = Crawl {
        id: ctx.task_id.clone(),
        account: ctx.account.name.clone(),
        url: url.to_string(),
        created,
        started: now,
        queued_for: base / 2,
        tasks: ids,
        canceled_at: None,
        options,
    };
    let record = crawl_record(&state, &c, now);
    lock(&state.crawls).insert(c.id.clone(), c);
    if let Some(cb) = callback {
        schedule_callbacks(state.clone(), ctx.task_id.clone(), cb);
    }
    Ok((StatusCode::OK, Json(record)))
}

pub(super) fn find_crawl(state: &State, ctx: &Ctx, id: &str) -> Result<Crawl, ApiError> {
    lock(&state.crawls)
        .get(id)
        .filter(|c| c.account == ctx.account.name)
        .cloned()
        .ok_or_else(|| ApiError::not_found(format!("no crawl {id}")).at("crawl_id"))
}

/// `GET /v1/crawl/{id}`.
pub(crate) async fn crawl_get(
    AxState(state): AxState<Shared>,
    Extension(ctx): Extension<Ctx>,
    ApiPath(id): ApiPath<String>,
) -> Result<Json<Value>, ApiError> {
    let c = find_crawl(&state, &ctx, &id)?;
    Ok(Json(crawl_record(&state, &c, state.clock.now())))
}

/// `DELETE /v1/crawl/{id}`: pending pages fail, the crawl is canceled.
pub(crate) async fn crawl_delete(
    AxState(state): AxState<Shared>,
    Extension(ctx): Extension<Ctx>,
    ApiPath(id): ApiPath<String>,
) -> Result<Json<Value>, ApiError> {
    find_crawl(&state, &ctx, &id)?;
    let now = state.clock.now();
    {
        let mut crawls = lock(&state.crawls);
        if let Some(c) = crawls.get_mut(&id)
            && c.canceled_at.is_none()
        {
            c.canceled_at = Some(state.clock.wall());
            let mut tasks = lock(&state.tasks);
            for t in &c.tasks {
                if let Some(task) = tasks.get_mut(t)
                    && task.state(now) == TaskState::Pending
                {
                    task.end = TaskEnd::Error("crawl canceled".into());
                    task.ends_at = now;
                }
            }
        }
    }
    let c = find_crawl(&state, &ctx, &id)?;
    Ok(Json(crawl_record(&state, &c, now)))
}

/// `GET /v1/crawl`: the account's crawls, newest first.
pub(crate) async fn crawl_list(
    AxState(state): AxState<Shared>,
    Extension(ctx): Extension<Ctx>,
) -> Json<Value> {
    let mut mine: Vec<Crawl> = lock(&state.crawls)
        .values()
        .filter(|c| c.account == ctx.account.name)
        .cloned()
        .collect();
    mine.sort_by(|a, b| b.created.cmp(&a.created).then_with(|| a.id.cmp(&b.id)));
    let now = state.clock.now();
    let total = mine.len();
    // The vendor's models page the list (`{data, pagination}`); the service's documentation does not show it.
    Json(json!({
        "data": mine.iter().map(|c| crawl_record(&state, c, now)).collect::<Vec<_>>(),
        "pagination": { "has_next": false, "next_cursor": null, "total": total },
    }))
}
