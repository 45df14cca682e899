//! A research run in progress: wait for it, follow its events, read its answer.

use std::time::Duration;

use futures_util::StreamExt as _;
use futures_util::stream::BoxStream;
use serde::de::DeserializeOwned;

use super::answer::Answer;
use super::events::RunEvent;
use super::run::{ResearchRun, RunFailure};
use crate::client::Client;
use crate::client::error::Error;
use crate::client::waiter::{self, Poll, WaitOptions};

/// What reading a run's result found.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Outcome<T> {
    /// The run answered.
    Answered(Box<Answer<T>>),
    /// The run is still queued or running (the service answered 409): read again later, or
    /// [`ResearchRunHandle::answer`] to wait.
    NotFinished,
    /// The run failed or was cancelled (the service answered 422).
    Ended(Box<RunFailure>),
}

/// A run in progress: wait for it, follow its events, read its answer.
#[derive(Debug, Clone)]
pub struct ResearchRunHandle {
    pub(super) client: Client,
    pub(super) agent_id: String,
    pub(super) run: ResearchRun,
    pub(super) wait: WaitOptions,
    pub(super) stall: Duration,
}

/// How long an event stream may stay silent by default: three of the service's 15-second
/// keep-alives.
pub const STALL_AFTER: Duration = Duration::from_secs(45);

impl ResearchRunHandle {
    /// The run's id.
    pub fn id(&self) -> &str {
        &self.run.id
    }

    /// Its agent's id.
    pub fn agent_id(&self) -> &str {
        &self.agent_id
    }

    /// The run as it was when the handle was made.
    pub fn run(&self) -> &ResearchRun {
        &self.run
    }

    /// Polls with other options (default: [`WaitOptions::TASK`]).
    pub fn with_wait(mut self, options: WaitOptions) -> Self {
        self.wait = options;
        self
    }

    /// Ends an event stream that stays silent (not even a keep-alive) this long (default
    /// [`STALL_AFTER`]).
    pub fn with_stall_after(mut self, silence: Duration) -> Self {
        self.stall = silence;
        self
    }

    /// The run now.
    pub async fn status(&self) -> Result<ResearchRun, Error> {
        self.client.research_run(&self.agent_id, &self.run.id).await
    }

    /// Polls until the run ends, and answers it whatever its status.
    pub async fn wait(&self) -> Result<ResearchRun, Error> {
        waiter::wait(
            self.client.clock(),
            format!("research run {}", self.run.id),
            self.wait,
            || async {
                let run = self.status().await?;
                Ok(if run.status.is_finished() || !run.is_active {
                    Poll::Done(run)
                } else {
                    Poll::Pending(run.status.as_str().to_owned())
                })
            },
        )
        .await
    }

    /// Reads the result once: the answer, not finished yet, or how the run ended.
    pub async fn result<T: DeserializeOwned + Send>(&self) -> Result<Outcome<T>, Error> {
        self.client
            .research_result(&self.agent_id, &self.run.id)
            .await
    }

    /// Waits for the run to end and reads its answer; a run that failed or was cancelled is
    /// [`Error::ResearchFailed`].
    pub async fn answer<T: DeserializeOwned + Send>(&self) -> Result<Answer<T>, Error> {
        let ended = self.wait().await?;
        match self.result::<T>().await? {
            Outcome::Answered(a) => Ok(*a),
            Outcome::Ended(f) => Err(Error::ResearchFailed(f)),
            // The run said it ended; its result says otherwise.
            Outcome::NotFinished => Err(Error::WaitTimeout {
                what: format!("the result of research run {}", ended.id),
                waited: Duration::ZERO,
                last_state: format!(
                    "{} by the run, not finished by its result",
                    ended.status.as_str()
                ),
            }),
        }
    }

    /// The run's progress as typed events, until it ends (the run must have been started with
    /// [`ResearchRunRequest::events`](super::ResearchRunRequest::events)). A dropped connection is resumed where it stopped
    /// (`Last-Event-ID`); a stream silent for longer than [`with_stall_after`] allows ends with
    /// [`Error::EventStream`].
    ///
    /// [`with_stall_after`]: ResearchRunHandle::with_stall_after
    pub fn events(&self) -> BoxStream<'static, Result<RunEvent, Error>> {
        super::events::events(
            self.client.clone(),
            self.agent_id.clone(),
            self.run.id.clone(),
            self.stall,
        )
    }

    /// Follows the run's events to its end, handing each to `report`: `run.follow(|e|
    /// println!("{e}"))` prints `searching: …`, `reading https://…` lines up to
    /// `status: completed`. The answer is then ready for [`ResearchRunHandle::answer`]. The
    /// run must have been started with events, as for [`ResearchRunHandle::events`], whose
    /// typed stream this consumes (match on it instead to act on each kind of event).
    pub async fn follow(&self, mut report: impl FnMut(&RunEvent)) -> Result<(), Error> {
        let mut events = self.events();
        while let Some(event) = events.next().await {
            report(&event?);
        }
        Ok(())
    }
}
