//! The async client of the service, speaking either version of its interface (`/v1` or `/v2`,
//! [`ClientBuilder::api_version`]): [`Client`], built by [`Client::builder`] or [`Client::from_env`].
//! Every endpoint goes through one send path: throttle, authenticate,
//! send, turn the status into an [`Error`] ([`error`]), classify and retry ([`retry`]), decode.

#[macro_use]
mod open;
pub mod agents;
pub mod batch;
mod clock;
#[cfg(feature = "delivery")]
pub mod delivery;
pub mod error;
pub mod generation;
pub mod jobs;
mod listing;
pub mod media;
pub mod pages;
pub mod proxy;
mod records;
pub mod research;
mod research_run;
pub mod retry;
pub mod run;
pub mod serp;
#[cfg(feature = "redis")]
mod shared;
pub mod tasks;
pub mod templates;
mod throttle;
mod waiter;
pub mod web;
pub mod webhook;

use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};

use reqwest::header::{AUTHORIZATION, HeaderMap, HeaderName, HeaderValue};
use reqwest::{Method, Url};
use secrecy::{ExposeSecret, SecretString};
use serde::de::DeserializeOwned;
use tracing::Instrument;

use crate::endpoint::{self, ApiVersion, Endpoint};

pub use clock::{Clock, ManualClock, Sleep, TokioClock};
pub use error::{
    ApiError, DecodeError, Error, ErrorKind, RateLimit, ResponseInfo, TooLargeError, TransportError,
};
pub use retry::{Decision, Idempotency, RetryPolicy};
pub use throttle::{LimiterState, MAX_PAUSE};
pub use waiter::WaitOptions;

/// Environment variable holding the API key.
pub const ENV_API_KEY: &str = "AGENTS_API_KEY";
/// Environment variable holding the base URL (without `/v1` or `/v2`).
pub const ENV_BASE_URL: &str = "AGENTS_BASE_URL";
/// Environment variable choosing the interface's version: `v1` (the default) or `v2`.
pub const ENV_API_VERSION: &str = "AGENTS_API_VERSION";
/// Environment variable holding the Redis URL of a rate limit shared by every process on the key
/// (feature `redis`).
pub const ENV_REDIS_URL: &str = "AGENTS_REDIS_URL";

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

/// Default for [`ClientBuilder::max_response_bytes`].
pub const DEFAULT_MAX_RESPONSE_BYTES: u64 = 64 * 1024 * 1024;

/// Most bytes of an error answer's body the client reads; the rest is dropped.
const MAX_ERROR_BODY: u64 = 64 * 1024;

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

/// Configures a [`Client`].
pub struct ClientBuilder {
    base_url: Option<String>,
    version: Option<ApiVersion>,
    api_key: Option<SecretString>,
    connect_timeout: Duration,
    timeout: Duration,
    retry: RetryPolicy,
    rate_limit: Option<u32>,
    burst: u32,
    user_agent: String,
    http: Option<reqwest::Client>,
    headers: Vec<(String, String)>,
    max_response_bytes: u64,
    shared_limit: Option<String>,
    clock: Arc<dyn Clock>,
}

impl fmt::Debug for ClientBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClientBuilder")
            .field("base_url", &self.base_url)
            .field("version", &self.version)
            .field("api_key", &self.api_key.as_ref().map(|_| "[redacted]"))
            .field("rate_limit", &self.rate_limit)
            .finish_non_exhaustive()
    }
}

impl Default for ClientBuilder {
    fn default() -> Self {
        ClientBuilder {
            base_url: None,
            version: None,
            api_key: None,
            connect_timeout: Duration::from_secs(10),
            timeout: Duration::from_secs(180),
            retry: RetryPolicy::default(),
            rate_limit: Some(83),
            burst: 4,
            user_agent: concat!("agents-rs/", env!("CARGO_PKG_VERSION")).to_owned(),
            http: None,
            headers: Vec::new(),
            max_response_bytes: DEFAULT_MAX_RESPONSE_BYTES,
            shared_limit: None,
            clock: Arc::new(TokioClock),
        }
    }
}

impl ClientBuilder {
    /// The service's base URL, such as `https://api.example.com`. A trailing `/v1` or `/v2` is
    /// accepted and chooses that version unless [`ClientBuilder::api_version`] chose one.
    pub fn base_url(mut self, url: impl Into<String>) -> Self {
        self.base_url = Some(url.into());
        self
    }

    /// Which version of the interface the client speaks (default [`ApiVersion::V1`];
    /// `AGENTS_API_VERSION` in [`ClientBuilder::from_env`]). Runs, async runs, batches,
    /// pages, tasks, extract, search, map, crawl, the catalog and versions are the same
    /// calls in both; a call to an endpoint the version lacks fails before sending with
    /// [`Error::Endpoint`], naming the version that has it.
    ///
    /// ```
    /// use agents_runtime::{Client, ApiVersion};
    ///
    /// let client = Client::builder()
    ///     .base_url("https://api.example.com")
    ///     .api_key("sk-...")
    ///     .api_version(ApiVersion::V2)
    ///     .build()?;
    /// assert_eq!(client.api_version(), ApiVersion::V2);
    /// # Ok::<(), agents_runtime::Error>(())
    /// ```
    pub fn api_version(mut self, version: ApiVersion) -> Self {
        self.version = Some(version);
        self
    }

    /// The API key.
    pub fn api_key(mut self, key: impl Into<String>) -> Self {
        self.api_key = Some(SecretString::from(key.into()));
        self
    }

    /// Time allowed to connect (default 10 s).
    pub fn connect_timeout(mut self, t: Duration) -> Self {
        self.connect_timeout = t;
        self
    }

    /// Time allowed for a whole request (default 180 s; agent runs can be slow). A call also
    /// fails at once, rather than wait longer than this, when the service's 429 has paused the
    /// client for longer (a pause is capped at [`MAX_PAUSE`]).
    pub fn timeout(mut self, t: Duration) -> Self {
        self.timeout = t;
        self
    }

    /// Shares the rate limit with every process on the same API key through the Redis at `url`
    /// (`redis://127.0.0.1:6379/`; feature `redis`): one GCRA state advanced atomically in Redis
    /// (one round trip per permit), 429 hints pausing the whole fleet, and this process's own
    /// limiter standing in while Redis is unreachable or slow (a warning is logged once per
    /// outage). Redis sees a hash of the key, never the key. `Client::from_env` reads
    /// `AGENTS_REDIS_URL`.
    ///
    /// ```no_run
    /// # fn demo() -> Result<(), agents_runtime::Error> {
    /// let client = agents_runtime::Client::builder()
    ///     .base_url("https://api.example.com")
    ///     .api_key("sk-...")
    ///     .shared_limit("redis://10.0.0.5:6379/")
    ///     .build()?;
    /// # let _ = client; Ok(()) }
    /// ```
    pub fn shared_limit(mut self, url: impl Into<String>) -> Self {
        self.shared_limit = Some(url.into());
        self
    }

    /// Largest answer body the client reads (default 64 MiB, [`DEFAULT_MAX_RESPONSE_BYTES`]). A
    /// larger answer fails with [`Error::TooLarge`], saying the size and the limit, without
    /// buffering it.
    pub fn max_response_bytes(mut self, limit: u64) -> Self {
        self.max_response_bytes = limit;
        self
    }

    /// How failed requests are retried.
    pub fn retry_policy(mut self, policy: RetryPolicy) -> Self {
        self.retry = policy;
        self
    }

    /// Client-side requests per second (default 83, the service's limit per key); `None`
    /// removes the client-side limit.
    pub fn rate_limit(mut self, per_second: Option<u32>) -> Self {
        self.rate_limit = per_second;
        self
    }

    /// Requests sent at once above the steady rate (default 4: enough to absorb timer lateness
    /// so the steady rate is reached, well within the service's own burst allowance).
    pub fn burst(mut self, burst: u32) -> Self {
        self.burst = burst;
        self
    }

    /// The `User-Agent` header.
    pub fn user_agent(mut self, ua: impl Into<String>) -> Self {
        self.user_agent = ua.into();
        self
    }

    /// A reqwest client of your own (its timeouts and user agent then apply).
    pub fn http_client(mut self, client: reqwest::Client) -> Self {
        self.http = Some(client);
        self
    }

    /// A header sent with every request.
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// A builder with what the environment sets: `AGENTS_BASE_URL`, `AGENTS_API_KEY`,
    /// `AGENTS_API_VERSION` (`v1` or `v2`) and `AGENTS_REDIS_URL` (a shared rate limit,
    /// feature `redis`); the rest can still be set before `build` (tools set their own options
    /// over the environment this way).
    pub fn from_env() -> Result<ClientBuilder, Error> {
        let mut b = Client::builder();
        match std::env::var(ENV_BASE_URL) {
            Ok(v) => b = b.base_url(v),
            Err(std::env::VarError::NotUnicode(_)) => {
                return Err(Error::Config(format!("{ENV_BASE_URL} is not valid UTF-8")));
            }
            Err(_) => {}
        }
        match std::env::var(ENV_API_KEY) {
            Ok(v) => b = b.api_key(v),
            Err(std::env::VarError::NotUnicode(_)) => {
                return Err(Error::Config(format!("{ENV_API_KEY} is not valid UTF-8")));
            }
            Err(_) => {}
        }
        match std::env::var(ENV_API_VERSION) {
            Ok(v) if !v.trim().is_empty() => {
                let g = v
                    .parse::<ApiVersion>()
                    .map_err(|e| Error::Config(format!("{ENV_API_VERSION}: {e}")))?;
                b = b.api_version(g);
            }
            Err(std::env::VarError::NotUnicode(_)) => {
                return Err(Error::Config(format!(
                    "{ENV_API_VERSION} is not valid UTF-8"
                )));
            }
            _ => {}
        }
        match std::env::var(ENV_REDIS_URL) {
            Ok(v) if !v.trim().is_empty() => b = b.shared_limit(v),
            Err(std::env::VarError::NotUnicode(_)) => {
                return Err(Error::Config(format!("{ENV_REDIS_URL} is not valid UTF-8")));
            }
            _ => {}
        }
        Ok(b)
    }

    /// The clock the client reads the time from and sleeps on between retries, through a pause
    /// after a 429 and between polls (default [`TokioClock`]). A [`ManualClock`] makes those
    /// waits instant and records them, for tests.
    ///
    /// ```
    /// use agents_runtime::{Client, ManualClock};
    ///
    /// let clock = ManualClock::new();
    /// let client = Client::builder()
    ///     .base_url("http://127.0.0.1:8080")
    ///     .api_key("test-key")
    ///     .clock(clock.clone())
    ///     .build()?;
    /// // ... calls that retry or wait ...
    /// assert!(clock.sleeps().is_empty());
    /// # Ok::<(), agents_runtime::Error>(())
    /// ```
    pub fn clock(mut self, clock: impl Clock) -> Self {
        self.clock = Arc::new(clock);
        self
    }

    /// Builds the client; fails when the key or base URL is missing or malformed.
    pub fn build(self) -> Result<Client, Error> {
        let base = self.base_url.ok_or_else(|| {
            Error::Config(format!(
                "no base URL: call ClientBuilder::base_url or set {ENV_BASE_URL}"
            ))
        })?;
        let (base, suffix) = normalize_base(&base)?;
        let version = match (self.version, suffix) {
            (Some(chosen), Some(given)) if chosen != given => {
                return Err(Error::Config(format!(
                    "the base URL ends in /{given} but the client was set to version \
                     {chosen}: drop the suffix or choose one version"
                )));
            }
            (Some(g), _) | (None, Some(g)) => g,
            (None, None) => ApiVersion::default(),
        };
        let key = self.api_key.ok_or_else(|| {
            Error::Config(format!(
                "no API key: call ClientBuilder::api_key or set {ENV_API_KEY}"
            ))
        })?;
        let secret = key.expose_secret();
        if secret.trim().is_empty() {
            return Err(Error::Config("the API key is empty".into()));
        }
        let mut auth =
            HeaderValue::from_str(&format!("Bearer {}", secret.trim())).map_err(|_| {
                Error::Config("the API key contains characters not allowed in a header".into())
            })?;
        auth.set_sensitive(true);
        let mut headers = HeaderMap::new();
        for (name, value) in self.headers {
            let n = HeaderName::from_bytes(name.as_bytes())
                .map_err(|_| Error::Config(format!("invalid header name {name:?}")))?;
            let v = HeaderValue::from_str(&value)
                .map_err(|_| Error::Config(format!("invalid value for header {name}")))?;
            headers.insert(n, v);
        }
        let http = match self.http {
            Some(h) => h,
            None => reqwest::Client::builder()
                .connect_timeout(self.connect_timeout)
                .timeout(self.timeout)
                .user_agent(self.user_agent)
                .build()
                .map_err(|e| Error::Config(format!("cannot build the HTTP client: {e}")))?,
        };
        let throttle = throttle::Throttle::new(self.rate_limit, self.burst, self.clock.clone());
        let throttle = match (&self.shared_limit, self.rate_limit) {
            (None, _) => throttle,
            (Some(_), None) => {
                return Err(Error::Config(
                    "a shared rate limit needs a rate: do not combine shared_limit with \
                     rate_limit(None)"
                        .into(),
                ));
            }
            #[cfg(feature = "redis")]
            (Some(url), Some(rate)) => throttle.shared(
                shared::Shared::new(url, secret.trim(), rate, self.burst)
                    .map_err(|e| Error::Config(format!("{ENV_REDIS_URL}/shared_limit: {e}")))?,
            ),
            #[cfg(not(feature = "redis"))]
            (Some(_), Some(_)) => {
                return Err(Error::Config(
                    "a shared rate limit needs agents-runtime's `redis` feature".into(),
                ));
            }
        };
        Ok(Client {
            inner: Arc::new(Inner {
                http,
                base,
                version,
                auth,
                headers,
                throttle,
                retry: self.retry,
                clock: self.clock,
                timeout: self.timeout,
                max_response_bytes: self.max_response_bytes,
            }),
        })
    }
}

/// Parses a base URL: http or https, no query; trailing slashes and a trailing `/v1` or `/v2`
/// are dropped (the version it names is returned).
fn normalize_base(text: &str) -> Result<(Url, Option<ApiVersion>), Error> {
    let bad = |why: &str| Error::Config(format!("invalid base URL {text:?}: {why}"));
    let mut url = Url::parse(text.trim()).map_err(|e| bad(&e.to_string()))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(bad("the scheme must be http or https"));
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err(bad("no host"));
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err(bad("a base URL has no query or fragment"));
    }
    let path = url.path().trim_end_matches('/').to_owned();
    let mut version = None;
    let mut kept = path.as_str();
    for g in ApiVersion::ALL {
        if let Some(rest) = path.strip_suffix(&format!("/{g}")) {
            version = Some(g);
            kept = rest;
        }
    }
    url.set_path(&format!("{kept}/"));
    Ok((url, version))
}

/// Checks that `url` is an http(s) URL with a host: the one rule for every URL a request
/// carries (pages to extract, media, sample pages, callbacks). The error names `option`.
pub(crate) fn check_http_url(option: &'static str, url: &str) -> Result<(), Error> {
    let ok = Url::parse(url).is_ok_and(|u| {
        matches!(u.scheme(), "http" | "https") && u.host_str().is_some_and(|h| !h.is_empty())
    });
    if ok {
        Ok(())
    } else {
        Err(Error::InvalidOption {
            option,
            message: format!("{url:?} is not an http(s) URL"),
        })
    }
}

/// A request body serialized once: every attempt of a call sends the same bytes.
#[derive(Debug, Clone)]
pub(crate) struct JsonBody(bytes::Bytes);

impl JsonBody {
    /// Serializes `body`; a failure (a map with non-string keys in raw params, say) is an
    /// [`Error::InvalidOption`] naming `what`.
    pub(crate) fn new(body: &impl serde::Serialize, what: &'static str) -> Result<Self, Error> {
        serde_json::to_vec(body)
            .map(|v| JsonBody(v.into()))
            .map_err(|e| Error::InvalidOption {
                option: what,
                message: e.to_string(),
            })
    }
}

impl Client {
    /// A builder.
    pub fn builder() -> ClientBuilder {
        ClientBuilder::default()
    }

    /// A client from `AGENTS_API_KEY` and `AGENTS_BASE_URL` (and `AGENTS_REDIS_URL` for a shared
    /// rate limit, feature `redis`).
    pub fn from_env() -> Result<Client, Error> {
        ClientBuilder::from_env()?.build()
    }

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
    /// template records in `/v2`). `hint` says what to use instead.
    pub(crate) fn require(
        &self,
        version: ApiVersion,
        call: &'static str,
        hint: &'static str,
    ) -> Result<(), Error> {
        if self.inner.version == version {
            return Ok(());
        }
        Err(Error::Endpoint(endpoint::PathError::NotInVersion {
            endpoint: call,
            method: endpoint::Method::Get,
            version: self.inner.version,
            hint,
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
    pub(crate) async fn send<T: DeserializeOwned>(
        &self,
        endpoint: &Endpoint,
        segments: &[&str],
        query: &[(&str, String)],
        body: Option<&JsonBody>,
        class: Idempotency,
    ) -> Result<(T, ResponseInfo), Error> {
        let path = endpoint.url_path(self.inner.version, segments)?;
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
            let result = self
                .attempt::<T>(method.clone(), url.clone(), query, body, deadline)
                .instrument(span.clone())
                .await;
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

    async fn attempt<T: DeserializeOwned>(
        &self,
        method: Method,
        url: Url,
        query: &[(&str, String)],
        body: Option<&JsonBody>,
        deadline: Instant,
    ) -> Result<(T, ResponseInfo), Error> {
        let (mut resp, info) = self
            .open(self.request(method, url, query, body), deadline)
            .await?;
        let bytes = read_answer(&mut resp, &info, self.inner.max_response_bytes).await?;
        // An empty answer (204 No Content) reads as JSON `null`: `()` for calls that answer
        // nothing, and an error naming the answer for calls that expected a value.
        let empty = bytes.iter().all(u8::is_ascii_whitespace);
        let value =
            decode_body::<T>(if empty { b"null" } else { &bytes }).map_err(|(path, message)| {
                Error::Decode(Box::new(DecodeError {
                    path,
                    message,
                    body: String::from_utf8_lossy(&bytes).into_owned(),
                    info: info.clone(),
                }))
            })?;
        Ok((value, info))
    }

    /// A request to the API: the client's headers and key, the query and the JSON body.
    fn request(
        &self,
        method: Method,
        url: Url,
        query: &[(&str, String)],
        body: Option<&JsonBody>,
    ) -> reqwest::RequestBuilder {
        let mut req = self
            .inner
            .http
            .request(method, url)
            .headers(self.inner.headers.clone())
            .header(AUTHORIZATION, self.inner.auth.clone());
        if !query.is_empty() {
            req = req.query(query);
        }
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
        // Past the client's timeout, which bounds whole answers and would cut a long run's
        // stream; a year stands for "none" (reqwest has no way to lift a client's timeout).
        let req = self
            .request(Method::GET, url, &[], None)
            .headers(headers)
            .timeout(Duration::from_secs(365 * 24 * 3600));
        let deadline = self.inner.clock.now() + self.inner.timeout;
        let (mut resp, info) = self.open(req, deadline).await?;
        if !(200..300).contains(&info.status) {
            read_answer(&mut resp, &info, MAX_ERROR_BODY).await?;
        }
        Ok(resp)
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
    pub(crate) async fn download(&self, url: &str) -> Result<bytes::Bytes, Error> {
        let parsed = Url::parse(url)
            .map_err(|e| Error::Config(format!("the download URL {url:?} does not parse: {e}")))?;
        let mut resp = self.inner.http.get(parsed).send().await?;
        let info = ResponseInfo::new(resp.status().as_u16(), resp.headers());
        let bytes = read_answer(&mut resp, &info, self.inner.max_response_bytes).await?;
        Ok(bytes.into())
    }

    /// Sends `body` (serialized once; a failure names `what`) to an endpoint that changes
    /// something, never retried after an ambiguous failure, and decodes the answer.
    pub(crate) async fn post<T: DeserializeOwned>(
        &self,
        endpoint: &Endpoint,
        segments: &[&str],
        body: &impl serde::Serialize,
        what: &'static str,
    ) -> Result<(T, ResponseInfo), Error> {
        let body = JsonBody::new(body, what)?;
        self.send(endpoint, segments, &[], Some(&body), Idempotency::Unsafe)
            .await
    }

    /// Calls a reading endpoint (safe to retry) and decodes the answer.
    pub(crate) async fn get<T: DeserializeOwned>(
        &self,
        endpoint: &Endpoint,
        segments: &[&str],
        query: &[(&str, String)],
    ) -> Result<(T, ResponseInfo), Error> {
        self.send(endpoint, segments, query, None, Idempotency::Safe)
            .await
    }
}

/// Reads an answer: a non-2xx status becomes its [`Error`] (the body read up to 64 KiB), a 2xx
/// body larger than `limit` is [`Error::TooLarge`] without being buffered.
async fn read_answer(
    resp: &mut reqwest::Response,
    info: &ResponseInfo,
    limit: u64,
) -> Result<Vec<u8>, Error> {
    if !(200..300).contains(&info.status) {
        let headers = resp.headers().clone();
        let bytes = match read_body(resp, MAX_ERROR_BODY).await? {
            Body::Whole(b) | Body::Cut(b) => b,
        };
        return Err(Error::from_status(ApiError::from_parts(
            info.status,
            &headers,
            &bytes,
        )));
    }
    match read_body(resp, limit).await? {
        Body::Whole(b) => Ok(b),
        Body::Cut(b) => Err(Error::TooLarge(Box::new(TooLargeError {
            limit,
            declared: resp.content_length(),
            read: b.len() as u64,
            info: info.clone(),
        }))),
    }
}

/// An answer's body read up to a limit.
enum Body {
    /// All of it.
    Whole(Vec<u8>),
    /// The first part: the body is larger than the limit (or says so in `Content-Length`, in
    /// which case nothing is read).
    Cut(Vec<u8>),
}

/// Reads a body chunk by chunk, stopping once it is larger than `limit` bytes.
async fn read_body(resp: &mut reqwest::Response, limit: u64) -> Result<Body, Error> {
    if resp.content_length().is_some_and(|n| n > limit) {
        return Ok(Body::Cut(Vec::new()));
    }
    let mut out = Vec::with_capacity(
        resp.content_length()
            .and_then(|n| usize::try_from(n).ok())
            .unwrap_or(0),
    );
    while let Some(chunk) = resp.chunk().await? {
        let room = usize::try_from(limit)
            .unwrap_or(usize::MAX)
            .saturating_sub(out.len());
        if chunk.len() > room {
            out.extend_from_slice(&chunk[..room]);
            return Ok(Body::Cut(out));
        }
        out.extend_from_slice(&chunk);
    }
    Ok(Body::Whole(out))
}

/// Decodes a JSON body (an answer, a webhook, a delivered object): the one place the client turns
/// bytes into a typed value. Bodies that decode go through [`crate::decode::from_slice`] alone
/// (UTF-8 checked once per body); only a failure is decoded again with serde_path_to_error,
/// which tracks every field it visits and so costs too much to run on every body, so the error
/// still names the JSON path at fault. A leading UTF-8 byte order mark is skipped. Errs with (path, message);
/// trailing data after the value is an error.
pub(crate) fn decode_body<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, (String, String)> {
    let bytes = error::strip_bom(bytes);
    if let Ok(v) = crate::decode::from_slice::<T>(bytes) {
        return Ok(v);
    }
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let value = serde_path_to_error::deserialize::<_, T>(&mut de)
        .map_err(|e| (e.path().to_string(), e.inner().to_string()))?;
    de.end().map_err(|e| (".".to_owned(), e.to_string()))?;
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_urls_are_normalized_or_refused() {
        use ApiVersion::{V1, V2};
        for (given, want, version) in [
            ("http://127.0.0.1:8080", "http://127.0.0.1:8080/", None),
            (
                "https://api.example.com/v1",
                "https://api.example.com/",
                Some(V1),
            ),
            (
                "https://api.example.com/v1/",
                "https://api.example.com/",
                Some(V1),
            ),
            (
                "https://api.example.com/v2",
                "https://api.example.com/",
                Some(V2),
            ),
            (
                "https://h.example/prefix/",
                "https://h.example/prefix/",
                None,
            ),
            ("https://h.example/v2x", "https://h.example/v2x/", None),
        ] {
            let (url, g) = normalize_base(given).unwrap();
            assert_eq!((url.as_str(), g), (want, version), "{given}");
        }
        let clash = Client::builder()
            .base_url("https://api.example.com/v1")
            .api_key("k")
            .api_version(V2)
            .build()
            .unwrap_err();
        assert!(clash.to_string().contains("ends in /v1"), "{clash}");
        for bad in [
            "",
            "api.example.com",
            "ftp://x",
            "https://h.example/?q=1",
            "http://",
        ] {
            assert!(normalize_base(bad).is_err(), "{bad}");
        }
    }

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
