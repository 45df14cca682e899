//! Discovering a site's pages (sitemap and links, breadth first), shared by map and crawl;
//! `POST /v1/map` and its async variant.

use agents_runtime::endpoint::ApiVersion;
use std::collections::{BTreeSet, VecDeque};

use axum::Extension;
use axum::Json;
use axum::extract::State as AxState;
use reqwest::Url;
use serde_json::{Map, Value, json};

use crate::error::ApiError;
use crate::params::kind;
use crate::request::{ApiJson, Ctx, one_of, required_str};

use super::extract::finish;
use super::page::{Page, Shared, description, element_text, fetch, links, parse_url};
use crate::net::is_loopback;

/// Discovery options shared by map and crawl.
pub(super) struct Discover {
    /// `skip`, `include` or `only`.
    pub(super) sitemap: String,
    /// `domain`, `subdomain` or `all`.
    domain_filter: String,
    /// Most pages.
    pub(super) limit: usize,
    include: Vec<String>,
    exclude: Vec<String>,
    /// Link depth from the start page.
    pub(super) max_depth: usize,
    /// Also pages outside the start URL's path (crawl's `crawl_entire_domain`).
    entire_domain: bool,
    /// Pages that differ only in their query are one page (crawl's `ignore_query_parameters`).
    ignore_query: bool,
}

pub(super) fn string_list(body: &Map<String, Value>, field: &str) -> Result<Vec<String>, ApiError> {
    match body.get(field) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(l)) => l
            .iter()
            .enumerate()
            .map(|(i, v)| {
                v.as_str().map(str::to_owned).ok_or_else(|| {
                    ApiError::wrong_type(format!("{field}[{i}]"), "must be a string")
                })
            })
            .collect(),
        Some(_) => Err(ApiError::wrong_type(
            field,
            format!("{field} must be an array of strings"),
        )),
    }
}

pub(super) fn discover_options(
    body: &Map<String, Value>,
    default_limit: usize,
    max_limit: usize,
) -> Result<Discover, ApiError> {
    let sitemap = one_of(body, "sitemap", &["skip", "include", "only"], "include")?.to_owned();
    let domain_filter = one_of(
        body,
        "domain_filter",
        &["domain", "subdomain", "all"],
        "domain",
    )?
    .to_owned();
    // Neither the service's documentation nor the vendor's models bound `limit`; the emulator discovers at most
    // `max_limit` pages whatever is asked (the service decides how many pages it finds).
    let limit = match body.get("limit") {
        None | Some(Value::Null) => default_limit,
        Some(v) => v
            .as_u64()
            .filter(|n| *n >= 1)
            .map(|n| usize::try_from(n).unwrap_or(usize::MAX))
            .ok_or_else(|| ApiError::wrong_type("limit", "limit must be a positive integer"))?,
    }
    .min(max_limit);
    let max_depth = match body.get("max_discovery_depth") {
        None | Some(Value::Null) => 10,
        Some(v) => v.as_u64().map_or_else(
            || {
                Err(ApiError::wrong_type(
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
        Some(other) => Err(ApiError::wrong_type(
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
pub(super) const MAX_MAP_LINKS: usize = 5_000;
/// Most pages a crawl visits.
pub(super) const MAX_CRAWL_PAGES: usize = 1_000;

pub(super) fn same_site(root: &Url, u: &Url, filter: &str) -> bool {
    let (Some(a), Some(b)) = (root.host_str(), u.host_str()) else {
        return false;
    };
    match filter {
        "all" => true,
        "subdomain" => b == a || b.ends_with(&format!(".{a}")),
        _ => b == a && root.port_or_known_default() == u.port_or_known_default(),
    }
}

pub(super) fn path_allowed(root: &Url, u: &Url, d: &Discover) -> bool {
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
pub(super) async fn discover(root: &Url, d: &Discover) -> Vec<(Url, Option<Page>)> {
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

pub(super) async fn map_result(
    body: &Map<String, Value>,
    task_id: &str,
) -> Result<Value, ApiError> {
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
    Extension(version): Extension<ApiVersion>,
    ApiJson(body): ApiJson,
) -> Result<Json<Value>, ApiError> {
    let result = map_result(&body, &ctx.task_id).await?;
    Ok(finish::<ASYNC>(&state, &ctx, version, "map", body, result))
}
