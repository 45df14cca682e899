//! Waiters: poll a resource with growing intervals until it reaches an end state or a maximum
//! wait passes (like aws-sdk-rust's waiters). Tasks and generations both wait through here.

use std::future::Future;
use std::time::{Duration, Instant};

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
pub(crate) enum Poll<T> {
    /// Finished (successfully or not, as `T` says).
    Done(T),
    /// Not finished; the state seen.
    Pending(String),
}

/// What a waiter needs of the error its polls fail with: whether a failure is worth polling
/// again, and the error for a wait that ran out of time.
pub(crate) trait WaitError: std::fmt::Display {
    /// The poll failed in a way the next poll may not (a transport failure, a 429 or a 5xx).
    fn transient(&self) -> bool;
    /// The wait for `what` ended after `waited` with the resource still in `last_state`.
    fn timed_out(what: String, waited: Duration, last_state: String) -> Self;
}

/// Where a waiter gets the time and how it sleeps: tokio's clock in the client, a fake one in
/// tests.
pub(crate) trait Timer {
    /// The current instant.
    fn now(&self) -> Instant;
    /// Sleeps for `d`.
    fn sleep(&self, d: Duration) -> impl Future<Output = ()> + Send;
}

/// tokio's clock.
pub(crate) struct Tokio;

impl Timer for Tokio {
    fn now(&self) -> Instant {
        Instant::now()
    }
    fn sleep(&self, d: Duration) -> impl Future<Output = ()> + Send {
        tokio::time::sleep(d)
    }
}

/// Polls `poll` until it is done or `options.max_wait` has passed, on tokio's clock. `what` names
/// the resource in the timeout error. Transient failures of a poll count as "not finished yet".
pub(crate) async fn wait<T, E, F, Fut>(what: String, options: WaitOptions, poll: F) -> Result<T, E>
where
    E: WaitError,
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<Poll<T>, E>>,
{
    wait_on(&Tokio, what, options, poll).await
}

/// [`wait`] on the clock of `timer`.
pub(crate) async fn wait_on<T, E, F, Fut>(
    timer: &impl Timer,
    what: String,
    options: WaitOptions,
    mut poll: F,
) -> Result<T, E>
where
    E: WaitError,
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<Poll<T>, E>>,
{
    let start = timer.now();
    let mut interval = options.initial_interval;
    loop {
        let state = match poll().await {
            Ok(Poll::Done(t)) => return Ok(t),
            Ok(Poll::Pending(state)) => state,
            Err(e) if e.transient() => {
                tracing::warn!(%what, error = %e, "poll failed; polling again");
                format!("unknown ({e})")
            }
            Err(e) => return Err(e),
        };
        let waited = timer.now().saturating_duration_since(start);
        if waited >= options.max_wait {
            return Err(E::timed_out(what, waited, state));
        }
        tracing::debug!(%what, %state, ?interval, "not finished; polling again");
        timer.sleep(interval.min(options.max_wait - waited)).await;
        interval = (interval + interval / 2).min(options.max_interval);
    }
}

#[cfg(test)]
mod tests {
    use std::cell::{Cell, RefCell};

    use super::*;

    /// A clock that moves only when slept on, recording each sleep.
    struct FakeTimer {
        start: Instant,
        elapsed: Cell<Duration>,
        sleeps: RefCell<Vec<Duration>>,
    }

    impl FakeTimer {
        fn new() -> Self {
            FakeTimer {
                start: Instant::now(),
                elapsed: Cell::new(Duration::ZERO),
                sleeps: RefCell::new(Vec::new()),
            }
        }
    }

    impl Timer for FakeTimer {
        fn now(&self) -> Instant {
            self.start + self.elapsed.get()
        }
        fn sleep(&self, d: Duration) -> impl Future<Output = ()> + Send {
            self.elapsed.set(self.elapsed.get() + d);
            self.sleeps.borrow_mut().push(d);
            std::future::ready(())
        }
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
        timer: &FakeTimer,
        mut answers: Vec<Result<Poll<T>, TestError>>,
    ) -> (Result<T, TestError>, usize) {
        answers.reverse();
        let mut polls = 0;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("a current-thread runtime");
        let result = runtime.block_on(wait_on(timer, "x".into(), OPTIONS, || {
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
        let timer = FakeTimer::new();
        let pending = || Ok(Poll::Pending("queued".into()));
        let (result, polls) = run(
            &timer,
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
        let secs: Vec<f64> = timer
            .sleeps
            .borrow()
            .iter()
            .map(Duration::as_secs_f64)
            .collect();
        assert_eq!(secs, [1.0, 1.5, 2.25, 3.0]);
    }

    #[test]
    fn transient_failures_poll_again_and_fatal_ones_end_the_wait() {
        let timer = FakeTimer::new();
        let (result, polls) = run(&timer, vec![Err(TestError::Transient), Ok(Poll::Done(1))]);
        assert_eq!((result, polls), (Ok(1), 2));
        let timer = FakeTimer::new();
        let (result, polls) = run::<u8>(&timer, vec![Err(TestError::Fatal), Ok(Poll::Done(1))]);
        assert_eq!((result, polls), (Err(TestError::Fatal), 1));
        assert!(timer.sleeps.borrow().is_empty());
    }

    #[test]
    fn the_wait_ends_at_max_wait_with_the_last_state_and_never_sleeps_past_it() {
        let timer = FakeTimer::new();
        let (result, _) = run::<u8>(&timer, vec![Ok(Poll::Pending("in_progress".into()))]);
        assert_eq!(
            result,
            Err(TestError::TimedOut {
                waited: Duration::from_secs(10),
                last: "queued".into()
            })
        );
        let slept: Duration = timer.sleeps.borrow().iter().sum();
        assert_eq!(slept, Duration::from_secs(10));
    }
}
