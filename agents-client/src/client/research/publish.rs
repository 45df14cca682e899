//! Publishing a research agent by name: created once, then only what differs is changed, so a
//! program that publishes its agent and asks it a question can run any number of times.

use std::fmt;

use futures_util::TryStreamExt as _;
use serde::Deserialize as _;
use serde_json::Value;

use super::{ResearchAgent, ResearchAgentRequest};
use crate::client::Client;
use crate::client::error::{DecodeError, Error};
use crate::client::patch::WrittenOp;
use crate::endpoint;

/// Fields of a research agent request that shape the agent only when it is made: goals,
/// suggested questions and source groups become records with ids and positions (so the request's
/// never equal the record's), a template is copied once.
const SET_AT_CREATION: [&str; 5] = [
    "agent_name",
    "goals",
    "suggested_questions",
    "sources",
    "template",
];

/// What [`Client::publish_research_agent`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AgentPlan {
    /// No active agent had the name: it was created.
    Create,
    /// These fields of the agent differed from the request and were changed, in one patch.
    Update(Vec<String>),
    /// The agent says what the request says: nothing was sent.
    Unchanged,
}

/// A research agent after [`Client::publish_research_agent`]: what was done, and the agent now.
#[derive(Debug, Clone, PartialEq)]
pub struct PublishedAgent {
    /// What was done.
    pub plan: AgentPlan,
    /// The agent now.
    pub agent: ResearchAgent,
}

impl fmt::Display for PublishedAgent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = self.agent.agent_name.as_deref().unwrap_or(&self.agent.id);
        match &self.plan {
            AgentPlan::Create => write!(f, "{name}: created ({})", self.agent.id),
            AgentPlan::Update(fields) => write!(f, "{name}: updated {}", fields.join(", ")),
            AgentPlan::Unchanged => write!(f, "{name}: unchanged"),
        }
    }
}

impl Client {
    /// Makes the active research agent named by the request's
    /// [`agent_name`](ResearchAgentRequest::agent_name) say what the request says: creates it
    /// if there is none, changes the fields that differ (its output schema, texts, effort,
    /// skill, use case) in one patch, sends nothing if none does. Goals, suggested questions,
    /// source rules and a template shape an agent when it is made and are not compared
    /// afterwards ([`Client::update_research_agent`] changes them).
    ///
    /// ```no_run
    /// # use agents_runtime::client::research::ResearchAgentRequest;
    /// # type PriceCheck = agents_runtime::catalog::LlmA; // what agent!("price_check") generates
    /// # async fn demo(client: agents_runtime::Client) -> Result<(), agents_runtime::Error> {
    /// let request = ResearchAgentRequest::new()
    ///     .agent_name("price-checker")
    ///     .output_schema_of::<PriceCheck>();
    /// let published = client.publish_research_agent(request).await?;
    /// println!("{published}"); // "price-checker: created (wsa_…)", then "price-checker: unchanged"
    /// # Ok(()) }
    /// ```
    pub async fn publish_research_agent(
        &self,
        request: ResearchAgentRequest,
    ) -> Result<PublishedAgent, Error> {
        let body = request.wire(self.api_version())?;
        let Some(name) = body.values().get("agent_name").and_then(Value::as_str) else {
            return Err(Error::InvalidOption {
                option: "ResearchAgentRequest::agent_name",
                message: "an agent is published by its name; set `.agent_name(…)`".into(),
            });
        };
        let mut agents = self.research_agents();
        let mut found = None;
        while let Some(agent) = agents.try_next().await? {
            if agent.is_active && agent.agent_name.as_deref() == Some(name) {
                found = Some(agent.id);
                break;
            }
        }
        let Some(id) = found else {
            let agent = self.create_research_agent(request).await?;
            return Ok(PublishedAgent {
                plan: AgentPlan::Create,
                agent,
            });
        };
        // Compared with the record as the service words it (the request is in its words too).
        let (now, info): (Value, _) = self.get(&endpoint::RESEARCH_AGENT_GET, &[&id], &[]).await?;
        let mut patch = Vec::new();
        let mut changed = Vec::new();
        for (key, want) in body.values() {
            if SET_AT_CREATION.contains(&key.as_str()) || now.get(key) == Some(want) {
                continue;
            }
            if let Some(value) = body.sent(key) {
                patch.push(WrittenOp {
                    op: "add",
                    path: format!("/{}", key.replace('~', "~0").replace('/', "~1")),
                    value,
                });
                changed.push(key.clone());
            }
        }
        if changed.is_empty() {
            let agent = ResearchAgent::deserialize(&now).map_err(|e| {
                Error::Decode(Box::new(DecodeError {
                    path: ".".into(),
                    message: e.to_string(),
                    body: now.to_string(),
                    info,
                }))
            })?;
            return Ok(PublishedAgent {
                plan: AgentPlan::Unchanged,
                agent,
            });
        }
        // Sent as written (a `Patch` would sort the output schema's keys); each path is one
        // escaped key, so there is nothing for `Patch::check` to find.
        let (agent, _) = self
            .post(&endpoint::RESEARCH_AGENT_UPDATE, &[&id], &patch, "patch")
            .await?;
        Ok(PublishedAgent {
            plan: AgentPlan::Update(changed),
            agent,
        })
    }
}
