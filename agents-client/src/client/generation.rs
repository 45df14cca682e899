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
//!   [`GenerationHandle::wait`], then
#![cfg_attr(feature = "records", doc = "  [`Client::agent`]")]
#![cfg_attr(
    not(feature = "records"),
    doc = "  `Client::agent` (the `records` feature)"
)]
//!   for the record to save into `schemas/`.
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
use super::body::{Document, Fields};
use super::error::{Error, OptionCheck};
pub use super::records::{Generation, GenerationStatus};
use super::waiter::{self, Poll, WaitOptions};
use crate::endpoint::{self, ApiVersion};

/// What to generate.
#[derive(Debug, Clone, PartialEq)]
pub struct GenerationRequest {
    /// The fields both versions spell alike, the schemas as written.
    body: Fields,
    /// The new agent's name and the agent refined, which each version spells its own way.
    name: Option<String>,
    from: Option<String>,
}

impl GenerationRequest {
    /// A new agent from a prompt and a sample page URL.
    pub fn new(prompt: impl Into<String>, url: impl Into<String>) -> Self {
        let mut body = Fields::default();
        body.insert("prompt".into(), json!(prompt.into()));
        body.insert("url".into(), json!(url.into()));
        GenerationRequest {
            body,
            name: None,
            from: None,
        }
    }

    /// A new version of an existing agent of yours.
    pub fn refine(agent: impl Into<String>, prompt: impl Into<String>) -> Self {
        let mut body = Fields::default();
        body.insert("prompt".into(), json!(prompt.into()));
        GenerationRequest {
            body,
            name: None,
            from: Some(agent.into()),
        }
    }

    /// The new agent's name (lowercase letters and underscores).
    pub fn agent_name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// An input schema instead of the inferred one: a `Value`, or a [`Document`] parsed from
    /// text, which keeps the order its properties are written in (the order of the new
    /// template's inputs).
    pub fn input_schema(mut self, schema: impl Into<Document>) -> Self {
        self.body.document("input_schema", schema.into());
        self
    }

    /// An output schema instead of the inferred one: a `Value`, or a [`Document`] parsed from
    /// text, which keeps the order its properties are written in (the order of the fields
    /// generated from the new template).
    pub fn output_schema(mut self, schema: impl Into<Document>) -> Self {
        self.body.document("output_schema", schema.into());
        self
    }

    /// Labels or tags.
    pub fn metadata(mut self, metadata: Value) -> Self {
        self.body.insert("metadata".into(), metadata);
        self
    }

    /// The body in `version`'s words.
    fn wire(&self, version: ApiVersion) -> Fields {
        let words = version.words();
        let mut body = self.body.clone();
        for (field, value) in [
            (words.generation_name, &self.name),
            (words.generation_from, &self.from),
        ] {
            if let Some(v) = value {
                body.insert(field.to_owned(), json!(v));
            }
        }
        body
    }

    fn check(&self) -> Result<(), Error> {
        let text = |k: &str| {
            self.body
                .values()
                .get(k)
                .and_then(Value::as_str)
                .unwrap_or("")
        };
        let mut check = OptionCheck::default();
        if text("prompt").trim().is_empty() {
            check.bad("prompt", "the prompt is empty");
        }
        if let Some(problem) = self.name.as_deref().and_then(name_problem) {
            check.bad("GenerationRequest::agent_name", problem);
        }
        if self.from.is_none() {
            check.take(super::check_http_url("url", text("url")));
        }
        check.finish()
    }
}

/// What is wrong with `name` as the name of a template of one's own, if anything: the service
/// takes lowercase letters, digits and underscores.
pub(crate) fn name_problem(name: &str) -> Option<String> {
    let fine = !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
    (!fine).then(|| format!("{name:?} must be lowercase letters, digits and underscores"))
}

/// The service names the fields of its request body; a user of this client set them through
/// [`GenerationRequest`]'s methods, so a message about the agent refined or the new name says
/// which method set it.
fn in_this_clients_words(mut e: Error, version: ApiVersion) -> Error {
    let words = version.words();
    if let Some(api) = e.api_mut() {
        for (wire, method) in [
            (words.generation_from, "GenerationRequest::refine"),
            (words.generation_name, "GenerationRequest::agent_name"),
        ] {
            if !api.message.contains(method) {
                api.message = replace_word(&api.message, wire, &format!("{method} ({wire})"));
            }
        }
    }
    e
}

/// `text` with every whole-word `word` (not part of a longer identifier) replaced.
fn replace_word(text: &str, word: &str, with: &str) -> String {
    let ident = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(word) {
        let after = &rest[at + word.len()..];
        let whole = !ident(rest[..at].chars().next_back()) && !ident(after.chars().next());
        out.push_str(&rest[..at]);
        out.push_str(if whole { with } else { word });
        rest = after;
    }
    out.push_str(rest);
    out
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

    /// The agent's name as the service accepted it (`None` for a handle made from an id alone,
    /// [`Client::generation_handle`]: the finished record names it).
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
            #[serde(flatten)]
            rest: Map<String, Value>,
        }
        let version = self.api_version();
        let body = super::JsonBody::new(&request.wire(version), "request")?;
        let (created, _): (Created, _) = self
            .send(&endpoint::GENERATION_CREATE, &[], &[], Some(&body))
            .await
            .map_err(|e| in_this_clients_words(e, version))?;
        let agent_name = created
            .rest
            .get(version.words().generation_name)
            .and_then(Value::as_str)
            .map(str::to_owned);
        Ok(GenerationHandle {
            client: self.clone(),
            id: created.id,
            agent_name,
            wait: WaitOptions::GENERATION,
        })
    }

    /// A generation to wait on, by id: one started by another process, or by this one before it
    /// was stopped (a generation takes minutes, and goes on at the service).
    ///
    /// ```no_run
    /// # async fn f(client: agents_client::Client) -> Result<(), agents_client::Error> {
    /// let done = client.generation_handle("gen_123").wait().await?;
    /// println!("{:?} is ready", done.agent_name);
    /// # Ok(()) }
    /// ```
    pub fn generation_handle(&self, id: &str) -> GenerationHandle {
        GenerationHandle {
            client: self.clone(),
            id: id.to_owned(),
            agent_name: None,
            wait: WaitOptions::GENERATION,
        }
    }

    /// A generation's record now.
    pub async fn generation(&self, id: &str) -> Result<Generation, Error> {
        Ok(self
            .get::<Generation>(&endpoint::GENERATION_GET, &[id], &[])
            .await?
            .0)
    }
}
