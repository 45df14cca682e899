//! Where a failed request is classified and retried: the [`RetryPolicy`] and its classifier.
//!
//! A request has an [`Idempotency`]; the classifier decides from the error and that class
//! whether to try again, and the schedule (backon's exponential backoff with jitter, raised to
//! the service's retry hint) decides when:
//!
//! | error | `Safe` (GET) | `Unsafe` (runs) | `Once` (generation create) |
//! | --- | --- | --- | --- |
//! | held back by the client's own pause past the call's budget (nothing sent) | never | never | never |
//! | 429 | retry, honouring the hint | retry | retry (the request was refused, not run) |
//! | nothing sent: no connection, or hyper found it closed before writing a byte | retry | retry | retry |
//! | other transport failure, timeout, 555, a gateway's 502, 503 or 504 | retry | only with `retry_unsafe` | never |
//! | 500, 501, other 5xx | only with `retry_server_errors` | only with both flags | never |
//! | everything else | never | never | never |
//!
//! `x-should-retry: false` from the service always wins.

use std::time::Duration;

use backon::{BackoffBuilder, ExponentialBuilder};

use super::error::Error;

/// A rule of the classifier chain: `Some(retry?)` when it decides, `None` to leave the error to
/// the next rule. `repeatable` says whether the call may run twice (its [`Idempotency`] under the
/// policy).
type Rule = fn(&RetryPolicy, &Error, bool) -> Option<bool>;

/// The classifier chain, in order.
const RULES: [Rule; 6] = [
    held_back,
    service_says,
    rate_limited,
    never_sent,
    ambiguous,
    server_error,
];

/// The client's own pause outlasts the call: trying again would wait past its budget too.
fn held_back(_: &RetryPolicy, err: &Error, _: bool) -> Option<bool> {
    matches!(err, Error::HeldBack(_)).then_some(false)
}

/// `x-should-retry` from the service wins: `false` stops, `true` retries what may run twice.
fn service_says(_: &RetryPolicy, err: &Error, repeatable: bool) -> Option<bool> {
    err.api()
        .and_then(|a| a.should_retry)
        .map(|says| says && repeatable)
}

/// A 429 was refused, not run: always tried again.
fn rate_limited(_: &RetryPolicy, err: &Error, _: bool) -> Option<bool> {
    matches!(err, Error::RateLimited(_)).then_some(true)
}

/// A request that provably never left runs at most once however often it is sent.
fn never_sent(_: &RetryPolicy, err: &Error, _: bool) -> Option<bool> {
    match err {
        Error::Transport(t) | Error::Timeout(t) if t.never_sent() => Some(true),
        _ => None,
    }
}

/// Transport failures, timeouts and 555 may or may not have run the call, and so may a 502, 503
/// or 504: what a gateway or load balancer between the client and the service answers when the
/// path fails (the vendor's clients retry them too), not the service's answer after its own
/// retries, which is 500.
fn ambiguous(_: &RetryPolicy, err: &Error, repeatable: bool) -> Option<bool> {
    err.answer_lost().then_some(repeatable)
}

/// 500, 501 and statuses past them: the service already retried before answering, so only a
/// policy that asks for it tries again.
fn server_error(policy: &RetryPolicy, err: &Error, repeatable: bool) -> Option<bool> {
    let server = matches!(err, Error::Internal(_) | Error::NotImplemented(_))
        || matches!(err, Error::Status(a) if a.info.status >= 500);
    server.then_some(repeatable && policy.retry_server_errors)
}

pub use crate::endpoint::Idempotency;

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

    /// The settings waiters poll with: a poll is a read whose per-request retries were already
    /// spent, so any server error (500 included) is worth polling through.
    pub(crate) const POLLING: RetryPolicy = RetryPolicy {
        max_attempts: 6,
        max_elapsed: Duration::from_secs(60),
        min_delay: Duration::from_millis(200),
        max_delay: Duration::from_secs(10),
        retry_server_errors: true,
        retry_unsafe: false,
    };

    /// The classifier: the one place that decides whether a failed call is tried again. Each
    /// rule of the chain (the service's `x-should-retry`, 429, never sent, ambiguous failures,
    /// server errors) may decide; the first that does wins, and an error no rule claims is
    /// final. [`Error::is_retryable`] and the waiters ask it too.
    pub fn classify(&self, err: &Error, class: Idempotency) -> Decision {
        let repeatable = match class {
            Idempotency::Safe => true,
            Idempotency::Unsafe => self.retry_unsafe,
            Idempotency::Once => false,
        };
        let retry = RULES
            .iter()
            .find_map(|rule| rule(self, err, repeatable))
            .unwrap_or(false);
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

impl Error {
    /// Whether trying the same read again may succeed, as the client's default retry policy
    /// judges it ([`RetryPolicy::classify`]): rate limits, service timeouts (555), a gateway's
    /// 502, 503 or 504, transport failures and timeouts. 500 is not: the service retried before
    /// answering.
    pub fn is_retryable(&self) -> bool {
        RetryPolicy::default().classify(self, Idempotency::Safe) != Decision::Stop
    }
}

/// Waiters poll again after what the polling policy would retry: transport failures, timeouts,
/// 429 and 5xx answers. Other errors (401, 404, decode, …) end the wait.
impl super::waiter::WaitError for Error {
    fn transient(&self) -> bool {
        RetryPolicy::POLLING.classify(self, Idempotency::Safe) != Decision::Stop
    }
    fn timed_out(what: String, waited: Duration, last_state: String) -> Self {
        Error::WaitTimeout {
            what,
            waited,
            last_state,
        }
    }
}

#[cfg(test)]
mod tests {
    use reqwest::header::{HeaderMap, HeaderValue};

    use super::*;
    use crate::client::error::ApiError;

    fn answer(status: u16, should_retry: Option<&'static str>) -> Error {
        let mut headers = HeaderMap::new();
        if let Some(v) = should_retry {
            headers.insert("x-should-retry", HeaderValue::from_static(v));
        }
        Error::from_status(ApiError::from_parts(status, &headers, b"{}"))
    }

    fn decide(policy: &RetryPolicy, err: &Error) -> [bool; 3] {
        [Idempotency::Safe, Idempotency::Unsafe, Idempotency::Once]
            .map(|class| policy.classify(err, class) != Decision::Stop)
    }

    #[test]
    fn the_table_of_the_module_docs_holds() {
        let default = RetryPolicy::default();
        let both = RetryPolicy {
            retry_server_errors: true,
            retry_unsafe: true,
            ..RetryPolicy::default()
        };
        assert_eq!(decide(&default, &answer(429, None)), [true, true, true]);
        assert_eq!(decide(&default, &answer(555, None)), [true, false, false]);
        assert_eq!(decide(&both, &answer(555, None)), [true, true, false]);
        for status in [502, 503, 504] {
            assert_eq!(
                decide(&default, &answer(status, None)),
                [true, false, false],
                "{status}"
            );
            assert_eq!(
                decide(&both, &answer(status, None)),
                [true, true, false],
                "{status}"
            );
        }
        for status in [500, 501, 505, 599] {
            assert_eq!(
                decide(&default, &answer(status, None)),
                [false; 3],
                "{status}"
            );
            assert_eq!(
                decide(&both, &answer(status, None)),
                [true, true, false],
                "{status}"
            );
        }
        for status in [400, 401, 402, 403, 404, 422] {
            assert_eq!(decide(&both, &answer(status, None)), [false; 3], "{status}");
        }
        // The service's word wins, within what may run twice.
        assert_eq!(decide(&default, &answer(429, Some("false"))), [false; 3]);
        assert_eq!(
            decide(&default, &answer(409, Some("true"))),
            [true, false, false]
        );
    }

    #[test]
    fn is_retryable_and_the_waiters_ask_the_same_classifier() {
        for (status, retryable, polled_through) in [
            (429, true, true),
            (555, true, true),
            (500, false, true),
            (502, true, true),
            (503, true, true),
            (404, false, false),
        ] {
            let err = answer(status, None);
            assert_eq!(err.is_retryable(), retryable, "{status}");
            assert_eq!(
                RetryPolicy::POLLING.classify(&err, Idempotency::Safe) != Decision::Stop,
                polled_through,
                "{status}"
            );
        }
    }
}
