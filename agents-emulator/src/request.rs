//! Reading requests: JSON object bodies (bounded), the fields every endpoint reads (strings,
//! URLs, formats), the facts the layers hand to handlers ([`Ctx`]), path and query extractors
//! whose rejections are the emulator's JSON errors, and the bookkeeping that keeps keep-alive connections usable when
//! an answer goes out before its request body was read.
//!
//! hyper reuses a connection only when the previous request's body was read to its end; when it
//! was not, hyper closes the connection after the answer without saying so, and the client's next
//! request on it fails with a broken pipe. So [`track`] marks every body when it is read to its
//! end, early rejections [`drain`] a bounded body first, and [`keep_alive`] adds
//! `Connection: close` to any answer whose request body is still unread, so a client knows not to
//! reuse the connection.

use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use agents_schema::FieldSchema;
use axum::body::{Body, Bytes, HttpBody};
use axum::extract::{FromRequestParts, Path, Query, Request};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::Response;
use http_body_util::BodyExt;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::config::Account;
use crate::error::ApiError;
use crate::params::kind;
use crate::synth;

/// Largest request body accepted (a batch of 1,000 items fits easily).
pub const MAX_BODY: usize = 16 * 1024 * 1024;

/// Most bytes an early rejection (401, 402, 403, 429, an injected fault) reads and discards to keep
/// the connection; a larger body closes it instead.
const DRAIN_LIMIT: usize = 1024 * 1024;

/// How long an early rejection waits for the rest of a body before closing the connection instead.
const DRAIN_TIME: Duration = Duration::from_secs(2);

/// A request body that records when it has been read to its end.
struct Tracked {
    inner: Body,
    done: Arc<AtomicBool>,
}

impl HttpBody for Tracked {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Bytes>, axum::Error>>> {
        let poll = Pin::new(&mut self.inner).poll_frame(cx);
        if matches!(poll, Poll::Ready(None)) || self.inner.is_end_stream() {
            self.done.store(true, Ordering::Release);
        }
        poll
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}

/// The outermost layer: tracks the request body and adds `Connection: close` to an answer whose
/// request body was not read to its end (see the module docs).
pub(crate) async fn keep_alive(req: Request, next: Next) -> Response {
    let (parts, body) = req.into_parts();
    let done = Arc::new(AtomicBool::new(body.is_end_stream()));
    let body = Body::new(Tracked {
        inner: body,
        done: done.clone(),
    });
    let mut resp = next.run(Request::from_parts(parts, body)).await;
    if !done.load(Ordering::Acquire) {
        resp.headers_mut()
            .insert(header::CONNECTION, HeaderValue::from_static("close"));
    }
    resp
}

/// Reads and discards a request body before an early rejection, up to [`DRAIN_LIMIT`] bytes and
/// [`DRAIN_TIME`]; past either the body stays unread and [`keep_alive`] closes the connection.
pub(crate) async fn drain(body: Body) {
    let read = async {
        let mut body = body;
        let mut seen = 0usize;
        while let Some(frame) = body.frame().await {
            let Ok(frame) = frame else { return };
            if let Some(data) = frame.data_ref() {
                seen = seen.saturating_add(data.len());
                if seen > DRAIN_LIMIT {
                    return;
                }
            }
        }
    };
    let _ = tokio::time::timeout(DRAIN_TIME, read).await;
}

/// Reads a JSON object body: 400 for a wrong content type, invalid UTF-8, malformed JSON, nesting
/// beyond serde_json's limit or a body that is not an object; 413 beyond [`MAX_BODY`].
pub(crate) async fn json_object(
    headers: &HeaderMap,
    body: Body,
) -> Result<Map<String, Value>, ApiError> {
    object(json_body(headers, body).await?)
}

/// A body's value as the object it must be: 400 naming what it is otherwise.
pub(crate) fn object(value: Value) -> Result<Map<String, Value>, ApiError> {
    match value {
        Value::Object(m) => Ok(m),
        other => Err(ApiError::malformed(
            "body",
            format!("the body must be a JSON object, not {}", kind(&other)),
        )),
    }
}

/// Reads any JSON body (a JSON Patch document is an array) as `T`, with the checks of
/// [`json_object`].
async fn json_body<T: DeserializeOwned>(headers: &HeaderMap, body: Body) -> Result<T, ApiError> {
    if let Some(ct) = headers.get(header::CONTENT_TYPE) {
        let ct = ct.to_str().unwrap_or("");
        if !agents_runtime::endpoint::is_json_content_type(ct) {
            return Err(ApiError::malformed(
                "Content-Type",
                format!("request bodies are JSON; Content-Type {ct:?} is not application/json"),
            ));
        }
    }
    let bytes = bounded(body).await?;
    serde_json::from_slice(&bytes).map_err(|e| {
        ApiError::malformed(
            "body",
            format!(
                "malformed JSON at line {} column {}: {e}",
                e.line(),
                e.column()
            ),
        )
    })
}

/// A whole request body, at most [`MAX_BODY`] bytes: past that, 413 in the JSON error shape.
pub(crate) async fn bounded(body: Body) -> Result<Bytes, ApiError> {
    axum::body::to_bytes(body, MAX_BODY).await.map_err(|_| {
        ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "PAYLOAD_TOO_LARGE",
            format!("request body larger than {MAX_BODY} bytes"),
        )
    })
}

/// A request body of any content, read by [`bounded`] (axum's own `Bytes` answers a body
/// past its limit in plain text).
pub(crate) struct ApiBytes(pub(crate) Bytes);

impl<S: Send + Sync> axum::extract::FromRequest<S> for ApiBytes {
    type Rejection = ApiError;

    async fn from_request(req: Request, _: &S) -> Result<Self, ApiError> {
        bounded(req.into_body()).await.map(ApiBytes)
    }
}

/// A required string field of a body: 400 when missing, 422 when not a string.
pub(crate) fn required_str<'a>(
    body: &'a Map<String, Value>,
    field: &str,
) -> Result<&'a str, ApiError> {
    match body.get(field) {
        None | Some(Value::Null) => Err(ApiError::missing(
            field,
            format!("missing required field `{field}`"),
        )),
        Some(Value::String(s)) => Ok(s),
        Some(other) => Err(ApiError::wrong_type(
            field,
            format!("`{field}` must be a string, not {}", kind(other)),
        )),
    }
}

/// An optional string field of a body: 422 when present but not a string.
pub(crate) fn optional_str<'a>(
    body: &'a Map<String, Value>,
    field: &str,
) -> Result<Option<&'a str>, ApiError> {
    match body.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(_) => required_str(body, field).map(Some),
    }
}

/// A JSON object request body, read by [`json_object`]: every rejection is the JSON error shape.
pub(crate) struct ApiJson(pub(crate) Map<String, Value>);

/// Any JSON body as it was written, its keys in order (checked as [`ApiJson`]'s, but of any
/// shape): for the bodies whose documents the emulator keeps as it was given them, a
/// template's schemas, whose key order is the order of the fields generated from them.
pub(crate) struct ApiJsonWritten(pub(crate) agents_schema::Json);

impl<S: Send + Sync> axum::extract::FromRequest<S> for ApiJsonWritten {
    type Rejection = ApiError;

    async fn from_request(req: Request, _: &S) -> Result<Self, ApiError> {
        let (parts, body) = req.into_parts();
        json_body(&parts.headers, body).await.map(ApiJsonWritten)
    }
}

impl<S: Send + Sync> axum::extract::FromRequest<S> for ApiJson {
    type Rejection = ApiError;

    async fn from_request(req: Request, _: &S) -> Result<Self, ApiError> {
        let (parts, body) = req.into_parts();
        json_object(&parts.headers, body).await.map(ApiJson)
    }
}

/// An optional string field that takes one of `allowed`, or `default` when absent: 422 naming
/// the field and the allowed values otherwise.
pub(crate) fn one_of<'a>(
    body: &'a Map<String, Value>,
    field: &str,
    allowed: &[&str],
    default: &'a str,
) -> Result<&'a str, ApiError> {
    let value = optional_str(body, field)?.unwrap_or(default);
    if allowed.contains(&value) {
        Ok(value)
    } else {
        Err(ApiError::refused(
            field,
            format!("unknown {field} {value:?}; allowed: {}", allowed.join(", ")),
        ))
    }
}

/// Path parameters; a path that does not decode (invalid UTF-8 after percent-decoding) is a JSON
/// 400 naming the path rather than axum's plain-text rejection.
pub(crate) struct ApiPath<T>(pub(crate) T);

impl<S: Send + Sync, T: DeserializeOwned + Send> FromRequestParts<S> for ApiPath<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        match Path::<T>::from_request_parts(parts, state).await {
            Ok(Path(v)) => Ok(ApiPath(v)),
            Err(e) => Err(ApiError::malformed(
                "path",
                format!("invalid path {:?}: {}", parts.uri.path(), e.body_text()),
            )),
        }
    }
}

/// A query string; one that does not decode (a repeated key, a value of the wrong shape) is a
/// JSON 400 naming the query rather than axum's plain-text rejection.
pub(crate) struct ApiQuery<T>(pub(crate) T);

impl<S: Send + Sync, T: DeserializeOwned + Send> FromRequestParts<S> for ApiQuery<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        match Query::<T>::from_request_parts(parts, state).await {
            Ok(Query(v)) => Ok(ApiQuery(v)),
            Err(e) => Err(ApiError::malformed(
                "query",
                format!(
                    "invalid query {:?}: {}",
                    parts.uri.query().unwrap_or(""),
                    e.body_text()
                ),
            )),
        }
    }
}

/// Per-request facts the layers hand to the handlers.
#[derive(Debug, Clone)]
pub(crate) struct Ctx {
    pub(crate) task_id: String,
    pub(crate) account: Account,
    pub(crate) drift: bool,
    /// What the request's headers ask of the tasks it creates.
    pub(crate) task_faults: crate::lifecycle::TaskFaults,
}

/// An absolute http(s) URL with a host.
pub(crate) fn http_url(text: &str) -> bool {
    let rest = text
        .strip_prefix("https://")
        .or_else(|| text.strip_prefix("http://"));
    rest.is_some_and(|r| {
        let host = r.split(['/', '?', '#']).next().unwrap_or("");
        !host.is_empty() && !host.contains(char::is_whitespace)
    }) && !text.contains(char::is_whitespace)
}

/// `formats` of a request body; `at` names it in errors (`formats`, `inputs[2].formats`).
pub(crate) fn formats(body: &Map<String, Value>, at: &str) -> Result<Vec<String>, ApiError> {
    let Some(v) = body.get("formats").filter(|v| !v.is_null()) else {
        return Ok(Vec::new());
    };
    let Some(items) = v.as_array() else {
        return Err(ApiError::wrong_type(
            at,
            "formats must be an array of strings",
        ));
    };
    items
        .iter()
        .enumerate()
        .map(|(i, f)| match f.as_str() {
            Some(s) if synth::FORMATS.contains(&s) => Ok(s.to_owned()),
            _ => Err(ApiError::refused(
                format!("{at}[{i}]"),
                format!("unknown format {f}; allowed: html, markdown, headers, links"),
            )),
        })
        .collect()
}

/// The document `schema` (at `field`) read as JSON Schema, or a 422 naming the path at fault:
/// a document that does not read, or that names a type JSON Schema does not define (values
/// could not be made or checked for it).
pub(crate) fn read_schema(schema: &Value, field: &str) -> Result<FieldSchema, ApiError> {
    let doc = FieldSchema::from_document(schema).map_err(|e| match e {
        agents_schema::RecordError::Invalid(errors) => ApiError::items(
            errors
                .into_iter()
                .map(|e| {
                    let at = format!("{field}{}", e.path.trim_start_matches('$'));
                    ApiError::refused(&at, format!("{at}: {}", e.message))
                })
                .collect(),
        )
        .unwrap_or_else(|| ApiError::refused(field, "not a JSON Schema document")),
        other => ApiError::refused(field, other.to_string()),
    })?;
    let unknown: Vec<ApiError> = doc
        .unknown_types()
        .into_iter()
        .map(|(pointer, name)| {
            let at = format!("{field}{}", pointer.replace('/', "."));
            ApiError::refused(
                &at,
                format!(
                    "{at}: {name:?} is not a JSON Schema type (one of {})",
                    agents_schema::TYPE_NAMES.join(", ")
                ),
            )
        })
        .collect();
    match ApiError::items(unknown) {
        Some(e) => Err(e),
        None => Ok(doc),
    }
}
