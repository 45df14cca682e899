//! The data of jobs: jobs, their runs and the download URLs handed out, and what a run's
//! status, record and artifacts are at a given instant. The handlers and the schedule clock
//! are in `jobs.rs`; the state holds a [`Jobs`].

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::OnceLock;
use std::time::{Instant, SystemTime};

use agents_runtime::endpoint::ApiVersion;
use agents_schema::{AgentRecord, Json as Written};
use chrono::{DateTime, Utc};
use serde_json::{Map, Value, json};

use crate::wire::timestamp;

/// A run's artifacts are numbered, as the vendor's client types their ids: the results, then
/// the failed inputs.
pub(crate) const RESULTS_ARTIFACT: &str = "1";
pub(crate) const ERRORS_ARTIFACT: &str = "2";

/// Every job and run, by id.
#[derive(Debug, Default)]
pub struct Jobs {
    pub(crate) jobs: BTreeMap<String, Job>,
    pub(crate) runs: BTreeMap<String, Run>,
    pub(crate) urls: BTreeMap<String, (String, String, Instant)>,
}

#[derive(Debug, Clone)]
pub(crate) struct Job {
    pub(crate) id: String,
    pub(crate) account: String,
    pub(crate) name: String,
    pub(crate) display_name: Option<String>,
    pub(crate) description: Option<String>,
    pub(crate) template: String,
    pub(crate) destination: Option<Map<String, Value>>,
    /// The `inputs` object as sent, shared with the runs that read it.
    pub(crate) inputs: Option<Arc<Map<String, Value>>>,
    pub(crate) schedule: Option<Schedule>,
    pub(crate) created: SystemTime,
    pub(crate) updated: SystemTime,
}

#[derive(Debug, Clone)]
pub(crate) struct Schedule {
    pub(crate) text: String,
    pub(crate) enabled: bool,
    pub(crate) cron: croner::Cron,
    /// When the next run is due on the schedule clock (none while disabled, or once the
    /// expression has no run left within [`HORIZON_DAYS`]). Computed when the schedule is set
    /// and when a run is made, never while others wait for a look at the jobs.
    pub(crate) next: Option<DateTime<Utc>>,
}

/// How far ahead a next run is looked for: eight years, so that `0 0 29 2 *` (every leap day,
/// eight years apart across 2100) is found. An expression with no run in that span is refused
/// when it is set: croner's own search walks to the year 5000 (seconds of work) for one that
/// never fires.
pub(crate) const HORIZON_DAYS: i64 = 8 * 366;

/// The first run of `cron` after `after`, looked for within [`HORIZON_DAYS`] only: the days
/// are walked here (a few microseconds each), and croner is asked for the time only once a
/// day is known to have one, so its search ends on that day.
pub(crate) fn next_run(cron: &croner::Cron, after: DateTime<Utc>) -> Option<DateTime<Utc>> {
    use chrono::{Datelike as _, Timelike as _};

    let p = &cron.pattern;
    let latest = |c: &croner::CronComponent| c.values().into_iter().max();
    // The last time of day the expression fires at; none when a time field allows nothing.
    let last_of_day = (latest(&p.hours)?, latest(&p.minutes)?, latest(&p.seconds)?);
    let after_time = (after.hour(), after.minute(), after.second());
    let today = after.date_naive();
    for offset in 0..=HORIZON_DAYS {
        let day = today.checked_add_signed(chrono::Duration::days(offset))?;
        if offset == 0
            && (
                u32::from(last_of_day.0),
                u32::from(last_of_day.1),
                u32::from(last_of_day.2),
            ) <= after_time
        {
            continue;
        }
        let weekday = croner::Weekday::from_days_from_sunday(day.weekday().num_days_from_sunday());
        let fires = p.year_match(day.year()).unwrap_or(false)
            && p.month_match(day.month()).unwrap_or(false)
            && p.day_match(day.year(), day.month(), day.day(), weekday)
                .unwrap_or(false);
        if fires {
            let from = if offset == 0 {
                after
            } else {
                day.and_hms_opt(0, 0, 0)?.and_utc() - chrono::Duration::seconds(1)
            };
            return cron.find_next_occurrence(&from, false).ok();
        }
    }
    None
}

#[derive(Debug, Clone)]
pub(crate) struct Run {
    pub(crate) id: String,
    pub(crate) job_id: String,
    pub(crate) account: String,
    pub(crate) scheduled: bool,
    pub(crate) created: SystemTime,
    pub(crate) created_at: Instant,
    pub(crate) starts_at: Instant,
    pub(crate) ends_at: Instant,
    pub(crate) cancelled_at: Option<Instant>,
    /// The template as it was when the run was made.
    pub(crate) record: Option<Arc<AgentRecord>>,
    pub(crate) format: String,
    /// The inline inputs it reads: the job's own object (or the trigger's), referenced, never
    /// copied, so a run costs the same whatever its job holds.
    pub(crate) inputs: RunInputs,
    /// Why the run cannot produce anything, decided when it was made.
    pub(crate) failure: Option<(String, String)>,
    /// How many inputs fail and how many records the run makes: counted once, when first
    /// asked (a status, a page of runs), not on every look.
    pub(crate) counts: Arc<OnceLock<Counts>>,
}

/// Runs kept per job: a new run past this forgets the job's oldest (as the service keeps a
/// bounded history), so a schedule under `--fast` cannot grow the emulator without bound.
pub const MAX_RUNS_PER_JOB: usize = 100;

/// The inline inputs of a run.
#[derive(Debug, Clone, Default)]
pub(crate) struct RunInputs(pub(crate) Option<Arc<Map<String, Value>>>);

impl RunInputs {
    /// Each input object, in order (`inputs.data`, checked to hold objects when it was set).
    pub(crate) fn rows(&self) -> impl Iterator<Item = &Map<String, Value>> {
        self.0
            .as_deref()
            .and_then(|i| i.get("data"))
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_object)
    }

    pub(crate) fn len(&self) -> usize {
        self.rows().count()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.rows().next().is_none()
    }
}

/// What a run's inputs come to, counted once.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Counts {
    /// Inputs the template refuses.
    pub(crate) failed: usize,
    /// Records the run makes.
    pub(crate) records: usize,
}

/// A row of a run's results: its input's position, then the record's fields in its schema's
/// order.
pub(crate) type Row = indexmap::IndexMap<String, Written>;

/// What one run produced: records (each with its input's position) and failed inputs.
pub(crate) struct Output {
    pub(crate) rows: Vec<Row>,
    pub(crate) errors: Vec<Value>,
}

impl Run {
    pub(crate) fn status(&self, now: Instant) -> &'static str {
        if let Some(at) = self.cancelled_at
            && at < self.ends_at
        {
            return "CANCELLED";
        }
        if now < self.starts_at {
            "PENDING"
        } else if now < self.ends_at {
            "RUNNING"
        } else if self.failure.is_some() {
            "FAILED"
        } else {
            match self.counts().failed {
                0 => "SUCCESS",
                n if n < self.inputs.len() => "WARNING",
                _ => "FAILED",
            }
        }
    }

    /// The run's counts, made once from its output.
    pub(crate) fn counts(&self) -> Counts {
        *self.counts.get_or_init(|| {
            let out = self.output();
            Counts {
                failed: if self.record.is_some() {
                    out.errors.len()
                } else {
                    self.inputs.len()
                },
                records: out.rows.len(),
            }
        })
    }

    pub(crate) fn wall(&self, at: Instant) -> String {
        timestamp(self.created + at.saturating_duration_since(self.created_at))
    }

    pub(crate) fn finished(&self, now: Instant) -> Option<Instant> {
        match self.cancelled_at {
            Some(at) if at < self.ends_at => Some(at),
            _ => (now >= self.ends_at).then_some(self.ends_at),
        }
    }

    /// The run's results, recomputed from its inputs (deterministic, as task results are).
    pub(crate) fn output(&self) -> Output {
        let mut out = Output {
            rows: Vec::new(),
            errors: Vec::new(),
        };
        let Some(record) = &self.record else {
            return out;
        };
        let check = agents_runtime::validate::RequestCheck::new(record);
        for (i, input) in self.inputs.rows().enumerate() {
            let params = Value::Object(input.clone());
            if let Err(e) = crate::params::check_derived(&check, &params, "params") {
                out.errors
                    .push(json!({ "input": input, "message": e.message, "field": e.field }));
                continue;
            }
            let spec = crate::synth::RunSpec {
                record: record.clone(),
                params: input.clone(),
                formats: Vec::new(),
                drift: false,
                pages: 1,
                empty_past_end: false,
            };
            let result = spec.result("", self.created);
            let records = match result.pointer("/data/parsing") {
                Some(Written::Array(items)) => items.clone(),
                other => other.into_iter().cloned().collect(),
            };
            for r in records {
                let mut row = Row::new();
                row.insert("_input_index".into(), Written::Number(i.into()));
                if let Written::Object(fields) = r {
                    row.extend(fields);
                }
                out.rows.push(row);
            }
        }
        out
    }

    pub(crate) fn json(&self, now: Instant, full: Option<(&Job, ApiVersion)>) -> Value {
        let status = self.status(now);
        let started = (now >= self.starts_at
            && self.cancelled_at.is_none_or(|c| c >= self.starts_at))
        .then(|| self.wall(self.starts_at));
        let done = self.finished(now).map(|at| self.wall(at));
        let ended = now >= self.ends_at && self.failure.is_none();
        let mut out = json!({
            "id": self.id,
            "job_id": self.job_id,
            "status": status,
            "triggered_by": if self.scheduled { "schedule" } else { "manual" },
            "created_at": timestamp(self.created),
            "started_at": started,
            "finished_at": done,
            "input_count": self.inputs.len(),
            "result_count": ended.then(|| self.counts().records),
        });
        if let Some((job, version)) = full {
            out["job"] = json!({
                "id": job.id,
                "name": job.name,
                "display_name": job.display_name,
                version.words().template_ref: job.template,
                "schedule": job.schedule.as_ref().map(|s| json!({"cron": s.text, "enabled": s.enabled})),
            });
            out["inputs_sample"] = json!(self.inputs.rows().take(5).collect::<Vec<_>>());
            if let Some(o) = ended.then(|| self.output()) {
                let rate = if self.inputs.is_empty() {
                    0.0
                } else {
                    (self.inputs.len() - o.errors.len()) as f64 / self.inputs.len() as f64
                };
                out["summary"] = json!({
                    "input_count": self.inputs.len(),
                    "result_count": o.rows.len(),
                    "match_rate": rate,
                });
                if !o.errors.is_empty() {
                    out["error"] = json!({
                        "step": "extract",
                        "message": format!("{} of {} inputs failed", o.errors.len(), self.inputs.len()),
                        "errors_sample": o.errors.iter().take(5).collect::<Vec<_>>(),
                    });
                }
            }
            if let Some((step, message)) = &self.failure
                && now >= self.ends_at
            {
                out["error"] = json!({ "step": step, "message": message, "errors_sample": [] });
            }
        }
        out
    }

    /// The artifacts of a finished run: the results in the destination's format, and the
    /// failed inputs when there are any.
    pub(crate) fn artifacts(&self, now: Instant) -> Vec<Value> {
        if !matches!(self.status(now), "SUCCESS" | "WARNING") {
            return Vec::new();
        }
        let out = self.output();
        let at = self.wall(self.ends_at);
        let template = self.record.as_ref().map_or("", |r| r.name.as_str());
        let mut list = vec![json!({
            "id": RESULTS_ARTIFACT,
            "created_at": at,
            "type": self.format,
            "description": format!("{} records of {template}, as {}", out.rows.len(), self.format),
        })];
        if !out.errors.is_empty() {
            list.push(json!({
                "id": ERRORS_ARTIFACT,
                "created_at": at,
                "type": "jsonl",
                "description": format!("{} inputs that failed, with why", out.errors.len()),
            }));
        }
        list
    }
}

impl Job {
    pub(crate) fn json(
        &self,
        version: ApiVersion,
        runs: &BTreeMap<String, Run>,
        now: Instant,
    ) -> Value {
        let last = runs
            .values()
            .filter(|r| r.job_id == self.id)
            .max_by_key(|r| r.created_at);
        json!({
            "id": self.id,
            "name": self.name,
            "display_name": self.display_name,
            "description": self.description,
            version.words().template_ref: self.template,
            "destination": self.destination,
            "inputs": self.inputs.as_deref(),
            "schedule": self.schedule.as_ref().map(|s| json!({"cron": s.text, "enabled": s.enabled})),
            "created_at": timestamp(self.created),
            "updated_at": timestamp(self.updated),
            "last_run_at": last.map(|r| timestamp(r.created)),
            "last_run_status": last.map(|r| r.status(now)),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::str::FromStr as _;

    fn at(text: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(text)
            .unwrap()
            .with_timezone(&Utc)
    }

    fn next(cron: &str, after: &str) -> Option<String> {
        let cron = croner::Cron::from_str(cron).unwrap();
        next_run(&cron, at(after)).map(|t| t.to_rfc3339())
    }

    #[test]
    fn the_next_run_is_croners_answer_when_there_is_one() {
        let cases = [
            (
                "*/5 * * * *",
                "2026-11-25T10:03:07Z",
                "2026-11-25T10:05:00+00:00",
            ),
            (
                "0 9 * * 1",
                "2026-11-25T10:00:00Z",
                "2026-11-30T09:00:00+00:00",
            ),
            // The last run of the day has passed: tomorrow.
            (
                "30 23 * * *",
                "2026-11-25T23:30:00Z",
                "2026-11-26T23:30:00+00:00",
            ),
            (
                "0 0 29 2 *",
                "2026-11-25T00:00:00Z",
                "2028-02-29T00:00:00+00:00",
            ),
            (
                "0 12 L * *",
                "2026-11-30T12:00:01Z",
                "2026-12-31T12:00:00+00:00",
            ),
        ];
        for (cron, after, want) in cases {
            assert_eq!(next(cron, after).as_deref(), Some(want), "{cron}");
            let c = croner::Cron::from_str(cron).unwrap();
            let croner = c.find_next_occurrence(&at(after), false).unwrap();
            assert_eq!(croner.to_rfc3339(), want, "{cron}");
        }
    }

    #[test]
    fn an_expression_that_never_fires_has_no_next_run() {
        for cron in [",,, * * * *", "0 0 30 2 *", "0 0 31 4,6,9,11 *"] {
            assert_eq!(next(cron, "2026-11-25T10:00:00Z"), None, "{cron}");
        }
    }
}
