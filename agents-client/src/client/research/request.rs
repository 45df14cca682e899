//! What research agents and runs are asked with: agent and run requests, their source rules,
//! goals and the records the service answers for agents and templates. Each request is checked
//! by `crate::research` before it is sent, in the words of the client's version.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use super::run::Effort;
use crate::client::Document;
use crate::client::body::Fields;
use crate::client::error::Error;
use crate::endpoint::ApiVersion;

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
    body: Fields,
}

impl ResearchAgentRequest {
    /// An agent with the service's defaults.
    pub fn new() -> Self {
        ResearchAgentRequest::default()
    }

    /// An agent named `agent_name` whose answers are `T`s: its output schema the one `T`
    /// carries (as [`output_schema_of`](ResearchAgentRequest::output_schema_of) sets it).
    /// `client.publish_research_agent(ResearchAgentRequest::of::<PriceCheck>("price-checker"))`
    /// makes it once and keeps it so.
    pub fn of<T: crate::Record>(agent_name: &str) -> Self {
        ResearchAgentRequest::new()
            .agent_name(agent_name)
            .output_schema_of::<T>()
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
        /// Skill or operating context.
        skill: &str => "skill",
        /// Source rules.
        sources: Sources => "sources",
        /// The template it copies.
        template: &str => "template",
        /// What it is for.
        use_case: UseCase => "use_case",
    }

    /// The JSON Schema of its answers (a JSON Schema document, `type: object` at the root): a
    /// `Value`, or a [`Document`] parsed from text, which keeps the order its properties are
    /// written in (the order the agent fills them in).
    pub fn output_schema(mut self, schema: impl Into<Document>) -> Self {
        self.body.document("output_schema", schema.into());
        self
    }

    /// The JSON Schema of its answers: the one generated record type `T` carries
    /// ([`Record::schema_text`](crate::Record::schema_text)), as written, so its answers read
    /// as `Answer<T>`. A type without a schema sets nothing.
    pub fn output_schema_of<T: crate::Record>(self) -> Self {
        match schema_of::<T>() {
            Some(schema) => self.output_schema(schema),
            None => self,
        }
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
        refuse(crate::research::check_agent(self.body.values(), version))
    }

    pub(crate) fn wire(&self, version: ApiVersion) -> Result<Fields, Error> {
        self.check(version)?;
        let mut body = self.body.clone();
        crate::words::respell(
            body.values_mut(),
            &[|w| w.skill],
            crate::words::KEPT,
            version,
        );
        Ok(body)
    }
}

/// A run of a research agent: `ResearchRunRequest::new("question").effort(Effort::High)`.
#[derive(Debug, Clone, PartialEq)]
pub struct ResearchRunRequest {
    body: Fields,
}

impl ResearchRunRequest {
    /// A run that answers `input` (a question or instructions).
    pub fn new(input: impl Into<String>) -> Self {
        let mut body = Fields::default();
        body.insert("input".into(), json!(input.into()));
        ResearchRunRequest { body }
    }

    setters! {
        /// Effort of this run.
        effort: Effort => "effort",
        /// Publish the run's progress as events ([`ResearchRunHandle::events`](super::ResearchRunHandle::events)).
        events: bool => "enable_events",
        /// Records to fill in (a list of partial rows, or one object, shaped as the output
        /// schema); needs an output schema on the run or the agent.
        input_data: Value => "input_data",
        /// Continues an earlier conversation ([`ResearchRun::interaction_id`](super::ResearchRun::interaction_id)).
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

    /// The JSON Schema of this run's answer, instead of the agent's: a `Value`, or a
    /// [`Document`] parsed from text, which keeps the order its properties are written in (the
    /// order the agent fills them in).
    pub fn output_schema(mut self, schema: impl Into<Document>) -> Self {
        self.body.document("output_schema", schema.into());
        self
    }

    /// The JSON Schema of this run's answer: the one generated record type `T` carries, as
    /// written, so the answer reads as `Answer<T>`. A type without a schema sets nothing.
    pub fn output_schema_of<T: crate::Record>(self) -> Self {
        match schema_of::<T>() {
            Some(schema) => self.output_schema(schema),
            None => self,
        }
    }

    /// Records of the generated type `T` to fill in, each holding what is known (the rest
    /// `None`): sent as `input_data`, with `T`'s schema as this run's output schema, so the
    /// answer reads as `Answer<Vec<T>>`, one record for each given, in order, the values given
    /// kept with [`Confidence::PreExisting`] claims. The untyped route is
    /// [`input_data`](Self::input_data) with [`output_schema`](Self::output_schema).
    ///
    /// ```
    /// # use agents_runtime::client::research::ResearchRunRequest;
    /// # agents_runtime::record! {
    /// #     #![schema = r#"{"type": "object", "properties": {"product": {"type": "string"}, "price": {"type": "number"}}}"#]
    /// #     #![fields = PriceCheckFields]
    /// #     #[derive(Debug, Clone, PartialEq, Default)]
    /// #     pub struct PriceCheck {
    /// #         pub product: Option<String>,
    /// #         pub price: Option<f64>,
    /// #         #[json(flatten)]
    /// #         pub unknown_fields: agents_runtime::JsonMap,
    /// #         #[json(skip)]
    /// #         pub mismatches: Vec<agents_runtime::Mismatch>,
    /// #         #[json(skip)]
    /// #         pub breaches: Vec<agents_runtime::Breach>,
    /// #     }
    /// # }
    /// // `PriceCheck` generated from price_check.output.schema.json.
    /// let known = ["X100", "Y200"].map(|product| PriceCheck {
    ///     product: Some(product.into()),
    ///     ..PriceCheck::default()
    /// });
    /// let run = ResearchRunRequest::new("Fill in the prices").fill_in(&known);
    /// assert!(run.check(agents_runtime::ApiVersion::V2).is_ok());
    /// // Then `client.start_research(&agent_id, run).await?.answer().await?` reads as
    /// // `Answer<Vec<PriceCheck>>`.
    /// ```
    pub fn fill_in<'a, T>(mut self, records: impl IntoIterator<Item = &'a T>) -> Self
    where
        T: crate::Record + Serialize + 'a,
    {
        // A generated record writes string keys and JSON values only, so this cannot fail; a
        // hand-written `Serialize` that does leaves a `null` row, which the run's check refuses
        // by its index rather than sending a list without it.
        let rows: Vec<Value> = (records.into_iter())
            .map(|r| serde_json::to_value(r).unwrap_or(Value::Null))
            .collect();
        self.body.insert("input_data".into(), Value::Array(rows));
        self.output_schema_of::<T>()
    }

    /// Every rule the run breaks for `version` (each naming its field), as one
    /// [`Error::InvalidOption`]; starting the run runs the same check before sending.
    pub fn check(&self, version: ApiVersion) -> Result<(), Error> {
        refuse(crate::research::check_run(self.body.values(), version))
    }

    pub(super) fn wire(&self, version: ApiVersion) -> Result<Fields, Error> {
        self.check(version)?;
        Ok(self.body.clone())
    }
}

/// The schema a generated record carries, as written (the generator wrote it, so it reads).
fn schema_of<T: crate::Record>() -> Option<Document> {
    T::schema_text().and_then(|text| text.parse().ok())
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
        assert_eq!(v1.values().get("domain_expertise"), Some(&json!("pricing")));
        assert!(!v1.values().contains_key("skill"));
        let max = ResearchAgentRequest::new().effort(Effort::FiveXHigh);
        assert!(max.wire(ApiVersion::V1).is_err());
    }
    /// The order a schema's properties are written in is the order a model fills them in:
    /// the text is sent, whichever request carries it; a value set over it is sent as itself.
    #[test]
    fn an_output_schema_is_sent_as_written() {
        let text = r#"{"type": "object", "properties": {"verdict": {"type": "string"}, "evidence": {"type": "string"}}}"#;
        let schema: Document = text.parse().unwrap();
        let sent = |body: &Fields| serde_json::to_string(body).unwrap();
        let run = ResearchRunRequest::new("q").output_schema(schema.clone());
        assert!(sent(&run.wire(ApiVersion::V2).unwrap()).contains(text));
        let agent = ResearchAgentRequest::new()
            .skill("law")
            .output_schema(schema.clone());
        let v1 = agent.wire(ApiVersion::V1).unwrap();
        assert!(sent(&v1).contains(text), "{}", sent(&v1));
        assert_eq!(v1.sent("output_schema"), Some(schema.clone()));
        // Requests compare by value, as the service compares schemas.
        let sorted = ResearchRunRequest::new("q").output_schema(schema.value().clone());
        assert_eq!(sorted, run);
        assert!(!sent(&sorted.wire(ApiVersion::V2).unwrap()).contains(text));
        // Another value in its place is sent, not the text it replaced.
        let replaced = run.field("output_schema", json!({"type": "object"}));
        let body = sent(&replaced.wire(ApiVersion::V2).unwrap());
        assert!(
            !body.contains("verdict") && body.contains(r#""output_schema":{"type":"object"}"#),
            "{body}"
        );
    }
}
