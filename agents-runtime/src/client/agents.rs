//! The agent catalog: list with filters, a stream over every page, and details into
//! the same `AgentRecord` model the generator reads.

use agents_schema::AgentRecord;
use futures::StreamExt;
use futures::stream::BoxStream;

use super::Client;
use super::error::Error;
use crate::endpoint::{self, ApiVersion};

/// What to use instead of `/v1` agent records on a `/v2` client.
const V1_RECORDS: &str = ": agent records are /v1's; use the v1 version, or Client::template \
                          for the /v2 template record";

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
        self.client
            .require(ApiVersion::V1, "templates.list", V1_RECORDS)?;
        Ok(self
            .client
            .get::<Vec<AgentRecord>>(&endpoint::TEMPLATE_LIST, &[], &self.query(offset))
            .await?
            .0)
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
        futures::stream::unfold(start, |mut s| async move {
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

    /// An agent's whole record, as the generator reads it.
    pub async fn agent(&self, name: &str) -> Result<AgentRecord, Error> {
        self.require(ApiVersion::V1, "templates.get", V1_RECORDS)?;
        Ok(self
            .get::<AgentRecord>(&endpoint::TEMPLATE_GET, &[name], &[])
            .await?
            .0)
    }
}
