//! Batches at scale: results collected from the service or from the bucket, the client's memory
//! while 100,000 results stream, and 100,000 results into Parquet.

use std::time::{Duration, Instant};

use agents_bench::measure::{Row, row};
use agents_emulator::{Emulator, Lifecycle};
use agents_runtime::Client;
use agents_runtime::catalog::LlmAParams;
use futures::StreamExt;

use crate::compile;
use crate::processes::{rss_bytes, sibling_exe, spawn_emulator};

/// Collecting a batch's results at the service's rate: each fetched from the service (one GET
/// per result), and each read from the bucket it was delivered to (`BatchHandle::read_from`),
/// side by side for 1,000 and 10,000 items (`quick`: 1,000 only).
pub async fn results(rows: &mut Vec<Row>, quick: bool) {
    let buckets = std::env::temp_dir().join(format!("agents-bench-buckets-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&buckets);
    if let Err(e) = std::fs::create_dir_all(buckets.join("results")) {
        panic!("cannot make the bench's bucket directory: {e}");
    }
    let e = match Emulator::builder()
        .api_key("bench")
        .rate_limit(Some(83))
        .lifecycle(Lifecycle::fast())
        .bucket_dir(&buckets)
        .start()
        .await
    {
        Ok(e) => e,
        Err(err) => panic!("{err}"),
    };
    let c = match Client::builder()
        .base_url(e.base_url())
        .api_key("bench")
        .rate_limit(Some(83))
        .header("x-emulator-task-ms", "0")
        .build()
    {
        Ok(c) => c,
        Err(err) => panic!("{err}"),
    };
    let sizes: &[usize] = if quick { &[1_000] } else { &[1_000, 10_000] };
    for &n in sizes {
        let mut from_service = None;
        for from_bucket in [false, true] {
            let before = e.requests_seen("bench");
            let t = Instant::now();
            let mut builder = c.batch::<agents_runtime::catalog::LlmA>();
            if from_bucket {
                builder = builder.delivery(agents_runtime::Delivery::new().storage(
                    agents_runtime::StorageType::S3,
                    format!("s3://results/n{n}/"),
                ));
            }
            let handle = match builder
                .submit((0..n).map(|i| LlmAParams::new(format!("p{i}"))))
                .await
            {
                Ok(h) => h.concurrency(32),
                Err(err) => panic!("{err}"),
            };
            let handle = if from_bucket {
                let reader = match agents_runtime::client::delivery::DeliveryReader::local(
                    buckets.join("results"),
                ) {
                    Ok(r) => r,
                    Err(err) => panic!("{err}"),
                };
                match handle.read_from(reader) {
                    Ok(h) => h,
                    Err(err) => panic!("{err}"),
                }
            } else {
                handle
            };
            let ok = handle
                .results()
                .filter(|r| futures::future::ready(r.is_ok()))
                .count()
                .await;
            let wall = t.elapsed();
            let requests = e.requests_seen("bench") - before;
            let polls = handle.progress_polls();
            let (route, target) = if from_bucket {
                (
                    "each read from the bucket it was delivered to",
                    "no target: the route README shows for large batches",
                )
            } else {
                ("each fetched from the service", "target ≤ 1.1× ideal")
            };
            let ideal = requests as f64 / 83.0;
            let figure = match from_service {
                Some(service) if from_bucket => format!(
                    "{:.2} s ({:.0}× faster than from the service)",
                    wall.as_secs_f64(),
                    Duration::as_secs_f64(&service) / wall.as_secs_f64()
                ),
                _ => format!(
                    "{:.2} s ({:.3}× ideal)",
                    wall.as_secs_f64(),
                    wall.as_secs_f64() / ideal
                ),
            };
            from_service = Some(wall);
            rows.push(row(
                "batch",
                format!("{n} items, tasks done at once, 83 req/s: results {route}"),
                figure,
                if from_bucket {
                    format!("{ok}/{n} ok; {requests} requests ({polls} progress polls); {target}")
                } else {
                    format!(
                        "{ok}/{n} ok; {requests} requests ({polls} progress polls); ideal {ideal:.2} s at 83 req/s; {target}"
                    )
                },
            ));
        }
    }
    e.shutdown().await;
    let _ = std::fs::remove_dir_all(&buckets);
}

/// Streams 100,000 batch results from an emulator in a child process (so only the client's
/// memory is measured) and samples this process's RSS.
pub async fn memory(rows: &mut Vec<Row>, quick: bool) {
    let n: usize = if quick { 10_000 } else { 100_000 };
    let (mut child, base) = spawn_emulator();
    let c = match Client::builder()
        .base_url(&base)
        .api_key("bench")
        .rate_limit(None)
        .header("x-emulator-task-ms", "0")
        .build()
    {
        Ok(c) => c,
        Err(e) => panic!("{e}"),
    };
    let before = rss_bytes();
    let handle = match c
        .batch::<agents_runtime::catalog::LlmA>()
        .submit((0..n).map(|i| LlmAParams::new(format!("p{i}"))))
        .await
    {
        Ok(h) => h.concurrency(32),
        Err(e) => panic!("{e}"),
    };
    let after_submit = rss_bytes();
    let mut peak = after_submit;
    let mut samples = Vec::new();
    let mut count = 0usize;
    let t = Instant::now();
    let mut results = handle.results();
    while let Some(r) = results.next().await {
        if r.is_ok() {
            count += 1;
        }
        if count.is_multiple_of(1000) {
            let rss = rss_bytes();
            peak = peak.max(rss);
            if count.is_multiple_of((n / 4).max(1)) {
                samples.push(format!("{}k: {:.0} MB", count / 1000, rss as f64 / 1e6));
            }
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    rows.push(row(
        "memory",
        format!("stream {n} batch results, peak RSS of the client process"),
        format!("{:.0} MB", peak as f64 / 1e6),
        format!(
            "{count}/{n} ok in {:.1} s; before {:.0} MB, after submit {:.0} MB; {}; target < 100 MB and flat",
            t.elapsed().as_secs_f64(),
            before as f64 / 1e6,
            after_submit as f64 / 1e6,
            samples.join(", ")
        ),
    ));
}

/// 100,000 retailer_a_pdp results → Parquet in `agents-bench-parquet`, a process of its own (so
/// that its peak RSS is the pipeline's), against the emulator in another.
pub fn parquet(rows: &mut Vec<Row>, quick: bool) {
    let n: usize = if quick { 10_000 } else { 100_000 };
    let (mut emulator, base) = spawn_emulator();
    let out = compile::workspace_root().join("target/bench-parquet");
    let exe = sibling_exe("agents-bench-parquet");
    let result = std::process::Command::new(&exe)
        .args([base.as_str(), &n.to_string()])
        .arg(&out)
        .stderr(std::process::Stdio::inherit())
        .output();
    let _ = emulator.kill();
    let _ = emulator.wait();
    let output = match result {
        Ok(o) if o.status.success() => o,
        Ok(o) => panic!("{}: {}", exe.display(), o.status),
        Err(e) => panic!("{}: {e}", exe.display()),
    };
    for line in String::from_utf8_lossy(&output.stdout).lines() {
        match Row::from_line(line) {
            Some(r) => rows.push(r),
            None => panic!("{}: not a table row: {line:?}", exe.display()),
        }
    }
    let _ = std::fs::remove_dir_all(&out);
}
