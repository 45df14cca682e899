//! Publishing a template from the type that describes it (`/v2`): [`Client::publish`] makes the
//! account's template of a generated type's name say what the type says — it creates the
//! template if there is none, publishes a new version if its schemas changed, and does nothing
//! if they are the same, so a program that publishes and then runs can run any number of times.
//!
//! ```no_run
//! # use agents_runtime::prelude::*;
//! # agents_runtime::record! {
//! #     #![schema = r#"{"type": "object", "properties": {"stars": {"type": "integer"}}}"#]
//! #     #![fields = ReviewFields]
//! #     #[derive(Debug, Clone, PartialEq, Default)]
//! #     pub struct Review {
//! #         pub stars: Option<i64>,
//! #         #[json(flatten)]
//! #         pub unknown_fields: agents_runtime::JsonMap,
//! #         #[json(skip)]
//! #         pub mismatches: Vec<agents_runtime::Mismatch>,
//! #         #[json(skip)]
//! #         pub breaches: Vec<agents_runtime::Breach>,
//! #     }
//! # }
//! # #[derive(Debug, Clone, serde::Serialize)] pub struct ReviewParams { url: String }
//! # impl AgentParams for ReviewParams {
//! #     type Agent = Review;
//! #     fn validate(&self) -> Result<(), agents_runtime::ValidationError> { Ok(()) }
//! #     fn uses_localization(&self) -> bool { false }
//! # }
//! # impl Agent for Review {
//! #     const NAME: &'static str = "review";
//! #     const INPUT_SCHEMA: &'static str = r#"{"type": "object"}"#;
//! #     type Params = ReviewParams;
//! # }
//! # async fn f() -> Result<(), Error> {
//! // `Review` and `ReviewParams` generated from review.output.schema.json and
//! // review.input.schema.json.
//! let client = Client::v2_from_env()?;
//! let published = client.publish::<Review>().await?;
//! println!("{published}"); // "review: created, version 1", then "review: unchanged, version 1"
//! let run = client.run(ReviewParams { url: "https://shop.example/r/1".into() }).await?;
//! # let _ = run; Ok(()) }
//! ```
//!
//! The service asks for a prompt and a sample page's URL to create a template even when both
//! schemas are given; [`TemplateSource`] fills them with documented defaults
//! ([`TemplateSource::prompt`], [`TemplateSource::sample_url`] to give your own).
//!
//! Research agents publish the same way, by name (`Client::publish_research_agent`, in
//! [`research`](super::research)): a
//! request with `.agent_name(…)` and `.output_schema_of::<T>()` creates the agent once and
//! afterwards changes only what differs.

use std::fmt;

use serde_json::{Map, Value, json};

use super::Client;
use super::body::Document;
use super::error::Error;
use super::generation::GenerationRequest;
use super::patch::WrittenOp;
use super::templates::TemplateRecord;
use crate::agent::Agent;
use crate::endpoint::{self, ApiVersion};

/// The sample page a new template names when none is given: the service requires one, and
/// with both schemas given it describes nothing the template needs (`example.com` is reserved
/// for examples, RFC 2606).
pub const DEFAULT_SAMPLE_URL: &str = "https://example.com/";

/// What a template should say: its name, its two JSON Schema documents, and what the service
/// asks for beside them when it creates one.
#[derive(Debug, Clone, PartialEq)]
pub struct TemplateSource {
    name: String,
    input_schema: Document,
    output_schema: Document,
    prompt: Option<String>,
    sample_url: Option<String>,
}

impl TemplateSource {
    /// A template named `name` with these schemas: `Value`s, or [`Document`]s parsed from
    /// text. A `Value` sorts its keys (unless your program turns on serde_json's
    /// `preserve_order`), and the order of a schema's properties is the order of the fields
    /// generated from the template: a `Document`, or [`TemplateSource::from_text`], keeps the
    /// order a file has.
    pub fn new(
        name: impl Into<String>,
        input_schema: impl Into<Document>,
        output_schema: impl Into<Document>,
    ) -> Self {
        Self::of_documents(name.into(), input_schema.into(), output_schema.into())
    }

    /// A template named `name` with the schemas these texts are (files of your own, say:
    /// `cargo agents publish` reads `NAME.output.schema.json` and `NAME.input.schema.json`
    /// this way), sent as written, so the template lists the properties in their order. A
    /// text that is not JSON is an [`Error::InvalidOption`] naming which.
    ///
    /// ```
    /// # use agents_runtime::client::publish::TemplateSource;
    /// let source = TemplateSource::from_text(
    ///     "review",
    ///     r#"{"type": "object", "properties": {"url": {"type": "string"}}}"#,
    ///     r#"{"type": "object", "properties": {"stars": {"type": "integer"}, "body": {}}}"#,
    /// )?;
    /// assert_eq!(source.template_name(), "review");
    /// # Ok::<(), agents_runtime::Error>(())
    /// ```
    pub fn from_text(
        name: impl Into<String>,
        input_schema: &str,
        output_schema: &str,
    ) -> Result<Self, Error> {
        let name = name.into();
        let parse = |what: &'static str, text: &str| {
            text.parse().map_err(|e| Error::InvalidOption {
                option: what,
                message: format!("the {what} of template `{name}` does not read: {e}"),
            })
        };
        let input = parse("input schema", input_schema)?;
        let output = parse("output schema", output_schema)?;
        Ok(Self::of_documents(name, input, output))
    }

    fn of_documents(name: String, input_schema: Document, output_schema: Document) -> Self {
        TemplateSource {
            name,
            input_schema,
            output_schema,
            prompt: None,
            sample_url: None,
        }
    }

    /// The template a generated type describes: its name ([`Agent::NAME`]), its inputs'
    /// schema ([`Agent::INPUT_SCHEMA`]) and its output's ([`Record::schema_text`](crate::Record::schema_text)), as the
    /// generator read them, in the order they were written.
    pub fn of<T: Agent>() -> Result<Self, Error> {
        let parse = |what: &'static str, text: &str| {
            text.parse()
                .map_err(|e: serde_json::Error| Error::InvalidOption {
                    option: what,
                    message: format!("the schema `{}` carries does not read: {e}", T::NAME),
                })
        };
        let output = match T::schema_text() {
            Some(text) => parse("Record::schema_text", text)?,
            None => {
                return Err(Error::InvalidOption {
                    option: "Record::schema_text",
                    message: format!(
                        "`{}` carries no output schema; regenerate its bindings",
                        T::NAME
                    ),
                });
            }
        };
        Ok(Self::of_documents(
            T::NAME.to_owned(),
            parse("Agent::INPUT_SCHEMA", T::INPUT_SCHEMA)?,
            output,
        ))
    }

    /// Publishes under another name (a catalog type's schema as a template of your own).
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// The prompt a new template is created with. By default: the output schema's
    /// `description`, else its `title`, else "Extract NAME".
    pub fn prompt(mut self, prompt: impl Into<String>) -> Self {
        self.prompt = Some(prompt.into());
        self
    }

    /// The sample page a new template is created with; [`DEFAULT_SAMPLE_URL`] by default.
    pub fn sample_url(mut self, url: impl Into<String>) -> Self {
        self.sample_url = Some(url.into());
        self
    }

    /// The template's name.
    pub fn template_name(&self) -> &str {
        &self.name
    }

    /// What [`Client::plan_template`] and [`Client::publish_template`] refuse before sending
    /// anything: a name the service does not take for a template of one's own (lowercase
    /// letters, digits and underscores), an [`Error::InvalidOption`] naming it.
    ///
    /// ```
    /// # use agents_runtime::client::publish::TemplateSource;
    /// let source = TemplateSource::from_text("My Shop", "{}", r#"{"type": "object"}"#)?;
    /// assert!(source.check().is_err());
    /// assert!(source.name("my_shop").check().is_ok());
    /// # Ok::<(), agents_runtime::Error>(())
    /// ```
    pub fn check(&self) -> Result<(), Error> {
        match super::generation::name_problem(&self.name) {
            None => Ok(()),
            Some(problem) => Err(Error::InvalidOption {
                option: "TemplateSource::name",
                message: format!(
                    "template name {problem}; publish under such a name with \
                     `TemplateSource::name`"
                ),
            }),
        }
    }

    fn text(&self, key: &str) -> Option<&str> {
        self.output_schema
            .value()
            .get(key)
            .and_then(Value::as_str)
            .filter(|s| !s.trim().is_empty())
    }

    /// What publishing would do to the template as it is now (`None`: there is none).
    pub fn plan(&self, current: Option<&TemplateRecord>) -> Plan {
        let Some(version) = current.and_then(|t| t.published_version.as_ref()) else {
            return Plan::Create;
        };
        let differs = |ours: &Value, theirs: &Map<String, Value>| match ours {
            Value::Object(ours) => ours != theirs,
            _ => true,
        };
        let input = differs(self.input_schema.value(), &version.input_schema);
        let output = differs(self.output_schema.value(), &version.output_schema);
        if input || output {
            Plan::Update {
                version: version.version_number,
                input,
                output,
            }
        } else {
            Plan::Unchanged {
                version: version.version_number,
            }
        }
    }

    fn generation(&self) -> GenerationRequest {
        let prompt = self.prompt.clone().unwrap_or_else(|| {
            self.text("description")
                .or_else(|| self.text("title"))
                .map_or_else(|| format!("Extract {}", self.name), str::to_owned)
        });
        let url = self
            .sample_url
            .clone()
            .unwrap_or_else(|| DEFAULT_SAMPLE_URL.to_owned());
        let mut metadata = Map::new();
        for (key, field) in [("title", "display_name"), ("description", "description")] {
            if let Some(text) = self.text(key) {
                metadata.insert(field.into(), json!(text));
            }
        }
        GenerationRequest::new(prompt, url)
            .agent_name(self.name.clone())
            .input_schema(self.input_schema.clone())
            .output_schema(self.output_schema.clone())
            .metadata(Value::Object(metadata))
    }

    /// The patch that makes `version` say what this source says: each changed schema replaced
    /// as written, after a test that the version is still the one compared (a change made
    /// meanwhile fails the patch instead of being overwritten).
    fn patch(&self, version: u64, input: bool, output: bool) -> Vec<WrittenOp> {
        let mut patch = vec![WrittenOp {
            op: "test",
            path: "/published_version/version_number".into(),
            value: Document::from(json!(version)),
        }];
        for (changed, path, document) in [
            (input, "/published_version/input_schema", &self.input_schema),
            (
                output,
                "/published_version/output_schema",
                &self.output_schema,
            ),
        ] {
            if changed {
                patch.push(WrittenOp {
                    op: "replace",
                    path: path.into(),
                    value: document.clone(),
                });
            }
        }
        patch
    }
}

/// What [`Client::publish_template`] does, or would do ([`Client::plan_template`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Plan {
    /// There is no such template: it is created, as version 1.
    Create,
    /// Its published version says something else: the next version is published.
    Update {
        /// The published version now.
        version: u64,
        /// The input schema differs.
        input: bool,
        /// The output schema differs.
        output: bool,
    },
    /// Its published version says the same: nothing is sent.
    Unchanged {
        /// The published version.
        version: u64,
    },
}

impl fmt::Display for Plan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Plan::Create => f.write_str("create"),
            Plan::Update {
                version,
                input,
                output,
            } => {
                let what = match (input, output) {
                    (true, true) => "input and output schemas",
                    (true, false) => "input schema",
                    _ => "output schema",
                };
                write!(f, "update version {version} ({what} changed)")
            }
            Plan::Unchanged { version } => write!(f, "unchanged, version {version}"),
        }
    }
}

/// A template after [`Client::publish_template`]: what was done, and its record now.
#[derive(Debug, Clone, PartialEq)]
pub struct Published {
    /// What was done ([`Plan::Unchanged`] when nothing was sent).
    pub plan: Plan,
    /// The template now.
    pub template: TemplateRecord,
}

impl Published {
    /// The published version's number.
    pub fn version(&self) -> Option<u64> {
        self.template
            .published_version
            .as_ref()
            .map(|v| v.version_number)
    }
}

impl fmt::Display for Published {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = &self.template.name;
        let version = self.version().unwrap_or_default();
        match self.plan {
            Plan::Create => write!(f, "{name}: created, version {version}"),
            Plan::Update { version: from, .. } => {
                write!(f, "{name}: updated, version {from} → {version}")
            }
            Plan::Unchanged { .. } => write!(f, "{name}: unchanged, version {version}"),
        }
    }
}

/// `e`, with what to do when the service refused a call typed by `A` because it does not know
/// `A`'s template: `A` carries its schemas, so [`Client::publish`] makes the template (a
/// template written as schema files is unknown until it is published).
pub(crate) fn unknown_template<A: Agent>(mut e: Error, version: ApiVersion) -> Error {
    if !e.refuses_agent_name() {
        return e;
    }
    let ty = std::any::type_name::<A>()
        .rsplit("::")
        .next()
        .unwrap_or(A::NAME);
    let publish = format!("`client.publish::<{ty}>()`");
    let how = if version == ApiVersion::V2 {
        format!("{publish} makes it from the schemas `{ty}` carries")
    } else {
        format!(
            "{publish} on a /{} client (`Client::v2_from_env`) makes it from the schemas `{ty}` \
             carries",
            ApiVersion::V2
        )
    };
    if let Some(api) = e.api_mut() {
        api.hint = Some(format!("if `{}` is a template of your own, {how}", A::NAME));
    }
    e
}

impl Client {
    /// Makes the template of generated type `T` say what `T` says (`/v2`): creates it if there
    /// is none, publishes a new version if its input or output schema changed, sends nothing if
    /// both are the same. See [`TemplateSource::of`] and [`Client::publish_template`].
    pub async fn publish<T: Agent>(&self) -> Result<Published, Error> {
        self.publish_template(TemplateSource::of::<T>()?).await
    }

    /// What [`Client::publish_template`] would do, without changing anything (`/v2`).
    pub async fn plan_template(&self, source: &TemplateSource) -> Result<Plan, Error> {
        Ok(source.plan(self.current_template(source).await?.as_ref()))
    }

    /// Makes the template `source` names say what `source` says (`/v2`): created (waiting for
    /// the service to publish version 1), updated (the changed schemas replaced in one patch,
    /// which fails rather than overwrite a version published meanwhile), or left alone. A
    /// template created by someone else meanwhile is compared and updated instead.
    pub async fn publish_template(&self, source: TemplateSource) -> Result<Published, Error> {
        let current = self.current_template(&source).await?;
        let mut plan = source.plan(current.as_ref());
        if plan == Plan::Create {
            match self.generate_agent(source.generation()).await {
                Ok(handle) => {
                    handle.wait().await?;
                    let template = self.template(&source.name).await?;
                    return Ok(Published { plan, template });
                }
                // Created meanwhile (another run of the same program): compare with that; a
                // template still without a published version cannot be, so the error stands.
                Err(e) => match self.current_template(&source).await? {
                    Some(now) if now.published_version.is_some() => {
                        plan = source.plan(Some(&now));
                    }
                    _ => return Err(e),
                },
            }
        }
        let template = match plan {
            Plan::Update {
                version,
                input,
                output,
            } => {
                self.post::<TemplateRecord>(
                    &endpoint::TEMPLATE_UPDATE,
                    &[&source.name],
                    &source.patch(version, input, output),
                    "patch",
                )
                .await
                .map_err(|e| own_templates_only(e, &source.name))?
                .0
            }
            _ => match current {
                Some(t) => t,
                None => self.template(&source.name).await?,
            },
        };
        Ok(Published { plan, template })
    }

    /// The template `source` names, `None` when there is none.
    async fn current_template(
        &self,
        source: &TemplateSource,
    ) -> Result<Option<TemplateRecord>, Error> {
        self.require_for(
            "Client::publish",
            ApiVersion::V2,
            &endpoint::TEMPLATE_UPDATE,
            "`cargo agents generate-agent` with your schemas",
        )?;
        source.check()?;
        match self.template(&source.name).await {
            Ok(t) => Ok(Some(t)),
            Err(Error::NotFound(_)) => Ok(None),
            Err(e) => Err(e),
        }
    }
}

/// A public template cannot be changed; the fix is another name.
fn own_templates_only(mut e: Error, name: &str) -> Error {
    if let Error::Forbidden(api) = &mut e {
        api.message = format!(
            "{}; publish it under a name of your own with `TemplateSource::of::<T>()?.name(\"my_{name}\")`",
            api.message
        );
    }
    e
}
