//! Waiters: poll a resource with growing intervals until it reaches an end state or a maximum
//! wait passes (like aws-sdk-rust's waiters). One poller ([`polls`]) yields each poll's outcome;
//! every wait consumes it to its end, and a batch's progress stream hands it out.

use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::StreamExt as _;

use super::clock::Clock;

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

/// One poll's outcome: `P` is what a poll of an unfinished resource saw (its state in words, or
/// a typed progress report).
#[derive(Debug)]
pub(crate) enum Poll<T, P = String> {
    /// Finished (successfully or not, as `T` says).
    Done(T),
    /// Not finished; what was seen.
    Pending(P),
}

/// What a waiter needs of the error its polls fail with: whether a failure is worth polling
/// again, and the error for a wait that ran out of time.
pub(crate) trait WaitError: std::fmt::Display {
    /// The poll failed in a way the next poll may not (a transport failure, a 429 or a 5xx).
    fn transient(&self) -> bool;
    /// The wait for `what` ended after `waited` with the resource still in `last_state`.
    fn timed_out(what: String, waited: Duration, last_state: String) -> Self;
}

/// Polls `poll` until it is done or `options.max_wait` has passed on `clock`: the last item of
/// [`polls`]. `what` names the resource in the timeout error. Transient failures of a poll count
/// as "not finished yet".
pub(crate) async fn wait<T, P, E, F, Fut>(
    clock: Arc<dyn Clock>,
    what: String,
    options: WaitOptions,
    poll: F,
) -> Result<T, E>
where
    P: std::fmt::Display,
    E: WaitError,
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<Poll<T, P>, E>>,
{
    let mut polls = std::pin::pin!(polls(clock, what, options, poll));
    while let Some(step) = polls.next().await {
        match step {
            Ok(Poll::Done(t)) => return Ok(t),
            Ok(Poll::Pending(_)) => {}
            Err(e) => return Err(e),
        }
    }
    ended_without_an_answer()
}

/// The one poller: polls `poll` on `clock`, the first poll at once and the next
/// after intervals growing by half from `options.initial_interval` to `options.max_interval`,
/// and yields each outcome: every `Pending`, then the `Done` that ends the stream. A transient
/// failure is logged and polled through (it yields nothing); a fatal one is yielded and ends
/// the stream; once `options.max_wait` has passed without `Done`, the stream ends with
/// `E::timed_out` naming `what` and the last state seen, never having slept past it.
pub(crate) fn polls<T, P, E, F, Fut>(
    clock: Arc<dyn Clock>,
    what: String,
    options: WaitOptions,
    poll: F,
) -> impl futures_util::Stream<Item = Result<Poll<T, P>, E>>
where
    P: std::fmt::Display,
    E: WaitError,
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<Poll<T, P>, E>>,
{
    struct State<F> {
        clock: Arc<dyn Clock>,
        what: String,
        poll: F,
        start: Instant,
        interval: std::time::Duration,
        first: bool,
        ended: bool,
    }
    let start = clock.now();
    let state = State {
        clock,
        what,
        poll,
        start,
        interval: options.initial_interval,
        first: true,
        ended: false,
    };
    futures_util::stream::unfold(state, move |mut s| async move {
        if s.ended {
            return None;
        }
        loop {
            if !s.first {
                let waited = s.clock.now().saturating_duration_since(s.start);
                s.clock
                    .sleep(s.interval.min(options.max_wait.saturating_sub(waited)))
                    .await;
                s.interval = (s.interval + s.interval / 2).min(options.max_interval);
            }
            s.first = false;
            let state = match (s.poll)().await {
                Ok(Poll::Done(t)) => {
                    s.ended = true;
                    return Some((Ok(Poll::Done(t)), s));
                }
                Ok(Poll::Pending(p)) => Ok(p),
                Err(e) if e.transient() => {
                    tracing::warn!(what = %s.what, error = %e, "poll failed; polling again");
                    Err(format!("unknown ({e})"))
                }
                Err(e) => {
                    s.ended = true;
                    return Some((Err(e), s));
                }
            };
            let waited = s.clock.now().saturating_duration_since(s.start);
            if waited >= options.max_wait {
                s.ended = true;
                let last = match &state {
                    Ok(p) => p.to_string(),
                    Err(text) => text.clone(),
                };
                return Some((Err(E::timed_out(s.what.clone(), waited, last)), s));
            }
            match state {
                Ok(p) => {
                    tracing::debug!(what = %s.what, state = %p, interval = ?s.interval, "not finished; polling again");
                    return Some((Ok(Poll::Pending(p)), s));
                }
                Err(_) => continue,
            }
        }
    })
}

/// What [`wait`] returns if [`polls`] ended without a `Done`, a fatal error or the time-out,
/// which it never does: an error rather than a panic.
fn ended_without_an_answer<T, E: WaitError>() -> Result<T, E> {
    Err(E::timed_out(
        "a poll stream that ended early".to_owned(),
        Duration::ZERO,
        "unknown".to_owned(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::ManualClock;

    /// Each sleep of `clock` so far, in seconds.
    fn slept_secs(clock: &ManualClock) -> Vec<f64> {
        clock.sleeps().iter().map(Duration::as_secs_f64).collect()
    }

    #[derive(Debug, PartialEq)]
    enum TestError {
        Transient,
        Fatal,
        TimedOut { waited: Duration, last: String },
    }

    impl std::fmt::Display for TestError {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            write!(f, "{self:?}")
        }
    }

    impl WaitError for TestError {
        fn transient(&self) -> bool {
            *self == TestError::Transient
        }
        fn timed_out(_what: String, waited: Duration, last_state: String) -> Self {
            TestError::TimedOut {
                waited,
                last: last_state,
            }
        }
    }

    const OPTIONS: WaitOptions = WaitOptions {
        initial_interval: Duration::from_secs(1),
        max_interval: Duration::from_secs(3),
        max_wait: Duration::from_secs(10),
    };

    fn run<T>(
        clock: &ManualClock,
        mut answers: Vec<Result<Poll<T>, TestError>>,
    ) -> (Result<T, TestError>, usize) {
        answers.reverse();
        let mut polls = 0;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("a current-thread runtime");
        let result = runtime.block_on(wait(Arc::new(clock.clone()), "x".into(), OPTIONS, || {
            polls += 1;
            let next = answers
                .pop()
                .unwrap_or_else(|| Ok(Poll::Pending("queued".into())));
            std::future::ready(next)
        }));
        (result, polls)
    }

    #[test]
    fn intervals_grow_by_half_up_to_the_maximum() {
        let clock = ManualClock::new();
        let pending = || Ok(Poll::Pending("queued".into()));
        let (result, polls) = run(
            &clock,
            vec![
                pending(),
                pending(),
                pending(),
                pending(),
                Ok(Poll::Done(7)),
            ],
        );
        assert_eq!(result, Ok(7));
        assert_eq!(polls, 5);
        let secs = slept_secs(&clock);
        assert_eq!(secs, [1.0, 1.5, 2.25, 3.0]);
    }

    #[test]
    fn transient_failures_poll_again_and_fatal_ones_end_the_wait() {
        let clock = ManualClock::new();
        let (result, polls) = run(&clock, vec![Err(TestError::Transient), Ok(Poll::Done(1))]);
        assert_eq!((result, polls), (Ok(1), 2));
        let clock = ManualClock::new();
        let (result, polls) = run::<u8>(&clock, vec![Err(TestError::Fatal), Ok(Poll::Done(1))]);
        assert_eq!((result, polls), (Err(TestError::Fatal), 1));
        assert!(clock.sleeps().is_empty());
    }

    #[test]
    fn the_wait_ends_at_max_wait_with_the_last_state_and_never_sleeps_past_it() {
        let clock = ManualClock::new();
        let (result, _) = run::<u8>(&clock, vec![Ok(Poll::Pending("in_progress".into()))]);
        assert_eq!(
            result,
            Err(TestError::TimedOut {
                waited: Duration::from_secs(10),
                last: "queued".into()
            })
        );
        let slept: Duration = clock.sleeps().iter().sum();
        assert_eq!(slept, Duration::from_secs(10));
    }

    #[test]
    fn the_poll_stream_yields_each_report_skips_transient_failures_and_ends_with_done() {
        let clock = ManualClock::new();
        let mut answers: Vec<Result<Poll<u8, u8>, TestError>> = vec![
            Ok(Poll::Pending(1)),
            Err(TestError::Transient),
            Ok(Poll::Pending(2)),
            Ok(Poll::Done(3)),
            Ok(Poll::Pending(9)),
        ];
        answers.reverse();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("a current-thread runtime");
        let seen: Vec<Result<(bool, u8), TestError>> = runtime.block_on(
            polls(Arc::new(clock.clone()), "x".into(), OPTIONS, || {
                std::future::ready(answers.pop().unwrap_or(Ok(Poll::Pending(0))))
            })
            .map(|step| {
                step.map(|p| match p {
                    Poll::Done(v) => (true, v),
                    Poll::Pending(v) => (false, v),
                })
            })
            .collect(),
        );
        assert_eq!(seen, [Ok((false, 1)), Ok((false, 2)), Ok((true, 3))]);
        // Four polls, three sleeps on the growing intervals; nothing after `Done`.
        let secs = slept_secs(&clock);
        assert_eq!(secs, [1.0, 1.5, 2.25]);
        assert_eq!(answers.len(), 1);

        // Without an end, the stream stops at the maximum wait with the last report.
        let clock = ManualClock::new();
        let seen: Vec<Result<Poll<u8, u8>, TestError>> = runtime.block_on(
            polls(Arc::new(clock.clone()), "x".into(), OPTIONS, || {
                std::future::ready(Ok(Poll::Pending(4)))
            })
            .collect(),
        );
        assert!(matches!(
            seen.last(),
            Some(Err(TestError::TimedOut { last, .. })) if last == "4"
        ));
        assert_eq!(
            clock.sleeps().iter().sum::<Duration>(),
            Duration::from_secs(10)
        );
    }
}
