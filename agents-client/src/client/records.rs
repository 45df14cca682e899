//! What the service says about long-running work: task records and generation records. They
//! are plain data that errors carry too ([`Error::TaskFailed`](super::Error::TaskFailed),
//! [`Error::GenerationFailed`](super::Error::GenerationFailed)), so they sit below both the
//! error type and the handles that wait on them.

use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value};

super::open::open_enum! {
    /// The state of a task: an open set (`pending`, `queued`, `in_progress`, `success`, `error`,
    /// and anything else the service may add; waiters keep polling on unknown values).
    TaskState {
        /// `pending`.
        Pending = "pending",
        /// `queued`.
        Queued = "queued",
        /// `in_progress`.
        InProgress = "in_progress",
        /// `success`: results can be fetched.
        Success = "success",
        /// `error`: the extraction failed.
        Error = "error",
    }
}

/// A task record, read from the wrapped form the live service sends
/// (`{"task": {...}}`) or a flat one.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskRecord {
    /// The task id.
    pub id: String,
    /// Its state.
    pub state: TaskState,
    /// The error message of a failed task.
    pub error: Option<String>,
    /// The batch it belongs to.
    pub batch_id: Option<String>,
    /// Every field as sent (`created_at`, `download_url`, `input`, …).
    pub fields: Map<String, Value>,
}

impl<'de> Deserialize<'de> for TaskRecord {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut outer = Map::<String, Value>::deserialize(d)?;
        let fields = match outer.remove("task") {
            Some(Value::Object(inner)) => inner,
            Some(other) => {
                outer.insert("task".into(), other);
                outer
            }
            None => outer,
        };
        let text = |k: &str| fields.get(k).and_then(Value::as_str).map(str::to_owned);
        let id = text("id")
            .or_else(|| text("task_id"))
            .ok_or_else(|| serde::de::Error::missing_field("id"))?;
        let state = match fields.get("state") {
            Some(v) => TaskState::deserialize(v).map_err(serde::de::Error::custom)?,
            None => return Err(serde::de::Error::missing_field("state")),
        };
        let error = match fields.get("error") {
            Some(Value::String(s)) => Some(s.clone()),
            Some(Value::Null) | None => None,
            Some(other) => Some(other.to_string()),
        };
        Ok(TaskRecord {
            id,
            state,
            error,
            batch_id: text("batch_id"),
            fields,
        })
    }
}

super::open::open_enum! {
    /// A generation's status: an open set.
    GenerationStatus {
        /// `queued`.
        Queued = "queued",
        /// `in_progress`.
        InProgress = "in_progress",
        /// `success`: the version is published and runnable by name.
        Success = "success",
        /// `failed`.
        Failed = "failed",
    }
}

/// A generation record.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Generation {
    /// The generation id.
    pub id: String,
    /// Its status.
    pub status: GenerationStatus,
    /// The agent (template, in `/v2`, which calls the field `name`) made or refined.
    #[serde(default, alias = "name")]
    pub agent_name: Option<String>,
    /// The published version, on success.
    #[serde(default)]
    pub generated_version_id: Option<String>,
    /// What the agent does, on success.
    #[serde(default)]
    pub summary: Option<String>,
    /// Why it failed.
    #[serde(default, deserialize_with = "error_text")]
    pub error: Option<String>,
    /// Every other field (`created_at`, `generated_version`, …).
    #[serde(flatten)]
    pub rest: Map<String, Value>,
}

fn error_text<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    Ok(match Option::<Value>::deserialize(d)? {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s),
        Some(other) => Some(other.to_string()),
    })
}
