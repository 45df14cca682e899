//! `cargo agents batch AGENT --input FILE --out FILE [--resume]`: every input row checked against
//! the agent's rules first (rows that break one go to the failures file, nothing of theirs is
//! sent), the rest submitted in batches of at most 1,000, results written as they finish, with a
//! progress bar on a terminal and plain progress lines otherwise.

use std::io::IsTerminal as _;
use std::path::Path;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use agents_runtime::Error;
use agents_runtime::client::batch::{BatchHandle, MAX_ITEMS};
use futures::StreamExt as _;
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::{Value, json};

use crate::cache::agent_record;
use crate::global::{Failure, Global, client};
use crate::inputs::{self, Item};
use crate::output::{self, Sink};

/// How often progress is printed when standard error is not a terminal.
const PLAIN_EVERY: Duration = Duration::from_secs(5);

/// Progress: indicatif's bar on a terminal, a line now and then otherwise.
struct Progress {
    bar: Option<ProgressBar>,
    total: usize,
    done: usize,
    failed: usize,
    last_line: Instant,
    quiet: bool,
}

impl Progress {
    fn new(total: usize, quiet: bool) -> Progress {
        let bar = (!quiet && std::io::stderr().is_terminal()).then(|| {
            let bar = ProgressBar::new(total as u64);
            if let Ok(style) = ProgressStyle::with_template(
                "{bar:40} {pos}/{len} rows, {msg} [{elapsed_precise}, ETA {eta}]",
            ) {
                bar.set_style(style);
            }
            bar
        });
        Progress {
            bar,
            total,
            done: 0,
            failed: 0,
            last_line: Instant::now(),
            quiet,
        }
    }

    fn step(&mut self, failed: bool) {
        self.done += 1;
        self.failed += usize::from(failed);
        match &self.bar {
            Some(bar) => {
                bar.inc(1);
                bar.set_message(format!("{} failed", self.failed));
            }
            None if !self.quiet
                && (self.last_line.elapsed() >= PLAIN_EVERY || self.done == self.total) =>
            {
                self.last_line = Instant::now();
                eprintln!("{}/{} rows, {} failed", self.done, self.total, self.failed);
            }
            None => {}
        }
    }

    fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

/// What became of the rows of one `cargo agents batch`.
#[derive(Default)]
struct Tally {
    /// Rows done before this run (in the output or the failures file).
    skipped: usize,
    /// Rows refused before sending (broken rules).
    invalid: usize,
    /// Rows with results written by this run.
    succeeded: usize,
    /// Records this run wrote.
    records: usize,
    /// Rows the service failed in this run.
    failed: usize,
    /// Rows not finished (to do with `--resume`).
    unfinished: usize,
    /// Whole batches that failed, and other errors that belong to no row.
    errors: Vec<String>,
}

/// Refuses to resume when rows done before were done with other inputs than the input file now
/// gives them ([`output::changed`]): resumed, the rows now at those positions would never be sent.
fn refuse_changed(out: &Path, input: &Path, changed: &[String]) -> Result<(), Failure> {
    let Some(first) = changed.first() else {
        return Ok(());
    };
    Err(Failure::new(format!(
        "nothing was sent: {} holds {} row(s) of {} with other inputs than the file has now \
         ({first}{}): the input file changed since this run began, so rows would be skipped \
         that were never sent. Resume with the file as it was, or write to a new output",
        out.display(),
        changed.len(),
        input.display(),
        if changed.len() > 1 { "; …" } else { "" },
    )))
}

pub async fn batch(
    cli: &Global,
    agent: &str,
    input: &Path,
    out: &Path,
    resume: bool,
    documents: &crate::documents::Documents,
) -> Result<ExitCode, Failure> {
    output::check_out(out)?;
    output::apart_from_input(input, out)?;
    let c = client(cli)?;
    let record = agent_record(cli, &c, agent).await?;
    // A field of a name `batch` writes its own column under would overwrite that column.
    let reserved: Vec<String> = record
        .output_schema
        .iter()
        .flat_map(|s| s.keys())
        .filter(|k| output::reserved(k))
        .map(|k| format!("`{k}`"))
        .collect();
    if !reserved.is_empty() {
        return Err(Failure::new(format!(
            "nothing was sent: `{agent}`'s output schema has field(s) {}, names batch writes its \
             own columns under (`_row`, `_task_id`, `_input`, `_breaches`; `_unknown` and \
             `_input.NAME` in CSV): its records would overwrite them, and a resumed run would \
             lose track of its rows. Rename those fields, or run the agent through the library",
            reserved.join(", ")
        )));
    }
    let items = inputs::read_items(&record, input)?;
    if let Some(warning) = inputs::undeclared(&record, items.iter().map(|i| &i.params)) {
        eprintln!("warning: {}: {warning}", input.display());
    }
    // Parquet is written at the end, from a JSONL file that carries the run until then.
    let parquet = output::parquet_wanted(out);
    let rows_path = if parquet {
        #[cfg(feature = "parquet")]
        {
            crate::parquet::check_agent(agent)?;
            if out.exists() {
                if !resume {
                    return Err(Failure::new(format!(
                        "{} exists; pass --resume to continue that run, or remove it",
                        out.display()
                    )));
                }
                // A finished Parquet file: its rows and the failures are done, nothing is sent.
                let failures = output::failures_path(out);
                let finished = crate::parquet::finished(out, &failures, &record, &items)?;
                refuse_changed(out, input, &finished.changed)?;
                let missing: Vec<usize> = items
                    .iter()
                    .map(|i| i.row)
                    .filter(|r| !finished.done.contains(r))
                    .collect();
                if let Some(first) = missing.first() {
                    return Err(Failure::new(format!(
                        "{} is a finished Parquet file, and {} input row(s) are not in it (row \
                         {first} first); nothing was sent: write those rows to a new file, or \
                         remove {} to run every row again",
                        out.display(),
                        missing.len(),
                        out.display()
                    )));
                }
                let tally = Tally {
                    skipped: items.len(),
                    ..Tally::default()
                };
                let table = crate::parquet::table(out)?;
                let failures = failures.exists().then_some(failures.as_path());
                return Ok(report(cli, agent, out, failures, &tally, &table));
            }
            output::staging_path(out)
        }
        #[cfg(not(feature = "parquet"))]
        out.to_path_buf()
    } else {
        out.to_path_buf()
    };
    let mut sink = Sink::open(&record, &rows_path, output::failures_path(out), resume)?;
    refuse_changed(
        out,
        input,
        &sink.changed(items.iter().map(|i| (i.row, &i.params))),
    )?;
    let mut tally = Tally {
        skipped: items
            .iter()
            .filter(|i| sink.done.contains_key(&i.row))
            .count(),
        ..Tally::default()
    };

    // Every row is checked before anything is sent; a row that breaks a rule is a failure.
    let mut pending: Vec<Item> = Vec::new();
    let check = inputs::request_check(&record, documents);
    for item in items {
        if sink.done.contains_key(&item.row) {
            continue;
        }
        match inputs::problems(&check, &item.params) {
            Some(problems) => {
                sink.failure(item.row, &item.params, "invalid", &problems)?;
                tally.invalid += 1;
            }
            None => pending.push(item),
        }
    }

    let mut interrupted = false;
    if !pending.is_empty() {
        let submitted = c
            .batch_raw(agent)
            .submit_raw(pending.iter().map(|i| Value::Object(i.params.clone())))
            .await;
        let mut sent = pending.len();
        let handle = match submitted {
            Ok(handle) => handle,
            // The batches submitted before one failed run (and are billed): their results are
            // written like any others, and the rows after them stay to do for --resume.
            Err(Error::BatchPartiallySubmitted { submitted, source }) => {
                tally.errors.push(format!(
                    "{} batch(es) were submitted, then: {}",
                    submitted.len(),
                    crate::cache::about_agent(cli, agent)(*source).0
                ));
                sent = sent.min(submitted.len() * MAX_ITEMS);
                BatchHandle::attach(&c, submitted)
            }
            Err(e) => {
                return Err(crate::global::noting_effect(
                    e,
                    crate::cache::about_agent(cli, agent),
                    "the service may have created the batch before its answer was lost: its \
                     rows are not written here, and --resume would send them again",
                ));
            }
        };
        let mut progress = Progress::new(sent, cli.json);
        let mut results = handle.indexed_results();
        let mut ctrl_c = std::pin::pin!(tokio::signal::ctrl_c());
        loop {
            let item = tokio::select! {
                item = results.next() => item,
                _ = &mut ctrl_c => {
                    interrupted = true;
                    break;
                }
            };
            let Some(item) = item else { break };
            match item {
                Ok((index, run)) => {
                    let Some(item) = pending.get(index) else {
                        tally
                            .errors
                            .push(format!("a result for item {index}, which was not sent"));
                        continue;
                    };
                    let task = run.task_id.as_deref().or(run.response.task_id.as_deref());
                    match sink.result(item.row, task, &item.params, run.records())? {
                        Some(records) => {
                            tally.records += records;
                            tally.succeeded += 1;
                            progress.step(false);
                        }
                        None => {
                            tally.failed += 1;
                            progress.step(true);
                        }
                    }
                }
                Err(e) => match e.index.and_then(|i| pending.get(i)) {
                    Some(item) => {
                        let kind = format!("{:?}", e.error.kind()).to_lowercase();
                        sink.failure(item.row, &item.params, &kind, &e.to_string())?;
                        tally.failed += 1;
                        progress.step(true);
                    }
                    // A whole batch failed (its items were never listed): its rows stay to do.
                    None => tally.errors.push(e.to_string()),
                },
            }
        }
        progress.finish();
    }

    tally.unfinished = pending
        .iter()
        .filter(|i| !sink.done.contains_key(&i.row))
        .count();
    #[cfg(feature = "parquet")]
    if parquet && tally.unfinished == 0 {
        crate::parquet::convert(agent, &record, &rows_path, out)?;
        std::fs::remove_file(&rows_path)
            .map_err(|e| format!("cannot remove {}: {e}", rows_path.display()))?;
    }
    let failures = sink.failures_written()?;
    let code = report(cli, agent, out, failures, &tally, &sink.table);
    if interrupted {
        eprintln!(
            "interrupted: {} rows are not finished; run the same command with --resume to finish \
             them (rows already written are not sent again)",
            tally.unfinished
        );
        return Ok(ExitCode::from(130));
    }
    Ok(code)
}

/// Prints what became of the rows and the field table of this run's records (standard output);
/// fails when some rows are not finished.
fn report(
    cli: &Global,
    agent: &str,
    out: &Path,
    failures: Option<&Path>,
    t: &Tally,
    table: &crate::fields::Table,
) -> ExitCode {
    if cli.json {
        outln!(
            "{}",
            json!({
                "agent": agent,
                "rows": t.skipped + t.invalid + t.succeeded + t.failed + t.unfinished,
                "skipped": t.skipped,
                "invalid": t.invalid,
                "succeeded": t.succeeded,
                "failed": t.failed,
                "records": t.records,
                "unfinished": t.unfinished,
                "errors": t.errors,
                "out": out,
                "failures": failures,
                "fields": table.to_json(),
            })
        );
    } else {
        crate::fields::print(cli, table);
        let failed = match failures {
            Some(path) => format!(
                "{} failed and {} invalid into {}",
                t.failed,
                t.invalid,
                path.display()
            ),
            None => "none failed".to_owned(),
        };
        eprintln!(
            "{agent}: this run: {} rows succeeded ({} records) into {}, {failed}; {} rows were \
             done before this run",
            t.succeeded,
            t.records,
            out.display(),
            t.skipped,
        );
        for e in &t.errors {
            eprintln!("error: {e}");
        }
        if t.unfinished > 0 {
            eprintln!(
                "{} rows are not finished; run again with --resume to finish them",
                t.unfinished
            );
        }
    }
    if t.unfinished > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
