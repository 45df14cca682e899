//! Where schema data comes from: the one function ([`locate`]) that the `agent!` macro and
//! build scripts share, like sqlx's offline mode.
//!
//! 1. `AGENTS_SCHEMA_DIR` when set (relative to the package root when relative), and only it;
//! 2. else `schemas/` under the package root (`CARGO_MANIFEST_DIR`), then every `schemas/` in a
//!    directory above it (the workspace root): the first that holds `NAME.json` is used, so a
//!    package's own `schemas/` adds agents without hiding the workspace's.
//!
//! With `AGENTS_OFFLINE=false` and `AGENTS_API_KEY` set, the record is first fetched from
//! `GET {AGENTS_BASE_URL}/v1/agents/{name}` and written into that directory (feature `live`,
//! a small blocking client; without the feature this is an error that says so).

use std::path::{Path, PathBuf};

use agents_schema::diag::Diagnostics;

use crate::source::write_if_changed;
use agents_schema::files::{Loaded, load_file, schema_files};

/// Environment variable naming the schema directory.
pub const ENV_SCHEMA_DIR: &str = "AGENTS_SCHEMA_DIR";
/// `AGENTS_OFFLINE=false` allows fetching records from the live API while building.
pub const ENV_OFFLINE: &str = "AGENTS_OFFLINE";
/// The API key for live fetches.
pub const ENV_API_KEY: &str = "AGENTS_API_KEY";
/// The base URL for live fetches.
pub const ENV_BASE_URL: &str = "AGENTS_BASE_URL";
/// Every environment variable [`locate`] reads (build scripts print `rerun-if-env-changed`).
pub const ENV_VARS: [&str; 4] = [ENV_SCHEMA_DIR, ENV_OFFLINE, ENV_API_KEY, ENV_BASE_URL];

/// Why a schema could not be found or read. Every message says how to fix it.
#[derive(Debug, thiserror::Error)]
pub enum LocateError {
    /// No schema directory exists.
    #[error(
        "no schema directory for agent `{name}`: looked in {}{}; create `schemas/` with `cargo agents fetch {name}`, or set {ENV_SCHEMA_DIR}",
        .searched.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", "),
        agents_schema::did_you_mean(.nearest)
    )]
    NoSchemaDir {
        /// The agent asked for.
        name: String,
        /// The places looked at.
        searched: Vec<PathBuf>,
        /// The closest catalog names.
        nearest: Vec<String>,
    },
    /// The agent is in the catalog, whose bindings ship with the runtime, and no schema file of
    /// it was found.
    #[error(
        "`{name}` is a catalog agent: its bindings ship with agents_runtime as \
         `agents_runtime::catalog::{type_name}` (inputs: `agents_runtime::catalog::{type_name}Params`); \
         use those instead of agent!(\"{name}\"), or put a record of your own in schemas/{name}.json"
    )]
    InCatalog {
        /// The agent asked for.
        name: String,
        /// Its record type in `agents_runtime::catalog`.
        type_name: String,
    },
    /// The directory has no record of this agent.
    #[error(
        "no cached schema for agent `{name}` in {}{}; fetch it with `cargo agents fetch {name}`, or build with {ENV_OFFLINE}=false and {ENV_API_KEY} set",
        .searched.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", "),
        agents_schema::did_you_mean(.nearest)
    )]
    UnknownAgent {
        /// The agent asked for.
        name: String,
        /// The directories searched, in order.
        searched: Vec<PathBuf>,
        /// The closest cached names.
        nearest: Vec<String>,
    },
    /// The cached record is invalid.
    #[error("{0}")]
    Invalid(Diagnostics),
    /// A live fetch failed.
    #[error(
        "fetching agent `{name}` from {url} failed: {message}; to build offline, unset {ENV_OFFLINE} (or set it to true) and use the cached schema in schemas/"
    )]
    Fetch {
        /// The agent asked for.
        name: String,
        /// The URL fetched (never with the key).
        url: String,
        /// What went wrong (status and body, or transport error).
        message: String,
    },
}

/// How the schema directory was chosen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaDir {
    /// The directory.
    pub path: PathBuf,
    /// Why this one: `AGENTS_SCHEMA_DIR`, `package` or `workspace`.
    pub reason: &'static str,
}

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

/// Chooses the schema directory for a package rooted at `manifest_dir`.
pub fn schema_dir(manifest_dir: &Path) -> Result<SchemaDir, Vec<PathBuf>> {
    if let Some(dir) = env(ENV_SCHEMA_DIR) {
        let dir = PathBuf::from(dir);
        let path = if dir.is_relative() {
            manifest_dir.join(dir)
        } else {
            dir
        };
        return Ok(SchemaDir {
            path,
            reason: ENV_SCHEMA_DIR,
        });
    }
    let mut searched = Vec::new();
    for (i, dir) in manifest_dir.ancestors().enumerate() {
        let candidate = dir.join("schemas");
        if candidate.is_dir() {
            return Ok(SchemaDir {
                path: candidate,
                reason: if i == 0 { "package" } else { "workspace" },
            });
        }
        searched.push(candidate);
    }
    Err(searched)
}

/// Whether the environment asks for live fetches (`AGENTS_OFFLINE=false` and a key).
pub fn live_requested() -> bool {
    env(ENV_OFFLINE).is_some_and(|v| v.eq_ignore_ascii_case("false") || v == "0")
        && env(ENV_API_KEY).is_some()
}

/// Every existing schema directory for a package rooted at `manifest_dir`, in search order:
/// `AGENTS_SCHEMA_DIR` alone when set, else the package's `schemas/` and those above it.
fn schema_dirs(manifest_dir: &Path) -> Vec<PathBuf> {
    match schema_dir(manifest_dir) {
        Ok(d) if d.reason == ENV_SCHEMA_DIR => vec![d.path],
        _ => manifest_dir
            .ancestors()
            .map(|dir| dir.join("schemas"))
            .filter(|d| d.is_dir())
            .collect(),
    }
}

/// Finds, and if asked fetches, the record of agent `name` for the package at `manifest_dir`.
pub fn locate(name: &str, manifest_dir: &Path) -> Result<Loaded, LocateError> {
    let file_name = format!("{name}.json");
    let dirs = schema_dirs(manifest_dir);
    if live_requested() {
        // A live fetch writes into the first directory searched (creating the package's).
        let dir = dirs
            .first()
            .cloned()
            .unwrap_or_else(|| manifest_dir.join("schemas"));
        let file = dir.join(&file_name);
        let base = env(ENV_BASE_URL).unwrap_or_default();
        let key = env(ENV_API_KEY).unwrap_or_default();
        let body = fetch_record(&base, &key, name)?;
        std::fs::create_dir_all(&dir)
            .and_then(|()| write_if_changed(&file, &body).map(|_| ()))
            .map_err(|e| LocateError::Fetch {
                name: name.to_owned(),
                url: base.clone(),
                message: format!("cannot write {}: {e}", file.display()),
            })?;
        return load_file(&file).map_err(LocateError::Invalid);
    }
    if let Some(file) = dirs
        .iter()
        .find_map(|d| agents_schema::files::schema_file(d, name))
    {
        return load_file(&file).map_err(LocateError::Invalid);
    }
    if let Some(type_name) = crate::catalog::type_name(name) {
        return Err(LocateError::InCatalog {
            name: name.to_owned(),
            type_name: type_name.to_owned(),
        });
    }
    // Near names among the cached schemas and the catalog's.
    let mut names: Vec<String> = dirs
        .iter()
        .flat_map(|d| schema_files(d).unwrap_or_default())
        .filter_map(|p| agents_schema::files::agent_name(&p))
        .collect();
    names.extend(crate::catalog::CATALOG.iter().map(|(n, _)| (*n).to_owned()));
    names.sort();
    names.dedup();
    let nearest: Vec<String> = agents_schema::nearest_names(name, names.iter().map(String::as_str))
        .into_iter()
        .map(str::to_owned)
        .collect();
    if dirs.is_empty() {
        let searched = match schema_dir(manifest_dir) {
            Ok(d) => vec![d.path],
            Err(searched) => searched,
        };
        return Err(LocateError::NoSchemaDir {
            name: name.to_owned(),
            searched,
            nearest,
        });
    }
    Err(LocateError::UnknownAgent {
        name: name.to_owned(),
        searched: dirs,
        nearest,
    })
}

/// Where an agent's record is read: the `/v1` agent record endpoint of the table, under `base`
/// (which may already end in the version).
fn record_url(base: &str, name: &str) -> String {
    let version = agents_wire::ApiVersion::V1;
    let base = base.trim_end_matches('/');
    let base = base
        .strip_suffix(version.as_str())
        .and_then(|b| b.strip_suffix('/'))
        .unwrap_or(base);
    match agents_wire::endpoint::TEMPLATE_GET.url_path(version, &[name]) {
        Ok(path) => format!("{base}/{path}"),
        // The table has the endpoint in this version; should it lose it, the URL says so.
        Err(e) => format!("{base} ({e})"),
    }
}

/// The agent record endpoint with a small blocking client; the body as text.
#[cfg(feature = "live")]
pub fn fetch_record(base: &str, key: &str, name: &str) -> Result<String, LocateError> {
    let url = record_url(base, name);
    let base = base.trim_end_matches('/');
    let fail = |message: String| LocateError::Fetch {
        name: name.to_owned(),
        url: url.clone(),
        message,
    };
    if base.is_empty() {
        return Err(fail(format!("{ENV_BASE_URL} is not set")));
    }
    let agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(std::time::Duration::from_secs(30)))
        .build()
        .new_agent();
    let mut resp = agent
        .get(&url)
        .header("Authorization", &format!("Bearer {key}"))
        .call()
        .map_err(|e| fail(e.to_string()))?;
    let status = resp.status().as_u16();
    let body = resp
        .body_mut()
        .read_to_string()
        .map_err(|e| fail(format!("cannot read the body: {e}")))?;
    if status != 200 {
        let snippet: String = body.chars().take(300).collect();
        return Err(fail(format!("HTTP {status}: {snippet}")));
    }
    Ok(body)
}

/// Without the `live` feature, live fetches are refused with a message that says so.
#[cfg(not(feature = "live"))]
pub fn fetch_record(base: &str, _key: &str, name: &str) -> Result<String, LocateError> {
    Err(LocateError::Fetch {
        name: name.to_owned(),
        url: record_url(base, name),
        message: "agents-codegen was built without the `live` feature".to_owned(),
    })
}
