//! [`ClientBuilder`]: what a [`Client`] is configured with, read from code or the environment,
//! and checked once when it is built.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use reqwest::Url;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use secrecy::{ExposeSecret, SecretString};

use super::clock::{Clock, TokioClock};
use super::error::Error;
use super::retry::RetryPolicy;
#[cfg(feature = "redis")]
use super::shared;
use super::{Client, Inner, throttle};
use crate::endpoint::ApiVersion;

/// Environment variable holding the API key.
pub const ENV_API_KEY: &str = "AGENTS_API_KEY";
/// Environment variable holding the base URL (without `/v1` or `/v2`).
pub const ENV_BASE_URL: &str = "AGENTS_BASE_URL";
/// Environment variable choosing the interface's version: `v1` (the default) or `v2`.
pub const ENV_API_VERSION: &str = "AGENTS_API_VERSION";
/// Environment variable holding the Redis URL of a rate limit shared by every process on the key
/// (feature `redis`).
pub const ENV_REDIS_URL: &str = "AGENTS_REDIS_URL";

/// Default for [`ClientBuilder::max_response_bytes`].
pub const DEFAULT_MAX_RESPONSE_BYTES: u64 = 64 * 1024 * 1024;

/// Configures a [`Client`].
///
/// The HTTP client it makes goes through a proxy as reqwest's defaults do: `HTTPS_PROXY`,
/// `HTTP_PROXY`, `ALL_PROXY` and `NO_PROXY` from the environment, and the system's settings on
/// macOS and Windows.
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

    /// A `/v2` client from the environment, as [`Client::from_env`] reads it (whatever
    /// `AGENTS_API_VERSION` says): the one call a `/v2` program starts with.
    ///
    /// ```no_run
    /// # fn f() -> Result<(), agents_runtime::Error> {
    /// let client = agents_runtime::Client::v2_from_env()?;
    /// assert_eq!(client.api_version(), agents_runtime::ApiVersion::V2);
    /// # Ok(()) }
    /// ```
    pub fn v2_from_env() -> Result<Client, Error> {
        ClientBuilder::from_env()?
            .api_version(ApiVersion::V2)
            .build()
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
    /// client for longer (a pause is capped at [`MAX_PAUSE`](super::MAX_PAUSE)).
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

    /// A reqwest client of your own (its timeouts, user agent and TLS then apply): the way to
    /// HTTPS through another TLS stack than rustls, with the `rustls` feature off.
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
    /// over the environment this way). A variable set to nothing but spaces counts as unset; one
    /// that is not UTF-8, or a version other than `v1` or `v2`, is an error naming every such
    /// variable at once.
    pub fn from_env() -> Result<ClientBuilder, Error> {
        Self::from_vars(|name| std::env::var(name))
    }

    /// [`ClientBuilder::from_env`] over any source of variables.
    fn from_vars(
        var: impl Fn(&str) -> Result<String, std::env::VarError>,
    ) -> Result<ClientBuilder, Error> {
        let mut problems = Vec::new();
        let mut read = |name: &str| match var(name) {
            Ok(v) if !v.trim().is_empty() => Some(v),
            Err(std::env::VarError::NotUnicode(_)) => {
                problems.push(format!("{name} is not valid UTF-8"));
                None
            }
            _ => None,
        };
        let (base, key, version, redis) = (
            read(ENV_BASE_URL),
            read(ENV_API_KEY),
            read(ENV_API_VERSION),
            read(ENV_REDIS_URL),
        );
        let mut b = Client::builder();
        b.base_url = base;
        b.api_key = key.map(SecretString::from);
        b.shared_limit = redis;
        if let Some(v) = version {
            match v.parse::<ApiVersion>() {
                Ok(g) => b.version = Some(g),
                Err(e) => problems.push(format!("{ENV_API_VERSION}: {e}")),
            }
        }
        if problems.is_empty() {
            Ok(b)
        } else {
            Err(config_error(problems))
        }
    }

    /// The clock the client reads the time from and sleeps on between retries, through a pause
    /// after a 429 and between polls (default [`TokioClock`]). A [`ManualClock`](super::ManualClock) makes those
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

    /// Builds the client; fails when the key or base URL is missing or malformed, naming every
    /// problem of the configuration at once.
    pub fn build(self) -> Result<Client, Error> {
        let mut problems = Vec::new();
        let base = match &self.base_url {
            None => {
                problems.push(format!(
                    "no base URL: set {ENV_BASE_URL} or call ClientBuilder::base_url"
                ));
                None
            }
            Some(text) => normalize_base(text).map_err(|p| problems.push(p)).ok(),
        };
        let version = match (self.version, base.as_ref().and_then(|b| b.1)) {
            (Some(chosen), Some(given)) if chosen != given => {
                problems.push(format!(
                    "the base URL ends in /{given} but the client was set to version \
                     {chosen}: drop the suffix or choose one version"
                ));
                chosen
            }
            (Some(g), _) | (None, Some(g)) => g,
            (None, None) => ApiVersion::default(),
        };
        let secret = match &self.api_key {
            None => {
                problems.push(format!(
                    "no API key: set {ENV_API_KEY} or call ClientBuilder::api_key"
                ));
                None
            }
            Some(key) if key.expose_secret().trim().is_empty() => {
                problems.push("the API key is empty".into());
                None
            }
            Some(key) => Some(key.expose_secret().trim()),
        };
        let auth = secret.and_then(|secret| {
            let mut auth = HeaderValue::from_str(&format!("Bearer {secret}"))
                .map_err(|_| {
                    problems.push("the API key contains characters not allowed in a header".into());
                })
                .ok()?;
            auth.set_sensitive(true);
            Some(auth)
        });
        let mut headers = HeaderMap::new();
        for (name, value) in &self.headers {
            match (
                HeaderName::from_bytes(name.as_bytes()),
                HeaderValue::from_str(value),
            ) {
                (Ok(n), Ok(v)) => {
                    headers.insert(n, v);
                }
                (Err(_), _) => problems.push(format!("invalid header name {name:?}")),
                (_, Err(_)) => problems.push(format!("invalid value for header {name}")),
            }
        }
        if self.http.is_none()
            && let Some((url, _)) = &base
            && let Err(p) = reachable(url, cfg!(feature = "rustls"))
        {
            problems.push(p);
        }
        let throttle = throttle::Throttle::new(self.rate_limit, self.burst, self.clock.clone());
        let throttle = match (&self.shared_limit, self.rate_limit) {
            (None, _) => Some(throttle),
            (Some(_), None) => {
                problems.push(
                    "a shared rate limit needs a rate: do not combine shared_limit with \
                     rate_limit(None)"
                        .into(),
                );
                None
            }
            #[cfg(feature = "redis")]
            (Some(url), Some(rate)) => secret.and_then(|secret| {
                shared::Shared::new(url, secret, rate, self.burst)
                    .map(|limit| throttle.shared(limit))
                    .map_err(|e| problems.push(format!("{ENV_REDIS_URL}/shared_limit: {e}")))
                    .ok()
            }),
            #[cfg(not(feature = "redis"))]
            (Some(_), Some(_)) => {
                problems.push(format!(
                    "{ENV_REDIS_URL}/shared_limit asks for a rate limit shared through Redis, \
                     which this build leaves out: turn on the `redis` feature of agents-runtime \
                     (or of agents-cli, for `cargo agents`), or unset {ENV_REDIS_URL}"
                ));
                None
            }
        };
        let http = match self.http {
            Some(h) => Some(h),
            None if problems.is_empty() => reqwest::Client::builder()
                .connect_timeout(self.connect_timeout)
                .timeout(self.timeout)
                .user_agent(self.user_agent)
                .build()
                .map_err(|e| problems.push(format!("cannot build the HTTP client: {e}")))
                .ok(),
            None => None,
        };
        let (Some((base, _)), Some(auth), Some(throttle), Some(http), true) =
            (base, auth, throttle, http, problems.is_empty())
        else {
            return Err(config_error(problems));
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

/// One error naming every problem of a configuration.
fn config_error(mut problems: Vec<String>) -> Error {
    Error::Config(match problems.len() {
        1 => problems.swap_remove(0),
        n => format!("{n} problems: {}", problems.join("; ")),
    })
}

/// Whether the client `build` makes can reach `base`: it speaks HTTPS only when built with TLS
/// (the `rustls` feature), and without it an https base URL is refused here, not at the first
/// request.
fn reachable(base: &Url, tls: bool) -> Result<(), String> {
    if base.scheme() == "https" && !tls {
        return Err(format!(
            "the base URL (host {}) is https, but agents-runtime was built without TLS: \
             turn on its `rustls` feature (on by default) or give \
             ClientBuilder::http_client a reqwest::Client built with TLS",
            base.host_str().unwrap_or_default()
        ));
    }
    Ok(())
}

/// Parses a base URL: http or https, no query; trailing slashes and a trailing `/v1` or `/v2`
/// are dropped (the version it names is returned).
fn normalize_base(text: &str) -> Result<(Url, Option<ApiVersion>), String> {
    let bad = |why: &str| format!("invalid base URL {text:?}: {why}");
    // `localhost:8080` parses as a URL of scheme `localhost`: what was meant is a host.
    if !text.contains("://") {
        return Err(bad(&format!(
            "write it with its scheme, as http://{0} or https://{0}",
            text.trim()
        )));
    }
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
        // A host and port without a scheme is named with the URL it likely means.
        for host in ["localhost:8080", "127.0.0.1:8080"] {
            let e = normalize_base(host).unwrap_err();
            assert!(e.contains(&format!("as http://{host} or")), "{e}");
        }
    }

    #[test]
    fn every_problem_of_the_configuration_is_named_at_once() {
        let e = Client::builder()
            .header("bad name", "v")
            .header("x-ok", "line\nbreak")
            .rate_limit(None)
            .shared_limit("redis://127.0.0.1:1/")
            .build()
            .unwrap_err()
            .to_string();
        for part in [
            "5 problems",
            ENV_BASE_URL,
            ENV_API_KEY,
            "invalid header name \"bad name\"",
            "invalid value for header x-ok",
            "needs a rate",
        ] {
            assert!(e.contains(part), "{part:?} missing from {e}");
        }
        let e = Client::builder()
            .base_url("ftp://h.example")
            .api_key(" ")
            .build()
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("2 problems") && e.contains("scheme") && e.contains("API key is empty"),
            "{e}"
        );
    }

    #[test]
    fn the_environment_is_read_with_every_problem_named() {
        use std::env::VarError;
        use std::ffi::OsString;
        let vars = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| match pairs.iter().find(|(n, _)| *n == name) {
                Some((_, "\u{fffd}")) => Err(VarError::NotUnicode(OsString::new())),
                Some((_, v)) => Ok((*v).to_owned()),
                None => Err(VarError::NotPresent),
            }
        };
        let b = ClientBuilder::from_vars(vars(&[
            (ENV_BASE_URL, "http://127.0.0.1:8080/v2"),
            (ENV_API_KEY, "k"),
            (ENV_API_VERSION, " "),
        ]))
        .unwrap();
        let client = b.build().unwrap();
        assert_eq!(client.api_version(), ApiVersion::V2);
        let e =
            ClientBuilder::from_vars(vars(&[(ENV_API_KEY, "\u{fffd}"), (ENV_API_VERSION, "v3")]))
                .unwrap_err()
                .to_string();
        assert!(
            e.contains("2 problems") && e.contains(ENV_API_KEY) && e.contains(ENV_API_VERSION),
            "{e}"
        );
    }

    #[test]
    fn https_needs_tls_in_the_client_it_makes_and_not_in_one_given() {
        let https = Url::parse("https://api.example.com/").unwrap();
        let http = Url::parse("http://127.0.0.1:8080/").unwrap();
        let refused = reachable(&https, false).unwrap_err();
        assert!(
            refused.contains("`rustls` feature") && refused.contains("http_client"),
            "{refused}"
        );
        assert!(reachable(&https, true).is_ok());
        assert!(reachable(&http, false).is_ok());

        // This build's own answer, with the feature as it was compiled.
        let built = Client::builder()
            .base_url("https://api.example.com")
            .api_key("k")
            .build();
        assert_eq!(built.is_ok(), cfg!(feature = "rustls"));
        let given = Client::builder()
            .base_url("https://api.example.com")
            .api_key("k")
            .http_client(reqwest::Client::new())
            .build();
        assert!(given.is_ok());
    }
}
