//! Async tasks: task records, results, and the task waiter.

use std::marker::PhantomData;

use futures_util::stream::{self, BoxStream, StreamExt};
use serde_json::Value;

use super::Client;
use super::error::Error;
use super::listing::Listing;
pub use super::records::{TaskRecord, TaskState};
use super::waiter::{self, Poll, WaitOptions};
use crate::endpoint;

/// The result type of an async task: an agent run result, or an extract, search or map result.
pub trait TaskOutput: serde::de::DeserializeOwned + Send + 'static {
    /// Keeps the status and headers of the answer that carried the result.
    fn set_response(&mut self, _info: super::error::ResponseInfo) {}
}

impl TaskOutput for Value {}

/// An async task in progress; `R` is its result type (`RunResult<RetailerAPdp>`,
/// `ExtractResult`, …).
#[derive(Debug)]
pub struct TaskHandle<R> {
    pub(crate) client: Client,
    pub(crate) id: String,
    pub(crate) wait: WaitOptions,
    pub(crate) _output: PhantomData<fn() -> R>,
}

impl<R> Clone for TaskHandle<R> {
    fn clone(&self) -> Self {
        TaskHandle {
            client: self.client.clone(),
            id: self.id.clone(),
            wait: self.wait,
            _output: PhantomData,
        }
    }
}

impl<R: TaskOutput> TaskHandle<R> {
    /// A handle for an existing task id (for example after a restart).
    pub fn attach(client: &Client, id: impl Into<String>) -> Self {
        TaskHandle {
            client: client.clone(),
            id: id.into(),
            wait: WaitOptions::TASK,
            _output: PhantomData,
        }
    }

    /// The task id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Polls with other options.
    pub fn with_wait(mut self, options: WaitOptions) -> Self {
        self.wait = options;
        self
    }

    /// The task record now.
    pub async fn status(&self) -> Result<TaskRecord, Error> {
        self.client.task(&self.id).await
    }

    /// Polls until the task ends, then fetches its result. A task in state `error` is
    /// [`Error::TaskFailed`]; unknown states keep the waiter polling.
    pub async fn wait(&self) -> Result<R, Error> {
        let record = waiter::wait::<_, _, Error, _, _>(
            self.client.clock(),
            format!("task {}", self.id),
            self.wait,
            || async {
                let record = self.client.task(&self.id).await?;
                Ok(match record.state {
                    TaskState::Success | TaskState::Error => Poll::Done(record),
                    ref other => Poll::Pending(other.as_str().to_owned()),
                })
            },
        )
        .await?;
        if record.state == TaskState::Error {
            return Err(Error::TaskFailed(Box::new(record)));
        }
        self.client.task_output::<R>(&self.id).await
    }
}

impl Client {
    /// One page of this account's tasks, newest first. Pass the page's
    /// `next_cursor` back for the next one; [`Client::tasks`] walks them all.
    pub async fn tasks_page(
        &self,
        cursor: Option<&str>,
        limit: Option<u32>,
    ) -> Result<Listing<TaskRecord>, Error> {
        let mut query = Vec::new();
        if let Some(c) = cursor {
            query.push(("cursor", c.to_owned()));
        }
        if let Some(l) = limit {
            query.push(("limit", l.to_string()));
        }
        Ok(self.get(&endpoint::TASK_LIST, &[], &query).await?.0)
    }

    /// Every task of this account, newest first, page after page. Stops after
    /// the first error.
    ///
    /// ```no_run
    /// # async fn demo(client: agents_runtime::Client) -> Result<(), agents_runtime::Error> {
    /// use futures::TryStreamExt;
    /// let failed: Vec<_> = client
    ///     .tasks()
    ///     .try_filter(|t| std::future::ready(t.state == agents_runtime::client::tasks::TaskState::Error))
    ///     .try_collect()
    ///     .await?;
    /// # Ok(()) }
    /// ```
    pub fn tasks(&self) -> BoxStream<'static, Result<TaskRecord, Error>> {
        let client = self.clone();
        // (cursor of the next page, whether a page is still to fetch)
        stream::unfold((None::<String>, true), move |(cursor, more)| {
            let client = client.clone();
            async move {
                if !more {
                    return None;
                }
                match client.tasks_page(cursor.as_deref(), None).await {
                    Ok(page) => {
                        let next = page.next_cursor.clone();
                        let more = next.is_some();
                        let items: Vec<Result<TaskRecord, Error>> =
                            page.items.into_iter().map(Ok).collect();
                        Some((stream::iter(items), (next, more)))
                    }
                    Err(e) => Some((stream::iter(vec![Err(e)]), (None, false))),
                }
            }
        })
        .flatten()
        .boxed()
    }

    /// A task's record.
    pub async fn task(&self, id: &str) -> Result<TaskRecord, Error> {
        Ok(self
            .get::<TaskRecord>(&endpoint::TASK_GET, &[id], &[])
            .await?
            .0)
    }

    /// A finished task's result, into any task result type.
    pub async fn task_output<R: TaskOutput>(&self, id: &str) -> Result<R, Error> {
        let (mut result, info): (R, _) = self.get(&endpoint::TASK_RESULTS, &[id], &[]).await?;
        result.set_response(info);
        Ok(result)
    }
}
