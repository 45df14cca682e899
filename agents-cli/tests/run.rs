#![allow(clippy::unwrap_used)] // test helpers outside #[test] fns
//! `cargo agents run` and `cargo agents batch` against the emulator over loopback, including a
//! batch killed midway and resumed.

mod common;

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use agents_emulator::{EmulatorHandle, Fault};
use common::{KEY, emulator, json, scratch};
use serde_json::Value;

/// `cargo agents ARGS` in `cwd`, reading records from the workspace's `schemas/`, unthrottled.
fn command(e: &EmulatorHandle, cwd: &Path, args: &[&str]) -> Command {
    let schemas = Path::new(env!("CARGO_MANIFEST_DIR")).join("../schemas");
    let mut c = common::command(e, cwd, KEY, args);
    c.arg("--dir").arg(schemas).args(["--rate-limit", "0"]);
    c
}

async fn cargo_agents(e: &EmulatorHandle, cwd: &Path, args: &[&str]) -> Output {
    common::output(command(e, cwd, args)).await
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
    assert_eq!(e.requests_seen(KEY), seen, "a refused run sent something");
    let _ = std::fs::remove_dir_all(&dir);
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
        &[
            "--json",
            "batch",
            "retailer_a_pdp",
            "--input",
            "asins.csv",
            "--out",
            "results.csv",
        ],
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
    let again = cargo_agents(
        &e,
        &dir,
        &[
            "batch",
            "retailer_a_pdp",
            "--input",
            "asins.csv",
            "--out",
            "results.csv",
        ],
    )
    .await;
    assert_eq!(again.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&again.stderr).contains("--resume"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batch_killed_midway_and_resumed_loses_and_duplicates_nothing() {
    const ROWS: usize = 2500;
    let e = emulator().await;
    let dir = scratch("resume");
    let mut input = std::fs::File::create(dir.join("asins.jsonl")).unwrap();
    for i in 0..ROWS {
        writeln!(input, "{{\"asin\": \"R{i:09}\"}}").unwrap();
    }
    drop(input);
    let args = [
        "batch",
        "retailer_a_pdp",
        "--input",
        "asins.jsonl",
        "--out",
        "out.jsonl",
    ];
    // Slow answers, so that the kill lands while results are being written.
    e.inject(KEY, Fault::Latency(Duration::from_millis(15)), None);
    let mut child = command(&e, &dir, &args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let out = dir.join("out.jsonl");
    let start = Instant::now();
    let written_before_kill = loop {
        let n = std::fs::read(&out)
            .map(|b| b.iter().filter(|c| **c == b'\n').count())
            .unwrap_or(0);
        if n >= 300 {
            break n;
        }
        assert!(
            child.try_wait().unwrap().is_none(),
            "the batch ended before it could be killed"
        );
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "no results after 120 s"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(
        written_before_kill < ROWS,
        "everything was written before the kill"
    );
    e.clear_faults(KEY);

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
    assert!(summary["skipped"].as_u64().unwrap() > 0, "{summary}");

    let mut seen: BTreeMap<u64, usize> = BTreeMap::new();
    for line in lines(&out) {
        *seen.entry(line["_row"].as_u64().unwrap()).or_default() += 1;
        assert!(line["product_title"].is_string(), "{line}");
    }
    assert!(lines(&dir.join("out.jsonl.failures.jsonl")).is_empty());
    let missing: Vec<u64> = (1..=ROWS as u64)
        .filter(|r| !seen.contains_key(r))
        .collect();
    let twice: Vec<(&u64, &usize)> = seen.iter().filter(|(_, n)| **n > 1).collect();
    assert!(missing.is_empty(), "rows lost: {missing:?}");
    assert!(twice.is_empty(), "rows written twice: {twice:?}");
    assert_eq!(seen.len(), ROWS);
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn batch_writes_parquet_with_typed_columns_and_the_input_row() {
    use arrow_array::{Array, Float64Array, StringArray, UInt64Array};
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

    let e = emulator().await;
    let dir = scratch("parquet");
    let mut input = String::from("asin\n");
    for i in 0..30 {
        input.push_str(&format!("P{i:09}\n"));
    }
    std::fs::write(dir.join("asins.csv"), input).unwrap();
    let args = [
        "--json",
        "batch",
        "retailer_a_pdp",
        "--input",
        "asins.csv",
        "--out",
        "results.parquet",
    ];
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
        for i in 0..batch.num_rows() {
            rows.push(row.value(i));
            assert!(asin.is_valid(i));
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
    let _ = std::fs::remove_dir_all(&dir);
}
