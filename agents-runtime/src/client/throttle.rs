//! Where requests are throttled: a client-side rate limiter (governor; default 83 req/s per key,
//! spec 8) shared by every clone of a client, plus a pause that the service's own signals set: a
//! 429's retry hint, or rate-limit headers saying nothing is left before the reset time.

use std::num::NonZeroU32;
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime};

use governor::clock::DefaultClock;
use governor::state::{InMemoryState, NotKeyed};
use governor::{Quota, RateLimiter};

use super::error::RateLimit;

type Direct = RateLimiter<NotKeyed, InMemoryState, DefaultClock>;

/// The client's throttle.
#[derive(Debug)]
pub struct Throttle {
    limiter: Option<Direct>,
    pause_until: Mutex<Option<Instant>>,
}

impl Throttle {
    /// `per_second` requests per second with bursts of `burst`; `None` for no client-side limit.
    pub fn new(per_second: Option<u32>, burst: u32) -> Throttle {
        let limiter = per_second.and_then(NonZeroU32::new).map(|rate| {
            let burst = NonZeroU32::new(burst).unwrap_or(NonZeroU32::MIN);
            RateLimiter::direct(Quota::per_second(rate).allow_burst(burst))
        });
        Throttle {
            limiter,
            pause_until: Mutex::new(None),
        }
    }

    /// Waits until a request may be sent.
    pub async fn acquire(&self) {
        loop {
            let pause = *self
                .pause_until
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            match pause {
                Some(until) if until > Instant::now() => {
                    tokio::time::sleep_until(until.into()).await;
                }
                _ => break,
            }
        }
        if let Some(l) = &self.limiter {
            l.until_ready().await;
        }
    }

    /// Holds every request of this client (and its clones) for `wait`.
    pub fn pause(&self, wait: Duration) {
        let until = Instant::now() + wait.min(Duration::from_secs(300));
        let mut p = self
            .pause_until
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if p.is_none_or(|cur| cur < until) {
            *p = Some(until);
        }
    }

    /// Adapts to the service's headers: when nothing is left, pause until the reset time, but no
    /// longer than one request slot of the advertised limit (the reset header has whole-second
    /// resolution, the limit refills continuously).
    pub fn observe(&self, rl: &RateLimit) {
        if rl.remaining == Some(0)
            && let Some(wait) = rl
                .reset
                .and_then(|t| t.duration_since(SystemTime::now()).ok())
        {
            let slot = rl
                .limit
                .filter(|l| *l > 0)
                .map_or(wait, |l| Duration::from_secs_f64(1.0 / l as f64));
            self.pause(wait.min(slot));
        }
    }
}
