//! Extract: one page (or many in a batch), its formats, browser actions and screenshots.

use std::time::Duration;

use base64::Engine as _;
use serde::{Deserialize, Serialize, Serializer};
use serde_json::{Map, Value, json};

use super::super::Client;
use super::super::JsonBody;
use super::super::error::{Error, OptionCheck};
use super::super::open::open_string as open_enum;
use super::super::tasks::{TaskHandle, TaskOutput};
use crate::endpoint;

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
        let mut check = OptionCheck::default();
        let url = self.body.get("url").and_then(Value::as_str).unwrap_or("");
        check.take(super::super::check_http_url("url", url));
        self.option_problems(&mut check);
        check.finish()
    }

    /// Checks the options (a batch's shared settings have no URL).
    pub(crate) fn check_options(&self) -> Result<(), Error> {
        let mut check = OptionCheck::default();
        self.option_problems(&mut check);
        check.finish()
    }

    fn option_problems(&self, check: &mut OptionCheck) {
        if let Some(c) = self.body.get("country").and_then(Value::as_str)
            && (c.len() != 2 || !c.bytes().all(|b| b.is_ascii_alphabetic()))
        {
            check.bad("country", format!("{c:?} is not a two-letter country code"));
        }
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
    #[serde(default, deserialize_with = "super::super::open::status_code")]
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

impl Client {
    /// Extracts one page.
    pub async fn extract(&self, request: ExtractRequest) -> Result<ExtractResult, Error> {
        request.check()?;
        Ok(self
            .post(&endpoint::EXTRACT_RUN, &[], &request.body, "request")
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
}
