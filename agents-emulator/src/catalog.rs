//! The agents the emulator knows: the public catalog embedded from `schemas/` (plus
//! `--schemas DIR`), and private agents made by generations, visible only to their account.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use std::time::SystemTime;

use agents_runtime::endpoint::ApiVersion;
use agents_schema::{AgentRecord, did_you_mean, json_schema, nearest_names};
use axum::http::StatusCode;
use serde_json::{Map, Value, json};

use crate::error::ApiError;
use crate::wire::timestamp;

include!(concat!(env!("OUT_DIR"), "/embedded.rs"));

/// One agent (a template, in `/v2`) and who may see it.
#[derive(Debug, Clone)]
pub struct Entry {
    /// The current version's record, as `/v1` returns it.
    pub record: Arc<AgentRecord>,
    /// The owning account of a private agent; `None` for public agents.
    pub owner: Option<String>,
    /// The template's id (`/v2`).
    pub id: String,
    /// When the template was first made.
    pub created: SystemTime,
    /// The published version, whose record is `record`.
    pub published: Version,
    /// The versions before it, oldest first.
    pub older: Vec<Version>,
    /// When the template last changed (a version published, or the published one changed in
    /// place): `updated_at`, which a patch's `test` op can guard a read-modify-write with.
    pub updated: SystemTime,
}

/// One version of a template.
#[derive(Debug, Clone)]
pub struct Version {
    /// The version id.
    pub id: String,
    /// 1 for the first version, one more for each refinement.
    pub number: u32,
    /// When it was published.
    pub created: SystemTime,
    /// Its record; its published sample input/output pairs (`[{input, output}]`, set by an
    /// update) are the record's `samples`, which runs with a sample's input answer.
    pub record: Arc<AgentRecord>,
}

impl Entry {
    fn new(
        record: AgentRecord,
        owner: Option<String>,
        version_id: String,
        now: SystemTime,
    ) -> Entry {
        let record = Arc::new(record);
        Entry {
            record: record.clone(),
            owner,
            id: uuid::Uuid::new_v4().to_string(),
            created: now,
            published: Version {
                id: version_id,
                number: 1,
                created: now,
                record,
            },
            older: Vec::new(),
            updated: now,
        }
    }

    /// Marks the template changed now: strictly later than its last change, even within the
    /// millisecond `updated_at` is written in, so that every change is seen as one.
    pub fn touch(&mut self, now: SystemTime) {
        let next = self.updated + std::time::Duration::from_millis(1);
        self.updated = now.max(next);
    }

    /// The published version.
    pub fn current(&self) -> &Version {
        &self.published
    }

    /// Every version, oldest first.
    pub fn versions(&self) -> impl DoubleEndedIterator<Item = &Version> {
        self.older.iter().chain(std::iter::once(&self.published))
    }

    /// The `/v2` template record: ids, times and the published version, its documents' keys
    /// in the order they were written.
    pub fn template_json(&self) -> agents_schema::Json {
        let current = self.current();
        ordered([
            ("id", json!(self.id).into()),
            ("name", json!(self.record.name).into()),
            ("created_at", json!(timestamp(self.created)).into()),
            ("updated_at", json!(timestamp(self.updated)).into()),
            ("published_version_id", json!(current.id).into()),
            ("published_version", current.json()),
        ])
    }
}

/// An object of `entries`, in their order.
pub(crate) fn ordered<const N: usize>(
    entries: [(&str, agents_schema::Json); N],
) -> agents_schema::Json {
    agents_schema::Json::Object(
        entries
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v))
            .collect(),
    )
}

impl Version {
    /// The `/v2` version record: the record's inputs and outputs as JSON Schema documents (as
    /// they were written, where they were) and its catalog facts as metadata.
    pub fn json(&self) -> agents_schema::Json {
        ordered([
            ("id", json!(self.id).into()),
            ("name", json!(self.record.name).into()),
            ("version_number", json!(self.number).into()),
            ("created_at", json!(timestamp(self.created)).into()),
            ("input_schema", json_schema::input_schema(&self.record)),
            ("output_schema", json_schema::output_schema(&self.record)),
            ("metadata", self.metadata().into()),
            (
                "samples",
                self.record
                    .extra
                    .get("samples")
                    .map_or(agents_schema::Json::Null, agents_schema::Json::from),
            ),
        ])
    }

    /// The record's catalog facts, with what a generation request asked for (`metadata`:
    /// display name, description, tags) over them.
    fn metadata(&self) -> Value {
        let mut out = json_schema::metadata(&self.record);
        if let (Some(out), Some(Value::Object(asked))) =
            (out.as_object_mut(), self.record.extra.get("metadata"))
        {
            for (k, v) in asked {
                if !v.is_null() {
                    out.insert(k.clone(), v.clone());
                }
            }
        }
        out
    }
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

/// Query of the `/v1` agent list.
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

/// When the public templates were published, as their records say (a fixed time, so every
/// instance answers the same for them).
fn published() -> SystemTime {
    // 2026-01-05T09:00:00Z
    SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_767_603_600)
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
                // Each problem names its own file of the directory, or the directory itself.
                Err(diags) => errors.extend(diags.0.into_iter().map(|mut d| {
                    LoadError {
                        file: d
                            .file
                            .take()
                            .as_deref()
                            .unwrap_or(dir)
                            .display()
                            .to_string(),
                        message: d.to_string(),
                    }
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
        let version = uuid::Uuid::new_v4().to_string();
        self.agents.insert(
            record.name.clone(),
            Entry::new(record, None, version, published()),
        );
    }

    /// Publishes a version of a private agent of `owner`: the first makes the agent, each
    /// later one (a refinement) is the next version of it.
    pub fn insert_private(
        &mut self,
        owner: &str,
        record: AgentRecord,
        version: String,
        now: SystemTime,
    ) {
        match self.agents.get_mut(&record.name) {
            Some(entry) if entry.owner.as_deref() == Some(owner) => {
                let record = Arc::new(record);
                let next = Version {
                    id: version,
                    number: entry.published.number + 1,
                    created: now,
                    record: record.clone(),
                };
                let before = std::mem::replace(&mut entry.published, next);
                entry.older.push(before);
                entry.record = record;
                entry.touch(now);
            }
            _ => {
                let name = record.name.clone();
                self.agents.insert(
                    name,
                    Entry::new(record, Some(owner.to_owned()), version, now),
                );
            }
        }
    }

    /// The agent `name` as `account` sees it, to change.
    pub fn get_mut(&mut self, account: &str, name: &str) -> Option<&mut Entry> {
        self.agents
            .get_mut(name)
            .filter(|e| e.owner.as_deref().is_none_or(|o| o == account))
    }

    /// Removes the agent `name`; what was removed.
    pub fn remove(&mut self, name: &str) -> Option<Entry> {
        self.agents.remove(name)
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
    /// naming the nearest agent names, in `version`'s words (`/v2` calls it a template).
    pub(crate) fn unknown(
        &self,
        account: &str,
        name: &str,
        status: StatusCode,
        version: ApiVersion,
    ) -> ApiError {
        let near = nearest_names(name, self.names(account));
        let noun = version.words().noun;
        let message = format!("unknown {noun} `{name}`{}", did_you_mean(&near));
        if status == StatusCode::NOT_FOUND {
            ApiError::not_found(message).at("agent")
        } else {
            ApiError::refused("agent", message)
        }
    }

    /// The agents visible to `account`, in name order.
    pub fn visible<'a>(&'a self, account: &'a str) -> impl Iterator<Item = &'a Entry> + 'a {
        self.agents
            .values()
            .filter(move |e| e.owner.as_deref().is_none_or(|o| o == account))
    }

    /// The `/v1` list: items visible to `account`, filtered and paged, in name order.
    pub fn list(&self, account: &str, q: &ListQuery) -> Result<Vec<Value>, ApiError> {
        let privacy = q.privacy.as_deref().unwrap_or("all");
        if !matches!(privacy, "all" | "public" | "private") {
            return Err(ApiError::refused(
                "privacy",
                format!("privacy must be all, public or private, not {privacy:?}"),
            ));
        }
        let offset = parse_count("offset", q.offset.as_deref(), 0)?;
        let limit = parse_page_size("limit", q.limit.as_deref(), 100)?;
        let search = q.search.as_deref().map(str::to_lowercase);
        let managed = q.managed_by.as_deref().map(|m| match m {
            "self_managed" => "self",
            other => other,
        });
        Ok(self
            .visible(account)
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
            ApiError::wrong_type(
                name,
                format!("{name} must be a non-negative integer, not {v:?}"),
            )
        }),
    }
}

/// A page size (`limit`, `per_page`): a count of at least 1, since a page of none with items
/// left is one a paginator never leaves.
pub(crate) fn parse_page_size(
    name: &str,
    value: Option<&str>,
    default: usize,
) -> Result<usize, ApiError> {
    match parse_count(name, value, default)? {
        0 => Err(ApiError::refused(
            name,
            format!("{name} must be at least 1: a page of none never reaches the end"),
        )),
        n => Ok(n),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bad_schemas_directory_names_each_file_once_and_a_missing_one_itself() {
        let dir =
            std::env::temp_dir().join(format!("agents-emulator-schemas-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("x.json"), "{").unwrap();
        let errors = Catalog::load(Some(&dir)).err().unwrap_or_default();
        std::fs::remove_dir_all(&dir).unwrap();
        let [only] = errors.as_slice() else {
            panic!("{} errors", errors.len());
        };
        assert_eq!(only.file, dir.join("x.json").display().to_string());
        assert!(
            only.message
                .starts_with("agent `x`: line 1, column 1: invalid JSON")
                && !only.message.contains("x.json"),
            "{}",
            only.message
        );

        let missing = dir.join("missing");
        let errors = Catalog::load(Some(&missing)).err().unwrap_or_default();
        assert_eq!(
            errors.iter().map(|e| e.file.clone()).collect::<Vec<_>>(),
            [missing.display().to_string()]
        );
    }
}
