//! Jobs: a template run over stored inputs, on a cron schedule or on demand, writing its
//! results to a destination as JSON lines, CSV or Parquet artifacts. Create, list, change,
//! delete and trigger jobs; follow a run with [`JobRunHandle::wait`]; list, preview and
//! download its artifacts.
//!
//! ```no_run
//! # async fn demo(client: agents_runtime::Client) -> Result<(), agents_runtime::Error> {
//! use agents_runtime::client::jobs::{ArtifactFormat, JobDestination, JobInputs, JobRequest};
//! use serde_json::json;
//!
//! let job = client
//!     .create_job(
//!         JobRequest::new("nightly-prices", "retailer_a_pdp")
//!             .inputs(JobInputs::inline([json!({"asin": "B08N5WRWNW"})])?)
//!             .destination(JobDestination::s3("s3://bucket/prices/", ArtifactFormat::Parquet))
//!             .schedule("0 3 * * *", true),
//!     )
//!     .await?;
//! let run = client.trigger_job(&job.id, None).await?.wait().await?;
//! for artifact in client.artifacts(&run.id).await? {
//!     let bytes = client.download_artifact(&run.id, &artifact.id).await?;
//!     println!("{} ({}): {} bytes", artifact.id, artifact.kind, bytes.len());
//! }
//! # Ok(()) }
//! ```

use std::collections::BTreeMap;

use futures_util::stream::BoxStream;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use super::error::Error;
use super::waiter::{self, Poll, WaitOptions};
use super::{Client, JsonBody};
use crate::agent::{Agent, AgentParams};
use crate::endpoint::{self, ApiVersion};

open_enum! {
    /// The status of a job run (and a job's last run).
    JobStatus {
        /// Waiting to start.
        Pending = "PENDING",
        /// Running.
        Running = "RUNNING",
        /// Every input produced a result.
        Success = "SUCCESS",
        /// Nothing could be produced.
        Failed = "FAILED",
        /// Cancelled before it ended.
        Cancelled = "CANCELLED",
        /// Took too long.
        Timeout = "TIMEOUT",
        /// Ended with results and failed inputs.
        Warning = "WARNING",
    }
}

impl JobStatus {
    /// Whether a run in this status has ended (an unknown status counts as ended only if the
    /// service says it finished, which [`JobRunHandle::wait`] checks with `finished_at`).
    pub fn is_finished(&self) -> bool {
        !matches!(
            self,
            JobStatus::Pending | JobStatus::Running | JobStatus::Other(_)
        )
    }
}

open_enum! {
    /// What started a run.
    TriggeredBy {
        /// The job's schedule.
        Schedule = "schedule",
        /// A trigger call.
        Manual = "manual",
    }
}

open_enum! {
    /// The format of a job's results.
    ArtifactFormat {
        /// JSON lines.
        Jsonl = "jsonl",
        /// CSV.
        Csv = "csv",
        /// Parquet.
        Parquet = "parquet",
    }
}

open_enum! {
    /// Where a job writes.
    DestinationType {
        /// A file the service keeps.
        File = "file",
        /// An S3 bucket.
        S3 = "s3",
    }
}

open_enum! {
    /// How a job's inputs are given.
    InputsType {
        /// In an S3 bucket.
        S3 = "s3",
        /// In the job itself.
        Inline = "inline",
        /// An uploaded file.
        File = "file",
    }
}

/// Where a job's results go.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JobDestination {
    /// The path (a bucket URL for S3).
    pub path: String,
    /// The kind of destination.
    #[serde(rename = "type")]
    pub kind: DestinationType,
    /// The results' format (the service's default when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<ArtifactFormat>,
}

impl JobDestination {
    /// An S3 location.
    pub fn s3(path: impl Into<String>, format: ArtifactFormat) -> Self {
        JobDestination {
            path: path.into(),
            kind: DestinationType::S3,
            format: Some(format),
        }
    }

    /// A file the service keeps (downloaded through the run's artifacts).
    pub fn file(path: impl Into<String>, format: ArtifactFormat) -> Self {
        JobDestination {
            path: path.into(),
            kind: DestinationType::File,
            format: Some(format),
        }
    }
}

/// A job's inputs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JobInputs {
    /// How they are given.
    #[serde(rename = "type")]
    pub kind: InputsType,
    /// Inline inputs: one params object per run of the template.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Vec<Map<String, Value>>>,
    /// Where the inputs are, for S3 and file inputs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_path: Option<String>,
    /// Inline inputs per source node of a workflow job.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_data: Option<BTreeMap<String, Vec<Map<String, Value>>>>,
}

impl JobInputs {
    /// Inline inputs: params objects, one per run of the template. A value that is not an
    /// object could mean no params, so it is not left out: every such item is an
    /// [`Error::InvalidItems`] with its position, and nothing is sent.
    ///
    /// ```
    /// use agents_runtime::client::jobs::JobInputs;
    /// use serde_json::json;
    ///
    /// let inputs = JobInputs::inline([json!({"asin": "B08N5WRWNW"})]).unwrap();
    /// assert_eq!(inputs.data.map(|rows| rows.len()), Some(1));
    /// let err = JobInputs::inline([json!({"asin": "B1"}), json!("B2")]).unwrap_err();
    /// assert!(err.to_string().contains("item 1"), "{err}");
    /// ```
    pub fn inline(rows: impl IntoIterator<Item = Value>) -> Result<Self, Error> {
        let mut data = Vec::new();
        let mut invalid = Vec::new();
        for (index, row) in rows.into_iter().enumerate() {
            match row {
                Value::Object(params) => data.push(params),
                other => invalid.push((
                    index,
                    Error::InvalidOption {
                        option: "inputs",
                        message: format!(
                            "{} is not a params object (`{{\"asin\": \"…\"}}`)",
                            agents_wire::json::kind(&other)
                        ),
                    },
                )),
            }
        }
        if !invalid.is_empty() {
            return Err(Error::InvalidItems(invalid));
        }
        Ok(JobInputs {
            kind: InputsType::Inline,
            data: Some(data),
            file_path: None,
            node_data: None,
        })
    }

    /// Inline inputs from typed params (`[RetailerAPdpParams::new("B08N5WRWNW")]`), each
    /// checked as a run's params are: an item that breaks a rule is an
    /// [`Error::InvalidItems`] listing every such item with its position, and nothing is sent.
    pub fn params<P: AgentParams>(items: impl IntoIterator<Item = P>) -> Result<Self, Error> {
        let mut rows = Vec::new();
        let mut invalid = Vec::new();
        for (index, item) in items.into_iter().enumerate() {
            if let Err(broken) = item.validate() {
                invalid.push((index, Error::Validation(broken)));
                continue;
            }
            match serde_json::to_value(&item) {
                Ok(Value::Object(params)) => rows.push(params),
                Ok(other) => invalid.push((
                    index,
                    Error::InvalidOption {
                        option: "inputs",
                        message: format!("params serialize to {other}, not an object"),
                    },
                )),
                Err(e) => invalid.push((
                    index,
                    Error::InvalidOption {
                        option: "inputs",
                        message: format!("params do not serialize: {e}"),
                    },
                )),
            }
        }
        if !invalid.is_empty() {
            return Err(Error::InvalidItems(invalid));
        }
        Ok(JobInputs {
            kind: InputsType::Inline,
            data: Some(rows),
            file_path: None,
            node_data: None,
        })
    }

    /// Inputs in a file at `path` in S3.
    pub fn s3(path: impl Into<String>) -> Self {
        JobInputs {
            kind: InputsType::S3,
            data: None,
            file_path: Some(path.into()),
            node_data: None,
        }
    }
}

/// A job's schedule.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobSchedule {
    /// A cron expression (`0 3 * * *`).
    pub cron: String,
    /// Whether it runs.
    pub enabled: bool,
}

/// A job.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct Job {
    /// Its id.
    pub id: String,
    /// Its name.
    pub name: String,
    /// Human-friendly name.
    #[serde(default)]
    pub display_name: Option<String>,
    /// What it is for.
    #[serde(default)]
    pub description: Option<String>,
    /// The template (agent) it runs.
    #[serde(default, alias = "extract_template_name", alias = "agent_name")]
    pub template: Option<String>,
    /// Where results go.
    #[serde(default)]
    pub destination: Option<JobDestination>,
    /// Its inputs.
    #[serde(default)]
    pub inputs: Option<JobInputs>,
    /// Its schedule.
    #[serde(default)]
    pub schedule: Option<JobSchedule>,
    /// When it was made (RFC 3339).
    #[serde(default)]
    pub created_at: Option<String>,
    /// When it last changed.
    #[serde(default)]
    pub updated_at: Option<String>,
    /// When it last ran.
    #[serde(default)]
    pub last_run_at: Option<String>,
    /// How its last run went.
    #[serde(default)]
    pub last_run_status: Option<JobStatus>,
    /// Fields this client does not know, kept as sent.
    #[serde(flatten)]
    pub rest: Map<String, Value>,
}

/// A new job: `JobRequest::new("nightly", "retailer_a_pdp").inputs(…).schedule("0 3 * * *", true)`.
#[derive(Debug, Clone, PartialEq)]
pub struct JobRequest {
    template: String,
    body: Map<String, Value>,
}

impl JobRequest {
    /// A job named `name` running `template`.
    pub fn new(name: impl Into<String>, template: impl Into<String>) -> Self {
        let mut body = Map::new();
        body.insert("name".into(), json!(name.into()));
        JobRequest {
            template: template.into(),
            body,
        }
    }

    /// A job named `name` running agent `A`'s template:
    /// `JobRequest::of::<RetailerAPdp>("nightly")`, so a renamed or misspelt agent is a compile
    /// error, and [`JobInputs::params`] takes `A`'s typed params.
    pub fn of<A: Agent>(name: impl Into<String>) -> Self {
        JobRequest::new(name, A::NAME)
    }

    setters! {
        /// Human-friendly name.
        display_name: &str => "display_name",
        /// What the job is for.
        description: &str => "description",
        /// Where results go.
        destination: JobDestination => "destination",
        /// The inputs.
        inputs: JobInputs => "inputs",
    }

    /// Runs on a cron schedule (`0 3 * * *`: at three every night), enabled or not.
    pub fn schedule(mut self, cron: impl Into<String>, enabled: bool) -> Self {
        let s = JobSchedule {
            cron: cron.into(),
            enabled,
        };
        self.body.insert("schedule".into(), json!(s));
        self
    }

    fn wire(&self, version: ApiVersion) -> Map<String, Value> {
        let mut body = self.body.clone();
        body.insert(
            version.words().template_ref.to_owned(),
            json!(self.template),
        );
        body
    }
}

/// A change to a job: only what is set is sent; `clear_*` removes a field.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct JobUpdate {
    body: Map<String, Value>,
}

impl JobUpdate {
    /// No change yet.
    pub fn new() -> Self {
        JobUpdate::default()
    }

    setters! {
        /// Human-friendly name.
        display_name: &str => "display_name",
        /// What the job is for.
        description: &str => "description",
        /// Where results go.
        destination: JobDestination => "destination",
        /// The inputs.
        inputs: JobInputs => "inputs",
        /// The schedule.
        schedule: JobSchedule => "schedule",
    }

    /// Removes the schedule (the job then runs only when triggered).
    pub fn clear_schedule(mut self) -> Self {
        self.body.insert("schedule".into(), Value::Null);
        self
    }
}

/// A job run, as lists and triggers answer it.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct JobRun {
    /// The run's id.
    pub id: String,
    /// Its job (absent in a cancel answer).
    #[serde(default)]
    pub job_id: Option<String>,
    /// Its status.
    pub status: JobStatus,
    /// What started it.
    #[serde(default)]
    pub triggered_by: Option<TriggeredBy>,
    /// When it was made.
    #[serde(default)]
    pub created_at: Option<String>,
    /// When it started.
    #[serde(default)]
    pub started_at: Option<String>,
    /// When it ended.
    #[serde(default)]
    pub finished_at: Option<String>,
    /// Inputs it runs over.
    #[serde(default)]
    pub input_count: Option<u64>,
    /// Results it produced.
    #[serde(default)]
    pub result_count: Option<u64>,
    /// Everything else (one run's `job`, `summary`, `error`, `inputs_sample`), kept as sent.
    #[serde(flatten)]
    pub rest: Map<String, Value>,
}

impl JobRun {
    /// What went wrong, when the service says (`error.message`).
    pub fn error_message(&self) -> Option<&str> {
        self.rest.get("error")?.get("message")?.as_str()
    }

    /// Results per input, from 0 to 1 (`summary.match_rate`).
    pub fn match_rate(&self) -> Option<f64> {
        self.rest.get("summary")?.get("match_rate")?.as_f64()
    }

    /// The job the run belongs to, as [`Client::job_run`] answers it (`job`; lists of runs do
    /// not carry it): which template it ran, where its results went.
    pub fn job(&self) -> Option<Job> {
        Job::deserialize(self.rest.get("job")?).ok()
    }
}

/// A file a job run wrote.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct Artifact {
    /// Its id.
    pub id: String,
    /// When it was written.
    #[serde(default)]
    pub created_at: Option<String>,
    /// What it holds.
    #[serde(default)]
    pub description: String,
    /// Its kind (its format, such as `parquet`).
    #[serde(rename = "type", default)]
    pub kind: String,
}

/// A URL to download an artifact, and when it stops working.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct ArtifactUrl {
    /// The URL (no credentials needed).
    pub url: String,
    /// When it expires (RFC 3339).
    pub expires_at: String,
}

/// The first rows of an artifact.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct ArtifactPreview {
    /// Column names.
    pub columns: Vec<String>,
    /// Rows in the whole artifact.
    pub row_count: u64,
    /// The first rows.
    pub rows: Vec<Map<String, Value>>,
}

/// A job run in progress: [`JobRunHandle::wait`] polls until it ends.
#[derive(Debug, Clone)]
pub struct JobRunHandle {
    client: Client,
    id: String,
    wait: WaitOptions,
}

impl JobRunHandle {
    /// The run's id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Polls with other options.
    pub fn with_wait(mut self, options: WaitOptions) -> Self {
        self.wait = options;
        self
    }

    /// Polls until the run ends, and answers it whatever its status (`SUCCESS`, `WARNING` with
    /// some inputs failed, `FAILED`, `CANCELLED`, `TIMEOUT`): check [`JobRun::status`].
    pub async fn wait(&self) -> Result<JobRun, Error> {
        waiter::wait(
            self.client.clock(),
            format!("job run {}", self.id),
            self.wait,
            || async {
                let run = self.client.job_run(&self.id).await?;
                Ok(if run.status.is_finished() || run.finished_at.is_some() {
                    Poll::Done(run)
                } else {
                    Poll::Pending(run.status.as_str().to_owned())
                })
            },
        )
        .await
    }
}

impl Client {
    /// Creates a job.
    pub async fn create_job(&self, request: JobRequest) -> Result<Job, Error> {
        if request.template.trim().is_empty() {
            return Err(Error::InvalidOption {
                option: "template",
                message: "a job needs the template (agent) it runs".into(),
            });
        }
        let body = JsonBody::new(&request.wire(self.api_version()), "request")?;
        Ok(self
            .send(&endpoint::JOB_CREATE, &[], &[], Some(&body))
            .await?
            .0)
    }

    /// Every job of the account, page after page as the stream is read.
    pub fn jobs(&self) -> BoxStream<'static, Result<Job, Error>> {
        super::listing::offset_stream(self.clone(), &endpoint::JOB_LIST, Vec::new(), 50)
    }

    /// One job.
    pub async fn job(&self, id: &str) -> Result<Job, Error> {
        Ok(self.get(&endpoint::JOB_GET, &[id], &[]).await?.0)
    }

    /// Changes a job.
    pub async fn update_job(&self, id: &str, update: JobUpdate) -> Result<Job, Error> {
        Ok(self
            .post(&endpoint::JOB_UPDATE, &[id], &update.body, "update")
            .await?
            .0)
    }

    /// Deletes a job.
    pub async fn delete_job(&self, id: &str) -> Result<(), Error> {
        self.send::<()>(&endpoint::JOB_DELETE, &[id], &[], None)
            .await?;
        Ok(())
    }

    /// Runs a job now, over its own inputs or (`/v2`) the ones given.
    pub async fn trigger_job(
        &self,
        id: &str,
        inputs: Option<JobInputs>,
    ) -> Result<JobRunHandle, Error> {
        let body = match (inputs, self.api_version()) {
            (None, _) => None,
            (Some(i), ApiVersion::V2) => Some(JsonBody::new(&json!({ "inputs": i }), "inputs")?),
            (Some(_), version) => {
                return Err(Error::InvalidOption {
                    option: "inputs",
                    message: format!(
                        "/{version} runs a job over its stored inputs: update the job's \
                         inputs, or build the client with `.api_version(ApiVersion::V2)`"
                    ),
                });
            }
        };
        let (run, _): (JobRun, _) = self
            .send(&endpoint::JOB_TRIGGER, &[id], &[], body.as_ref())
            .await?;
        Ok(JobRunHandle {
            client: self.clone(),
            id: run.id,
            wait: WaitOptions::TASK,
        })
    }

    /// A run to wait on, by id (one a schedule started, say).
    pub fn job_run_handle(&self, run_id: &str) -> JobRunHandle {
        JobRunHandle {
            client: self.clone(),
            id: run_id.to_owned(),
            wait: WaitOptions::TASK,
        }
    }

    /// A job's runs, newest first, page after page.
    pub fn job_runs(&self, job_id: &str) -> BoxStream<'static, Result<JobRun, Error>> {
        super::listing::offset_stream(
            self.clone(),
            &endpoint::JOB_RUNS,
            vec![job_id.to_owned()],
            50,
        )
    }

    /// One run, with its summary and errors.
    pub async fn job_run(&self, run_id: &str) -> Result<JobRun, Error> {
        Ok(self.get(&endpoint::JOB_RUN_GET, &[run_id], &[]).await?.0)
    }

    /// Cancels a run that has not ended; its status after.
    pub async fn cancel_job_run(&self, run_id: &str) -> Result<JobStatus, Error> {
        let (run, _): (JobRun, _) = self
            .send(&endpoint::JOB_RUN_CANCEL, &[run_id], &[], None)
            .await?;
        Ok(run.status)
    }

    /// A run's artifacts.
    pub async fn artifacts(&self, run_id: &str) -> Result<Vec<Artifact>, Error> {
        #[derive(Deserialize)]
        struct List {
            items: Vec<Artifact>,
        }
        let (list, _): (List, _) = self.get(&endpoint::JOB_ARTIFACTS, &[run_id], &[]).await?;
        Ok(list.items)
    }

    /// One artifact.
    pub async fn artifact(&self, run_id: &str, artifact_id: &str) -> Result<Artifact, Error> {
        Ok(self
            .get(&endpoint::JOB_ARTIFACT, &[run_id, artifact_id], &[])
            .await?
            .0)
    }

    /// A short-lived URL that downloads an artifact without credentials.
    pub async fn artifact_download_url(
        &self,
        run_id: &str,
        artifact_id: &str,
    ) -> Result<ArtifactUrl, Error> {
        Ok(self
            .get(&endpoint::JOB_ARTIFACT_URL, &[run_id, artifact_id], &[])
            .await?
            .0)
    }

    /// The first rows of an artifact.
    pub async fn artifact_preview(
        &self,
        run_id: &str,
        artifact_id: &str,
    ) -> Result<ArtifactPreview, Error> {
        Ok(self
            .get(&endpoint::JOB_ARTIFACT_PREVIEW, &[run_id, artifact_id], &[])
            .await?
            .0)
    }

    /// Downloads an artifact's bytes through its download URL (no credentials are sent there;
    /// at most [`ClientBuilder::max_response_bytes`](super::ClientBuilder::max_response_bytes),
    /// 64 MiB by default: a larger artifact is an [`Error::TooLarge`], and
    /// [`Client::artifact_chunks`] reads one of any size as it arrives).
    ///
    /// The bytes are checked against what the artifact says it is before they are handed out:
    /// an HTML page (a proxy's or a login page's answer with status 200), or bytes that are not
    /// of the artifact's format (Parquet without its `PAR1` marks, JSON lines that do not start
    /// as JSON), are an [`Error::Decode`] naming the format, not an artifact.
    pub async fn download_artifact(
        &self,
        run_id: &str,
        artifact_id: &str,
    ) -> Result<bytes::Bytes, Error> {
        let artifact = self.artifact(run_id, artifact_id).await?;
        let link = self.artifact_download_url(run_id, artifact_id).await?;
        let got = self.download(&link.url).await?;
        match artifact_problem(&artifact.kind, got.content_type.as_deref(), &got.bytes) {
            None => Ok(got.bytes),
            Some(message) => Err(not_artifact(message, &got.bytes, got.info)),
        }
    }

    /// An artifact's bytes as they arrive, for an artifact of any size: no more than a chunk
    /// is held at once, and the whole download has no time limit, only a limit on silence (the
    /// client's timeout, then [`Error::Stalled`]). Write the chunks where they go (a file, a
    /// bucket) as they come; `cargo agents jobs download` writes them to a file this way.
    ///
    /// The bytes are checked as [`Client::download_artifact`] checks them: the start before
    /// anything is handed out (an HTML page, or bytes not of the artifact's format, is an
    /// [`Error::Decode`] in place of the stream), and a Parquet file's closing mark once the
    /// last chunk is in (an [`Error::Decode`] as the stream's last item when it lacks it).
    ///
    /// ```no_run
    /// # async fn demo(client: agents_runtime::Client, run: &str, id: &str) -> Result<(), agents_runtime::Error> {
    /// use futures_util::StreamExt;
    /// let mut chunks = client.artifact_chunks(run, id).await?;
    /// let mut bytes = 0;
    /// while let Some(chunk) = chunks.next().await {
    ///     bytes += chunk?.len(); // write it somewhere
    /// }
    /// println!("{bytes} bytes");
    /// # Ok(()) }
    /// ```
    pub async fn artifact_chunks(
        &self,
        run_id: &str,
        artifact_id: &str,
    ) -> Result<BoxStream<'static, Result<bytes::Bytes, Error>>, Error> {
        use futures_util::StreamExt as _;

        let artifact = self.artifact(run_id, artifact_id).await?;
        let link = self.artifact_download_url(run_id, artifact_id).await?;
        let (resp, content_type, info) = self.download_started(&link.url, true).await?;
        let mut body = Chunks {
            resp: Some(resp),
            stall: self.stall_limit(),
            what: format!("artifact {artifact_id} of run {run_id}"),
            kind: artifact.kind,
            len: 0,
            tail: Vec::with_capacity(8),
            info,
        };
        // Enough of the start to judge it: its first four bytes and its first byte that is not
        // whitespace, or all there is.
        let mut head = Vec::new();
        while head.len() < 4 || head.iter().all(u8::is_ascii_whitespace) {
            match body.next_chunk().await? {
                Some(chunk) => head.extend_from_slice(&chunk),
                None => break,
            }
            if head.len() > HEAD_LIMIT {
                break;
            }
        }
        if let Some(message) = head_problem(&body.kind, content_type.as_deref(), &head) {
            return Err(not_artifact(message, &head, body.info));
        }
        body.seen(&head);
        let head = futures_util::stream::iter((!head.is_empty()).then(|| Ok(head.into())));
        let rest = futures_util::stream::unfold(Some(body), |body| async move {
            let mut body = body?;
            match body.next_chunk().await {
                Ok(Some(chunk)) => {
                    body.seen(&chunk);
                    Some((Ok(chunk), Some(body)))
                }
                Ok(None) => {
                    let tail = tail_problem(&body.kind, body.len, &body.tail)?;
                    Some((Err(not_artifact(tail, &body.tail, body.info)), None))
                }
                Err(e) => Some((Err(e), None)),
            }
        });
        Ok(head.chain(rest).boxed())
    }
}

/// Most of an artifact's start read to judge it, when it starts with nothing but whitespace.
const HEAD_LIMIT: usize = 64 * 1024;

/// An artifact's body as it arrives, and what the checks of its end need.
struct Chunks {
    resp: Option<reqwest::Response>,
    stall: std::time::Duration,
    what: String,
    kind: String,
    len: u64,
    /// Its last bytes so far (at most four).
    tail: Vec<u8>,
    info: super::ResponseInfo,
}

impl Chunks {
    /// The next chunk, `None` at the end; silence past `stall` is [`Error::Stalled`].
    async fn next_chunk(&mut self) -> Result<Option<bytes::Bytes>, Error> {
        let Some(resp) = self.resp.as_mut() else {
            return Ok(None);
        };
        match tokio::time::timeout(self.stall, resp.chunk()).await {
            Err(_) => Err(Error::Stalled {
                what: self.what.clone(),
                silence: self.stall,
            }),
            Ok(Ok(Some(chunk))) => Ok(Some(chunk)),
            Ok(Ok(None)) => {
                self.resp = None;
                Ok(None)
            }
            Ok(Err(e)) => Err(e.into()),
        }
    }

    fn seen(&mut self, chunk: &[u8]) {
        self.len += chunk.len() as u64;
        self.tail
            .extend_from_slice(&chunk[chunk.len().saturating_sub(4)..]);
        let extra = self.tail.len().saturating_sub(4);
        self.tail.drain(..extra);
    }
}

/// Bytes that are not the artifact they were downloaded as, with the first of them to show.
fn not_artifact(message: String, bytes: &[u8], info: super::ResponseInfo) -> Error {
    Error::Decode(Box::new(super::error::DecodeError {
        path: ".".to_owned(),
        message,
        body: String::from_utf8_lossy(&bytes[..bytes.len().min(512)]).into_owned(),
        info,
    }))
}

/// Why `bytes` (sent as `content_type`) are not an artifact of `kind`, if they are not.
fn artifact_problem(kind: &str, content_type: Option<&str>, bytes: &[u8]) -> Option<String> {
    head_problem(kind, content_type, bytes)
        .or_else(|| tail_problem(kind, bytes.len() as u64, bytes))
}

const NOT_PARQUET: &str =
    "the download is not Parquet: it lacks the PAR1 marks a Parquet file starts and ends with";

/// Why an artifact's end, `len` bytes in all and ending with `tail`, is not one of `kind`.
fn tail_problem(kind: &str, len: u64, tail: &[u8]) -> Option<String> {
    (kind == "parquet" && (len < 8 || !tail.ends_with(b"PAR1"))).then(|| NOT_PARQUET.to_owned())
}

/// Why an artifact's start (sent as `content_type`) is not one of `kind`: `head` is its first
/// four bytes and its first byte that is not whitespace, or all of it.
fn head_problem(kind: &str, content_type: Option<&str>, bytes: &[u8]) -> Option<String> {
    let mime = content_type
        .and_then(|c| c.split(';').next())
        .map(|c| c.trim().to_ascii_lowercase());
    if mime.as_deref() == Some("text/html") {
        return Some(format!(
            "the download answered an HTML page (Content-Type text/html), not a {kind} artifact"
        ));
    }
    let first = bytes.iter().copied().find(|b| !b.is_ascii_whitespace());
    match kind {
        "parquet" if !bytes.starts_with(b"PAR1") => Some(NOT_PARQUET.to_owned()),
        "jsonl" | "json" if !matches!(first, None | Some(b'{' | b'[')) => Some(format!(
            "the download is not JSON lines: it starts with {:?}",
            first.map(char::from).unwrap_or(' ')
        )),
        _ if first == Some(b'<') => Some(format!(
            "the download looks like an HTML page, not a {kind} artifact"
        )),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::artifact_problem;

    #[test]
    fn an_artifact_is_what_it_says_it_is() {
        let page = b"<!doctype html><html>Sign in</html>";
        for kind in ["parquet", "jsonl", "csv"] {
            assert!(artifact_problem(kind, Some("text/html; charset=utf-8"), b"a,b").is_some());
            assert!(artifact_problem(kind, Some("application/octet-stream"), page).is_some());
        }
        assert_eq!(artifact_problem("parquet", None, b"PAR1....PAR1"), None);
        assert!(artifact_problem("parquet", None, b"PAR1").is_some());
        assert_eq!(artifact_problem("jsonl", None, b"{\"a\": 1}\n"), None);
        assert_eq!(artifact_problem("jsonl", None, b""), None);
        assert_eq!(
            artifact_problem("csv", Some("text/csv"), b"a,b\n1,2\n"),
            None
        );
    }
}
