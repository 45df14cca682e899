//! Agent generation: create or refine a custom agent from a prompt and wait for
//! the published version. Creation counts against a daily limit of 100, so it is never retried
//! after an ambiguous failure (the endpoint table marks it [`Idempotency::Once`](crate::endpoint::Idempotency::Once)).
//!
//! # From a prompt to typed results
//!
//! Generated types need the agent's record at compile time, so there are two routes:
//!
//! * **Generate once, then compile against it** (the usual one). `cargo agents generate-agent
//!   --prompt … --url … --name shop_product` waits for the agent, caches its record as
//!   `schemas/shop_product.json` and prints the line to add: `agents_runtime::agent!("shop_product");`.
//!   From then on `client.run(ShopProductParams::new(…))` is typed, checked before sending and
//!   drift tolerant like the catalog's agents. The same in code: [`Client::generate_agent`],
//!   [`GenerationHandle::wait`], then [`Client::agent`] for the record to save into `schemas/`.
//! * **Generate and run in the same program.** The program knows what it asked for, so it can
//!   declare that type itself and decode the untyped result into it with
//!   [`RunResult::into_typed`](super::run::RunResult::into_typed):
//!
//! ```no_run
//! # use agents_runtime::prelude::*;
//! # async fn f(client: Client) -> Result<(), Error> {
//! #[derive(serde::Deserialize)]
//! struct Product {
//!     title: Option<String>,
//!     price: Option<f64>,
//! }
//!
//! let request = GenerationRequest::new("title and price", "https://shop.example/p/1")
//!     .agent_name("shop_product");
//! client.generate_agent(request).await?.wait().await?;
//! let run = client
//!     .run_raw("shop_product", serde_json::json!({"url": "https://shop.example/p/2"}))
//!     .await?
//!     .into_typed::<Product>()?;
//! println!("{:?}", run.record().and_then(|p| p.price));
//! # Ok(()) }
//! ```

use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::Client;
use super::error::Error;
pub use super::records::{Generation, GenerationStatus};
use super::waiter::{self, Poll, WaitOptions};
use crate::endpoint::{self, ApiVersion};

/// What to generate.
#[derive(Debug, Clone, PartialEq)]
pub struct GenerationRequest {
    body: Map<String, Value>,
}

impl GenerationRequest {
    /// A new agent from a prompt and a sample page URL.
    pub fn new(prompt: impl Into<String>, url: impl Into<String>) -> Self {
        let mut body = Map::new();
        body.insert("prompt".into(), json!(prompt.into()));
        body.insert("url".into(), json!(url.into()));
        GenerationRequest { body }
    }

    /// A new version of an existing agent of yours.
    pub fn refine(agent: impl Into<String>, prompt: impl Into<String>) -> Self {
        let mut body = Map::new();
        body.insert("from_agent".into(), json!(agent.into()));
        body.insert("prompt".into(), json!(prompt.into()));
        GenerationRequest { body }
    }

    /// The new agent's name (lowercase letters and underscores).
    pub fn agent_name(mut self, name: impl Into<String>) -> Self {
        self.body.insert("agent_name".into(), json!(name.into()));
        self
    }

    /// An input schema instead of the inferred one.
    pub fn input_schema(mut self, schema: Value) -> Self {
        self.body.insert("input_schema".into(), schema);
        self
    }

    /// An output schema instead of the inferred one.
    pub fn output_schema(mut self, schema: Value) -> Self {
        self.body.insert("output_schema".into(), schema);
        self
    }

    /// Labels or tags.
    pub fn metadata(mut self, metadata: Value) -> Self {
        self.body.insert("metadata".into(), metadata);
        self
    }

    /// The body in `version`'s words: `/v2` names the new template `name` and the one refined
    /// `from_extract_template`.
    fn wire(&self, version: ApiVersion) -> Map<String, Value> {
        match version {
            ApiVersion::V1 => self.body.clone(),
            ApiVersion::V2 => self
                .body
                .iter()
                .map(|(k, v)| {
                    let k = match k.as_str() {
                        "agent_name" => "name",
                        "from_agent" => "from_extract_template",
                        other => other,
                    };
                    (k.to_owned(), v.clone())
                })
                .collect(),
        }
    }

    fn check(&self) -> Result<(), Error> {
        let text = |k: &str| self.body.get(k).and_then(Value::as_str).unwrap_or("");
        if text("prompt").trim().is_empty() {
            return Err(Error::InvalidOption {
                option: "prompt",
                message: "the prompt is empty".into(),
            });
        }
        if let Some(name) = self.body.get("agent_name").and_then(Value::as_str)
            && (name.is_empty()
                || !name
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_'))
        {
            return Err(Error::InvalidOption {
                option: "agent_name",
                message: format!("{name:?} must be lowercase letters, digits and underscores"),
            });
        }
        if !self.body.contains_key("from_agent") {
            super::check_http_url("url", text("url"))?;
        }
        Ok(())
    }
}

/// The service names the fields of its request body; a user of this client set them through
/// [`GenerationRequest`]'s methods, so a message about `from_agent` or `agent_name` says which.
fn in_this_clients_words(mut e: Error) -> Error {
    if let Some(api) = e.api_mut() {
        for (wire, method) in [
            ("from_extract_template", "GenerationRequest::refine"),
            ("from_agent", "GenerationRequest::refine"),
            ("agent_name", "GenerationRequest::agent_name"),
        ] {
            if api.message.contains(wire) && !api.message.contains(method) {
                api.message = api.message.replace(wire, &format!("{method} ({wire})"));
            }
        }
    }
    e
}

/// A generation in progress.
#[derive(Debug, Clone)]
pub struct GenerationHandle {
    client: Client,
    id: String,
    agent_name: Option<String>,
    wait: WaitOptions,
}

impl GenerationHandle {
    /// The generation id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The agent's name as the service accepted it.
    pub fn agent_name(&self) -> Option<&str> {
        self.agent_name.as_deref()
    }

    /// Polls with other options.
    pub fn with_wait(mut self, options: WaitOptions) -> Self {
        self.wait = options;
        self
    }

    /// The record now.
    pub async fn status(&self) -> Result<Generation, Error> {
        self.client.generation(&self.id).await
    }

    /// Polls until `success` (the record, with `generated_version_id` and `summary`) or
    /// `failed` ([`Error::GenerationFailed`]).
    pub async fn wait(&self) -> Result<Generation, Error> {
        let g = waiter::wait::<_, _, Error, _, _>(
            self.client.clock(),
            format!("generation {}", self.id),
            self.wait,
            || async {
                let g = self.client.generation(&self.id).await?;
                Ok(match g.status {
                    GenerationStatus::Success | GenerationStatus::Failed => Poll::Done(g),
                    ref other => Poll::Pending(other.as_str().to_owned()),
                })
            },
        )
        .await?;
        if g.status == GenerationStatus::Failed {
            return Err(Error::GenerationFailed(Box::new(g)));
        }
        Ok(g)
    }
}

impl Client {
    /// Starts a generation (new agent or refinement). Never retried after an ambiguous failure.
    pub async fn generate_agent(
        &self,
        request: GenerationRequest,
    ) -> Result<GenerationHandle, Error> {
        request.check()?;
        #[derive(Deserialize)]
        struct Created {
            id: String,
            #[serde(default, alias = "name")]
            agent_name: Option<String>,
        }
        let body = super::JsonBody::new(&request.wire(self.api_version()), "request")?;
        let (created, _): (Created, _) = self
            .send(&endpoint::GENERATION_CREATE, &[], &[], Some(&body))
            .await
            .map_err(in_this_clients_words)?;
        Ok(GenerationHandle {
            client: self.clone(),
            id: created.id,
            agent_name: created.agent_name,
            wait: WaitOptions::GENERATION,
        })
    }

    /// A generation's record now.
    pub async fn generation(&self, id: &str) -> Result<Generation, Error> {
        Ok(self
            .get::<Generation>(&endpoint::GENERATION_GET, &[id], &[])
            .await?
            .0)
    }
}
