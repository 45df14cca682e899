//! The one-command pipeline in a process of its own, so that its peak RSS is the pipeline's:
//! N `retailer_a_pdp` results from the emulator at BASE, streamed from a batch, typed, written to
//! OUT_DIR/results.parquet (the default row groups of 2,000, zstd) and, in the same pass, to
//! OUT_DIR/results.jsonl; then results.jsonl.gz from that file. Prints the benchmark rows.
//!
//! `agents-bench-parquet BASE N OUT_DIR` (the runner starts it; see `cargo xtask bench --only parquet`).

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::time::Instant;

use agents_bench::measure::row;
use agents_runtime::Client;
use agents_runtime::catalog::{RetailerAPdp, RetailerAPdpParams};
use agents_runtime::columnar::{ParquetOptions, ParquetWriter};
use futures::StreamExt;

/// This process's peak resident set (VmHWM), in bytes.
fn peak_rss() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        })
        .map_or(0, |kb| kb * 1024)
}

fn rss_now() -> u64 {
    std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| s.split_whitespace().nth(1)?.parse::<u64>().ok())
        .map_or(0, |pages| pages * 4096)
}

fn fail(what: &str, e: impl std::fmt::Display) -> ! {
    eprintln!("agents-bench-parquet: {what}: {e}");
    std::process::exit(1)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [base, n, out] = args.as_slice() else {
        fail("usage", "agents-bench-parquet BASE N OUT_DIR");
    };
    let n: usize = n.parse().unwrap_or_else(|e| fail("N", e));
    let out = PathBuf::from(out);
    let _ = std::fs::create_dir_all(&out);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap_or_else(|e| fail("runtime", e));
    let client = Client::builder()
        .base_url(base)
        .api_key("bench")
        .rate_limit(None)
        .header("x-emulator-task-ms", "0")
        .build()
        .unwrap_or_else(|e| fail("client", e));
    let parquet_path = out.join("results.parquet");
    let jsonl_path = out.join("results.jsonl");
    let parquet_file = File::create(&parquet_path).unwrap_or_else(|e| fail("results.parquet", e));
    let mut parquet = ParquetWriter::<RetailerAPdp, _>::new(
        BufWriter::new(parquet_file),
        ParquetOptions::default(),
    )
    .unwrap_or_else(|e| fail("parquet writer", e));
    let mut jsonl =
        BufWriter::new(File::create(&jsonl_path).unwrap_or_else(|e| fail("results.jsonl", e)));
    let start = Instant::now();
    let mut samples = Vec::new();
    let (records, failed) = rt.block_on(async {
        let handle = client
            .batch::<RetailerAPdp>()
            .submit((0..n).map(|i| RetailerAPdpParams::new(format!("B{i:09}"))))
            .await
            .unwrap_or_else(|e| fail("submit", e))
            .concurrency(32);
        let mut results = handle.results();
        let (mut records, mut failed) = (0usize, 0usize);
        while let Some(r) = results.next().await {
            let Ok(run) = r else {
                failed += 1;
                continue;
            };
            for record in run.into_records() {
                if let Err(e) =
                    serde_json::to_writer(&mut jsonl, &record).map(|()| jsonl.write_all(b"\n"))
                {
                    fail("results.jsonl", e);
                }
                parquet
                    .write(record)
                    .unwrap_or_else(|e| fail("results.parquet", e));
                records += 1;
                if records.is_multiple_of((n / 4).max(1)) {
                    samples.push(format!(
                        "{}k: {:.0} MB",
                        records / 1000,
                        rss_now() as f64 / 1e6
                    ));
                }
            }
        }
        (records, failed)
    });
    let mut file = parquet
        .finish()
        .unwrap_or_else(|e| fail("results.parquet", e));
    file.flush().unwrap_or_else(|e| fail("results.parquet", e));
    jsonl.flush().unwrap_or_else(|e| fail("results.jsonl", e));
    let elapsed = start.elapsed();
    let peak = peak_rss();

    let gz_path = out.join("results.jsonl.gz");
    let mut gz = flate2::write::GzEncoder::new(
        BufWriter::new(File::create(&gz_path).unwrap_or_else(|e| fail("results.jsonl.gz", e))),
        flate2::Compression::default(),
    );
    let mut input = File::open(&jsonl_path).unwrap_or_else(|e| fail("results.jsonl", e));
    std::io::copy(&mut input, &mut gz).unwrap_or_else(|e| fail("results.jsonl.gz", e));
    gz.finish()
        .and_then(|mut w| w.flush())
        .unwrap_or_else(|e| fail("results.jsonl.gz", e));
    let size = |p: &PathBuf| std::fs::metadata(p).map_or(0, |m| m.len()) as f64 / 1e6;
    let (pq, js, gzs) = (size(&parquet_path), size(&jsonl_path), size(&gz_path));
    let rows = [
        row(
            "parquet",
            format!("{n} retailer_a_pdp results from the emulator → Parquet (typed, zstd)"),
            format!("{:.0} records/s", records as f64 / elapsed.as_secs_f64()),
            format!(
                "{records} records, {failed} failed, {:.1} s for batch + results + decoding + both files written in one pass; emulator in its own process",
                elapsed.as_secs_f64()
            ),
        ),
        row(
            "parquet",
            "peak RSS of the pipeline process",
            format!("{:.0} MB", peak as f64 / 1e6),
            format!(
                "row groups of 2,000 (the default); {}; target < 200 MB and flat",
                samples.join(", ")
            ),
        ),
        row(
            "parquet",
            "file size: Parquet / JSONL / JSONL.gz",
            format!("{pq:.1} MB / {js:.1} MB / {gzs:.1} MB"),
            format!(
                "the same records; Parquet is {:.2}× JSONL and {:.2}× JSONL.gz (gzip level 6)",
                pq / js,
                pq / gzs
            ),
        ),
    ];
    for r in rows {
        println!("{}", r.to_line());
    }
}
