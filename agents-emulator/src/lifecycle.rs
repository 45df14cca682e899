//! Where asynchronous work moves to its next state: agent tasks
//! (`pending` → `success` | `error`) and agent generations
//! (`queued` → `in_progress` → `success` | `failed`).
//!
//! States are computed from the clock, not advanced by a background loop: each resource records
//! when it was created and when each phase ends, and [`Task::state`] / [`Generation::status`] read
//! the state at a given instant. The same request at the same time gets the same answer, and a
//! test that waits past the configured [`Lifecycle`](crate::Lifecycle) times sees the next state.

use std::time::{Duration, Instant, SystemTime};

use axum::http::HeaderMap;

use agents_runtime::endpoint::ApiVersion;
use agents_schema::{AgentRecord, Json};
use serde_json::{Value, json};

use crate::wire::timestamp;

/// Whether a task has ended, and how. On the wire an unfinished task is `pending`,
/// `queued` or `in_progress` depending on its [`Flow`]; see [`Task::wire_state`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskState {
    /// Not finished.
    Pending,
    /// Finished; results can be fetched.
    Success,
    /// The extraction failed.
    Error,
}

impl TaskState {
    /// The wire value.
    pub fn as_str(self) -> &'static str {
        match self {
            TaskState::Pending => "pending",
            TaskState::Success => "success",
            TaskState::Error => "error",
        }
    }
}

/// How a task ends.
#[derive(Debug, Clone)]
pub enum TaskEnd {
    /// With the run result of this request (computed when fetched: results are deterministic,
    /// so a task keeps only its request, and 100,000 tasks stay small).
    Success(std::sync::Arc<crate::synth::RunSpec>),
    /// With this result, computed when the task was created (extract, search, map, crawl pages).
    Value(std::sync::Arc<Value>),
    /// With this error message.
    Error(String),
}

/// The states an unfinished task passes through on the wire, each for half of its time: the documentation
/// names `pending`, the vendor's models add `queued` and `in_progress`, and waiters must poll
/// through all three.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    /// `pending` until it ends (extract, search and map tasks, crawl pages).
    Pending,
    /// `pending`, then `in_progress` (async agent runs).
    Started,
    /// `queued`, then `in_progress` (batch items).
    Queued,
}

/// An asynchronous task: an agent run, an extract, search or map request, a batch item, a crawl
/// page.
#[derive(Debug, Clone)]
pub struct Task {
    /// The task id.
    pub id: String,
    /// The account that created it.
    pub account: String,
    /// The agent it runs (`extract`, `search`, `map` or `crawl` for those tasks).
    pub agent: String,
    /// Its `api_type` on the wire (`agent`, `extract`, `web`).
    pub api_type: &'static str,
    /// The states it passes through before it ends.
    pub flow: Flow,
    /// Wall-clock creation time, for records.
    pub created: SystemTime,
    /// When it leaves `pending`.
    pub ends_at: Instant,
    /// How long it stays pending.
    pub duration: std::time::Duration,
    /// How it ends.
    pub end: TaskEnd,
    /// The request, as sent.
    pub input: Value,
    /// Batch it belongs to, if any.
    pub batch_id: Option<String>,
    /// The version of the interface that made it: its `status_url` and `download_url` are
    /// that version's paths.
    pub version: ApiVersion,
}

/// The task faults a request can ask for, by header: the one table that parsing
/// ([`TaskFaults::from_headers`]), the binary's `--help` and README follow. Every path that
/// creates tasks applies them: async runs, batches, and async extract, search and map.
pub const TASK_FAULTS: [(&str, &str); 3] = [
    ("x-emulator-task", "`error`: the task ends in state `error`"),
    (
        "x-emulator-task-ms",
        "MS: how long the task stays unfinished (batch items up to 50% longer, so progress moves)",
    ),
    (
        "x-emulator-task-error-every",
        "N: every Nth task the request creates ends in state `error`",
    ),
];

/// The task faults of one request ([`TASK_FAULTS`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TaskFaults {
    /// Every task fails.
    pub fail: bool,
    /// How long tasks stay unfinished, instead of the lifecycle's.
    pub duration: Option<Duration>,
    /// Every Nth task fails (0: none).
    pub error_every: u64,
}

impl TaskFaults {
    /// Reads [`TASK_FAULTS`] from a request's headers; a value that does not parse is ignored.
    pub fn from_headers(headers: &HeaderMap) -> TaskFaults {
        let text = |name: &str| {
            headers
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::trim)
        };
        TaskFaults {
            fail: text(TASK_FAULTS[0].0) == Some("error"),
            duration: text(TASK_FAULTS[1].0)
                .and_then(|v| v.parse().ok())
                .map(Duration::from_millis),
            error_every: text(TASK_FAULTS[2].0)
                .and_then(|v| v.parse().ok())
                .unwrap_or(0),
        }
    }

    /// How the `index`th task (from 0) of the request ends: `end`, or an injected failure.
    pub fn end(&self, index: usize, end: TaskEnd) -> TaskEnd {
        let every = self.error_every > 0 && (index as u64 + 1).is_multiple_of(self.error_every);
        if self.fail || every {
            TaskEnd::Error("injected task failure: the page could not be extracted".into())
        } else {
            end
        }
    }

    /// How long a task stays unfinished: the fault's duration, else `default`.
    pub fn duration(&self, default: Duration) -> Duration {
        self.duration.unwrap_or(default)
    }
}

impl Task {
    /// A task created now on `clock` by `account`, unfinished for `duration`, then ending as
    /// `end`: the one constructor every path uses.
    pub fn new(
        id: String,
        account: &str,
        agent: impl Into<String>,
        api_type: &'static str,
        flow: Flow,
        (clock, duration, end): (&crate::clock::Clock, Duration, TaskEnd),
        input: Value,
    ) -> Task {
        let (now, wall) = (clock.now(), clock.wall());
        Task {
            id,
            account: account.to_owned(),
            agent: agent.into(),
            api_type,
            flow,
            created: wall,
            ends_at: now + duration,
            duration,
            end,
            input,
            batch_id: None,
            version: ApiVersion::V1,
        }
    }

    /// The task as made through `version` of the interface.
    pub fn made_in(mut self, version: ApiVersion) -> Task {
        self.version = version;
        self
    }

    /// The URL of this task's record (`results`: of its results) at `base`, in the version
    /// that made it.
    pub fn url(&self, base: &str, results: bool) -> String {
        let e = if results {
            &agents_runtime::endpoint::TASK_RESULTS
        } else {
            &agents_runtime::endpoint::TASK_GET
        };
        let path = e
            .url_path(self.version, &[self.id.as_str()])
            .or_else(|_| e.url_path(ApiVersion::V1, &[self.id.as_str()]))
            .unwrap_or_default();
        format!("{base}/{path}")
    }

    /// The task as an item of batch `id`.
    pub fn in_batch(mut self, id: &str) -> Task {
        self.batch_id = Some(id.to_owned());
        self
    }

    /// The state at `now`.
    pub fn state(&self, now: Instant) -> TaskState {
        if now < self.ends_at {
            TaskState::Pending
        } else {
            match self.end {
                TaskEnd::Success(_) | TaskEnd::Value(_) => TaskState::Success,
                TaskEnd::Error(_) => TaskState::Error,
            }
        }
    }

    /// The state as sent at `now`: `pending`, `queued` or `in_progress` (see [`Flow`]) until it
    /// ends, then `success` or `error`.
    pub fn wire_state(&self, now: Instant) -> &'static str {
        match self.state(now) {
            TaskState::Pending => {
                let second_half = now + self.duration / 2 >= self.ends_at;
                match (self.flow, second_half) {
                    (Flow::Pending, _) | (Flow::Started, false) => "pending",
                    (Flow::Queued, false) => "queued",
                    (Flow::Started | Flow::Queued, true) => "in_progress",
                }
            }
            ended => ended.as_str(),
        }
    }

    /// The task record at `now` as the vendor's models describe it (`id`, `state`, `_query`,
    /// `input`, `created_at`, `status_url` always; the rest when known), with `task_id` as well
    /// for readers of the documented form.
    pub fn json(&self, now: Instant, base_path: &str) -> Value {
        let state = self.state(now);
        let modified = if state == TaskState::Pending {
            self.created
        } else {
            self.created + self.duration
        };
        let (error, status_code) = match (&self.end, state) {
            (TaskEnd::Error(e), TaskState::Error) => (json!(e), json!(500)),
            (_, TaskState::Success) => (Value::Null, json!(200)),
            _ => (Value::Null, Value::Null),
        };
        json!({
            "id": self.id,
            "task_id": self.id,
            "state": self.wire_state(now),
            "created_at": timestamp(self.created),
            "modified_at": timestamp(modified),
            "status_url": self.url(base_path, false),
            "download_url": self.url(base_path, true),
            "output_url": Value::Null,
            "batch_id": self.batch_id,
            "error": error,
            "error_type": if state == TaskState::Error { json!("extraction_failed") } else { Value::Null },
            "status_code": status_code,
            "input": self.input,
            "_query": self.input,
            "api_type": self.api_type,
            "account_name": self.account,
            "queue": "default",
        })
    }

    /// The task record at `now`, wrapped as the live service sends it (`{"task": {...}}`).
    pub fn record(&self, now: Instant, base_path: &str) -> Value {
        json!({ "task": self.json(now, base_path) })
    }

    /// The answer to a request that created this task: the documented `task_id` and the vendor's
    /// `{status: "success", task: {...}}` in one object.
    pub fn created(&self, now: Instant, base_path: &str) -> Value {
        json!({ "task_id": self.id, "status": "success", "task": self.json(now, base_path) })
    }
}

/// The status of a generation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GenerationStatus {
    /// Waiting for a worker.
    Queued,
    /// Being built.
    InProgress,
    /// Built and published.
    Success,
    /// Could not be built.
    Failed,
}

impl GenerationStatus {
    /// The wire value.
    pub fn as_str(self) -> &'static str {
        match self {
            GenerationStatus::Queued => "queued",
            GenerationStatus::InProgress => "in_progress",
            GenerationStatus::Success => "success",
            GenerationStatus::Failed => "failed",
        }
    }
}

/// How a generation ends.
#[derive(Debug, Clone)]
pub enum GenerationEnd {
    /// With this new agent version.
    Success {
        /// The record of the new version.
        record: Box<AgentRecord>,
        /// The version id.
        version_id: String,
        /// What the agent does.
        summary: String,
    },
    /// With this error.
    Failed(String),
}

/// The `api_type` of a task made by the endpoint family `api` (the vendor's set: `web`,
/// `serp`, `ecommerce`, `social`, `media`, `agent`, `extract`, `fast-serp`, `labs`).
pub fn api_type(api: &str) -> &'static str {
    match api {
        "extract" => "extract",
        "serp" => "serp",
        "media" => "media",
        "search" | "map" | "crawl" => "web",
        _ => "agent",
    }
}

/// An agent generation or refinement.
#[derive(Debug, Clone)]
pub struct Generation {
    /// The generation id.
    pub id: String,
    /// The account that asked for it.
    pub account: String,
    /// The agent being made or refined.
    pub agent_name: String,
    /// The version refined, for refinements.
    pub source_version_id: Option<String>,
    /// The record refined, as it was when the refinement started: the refinement publishes
    /// only if the template still holds this very record (not deleted, not changed since).
    pub source_record: Option<std::sync::Arc<AgentRecord>>,
    /// The number the new version gets: 1 for a new agent, the refined one's plus one.
    pub version_number: u32,
    /// Wall-clock creation time.
    pub created: SystemTime,
    /// Monotonic creation time.
    pub created_at: Instant,
    /// When it starts (`queued` → `in_progress`).
    pub starts_at: Instant,
    /// When it ends.
    pub ends_at: Instant,
    /// How it ends.
    pub end: GenerationEnd,
    /// Whether the new version was added to the catalog.
    pub published: bool,
}

impl Generation {
    /// The status at `now`.
    pub fn status(&self, now: Instant) -> GenerationStatus {
        if now < self.starts_at {
            GenerationStatus::Queued
        } else if now < self.ends_at {
            GenerationStatus::InProgress
        } else {
            match self.end {
                GenerationEnd::Success { .. } => GenerationStatus::Success,
                GenerationEnd::Failed(_) => GenerationStatus::Failed,
            }
        }
    }

    /// The generation record at `now`, in `version`'s words (`/v2` calls the agent's name
    /// `name` and describes the new version with JSON Schema); the new version's schemas list
    /// their keys in the order they were written.
    pub fn record(&self, now: Instant, version: ApiVersion) -> agents_schema::Json {
        let status = self.status(now);
        let at =
            |i: Instant| timestamp(self.created + i.saturating_duration_since(self.created_at));
        let mut out = json!({
            "id": self.id,
            "status": status.as_str(),
            version.words().generation_name: self.agent_name,
            "source_version_id": self.source_version_id,
            "created_at": timestamp(self.created),
            "started_at": if status == GenerationStatus::Queued { Value::Null } else { json!(at(self.starts_at)) },
            "completed_at": if matches!(status, GenerationStatus::Success | GenerationStatus::Failed) { json!(at(self.ends_at)) } else { Value::Null },
            "error": Value::Null,
        });
        match (&self.end, status) {
            (
                GenerationEnd::Success {
                    record,
                    version_id,
                    summary,
                },
                GenerationStatus::Success,
            ) => {
                out["generated_version_id"] = json!(version_id);
                out["summary"] = json!(summary);
                let generated = match version {
                    ApiVersion::V1 => crate::catalog::ordered([
                        ("id", json!(version_id).into()),
                        (
                            version.words().generation_name,
                            json!(self.agent_name).into(),
                        ),
                        ("version_number", json!(self.version_number).into()),
                        ("created_at", json!(at(self.ends_at)).into()),
                        ("input_schema", in_order(&record.input_properties)),
                        ("output_schema", in_order(&record.output_schema)),
                        (
                            "metadata",
                            record.extra.get("metadata").map_or(Json::Null, Json::from),
                        ),
                        ("samples", Json::Array(Vec::new())),
                    ]),
                    ApiVersion::V2 => crate::catalog::Version {
                        id: version_id.clone(),
                        number: self.version_number,
                        created: self.created
                            + self.ends_at.saturating_duration_since(self.created_at),
                        record: std::sync::Arc::new((**record).clone()),
                    }
                    .json(),
                };
                let mut out = Json::from(out);
                if let Json::Object(fields) = &mut out {
                    fields.insert("generated_version".into(), generated);
                }
                return out;
            }
            (GenerationEnd::Failed(e), GenerationStatus::Failed) => out["error"] = json!(e),
            _ => {}
        }
        Json::from(out)
    }
}

/// A record's part as JSON, in the order it serializes (a record's fields in their order).
fn in_order(part: &impl serde::Serialize) -> Json {
    // A record's parts are maps of string keys and values serde_json writes: never an error.
    Json::of(part).unwrap_or(Json::Null)
}
