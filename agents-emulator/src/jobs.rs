//! Jobs: a template run over stored inputs, on a cron schedule or on demand, writing its
//! results as artifacts (JSON lines, CSV or Parquet) that are previewed and downloaded through
//! short-lived URLs the emulator serves.
//!
//! State follows the clock, as tasks do: a run's status is computed from when it was made, and
//! the runs a schedule owes are made when anyone next looks at jobs (`settle`), on a schedule
//! clock that `Lifecycle::schedule_speed` runs faster than real time (`--fast`: 600×, so a
//! job due every minute runs every 100 ms). Results are recomputed from the stored inputs when
//! an artifact is read, never kept.

use std::str::FromStr as _;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use agents_runtime::endpoint::ApiVersion;
use agents_schema::Json as Written;
use axum::body::Body;
use axum::extract::State as AxState;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use chrono::{DateTime, Utc};
use serde_json::{Map, Value, json};

use agents_runtime::words::Paging;

use crate::catalog::{parse_count, parse_page_size};
use crate::error::ApiError;
pub(crate) use crate::job_model::Jobs;
use crate::job_model::{
    ERRORS_ARTIFACT, HORIZON_DAYS, Job, MAX_RUNS_PER_JOB, Row, Run, RunInputs, Schedule, next_run,
};
use crate::params::kind;
use crate::request::{ApiBytes, ApiJson, ApiPath, ApiQuery, Ctx, optional_str, required_str};
use crate::state::{State, lock};
use crate::wire::timestamp;

type Shared = Arc<State>;

/// Most inline inputs one job holds.
pub const MAX_INPUTS: usize = 1_000;
/// Runs a schedule may make in one look at the clock (a long pause does not make thousands).
const MAX_CATCH_UP: usize = 20;
/// Rows an artifact preview shows.
const PREVIEW_ROWS: usize = 10;
/// How long a download URL works.
const URL_LIFETIME: Duration = Duration::from_secs(15 * 60);
/// Download URLs kept at once; the oldest is forgotten first.
const MAX_URLS: usize = 10_000;

// ---------------------------------------------------------------------------------------------
// Checking request fields

fn object<'a>(
    body: &'a Map<String, Value>,
    field: &str,
) -> Result<Option<&'a Map<String, Value>>, ApiError> {
    match body.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Object(m)) => Ok(Some(m)),
        Some(other) => Err(ApiError::wrong_type(
            field,
            format!("{field} must be an object, not {}", kind(other)),
        )),
    }
}

fn one_of_at(
    m: &Map<String, Value>,
    at: &str,
    field: &str,
    allowed: &[&str],
) -> Result<(), ApiError> {
    match m.get(field) {
        None | Some(Value::Null) => Ok(()),
        Some(Value::String(s)) if allowed.contains(&s.as_str()) => Ok(()),
        Some(other) => Err(ApiError::refused(
            format!("{at}.{field}"),
            format!(
                "{at}.{field} must be one of {}, not {other}",
                allowed.join(", ")
            ),
        )),
    }
}

fn destination(body: &Map<String, Value>) -> Result<Option<Map<String, Value>>, ApiError> {
    let Some(d) = object(body, "destination")? else {
        return Ok(None);
    };
    required_str(d, "path").map_err(|e| e.at("destination.path"))?;
    required_str(d, "type").map_err(|e| e.at("destination.type"))?;
    one_of_at(d, "destination", "type", &["file", "s3"])?;
    if d.get("format").and_then(Value::as_str) == Some("parquet")
        && !crate::artifact::FORMATS.contains(&"parquet")
    {
        return Err(ApiError::refused(
            "destination.format",
            "this emulator was built without Parquet artifacts (its `parquet` feature)",
        ));
    }
    one_of_at(d, "destination", "format", &["jsonl", "csv", "parquet"])?;
    Ok(Some(d.clone()))
}

fn inputs(body: &Map<String, Value>) -> Result<Option<Map<String, Value>>, ApiError> {
    let Some(i) = object(body, "inputs")? else {
        return Ok(None);
    };
    required_str(i, "type").map_err(|e| e.at("inputs.type"))?;
    one_of_at(i, "inputs", "type", &["s3", "inline", "file"])?;
    match i.get("data") {
        None | Some(Value::Null) => {}
        Some(Value::Array(rows)) => {
            if rows.len() > MAX_INPUTS {
                return Err(ApiError::refused(
                    "inputs.data",
                    format!(
                        "a job holds at most {MAX_INPUTS} inline inputs, not {}",
                        rows.len()
                    ),
                ));
            }
            if let Some(bad) = rows.iter().position(|r| !r.is_object()) {
                return Err(ApiError::refused(
                    format!("inputs.data[{bad}]"),
                    "each inline input is an object of params",
                ));
            }
        }
        Some(other) => {
            return Err(ApiError::wrong_type(
                "inputs.data",
                format!("inputs.data must be a list of objects, not {}", kind(other)),
            ));
        }
    }
    Ok(Some(i.clone()))
}

fn schedule(body: &Map<String, Value>, now: DateTime<Utc>) -> Result<Option<Schedule>, ApiError> {
    let Some(s) = object(body, "schedule")? else {
        return Ok(None);
    };
    let text = required_str(s, "cron").map_err(|e| e.at("schedule.cron"))?;
    let enabled = match s.get("enabled") {
        Some(Value::Bool(b)) => *b,
        None | Some(Value::Null) => {
            return Err(ApiError::missing(
                "schedule.enabled",
                "missing required field `schedule.enabled`",
            ));
        }
        Some(other) => {
            return Err(ApiError::wrong_type(
                "schedule.enabled",
                format!("schedule.enabled must be a boolean, not {}", kind(other)),
            ));
        }
    };
    let cron = croner::Cron::from_str(text).map_err(|e| {
        ApiError::refused(
            "schedule.cron",
            format!("{text:?} is not a cron expression: {e}"),
        )
    })?;
    let Some(first) = next_run(&cron, now) else {
        return Err(ApiError::refused(
            "schedule.cron",
            format!(
                "{text:?} never fires: it has no run in the next {} years",
                HORIZON_DAYS / 366
            ),
        ));
    };
    Ok(Some(Schedule {
        text: text.to_owned(),
        enabled,
        cron,
        next: enabled.then_some(first),
    }))
}

// ---------------------------------------------------------------------------------------------
// The schedule clock

impl State {
    /// Now on the schedule clock: wall time when the emulator started, plus real time since
    /// then times `schedule_speed`.
    fn schedule_now(&self, now: Instant) -> DateTime<Utc> {
        let (start_at, start_wall) = self.started;
        let speed = self.config.lifecycle.schedule_speed.max(1);
        let elapsed = now
            .saturating_duration_since(start_at)
            .saturating_mul(speed);
        DateTime::<Utc>::from(start_wall.checked_add(elapsed).unwrap_or(start_wall))
    }

    /// The real instant of a point on the schedule clock.
    fn schedule_instant(&self, at: DateTime<Utc>) -> Instant {
        let (start_at, start_wall) = self.started;
        let speed = self.config.lifecycle.schedule_speed.max(1);
        let since = SystemTime::from(at)
            .duration_since(start_wall)
            .unwrap_or_default();
        start_at + since / speed
    }

    /// The jobs, locked, with every run the schedules owe made, and the instant that was.
    fn jobs_now(&self) -> (std::sync::MutexGuard<'_, Jobs>, Instant) {
        let now = self.clock.now();
        let mut jobs = lock(&self.jobs);
        self.settle_jobs(&mut jobs, now);
        (jobs, now)
    }

    /// Makes the runs every enabled schedule owes up to now (at most [`MAX_CATCH_UP`] per job
    /// per look; the rest of a long pause is skipped). Each schedule knows its next run, so a
    /// look costs one comparison per job, and a new next run is computed (bounded, in
    /// [`next_run`]) only when a run is made.
    fn settle_jobs(&self, jobs: &mut Jobs, now: Instant) {
        let sched_now = self.schedule_now(now);
        let due: Vec<(String, Vec<DateTime<Utc>>)> = jobs
            .jobs
            .values_mut()
            .filter_map(|job| {
                let s = job.schedule.as_mut()?;
                let mut times = Vec::new();
                while let Some(at) = s.next.filter(|at| *at <= sched_now) {
                    if times.len() == MAX_CATCH_UP {
                        s.next = next_run(&s.cron, sched_now);
                        break;
                    }
                    times.push(at);
                    s.next = next_run(&s.cron, at);
                }
                (!times.is_empty()).then(|| (job.id.clone(), times))
            })
            .collect();
        for (job_id, times) in due {
            for at in times {
                let created_at = self.schedule_instant(at).min(now);
                self.new_run(jobs, &job_id, true, None, created_at);
            }
        }
    }

    /// Makes a run of a job; its status follows the clock from `created_at`.
    fn new_run(
        &self,
        jobs: &mut Jobs,
        job_id: &str,
        scheduled: bool,
        inputs_override: Option<Map<String, Value>>,
        created_at: Instant,
    ) -> Option<String> {
        let job = jobs.jobs.get(job_id)?;
        let (account, template) = (job.account.clone(), job.template.clone());
        let format = job
            .destination
            .as_ref()
            .and_then(|d| d.get("format"))
            .and_then(Value::as_str)
            .unwrap_or("jsonl")
            .to_owned();
        let source = inputs_override.map(Arc::new).or_else(|| job.inputs.clone());
        let record = self
            .catalog
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(&account, &template)
            .map(|e| e.record.clone());
        let mut failure = match source.as_deref() {
            None => Some(("inputs".to_owned(), "the job has no inputs".to_owned())),
            Some(i) if i.get("type").and_then(Value::as_str) != Some("inline") => Some((
                "inputs".to_owned(),
                "the emulator reads inline inputs only; s3 and file inputs are not fetched"
                    .to_owned(),
            )),
            Some(_) => None,
        };
        let inputs = RunInputs(source.filter(|_| failure.is_none()));
        if record.is_none() {
            failure = Some((
                "template".to_owned(),
                format!("template `{template}` no longer exists"),
            ));
        }
        let lifecycle = self.config.lifecycle;
        let starts_at = created_at + lifecycle.task / 2;
        let ends_at = starts_at + lifecycle.task + lifecycle.task * (inputs.len() as u32 / 100);
        let id = uuid::Uuid::new_v4().to_string();
        let now = self.clock.now();
        let created = self.clock.wall() - now.saturating_duration_since(created_at);
        // The oldest runs past the job's allowance are forgotten (with their download URLs).
        let mut mine: Vec<(Instant, String)> = jobs
            .runs
            .values()
            .filter(|r| r.job_id == job_id)
            .map(|r| (r.created_at, r.id.clone()))
            .collect();
        if mine.len() >= MAX_RUNS_PER_JOB {
            mine.sort();
            let drop = mine.len() + 1 - MAX_RUNS_PER_JOB;
            for (_, old) in mine.into_iter().take(drop) {
                jobs.runs.remove(&old);
                jobs.urls.retain(|_, (run, _, _)| *run != old);
            }
        }
        jobs.runs.insert(
            id.clone(),
            Run {
                id: id.clone(),
                job_id: job_id.to_owned(),
                account,
                scheduled,
                created,
                created_at,
                starts_at,
                ends_at,
                cancelled_at: None,
                record,
                format,
                inputs,
                failure,
                counts: Default::default(),
            },
        );
        Some(id)
    }
}

// ---------------------------------------------------------------------------------------------
// Handlers

/// A `/v2` page (`limit`/`offset`) or a `/v1` page (`page`/`per_page`) of `items`.
fn page(version: ApiVersion, q: &PageQuery, items: Vec<Value>) -> Result<Value, ApiError> {
    page_with(version, q, items, |v| v)
}

/// A page of `items`, each described by `describe` only if it is on the page.
fn page_with<T>(
    version: ApiVersion,
    q: &PageQuery,
    items: Vec<T>,
    describe: impl FnMut(T) -> Value,
) -> Result<Value, ApiError> {
    let total = items.len();
    match version.words().paging {
        Paging::Offset => Ok(json!(offset_page(q, items, describe)?)),
        Paging::Numbered => {
            let page = parse_count("page", q.page.as_deref(), 1)?.max(1);
            let per_page = parse_page_size("per_page", q.per_page.as_deref(), 50)?;
            let items: Vec<Value> = items
                .into_iter()
                .skip((page - 1).saturating_mul(per_page))
                .take(per_page)
                .map(describe)
                .collect();
            Ok(json!({ "items": items, "total": total, "page": page, "per_page": per_page }))
        }
    }
}

/// A page by `limit` and `offset` (the `/v2` words, and research lists' in both versions),
/// written as its items are (a research agent's schema in the order written, say).
#[derive(Debug, serde::Serialize)]
pub(crate) struct OffsetPage<T> {
    items: Vec<T>,
    limit: usize,
    offset: usize,
    total: usize,
}

/// The page of `items` the query asks for, each described by `describe` only if it is on it.
pub(crate) fn offset_page<T, D>(
    q: &PageQuery,
    items: Vec<T>,
    describe: impl FnMut(T) -> D,
) -> Result<OffsetPage<D>, ApiError> {
    let total = items.len();
    let offset = parse_count("offset", q.offset.as_deref(), 0)?;
    let limit = parse_page_size("limit", q.limit.as_deref(), 50)?;
    let items = items
        .into_iter()
        .skip(offset)
        .take(limit)
        .map(describe)
        .collect();
    Ok(OffsetPage {
        items,
        limit,
        offset,
        total,
    })
}

/// The query of job and run lists, in either version's words.
#[derive(Debug, Default, serde::Deserialize)]
pub(crate) struct PageQuery {
    limit: Option<String>,
    offset: Option<String>,
    page: Option<String>,
    per_page: Option<String>,
}

fn not_found(what: &str, id: &str, field: &str) -> ApiError {
    ApiError::not_found(format!("no {what} {id}")).at(field)
}

/// Creates a job: 422 naming the field for an unknown template, a bad cron expression or a bad
/// destination or inputs.
pub(crate) async fn create(
    AxState(state): AxState<Shared>,
    Extension(ctx): Extension<Ctx>,
    Extension(version): Extension<ApiVersion>,
    ApiJson(body): ApiJson,
) -> Result<Json<Value>, ApiError> {
    let now = state.clock.now();
    state.settle(now);
    let name = required_str(&body, "name")?;
    if name.trim().is_empty() {
        return Err(ApiError::malformed("name", "name must not be empty"));
    }
    let key = version.words().template_ref;
    let template = required_str(&body, key)?;
    state
        .find_agent(&ctx.account.name, template, version)
        .map_err(|e| e.at(key))?;
    let job = Job {
        id: uuid::Uuid::new_v4().to_string(),
        account: ctx.account.name.clone(),
        name: name.to_owned(),
        display_name: optional_str(&body, "display_name")?.map(str::to_owned),
        description: optional_str(&body, "description")?.map(str::to_owned),
        template: template.to_owned(),
        destination: destination(&body)?,
        inputs: inputs(&body)?.map(Arc::new),
        schedule: schedule(&body, state.schedule_now(now))?,
        created: state.clock.wall(),
        updated: state.clock.wall(),
    };
    let mut jobs = lock(&state.jobs);
    let answer = job.json(version, &jobs.runs, now);
    jobs.jobs.insert(job.id.clone(), job);
    Ok(Json(answer))
}

/// The account's jobs, oldest first, as a page.
pub(crate) async fn list(
    AxState(state): AxState<Shared>,
    Extension(ctx): Extension<Ctx>,
    Extension(version): Extension<ApiVersion>,
    ApiQuery(q): ApiQuery<PageQuery>,
) -> Result<Json<Value>, ApiError> {
    let (jobs, now) = state.jobs_now();
    let mut mine: Vec<&Job> = jobs
        .jobs
        .values()
        .filter(|j| j.account == ctx.account.name)
        .collect();
    mine.sort_by_key(|j| j.created);
    let items = mine
        .iter()
        .map(|j| j.json(version, &jobs.runs, now))
        .collect();
    page(version, &q, items).map(Json)
}

fn mine<'a>(jobs: &'a Jobs, ctx: &Ctx, id: &str) -> Result<&'a Job, ApiError> {
    jobs.jobs
        .get(id)
        .filter(|j| j.account == ctx.account.name)
        .ok_or_else(|| not_found("job", id, "job_id"))
}

/// One job.
pub(crate) async fn get(
    AxState(state): AxState<Shared>,
    Extension(ctx): Extension<Ctx>,
    Extension(version): Extension<ApiVersion>,
    ApiPath(id): ApiPath<String>,
) -> Result<Json<Value>, ApiError> {
    let (jobs, now) = state.jobs_now();
    Ok(Json(mine(&jobs, &ctx, &id)?.json(version, &jobs.runs, now)))
}

/// Changes a job's description, display name, destination, inputs or schedule (a field sent as
/// null is cleared); the rest stays.
pub(crate) async fn update(
    AxState(state): AxState<Shared>,
    Extension(ctx): Extension<Ctx>,
    Extension(version): Extension<ApiVersion>,
    ApiPath(id): ApiPath<String>,
    ApiJson(body): ApiJson,
) -> Result<Json<Value>, ApiError> {
    let (mut jobs, now) = state.jobs_now();
    let sched_now = state.schedule_now(now);
    mine(&jobs, &ctx, &id)?;
    // Check everything before changing anything.
    let destination = destination(&body)?;
    let inputs = inputs(&body)?;
    let schedule = schedule(&body, sched_now)?;
    let display_name = optional_str(&body, "display_name")?.map(str::to_owned);
    let description = optional_str(&body, "description")?.map(str::to_owned);
    let Some(job) = jobs.jobs.get_mut(&id) else {
        return Err(not_found("job", &id, "job_id"));
    };
    if body.contains_key("destination") {
        job.destination = destination;
    }
    if body.contains_key("inputs") {
        job.inputs = inputs.map(Arc::new);
    }
    if body.contains_key("schedule") {
        job.schedule = schedule;
    }
    if body.contains_key("display_name") {
        job.display_name = display_name;
    }
    if body.contains_key("description") {
        job.description = description;
    }
    job.updated = state.clock.wall();
    let job = job.clone();
    Ok(Json(job.json(version, &jobs.runs, now)))
}

/// Deletes a job and its runs: 204.
pub(crate) async fn delete(
    AxState(state): AxState<Shared>,
    Extension(ctx): Extension<Ctx>,
    ApiPath(id): ApiPath<String>,
) -> Result<StatusCode, ApiError> {
    let mut jobs = lock(&state.jobs);
    mine(&jobs, &ctx, &id)?;
    jobs.jobs.remove(&id);
    jobs.runs.retain(|_, r| r.job_id != id);
    Ok(StatusCode::NO_CONTENT)
}

/// Runs a job now, over its inputs or the ones sent (`{inputs}` in `/v2`).
pub(crate) async fn trigger(
    AxState(state): AxState<Shared>,
    Extension(ctx): Extension<Ctx>,
    ApiPath(id): ApiPath<String>,
    ApiBytes(body): ApiBytes,
) -> Result<Json<Value>, ApiError> {
    // `/v1` triggers with no body at all; `/v2` may send `{inputs}`.
    let inputs = if body.iter().all(u8::is_ascii_whitespace) {
        None
    } else {
        match serde_json::from_slice::<Value>(&body) {
            Ok(Value::Object(b)) => inputs(&b)?,
            Ok(other) => {
                return Err(ApiError::malformed(
                    "body",
                    format!("the body must be a JSON object, not {}", kind(&other)),
                ));
            }
            Err(e) => {
                return Err(ApiError::malformed("body", format!("malformed JSON: {e}")));
            }
        }
    };
    let (mut jobs, now) = state.jobs_now();
    mine(&jobs, &ctx, &id)?;
    let run_id = state
        .new_run(&mut jobs, &id, false, inputs, now)
        .ok_or_else(|| not_found("job", &id, "job_id"))?;
    let run = jobs
        .runs
        .get(&run_id)
        .ok_or_else(|| not_found("job run", &run_id, "run_id"))?;
    Ok(Json(run.json(now, None)))
}

/// A job's runs, newest first, as a page.
pub(crate) async fn runs(
    AxState(state): AxState<Shared>,
    Extension(ctx): Extension<Ctx>,
    Extension(version): Extension<ApiVersion>,
    ApiPath(id): ApiPath<String>,
    ApiQuery(q): ApiQuery<PageQuery>,
) -> Result<Json<Value>, ApiError> {
    let (jobs, now) = state.jobs_now();
    mine(&jobs, &ctx, &id)?;
    let mut list: Vec<&Run> = jobs.runs.values().filter(|r| r.job_id == id).collect();
    list.sort_by_key(|r| std::cmp::Reverse(r.created_at));
    // Only the runs of the page asked are described (a run's counts are made on first sight).
    page_with(version, &q, list, |r| r.json(now, None)).map(Json)
}

fn run_of<'a>(jobs: &'a Jobs, ctx: &Ctx, id: &str) -> Result<&'a Run, ApiError> {
    jobs.runs
        .get(id)
        .filter(|r| r.account == ctx.account.name)
        .ok_or_else(|| not_found("job run", id, "run_id"))
}

/// One run, with its job, a sample of its inputs, a summary and its errors.
pub(crate) async fn run(
    AxState(state): AxState<Shared>,
    Extension(ctx): Extension<Ctx>,
    Extension(version): Extension<ApiVersion>,
    ApiPath(id): ApiPath<String>,
) -> Result<Json<Value>, ApiError> {
    let (jobs, now) = state.jobs_now();
    let run = run_of(&jobs, &ctx, &id)?;
    let job = jobs
        .jobs
        .get(&run.job_id)
        .ok_or_else(|| not_found("job", &run.job_id, "job_id"))?;
    Ok(Json(run.json(now, Some((job, version)))))
}

/// Cancels a run that has not finished; 409 for one that has.
pub(crate) async fn cancel(
    AxState(state): AxState<Shared>,
    Extension(ctx): Extension<Ctx>,
    ApiPath(id): ApiPath<String>,
) -> Result<Json<Value>, ApiError> {
    let (mut jobs, now) = state.jobs_now();
    run_of(&jobs, &ctx, &id)?;
    let Some(run) = jobs.runs.get_mut(&id) else {
        return Err(not_found("job run", &id, "run_id"));
    };
    let status = run.status(now);
    if !matches!(status, "PENDING" | "RUNNING") {
        return Err(ApiError::new(
            StatusCode::CONFLICT,
            "CONFLICT",
            format!("job run {id} has already ended ({status})"),
        )
        .at("run_id"));
    }
    run.cancelled_at = Some(now);
    Ok(Json(json!({ "id": id, "status": run.status(now) })))
}

/// A run's artifacts (none until it has finished well).
pub(crate) async fn artifacts(
    AxState(state): AxState<Shared>,
    Extension(ctx): Extension<Ctx>,
    ApiPath(id): ApiPath<String>,
) -> Result<Json<Value>, ApiError> {
    let (jobs, now) = state.jobs_now();
    let run = run_of(&jobs, &ctx, &id)?;
    Ok(Json(json!({ "items": run.artifacts(now) })))
}

fn artifact_of(run: &Run, now: Instant, artifact_id: &str) -> Result<Value, ApiError> {
    run.artifacts(now)
        .into_iter()
        .find(|a| a["id"] == artifact_id)
        .ok_or_else(|| not_found("artifact", artifact_id, "artifact_id"))
}

/// One artifact.
pub(crate) async fn artifact(
    AxState(state): AxState<Shared>,
    Extension(ctx): Extension<Ctx>,
    ApiPath((run_id, artifact_id)): ApiPath<(String, String)>,
) -> Result<Json<Value>, ApiError> {
    let (jobs, now) = state.jobs_now();
    artifact_of(run_of(&jobs, &ctx, &run_id)?, now, &artifact_id).map(Json)
}

/// A URL that downloads the artifact without credentials for 15 minutes.
pub(crate) async fn download_url(
    AxState(state): AxState<Shared>,
    Extension(ctx): Extension<Ctx>,
    ApiPath((run_id, artifact_id)): ApiPath<(String, String)>,
) -> Result<Json<Value>, ApiError> {
    let (mut jobs, now) = state.jobs_now();
    artifact_of(run_of(&jobs, &ctx, &run_id)?, now, &artifact_id)?;
    jobs.urls.retain(|_, (_, _, expires)| *expires > now);
    while jobs.urls.len() >= MAX_URLS {
        let Some(oldest) = jobs
            .urls
            .iter()
            .min_by_key(|(_, (_, _, e))| *e)
            .map(|(k, _)| k.clone())
        else {
            break;
        };
        jobs.urls.remove(&oldest);
    }
    let token = uuid::Uuid::new_v4().simple().to_string();
    jobs.urls
        .insert(token.clone(), (run_id, artifact_id, now + URL_LIFETIME));
    let base = state.base_url.get().map_or("", String::as_str);
    Ok(Json(json!({
        "url": format!("{base}{DOWNLOAD_PREFIX}{token}"),
        "expires_at": timestamp(state.clock.wall() + URL_LIFETIME),
    })))
}

/// The first rows of an artifact, with its columns and row count.
pub(crate) async fn preview(
    AxState(state): AxState<Shared>,
    Extension(ctx): Extension<Ctx>,
    ApiPath((run_id, artifact_id)): ApiPath<(String, String)>,
) -> Result<Response, ApiError> {
    // Results are made from the run's inputs outside the lock, so other job calls do not wait.
    let run = {
        let (jobs, now) = state.jobs_now();
        let run = run_of(&jobs, &ctx, &run_id)?;
        artifact_of(run, now, &artifact_id)?;
        run.clone()
    };
    #[derive(serde::Serialize)]
    struct Preview<'a> {
        columns: Vec<&'a str>,
        row_count: usize,
        rows: &'a [Row],
    }
    let rows = rows_of(&run, &artifact_id);
    let shown = &rows[..rows.len().min(PREVIEW_ROWS)];
    let preview = Preview {
        columns: crate::artifact::columns(shown),
        row_count: rows.len(),
        rows: shown,
    };
    Ok(Json(preview).into_response())
}

fn rows_of(run: &Run, artifact_id: &str) -> Vec<Row> {
    let out = run.output();
    if artifact_id == ERRORS_ARTIFACT {
        out.errors
            .iter()
            .filter_map(|e| match Written::from(e) {
                Written::Object(fields) => Some(fields),
                _ => None,
            })
            .collect()
    } else {
        out.rows
    }
}

/// Where download URLs point, outside the API (like a storage bucket's signed URLs).
pub const DOWNLOAD_PREFIX: &str = "/downloads/";

/// Serves an artifact's bytes to whoever holds an unexpired download URL.
pub(crate) async fn download(
    AxState(state): AxState<Shared>,
    ApiPath(token): ApiPath<String>,
) -> Response {
    let now = state.clock.now();
    // The file is written outside the lock, so other job calls do not wait on it.
    let (run, run_id, artifact_id) = {
        let jobs = lock(&state.jobs);
        let Some((run_id, artifact_id, expires)) = jobs.urls.get(&token).cloned() else {
            return ApiError::not_found("no such download (the URL is unknown or has expired)")
                .into_response();
        };
        if expires <= now {
            return ApiError::new(
                StatusCode::FORBIDDEN,
                "EXPIRED",
                "the download URL has expired",
            )
            .into_response();
        }
        let Some(run) = jobs.runs.get(&run_id).cloned() else {
            return ApiError::not_found(format!("job run {run_id} was deleted")).into_response();
        };
        (run, run_id, artifact_id)
    };
    let rows = rows_of(&run, &artifact_id);
    let format = if artifact_id == ERRORS_ARTIFACT {
        "jsonl"
    } else {
        run.format.as_str()
    };
    let name = format!(
        "{run_id}-{}.{format}",
        if artifact_id == ERRORS_ARTIFACT {
            "errors"
        } else {
            "results"
        }
    );
    match crate::artifact::write(format, &rows) {
        Ok((bytes, content_type)) => (
            [
                (header::CONTENT_TYPE, content_type.to_owned()),
                (
                    header::CONTENT_DISPOSITION,
                    format!("attachment; filename=\"{name}\""),
                ),
            ],
            Body::from(bytes),
        )
            .into_response(),
        Err(e) => ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "INTERNAL_ERROR",
            format!("cannot write {name}: {e}"),
        )
        .into_response(),
    }
}

/// This area's endpoints and their handlers, under the endpoint's `method`: the router asks
/// every area, so serving a new endpoint of the area is an arm here and nothing in `routes.rs`.
pub(crate) fn handler(
    e: &agents_runtime::endpoint::Endpoint,
    method: axum::routing::MethodFilter,
) -> Option<axum::routing::MethodRouter<Shared>> {
    use agents_runtime::endpoint;
    use axum::routing::on;
    Some(match *e {
        endpoint::JOB_CREATE => on(method, create),
        endpoint::JOB_LIST => on(method, list),
        endpoint::JOB_GET => on(method, get),
        endpoint::JOB_UPDATE => on(method, update),
        endpoint::JOB_DELETE => on(method, delete),
        endpoint::JOB_TRIGGER => on(method, trigger),
        endpoint::JOB_RUNS => on(method, runs),
        endpoint::JOB_RUN_GET => on(method, run),
        endpoint::JOB_RUN_CANCEL => on(method, cancel),
        endpoint::JOB_ARTIFACTS => on(method, artifacts),
        endpoint::JOB_ARTIFACT => on(method, artifact),
        endpoint::JOB_ARTIFACT_URL => on(method, download_url),
        endpoint::JOB_ARTIFACT_PREVIEW => on(method, preview),
        _ => return None,
    })
}
