//! `cargo agents jobs`: create a job from an input file (under a name no job has), list jobs and
//! their runs, trigger a run (and wait for it), delete a job, and download a run's artifacts
//! into a directory.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use agents_runtime::client::jobs::{
    ArtifactFormat, JobDestination, JobInputs, JobRequest, JobRun, JobStatus,
};
use agents_runtime::{Client, Error};
use futures::TryStreamExt;
use serde_json::{Value, json};

use crate::cache::agent_record;
use crate::global::{Failure, Global, client};
use crate::inputs;

/// What `cargo agents jobs` does.
#[derive(Debug, clap::Subcommand)]
pub enum JobsCommand {
    /// Create a job that runs AGENT over the rows of a CSV or JSONL file (checked against the
    /// agent's rules first, every bad row named), optionally on a cron schedule.
    Create {
        /// The job's name.
        name: String,
        /// The agent (extract template) it runs.
        #[arg(long)]
        agent: String,
        /// Its inputs: a .csv (commas, or semicolons), .tsv or .jsonl file, at most 1,000 rows.
        #[arg(long)]
        input: PathBuf,
        /// The results' format.
        #[arg(long, default_value = "jsonl", value_parser = ["jsonl", "csv", "parquet"])]
        format: String,
        /// A cron schedule (`0 3 * * *`: every night at three); without it, the job runs when
        /// triggered.
        #[arg(long)]
        schedule: Option<String>,
        #[command(flatten)]
        documents: crate::documents::Documents,
    },
    /// List the account's jobs.
    List,
    /// Run a job now; with --wait, wait for the run to end and print it.
    Trigger {
        /// The job's id, or its name when one job has it.
        id: String,
        /// Wait for the run to end.
        #[arg(long)]
        wait: bool,
    },
    /// List a job's runs, newest first.
    Runs {
        /// The job's id, or its name when one job has it.
        id: String,
    },
    /// Delete a job: it runs no more, on its schedule or triggered.
    Delete {
        /// The job's id, or its name when one job has it.
        id: String,
    },
    /// Download a run's artifacts into a directory.
    Download {
        /// The run's id.
        run: String,
        /// Where to write them (created when missing).
        #[arg(long, default_value = ".")]
        out: PathBuf,
    },
}

pub async fn jobs(cli: &Global, command: &JobsCommand) -> Result<ExitCode, Failure> {
    let c = client(cli)?;
    match command {
        JobsCommand::Create {
            name,
            agent,
            input,
            format,
            schedule,
            documents,
        } => {
            let record = agent_record(cli, &c, agent).await?;
            let check = inputs::request_check(&record, documents);
            let items = inputs::read_items(&record, input)?;
            if let Some(warning) = inputs::undeclared(&record, items.iter().map(|i| &i.params)) {
                eprintln!("warning: {}: {warning}", input.display());
            }
            let bad: Vec<String> = items
                .iter()
                .filter_map(|i| {
                    inputs::problems(&check, &i.params).map(|p| format!("row {}: {p}", i.row))
                })
                .collect();
            if !bad.is_empty() {
                return Err(Failure::new(format!(
                    "nothing was sent; {} row(s) of {} are invalid:\n  {}",
                    bad.len(),
                    input.display(),
                    bad.join("\n  ")
                )));
            }
            // Names find jobs here (`trigger nightly`): a second job of a name would run the same
            // inputs again on its own schedule, billed twice, and leave the name to neither.
            let jobs: Vec<_> = c.jobs().try_collect().await?;
            let named: Vec<&str> = jobs
                .iter()
                .filter(|j| j.name == *name)
                .map(|j| j.id.as_str())
                .collect();
            if !named.is_empty() {
                return Err(Failure::new(format!(
                    "nothing was created: a job named {name:?} exists ({}); another would run its \
                     own schedule beside it, and the name would find neither. Trigger it, \
                     `cargo agents jobs delete {}` first to replace it, or choose another name",
                    named.join(", "),
                    named[0]
                )));
            }
            let format = match format.as_str() {
                "csv" => ArtifactFormat::Csv,
                "parquet" => ArtifactFormat::Parquet,
                _ => ArtifactFormat::Jsonl,
            };
            let rows = items.into_iter().map(|i| Value::Object(i.params));
            let mut request = JobRequest::new(name.clone(), agent.clone())
                .inputs(JobInputs::inline(rows)?)
                .destination(JobDestination::file(format!("{name}/"), format));
            if let Some(cron) = schedule {
                request = request.schedule(cron.clone(), true);
            }
            let job = c.create_job(request).await.map_err(|e| {
                crate::global::noting_effect(
                    e,
                    crate::cache::about_agent(cli, agent),
                    "the job may have been created before the answer was lost: `cargo agents \
                     jobs list` shows the account's jobs",
                )
            })?;
            if cli.json {
                outln!("{}", json!({ "id": job.id, "name": job.name }));
            } else {
                outln!("{}", job.id);
                eprintln!(
                    "job {} created; run it with `cargo agents jobs trigger {} --wait`",
                    job.name, job.id
                );
            }
        }
        JobsCommand::List => {
            let jobs: Vec<_> = c.jobs().try_collect().await?;
            for j in &jobs {
                let last = j
                    .last_run_status
                    .as_ref()
                    .map_or("never run", |s| s.as_str());
                let schedule = j
                    .schedule
                    .as_ref()
                    .map(|s| format!("{}{}", s.cron, if s.enabled { "" } else { " (off)" }))
                    .unwrap_or_else(|| "on demand".into());
                if cli.json {
                    outln!(
                        "{}",
                        json!({"id": j.id, "name": j.name, "template": j.template,
                               "schedule": j.schedule, "last_run_status": j.last_run_status})
                    );
                } else {
                    outln!(
                        "{}\t{}\t{}\t{schedule}\t{last}",
                        j.id,
                        j.name,
                        j.template.as_deref().unwrap_or("")
                    );
                }
            }
        }
        JobsCommand::Trigger { id, wait } => {
            let handle = by_id_or_name(&c, id, |id| {
                let c = &c;
                async move { c.trigger_job(&id, None).await }
            })
            .await?;
            if !wait {
                outln!("{}", handle.id());
                return Ok(ExitCode::SUCCESS);
            }
            // The run goes on if this wait is stopped or fails: its id is what finds it again.
            eprintln!(
                "run {} started; waiting for it to end (`cargo agents jobs runs {id}` shows it)",
                handle.id()
            );
            let run = tokio::select! {
                run = handle.wait() => run.map_err(|e| {
                    Failure::new(format!(
                        "{}; the run {} may still be going: `cargo agents jobs runs {id}`",
                        Failure::from(e).0,
                        handle.id()
                    ))
                })?,
                _ = tokio::signal::ctrl_c() => {
                    eprintln!("interrupted; run {} goes on at the service", handle.id());
                    return Ok(ExitCode::from(130));
                }
            };
            print_run(cli, &run);
            let failed = matches!(
                run.status,
                JobStatus::Failed | JobStatus::Cancelled | JobStatus::Timeout
            );
            if !cli.json {
                if let Some(message) = run.error_message() {
                    eprintln!("run {}: {message}", run.id);
                }
                if !failed {
                    eprintln!(
                        "`cargo agents jobs download {}` writes its results here",
                        run.id
                    );
                }
            }
            if failed {
                return Ok(ExitCode::FAILURE);
            }
        }
        JobsCommand::Runs { id } => {
            let runs: Vec<_> = by_id_or_name(&c, id, |id| {
                let c = &c;
                async move { c.job_runs(&id).try_collect().await }
            })
            .await?;
            for r in &runs {
                print_run(cli, r);
            }
        }
        JobsCommand::Delete { id } => {
            let deleted = by_id_or_name(&c, id, |id| {
                let c = &c;
                async move { c.delete_job(&id).await.map(|()| id) }
            })
            .await?;
            if cli.json {
                outln!("{}", json!({ "deleted": deleted }));
            } else {
                eprintln!("job {deleted} deleted");
            }
        }
        JobsCommand::Download { run, out } => download(cli, &c, run, out).await?,
    }
    Ok(ExitCode::SUCCESS)
}

/// `op` on the job `given` names: its id, or else the name of exactly one of the account's
/// jobs (what `jobs create` took). The id is tried first, so a job named by id costs no more
/// requests; a name costs the list of jobs, and only after the service answered 404 (nothing
/// was done).
async fn by_id_or_name<T, F, Fut>(c: &Client, given: &str, op: F) -> Result<T, Failure>
where
    F: Fn(String) -> Fut,
    Fut: std::future::Future<Output = Result<T, Error>>,
{
    let not_found = match op(given.to_owned()).await {
        Err(e @ Error::NotFound(_)) => e,
        other => return Ok(other?),
    };
    let jobs: Vec<_> = c.jobs().try_collect().await?;
    let named: Vec<&str> = jobs
        .iter()
        .filter(|j| j.name == given)
        .map(|j| j.id.as_str())
        .collect();
    match named.as_slice() {
        [] => Err(Failure::new(format!(
            "{}; no job has that id or name: `cargo agents jobs list` lists them",
            Failure::from(not_found).0
        ))),
        [id] => Ok(op((*id).to_owned()).await?),
        ids => Err(Failure::new(format!(
            "{} jobs are named {given:?} ({}): give the id of the one you mean",
            ids.len(),
            ids.join(", ")
        ))),
    }
}

/// One line of a run: id, status, when it was made, its inputs and results (with `--json`, one
/// JSON document, with the error the service gave when it failed).
fn print_run(cli: &Global, run: &JobRun) {
    if cli.json {
        outln!(
            "{}",
            json!({
                "id": run.id, "status": run.status.as_str(), "created_at": run.created_at,
                "input_count": run.input_count, "result_count": run.result_count,
                "error": run.error_message(),
            })
        );
    } else {
        let count = |n: Option<u64>| n.map_or_else(|| "?".to_owned(), |n| n.to_string());
        outln!(
            "{}\t{}\t{}\t{} input(s)\t{} result(s)",
            run.id,
            run.status.as_str(),
            run.created_at.as_deref().unwrap_or(""),
            count(run.input_count),
            count(run.result_count),
        );
    }
}

/// Writes each artifact of `run` into `out` as `RUN-ID.EXT` (`-errors` for the failed inputs),
/// each under a temporary name renamed when complete.
/// The file an artifact of run `run` is written to, and its extension. The name comes from the
/// run id and the artifact's id and type, never from the answer's text, so it cannot leave the
/// directory; ids that differ only where they are made safe (`a.b`, `a_b`), or only in case,
/// get a file each rather than one written over the other (`taken` holds the names given).
fn artifact_file(
    run: &str,
    id: &str,
    kind: &str,
    taken: &mut std::collections::HashSet<String>,
) -> (String, &'static str) {
    let ext = match kind {
        "csv" => "csv",
        "parquet" => "parquet",
        _ => "jsonl",
    };
    let safe = |text: &str, keep: &[char]| -> String {
        text.chars()
            .map(|ch| {
                if ch.is_ascii_alphanumeric() || keep.contains(&ch) {
                    ch
                } else {
                    '_'
                }
            })
            .collect()
    };
    let base = format!("{}-{}", safe(run, &['-']), safe(id, &[]));
    let mut stem = base.clone();
    let mut n = 1;
    while !taken.insert(stem.to_ascii_lowercase()) {
        n += 1;
        stem = format!("{base}-{n}");
    }
    (format!("{stem}.{ext}"), ext)
}

/// Writes artifact `id` of `run` to `path` as it arrives; returns its size.
async fn write_chunks(
    c: &agents_runtime::Client,
    run: &str,
    id: &str,
    path: &Path,
) -> Result<u64, Failure> {
    use futures::StreamExt as _;
    use tokio::io::AsyncWriteExt as _;

    let fail = |e: std::io::Error| Failure::new(format!("cannot write {}: {e}", path.display()));
    let mut chunks = c.artifact_chunks(run, id).await?;
    let mut file = tokio::fs::File::create(path).await.map_err(fail)?;
    let mut bytes = 0;
    while let Some(chunk) = chunks.next().await {
        let chunk = chunk?;
        file.write_all(&chunk).await.map_err(fail)?;
        bytes += chunk.len() as u64;
    }
    file.flush().await.map_err(fail)?;
    Ok(bytes)
}

async fn download(
    cli: &Global,
    c: &agents_runtime::Client,
    run: &str,
    out: &Path,
) -> Result<(), Failure> {
    // The run first: an unknown id is named as a run, and its job says which template wrote
    // the records.
    let template = c.job_run(run).await?.job().and_then(|j| j.template);
    std::fs::create_dir_all(out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    let artifacts = c.artifacts(run).await?;
    if artifacts.is_empty() {
        return Err(Failure::new(format!(
            "run {run} has no artifacts (it has not ended well yet: `cargo agents jobs runs JOB`)"
        )));
    }
    let mut written = std::collections::HashSet::new();
    for a in artifacts {
        let (name, ext) = artifact_file(run, &a.id, &a.kind, &mut written);
        let path = out.join(name);
        let partial = path.with_extension(format!("{ext}.partial"));
        // Chunk by chunk, so an artifact of any size is held a chunk at a time; a download that
        // fails leaves no partial file behind.
        let bytes = match write_chunks(c, run, &a.id, &partial).await {
            Ok(n) => n,
            Err(e) => {
                let _ = tokio::fs::remove_file(&partial).await;
                return Err(e);
            }
        };
        tokio::fs::rename(&partial, &path)
            .await
            .map_err(|e| format!("cannot move {} into place: {e}", partial.display()))?;
        if cli.json {
            outln!(
                "{}",
                json!({"path": path, "artifact": a.id, "type": a.kind,
                       "description": a.description, "bytes": bytes})
            );
        } else {
            outln!("{}", path.display());
            eprintln!("{}: {} ({} bytes)", a.id, a.description, bytes);
            if let (Some(template), "jsonl") = (&template, ext) {
                eprintln!(
                    "  `cargo agents fields {} --agent {template}` counts its fields and checks \
                     them against the template's schema",
                    path.display()
                );
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::artifact_file;

    #[test]
    fn artifacts_whose_safe_names_meet_get_a_file_each() {
        let mut taken = std::collections::HashSet::new();
        let names: Vec<String> = [
            ("a.b", "jsonl"),
            ("a_b", "jsonl"),
            ("A_B", "csv"),
            ("../x", "parquet"),
        ]
        .iter()
        .map(|(id, kind)| artifact_file("run/1", id, kind, &mut taken).0)
        .collect();
        assert_eq!(
            names,
            [
                "run_1-a_b.jsonl",
                "run_1-a_b-2.jsonl",
                "run_1-A_B-3.csv",
                "run_1-___x.parquet"
            ]
        );
    }
}
