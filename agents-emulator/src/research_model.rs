//! Research agents and runs as data: what an account's agents and runs are, a run's status at
//! an instant, and the checks a new agent or run passes (the rules shared with the client,
//! `agents_runtime::research`). The handlers, events and answers are in `research.rs`.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant, SystemTime};

use agents_runtime::endpoint::ApiVersion;
use agents_runtime::research::{Broken, check_agent};
use agents_runtime::words::{KEPT, Words, respell};
use agents_schema::Json;
use serde_json::{Map, Value, json};

use crate::error::ApiError;
use crate::request::{Ctx, read_schema};
use crate::wire::timestamp;

/// Agents one account keeps, and runs one agent keeps (the oldest run is forgotten first).
pub(crate) const MAX_AGENTS: usize = 1_000;
pub(crate) const MAX_RUNS_PER_AGENT: usize = 1_000;

/// Research agents and runs of every account.
#[derive(Debug, Default)]
pub(crate) struct Research {
    pub(crate) agents: HashMap<String, Agent>,
    pub(crate) runs: HashMap<String, Run>,
}

#[derive(Debug, Clone)]
pub(crate) struct Agent {
    pub(crate) account: String,
    /// The record in `/v2`'s words (`skill`), as answered.
    pub(crate) record: Map<String, Value>,
    /// Its output schema as it was last written: the record's `Map` sorts keys, and the order
    /// of a schema's properties is the order of the fields generated from it.
    pub(crate) written_schema: Option<Json>,
    pub(crate) created: SystemTime,
}

#[derive(Debug, Clone)]
pub(crate) struct Run {
    pub(crate) id: String,
    pub(crate) agent_id: String,
    pub(crate) effort: String,
    pub(crate) interaction_id: String,
    pub(crate) prompt: String,
    pub(crate) created: SystemTime,
    pub(crate) created_at: Instant,
    pub(crate) starts_at: Instant,
    pub(crate) ends_at: Instant,
    pub(crate) fails: bool,
    pub(crate) events: bool,
    pub(crate) output_schema: Option<Value>,
    /// The same as written (by the run, or by its agent), whose order the answer follows.
    pub(crate) written_schema: Option<Json>,
    pub(crate) input_data: Option<Value>,
    /// The answer's content and the paths given in `input_data`: made once, when first asked
    /// (by a result or an events request), not on every request.
    pub(crate) content: Arc<OnceLock<(Value, Vec<String>)>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Status {
    Queued,
    Running,
    Completed,
    Failed,
}

impl Status {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Status::Queued => "queued",
            Status::Running => "running",
            Status::Completed => "completed",
            Status::Failed => "failed",
        }
    }

    pub(crate) fn active(self) -> bool {
        matches!(self, Status::Queued | Status::Running)
    }
}

impl Run {
    pub(crate) fn status(&self, now: Instant) -> Status {
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
    pub(crate) fn wall(&self, at: Instant) -> SystemTime {
        self.created + at.saturating_duration_since(self.created_at)
    }

    pub(crate) fn json(&self, now: Instant) -> Value {
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

    pub(crate) fn seed(&self) -> u64 {
        agents_schema::sample::mix(0x5eed, &self.id)
    }
}

pub(crate) const FAILURE: &str = "injected run failure: the research could not be completed";

/// An agent's record in `version`'s words, its output schema in the order written.
pub(crate) fn agent_json(agent: &Agent, version: ApiVersion) -> Json {
    let mut record = agent.record.clone();
    respell(&mut record, RECORD_WORDS, KEPT, version);
    let schema = record.remove("output_schema");
    let mut out = Json::from(Value::Object(record));
    if let (Json::Object(out), Some(schema)) = (&mut out, schema) {
        let hints: Vec<&Json> = agent.written_schema.iter().collect();
        out.insert("output_schema".into(), Json::arranged(&schema, &hints));
        out.sort_keys();
    }
    out
}

/// The rows of [`agents_runtime::words`] a research agent's record spells per version.
pub(crate) const RECORD_WORDS: &[fn(&Words) -> &'static str] = &[|w| w.skill];

/// Every broken rule as one 422 naming the first field, each in `details`.
pub(crate) fn refuse(found: Vec<Broken>) -> Result<(), ApiError> {
    ApiError::items(
        found
            .into_iter()
            .map(|b| ApiError::refused(b.field, b.message))
            .collect(),
    )
    .map_or(Ok(()), Err)
}

pub(crate) fn id(prefix: &str) -> String {
    format!("{prefix}_{}", uuid::Uuid::new_v4())
}

/// `[{id, <key>: text, order}]` of a list of strings.
pub(crate) fn ordered(items: Option<&Value>, prefix: &str, key: &str) -> Value {
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
pub(crate) fn sources_with_ids(sources: Option<&Value>) -> Value {
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
pub(crate) fn templates() -> Vec<Value> {
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
pub(crate) fn template_json(mut t: Value, version: ApiVersion) -> Value {
    if let Some(m) = t.as_object_mut() {
        respell(m, RECORD_WORDS, KEPT, version);
    }
    t
}

impl Research {
    pub(crate) fn agent(&self, ctx: &Ctx, id: &str) -> Result<&Agent, ApiError> {
        self.agents
            .get(id)
            .filter(|a| a.account == ctx.account.name)
            .ok_or_else(|| ApiError::not_found(format!("no research agent {id}")).at("agent_id"))
    }

    pub(crate) fn run(&self, ctx: &Ctx, agent_id: &str, run_id: &str) -> Result<&Run, ApiError> {
        self.agent(ctx, agent_id)?;
        self.runs
            .get(run_id)
            .filter(|r| r.agent_id == agent_id)
            .ok_or_else(|| {
                ApiError::not_found(format!("no run {run_id} of research agent {agent_id}"))
                    .at("run_id")
            })
    }

    pub(crate) fn by_name(&self, ctx: &Ctx, name: &str) -> Option<String> {
        self.agents
            .iter()
            .find(|(_, a)| {
                a.account == ctx.account.name
                    && a.record.get("agent_name").and_then(Value::as_str) == Some(name)
            })
            .map(|(id, _)| id.clone())
    }

    /// Makes an agent of `body` (checked), copying its template first when it names one;
    /// `written` is the output schema as the request wrote it.
    pub(crate) fn create(
        &mut self,
        ctx: &Ctx,
        version: ApiVersion,
        mut body: Map<String, Value>,
        written: Option<&Json>,
        now: SystemTime,
    ) -> Result<String, ApiError> {
        respell(&mut body, RECORD_WORDS, version, KEPT);
        refuse(check_agent(&body, ApiVersion::V2))?;
        if let Some(name) = body.get("template").and_then(Value::as_str) {
            let Some(t) = templates().into_iter().find(|t| t["template_name"] == name) else {
                return Err(ApiError::refused(
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
            return Err(ApiError::refused(
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
            return Err(ApiError::refused(
                "agent_name",
                format!("an account keeps at most {MAX_AGENTS} research agents"),
            ));
        }
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
            return Err(ApiError::refused("", "internal: record is an object"));
        };
        self.agents.insert(
            agent_id.clone(),
            Agent {
                account: ctx.account.name.clone(),
                record,
                written_schema: written.cloned(),
                created: now,
            },
        );
        Ok(agent_id)
    }

    /// Starts a run of `agent_id` (checked by the caller's route); `written` is the output
    /// schema as the request wrote it.
    pub(crate) fn start(
        &mut self,
        ctx: &Ctx,
        agent_id: &str,
        body: &Map<String, Value>,
        written: Option<&Json>,
        (now, wall): (Instant, SystemTime),
        took: Duration,
    ) -> Result<Value, ApiError> {
        let agent = self.agent(ctx, agent_id)?;
        if agent.record.get("is_active") != Some(&Value::Bool(true)) {
            return Err(ApiError::refused(
                "agent_id",
                format!("research agent {agent_id} is deactivated: no run can start"),
            ));
        }
        if let Some(use_case) = body.get("use_case").and_then(Value::as_str)
            && agent.record.get("use_case").and_then(Value::as_str) != Some(use_case)
        {
            return Err(ApiError::refused(
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
        let own = body.get("output_schema").is_some_and(|v| !v.is_null());
        if let Some(s) = &output_schema {
            read_schema(
                s,
                if own {
                    "output_schema"
                } else {
                    "agent.output_schema"
                },
            )?;
        }
        let written_schema = if own {
            written.cloned()
        } else {
            agent.written_schema.clone()
        };
        let input_data = body.get("input_data").filter(|v| !v.is_null()).cloned();
        if input_data.is_some() && output_schema.is_none() {
            return Err(ApiError::refused(
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
            created: wall,
            created_at: now,
            starts_at: now + took / 10,
            ends_at: now + took,
            fails: ctx.task_faults.fail,
            events: body.get("enable_events") == Some(&Value::Bool(true)),
            output_schema,
            written_schema,
            input_data,
            content: Default::default(),
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
