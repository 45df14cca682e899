//! The HTTP surface: the route table (from the runtime's endpoint table), and the layers every
//! request passes (request id, auth, rate limit, faults), outermost first.

use std::sync::Arc;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::{Request, State as AxState};
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{MethodFilter, MethodRouter};
use axum::{Extension, Json, Router};
use serde_json::json;
use tower_http::catch_panic::CatchPanicLayer;

use agents_runtime::endpoint::{self, Endpoint};

use crate::config::{AccountStatus, Fault, RateLimitShape};
use crate::error::ApiError;
use crate::request::{Ctx, drain};
use crate::state::{FaultRule, State, lock};

pub use crate::request::MAX_BODY;

type Shared = Arc<State>;

/// The router of both versions of the interface: every endpoint of the runtime's endpoint
/// table that the emulator serves, at its path in each version it exists in. Handlers that
/// answer differently per version read the version from an `Extension<ApiVersion>`.
pub fn router(state: Shared) -> Router {
    let mut api = Router::new();
    for e in endpoint::ALL {
        let Some(handler) = handler(e) else {
            continue;
        };
        for version in e.versions() {
            if let Some(path) = e.path(version) {
                api = api.route(path, handler.clone().layer(Extension(version)));
            }
        }
    }
    let api = api
        .method_not_allowed_fallback(method_not_allowed)
        .route_layer(middleware::from_fn_with_state(state.clone(), faults))
        .route_layer(middleware::from_fn_with_state(state.clone(), rate_limit))
        .route_layer(middleware::from_fn_with_state(state.clone(), authenticate));
    // Artifact downloads are signed URLs, as a bucket's would be: no API key, no rate limit.
    // So are the pages research runs cite: web pages, open to anyone.
    let downloads = Router::new()
        .route(
            &format!("{}{{token}}", crate::jobs::DOWNLOAD_PREFIX),
            axum::routing::get(crate::jobs::download),
        )
        .route(
            &format!("{}{{run_id}}/{{n}}", crate::research::PAGES_PREFIX),
            axum::routing::get(crate::research::page),
        )
        .method_not_allowed_fallback(method_not_allowed);
    api.merge(downloads)
        .fallback(not_found)
        .layer(middleware::from_fn(request_id))
        .layer(CatchPanicLayer::custom(panic_answer))
        .layer(middleware::from_fn(crate::request::keep_alive))
        .with_state(state)
}

/// The handler of an endpoint, under the endpoint's method; `None` for the endpoints the
/// emulator does not serve (listed by [`unserved`]).
fn handler(e: &Endpoint) -> Option<MethodRouter<Shared>> {
    use crate::{batch, domain, generations, jobs, media, research, serp, tasks, templates, web};
    type Area = fn(&Endpoint, MethodFilter) -> Option<MethodRouter<Shared>>;
    // Each area routes its own endpoints (its `handler`), so adding an endpoint to an area
    // touches that area's file only.
    const AREAS: [Area; 10] = [
        templates::handler,
        batch::handler,
        generations::handler,
        tasks::handler,
        web::handler,
        serp::handler,
        media::handler,
        domain::handler,
        jobs::handler,
        research::handler,
    ];
    let method = match e.method {
        endpoint::Method::Get => MethodFilter::GET,
        endpoint::Method::Post => MethodFilter::POST,
        endpoint::Method::Patch => MethodFilter::PATCH,
        endpoint::Method::Delete => MethodFilter::DELETE,
    };
    AREAS.iter().find_map(|area| area(e, method))
}

/// The endpoints of the table the emulator does not serve (it answers them 404, naming the
/// endpoint).
pub fn unserved() -> impl Iterator<Item = &'static Endpoint> {
    endpoint::ALL.iter().filter(|e| handler(e).is_none())
}

/// A handler that panicked answers a JSON 500 (and the panic is logged) instead of dropping the
/// connection.
fn panic_answer(panic: Box<dyn std::any::Any + Send + 'static>) -> Response {
    let what = panic
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| panic.downcast_ref::<&str>().copied())
        .unwrap_or("a panic without a message");
    tracing::error!(panic = what, "handler panicked");
    ApiError::new(
        StatusCode::INTERNAL_SERVER_ERROR,
        "INTERNAL_ERROR",
        format!("the emulator failed while answering (a bug; please report it): {what}"),
    )
    .into_response()
}

async fn not_found(req: Request) -> ApiError {
    ApiError::not_found(format!("no endpoint {} {}", req.method(), req.uri().path()))
}

async fn method_not_allowed(req: Request) -> ApiError {
    ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        "METHOD_NOT_ALLOWED",
        format!("{} is not allowed on {}", req.method(), req.uri().path()),
    )
}

// ---------------------------------------------------------------------------------------------
// Layers

const X_TASK_ID: HeaderName = HeaderName::from_static("x-task-id");

/// Gives every request an id, sent back as `x-task-id` on every response.
async fn request_id(mut req: Request, next: Next) -> Response {
    let id = uuid::Uuid::new_v4().to_string();
    req.extensions_mut().insert(RequestId(id.clone()));
    let mut resp = next.run(req).await;
    if !resp.headers().contains_key(X_TASK_ID)
        && let Ok(v) = HeaderValue::from_str(&id)
    {
        resp.headers_mut().insert(X_TASK_ID, v);
    }
    resp
}

#[derive(Debug, Clone)]
struct RequestId(String);

/// The key of an `Authorization` header: the scheme `Bearer` in any case (RFC 9110 makes
/// schemes case-insensitive), then the key.
fn bearer_key(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?.trim();
    let (scheme, key) = value.split_once(|c: char| c.is_ascii_whitespace())?;
    let key = key.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !key.is_empty()).then_some(key)
}

/// Answers before the handler ran: the request body is drained first (bounded), so the
/// connection stays usable for the client's next request.
async fn reject(req: Request, answer: impl IntoResponse) -> Response {
    drain(req.into_body()).await;
    answer.into_response()
}

/// `Authorization: Bearer <key>`: 401 when missing or unknown, 402 and 403 for accounts
/// configured so. Requests are counted only for configured keys, so what strangers send leaves no
/// state behind.
async fn authenticate(AxState(state): AxState<Shared>, mut req: Request, next: Next) -> Response {
    let Some(key) = bearer_key(req.headers()) else {
        let answer = ApiError::new(
            StatusCode::UNAUTHORIZED,
            "UNAUTHORIZED",
            "missing credentials: send `Authorization: Bearer <API key>`",
        );
        return reject(req, answer).await;
    };
    state.count_request(key);
    let Some(account) = state.accounts.get(key).cloned() else {
        let answer = ApiError::new(StatusCode::UNAUTHORIZED, "UNAUTHORIZED", "invalid API key");
        return reject(req, answer).await;
    };
    let refusal = match account.status {
        AccountStatus::NoBudget => Some(ApiError::new(
            StatusCode::PAYMENT_REQUIRED,
            "PAYMENT_REQUIRED",
            format!("account {} has no budget left", account.name),
        )),
        AccountStatus::Blocked => Some(ApiError::new(
            StatusCode::FORBIDDEN,
            "FORBIDDEN",
            format!("account {} is blocked", account.name),
        )),
        AccountStatus::Active => None,
    };
    if let Some(answer) = refusal {
        return reject(req, answer).await;
    }
    let task_id = req
        .extensions()
        .get::<RequestId>()
        .map(|r| r.0.clone())
        .unwrap_or_default();
    let task_faults = crate::lifecycle::TaskFaults::from_headers(req.headers());
    req.extensions_mut().insert(Ctx {
        task_id,
        account,
        drift: false,
        task_faults,
    });
    next.run(req).await
}

/// Per-key rate limit: rate-limit headers in both spellings on every answer, 429 in the
/// configured body shape with `retry_after`, `Retry-After` and `retry-after-ms` when exceeded.
async fn rate_limit(AxState(state): AxState<Shared>, req: Request, next: Next) -> Response {
    let Some(ctx) = req.extensions().get::<Ctx>().cloned() else {
        return next.run(req).await;
    };
    let Some(info) = state.take(&ctx.account.key) else {
        return next.run(req).await;
    };
    let mut resp = match info.retry_after {
        Some(wait) => reject(req, rate_limited(&state, wait)).await,
        None => next.run(req).await,
    };
    let h = resp.headers_mut();
    for (name, value) in [
        ("x-ratelimit-limit", info.limit.to_string()),
        ("x-ratelimit-remaining", info.remaining.to_string()),
        ("x-ratelimit-reset", info.reset.to_string()),
        ("ratelimit-limit", info.limit.to_string()),
        ("ratelimit-remaining", info.remaining.to_string()),
    ] {
        if let Ok(v) = HeaderValue::from_str(&value) {
            h.insert(HeaderName::from_static(name), v);
        }
    }
    resp
}

/// A 429 answer. `retry_after` in the body and `Retry-After` are whole seconds, rounded up (the
/// documented unit); `retry-after-ms` carries the exact wait.
fn rate_limited(state: &State, wait: Duration) -> Response {
    let secs = wait.as_secs_f64().ceil().max(1.0) as u64;
    let message = format!("rate limit exceeded; retry in {} ms", wait.as_millis());
    let body = match state.next_shape() {
        RateLimitShape::Flat => json!({ "status": "failed", "msg": message }),
        _ => json!({
            "error": { "code": "RATE_LIMIT_EXCEEDED", "message": message, "retry_after": secs }
        }),
    };
    let mut resp = (StatusCode::TOO_MANY_REQUESTS, Json(body)).into_response();
    let h = resp.headers_mut();
    if let Ok(v) = HeaderValue::from_str(&secs.to_string()) {
        h.insert(header::RETRY_AFTER, v);
    }
    if let Ok(v) = HeaderValue::from_str(&wait.as_millis().max(1).to_string()) {
        h.insert(HeaderName::from_static("retry-after-ms"), v);
    }
    resp
}

/// Fault injection: the key's configured faults plus `x-emulator-fault` (comma-separated, see
/// [`Fault::parse`]) and `x-emulator-latency-ms` on the request.
async fn faults(AxState(state): AxState<Shared>, mut req: Request, next: Next) -> Response {
    let Some(mut ctx) = req.extensions().get::<Ctx>().cloned() else {
        return next.run(req).await;
    };
    let mut faults = state.take_faults(&ctx.account.key, req.method().as_str());
    let asked = req
        .headers()
        .get("x-emulator-fault")
        .and_then(|v| v.to_str().ok())
        .map_or(Ok(Vec::new()), |v| {
            v.split(',')
                .map(|part| {
                    Fault::parse(part)
                        .map_err(|message| ApiError::malformed("x-emulator-fault", message))
                })
                .collect::<Result<Vec<_>, _>>()
        });
    match asked {
        Ok(asked) => faults.extend(asked),
        Err(answer) => return reject(req, answer).await,
    }
    if let Some(ms) = req
        .headers()
        .get("x-emulator-latency-ms")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok())
    {
        faults.push(Fault::Latency(Duration::from_millis(ms.min(60_000))));
    }
    if faults.is_empty() {
        return next.run(req).await;
    }
    let mut after = None;
    for f in &faults {
        match f {
            Fault::Latency(d) => tokio::time::sleep(*d).await,
            Fault::Status(code) => {
                let status =
                    StatusCode::from_u16(*code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
                let code = match code {
                    500 => "INTERNAL_ERROR",
                    501 => "PROXY_ERROR",
                    555 => "REQUEST_TIMEOUT",
                    _ => "INJECTED_FAULT",
                };
                let answer = ApiError::new(
                    status,
                    code,
                    format!("injected fault: status {}", status.as_u16()),
                );
                return reject(req, answer).await;
            }
            Fault::RateLimited => {
                return reject(req, rate_limited(&state, Duration::from_millis(1000))).await;
            }
            Fault::Drift => ctx.drift = true,
            Fault::Panic => panic!("injected fault: panic"),
            Fault::Reset => after = Some(Corruption::Reset),
            Fault::Truncate => after = Some(Corruption::Truncate),
            Fault::Malformed => after = Some(Corruption::Malformed),
            Fault::SplitCharacter => after = Some(Corruption::SplitCharacter),
        }
    }
    req.extensions_mut().insert(ctx);
    let resp = next.run(req).await;
    match after {
        Some(damage) => corrupt(resp, damage).await,
        None => resp,
    }
}

/// The faults that damage an answer the handler made (the rest act before it): a type of their
/// own, so that `corrupt` names each and a new one cannot fall into another's arm.
#[derive(Debug, Clone, Copy)]
enum Corruption {
    Reset,
    Truncate,
    Malformed,
    SplitCharacter,
}

/// Damages a response after the handler made it.
async fn corrupt(resp: Response, damage: Corruption) -> Response {
    let (mut parts, body) = resp.into_parts();
    let bytes = axum::body::to_bytes(body, usize::MAX)
        .await
        .unwrap_or_default();
    parts.headers.remove(header::CONTENT_LENGTH);
    let half = bytes.slice(..bytes.len() / 2);
    match damage {
        Corruption::Reset => {
            let chunks: Vec<Result<Bytes, std::io::Error>> = vec![
                Ok(half),
                Err(std::io::Error::new(
                    std::io::ErrorKind::ConnectionReset,
                    "injected connection reset",
                )),
            ];
            Response::from_parts(parts, Body::from_stream(futures::stream::iter(chunks)))
        }
        Corruption::Truncate => {
            parts.status = StatusCode::OK;
            Response::from_parts(parts, Body::from(half))
        }
        Corruption::Malformed => {
            parts.status = StatusCode::OK;
            Response::from_parts(parts, Body::from("{\"url\": \"<html>not json</html>\", ]"))
        }
        Corruption::SplitCharacter => {
            Response::from_parts(parts, Body::from(split_character(&bytes)))
        }
    }
}

/// The JSON text `body` with its longest string value (not a key) ending in `\ud83d`, the first
/// half of an emoji's UTF-16 pair without the second; the text as it was when it has none.
fn split_character(body: &[u8]) -> Vec<u8> {
    let mut longest: Option<(usize, usize)> = None;
    let (mut start, mut escaped) = (None, false);
    for (i, &b) in body.iter().enumerate() {
        match (start, escaped, b) {
            (Some(_), true, _) => escaped = false,
            (Some(_), false, b'\\') => escaped = true,
            (Some(open), false, b'"') => {
                start = None;
                let key = body[i + 1..]
                    .iter()
                    .find(|b| !b.is_ascii_whitespace())
                    .is_some_and(|b| *b == b':');
                if !key && longest.is_none_or(|(s, e)| e - s < i - open) {
                    longest = Some((open, i));
                }
            }
            (None, _, b'"') => start = Some(i),
            _ => {}
        }
    }
    let mut out = body.to_vec();
    if let Some((_, close)) = longest {
        out.splice(close..close, br"\ud83d".iter().copied());
    }
    out
}

/// Adds a fault rule for `key` (used by the handle).
pub(crate) fn inject(
    state: &State,
    key: &str,
    fault: Fault,
    times: Option<u32>,
    method: Option<&str>,
) {
    lock(&state.faults)
        .entry(key.to_owned())
        .or_default()
        .push(FaultRule {
            fault,
            times,
            method: method.map(str::to_owned),
        });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_character_cuts_the_longest_string_value_only() {
        let body = br#"{"a longer key than any value": "short", "data": {"title": "a \"longer\" title", "k": "v"}}"#;
        let cut = String::from_utf8(split_character(body)).unwrap();
        assert!(serde_json::from_str::<serde_json::Value>(&cut).is_err());
        let text = std::str::from_utf8(body).unwrap();
        assert_eq!(cut, text.replace(r#"title", "k""#, r#"title\ud83d", "k""#));
        assert_eq!(split_character(b"[1, 2]"), b"[1, 2]");
    }
}
