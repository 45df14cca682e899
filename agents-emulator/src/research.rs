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

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use agents_runtime::endpoint::ApiVersion;
use agents_runtime::research::{Broken, check_agent, check_run};
use agents_schema::FieldSchema;
use axum::extract::State as AxState;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use serde_json::{Map, Value, json};

use crate::error::ApiError;
use crate::jobs::{PageQuery, offset_page};
use crate::request::{ApiJson, ApiPath, ApiQuery, Ctx};
use crate::state::{State, lock};
use crate::wire::timestamp;

type Shared = Arc<State>;

/// Where the pages runs cite are served (no key needed, as a web page's).
pub const PAGES_PREFIX: &str = "/research-pages/";

/// Agents one account keeps, and runs one agent keeps (the oldest run is forgotten first).
const MAX_AGENTS: usize = 1_000;
const MAX_RUNS_PER_AGENT: usize = 1_000;

/// Claims one answer makes at most.
const MAX_CLAIMS: usize = 24;

/// The event faults an events request can ask for, by header.
pub const EVENT_FAULTS: [(&str, &str); 1] = [(
    "x-emulator-events",
    "`cut`: the stream ends after two events, before the run does (resume with \
     Last-Event-ID); `stall`: after the first event nothing more is sent, keep-alives \
     included, until the client gives up",
)];

/// Research agents and runs of every account.
#[derive(Debug, Default)]
pub(crate) struct Research {
    agents: HashMap<String, Agent>,
    runs: HashMap<String, Run>,
}

#[derive(Debug, Clone)]
struct Agent {
    account: String,
    /// The record in `/v2`'s words (`skill`), as answered.
    record: Map<String, Value>,
    created: SystemTime,
}

#[derive(Debug, Clone)]
struct Run {
    id: String,
    agent_id: String,
    effort: String,
    interaction_id: String,
    prompt: String,
    created: SystemTime,
    created_at: Instant,
    starts_at: Instant,
    ends_at: Instant,
    fails: bool,
    events: bool,
    output_schema: Option<Value>,
    input_data: Option<Value>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Status {
    Queued,
    Running,
    Completed,
    Failed,
}

impl Status {
    fn as_str(self) -> &'static str {
        match self {
            Status::Queued => "queued",
            Status::Running => "running",
            Status::Completed => "completed",
            Status::Failed => "failed",
        }
    }

    fn active(self) -> bool {
        matches!(self, Status::Queued | Status::Running)
    }
}

impl Run {
    fn status(&self, now: Instant) -> Status {
        if now < self.starts_at {
            Status::Queued
        } else if now < self.ends_at {
            Status::Running
        } else if self.fails {
            Status::Failed
        } else {
            Status::Completed
        }
    }

    /// The wall time of an instant of this run.
    fn wall(&self, at: Instant) -> SystemTime {
        self.created + at.saturating_duration_since(self.created_at)
    }

    fn json(&self, now: Instant) -> Value {
        let status = self.status(now);
        let mut run = json!({
            "id": self.id,
            "web_search_agent_id": self.agent_id,
            "status": status.as_str(),
            "is_active": status.active(),
            "effort": self.effort,
            "interaction_id": self.interaction_id,
            "prompt": self.prompt,
            "created_at": timestamp(self.created),
            "started_at": (status != Status::Queued).then(|| timestamp(self.wall(self.starts_at))),
            "completed_at": (!status.active()).then(|| timestamp(self.wall(self.ends_at))),
        });
        if status == Status::Failed {
            run["error"] = json!({"message": FAILURE, "ref_id": self.id});
        }
        run
    }

    fn seed(&self) -> u64 {
        agents_schema::sample::mix(0x5eed, &self.id)
    }
}

const FAILURE: &str = "injected run failure: the research could not be completed";

/// An agent's record in `version`'s words (`/v1` says `domain_expertise` for `skill`).
fn agent_json(agent: &Agent, version: ApiVersion) -> Value {
    let mut record = agent.record.clone();
    if version == ApiVersion::V1
        && let Some(skill) = record.remove("skill")
    {
        record.insert("domain_expertise".into(), skill);
    }
    Value::Object(record)
}

/// Every broken rule as one 422 naming the first field, each in `details`.
fn refuse(found: Vec<Broken>) -> Result<(), ApiError> {
    ApiError::items(
        found
            .into_iter()
            .map(|b| ApiError::invalid(b.field, b.message))
            .collect(),
    )
    .map_or(Ok(()), Err)
}

/// The document `schema` (at `field`) read as JSON Schema, or a 422 naming the path at fault.
fn read_schema(schema: &Value, field: &str) -> Result<FieldSchema, ApiError> {
    FieldSchema::from_document(schema).map_err(|e| match e {
        agents_schema::RecordError::Invalid(errors) => ApiError::items(
            errors
                .into_iter()
                .map(|e| {
                    let at = format!("{field}{}", e.path.trim_start_matches('$'));
                    ApiError::invalid(&at, format!("{at}: {}", e.message))
                })
                .collect(),
        )
        .unwrap_or_else(|| ApiError::invalid(field, "not a JSON Schema document")),
        other => ApiError::invalid(field, other.to_string()),
    })
}

fn id(prefix: &str) -> String {
    format!("{prefix}_{}", uuid::Uuid::new_v4())
}

/// `[{id, <key>: text, order}]` of a list of strings.
fn ordered(items: Option<&Value>, prefix: &str, key: &str) -> Value {
    let items = items.and_then(Value::as_array).cloned().unwrap_or_default();
    Value::Array(
        items
            .into_iter()
            .enumerate()
            .map(|(i, v)| json!({"id": id(prefix), key: v, "order": i}))
            .collect(),
    )
}

/// Source rules with ids and positions.
fn sources_with_ids(sources: Option<&Value>) -> Value {
    let mut out = Map::new();
    let s = sources.and_then(Value::as_object);
    for list in ["allow", "block"] {
        let groups = s
            .and_then(|s| s.get(list))
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let groups: Vec<Value> = groups
            .into_iter()
            .enumerate()
            .map(|(i, mut g)| {
                g["id"] = json!(id("wsas"));
                if g.get("order").is_none_or(Value::is_null) {
                    g["order"] = json!(i);
                }
                g
            })
            .collect();
        out.insert(list.into(), Value::Array(groups));
    }
    for field in ["avoid", "prioritize"] {
        out.insert(
            field.into(),
            s.and_then(|s| s.get(field)).cloned().unwrap_or(Value::Null),
        );
    }
    Value::Object(out)
}

/// The templates every account can copy.
fn templates() -> Vec<Value> {
    let made = "2026-01-05T09:00:00Z";
    vec![
        json!({
            "id": "wsat_company_profile",
            "template_name": "company-profile",
            "display_name": "Company profile",
            "description": "Who a company is: headquarters, founding year, size and leadership.",
            "icon": "building",
            "effort": "medium",
            "goals": [
                {"id": "wsag_company_1", "goal": "Find the company's official site", "order": 0},
                {"id": "wsag_company_2", "goal": "Report facts with their sources", "order": 1}
            ],
            "output_schema": {
                "type": "object",
                "properties": {
                    "name": {"type": "string"},
                    "headquarters": {"type": "string"},
                    "founded": {"type": "integer", "minimum": 1800, "maximum": 2026},
                    "employees": {"type": "integer"},
                    "leaders": {"type": "array", "items": {"type": "object", "properties": {
                        "name": {"type": "string"}, "title": {"type": "string"}}}}
                },
                "required": ["name"]
            },
            "skill": "corporate research",
            "sources": [{"id": "wsas_company_1", "domains": ["sec.gov", "wikipedia.org"], "order": 0, "title": "Filings and references"}],
            "suggested_questions": [{"id": "wsasq_company_1", "order": 0, "question": "Who runs Example Corp?"}],
            "use_case": "research",
            "created_at": made,
            "updated_at": made,
        }),
        json!({
            "id": "wsat_market_brief",
            "template_name": "market-brief",
            "display_name": "Market brief",
            "description": "A short written brief on a market, with callouts to its sources.",
            "icon": "chart",
            "effort": "high",
            "goals": [{"id": "wsag_market_1", "goal": "Summarize the market in a paragraph", "order": 0}],
            "output_schema": null,
            "skill": "market analysis",
            "sources": [],
            "suggested_questions": [{"id": "wsasq_market_1", "order": 0, "question": "How big is the e-bike market?"}],
            "use_case": "research",
            "created_at": made,
            "updated_at": made,
        }),
    ]
}

/// A template in `version`'s words.
fn template_json(mut t: Value, version: ApiVersion) -> Value {
    if version == ApiVersion::V1
        && let Some(m) = t.as_object_mut()
        && let Some(skill) = m.remove("skill")
    {
        m.insert("domain_expertise".into(), skill);
    }
    t
}

impl Research {
    fn agent(&self, ctx: &Ctx, id: &str) -> Result<&Agent, ApiError> {
        self.agents
            .get(id)
            .filter(|a| a.account == ctx.account.name)
            .ok_or_else(|| ApiError::not_found(format!("no research agent {id}")).at("agent_id"))
    }

    fn run(&self, ctx: &Ctx, agent_id: &str, run_id: &str) -> Result<&Run, ApiError> {
        self.agent(ctx, agent_id)?;
        self.runs
            .get(run_id)
            .filter(|r| r.agent_id == agent_id)
            .ok_or_else(|| {
                ApiError::not_found(format!("no run {run_id} of research agent {agent_id}"))
                    .at("run_id")
            })
    }

    fn by_name(&self, ctx: &Ctx, name: &str) -> Option<String> {
        self.agents
            .iter()
            .find(|(_, a)| {
                a.account == ctx.account.name
                    && a.record.get("agent_name").and_then(Value::as_str) == Some(name)
            })
            .map(|(id, _)| id.clone())
    }

    /// Makes an agent of `body` (checked), copying its template first when it names one.
    fn create(
        &mut self,
        ctx: &Ctx,
        version: ApiVersion,
        mut body: Map<String, Value>,
    ) -> Result<String, ApiError> {
        if version == ApiVersion::V1
            && let Some(d) = body.remove("domain_expertise")
        {
            body.insert("skill".into(), d);
        }
        refuse(check_agent(&body, ApiVersion::V2))?;
        if let Some(name) = body.get("template").and_then(Value::as_str) {
            let Some(t) = templates().into_iter().find(|t| t["template_name"] == name) else {
                return Err(ApiError::invalid(
                    "template",
                    format!("no research agent template {name:?}"),
                ));
            };
            for key in [
                "display_name",
                "description",
                "icon",
                "effort",
                "skill",
                "output_schema",
                "use_case",
            ] {
                if !body.contains_key(key) {
                    body.insert(key.into(), t[key].clone());
                }
            }
            if !body.contains_key("goals") {
                let goals: Vec<Value> = t["goals"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|g| g["goal"].clone())
                    .collect();
                body.insert("goals".into(), Value::Array(goals));
            }
            if !body.contains_key("sources") {
                body.insert("sources".into(), json!({"allow": t["sources"]}));
            }
        }
        if let Some(schema) = body.get("output_schema").filter(|v| !v.is_null()) {
            read_schema(schema, "output_schema")?;
        }
        if let Some(name) = body.get("agent_name").and_then(Value::as_str)
            && self.by_name(ctx, name).is_some()
        {
            return Err(ApiError::invalid(
                "agent_name",
                format!(
                    "a research agent named {name:?} exists; run it by name, or pick another name"
                ),
            ));
        }
        let mine = self
            .agents
            .values()
            .filter(|a| a.account == ctx.account.name)
            .count();
        if mine >= MAX_AGENTS {
            return Err(ApiError::invalid(
                "agent_name",
                format!("an account keeps at most {MAX_AGENTS} research agents"),
            ));
        }
        let now = SystemTime::now();
        let agent_id = id("wsa");
        let text =
            |k: &str, default: &str| json!(body.get(k).and_then(Value::as_str).unwrap_or(default));
        let record = json!({
            "id": agent_id,
            "agent_name": body.get("agent_name").cloned().unwrap_or(Value::Null),
            "display_name": text("display_name", body.get("agent_name").and_then(Value::as_str).unwrap_or("Research agent")),
            "description": text("description", ""),
            "icon": text("icon", "search"),
            "effort": text("effort", "medium"),
            "goals": ordered(body.get("goals"), "wsag", "goal"),
            "is_active": body.get("is_active").and_then(Value::as_bool).unwrap_or(true),
            "output_schema": body.get("output_schema").cloned().unwrap_or(Value::Null),
            "skill": text("skill", ""),
            "sources": sources_with_ids(body.get("sources")),
            "suggested_questions": ordered(body.get("suggested_questions"), "wsasq", "question"),
            "use_case": text("use_case", "research"),
            "created_at": timestamp(now),
            "updated_at": timestamp(now),
        });
        let Value::Object(record) = record else {
            return Err(ApiError::invalid("", "internal: record is an object"));
        };
        self.agents.insert(
            agent_id.clone(),
            Agent {
                account: ctx.account.name.clone(),
                record,
                created: now,
            },
        );
        Ok(agent_id)
    }

    /// Starts a run of `agent_id` (checked by the caller's route).
    fn start(
        &mut self,
        ctx: &Ctx,
        agent_id: &str,
        body: &Map<String, Value>,
        now: Instant,
        took: Duration,
    ) -> Result<Value, ApiError> {
        let agent = self.agent(ctx, agent_id)?;
        if agent.record.get("is_active") != Some(&Value::Bool(true)) {
            return Err(ApiError::invalid(
                "agent_id",
                format!("research agent {agent_id} is deactivated: no run can start"),
            ));
        }
        if let Some(use_case) = body.get("use_case").and_then(Value::as_str)
            && agent.record.get("use_case").and_then(Value::as_str) != Some(use_case)
        {
            return Err(ApiError::invalid(
                "use_case",
                format!(
                    "use_case {use_case:?} differs from the agent's {}; it is set only when a run creates its agent",
                    agent.record.get("use_case").unwrap_or(&Value::Null)
                ),
            ));
        }
        let output_schema = body
            .get("output_schema")
            .filter(|v| !v.is_null())
            .or_else(|| agent.record.get("output_schema").filter(|v| !v.is_null()))
            .cloned();
        if let Some(s) = &output_schema {
            let field = if body.get("output_schema").is_some_and(|v| !v.is_null()) {
                "output_schema"
            } else {
                "agent.output_schema"
            };
            read_schema(s, field)?;
        }
        let input_data = body.get("input_data").filter(|v| !v.is_null()).cloned();
        if input_data.is_some() && output_schema.is_none() {
            return Err(ApiError::invalid(
                "input_data",
                "input_data needs an output_schema, on the run or on the agent, that its rows follow",
            ));
        }
        let effort = body
            .get("effort")
            .and_then(Value::as_str)
            .or_else(|| agent.record.get("effort").and_then(Value::as_str))
            .unwrap_or("medium")
            .to_owned();
        let run = Run {
            id: format!("task_run_{}", uuid::Uuid::new_v4()),
            agent_id: agent_id.to_owned(),
            effort,
            interaction_id: body
                .get("previous_interaction_id")
                .and_then(Value::as_str)
                .map_or_else(|| id("int"), str::to_owned),
            prompt: body
                .get("input")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned(),
            created: SystemTime::now(),
            created_at: now,
            starts_at: now + took / 10,
            ends_at: now + took,
            fails: ctx.task_faults.fail,
            events: body.get("enable_events") == Some(&Value::Bool(true)),
            output_schema,
            input_data,
        };
        let answer = run.json(now);
        let mut of_agent: Vec<(&String, Instant)> = self
            .runs
            .iter()
            .filter(|(_, r)| r.agent_id == agent_id)
            .map(|(k, r)| (k, r.created_at))
            .collect();
        if of_agent.len() >= MAX_RUNS_PER_AGENT {
            of_agent.sort_by_key(|(_, at)| *at);
            if let Some((oldest, _)) = of_agent.first() {
                let oldest = (*oldest).clone();
                self.runs.remove(&oldest);
            }
        }
        self.runs.insert(run.id.clone(), run);
        Ok(answer)
    }
}

// ---------------------------------------------------------------------------------------------
// The answer

/// A JSON answer's leaves, as claim paths (`offers[0].price`), in document order.
fn leaves(value: &Value, path: &str, out: &mut Vec<String>) {
    match value {
        Value::Object(m) => {
            for (k, v) in m {
                leaves(v, &agents_schema::join_path(path, k), out);
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                leaves(v, &format!("{path}[{i}]"), out);
            }
        }
        _ => out.push(path.trim_start_matches('.').to_owned()),
    }
}

/// The answer content of a run, and the paths that came from `input_data` (not researched).
fn content(run: &Run) -> (Value, Vec<String>) {
    let Some(schema) = &run.output_schema else {
        let text = format!(
            "Research on \u{201c}{}\u{201d}: the sources agree on the main point [1], \
             and a second source adds the figures [2]. A third confirms the date [3].",
            run.prompt
        );
        return (Value::String(text), Vec::new());
    };
    // Checked when the run started.
    let doc = FieldSchema::from_document(schema).unwrap_or_default();
    let sample = |seed: u64| agents_schema::sample::document(&doc, seed);
    let merge = |given: &Value, seed: u64, pre: &mut Vec<String>, at: &str| {
        let mut row = sample(seed);
        if let (Some(row), Some(given)) = (row.as_object_mut(), given.as_object()) {
            for (k, v) in given {
                row.insert(k.clone(), v.clone());
                leaves(v, &agents_schema::join_path(at, k), pre);
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
    let mut paths = Vec::new();
    leaves(content, "", &mut paths);
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
    ApiJson(body): ApiJson,
) -> Result<Response, ApiError> {
    let mut research = lock(&state.research);
    let id = research.create(&ctx, version, body)?;
    let agent = research.agent(&ctx, &id)?;
    Ok((StatusCode::CREATED, Json(agent_json(agent, version))).into_response())
}

/// The account's research agents, oldest first.
pub(crate) async fn list_agents(
    AxState(state): AxState<Shared>,
    Extension(ctx): Extension<Ctx>,
    Extension(version): Extension<ApiVersion>,
    ApiQuery(q): ApiQuery<PageQuery>,
) -> Result<Json<Value>, ApiError> {
    let research = lock(&state.research);
    let mut mine: Vec<&Agent> = research
        .agents
        .values()
        .filter(|a| a.account == ctx.account.name)
        .collect();
    mine.sort_by_key(|a| a.created);
    let items = mine.iter().map(|a| agent_json(a, version)).collect();
    offset_page(&q, items).map(Json)
}

/// One research agent.
pub(crate) async fn get_agent(
    AxState(state): AxState<Shared>,
    Extension(ctx): Extension<Ctx>,
    Extension(version): Extension<ApiVersion>,
    ApiPath(id): ApiPath<String>,
) -> Result<Json<Value>, ApiError> {
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
    body: axum::body::Bytes,
) -> Result<Json<Value>, ApiError> {
    let patch: json_patch::Patch = serde_json::from_slice(&body).map_err(|e| {
        ApiError::bad_request(
            "body",
            format!("the body must be a JSON Patch document (a list of operations): {e}"),
        )
    })?;
    let mut research = lock(&state.research);
    let agent = research.agent(&ctx, &id)?;
    let mut doc = agent_json(agent, version);
    json_patch::patch(&mut doc, &patch)
        .map_err(|e| ApiError::invalid("body", format!("the patch does not apply: {e}")))?;
    let Value::Object(mut record) = doc else {
        return Err(ApiError::invalid("body", "the patch must leave an object"));
    };
    if version == ApiVersion::V1
        && let Some(d) = record.remove("domain_expertise")
    {
        record.insert("skill".into(), d);
    }
    for fixed in ["id", "created_at"] {
        if record.get(fixed) != agent.record.get(fixed) {
            return Err(ApiError::invalid(
                format!("/{fixed}"),
                format!("{fixed} cannot change"),
            ));
        }
    }
    // The record's own lists hold objects; the rules check the rest as a request would.
    let mut as_request = record.clone();
    for list in ["goals", "suggested_questions", "sources"] {
        as_request.remove(list);
    }
    refuse(check_agent(&as_request, ApiVersion::V2))?;
    if let Some(s) = record.get("output_schema").filter(|v| !v.is_null()) {
        read_schema(s, "output_schema")?;
    }
    record.insert("updated_at".into(), json!(timestamp(SystemTime::now())));
    let Some(agent) = research.agents.get_mut(&id) else {
        return Err(ApiError::not_found(format!("no research agent {id}")).at("agent_id"));
    };
    agent.record = record;
    Ok(Json(agent_json(agent, version)))
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
            .insert("updated_at".into(), json!(timestamp(SystemTime::now())));
    }
    Ok(StatusCode::NO_CONTENT)
}

/// The templates.
pub(crate) async fn list_templates(
    Extension(version): Extension<ApiVersion>,
    ApiQuery(q): ApiQuery<PageQuery>,
) -> Result<Json<Value>, ApiError> {
    let items = templates()
        .into_iter()
        .map(|t| template_json(t, version))
        .collect();
    offset_page(&q, items).map(Json)
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
    ApiJson(mut body): ApiJson,
) -> Result<Json<Value>, ApiError> {
    refuse(check_run(&body, version))?;
    // Ignored on this route, as the service documents.
    body.remove("agent_name");
    let mut research = lock(&state.research);
    let took = ctx.task_faults.duration(state.config.lifecycle.research);
    research
        .start(&ctx, &agent_id, &body, Instant::now(), took)
        .map(Json)
}

/// Starts a run by agent name (`/v2`): an unseen name makes the agent (with the run's output
/// schema, skill and use case), a known one is reused; no name makes an unnamed agent.
pub(crate) async fn start_run_by_name(
    AxState(state): AxState<Shared>,
    Extension(ctx): Extension<Ctx>,
    Extension(version): Extension<ApiVersion>,
    ApiJson(body): ApiJson,
) -> Result<Json<Value>, ApiError> {
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
            (research.create(&ctx, ApiVersion::V2, new)?, true)
        }
    };
    let mut run_body = body.clone();
    if made {
        // The new agent took the use case; the run need not match it again.
        run_body.remove("use_case");
    }
    let took = ctx.task_faults.duration(state.config.lifecycle.research);
    research
        .start(&ctx, &agent_id, &run_body, Instant::now(), took)
        .map(Json)
}

/// An agent's runs, newest first.
pub(crate) async fn list_runs(
    AxState(state): AxState<Shared>,
    Extension(ctx): Extension<Ctx>,
    ApiPath(agent_id): ApiPath<String>,
    ApiQuery(q): ApiQuery<PageQuery>,
) -> Result<Json<Value>, ApiError> {
    let research = lock(&state.research);
    research.agent(&ctx, &agent_id)?;
    let now = Instant::now();
    let mut runs: Vec<&Run> = research
        .runs
        .values()
        .filter(|r| r.agent_id == agent_id)
        .collect();
    runs.sort_by_key(|r| std::cmp::Reverse(r.created_at));
    let items = runs.iter().map(|r| r.json(now)).collect();
    offset_page(&q, items).map(Json)
}

/// One run.
pub(crate) async fn get_run(
    AxState(state): AxState<Shared>,
    Extension(ctx): Extension<Ctx>,
    ApiPath((agent_id, run_id)): ApiPath<(String, String)>,
) -> Result<Json<Value>, ApiError> {
    let research = lock(&state.research);
    Ok(Json(
        research.run(&ctx, &agent_id, &run_id)?.json(Instant::now()),
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
    let now = Instant::now();
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
            Ok(Json(json!({"output": output(&run, base), "run": run.json(now)})).into_response())
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
/// event. Events come as they happen, with a keep-alive comment between them; the stream ends
/// after the run's final status. 422 for a run made without `enable_events`.
pub(crate) async fn events(
    AxState(state): AxState<Shared>,
    Extension(ctx): Extension<Ctx>,
    ApiPath((agent_id, run_id)): ApiPath<(String, String)>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let run = lock(&state.research).run(&ctx, &agent_id, &run_id)?.clone();
    if !run.events {
        return Err(ApiError::invalid(
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
    let stream = futures::stream::unfold((queue, fault), |(mut queue, fault)| async move {
        match queue.pop() {
            Some((n, at, name, data)) => {
                tokio::time::sleep_until(at.into()).await;
                let event = Event::default()
                    .id(n.to_string())
                    .event(name)
                    .data(data.to_string());
                Some((Ok::<Event, Infallible>(event), (queue, fault)))
            }
            None if fault == EventFault::Stall => {
                tokio::time::sleep(MAX_STALL).await;
                None
            }
            None => None,
        }
    });
    let sse = Sse::new(stream);
    let mut resp = if fault == EventFault::Stall {
        sse.into_response()
    } else {
        sse.keep_alive(KeepAlive::new().interval(state.config.lifecycle.keep_alive))
            .into_response()
    };
    resp.headers_mut().insert(
        header::CACHE_CONTROL,
        header::HeaderValue::from_static("no-cache"),
    );
    Ok(resp)
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
                html_escape(&title),
                html_escape(&excerpt)
            ),
        )
            .into_response(),
        None => (StatusCode::NOT_FOUND, "no such page").into_response(),
    }
}

fn html_escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}
