//! Waiters: poll a resource with growing intervals until it reaches an end state or a maximum
//! wait passes (like aws-sdk-rust's waiters). Tasks and generations both wait through here.

use std::future::Future;
use std::time::{Duration, Instant};

use super::error::Error;
use super::retry::{Decision, Idempotency, RetryPolicy};

/// How a waiter polls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WaitOptions {
    /// First interval between polls.
    pub initial_interval: Duration,
    /// Largest interval; intervals grow by half each poll up to it.
    pub max_interval: Duration,
    /// Give up after this long.
    pub max_wait: Duration,
}

impl WaitOptions {
    /// For agent tasks: 250 ms growing to 5 s, up to 10 minutes.
    pub const TASK: WaitOptions = WaitOptions {
        initial_interval: Duration::from_millis(250),
        max_interval: Duration::from_secs(5),
        max_wait: Duration::from_secs(600),
    };

    /// For agent generations (3 to 7 minutes live): 1 s growing to 15 s, up to 20 minutes.
    pub const GENERATION: WaitOptions = WaitOptions {
        initial_interval: Duration::from_secs(1),
        max_interval: Duration::from_secs(15),
        max_wait: Duration::from_secs(1200),
    };

    /// The same options with another maximum wait.
    pub fn max_wait(self, max_wait: Duration) -> Self {
        WaitOptions { max_wait, ..self }
    }

    /// The same options with other intervals.
    pub fn intervals(self, initial: Duration, max: Duration) -> Self {
        WaitOptions {
            initial_interval: initial,
            max_interval: max.max(initial),
            ..self
        }
    }
}

/// One poll's outcome.
#[derive(Debug)]
pub enum Poll<T> {
    /// Finished (successfully or not, as `T` says).
    Done(T),
    /// Not finished; the state seen.
    Pending(String),
}

/// Whether a failed poll should just be tried again at the next interval, as the classifier
/// judges a read under [`RetryPolicy::POLLING`]: transport failures, timeouts, 429 and 5xx
/// answers. Other errors (401, 404, decode, …) end the wait.
fn transient(e: &Error) -> bool {
    RetryPolicy::POLLING.classify(e, Idempotency::Safe) != Decision::Stop
}

/// Polls `poll` until it is done or `options.max_wait` has passed. `what` names the resource in
/// the timeout error. Transient failures of a poll count as "not finished yet".
pub async fn wait<T, F, Fut>(what: String, options: WaitOptions, mut poll: F) -> Result<T, Error>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<Poll<T>, Error>>,
{
    let start = Instant::now();
    let mut interval = options.initial_interval;
    loop {
        let state = match poll().await {
            Ok(Poll::Done(t)) => return Ok(t),
            Ok(Poll::Pending(state)) => state,
            Err(e) if transient(&e) => {
                tracing::warn!(%what, error = %e, "poll failed; polling again");
                format!("unknown ({e})")
            }
            Err(e) => return Err(e),
        };
        let waited = start.elapsed();
        if waited >= options.max_wait {
            return Err(Error::WaitTimeout {
                what,
                waited,
                last_state: state,
            });
        }
        tracing::debug!(%what, %state, ?interval, "not finished; polling again");
        tokio::time::sleep(interval.min(options.max_wait - waited)).await;
        interval = (interval + interval / 2).min(options.max_interval);
    }
}
