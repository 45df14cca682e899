//! Where an HTTP status becomes an error variant, and the other ways a call fails.
//!
//! No variant holds the API key: errors carry the parsed body, the `x-task-id` and rate-limit
//! headers of the answer, never request headers.

use std::time::{Duration, SystemTime};

use reqwest::header::HeaderMap;
use serde_json::Value;

use crate::validate::ValidationError;

/// Rate-limit state read from a response's headers (both spellings).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RateLimit {
    /// `X-RateLimit-Limit` / `ratelimit-limit`.
    pub limit: Option<u64>,
    /// `X-RateLimit-Remaining` / `ratelimit-remaining`.
    pub remaining: Option<u64>,
    /// `X-RateLimit-Reset`, a Unix timestamp.
    pub reset: Option<SystemTime>,
}

impl RateLimit {
    /// Reads both header spellings.
    pub fn from_headers(h: &HeaderMap) -> RateLimit {
        let num = |a: &str, b: &str| {
            h.get(a)
                .or_else(|| h.get(b))
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.trim().parse::<u64>().ok())
        };
        RateLimit {
            limit: num("x-ratelimit-limit", "ratelimit-limit"),
            remaining: num("x-ratelimit-remaining", "ratelimit-remaining"),
            reset: num("x-ratelimit-reset", "ratelimit-reset")
                .map(|s| SystemTime::UNIX_EPOCH + Duration::from_secs(s)),
        }
    }
}

/// What every answer of the service tells besides its body.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ResponseInfo {
    /// HTTP status.
    pub status: u16,
    /// `x-task-id`: the request or task identifier, for debugging with the operator.
    pub task_id: Option<String>,
    /// Rate-limit headers.
    pub rate_limit: RateLimit,
    /// How many times the client tried the call, this answer's attempt included (1 when it was
    /// not retried).
    pub attempts: u32,
}

impl ResponseInfo {
    /// Reads status and headers (of a first attempt).
    pub fn new(status: u16, h: &HeaderMap) -> ResponseInfo {
        ResponseInfo {
            status,
            attempts: 1,
            task_id: h
                .get("x-task-id")
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned),
            rate_limit: RateLimit::from_headers(h),
        }
    }
}

/// An error answer of the service, whatever its status.
#[derive(Debug, Clone, PartialEq)]
pub struct ApiError {
    /// Status, `x-task-id` and rate-limit headers of the answer.
    pub info: ResponseInfo,
    /// Machine-readable code when the body has one (`error.code`).
    pub code: Option<String>,
    /// The message of the body (`error.message` or `msg`), or the body text.
    pub message: String,
    /// The request field at fault, when the body names one (`error.field`).
    pub field: Option<String>,
    /// The body, parsed when it was JSON, else as a string.
    pub body: Value,
    /// How long the service asked to wait before retrying (`retry-after-ms`, `retry_after` in
    /// the body, `Retry-After` in seconds or as an HTTP date, or `X-RateLimit-Reset`).
    pub retry_after: Option<Duration>,
    /// `x-should-retry`, when the service sent it.
    pub should_retry: Option<bool>,
    /// What to do about it, when this client knows (never from the service): for a typed call
    /// refused because the service does not know its template, the `Client::publish` call that
    /// makes it.
    pub hint: Option<String>,
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "HTTP {}", self.info.status)?;
        if let Some(code) = &self.code {
            write!(f, " {code}")?;
        }
        write!(f, ": {}", self.message)?;
        if let Some(field) = &self.field {
            write!(f, " (field `{field}`)")?;
        }
        if let Some(wait) = self.retry_after {
            write!(f, "; retry after {}", seconds(wait))?;
        }
        if let Some(id) = &self.info.task_id {
            write!(f, " [x-task-id {id}]")?;
        }
        if let Some(hint) = &self.hint {
            write!(f, "; {hint}")?;
        }
        Ok(())
    }
}

/// A duration for people: `2.5 s`, `86400 s`.
pub(crate) fn seconds(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s.fract() == 0.0 {
        format!("{s:.0} s")
    } else {
        format!("{s:.3} s")
    }
}

impl ApiError {
    /// Reads an error answer. The 429 body comes in two shapes:
    /// `{error: {code, message, retry_after}}` and `{status: "failed", msg}`. `retry_after` in the
    /// body is taken as seconds (the service documents seconds). A `Retry-After` date or a reset
    /// time is read against the real wall clock; the client reads them against its own
    /// ([`ApiError::from_parts_at`]).
    pub fn from_parts(status: u16, headers: &HeaderMap, bytes: &[u8]) -> ApiError {
        // For callers outside the client, which have no clock of their own.
        #[allow(clippy::disallowed_methods)]
        let now = SystemTime::now();
        ApiError::from_parts_at(status, headers, bytes, now)
    }

    /// [`ApiError::from_parts`], with dates in the answer read against `now`.
    pub fn from_parts_at(
        status: u16,
        headers: &HeaderMap,
        bytes: &[u8],
        now: SystemTime,
    ) -> ApiError {
        let info = ResponseInfo::new(status, headers);
        let bytes = agents_wire::json::without_bom(bytes);
        let body: Value = serde_json::from_slice(bytes)
            .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(bytes).into_owned()));
        let err = body.get("error");
        let code = err
            .and_then(|e| e.get("code"))
            .and_then(Value::as_str)
            .map(str::to_owned);
        let message = err
            .and_then(|e| e.get("message").or_else(|| e.as_str().map(|_| e)))
            .or_else(|| body.get("msg"))
            .or_else(|| body.get("message"))
            .or_else(|| {
                body.get("errors")
                    .and_then(Value::as_array)?
                    .iter()
                    .find_map(|e| e.get("message"))
            })
            .and_then(Value::as_str)
            .map(str::to_owned)
            .unwrap_or_else(|| match &body {
                Value::String(s) if !s.is_empty() => s.chars().take(500).collect(),
                _ => status_text(status).to_owned(),
            });
        // `error.field`, or the first `errors[].field` of a 422 listing every broken field.
        let field = err
            .and_then(|e| e.get("field"))
            .or_else(|| {
                body.get("errors")
                    .and_then(Value::as_array)?
                    .iter()
                    .find_map(|e| e.get("field"))
            })
            .and_then(Value::as_str)
            .map(str::to_owned);
        let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
        let retry_after = header("retry-after-ms")
            .and_then(|v| v.trim().parse::<f64>().ok())
            .filter(|ms| ms.is_finite() && *ms >= 0.0)
            .map(|ms| Duration::from_secs_f64(ms / 1000.0))
            .or_else(|| {
                err.and_then(|e| e.get("retry_after"))
                    .and_then(Value::as_f64)
                    .filter(|s| s.is_finite() && *s >= 0.0)
                    .map(Duration::from_secs_f64)
            })
            .or_else(|| header("retry-after").and_then(|v| parse_retry_after_at(v, now)))
            .or_else(|| {
                info.rate_limit
                    .reset
                    .filter(|_| status == 429)
                    .and_then(|t| t.duration_since(now).ok())
            });
        let should_retry = header("x-should-retry").and_then(|v| match v.trim() {
            "true" => Some(true),
            "false" => Some(false),
            _ => None,
        });
        ApiError {
            info,
            code,
            message,
            field,
            body,
            retry_after,
            should_retry,
            hint: None,
        }
    }
}

/// `Retry-After`: delay-seconds or an HTTP date (read against the real wall clock).
pub fn parse_retry_after(v: &str) -> Option<Duration> {
    // For callers outside the client, which have no clock of their own.
    #[allow(clippy::disallowed_methods)]
    let now = SystemTime::now();
    parse_retry_after_at(v, now)
}

/// `Retry-After`: delay-seconds, or an HTTP date read against `now`.
pub fn parse_retry_after_at(v: &str, now: SystemTime) -> Option<Duration> {
    let v = v.trim();
    if let Ok(secs) = v.parse::<u64>() {
        return Some(Duration::from_secs(secs));
    }
    let when = httpdate::parse_http_date(v).ok()?;
    Some(when.duration_since(now).unwrap_or_default())
}

fn status_text(status: u16) -> &'static str {
    match status {
        400 => "bad request",
        401 => "unauthorized",
        402 => "payment required",
        403 => "forbidden",
        422 => "validation error",
        429 => "rate limit exceeded",
        500 => "internal server error",
        501 => "proxy service error",
        555 => "request timeout on the service",
        _ => "unexpected status",
    }
}

/// An answer whose body is not what the interface describes.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("cannot decode the answer at `{path}`: {message}")]
pub struct DecodeError {
    /// Where in the body decoding failed (serde path, `.` for the root).
    pub path: String,
    /// What went wrong.
    pub message: String,
    /// The raw body.
    pub body: String,
    /// Status and headers of the answer.
    pub info: ResponseInfo,
}

/// A request that could not be sent or whose answer was not received, with the cause chain in its
/// message (`error sending request for url (…): client error (Connect): tcp connect error:
/// Connection refused (os error 111)`).
#[derive(Debug)]
pub struct TransportError {
    source: reqwest::Error,
    /// How many times the client tried the call, this attempt included.
    pub attempts: u32,
}

impl TransportError {
    pub(crate) fn new(source: reqwest::Error) -> TransportError {
        TransportError {
            source,
            attempts: 1,
        }
    }

    /// The underlying reqwest error.
    pub fn reqwest(&self) -> &reqwest::Error {
        &self.source
    }

    /// Whether the request provably never reached the service, so that sending it again cannot
    /// run it twice: the connection could not be made, or hyper found the connection closed
    /// before it wrote any byte of the request (a canceled request).
    pub fn never_sent(&self) -> bool {
        if self.source.is_connect() {
            return true;
        }
        let mut cause = std::error::Error::source(&self.source);
        while let Some(c) = cause {
            if c.downcast_ref::<hyper::Error>()
                .is_some_and(hyper::Error::is_canceled)
            {
                return true;
            }
            cause = c.source();
        }
        false
    }

    /// Whether the client's timeout ran out.
    pub fn is_timeout(&self) -> bool {
        self.source.is_timeout()
    }
}

impl std::fmt::Display for TransportError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.source)?;
        let mut last = self.source.to_string();
        let mut cause = std::error::Error::source(&self.source);
        while let Some(c) = cause {
            let text = c.to_string();
            // Some layers repeat their source's message; print each one once.
            if !last.contains(&text) {
                write!(f, ": {text}")?;
            }
            last = text;
            cause = c.source();
        }
        if self.attempts > 1 {
            write!(f, " (after {} attempts)", self.attempts)?;
        }
        Ok(())
    }
}

impl std::error::Error for TransportError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.source)
    }
}

/// A body larger than the client accepts ([`super::ClientBuilder::max_response_bytes`]).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error(
    "the answer is larger than the client's limit of {limit} bytes ({}); raise it with \
     ClientBuilder::max_response_bytes",
    match .declared { Some(n) => format!("Content-Length {n}"), None => format!("{} bytes read", .read) }
)]
pub struct TooLargeError {
    /// The limit.
    pub limit: u64,
    /// The size the answer declared (`Content-Length`), when it did.
    pub declared: Option<u64>,
    /// Bytes read before the client stopped.
    pub read: u64,
    /// Status and headers of the answer.
    pub info: ResponseInfo,
}

/// What kind of failure an [`Error`] is, for callers that decide what to do next without matching
/// every variant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The input broke a rule the client checks (params, options, batch items); nothing was sent.
    /// Fix the input.
    Invalid,
    /// The service refused the request as malformed, invalid or about something that does not
    /// exist (400, 404, 422). Fix the request.
    Rejected,
    /// The account cannot make the request (401, 402, 403). Fix the key or the account.
    Account,
    /// Too many requests (429), after the client's retries. Wait for `retry_after()`.
    RateLimited,
    /// Nothing was sent: an earlier 429 holds every request of the client longer than this call
    /// may wait ([`Error::HeldBack`]). Wait for `retry_after()`, or give the call more time.
    HeldBack,
    /// The service failed (500, 501, 555 or a status the interface does not list). Try later.
    Service,
    /// The network failed or the client's timeout ran out.
    Transport,
    /// The answer was not what the interface describes, or larger than the client accepts.
    Response,
    /// Asynchronous work ended in failure (task `error`, generation `failed`) or a waiter gave up.
    Async,
    /// Some batches were submitted before one failed ([`Error::BatchPartiallySubmitted`]).
    PartialBatch,
    /// The client is misconfigured.
    Config,
}

/// Every way a call can fail.
///
/// `Debug` prints the message first, then what the service's answer said (status, code, field,
/// ids, attempts) one item a line, then the causes: `fn main() -> Result<(), Error>` shows what
/// went wrong, not a dump of structs. `{:#?}` adds the answer's body.
#[derive(thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// 400: invalid URL, malformed or missing required parameters.
    #[error("bad request: {0}")]
    BadRequest(Box<ApiError>),
    /// 401: unknown account, invalid API key or missing credentials.
    #[error("unauthorized: {0}")]
    Unauthorized(Box<ApiError>),
    /// 402: no budget, limit reached (including the daily generation limit), trial over.
    #[error("payment required: {0}")]
    PaymentRequired(Box<ApiError>),
    /// 403: account blocked or not activated.
    #[error("forbidden: {0}")]
    Forbidden(Box<ApiError>),
    /// 404: no such agent, task or generation (for this account).
    #[error("not found: {0}")]
    NotFound(Box<ApiError>),
    /// 422: invalid request parameters.
    #[error("invalid parameters: {0}")]
    Unprocessable(Box<ApiError>),
    /// 429: rate limit exceeded (retried by the client before it is returned).
    #[error("rate limited: {0}")]
    RateLimited(Box<ApiError>),
    /// Not sent: the service's earlier 429 (carried here, its `retry_after` set to what is left
    /// of the hint) holds every request of this client longer than this call may still take (the
    /// client's `timeout`, or what is left of the retry policy's `max_elapsed`).
    #[error("held back by the client, not sent: {0}")]
    HeldBack(Box<ApiError>),
    /// 500: the service failed, after retrying on its side.
    #[error("service error: {0}")]
    Internal(Box<ApiError>),
    /// 501: proxy service error.
    #[error("proxy service error: {0}")]
    NotImplemented(Box<ApiError>),
    /// 555: the request exceeded the service's maximum execution time.
    #[error("service timeout: {0}")]
    ServiceTimeout(Box<ApiError>),
    /// Any other status.
    #[error("unexpected answer: {0}")]
    Status(Box<ApiError>),
    /// The request could not be sent or its answer not received.
    #[error("transport error: {0}")]
    Transport(#[source] TransportError),
    /// The request took longer than the client's timeout.
    #[error("request timed out: {0}")]
    Timeout(#[source] TransportError),
    /// The answer was not what the interface describes.
    #[error(transparent)]
    Decode(Box<DecodeError>),
    /// The answer was larger than the client accepts.
    #[error(transparent)]
    TooLarge(Box<TooLargeError>),
    /// The parameters broke an input rule; nothing was sent.
    #[error(transparent)]
    Validation(#[from] ValidationError),
    /// A request option is invalid; nothing was sent.
    #[error("invalid option `{option}`: {message}")]
    InvalidOption {
        /// The option at fault.
        option: &'static str,
        /// What is wrong.
        message: String,
    },
    /// Several options of one request are invalid, each named with what is wrong with it;
    /// nothing was sent. (One invalid option is [`Error::InvalidOption`].)
    #[error("{} invalid options; nothing was sent: {}", .0.len(), list(.0))]
    InvalidOptions(Vec<OptionProblem>),
    /// Items of a batch are invalid (broken input rules, or not params at all); nothing was
    /// sent. Every such item is listed with its position among the items given (from 0) and
    /// what is wrong with it, not only the first.
    #[error("{}", invalid_items(.0))]
    InvalidItems(Vec<(usize, Error)>),
    /// Some batches were submitted before one failed; their ids are kept so nothing is lost.
    #[error("{} batch(es) submitted, then: {source}", .submitted.len())]
    BatchPartiallySubmitted {
        /// Ids of the batches that were submitted.
        submitted: Vec<String>,
        /// Why the next one failed.
        source: Box<Error>,
    },
    /// The client is misconfigured: every problem [`ClientBuilder::build`](super::ClientBuilder::build)
    /// found (a missing or malformed key or base URL, a header, the rate limit), one after another.
    #[error("client configuration: {0}")]
    Config(String),
    /// The call's endpoint does not exist in the client's version of the interface (see
    /// [`ClientBuilder::api_version`](super::ClientBuilder::api_version)); nothing was sent.
    #[error(transparent)]
    Endpoint(#[from] crate::endpoint::PathError),
    /// An async task ended in state `error`.
    #[error("task {} failed: {}", .0.id, .0.error.as_deref().unwrap_or("no error message"))]
    TaskFailed(Box<super::records::TaskRecord>),
    /// An agent generation ended in status `failed`.
    #[error("generation {} failed: {}", .0.id, .0.error.as_deref().unwrap_or("no error message"))]
    GenerationFailed(Box<super::records::Generation>),
    /// A research run ended `failed` or `cancelled`, so it has no answer.
    #[error("{0}")]
    ResearchFailed(Box<super::research::run::RunFailure>),
    /// A research run's event stream ended before the run did and could not be resumed, or
    /// went silent (not even a keep-alive) for longer than allowed.
    #[error("the event stream of research run {run_id} {end}")]
    EventStream {
        /// The run.
        run_id: String,
        /// How the stream ended.
        end: super::research::run::StreamEnd,
    },
    /// A download read as it arrives ([`Client::artifact_chunks`](super::Client::artifact_chunks))
    /// went silent for longer than the client's timeout: it has no limit on its whole length,
    /// so silence is what ends it.
    #[error("{what} stalled: nothing came for {} s", .silence.as_secs())]
    Stalled {
        /// What was being read (`artifact … of run …`).
        what: String,
        /// How long nothing came.
        silence: std::time::Duration,
    },
    /// A result delivered to a bucket could not be read (feature `delivery`).
    #[cfg(feature = "delivery")]
    #[error(transparent)]
    Delivery(Box<DeliveryError>),
    /// A waiter gave up.
    #[error("gave up waiting for {what} after {waited:?} (last state: {last_state})")]
    WaitTimeout {
        /// What was waited for (`task …`, `generation …`).
        what: String,
        /// How long.
        waited: Duration,
        /// The last state seen.
        last_state: String,
    },
}

/// Why a delivered result could not be read.
#[cfg(feature = "delivery")]
#[derive(Debug, thiserror::Error)]
pub enum DeliveryError {
    /// The storage URL is not `s3://bucket/prefix/` or `gs://bucket/prefix/`.
    #[error(
        "invalid storage_url {0:?}: expected s3://<bucket>/<prefix>/ or gs://<bucket>/<prefix>/"
    )]
    Url(String),
    /// No object under any of the names tried.
    #[error("no delivered result: tried {}", .tried.join(", "))]
    NotFound {
        /// The object paths tried.
        tried: Vec<String>,
    },
    /// The store failed.
    #[error("object store: {0}")]
    Store(#[from] object_store::Error),
    /// The object is not the result type.
    #[error("cannot decode {object} at `{path}`: {message}")]
    Decode {
        /// The object.
        object: String,
        /// Where in the JSON.
        path: String,
        /// What is wrong.
        message: String,
    },
}

#[cfg(feature = "delivery")]
impl From<DeliveryError> for Error {
    fn from(e: DeliveryError) -> Self {
        Error::Delivery(Box::new(e))
    }
}

/// A request option at fault and what is wrong with it: one of [`Error::InvalidOptions`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{option}`: {message}")]
pub struct OptionProblem {
    /// The option at fault.
    pub option: &'static str,
    /// What is wrong.
    pub message: String,
}

impl OptionProblem {
    pub(crate) fn new(option: &'static str, message: impl Into<String>) -> OptionProblem {
        OptionProblem {
            option,
            message: message.into(),
        }
    }
}

impl From<OptionProblem> for Error {
    fn from(p: OptionProblem) -> Error {
        Error::InvalidOption {
            option: p.option,
            message: p.message,
        }
    }
}

/// The options of one request checked together, so that every invalid one is named at once:
/// none is `Ok`, one is [`Error::InvalidOption`], several [`Error::InvalidOptions`].
#[derive(Debug, Default)]
#[must_use = "the problems found reach the caller only through `finish`"]
pub(crate) struct OptionCheck(Vec<OptionProblem>);

impl OptionCheck {
    /// Records that `option` is invalid.
    pub(crate) fn bad(&mut self, option: &'static str, message: impl Into<String>) {
        self.0.push(OptionProblem::new(option, message));
    }

    /// Records the problem of a check of one option, or hands back what it made.
    pub(crate) fn take<T>(&mut self, checked: Result<T, OptionProblem>) -> Option<T> {
        checked.map_err(|p| self.0.push(p)).ok()
    }

    /// `Ok` when nothing was recorded, else every problem.
    pub(crate) fn finish(mut self) -> Result<(), Error> {
        match self.0.len() {
            0 => Ok(()),
            1 => Err(self.0.swap_remove(0).into()),
            _ => Err(Error::InvalidOptions(self.0)),
        }
    }
}

/// "`a`: x; `b`: y".
fn list(problems: &[OptionProblem]) -> String {
    problems
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("; ")
}

/// "3 batch item(s) are invalid; nothing was sent: item 4: …; item 9: …".
fn invalid_items(items: &[(usize, Error)]) -> String {
    let listed: Vec<String> = items
        .iter()
        .map(|(index, e)| format!("item {index}: {e}"))
        .collect();
    format!(
        "{} batch item(s) are invalid; nothing was sent: {}",
        items.len(),
        listed.join("; ")
    )
}

impl std::fmt::Debug for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{self}")?;
        if let Some(api) = self.api() {
            write!(f, "\n  status: {}", api.info.status)?;
            if let Some(code) = &api.code {
                write!(f, "\n  code: {code}")?;
            }
            if let Some(field) = &api.field {
                write!(f, "\n  field: {field}")?;
            }
            if let Some(id) = &api.info.task_id {
                write!(f, "\n  x-task-id: {id}")?;
            }
            if let Some(wait) = api.retry_after {
                write!(f, "\n  retry after: {}", seconds(wait))?;
            }
            if f.alternate() {
                write!(f, "\n  body: {}", api.body)?;
            }
        }
        if let Some(n) = self.attempts().filter(|n| *n > 1) {
            write!(f, "\n  attempts: {n}")?;
        }
        let mut source = std::error::Error::source(self);
        while let Some(cause) = source {
            write!(f, "\n  caused by: {cause}")?;
            source = cause.source();
        }
        Ok(())
    }
}

/// `Some($found)` for the variants that carry the service's answer (bound to `$a`), listed once for
/// [`Error::api`] and its `&mut` twin.
macro_rules! with_answer {
    ($error:expr, $a:ident => $found:expr) => {
        match $error {
            Error::BadRequest($a)
            | Error::Unauthorized($a)
            | Error::PaymentRequired($a)
            | Error::Forbidden($a)
            | Error::NotFound($a)
            | Error::Unprocessable($a)
            | Error::RateLimited($a)
            | Error::HeldBack($a)
            | Error::Internal($a)
            | Error::NotImplemented($a)
            | Error::ServiceTimeout($a)
            | Error::Status($a) => Some($found),
            _ => None,
        }
    };
}

impl Error {
    /// The error for an answer with a non-success status.
    pub fn from_status(api: ApiError) -> Error {
        let api = Box::new(api);
        match api.info.status {
            400 => Error::BadRequest(api),
            401 => Error::Unauthorized(api),
            402 => Error::PaymentRequired(api),
            403 => Error::Forbidden(api),
            404 => Error::NotFound(api),
            422 => Error::Unprocessable(api),
            429 => Error::RateLimited(api),
            500 => Error::Internal(api),
            501 => Error::NotImplemented(api),
            555 => Error::ServiceTimeout(api),
            _ => Error::Status(api),
        }
    }

    /// The service's answer, for errors that have one.
    pub fn api(&self) -> Option<&ApiError> {
        with_answer!(self, a => &**a)
    }

    pub(crate) fn api_mut(&mut self) -> Option<&mut ApiError> {
        with_answer!(self, a => &mut **a)
    }

    /// True when the service refused the call over the agent (template) it names: a 404, or a
    /// refusal at the request field naming the agent (`agent` or `template` of a run,
    /// `shared_inputs.template` of a batch, `agent_name` or `extract_template_name` of a job).
    /// Ask it of calls that name an agent: a 404 about anything else reads the same.
    pub fn refuses_agent_name(&self) -> bool {
        matches!(self, Error::NotFound(_))
            || self
                .api()
                .and_then(|a| a.field.as_deref())
                .is_some_and(|field| {
                    // `shared_inputs.template` of a batch names it as `template` of a run does.
                    let field = field.rsplit('.').next().unwrap_or(field);
                    crate::endpoint::ApiVersion::ALL.iter().any(|v| {
                        let words = v.words();
                        field == words.run_field || field == words.template_ref
                    })
                })
    }

    /// The call was sent and no answer of the service's came back: a transport failure or a
    /// timeout (sent or not: [`TransportError::never_sent`] tells), a gateway's 502, 503 or 504
    /// (what stands between the client and the service answers when the path fails), or 555,
    /// the service's own timeout.
    pub(crate) fn answer_lost(&self) -> bool {
        match self {
            Error::Transport(_) | Error::Timeout(_) | Error::ServiceTimeout(_) => true,
            Error::Status(a) => matches!(a.info.status, 502..=504),
            _ => false,
        }
    }

    /// Whether the call may have taken effect at the service although it failed: it was sent
    /// and its answer was lost ([`TransportError::never_sent`] rules out what never left), the
    /// service answered with success and the answer could not be read, or some of a batch's
    /// parts were submitted. Before running such a call again (a run is billed, a create makes
    /// a second one), look at what the service has. Every other error was refused by the service
    /// or found before sending.
    pub fn may_have_run(&self) -> bool {
        let success = |info: &ResponseInfo| (200..300).contains(&info.status);
        match self {
            Error::Transport(t) | Error::Timeout(t) => !t.never_sent(),
            Error::Decode(d) => success(&d.info),
            Error::TooLarge(t) => success(&t.info),
            Error::BatchPartiallySubmitted { .. } => true,
            other => other.answer_lost(),
        }
    }

    /// What kind of failure this is.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::BadRequest(_) | Error::NotFound(_) | Error::Unprocessable(_) => {
                ErrorKind::Rejected
            }
            Error::Unauthorized(_) | Error::PaymentRequired(_) | Error::Forbidden(_) => {
                ErrorKind::Account
            }
            Error::RateLimited(_) => ErrorKind::RateLimited,
            Error::HeldBack(_) => ErrorKind::HeldBack,
            Error::Internal(_)
            | Error::NotImplemented(_)
            | Error::ServiceTimeout(_)
            | Error::Status(_) => ErrorKind::Service,
            Error::Transport(_) | Error::Timeout(_) => ErrorKind::Transport,
            Error::Decode(_) | Error::TooLarge(_) => ErrorKind::Response,
            Error::Validation(_)
            | Error::InvalidOption { .. }
            | Error::InvalidOptions(_)
            | Error::InvalidItems(_) => ErrorKind::Invalid,
            Error::BatchPartiallySubmitted { .. } => ErrorKind::PartialBatch,
            Error::Config(_) | Error::Endpoint(_) => ErrorKind::Config,
            Error::TaskFailed(_)
            | Error::GenerationFailed(_)
            | Error::ResearchFailed(_)
            | Error::WaitTimeout { .. } => ErrorKind::Async,
            Error::EventStream { .. } | Error::Stalled { .. } => ErrorKind::Transport,
            #[cfg(feature = "delivery")]
            Error::Delivery(d) => match **d {
                DeliveryError::Url(_) => ErrorKind::Invalid,
                DeliveryError::NotFound { .. } => ErrorKind::Async,
                DeliveryError::Store(_) => ErrorKind::Transport,
                DeliveryError::Decode { .. } => ErrorKind::Response,
            },
        }
    }

    /// What the answer said besides its body, for errors that come from an answer.
    pub fn info(&self) -> Option<&ResponseInfo> {
        match self {
            Error::Decode(d) => Some(&d.info),
            Error::TooLarge(t) => Some(&t.info),
            other => other.api().map(|a| &a.info),
        }
    }

    /// How many times the client tried the call before giving up, for errors that come from
    /// sending it.
    pub fn attempts(&self) -> Option<u32> {
        match self {
            Error::Transport(t) | Error::Timeout(t) => Some(t.attempts),
            Error::BatchPartiallySubmitted { source, .. } => source.attempts(),
            other => other.info().map(|i| i.attempts),
        }
    }

    /// Records the attempt count on the parts of the error that carry it.
    pub(crate) fn set_attempts(&mut self, attempts: u32) {
        match self {
            Error::Transport(t) | Error::Timeout(t) => t.attempts = attempts,
            Error::Decode(d) => d.info.attempts = attempts,
            Error::TooLarge(t) => t.info.attempts = attempts,
            other => {
                if let Some(a) = other.api_mut() {
                    a.info.attempts = attempts;
                }
            }
        }
    }

    /// The HTTP status, for errors that come from an answer.
    pub fn status(&self) -> Option<u16> {
        self.info().map(|i| i.status)
    }

    /// How long the service asked to wait before retrying.
    pub fn retry_after(&self) -> Option<Duration> {
        self.api().and_then(|a| a.retry_after)
    }
}

impl From<reqwest::Error> for Error {
    fn from(e: reqwest::Error) -> Self {
        // The URL stays in the message: it never holds the key (that is a header).
        if e.is_timeout() {
            Error::Timeout(TransportError::new(e))
        } else {
            Error::Transport(TransportError::new(e))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_dates_are_read_against_the_clock_given() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000);
        let date = httpdate::fmt_http_date(now + Duration::from_secs(30));
        assert_eq!(
            parse_retry_after_at(&date, now),
            Some(Duration::from_secs(30))
        );
        let mut headers = HeaderMap::new();
        headers.insert("retry-after", date.parse().unwrap());
        let api = ApiError::from_parts_at(429, &headers, b"{}", now);
        assert_eq!(api.retry_after, Some(Duration::from_secs(30)));
    }

    #[test]
    fn a_call_may_have_run_when_its_answer_was_lost_or_a_success_was_unreadable() {
        let status =
            |code: u16| Error::from_status(ApiError::from_parts(code, &HeaderMap::new(), b"{}"));
        for (code, ran) in [
            (502, true),
            (503, true),
            (504, true),
            (555, true),
            (500, false),
            (404, false),
            (422, false),
            (429, false),
        ] {
            assert_eq!(status(code).may_have_run(), ran, "{code}");
        }
        let decode = |code: u16| {
            Error::Decode(Box::new(DecodeError {
                path: ".".into(),
                message: "EOF".into(),
                body: "{".into(),
                info: ResponseInfo::new(code, &HeaderMap::new()),
            }))
        };
        assert!(decode(200).may_have_run());
        assert!(!decode(400).may_have_run());
        let partial = Error::BatchPartiallySubmitted {
            submitted: vec!["b1".into()],
            source: Box::new(status(400)),
        };
        assert!(partial.may_have_run());
        assert!(!Error::Config("no key".into()).may_have_run());
    }

    #[test]
    fn a_422_listing_every_broken_field_names_the_first() {
        let body =
            br#"{"errors": [{"field": "params.asin", "message": "asin must be 10 characters"},
                                  {"field": "params.zip_code", "message": "too short"}]}"#;
        let api = ApiError::from_parts(422, &HeaderMap::new(), body);
        assert_eq!(api.field.as_deref(), Some("params.asin"));
        assert_eq!(api.message, "asin must be 10 characters");
        let e = Error::from_status(api);
        assert_eq!(e.kind(), ErrorKind::Rejected);
        assert!(e.to_string().contains("(field `params.asin`)"), "{e}");
    }

    #[test]
    fn debug_is_the_message_then_the_details_not_a_dump() {
        let mut headers = HeaderMap::new();
        headers.insert(
            "x-task-id",
            "t-123".parse().unwrap_or_else(|_| unreachable!()),
        );
        let body = br#"{"error": {"code": "INVALID", "message": "asin must be 10 characters",
                        "field": "params.asin"}}"#;
        let e = Error::from_status(ApiError::from_parts(422, &headers, body));
        let debug = format!("{e:?}");
        assert!(debug.starts_with(&e.to_string()), "{debug}");
        assert!(debug.contains("\n  field: params.asin"), "{debug}");
        assert!(debug.contains("\n  x-task-id: t-123"), "{debug}");
        assert!(
            !debug.contains("ApiError {") && !debug.contains("ResponseInfo"),
            "{debug}"
        );
        assert!(format!("{e:#?}").contains("body: {"), "{e:#?}");
    }
}
