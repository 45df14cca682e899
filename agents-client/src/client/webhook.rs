//! The completion POST a task sends to its `callback_url`: parse and check it with a
//! plain function, usable from any web framework.
//!
//! ```
//! use agents_runtime::client::webhook::parse_completion;
//! let body = br#"{"task_id": "t-1", "state": "success", "agent": "retailer_a_pdp"}"#;
//! let done = parse_completion(Some("application/json"), body).unwrap();
//! assert_eq!(done.task_id, "t-1");
//! ```

use serde::Deserialize;
use serde_json::{Map, Value};

use super::tasks::TaskState;

/// A task completion notice: task metadata, no result data (fetch it by `task_id`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Completion {
    /// The task that completed.
    pub task_id: String,
    /// Its end state (`success`, `error`, or another value).
    pub state: TaskState,
    /// The agent or API that ran.
    #[serde(default)]
    pub agent: Option<String>,
    /// Its batch.
    #[serde(default)]
    pub batch_id: Option<String>,
    /// When it completed.
    #[serde(default)]
    pub completed_at: Option<String>,
    /// Where its result is.
    #[serde(default)]
    pub download_url: Option<String>,
    /// Every other field.
    #[serde(flatten)]
    pub rest: Map<String, Value>,
}

/// Why a webhook body was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WebhookError {
    /// The content type is not JSON.
    #[error("webhook content type {0:?} is not application/json")]
    ContentType(String),
    /// The body is not a completion notice.
    #[error("webhook body is not a task completion at `{path}`: {message}")]
    Body {
        /// Where in the body.
        path: String,
        /// What is wrong.
        message: String,
    },
}

pub use crate::endpoint::is_json_content_type;

/// Parses and checks a completion POST: JSON content type (when given), a non-empty `task_id`
/// and a `state`.
pub fn parse_completion(
    content_type: Option<&str>,
    body: &[u8],
) -> Result<Completion, WebhookError> {
    if let Some(ct) = content_type {
        let essence = ct
            .split(';')
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase();
        if essence != "application/json" && !essence.ends_with("+json") {
            return Err(WebhookError::ContentType(ct.to_owned()));
        }
    }
    let c: Completion =
        super::decode_body(body).map_err(|(path, message)| WebhookError::Body { path, message })?;
    if c.task_id.trim().is_empty() {
        return Err(WebhookError::Body {
            path: "task_id".into(),
            message: "empty task id".into(),
        });
    }
    Ok(c)
}
