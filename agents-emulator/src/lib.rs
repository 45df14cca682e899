//! A stateful local server that speaks the `/v1` and `/v2` interfaces of the web data extraction
//! service from one state, for tests, examples and offline work.
//!
//! It serves the agent catalog (embedded from `schemas/`), runs agents with synthetic data that
//! conforms to each agent's output schema (the same params give the same record), keeps async
//! tasks and agent generations moving through their states on a configurable clock, enforces
//! auth and a per-key rate limit with the service's headers and 429 shapes, and injects faults on
//! request.
//!
//! ```no_run
//! # async fn demo() -> Result<(), agents_emulator::StartError> {
//! let emulator = agents_emulator::Emulator::builder()
//!     .api_key("test-key")
//!     .lifecycle(agents_emulator::Lifecycle::fast())
//!     .start()
//!     .await?;
//! println!("{} (key {})", emulator.base_url(), emulator.api_key());
//! emulator.shutdown().await;
//! # Ok(()) }
//! ```
//!
//! Where things live: [`routes`] (the HTTP surface and its layers), [`params`] (request
//! validation), [`synth`] (synthetic results), [`lifecycle`] (task and generation states),
//! [`generate`] (prompt → agent record), [`catalog`], [`state`].

mod artifact;
pub mod batch;
pub mod catalog;
pub mod clock;
pub mod config;
pub mod delivery;
mod domain;
pub mod error;
pub mod generate;
mod generations;
mod job_model;
mod jobs;
pub mod lifecycle;
mod media;
pub mod model;
pub mod net;
pub mod params;
mod patched;
mod proxy;
mod request;
pub mod research;
mod research_model;
pub mod routes;
mod serp;
pub mod state;
pub mod synth;
mod tasks;
mod templates;
pub mod web;
pub mod wire;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

pub use config::{Account, AccountStatus, Config, Fault, Lifecycle, RateLimitShape};
pub use error::ApiError;
pub use job_model::MAX_RUNS_PER_JOB;

use crate::catalog::Catalog;
use crate::state::{State, lock};

/// Entry point: [`Emulator::builder`].
#[derive(Debug)]
pub struct Emulator;

impl Emulator {
    /// A builder with the live service's defaults (83 req/s, minutes-long generations).
    pub fn builder() -> EmulatorBuilder {
        EmulatorBuilder {
            config: Config::default(),
            addr: SocketAddr::from(([127, 0, 0, 1], 0)),
            proxy_addr: None,
        }
    }
}

/// Why the emulator could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// A record in the catalog or `--schemas` directory is invalid.
    #[error("invalid agent records:\n{}", .0.iter().map(|e| format!("  - {e}")).collect::<Vec<_>>().join("\n"))]
    Catalog(Vec<catalog::LoadError>),
    /// The address could not be bound.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The address.
        addr: SocketAddr,
        /// Why.
        source: std::io::Error,
    },
}

/// Configures and starts an emulator.
#[derive(Debug, Clone)]
pub struct EmulatorBuilder {
    config: Config,
    addr: SocketAddr,
    proxy_addr: Option<SocketAddr>,
}

impl EmulatorBuilder {
    /// Adds an active account with this key.
    pub fn api_key(mut self, key: impl Into<String>) -> Self {
        self.config.accounts.push(Account::new(key));
        self
    }

    /// Adds an account.
    pub fn account(mut self, account: Account) -> Self {
        self.config.accounts.push(account);
        self
    }

    /// Requests per second per key; `None` lifts the limit.
    pub fn rate_limit(mut self, per_second: Option<u32>) -> Self {
        self.config.rate_limit = per_second;
        self
    }

    /// Requests a key may send at once above the steady rate (default 10).
    pub fn burst(mut self, burst: u32) -> Self {
        self.config.burst = burst;
        self
    }

    /// The 429 body shape.
    pub fn rate_limit_shape(mut self, shape: RateLimitShape) -> Self {
        self.config.rate_limit_shape = shape;
        self
    }

    /// How long async work takes.
    pub fn lifecycle(mut self, lifecycle: Lifecycle) -> Self {
        self.config.lifecycle = lifecycle;
        self
    }

    /// Real pages of every paginated agent (default 5).
    pub fn default_pages(mut self, pages: u32) -> Self {
        self.config.default_pages = pages;
        self
    }

    /// Real pages of one agent.
    pub fn pages(mut self, agent: impl Into<String>, pages: u32) -> Self {
        self.config.pages.insert(agent.into(), pages);
        self
    }

    /// Past the last real page, list agents answer an empty list (default: they repeat the last
    /// page, as real sites do).
    pub fn empty_past_end(mut self, empty: bool) -> Self {
        self.config.empty_past_end = empty;
        self
    }

    /// Agent generations per account per day (default 100).
    pub fn generation_daily_limit(mut self, limit: u32) -> Self {
        self.config.generation_daily_limit = limit;
        self
    }

    /// Extra agent records that add to or replace the embedded catalog.
    pub fn schema_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.config.schema_dir = Some(dir.into());
        self
    }

    /// A directory standing in for cloud buckets: `s3://bucket/prefix/` is `DIR/bucket/prefix/`.
    pub fn bucket_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.config.bucket_dir = Some(dir.into());
        self
    }

    /// The address to listen on (default `127.0.0.1:0`, an ephemeral port).
    pub fn addr(mut self, addr: SocketAddr) -> Self {
        self.addr = addr;
        self
    }

    /// Also serve the residential proxy with this password, on `proxy_addr` (default
    /// an ephemeral port on the API's host): a forward proxy that checks the connection string's
    /// credentials (`account-<ACCOUNT>-pipeline-<PIPELINE>-country-<CC>`, an account name of this
    /// emulator) and forwards plain-HTTP requests to loopback targets only.
    pub fn proxy(mut self, password: impl Into<String>) -> Self {
        self.config.proxy_password = Some(password.into());
        self
    }

    /// Where the proxy listens (with [`EmulatorBuilder::proxy`]).
    pub fn proxy_addr(mut self, addr: SocketAddr) -> Self {
        self.proxy_addr = Some(addr);
        self
    }

    /// The configuration so far.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Binds and serves in a background task. Without accounts, one demo key is generated.
    pub async fn start(mut self) -> Result<EmulatorHandle, StartError> {
        if self.config.accounts.is_empty() {
            let key = format!("demo-{}", uuid::Uuid::new_v4().simple());
            self.config.accounts.push(Account::new(key).name("demo"));
        }
        let catalog =
            Catalog::load(self.config.schema_dir.as_deref()).map_err(StartError::Catalog)?;
        let keys = self.config.accounts.iter().map(|a| a.key.clone()).collect();
        let state = Arc::new(State::new(self.config, catalog));
        let listener = tokio::net::TcpListener::bind(self.addr)
            .await
            .map_err(|source| StartError::Bind {
                addr: self.addr,
                source,
            })?;
        let addr = listener.local_addr().map_err(|source| StartError::Bind {
            addr: self.addr,
            source,
        })?;
        let base_url = format!("http://{addr}");
        let _ = state.base_url.set(base_url.clone());
        let proxy = match &state.config.proxy_password {
            Some(_) => {
                let want = self
                    .proxy_addr
                    .unwrap_or_else(|| SocketAddr::new(self.addr.ip(), 0));
                let bound = tokio::net::TcpListener::bind(want).await;
                let listener = bound.map_err(|source| StartError::Bind { addr: want, source })?;
                let at = listener
                    .local_addr()
                    .map_err(|source| StartError::Bind { addr: want, source })?;
                Some((listener, at))
            }
            None => None,
        };
        let proxy_addr = proxy.as_ref().map(|(_, at)| *at);
        let app = routes::router(state.clone());
        let proxy_app = proxy.map(|(listener, _)| (listener, proxy::router(state.clone())));
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        let task = tokio::spawn(async move {
            let stop = async move {
                let _ = rx.await;
            };
            let result = match proxy_app {
                Some((proxy_listener, proxy_app)) => {
                    // Both servers stop together, when the handle says so.
                    tokio::select! {
                        r = axum::serve(listener, app).with_graceful_shutdown(stop) => r,
                        r = axum::serve(proxy_listener, proxy_app) => r,
                    }
                }
                None => {
                    axum::serve(listener, app)
                        .with_graceful_shutdown(stop)
                        .await
                }
            };
            if let Err(e) = result {
                tracing::error!(error = %e, "emulator server stopped");
            }
        });
        tracing::info!(%base_url, "agents emulator listening");
        Ok(EmulatorHandle {
            base_url,
            addr,
            proxy_addr,
            keys,
            state,
            shutdown: Some(tx),
            task: Some(task),
        })
    }
}

/// A running emulator. Dropping it stops the server.
pub struct EmulatorHandle {
    base_url: String,
    addr: SocketAddr,
    proxy_addr: Option<SocketAddr>,
    keys: Vec<String>,
    state: Arc<State>,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    task: Option<tokio::task::JoinHandle<()>>,
}

impl std::fmt::Debug for EmulatorHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EmulatorHandle")
            .field("base_url", &self.base_url)
            .field("keys", &self.keys.len())
            .finish_non_exhaustive()
    }
}

impl EmulatorHandle {
    /// `http://127.0.0.1:PORT`; API paths start with `/v1`.
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// The bound address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Where the residential proxy listens, when it was asked for ([`EmulatorBuilder::proxy`]).
    pub fn proxy_addr(&self) -> Option<SocketAddr> {
        self.proxy_addr
    }

    /// The first account's key.
    pub fn api_key(&self) -> &str {
        self.keys.first().map_or("", String::as_str)
    }

    /// Every account's key, in configuration order.
    pub fn keys(&self) -> &[String] {
        &self.keys
    }

    /// Moves the emulator's clock forward by `by`: tasks, runs, generations and schedules
    /// progress, and download URLs expire, as if that much time had passed (at most
    /// [`clock::MAX_AHEAD`] in all).
    ///
    /// ```
    /// # async fn f() -> Result<(), Box<dyn std::error::Error>> {
    /// let e = agents_emulator::Emulator::builder().start().await?;
    /// e.advance(std::time::Duration::from_secs(15 * 60));
    /// # Ok(()) }
    /// ```
    pub fn advance(&self, by: Duration) {
        self.state.clock.advance(by);
    }

    /// Injects `fault` into the next `times` requests of `key` (every request with `None`).
    pub fn inject(&self, key: &str, fault: Fault, times: Option<u32>) {
        routes::inject(&self.state, key, fault, times, None);
    }

    /// Injects `fault` into the next `times` requests of `key` made with `method` (`"POST"`:
    /// the call that makes something, past the reads a client makes first).
    pub fn inject_on(&self, key: &str, method: &str, fault: Fault, times: Option<u32>) {
        routes::inject(&self.state, key, fault, times, Some(method));
    }

    /// Removes the faults of `key`.
    pub fn clear_faults(&self, key: &str) {
        lock(&self.state.faults).remove(key);
    }

    /// Requests that presented `key`, counted before auth, rate limit and faults; only configured
    /// keys are counted (0 for any other).
    pub fn requests_seen(&self, key: &str) -> u64 {
        self.state.requests_seen(key)
    }

    /// Problems delivering task `id` (webhook not reachable, no bucket directory, …).
    pub fn delivery_errors(&self, id: &str) -> Vec<String> {
        lock(&self.state.delivery_errors)
            .get(id)
            .cloned()
            .unwrap_or_default()
    }

    /// Async tasks created so far.
    pub fn task_count(&self) -> usize {
        lock(&self.state.tasks).len()
    }

    /// Stops accepting connections and waits (up to 5 s) for the server to finish.
    pub async fn shutdown(mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        if let Some(task) = self.task.take() {
            let _ = tokio::time::timeout(Duration::from_secs(5), task).await;
        }
    }
}

impl Drop for EmulatorHandle {
    fn drop(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        if let Some(task) = self.task.take() {
            task.abort();
        }
    }
}
