//! Search and its async variant (`/v1` only): deterministic results for a query.

use axum::Extension;
use axum::Json;
use axum::extract::State as AxState;
use serde_json::{Map, Value, json};

use agents_runtime::endpoint::ApiVersion;

use crate::error::ApiError;
use crate::params::kind;
use crate::request::{ApiJson, Ctx, one_of, optional_str, required_str};

use super::extract::finish;
use super::page::Shared;

pub(super) const FOCUS: [&str; 8] = [
    "general", "coding", "news", "academic", "shopping", "social", "geo", "location",
];

/// An optional boolean field: 422 naming it when it is anything else.
fn flag(body: &Map<String, Value>, field: &str) -> Result<bool, ApiError> {
    match body.get(field) {
        None | Some(Value::Null) => Ok(false),
        Some(Value::Bool(b)) => Ok(*b),
        Some(other) => Err(ApiError::wrong_type(
            field,
            format!("{field} must be a boolean, not {}", kind(other)),
        )),
    }
}

/// Most results a search answers, whatever `max_results` asks for.
pub(super) const MAX_SEARCH_RESULTS: u64 = 100;

pub(super) fn search_result(
    body: &Map<String, Value>,
    task_id: &str,
    version: ApiVersion,
) -> Result<Value, ApiError> {
    let query = required_str(body, "query")?;
    if query.trim().is_empty() {
        return Err(ApiError::malformed("query", "query must not be empty"));
    }
    let focus: Vec<String> = match body.get("focus") {
        None | Some(Value::Null) => vec!["general".into()],
        Some(Value::String(s)) => vec![s.clone()],
        Some(Value::Array(l)) => l
            .iter()
            .map(|v| v.as_str().unwrap_or("").to_owned())
            .collect(),
        Some(other) => {
            return Err(ApiError::wrong_type(
                "focus",
                format!("focus must be a string or a list, not {}", kind(other)),
            ));
        }
    };
    for f in &focus {
        if !FOCUS.contains(&f.as_str()) {
            return Err(ApiError::refused(
                "focus",
                format!("unknown focus {f:?}; allowed: {}", FOCUS.join(", ")),
            ));
        }
    }
    // `/v2` has `lite` and `standard`, with full page text asked for separately.
    let (allowed, default) = (
        version.words().search_depths,
        version.words().search_depth_default,
    );
    let depth = one_of(body, "search_depth", allowed, default)?;
    // `deep_search: true` is /v2's deprecated spelling of full content at depth lite.
    let full = flag(body, "full_content")? || flag(body, "deep_search")? || depth == "deep";
    // Neither the service's documentation nor the vendor's models bound max_results; the emulator answers at most
    // MAX_SEARCH_RESULTS (the service decides how many results it has).
    let max = match body.get("max_results") {
        None | Some(Value::Null) => 10,
        Some(v) => v.as_u64().filter(|n| *n >= 1).ok_or_else(|| {
            ApiError::wrong_type("max_results", "max_results must be a positive integer")
        })?,
    }
    .min(MAX_SEARCH_RESULTS);
    let country = optional_str(body, "country")?.unwrap_or("US");
    let locale = optional_str(body, "locale")?.unwrap_or("en");
    let answer = flag(body, "include_answer")?;
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
                "content": if full {
                    format!(
                        "# {query}\n\n{query} is discussed here in depth. Entry {s:x}.\n\n\
                         The {site} index keeps the whole page: its sections, tables and links, \
                         as text."
                    )
                } else {
                    format!("{query} is discussed here in depth. Entry {s:x}.")
                },
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

/// A search, answered at once or (`ASYNC`) as a task.
pub(crate) async fn search<const ASYNC: bool>(
    AxState(state): AxState<Shared>,
    Extension(ctx): Extension<Ctx>,
    Extension(version): Extension<ApiVersion>,
    ApiJson(body): ApiJson,
) -> Result<Json<Value>, ApiError> {
    let result = search_result(&body, &ctx.task_id, version)?;
    Ok(finish::<ASYNC>(
        &state, &ctx, version, "search", body, result,
    ))
}
