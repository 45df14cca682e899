//! The async client of the service, speaking either version of its interface (`/v1` or `/v2`,
//! [`ClientBuilder::api_version`]): [`Client`], built by [`Client::builder`] or [`Client::from_env`].
//! Every endpoint goes through one send path: throttle, authenticate,
//! send, turn the status into an [`Error`] ([`error`]), classify and retry ([`retry`]), decode.

#[macro_use]
mod open;
#[cfg(feature = "records")]
pub mod agents;
pub mod batch;
mod body;
mod builder;
mod clock;
#[cfg(feature = "delivery")]
pub mod delivery;
pub mod error;
pub mod generation;
pub mod jobs;
mod listing;
pub mod media;
pub mod pages;
pub mod patch;
pub mod proxy;
pub mod publish;
mod records;
pub mod research;
pub mod retry;
pub mod run;
pub mod serp;
#[cfg(feature = "redis")]
mod shared;
mod sse;
pub mod tasks;
pub mod templates;
mod throttle;
mod waiter;
pub mod web;
pub mod webhook;

use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};

use reqwest::header::{AUTHORIZATION, HeaderMap, HeaderValue};
use reqwest::{Method, Url};
use serde::de::DeserializeOwned;
use tracing::Instrument;

use crate::endpoint::{self, ApiVersion, Endpoint};

pub use body::Document;
pub(crate) use body::{JsonBody, decode_body};
use body::{MAX_ERROR_BODY, read_answer};
pub use builder::{
    ClientBuilder, DEFAULT_MAX_RESPONSE_BYTES, ENV_API_KEY, ENV_API_VERSION, ENV_BASE_URL,
    ENV_REDIS_URL,
};
pub use clock::{Clock, ManualClock, Sleep, TokioClock};
pub use error::{
    ApiError, DecodeError, Error, ErrorKind, OptionProblem, RateLimit, ResponseInfo, TooLargeError,
    TransportError,
};
pub use retry::{Decision, Idempotency, RetryPolicy};
pub use throttle::{LimiterState, MAX_PAUSE};
pub use waiter::WaitOptions;

/// A client of the service. Cheap to clone: clones share the connection pool, the rate limiter
/// and the configuration.
#[derive(Clone)]
pub struct Client {
    inner: Arc<Inner>,
}

struct Inner {
    http: reqwest::Client,
    base: Url,
    version: ApiVersion,
    auth: HeaderValue,
    headers: HeaderMap,
    throttle: throttle::Throttle,
    retry: RetryPolicy,
    clock: Arc<dyn Clock>,
    timeout: Duration,
    max_response_bytes: u64,
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client")
            .field("base_url", &self.inner.base.as_str())
            .field("version", &self.inner.version)
            .field("api_key", &"[redacted]")
            .field("retry", &self.inner.retry)
            .finish_non_exhaustive()
    }
}

/// The time limit of an answer read as it arrives, whose reader watches for silence instead: a
/// year stands for "none" (reqwest has no way to lift a client's timeout for one request).
const NO_TIME_LIMIT: Duration = Duration::from_secs(365 * 24 * 3600);

/// Checks that `url` is an http(s) URL with a host: the one rule for every URL a request
/// carries (pages to extract, media, sample pages, callbacks). The error names `option`.
pub(crate) fn check_http_url(option: &'static str, url: &str) -> Result<(), OptionProblem> {
    let ok = Url::parse(url).is_ok_and(|u| {
        matches!(u.scheme(), "http" | "https") && u.host_str().is_some_and(|h| !h.is_empty())
    });
    if ok {
        Ok(())
    } else {
        Err(OptionProblem::new(
            option,
            format!("{url:?} is not an http(s) URL"),
        ))
    }
}

impl Client {
    /// The base URL (ending in `/`, without `/v1` or `/v2`).
    pub fn base_url(&self) -> &str {
        self.inner.base.as_str()
    }

    /// The version of the interface this client speaks.
    pub fn api_version(&self) -> ApiVersion {
        self.inner.version
    }

    /// Fails before sending unless the client speaks `version`: for calls whose answer has a
    /// different shape in the other version at the same path (agent records in `/v1`,
    /// template records in `/v2`). `instead` names what the client's own version offers.
    pub(crate) fn require(
        &self,
        version: ApiVersion,
        call: &endpoint::Endpoint,
        instead: &'static str,
    ) -> Result<(), Error> {
        self.require_for(call.client, version, call, instead)
    }

    /// [`Client::require`] for a method of this client (`method`) that is built on `call`.
    pub(crate) fn require_for(
        &self,
        method: &'static str,
        version: ApiVersion,
        call: &endpoint::Endpoint,
        instead: &'static str,
    ) -> Result<(), Error> {
        if self.inner.version == version {
            return Ok(());
        }
        Err(Error::Endpoint(endpoint::PathError::NotInVersion {
            call: method,
            endpoint: call.name,
            method: call.method,
            version: self.inner.version,
            elsewhere: Some(version),
            instead,
        }))
    }

    /// Which rate limit this client's requests are under now: its own, the fleet's shared
    /// through Redis (with the fleet's size), or, while Redis is out, its share of the limit.
    ///
    /// ```
    /// use agents_runtime::{Client, LimiterState};
    ///
    /// let client = Client::builder()
    ///     .base_url("http://127.0.0.1:8080")
    ///     .api_key("key")
    ///     .rate_limit(Some(10))
    ///     .build()?;
    /// assert_eq!(client.limiter(), LimiterState::Local { per_second: Some(10) });
    /// # Ok::<(), agents_runtime::Error>(())
    /// ```
    pub fn limiter(&self) -> LimiterState {
        self.inner.throttle.state()
    }

    /// Sends one call and decodes its answer: the single path every endpoint uses. The method
    /// and the path come from the endpoint's description in the client's version, with
    /// `segments` filling the path's placeholders in order.
    ///
    /// Only the decoding is generic: the request, its retries and the reading of the answer are
    /// one function compiled once, not once per answer type (and in the user's crate for the
    /// types generated there). A decode failure is never retried, so nothing moves out of the
    /// retry loop that it decided.
    pub(crate) async fn send<T: DeserializeOwned + Send>(
        &self,
        endpoint: &Endpoint,
        segments: &[&str],
        query: &[(&str, String)],
        body: Option<&JsonBody>,
    ) -> Result<(T, ResponseInfo), Error> {
        let (bytes, info) = self.send_bytes(endpoint, segments, query, body).await?;
        let value = decode_answer::<T>(&bytes, &info)?;
        Ok((value, info))
    }

    /// [`Client::send`] up to the answer's bytes. Boxed, so that the future of every call
    /// holds a pointer rather than the retry loop, the rate limit and reqwest's own futures:
    /// their layout is compiled, and described to the debugger, once here instead of in each
    /// caller, a user's program included.
    fn send_bytes<'a>(
        &'a self,
        endpoint: &'a Endpoint,
        segments: &'a [&'a str],
        query: &'a [(&'a str, String)],
        body: Option<&'a JsonBody>,
    ) -> futures_util::future::BoxFuture<'a, Result<(Vec<u8>, ResponseInfo), Error>> {
        Box::pin(self.send_bytes_inner(endpoint, segments, query, body))
    }

    /// What [`Client::send_bytes`] boxes.
    async fn send_bytes_inner(
        &self,
        endpoint: &Endpoint,
        segments: &[&str],
        query: &[(&str, String)],
        body: Option<&JsonBody>,
    ) -> Result<(Vec<u8>, ResponseInfo), Error> {
        let path = endpoint.url_path(self.inner.version, segments)?;
        let class = endpoint.idempotency;
        let method = match endpoint.method {
            endpoint::Method::Get => Method::GET,
            endpoint::Method::Post => Method::POST,
            endpoint::Method::Patch => Method::PATCH,
            endpoint::Method::Delete => Method::DELETE,
        };
        let url = self
            .inner
            .base
            .join(&path)
            .map_err(|e| Error::Config(format!("cannot form a URL for {path}: {e}")))?;
        self.retrying(&method, &url, class, |deadline| {
            self.attempt(method.clone(), url.clone(), query, body, deadline)
        })
        .await
    }

    /// Runs `attempt` (given the time past which it must not wait on the client's pause) until
    /// it succeeds or the retry policy says stop: the one retry loop, for calls and for opening
    /// event streams alike.
    async fn retrying<R, F, Fut>(
        &self,
        method: &Method,
        url: &Url,
        class: Idempotency,
        mut attempt_once: F,
    ) -> Result<(R, ResponseInfo), Error>
    where
        F: FnMut(Instant) -> Fut,
        Fut: std::future::Future<Output = Result<(R, ResponseInfo), Error>>,
    {
        let policy = &self.inner.retry;
        let mut schedule = policy.schedule();
        let clock = &*self.inner.clock;
        let start = clock.now();
        // A call never waits on the client's pause past this (see `throttle`).
        let deadline = start + policy.max_elapsed.min(self.inner.timeout);
        let mut attempt = 1u32;
        loop {
            let span = tracing::info_span!(
                "agents_request",
                method = %method,
                path = %url.path(),
                attempt,
                status = tracing::field::Empty,
                task_id = tracing::field::Empty,
            );
            let result = attempt_once(deadline).instrument(span.clone()).await;
            let mut err = match result {
                Ok(mut ok) => {
                    ok.1.attempts = attempt;
                    span.record("status", ok.1.status);
                    if let Some(id) = &ok.1.task_id {
                        span.record("task_id", id.as_str());
                    }
                    return Ok(ok);
                }
                Err(e) => e,
            };
            err.set_attempts(attempt);
            if let Some(status) = err.status() {
                span.record("status", status);
            }
            if let Some(api) = err.api() {
                if let Some(id) = &api.info.task_id {
                    span.record("task_id", id.as_str());
                }
                if api.info.status == 429
                    && let Some(wait) = api.retry_after
                {
                    self.inner.throttle.pause_for(api, wait);
                }
            }
            let hint = match policy.classify(&err, class) {
                Decision::Stop => return Err(err),
                Decision::Retry(hint) => hint,
            };
            let Some(backoff) = schedule.next() else {
                return Err(err);
            };
            let delay = hint.map_or(backoff, |h| h.max(backoff.min(h + policy.min_delay)));
            if clock.now().saturating_duration_since(start) + delay > policy.max_elapsed {
                return Err(err);
            }
            // A 429 is expected under load and the throttle already warns about it (once a
            // second at most); other retries are worth a warning each.
            if err.status() == Some(429) {
                tracing::debug!(parent: &span, error = %err, ?delay, "retrying");
            } else {
                tracing::warn!(parent: &span, error = %err, ?delay, "retrying");
            }
            clock.sleep(delay).await;
            attempt += 1;
        }
    }

    async fn attempt(
        &self,
        method: Method,
        url: Url,
        query: &[(&str, String)],
        body: Option<&JsonBody>,
        deadline: Instant,
    ) -> Result<(Vec<u8>, ResponseInfo), Error> {
        let (mut resp, info) = self
            .open(self.request(method, url, query, body), deadline)
            .await?;
        let bytes = self.read_whole(&mut resp, &info).await?;
        Ok((bytes, info))
    }

    /// A request to the API: the client's headers and key, the query and the JSON body.
    fn request(
        &self,
        method: Method,
        url: Url,
        query: &[(&str, String)],
        body: Option<&JsonBody>,
    ) -> reqwest::RequestBuilder {
        let mut url = url;
        if !query.is_empty() {
            // Form encoding, as reqwest's `query` writes it, without its serde_urlencoded.
            url.query_pairs_mut()
                .extend_pairs(query.iter().map(|(k, v)| (k, v.as_str())));
        }
        let mut req = self
            .inner
            .http
            .request(method, url)
            .headers(self.inner.headers.clone())
            .header(AUTHORIZATION, self.inner.auth.clone());
        if let Some(b) = body {
            req = req
                .header(reqwest::header::CONTENT_TYPE, "application/json")
                .body(b.0.clone());
        }
        req
    }

    /// Sends a request once a permit of the rate limit allows it, and reads its status and
    /// headers (the body is left to the caller).
    async fn open(
        &self,
        req: reqwest::RequestBuilder,
        deadline: Instant,
    ) -> Result<(reqwest::Response, ResponseInfo), Error> {
        self.inner
            .throttle
            .acquire(deadline)
            .await
            .map_err(Error::HeldBack)?;
        let resp = req.send().await?;
        let info = ResponseInfo::new(resp.status().as_u16(), resp.headers());
        self.inner.throttle.observe(&info.rate_limit);
        Ok((resp, info))
    }

    /// Opens a streamed answer of a reading endpoint (server-sent events): one attempt, through
    /// the rate limit, with `headers` added and no time limit on the whole answer (the caller
    /// watches for silence instead). A non-2xx answer is its [`Error`].
    pub(crate) async fn open_stream(
        &self,
        endpoint: &Endpoint,
        segments: &[&str],
        headers: HeaderMap,
    ) -> Result<reqwest::Response, Error> {
        let path = endpoint.url_path(self.inner.version, segments)?;
        let url = self
            .inner
            .base
            .join(&path)
            .map_err(|e| Error::Config(format!("cannot form a URL for {path}: {e}")))?;
        let (resp, _) = self
            .retrying(&Method::GET, &url, endpoint.idempotency, |deadline| {
                // Past the client's timeout, which bounds whole answers and would cut a long
                // run's stream.
                let req = self
                    .request(Method::GET, url.clone(), &[], None)
                    .headers(headers.clone())
                    .timeout(NO_TIME_LIMIT);
                async move {
                    let (mut resp, info) = self.open(req, deadline).await?;
                    if !(200..300).contains(&info.status) {
                        read_answer(&mut resp, &info, MAX_ERROR_BODY, self.inner.clock.wall())
                            .await?;
                    }
                    Ok((resp, info))
                }
            })
            .await?;
        Ok(resp)
    }

    /// An answer's body, at most `max_response_bytes`; a non-2xx answer is its error, with
    /// dates in it read on the client's clock.
    async fn read_whole(
        &self,
        resp: &mut reqwest::Response,
        info: &ResponseInfo,
    ) -> Result<Vec<u8>, Error> {
        read_answer(
            resp,
            info,
            self.inner.max_response_bytes,
            self.inner.clock.wall(),
        )
        .await
    }

    /// How long a body read as it arrives may stay silent: the client's timeout, which bounds a
    /// whole answer read at once.
    pub(crate) fn stall_limit(&self) -> Duration {
        self.inner.timeout
    }

    /// The clock the client waits on ([`ClientBuilder::clock`]).
    pub(crate) fn clock(&self) -> Arc<dyn Clock> {
        self.inner.clock.clone()
    }

    /// Most bytes the client accepts in one answer ([`ClientBuilder::max_response_bytes`]).
    pub(crate) fn max_response_bytes(&self) -> u64 {
        self.inner.max_response_bytes
    }

    /// Downloads `url` outside the API (a signed storage URL: no API key is sent, no rate
    /// limit applies), up to `max_response_bytes`; a non-2xx answer is an [`Error`] as the
    /// API's would be.
    pub(crate) async fn download(&self, url: &str) -> Result<Download, Error> {
        let (mut resp, content_type, info) = self.download_started(url, false).await?;
        let bytes = self.read_whole(&mut resp, &info).await?;
        Ok(Download {
            bytes: bytes.into(),
            content_type,
            info,
        })
    }

    /// A download's answer before its body is read, with its type and info; a non-2xx answer
    /// is the error (its body read within the error body's own limit), so the body left to
    /// read is the download's. An `open_ended` one has no time limit on the whole answer
    /// (its reader watches for silence, [`Client::stall_limit`]).
    pub(crate) async fn download_started(
        &self,
        url: &str,
        open_ended: bool,
    ) -> Result<(reqwest::Response, Option<String>, ResponseInfo), Error> {
        let parsed = Url::parse(url)
            .map_err(|e| Error::Config(format!("the download URL {url:?} does not parse: {e}")))?;
        let mut req = self.inner.http.get(parsed);
        if open_ended {
            req = req.timeout(NO_TIME_LIMIT);
        }
        let mut resp = req.send().await?;
        let info = ResponseInfo::new(resp.status().as_u16(), resp.headers());
        if !(200..300).contains(&info.status) {
            // `read_whole` makes the error of a refused answer; it never reads one as bytes.
            self.read_whole(&mut resp, &info).await?;
        }
        let content_type = resp
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        Ok((resp, content_type, info))
    }

    /// Sends `body` (serialized once; a failure names `what`) to an endpoint that changes
    /// something, never retried after an ambiguous failure, and decodes the answer.
    pub(crate) async fn post<T: DeserializeOwned + Send>(
        &self,
        endpoint: &Endpoint,
        segments: &[&str],
        body: &impl serde::Serialize,
        what: &'static str,
    ) -> Result<(T, ResponseInfo), Error> {
        let body = JsonBody::new(body, what)?;
        self.send(endpoint, segments, &[], Some(&body)).await
    }

    /// Calls a reading endpoint (safe to retry) and decodes the answer.
    pub(crate) async fn get<T: DeserializeOwned + Send>(
        &self,
        endpoint: &Endpoint,
        segments: &[&str],
        query: &[(&str, String)],
    ) -> Result<(T, ResponseInfo), Error> {
        self.send(endpoint, segments, query, None).await
    }
}

/// What a download URL answered.
pub(crate) struct Download {
    pub(crate) bytes: bytes::Bytes,
    pub(crate) content_type: Option<String>,
    pub(crate) info: ResponseInfo,
}

/// An answer's bytes as `T`. An empty answer (204 No Content) reads as JSON `null`: `()` for
/// calls that answer nothing, and an error naming the answer for calls that expected a value.
fn decode_answer<T: DeserializeOwned + Send>(
    bytes: &[u8],
    info: &ResponseInfo,
) -> Result<T, Error> {
    let empty = bytes.iter().all(u8::is_ascii_whitespace);
    decode_body::<T>(if empty { b"null" } else { bytes }).map_err(|(path, message)| {
        Error::Decode(Box::new(DecodeError {
            path,
            message,
            body: String::from_utf8_lossy(bytes).into_owned(),
            info: info.clone(),
        }))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_configuration_is_named() {
        let e = Client::builder().api_key("k").build().unwrap_err();
        assert!(e.to_string().contains(ENV_BASE_URL), "{e}");
        let e = Client::builder()
            .base_url("http://127.0.0.1:1")
            .build()
            .unwrap_err();
        assert!(e.to_string().contains(ENV_API_KEY), "{e}");
    }

    #[test]
    fn decode_errors_name_the_json_path_and_trailing_data_is_refused() {
        #[derive(Debug, serde::Deserialize)]
        struct Outer {
            #[allow(dead_code)]
            inner: Vec<Inner>,
        }
        #[derive(Debug, serde::Deserialize)]
        struct Inner {
            #[allow(dead_code)]
            n: u32,
        }
        assert!(decode_body::<Outer>(br#"{"inner":[{"n":1}]}"#).is_ok());
        let (path, message) =
            decode_body::<Outer>(br#"{"inner":[{"n":1},{"n":"x"}]}"#).unwrap_err();
        assert_eq!(path, "inner[1].n");
        assert!(message.contains("invalid type"), "{message}");
        let (path, _) = decode_body::<Outer>(br#"{"inner":[]} x"#).unwrap_err();
        assert_eq!(path, ".");
    }

    #[test]
    fn bodies_are_utf8_checked_once_and_bad_bytes_are_located() {
        // Text with escapes and non-ASCII decodes the same as through serde_json::from_slice.
        let body = "{\"s\":\"café \\u00e9 \\\"q\\\" \\ud83d\\ude00\"}".as_bytes();
        let got: serde_json::Value = decode_body(body).unwrap();
        assert_eq!(
            got,
            serde_json::from_slice::<serde_json::Value>(body).unwrap()
        );
        assert_eq!(got["s"], "café é \"q\" 😀");
        // Invalid UTF-8 inside a string: the error comes from the path-tracking decoder and
        // names the field and the position.
        let (path, message) = decode_body::<std::collections::BTreeMap<String, String>>(
            b"{\"a\":\"ok\",\"b\":\"\xff\"}",
        )
        .unwrap_err();
        assert_eq!(path, "b");
        assert!(
            message.contains("invalid unicode code point at line 1 column 16"),
            "{message}"
        );
    }

    #[test]
    fn the_key_never_shows_in_debug() {
        let c = Client::builder()
            .base_url("http://127.0.0.1:1")
            .api_key("sk-very-secret")
            .build()
            .unwrap();
        assert!(!format!("{c:?}").contains("sk-very-secret"));
        let b = Client::builder().api_key("sk-very-secret");
        assert!(!format!("{b:?}").contains("sk-very-secret"));
    }
}
