//! Where a failed request is classified and retried: the [`RetryPolicy`] and its classifier.
//!
//! A request has an [`Idempotency`]; the classifier decides from the error and that class
//! whether to try again, and the schedule (backon's exponential backoff with jitter, raised to
//! the service's retry hint) decides when:
//!
//! | error | `Safe` (GET) | `Unsafe` (runs) | `Once` (generation create) |
//! | --- | --- | --- | --- |
//! | 429 | retry, honouring the hint | retry | retry (the request was refused, not run) |
//! | nothing sent: no connection, or hyper found it closed before writing a byte | retry | retry | retry |
//! | other transport failure, timeout, 555 | retry | only with `retry_unsafe` | never |
//! | 500 | only with `retry_server_errors` | only with both flags | never |
//! | everything else | never | never | never |
//!
//! `x-should-retry: false` from the service always wins.

use std::time::Duration;

use backon::{BackoffBuilder, ExponentialBuilder};

use super::error::Error;

/// Whether a request may be repeated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Idempotency {
    /// Reads: repeating changes nothing.
    Safe,
    /// Agent runs: repeating costs a second run; retried on ambiguous failures only when the
    /// policy says so.
    Unsafe,
    /// Agent generation: each try counts against the daily limit of 100; never repeated after an
    /// ambiguous failure.
    Once,
}

/// What the classifier decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// Try again, after at least this long when the service said so.
    Retry(Option<Duration>),
    /// Return the error.
    Stop,
}

/// How the client retries.
#[derive(Debug, Clone)]
pub struct RetryPolicy {
    /// Attempts in all, the first included (default 6).
    pub max_attempts: u32,
    /// Give up once this much time has passed since the first attempt (default 60 s).
    pub max_elapsed: Duration,
    /// First backoff delay (default 200 ms).
    pub min_delay: Duration,
    /// Largest backoff delay (default 10 s).
    pub max_delay: Duration,
    /// Retry 500 answers (default false: the service retries before answering 500).
    pub retry_server_errors: bool,
    /// Treat agent runs as safe to repeat on timeouts and transport failures (default false).
    pub retry_unsafe: bool,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_attempts: 6,
            max_elapsed: Duration::from_secs(60),
            min_delay: Duration::from_millis(200),
            max_delay: Duration::from_secs(10),
            retry_server_errors: false,
            retry_unsafe: false,
        }
    }
}

impl RetryPolicy {
    /// No retries at all.
    pub fn none() -> Self {
        RetryPolicy {
            max_attempts: 1,
            ..RetryPolicy::default()
        }
    }

    /// The classifier.
    pub fn classify(&self, err: &Error, class: Idempotency) -> Decision {
        if let Some(false) = err.api().and_then(|a| a.should_retry) {
            return Decision::Stop;
        }
        let repeatable = match class {
            Idempotency::Safe => true,
            Idempotency::Unsafe => self.retry_unsafe,
            Idempotency::Once => false,
        };
        let retry = match err {
            Error::RateLimited(_) => true,
            Error::Transport(e) | Error::Timeout(e) if e.never_sent() => true,
            Error::Transport(_) | Error::Timeout(_) | Error::ServiceTimeout(_) => repeatable,
            Error::Internal(_) => repeatable && self.retry_server_errors,
            other => other.api().and_then(|a| a.should_retry) == Some(true) && repeatable,
        };
        if retry {
            Decision::Retry(err.retry_after())
        } else {
            Decision::Stop
        }
    }

    /// The backoff schedule: exponential from `min_delay` to `max_delay`, with jitter.
    pub fn schedule(&self) -> impl Iterator<Item = Duration> + use<> {
        ExponentialBuilder::default()
            .with_min_delay(self.min_delay)
            .with_max_delay(self.max_delay)
            .with_max_times(self.max_attempts.saturating_sub(1) as usize)
            .with_jitter()
            .build()
    }
}
