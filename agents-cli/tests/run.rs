#![allow(clippy::unwrap_used)] // test helpers outside #[test] fns
//! `cargo agents run` and `cargo agents batch` against the emulator over loopback, including a
//! batch killed midway and resumed.

use crate::common;

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use agents_emulator::{EmulatorHandle, Fault};
use common::{KEY, emulator, json, scratch};
use serde_json::{Value, json};

/// `cargo agents ARGS` in `cwd`, reading records from the workspace's `schemas/`, unthrottled.
fn command(e: &EmulatorHandle, cwd: &Path, args: &[&str]) -> Command {
    common::on_catalog(e, cwd, KEY, args)
}

async fn cargo_agents(e: &EmulatorHandle, cwd: &Path, args: &[&str]) -> Output {
    common::output(command(e, cwd, args)).await
}

/// `batch retailer_a_pdp --input INPUT --out OUT`.
fn batch_args<'a>(input: &'a str, out: &'a str) -> [&'a str; 6] {
    ["batch", "retailer_a_pdp", "--input", input, "--out", out]
}

fn lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run_types_and_checks_params_before_sending() {
    let e = emulator().await;
    let dir = scratch("run");
    let out = cargo_agents(
        &e,
        &dir,
        &[
            "--json",
            "run",
            "retailer_a_pdp",
            "-p",
            "asin=B08N5WRWNW",
            "-p",
            "zip_code=10001",
        ],
    )
    .await;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r = json(&out);
    assert_eq!(r["status"], "success");
    assert!(r["records"][0]["product_title"].is_string(), "{r}");
    assert!(!String::from_utf8_lossy(&out.stderr).contains("warning"));

    // A misspelt input is sent (the service takes params it does not declare), with a warning
    // naming it beside the inputs the agent has.
    let out = cargo_agents(
        &e,
        &dir,
        &[
            "run",
            "retailer_a_pdp",
            "-p",
            "asin=B08N5WRWNW",
            "-p",
            "zipcode=10001",
            "-p",
            "country=US",
        ],
    )
    .await;
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(
            "warning: `zipcode` (did you mean `zip_code`?) is not an input of agent \
             `retailer_a_pdp`; it is sent to the service as given. Its inputs: `asin`, `zip_code`;"
        ),
        "{err}"
    );
    let seen = e.requests_seen(KEY);

    // Broken rules and wrong types are reported together, and nothing is sent.
    let out = cargo_agents(&e, &dir, &["run", "retailer_a_pdp", "-p", "asin="]).await;
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("nothing was sent") && err.contains("asin"),
        "{err}"
    );
    let out = cargo_agents(
        &e,
        &dir,
        &[
            "run",
            "retailer_a_serp",
            "-p",
            "keyword=x",
            "-p",
            "page=two",
        ],
    )
    .await;
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("`page`") && err.contains("positive integer"),
        "{err}"
    );
    let out = cargo_agents(&e, &dir, &["run", "retailer_a_pdp", "-p", "zip_code"]).await;
    assert!(String::from_utf8_lossy(&out.stderr).contains("NAME=VALUE"));
    // Every problem of one run at once: a missing input, a bad country, and a localization
    // input on an agent that is not localized, refused here rather than by the service.
    let out = cargo_agents(
        &e,
        &dir,
        &[
            "run",
            "llm_a",
            "-p",
            "country=Narnia",
            "-p",
            "zip_code=10001",
        ],
    )
    .await;
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("missing required parameter `prompt`"), "{err}");
    assert!(err.contains("two-letter country code"), "{err}");
    assert!(err.contains("is not localized"), "{err}");
    assert_eq!(e.requests_seen(KEY), seen, "a refused run sent something");
}

/// A schema pair a user wrote (`NAME.output.schema.json` + `NAME.input.schema.json`) types and
/// checks `run`'s inputs as a service record does: every problem at once, nothing sent.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run_checks_inputs_against_a_users_json_schema_files() {
    let e = emulator().await;
    let dir = scratch("run-json-schema");
    let schemas = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/json-schema");
    let mut c = common::command(
        &e,
        &dir,
        KEY,
        &["run", "review", "-p", "max_reviews=0", "-p", "language=xx"],
    );
    c.arg("--dir").arg(schemas).args(["--rate-limit", "0"]);
    let out = common::output(c).await;
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("nothing was sent"), "{err}");
    assert!(err.contains("missing required parameter `url`"), "{err}");
    assert!(err.contains("max_reviews"), "{err}");
    assert!(err.contains("language"), "{err}");
    assert_eq!(e.requests_seen(KEY), 0, "read from the files, not fetched");
}

/// A record prints in the order its schema lists its fields (as its generated type has them),
/// nested records too, not in the sorted order of a JSON map.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_record_prints_in_the_order_its_schema_lists_its_fields() {
    use agents_schema::Json;

    let e = emulator().await;
    let dir = scratch("run-order");
    let out = cargo_agents(
        &e,
        &dir,
        &["run", "search_engine_maps_search", "-p", "query=coffee"],
    )
    .await;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let printed: Json = serde_json::Deserializer::from_slice(&out.stdout)
        .into_iter()
        .next()
        .unwrap()
        .unwrap();
    let record = agents_schema::AgentRecord::from_json(
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../schemas/search_engine_maps_search.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let schema = agents_schema::json_schema::output_schema(&record);
    let keys = |tree: &Json, at: &str| -> Vec<String> {
        let object = tree.pointer(at).and_then(Json::as_object);
        object.unwrap().keys().cloned().collect()
    };
    let listed = keys(
        &schema,
        "/properties/entities/properties/Place/items/properties",
    );
    assert_eq!(
        listed.first().map(String::as_str),
        Some("position"),
        "{listed:?}"
    );
    let place = keys(&printed, "/entities/Place/0");
    let expected: Vec<String> = listed.into_iter().filter(|k| place.contains(k)).collect();
    assert_eq!(place, expected);
    // `--json` gives the records in the same order.
    let out = cargo_agents(
        &e,
        &dir,
        &[
            "--json",
            "run",
            "search_engine_maps_search",
            "-p",
            "query=coffee",
        ],
    )
    .await;
    let doc: Json = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(keys(&doc, "/records/0/entities/Place/0"), expected);

    // A batch's JSON lines: the row, the task and the inputs, then the fields as the schema
    // lists them, then the breaches, as pandas or DuckDB show the columns.
    std::fs::write(dir.join("asins.csv"), "zip_code,asin\n10001,B000000001\n").unwrap();
    let out = cargo_agents(&e, &dir, &batch_args("asins.csv", "out.jsonl")).await;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(dir.join("out.jsonl")).unwrap();
    let line: Json = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    let columns = keys(&line, "");
    assert_eq!(columns[..3], ["_row", "_task_id", "_input"], "{columns:?}");
    assert_eq!(keys(&line, "/_input"), ["asin", "zip_code"]);
    let record = agents_schema::AgentRecord::from_json(
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../schemas/retailer_a_pdp.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let fields: Vec<String> = record.output_schema.unwrap().keys().cloned().collect();
    let written: Vec<String> = columns[3..]
        .iter()
        .filter(|c| *c != "_breaches")
        .cloned()
        .collect();
    let expected: Vec<String> = fields.into_iter().filter(|f| written.contains(f)).collect();
    assert!(written.len() > 10, "{columns:?}");
    assert_eq!(written, expected);
    assert!(
        columns
            .iter()
            .position(|c| c == "_breaches")
            .is_none_or(|at| at == columns.len() - 1),
        "{columns:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn batch_writes_csv_results_and_invalid_rows_beside_them() {
    let e = emulator().await;
    let dir = scratch("csv");
    let mut input = String::from("asin,zip_code\n");
    for i in 0..40 {
        input.push_str(&format!(
            "B{i:09},{}\n",
            if i % 2 == 0 { "10001" } else { "" }
        ));
    }
    input.push_str(",10001\n"); // row 41: no asin
    input.push_str("B000000041,\n");
    std::fs::write(dir.join("asins.csv"), input).unwrap();
    let out = cargo_agents(
        &e,
        &dir,
        &[&["--json"][..], &batch_args("asins.csv", "results.csv")].concat(),
    )
    .await;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let summary = json(&out);
    assert_eq!(summary["succeeded"], 41, "{summary}");
    assert_eq!(summary["invalid"], 1, "{summary}");
    assert!(!String::from_utf8_lossy(&out.stderr).contains("warning"));

    let mut reader = csv::Reader::from_path(dir.join("results.csv")).unwrap();
    let headers = reader.headers().unwrap().clone();
    assert_eq!(&headers[0], "_row");
    assert_eq!(&headers[1], "_task_id");
    let title = headers.iter().position(|h| h == "product_title").unwrap();
    let mut rows: Vec<usize> = Vec::new();
    for record in reader.records() {
        let record = record.unwrap();
        assert!(!record[title].is_empty());
        rows.push(record[0].parse().unwrap());
    }
    rows.sort_unstable();
    let expected: Vec<usize> = (1..=42).filter(|r| *r != 41).collect();
    assert_eq!(rows, expected);

    let failures = lines(&dir.join("results.csv.failures.jsonl"));
    assert_eq!(failures.len(), 1);
    assert_eq!(failures[0]["_row"], 41);
    assert_eq!(failures[0]["kind"], "invalid");
    assert!(failures[0]["error"].as_str().unwrap().contains("asin"));

    // The finished run is not overwritten by accident.
    let again = cargo_agents(&e, &dir, &batch_args("asins.csv", "results.csv")).await;
    assert_eq!(again.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&again.stderr).contains("--resume"));
}

/// A batch of more than 1,000 rows goes in several batches; when one is refused after others
/// were submitted, the submitted ones ran (and are billed), so their results are written and
/// only the rest is left to --resume, which sends nothing twice.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rows_of_batches_submitted_before_one_failed_are_written_not_lost() {
    let e = emulator().await;
    let dir = scratch("partial-submit");
    // Rows after the first 1,000 carry a note large enough that their batch's body passes the
    // service's limit (16 MiB): the second batch is refused, the first runs.
    let write = |note: &str| {
        let mut csv = String::from("asin,note\n");
        for row in 1..=1200 {
            let note = if row > 1000 { note } else { "" };
            csv.push_str(&format!("B{row:09},{note}\n"));
        }
        std::fs::write(dir.join("in.csv"), csv).unwrap();
    };
    write(&"x".repeat(90_000));
    let args = [&["--json"][..], &batch_args("in.csv", "out.jsonl")].concat();
    let first = cargo_agents(&e, &dir, &args).await;
    assert_eq!(first.status.code(), Some(1));
    let summary = json(&first);
    assert_eq!(
        (&summary["succeeded"], &summary["unfinished"]),
        (&1000.into(), &200.into()),
        "{summary}"
    );
    let error = summary["errors"][0].as_str().unwrap_or_default();
    assert!(
        error.starts_with("1 batch(es) were submitted, then: "),
        "{summary}"
    );
    let rows: Vec<u64> = lines(&dir.join("out.jsonl"))
        .iter()
        .map(|r| r["_row"].as_u64().unwrap())
        .collect();
    assert_each_row_once(&rows, 1000);

    // The rows left are sent once the input is fixed, and only they.
    write("");
    let tasks = e.task_count();
    let resumed = cargo_agents(&e, &dir, &[&args[..], &["--resume"]].concat()).await;
    assert!(
        resumed.status.success(),
        "{}",
        String::from_utf8_lossy(&resumed.stderr)
    );
    assert_eq!(e.task_count() - tasks, 200);
    let rows: Vec<u64> = lines(&dir.join("out.jsonl"))
        .iter()
        .map(|r| r["_row"].as_u64().unwrap())
        .collect();
    assert_each_row_once(&rows, 1200);
}

/// A run, a job or a batch whose answer was lost after it was sent (here cut short) may have
/// taken effect: the error says so, where an answer refusing it does not.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_whose_answer_was_lost_says_it_may_have_run() {
    let e = emulator().await;
    let dir = scratch("answer-lost");
    asins_csv(&dir, 'L', 3);
    for (args, said) in [
        (
            &["run", "retailer_a_pdp", "-p", "asin=B000000001"][..],
            "the service may have run it (and billed it)",
        ),
        (
            &[
                "jobs",
                "create",
                "j",
                "--agent",
                "retailer_a_pdp",
                "--input",
                "asins.csv",
            ][..],
            "the job may have been created",
        ),
        (
            &batch_args("asins.csv", "lost.jsonl")[..],
            "the service may have created the batch",
        ),
    ] {
        // The call that makes something, after whatever the command reads first.
        e.inject_on(KEY, "POST", Fault::Truncate, Some(1));
        let out = cargo_agents(&e, &dir, args).await;
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(said), "{args:?}: {err}");
        e.clear_faults(KEY);
    }
    // A refusal ran nothing, and does not say it may have.
    let out = cargo_agents(&e, &dir, &["run", "retailer_a_pdx", "-p", "asin=B1"]).await;
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("may have"), "{err}");
}

/// `run --pages N` reads the pages of a paginated agent from the page asked for, and stops
/// where the emulator's real pages end (the page after the last repeats it); an agent without a
/// page input is refused before anything is sent.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run_reads_the_pages_of_a_paginated_agent() {
    let e = emulator().await;
    let dir = scratch("pages");
    let args = [
        "--json",
        "run",
        "search_engine_maps_search",
        "-p",
        "query=coffee",
        "-p",
        "page=4",
        "--pages",
        "10",
    ];
    let out = cargo_agents(&e, &dir, &args).await;
    let doc = json(&out);
    let pages: Vec<u64> = doc["pages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["page"].as_u64().unwrap())
        .collect();
    assert_eq!(pages, [4, 5], "{doc}");
    let counted: u64 = doc["pages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["records"].as_u64().unwrap())
        .sum();
    assert_eq!(doc["records"].as_array().unwrap().len() as u64, counted);

    let before = e.requests_seen(KEY);
    let out = cargo_agents(
        &e,
        &dir,
        &["run", "retailer_a_pdp", "-p", "asin=B1", "--pages", "2"],
    )
    .await;
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("has no page input"), "{err}");
    assert!(
        e.requests_seen(KEY) <= before + 1,
        "only the agent's record may be asked for"
    );
}

/// Inputs that cannot be read are named all at once, row by row (a JSONL line naming a key
/// twice among them), and an input file without rows or with a column named twice is refused: in both cases nothing is sent and no output file is made.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unreadable_or_empty_inputs_are_named_before_anything_is_sent() {
    let e = emulator().await;
    let dir = scratch("unreadable");
    std::fs::write(
        dir.join("ragged.csv"),
        "asin,zip_code\nB1,10001\nB2\nB3,10001,x\nB4,10001\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("bad.jsonl"),
        "{\"asin\": \"B1\"}\n[1]\nnot json\n\n{\"asin\": \"B5\"}\n{\"asin\": \"B6\", \"asin\": \"B7\"}\n",
    )
    .unwrap();
    std::fs::write(dir.join("header.csv"), "asin,zip_code\n").unwrap();
    std::fs::write(dir.join("twice.csv"), "asin,zip_code,asin\nB1,10001,B2\n").unwrap();
    for (input, said) in [
        (
            "ragged.csv",
            &[
                "2 problem(s) reading ragged.csv",
                "row 2 (line 3): 1 field(s), where the header has 2",
                "row 3 (line 4): 3 field(s), where the header has 2",
            ][..],
        ),
        (
            "bad.jsonl",
            &[
                "3 problem(s) reading bad.jsonl",
                "line 2: expected a JSON object of params, found an array",
                "line 3: ",
                "line 6: $.asin: `asin` is given twice",
            ][..],
        ),
        ("header.csv", &["header.csv holds no rows of inputs"][..]),
        (
            "twice.csv",
            &["twice.csv: the header names `asin` in columns 1, 3"][..],
        ),
    ] {
        for command in [
            &batch_args(input, "o.jsonl")[..],
            &[
                "jobs",
                "create",
                "j",
                "--agent",
                "retailer_a_pdp",
                "--input",
                input,
            ][..],
        ] {
            let out = cargo_agents(&e, &dir, command).await;
            assert_eq!(out.status.code(), Some(1), "{command:?}");
            let err = String::from_utf8_lossy(&out.stderr);
            for part in said.iter().chain(&["nothing was sent"]) {
                assert!(err.contains(part), "{command:?}: {part:?} in {err}");
            }
            assert!(!dir.join("o.jsonl").exists(), "{command:?}");
        }
    }
    assert_eq!(e.task_count(), 0);
    assert_eq!(
        e.requests_seen(KEY),
        0,
        "the record was read from the catalog"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_closed_stdout_ends_run_quietly() {
    let e = emulator().await;
    let dir = scratch("pipe");
    // As `cargo agents run … | head -0`: the reader is gone before anything is written.
    let mut child = command(
        &e,
        &dir,
        &["run", "retailer_a_pdp", "-p", "asin=B000000001"],
    )
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    drop(child.stdout.take());
    let out = tokio::task::spawn_blocking(move || child.wait_with_output().unwrap())
        .await
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
    assert!(out.status.success(), "{:?}: {err}", out.status);
}

/// The `_row` of every complete result in `out` (JSONL, CSV, or the staging file of Parquet
/// output while it runs, and the Parquet file when it is finished), read here, not by the CLI.
fn rows_on_disk(out: &Path) -> Vec<u64> {
    use arrow_array::{Array, UInt64Array};
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

    let staging = out.with_extension("parquet.partial.jsonl");
    match out.extension().and_then(|e| e.to_str()) {
        Some("parquet") if out.exists() => {
            let bytes = bytes::Bytes::from(std::fs::read(out).unwrap());
            let reader = ParquetRecordBatchReaderBuilder::try_new(bytes)
                .unwrap()
                .build()
                .unwrap();
            let mut rows = Vec::new();
            for batch in reader {
                let batch = batch.unwrap();
                let c = batch.column_by_name("_row").unwrap();
                let c = c.as_any().downcast_ref::<UInt64Array>().unwrap();
                rows.extend((0..c.len()).map(|i| c.value(i)));
            }
            rows
        }
        Some("parquet") => complete_jsonl_rows(&staging),
        Some("csv") => {
            let text = std::fs::read_to_string(out).unwrap_or_default();
            // A record cut short by the kill has no newline after it.
            let complete = &text[..text.rfind('\n').map_or(0, |i| i + 1)];
            csv::Reader::from_reader(complete.as_bytes())
                .records()
                .map(|r| r.unwrap()[0].parse().unwrap())
                .collect()
        }
        _ => complete_jsonl_rows(out),
    }
}

fn complete_jsonl_rows(path: &Path) -> Vec<u64> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.split_inclusive('\n')
        .filter(|l| l.ends_with('\n'))
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["_row"]
                .as_u64()
                .unwrap()
        })
        .collect()
}

/// Rows `1..=rows` each exactly once.
fn assert_each_row_once(rows: &[u64], total: usize) {
    let mut seen: BTreeMap<u64, usize> = BTreeMap::new();
    for r in rows {
        *seen.entry(*r).or_default() += 1;
    }
    let missing: Vec<u64> = (1..=total as u64)
        .filter(|r| !seen.contains_key(r))
        .collect();
    let twice: Vec<(&u64, &usize)> = seen.iter().filter(|(_, n)| **n > 1).collect();
    assert!(missing.is_empty(), "rows lost: {missing:?}");
    assert!(twice.is_empty(), "rows written twice: {twice:?}");
    assert_eq!(seen.len(), total);
}

/// `asins.csv` in `dir`: a header and `n` asins `{prefix}000000000`, `{prefix}000000001`, …
fn asins_csv(dir: &Path, prefix: char, n: usize) {
    let mut input = String::from("asin\n");
    for i in 0..n {
        input.push_str(&format!("{prefix}{i:09}\n"));
    }
    std::fs::write(dir.join("asins.csv"), input).unwrap();
}

/// `cargo agents ARGS` started with slow answers from the emulator (so that it can be stopped
/// while results are being written), once `out` holds at least `rows` complete results.
async fn slow_batch_with_rows(
    e: &EmulatorHandle,
    dir: &Path,
    args: &[&str],
    out: &Path,
    rows: usize,
) -> std::process::Child {
    e.inject(KEY, Fault::Latency(Duration::from_millis(15)), None);
    let mut child = command(e, dir, args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while rows_on_disk(out).len() < rows {
        assert!(
            child.try_wait().unwrap().is_none(),
            "the batch ended before it could be stopped"
        );
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "no results after 120 s"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    child
}

/// A batch of `rows` inputs into `out`, killed once at least 300 results are on disk, then
/// resumed: every row once in the output, and the resumed run sent exactly the rows that were
/// not on disk (counted by the emulator's tasks, not by the CLI).
async fn killed_and_resumed(out_name: &str, rows: usize) {
    let e = emulator().await;
    let dir = scratch(&format!("resume-{out_name}"));
    let mut input = std::fs::File::create(dir.join("asins.jsonl")).unwrap();
    for i in 0..rows {
        writeln!(input, "{{\"asin\": \"R{i:09}\"}}").unwrap();
    }
    drop(input);
    let args = batch_args("asins.jsonl", out_name);
    let out = dir.join(out_name);
    let mut child = slow_batch_with_rows(&e, &dir, &args, &out, 300).await;
    child.kill().unwrap();
    child.wait().unwrap();
    e.clear_faults(KEY);
    let before = rows_on_disk(&out);
    assert!(
        before.len() < rows,
        "everything was written before the kill"
    );
    assert!(!out.exists() || !out_name.ends_with(".parquet"));

    let tasks = e.task_count();
    let mut resume_args = args.to_vec();
    resume_args.insert(0, "--json");
    resume_args.push("--resume");
    let resumed = cargo_agents(&e, &dir, &resume_args).await;
    assert!(
        resumed.status.success(),
        "{}",
        String::from_utf8_lossy(&resumed.stderr)
    );
    let summary = json(&resumed);
    assert_eq!(summary["skipped"], before.len(), "{summary}");
    assert_eq!(
        e.task_count() - tasks,
        rows - before.len(),
        "the resumed run sent exactly the rows not on disk"
    );
    assert_each_row_once(&rows_on_disk(&out), rows);
    let failures = dir.join(format!("{out_name}.failures.jsonl"));
    assert!(!failures.exists(), "no row failed, so no failures file");
    assert_eq!(summary["failures"], Value::Null, "{summary}");

    // Resuming the finished run sends nothing at all.
    let tasks = e.task_count();
    let again = cargo_agents(&e, &dir, &resume_args).await;
    assert!(
        again.status.success(),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    assert_eq!(json(&again)["skipped"], rows);
    assert_eq!(
        e.task_count(),
        tasks,
        "a finished run resumed sends nothing"
    );
    assert_each_row_once(&rows_on_disk(&out), rows);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_c_stops_a_batch_with_the_resume_hint() {
    let e = emulator().await;
    let dir = scratch("ctrl-c");
    asins_csv(&dir, 'C', 2500);
    let args = batch_args("asins.csv", "out.jsonl");
    let out = dir.join("out.jsonl");
    let child = slow_batch_with_rows(&e, &dir, &args, &out, 50).await;
    // What a terminal sends on Ctrl-C.
    let sent = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let done = tokio::task::spawn_blocking(move || child.wait_with_output().unwrap())
        .await
        .unwrap();
    e.clear_faults(KEY);
    let err = String::from_utf8_lossy(&done.stderr);
    assert_eq!(done.status.code(), Some(130), "{err}");
    assert!(
        err.contains("interrupted") && err.contains("--resume"),
        "{err}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn jsonl_killed_midway_and_resumed_sends_only_rows_not_on_disk() {
    killed_and_resumed("out.jsonl", 1500).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn csv_killed_midway_and_resumed_sends_only_rows_not_on_disk() {
    killed_and_resumed("out.csv", 1500).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn parquet_killed_midway_and_resumed_sends_only_rows_not_on_disk() {
    killed_and_resumed("out.parquet", 1500).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_finished_run_resumed_sends_nothing_in_every_format() {
    let e = emulator().await;
    let dir = scratch("finished");
    asins_csv(&dir, 'F', 40);
    // One row that breaks a rule (its required input is empty): a failure on disk is done too.
    let mut input = std::fs::read_to_string(dir.join("asins.csv")).unwrap();
    input.push_str("\"\"\n");
    std::fs::write(dir.join("asins.csv"), input).unwrap();
    for out in ["f.jsonl", "f.csv", "f.parquet"] {
        let args = [&["--json"][..], &batch_args("asins.csv", out)].concat();
        let first = cargo_agents(&e, &dir, &args).await;
        assert!(
            first.status.success(),
            "{out}: {}",
            String::from_utf8_lossy(&first.stderr)
        );
        let tasks = e.task_count();
        let mut resume = args.to_vec();
        resume.push("--resume");
        let again = cargo_agents(&e, &dir, &resume).await;
        assert!(
            again.status.success(),
            "{out}: {}",
            String::from_utf8_lossy(&again.stderr)
        );
        let summary = json(&again);
        assert_eq!(summary["skipped"], 41, "{out}: {summary}");
        assert_eq!(summary["succeeded"], 0, "{out}: {summary}");
        assert_eq!(e.task_count(), tasks, "{out}: nothing sent");
        assert_each_row_once(&rows_on_disk(&dir.join(out)), 40);
    }

    // A finished Parquet file with input rows it does not hold: refused, nothing sent.
    let mut more = std::fs::read_to_string(dir.join("asins.csv")).unwrap();
    more.push_str("G000000001\n");
    std::fs::write(dir.join("more.csv"), more).unwrap();
    let tasks = e.task_count();
    let args = [&batch_args("more.csv", "f.parquet")[..], &["--resume"]].concat();
    let refused = cargo_agents(&e, &dir, &args).await;
    assert_eq!(refused.status.code(), Some(1));
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(
        err.contains("finished Parquet file") && err.contains("row 42"),
        "{err}"
    );
    assert_eq!(e.task_count(), tasks);
}

/// A row is known by its position, so a run resumed over an input file edited since it began
/// (a row removed, the rows after it moved up) would skip rows never sent and count them as
/// done. Each done row is read back with its inputs: such a run is refused, naming the row and
/// what it held, and sends nothing; rows only added at the end are sent as any others.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_resumed_run_over_an_edited_input_file_is_refused_in_every_format() {
    let e = emulator().await;
    let dir = scratch("edited");
    asins_csv(&dir, 'E', 6);
    let original = std::fs::read_to_string(dir.join("asins.csv")).unwrap();
    let mut lines: Vec<&str> = original.lines().collect();
    lines.remove(2);
    std::fs::write(dir.join("edited.csv"), lines.join("\n") + "\n").unwrap();
    std::fs::write(dir.join("longer.csv"), original.clone() + "E000000099\n").unwrap();
    for out in ["e.jsonl", "e.csv", "e.parquet"] {
        let first = cargo_agents(&e, &dir, &batch_args("asins.csv", out)).await;
        assert!(first.status.success(), "{out}");
        let written = std::fs::read(dir.join(out)).unwrap();
        let tasks = e.task_count();
        let args = [&batch_args("edited.csv", out)[..], &["--resume"]].concat();
        let refused = cargo_agents(&e, &dir, &args).await;
        assert_eq!(refused.status.code(), Some(1), "{out}");
        let err = String::from_utf8_lossy(&refused.stderr);
        assert!(
            err.contains("nothing was sent")
                && err.contains("4 row(s) of edited.csv with other inputs")
                && err.contains(r#"row 2: was asin="E000000001", now asin="E000000002""#),
            "{out}: {err}"
        );
        assert_eq!(e.task_count(), tasks, "{out}: nothing sent");
        assert_eq!(std::fs::read(dir.join(out)).unwrap(), written, "{out}");

        let args = [
            &["--json"][..],
            &batch_args("longer.csv", out),
            &["--resume"],
        ]
        .concat();
        let longer = cargo_agents(&e, &dir, &args).await;
        if out.ends_with(".parquet") {
            // A finished Parquet file takes no more rows.
            let err = json(&longer)["error"].to_string();
            assert!(
                err.contains("is a finished Parquet file, and 1 input row(s) are not in it (row 7"),
                "{err}"
            );
            assert_eq!(e.task_count(), tasks, "{out}: nothing sent");
            continue;
        }
        assert!(
            longer.status.success(),
            "{out}: {}",
            String::from_utf8_lossy(&longer.stderr)
        );
        let summary = json(&longer);
        assert_eq!(
            (&summary["skipped"], &summary["succeeded"]),
            (&json!(6), &json!(1))
        );
        assert_eq!(
            e.task_count(),
            tasks + 1,
            "{out}: only the added row is sent"
        );
    }
}

/// An agent whose output schema has a field under a name `batch` writes its own column under
/// (`_row`) is refused before anything is sent: its records would overwrite the column, and a
/// resumed run would no longer know its rows (it would cut them from the file and send them
/// all again).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_field_named_as_a_column_of_batch_is_refused_before_anything_is_sent() {
    let e = emulator().await;
    let dir = scratch("reserved");
    std::fs::create_dir_all(dir.join("catalog")).unwrap();
    std::fs::write(
        dir.join("catalog/rowy.json"),
        r#"{"name": "rowy", "input_properties": [{"name": "url", "type": "string", "is_required": true}],
            "output_schema": {"title": {"type": "string"}, "_row": {"type": "string"}}}"#,
    )
    .unwrap();
    std::fs::write(dir.join("u.csv"), "url\nhttp://a.example/1\n").unwrap();
    let seen = e.requests_seen(KEY);
    let out = cargo_agents(
        &e,
        &dir,
        &["batch", "rowy", "--input", "u.csv", "--out", "r.jsonl"],
    )
    .await;
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("nothing was sent: `rowy`'s output schema has field(s) `_row`, names batch"),
        "{err}"
    );
    assert_eq!(e.requests_seen(KEY), seen);
    assert!(!dir.join("r.jsonl").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn batch_writes_parquet_with_typed_columns_and_the_input_row() {
    use arrow_array::{Array, Float64Array, StringArray, StructArray, UInt64Array};
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

    let e = emulator().await;
    let dir = scratch("parquet");
    asins_csv(&dir, 'P', 30);
    let args = [&["--json"][..], &batch_args("asins.csv", "results.parquet")].concat();
    let out = cargo_agents(&e, &dir, &args).await;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(json(&out)["records"], 30);
    assert!(!dir.join("results.parquet.partial.jsonl").exists());

    let bytes = bytes::Bytes::from(std::fs::read(dir.join("results.parquet")).unwrap());
    let reader = ParquetRecordBatchReaderBuilder::try_new(bytes)
        .unwrap()
        .build()
        .unwrap();
    let mut rows = Vec::new();
    for batch in reader {
        let batch = batch.unwrap();
        let row = batch.column_by_name("_row").unwrap();
        let row = row.as_any().downcast_ref::<UInt64Array>().unwrap();
        let asin = batch.column_by_name("asin").unwrap();
        let asin = asin.as_any().downcast_ref::<StringArray>().unwrap();
        let price = batch.column_by_name("web_price").unwrap();
        assert!(
            price.as_any().downcast_ref::<Float64Array>().is_some(),
            "web_price is not Float64"
        );
        // The input each record came from, to join on.
        let input = batch.column_by_name("_input").unwrap();
        let input = input.as_any().downcast_ref::<StructArray>().unwrap();
        let input_asin = input.column_by_name("asin").unwrap();
        let input_asin = input_asin.as_any().downcast_ref::<StringArray>().unwrap();
        for i in 0..batch.num_rows() {
            rows.push(row.value(i));
            assert!(asin.is_valid(i));
            assert_eq!(input_asin.value(i), format!("P{:09}", row.value(i) - 1));
        }
    }
    rows.sort_unstable();
    assert_eq!(rows, (1..=30).collect::<Vec<u64>>());

    // An agent without typed bindings here cannot be written as Parquet; nothing is sent.
    std::fs::write(dir.join("urls.jsonl"), "{\"url\": \"https://a.example\"}\n").unwrap();
    let seen = e.requests_seen(KEY);
    let out = cargo_agents(
        &e,
        &dir,
        &[
            "batch",
            "my_private_agent",
            "--input",
            "urls.jsonl",
            "--out",
            "x.parquet",
        ],
    )
    .await;
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("not in the catalog") || err.contains("404"),
        "{err}"
    );
    assert!(
        e.requests_seen(KEY) <= seen + 1,
        "only the agent's record may be asked for"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run_and_batch_speak_either_version() {
    let e = emulator().await;
    let dir = scratch("versions");
    let out = cargo_agents(
        &e,
        &dir,
        &[
            "--json",
            "--api-version",
            "v2",
            "run",
            "retailer_a_pdp",
            "-p",
            "asin=B08N5WRWNW",
        ],
    )
    .await;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(json(&out)["records"][0]["product_title"].is_string());

    // The environment chooses too: a batch over /v2.
    asins_csv(&dir, 'V', 30);
    let input = dir.join("asins.csv");
    let results = dir.join("v2.jsonl");
    let mut c = command(
        &e,
        &dir,
        &batch_args(input.to_str().unwrap(), results.to_str().unwrap()),
    );
    c.env("AGENTS_API_VERSION", "v2");
    let out = common::output(c).await;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(lines(&results).len(), 30);

    let out = cargo_agents(&e, &dir, &["--api-version", "v3", "run", "retailer_a_pdp"]).await;
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("expected one of `v1`, `v2`"), "{err}");
}

/// A batch whose answers drift from the schema (values of the wrong type): each such record
/// carries its breaches in `_breaches`, the run ends with the field table, and `cargo agents
/// fields` gives the same table again from the JSONL and the Parquet output.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batch_ends_with_the_field_table_and_records_carry_their_breaches() {
    let e = emulator().await;
    e.inject(KEY, Fault::Drift, None);
    let dir = scratch("breaches");
    asins_csv(&dir, 'B', 40);
    let mut tables = Vec::new();
    for out in ["b.jsonl", "b.parquet", "b.csv"] {
        let batch = cargo_agents(&e, &dir, &batch_args("asins.csv", out)).await;
        assert!(
            batch.status.success(),
            "{}",
            String::from_utf8_lossy(&batch.stderr)
        );
        let printed = String::from_utf8_lossy(&batch.stdout).into_owned();
        let again = cargo_agents(&e, &dir, &["fields", out]).await;
        assert!(
            again.status.success(),
            "{}",
            String::from_utf8_lossy(&again.stderr)
        );
        assert_eq!(String::from_utf8_lossy(&again.stdout), printed, "{out}");
        tables.push(printed);
    }
    let table = &tables[0];
    assert!(table.starts_with("40 records\n"), "{table}");
    // Drift sends about one value in four with the wrong type: the table counts them by field.
    let typed: Vec<&str> = table.lines().filter(|l| l.contains("type ")).collect();
    assert!(!typed.is_empty(), "{table}");
    // In the schema's order, from the batch and from each output alike.
    assert!(
        table
            .lines()
            .nth(2)
            .is_some_and(|l| l.starts_with("product_title ")),
        "{table}"
    );
    // Both outputs hold the same breaches, counted the same way.
    let breach_lines = |t: &str| -> Vec<String> {
        t.lines()
            .map(|l| l.split("  ").last().unwrap_or_default().to_owned())
            .collect()
    };
    assert_eq!(
        breach_lines(&tables[0]).len(),
        breach_lines(&tables[1]).len()
    );

    // Records from elsewhere (a job's artifact: the fields alone) give the same table with
    // --agent, which checks each against the agent's schema.
    let plain: String = lines(&dir.join("b.jsonl"))
        .into_iter()
        .map(|mut r| {
            let fields = r.as_object_mut().unwrap();
            fields.retain(|k, _| !k.starts_with('_'));
            format!("{r}\n")
        })
        .collect();
    std::fs::write(dir.join("plain.jsonl"), plain).unwrap();
    let checked = cargo_agents(
        &e,
        &dir,
        &["fields", "plain.jsonl", "--agent", "retailer_a_pdp"],
    )
    .await;
    assert_eq!(String::from_utf8_lossy(&checked.stdout), *table);
    // The agent's schema is in --dir: the same check needs neither a key nor the service.
    let mut offline = command(
        &e,
        &dir,
        &["fields", "plain.jsonl", "--agent", "retailer_a_pdp"],
    );
    offline
        .env_remove("AGENTS_BASE_URL")
        .env_remove("AGENTS_API_KEY");
    let offline = common::output(offline).await;
    assert!(
        offline.status.success(),
        "{}",
        String::from_utf8_lossy(&offline.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&offline.stdout), *table);
    // An agent it does not hold would be read from the service: the failure says why it asks.
    let mut elsewhere = command(&e, &dir, &["fields", "plain.jsonl", "--agent", "nosuch"]);
    elsewhere
        .env_remove("AGENTS_BASE_URL")
        .env_remove("AGENTS_API_KEY");
    let err = String::from_utf8_lossy(&common::output(elsewhere).await.stderr).into_owned();
    for said in [
        "`nosuch` has no schema in",
        "read from the service",
        "AGENTS_API_KEY",
    ] {
        assert!(err.contains(said), "{said:?} missing from {err}");
    }
    let unchecked = cargo_agents(&e, &dir, &["fields", "plain.jsonl"]).await;
    assert!(!String::from_utf8_lossy(&unchecked.stdout).contains("type "));

    // Records that leave out a field the schema names and carry one it does not (as a job's
    // artifact carries its input's index): the first is a row filled by none, the second is
    // named as sent unasked — from JSONL with --agent, and from Parquet.
    let reshaped: Vec<Value> = lines(&dir.join("b.jsonl"))
        .into_iter()
        .map(|mut r| {
            let fields = r.as_object_mut().unwrap();
            fields.remove("product_title");
            fields.insert("seller_note".into(), json!("ships fast"));
            r
        })
        .collect();
    let write = |name: &str, keep_bookkeeping: bool| {
        let text: String = reshaped
            .iter()
            .map(|r| {
                let mut r = r.clone();
                if !keep_bookkeeping {
                    r.as_object_mut()
                        .unwrap()
                        .retain(|k, _| !k.starts_with('_'));
                }
                format!("{r}\n")
            })
            .collect();
        std::fs::write(dir.join(name), text).unwrap();
    };
    write("artifact.jsonl", false);
    // A Parquet run whose rows are all on disk is finished by --resume without sending any.
    write("reshaped.parquet.partial.jsonl", true);
    let resumed = cargo_agents(
        &e,
        &dir,
        &[
            &batch_args("asins.csv", "reshaped.parquet")[..],
            &["--resume"],
        ]
        .concat(),
    )
    .await;
    assert!(
        resumed.status.success(),
        "{}",
        String::from_utf8_lossy(&resumed.stderr)
    );
    for args in [
        &["fields", "artifact.jsonl", "--agent", "retailer_a_pdp"][..],
        &["fields", "reshaped.parquet"][..],
    ] {
        let out = cargo_agents(&e, &dir, args).await;
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{args:?}: {text}");
        let row = |name: &str| {
            text.lines()
                .find(|l| l.split_whitespace().next() == Some(name))
                .map(|l| l.split_whitespace().skip(1).take(2).collect::<Vec<_>>())
        };
        assert_eq!(
            row("product_title"),
            Some(vec!["0", "40"]),
            "{args:?}: {text}"
        );
        assert_eq!(
            row("seller_note"),
            Some(vec!["40", "0"]),
            "{args:?}: {text}"
        );
        assert!(
            text.contains("fields the schema does not name: seller_note\n"),
            "{args:?}: {text}"
        );
        let out = cargo_agents(&e, &dir, &[&["--json"][..], args].concat()).await;
        let table = json(&out);
        let field = |name: &str| {
            table["fields"]
                .as_array()
                .unwrap()
                .iter()
                .find(|f| f["field"] == name)
                .cloned()
                .unwrap_or_default()
        };
        assert_eq!(field("seller_note")["in_schema"], false, "{table}");
        assert_eq!(field("product_title")["in_schema"], true, "{table}");
    }

    // Each breach is in the record's line, with its path and keyword, where a query finds it.
    let rows = lines(&dir.join("b.jsonl"));
    let broken: Vec<&Value> = rows
        .iter()
        .filter(|r| r.get("_breaches").is_some())
        .collect();
    assert_eq!(rows.len(), 40);
    assert!(!broken.is_empty());
    for r in &broken {
        for b in r["_breaches"].as_array().unwrap() {
            let path = b["path"].as_str().unwrap();
            let field = agents_runtime::check::path::first_key(path).unwrap();
            assert!(r.get(&field).is_some(), "{b} names a field the record has");
            assert!(
                b["keyword"].is_string() && b["schema_path"].is_string(),
                "{b}"
            );
        }
    }
}

/// `run` prints records as the service sent them and says beside them which rules of the
/// agent's output schema they break: a warning per record on standard error, and `breaches` in
/// `--json`, the same set of fields the `jsonschema` crate finds at fault.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_says_which_rules_its_record_breaks() {
    let e = emulator().await;
    let dir = scratch("run-breaches");
    e.inject(KEY, Fault::Drift, None);
    let args = ["run", "retailer_a_pdp", "-p", "asin=B000000001"];
    let text = cargo_agents(&e, &dir, &args).await;
    let json_run = cargo_agents(&e, &dir, &[&["--json"][..], &args].concat()).await;
    e.clear_faults(KEY);
    let err = String::from_utf8_lossy(&text.stderr);
    assert!(text.status.success(), "{err}");
    assert!(
        err.contains("warning: the record breaks ")
            && err.contains(" rule(s) of `retailer_a_pdp`'s output schema:\n  "),
        "{err}"
    );
    let doc = json(&json_run);
    let record = &doc["records"][0];
    let ours: std::collections::BTreeSet<String> = doc["breaches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            assert_eq!(b["record"], 0, "{b}");
            agents_runtime::check::path::first_key(b["path"].as_str().unwrap()).unwrap()
        })
        .collect();
    assert!(!ours.is_empty(), "drift breaks some rule: {doc}");
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../schemas/retailer_a_pdp.json"),
    )
    .unwrap();
    let schema = agents_schema::json_schema::output_schema(
        &agents_schema::AgentRecord::from_json(&text).unwrap(),
    );
    let theirs: std::collections::BTreeSet<String> = jsonschema::validator_for(&schema.to_value())
        .unwrap()
        .iter_errors(record)
        .map(|e| {
            let pointer = e.instance_path().to_string();
            pointer.split('/').nth(1).unwrap_or_default().to_owned()
        })
        .collect();
    assert_eq!(ours, theirs);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batch_names_each_param_its_agent_does_not_declare_once() {
    let e = emulator().await;
    let dir = scratch("undeclared");
    std::fs::write(
        dir.join("in.jsonl"),
        "{\"asin\": \"B000000001\", \"zipcode\": \"10001\"}\n\
         {\"asin\": \"B000000002\", \"zipcode\": \"10002\", \"Country\": \"US\"}\n",
    )
    .unwrap();
    let out = cargo_agents(
        &e,
        &dir,
        &[&["--json"][..], &batch_args("in.jsonl", "out.jsonl")].concat(),
    )
    .await;
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert_eq!(json(&out)["succeeded"], 2, "{err}");
    assert_eq!(err.matches("warning").count(), 1, "{err}");
    assert!(
        err.contains(
            "warning: in.jsonl: `Country` (did you mean `country`?), `zipcode` (did you mean \
             `zip_code`?) are not inputs of agent `retailer_a_pdp`; they are sent to the service \
             as given."
        ),
        "{err}"
    );
}
