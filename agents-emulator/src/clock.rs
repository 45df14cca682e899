//! The emulator's one clock. Everything that follows time (task and run states, schedules,
//! download URL expiry, generations) reads it through [`Clock`], so a test can move it
//! forward ([`crate::EmulatorHandle::advance`]) instead of waiting, as the client's
//! `ManualClock` lets its tests do.
//!
//! It is real time plus an offset that only grows: every instant it gives is comparable with
//! every earlier one, and waits on the real timer ([`Clock::sleep_until`]) subtract the offset.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant, SystemTime};

/// The furthest the clock moves ahead of real time: a hundred years.
pub const MAX_AHEAD: Duration = Duration::from_secs(100 * 365 * 24 * 3600);

/// Real time, moved forward by what tests asked for.
#[derive(Debug, Default)]
pub struct Clock {
    /// How far the clock is ahead of real time, in nanoseconds.
    ahead_nanos: AtomicU64,
}

impl Clock {
    fn ahead(&self) -> Duration {
        Duration::from_nanos(self.ahead_nanos.load(Ordering::Acquire))
    }

    /// Now, on the monotonic clock.
    // The one read of the real monotonic clock.
    #[allow(clippy::disallowed_methods)]
    pub fn now(&self) -> Instant {
        Instant::now() + self.ahead()
    }

    /// Now, on the wall clock.
    // The one read of the real wall clock.
    #[allow(clippy::disallowed_methods)]
    pub fn wall(&self) -> SystemTime {
        SystemTime::now() + self.ahead()
    }

    /// Moves the clock forward by `by`, at most [`MAX_AHEAD`] ahead of real time in all (so
    /// no instant it gives overflows).
    pub fn advance(&self, by: Duration) {
        let max = u64::try_from(MAX_AHEAD.as_nanos()).unwrap_or(u64::MAX);
        let nanos = u64::try_from(by.as_nanos()).unwrap_or(u64::MAX);
        let _ = self
            .ahead_nanos
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |a| {
                Some(a.saturating_add(nanos).min(max))
            });
    }

    /// Sleeps on the real timer until this clock reads `at` (at once if the clock was moved
    /// past it meanwhile: the wait is re-checked after each real wake-up).
    pub async fn sleep_until(&self, at: Instant) {
        loop {
            let now = self.now();
            if now >= at {
                return;
            }
            // Woken at the latest when real time alone would reach `at`, and again at once if
            // the clock moved: checked every second at most, so an advance is seen promptly.
            tokio::time::sleep((at - now).min(Duration::from_secs(1))).await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn advancing_moves_both_clocks_and_never_back() {
        let c = Clock::default();
        let (i, w) = (c.now(), c.wall());
        c.advance(Duration::from_secs(3600));
        assert!(c.now() >= i + Duration::from_secs(3600));
        assert!(c.wall() >= w + Duration::from_secs(3600));
        c.advance(Duration::MAX);
        assert!(c.now() > i);
    }

    #[tokio::test]
    async fn a_sleep_ends_when_the_clock_is_moved_past_it() {
        let c = std::sync::Arc::new(Clock::default());
        let at = c.now() + Duration::from_secs(3600);
        let sleeper = {
            let c = c.clone();
            tokio::spawn(async move { c.sleep_until(at).await })
        };
        c.advance(Duration::from_secs(3600));
        tokio::time::timeout(Duration::from_secs(5), sleeper)
            .await
            .expect("the sleep ends within a second of the advance")
            .unwrap();
    }
}
