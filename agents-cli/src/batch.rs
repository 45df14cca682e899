//! `cargo agents batch AGENT --input FILE --out FILE [--resume]`: every input row checked against
//! the agent's rules first (rows that break one go to the failures file, nothing of theirs is
//! sent), the rest submitted in batches of at most 1,000, results written as they finish, with a
//! progress bar on a terminal and plain progress lines otherwise.

use std::io::IsTerminal as _;
use std::path::Path;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use futures::StreamExt as _;
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::{Value, json};

use crate::inputs::{self, Item};
use crate::output::{self, Sink};
use crate::{Cli, Failure, agent_record, client};

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

pub async fn batch(
    cli: &Cli,
    agent: &str,
    input: &Path,
    out: &Path,
    resume: bool,
) -> Result<ExitCode, Failure> {
    let c = client(cli)?;
    let record = agent_record(cli, &c, agent).await?;
    let items = inputs::read_items(&record, input)?;
    // Parquet is written at the end, from a JSONL file that carries the run until then.
    #[cfg(feature = "parquet")]
    let parquet = crate::parquet::wanted(out);
    #[cfg(not(feature = "parquet"))]
    let parquet = false;
    let rows_path = if parquet {
        #[cfg(feature = "parquet")]
        {
            crate::parquet::check_agent(agent)?;
            if out.exists() && !resume {
                return Err(Failure(format!(
                    "{} exists; remove it to write it again",
                    out.display()
                )));
            }
            crate::parquet::staging_path(out)
        }
        #[cfg(not(feature = "parquet"))]
        out.to_path_buf()
    } else {
        out.to_path_buf()
    };
    let mut sink = Sink::open(&record, &rows_path, output::failures_path(out), resume)?;
    let skipped = items.iter().filter(|i| sink.done.contains(&i.row)).count();

    // Every row is checked before anything is sent; a row that breaks a rule is a failure.
    let mut invalid = 0;
    let mut pending: Vec<Item> = Vec::new();
    for item in items {
        if sink.done.contains(&item.row) {
            continue;
        }
        match inputs::problems(&record, &item.params) {
            Some(problems) => {
                sink.failure(item.row, &item.params, "invalid", &problems)?;
                invalid += 1;
            }
            None => pending.push(item),
        }
    }

    let mut written = 0;
    let mut failed = 0;
    let mut unfinished = Vec::new();
    if !pending.is_empty() {
        let handle = c
            .batch_raw(agent)
            .submit_raw(pending.iter().map(|i| Value::Object(i.params.clone())))
            .await?;
        let mut progress = Progress::new(pending.len(), cli.json);
        let mut results = handle.indexed_results();
        while let Some(item) = results.next().await {
            match item {
                Ok((index, run)) => {
                    let Some(item) = pending.get(index) else {
                        unfinished.push(format!("a result for item {index}, which was not sent"));
                        continue;
                    };
                    let task = run.task_id.as_deref().or(run.response.task_id.as_deref());
                    written += sink.result(item.row, task, run.records())?;
                    progress.step(false);
                }
                Err(e) => match e.index.and_then(|i| pending.get(i)) {
                    Some(item) => {
                        let kind = format!("{:?}", e.error.kind()).to_lowercase();
                        sink.failure(item.row, &item.params, &kind, &e.to_string())?;
                        failed += 1;
                        progress.step(true);
                    }
                    // A whole batch failed (its items were never listed): its rows stay to do.
                    None => unfinished.push(e.to_string()),
                },
            }
        }
        progress.finish();
    }

    let rows_done = pending
        .iter()
        .filter(|i| sink.done.contains(&i.row))
        .count();
    let not_done = pending.len() - rows_done;
    #[cfg(feature = "parquet")]
    if parquet && not_done == 0 {
        written = crate::parquet::convert(agent, &rows_path, out)?;
        std::fs::remove_file(&rows_path)
            .map_err(|e| format!("cannot remove {}: {e}", rows_path.display()))?;
    }
    if cli.json {
        println!(
            "{}",
            json!({
                "agent": agent,
                "rows": rows_done + skipped + invalid + not_done,
                "skipped": skipped,
                "invalid": invalid,
                "succeeded": rows_done - failed,
                "failed": failed,
                "records": written,
                "unfinished": not_done,
                "errors": unfinished,
                "out": out,
                "failures": sink.failures_path(),
            })
        );
    } else {
        eprintln!(
            "{agent}: {} rows succeeded ({written} records) into {}, {failed} failed and {invalid} invalid into {}, {skipped} already done",
            rows_done - failed,
            out.display(),
            sink.failures_path().display(),
        );
        for e in &unfinished {
            eprintln!("error: {e}");
        }
        if not_done > 0 {
            eprintln!("{not_done} rows are not finished; run again with --resume to finish them");
        }
    }
    Ok(if not_done > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}
