//! What the emulator keeps of batches and crawls: plain data, below the handlers that make
//! and read it and the state that holds it.

use std::time::{Instant, SystemTime};

use serde_json::Value;

/// A batch: its tasks, in input order.
#[derive(Debug, Clone)]
pub struct Batch {
    /// The batch id.
    pub id: String,
    /// The owning account.
    pub account: String,
    /// Creation time.
    pub created: SystemTime,
    /// Task ids in input order.
    pub tasks: Vec<String>,
}

/// A crawl: its pages are tasks that finish on the lifecycle clock.
#[derive(Debug, Clone)]
pub struct Crawl {
    /// The crawl id.
    pub id: String,
    /// The owning account.
    pub account: String,
    /// The start URL.
    pub url: String,
    /// Creation time.
    pub created: SystemTime,
    /// Creation instant: the crawl is `queued` for the first half of a task's time.
    pub started: Instant,
    /// How long it stays `queued`.
    pub queued_for: std::time::Duration,
    /// Page task ids.
    pub tasks: Vec<String>,
    /// Set when terminated.
    pub canceled_at: Option<SystemTime>,
    /// The request options with their defaults, as the record echoes them.
    pub options: Value,
}
