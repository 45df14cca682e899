//! Extract, search, map and crawl (spec 4.1, 4.2; wire notes).
//!
//! The emulator never contacts anything outside loopback: URLs on 127.0.0.0/8, `localhost` or
//! `[::1]` are fetched for real (so a test can serve a site), every other host gets a
//! deterministic synthetic page. Browser actions are validated; each gets a result entry, and the
//! ones that need a browser are reported as `skipped`, never as done.

use std::collections::{BTreeSet, VecDeque};
use std::net::IpAddr;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use axum::Extension;
use axum::Json;
use axum::body::Body;
use axum::extract::State as AxState;
use axum::http::{HeaderMap, StatusCode};
use reqwest::Url;
use serde_json::{Map, Value, json};

use crate::error::ApiError;
use crate::lifecycle::{Flow, Task, TaskEnd, TaskState, timestamp};
use crate::params::kind;
use crate::request::{ApiPath, json_object, optional_str, required_str};
use crate::routes::Ctx;
use crate::state::{State, lock};

type Shared = Arc<State>;

/// Largest page body read (bigger pages are cut, with a warning).
pub const MAX_PAGE: usize = 10 * 1024 * 1024;

/// A 1×1 transparent PNG: what the emulator returns for the `screenshot` format, with a warning
/// saying it has no browser to render with.
const PLACEHOLDER_PNG: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";

/// Whether a URL points at loopback (the only addresses the emulator fetches).
pub fn is_loopback(url: &Url) -> bool {
    match url.host() {
        Some(url::Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => IpAddr::V4(ip).is_loopback(),
        Some(url::Host::Ipv6(ip)) => IpAddr::V6(ip).is_loopback(),
        None => false,
    }
}

fn parse_url(text: &str, field: &str) -> Result<Url, ApiError> {
    let url = Url::parse(text.trim())
        .map_err(|e| ApiError::bad_request(field, format!("invalid URL {text:?}: {e}")))?;
    if !matches!(url.scheme(), "http" | "https") || url.host().is_none() {
        return Err(ApiError::bad_request(
            field,
            format!("invalid URL {text:?}: expected http(s) with a host"),
        ));
    }
    Ok(url)
}

/// A fetched (or synthesized) page.
#[derive(Debug, Clone)]
pub struct Page {
    /// Final URL.
    pub url: Url,
    /// Target status.
    pub status: u16,
    /// Response headers.
    pub headers: Map<String, Value>,
    /// Body text.
    pub html: String,
    /// Problems worth a warning (cut body, …).
    pub warnings: Vec<String>,
}

fn http() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::limited(5))
        .timeout(Duration::from_secs(10))
        .build()
        .unwrap_or_default()
}

/// Fetches a loopback URL for real, or synthesizes a page for any other host.
pub async fn fetch(url: &Url) -> Result<Page, String> {
    if !is_loopback(url) {
        return Ok(synthetic(url));
    }
    let mut resp = http().get(url.clone()).send().await.map_err(|e| {
        if e.is_redirect() {
            format!("too many redirects fetching {url}")
        } else {
            format!("cannot fetch {url}: {e}")
        }
    })?;
    let status = resp.status().as_u16();
    let final_url = resp.url().clone();
    let headers = resp
        .headers()
        .iter()
        .map(|(k, v)| {
            (
                k.as_str().to_owned(),
                Value::String(String::from_utf8_lossy(v.as_bytes()).into_owned()),
            )
        })
        .collect();
    let mut body = Vec::new();
    let mut warnings = Vec::new();
    while let Some(chunk) = resp
        .chunk()
        .await
        .map_err(|e| format!("reading {url}: {e}"))?
    {
        if body.len() + chunk.len() > MAX_PAGE {
            body.extend_from_slice(&chunk[..MAX_PAGE - body.len()]);
            warnings.push(format!("page larger than {MAX_PAGE} bytes; cut"));
            break;
        }
        body.extend_from_slice(&chunk);
    }
    Ok(Page {
        url: final_url,
        status,
        headers,
        html: String::from_utf8_lossy(&body).into_owned(),
        warnings,
    })
}

fn synthetic(url: &Url) -> Page {
    let seed = agents_schema::sample::mix(0, url.as_str());
    let host = url.host_str().unwrap_or("site.example");
    let links: String = (0..5)
        .map(|i| {
            let n = agents_schema::sample::mix(seed, &i.to_string()) % 1000;
            format!("<li><a href=\"https://{host}/page/{n}\">Page {n}</a></li>")
        })
        .collect();
    let html = format!(
        "<!doctype html><html><head><title>{host} {p}</title><meta name=\"description\" content=\"Synthetic page {seed:x}\"></head>\
         <body><h1>{host}</h1><p>Synthetic content for {url} ({seed:x}); the emulator does not contact the internet.</p><ul>{links}</ul></body></html>",
        p = url.path()
    );
    let mut headers = Map::new();
    headers.insert("content-type".into(), json!("text/html; charset=utf-8"));
    headers.insert("server".into(), json!("agents-emulator synthetic"));
    Page {
        url: url.clone(),
        status: 200,
        headers,
        html,
        warnings: Vec::new(),
    }
}

/// Text between the first `<tag …>` and `</tag>` (case-insensitive), tags stripped.
fn element_text(html: &str, tag: &str) -> Option<String> {
    let lower = html.to_ascii_lowercase();
    let open = lower.find(&format!("<{tag}"))?;
    let start = open + lower[open..].find('>')? + 1;
    let end = start + lower[start..].find(&format!("</{tag}"))?;
    Some(strip_tags(html.get(start..end)?).trim().to_owned())
}

fn strip_tags(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut in_tag = false;
    for c in s.chars() {
        match c {
            '<' => in_tag = true,
            '>' => in_tag = false,
            c if !in_tag => out.push(c),
            _ => {}
        }
    }
    out.replace("&amp;", "&")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
}

fn attr(tag: &str, name: &str) -> Option<String> {
    let lower = tag.to_ascii_lowercase();
    let at = lower.find(&format!("{name}="))? + name.len() + 1;
    let rest = tag.get(at..)?;
    let quote = rest.chars().next()?;
    if quote == '"' || quote == '\'' {
        let end = rest[1..].find(quote)?;
        Some(rest[1..=end].to_owned())
    } else {
        Some(rest.split([' ', '>']).next()?.to_owned())
    }
}

/// Absolute http(s) links of a page, in order, without duplicates.
pub fn links(page: &Page) -> Vec<String> {
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    let lower = page.html.to_ascii_lowercase();
    let mut at = 0;
    while let Some(i) = lower[at..].find("<a ") {
        let start = at + i;
        let Some(end) = lower[start..].find('>') else {
            break;
        };
        let tag = &page.html[start..start + end];
        if let Some(href) = attr(tag, "href")
            && let Ok(u) = page.url.join(href.trim())
            && matches!(u.scheme(), "http" | "https")
        {
            let mut u = u;
            u.set_fragment(None);
            if seen.insert(u.to_string()) {
                out.push(u.to_string());
            }
        }
        at = start + end;
    }
    out
}

fn description(page: &Page) -> Option<String> {
    let lower = page.html.to_ascii_lowercase();
    let i = lower.find("name=\"description\"")?;
    let start = lower[..i].rfind('<')?;
    let end = i + lower[i..].find('>')?;
    attr(&page.html[start..end], "content")
}

/// Markdown of a page: title, headings, paragraphs and list items, links as `[text](url)`.
pub fn markdown(page: &Page) -> String {
    let mut out = String::new();
    if let Some(t) = element_text(&page.html, "title") {
        out.push_str(&format!("# {t}\n\n"));
    }
    let lower = page.html.to_ascii_lowercase();
    let mut at = 0;
    while let Some(i) = lower[at..].find('<') {
        let start = at + i;
        let Some(close) = lower[start..].find('>') else {
            break;
        };
        let name: String = lower[start + 1..start + close]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect();
        at = start + close + 1;
        let prefix = match name.as_str() {
            "h1" => "# ",
            "h2" => "## ",
            "h3" | "h4" | "h5" | "h6" => "### ",
            "p" => "",
            "li" => "- ",
            _ => continue,
        };
        let Some(end) = lower[at..].find(&format!("</{name}")) else {
            continue;
        };
        let inner = &page.html[at..at + end];
        let text = strip_tags(inner);
        let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
        if !text.is_empty() {
            out.push_str(prefix);
            out.push_str(&text);
            out.push_str("\n\n");
        }
    }
    for l in links(page) {
        out.push_str(&format!("[{l}]({l})\n"));
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Browser actions

const ACTIONS: [&str; 13] = [
    "goto",
    "wait",
    "wait_for_element",
    "wait_for_navigation",
    "click",
    "fill",
    "press",
    "scroll",
    "auto_scroll",
    "screenshot",
    "get_cookies",
    "eval",
    "fetch",
];

/// Longest browser-action wait accepted (the emulator itself waits at most 5 s).
const MAX_WAIT: Duration = Duration::from_secs(600);

/// A duration of at most [`MAX_WAIT`]: milliseconds as a number, or a string such as "2s" /
/// "500ms". Negative, non-finite and larger values are `None`.
fn duration(v: &Value) -> Option<Duration> {
    let ms = match v {
        Value::Number(n) => n.as_f64()?,
        Value::String(s) => {
            let s = s.trim();
            if let Some(ms) = s.strip_suffix("ms") {
                ms.trim().parse::<f64>().ok()?
            } else if let Some(sec) = s.strip_suffix('s') {
                sec.trim().parse::<f64>().ok()? * 1000.0
            } else {
                s.parse::<f64>().ok()?
            }
        }
        _ => return None,
    };
    Duration::try_from_secs_f64(ms / 1000.0)
        .ok()
        .filter(|d| *d <= MAX_WAIT)
}

/// Checks `browser_actions`: a list of one-key objects naming known actions with valid values.
fn check_actions(v: &Value) -> Result<Vec<(String, Value)>, ApiError> {
    let Some(list) = v.as_array() else {
        return Err(ApiError::invalid(
            "browser_actions",
            "browser_actions must be an array",
        ));
    };
    let mut out = Vec::new();
    for (i, a) in list.iter().enumerate() {
        let at = format!("browser_actions[{i}]");
        let Some(obj) = a.as_object().filter(|o| o.len() == 1) else {
            return Err(ApiError::invalid(
                &at,
                format!("{at} must be an object with exactly one action"),
            ));
        };
        let Some((name, value)) = obj.iter().next() else {
            continue;
        };
        if !ACTIONS.contains(&name.as_str()) {
            return Err(ApiError::invalid(
                format!("{at}.{name}"),
                format!(
                    "unknown browser action `{name}`; known: {}",
                    ACTIONS.join(", ")
                ),
            ));
        }
        let bad = |why: &str| ApiError::invalid(format!("{at}.{name}"), why.to_owned());
        match name.as_str() {
            "goto" => {
                let url = value
                    .as_str()
                    .or_else(|| value.get("url").and_then(Value::as_str));
                let Some(url) = url else {
                    return Err(bad("goto needs a URL or {url}"));
                };
                parse_url(url, &format!("{at}.goto"))?;
            }
            "wait" if duration(value).is_none() => {
                return Err(bad(&format!(
                    "wait needs a duration of at most {} s: milliseconds or a string like \"2s\"",
                    MAX_WAIT.as_secs()
                )));
            }
            "click" | "fill" if value.get("selector").and_then(Value::as_str).is_none() => {
                return Err(bad("needs a selector"));
            }
            "fill" if value.get("value").is_none() => return Err(bad("fill needs a value")),
            "eval" if value.get("code").and_then(Value::as_str).is_none() && !value.is_string() => {
                return Err(bad("eval needs {code}"));
            }
            _ => {}
        }
        for flag in ["required", "skip"] {
            if let Some(f) = value.get(flag)
                && !(f.is_boolean() || matches!(f.as_str(), Some("true" | "false")))
            {
                return Err(ApiError::invalid(
                    format!("{at}.{name}.{flag}"),
                    format!(
                        "{flag} must be a boolean or \"true\"/\"false\", not {}",
                        kind(f)
                    ),
                ));
            }
        }
        out.push((name.clone(), value.clone()));
    }
    Ok(out)
}

/// Runs browser actions; each result's `status` is one of the vendor's values (`done`, `error`,
/// `skipped`; the spec does not show them).
async fn run_actions(actions: Vec<(String, Value)>) -> Value {
    let started = Instant::now();
    let mut results = Vec::new();
    let mut success = true;
    for (name, value) in actions {
        let t = Instant::now();
        let skip = value.get("skip").is_some_and(|s| s == true || s == "true");
        let (status, result, error) = if skip {
            ("skipped", Value::Null, Some("skip was set".to_owned()))
        } else {
            match name.as_str() {
                "goto" => {
                    let url = value
                        .as_str()
                        .or_else(|| value.get("url").and_then(Value::as_str))
                        .unwrap_or("");
                    match Url::parse(url) {
                        Ok(u) if is_loopback(&u) => match fetch(&u).await {
                            Ok(p) => (
                                "done",
                                json!({ "url": p.url.as_str(), "status_code": p.status }),
                                None,
                            ),
                            Err(e) => ("error", Value::Null, Some(e)),
                        },
                        _ => (
                            "skipped",
                            Value::Null,
                            Some(
                                "not a loopback address; the emulator never contacts the internet"
                                    .to_owned(),
                            ),
                        ),
                    }
                }
                "wait" => {
                    let d = duration(&value)
                        .unwrap_or_default()
                        .min(Duration::from_secs(5));
                    tokio::time::sleep(d).await;
                    ("done", json!({ "waited_ms": d.as_millis() as u64 }), None)
                }
                other => (
                    "skipped",
                    Value::Null,
                    Some(format!("`{other}` needs a browser; the emulator has none")),
                ),
            }
        };
        let required = value
            .get("required")
            .is_some_and(|r| r == true || r == "true");
        if status == "error" || (required && status != "done") {
            success = false;
        }
        results.push(json!({
            "name": name,
            "status": status,
            "duration": t.elapsed().as_millis() as u64,
            "result": result,
            "error": error,
        }));
    }
    json!({ "results": results, "success": success, "total_duration": started.elapsed().as_millis() as u64 })
}

// ---------------------------------------------------------------------------------------------
// Extract

/// Formats of extract.
const EXTRACT_FORMATS: [&str; 5] = ["html", "markdown", "headers", "links", "screenshot"];

/// Checks an extract request and computes its result.
pub async fn extract_result(body: &Map<String, Value>, task_id: &str) -> Result<Value, ApiError> {
    let url = parse_url(required_str(body, "url")?, "url")?;
    let mut formats = Vec::new();
    if let Some(v) = body.get("formats").filter(|v| !v.is_null()) {
        let Some(list) = v.as_array() else {
            return Err(ApiError::invalid(
                "formats",
                "formats must be an array of strings",
            ));
        };
        for (i, f) in list.iter().enumerate() {
            match f.as_str() {
                Some(s) if EXTRACT_FORMATS.contains(&s) => formats.push(s.to_owned()),
                _ => {
                    return Err(ApiError::invalid(
                        format!("formats[{i}]"),
                        format!(
                            "unknown format {f}; allowed: {}",
                            EXTRACT_FORMATS.join(", ")
                        ),
                    ));
                }
            }
        }
    }
    match body.get("render") {
        None | Some(Value::Null | Value::Bool(_)) => {}
        Some(Value::String(s)) if s == "auto" => {}
        Some(other) => {
            return Err(ApiError::invalid(
                "render",
                format!("render must be a boolean or \"auto\", not {other}"),
            ));
        }
    }
    if let Some(c) = optional_str(body, "country")?
        && (c.len() != 2 || !c.bytes().all(|b| b.is_ascii_alphabetic()))
    {
        return Err(ApiError::invalid(
            "country",
            format!("{c:?} is not a two-letter country code"),
        ));
    }
    let expected: Option<Vec<u16>> = match body.get("expected_status_codes") {
        None | Some(Value::Null) => None,
        Some(Value::Array(list)) => Some(
            list.iter()
                .enumerate()
                .map(|(i, c)| {
                    c.as_u64()
                        .and_then(|c| u16::try_from(c).ok())
                        .filter(|c| (100..=599).contains(c))
                        .ok_or_else(|| {
                            ApiError::invalid(
                                format!("expected_status_codes[{i}]"),
                                "must be an HTTP status",
                            )
                        })
                })
                .collect::<Result<_, _>>()?,
        ),
        Some(_) => {
            return Err(ApiError::invalid(
                "expected_status_codes",
                "must be an array of statuses",
            ));
        }
    };
    let actions = match body.get("browser_actions").filter(|v| !v.is_null()) {
        Some(v) => Some(check_actions(v)?),
        None => None,
    };
    let driver = optional_str(body, "driver")?.map(str::to_owned);
    let started = Instant::now();
    let action_results = match actions {
        Some(a) => Some(run_actions(a).await),
        None => None,
    };
    let page = fetch(&url).await;
    let mut data = Map::new();
    let mut warnings: Vec<Value> = Vec::new();
    let (status, status_code) = match &page {
        Ok(p) => {
            warnings.extend(p.warnings.iter().map(|w| json!(w)));
            let ok = match &expected {
                Some(codes) => codes.contains(&p.status),
                None => (200..300).contains(&p.status),
            };
            for f in &formats {
                let v = match f.as_str() {
                    "html" => json!(p.html),
                    "markdown" => json!(markdown(p)),
                    "headers" => Value::Object(p.headers.clone()),
                    "links" => json!(links(p)),
                    _ => {
                        warnings.push(json!("screenshot is a 1x1 placeholder: the emulator has no browser to render with"));
                        json!(PLACEHOLDER_PNG)
                    }
                };
                data.insert(f.clone(), v);
            }
            (if ok { "success" } else { "failed" }, json!(p.status))
        }
        Err(e) => {
            warnings.push(json!(e));
            ("failed", Value::Null)
        }
    };
    if let Some(r) = action_results {
        data.insert("browser_actions".into(), r);
    }
    let rendered =
        formats.iter().any(|f| f == "screenshot") || body.get("render") == Some(&json!(true));
    let driver = driver.unwrap_or_else(|| if rendered { "vx8".into() } else { "vx6".into() });
    Ok(json!({
        "url": page.as_ref().map_or(url.to_string(), |p| p.url.to_string()),
        "task_id": task_id,
        "status": status,
        "status_code": status_code,
        "data": data,
        "warnings": warnings,
        "metadata": {
            "driver": driver,
            "query_time": timestamp(SystemTime::now()),
            "query_duration": started.elapsed().as_millis() as u64,
        }
    }))
}

/// A result answered now (`ASYNC = false`), or stored as a task that finishes on the lifecycle
/// clock, answering its id (`ASYNC = true`): the sync and async variants of extract, search and
/// map differ only in this.
fn finish<const ASYNC: bool>(
    state: &State,
    ctx: &Ctx,
    api: &str,
    input: Map<String, Value>,
    result: Value,
) -> Json<Value> {
    if !ASYNC {
        return Json(result);
    }
    let duration = state.config.lifecycle.task;
    let task = Task {
        id: ctx.task_id.clone(),
        account: ctx.account.name.clone(),
        agent: api.to_owned(),
        api_type: if api == "extract" { "extract" } else { "web" },
        flow: Flow::Pending,
        created: SystemTime::now(),
        ends_at: Instant::now() + duration,
        duration,
        end: TaskEnd::Value(Arc::new(result)),
        input: Value::Object(input),
        batch_id: None,
    };
    let answer = task.created(
        Instant::now(),
        state.base_url.get().map_or("", String::as_str),
    );
    lock(&state.tasks).insert(ctx.task_id.clone(), task);
    Json(answer)
}

/// `POST /v1/extract` and `POST /v1/extract/async`.
pub(crate) async fn extract<const ASYNC: bool>(
    AxState(state): AxState<Shared>,
    Extension(ctx): Extension<Ctx>,
    headers: HeaderMap,
    body: Body,
) -> Result<Json<Value>, ApiError> {
    let body = json_object(&headers, body).await?;
    let result = extract_result(&body, &ctx.task_id).await?;
    Ok(finish::<ASYNC>(&state, &ctx, "extract", body, result))
}

// ---------------------------------------------------------------------------------------------
// Search

const FOCUS: [&str; 8] = [
    "general", "coding", "news", "academic", "shopping", "social", "geo", "location",
];
const DEPTH: [&str; 3] = ["lite", "fast", "deep"];

/// Most results a search answers, whatever `max_results` asks for.
const MAX_SEARCH_RESULTS: u64 = 100;

fn search_result(body: &Map<String, Value>, task_id: &str) -> Result<Value, ApiError> {
    let query = required_str(body, "query")?;
    if query.trim().is_empty() {
        return Err(ApiError::bad_request("query", "query must not be empty"));
    }
    let focus: Vec<String> = match body.get("focus") {
        None | Some(Value::Null) => vec!["general".into()],
        Some(Value::String(s)) => vec![s.clone()],
        Some(Value::Array(l)) => l
            .iter()
            .map(|v| v.as_str().unwrap_or("").to_owned())
            .collect(),
        Some(other) => {
            return Err(ApiError::invalid(
                "focus",
                format!("focus must be a string or a list, not {}", kind(other)),
            ));
        }
    };
    for f in &focus {
        if !FOCUS.contains(&f.as_str()) {
            return Err(ApiError::invalid(
                "focus",
                format!("unknown focus {f:?}; allowed: {}", FOCUS.join(", ")),
            ));
        }
    }
    if let Some(d) = optional_str(body, "search_depth")?
        && !DEPTH.contains(&d)
    {
        return Err(ApiError::invalid(
            "search_depth",
            format!("unknown search_depth {d:?}; allowed: lite, fast, deep"),
        ));
    }
    // Neither the spec nor the vendor's models bound max_results; the emulator answers at most
    // MAX_SEARCH_RESULTS (the service decides how many results it has).
    let max = match body.get("max_results") {
        None | Some(Value::Null) => 10,
        Some(v) => v.as_u64().filter(|n| *n >= 1).ok_or_else(|| {
            ApiError::invalid("max_results", "max_results must be a positive integer")
        })?,
    }
    .min(MAX_SEARCH_RESULTS);
    let country = optional_str(body, "country")?.unwrap_or("US");
    let locale = optional_str(body, "locale")?.unwrap_or("en");
    let answer = match body.get("include_answer") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(_) => {
            return Err(ApiError::invalid(
                "include_answer",
                "include_answer must be a boolean",
            ));
        }
    };
    let seed = agents_schema::sample::mix(0, &format!("{query}\u{0}{focus:?}"));
    let words: Vec<&str> = query.split_whitespace().collect();
    let slug = words.join("-").to_lowercase();
    let results: Vec<Value> = (0..max)
        .map(|i| {
            let s = agents_schema::sample::mix(seed, &i.to_string());
            let site = ["docs", "news", "shop", "wiki", "blog"][(s % 5) as usize];
            json!({
                "title": format!("{query} — result {} ({site})", i + 1),
                "url": format!("https://{site}.example/{slug}/{:x}", s % 0xffff),
                "snippet": format!("About {query}: finding {} of the {site} index.", i + 1),
                "description": format!("{site} page on {query}"),
                "content": format!("{query} is discussed here in depth. Entry {:x}.", s),
                // The vendor's SERP metadata (`country`, `entity_type`, `locale`, `position`,
                // `driver`), plus the focus asked for.
                "metadata": {
                    "country": country,
                    "entity_type": "OrganicResult",
                    "locale": locale,
                    "position": i + 1,
                    "driver": "vx6",
                    "focus": focus.first(),
                },
            })
        })
        .collect();
    let mut out = json!({
        "status": "success",
        "query": query,
        "request_id": task_id,
        "total_results": results.len(),
        "results": results,
    });
    if answer {
        out["answer"] = json!(format!(
            "In short, {query}: the top {} sources agree [1][2][3].",
            max.min(3)
        ));
        // `[1]`, `[2]`, `[3]` in the answer refer to the first three results.
        out["answer_citations"] = Value::Array(
            (0..max.min(3))
                .map(|i| json!({ "marker": i + 1, "result_index": i }))
                .collect(),
        );
    }
    Ok(out)
}

/// `POST /v1/search` and `POST /v1/search/async`.
pub(crate) async fn search<const ASYNC: bool>(
    AxState(state): AxState<Shared>,
    Extension(ctx): Extension<Ctx>,
    headers: HeaderMap,
    body: Body,
) -> Result<Json<Value>, ApiError> {
    let body = json_object(&headers, body).await?;
    let result = search_result(&body, &ctx.task_id)?;
    Ok(finish::<ASYNC>(&state, &ctx, "search", body, result))
}

// ---------------------------------------------------------------------------------------------
// Map and crawl discovery

/// Discovery options shared by map and crawl.
struct Discover {
    sitemap: String,
    domain_filter: String,
    limit: usize,
    include: Vec<String>,
    exclude: Vec<String>,
    max_depth: usize,
    /// Also pages outside the start URL's path (crawl's `crawl_entire_domain`).
    entire_domain: bool,
    /// Pages that differ only in their query are one page (crawl's `ignore_query_parameters`).
    ignore_query: bool,
}

fn string_list(body: &Map<String, Value>, field: &str) -> Result<Vec<String>, ApiError> {
    match body.get(field) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(l)) => l
            .iter()
            .enumerate()
            .map(|(i, v)| {
                v.as_str()
                    .map(str::to_owned)
                    .ok_or_else(|| ApiError::invalid(format!("{field}[{i}]"), "must be a string"))
            })
            .collect(),
        Some(_) => Err(ApiError::invalid(
            field,
            format!("{field} must be an array of strings"),
        )),
    }
}

fn discover_options(
    body: &Map<String, Value>,
    default_limit: usize,
    max_limit: usize,
) -> Result<Discover, ApiError> {
    let sitemap = optional_str(body, "sitemap")?
        .unwrap_or("include")
        .to_owned();
    if !["skip", "include", "only"].contains(&sitemap.as_str()) {
        return Err(ApiError::invalid(
            "sitemap",
            format!("sitemap must be skip, include or only, not {sitemap:?}"),
        ));
    }
    let domain_filter = optional_str(body, "domain_filter")?
        .unwrap_or("domain")
        .to_owned();
    if !["domain", "subdomain", "all"].contains(&domain_filter.as_str()) {
        return Err(ApiError::invalid(
            "domain_filter",
            format!("domain_filter must be domain, subdomain or all, not {domain_filter:?}"),
        ));
    }
    // Neither the spec nor the vendor's models bound `limit`; the emulator discovers at most
    // `max_limit` pages whatever is asked (the service decides how many pages it finds).
    let limit = match body.get("limit") {
        None | Some(Value::Null) => default_limit,
        Some(v) => v
            .as_u64()
            .filter(|n| *n >= 1)
            .map(|n| usize::try_from(n).unwrap_or(usize::MAX))
            .ok_or_else(|| ApiError::invalid("limit", "limit must be a positive integer"))?,
    }
    .min(max_limit);
    let max_depth = match body.get("max_discovery_depth") {
        None | Some(Value::Null) => 10,
        Some(v) => v.as_u64().map_or_else(
            || {
                Err(ApiError::invalid(
                    "max_discovery_depth",
                    "max_discovery_depth must be a non-negative integer",
                ))
            },
            |d| Ok(usize::try_from(d).unwrap_or(usize::MAX)),
        )?,
    };
    let flag = |name: &str| match body.get(name) {
        None | Some(Value::Null) => Ok(false),
        Some(Value::Bool(b)) => Ok(*b),
        Some(other) => Err(ApiError::invalid(
            name,
            format!("{name} must be a boolean, not {}", kind(other)),
        )),
    };
    // Crawl's link options choose the same filter map's `domain_filter` names.
    let domain_filter = if flag("allow_external_links")? {
        "all".to_owned()
    } else if flag("allow_subdomains")? {
        "subdomain".to_owned()
    } else {
        domain_filter
    };
    Ok(Discover {
        sitemap,
        domain_filter,
        limit,
        include: string_list(body, "include_paths")?,
        exclude: string_list(body, "exclude_paths")?,
        max_depth,
        entire_domain: flag("crawl_entire_domain")?,
        ignore_query: flag("ignore_query_parameters")?,
    })
}

/// Most pages map discovers.
const MAX_MAP_LINKS: usize = 5_000;
/// Most pages a crawl visits.
const MAX_CRAWL_PAGES: usize = 1_000;

fn same_site(root: &Url, u: &Url, filter: &str) -> bool {
    let (Some(a), Some(b)) = (root.host_str(), u.host_str()) else {
        return false;
    };
    match filter {
        "all" => true,
        "subdomain" => b == a || b.ends_with(&format!(".{a}")),
        _ => b == a && root.port_or_known_default() == u.port_or_known_default(),
    }
}

fn path_allowed(root: &Url, u: &Url, d: &Discover) -> bool {
    let p = u.path();
    let scope = root.path().rsplit_once('/').map_or("/", |(dir, _)| dir);
    (d.entire_domain || !same_site(root, u, "domain") || p.starts_with(scope))
        && (d.include.is_empty()
            || d.include
                .iter()
                .any(|i| p.starts_with(i.trim_end_matches('*'))))
        && !d
            .exclude
            .iter()
            .any(|e| p.starts_with(e.trim_end_matches('*')))
}

/// Pages of a site: sitemap.xml entries and links followed breadth-first from `root`, up to
/// `limit`, each with its fetched page.
async fn discover(root: &Url, d: &Discover) -> Vec<(Url, Option<Page>)> {
    let mut found: Vec<(Url, Option<Page>)> = Vec::new();
    let mut seen = BTreeSet::new();
    let mut queue: VecDeque<(Url, usize)> = VecDeque::new();
    if d.sitemap != "skip"
        && let Ok(sm) = root.join("/sitemap.xml")
        && let Ok(page) = fetch(&sm).await
        && page.status == 200
        && is_loopback(&sm)
    {
        let mut at = 0;
        while let Some(i) = page.html[at..].find("<loc>") {
            let start = at + i + 5;
            let Some(end) = page.html[start..].find("</loc>") else {
                break;
            };
            if let Ok(u) = Url::parse(page.html[start..start + end].trim()) {
                queue.push_back((u, 0));
            }
            at = start + end;
        }
    }
    if d.sitemap != "only" {
        queue.push_front((root.clone(), 0));
    }
    while let Some((u, depth)) = queue.pop_front() {
        if found.len() >= d.limit {
            break;
        }
        let mut key = u.clone();
        key.set_fragment(None);
        if d.ignore_query {
            key.set_query(None);
        }
        if !seen.insert(key.to_string())
            || !same_site(root, &u, &d.domain_filter)
            || !path_allowed(root, &u, d)
        {
            continue;
        }
        let page = fetch(&u).await.ok();
        if let Some(p) = &page
            && depth < d.max_depth
            && d.sitemap != "only"
        {
            for l in links(p) {
                if let Ok(l) = Url::parse(&l) {
                    queue.push_back((l, depth + 1));
                }
            }
        }
        found.push((u, page));
    }
    found
}

async fn map_result(body: &Map<String, Value>, task_id: &str) -> Result<Value, ApiError> {
    let url = parse_url(required_str(body, "url")?, "url")?;
    let d = discover_options(body, 100, MAX_MAP_LINKS)?;
    let pages = discover(&url, &d).await;
    let links: Vec<Value> = pages
        .iter()
        .map(|(u, p)| {
            json!({
                "url": u.as_str(),
                "title": p.as_ref().and_then(|p| element_text(&p.html, "title")),
                "description": p.as_ref().and_then(description),
            })
        })
        .collect();
    Ok(json!({ "success": true, "task_id": task_id, "links": links }))
}

/// `POST /v1/map` and `POST /v1/map/async`.
pub(crate) async fn map<const ASYNC: bool>(
    AxState(state): AxState<Shared>,
    Extension(ctx): Extension<Ctx>,
    headers: HeaderMap,
    body: Body,
) -> Result<Json<Value>, ApiError> {
    let body = json_object(&headers, body).await?;
    let result = map_result(&body, &ctx.task_id).await?;
    Ok(finish::<ASYNC>(&state, &ctx, "map", body, result))
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

/// The crawl's page statuses and counts at `now`.
struct CrawlPages {
    list: Vec<Value>,
    done: usize,
    failed: usize,
    pending: usize,
    /// When the last page ended, once every page has.
    last_end: Option<SystemTime>,
}

fn crawl_pages(state: &State, c: &Crawl, now: Instant) -> CrawlPages {
    let tasks = lock(&state.tasks);
    let mut pages = CrawlPages {
        list: Vec::with_capacity(c.tasks.len()),
        done: 0,
        failed: 0,
        pending: 0,
        last_end: None,
    };
    for t in c.tasks.iter().filter_map(|id| tasks.get(id)) {
        let state = t.state(now);
        let status = match state {
            TaskState::Pending if c.canceled_at.is_some() => "failed",
            TaskState::Pending => "pending",
            TaskState::Success => "completed",
            TaskState::Error => "failed",
        };
        match status {
            "pending" => pages.pending += 1,
            "completed" => pages.done += 1,
            _ => pages.failed += 1,
        }
        let updated = if state == TaskState::Pending {
            t.created
        } else {
            t.created + t.duration
        };
        if state != TaskState::Pending {
            pages.last_end = Some(pages.last_end.map_or(updated, |l| l.max(updated)));
        }
        pages.list.push(json!({
            "task_id": t.id,
            "status": status,
            "created_at": timestamp(t.created),
            "updated_at": timestamp(updated),
        }));
    }
    pages
}

/// The crawl record at `now` (wire notes, vendor models): `completed_at` is when the last page
/// ended (or the crawl was canceled), the same on every read.
fn crawl_record(state: &State, c: &Crawl, now: Instant) -> Value {
    let pages = crawl_pages(state, c, now);
    let status = if c.canceled_at.is_some() {
        "canceled"
    } else if pages.pending > 0 && now < c.started + c.queued_for {
        "queued"
    } else if pages.pending > 0 {
        "running"
    } else if pages.done == 0 && pages.failed > 0 {
        "failed"
    } else {
        "succeeded"
    };
    let completed_at = match (c.canceled_at, pages.pending) {
        (Some(t), _) => Some(t),
        (None, 0) => Some(pages.last_end.unwrap_or(c.created)),
        _ => None,
    };
    let updated = completed_at.or(pages.last_end).unwrap_or(c.created);
    json!({
        "crawl_id": c.id,
        "account_name": c.account,
        "name": c.options.get("name"),
        "url": c.url,
        "status": status,
        "tasks": pages.list,
        "total": c.tasks.len(),
        "completed": pages.done,
        "failed": pages.failed,
        "pending": pages.pending,
        "created_at": timestamp(c.created),
        "updated_at": timestamp(updated),
        "completed_at": completed_at.map(timestamp),
        "crawl_options": c.options,
        "extract_options": c.options.get("extract_options"),
    })
}

/// `crawl_options` as the record echoes them: what was asked, with the defaults filled in.
fn crawl_options(body: &Map<String, Value>, d: &Discover) -> Value {
    let mut o = body.clone();
    o.remove("url");
    for flag in [
        "allow_external_links",
        "allow_subdomains",
        "crawl_entire_domain",
        "ignore_query_parameters",
    ] {
        o.entry(flag).or_insert(json!(false));
    }
    o.entry("limit").or_insert(json!(d.limit));
    o.entry("max_discovery_depth").or_insert(json!(d.max_depth));
    o.insert("sitemap".into(), json!(d.sitemap));
    Value::Object(o)
}

/// Crawl webhook events (wire notes).
const CRAWL_EVENTS: [&str; 4] = ["started", "page", "completed", "failed"];

/// A crawl's `callback`: a URL, or `{url, headers, metadata, events}`.
#[derive(Debug, Clone)]
struct Callback {
    url: String,
    headers: Map<String, Value>,
    metadata: Value,
    events: Vec<String>,
}

fn crawl_callback(body: &Map<String, Value>) -> Result<Option<Callback>, ApiError> {
    let url_of = |v: &str, at: &str| {
        parse_url(v, at)?;
        Ok::<_, ApiError>(v.to_owned())
    };
    match body.get("callback") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(u)) => Ok(Some(Callback {
            url: url_of(u, "callback")?,
            headers: Map::new(),
            metadata: Value::Null,
            events: CRAWL_EVENTS.iter().map(|e| (*e).to_owned()).collect(),
        })),
        Some(Value::Object(o)) => {
            let url = match o.get("url") {
                Some(Value::String(u)) => url_of(u, "callback.url")?,
                _ => {
                    return Err(ApiError::bad_request(
                        "callback.url",
                        "callback needs a url (a string)",
                    ));
                }
            };
            let headers = match o.get("headers") {
                None | Some(Value::Null) => Map::new(),
                Some(Value::Object(h)) if h.values().all(Value::is_string) => h.clone(),
                Some(_) => {
                    return Err(ApiError::invalid(
                        "callback.headers",
                        "callback.headers must map header names to strings",
                    ));
                }
            };
            let events = match o.get("events") {
                None | Some(Value::Null) => CRAWL_EVENTS.iter().map(|e| (*e).to_owned()).collect(),
                Some(Value::Array(list)) => list
                    .iter()
                    .enumerate()
                    .map(|(i, e)| match e.as_str() {
                        Some(e) if CRAWL_EVENTS.contains(&e) => Ok(e.to_owned()),
                        _ => Err(ApiError::invalid(
                            format!("callback.events[{i}]"),
                            format!("unknown event {e}; known: {}", CRAWL_EVENTS.join(", ")),
                        )),
                    })
                    .collect::<Result<_, _>>()?,
                Some(_) => {
                    return Err(ApiError::invalid(
                        "callback.events",
                        "callback.events must be a list",
                    ));
                }
            };
            Ok(Some(Callback {
                url,
                headers,
                metadata: o.get("metadata").cloned().unwrap_or(Value::Null),
                events,
            }))
        }
        Some(other) => Err(ApiError::invalid(
            "callback",
            format!("callback must be a URL or an object, not {}", kind(other)),
        )),
    }
}

/// Calls a crawl's webhook as it moves: `started` now, `page` as each page ends, then `completed`
/// or `failed`; problems are kept as the crawl's delivery errors.
fn schedule_callbacks(state: Arc<State>, crawl_id: String, cb: Callback) {
    tokio::spawn(async move {
        let mut errors = Vec::new();
        let send = |event: &'static str, extra: Value| {
            let cb = &cb;
            let crawl_id = &crawl_id;
            async move {
                if !cb.events.iter().any(|e| e == event) {
                    return Ok(());
                }
                let mut payload = json!({
                    "event": event,
                    "crawl_id": crawl_id,
                    "metadata": cb.metadata,
                    "timestamp": timestamp(SystemTime::now()),
                });
                if let (Value::Object(p), Value::Object(x)) = (&mut payload, extra) {
                    p.extend(x);
                }
                crate::delivery::post_webhook(&cb.url, &cb.headers, &payload).await
            }
        };
        errors.extend(send("started", json!({})).await.err());
        let ends: Vec<(String, Instant)> = {
            let crawls = lock(&state.crawls);
            let tasks = lock(&state.tasks);
            crawls
                .get(&crawl_id)
                .map(|c| {
                    c.tasks
                        .iter()
                        .filter_map(|id| tasks.get(id).map(|t| (t.id.clone(), t.ends_at)))
                        .collect()
                })
                .unwrap_or_default()
        };
        let mut ends = ends;
        ends.sort_by_key(|(_, at)| *at);
        for (task_id, at) in ends {
            tokio::time::sleep_until(at.into()).await;
            let status = lock(&state.tasks).get(&task_id).map_or("failed", |t| {
                match t.state(Instant::now()) {
                    TaskState::Success => "completed",
                    _ => "failed",
                }
            });
            let page = json!({ "task_id": task_id, "status": status });
            errors.extend(send("page", page).await.err());
        }
        let record = lock(&state.crawls)
            .get(&crawl_id)
            .cloned()
            .map(|c| crawl_record(&state, &c, Instant::now()));
        let ended = record
            .as_ref()
            .and_then(|r| r["status"].as_str())
            .unwrap_or("failed");
        let event = if ended == "succeeded" {
            "completed"
        } else {
            "failed"
        };
        errors.extend(send(event, json!({ "status": ended })).await.err());
        if !errors.is_empty() {
            tracing::warn!(crawl = %crawl_id, ?errors, "crawl callback problems");
            lock(&state.delivery_errors).insert(crawl_id, errors);
        }
    });
}

/// `POST /v1/crawl`: discovers up to `limit` pages and makes each an extract task.
pub(crate) async fn crawl(
    AxState(state): AxState<Shared>,
    Extension(ctx): Extension<Ctx>,
    headers: HeaderMap,
    body: Body,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    let body = json_object(&headers, body).await?;
    let url = parse_url(required_str(&body, "url")?, "url")?;
    let d = discover_options(&body, 10, MAX_CRAWL_PAGES)?;
    let callback = crawl_callback(&body)?;
    if let Some(o) = body
        .get("extract_options")
        .filter(|v| !v.is_null() && !v.is_object())
    {
        return Err(ApiError::invalid(
            "extract_options",
            format!("extract_options must be an object, not {}", kind(o)),
        ));
    }
    let options = crawl_options(&body, &d);
    let pages = discover(&url, &d).await;
    let now = Instant::now();
    let created = SystemTime::now();
    let base = state.config.lifecycle.task;
    let mut ids = Vec::new();
    for (i, (u, page)) in pages.into_iter().enumerate() {
        let id = uuid::Uuid::new_v4().to_string();
        let end = match page {
            Some(_) => {
                let mut req = Map::new();
                req.insert("url".into(), json!(u.as_str()));
                req.insert("formats".into(), json!(["html", "markdown", "links"]));
                match extract_result(&req, &id).await {
                    Ok(r) => TaskEnd::Value(Arc::new(r)),
                    Err(e) => TaskEnd::Error(e.message),
                }
            }
            None => TaskEnd::Error(format!("cannot fetch {u}")),
        };
        let duration = base + base * u32::try_from(i % 5).unwrap_or(0) / 4;
        lock(&state.tasks).insert(
            id.clone(),
            Task {
                id: id.clone(),
                account: ctx.account.name.clone(),
                agent: "crawl".into(),
                api_type: "extract",
                flow: Flow::Pending,
                created,
                ends_at: now + duration,
                duration,
                end,
                input: json!({ "url": u.as_str() }),
                batch_id: None,
            },
        );
        ids.push(id);
    }
    let c = Crawl {
        id: ctx.task_id.clone(),
        account: ctx.account.name.clone(),
        url: url.to_string(),
        created,
        started: now,
        queued_for: base / 2,
        tasks: ids,
        canceled_at: None,
        options,
    };
    let record = crawl_record(&state, &c, now);
    lock(&state.crawls).insert(c.id.clone(), c);
    if let Some(cb) = callback {
        schedule_callbacks(state.clone(), ctx.task_id.clone(), cb);
    }
    Ok((StatusCode::OK, Json(record)))
}

fn find_crawl(state: &State, ctx: &Ctx, id: &str) -> Result<Crawl, ApiError> {
    lock(&state.crawls)
        .get(id)
        .filter(|c| c.account == ctx.account.name)
        .cloned()
        .ok_or_else(|| ApiError::not_found(format!("no crawl {id}")).at("crawl_id"))
}

/// `GET /v1/crawl/{id}`.
pub(crate) async fn crawl_get(
    AxState(state): AxState<Shared>,
    Extension(ctx): Extension<Ctx>,
    ApiPath(id): ApiPath<String>,
) -> Result<Json<Value>, ApiError> {
    let c = find_crawl(&state, &ctx, &id)?;
    Ok(Json(crawl_record(&state, &c, Instant::now())))
}

/// `DELETE /v1/crawl/{id}`: pending pages fail, the crawl is canceled.
pub(crate) async fn crawl_delete(
    AxState(state): AxState<Shared>,
    Extension(ctx): Extension<Ctx>,
    ApiPath(id): ApiPath<String>,
) -> Result<Json<Value>, ApiError> {
    find_crawl(&state, &ctx, &id)?;
    let now = Instant::now();
    {
        let mut crawls = lock(&state.crawls);
        if let Some(c) = crawls.get_mut(&id)
            && c.canceled_at.is_none()
        {
            c.canceled_at = Some(SystemTime::now());
            let mut tasks = lock(&state.tasks);
            for t in &c.tasks {
                if let Some(task) = tasks.get_mut(t)
                    && task.state(now) == TaskState::Pending
                {
                    task.end = TaskEnd::Error("crawl canceled".into());
                    task.ends_at = now;
                }
            }
        }
    }
    let c = find_crawl(&state, &ctx, &id)?;
    Ok(Json(crawl_record(&state, &c, now)))
}

/// `GET /v1/crawl`: the account's crawls, newest first.
pub(crate) async fn crawl_list(
    AxState(state): AxState<Shared>,
    Extension(ctx): Extension<Ctx>,
) -> Json<Value> {
    let mut mine: Vec<Crawl> = lock(&state.crawls)
        .values()
        .filter(|c| c.account == ctx.account.name)
        .cloned()
        .collect();
    mine.sort_by(|a, b| b.created.cmp(&a.created).then_with(|| a.id.cmp(&b.id)));
    let now = Instant::now();
    let total = mine.len();
    // The vendor's models page the list (`{data, pagination}`); the spec does not show it.
    Json(json!({
        "data": mine.iter().map(|c| crawl_record(&state, c, now)).collect::<Vec<_>>(),
        "pagination": { "has_next": false, "next_cursor": null, "total": total },
    }))
}
