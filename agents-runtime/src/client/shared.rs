//! One rate limit for every process on an API key (feature `redis`): the service allows 83
//! requests per second per key, not per process, so a fleet of workers on one key throttles
//! together through Redis.
//!
//! The limiter is GCRA, the algorithm of the in-process limiter (governor), kept as one value in
//! Redis (the key's theoretical arrival time) and advanced atomically by a Lua script run with
//! `EVALSHA`: one round trip per permit, on Redis's clock, so processes on machines with skewed
//! clocks still share one schedule. A 429 hint seen by any process pauses the fleet through a
//! second key with an expiry, which the same script reads. Keys are named after a SHA-256 hash of
//! the API key, never the key itself.
//!
//! When Redis is unreachable or slow, calls go on under the process's own limiter: a warning is
//! logged once per outage, Redis is tried again after a second, and the shared limit resumes when
//! it answers. Nothing is sent twice or lost on the way: the limiter only decides when a request
//! may go, never whether.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use redis::aio::ConnectionManager;
use sha2::{Digest, Sha256};
use tokio::sync::OnceCell;

/// Advances the key's GCRA state, or says how long to wait. KEYS: theoretical arrival time,
/// fleet pause. ARGV: emission interval and burst tolerance, in milliseconds. Returns
/// `{wait_ms, paused}`: `{0, 0}` is a permit.
const ACQUIRE: &str = r"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local pause = redis.call('PTTL', KEYS[2])
if pause > 0 then return {pause, 1} end
local interval = tonumber(ARGV[1])
local tolerance = tonumber(ARGV[2])
local tat = tonumber(redis.call('GET', KEYS[1]) or now)
if tat < now then tat = now end
local allow_at = tat - tolerance
if now < allow_at then return {math.ceil(allow_at - now), 0} end
local next_tat = tat + interval
redis.call('SET', KEYS[1], tostring(next_tat), 'PX', math.ceil(next_tat - now + 1000))
return {0, 0}
";

/// Extends the fleet pause to at least ARGV[1] milliseconds.
const PAUSE: &str = r"
local ms = math.ceil(tonumber(ARGV[1]))
if redis.call('PTTL', KEYS[1]) < ms then
  redis.call('SET', KEYS[1], '1', 'PX', ms)
end
return 0
";

/// How long one Redis call may take before the process goes on alone.
const TIMEOUT: Duration = Duration::from_millis(250);

/// How long the process goes on alone after Redis failed, before trying it again.
const RETRY_AFTER: Duration = Duration::from_secs(1);

/// What the shared limiter said.
pub(crate) enum Permit {
    /// Send now.
    Granted,
    /// Another process saw a 429 and the fleet waits this long.
    Paused(Duration),
    /// Redis cannot be asked: use the process's own limiter.
    Unavailable,
}

/// The shared limiter of one API key.
pub(crate) struct Shared {
    client: redis::Client,
    conn: OnceCell<ConnectionManager>,
    tat_key: String,
    pause_key: String,
    interval_ms: f64,
    tolerance_ms: f64,
    acquire: redis::Script,
    pause: redis::Script,
    /// Set while Redis is out, so the outage is logged once.
    down: AtomicBool,
    /// Until when Redis is not asked again after a failure.
    quiet_until: Mutex<Option<Instant>>,
}

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shared")
            .field("key", &self.tat_key)
            .field("interval_ms", &self.interval_ms)
            .finish_non_exhaustive()
    }
}

impl Shared {
    /// A limiter of `per_second` requests with bursts of `burst` for the key `api_key`, on the
    /// Redis at `url` (connected on first use). Errs when the URL does not parse.
    pub(crate) fn new(
        url: &str,
        api_key: &str,
        per_second: u32,
        burst: u32,
    ) -> Result<Shared, String> {
        let client = redis::Client::open(url).map_err(|e| format!("invalid Redis URL: {e}"))?;
        let hash = Sha256::digest(api_key.as_bytes());
        let id: String = hash[..16].iter().map(|b| format!("{b:02x}")).collect();
        let interval_ms = 1000.0 / f64::from(per_second.max(1));
        Ok(Shared {
            client,
            conn: OnceCell::new(),
            tat_key: format!("agents-rs:{id}:tat"),
            pause_key: format!("agents-rs:{id}:pause"),
            interval_ms,
            tolerance_ms: interval_ms * f64::from(burst.max(1) - 1),
            acquire: redis::Script::new(ACQUIRE),
            pause: redis::Script::new(PAUSE),
            down: AtomicBool::new(false),
            quiet_until: Mutex::new(None),
        })
    }

    async fn connection(&self) -> Result<ConnectionManager, String> {
        let config = redis::aio::ConnectionManagerConfig::new()
            .set_connection_timeout(Some(TIMEOUT))
            .set_response_timeout(Some(TIMEOUT))
            .set_number_of_retries(1);
        self.conn
            .get_or_try_init(|| async {
                self.client
                    .get_connection_manager_with_config(config)
                    .await
                    .map_err(|e| e.to_string())
            })
            .await
            .cloned()
    }

    fn quiet(&self) -> bool {
        let until = *self
            .quiet_until
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        until.is_some_and(|u| Instant::now() < u)
    }

    fn failed(&self, why: &str) {
        *self
            .quiet_until
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) =
            Some(Instant::now() + RETRY_AFTER);
        if !self.down.swap(true, Ordering::Relaxed) {
            tracing::warn!(
                error = why,
                "the shared rate limiter (Redis) is unavailable; this process limits itself \
                 until it answers"
            );
        }
    }

    fn answered(&self) {
        if self.down.swap(false, Ordering::Relaxed) {
            tracing::info!("the shared rate limiter (Redis) answers again");
        }
    }

    /// Runs a script with a time limit; `None` when Redis failed (recorded).
    async fn run<T: redis::FromRedisValue>(
        &self,
        script: &redis::Script,
        keys: &[&str],
        arg: Option<f64>,
        arg2: Option<f64>,
    ) -> Option<T> {
        if self.quiet() {
            return None;
        }
        let call = async {
            let mut conn = self.connection().await?;
            let mut invocation = script.prepare_invoke();
            for k in keys {
                invocation.key(*k);
            }
            if let Some(a) = arg {
                invocation.arg(a);
            }
            if let Some(a) = arg2 {
                invocation.arg(a);
            }
            invocation
                .invoke_async::<T>(&mut conn)
                .await
                .map_err(|e| e.to_string())
        };
        match tokio::time::timeout(TIMEOUT * 2, call).await {
            Ok(Ok(v)) => {
                self.answered();
                Some(v)
            }
            Ok(Err(e)) => {
                self.failed(&e);
                None
            }
            Err(_) => {
                self.failed("no answer in time");
                None
            }
        }
    }

    /// One attempt at a permit: a grant, how long to wait, a fleet pause, or Redis being out.
    async fn try_acquire(&self) -> Result<Permit, Duration> {
        let keys = [self.tat_key.as_str(), self.pause_key.as_str()];
        let answer: Option<(i64, i64)> = self
            .run(
                &self.acquire,
                &keys,
                Some(self.interval_ms),
                Some(self.tolerance_ms),
            )
            .await;
        match answer {
            None => Ok(Permit::Unavailable),
            Some((0, _)) => Ok(Permit::Granted),
            Some((ms, 1)) => Ok(Permit::Paused(millis(ms))),
            Some((ms, _)) => Err(millis(ms)),
        }
    }

    /// Waits for a permit of the shared limit; a fleet pause or Redis being out is handed back
    /// to the caller.
    pub(crate) async fn acquire(&self) -> Permit {
        loop {
            match self.try_acquire().await {
                Ok(permit) => return permit,
                Err(wait) => tokio::time::sleep(wait).await,
            }
        }
    }

    /// Pauses every process of the fleet for `wait` (a 429 hint), best effort.
    pub(crate) async fn pause(&self, wait: Duration) {
        let ms = wait.as_millis().clamp(1, u128::from(u32::MAX)) as f64;
        let _: Option<i64> = self
            .run(&self.pause, &[self.pause_key.as_str()], Some(ms), None)
            .await;
    }
}

fn millis(ms: i64) -> Duration {
    Duration::from_millis(u64::try_from(ms).unwrap_or(0).max(1))
}
