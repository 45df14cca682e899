//! A research run as the service describes it, and how a run or its event stream ends without
//! an answer: the types [`super::error::Error`] carries, apart from the calls that make them
//! (`research.rs`), so the error type needs nothing of the calls.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

open_enum! {
    /// How hard a research agent works on a run (more sources, more reading).
    Effort {
        /// The least.
        Low = "low",
        /// The default of most agents.
        Medium = "medium",
        /// More.
        High = "high",
        /// More still.
        XHigh = "x-high",
        /// Five times `high` (`/v2` only).
        FiveXHigh = "5x-high",
        /// The most.
        Max = "max",
    }
}

open_enum! {
    /// Where a research run is.
    ResearchStatus {
        /// Waiting to start.
        Queued = "queued",
        /// Researching.
        Running = "running",
        /// Answered: the result can be read.
        Completed = "completed",
        /// Ended without an answer.
        Failed = "failed",
        /// Stopped before it answered.
        Cancelled = "cancelled",
    }
}

impl ResearchStatus {
    /// Whether the run has ended (an unknown status counts as ended only when the run says it
    /// is no longer active, which [`ResearchRunHandle::wait`](super::ResearchRunHandle::wait) checks).
    pub fn is_finished(&self) -> bool {
        matches!(
            self,
            ResearchStatus::Completed | ResearchStatus::Failed | ResearchStatus::Cancelled
        )
    }
}

/// Why a run failed, as the service says.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct RunError {
    /// What went wrong.
    pub message: String,
    /// The reference to quote to the operator (the run's id).
    #[serde(default)]
    pub ref_id: String,
}

/// A research run, as starting, listing and reading it answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ResearchRun {
    /// Its id.
    pub id: String,
    /// Its agent's id.
    pub web_search_agent_id: String,
    /// Where it is.
    pub status: ResearchStatus,
    /// Whether it is queued or running.
    pub is_active: bool,
    /// Its effort.
    pub effort: Effort,
    /// The conversation it belongs to ([`ResearchRunRequest::previous_interaction_id`](super::ResearchRunRequest::previous_interaction_id)).
    #[serde(default)]
    pub interaction_id: String,
    /// The question asked.
    #[serde(default)]
    pub prompt: Option<String>,
    /// When it was made (RFC 3339).
    pub created_at: String,
    /// When it started.
    #[serde(default)]
    pub started_at: Option<String>,
    /// When it ended.
    #[serde(default)]
    pub completed_at: Option<String>,
    /// Why it failed.
    #[serde(default)]
    pub error: Option<RunError>,
    /// Fields this client does not know, kept as sent.
    #[serde(flatten)]
    pub rest: Map<String, Value>,
}

/// How a run ended without an answer.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct RunFailure {
    /// The run's id.
    pub run_id: String,
    /// `failed` or `cancelled`.
    pub status: ResearchStatus,
    /// What the service said.
    pub message: String,
    /// The reference to quote to the operator.
    pub ref_id: Option<String>,
    /// The run, when the service sent it.
    pub run: Option<ResearchRun>,
}

impl std::fmt::Display for RunFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "research run {} ended {} without an answer: {}",
            self.run_id,
            self.status.as_str(),
            self.message
        )?;
        if let Some(r) = &self.ref_id {
            write!(f, " (ref {r})")?;
        }
        Ok(())
    }
}

/// How an event stream ended early.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum StreamEnd {
    /// Nothing, not even a keep-alive, came for this long.
    Stalled(Duration),
    /// The connection ended before the run did, and resuming failed this many times in a row
    /// (0: the service sends no event ids, so the stream cannot be resumed without repeats).
    Cut(u32),
    /// An event was larger than the client accepts.
    TooLarge(u64),
}

impl std::fmt::Display for StreamEnd {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StreamEnd::Stalled(d) => write!(
                f,
                "stalled: nothing came for {:.1} s (not even a keep-alive); read the run's status \
                 or result instead, or allow more silence (with_stall_after)",
                d.as_secs_f64()
            ),
            StreamEnd::Cut(0) => write!(
                f,
                "ended before the run did, and the service numbers no events, so it cannot be \
                 resumed without repeats; wait for the run instead"
            ),
            StreamEnd::Cut(n) => write!(
                f,
                "ended before the run did, and {n} reconnection(s) in a row failed; wait for the \
                 run instead"
            ),
            StreamEnd::TooLarge(limit) => write!(
                f,
                "sent an event larger than {limit} bytes (max_response_bytes)"
            ),
        }
    }
}
