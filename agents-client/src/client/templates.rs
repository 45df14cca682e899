//! Extract templates, the `/v2` records of extraction agents: each has a stable name and
//! versions, the published one described by JSON Schema documents for its inputs and output,
//! catalog metadata and sample input/output pairs.
#![cfg_attr(
    feature = "records",
    doc = "(The agent record, [`Client::agent`], describes the same agents in the first \
           generation of the interface.)"
)]
#![cfg_attr(
    not(feature = "records"),
    doc = "(The agent record, `Client::agent` with the `records` feature, describes the same \
           agents in the first generation of the interface.)"
)]

use futures_util::stream::BoxStream;
use serde::Deserialize;
use serde_json::{Map, Value};

use super::Client;
use super::error::Error;
use crate::endpoint::{self, ApiVersion};

/// JSON Patch (RFC 6902), the document [`Client::update_template`] takes (the client's own
/// type, `client::patch`, here beside the call that takes it).
pub use super::patch::{Patch, PatchOperation};

/// A template record: `client.template("retailer_a_pdp")`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct TemplateRecord {
    /// The template's id.
    pub id: String,
    /// Its stable name, the one runs use.
    pub name: String,
    /// When it was made (RFC 3339).
    pub created_at: String,
    /// When it last changed (RFC 3339).
    pub updated_at: String,
    /// The published version's id.
    #[serde(default)]
    pub published_version_id: Option<String>,
    /// The published version, when there is one.
    #[serde(default)]
    pub published_version: Option<TemplateVersion>,
    /// Fields this client does not know, kept as sent.
    #[serde(flatten)]
    pub rest: Map<String, Value>,
}

/// One version of a template.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct TemplateVersion {
    /// The version's id.
    pub id: String,
    /// The template's name.
    pub name: String,
    /// 1 for the first version, growing with each new one.
    pub version_number: u64,
    /// When it was published (RFC 3339).
    pub created_at: String,
    /// The inputs, as a JSON Schema document.
    #[serde(default)]
    pub input_schema: Map<String, Value>,
    /// The output record, as a JSON Schema document.
    #[serde(default)]
    pub output_schema: Map<String, Value>,
    /// Catalog facts.
    #[serde(default)]
    pub metadata: TemplateMetadata,
    /// Sample input and output pairs.
    #[serde(default, deserialize_with = "null_as_empty")]
    pub samples: Vec<TemplateSample>,
    /// Fields this client does not know, kept as sent.
    #[serde(flatten)]
    pub rest: Map<String, Value>,
}

/// Catalog facts of a template version.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct TemplateMetadata {
    /// Human-friendly name.
    #[serde(default)]
    pub display_name: Option<String>,
    /// What it extracts.
    #[serde(default)]
    pub description: Option<String>,
    /// The site it reads.
    #[serde(default)]
    pub domain: Option<String>,
    /// The kind of page, such as a product detail page.
    #[serde(default)]
    pub entity_type: Option<String>,
    /// The business vertical.
    #[serde(default)]
    pub vertical: Option<String>,
    /// Tags.
    #[serde(default, deserialize_with = "null_as_empty")]
    pub tags: Vec<String>,
    /// Where its data comes from.
    #[serde(default)]
    pub data_source: Option<String>,
    /// Fields this client does not know, kept as sent.
    #[serde(flatten)]
    pub rest: Map<String, Value>,
}

/// A sample input and the output it produced.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct TemplateSample {
    /// The params of the sample run.
    #[serde(default)]
    pub input: Value,
    /// Its output.
    #[serde(default)]
    pub output: Value,
}

fn null_as_empty<'de, D, T>(d: D) -> Result<Vec<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    Ok(Option::<Vec<T>>::deserialize(d)?.unwrap_or_default())
}

impl Client {
    /// A template record with its published version (`/v2`).
    ///
    /// ```no_run
    /// # async fn demo(client: agents_runtime::Client) -> Result<(), agents_runtime::Error> {
    /// let template = client.template("retailer_a_pdp").await?;
    /// if let Some(v) = &template.published_version {
    ///     println!("version {} has {} output fields", v.version_number,
    ///         v.output_schema.get("properties").and_then(|p| p.as_object()).map_or(0, |p| p.len()));
    /// }
    /// # Ok(()) }
    /// ```
    pub async fn template(&self, name: &str) -> Result<TemplateRecord, Error> {
        self.require(
            ApiVersion::V2,
            &endpoint::TEMPLATE_GET,
            "Client::agent for the agent record",
        )?;
        Ok(self.get(&endpoint::TEMPLATE_GET, &[name], &[]).await?.0)
    }

    /// Every template the account sees, page after page as the stream is read (`/v2`).
    pub fn templates(&self) -> BoxStream<'static, Result<TemplateRecord, Error>> {
        match self.require(
            ApiVersion::V2,
            &endpoint::TEMPLATE_LIST,
            "Client::agents for agent records",
        ) {
            Ok(()) => super::listing::offset_stream(
                self.clone(),
                &endpoint::TEMPLATE_LIST,
                Vec::new(),
                100,
            ),
            Err(e) => Box::pin(futures_util::stream::once(async { Err(e) })),
        }
    }

    /// A template's versions, oldest first (`/v2`).
    pub fn template_versions(
        &self,
        name: &str,
    ) -> BoxStream<'static, Result<TemplateVersion, Error>> {
        super::listing::offset_stream(
            self.clone(),
            &endpoint::TEMPLATE_VERSIONS,
            vec![name.to_owned()],
            100,
        )
    }

    /// One version of a template, by its id (`/v2`).
    pub async fn template_version(
        &self,
        name: &str,
        version_id: &str,
    ) -> Result<TemplateVersion, Error> {
        Ok(self
            .get(&endpoint::TEMPLATE_VERSION, &[name, version_id], &[])
            .await?
            .0)
    }

    /// Changes one of your templates with a JSON Patch document (RFC 6902) applied to its
    /// record (`/v2`): metadata and samples change the published version; a changed input or
    /// output schema publishes the next version. A patch whose `test` fails, or that touches a
    /// field the service sets (ids, names, times, version numbers), changes nothing.
    ///
    /// ```no_run
    /// # async fn demo(client: agents_runtime::Client) -> Result<(), agents_runtime::Error> {
    /// use agents_runtime::client::patch::Patch;
    /// let patch = Patch::new().replace(
    ///     "/published_version/metadata/display_name",
    ///     serde_json::json!("Shop"),
    /// );
    /// let t = client.update_template("shop_product", &patch).await?;
    /// # let _ = t; Ok(()) }
    /// ```
    pub async fn update_template(
        &self,
        name: &str,
        patch: &Patch,
    ) -> Result<TemplateRecord, Error> {
        patch.check()?;
        Ok(self
            .post(&endpoint::TEMPLATE_UPDATE, &[name], patch, "patch")
            .await?
            .0)
    }

    /// Deletes one of your templates (`/v2`); its name runs nothing afterwards.
    pub async fn delete_template(&self, name: &str) -> Result<(), Error> {
        self.send::<()>(&endpoint::TEMPLATE_DELETE, &[name], &[], None)
            .await?;
        Ok(())
    }
}
