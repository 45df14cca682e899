//! The client's one clock: what it reads the time from and sleeps on, for the pauses between
//! retries and their `max_elapsed` budget, the client-side rate limit and the throttle's pause
//! after a 429, the waits between polls of a task, batch, job, crawl, generation or research
//! run, and the short wait before a research stream reconnects, and the wall-clock time ([`Clock::wall`]) a `Retry-After` date or
//! a rate-limit reset time is read against. A [`ManualClock`] makes all of them deterministic in
//! tests (like smithy-rs's `TimeSource` and `AsyncSleep`); clippy's `disallowed-methods`
//! (`agents-client/clippy.toml`) keeps other reads of the time out of the crate.
//!
//! Left on the real clock, because they measure the network rather than decide a wait: the
//! HTTP timeouts, the silence that counts as a stalled research stream, and the Redis calls of a
//! shared limit.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant, SystemTime};

/// What [`Clock::sleep`] returns.
pub type Sleep = Pin<Box<dyn Future<Output = ()> + Send>>;

/// Where a [`Client`](super::Client) reads the time and how it sleeps
/// ([`ClientBuilder::clock`](super::ClientBuilder::clock)); tokio's clock unless set.
pub trait Clock: fmt::Debug + Send + Sync + 'static {
    /// The current instant.
    fn now(&self) -> Instant;
    /// The current wall-clock time, which `Retry-After` dates and rate-limit reset times are
    /// read against. The real one unless a clock says otherwise.
    fn wall(&self) -> SystemTime {
        // The one read of the real wall clock for clocks that keep no time of their own.
        #[allow(clippy::disallowed_methods)]
        SystemTime::now()
    }
    /// A future that completes once `duration` has passed on this clock.
    fn sleep(&self, duration: Duration) -> Sleep;
}

/// tokio's clock, the default (it follows `tokio::time::pause` in tests that use it).
#[derive(Debug, Clone, Copy, Default)]
pub struct TokioClock;

impl Clock for TokioClock {
    fn now(&self) -> Instant {
        tokio::time::Instant::now().into_std()
    }
    fn sleep(&self, duration: Duration) -> Sleep {
        Box::pin(tokio::time::sleep(duration))
    }
}

/// A clock that moves only when the client sleeps on it: each sleep returns at once, having moved
/// the clock forward by its length, and is recorded. Clones share one clock, so a test keeps a
/// clone to read [`ManualClock::sleeps`] after handing one to the client.
///
/// ```
/// use std::time::Duration;
/// use agents_runtime::{Clock, ManualClock};
///
/// let clock = ManualClock::new();
/// let start = clock.now();
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// clock.sleep(Duration::from_secs(2)).await;
/// # });
/// clock.advance(Duration::from_secs(1));
/// assert_eq!(clock.now() - start, Duration::from_secs(3));
/// assert_eq!(clock.sleeps(), [Duration::from_secs(2)]);
/// ```
#[derive(Debug, Clone)]
pub struct ManualClock {
    start: Instant,
    start_wall: SystemTime,
    state: Arc<Mutex<Moved>>,
}

#[derive(Debug, Default)]
struct Moved {
    elapsed: Duration,
    sleeps: Vec<Duration>,
}

impl ManualClock {
    /// A clock standing at the instant it was made.
    // A manual clock starts from the real time, then moves only as told.
    #[allow(clippy::disallowed_methods)]
    pub fn new() -> Self {
        ManualClock {
            start: Instant::now(),
            start_wall: SystemTime::now(),
            state: Arc::default(),
        }
    }

    /// Every sleep so far, in order.
    pub fn sleeps(&self) -> Vec<Duration> {
        self.moved().sleeps.clone()
    }

    /// How far the clock has moved since it was made.
    pub fn elapsed(&self) -> Duration {
        self.moved().elapsed
    }

    /// Moves the clock forward by `duration` without recording a sleep (time that passed while
    /// the client was doing something else).
    pub fn advance(&self, duration: Duration) {
        self.moved().elapsed += duration;
    }

    fn moved(&self) -> std::sync::MutexGuard<'_, Moved> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Default for ManualClock {
    fn default() -> Self {
        ManualClock::new()
    }
}

impl Clock for ManualClock {
    fn now(&self) -> Instant {
        self.start + self.elapsed()
    }
    fn wall(&self) -> SystemTime {
        self.start_wall + self.elapsed()
    }
    fn sleep(&self, duration: Duration) -> Sleep {
        let mut moved = self.moved();
        moved.elapsed += duration;
        moved.sleeps.push(duration);
        Box::pin(std::future::ready(()))
    }
}

/// Sleeps on `clock` until `at` (at once if it has passed).
pub(crate) fn sleep_until(clock: &dyn Clock, at: Instant) -> Sleep {
    clock.sleep(at.saturating_duration_since(clock.now()))
}
