//! Agent batches: a typed builder that splits more than 1,000 items
//! into several batches, a handle that polls only the lightweight `/progress` endpoint, and a
//! stream of typed results with bounded concurrency. Every item comes out exactly once: a result,
//! or a [`BatchItemError`] carrying its task id.
//!
//! ```no_run
//! # async fn demo(client: agents_runtime::Client) -> Result<(), agents_runtime::Error> {
//! use agents_runtime::catalog::{RetailerAPdp, RetailerAPdpParams};
//! use futures::StreamExt;
//!
//! let asins = ["B08N5WRWNW", "B07XJ8C8F5"];
//! let batch = client
//!     .batch::<RetailerAPdp>()
//!     .shared_param("country", "US")
//!     .submit(asins.iter().map(|a| RetailerAPdpParams::new(*a)))
//!     .await?;
//! let mut results = batch.results();
//! while let Some(item) = results.next().await {
//!     match item {
//!         Ok(run) => println!("{:?}", run.record().and_then(|p| p.product_title.as_ref())),
//!         Err(failed) => eprintln!("task {:?}: {}", failed.task_id, failed.error),
//!     }
//! }
//! # Ok(()) }
//! ```

use std::collections::HashSet;
use std::marker::PhantomData;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use futures_util::stream::{self, BoxStream, StreamExt};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

use super::error::Error;
use super::listing::Listing;
use super::publish::unknown_template;
use super::run::{Delivery, RunOptions, RunRequest, RunResult, localizes};
use super::tasks::{TaskOutput, TaskRecord, TaskState};
use super::waiter::{self, Poll, WaitOptions};
use super::web::{ExtractRequest, ExtractResult};
use super::{Client, JsonBody};
use crate::agent::{Agent, AgentParams};
use crate::endpoint::{self, Endpoint};

/// Items per batch.
pub const MAX_ITEMS: usize = 1_000;

/// An item that did not produce a result.
#[derive(Debug, thiserror::Error)]
#[error("batch {batch_id}: {}", item_failure(.task_id.as_deref(), .error))]
pub struct BatchItemError {
    /// The item's position among the items submitted (see [`BatchHandle::indexed_results`]);
    /// `None` when a whole batch failed before its items were listed.
    pub index: Option<usize>,
    /// The batch.
    pub batch_id: String,
    /// The task, when known.
    pub task_id: Option<String>,
    /// What happened: [`Error::TaskFailed`] for a task in state `error`, else the failure to
    /// fetch its result.
    pub error: Error,
    /// The item as the service took it, to retry it or report it without keeping a list of
    /// your own: an agent batch item's params (shared params included), an extract batch item's
    /// request fields (shared settings included). `None` for a handle made by
    /// [`BatchHandle::attach`], which never saw the items, and when a whole batch failed.
    pub input: Option<Map<String, Value>>,
}

/// What happened to one item: a failed task already names itself.
fn item_failure(task_id: Option<&str>, error: &Error) -> String {
    match (error, task_id) {
        (Error::TaskFailed(_), _) => error.to_string(),
        (_, Some(id)) => format!("task {id}: {error}"),
        (_, None) => format!("a task not listed: {error}"),
    }
}

/// Progress over every batch of a handle.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BatchProgress {
    /// Tasks that ended (successfully or not).
    pub completed: usize,
    /// Tasks that ended in `error`, when the service says.
    pub failed: usize,
    /// Tasks in all.
    pub total: usize,
    /// Whether every batch has completed.
    pub done: bool,
}

impl std::fmt::Display for BatchProgress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}/{} done, {} failed",
            self.completed, self.total, self.failed
        )
    }
}

#[derive(Debug, Deserialize)]
struct ProgressRecord {
    #[serde(default)]
    completed: bool,
    #[serde(default, deserialize_with = "super::open::count")]
    completed_count: usize,
    #[serde(default, deserialize_with = "super::open::count")]
    failed_count: usize,
    #[serde(default)]
    total: Option<usize>,
}

/// A batch's progress and every task record (state, download URL);
/// [`Client::batches`] lists batches with the same fields (without the tasks).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct BatchDetails {
    /// The batch id.
    pub id: String,
    /// Whether every task ended.
    #[serde(default)]
    pub completed: bool,
    /// Tasks that ended.
    #[serde(default, deserialize_with = "super::open::count")]
    pub completed_count: usize,
    /// Ended ÷ all, from 0 to 1.
    #[serde(default)]
    pub progress: f64,
    /// Created (ISO 8601).
    #[serde(default)]
    pub created_at: Option<String>,
    /// When the last task ended (ISO 8601).
    #[serde(default)]
    pub completed_at: Option<String>,
    /// The task records in input order (an entry may be missing: `None`).
    #[serde(default)]
    pub tasks: Vec<Option<TaskRecord>>,
}

/// Builds a batch of one agent: `client.batch::<RetailerAPdp>()` (typed items), or
/// `client.batch_raw("my_agent")` for an agent without bindings (items are JSON params).
#[derive(Debug)]
pub struct BatchBuilder<A> {
    client: Client,
    agent: String,
    shared: Map<String, Value>,
    options: RunOptions,
    delivery: Delivery,
    _agent: PhantomData<fn() -> A>,
}

impl<A> BatchBuilder<A> {
    /// A parameter for every item (`country`, `locale`, `tag`, `zip_code`, …); items that set it
    /// win. Localization follows: a shared `zip_code` localizes every
    /// item.
    pub fn shared_param(mut self, name: impl Into<String>, value: impl Into<Value>) -> Self {
        self.shared.insert(name.into(), value.into());
        self
    }

    /// Formats for every item.
    pub fn options(mut self, options: RunOptions) -> Self {
        self.options = options;
        self
    }

    /// Cloud delivery or a webhook for every item.
    pub fn delivery(mut self, delivery: Delivery) -> Self {
        self.delivery = delivery;
        self
    }

    /// Submits items given as (wire params, whether their typed params localize), in batches of
    /// at most 1,000: the one submit path of typed and untyped batches.
    async fn submit_params<R: TaskOutput>(
        self,
        items: impl IntoIterator<Item = Result<(Map<String, Value>, bool), Error>>,
    ) -> Result<BatchHandle<R>, Error> {
        if let Some(Value::String(c)) = self.shared.get("country")
            && (c.len() != 2 || !c.bytes().all(|b| b.is_ascii_alphabetic()))
        {
            return Err(Error::InvalidOption {
                option: "country",
                message: format!("{c:?} is not a two-letter country code"),
            });
        }
        let shared_params = Value::Object(self.shared.clone());
        let shared_inputs = RunRequest::new(
            self.client.api_version(),
            &self.agent,
            &shared_params,
            self.options.formats(),
            false,
            self.delivery.fields()?,
        );
        let mut inputs = Vec::new();
        let mut invalid = Vec::new();
        for (index, item) in items.into_iter().enumerate() {
            let (mut params, typed_localizes) = match item {
                Ok(item) => item,
                Err(e) => {
                    invalid.push((index, e));
                    continue;
                }
            };
            // Localization follows the params the service will merge, shared ones included.
            let mut merged = self.shared.clone();
            merged.extend(params.iter().map(|(k, v)| (k.clone(), v.clone())));
            let localize = typed_localizes || localizes(&Value::Object(merged));
            // The item's own values win; drop the ones equal to the shared value to keep the
            // wire form small.
            params.retain(|k, v| self.shared.get(k) != Some(v));
            let mut input = Map::new();
            input.insert("params".into(), Value::Object(params));
            if localize {
                input.insert("localization".into(), json!(true));
            }
            inputs.push(compact(&Value::Object(input))?);
        }
        if !invalid.is_empty() {
            return Err(Error::InvalidItems(invalid));
        }
        if inputs.is_empty() {
            return Err(Error::InvalidOption {
                option: "items",
                message: "a batch needs at least one item".into(),
            });
        }
        let items = Submitted {
            shared: self.shared.clone(),
            inputs,
        };
        let handle = submit_chunks(
            &self.client,
            &endpoint::TEMPLATE_BATCH,
            &shared_inputs,
            items,
        )
        .await?;
        #[cfg(feature = "delivery")]
        let handle = handle.delivery(&self.delivery);
        Ok(handle)
    }
}

impl<A: Agent> BatchBuilder<A> {
    /// Validates every item, then submits in batches of at most 1,000. Nothing is sent when an
    /// item breaks a rule. If a later batch fails to submit, the error carries the ids of those
    /// already submitted.
    pub async fn submit<I>(self, items: I) -> Result<BatchHandle<RunResult<A>>, Error>
    where
        I: IntoIterator<Item = A::Params>,
    {
        let items = items.into_iter().map(|item| {
            item.validate().map_err(Error::Validation)?;
            let params = match serde_json::to_value(&item) {
                Ok(Value::Object(m)) => m,
                _ => Map::new(),
            };
            Ok((params, item.uses_localization()))
        });
        let version = self.client.api_version();
        self.submit_params(items)
            .await
            .map_err(|e| unknown_template::<A>(e, version))
    }
}

impl BatchBuilder<Value> {
    /// Submits items given as JSON params objects (`{"asin": "B08N5WRWNW"}`), for an agent
    /// without bindings: nothing is checked but their shape, and results are untyped.
    ///
    /// ```no_run
    /// # async fn demo(client: agents_runtime::Client) -> Result<(), agents_runtime::Error> {
    /// let batch = client
    ///     .batch_raw("my_private_agent")
    ///     .submit_raw([serde_json::json!({"url": "https://shop.example/p/1"})])
    ///     .await?;
    /// # Ok(()) }
    /// ```
    pub async fn submit_raw<I>(self, items: I) -> Result<BatchHandle<RunResult<Value>>, Error>
    where
        I: IntoIterator<Item = Value>,
    {
        let items = items.into_iter().map(|item| match item {
            Value::Object(params) => Ok((params, false)),
            other => Err(Error::InvalidOption {
                option: "items",
                message: format!("not a JSON object of params: {other}"),
            }),
        });
        self.submit_params(items).await
    }
}

/// One validated item, kept as compact JSON text until its chunk is sent: a large batch holds
/// text, not a JSON tree per item.
fn compact(v: &Value) -> Result<Box<RawValue>, Error> {
    serde_json::value::to_raw_value(v).map_err(|e| Error::InvalidOption {
        option: "items",
        message: e.to_string(),
    })
}

/// The items of a batch as submitted, kept by its handle so that a failed item can say what it
/// was ([`BatchItemError::input`]).
#[derive(Debug)]
struct Submitted {
    /// What applies to every item (shared params, or an extract batch's shared settings).
    shared: Map<String, Value>,
    /// Each item's wire form.
    inputs: Vec<Box<RawValue>>,
}

impl Submitted {
    /// Item `index` as the service took it: its params (or fields) over the shared ones.
    fn input(&self, index: usize) -> Option<Map<String, Value>> {
        let item: Map<String, Value> = serde_json::from_str(self.inputs.get(index)?.get()).ok()?;
        let own = match item.get("params") {
            Some(Value::Object(params)) => params.clone(),
            _ => item,
        };
        let mut input = self.shared.clone();
        input.extend(own);
        Some(input)
    }
}

/// Submits `items` in batches of at most 1,000 to `path`; a failure after the first batch
/// keeps the ids already submitted.
/// A batch whose items are request bodies built field by field (extract, SERP): every item
/// checked, all invalid ones reported together with their positions and nothing sent, then
/// submitted in chunks of at most 1,000 with `shared` as the shared inputs.
pub(crate) async fn submit_items<R: TaskOutput>(
    client: &Client,
    endpoint: &Endpoint,
    shared: Map<String, Value>,
    items: impl IntoIterator<Item = Result<Map<String, Value>, Error>>,
) -> Result<BatchHandle<R>, Error> {
    let mut inputs = Vec::new();
    let mut invalid = Vec::new();
    for (index, item) in items.into_iter().enumerate() {
        match item {
            Ok(body) => inputs.push(compact(&Value::Object(body))?),
            Err(e) => invalid.push((index, e)),
        }
    }
    if !invalid.is_empty() {
        return Err(Error::InvalidItems(invalid));
    }
    if inputs.is_empty() {
        return Err(Error::InvalidOption {
            option: "items",
            message: "a batch needs at least one item".into(),
        });
    }
    let items = Submitted {
        shared: shared.clone(),
        inputs,
    };
    submit_chunks(client, endpoint, &Value::Object(shared), items).await
}

async fn submit_chunks<R: TaskOutput>(
    client: &Client,
    endpoint: &Endpoint,
    shared_inputs: &impl Serialize,
    items: Submitted,
) -> Result<BatchHandle<R>, Error> {
    #[derive(Deserialize)]
    struct Created {
        batch_id: String,
    }
    /// One chunk's body, written from the compact items as they are.
    #[derive(Serialize)]
    struct BatchRequest<'a, S> {
        shared_inputs: &'a S,
        inputs: &'a [Box<RawValue>],
    }
    let mut ids = Vec::new();
    for chunk in items.inputs.chunks(MAX_ITEMS) {
        let body = JsonBody::new(
            &BatchRequest {
                shared_inputs,
                inputs: chunk,
            },
            "items",
        )?;
        let sent = client
            .send::<Created>(endpoint, &[], &[], Some(&body))
            .await;
        match sent {
            Ok((created, _)) => ids.push(created.batch_id),
            Err(e) if ids.is_empty() => return Err(e),
            Err(e) => {
                return Err(Error::BatchPartiallySubmitted {
                    submitted: ids,
                    source: Box::new(e),
                });
            }
        }
    }
    let mut handle = BatchHandle::attach(client, ids);
    handle.items = Some(Arc::new(items));
    Ok(handle)
}

/// Submitted batches; `R` is each item's result (`RunResult<RetailerAPdp>`, `ExtractResult`).
/// Cheap to clone.
#[derive(Debug)]
pub struct BatchHandle<R> {
    client: Client,
    ids: Vec<String>,
    wait: WaitOptions,
    concurrency: usize,
    skip: Arc<HashSet<String>>,
    polls: Arc<AtomicUsize>,
    /// The items, when this handle submitted them.
    items: Option<Arc<Submitted>>,
    /// Where the tasks store their results, when the batches were submitted with storage.
    #[cfg(feature = "delivery")]
    stored: Option<Arc<StoredAt>>,
    /// Where the results are read from.
    source: Source,
    _output: PhantomData<fn() -> R>,
}

/// A storage location of delivered results: the storage URL, and the object name a batch's
/// tasks share (each stores `<name>-<task_id>`), if one was given.
#[cfg(feature = "delivery")]
#[derive(Debug)]
struct StoredAt {
    url: String,
    object_name: Option<String>,
}

/// Where a handle reads each task's result from.
#[derive(Debug, Clone, Default)]
enum Source {
    /// The service, one GET per result.
    #[default]
    Service,
    /// The bucket the tasks stored their results in.
    #[cfg(feature = "delivery")]
    Bucket(super::delivery::DeliveryReader, Arc<StoredAt>),
}

impl Source {
    /// Task `task_id`'s result. A delivered object may land a moment after its batch reports
    /// completion, so a missing one is waited for as a task is (`wait`).
    async fn fetch<R: TaskOutput>(
        &self,
        client: &Client,
        task_id: &str,
        #[cfg_attr(not(feature = "delivery"), allow(unused_variables))] wait: WaitOptions,
    ) -> Result<R, Error> {
        match self {
            Source::Service => client.task_output::<R>(task_id).await,
            #[cfg(feature = "delivery")]
            Source::Bucket(reader, at) => {
                use super::error::DeliveryError;
                let name = match &at.object_name {
                    Some(shared) => format!("{shared}-{task_id}"),
                    None => task_id.to_owned(),
                };
                waiter::wait(
                    client.clock(),
                    format!("the delivered result of task {task_id}"),
                    wait,
                    || async {
                        match reader.read::<R>(&at.url, &name).await {
                            Ok(result) => Ok(Poll::Done(result)),
                            Err(DeliveryError::NotFound { tried }) => Ok(Poll::Pending(format!(
                                "not delivered yet (tried {})",
                                tried.join(", ")
                            ))),
                            Err(e) => Err(Error::from(e)),
                        }
                    },
                )
                .await
            }
        }
    }
}

impl<R> Clone for BatchHandle<R> {
    fn clone(&self) -> Self {
        BatchHandle {
            client: self.client.clone(),
            ids: self.ids.clone(),
            wait: self.wait,
            concurrency: self.concurrency,
            skip: self.skip.clone(),
            polls: self.polls.clone(),
            items: self.items.clone(),
            #[cfg(feature = "delivery")]
            stored: self.stored.clone(),
            source: self.source.clone(),
            _output: PhantomData,
        }
    }
}

impl<R: TaskOutput> BatchHandle<R> {
    /// Re-attaches to batches by id (for example after a crash).
    pub fn attach(client: &Client, ids: Vec<String>) -> Self {
        BatchHandle {
            client: client.clone(),
            ids,
            wait: WaitOptions::TASK.max_wait(std::time::Duration::from_secs(6 * 3600)),
            concurrency: 16,
            skip: Arc::default(),
            polls: Arc::default(),
            items: None,
            #[cfg(feature = "delivery")]
            stored: None,
            source: Source::Service,
            _output: PhantomData,
        }
    }

    /// The delivery the batches were submitted with, for a handle made by
    /// [`BatchHandle::attach`] that will read their results from the bucket
    /// ([`BatchHandle::read_from`]). A handle that submitted the batches knows it already.
    #[cfg(feature = "delivery")]
    pub fn delivery(mut self, delivery: &Delivery) -> Self {
        self.stored = delivery.storage_location().map(|(url, object_name)| {
            Arc::new(StoredAt {
                url: url.to_owned(),
                object_name: object_name.map(str::to_owned),
            })
        });
        self
    }

    /// Reads each task's result from the bucket the batches stored their results in (through
    /// `reader`, any `object_store`) instead of asking the service for each one: the way for large
    /// batches, since the service answers one result per GET at the key's rate (about 12 s per
    /// 1,000 results at 83 requests a second). The service is still asked for progress and for
    /// each batch's task list, one call per 1,000 items; [`BatchHandle::results`] and
    /// [`BatchHandle::indexed_results`] then stream typed results from the bucket as they do from
    /// the service, waiting for an object that lands after its batch reports completion.
    ///
    /// Fails when the handle knows no storage location: submit with
    /// [`BatchBuilder::delivery`]`(Delivery::new().storage(…))`, or give an attached handle its
    /// delivery with [`BatchHandle::delivery`].
    ///
    /// ```no_run
    /// # async fn demo(client: agents_runtime::Client) -> Result<(), agents_runtime::Error> {
    /// use agents_runtime::catalog::{RetailerAPdp, RetailerAPdpParams};
    /// use agents_runtime::client::delivery::DeliveryReader;
    /// use agents_runtime::{Delivery, StorageType};
    /// use futures::TryStreamExt as _;
    ///
    /// let items = (0..10_000).map(|i| RetailerAPdpParams::new(format!("B{i:09}")));
    /// let batch = client
    ///     .batch::<RetailerAPdp>()
    ///     .delivery(Delivery::new().storage(StorageType::S3, "s3://results/pdp/"))
    ///     .submit(items)
    ///     .await?;
    /// // An S3 store from object_store::aws::AmazonS3Builder in production.
    /// let bucket = DeliveryReader::local("/tmp/buckets/results")?;
    /// let mut results = batch.read_from(bucket)?.results();
    /// while let Some(result) = results.try_next().await.map_err(|e| e.error)? {
    ///     println!("{:?}", result.record().and_then(|p| p.web_price));
    /// }
    /// # Ok(()) }
    /// ```
    #[cfg(feature = "delivery")]
    pub fn read_from(mut self, reader: super::delivery::DeliveryReader) -> Result<Self, Error> {
        let Some(at) = self.stored.clone() else {
            return Err(Error::InvalidOption {
                option: "delivery",
                message: "these batches were not submitted with a storage location, so their \
                          results are only at the service: submit with \
                          BatchBuilder::delivery(Delivery::new().storage(…)), or give an attached \
                          handle its delivery with BatchHandle::delivery"
                    .into(),
            });
        };
        self.source = Source::Bucket(reader, at);
        Ok(self)
    }

    /// The details of every batch of this handle, tasks included, as they are now.
    pub async fn details(&self) -> Result<Vec<BatchDetails>, Error> {
        let mut out = Vec::with_capacity(self.ids.len());
        for id in &self.ids {
            out.push(self.client.batch_details(id).await?);
        }
        Ok(out)
    }

    /// The batch ids, in submission order.
    pub fn ids(&self) -> &[String] {
        &self.ids
    }

    /// Results fetched at once (default 16; the client's rate limiter still applies).
    pub fn concurrency(mut self, n: usize) -> Self {
        self.concurrency = n.max(1);
        self
    }

    /// How progress is polled.
    pub fn with_wait(mut self, options: WaitOptions) -> Self {
        self.wait = options;
        self
    }

    /// Tasks already handled (after a crash): their results are not fetched again.
    pub fn skip_tasks(mut self, done: impl IntoIterator<Item = String>) -> Self {
        self.skip = Arc::new(done.into_iter().collect());
        self
    }

    /// How many `/progress` polls this handle (and its clones) made.
    pub fn progress_polls(&self) -> usize {
        self.polls.load(Ordering::Relaxed)
    }

    async fn progress_of(&self, id: &str) -> Result<ProgressRecord, Error> {
        self.polls.fetch_add(1, Ordering::Relaxed);
        let (progress, _) = self
            .client
            .get::<ProgressRecord>(&endpoint::BATCH_PROGRESS, &[id], &[])
            .await?;
        Ok(progress)
    }

    /// Progress over every batch now (one `/progress` call per batch).
    pub async fn progress(&self) -> Result<BatchProgress, Error> {
        let mut p = BatchProgress {
            done: true,
            ..BatchProgress::default()
        };
        for id in &self.ids {
            let r = self.progress_of(id).await?;
            p.completed += r.completed_count;
            p.failed += r.failed_count;
            p.total += r.total.unwrap_or(r.completed_count);
            p.done &= r.completed;
        }
        Ok(p)
    }

    /// Progress as it changes, polled by the one poller the waits use (the handle's
    /// [`WaitOptions`]: growing intervals, transient failures polled through), ending with the
    /// report in which every batch has completed, or with an error: a failure that is not
    /// transient, or the wait's time-out.
    pub fn progress_stream(&self) -> BoxStream<'static, Result<BatchProgress, Error>> {
        let this = self.clone();
        waiter::polls(
            self.client.clock(),
            format!("batch progress of {}", self.ids.join(", ")),
            self.wait,
            move || {
                let this = this.clone();
                async move {
                    let p = this.progress().await?;
                    Ok(if p.done {
                        Poll::Done(p)
                    } else {
                        Poll::Pending(p)
                    })
                }
            },
        )
        .map(|step| {
            step.map(|p| match p {
                Poll::Done(p) | Poll::Pending(p) => p,
            })
        })
        .boxed()
    }

    /// Polls progress (as [`BatchHandle::progress_stream`] does) until every batch completes,
    /// handing each report to `report`, and answers the last: `batch.follow(|p| println!("{p}"))`
    /// prints `412/1000 done, 3 failed` lines up to `1000/1000 done, 3 failed`.
    pub async fn follow(
        &self,
        mut report: impl FnMut(&BatchProgress),
    ) -> Result<BatchProgress, Error> {
        let mut reports = self.progress_stream();
        let mut last = None;
        while let Some(progress) = reports.next().await {
            let progress = progress?;
            report(&progress);
            last = Some(progress);
        }
        match last {
            Some(progress) => Ok(progress),
            None => self.progress().await,
        }
    }

    /// Waits (polling `/progress`) until batch `id` completes, then lists its tasks. Both the
    /// polls and the listing go through the waiter, so transient failures are polled through.
    async fn finished_tasks(&self, id: &str) -> Result<Vec<Option<TaskRecord>>, Error> {
        waiter::wait(
            self.client.clock(),
            format!("batch {id}"),
            self.wait,
            || async {
                let p = self.progress_of(id).await?;
                if !p.completed {
                    return Ok(Poll::Pending(format!(
                        "{}/{} done",
                        p.completed_count,
                        p.total.unwrap_or(0)
                    )));
                }
                Ok(Poll::Done(self.client.batch_details(id).await?.tasks))
            },
        )
        .await
    }

    /// Every item's typed result (or its error), batch by batch as each completes, fetched with
    /// bounded concurrency. Results stream: nothing is collected, so memory stays flat.
    #[allow(
        clippy::result_large_err,
        reason = "an item's error is moved once, to the caller, who wants it whole"
    )]
    pub fn results(&self) -> BoxStream<'static, Result<R, BatchItemError>> {
        self.indexed_results()
            .map(|item| item.map(|(_, result)| result))
            .boxed()
    }

    /// [`BatchHandle::results`] with each result's position among the items submitted: the
    /// `n`th item given to `submit` is `n - 1`, counting 1,000 items per batch before it (the
    /// service lists a batch's tasks in the order of its inputs). Results arrive in the order
    /// they finish, not by position.
    pub fn indexed_results(&self) -> BoxStream<'static, Result<(usize, R), BatchItemError>> {
        let this = self.clone();
        let concurrency = self.concurrency;
        stream::iter(self.ids.clone().into_iter().enumerate())
            .then(move |(chunk, batch_id)| {
                let this = this.clone();
                async move {
                    let tasks = this.finished_tasks(&batch_id).await;
                    (this, chunk * MAX_ITEMS, batch_id, tasks)
                }
            })
            .flat_map(move |(this, first, batch_id, tasks)| match tasks {
                Err(error) => stream::once(async move {
                    Err(BatchItemError {
                        index: None,
                        batch_id,
                        task_id: None,
                        error,
                        input: None,
                    })
                })
                .boxed(),
                Ok(tasks) => {
                    let skip = this.skip.clone();
                    stream::iter(tasks.into_iter().enumerate())
                        .filter(move |(_, t)| {
                            let keep = t.as_ref().is_none_or(|t| !skip.contains(&t.id));
                            async move { keep }
                        })
                        .map(move |(position, task)| {
                            let (client, batch_id) = (this.client.clone(), batch_id.clone());
                            let (items, source, wait) =
                                (this.items.clone(), this.source.clone(), this.wait);
                            let index = first + position;
                            async move {
                                let at = Fetch {
                                    source: &source,
                                    wait,
                                    index,
                                    position,
                                };
                                fetch_one::<R>(client, batch_id, at, task)
                                    .await
                                    .map(|r| (index, r))
                                    .map_err(|mut e| {
                                        e.input = items.and_then(|i| i.input(index));
                                        e
                                    })
                            }
                        })
                        .buffer_unordered(concurrency)
                        .boxed()
                }
            })
            .boxed()
    }
}

/// Where one item's result comes from, and where the item stands.
struct Fetch<'a> {
    source: &'a Source,
    wait: WaitOptions,
    /// Among the items submitted.
    index: usize,
    /// Within its batch.
    position: usize,
}

async fn fetch_one<R: TaskOutput>(
    client: Client,
    batch_id: String,
    at: Fetch<'_>,
    task: Option<TaskRecord>,
) -> Result<R, BatchItemError> {
    let Fetch {
        source,
        wait,
        index,
        position,
    } = at;
    let Some(task) = task else {
        return Err(BatchItemError {
            index: Some(index),
            batch_id,
            task_id: None,
            error: Error::InvalidOption {
                option: "tasks",
                message: format!("the batch details have no record for item {position}"),
            },
            input: None,
        });
    };
    let fail = |error| BatchItemError {
        index: Some(index),
        batch_id: batch_id.clone(),
        task_id: Some(task.id.clone()),
        error,
        input: None,
    };
    match task.state {
        TaskState::Success => source
            .fetch::<R>(&client, &task.id, wait)
            .await
            .map_err(fail),
        TaskState::Error => Err(fail(Error::TaskFailed(Box::new(task.clone())))),
        ref other => Err(fail(Error::WaitTimeout {
            what: format!("task {}", task.id),
            waited: std::time::Duration::ZERO,
            last_state: other.as_str().to_owned(),
        })),
    }
}

impl Client {
    /// An extract batch: every request's fields go per item; `shared` settings
    /// ([`ExtractRequest::settings`], such as `render` or `country`) apply to all, item fields
    /// override them. More than 1,000 items are split into several batches.
    ///
    /// ```no_run
    /// # async fn demo(client: agents_runtime::Client) -> Result<(), agents_runtime::Error> {
    /// use agents_runtime::client::web::{ExtractFormat, ExtractRequest};
    /// let batch = client
    ///     .extract_batch(
    ///         ExtractRequest::settings().country("US").format(ExtractFormat::Markdown),
    ///         ["https://shop.example/p/1", "https://shop.example/p/2"].map(ExtractRequest::new),
    ///     )
    ///     .await?;
    /// # Ok(()) }
    /// ```
    pub async fn extract_batch(
        &self,
        shared: ExtractRequest,
        items: impl IntoIterator<Item = ExtractRequest>,
    ) -> Result<BatchHandle<ExtractResult>, Error> {
        shared.check_options()?;
        let items = items.into_iter().map(|item| {
            item.check()?;
            Ok(item.into_body())
        });
        submit_items(self, &endpoint::EXTRACT_BATCH, shared.into_body(), items).await
    }

    /// A batch of agent `A`: `client.batch::<RetailerAPdp>()`.
    pub fn batch<A: Agent>(&self) -> BatchBuilder<A> {
        self.batch_of(A::NAME)
    }

    /// A batch's progress and every task record.
    pub async fn batch_details(&self, id: &str) -> Result<BatchDetails, Error> {
        Ok(self.get(&endpoint::BATCH_GET, &[id], &[]).await?.0)
    }

    /// This account's batches (the first page, when the service pages them),
    /// newest first, without their tasks.
    pub async fn batches(&self) -> Result<Vec<BatchDetails>, Error> {
        let (page, _): (Listing<BatchDetails>, _) =
            self.get(&endpoint::BATCH_LIST, &[], &[]).await?;
        Ok(page.items)
    }

    /// A batch of an agent without bindings, by name; see [`BatchBuilder::submit_raw`].
    pub fn batch_raw(&self, agent: &str) -> BatchBuilder<Value> {
        self.batch_of(agent)
    }

    fn batch_of<A>(&self, agent: &str) -> BatchBuilder<A> {
        BatchBuilder {
            client: self.clone(),
            agent: agent.to_owned(),
            shared: Map::new(),
            options: RunOptions::new(),
            delivery: Delivery::new(),
            _agent: PhantomData,
        }
    }
}
