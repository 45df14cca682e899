//! One rate limit for every process on an API key (feature `redis`): the service allows 83
//! requests per second per key, not per process, so a fleet of workers on one key throttles
//! together through Redis.
//!
//! The limiter is GCRA, the algorithm of the in-process limiter (`throttle.rs`), kept as one value in
//! Redis (the key's theoretical arrival time) and advanced atomically by a Lua script run with
//! `EVALSHA`, on Redis's clock, so processes on machines with skewed clocks still share one
//! schedule. The script *reserves* the next slot and answers how long to wait for it; the caller
//! sleeps that long and sends without asking again. So a permit costs one round trip however
//! many calls wait, and permits are granted in the order calls asked: no call is overtaken by
//! later ones polling at the same instant. A 429 hint seen by any process pauses the fleet
//! through a second key with an expiry, which the same script reads. Keys are named after a
//! SHA-256 hash of the API key, never the key itself.
//!
//! Each process is a member of its key's fleet while it asks for permits (a third key, a sorted
//! set of member ids by last request, forgotten after [`MEMBER_TTL`] without one), and every
//! answer says how many members there are. When Redis is unreachable or slow, a process goes on
//! under its fair share of the limit (the rate divided by the last fleet size it heard of), so
//! the fleet as a whole stays near the limit during an outage; a warning is logged once per
//! outage, [`super::Client::limiter`] reports the fallback, Redis is tried again after a second,
//! and the shared limit resumes when it answers. Nothing is sent twice or lost on the way: the
//! limiter only decides when a request may go, never whether.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::time::{Duration, Instant};

use redis::aio::ConnectionManager;
use sha2::{Digest, Sha256};
use tokio::sync::OnceCell;

/// Reserves the key's next GCRA slot. KEYS: theoretical arrival time, fleet pause, fleet
/// members. ARGV: emission interval and burst tolerance in milliseconds, this process's member
/// id, how long a member is remembered in milliseconds. Returns `{wait_us, paused, members}`:
/// wait that many microseconds, then send (the slot is taken); or, when `paused` is 1, the
/// fleet is paused for that long and nothing was reserved.
const ACQUIRE: &str = r"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local ttl = tonumber(ARGV[4])
redis.call('ZADD', KEYS[3], now, ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now - ttl)
redis.call('PEXPIRE', KEYS[3], ttl)
local members = redis.call('ZCARD', KEYS[3])
local pause = redis.call('PTTL', KEYS[2])
if pause > 0 then return {pause * 1000, 1, members} end
local interval = tonumber(ARGV[1])
local tolerance = tonumber(ARGV[2])
local tat = tonumber(redis.call('GET', KEYS[1]) or now)
if tat < now then tat = now end
local wait = tat - tolerance - now
if wait < 0 then wait = 0 end
local next_tat = tat + interval
redis.call('SET', KEYS[1], tostring(next_tat), 'PX', math.ceil(next_tat - now + 1000))
return {math.ceil(wait * 1000), 0, members}
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

/// How long a process that asks for no permit stays counted in its key's fleet: a process that
/// stopped (or crashed) leaves the count this long after its last request, and one that sends
/// less often than this counts only while it sends.
pub const MEMBER_TTL: Duration = Duration::from_secs(2);

/// What the shared limiter said.
pub(crate) enum Permit {
    /// A slot is reserved: send once this much time has passed.
    Reserved(Duration),
    /// Another process saw a 429 and the fleet waits this long.
    Paused(Duration),
    /// Redis cannot be asked: use the process's fair share of the limit.
    Unavailable,
}

/// The shared limiter of one API key.
pub(crate) struct Shared {
    client: redis::Client,
    conn: OnceCell<ConnectionManager>,
    tat_key: String,
    pause_key: String,
    members_key: String,
    /// This process's id among the fleet's members.
    member: String,
    /// Members of the fleet at the last answer (1 before any).
    fleet: AtomicU32,
    interval_ms: f64,
    tolerance_ms: f64,
    acquire: redis::Script,
    pause: redis::Script,
    /// Set while Redis is out, so the outage is logged once.
    down: AtomicBool,
    /// Set while one call asks whether Redis is back.
    probing: AtomicBool,
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
            members_key: format!("agents-rs:{id}:members"),
            member: member_id(),
            fleet: AtomicU32::new(1),
            interval_ms,
            tolerance_ms: interval_ms * f64::from(burst.max(1) - 1),
            acquire: redis::Script::new(ACQUIRE),
            pause: redis::Script::new(PAUSE),
            down: AtomicBool::new(false),
            probing: AtomicBool::new(false),
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
                let mut conn = self
                    .client
                    .get_connection_manager_with_config(config)
                    .await
                    .map_err(|e| e.to_string())?;
                // Loaded before the first call, which the calls waiting here then share: else
                // every call in flight at a cold start meets NOSCRIPT and loads the script
                // itself. A server that restarts later forgets them; `invoke_async` loads them
                // again then.
                for script in [&self.acquire, &self.pause] {
                    script
                        .load_async(&mut conn)
                        .await
                        .map_err(|e| e.to_string())?;
                }
                Ok(conn)
            })
            .await
            .cloned()
    }

    // How long Redis is left alone after a failure is network time, which the client's clock
    // does not decide (client/clock.rs says which waits are left on the real clock).
    #[allow(clippy::disallowed_methods)]
    fn quiet(&self) -> bool {
        let until = *self
            .quiet_until
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        until.is_some_and(|u| Instant::now() < u)
    }

    // As `quiet`: real time.
    #[allow(clippy::disallowed_methods)]
    fn failed(&self, why: &str) {
        *self
            .quiet_until
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) =
            Some(Instant::now() + RETRY_AFTER);
        if !self.down.swap(true, Ordering::Relaxed) {
            tracing::warn!(
                error = why,
                fleet = self.fleet(),
                "the shared rate limiter (Redis) is unavailable; this process limits itself to \
                 its share of the limit (the rate divided by the fleet's size) until it answers"
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
        args: &[&str],
    ) -> Option<T> {
        if self.quiet() {
            return None;
        }
        // While Redis is out, one call at a time asks whether it is back; the others go on
        // under the fallback share instead of each waiting for the same time-out.
        let probe = self.is_down();
        if probe && self.probing.swap(true, Ordering::AcqRel) {
            return None;
        }
        let _probe = probe.then(|| ProbeGuard(&self.probing));
        let call = async {
            let mut conn = self.connection().await?;
            let mut invocation = script.prepare_invoke();
            for k in keys {
                invocation.key(*k);
            }
            for a in args {
                invocation.arg(*a);
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

    /// Reserves a permit of the shared limit (one round trip): how long to wait before sending,
    /// a fleet pause, or Redis being out.
    pub(crate) async fn acquire(&self) -> Permit {
        let keys = [
            self.tat_key.as_str(),
            self.pause_key.as_str(),
            self.members_key.as_str(),
        ];
        let args = [
            self.interval_ms.to_string(),
            self.tolerance_ms.to_string(),
            self.member.clone(),
            MEMBER_TTL.as_millis().to_string(),
        ];
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let answer: Option<(i64, i64, i64)> = self.run(&self.acquire, &keys, &args).await;
        let Some((wait_us, paused, members)) = answer else {
            return Permit::Unavailable;
        };
        self.fleet.store(
            u32::try_from(members).unwrap_or(u32::MAX).max(1),
            Ordering::Relaxed,
        );
        let wait = Duration::from_micros(u64::try_from(wait_us).unwrap_or(0));
        if paused == 1 {
            Permit::Paused(wait.max(Duration::from_millis(1)))
        } else {
            Permit::Reserved(wait)
        }
    }

    /// Processes in the key's fleet at the last answer from Redis (this one included).
    pub(crate) fn fleet(&self) -> u32 {
        self.fleet.load(Ordering::Relaxed)
    }

    /// Whether Redis is out (this process is on its fair share).
    pub(crate) fn is_down(&self) -> bool {
        self.down.load(Ordering::Relaxed)
    }

    /// Pauses every process of the fleet for `wait` (a 429 hint), best effort.
    pub(crate) async fn pause(&self, wait: Duration) {
        let ms = wait.as_millis().clamp(1, u128::from(u32::MAX)).to_string();
        let _: Option<i64> = self
            .run(&self.pause, &[self.pause_key.as_str()], &[ms.as_str()])
            .await;
    }
}

/// Clears the probing flag when the probe ends, however it ends (a dropped call included).
struct ProbeGuard<'a>(&'a AtomicBool);

impl Drop for ProbeGuard<'_> {
    fn drop(&mut self) {
        self.0.store(false, Ordering::Release);
    }
}

/// An id for this limiter among its fleet's members: the process id, the time, and a counter,
/// so two clients of one process count as two members, as they send as two.
// The time is part of a name here, not a wait.
#[allow(clippy::disallowed_methods)]
fn member_id() -> String {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!(
        "{}-{nanos:x}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}
