//! Every endpoint of the service, once: its method, its path in each version of the interface,
//! and whether a call may be repeated ([`Idempotency`], which the client's retries follow). The client builds its URLs from these descriptions and the emulator routes by
//! them, so a path is written in this file and nowhere else.
//!
//! The service has two versions of its interface. `/v1` names an extraction agent an *agent*; `/v2` calls it
//! an *extract template* and gives the name *agent* to LLM research agents (`/v1`'s task
//! agents). Most endpoints exist in both, at different paths; a few exist in one only
//! ([`Endpoint::path`] answers `None` for the other).
//!
//! ```
//! use agents_wire::endpoint::{self, ApiVersion};
//!
//! assert_eq!(endpoint::TEMPLATE_RUN.path(ApiVersion::V1), Some("/v1/agents/run"));
//! assert_eq!(endpoint::TEMPLATE_RUN.path(ApiVersion::V2), Some("/v2/extract/templates/run"));
//! assert_eq!(
//!     endpoint::TASK_GET.url_path(ApiVersion::V2, &["a b"]).unwrap(),
//!     "v2/tasks/a%20b",
//! );
//! assert_eq!(endpoint::TEMPLATE_DELETE.path(ApiVersion::V1), None);
//! ```

use std::fmt;
use std::str::FromStr;

/// A version of the service's interface.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum ApiVersion {
    /// `/v1`: agents described by the agent record (`input_properties`, `output_schema` with
    /// descriptors), the interface this crate's generator reads.
    #[default]
    V1,
    /// `/v2`: extract templates described by JSON Schema and versioned; jobs, SERP, media and
    /// research agents beside them.
    V2,
}

impl ApiVersion {
    /// Both versions, oldest first.
    pub const ALL: [ApiVersion; 2] = [ApiVersion::V1, ApiVersion::V2];

    /// The version's name (`"v1"`), the first segment of every path of the version: the
    /// `name` row of [`crate::words`].
    pub fn as_str(self) -> &'static str {
        self.words().name
    }
}

impl fmt::Display for ApiVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A version name the table does not know.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown API version {0:?}: expected one of {known}", known = known_names())]
pub struct UnknownVersion(pub String);

fn known_names() -> String {
    let names: Vec<String> = ApiVersion::ALL
        .iter()
        .map(|v| format!("`{}`", v.as_str()))
        .collect();
    names.join(", ")
}

impl FromStr for ApiVersion {
    type Err = UnknownVersion;

    /// A version's name (`v2`), in any case, with or without a leading `/` or the `v`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let wanted = s.trim().trim_start_matches('/').to_ascii_lowercase();
        ApiVersion::ALL
            .into_iter()
            .find(|v| {
                let name = v.as_str();
                wanted == name || Some(wanted.as_str()) == name.strip_prefix('v')
            })
            .ok_or_else(|| UnknownVersion(s.to_owned()))
    }
}

/// An HTTP method of an endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Method {
    /// `GET`
    Get,
    /// `POST`
    Post,
    /// `PATCH`
    Patch,
    /// `DELETE`
    Delete,
}

impl Method {
    /// The method's name as sent on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Post => "POST",
            Method::Patch => "PATCH",
            Method::Delete => "DELETE",
        }
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One endpoint: what it does, its method, and its path in each version it exists in.
///
/// Paths are templates: `{name}` stands for a segment the caller fills, in order, with
/// [`Endpoint::url_path`]; the emulator hands the same templates to its router.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Endpoint {
    /// A stable name (`templates.run`), used in logs, errors and the emulator's route table.
    pub name: &'static str,
    /// The HTTP method.
    pub method: Method,
    /// The path in `/v1`, when the endpoint exists there.
    pub v1: Option<&'static str>,
    /// The path in `/v2`, when the endpoint exists there.
    pub v2: Option<&'static str>,
    /// The client's calls that use it (`Client::update_template`), for messages and the
    /// printed table (`cargo xtask endpoints`); empty for an alias no call sends.
    pub client: &'static str,
    /// Whether a call may be repeated, which decides its retries: by the method unless the
    /// table's row says otherwise.
    pub idempotency: Idempotency,
}

/// Whether a request may be repeated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Idempotency {
    /// Reads, and changes that repeat to the same end: repeating changes nothing.
    Safe,
    /// Agent runs and other changes: repeating costs a second run; retried on ambiguous
    /// failures only when the retry policy says so.
    Unsafe,
    /// Creations that count against a limit or start work (generations: 100 a day; batches,
    /// jobs, job runs): never repeated after an ambiguous failure.
    Once,
}

impl Idempotency {
    /// What a method is unless the table says otherwise: reads are safe, the rest unsafe.
    pub const fn of(method: Method) -> Idempotency {
        match method {
            Method::Get => Idempotency::Safe,
            Method::Post | Method::Patch | Method::Delete => Idempotency::Unsafe,
        }
    }
}

/// An endpoint asked for in a version that does not have it, or with the wrong number of
/// path segments.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PathError {
    /// The endpoint does not exist in the version.
    #[error(
        "{} does not exist in /{version}{}",
        what(call, endpoint, *method),
        where_else(*elsewhere, instead)
    )]
    NotInVersion {
        /// The client's calls that use the endpoint (empty when none does).
        call: &'static str,
        /// The endpoint's name.
        endpoint: &'static str,
        /// Its method.
        method: Method,
        /// The version asked for.
        version: ApiVersion,
        /// The version that has it, when one does.
        elsewhere: Option<ApiVersion>,
        /// What the caller may use instead in its own version (`Client::agent`), or empty.
        instead: &'static str,
    },
    /// The caller passed a different number of segments than the template has placeholders.
    #[error("`{endpoint}` takes {expected} path segment(s), {given} given")]
    Segments {
        /// The endpoint's name.
        endpoint: &'static str,
        /// Placeholders in the template.
        expected: usize,
        /// Segments passed.
        given: usize,
    },
}

impl Endpoint {
    const fn new(
        name: &'static str,
        method: Method,
        v1: Option<&'static str>,
        v2: Option<&'static str>,
        client: &'static str,
        idempotency: Idempotency,
    ) -> Self {
        Endpoint {
            name,
            method,
            v1,
            v2,
            client,
            idempotency,
        }
    }

    /// The path template in `version` (`/v2/tasks/{task_id}`), or `None` when the endpoint
    /// does not exist there.
    pub fn path(&self, version: ApiVersion) -> Option<&'static str> {
        match version {
            ApiVersion::V1 => self.v1,
            ApiVersion::V2 => self.v2,
        }
    }

    /// The versions the endpoint exists in.
    pub fn versions(&self) -> impl Iterator<Item = ApiVersion> + '_ {
        ApiVersion::ALL
            .into_iter()
            .filter(|g| self.path(*g).is_some())
    }

    /// The path relative to the service's base URL (no leading `/`), with each `{…}` of the
    /// template replaced by the next of `segments`, percent-encoded.
    pub fn url_path(&self, version: ApiVersion, segments: &[&str]) -> Result<String, PathError> {
        let template = self.path(version).ok_or_else(|| self.not_in(version))?;
        let expected = template.matches('{').count();
        if expected != segments.len() {
            return Err(PathError::Segments {
                endpoint: self.name,
                expected,
                given: segments.len(),
            });
        }
        let mut out = String::with_capacity(template.len() + 16);
        let mut next = segments.iter();
        let mut rest = template.trim_start_matches('/');
        while let Some(open) = rest.find('{') {
            out.push_str(&rest[..open]);
            let close = rest[open..].find('}').map_or(rest.len(), |c| open + c + 1);
            if let Some(segment) = next.next() {
                out.push_str(&percent_encode(segment));
            }
            rest = &rest[close..];
        }
        out.push_str(rest);
        Ok(out)
    }

    fn not_in(&self, version: ApiVersion) -> PathError {
        let mut has = self.versions();
        let elsewhere = match (has.next(), has.next()) {
            (Some(only), None) => Some(only),
            _ => None,
        };
        PathError::NotInVersion {
            call: self.client,
            endpoint: self.name,
            method: self.method,
            version,
            elsewhere,
            instead: "",
        }
    }
}

/// What a [`PathError::NotInVersion`] message names: the client's call first, the endpoint
/// after it.
fn what(call: &str, endpoint: &str, method: Method) -> String {
    if call.is_empty() {
        format!("`{endpoint}` ({method})")
    } else {
        format!("`{call}` (`{endpoint}`, {method})")
    }
}

/// The end of a [`PathError::NotInVersion`] message: how to reach the version that has the
/// endpoint, and what the caller's own version offers instead.
fn where_else(elsewhere: Option<ApiVersion>, instead: &str) -> String {
    let mut out = String::new();
    if let Some(v) = elsewhere {
        out.push_str(&format!(
            ": it is a /{v} endpoint; build the client with `.api_version(ApiVersion::{})` or set AGENTS_API_VERSION={v}",
            v.as_str().to_ascii_uppercase()
        ));
    }
    if !instead.is_empty() {
        out.push_str(&format!(", or use {instead}"));
    }
    out
}

/// Percent-encodes a path segment or query value: everything but ASCII letters, digits and
/// `-_.~`, so an id or name can never reach another path.
pub fn percent_encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Whether a `Content-Type` value is JSON (`application/json`, `…+json`, parameters ignored).
pub fn is_json_content_type(content_type: &str) -> bool {
    let essence = content_type
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    essence == "application/json" || essence.ends_with("+json")
}

use Method::{Delete, Get, Patch, Post};

macro_rules! endpoints {
    ($( $(#[$doc:meta])* $id:ident = $name:literal, $method:ident, $v1:expr, $v2:expr, $client:literal $(, $idem:ident)?; )*) => {
        $( $(#[$doc])* pub const $id: Endpoint = Endpoint::new(
            $name, $method, $v1, $v2, $client, endpoints!(@idem $method $(, $idem)?),
        ); )*
        /// Every endpoint, in the order of this file.
        pub const ALL: &[Endpoint] = &[$($id),*];
    };
    (@idem $method:ident) => { Idempotency::of($method) };
    (@idem $method:ident, $idem:ident) => { Idempotency::$idem };
}

endpoints! {
    // Extraction agents (/v1) = extract templates (/v2).
    /// Lists agents (`/v1`, a bare array) or extract templates (`/v2`, a page of items).
    TEMPLATE_LIST = "templates.list", Get, Some("/v1/agents"), Some("/v2/extract/templates"), "Client::agents, Client::templates";
    /// One agent's record (`/v1`) or template record with its published version (`/v2`).
    TEMPLATE_GET = "templates.get", Get, Some("/v1/agents/{name}"), Some("/v2/extract/templates/{name}"), "Client::agent, Client::template";
    /// Changes a template with a JSON Patch document.
    TEMPLATE_UPDATE = "templates.update", Patch, None, Some("/v2/extract/templates/{name}"), "Client::update_template";
    /// Deletes a template.
    TEMPLATE_DELETE = "templates.delete", Delete, None, Some("/v2/extract/templates/{name}"), "Client::delete_template";
    /// A template's versions.
    TEMPLATE_VERSIONS = "templates.versions", Get, None, Some("/v2/extract/templates/{name}/versions"), "Client::template_versions";
    /// One version of a template.
    TEMPLATE_VERSION = "templates.version", Get, None, Some("/v2/extract/templates/{name}/versions/{version_id}"), "Client::template_version";
    /// Runs an agent or template and waits for its result.
    TEMPLATE_RUN = "templates.run", Post, Some("/v1/agents/run"), Some("/v2/extract/templates/run"), "Client::run, Client::run_raw";
    /// Starts an agent or template run as a task.
    TEMPLATE_ASYNC = "templates.async", Post, Some("/v1/agents/async"), Some("/v2/extract/templates/async"), "Client::run_async, Client::run_async_raw";
    /// The singular spelling of `/v1/agents/async` the interface also lists.
    TEMPLATE_ASYNC_SINGULAR = "templates.async_singular", Post, Some("/v1/agent/async"), None, "";
    /// Starts a batch of agent or template runs.
    TEMPLATE_BATCH = "templates.batch", Post, Some("/v1/agents/batch"), Some("/v2/extract/templates/batch"), "Client::batch, Client::batch_raw", Once;
    /// Asks for a new agent or template (or a refinement) from a prompt.
    GENERATION_CREATE = "generations.create", Post, Some("/v1/agents/generations"), Some("/v2/extract/templates/generations"), "Client::generate_agent", Once;
    /// A generation's state.
    GENERATION_GET = "generations.get", Get, Some("/v1/agents/generations/{id}"), Some("/v2/extract/templates/generations/{id}"), "Client::generation";

    // Tasks and batches.
    /// Lists tasks.
    TASK_LIST = "tasks.list", Get, Some("/v1/tasks"), Some("/v2/tasks"), "Client::tasks";
    /// One task's record.
    TASK_GET = "tasks.get", Get, Some("/v1/tasks/{task_id}"), Some("/v2/tasks/{task_id}"), "Client::task";
    /// A finished task's result.
    TASK_RESULTS = "tasks.results", Get, Some("/v1/tasks/{task_id}/results"), Some("/v2/tasks/{task_id}/results"), "Client::task_result, Client::task_output";
    /// Lists batches.
    BATCH_LIST = "batches.list", Get, Some("/v1/batches"), Some("/v2/batches"), "Client::batches";
    /// One batch with its tasks.
    BATCH_GET = "batches.get", Get, Some("/v1/batches/{batch_id}"), Some("/v2/batches/{batch_id}"), "Client::batch_details";
    /// How far a batch is.
    BATCH_PROGRESS = "batches.progress", Get, Some("/v1/batches/{batch_id}/progress"), Some("/v2/batches/{batch_id}/progress"), "BatchHandle::progress";

    // Extract, search, map, crawl.
    /// Extracts one URL.
    EXTRACT_RUN = "extract.run", Post, Some("/v1/extract"), Some("/v2/extract"), "Client::extract";
    /// Extracts one URL as a task.
    EXTRACT_ASYNC = "extract.async", Post, Some("/v1/extract/async"), Some("/v2/extract/async"), "Client::extract_async";
    /// Extracts many URLs as a batch.
    EXTRACT_BATCH = "extract.batch", Post, Some("/v1/extract/batch"), Some("/v2/extract/batch"), "Client::extract_batch", Once;
    /// Searches the web.
    SEARCH_RUN = "search.run", Post, Some("/v1/search"), Some("/v2/search"), "Client::search";
    /// Searches the web as a task.
    SEARCH_ASYNC = "search.async", Post, Some("/v1/search/async"), None, "Client::search_async";
    /// Lists a site's URLs.
    MAP_RUN = "map.run", Post, Some("/v1/map"), Some("/v2/map"), "Client::map";
    /// Lists a site's URLs as a task.
    MAP_ASYNC = "map.async", Post, Some("/v1/map/async"), None, "Client::map_async";
    /// Starts a crawl.
    CRAWL_START = "crawl.start", Post, Some("/v1/crawl"), Some("/v2/crawl"), "Client::crawl";
    /// Lists crawls.
    CRAWL_LIST = "crawl.list", Get, Some("/v1/crawl"), Some("/v2/crawl"), "Client::crawls";
    /// One crawl's state.
    CRAWL_GET = "crawl.get", Get, Some("/v1/crawl/{id}"), Some("/v2/crawl/{id}"), "CrawlHandle::record";
    /// Stops a crawl.
    CRAWL_CANCEL = "crawl.cancel", Delete, Some("/v1/crawl/{id}"), Some("/v2/crawl/{id}"), "CrawlHandle::terminate", Safe;

    // SERP, fast SERP, media, domain knowledge.
    /// Runs a search engine results page request.
    SERP_RUN = "serp.run", Post, Some("/v1/serp"), Some("/v2/serp"), "Client::serp";
    /// Runs a SERP request as a task.
    SERP_ASYNC = "serp.async", Post, Some("/v1/serp/async"), Some("/v2/serp/async"), "Client::serp_async";
    /// Runs SERP requests as a batch.
    SERP_BATCH = "serp.batch", Post, Some("/v1/serp/batch"), Some("/v2/serp/batch"), "Client::serp_batch", Once;
    /// Runs a SERP request on the fast path.
    FAST_SERP_RUN = "fast_serp.run", Post, Some("/v1/fast-serp"), Some("/v2/fast-serp"), "Client::fast_serp";
    /// Downloads a media file.
    MEDIA_RUN = "media.run", Post, Some("/v1/media"), Some("/v2/media"), "Client::media";
    /// Downloads a media file as a task.
    MEDIA_ASYNC = "media.async", Post, Some("/v1/media/async"), Some("/v2/media/async"), "Client::media_async";
    /// What the service knows about how to fetch a domain or what an agent runs on.
    DOMAIN_DRIVER = "domain_knowledge.driver", Get, Some("/v1/domain-knowledge/driver"), Some("/v2/domain-knowledge/driver"), "Client::domain_driver";

    // Jobs: stored runs of a template over inputs, on a schedule or on demand.
    /// Creates a job.
    JOB_CREATE = "jobs.create", Post, Some("/v1/jobs"), Some("/v2/jobs"), "Client::create_job", Once;
    /// Lists jobs.
    JOB_LIST = "jobs.list", Get, Some("/v1/jobs"), Some("/v2/jobs"), "Client::jobs";
    /// One job.
    JOB_GET = "jobs.get", Get, Some("/v1/jobs/{job_id}"), Some("/v2/jobs/{job_id}"), "Client::job";
    /// Changes a job.
    JOB_UPDATE = "jobs.update", Patch, Some("/v1/jobs/{job_id}"), Some("/v2/jobs/{job_id}"), "Client::update_job";
    /// Deletes a job.
    JOB_DELETE = "jobs.delete", Delete, Some("/v1/jobs/{job_id}"), Some("/v2/jobs/{job_id}"), "Client::delete_job";
    /// Runs a job now.
    JOB_TRIGGER = "jobs.trigger", Post, Some("/v1/jobs/{job_id}/runs"), Some("/v2/jobs/{job_id}/runs"), "Client::trigger_job", Once;
    /// Lists a job's runs.
    JOB_RUNS = "jobs.runs", Get, Some("/v1/jobs/{job_id}/runs"), Some("/v2/jobs/{job_id}/runs"), "Client::job_runs";
    /// One job run.
    JOB_RUN_GET = "jobs.run", Get, Some("/v1/jobs/runs/{run_id}"), Some("/v2/jobs/runs/{run_id}"), "Client::job_run, JobRunHandle::wait";
    /// Cancels a job run.
    JOB_RUN_CANCEL = "jobs.run.cancel", Post, Some("/v1/jobs/runs/{run_id}/cancel"), Some("/v2/jobs/runs/{run_id}/cancel"), "Client::cancel_job_run";
    /// A job run's artifacts.
    JOB_ARTIFACTS = "jobs.artifacts", Get, Some("/v1/jobs/runs/{run_id}/artifacts"), Some("/v2/jobs/runs/{run_id}/artifacts"), "Client::artifacts";
    /// One artifact.
    JOB_ARTIFACT = "jobs.artifact", Get, Some("/v1/jobs/runs/{run_id}/artifacts/{artifact_id}"), Some("/v2/jobs/runs/{run_id}/artifacts/{artifact_id}"), "Client::artifact";
    /// A short-lived URL to download an artifact.
    JOB_ARTIFACT_URL = "jobs.artifact.download_url", Get, Some("/v1/jobs/runs/{run_id}/artifacts/{artifact_id}/download-url"), Some("/v2/jobs/runs/{run_id}/artifacts/{artifact_id}/download-url"), "Client::artifact_download_url, Client::download_artifact";
    /// The first rows of an artifact.
    JOB_ARTIFACT_PREVIEW = "jobs.artifact.preview", Get, Some("/v1/jobs/runs/{run_id}/artifacts/{artifact_id}/preview"), Some("/v2/jobs/runs/{run_id}/artifacts/{artifact_id}/preview"), "Client::artifact_preview";

    // Research agents (/v2 agents = /v1 task agents).
    /// Creates a research agent.
    RESEARCH_AGENT_CREATE = "research.agents.create", Post, Some("/v1/task-agents"), Some("/v2/agents"), "Client::create_research_agent";
    /// Lists research agents.
    RESEARCH_AGENT_LIST = "research.agents.list", Get, Some("/v1/task-agents"), Some("/v2/agents"), "Client::research_agents";
    /// One research agent.
    RESEARCH_AGENT_GET = "research.agents.get", Get, Some("/v1/task-agents/{agent_id}"), Some("/v2/agents/{agent_id}"), "Client::research_agent";
    /// Changes a research agent with a JSON Patch document.
    RESEARCH_AGENT_UPDATE = "research.agents.update", Patch, Some("/v1/task-agents/{agent_id}"), Some("/v2/agents/{agent_id}"), "Client::update_research_agent";
    /// Deactivates a research agent.
    RESEARCH_AGENT_DELETE = "research.agents.delete", Delete, Some("/v1/task-agents/{agent_id}"), Some("/v2/agents/{agent_id}"), "Client::deactivate_research_agent", Safe;
    /// Starts a run by agent name, creating or reusing the agent.
    RESEARCH_RUN_BY_NAME = "research.runs.start_by_name", Post, None, Some("/v2/agents/runs"), "Client::start_research_by_name";
    /// Starts a run of an agent.
    RESEARCH_RUN_START = "research.runs.start", Post, Some("/v1/task-agents/{agent_id}/runs"), Some("/v2/agents/{agent_id}/runs"), "Client::start_research";
    /// Lists an agent's runs.
    RESEARCH_RUN_LIST = "research.runs.list", Get, Some("/v1/task-agents/{agent_id}/runs"), Some("/v2/agents/{agent_id}/runs"), "Client::research_runs";
    /// One run.
    RESEARCH_RUN_GET = "research.runs.get", Get, Some("/v1/task-agents/{agent_id}/runs/{run_id}"), Some("/v2/agents/{agent_id}/runs/{run_id}"), "Client::research_run, ResearchRunHandle::wait";
    /// A finished run's answer.
    RESEARCH_RUN_RESULT = "research.runs.result", Get, Some("/v1/task-agents/{agent_id}/runs/{run_id}/result"), Some("/v2/agents/{agent_id}/runs/{run_id}/result"), "Client::research_result, ResearchRunHandle::answer";
    /// A run's progress as server-sent events.
    RESEARCH_RUN_EVENTS = "research.runs.events", Get, Some("/v1/task-agents/{agent_id}/runs/{run_id}/events"), Some("/v2/agents/{agent_id}/runs/{run_id}/events"), "ResearchRunHandle::events";
    /// Lists research agent templates.
    RESEARCH_TEMPLATE_LIST = "research.templates.list", Get, Some("/v1/task-agents/templates"), Some("/v2/agents/templates"), "Client::research_templates";
    /// One research agent template.
    RESEARCH_TEMPLATE_GET = "research.templates.get", Get, Some("/v1/task-agents/templates/{template_name}"), Some("/v2/agents/templates/{template_name}"), "Client::research_template";
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn reads_are_safe_and_what_starts_limited_work_is_tried_once() {
        for e in ALL.iter().filter(|e| e.method == Method::Get) {
            assert_eq!(e.idempotency, Idempotency::Safe, "{}", e.name);
        }
        let once: Vec<&str> = ALL
            .iter()
            .filter(|e| e.idempotency == Idempotency::Once)
            .map(|e| e.name)
            .collect();
        assert_eq!(
            once,
            [
                "templates.batch",
                "generations.create",
                "extract.batch",
                "serp.batch",
                "jobs.create",
                "jobs.trigger"
            ]
        );
    }

    #[test]
    fn names_and_routes_are_unique() {
        let mut names = HashSet::new();
        let mut routes = HashSet::new();
        for e in ALL {
            assert!(names.insert(e.name), "name {} twice", e.name);
            assert!(e.v1.is_some() || e.v2.is_some(), "{} has no path", e.name);
            for g in e.versions() {
                let path = e.path(g).unwrap();
                assert!(path.starts_with(&format!("/{g}/")), "{} {path}", e.name);
                assert!(routes.insert((e.method, path)), "{} {path} twice", e.method);
            }
        }
    }

    #[test]
    fn url_paths_fill_and_encode_segments() {
        assert_eq!(
            JOB_ARTIFACT_URL
                .url_path(ApiVersion::V1, &["r/1", "a?2"])
                .unwrap(),
            "v1/jobs/runs/r%2F1/artifacts/a%3F2/download-url"
        );
        assert_eq!(
            TEMPLATE_RUN.url_path(ApiVersion::V2, &[]).unwrap(),
            "v2/extract/templates/run"
        );
        let err = TASK_GET.url_path(ApiVersion::V1, &[]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "`tasks.get` takes 1 path segment(s), 0 given"
        );
        let err = TEMPLATE_VERSIONS
            .url_path(ApiVersion::V1, &["x"])
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "`Client::template_versions` (`templates.versions`, GET) does not exist in /v1: it is a /v2 endpoint; build the client with `.api_version(ApiVersion::V2)` or set AGENTS_API_VERSION=v2"
        );
    }

    #[test]
    fn versions_parse() {
        assert_eq!("V2".parse::<ApiVersion>(), Ok(ApiVersion::V2));
        assert_eq!("/v1".parse::<ApiVersion>(), Ok(ApiVersion::V1));
        assert!("v3".parse::<ApiVersion>().is_err());
    }
}
