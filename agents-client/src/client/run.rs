//! Agent runs: typed and raw, sync and async with delivery options.

use std::marker::PhantomData;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::error::{Error, OptionCheck, ResponseInfo};
use super::publish::unknown_template;
use super::tasks::{TaskHandle, TaskOutput, TaskRecord};
use super::{Client, JsonBody, WaitOptions};
use crate::agent::{Agent, AgentParams};
use crate::decode::Parsing;
use crate::endpoint::{self, ApiVersion, Endpoint};

/// A format that adds a `data.*` field to a run result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// `data.html`.
    Html,
    /// `data.markdown`.
    Markdown,
    /// `data.headers`.
    Headers,
    /// `data.links`.
    Links,
}

/// Options of a run besides the params.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RunOptions {
    formats: Vec<Format>,
}

impl RunOptions {
    /// Only `data.parsing`.
    pub fn new() -> Self {
        RunOptions::default()
    }

    /// Also return this format.
    pub fn format(mut self, f: Format) -> Self {
        if !self.formats.contains(&f) {
            self.formats.push(f);
        }
        self
    }

    /// The formats asked for.
    pub fn formats(&self) -> &[Format] {
        &self.formats
    }
}

/// Where an async run's result is delivered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum StorageType {
    /// Amazon S3: `s3://bucket/prefix/`.
    S3,
    /// Google Cloud Storage: `gs://bucket/prefix/`.
    Gs,
}

/// Delivery options of an async run; checked before anything is sent.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Delivery {
    storage: Option<(StorageType, String)>,
    compress: Option<bool>,
    object_name: Option<String>,
    callback_url: Option<String>,
}

impl Delivery {
    /// No delivery: poll the task for its result.
    pub fn new() -> Self {
        Delivery::default()
    }

    /// Write the result to a bucket path (`s3://bucket/prefix/` or `gs://bucket/prefix/`).
    pub fn storage(mut self, ty: StorageType, url: impl Into<String>) -> Self {
        self.storage = Some((ty, url.into()));
        self
    }

    /// GZIP the stored result (`<task_id>.json.gz`).
    pub fn compress(mut self, yes: bool) -> Self {
        self.compress = Some(yes);
        self
    }

    /// Store under this name instead of the task id.
    pub fn object_name(mut self, name: impl Into<String>) -> Self {
        self.object_name = Some(name.into());
        self
    }

    /// POST task metadata to this http(s) URL on completion.
    pub fn callback_url(mut self, url: impl Into<String>) -> Self {
        self.callback_url = Some(url.into());
        self
    }

    /// Where results are stored: the storage URL, and the object name that replaces the task
    /// id.
    #[cfg(feature = "delivery")]
    pub(crate) fn storage_location(&self) -> Option<(&str, Option<&str>)> {
        let (_, url) = self.storage.as_ref()?;
        Some((url, self.object_name.as_deref()))
    }

    /// Checks the options; the fields they add to a request body.
    pub(crate) fn fields(&self) -> Result<DeliveryFields<'_>, Error> {
        let mut fields = DeliveryFields::default();
        let mut check = OptionCheck::default();
        if let Some((ty, url)) = &self.storage {
            let scheme = match ty {
                StorageType::S3 => "s3://",
                StorageType::Gs => "gs://",
            };
            let bucket = url
                .strip_prefix(scheme)
                .and_then(|r| r.split('/').next())
                .unwrap_or("");
            if bucket.is_empty() || !url.ends_with('/') || url.contains(char::is_whitespace) {
                check.bad(
                    "storage_url",
                    format!("{url:?} is not of the form {scheme}<bucket>/<path_prefix>/"),
                );
            }
            fields.storage_type = Some(*ty);
            fields.storage_url = Some(url);
        } else if self.compress.is_some() || self.object_name.is_some() {
            check.bad(
                "storage_url",
                "storage_compress and storage_object_name need a storage location",
            );
        }
        fields.storage_compress = self.compress;
        if let Some(n) = &self.object_name {
            if n.is_empty() || n.contains('/') {
                check.bad(
                    "storage_object_name",
                    format!("{n:?} must be a non-empty name without '/'"),
                );
            }
            fields.storage_object_name = Some(n);
        }
        if let Some(u) = &self.callback_url {
            check.take(super::check_http_url("callback_url", u));
            fields.callback_url = Some(u);
        }
        check.finish().map(|()| fields)
    }
}

impl Delivery {
    /// Checks the options and adds their fields to a request body built field by field.
    pub(crate) fn add_to(&self, body: &mut Map<String, Value>) -> Result<(), Error> {
        if let Value::Object(fields) =
            serde_json::to_value(self.fields()?).map_err(|e| Error::InvalidOption {
                option: "delivery",
                message: e.to_string(),
            })?
        {
            body.extend(fields);
        }
        Ok(())
    }
}

/// The delivery fields of a request body, checked.
#[derive(Debug, Default, Serialize)]
pub(crate) struct DeliveryFields<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    storage_type: Option<StorageType>,
    #[serde(skip_serializing_if = "Option::is_none")]
    storage_url: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    storage_compress: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    storage_object_name: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    callback_url: Option<&'a str>,
}

/// The body of a run or an async run, and the shared inputs of a batch: one struct, serialized
/// once.
#[derive(Debug, Serialize)]
pub(crate) struct RunRequest<'a> {
    /// The agent's (`/v1`) or extract template's (`/v2`) name.
    #[serde(flatten)]
    pub name: Named<'a>,
    pub params: &'a Value,
    #[serde(skip_serializing_if = "<[Format]>::is_empty")]
    pub formats: &'a [Format],
    /// A boolean, as the vendor's own clients send it.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub localization: bool,
    #[serde(flatten)]
    pub delivery: DeliveryFields<'a>,
}

/// A name in the field its version spells for it: one entry of a map, flattened into the body.
#[derive(Debug)]
pub(crate) struct Named<'a> {
    field: &'static str,
    name: &'a str,
}

impl Serialize for Named<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = s.serialize_map(Some(1))?;
        map.serialize_entry(self.field, self.name)?;
        map.end()
    }
}

impl<'a> RunRequest<'a> {
    /// A request naming `name` in the field `version` uses for it.
    pub(crate) fn new(
        version: ApiVersion,
        name: &'a str,
        params: &'a Value,
        formats: &'a [Format],
        localization: bool,
        delivery: DeliveryFields<'a>,
    ) -> Self {
        RunRequest {
            name: Named {
                field: version.words().run_field,
                name,
            },
            params,
            formats,
            localization,
            delivery,
        }
    }
}

super::open::open_enum! {
    /// The status of a run result: an open set (the live service sends more values than it documents).
    #[derive(Default)]
    RunStatus {
        /// `success`.
        #[default]
        Success = "success",
        /// `failed`.
        Failed = "failed",
    }
}

/// `metadata` of a run result.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct Metadata {
    /// The agent that ran.
    #[serde(default)]
    pub agent: Option<String>,
    /// The driver used (`vx6`, `vx8`, `vx10`, …).
    #[serde(default)]
    pub driver: Option<String>,
    /// Every other key (`query_time`, `query_duration`, `response_parameters`, …).
    #[serde(flatten)]
    pub rest: Map<String, Value>,
}

/// `data` of a run result.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(bound(deserialize = "Parsing<T>: Deserialize<'de>"))]
pub struct RunData<T> {
    /// The structured data: one record, or a list on list pages.
    pub parsing: Parsing<T>,
    /// Page HTML, when [`Format::Html`] was asked for.
    #[serde(default)]
    pub html: Option<String>,
    /// Page markdown, when [`Format::Markdown`] was asked for.
    #[serde(default)]
    pub markdown: Option<String>,
    /// Target response headers, when [`Format::Headers`] was asked for.
    #[serde(default)]
    pub headers: Option<Map<String, Value>>,
    /// Every URL on the page, when [`Format::Links`] was asked for.
    #[serde(default)]
    pub links: Option<Vec<String>>,
}

/// An agent run result. `T` is the generated output record (or
/// [`serde_json::Value`] for raw runs).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(bound(deserialize = "Parsing<T>: Deserialize<'de>"))]
pub struct RunResult<T> {
    /// The URL that was extracted.
    #[serde(default)]
    pub url: Option<String>,
    /// The request's task id.
    #[serde(default)]
    pub task_id: Option<String>,
    /// `success`, `failed` or another value.
    #[serde(default)]
    pub status: RunStatus,
    /// HTTP status of the target page (`200` or, as the vendor's models type it, `200.0`).
    #[serde(default, deserialize_with = "super::open::status_code")]
    pub status_code: Option<u16>,
    /// The extracted data.
    pub data: RunData<T>,
    /// `agent`, `driver` and the rest.
    #[serde(default)]
    pub metadata: Metadata,
    /// Warnings the service attached.
    #[serde(default)]
    pub warnings: Vec<Value>,
    /// Status, `x-task-id` and rate-limit headers of the answer that carried this result.
    #[serde(skip)]
    pub response: ResponseInfo,
}

impl<T> RunResult<T> {
    /// The record when the page had exactly one.
    pub fn record(&self) -> Option<&T> {
        self.data.parsing.single()
    }

    /// Every record.
    pub fn records(&self) -> &[T] {
        self.data.parsing.records()
    }

    /// The record when the page had exactly one, owned.
    pub fn into_record(self) -> Option<T> {
        match self.data.parsing {
            Parsing::One(one) => Some(one),
            Parsing::Many(mut many) if many.len() == 1 => many.pop(),
            Parsing::Many(_) => None,
        }
    }

    /// Every record, owned.
    pub fn into_records(self) -> Vec<T> {
        self.data.parsing.into_records()
    }

    /// How many times the client sent the call that brought this result (1 when it was not
    /// retried): what [`Error::attempts`] says of a call that failed.
    pub fn attempts(&self) -> u32 {
        self.response.attempts
    }
}

/// A run result is what an async run's task gives back.
impl<T: Send + 'static> TaskOutput for RunResult<T>
where
    Parsing<T>: serde::de::DeserializeOwned,
{
    fn set_response(&mut self, info: ResponseInfo) {
        self.response = info;
    }
}

impl RunResult<Value> {
    /// The records as a type of your own: the typed path for an agent without generated
    /// bindings, such as one your program generated itself (it knows what it asked for).
    /// Decoding follows `T`'s `Deserialize`: a struct written with [`record!`](agents_types::record)
    /// tolerates drift and records it as generated records do; a plain `#[derive(Deserialize)]`
    /// fails on the first value of another type, with its JSON path.
    ///
    /// ```no_run
    /// # use agents_runtime::prelude::*;
    /// # async fn f(client: Client) -> Result<(), Error> {
    /// #[derive(serde::Deserialize)]
    /// struct Listing {
    ///     title: Option<String>,
    ///     price: Option<f64>,
    /// }
    ///
    /// let run = client
    ///     .run_raw("market_listing", serde_json::json!({"url": "https://market.example/l/1"}))
    ///     .await?
    ///     .into_typed::<Listing>()?;
    /// println!("{:?}", run.record().and_then(|l| l.price));
    /// # Ok(()) }
    /// ```
    pub fn into_typed<T: serde::de::DeserializeOwned + Send>(self) -> Result<RunResult<T>, Error> {
        let info = self.response.clone();
        // Read from its text by the client's one decoder, which names the path of an error.
        let decode = |value: Value, path: String| {
            let body = value.to_string();
            drop(value);
            super::decode_body::<T>(body.as_bytes()).map_err(|(at, message)| {
                Error::Decode(Box::new(super::error::DecodeError {
                    path: if at == "." {
                        path.clone()
                    } else {
                        format!("{path}.{at}")
                    },
                    message,
                    body,
                    info: info.clone(),
                }))
            })
        };
        let parsing = match self.data.parsing {
            Parsing::One(one) => Parsing::One(decode(one, "data.parsing".to_owned())?),
            Parsing::Many(many) => Parsing::Many(
                many.into_iter()
                    .enumerate()
                    .map(|(i, v)| decode(v, format!("data.parsing[{i}]")))
                    .collect::<Result<_, _>>()?,
            ),
        };
        Ok(RunResult {
            url: self.url,
            task_id: self.task_id,
            status: self.status,
            status_code: self.status_code,
            data: RunData {
                parsing,
                html: self.data.html,
                markdown: self.data.markdown,
                headers: self.data.headers,
                links: self.data.links,
            },
            metadata: self.metadata,
            warnings: self.warnings,
            response: self.response,
        })
    }
}

/// The body of a run. `localization` is sent when the typed params say a localization input is
/// set or the wire params hold one, however it got there (a setter, `.param()`, raw params).
fn run_body<'a>(
    version: ApiVersion,
    agent: &'a str,
    params: &'a Value,
    typed_localizes: bool,
    options: &'a RunOptions,
    delivery: DeliveryFields<'a>,
) -> Result<JsonBody, Error> {
    JsonBody::new(
        &RunRequest::new(
            version,
            agent,
            params,
            &options.formats,
            typed_localizes || localizes(params),
            delivery,
        ),
        "params",
    )
}

/// Whether wire params set a localization parameter (`zip_code` or `store_id`): the one rule for runs, async runs and batch items.
pub(crate) fn localizes(params: &Value) -> bool {
    crate::words::LOCALIZATION_PARAMS
        .iter()
        .any(|k| params.get(k).is_some_and(|v| !v.is_null()))
}

fn typed_params<P: AgentParams>(params: &P) -> Result<Value, Error> {
    params.validate()?;
    serde_json::to_value(params).map_err(|e| Error::InvalidOption {
        option: "params",
        message: e.to_string(),
    })
}

impl Client {
    /// A finished task's result, typed: `client.task_result::<RetailerAPdp>(id)`, or
    /// `task_result::<Value>(id)` for any agent.
    pub async fn task_result<T: Send + 'static>(&self, id: &str) -> Result<RunResult<T>, Error>
    where
        Parsing<T>: serde::de::DeserializeOwned,
    {
        self.task_output(id).await
    }

    /// Runs an agent: validates the params (nothing is sent when a rule is broken), sends
    /// `localization` when a localization parameter is set, and decodes the typed result.
    pub async fn run<P: AgentParams>(&self, params: P) -> Result<RunResult<P::Agent>, Error> {
        self.run_with(params, &RunOptions::new()).await
    }

    /// [`Client::run`] with formats.
    pub async fn run_with<P: AgentParams>(
        &self,
        params: P,
        options: &RunOptions,
    ) -> Result<RunResult<P::Agent>, Error> {
        let wire = typed_params(&params)?;
        let body = run_body(
            self.api_version(),
            <P::Agent as Agent>::NAME,
            &wire,
            params.uses_localization(),
            options,
            DeliveryFields::default(),
        )?;
        self.post_run(&body)
            .await
            .map_err(|e| unknown_template::<P::Agent>(e, self.api_version()))
    }

    /// Runs an agent that has no generated bindings.
    pub async fn run_raw(&self, agent: &str, params: Value) -> Result<RunResult<Value>, Error> {
        self.run_raw_with(agent, params, &RunOptions::new()).await
    }

    /// [`Client::run_raw`] with formats.
    pub async fn run_raw_with(
        &self,
        agent: &str,
        params: Value,
        options: &RunOptions,
    ) -> Result<RunResult<Value>, Error> {
        let body = run_body(
            self.api_version(),
            agent,
            &params,
            false,
            options,
            DeliveryFields::default(),
        )?;
        self.post_run(&body).await
    }

    async fn post_run<T: Send>(&self, body: &JsonBody) -> Result<RunResult<T>, Error>
    where
        Parsing<T>: serde::de::DeserializeOwned,
    {
        let (mut result, info): (RunResult<T>, _) = self
            .send(&endpoint::TEMPLATE_RUN, &[], &[], Some(body))
            .await?;
        result.response = info;
        Ok(result)
    }

    /// Starts an async run; the handle's [`TaskHandle::wait`] polls until it ends.
    ///
    /// ```no_run
    /// # use agents_runtime::{catalog::RetailerAPdpParams, Client};
    /// # async fn f(client: Client) -> Result<(), agents_runtime::Error> {
    /// let task = client.run_async(RetailerAPdpParams::new("B08N5WRWNW")).await?;
    /// let result = task.wait().await?;
    /// println!("{:?}", result.record().and_then(|p| p.web_price));
    /// # Ok(()) }
    /// ```
    pub async fn run_async<P: AgentParams>(
        &self,
        params: P,
    ) -> Result<TaskHandle<RunResult<P::Agent>>, Error> {
        self.run_async_with(params, &RunOptions::new(), &Delivery::new())
            .await
    }

    /// [`Client::run_async`] with formats and delivery (a bucket, a callback URL).
    pub async fn run_async_with<P: AgentParams>(
        &self,
        params: P,
        options: &RunOptions,
        delivery: &Delivery,
    ) -> Result<TaskHandle<RunResult<P::Agent>>, Error> {
        let wire = typed_params(&params)?;
        let body = run_body(
            self.api_version(),
            <P::Agent as Agent>::NAME,
            &wire,
            params.uses_localization(),
            options,
            delivery.fields()?,
        )?;
        self.start_task(&endpoint::TEMPLATE_ASYNC, &body)
            .await
            .map_err(|e| unknown_template::<P::Agent>(e, self.api_version()))
    }

    /// Starts an async run of an agent without bindings.
    pub async fn run_async_raw(
        &self,
        agent: &str,
        params: Value,
        options: &RunOptions,
        delivery: &Delivery,
    ) -> Result<TaskHandle<RunResult<Value>>, Error> {
        let body = run_body(
            self.api_version(),
            agent,
            &params,
            false,
            options,
            delivery.fields()?,
        )?;
        self.start_task(&endpoint::TEMPLATE_ASYNC, &body).await
    }

    /// POSTs an async request and returns the handle of the task it created.
    pub(crate) async fn start_task<R>(
        &self,
        endpoint: &Endpoint,
        body: &JsonBody,
    ) -> Result<TaskHandle<R>, Error> {
        // The spec's answer is `{task_id}`; the vendor's models wrap the task record
        // (`{status, task: {id, ...}}`). Either names the task.
        #[derive(Deserialize)]
        struct Created {
            #[serde(default)]
            task_id: Option<String>,
            #[serde(default)]
            task: Option<TaskRecord>,
        }
        let (created, info): (Created, _) = self.send(endpoint, &[], &[], Some(body)).await?;
        let Some(id) = created.task_id.or(created.task.map(|t| t.id)) else {
            return Err(Error::Decode(Box::new(super::error::DecodeError {
                path: ".".into(),
                message: "the answer names no task: neither `task_id` nor `task.id`".into(),
                body: String::new(),
                info,
            })));
        };
        Ok(TaskHandle {
            client: self.clone(),
            id,
            wait: WaitOptions::TASK,
            _output: PhantomData,
        })
    }
}
