//! Crawl: a site page by page as tasks, with a waiter, termination and webhook callbacks.

use std::time::Duration;

use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::super::Client;
use super::super::error::Error;
use super::super::listing::Listing;
use super::super::open::open_string as open_enum;
use super::super::waiter::{self, Poll, WaitOptions};
use crate::endpoint;

use super::Sitemap;
use super::extract::ExtractResult;

open_enum! {
    /// Status of a crawl.
    CrawlStatus {
        /// Waiting.
        Queued = "queued",
        /// Pages pending.
        Running = "running",
        /// Done.
        Succeeded = "succeeded",
        /// Failed.
        Failed = "failed",
        /// Terminated.
        Canceled = "canceled",
    }
}

/// A crawl request.
#[derive(Debug, Clone, PartialEq)]
pub struct CrawlRequest {
    body: Map<String, Value>,
}

impl CrawlRequest {
    /// Crawl from `url`.
    pub fn new(url: impl Into<String>) -> Self {
        let mut body = Map::new();
        body.insert("url".into(), json!(url.into()));
        CrawlRequest { body }
    }

    setters! {
        /// Most pages.
        limit: u32 => "limit",
        /// Only paths with these prefixes.
        include_paths: Vec<String> => "include_paths",
        /// Never paths with these prefixes.
        exclude_paths: Vec<String> => "exclude_paths",
        /// Link depth from the start page.
        max_discovery_depth: u32 => "max_discovery_depth",
        /// Follow links to other sites.
        allow_external_links: bool => "allow_external_links",
        /// Follow links to subdomains.
        allow_subdomains: bool => "allow_subdomains",
        /// A name for the crawl.
        name: &str => "name",
        /// Sitemap use.
        sitemap: Sitemap => "sitemap",
        /// Also follow links outside the start URL's path (siblings and parents).
        crawl_entire_domain: bool => "crawl_entire_domain",
        /// Treat URLs that differ only in their query as one page.
        ignore_query_parameters: bool => "ignore_query_parameters",
        /// Extract settings for every page (formats, driver, …), as an extract request takes them.
        extract_options: Map<String, Value> => "extract_options",
    }

    /// A webhook the service calls as the crawl moves (`started`, `page`, `completed`,
    /// `failed`).
    pub fn callback(mut self, callback: CrawlCallback) -> Self {
        self.body.insert("callback".into(), callback.into_value());
        self
    }
}

/// Crawl webhook events.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum CrawlEvent {
    /// The crawl started.
    Started,
    /// A page ended.
    Page,
    /// The crawl succeeded.
    Completed,
    /// The crawl failed.
    Failed,
}

impl CrawlEvent {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            CrawlEvent::Started => "started",
            CrawlEvent::Page => "page",
            CrawlEvent::Completed => "completed",
            CrawlEvent::Failed => "failed",
        }
    }
}

/// The `callback` of a crawl: a URL, with headers, metadata echoed in every call, and the
/// events to call it for (all by default).
///
/// ```
/// use agents_runtime::client::web::{CrawlCallback, CrawlEvent, CrawlRequest};
/// let request = CrawlRequest::new("https://docs.example/")
///     .limit(50)
///     .callback(
///         CrawlCallback::new("https://hooks.example/crawl")
///             .header("x-hook-secret", "s3cr3t")
///             .events([CrawlEvent::Page, CrawlEvent::Completed]),
///     );
/// # let _ = request;
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct CrawlCallback {
    url: String,
    headers: Map<String, Value>,
    metadata: Option<Value>,
    events: Vec<CrawlEvent>,
}

impl CrawlCallback {
    /// Calls `url`.
    pub fn new(url: impl Into<String>) -> Self {
        CrawlCallback {
            url: url.into(),
            headers: Map::new(),
            metadata: None,
            events: Vec::new(),
        }
    }

    /// A header sent with every call.
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers
            .insert(name.into(), Value::String(value.into()));
        self
    }

    /// Data of your own, echoed in every call.
    pub fn metadata(mut self, metadata: Value) -> Self {
        self.metadata = Some(metadata);
        self
    }

    /// Only these events (default: all).
    pub fn events(mut self, events: impl IntoIterator<Item = CrawlEvent>) -> Self {
        self.events = events.into_iter().collect();
        self
    }

    fn into_value(self) -> Value {
        let mut o = Map::new();
        o.insert("url".into(), json!(self.url));
        if !self.headers.is_empty() {
            o.insert("headers".into(), Value::Object(self.headers));
        }
        if let Some(m) = self.metadata {
            o.insert("metadata".into(), m);
        }
        if !self.events.is_empty() {
            let events: Vec<&str> = self.events.iter().map(|e| e.as_str()).collect();
            o.insert("events".into(), json!(events));
        }
        Value::Object(o)
    }
}

/// A page task of a crawl.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct CrawlTask {
    /// The task id (results via [`Client::task_output`]).
    pub task_id: String,
    /// `pending`, `completed`, `failed` (open set).
    #[serde(default, deserialize_with = "open_enum")]
    pub status: String,
    /// Created (ISO 8601).
    #[serde(default)]
    pub created_at: Option<String>,
    /// Updated (ISO 8601).
    #[serde(default)]
    pub updated_at: Option<String>,
}

/// A crawl record.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct CrawlRecord {
    /// The crawl id.
    pub crawl_id: String,
    /// The start URL.
    #[serde(default)]
    pub url: Option<String>,
    /// Its status.
    pub status: CrawlStatus,
    /// Its page tasks.
    #[serde(default)]
    pub tasks: Vec<CrawlTask>,
    /// Everything else (`total`, `completed`, `failed`, `pending`, timestamps, options).
    #[serde(flatten)]
    pub rest: Map<String, Value>,
}

impl CrawlRecord {
    /// Whether the crawl has ended.
    pub fn is_finished(&self) -> bool {
        matches!(
            self.status,
            CrawlStatus::Succeeded | CrawlStatus::Failed | CrawlStatus::Canceled
        )
    }
}

/// A crawl in progress.
#[derive(Debug, Clone)]
pub struct CrawlHandle {
    client: Client,
    id: String,
    wait: WaitOptions,
}

impl CrawlHandle {
    /// A handle for an existing crawl.
    pub fn attach(client: &Client, id: impl Into<String>) -> Self {
        CrawlHandle {
            client: client.clone(),
            id: id.into(),
            wait: WaitOptions::TASK.max_wait(Duration::from_secs(6 * 3600)),
        }
    }

    /// The crawl id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Polls with other options.
    pub fn with_wait(mut self, options: WaitOptions) -> Self {
        self.wait = options;
        self
    }

    /// The record now.
    pub async fn record(&self) -> Result<CrawlRecord, Error> {
        Ok(self
            .client
            .get(&endpoint::CRAWL_GET, &[&self.id], &[])
            .await?
            .0)
    }

    /// Polls until the crawl has ended (succeeded, failed or canceled).
    pub async fn wait(&self) -> Result<CrawlRecord, Error> {
        waiter::wait(
            self.client.clock(),
            format!("crawl {}", self.id),
            self.wait,
            || async {
                let r = self.record().await?;
                Ok(if r.is_finished() {
                    Poll::Done(r)
                } else {
                    Poll::Pending(r.status.as_str().to_owned())
                })
            },
        )
        .await
    }

    /// Terminates the crawl.
    pub async fn terminate(&self) -> Result<CrawlRecord, Error> {
        Ok(self
            .client
            .send(&endpoint::CRAWL_CANCEL, &[&self.id], &[], None)
            .await?
            .0)
    }

    /// The extract result of one completed page task.
    pub async fn page(&self, task_id: &str) -> Result<ExtractResult, Error> {
        self.client.task_output(task_id).await
    }
}

impl Client {
    /// Starts a crawl (crawls are asynchronous only).
    pub async fn crawl(&self, request: CrawlRequest) -> Result<CrawlHandle, Error> {
        let (record, _): (CrawlRecord, _) = self
            .post(&endpoint::CRAWL_START, &[], &request.body, "request")
            .await?;
        Ok(CrawlHandle::attach(self, record.crawl_id))
    }

    /// This account's crawls (the first page, when the service pages them).
    pub async fn crawls(&self) -> Result<Vec<CrawlRecord>, Error> {
        let (page, _): (Listing<CrawlRecord>, _) =
            self.get(&endpoint::CRAWL_LIST, &[], &[]).await?;
        Ok(page.items)
    }
}
