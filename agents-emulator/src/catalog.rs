//! The agents the emulator knows: the public catalog embedded from `schemas/` (plus
//! `--schemas DIR`), and private agents made by generations, visible only to their account.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use agents_schema::{AgentRecord, nearest_names};
use axum::http::StatusCode;
use serde_json::{Map, Value, json};

use crate::error::ApiError;

include!(concat!(env!("OUT_DIR"), "/embedded.rs"));

/// One agent and who may see it.
#[derive(Debug, Clone)]
pub struct Entry {
    /// The record `GET /v1/agents/{name}` returns.
    pub record: Arc<AgentRecord>,
    /// The owning account of a private agent; `None` for public agents.
    pub owner: Option<String>,
    /// Version id of the current version (generated agents).
    pub version: Option<String>,
}

/// Every agent, by name.
#[derive(Debug, Clone, Default)]
pub struct Catalog {
    agents: BTreeMap<String, Entry>,
}

/// A problem reading an agent record at start-up.
#[derive(Debug, thiserror::Error)]
#[error("{file}: {message}")]
pub struct LoadError {
    /// The file at fault.
    pub file: String,
    /// What is wrong with it.
    pub message: String,
}

/// Query of `GET /v1/agents`.
#[derive(Debug, Default, serde::Deserialize)]
pub struct ListQuery {
    /// `all`, `public` or `private`.
    pub privacy: Option<String>,
    /// Matches display_name, vertical and domain, case-insensitively.
    pub search: Option<String>,
    /// `nimble`, `community`, `self`/`self_managed`.
    pub managed_by: Option<String>,
    /// Items to skip (default 0).
    pub offset: Option<String>,
    /// Items to return (default 100).
    pub limit: Option<String>,
}

impl Catalog {
    /// The embedded catalog, with the records of `extra_dir` added or replacing same-named ones.
    pub fn load(extra_dir: Option<&Path>) -> Result<Catalog, Vec<LoadError>> {
        let mut catalog = Catalog::default();
        let mut errors = Vec::new();
        for (file, text) in EMBEDDED {
            match AgentRecord::from_json(text) {
                Ok(record) => catalog.insert_public(record),
                Err(e) => errors.push(LoadError {
                    file: format!("schemas/{file}"),
                    message: e.to_string(),
                }),
            }
        }
        if let Some(dir) = extra_dir {
            match agents_schema::files::load_dir(dir) {
                Ok(loaded) => {
                    for l in loaded {
                        catalog.insert_public(l.record);
                    }
                }
                Err(diags) => errors.extend(diags.0.into_iter().map(|d| LoadError {
                    file: dir.display().to_string(),
                    message: d.to_string(),
                })),
            }
        }
        if errors.is_empty() {
            Ok(catalog)
        } else {
            Err(errors)
        }
    }

    fn insert_public(&mut self, record: AgentRecord) {
        self.agents.insert(
            record.name.clone(),
            Entry {
                record: Arc::new(record),
                owner: None,
                version: None,
            },
        );
    }

    /// Adds or replaces a private agent of `owner`.
    pub fn insert_private(&mut self, owner: &str, record: AgentRecord, version: String) {
        self.agents.insert(
            record.name.clone(),
            Entry {
                record: Arc::new(record),
                owner: Some(owner.to_owned()),
                version: Some(version),
            },
        );
    }

    /// The agent `name` as `account` sees it.
    pub fn get(&self, account: &str, name: &str) -> Option<&Entry> {
        self.agents
            .get(name)
            .filter(|e| e.owner.as_deref().is_none_or(|o| o == account))
    }

    /// Whether any account has an agent of this name.
    pub fn exists(&self, name: &str) -> bool {
        self.agents.contains_key(name)
    }

    /// Names visible to `account`, for "did you mean" messages.
    pub fn names<'a>(&'a self, account: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.agents
            .iter()
            .filter(move |(_, e)| e.owner.as_deref().is_none_or(|o| o == account))
            .map(|(n, _)| n.as_str())
    }

    /// The answer for an agent `account` cannot see: `status` (404 for a lookup, 422 for a run),
    /// naming the nearest agent names.
    pub(crate) fn unknown(&self, account: &str, name: &str, status: StatusCode) -> ApiError {
        let near = nearest_names(name, self.names(account));
        let code = if status == StatusCode::NOT_FOUND {
            "NOT_FOUND"
        } else {
            "VALIDATION_ERROR"
        };
        ApiError::new(
            status,
            code,
            format!("unknown agent `{name}`; nearest: {}", near.join(", ")),
        )
        .at("agent")
    }

    /// `GET /v1/agents`: list items visible to `account`, filtered and paged, in name order.
    pub fn list(&self, account: &str, q: &ListQuery) -> Result<Vec<Value>, ApiError> {
        let privacy = q.privacy.as_deref().unwrap_or("all");
        if !matches!(privacy, "all" | "public" | "private") {
            return Err(ApiError::invalid(
                "privacy",
                format!("privacy must be all, public or private, not {privacy:?}"),
            ));
        }
        let offset = parse_count("offset", q.offset.as_deref(), 0)?;
        let limit = parse_count("limit", q.limit.as_deref(), 100)?;
        let search = q.search.as_deref().map(str::to_lowercase);
        let managed = q.managed_by.as_deref().map(|m| match m {
            "self_managed" => "self",
            other => other,
        });
        Ok(self
            .agents
            .values()
            .filter(|e| e.owner.as_deref().is_none_or(|o| o == account))
            .filter(|e| match privacy {
                "public" => e.owner.is_none(),
                "private" => e.owner.is_some(),
                _ => true,
            })
            .filter(|e| managed.is_none_or(|m| e.record.managed_by.as_deref().unwrap_or("") == m))
            .filter(|e| {
                search.as_deref().is_none_or(|s| {
                    let r = &e.record;
                    [&r.display_name, &r.vertical, &r.domain]
                        .into_iter()
                        .any(|f| f.as_deref().is_some_and(|v| v.to_lowercase().contains(s)))
                })
            })
            .skip(offset)
            .take(limit)
            .map(|e| list_item(&e.record))
            .collect())
    }
}

/// A count from a query string: 422 naming the parameter when it is not a non-negative integer.
pub(crate) fn parse_count(
    name: &str,
    value: Option<&str>,
    default: usize,
) -> Result<usize, ApiError> {
    match value {
        None => Ok(default),
        Some(v) => v.parse().map_err(|_| {
            ApiError::invalid(
                name,
                format!("{name} must be a non-negative integer, not {v:?}"),
            )
        }),
    }
}

/// The subset of fields the list endpoint returns.
fn list_item(r: &AgentRecord) -> Value {
    let mut m = Map::new();
    m.insert("name".into(), json!(r.name));
    m.insert("display_name".into(), json!(r.display_name));
    m.insert("description".into(), json!(r.description));
    m.insert("is_public".into(), json!(r.is_public));
    m.insert("managed_by".into(), json!(r.managed_by));
    m.insert("vertical".into(), json!(r.vertical));
    m.insert("entity_type".into(), json!(r.entity_type));
    m.insert("domain".into(), json!(r.domain));
    Value::Object(m)
}
