//! Pages: fetching loopback URLs for real (bounded in size and redirects), synthesizing pages
//! for every other host (never contacted), and reading HTML: title, links, markdown.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use reqwest::Url;
use serde_json::{Map, Value, json};

use crate::error::ApiError;
use crate::net::is_loopback;
use crate::state::State;

pub(super) type Shared = Arc<State>;

/// Largest page body read (bigger pages are cut, with a warning).
pub const MAX_PAGE: usize = 10 * 1024 * 1024;

/// A 1×1 transparent PNG: what the emulator returns for the `screenshot` format, with a warning
/// saying it has no browser to render with.
pub(super) const PLACEHOLDER_PNG: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";

pub(super) fn parse_url(text: &str, field: &str) -> Result<Url, ApiError> {
    let url = Url::parse(text.trim())
        .map_err(|e| ApiError::malformed(field, format!("invalid URL {text:?}: {e}")))?;
    if !matches!(url.scheme(), "http" | "https") || url.host().is_none() {
        return Err(ApiError::malformed(
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

pub(super) fn http() -> Result<reqwest::Client, String> {
    crate::net::client(5, Duration::from_secs(10))
}

/// Fetches a loopback URL for real, or synthesizes a page for any other host.
pub async fn fetch(url: &Url) -> Result<Page, String> {
    if !is_loopback(url) {
        return Ok(synthetic(url));
    }
    let mut resp = http()?.get(url.clone()).send().await.map_err(|e| {
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

pub(super) fn synthetic(url: &Url) -> Page {
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
pub(super) fn element_text(html: &str, tag: &str) -> Option<String> {
    let lower = html.to_ascii_lowercase();
    let open = lower.find(&format!("<{tag}"))?;
    let start = open + lower[open..].find('>')? + 1;
    let end = start + lower[start..].find(&format!("</{tag}"))?;
    Some(strip_tags(html.get(start..end)?).trim().to_owned())
}

pub(super) fn strip_tags(s: &str) -> String {
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

pub(super) fn attr(tag: &str, name: &str) -> Option<String> {
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

pub(super) fn description(page: &Page) -> Option<String> {
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
