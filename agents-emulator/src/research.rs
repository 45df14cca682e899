//! Research agents (`/v2/agents`, `/v1/task-agents`): agents made, listed, changed by JSON Patch
//! and deactivated; runs that take seconds (`--fast`: a fraction of one), publish their progress
//! as server-sent events, and end with an answer that satisfies the agent's output schema, whose
//! claims point at parts of the answer that exist and cite pages this emulator serves on
//! loopback (`/research-pages/…`).
//!
//! As tasks do, a run follows the clock: its status, its events and its answer are computed
//! from when it was made, never advanced by a background loop. Faults, per request: the run
//! faults of [`crate::lifecycle::TASK_FAULTS`] (`x-emulator-task: error` makes a run fail,
//! `x-emulator-task-ms` sets how long it takes) and [`EVENT_FAULTS`] on the events request.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::{Duration, Instant};

use agents_runtime::endpoint::ApiVersion;
use agents_runtime::research::{Broken, check_agent, check_run};
use agents_runtime::words::{KEPT, respell};
use agents_schema::sample::PageLike;
use agents_schema::{Json as Written, SchemaOrder};
use axum::body::Bytes;
use axum::extract::State as AxState;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use serde_json::{Map, Value, json};

use crate::error::ApiError;
use crate::jobs::{OffsetPage, PageQuery, offset_page};
use crate::patched;
use crate::request::{ApiBytes, ApiJsonWritten, ApiPath, ApiQuery, Ctx, object, read_schema};
use crate::research_model::{
    Agent, FAILURE, RECORD_WORDS, Run, Status, agent_json, refuse, template_json, templates,
};
use crate::state::{State, lock};
use crate::wire::timestamp;

type Shared = Arc<State>;

/// Where the pages runs cite are served (no key needed, as a web page's).
pub const PAGES_PREFIX: &str = "/research-pages/";

/// Claims one answer makes at most.
const MAX_CLAIMS: usize = 24;

/// The event faults an events request can ask for, by header.
pub const EVENT_FAULTS: [(&str, &str); 1] = [(
    "x-emulator-events",
    "`cut`: the stream ends after two events, before the run does (resume with \
     Last-Event-ID); `stall`: after the first event nothing more is sent, keep-alives \
     included, until the client gives up",
)];

// ---------------------------------------------------------------------------------------------
// The answer

/// A JSON answer's leaves, as claim paths (`offers[0].price`), in document order.
fn leaves(value: &Written, path: &str, out: &mut Vec<String>) {
    match value {
        Written::Object(m) => {
            for (k, v) in m {
                leaves(v, &agents_schema::join_path(path, k), out);
            }
        }
        Written::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                leaves(v, &format!("{path}[{i}]"), out);
            }
        }
        _ => out.push(path.trim_start_matches('.').to_owned()),
    }
}

/// The answer content of a run, and the paths that came from `input_data` (not researched).
fn content(run: &Run) -> (Value, Vec<String>) {
    run.content.get_or_init(|| make_content(run)).clone()
}

fn make_content(run: &Run) -> (Value, Vec<String>) {
    let Some(schema) = &run.output_schema else {
        let text = format!(
            "Research on \u{201c}{}\u{201d}: the sources agree on the main point [1], \
             and a second source adds the figures [2]. A third confirms the date [3].",
            run.prompt
        );
        return (Value::String(text), Vec::new());
    };
    // Checked when the run started.
    let compiled = agents_runtime::check::Schema::compile(schema);
    let sample = |seed: u64| compiled.sample(seed, &PageLike::default());
    let merge = |given: &Value, seed: u64, pre: &mut Vec<String>, at: &str| {
        let mut row = sample(seed);
        if let (Some(row), Some(given)) = (row.as_object_mut(), given.as_object()) {
            for (k, v) in given {
                row.insert(k.clone(), v.clone());
                leaves(&Written::from(v), &agents_schema::join_path(at, k), pre);
            }
        }
        row
    };
    let mut pre = Vec::new();
    let content = match &run.input_data {
        Some(Value::Array(rows)) => Value::Array(
            rows.iter()
                .enumerate()
                .map(|(i, r)| merge(r, run.seed() + i as u64, &mut pre, &format!("[{i}]")))
                .collect(),
        ),
        Some(given) => merge(given, run.seed(), &mut pre, ""),
        None => sample(run.seed()),
    };
    (content, pre)
}

/// The pages a run reads: `(url, title, excerpt)` of each, served under [`PAGES_PREFIX`].
fn pages(run: &Run, base: &str, n: usize) -> Vec<(String, String, String)> {
    (1..=n)
        .map(|i| {
            (
                format!("{base}{PAGES_PREFIX}{}/{i}", run.id),
                format!("Source {i} on {}", short(&run.prompt)),
                format!(
                    "Passage {i}: what this page says about {}.",
                    short(&run.prompt)
                ),
            )
        })
        .collect()
}

fn short(text: &str) -> String {
    let t: String = text.chars().take(60).collect();
    if t.len() < text.len() {
        format!("{t}…")
    } else {
        t
    }
}

const CATEGORIES: [&str; 4] = ["official", "news", "academic", "aggregator"];

fn citation(page: &(String, String, String), i: usize) -> Value {
    json!({
        "url": page.0,
        "title": page.1,
        "excerpts": [page.2],
        "extract_template_name": null,
        "source_category": CATEGORIES[i % CATEGORIES.len()],
        "source_intent": "official",
        "source_type": if i == 0 { "primary" } else { "secondary" },
    })
}

/// The claims of an answer: one per leaf (up to [`MAX_CLAIMS`]) for JSON, one per callout for
/// text, each citing a page.
fn claims(
    run: &Run,
    content: &Value,
    pre: &[String],
    pages: &[(String, String, String)],
) -> Vec<Value> {
    if let Value::String(_) = content {
        return (0..pages.len())
            .map(|i| {
                json!({
                    "callout": i + 1,
                    "citations": [citation(&pages[i], i)],
                    "confidence": if i == 0 { "high" } else { "medium" },
                    "reasoning": format!("Stated on {}.", pages[i].1),
                })
            })
            .collect();
    }
    // In the order the schema lists the fields, as a model fills them in.
    let content = match &run.written_schema {
        Some(schema) => SchemaOrder::new(schema).arrange(content),
        None => Written::from(content),
    };
    let mut paths = Vec::new();
    leaves(&content, "", &mut paths);
    // Shallow fields first, so a long answer's claims cover its top-level fields.
    paths.sort_by_key(|p| p.matches(['.', '[']).count());
    paths
        .into_iter()
        .take(MAX_CLAIMS)
        .enumerate()
        .map(|(i, path)| {
            let given = pre.contains(&path);
            let page = &pages[i % pages.len()];
            json!({
                "path": path,
                "citations": if given { json!([]) } else { json!([citation(page, i % pages.len())]) },
                "confidence": if given { "pre_existing" } else if i % 3 == 2 { "medium" } else { "high" },
                "reasoning": if given {
                    "Given in input_data; kept as is.".to_owned()
                } else {
                    format!("Read on {} while answering {:?}.", page.1, short(&run.prompt))
                },
            })
        })
        .collect()
}

/// The `output` of a completed run.
fn output(run: &Run, base: &str) -> Value {
    let pages = pages(run, base, 3);
    let (content, pre) = content(run);
    let claims = claims(run, &content, &pre, &pages);
    let kind = if content.is_string() { "text" } else { "json" };
    json!({
        "type": kind,
        "content": content,
        "trust": {
            "confidence": "high",
            "reasoning": format!("{} sources agree; the first is primary.", pages.len()),
            "claims": claims,
            "sources": pages.iter().enumerate().map(|(i, p)| json!({
                "type": if i == 0 { "primary" } else { "secondary" },
                "url": p.0,
                "title": p.1,
                "extract_template_name": null,
                "source_category": CATEGORIES[i % CATEGORIES.len()],
                "source_intent": "official",
            })).collect::<Vec<_>>(),
        },
    })
}

/// A run's events as they happen: `(when, name, data)`, the last its final status.
fn timeline(run: &Run, base: &str) -> Vec<(Instant, &'static str, Value)> {
    let pages = pages(run, base, 3);
    let span = run.ends_at.saturating_duration_since(run.starts_at);
    let at = |fraction: f64| run.starts_at + span.mul_f64(fraction);
    let mut events = vec![
        (
            run.created_at,
            "status",
            json!({"status": "queued", "run_id": run.id}),
        ),
        (
            run.starts_at,
            "status",
            json!({"status": "running", "run_id": run.id}),
        ),
        (at(0.1), "search", json!({"query": short(&run.prompt)})),
    ];
    for (i, p) in pages.iter().enumerate() {
        events.push((
            at(0.2 + 0.15 * i as f64),
            "page",
            json!({"url": p.0, "title": p.1}),
        ));
    }
    if !run.fails {
        let (content, pre) = content(run);
        let drafted = claims(run, &content, &pre, &pages);
        let n = drafted.len().min(4);
        for (i, c) in drafted.into_iter().take(n).enumerate() {
            let mut data = json!({"reasoning": c["reasoning"]});
            for key in ["path", "callout"] {
                if let Some(v) = c.get(key) {
                    data[key] = v.clone();
                }
            }
            events.push((at(0.7 + 0.25 * i as f64 / n.max(1) as f64), "claim", data));
        }
    }
    let end = if run.fails { "failed" } else { "completed" };
    events.push((
        run.ends_at,
        "status",
        json!({"status": end, "run_id": run.id}),
    ));
    events
}

// ---------------------------------------------------------------------------------------------
// Handlers

/// Creates a research agent: 201 with its record; 422 naming every field at fault.
pub(crate) async fn create_agent(
    AxState(state): AxState<Shared>,
    Extension(ctx): Extension<Ctx>,
    Extension(version): Extension<ApiVersion>,
    ApiJsonWritten(written): ApiJsonWritten,
) -> Result<Response, ApiError> {
    let body = object(written.to_value())?;
    let mut research = lock(&state.research);
    let id = research.create(
        &ctx,
        version,
        body,
        written.get("output_schema"),
        state.clock.wall(),
    )?;
    let agent = research.agent(&ctx, &id)?;
    Ok((StatusCode::CREATED, Json(agent_json(agent, version))).into_response())
}

/// The account's research agents, oldest first.
pub(crate) async fn list_agents(
    AxState(state): AxState<Shared>,
    Extension(ctx): Extension<Ctx>,
    Extension(version): Extension<ApiVersion>,
    ApiQuery(q): ApiQuery<PageQuery>,
) -> Result<Json<OffsetPage<Written>>, ApiError> {
    let research = lock(&state.research);
    let mut mine: Vec<&Agent> = research
        .agents
        .values()
        .filter(|a| a.account == ctx.account.name)
        .collect();
    mine.sort_by_key(|a| a.created);
    offset_page(&q, mine, |a| agent_json(a, version)).map(Json)
}

/// One research agent.
pub(crate) async fn get_agent(
    AxState(state): AxState<Shared>,
    Extension(ctx): Extension<Ctx>,
    Extension(version): Extension<ApiVersion>,
    ApiPath(id): ApiPath<String>,
) -> Result<Json<Written>, ApiError> {
    let research = lock(&state.research);
    Ok(Json(agent_json(research.agent(&ctx, &id)?, version)))
}

/// Applies a JSON Patch document to an agent's record (in the version's words); the result must
/// still be a valid agent, and `id` and `created_at` do not change.
pub(crate) async fn update_agent(
    AxState(state): AxState<Shared>,
    Extension(ctx): Extension<Ctx>,
    Extension(version): Extension<ApiVersion>,
    ApiPath(id): ApiPath<String>,
    ApiBytes(body): ApiBytes,
) -> Result<Json<Written>, ApiError> {
    let patch: json_patch::Patch = serde_json::from_slice(&body).map_err(|e| {
        ApiError::malformed(
            "body",
            format!("the body must be a JSON Patch document (a list of operations): {e}"),
        )
    })?;
    let mut research = lock(&state.research);
    let agent = research.agent(&ctx, &id)?;
    let before = agent_json(agent, version);
    let mut doc = before.to_value();
    json_patch::patch(&mut doc, &patch)
        .map_err(|e| ApiError::refused("body", format!("the patch does not apply: {e}")))?;
    // Read once more in order (it read as a patch, so it reads).
    let written = serde_json::from_slice::<Written>(&body)
        .map(|ops| patched::in_written_order(&doc, &ops, &before))
        .ok();
    let Value::Object(mut record) = doc else {
        return Err(ApiError::refused("body", "the patch must leave an object"));
    };
    respell(&mut record, RECORD_WORDS, version, KEPT);
    for fixed in ["id", "created_at"] {
        if record.get(fixed) != agent.record.get(fixed) {
            return Err(ApiError::refused(
                format!("/{fixed}"),
                format!("{fixed} cannot change"),
            ));
        }
    }
    refuse(record_problems(&record))?;
    if let Some(s) = record.get("output_schema").filter(|v| !v.is_null()) {
        read_schema(s, "output_schema")?;
    }
    record.insert("updated_at".into(), json!(timestamp(state.clock.wall())));
    let Some(agent) = research.agents.get_mut(&id) else {
        return Err(ApiError::not_found(format!("no research agent {id}")).at("agent_id"));
    };
    agent.record = record;
    agent.written_schema = written.and_then(|w| w.get("output_schema").cloned());
    Ok(Json(agent_json(agent, version)))
}

/// What a patch leaves must still be an agent record, or the account's list would hold one its
/// readers cannot read: the record's lists hold objects (`{id, goal, order}`, `{id, question,
/// order}`), its texts are text (not null), and the rest is checked as a request would be.
fn record_problems(record: &Map<String, Value>) -> Vec<Broken> {
    let mut out = Vec::new();
    let mut as_request = record.clone();
    for (list, key) in [("goals", "goal"), ("suggested_questions", "question")] {
        match record.get(list) {
            None => {}
            Some(Value::Array(items)) => {
                let mut texts = Vec::new();
                for (i, item) in items.iter().enumerate() {
                    match item.get(key) {
                        Some(Value::String(s)) => texts.push(Value::String(s.clone())),
                        _ => out.push(Broken {
                            field: format!("{list}[{i}].{key}"),
                            message: format!(
                                "each of {list} is an object with its `{key}` as text"
                            ),
                        }),
                    }
                }
                as_request.insert(list.into(), Value::Array(texts));
            }
            Some(other) => {
                out.push(Broken {
                    field: list.to_owned(),
                    message: format!("{list} must be a list, not {}", crate::params::kind(other)),
                });
                as_request.remove(list);
            }
        }
    }
    for field in [
        "display_name",
        "description",
        "icon",
        "skill",
        "effort",
        "use_case",
    ] {
        if record.get(field).is_some_and(Value::is_null) {
            out.push(Broken {
                field: field.to_owned(),
                message: format!("{field} must be text, not null"),
            });
        }
    }
    out.extend(check_agent(&as_request, ApiVersion::V2));
    out
}

/// Deactivates an agent: 204; it stays readable.
pub(crate) async fn delete_agent(
    AxState(state): AxState<Shared>,
    Extension(ctx): Extension<Ctx>,
    ApiPath(id): ApiPath<String>,
) -> Result<StatusCode, ApiError> {
    let mut research = lock(&state.research);
    research.agent(&ctx, &id)?;
    if let Some(a) = research.agents.get_mut(&id) {
        a.record.insert("is_active".into(), json!(false));
        a.record
            .insert("updated_at".into(), json!(timestamp(state.clock.wall())));
    }
    Ok(StatusCode::NO_CONTENT)
}

/// The templates.
pub(crate) async fn list_templates(
    Extension(version): Extension<ApiVersion>,
    ApiQuery(q): ApiQuery<PageQuery>,
) -> Result<Json<OffsetPage<Value>>, ApiError> {
    offset_page(&q, templates(), |t| template_json(t, version)).map(Json)
}

/// One template.
pub(crate) async fn get_template(
    Extension(version): Extension<ApiVersion>,
    ApiPath(name): ApiPath<String>,
) -> Result<Json<Value>, ApiError> {
    templates()
        .into_iter()
        .find(|t| t["template_name"] == name.as_str())
        .map(|t| Json(template_json(t, version)))
        .ok_or_else(|| {
            ApiError::not_found(format!("no research agent template {name:?}")).at("template_name")
        })
}

/// Starts a run of an agent by id.
pub(crate) async fn start_run(
    AxState(state): AxState<Shared>,
    Extension(ctx): Extension<Ctx>,
    Extension(version): Extension<ApiVersion>,
    ApiPath(agent_id): ApiPath<String>,
    ApiJsonWritten(written): ApiJsonWritten,
) -> Result<Json<Value>, ApiError> {
    let mut body = object(written.to_value())?;
    refuse(check_run(&body, version))?;
    // Ignored on this route, as the service documents.
    body.remove("agent_name");
    let mut research = lock(&state.research);
    let took = ctx.task_faults.duration(state.config.lifecycle.research);
    research
        .start(
            &ctx,
            &agent_id,
            &body,
            written.get("output_schema"),
            (state.clock.now(), state.clock.wall()),
            took,
        )
        .map(Json)
}

/// Starts a run by agent name (`/v2`): an unseen name makes the agent (with the run's output
/// schema, skill and use case), a known one is reused; no name makes an unnamed agent.
pub(crate) async fn start_run_by_name(
    AxState(state): AxState<Shared>,
    Extension(ctx): Extension<Ctx>,
    Extension(version): Extension<ApiVersion>,
    ApiJsonWritten(written): ApiJsonWritten,
) -> Result<Json<Value>, ApiError> {
    let body = object(written.to_value())?;
    refuse(check_run(&body, version))?;
    let mut research = lock(&state.research);
    let name = body.get("agent_name").and_then(Value::as_str);
    let (agent_id, made) = match name.and_then(|n| research.by_name(&ctx, n)) {
        Some(id) => (id, false),
        None => {
            let mut new = Map::new();
            for key in [
                "agent_name",
                "output_schema",
                "skill",
                "use_case",
                "effort",
                "sources",
            ] {
                if let Some(v) = body.get(key).filter(|v| !v.is_null()) {
                    new.insert(key.into(), v.clone());
                }
            }
            (
                research.create(
                    &ctx,
                    ApiVersion::V2,
                    new,
                    written.get("output_schema"),
                    state.clock.wall(),
                )?,
                true,
            )
        }
    };
    let mut run_body = body.clone();
    if made {
        // The new agent took the use case; the run need not match it again.
        run_body.remove("use_case");
    }
    let took = ctx.task_faults.duration(state.config.lifecycle.research);
    research
        .start(
            &ctx,
            &agent_id,
            &run_body,
            written.get("output_schema"),
            (state.clock.now(), state.clock.wall()),
            took,
        )
        .map(Json)
}

/// An agent's runs, newest first.
pub(crate) async fn list_runs(
    AxState(state): AxState<Shared>,
    Extension(ctx): Extension<Ctx>,
    ApiPath(agent_id): ApiPath<String>,
    ApiQuery(q): ApiQuery<PageQuery>,
) -> Result<Json<OffsetPage<Value>>, ApiError> {
    let research = lock(&state.research);
    research.agent(&ctx, &agent_id)?;
    let now = state.clock.now();
    let mut runs: Vec<&Run> = research
        .runs
        .values()
        .filter(|r| r.agent_id == agent_id)
        .collect();
    runs.sort_by_key(|r| std::cmp::Reverse(r.created_at));
    offset_page(&q, runs, |r| r.json(now)).map(Json)
}

/// One run.
pub(crate) async fn get_run(
    AxState(state): AxState<Shared>,
    Extension(ctx): Extension<Ctx>,
    ApiPath((agent_id, run_id)): ApiPath<(String, String)>,
) -> Result<Json<Value>, ApiError> {
    let research = lock(&state.research);
    Ok(Json(
        research
            .run(&ctx, &agent_id, &run_id)?
            .json(state.clock.now()),
    ))
}

/// A run's result: 409 while it is queued or running, 422 with the run and its error when it
/// failed, else `{output, run}`.
pub(crate) async fn result(
    AxState(state): AxState<Shared>,
    Extension(ctx): Extension<Ctx>,
    ApiPath((agent_id, run_id)): ApiPath<(String, String)>,
) -> Result<Response, ApiError> {
    let run = lock(&state.research).run(&ctx, &agent_id, &run_id)?.clone();
    let now = state.clock.now();
    let status = run.status(now);
    match status {
        Status::Queued | Status::Running => Err(ApiError::new(
            StatusCode::CONFLICT,
            "RUN_NOT_FINISHED",
            format!(
                "run {run_id} is {}: its result is ready once it completes",
                status.as_str()
            ),
        )
        .at("run_id")),
        Status::Failed => Ok((
            StatusCode::UNPROCESSABLE_ENTITY,
            Json(json!({
                "error": {"code": "RUN_FAILED", "message": FAILURE, "ref_id": run.id},
                "run": run.json(now),
            })),
        )
            .into_response()),
        Status::Completed => {
            let base = state.base_url.get().map_or("", String::as_str);
            let mut answer =
                Written::from(json!({"output": output(&run, base), "run": run.json(now)}));
            // The content in the order its schema lists the fields, as a model fills them in.
            if let (Written::Object(answer), Some(schema)) = (&mut answer, &run.written_schema)
                && let Some(Written::Object(output)) = answer.get_mut("output")
                && let Some(content) = output.get_mut("content")
            {
                *content = SchemaOrder::new(schema).arrange(&content.to_value());
            }
            Ok(Json(answer).into_response())
        }
    }
}

/// The event faults of one events request ([`EVENT_FAULTS`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum EventFault {
    None,
    Cut,
    Stall,
}

fn event_fault(headers: &HeaderMap) -> EventFault {
    match headers
        .get(EVENT_FAULTS[0].0)
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
    {
        Some("cut") => EventFault::Cut,
        Some("stall") => EventFault::Stall,
        _ => EventFault::None,
    }
}

/// How long a stalled stream stays open at most, should its client never give up.
const MAX_STALL: Duration = Duration::from_secs(600);

/// A run's events as server-sent events, numbered from 1; `Last-Event-ID` resumes after that
/// event. Events come as they happen, the stream ends after the run's final status. 422 for a
/// run made without `enable_events`.
///
/// While no event is due, a keep-alive comment line (`:`) goes out every `keep_alive`, with no
/// blank line after it: a blank line ends an event, and a decoder that keeps the last event id
/// (the vendor's 1.6.0) dispatches an empty event on one, which its reader then fails to parse.
pub(crate) async fn events(
    AxState(state): AxState<Shared>,
    Extension(ctx): Extension<Ctx>,
    ApiPath((agent_id, run_id)): ApiPath<(String, String)>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let run = lock(&state.research).run(&ctx, &agent_id, &run_id)?.clone();
    if !run.events {
        return Err(ApiError::refused(
            "enable_events",
            format!("run {run_id} was started without enable_events: it publishes no events"),
        ));
    }
    let after: usize = headers
        .get("last-event-id")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0);
    let base = state.base_url.get().cloned().unwrap_or_default();
    let fault = event_fault(&headers);
    let mut queue: Vec<(usize, Instant, &'static str, Value)> = timeline(&run, &base)
        .into_iter()
        .enumerate()
        .map(|(i, (at, name, data))| (i + 1, at, name, data))
        .filter(|(n, ..)| *n > after)
        .collect();
    match fault {
        EventFault::Cut => queue.truncate(2),
        EventFault::Stall => queue.truncate(1),
        EventFault::None => {}
    }
    queue.reverse();
    let keep_alive = (fault != EventFault::Stall).then_some(state.config.lifecycle.keep_alive);
    let shared = state.clone();
    let stream = futures::stream::unfold(queue, move |mut queue| {
        let state = shared.clone();
        async move {
            let Some(&(n, at, name, _)) = queue.last() else {
                if fault == EventFault::Stall {
                    tokio::time::sleep(MAX_STALL).await;
                }
                return None;
            };
            if let Some(every) = keep_alive
                && state.clock.now() + every < at
            {
                state.clock.sleep_until(state.clock.now() + every).await;
                return Some((Ok::<Bytes, Infallible>(Bytes::from_static(b":\n")), queue));
            }
            state.clock.sleep_until(at).await;
            let data = queue.pop().map(|(.., data)| data).unwrap_or_default();
            let event = format!("id: {n}\nevent: {name}\ndata: {data}\n\n");
            Some((Ok(Bytes::from(event)), queue))
        }
    });
    Ok((
        [
            (header::CONTENT_TYPE, "text/event-stream"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        axum::body::Body::from_stream(stream),
    )
        .into_response())
}

/// A page a run cites: its title and the passage the citation quotes. Served without a key, as
/// a web page is.
pub(crate) async fn page(
    AxState(state): AxState<Shared>,
    ApiPath((run_id, n)): ApiPath<(String, usize)>,
) -> Response {
    let run = lock(&state.research).runs.get(&run_id).cloned();
    let base = state.base_url.get().cloned().unwrap_or_default();
    let found = run.and_then(|r| pages(&r, &base, 3).into_iter().nth(n.wrapping_sub(1)));
    match found {
        Some((_, title, excerpt)) => (
            [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
            format!(
                "<!doctype html><html><head><title>{}</title></head><body><p>{}</p></body></html>",
                crate::synth::escape(&title),
                crate::synth::escape(&excerpt)
            ),
        )
            .into_response(),
        None => (StatusCode::NOT_FOUND, "no such page").into_response(),
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
        endpoint::RESEARCH_AGENT_CREATE => on(method, create_agent),
        endpoint::RESEARCH_AGENT_LIST => on(method, list_agents),
        endpoint::RESEARCH_AGENT_GET => on(method, get_agent),
        endpoint::RESEARCH_AGENT_UPDATE => on(method, update_agent),
        endpoint::RESEARCH_AGENT_DELETE => on(method, delete_agent),
        endpoint::RESEARCH_TEMPLATE_LIST => on(method, list_templates),
        endpoint::RESEARCH_TEMPLATE_GET => on(method, get_template),
        endpoint::RESEARCH_RUN_START => on(method, start_run),
        endpoint::RESEARCH_RUN_BY_NAME => on(method, start_run_by_name),
        endpoint::RESEARCH_RUN_LIST => on(method, list_runs),
        endpoint::RESEARCH_RUN_GET => on(method, get_run),
        endpoint::RESEARCH_RUN_RESULT => on(method, result),
        endpoint::RESEARCH_RUN_EVENTS => on(method, events),
        _ => return None,
    })
}
