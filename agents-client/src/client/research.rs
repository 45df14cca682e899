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
//!     let event = event?;
//!     println!("{event}"); // one line each: `reading https://…`, `status: completed`
//!     if let ResearchEvent::Claim { path: Some(path), .. } = &event.event {
//!         println!("  (a claim for {path})");
//!     }
//! }
//! let answer = run.answer::<Value>().await?;
//! for citation in answer.citations("price") {
//!     println!("price from {}", citation.url);
//! }
//! # Ok(()) }
//! ```

use futures_util::stream::BoxStream;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::error::{DecodeError, Error};
use super::listing::paged_stream;
use super::waiter::WaitOptions;
use super::{Client, JsonBody};
use crate::endpoint::{self};
use crate::words::Paging;
pub use run::{Effort, ResearchRun, ResearchStatus, RunError, RunFailure, StreamEnd};

mod answer;
mod events;
mod handle;
mod publish;
mod request;
pub(crate) mod run;

pub use answer::{Answer, AnswerPath, Citation, Claim, ClaimPath, Trust, TrustSource};
pub use events::{ResearchEvent, RunEvent};
pub use handle::{Outcome, ResearchRunHandle, STALL_AFTER};
pub use publish::{AgentPlan, PublishedAgent};
pub use request::*;

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
    pub async fn research_result<T: DeserializeOwned + Send>(
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
                " (the agent answered text: read it as Answer<String>)".to_owned()
            } else if output.content.is_array() && !std::any::type_name::<T>().contains('<') {
                // A list answers records given as a list (`input_data`, `fill_in`); a type
                // that is itself generic (a list already) failed for another reason.
                let name = std::any::type_name::<T>();
                let name = name.rsplit("::").next().unwrap_or(name);
                format!(
                    " (the answer is a list, a record for each one given: read it as \
                     Answer<Vec<{name}>>)"
                )
            } else {
                String::new()
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
