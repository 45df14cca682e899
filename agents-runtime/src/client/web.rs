//! Extract, search, map and crawl, with the request fields the live service takes.
//!
//! Every request type has an escape hatch, `.field(name, value)`, for fields it does not know;
//! open sets (drivers, focus, statuses) have an `Other` variant so unknown values never fail.

use std::time::Duration;

use base64::Engine as _;
use serde::{Deserialize, Serialize, Serializer};
use serde_json::{Map, Value, json};

use super::Client;
use super::JsonBody;
use super::error::Error;
use super::listing::Listing;
use super::retry::Idempotency;
use super::tasks::{TaskHandle, TaskOutput};
use super::waiter::{self, Poll, WaitOptions};
use crate::endpoint;

use super::open::open_string as open_enum;

open_enum! {
    /// The request execution mode (more values live).
    Driver {
        /// HTTP without rendering.
        Vx6 = "vx6",
        /// JavaScript rendering.
        Vx8 = "vx8",
        /// Stealth browser.
        Vx10 = "vx10",
        /// Chosen by the service.
        Auto = "auto",
    }
}

open_enum! {
    /// Search focus.
    Focus {
        /// General web.
        General = "general",
        /// Code.
        Coding = "coding",
        /// News.
        News = "news",
        /// Papers.
        Academic = "academic",
        /// Shopping.
        Shopping = "shopping",
        /// Social media.
        Social = "social",
        /// Geographic.
        Geo = "geo",
        /// Places.
        Location = "location",
    }
}

open_enum! {
    /// Search depth: `lite`, `fast` and `deep` in `/v1`; `lite` and `standard` in `/v2`
    /// (where [`SearchRequest::full_content`] asks for whole pages).
    SearchDepth {
        /// Fastest (both versions).
        Lite = "lite",
        /// Balanced (`/v1`).
        Fast = "fast",
        /// Most thorough (`/v1`).
        Deep = "deep",
        /// Thorough (`/v2`).
        Standard = "standard",
    }
}

open_enum! {
    /// How map and crawl use the sitemap.
    Sitemap {
        /// Ignore it.
        Skip = "skip",
        /// Use it with links.
        Include = "include",
        /// Use only it.
        Only = "only",
    }
}

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

/// An extract output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ExtractFormat {
    /// `data.html`.
    Html,
    /// `data.markdown`.
    Markdown,
    /// `data.headers`.
    Headers,
    /// `data.links`.
    Links,
    /// `data.screenshot`, a base64 PNG (turns rendering on).
    Screenshot,
}

/// A duration as the service reads it: milliseconds.
fn ms(d: Duration) -> Value {
    json!(u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// One browser action; serialized as a one-key object.
#[derive(Debug, Clone, PartialEq)]
pub enum BrowserAction {
    /// Navigate to a URL.
    Goto(String),
    /// Wait.
    Wait(Duration),
    /// Wait until a selector matches.
    WaitForElement(String),
    /// Wait for a navigation to finish.
    WaitForNavigation,
    /// Click an element.
    Click(String),
    /// Type a value into an element.
    Fill {
        /// The element.
        selector: String,
        /// The text.
        value: String,
    },
    /// Press a key.
    Press(String),
    /// Scroll to a selector or position.
    Scroll(Value),
    /// Scroll to the bottom progressively.
    AutoScroll,
    /// Take a screenshot.
    Screenshot,
    /// Read the cookies.
    GetCookies,
    /// Run JavaScript.
    Eval(String),
    /// Any action this client does not model: name and value.
    Other(String, Value),
}

impl Serialize for BrowserAction {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (name, value) = match self {
            BrowserAction::Goto(u) => ("goto", json!(u)),
            BrowserAction::Wait(d) => ("wait", ms(*d)),
            BrowserAction::WaitForElement(sel) => ("wait_for_element", json!(sel)),
            BrowserAction::WaitForNavigation => ("wait_for_navigation", json!(true)),
            BrowserAction::Click(sel) => ("click", json!({ "selector": sel })),
            BrowserAction::Fill { selector, value } => {
                ("fill", json!({ "selector": selector, "value": value }))
            }
            BrowserAction::Press(k) => ("press", json!(k)),
            BrowserAction::Scroll(v) => ("scroll", v.clone()),
            BrowserAction::AutoScroll => ("auto_scroll", json!(true)),
            BrowserAction::Screenshot => ("screenshot", json!(true)),
            BrowserAction::GetCookies => ("get_cookies", json!(true)),
            BrowserAction::Eval(code) => ("eval", json!({ "code": code })),
            BrowserAction::Other(name, v) => (name.as_str(), v.clone()),
        };
        let mut m = Map::new();
        m.insert(name.to_owned(), value);
        Value::Object(m).serialize(s)
    }
}

/// An extract request: `ExtractRequest::new(url).format(ExtractFormat::Markdown)`.
#[derive(Debug, Clone, PartialEq)]
pub struct ExtractRequest {
    body: Map<String, Value>,
}

impl ExtractRequest {
    /// Extract one URL.
    pub fn new(url: impl Into<String>) -> Self {
        let mut body = Map::new();
        body.insert("url".into(), json!(url.into()));
        ExtractRequest { body }
    }

    /// Settings without a URL: the `shared_inputs` of [`Client::extract_batch`], which every
    /// item inherits unless it sets them itself.
    pub fn settings() -> Self {
        ExtractRequest { body: Map::new() }
    }

    setters! {
        /// Render JavaScript.
        render: bool => "render",
        /// Two-letter country of the residential IP.
        country: &str => "country",
        /// A session id to reuse.
        session: &str => "session",
        /// `desktop`, `mobile` or `tablet`.
        device: &str => "device",
        /// Referrer type.
        referrer_type: &str => "referrer_type",
        /// Target statuses that count as success.
        expected_status_codes: Vec<u16> => "expected_status_codes",
        /// Use HTTP/2.
        http2: bool => "http2",
        /// A request tag.
        tag: &str => "tag",
        /// Parse with the stored or inline parser.
        parse: bool => "parse",
        /// The driver (open set).
        driver: Driver => "driver",
    }

    /// Adds an output format.
    pub fn format(mut self, f: ExtractFormat) -> Self {
        let list = self
            .body
            .entry("formats")
            .or_insert_with(|| Value::Array(Vec::new()));
        if let Value::Array(items) = list {
            let v = json!(f);
            if !items.contains(&v) {
                items.push(v);
            }
        }
        self
    }

    /// Browser actions, in order.
    pub fn browser_actions(mut self, actions: impl IntoIterator<Item = BrowserAction>) -> Self {
        let list: Vec<BrowserAction> = actions.into_iter().collect();
        self.body.insert("browser_actions".into(), json!(list));
        self
    }

    /// Render options (render type, timeout, iframes, blocking, retries).
    pub fn render_options(mut self, options: Value) -> Self {
        self.body.insert("render_options".into(), options);
        self
    }

    /// A custom parser definition, or a stored parser's name.
    pub fn parser(mut self, parser: Value) -> Self {
        self.body.insert("parser".into(), parser);
        self
    }

    pub(crate) fn into_body(self) -> Map<String, Value> {
        self.body
    }

    /// Checks the URL and the options.
    pub(crate) fn check(&self) -> Result<(), Error> {
        let url = self.body.get("url").and_then(Value::as_str).unwrap_or("");
        super::check_http_url("url", url)?;
        self.check_options()
    }

    /// Checks the options (a batch's shared settings have no URL).
    pub(crate) fn check_options(&self) -> Result<(), Error> {
        if let Some(c) = self.body.get("country").and_then(Value::as_str)
            && (c.len() != 2 || !c.bytes().all(|b| b.is_ascii_alphabetic()))
        {
            return Err(Error::InvalidOption {
                option: "country",
                message: format!("{c:?} is not a two-letter country code"),
            });
        }
        Ok(())
    }
}

/// The result of one browser action.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ActionResult {
    /// The action.
    #[serde(default)]
    pub name: String,
    /// `done`, `error`, `skipped`, `no-run`, `in-progress` (the vendor's values; an open set).
    #[serde(default, deserialize_with = "open_enum")]
    pub status: String,
    /// Milliseconds it took.
    #[serde(default)]
    pub duration: Option<f64>,
    /// What it returned.
    #[serde(default)]
    pub result: Value,
    /// Why it failed or was skipped.
    #[serde(default)]
    pub error: Option<String>,
}

/// `data.browser_actions`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct BrowserActions {
    /// One entry per action, in order.
    #[serde(default)]
    pub results: Vec<ActionResult>,
    /// Whether every required action succeeded.
    #[serde(default)]
    pub success: bool,
    /// Milliseconds for all actions.
    #[serde(default)]
    pub total_duration: Option<f64>,
}

/// `data` of an extract result.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct ExtractData {
    /// Page HTML.
    #[serde(default)]
    pub html: Option<String>,
    /// Page markdown.
    #[serde(default)]
    pub markdown: Option<String>,
    /// Target response headers.
    #[serde(default)]
    pub headers: Option<Map<String, Value>>,
    /// Every link on the page.
    #[serde(default)]
    pub links: Option<Vec<String>>,
    /// A base64 PNG screenshot; decode with [`ExtractResult::screenshot_png`].
    #[serde(default)]
    pub screenshot: Option<String>,
    /// Results of browser actions.
    #[serde(default)]
    pub browser_actions: Option<BrowserActions>,
    /// Parsed data, when a parser ran.
    #[serde(default)]
    pub parsing: Option<Value>,
    /// Everything else (`redirects`, `network_capture`, …).
    #[serde(flatten)]
    pub rest: Map<String, Value>,
}

/// An extract result.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct ExtractResult {
    /// The URL extracted (after redirects).
    #[serde(default)]
    pub url: Option<String>,
    /// The request's task id.
    #[serde(default)]
    pub task_id: Option<String>,
    /// `success`, `failed`, … (open set).
    #[serde(default, deserialize_with = "open_enum")]
    pub status: String,
    /// Target HTTP status (`200` or `200.0`).
    #[serde(default, deserialize_with = "super::open::status_code")]
    pub status_code: Option<u16>,
    /// The data.
    #[serde(default)]
    pub data: ExtractData,
    /// Warnings.
    #[serde(default)]
    pub warnings: Vec<Value>,
    /// `driver` and the rest.
    #[serde(default)]
    pub metadata: Map<String, Value>,
}

impl ExtractResult {
    /// The screenshot as PNG bytes, when one was asked for.
    pub fn screenshot_png(&self) -> Option<Result<Vec<u8>, Error>> {
        let b64 = self.data.screenshot.as_ref()?;
        Some(
            base64::engine::general_purpose::STANDARD
                .decode(b64.trim())
                .map_err(|e| Error::InvalidOption {
                    option: "screenshot",
                    message: format!("not base64: {e}"),
                })
                .and_then(|bytes| {
                    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
                        Ok(bytes)
                    } else {
                        Err(Error::InvalidOption {
                            option: "screenshot",
                            message: "not a PNG".into(),
                        })
                    }
                }),
        )
    }
}

impl TaskOutput for ExtractResult {}

/// A search request.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchRequest {
    body: Map<String, Value>,
}

impl SearchRequest {
    /// Search for `query`.
    pub fn new(query: impl Into<String>) -> Self {
        let mut body = Map::new();
        body.insert("query".into(), json!(query.into()));
        SearchRequest { body }
    }

    setters! {
        /// Results to return.
        max_results: u32 => "max_results",
        /// Add an AI-written answer.
        include_answer: bool => "include_answer",
        /// The focus (open set).
        focus: Focus => "focus",
        /// The depth (open set).
        depth: SearchDepth => "search_depth",
        /// Each hit's whole page text in `content`, not only a description (`/v2`).
        full_content: bool => "full_content",
    }
}

/// One search hit.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct SearchHit {
    /// Title.
    #[serde(default)]
    pub title: Option<String>,
    /// URL.
    #[serde(default)]
    pub url: Option<String>,
    /// Snippet.
    #[serde(default)]
    pub snippet: Option<String>,
    /// Description.
    #[serde(default)]
    pub description: Option<String>,
    /// Page content.
    #[serde(default)]
    pub content: Option<String>,
    /// Everything else.
    #[serde(flatten)]
    pub rest: Map<String, Value>,
}

/// A search result.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct SearchResult {
    /// Status (open set).
    #[serde(default, deserialize_with = "open_enum")]
    pub status: String,
    /// The query.
    #[serde(default)]
    pub query: Option<String>,
    /// The hits.
    #[serde(default)]
    pub results: Vec<SearchHit>,
    /// The AI-written answer, when asked for.
    #[serde(default)]
    pub answer: Option<String>,
    /// Sources of the answer.
    #[serde(default)]
    pub answer_citations: Option<Value>,
    /// Everything else (`request_id`, `total_results`, …).
    #[serde(flatten)]
    pub rest: Map<String, Value>,
}

impl TaskOutput for SearchResult {}

/// A map request.
#[derive(Debug, Clone, PartialEq)]
pub struct MapRequest {
    body: Map<String, Value>,
}

impl MapRequest {
    /// Map the site of `url`.
    pub fn new(url: impl Into<String>) -> Self {
        let mut body = Map::new();
        body.insert("url".into(), json!(url.into()));
        MapRequest { body }
    }

    setters! {
        /// Most links to return.
        limit: u32 => "limit",
        /// `domain`, `subdomain` or `all`.
        domain_filter: &str => "domain_filter",
        /// Two-letter country.
        country: &str => "country",
        /// Locale of the requests (`en-US`).
        locale: &str => "locale",
        /// Sitemap use.
        sitemap: Sitemap => "sitemap",
    }
}

/// One mapped link.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct MapLink {
    /// URL.
    pub url: String,
    /// Page title.
    #[serde(default)]
    pub title: Option<String>,
    /// Page description.
    #[serde(default)]
    pub description: Option<String>,
}

/// A map result.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct MapResult {
    /// Whether mapping succeeded.
    #[serde(default)]
    pub success: bool,
    /// The links.
    #[serde(default)]
    pub links: Vec<MapLink>,
    /// The task id.
    #[serde(default)]
    pub task_id: Option<String>,
}

impl TaskOutput for MapResult {}

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
        waiter::wait(format!("crawl {}", self.id), self.wait, || async {
            let r = self.record().await?;
            Ok(if r.is_finished() {
                Poll::Done(r)
            } else {
                Poll::Pending(r.status.as_str().to_owned())
            })
        })
        .await
    }

    /// Terminates the crawl.
    pub async fn terminate(&self) -> Result<CrawlRecord, Error> {
        Ok(self
            .client
            .send(
                &endpoint::CRAWL_CANCEL,
                &[&self.id],
                &[],
                None,
                Idempotency::Safe,
            )
            .await?
            .0)
    }

    /// The extract result of one completed page task.
    pub async fn page(&self, task_id: &str) -> Result<ExtractResult, Error> {
        self.client.task_output(task_id).await
    }
}

impl Client {
    /// Extracts one page.
    pub async fn extract(&self, request: ExtractRequest) -> Result<ExtractResult, Error> {
        request.check()?;
        let body = JsonBody::new(&request.body, "request")?;
        Ok(self
            .send(
                &endpoint::EXTRACT_RUN,
                &[],
                &[],
                Some(&body),
                Idempotency::Unsafe,
            )
            .await?
            .0)
    }

    /// Extracts one page as a task.
    pub async fn extract_async(
        &self,
        request: ExtractRequest,
    ) -> Result<TaskHandle<ExtractResult>, Error> {
        request.check()?;
        self.start_task(
            &endpoint::EXTRACT_ASYNC,
            &JsonBody::new(&request.body, "request")?,
        )
        .await
    }

    /// Searches the web.
    pub async fn search(&self, request: SearchRequest) -> Result<SearchResult, Error> {
        let body = JsonBody::new(&request.body, "request")?;
        Ok(self
            .send(
                &endpoint::SEARCH_RUN,
                &[],
                &[],
                Some(&body),
                Idempotency::Unsafe,
            )
            .await?
            .0)
    }

    /// Searches the web as a task (`/v1` only).
    pub async fn search_async(
        &self,
        request: SearchRequest,
    ) -> Result<TaskHandle<SearchResult>, Error> {
        self.start_task(
            &endpoint::SEARCH_ASYNC,
            &JsonBody::new(&request.body, "request")?,
        )
        .await
    }

    /// Lists a site's URLs.
    pub async fn map(&self, request: MapRequest) -> Result<MapResult, Error> {
        let body = JsonBody::new(&request.body, "request")?;
        Ok(self
            .send(
                &endpoint::MAP_RUN,
                &[],
                &[],
                Some(&body),
                Idempotency::Unsafe,
            )
            .await?
            .0)
    }

    /// Lists a site's URLs as a task (`/v1` only).
    pub async fn map_async(&self, request: MapRequest) -> Result<TaskHandle<MapResult>, Error> {
        self.start_task(
            &endpoint::MAP_ASYNC,
            &JsonBody::new(&request.body, "request")?,
        )
        .await
    }

    /// Starts a crawl (crawls are asynchronous only).
    pub async fn crawl(&self, request: CrawlRequest) -> Result<CrawlHandle, Error> {
        let body = JsonBody::new(&request.body, "request")?;
        let (record, _): (CrawlRecord, _) = self
            .send(
                &endpoint::CRAWL_START,
                &[],
                &[],
                Some(&body),
                Idempotency::Unsafe,
            )
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
