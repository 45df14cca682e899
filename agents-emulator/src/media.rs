//! Media downloads: run and async, answered in the run-result envelope. The emulator fetches
//! nothing off loopback: the file's type comes from its URL and its size from a seed, and a
//! `storage` destination is checked and echoed (where the service would upload the file).

use agents_runtime::endpoint::ApiVersion;
use std::sync::Arc;

use axum::extract::State as AxState;
use axum::{Extension, Json};
use serde_json::{Map, Value, json};

use crate::error::ApiError;
use crate::params::kind;
use crate::request::{ApiJson, Ctx, http_url, optional_str, required_str};
use crate::state::State;

type Shared = Arc<State>;

/// The storage services a media file can be uploaded to.
pub const STORAGE_TYPES: [&str; 4] = ["s3", "gcs", "do", "oci"];

/// The MIME type a URL's file extension names (`application/octet-stream` when unknown).
fn mime_of(url: &str) -> &'static str {
    let path = url.split(['?', '#']).next().unwrap_or(url);
    let ext = path
        .rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase())
        .unwrap_or_default();
    match ext.as_str() {
        "jpg" | "jpeg" => "image/jpeg",
        "png" => "image/png",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "svg" => "image/svg+xml",
        "mp4" => "video/mp4",
        "webm" => "video/webm",
        "mp3" => "audio/mpeg",
        "pdf" => "application/pdf",
        "json" => "application/json",
        "csv" => "text/csv",
        "html" | "htm" => "text/html",
        _ => "application/octet-stream",
    }
}

/// Whether `mime` matches a pattern such as `image/png` or `image/*`.
fn matches(pattern: &str, mime: &str) -> bool {
    match pattern.strip_suffix("/*") {
        Some(top) => mime.split('/').next() == Some(top),
        None => pattern.eq_ignore_ascii_case(mime),
    }
}

/// The result of one media request, checked.
fn media_result(
    body: &Map<String, Value>,
    task_id: &str,
    at: std::time::SystemTime,
) -> Result<Value, ApiError> {
    let url = required_str(body, "url")?;
    if !http_url(url) {
        return Err(ApiError::malformed(
            "url",
            format!("invalid url {url:?}: expected an http(s) URL of a media file"),
        ));
    }
    optional_str(body, "country")?;
    optional_str(body, "locale")?;
    let expected: Vec<&str> = match body.get("expected_mime_types") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => {
            let mut out = Vec::new();
            for (i, item) in items.iter().enumerate() {
                match item.as_str() {
                    Some(t) if t.contains('/') => out.push(t),
                    _ => {
                        return Err(ApiError::refused(
                            format!("expected_mime_types[{i}]"),
                            format!("expected a MIME type such as image/png, not {item}"),
                        ));
                    }
                }
            }
            out
        }
        Some(other) => {
            return Err(ApiError::wrong_type(
                "expected_mime_types",
                format!(
                    "expected_mime_types must be a list of strings, not {}",
                    kind(other)
                ),
            ));
        }
    };
    let storage = match body.get("storage") {
        None | Some(Value::Null) => None,
        Some(Value::Object(s)) => {
            let at = |f: &str| format!("storage.{f}");
            let dest = required_str(s, "url").map_err(|e| e.at(at("url")))?;
            let ty = optional_str(s, "type")
                .map_err(|e| e.at(at("type")))?
                .unwrap_or("s3");
            if !STORAGE_TYPES.contains(&ty) {
                return Err(ApiError::refused(
                    at("type"),
                    format!(
                        "unknown storage type {ty:?}; allowed: {}",
                        STORAGE_TYPES.join(", ")
                    ),
                ));
            }
            let object = optional_str(s, "object_name").map_err(|e| e.at(at("object_name")))?;
            Some(json!({ "type": ty, "url": dest, "object_name": object }))
        }
        Some(other) => {
            return Err(ApiError::wrong_type(
                "storage",
                format!("storage must be an object, not {}", kind(other)),
            ));
        }
    };
    let mime = mime_of(url);
    let seed = agents_schema::sample::mix(0, url);
    let file_name = url
        .split(['?', '#'])
        .next()
        .and_then(|p| p.rsplit('/').next())
        .filter(|n| !n.is_empty())
        .unwrap_or("download");
    let accepted = expected.is_empty() || expected.iter().any(|p| matches(p, mime));
    let (status, code, parsing) = if accepted {
        (
            "success",
            200,
            json!({
                "file_name": file_name,
                "mime_type": mime,
                "size_bytes": 1_024 + seed % 4_000_000,
                "storage": storage,
            }),
        )
    } else {
        (
            "error",
            415,
            json!({
                "error": format!("{url} is {mime}, not one of {}", expected.join(", ")),
                "mime_type": mime,
            }),
        )
    };
    Ok(json!({
        "url": url,
        "task_id": task_id,
        "status": status,
        "status_code": code,
        "data": { "parsing": parsing, "headers": { "content-type": mime } },
        "metadata": {
            "driver": "vx6",
            "query_time": crate::wire::timestamp(at),
            "query_duration": 0,
        },
    }))
}

/// A media download, answered now or (`ASYNC`) as a task with delivery.
pub(crate) async fn run<const ASYNC: bool>(
    AxState(state): AxState<Shared>,
    Extension(ctx): Extension<Ctx>,
    Extension(version): Extension<ApiVersion>,
    ApiJson(body): ApiJson,
) -> Result<Json<Value>, ApiError> {
    crate::web::answer::<ASYNC>(&state, &ctx, version, "media", body, media_result)
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
        endpoint::MEDIA_RUN => on(method, run::<false>),
        endpoint::MEDIA_ASYNC => on(method, run::<true>),
        _ => return None,
    })
}
