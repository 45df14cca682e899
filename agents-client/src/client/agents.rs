//! The agent catalog: list with filters, a stream over every page, and details into
//! the same `AgentRecord` model the generator reads.

use agents_schema::{AgentRecord, Json};
use futures_util::StreamExt;
use futures_util::stream::BoxStream;

use super::Client;
use super::error::Error;

use super::error::{DecodeError, ResponseInfo};
use super::templates::TemplateMetadata;
use crate::endpoint::{self, ApiVersion};

/// The `privacy` filter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Privacy {
    /// Public and the account's private agents.
    All,
    /// Public agents.
    Public,
    /// The account's own agents.
    Private,
}

/// A catalog query: `client.agents().privacy(Privacy::Public).search("retail").list()`.
#[derive(Debug, Clone)]
pub struct AgentQuery {
    client: Client,
    privacy: Option<Privacy>,
    search: Option<String>,
    managed_by: Option<String>,
    offset: u64,
    limit: u64,
}

impl AgentQuery {
    /// Filters by privacy.
    pub fn privacy(mut self, p: Privacy) -> Self {
        self.privacy = Some(p);
        self
    }

    /// Matches display name, vertical and domain.
    pub fn search(mut self, text: impl Into<String>) -> Self {
        self.search = Some(text.into());
        self
    }

    /// Filters by maintainer (`nimble`, `community`, `self_managed`).
    pub fn managed_by(mut self, who: impl Into<String>) -> Self {
        self.managed_by = Some(who.into());
        self
    }

    /// First item (default 0).
    pub fn offset(mut self, offset: u64) -> Self {
        self.offset = offset;
        self
    }

    /// Page size (default 100).
    pub fn limit(mut self, limit: u64) -> Self {
        self.limit = limit.max(1);
        self
    }

    fn query(&self, offset: u64) -> Vec<(&'static str, String)> {
        let mut q = vec![
            ("offset", offset.to_string()),
            ("limit", self.limit.to_string()),
        ];
        if let Some(p) = self.privacy {
            let v = match p {
                Privacy::All => "all",
                Privacy::Public => "public",
                Privacy::Private => "private",
            };
            q.push(("privacy", v.to_owned()));
        }
        if let Some(s) = &self.search {
            q.push(("search", s.clone()));
        }
        if let Some(m) = &self.managed_by {
            q.push(("managed_by", m.clone()));
        }
        q
    }

    /// One page from `offset`.
    pub async fn list(&self) -> Result<Vec<AgentRecord>, Error> {
        self.page(self.offset).await
    }

    async fn page(&self, offset: u64) -> Result<Vec<AgentRecord>, Error> {
        if self.client.api_version() == ApiVersion::V2 {
            return self.template_page(offset).await;
        }
        Ok(self
            .client
            .get::<Vec<AgentRecord>>(&endpoint::TEMPLATE_LIST, &[], &self.query(offset))
            .await?
            .0)
    }

    /// `/v2`: a page of template records, each read as an agent record. `/v2` filters by
    /// nothing, so a query that filters is refused rather than answered unfiltered.
    async fn template_page(&self, offset: u64) -> Result<Vec<AgentRecord>, Error> {
        if self.privacy.is_some() || self.search.is_some() || self.managed_by.is_some() {
            return Err(Error::InvalidOption {
                option: "filters",
                message: format!(
                    "privacy, search and managed_by filter /{}'s agent list; /{} lists \
                     every template (build the client with `.api_version(ApiVersion::V1)` \
                     to filter)",
                    ApiVersion::V1,
                    ApiVersion::V2
                ),
            });
        }
        let query = [
            ("limit", self.limit.to_string()),
            ("offset", offset.to_string()),
        ];
        let (page, info): (super::listing::Listing<WrittenTemplate>, _) = self
            .client
            .get(&endpoint::TEMPLATE_LIST, &[], &query)
            .await?;
        page.items
            .into_iter()
            .map(|t| as_agent_record(t, &info))
            .collect()
    }

    /// Every matching agent from `offset` to the end, one page request at a time as the stream
    /// is read. An error ends the stream after it is yielded.
    pub fn stream(self) -> BoxStream<'static, Result<AgentRecord, Error>> {
        struct S {
            q: AgentQuery,
            offset: u64,
            buf: std::vec::IntoIter<AgentRecord>,
            done: bool,
        }
        let start = S {
            offset: self.offset,
            q: self,
            buf: Vec::new().into_iter(),
            done: false,
        };
        futures_util::stream::unfold(start, |mut s| async move {
            loop {
                if let Some(item) = s.buf.next() {
                    return Some((Ok(item), s));
                }
                if s.done {
                    return None;
                }
                match s.q.page(s.offset).await {
                    Ok(page) => {
                        let n = page.len() as u64;
                        s.done = n < s.q.limit;
                        s.offset += n;
                        s.buf = page.into_iter();
                    }
                    Err(e) => {
                        s.done = true;
                        return Some((Err(e), s));
                    }
                }
            }
        })
        .boxed()
    }
}

impl Client {
    /// A catalog query.
    pub fn agents(&self) -> AgentQuery {
        AgentQuery {
            client: self.clone(),
            privacy: None,
            search: None,
            managed_by: None,
            offset: 0,
            limit: 100,
        }
    }

    /// An agent's whole record, as the generator reads it. In `/v2` this is the template's
    /// published version read back into an agent record: its input and output JSON Schema
    /// documents become inputs (with the rules the generator checks) and output descriptors
    /// ([`Client::template`] has the template record itself).
    pub async fn agent(&self, name: &str) -> Result<AgentRecord, Error> {
        match self.api_version() {
            ApiVersion::V1 => Ok(self
                .get::<AgentRecord>(&endpoint::TEMPLATE_GET, &[name], &[])
                .await?
                .0),
            ApiVersion::V2 => {
                let (t, info): (WrittenTemplate, _) =
                    self.get(&endpoint::TEMPLATE_GET, &[name], &[]).await?;
                as_agent_record(t, &info)
            }
        }
    }

    /// The agent record of version `number` of a template (`/v2`; `/v1` agents have no
    /// versions): what `cargo agents fetch NAME --version N` caches.
    pub async fn agent_version(&self, name: &str, number: u64) -> Result<AgentRecord, Error> {
        let mut versions = self.template_versions(name);
        let mut seen = Vec::new();
        while let Some(v) = versions.next().await {
            let v = v?;
            if v.version_number == number {
                // The list finds the id; the record is the version's own answer, whose status and
                // task id a decode error then carries.
                let (v, info) = self
                    .get::<WrittenVersion>(&endpoint::TEMPLATE_VERSION, &[name, &v.id], &[])
                    .await?;
                return version_record(name, v, &info);
            }
            seen.push(v.version_number);
        }
        seen.sort_unstable();
        Err(Error::Config(format!(
            "template `{name}` has no version {number} (it has {})",
            if seen.is_empty() {
                "none".to_owned()
            } else {
                seen.iter()
                    .map(u64::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            }
        )))
    }

    /// The agent record of the template version with id `version_id` (`/v2`): the version a
    /// generation produced, say.
    pub async fn agent_version_by_id(
        &self,
        name: &str,
        version_id: &str,
    ) -> Result<AgentRecord, Error> {
        let (v, info) = self
            .get::<WrittenVersion>(&endpoint::TEMPLATE_VERSION, &[name, version_id], &[])
            .await?;
        version_record(name, v, &info)
    }
}

/// A template as a record is read from it: [`TemplateRecord`](super::templates::TemplateRecord)
/// holds the schemas as maps, which sort their keys, and the order of a schema's properties is
/// the order of the fields generated from the record.
#[derive(serde::Deserialize)]
struct WrittenTemplate {
    name: String,
    #[serde(default)]
    published_version: Option<WrittenVersion>,
}

/// A template version as a record is read from it: its schemas as written.
#[derive(serde::Deserialize)]
struct WrittenVersion {
    id: String,
    version_number: u64,
    created_at: String,
    #[serde(default)]
    input_schema: Option<Json>,
    #[serde(default)]
    output_schema: Option<Json>,
    #[serde(default)]
    metadata: TemplateMetadata,
}

/// A `/v2` template record as the agent record of its published version; a template without
/// one, or whose schemas do not read as a record, is a [`DecodeError`] naming what is wrong.
fn as_agent_record(t: WrittenTemplate, info: &ResponseInfo) -> Result<AgentRecord, Error> {
    match t.published_version {
        Some(v) => version_record(&t.name, v, info),
        None => Err(undecodable(
            "published_version",
            format!("template `{}` has no published version yet", t.name),
            info,
        )),
    }
}

/// A template version as an agent record that says which version it is (id and number, which
/// generated bindings carry as constants and `cargo agents check` compares).
fn version_record(
    name: &str,
    v: WrittenVersion,
    info: &ResponseInfo,
) -> Result<AgentRecord, Error> {
    #[derive(serde::Serialize)]
    struct Record<'a> {
        name: &'a str,
        id: &'a str,
        version_number: u64,
        created_at: &'a str,
        input_schema: &'a Json,
        output_schema: &'a Json,
        metadata: serde_json::Value,
    }
    let m = &v.metadata;
    let empty = Json::Object(Default::default());
    let record = Record {
        name,
        id: &v.id,
        version_number: v.version_number,
        created_at: &v.created_at,
        input_schema: v.input_schema.as_ref().unwrap_or(&empty),
        output_schema: v.output_schema.as_ref().unwrap_or(&empty),
        metadata: serde_json::json!({
            "display_name": m.display_name,
            "description": m.description,
            "domain": m.domain,
            "entity_type": m.entity_type,
            "vertical": m.vertical,
            "tags": m.tags,
        }),
    };
    // Through text, which the record's reader takes in the order it is written.
    let read = serde_json::to_string(&record)
        .map_err(|e| e.to_string())
        .and_then(|text| AgentRecord::from_json(&text).map_err(|e| e.to_string()));
    read.map_err(|e| {
        undecodable(
            "published_version",
            format!(
                "template `{name}` version {} does not read as an agent record: {e}",
                v.version_number
            ),
            info,
        )
    })
}

fn undecodable(path: &str, message: String, info: &ResponseInfo) -> Error {
    Error::Decode(Box::new(DecodeError {
        path: path.to_owned(),
        message,
        body: String::new(),
        info: info.clone(),
    }))
}
