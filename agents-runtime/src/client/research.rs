//! Research agents: an LLM agent that searches and reads the web to answer a question, with a
//! confidence, the sources it used and claims tied to the parts of the answer they support
//! (`/v2/agents`; `/v1/task-agents`). Create and change agents, start runs, follow a run's
//! progress as typed events, and read its answer typed by the agent's `output_schema`: an
//! [`Answer<T>`] where `T` is the record generated from that schema (`String` for text answers,
//! [`serde_json::Value`] for any).
//!
//! ```no_run
//! # async fn demo(client: agents_runtime::Client) -> Result<(), agents_runtime::Error> {
//! use agents_runtime::client::research::{ResearchAgentRequest, ResearchRunRequest, ResearchEvent};
//! use futures::StreamExt;
//! use serde_json::{Value, json};
//!
//! let agent = client
//!     .create_research_agent(
//!         ResearchAgentRequest::new()
//!             .agent_name("pricing-analyst")
//!             .goals(["Find the list price", "Name the source"])
//!             .output_schema(json!({
//!                 "type": "object",
//!                 "properties": {"product": {"type": "string"}, "price": {"type": "number"}},
//!             })),
//!     )
//!     .await?;
//! let run = client
//!     .start_research(&agent.id, ResearchRunRequest::new("What does the X100 cost?").events(true))
//!     .await?;
//! let mut events = run.events();
//! while let Some(event) = events.next().await {
//!     if let ResearchEvent::Reading { url, .. } = event?.event {
//!         println!("reading {url}");
//!     }
//! }
//! let answer = run.answer::<Value>().await?;
//! for citation in answer.citations("price") {
//!     println!("price from {}", citation.url);
//! }
//! # Ok(()) }
//! ```

use std::collections::VecDeque;
use std::time::Duration;

use bytes::Bytes;
use futures::stream::{BoxStream, StreamExt};
use reqwest::header::{ACCEPT, HeaderMap, HeaderValue};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use super::error::{DecodeError, Error};
use super::listing::paged_stream;
pub use super::research_run::{
    Effort, ResearchRun, ResearchStatus, RunError, RunFailure, StreamEnd,
};
use super::sse::{SseEvent, SseReader};
use super::waiter::{self, Poll, WaitError as _, WaitOptions};
use super::{Client, JsonBody};
use crate::endpoint::{self, ApiVersion};
use crate::words::Paging;

open_enum! {
    /// What a research agent is for.
    UseCase {
        /// Answers a question.
        Research = "research",
        /// Fills in records given in `input_data`.
        Enrichment = "enrichment",
        /// Builds a list of records.
        DatasetBuilding = "dataset_building",
    }
}

open_enum! {
    /// How sure the agent is of an answer or a claim.
    Confidence {
        /// Sure.
        High = "high",
        /// Fairly sure.
        Medium = "medium",
        /// Not sure.
        Low = "low",
        /// Not researched: the value was given in `input_data`.
        PreExisting = "pre_existing",
    }
}

open_enum! {
    /// How authoritative a source is for what it supports.
    SourceType {
        /// First-hand (the maker's own page, an official filing).
        Primary = "primary",
        /// Reporting on a primary source.
        Secondary = "secondary",
    }
}

open_enum! {
    /// What kind of source a page is, whatever the claim.
    SourceCategory {
        /// An official site.
        Official = "official",
        /// News.
        News = "news",
        /// Social media.
        Social = "social",
        /// Academic.
        Academic = "academic",
        /// An aggregator.
        Aggregator = "aggregator",
        /// Anything else the service files as `other`.
        Unclassified = "other",
    }
}

/// A group of domains an agent may use or must avoid.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SourceGroup {
    /// Its id (given by the service).
    #[serde(default, skip_serializing)]
    pub id: Option<String>,
    /// The group's title.
    pub title: String,
    /// Its domains (`example.com`).
    pub domains: Vec<String>,
    /// Its position, from 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order: Option<u32>,
}

impl SourceGroup {
    /// A group titled `title` of `domains`.
    pub fn new(
        title: impl Into<String>,
        domains: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        SourceGroup {
            id: None,
            title: title.into(),
            domains: domains.into_iter().map(Into::into).collect(),
            order: None,
        }
    }
}

/// Which sources an agent uses: groups of domains allowed and blocked, and free-text guidance.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Sources {
    /// Domains the agent may use.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub allow: Vec<SourceGroup>,
    /// Domains the agent must not use.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub block: Vec<SourceGroup>,
    /// Sources to avoid, in words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub avoid: Option<String>,
    /// Sources to prefer, in words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prioritize: Option<String>,
}

impl Sources {
    /// No rules yet.
    pub fn new() -> Self {
        Sources::default()
    }

    /// Allows a group of domains.
    pub fn allow(mut self, group: SourceGroup) -> Self {
        self.allow.push(group);
        self
    }

    /// Blocks a group of domains.
    pub fn block(mut self, group: SourceGroup) -> Self {
        self.block.push(group);
        self
    }
}

/// One of an agent's goals.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Goal {
    /// Its id.
    pub id: String,
    /// What to achieve.
    pub goal: String,
    /// Its position, from 0.
    pub order: u32,
}

/// A question the agent suggests asking it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SuggestedQuestion {
    /// Its id.
    pub id: String,
    /// The question.
    pub question: String,
    /// Its position, from 0.
    pub order: u32,
}

/// A research agent: `client.research_agent("wsa_…")`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ResearchAgent {
    /// Its id (`wsa_…`).
    pub id: String,
    /// Its stable name, when it has one (runs by name use it).
    #[serde(default)]
    pub agent_name: Option<String>,
    /// Human-friendly name.
    #[serde(default)]
    pub display_name: String,
    /// What it does.
    #[serde(default)]
    pub description: String,
    /// Icon identifier.
    #[serde(default)]
    pub icon: String,
    /// Default effort of its runs.
    pub effort: Effort,
    /// Its goals, in order.
    #[serde(default)]
    pub goals: Vec<Goal>,
    /// Whether runs can start (deleting an agent deactivates it).
    pub is_active: bool,
    /// The JSON Schema of its answers; text answers when absent.
    #[serde(default)]
    pub output_schema: Option<Value>,
    /// Its skill or operating context (`/v1`: `domain_expertise`).
    #[serde(default, alias = "domain_expertise")]
    pub skill: String,
    /// Its source rules.
    #[serde(default)]
    pub sources: Sources,
    /// Questions it suggests.
    #[serde(default)]
    pub suggested_questions: Vec<SuggestedQuestion>,
    /// What it is for.
    pub use_case: UseCase,
    /// When it was made (RFC 3339).
    pub created_at: String,
    /// When it last changed.
    pub updated_at: String,
    /// Fields this client does not know, kept as sent.
    #[serde(flatten)]
    pub rest: Map<String, Value>,
}

/// A research agent template, which new agents copy ([`ResearchAgentRequest::template`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ResearchTemplate {
    /// Its id.
    pub id: String,
    /// Its name, the one [`ResearchAgentRequest::template`] takes.
    pub template_name: String,
    /// Human-friendly name.
    #[serde(default)]
    pub display_name: String,
    /// What agents made from it do.
    #[serde(default)]
    pub description: String,
    /// Icon identifier.
    #[serde(default)]
    pub icon: String,
    /// Default effort.
    pub effort: Effort,
    /// Goals, in order.
    #[serde(default)]
    pub goals: Vec<Goal>,
    /// The JSON Schema of answers, when they are JSON.
    #[serde(default)]
    pub output_schema: Option<Value>,
    /// Skill (`/v1`: `domain_expertise`).
    #[serde(default, alias = "domain_expertise")]
    pub skill: String,
    /// Source groups.
    #[serde(default)]
    pub sources: Vec<SourceGroup>,
    /// Questions it suggests.
    #[serde(default)]
    pub suggested_questions: Vec<SuggestedQuestion>,
    /// When it was made.
    pub created_at: String,
    /// Fields this client does not know (`use_case`, `updated_at` in lists), kept as sent.
    #[serde(flatten)]
    pub rest: Map<String, Value>,
}

/// A new research agent: `ResearchAgentRequest::new().agent_name("analyst").goals([…])`.
/// Only what is set is sent; the service fills in the rest.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ResearchAgentRequest {
    body: Map<String, Value>,
}

impl ResearchAgentRequest {
    /// An agent with the service's defaults.
    pub fn new() -> Self {
        ResearchAgentRequest::default()
    }

    setters! {
        /// Its stable name (runs by name find it).
        agent_name: &str => "agent_name",
        /// Human-friendly name.
        display_name: &str => "display_name",
        /// What it does.
        description: &str => "description",
        /// Icon identifier.
        icon: &str => "icon",
        /// Default effort of its runs.
        effort: Effort => "effort",
        /// Whether runs can start.
        is_active: bool => "is_active",
        /// The JSON Schema of its answers (a JSON Schema document, `type: object` at the root).
        output_schema: Value => "output_schema",
        /// Skill or operating context.
        skill: &str => "skill",
        /// Source rules.
        sources: Sources => "sources",
        /// The template it copies.
        template: &str => "template",
        /// What it is for.
        use_case: UseCase => "use_case",
    }

    /// Its goals, in order.
    pub fn goals(mut self, goals: impl IntoIterator<Item = impl Into<String>>) -> Self {
        let goals: Vec<String> = goals.into_iter().map(Into::into).collect();
        self.body.insert("goals".into(), json!(goals));
        self
    }

    /// Questions it suggests, in order.
    pub fn suggested_questions(
        mut self,
        questions: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        let questions: Vec<String> = questions.into_iter().map(Into::into).collect();
        self.body
            .insert("suggested_questions".into(), json!(questions));
        self
    }

    /// Every rule the agent breaks for `version` (each naming its field), as one
    /// [`Error::InvalidOption`]; creating the agent runs the same check before sending.
    pub fn check(&self, version: ApiVersion) -> Result<(), Error> {
        refuse(crate::research::check_agent(&self.body, version))
    }

    fn wire(&self, version: ApiVersion) -> Result<Map<String, Value>, Error> {
        self.check(version)?;
        let mut body = self.body.clone();
        crate::words::respell(&mut body, &[|w| w.skill], crate::words::KEPT, version);
        Ok(body)
    }
}

/// A run of a research agent: `ResearchRunRequest::new("question").effort(Effort::High)`.
#[derive(Debug, Clone, PartialEq)]
pub struct ResearchRunRequest {
    body: Map<String, Value>,
}

impl ResearchRunRequest {
    /// A run that answers `input` (a question or instructions).
    pub fn new(input: impl Into<String>) -> Self {
        let mut body = Map::new();
        body.insert("input".into(), json!(input.into()));
        ResearchRunRequest { body }
    }

    setters! {
        /// Effort of this run.
        effort: Effort => "effort",
        /// Publish the run's progress as events ([`ResearchRunHandle::events`]).
        events: bool => "enable_events",
        /// Records to fill in (a list of partial rows, or one object, shaped as the output
        /// schema); needs an output schema on the run or the agent.
        input_data: Value => "input_data",
        /// The JSON Schema of this run's answer, instead of the agent's.
        output_schema: Value => "output_schema",
        /// Continues an earlier conversation ([`ResearchRun::interaction_id`]).
        previous_interaction_id: &str => "previous_interaction_id",
        /// Source rules of this run, instead of the agent's.
        sources: Sources => "sources",
        /// Skill of this run (`/v2` only).
        skill: &str => "skill",
        /// The use case, when the run creates its agent (`/v2` only).
        use_case: UseCase => "use_case",
        /// The agent's stable name, for runs started by name (`/v2` only).
        agent_name: &str => "agent_name",
    }

    /// Every rule the run breaks for `version` (each naming its field), as one
    /// [`Error::InvalidOption`]; starting the run runs the same check before sending.
    pub fn check(&self, version: ApiVersion) -> Result<(), Error> {
        refuse(crate::research::check_run(&self.body, version))
    }

    fn wire(&self, version: ApiVersion) -> Result<Map<String, Value>, Error> {
        self.check(version)?;
        Ok(self.body.clone())
    }
}

/// The broken rules of a request body (every one, each naming its field) as one error; nothing
/// is sent.
fn refuse(found: Vec<crate::research::Broken>) -> Result<(), Error> {
    if found.is_empty() {
        return Ok(());
    }
    let listed: Vec<String> = found
        .iter()
        .map(|b| format!("{}: {}", b.field, b.message))
        .collect();
    Err(Error::InvalidOption {
        option: "request",
        message: listed.join("; "),
    })
}

/// A page a claim or an answer rests on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Citation {
    /// The page.
    pub url: String,
    /// Its title.
    #[serde(default)]
    pub title: Option<String>,
    /// The passages that support the claim.
    #[serde(default, deserialize_with = "null_as_empty")]
    pub excerpts: Vec<String>,
    /// The extract template that read the page, when one did.
    #[serde(default)]
    pub extract_template_name: Option<String>,
    /// What kind of source the page is.
    #[serde(default)]
    pub source_category: Option<SourceCategory>,
    /// What kind of source the question needed.
    #[serde(default)]
    pub source_intent: Option<SourceCategory>,
    /// How authoritative the page is for the claim.
    #[serde(default)]
    pub source_type: Option<SourceType>,
}

fn null_as_empty<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    Ok(Option::<Vec<String>>::deserialize(d)?.unwrap_or_default())
}

/// A statement of the answer and the pages behind it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Claim {
    /// The part of a JSON answer it supports (`price`, `offers[0].seller`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// The callout number it has in a text answer (`[2]`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub callout: Option<u32>,
    /// The pages behind it.
    #[serde(default)]
    pub citations: Vec<Citation>,
    /// How sure the agent is of it.
    pub confidence: Confidence,
    /// Why the agent believes it.
    #[serde(default)]
    pub reasoning: String,
}

/// A source the agent used.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TrustSource {
    /// The page.
    pub url: String,
    /// How authoritative it is.
    #[serde(rename = "type")]
    pub kind: SourceType,
    /// Its title.
    #[serde(default)]
    pub title: Option<String>,
    /// The extract template that read it.
    #[serde(default)]
    pub extract_template_name: Option<String>,
    /// What kind of source it is.
    #[serde(default)]
    pub source_category: Option<SourceCategory>,
    /// What kind of source the question needed.
    #[serde(default)]
    pub source_intent: Option<SourceCategory>,
}

/// How far an answer can be trusted: a confidence, the reasoning, the claims and the sources.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Trust {
    /// How sure the agent is of the answer as a whole.
    pub confidence: Confidence,
    /// Why.
    #[serde(default)]
    pub reasoning: String,
    /// Its claims, each with its citations.
    #[serde(default)]
    pub claims: Vec<Claim>,
    /// Every source used.
    #[serde(default)]
    pub sources: Vec<TrustSource>,
}

/// A run's answer: its content typed as `T` (the record of the agent's output schema, `String`
/// for text answers, [`Value`] for any), how far it can be trusted, and the run.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Answer<T> {
    /// The answer.
    pub content: T,
    /// The answer as sent, which claims' paths point into.
    pub raw: Value,
    /// Confidence, claims with their citations, sources.
    pub trust: Trust,
    /// The run that answered.
    pub run: ResearchRun,
}

impl<T> Answer<T> {
    /// The claims about the part of the answer at `path` or inside it: `"price"`, `"offers[0]"`
    /// (dotted with indexes, with or without a leading `$.`, or a JSON pointer `/offers/0`).
    pub fn claims_for<'a>(&'a self, path: &str) -> impl Iterator<Item = &'a Claim> + 'a {
        let want = ClaimPath::parse(path);
        self.trust.claims.iter().filter(move |c| {
            c.path
                .as_deref()
                .is_some_and(|p| ClaimPath::parse(p).starts_with(&want))
        })
    }

    /// The citations behind the part of the answer at `path` or inside it, each once.
    pub fn citations(&self, path: &str) -> Vec<&Citation> {
        let mut out: Vec<&Citation> = Vec::new();
        for c in self.claims_for(path).flat_map(|c| &c.citations) {
            if !out.contains(&c) {
                out.push(c);
            }
        }
        out
    }

    /// The citations of the text answer's callout `n` (`[n]` in the text).
    pub fn callout(&self, n: u32) -> Vec<&Citation> {
        self.trust
            .claims
            .iter()
            .filter(|c| c.callout == Some(n))
            .flat_map(|c| &c.citations)
            .collect()
    }

    /// Claims whose path points at nothing in the answer: evidence for a field the answer does
    /// not have. Empty for a well-formed answer.
    pub fn unanchored_claims(&self) -> Vec<&Claim> {
        self.trust
            .claims
            .iter()
            .filter(|c| {
                c.path
                    .as_deref()
                    .is_some_and(|p| ClaimPath::parse(p).find(&self.raw).is_none())
            })
            .collect()
    }
}

/// A path into a JSON answer, as claims give it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClaimPath(Vec<String>);

impl ClaimPath {
    /// Reads `a.b[0].c`, `$.a.b[0]`, `a["odd key"]` or `/a/b/0`; indexes and keys become plain
    /// segments, so the notations compare equal.
    pub fn parse(text: &str) -> ClaimPath {
        let text = text.trim();
        if let Some(pointer) = text.strip_prefix('/') {
            return ClaimPath(
                pointer
                    .split('/')
                    .map(|p| p.replace("~1", "/").replace("~0", "~"))
                    .collect(),
            );
        }
        let text = text.strip_prefix('$').unwrap_or(text);
        let mut segments = Vec::new();
        let mut current = String::new();
        let mut chars = text.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '.' => {
                    if !current.is_empty() {
                        segments.push(std::mem::take(&mut current));
                    }
                }
                '[' => {
                    if !current.is_empty() {
                        segments.push(std::mem::take(&mut current));
                    }
                    let mut inside = String::new();
                    for c in chars.by_ref() {
                        if c == ']' {
                            break;
                        }
                        inside.push(c);
                    }
                    let key = serde_json::from_str::<String>(&inside)
                        .unwrap_or_else(|_| inside.trim_matches(['\'', '"']).to_owned());
                    segments.push(key);
                }
                c => current.push(c),
            }
        }
        if !current.is_empty() {
            segments.push(current);
        }
        ClaimPath(segments)
    }

    /// Its segments (keys and indexes).
    pub fn segments(&self) -> &[String] {
        &self.0
    }

    fn starts_with(&self, prefix: &ClaimPath) -> bool {
        self.0.starts_with(&prefix.0)
    }

    /// The value the path points at in `root`.
    pub fn find<'a>(&self, root: &'a Value) -> Option<&'a Value> {
        self.0.iter().try_fold(root, |at, seg| match at {
            Value::Object(m) => m.get(seg),
            Value::Array(items) => items.get(seg.parse::<usize>().ok()?),
            _ => None,
        })
    }
}

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
    client: Client,
    agent_id: String,
    run: ResearchRun,
    wait: WaitOptions,
    stall: Duration,
}

/// How long an event stream may stay silent by default: three of the service's 15-second
/// keep-alives.
pub const STALL_AFTER: Duration = Duration::from_secs(45);

/// Reconnections in a row (without an event between them) before an event stream gives up.
const MAX_RECONNECTS: u32 = 5;

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
    pub async fn result<T: DeserializeOwned>(&self) -> Result<Outcome<T>, Error> {
        self.client
            .research_result(&self.agent_id, &self.run.id)
            .await
    }

    /// Waits for the run to end and reads its answer; a run that failed or was cancelled is
    /// [`Error::ResearchFailed`].
    pub async fn answer<T: DeserializeOwned>(&self) -> Result<Answer<T>, Error> {
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
    /// [`ResearchRunRequest::events`]). A dropped connection is resumed where it stopped
    /// (`Last-Event-ID`); a stream silent for longer than [`with_stall_after`] allows ends with
    /// [`Error::EventStream`].
    ///
    /// [`with_stall_after`]: ResearchRunHandle::with_stall_after
    pub fn events(&self) -> BoxStream<'static, Result<RunEvent, Error>> {
        events(
            self.client.clone(),
            self.agent_id.clone(),
            self.run.id.clone(),
            self.stall,
        )
    }
}

/// What happened in a run, by the event's name (or its data's `type`).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ResearchEvent {
    /// The run's status changed; the stream ends after a final one.
    Status {
        /// The new status.
        status: ResearchStatus,
    },
    /// The agent searched the web.
    Searching {
        /// What for.
        query: String,
    },
    /// The agent read a page.
    Reading {
        /// The page.
        url: String,
        /// Its title.
        title: Option<String>,
    },
    /// The agent drafted a claim.
    Claim {
        /// The part of the answer it supports.
        path: Option<String>,
        /// Its callout in a text answer.
        callout: Option<u32>,
        /// Why.
        reasoning: Option<String>,
    },
    /// An event this client does not know, with its name; its data is in [`RunEvent::data`].
    Other(String),
}

/// One event of a run's stream.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct RunEvent {
    /// Its id, when the service numbers events (a resumed stream starts after it).
    pub id: Option<String>,
    /// What happened.
    pub event: ResearchEvent,
    /// The event's data as sent.
    pub data: Value,
}

impl RunEvent {
    /// Reads an event from its name (`message` when unnamed) and JSON data.
    fn read(id: Option<String>, name: &str, data: Value) -> RunEvent {
        let name = if name.is_empty() || name == "message" {
            data.get("type").and_then(Value::as_str).unwrap_or(name)
        } else {
            name
        };
        let text = |key: &str| data.get(key).and_then(Value::as_str).map(str::to_owned);
        let event = match name {
            "status" => match text("status") {
                Some(s) => ResearchEvent::Status {
                    status: ResearchStatus::from(s.as_str()),
                },
                None => ResearchEvent::Other(name.to_owned()),
            },
            "search" => ResearchEvent::Searching {
                query: text("query").unwrap_or_default(),
            },
            "page" => match text("url") {
                Some(url) => ResearchEvent::Reading {
                    url,
                    title: text("title"),
                },
                None => ResearchEvent::Other(name.to_owned()),
            },
            "claim" => ResearchEvent::Claim {
                path: text("path"),
                callout: data
                    .get("callout")
                    .and_then(Value::as_u64)
                    .and_then(|n| u32::try_from(n).ok()),
                reasoning: text("reasoning"),
            },
            other => ResearchEvent::Other(other.to_owned()),
        };
        RunEvent { id, event, data }
    }

    /// Whether the run has ended with this event.
    pub fn is_final(&self) -> bool {
        matches!(&self.event, ResearchEvent::Status { status } if status.is_finished())
    }
}

/// Why the byte stream under the event reader stopped.
#[derive(Debug)]
enum Feed {
    Stalled,
    Transport(reqwest::Error),
}

/// A run's response body as bytes, ended by an error when nothing comes for `stall`.
fn feed(resp: reqwest::Response, stall: Duration) -> BoxStream<'static, Result<Bytes, Feed>> {
    futures::stream::unfold(
        (resp.bytes_stream().boxed(), false),
        move |(mut body, ended)| async move {
            if ended {
                return None;
            }
            match tokio::time::timeout(stall, body.next()).await {
                Err(_) => Some((Err(Feed::Stalled), (body, true))),
                Ok(None) => None,
                Ok(Some(Err(e))) => Some((Err(Feed::Transport(e)), (body, true))),
                Ok(Some(Ok(chunk))) => Some((Ok(chunk), (body, false))),
            }
        },
    )
    .boxed()
}

/// An open connection's bytes and the reader of its events.
struct Open {
    body: BoxStream<'static, Result<Bytes, Feed>>,
    reader: SseReader,
    /// Events read but not yet handed out, oldest first.
    ready: VecDeque<SseEvent>,
    /// An event went past the size limit: the stream ends once `ready` is handed out.
    too_large: bool,
}

/// The event stream of a run: reconnects after a dropped connection from the last event id,
/// ends after the run's final status, and ends with an error when the stream stalls.
fn events(
    client: Client,
    agent_id: String,
    run_id: String,
    stall: Duration,
) -> BoxStream<'static, Result<RunEvent, Error>> {
    struct Reader {
        client: Client,
        agent_id: String,
        run_id: String,
        stall: Duration,
        open: Option<Open>,
        last_id: Option<String>,
        reconnects: u32,
        done: bool,
    }

    impl Reader {
        fn end(&mut self, end: StreamEnd) -> Option<Result<RunEvent, Error>> {
            self.done = true;
            Some(Err(Error::EventStream {
                run_id: self.run_id.clone(),
                end,
            }))
        }

        /// The connection ended before the run did: resume from the last event id, or give up.
        fn cut(&mut self) -> Option<Option<Result<RunEvent, Error>>> {
            self.open = None;
            if self.last_id.is_none() {
                return Some(self.end(StreamEnd::Cut(0)));
            }
            if self.reconnects >= MAX_RECONNECTS {
                return Some(self.end(StreamEnd::Cut(self.reconnects)));
            }
            self.reconnects += 1;
            None
        }

        /// One event handed out: the run's event, or an error for an event that does not read
        /// (not UTF-8, not JSON), after which the stream goes on.
        fn hand_out(&mut self, sse: SseEvent) -> Result<RunEvent, Error> {
            self.reconnects = 0;
            let id = sse.id.filter(|id| !id.is_empty());
            if id.is_some() {
                self.last_id.clone_from(&id);
            }
            let text = match sse.data {
                Ok(text) => text,
                Err(bytes) => {
                    return Err(stream_decode(
                        &self.run_id,
                        "event data is not UTF-8".to_owned(),
                        &String::from_utf8_lossy(&bytes),
                    ));
                }
            };
            let data: Value = serde_json::from_str(&text).map_err(|e| {
                stream_decode(&self.run_id, format!("event data is not JSON: {e}"), &text)
            })?;
            let event = RunEvent::read(id, &sse.event, data);
            if event.is_final() {
                self.done = true;
            }
            Ok(event)
        }

        async fn next(&mut self) -> Option<Result<RunEvent, Error>> {
            loop {
                if self.done {
                    return None;
                }
                if let Some(sse) = self.open.as_mut().and_then(|o| o.ready.pop_front()) {
                    return Some(self.hand_out(sse));
                }
                if self.open.as_ref().is_some_and(|o| o.too_large) {
                    return self.end(StreamEnd::TooLarge(self.client.max_response_bytes()));
                }
                if self.open.is_none() {
                    let mut headers = HeaderMap::new();
                    headers.insert(ACCEPT, HeaderValue::from_static("text/event-stream"));
                    if let Some(id) = &self.last_id
                        && let Ok(v) = HeaderValue::from_str(id)
                    {
                        headers.insert("last-event-id", v);
                    }
                    if self.reconnects > 0 {
                        tracing::debug!(run = %self.run_id, last_event_id = ?self.last_id, "resuming a research run's event stream");
                        self.client
                            .clock()
                            .sleep(Duration::from_millis(100 * u64::from(self.reconnects)))
                            .await;
                    }
                    // Opening retries as every call does (the client's retry policy), and past
                    // that a failure the run's waiter would poll through (a 5xx, a transport
                    // failure, a 429) is one more reconnection, not the end: following the
                    // events is waiting on the run, with the waiter's patience.
                    let opened = self
                        .client
                        .open_stream(
                            &endpoint::RESEARCH_RUN_EVENTS,
                            &[&self.agent_id, &self.run_id],
                            headers,
                        )
                        .await;
                    match opened {
                        Ok(resp) => {
                            let limit = self.client.max_response_bytes();
                            self.open = Some(Open {
                                body: feed(resp, self.stall),
                                reader: SseReader::new(limit, self.last_id.clone()),
                                ready: VecDeque::new(),
                                too_large: false,
                            });
                        }
                        Err(e) if e.transient() && self.reconnects < MAX_RECONNECTS => {
                            tracing::debug!(run = %self.run_id, error = %e, "opening a research run's event stream failed; trying again");
                            self.reconnects += 1;
                        }
                        Err(e) => {
                            self.done = true;
                            return Some(Err(e));
                        }
                    }
                }
                let Some(open) = self.open.as_mut() else {
                    continue;
                };
                match open.body.next().await {
                    None => {
                        if let Some(end) = self.cut() {
                            return end;
                        }
                    }
                    Some(Err(Feed::Transport(e))) => {
                        tracing::debug!(run = %self.run_id, error = %e, "a research run's event stream was cut");
                        if let Some(end) = self.cut() {
                            return end;
                        }
                    }
                    Some(Err(Feed::Stalled)) => {
                        return self.end(StreamEnd::Stalled(self.stall));
                    }
                    Some(Ok(chunk)) => {
                        let mut out = Vec::new();
                        // Events that came whole before an oversized one are still handed out.
                        open.too_large = open.reader.feed(&chunk, &mut out).is_err();
                        open.ready.extend(out);
                    }
                }
            }
        }
    }

    let reader = Reader {
        client,
        agent_id,
        run_id,
        stall,
        open: None,
        last_id: None,
        reconnects: 0,
        done: false,
    };
    futures::stream::unfold(reader, |mut r| async move {
        let item = r.next().await?;
        Some((item, r))
    })
    .boxed()
}

fn stream_decode(run_id: &str, message: String, body: &str) -> Error {
    Error::Decode(Box::new(DecodeError {
        path: format!("events of research run {run_id}"),
        message,
        body: body.to_owned(),
        info: super::error::ResponseInfo::new(200, &HeaderMap::new()),
    }))
}

/// A result answer: `{output: {type, content, trust}, run}`, or `{error, run}`.
#[derive(Deserialize)]
struct ResultBody {
    #[serde(default)]
    output: Option<OutputBody>,
    #[serde(default)]
    error: Option<RunError>,
    #[serde(default)]
    run: Option<ResearchRun>,
}

#[derive(Deserialize)]
struct OutputBody {
    #[serde(rename = "type", default)]
    kind: Option<String>,
    content: Value,
    trust: Trust,
}

fn failure(run_id: &str, error: Option<RunError>, run: Option<ResearchRun>) -> RunFailure {
    let status = run
        .as_ref()
        .map_or(ResearchStatus::Failed, |r| r.status.clone());
    let error = error.or_else(|| run.as_ref().and_then(|r| r.error.clone()));
    RunFailure {
        run_id: run_id.to_owned(),
        status,
        message: error
            .as_ref()
            .map_or_else(|| "no error message".to_owned(), |e| e.message.clone()),
        ref_id: error.map(|e| e.ref_id).filter(|r| !r.is_empty()),
        run,
    }
}

impl Client {
    /// Creates a research agent.
    pub async fn create_research_agent(
        &self,
        request: ResearchAgentRequest,
    ) -> Result<ResearchAgent, Error> {
        let body = request.wire(self.api_version())?;
        Ok(self
            .post(
                &endpoint::RESEARCH_AGENT_CREATE,
                &[],
                &body,
                "research agent",
            )
            .await?
            .0)
    }

    /// Every research agent of the account, page after page as the stream is read.
    pub fn research_agents(&self) -> BoxStream<'static, Result<ResearchAgent, Error>> {
        paged_stream(
            self.clone(),
            &endpoint::RESEARCH_AGENT_LIST,
            Vec::new(),
            50,
            Paging::Offset,
        )
    }

    /// One research agent.
    pub async fn research_agent(&self, id: &str) -> Result<ResearchAgent, Error> {
        Ok(self.get(&endpoint::RESEARCH_AGENT_GET, &[id], &[]).await?.0)
    }

    /// Changes a research agent with a JSON Patch document (RFC 6902) over its record, as
    /// [`Client::research_agent`] shows it: `/display_name`, `/goals/0/goal`, `/is_active`.
    pub async fn update_research_agent(
        &self,
        id: &str,
        patch: &super::patch::Patch,
    ) -> Result<ResearchAgent, Error> {
        patch.check()?;
        Ok(self
            .post(&endpoint::RESEARCH_AGENT_UPDATE, &[id], patch, "patch")
            .await?
            .0)
    }

    /// Deactivates a research agent: it stays readable, and no run can start.
    pub async fn deactivate_research_agent(&self, id: &str) -> Result<(), Error> {
        self.send::<()>(&endpoint::RESEARCH_AGENT_DELETE, &[id], &[], None)
            .await?;
        Ok(())
    }

    /// The research agent templates, page after page.
    pub fn research_templates(&self) -> BoxStream<'static, Result<ResearchTemplate, Error>> {
        paged_stream(
            self.clone(),
            &endpoint::RESEARCH_TEMPLATE_LIST,
            Vec::new(),
            50,
            Paging::Offset,
        )
    }

    /// One research agent template.
    pub async fn research_template(&self, name: &str) -> Result<ResearchTemplate, Error> {
        Ok(self
            .get(&endpoint::RESEARCH_TEMPLATE_GET, &[name], &[])
            .await?
            .0)
    }

    /// Starts a run of the agent `agent_id`.
    pub async fn start_research(
        &self,
        agent_id: &str,
        request: ResearchRunRequest,
    ) -> Result<ResearchRunHandle, Error> {
        let body = JsonBody::new(&request.wire(self.api_version())?, "research run")?;
        let (run, _): (ResearchRun, _) = self
            .send(&endpoint::RESEARCH_RUN_START, &[agent_id], &[], Some(&body))
            .await?;
        Ok(self.research_handle(agent_id, run))
    }

    /// Starts a run by the agent's stable name (`/v2` only): an unseen name creates the agent
    /// with the request's output schema, skill and use case; a known one reuses it.
    pub async fn start_research_by_name(
        &self,
        agent_name: &str,
        request: ResearchRunRequest,
    ) -> Result<ResearchRunHandle, Error> {
        let body = JsonBody::new(
            &request.agent_name(agent_name).wire(self.api_version())?,
            "research run",
        )?;
        let (run, _): (ResearchRun, _) = self
            .send(&endpoint::RESEARCH_RUN_BY_NAME, &[], &[], Some(&body))
            .await?;
        let agent_id = run.web_search_agent_id.clone();
        Ok(self.research_handle(&agent_id, run))
    }

    fn research_handle(&self, agent_id: &str, run: ResearchRun) -> ResearchRunHandle {
        ResearchRunHandle {
            client: self.clone(),
            agent_id: agent_id.to_owned(),
            run,
            wait: WaitOptions::TASK,
            stall: STALL_AFTER,
        }
    }

    /// A handle on a run started earlier (to wait for it, follow its events, read its answer).
    pub async fn research_run_handle(
        &self,
        agent_id: &str,
        run_id: &str,
    ) -> Result<ResearchRunHandle, Error> {
        let run = self.research_run(agent_id, run_id).await?;
        Ok(self.research_handle(agent_id, run))
    }

    /// An agent's runs, newest first, page after page.
    pub fn research_runs(&self, agent_id: &str) -> BoxStream<'static, Result<ResearchRun, Error>> {
        paged_stream(
            self.clone(),
            &endpoint::RESEARCH_RUN_LIST,
            vec![agent_id.to_owned()],
            50,
            Paging::Offset,
        )
    }

    /// One run.
    pub async fn research_run(&self, agent_id: &str, run_id: &str) -> Result<ResearchRun, Error> {
        Ok(self
            .get(&endpoint::RESEARCH_RUN_GET, &[agent_id, run_id], &[])
            .await?
            .0)
    }

    /// A run's result once: [`Outcome::Answered`] with the content decoded as `T`,
    /// [`Outcome::NotFinished`] while it runs (409), [`Outcome::Ended`] when it failed or was
    /// cancelled (422).
    pub async fn research_result<T: DeserializeOwned>(
        &self,
        agent_id: &str,
        run_id: &str,
    ) -> Result<Outcome<T>, Error> {
        let answer = self
            .get::<ResultBody>(&endpoint::RESEARCH_RUN_RESULT, &[agent_id, run_id], &[])
            .await;
        let (body, info) = match answer {
            Ok(ok) => ok,
            Err(e) if e.status() == Some(409) => return Ok(Outcome::NotFinished),
            Err(Error::Unprocessable(api)) => {
                let body: Option<ResultBody> = serde_json::from_value(api.body.clone()).ok();
                return match body {
                    Some(b) if b.run.is_some() => {
                        Ok(Outcome::Ended(Box::new(failure(run_id, b.error, b.run))))
                    }
                    _ => Err(Error::Unprocessable(api)),
                };
            }
            Err(e) => return Err(e),
        };
        let (output, run) = match (body.output, body.run) {
            (Some(o), Some(run)) => (o, run),
            (None, run) if body.error.is_some() => {
                return Ok(Outcome::Ended(Box::new(failure(run_id, body.error, run))));
            }
            _ => {
                return Err(Error::Decode(Box::new(DecodeError {
                    path: ".".into(),
                    message: "a research result has `output` and `run`, or `error`".into(),
                    body: String::new(),
                    info,
                })));
            }
        };
        let bytes = serde_json::to_vec(&output.content).unwrap_or_default();
        let content = super::decode_body::<T>(&bytes).map_err(|(path, message)| {
            let hint = if output.kind.as_deref() == Some("text") {
                " (the agent answered text: read it as Answer<String>)"
            } else {
                ""
            };
            Error::Decode(Box::new(DecodeError {
                path: format!("output.content{}", path.trim_start_matches('.')),
                message: format!("{message}{hint}"),
                body: String::from_utf8_lossy(&bytes).into_owned(),
                info: info.clone(),
            }))
        })?;
        Ok(Outcome::Answered(Box::new(Answer {
            content,
            raw: output.content,
            trust: output.trust,
            run,
        })))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claim_paths_compare_across_notations() {
        let dotted = ClaimPath::parse("offers[0].price");
        assert_eq!(dotted.segments(), ["offers", "0", "price"]);
        assert_eq!(ClaimPath::parse("$.offers[0].price"), dotted);
        assert_eq!(ClaimPath::parse("/offers/0/price"), dotted);
        assert_eq!(ClaimPath::parse("offers.0.price"), dotted);
        assert_eq!(
            ClaimPath::parse(r#"a["odd.key"]"#).segments(),
            ["a", "odd.key"]
        );
        let doc = json!({"offers": [{"price": 3}]});
        assert_eq!(dotted.find(&doc), Some(&json!(3)));
        assert_eq!(ClaimPath::parse("offers[1]").find(&doc), None);
    }

    #[test]
    fn events_read_by_name_or_type() {
        let e = RunEvent::read(Some("3".into()), "page", json!({"url": "u", "title": "t"}));
        assert_eq!(
            e.event,
            ResearchEvent::Reading {
                url: "u".into(),
                title: Some("t".into())
            }
        );
        let e = RunEvent::read(
            None,
            "message",
            json!({"type": "status", "status": "failed"}),
        );
        assert!(e.is_final());
        let e = RunEvent::read(None, "thinking", json!({}));
        assert_eq!(e.event, ResearchEvent::Other("thinking".into()));
        assert!(!e.is_final());
    }

    #[test]
    fn v1_refuses_what_it_does_not_know_and_renames_skill() {
        let run = ResearchRunRequest::new("q").skill("x");
        let refused = run.wire(ApiVersion::V1).unwrap_err().to_string();
        assert!(
            refused.contains("skill: /v1 research runs have no `skill`; use /v2"),
            "{refused}"
        );
        assert!(run.wire(ApiVersion::V2).is_ok());
        let empty = ResearchRunRequest::new("  ");
        let refused = empty.wire(ApiVersion::V2).unwrap_err().to_string();
        assert!(
            refused.contains("input: input must not be empty"),
            "{refused}"
        );
        let agent = ResearchAgentRequest::new().skill("pricing");
        let v1 = agent.wire(ApiVersion::V1).unwrap();
        assert_eq!(v1.get("domain_expertise"), Some(&json!("pricing")));
        assert!(!v1.contains_key("skill"));
        let max = ResearchAgentRequest::new().effort(Effort::FiveXHigh);
        assert!(max.wire(ApiVersion::V1).is_err());
    }
}
