//! Where requests are throttled: a client-side rate limiter (GCRA on the client's clock; default
//! 83 req/s per key, the service's limit) shared by every clone of a client, plus a pause that the service's own
//! signals set: a 429's retry hint, or rate-limit headers saying nothing is left before the reset
//! time.
//!
//! With a shared limit (feature `redis`, [`super::ClientBuilder::shared_limit`]) permits come
//! from one limiter in Redis shared by every process on the API key, and a 429 hint pauses them
//! all; while Redis is out each process falls back on its fair share of the limit (the rate
//! divided by the fleet's size). [`LimiterState`] says which applies.
//!
//! A pause holds every request of every clone, reads included, and lasts at most [`MAX_PAUSE`].
//! A call that would have to wait past its own budget (the client's timeout, or what is left of the
//! retry policy's `max_elapsed`) fails at once with the 429 that set the pause instead of sleeping.

use std::num::NonZeroU32;
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use super::clock::{Clock, sleep_until};
use super::error::{ApiError, RateLimit, seconds};

/// The generic cell rate algorithm, the one a shared limit runs in Redis (`shared.rs`), on the
/// client's clock: permits are reserved in turn, each `interval` after the one before, and up to
/// `burst` of them may be taken ahead of that steady rate. A permit is reserved when asked for,
/// so callers are served first come, first served and a late wake-up does not slow the ones
/// after it; a caller dropped while it waits leaves its slot unused, which can only lower the
/// rate.
#[derive(Debug)]
struct Limiter {
    /// Time between two permits at the steady rate, rounded up so the rate is never exceeded.
    interval: Duration,
    /// How far ahead of the steady rate a permit may be taken: room for `burst - 1` more.
    tolerance: Duration,
    /// When the next permit falls due at the steady rate (GCRA's theoretical arrival time);
    /// `None` before the first.
    due: Mutex<Option<Instant>>,
}

impl Limiter {
    fn new(per_second: NonZeroU32, burst: NonZeroU32) -> Limiter {
        let interval = Duration::from_nanos(1_000_000_000u64.div_ceil(u64::from(per_second.get())));
        Limiter {
            interval,
            tolerance: interval.saturating_mul(burst.get() - 1),
            due: Mutex::new(None),
        }
    }

    /// Reserves the next permit at `now`; how long to wait before using it.
    fn reserve(&self, now: Instant) -> Duration {
        let mut due = self.due.lock().unwrap_or_else(PoisonError::into_inner);
        let slot = due.map_or(now, |d| d.max(now));
        *due = Some(slot.checked_add(self.interval).unwrap_or(slot));
        slot.saturating_duration_since(now)
            .saturating_sub(self.tolerance)
    }

    /// Waits on `clock` until a permit is this caller's.
    async fn until_ready(&self, clock: &dyn Clock) {
        let wait = self.reserve(clock.now());
        if !wait.is_zero() {
            clock.sleep(wait).await;
        }
    }
}

/// The longest a 429 hint pauses a client; a longer hint fails the calls that cannot wait.
pub const MAX_PAUSE: Duration = Duration::from_secs(300);

/// The longest rate-limit headers saying nothing is left pause a client: their reset time has
/// whole-second resolution while the limit refills continuously.
const MAX_HEADER_PAUSE: Duration = Duration::from_secs(1);

#[derive(Debug, Default)]
struct Pause {
    /// No request is sent before this.
    until: Option<Instant>,
    /// The 429 that set the pause, and when the service's hint (uncapped) runs out.
    cause: Option<(Box<ApiError>, Instant)>,
    /// When the last warning about a 429 was logged, and the 429s seen since.
    warned: Option<(Instant, u32)>,
}

/// At most one warning about 429s per this long; the ones in between are counted in the next.
const WARN_EVERY: Duration = Duration::from_secs(1);

/// Which rate limit a client's requests are under now ([`super::Client::limiter`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum LimiterState {
    /// This process limits itself to `per_second` (`None`: no client-side limit).
    Local {
        /// Requests per second.
        per_second: Option<u32>,
    },
    /// Permits come from the limit shared through Redis by a fleet of `fleet` processes.
    Shared {
        /// Processes on the key that asked for a permit lately, this one included.
        fleet: u32,
    },
    /// Redis is out: this process limits itself to its share of the limit, `per_second`, the
    /// rate divided by the `fleet` it last heard of, until Redis answers again.
    Fallback {
        /// The fleet's size when Redis last answered.
        fleet: u32,
        /// This process's share of the limit.
        per_second: u32,
    },
}

/// The client's throttle.
#[derive(Debug)]
pub struct Throttle {
    /// The client's clock, which the limiter and pauses are timed and slept on.
    clock: std::sync::Arc<dyn Clock>,
    limiter: Option<Limiter>,
    per_second: Option<u32>,
    pause: Mutex<Pause>,
    #[cfg(feature = "redis")]
    shared: Option<std::sync::Arc<super::shared::Shared>>,
    /// The limiter of this process's share while Redis is out, with the share it was made for.
    #[cfg(feature = "redis")]
    fallback: Mutex<Option<(u32, std::sync::Arc<Limiter>)>>,
    /// The latest slot this process reserved in Redis: when Redis goes out, the reserved slots
    /// are still sent, and the fallback share starts after them.
    #[cfg(feature = "redis")]
    reserved_until: Mutex<Option<Instant>>,
}

impl Throttle {
    /// `per_second` requests per second with bursts of `burst`; `None` for no client-side limit.
    pub fn new(per_second: Option<u32>, burst: u32, clock: std::sync::Arc<dyn Clock>) -> Throttle {
        let limiter = per_second
            .and_then(NonZeroU32::new)
            .map(|rate| Limiter::new(rate, NonZeroU32::new(burst).unwrap_or(NonZeroU32::MIN)));
        Throttle {
            clock,
            limiter,
            per_second,
            pause: Mutex::default(),
            #[cfg(feature = "redis")]
            shared: None,
            #[cfg(feature = "redis")]
            fallback: Mutex::default(),
            #[cfg(feature = "redis")]
            reserved_until: Mutex::default(),
        }
    }

    /// Which limit requests are under now.
    pub fn state(&self) -> LimiterState {
        #[cfg(feature = "redis")]
        if let Some(shared) = &self.shared {
            let fleet = shared.fleet();
            return if shared.is_down() {
                LimiterState::Fallback {
                    fleet,
                    per_second: self.share(fleet),
                }
            } else {
                LimiterState::Shared { fleet }
            };
        }
        LimiterState::Local {
            per_second: self.per_second,
        }
    }

    /// This process's share of the limit in a fleet of `fleet`: at least one request a second.
    #[cfg(feature = "redis")]
    fn share(&self, fleet: u32) -> u32 {
        (self.per_second.unwrap_or(1) / fleet.max(1)).max(1)
    }

    /// The limiter of this process's share in a fleet of `fleet`, made again when the share
    /// changed.
    #[cfg(feature = "redis")]
    fn fallback(&self, fleet: u32) -> std::sync::Arc<Limiter> {
        let share = self.share(fleet);
        let mut slot = self.fallback.lock().unwrap_or_else(PoisonError::into_inner);
        match &*slot {
            Some((s, limiter)) if *s == share => limiter.clone(),
            _ => {
                // No burst: permits reserved in Redis before the outage are still being sent.
                let rate = NonZeroU32::new(share).unwrap_or(NonZeroU32::MIN);
                let limiter = std::sync::Arc::new(Limiter::new(rate, NonZeroU32::MIN));
                *slot = Some((share, limiter.clone()));
                limiter
            }
        }
    }

    /// Takes permits from a limit shared by every process on the key (feature `redis`); this
    /// process's own limiter stands in while Redis is out.
    #[cfg(feature = "redis")]
    pub(crate) fn shared(mut self, shared: super::shared::Shared) -> Throttle {
        self.shared = Some(std::sync::Arc::new(shared));
        self
    }

    fn pause(&self) -> MutexGuard<'_, Pause> {
        self.pause.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Waits until a request may be sent. A pause set by a 429 that lasts past `deadline` is not
    /// waited for: the 429 comes back, its `retry_after` set to what is left of the service's
    /// hint. With a shared limit (feature `redis`) the permit is a slot reserved in the fleet's
    /// limiter, and comes from this process's fair share while Redis is out.
    pub async fn acquire(&self, deadline: Instant) -> Result<(), Box<ApiError>> {
        self.wait_out_pause(deadline).await?;
        #[cfg(feature = "redis")]
        if let Some(shared) = &self.shared {
            loop {
                match shared.acquire().await {
                    super::shared::Permit::Reserved(wait) => {
                        let at = self.clock.now() + wait;
                        {
                            let mut until = self
                                .reserved_until
                                .lock()
                                .unwrap_or_else(PoisonError::into_inner);
                            if until.is_none_or(|u| u < at) {
                                *until = Some(at);
                            }
                        }
                        if !wait.is_zero() {
                            sleep_until(&*self.clock, at).await;
                        }
                        return Ok(());
                    }
                    super::shared::Permit::Paused(wait) => {
                        self.pause_from_fleet(wait);
                        self.wait_out_pause(deadline).await?;
                    }
                    super::shared::Permit::Unavailable => {
                        // The slots reserved before the outage go first: the fleet's other
                        // processes still send theirs, and the key's limit counts them all.
                        let reserved = *self
                            .reserved_until
                            .lock()
                            .unwrap_or_else(PoisonError::into_inner);
                        if let Some(until) = reserved.filter(|u| *u > self.clock.now()) {
                            sleep_until(&*self.clock, until).await;
                        }
                        self.fallback(shared.fleet())
                            .until_ready(&*self.clock)
                            .await;
                        return Ok(());
                    }
                }
            }
        }
        if let Some(l) = &self.limiter {
            l.until_ready(&*self.clock).await;
        }
        Ok(())
    }

    /// Sleeps through this client's pause, or fails at once when it lasts past `deadline`.
    async fn wait_out_pause(&self, deadline: Instant) -> Result<(), Box<ApiError>> {
        loop {
            let until = {
                let pause = self.pause();
                let now = self.clock.now();
                match pause.until {
                    Some(until) if until > now => {
                        if until > deadline
                            && let Some((api, hint_end)) = &pause.cause
                        {
                            let mut api = api.clone();
                            let left = hint_end.saturating_duration_since(now);
                            api.retry_after = Some(left);
                            api.message = format!(
                                "{} (the client holds every request for another {}, past what \
                                 this call may still take)",
                                api.message,
                                seconds(until.saturating_duration_since(now))
                            );
                            return Err(api);
                        }
                        until
                    }
                    _ => return Ok(()),
                }
            };
            sleep_until(&*self.clock, until).await;
        }
    }

    /// Another process of the fleet saw a 429: this client pauses as if it had.
    #[cfg(feature = "redis")]
    fn pause_from_fleet(&self, wait: Duration) {
        let body = serde_json::json!({"error": {
            "code": "RATE_LIMIT_EXCEEDED",
            "message": "another process on this API key was told to wait (shared rate limit)",
            "retry_after": wait.as_secs_f64(),
        }});
        let api = ApiError::from_parts(
            429,
            &reqwest::header::HeaderMap::new(),
            body.to_string().as_bytes(),
        );
        self.hold(&api, wait, false);
    }

    /// Holds every request of this client (and its clones) for the retry hint of a 429, at most
    /// [`MAX_PAUSE`]; logged at warn.
    pub fn pause_for(&self, api: &ApiError, wait: Duration) {
        self.hold(api, wait, true);
        #[cfg(feature = "redis")]
        if let (Some(shared), Ok(rt)) = (&self.shared, tokio::runtime::Handle::try_current()) {
            let shared = shared.clone();
            let wait = wait.min(MAX_PAUSE);
            rt.spawn(async move { shared.pause(wait).await });
        }
    }

    /// Pauses this client for `wait` (at most [`MAX_PAUSE`]) because of `api`; `log` says whether
    /// this is news worth a warning.
    fn hold(&self, api: &ApiError, wait: Duration, log: bool) {
        let now = self.clock.now();
        let until = now + wait.min(MAX_PAUSE);
        let mut pause = self.pause();
        if log {
            // A 429 storm is one line a second, with how many 429s it stands for.
            match pause.warned {
                Some((at, ref mut since)) if now.duration_since(at) < WARN_EVERY => *since += 1,
                _ => {
                    let since = pause.warned.map_or(0, |(_, n)| n);
                    tracing::warn!(
                        hint = %seconds(wait),
                        paused_for = %seconds(wait.min(MAX_PAUSE)),
                        task_id = api.info.task_id.as_deref().unwrap_or(""),
                        more_429s_since_last_warning = since,
                        "429 from the service: every request of this client waits"
                    );
                    pause.warned = Some((now, 0));
                }
            }
        }
        if pause.until.is_none_or(|cur| cur < until) {
            pause.until = Some(until);
            let hint_end = now.checked_add(wait).unwrap_or(until);
            pause.cause = Some((Box::new(api.clone()), hint_end));
        }
    }

    /// Adapts to the service's headers: when nothing is left, pause until the reset time, but no
    /// longer than one request slot of the advertised limit, and never longer than a second.
    pub fn observe(&self, rl: &RateLimit) {
        if rl.remaining == Some(0)
            && let Some(wait) = rl
                .reset
                .and_then(|t| t.duration_since(self.clock.wall()).ok())
        {
            let slot = rl
                .limit
                .filter(|l| *l > 0)
                .map_or(wait, |l| Duration::from_secs_f64(1.0 / l as f64));
            let wait = wait.min(slot).min(MAX_HEADER_PAUSE);
            let until = self.clock.now() + wait;
            let mut pause = self.pause();
            if pause.until.is_none_or(|cur| cur < until) {
                tracing::debug!(wait = %seconds(wait), "rate-limit headers: nothing left");
                pause.until = Some(until);
                pause.cause = None;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::clock::ManualClock;

    fn limiter(per_second: u32, burst: u32) -> Limiter {
        Limiter::new(
            NonZeroU32::new(per_second).unwrap(),
            NonZeroU32::new(burst).unwrap(),
        )
    }

    #[test]
    fn a_burst_goes_at_once_then_one_permit_per_interval() {
        let l = limiter(10, 3);
        let now = ManualClock::new().now();
        let waits: Vec<_> = (0..6).map(|_| l.reserve(now).as_millis()).collect();
        assert_eq!(waits, [0, 0, 0, 100, 200, 300]);
        // Time passing refills the burst, up to its size and no further.
        let later = now + Duration::from_secs(10);
        let waits: Vec<_> = (0..4).map(|_| l.reserve(later).as_millis()).collect();
        assert_eq!(waits, [0, 0, 0, 100]);
    }

    #[test]
    fn the_interval_rounds_up_so_the_rate_is_never_exceeded() {
        let l = limiter(83, 1);
        assert_eq!(l.interval, Duration::from_nanos(12_048_193));
        let now = ManualClock::new().now();
        let last = (0..84).map(|_| l.reserve(now)).last().unwrap();
        assert!(last >= Duration::from_secs(1), "{last:?}");
    }

    #[tokio::test]
    async fn permits_are_slept_for_on_the_clients_clock() {
        let clock = ManualClock::new();
        let throttle = Throttle::new(Some(4), 2, std::sync::Arc::new(clock.clone()));
        let far = clock.now() + Duration::from_secs(60);
        for _ in 0..5 {
            throttle.acquire(far).await.unwrap();
        }
        // Two at once, then one every 250 ms of the client's clock: 5 permits in 750 ms.
        assert_eq!(clock.sleeps(), [Duration::from_millis(250); 3]);
    }
}
