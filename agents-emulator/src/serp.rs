//! Search engine results pages: run, async, batch and the fast path, answered in the run-result
//! envelope with `data.parsing = {status, entities: {Kind: [...]}}`, deterministic for an
//! engine, query, place and page.

use agents_runtime::endpoint::ApiVersion;
use std::sync::Arc;

use axum::extract::State as AxState;
use axum::{Extension, Json};
use serde_json::{Map, Value, json};

use crate::error::ApiError;
use crate::params::kind;
use crate::request::{ApiJson, Ctx, one_of, optional_str, required_str};
use crate::state::State;

type Shared = Arc<State>;

/// The engines the service lists; anything else is refused, naming these.
pub const ENGINES: [&str; 10] = [
    "google_search",
    "google_sge",
    "google_aio",
    "google_maps_search",
    "google_maps_reviews",
    "google_maps_place",
    "google_news",
    "google_images",
    "bing_search",
    "yandex_search",
];

/// Most results a page answers, whatever `num_results` asks for.
pub const MAX_RESULTS: u64 = 100;

/// The kind of entity an engine's results are, and the field naming each result.
fn entity_kind(engine: &str) -> &'static str {
    match engine {
        "google_maps_search" | "google_maps_place" => "Place",
        "google_maps_reviews" => "Review",
        "google_news" => "NewsResult",
        "google_images" => "ImageResult",
        "google_sge" | "google_aio" => "AiOverview",
        _ => "OrganicResult",
    }
}

/// A positive integer field, or its default; 422 naming it otherwise.
fn count(body: &Map<String, Value>, field: &str, default: u64) -> Result<u64, ApiError> {
    match body.get(field) {
        None | Some(Value::Null) => Ok(default),
        Some(v) => v.as_u64().filter(|n| *n >= 1).ok_or_else(|| {
            ApiError::wrong_type(
                field,
                format!("{field} must be a positive integer, not {}", kind(v)),
            )
        }),
    }
}

/// An optional boolean field; 422 naming it otherwise.
fn flag(body: &Map<String, Value>, field: &str) -> Result<Option<bool>, ApiError> {
    match body.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(v) => Err(ApiError::wrong_type(
            field,
            format!("{field} must be a boolean, not {}", kind(v)),
        )),
    }
}

/// The result of one SERP request, checked: the engine is one the service lists, a query is
/// given (maps places and reviews may name their place by `query` or `location`), counts are
/// positive and flags are booleans.
pub(crate) fn serp_result(
    body: &Map<String, Value>,
    task_id: &str,
    at: std::time::SystemTime,
) -> Result<Value, ApiError> {
    let engine = required_str(body, "search_engine")?;
    if !ENGINES.contains(&engine) {
        return Err(ApiError::refused(
            "search_engine",
            format!(
                "unknown search_engine {engine:?}; allowed: {}",
                ENGINES.join(", ")
            ),
        ));
    }
    let query = optional_str(body, "query")?.unwrap_or("");
    let location = optional_str(body, "location")?;
    if query.trim().is_empty() && location.is_none() {
        return Err(ApiError::missing(
            "query",
            format!("{engine} needs a query (or, for places, a location)"),
        ));
    }
    let country = optional_str(body, "country")?.unwrap_or("US");
    let locale = optional_str(body, "locale")?.unwrap_or("en");
    let domain = optional_str(body, "domain")?;
    let device = one_of(body, "device", &["desktop", "mobile"], "desktop")?;
    let wanted = count(body, "num_results", 10)?.min(MAX_RESULTS);
    let page = count(body, "page", 1)?;
    let parse = flag(body, "parse")?.unwrap_or(true);
    let render = flag(body, "render")?.unwrap_or(false);
    for f in ["show_hidden_results", "resolve_url"] {
        flag(body, f)?;
    }
    let place = location.unwrap_or(country);
    let seed = agents_schema::sample::mix(
        0,
        &format!("{engine}\u{0}{query}\u{0}{place}\u{0}{device}\u{0}{page}"),
    );
    let host = match engine {
        "bing_search" => "www.bing.com",
        "yandex_search" => "yandex.com",
        _ => domain.unwrap_or("www.google.com"),
    };
    let slug: String = query.split_whitespace().collect::<Vec<_>>().join("+");
    let url = format!(
        "https://{host}/search?q={slug}&start={}",
        (page - 1) * wanted
    );
    let kind_name = entity_kind(engine);
    let offset = (page - 1) * wanted;
    let entities: Vec<Value> = (0..wanted)
        .map(|i| {
            let s = agents_schema::sample::mix(seed, &i.to_string());
            let site = ["docs", "news", "shop", "wiki", "blog", "forum"][(s % 6) as usize];
            let position = offset + i + 1;
            let mut e = json!({
                "position": position,
                "title": format!("{query} — {site} result {position}"),
                "url": format!("https://{site}.example/{}/{:x}", slug.to_lowercase(), s % 0xffff),
                "snippet": format!("What the {site} index says about {query}."),
                "displayed_url": format!("{site}.example"),
                "entity_type": kind_name,
            });
            match kind_name {
                "Place" => {
                    e["address"] = json!(format!("{} Main St, {place}", 10 + s % 890));
                    e["rating"] = json!(((30 + s % 21) as f64) / 10.0);
                    e["reviews_count"] = json!(s % 2_000);
                }
                "Review" => {
                    e["rating"] = json!(1 + s % 5);
                    e["author"] = json!(format!("reviewer_{:x}", s % 0xfff));
                }
                "NewsResult" => e["source"] = json!(format!("{site} news")),
                "ImageResult" => {
                    e["image_url"] =
                        json!(format!("https://img.{site}.example/{:x}.jpg", s % 0xffff));
                }
                _ => {}
            }
            e
        })
        .collect();
    let total = entities.len();
    let parsing = if parse {
        json!({
            "status": "success",
            "entities": { kind_name: entities, "RelatedSearch": [
                { "query": format!("{query} review") },
                { "query": format!("best {query}") },
            ] },
            "total_entities_count": total + 2,
            "entities_count": { kind_name: total, "RelatedSearch": 2 },
        })
    } else {
        json!({})
    };
    let mut data = Map::new();
    data.insert("parsing".into(), parsing);
    if render || !parse {
        data.insert(
            "html".into(),
            json!(format!(
                "<html><head><title>{query} - Search</title></head><body></body></html>"
            )),
        );
    }
    Ok(json!({
        "url": url,
        "task_id": task_id,
        "status": "success",
        "status_code": 200,
        "data": data,
        "metadata": {
            "driver": if render { "vx8" } else { "vx6" },
            "query_time": crate::wire::timestamp(at),
            "query_duration": 0,
            "response_parameters": {
                "search_engine": engine,
                "query": query,
                "country": country,
                "locale": locale,
                "device": device,
                "page": page,
            },
        },
        "pagination": if total as u64 == wanted {
            json!({ "next_page_params": { "page": page + 1 } })
        } else {
            Value::Null
        },
    }))
}

/// A SERP request, answered now or (`ASYNC`) as a task with delivery.
pub(crate) async fn run<const ASYNC: bool>(
    AxState(state): AxState<Shared>,
    Extension(ctx): Extension<Ctx>,
    Extension(version): Extension<ApiVersion>,
    ApiJson(body): ApiJson,
) -> Result<Json<Value>, ApiError> {
    crate::web::answer::<ASYNC>(&state, &ctx, version, "serp", body, serp_result)
}

/// This area's endpoints and their handlers, under the endpoint's `method`: the router asks
/// every area, so serving a new endpoint of the area is an arm here and nothing in `routes.rs`.
pub(crate) fn handler(
    e: &agents_runtime::endpoint::Endpoint,
    method: axum::routing::MethodFilter,
) -> Option<axum::routing::MethodRouter<Shared>> {
    use agents_runtime::endpoint;
    use axum::routing::on;
    Some(match *e {
        endpoint::SERP_RUN | endpoint::FAST_SERP_RUN => on(method, run::<false>),
        endpoint::SERP_ASYNC => on(method, run::<true>),
        _ => return None,
    })
}
