//! `cargo xtask bench`: every benchmark in one run, printed as one markdown table.
//!
//! Ratios measured in the same run are what count; absolute times are context. Everything talks
//! to loopback only. `--quick` shortens the long measurements (for CI smoke runs);
//! `--only GROUPS` picks groups; `--build-override` adds a compile pass with the build-override
//! profile README.md offers; `--dump DIR` keeps our and typify's source for retailer_a_pdp.

use std::hint::black_box;
use std::time::{Duration, Instant};

use agents_codegen::{Options, generate};
use agents_emulator::{Emulator, EmulatorHandle, Lifecycle};
use agents_runtime::catalog::LlmAParams;
use agents_runtime::{Client, RetryPolicy};
use agents_schema::AgentRecord;
use futures::StreamExt;
use serde_json::{Value, json};

mod compile;
mod loadgen;
mod user_build;

use agents_bench::measure::{Row, interleaved, median, median_of, median_ratio, ms, row};
use agents_bench::typify_baseline;

fn catalog() -> Vec<AgentRecord> {
    let dir = agents_test_support::schemas_dir();
    match agents_codegen::load_dir(&dir) {
        Ok(loaded) => loaded.into_iter().map(|l| l.record).collect(),
        Err(e) => panic!("{e}"),
    }
}

fn bench_codegen(rows: &mut Vec<Row>) {
    let records = catalog();
    let pdp: Vec<AgentRecord> = records
        .iter()
        .filter(|r| r.name == "retailer_a_pdp")
        .cloned()
        .collect();
    let schema = typify_baseline::json_schema(&pdp[0], "RetailerAPdp");
    let root = typify_baseline::root_schema(&schema);
    let ours_source = generate(&pdp, &Options::default())
        .and_then(|o| o.to_source())
        .unwrap_or_default();
    let typify_source = typify_baseline::generate(root.clone());
    // `--dump DIR` keeps both sources for a side-by-side read.
    if let Some(dir) = std::env::args().skip_while(|a| a != "--dump").nth(1) {
        let dir = std::path::Path::new(&dir);
        for (name, source) in [("ours.rs", &ours_source), ("typify.rs", &typify_source)] {
            if let Err(e) = std::fs::write(dir.join(name), source) {
                eprintln!("--dump: cannot write {}: {e}", dir.join(name).display());
            }
        }
    }
    let (ours_lines, typify_lines) = (ours_source.lines().count(), typify_source.lines().count());
    // typify consumes its input: one clone per call, made before the timing.
    let rounds = 45;
    let mut inputs: Vec<_> = (0..=rounds).map(|_| root.clone()).collect();
    let samples = interleaved(
        rounds,
        &mut [
            &mut || {
                black_box(agents_bench::codegen::once(&pdp));
            },
            &mut || {
                if let Some(root) = inputs.pop() {
                    black_box(typify_baseline::generate(root).len());
                }
            },
        ],
    );
    let (t, t_typify) = (median_of(&samples[0]), median_of(&samples[1]));
    let vs_typify = median_ratio(&samples[0], &samples[1]);
    rows.push(row(
        "codegen",
        "retailer_a_pdp (112 fields), generate + prettyplease",
        ms(t),
        format!("{ours_lines} lines of source"),
    ));
    rows.push(row(
        "codegen",
        "typify 0.8, the same output schema as JSON Schema, generate + prettyplease",
        ms(t_typify),
        format!("{typify_lines} lines of source (output type only: no params, no agent impl)"),
    ));
    rows.push(row(
        "codegen",
        "retailer_a_pdp vs typify",
        format!("{vs_typify:.2}×"),
        "target ≤ 0.5× (median of 45 interleaved rounds)",
    ));
    let t_all = median(2, 9, || {
        black_box(agents_bench::codegen::once(&records));
    });
    rows.push(row(
        "codegen",
        format!("all {} catalog agents", records.len()),
        ms(t_all),
        "target ≤ 20 ms; one thread, one set of templates",
    ));
}

async fn emulator(rate: Option<u32>) -> EmulatorHandle {
    match Emulator::builder()
        .api_key("bench")
        .rate_limit(rate)
        .lifecycle(Lifecycle::fast())
        .start()
        .await
    {
        Ok(e) => e,
        Err(e) => panic!("{e}"),
    }
}

fn client(e: &EmulatorHandle, rate: Option<u32>) -> Client {
    match Client::builder()
        .base_url(e.base_url())
        .api_key("bench")
        .rate_limit(rate)
        .retry_policy(RetryPolicy::none())
        .build()
    {
        Ok(c) => c,
        Err(e) => panic!("{e}"),
    }
}

/// Runs `total` calls of `f` with `concurrency` in flight; returns (ok count, elapsed).
async fn load<F, Fut>(total: usize, concurrency: usize, f: F) -> (usize, Duration)
where
    F: Fn(usize) -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let t = Instant::now();
    let ok = futures::stream::iter(0..total)
        .map(f)
        .buffer_unordered(concurrency)
        .filter(|ok| futures::future::ready(*ok))
        .count()
        .await;
    (ok, t.elapsed())
}

async fn bench_emulator_and_client(rows: &mut Vec<Row>, quick: bool) {
    let (mut child, base) = spawn_emulator();
    let url = format!("{base}/v1/agents/run");
    let http = reqwest::Client::new();
    let total = if quick { 2_000 } else { 20_000 };
    let concurrency = 64;
    let body = |i: usize| json!({"agent": "llm_a", "params": {"prompt": format!("p{}", i % 100)}});
    // Warm the pool.
    let _ = load(500, concurrency, |i| {
        let (http, url) = (http.clone(), url.clone());
        async move {
            http.post(&url)
                .bearer_auth("bench")
                .json(&body(i))
                .send()
                .await
                .is_ok()
        }
    })
    .await;
    let addr: std::net::SocketAddr = match base.trim_start_matches("http://").parse() {
        Ok(a) => a,
        Err(e) => panic!("emulator address {base:?}: {e}"),
    };
    let bodies: Vec<bytes::Bytes> = (0..100)
        .map(|i| bytes::Bytes::from(body(i).to_string()))
        .collect();
    let emu_total = total * 5;
    // One thread of load, like `wrk -t1`: the other core is the emulator's. The runtime lives and
    // dies on its own thread (a runtime cannot be dropped inside another's async context).
    let o = std::thread::scope(|s| {
        s.spawn(|| {
            let lean = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .map_err(|e| e.to_string())?;
            Ok::<_, String>(lean.block_on(loadgen::post_json(
                addr,
                "/v1/agents/run",
                "bench",
                &bodies,
                emu_total,
                concurrency,
            )))
        })
        .join()
    });
    let o = match o {
        Ok(Ok(o)) => o,
        Ok(Err(e)) => panic!("load generator runtime: {e}"),
        Err(_) => panic!("load generator panicked"),
    };
    rows.push(row(
        "emulator",
        format!("small agent runs, {concurrency} connections, limit lifted"),
        format!("{:.0} req/s", o.rate()),
        format!(
            "{}/{emu_total} ok, {} failed; emulator in a child process, load from one thread of this one (hyper, keep-alive, like wrk -t1); target ≥ 20,000",
            o.ok, o.failed
        ),
    ));

    let c = match Client::builder()
        .base_url(&base)
        .api_key("bench")
        .rate_limit(None)
        .retry_policy(RetryPolicy::none())
        .build()
    {
        Ok(c) => c,
        Err(e) => panic!("{e}"),
    };
    let bare = || {
        load(total / ROUNDS, concurrency, |i| {
            let (http, url) = (http.clone(), url.clone());
            async move {
                match http
                    .post(&url)
                    .bearer_auth("bench")
                    .json(&body(i))
                    .send()
                    .await
                {
                    Ok(r) => match r.bytes().await {
                        Ok(b) => serde_json::from_slice::<Value>(&b).is_ok(),
                        Err(_) => false,
                    },
                    Err(_) => false,
                }
            }
        })
    };
    let typed = || {
        load(total / ROUNDS, concurrency, |i| {
            let c = c.clone();
            async move {
                c.run(LlmAParams::new(format!("p{}", i % 100)))
                    .await
                    .is_ok()
            }
        })
    };
    // Interleaved rounds, the order alternating; the ratio is the median of per-round ratios.
    const ROUNDS: usize = 10;
    let (mut bare_runs, mut typed_runs) = (Vec::new(), Vec::new());
    for round in 0..ROUNDS {
        if round % 2 == 0 {
            bare_runs.push(bare().await);
            typed_runs.push(typed().await);
        } else {
            typed_runs.push(typed().await);
            bare_runs.push(bare().await);
        }
    }
    let sum = |runs: &[(usize, Duration)]| {
        let ok: usize = runs.iter().map(|r| r.0).sum();
        let t: Duration = runs.iter().map(|r| r.1).sum();
        (ok, ok as f64 / t.as_secs_f64())
    };
    let ((ok_bare, bare_rate), (ok_typed, typed_rate)) = (sum(&bare_runs), sum(&typed_runs));
    // Throughput ratio typed ÷ bare = time ratio bare ÷ typed (same count per round).
    let b_times: Vec<Duration> = bare_runs.iter().map(|r| r.1).collect();
    let t_times: Vec<Duration> = typed_runs.iter().map(|r| r.1).collect();
    let ratio = median_ratio(&b_times, &t_times);
    let n = total / ROUNDS * ROUNDS;
    rows.push(row(
        "client",
        "bare reqwest POST + serde_json::Value",
        format!("{bare_rate:.0} req/s"),
        format!("{ok_bare}/{n} ok"),
    ));
    rows.push(row(
        "client",
        "typed client.run (validate, throttle off, typed decode)",
        format!("{typed_rate:.0} req/s"),
        format!("{ok_typed}/{n} ok"),
    ));
    rows.push(row(
        "client",
        "typed ÷ bare",
        format!("{ratio:.2}×"),
        format!("target ≥ 0.8× (median of {ROUNDS} interleaved rounds, {concurrency} in flight)"),
    ));
    let _ = child.kill();
    let _ = child.wait();

    // Rate-limit saturation: the emulator and the client both at 83 req/s.
    let limited = emulator(Some(83)).await;
    let c = client(&limited, Some(83));
    let n = if quick { 300 } else { 2_000 };
    let t = Instant::now();
    let results = futures::future::join_all((0..n).map(|i| {
        let c = c.clone();
        async move { c.run(LlmAParams::new(format!("p{i}"))).await }
    }))
    .await;
    let elapsed = t.elapsed();
    let too_many = results
        .iter()
        .filter(|r| matches!(r, Err(agents_runtime::Error::RateLimited(_))))
        .count();
    let ok = results.iter().filter(|r| r.is_ok()).count();
    let achieved = ok as f64 / elapsed.as_secs_f64();
    rows.push(row(
        "rate limit",
        format!("{n} concurrent runs, limit 83 req/s"),
        format!("{achieved:.1} req/s ({:.3}× limit)", achieved / 83.0),
        format!("{too_many} × 429, {ok}/{n} ok; target ≥ 0.98× with zero 429s"),
    ));
    limited.shutdown().await;
}

/// Resident set size of this process, from /proc (Linux); 0 elsewhere.
fn rss_bytes() -> u64 {
    std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| s.split_whitespace().nth(1)?.parse::<u64>().ok())
        .map_or(0, |pages| pages * 4096)
}

/// Batch of 1,000 at 83 req/s: wall time against the ideal (requests ÷ 83) and progress polls.
/// Collecting a batch's results at the service's rate: each fetched from the service (one GET
/// per result), and each read from the bucket it was delivered to (`BatchHandle::read_from`),
/// side by side for 1,000 and 10,000 items (`quick`: 1,000 only).
async fn bench_batch(rows: &mut Vec<Row>, quick: bool) {
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

/// A binary that `cargo xtask bench` builds beside this one.
fn sibling_exe(name: &str) -> std::path::PathBuf {
    let exe = std::env::current_exe().ok().and_then(|p| {
        Some(
            p.parent()?
                .join(format!("{name}{}", std::env::consts::EXE_SUFFIX)),
        )
    });
    match exe.filter(|p| p.is_file()) {
        Some(exe) => exe,
        None => panic!(
            "the {name} binary is not beside the benchmark runner: run `cargo xtask bench` (or `cargo build --release -p agents-emulator -p agents-bench --bins` first)"
        ),
    }
}

/// The allocation-heavy measurements of `group` (`codegen`: the synthetic agents; `decode`) in
/// child processes with fresh heaps: this runner itself (`--child`, glibc malloc), then
/// `agents-bench-mimalloc`. Glibc malloc is what bends the per-field codegen cost and sets the
/// decoding ratio to `Value` at 26 KB, and its speed depends on the heap's history
/// (BENCHMARKS.md).
fn in_children(rows: &mut Vec<Row>, group: &str) {
    let this = match std::env::current_exe() {
        Ok(p) => p,
        Err(e) => panic!("the benchmark runner's own path: {e}"),
    };
    for (exe, args) in [
        (this, &["--child", "--only", group][..]),
        (sibling_exe("agents-bench-mimalloc"), &["--only", group][..]),
    ] {
        let out = match std::process::Command::new(&exe)
            .args(args)
            .stderr(std::process::Stdio::inherit())
            .output()
        {
            Ok(out) if out.status.success() => out,
            Ok(out) => panic!("{}: {}", exe.display(), out.status),
            Err(e) => panic!("{}: {e}", exe.display()),
        };
        for line in String::from_utf8_lossy(&out.stdout).lines() {
            match Row::from_line(line) {
                Some(r) => rows.push(r),
                None => panic!("{}: not a table row: {line:?}", exe.display()),
            }
        }
    }
}

/// The `agents-emulator` binary in a child process (rate limit lifted, fast lifecycle), so that
/// its CPU, memory and allocator are its own, as when users run it; returns the child and its
/// base URL. `cargo xtask bench` builds the binary beside this one.
fn spawn_emulator() -> (std::process::Child, String) {
    spawn_emulator_with(&["--rate-limit", "0"])
}

/// [`spawn_emulator`] with other settings (`--rate-limit 83`).
fn spawn_emulator_with(settings: &[&str]) -> (std::process::Child, String) {
    let exe = sibling_exe("agents-emulator");
    let mut child = match std::process::Command::new(&exe)
        .args(["--port", "0", "--fast", "--api-key", "bench"])
        .args(settings)
        .env("RUST_LOG", "warn")
        .stdout(std::process::Stdio::piped())
        .spawn()
    {
        Ok(c) => c,
        Err(e) => panic!("{}: {e}", exe.display()),
    };
    let mut line = String::new();
    if let Some(out) = child.stdout.take() {
        let _ = std::io::BufRead::read_line(&mut std::io::BufReader::new(out), &mut line);
    }
    (child, line.trim().to_owned())
}

/// 100,000 retailer_a_pdp results → Parquet in `agents-bench-parquet`, a process of its own (so
/// that its peak RSS is the pipeline's), against the emulator in another.
fn bench_parquet(rows: &mut Vec<Row>, quick: bool) {
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

/// Streams 100,000 batch results from an emulator in a child process (so only the client's
/// memory is measured) and samples this process's RSS.
async fn bench_memory(rows: &mut Vec<Row>, quick: bool) {
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

fn main() {
    if std::env::args().any(|a| a == "--child") {
        agents_bench::child_main("");
        return;
    }
    let quick = std::env::args().any(|a| a == "--quick");
    let mut rows = Vec::new();
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => panic!("{e}"),
    };
    let run = agents_bench::measure::selected;
    // First, while this process is still small: its RSS is the client's alone.
    if run("memory") {
        eprintln!("memory…");
        rt.block_on(bench_memory(&mut rows, quick));
    }
    if run("codegen") {
        eprintln!("codegen…");
        bench_codegen(&mut rows);
        eprintln!("codegen, synthetic agents (child processes)…");
        in_children(&mut rows, "codegen");
    }
    if run("decode") {
        eprintln!("decode (child processes)…");
        in_children(&mut rows, "decode");
    }
    if run("jsonschema") {
        eprintln!("JSON Schema against typify (child processes)…");
        in_children(&mut rows, "jsonschema");
    }
    if run("columnar") {
        eprintln!("columnar (child processes)…");
        in_children(&mut rows, "columnar");
    }
    if run("parquet") {
        eprintln!("parquet pipeline (child processes)…");
        bench_parquet(&mut rows, quick);
    }
    if run("client") {
        eprintln!("emulator and client…");
        rt.block_on(bench_emulator_and_client(&mut rows, quick));
    }
    if run("sse") {
        eprintln!("research event streams with large events…");
        match rt.block_on(agents_bench::sse::measure()) {
            Ok(times) => {
                for (mib, took) in times {
                    rows.push(row(
                        "sse",
                        format!("one {mib} MiB event, then the final status"),
                        format!("{:.3} s", took.as_secs_f64()),
                        "ResearchRunHandle::events from a loopback server, 16 KiB chunks; \
                         target: 16 MiB < 1 s, time linear in the size",
                    ));
                }
            }
            Err(why) => rows.push(row("sse", "failed", "—", why)),
        }
    }
    if run("batch") {
        eprintln!("batch…");
        rt.block_on(bench_batch(&mut rows, quick));
    }
    if run("fleet") {
        eprintln!("fleet on one key (Redis)…");
        rt.block_on(bench_fleet(&mut rows, quick));
    }
    if run("compile") {
        // The build-override pass is opt-in: it needs a second scratch workspace whose
        // dependencies build from scratch (its proc macros change every crate's hash), about 3
        // minutes on a fresh machine, and the README only offers it as an option.
        let passes: &[(bool, &str)] = if std::env::args().any(|a| a == "--build-override") {
            &[
                (false, "default dev profile"),
                (true, "dev profile + build-override opt-level 3 (README)"),
            ]
        } else {
            &[(false, "default dev profile")]
        };
        for &(build_override, profile) in passes {
            eprintln!("compile cost ({profile})…");
            let measured = compile::measure(&compile::workspace_root(), build_override);
            compile_rows(&mut rows, &measured, profile);
        }
    }
    if run("user-build") {
        eprintln!("a user's build: agents-runtime vs reqwest + serde by hand…");
        let (ours, hand) = user_build::measure(&compile::workspace_root());
        let figure = |runs: &[Duration]| format!("{:.1} s", median_of(runs).as_secs_f64());
        let note = |n: usize| {
            format!(
                "default dev profile, own workspace and target dir; medians of {n} interleaved rounds"
            )
        };
        rows.push(row(
            "user-build",
            "10-line program running retailer_a_pdp: agents-runtime (catalog + client)",
            format!(
                "clean {}, incremental {:.2} s",
                figure(&ours.clean),
                median_of(&ours.incremental).as_secs_f64()
            ),
            note(ours.clean.len()),
        ));
        rows.push(row(
            "user-build",
            "the same program by hand: reqwest + serde + tokio",
            format!(
                "clean {}, incremental {:.2} s",
                figure(&hand.clean),
                median_of(&hand.incremental).as_secs_f64()
            ),
            note(hand.clean.len()),
        ));
        rows.push(row(
            "user-build",
            "agents-runtime ÷ by hand",
            format!(
                "clean {:.2}×, incremental {:.2}×",
                median_ratio(&ours.clean, &hand.clean),
                median_ratio(&ours.incremental, &hand.incremental)
            ),
            "target ≤ 1.15× clean, ≤ 1.1× incremental (median of per-round ratios)".to_owned(),
        ));
    }
    println!("| group | measurement | result | notes |");
    println!("| --- | --- | --- | --- |");
    for r in rows {
        println!("| {} | {} | {} | {} |", r.group, r.name, r.value, r.note);
    }
}

/// Rows for one compile configuration: each mode's medians and its ratios to the checked-in mode
/// (medians of per-round ratios).
fn compile_rows(rows: &mut Vec<Row>, measured: &[compile::Measured], profile: &str) {
    let Some(checked) = measured.first() else {
        return;
    };
    let figure = |runs: &[Duration], base: &[Duration]| {
        format!(
            "{:.2} s ({:.2}×)",
            median_of(runs).as_secs_f64(),
            median_ratio(runs, base)
        )
    };
    for m in measured {
        let (name, result) = if m.mode.starts_with("macro, touch") {
            (
                m.mode.clone(),
                format!("rebuild {}", figure(&m.incremental, &checked.incremental)),
            )
        } else {
            (
                format!("{}: all catalog agents", m.mode),
                format!(
                    "clean {}, incremental {}",
                    figure(&m.clean, &checked.clean),
                    figure(&m.incremental, &checked.incremental)
                ),
            )
        };
        rows.push(row(
            "compile",
            name,
            result,
            format!(
                "{profile}; ratios to checked-in, medians of {} interleaved rounds; dependencies prebuilt; target: macro ≤ 1.2×",
                m.clean.len()
            ),
        ));
    }
}

/// Fleets on one key: N worker processes (`fleet-worker`), each as fast as it can against one
/// emulator key at the service's 83 req/s, with and without the limit shared through a
/// `redis-server` of this run; and the latency a shared permit adds to a request.
async fn bench_fleet(rows: &mut Vec<Row>, quick: bool) {
    let redis = match agents_test_support::fleet::RedisServer::start() {
        Ok(r) => r,
        Err(why) => {
            rows.push(row("fleet", "skipped", "—", why));
            return;
        }
    };
    let worker = sibling_exe("fleet-worker");
    // Long enough that every process runs beside every other for a while, even eight of them
    // behind a queue of 1.5 s, so per-process shares can be compared.
    let seconds = if quick { 1.0 } else { 4.0 };
    let run_fleet = |n: usize, redis_url: Option<String>, secs: f64| {
        let (emulator, base) = spawn_emulator_with(&["--rate-limit", "83"]);
        let secs = secs.to_string();
        let workers: Vec<_> = (0..n)
            .map(|_| {
                agents_test_support::fleet::spawn_worker(
                    &worker,
                    &base,
                    "bench",
                    redis_url.as_deref(),
                    ("FLEET_SECONDS", &secs),
                )
            })
            .collect();
        (emulator, workers)
    };
    for n in [1usize, 2, 4, 8] {
        for shared in [true, false] {
            redis.reset_stats();
            let (mut emulator, workers) = run_fleet(n, shared.then(|| redis.url()), seconds);
            let t = match tokio::task::spawn_blocking(move || {
                agents_test_support::fleet::collect(workers)
            })
            .await
            {
                Ok(t) => t,
                Err(e) => panic!("fleet workers: {e}"),
            };
            let _ = emulator.kill();
            let _ = emulator.wait();
            let rate = t.ok as f64 / t.seconds.max(seconds);
            let (lo, hi) = t.shares_while_all_ran();
            let scripts = if shared {
                let calls = redis.script_calls();
                format!(
                    "; {:.3} Redis script calls per request sent ({} failed)",
                    (calls.ran + calls.failed) as f64 / t.attempts.max(1) as f64,
                    calls.failed
                )
            } else {
                String::new()
            };
            rows.push(row(
                "fleet",
                format!(
                    "{n} process(es), {}",
                    if shared { "shared limit" } else { "each alone" }
                ),
                format!(
                    "{rate:.1} req/s, {} × 429, p99 {:.0} ms",
                    t.limited,
                    t.latency_ms(0.99)
                ),
                format!(
                    "{} ok in {:.2} s ({:.3}× 83 req/s); latency p50 {:.0} / p99 {:.0} / max {:.0} \
                     ms; per-process share while all ran {lo:.2}–{hi:.2}× fair{scripts}{}",
                    t.ok,
                    t.seconds,
                    rate / 83.0,
                    t.latency_ms(0.5),
                    t.latency_ms(0.99),
                    t.latency_ms(1.0),
                    if shared {
                        "; target ≥ 0.97×, 0 × 429, 1 call per permit"
                    } else {
                        ""
                    }
                ),
            ));
        }
    }
    // The latency a permit adds: sequential requests, unthrottled by the emulator, through a
    // client with a shared limit far above the request rate and through one without.
    let (mut emulator, base) = spawn_emulator();
    let n = if quick { 500 } else { 3_000 };
    let mut p = Vec::new();
    for shared in [false, true] {
        let mut b = Client::builder()
            .base_url(&base)
            .api_key("bench")
            .rate_limit(Some(1_000_000))
            .burst(1_000_000);
        if shared {
            b = b.shared_limit(redis.url());
        }
        let c = match b.build() {
            Ok(c) => c,
            Err(e) => panic!("{e}"),
        };
        let mut times = Vec::with_capacity(n);
        for _ in 0..n {
            let t = Instant::now();
            if let Err(e) = c.agents().limit(1).list().await {
                panic!("{e}");
            }
            times.push(t.elapsed());
        }
        times.sort();
        p.push((times[n / 2], times[n * 99 / 100]));
    }
    let _ = emulator.kill();
    let _ = emulator.wait();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    rows.push(row(
        "fleet",
        "added latency per permit (p99)",
        format!("{:.3} ms", ms(p[1].1.saturating_sub(p[0].1))),
        format!(
            "{n} sequential requests: p50 {:.3} / {:.3} ms, p99 {:.3} / {:.3} ms without / with the shared limit; one EVALSHA per permit on loopback; target < 1 ms",
            ms(p[0].0),
            ms(p[1].0),
            ms(p[0].1),
            ms(p[1].1)
        ),
    ));
    // The processes of the rows above leave the key's fleet after MEMBER_TTL (2 s) without
    // a request; the outage row's processes must count only themselves.
    tokio::time::sleep(Duration::from_secs(3)).await;
    // An outage: four processes on the shared limit for 5 s, Redis killed from 1.5 s to 3.5 s;
    // the fleet's rate inside the outage window, from when each run ended.
    {
        let mut redis = redis;
        let (mut emulator, workers) = run_fleet(4, Some(redis.url()), 5.0);
        let now_ms = || {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_millis() as u64)
        };
        let (t, from, to) = match tokio::task::spawn_blocking(move || {
            std::thread::sleep(Duration::from_millis(1500));
            redis.kill();
            let from = now_ms();
            std::thread::sleep(Duration::from_millis(2000));
            let to = now_ms();
            redis.spawn();
            (agents_test_support::fleet::collect(workers), from, to)
        })
        .await
        {
            Ok(t) => t,
            Err(e) => panic!("fleet workers: {e}"),
        };
        let _ = emulator.kill();
        let _ = emulator.wait();
        // Runs that ended in the window's last 1.5 s: the first half second still drains
        // permits reserved before the outage.
        let settled = from + 500;
        if std::env::var_os("FLEET_DEBUG").is_some() {
            for b in 0..16u64 {
                let lo = from - 2000 + b * 250;
                eprintln!(
                    "{:+} ms: {}",
                    lo as i64 - from as i64,
                    t.done_between(lo, lo + 250)
                );
            }
        }
        let rate = t.done_between(settled, to) as f64 / ((to - settled) as f64 / 1000.0);
        rows.push(row(
            "fleet",
            "4 processes, Redis out for 2 s",
            format!("{rate:.1} req/s in the outage, {} × 429", t.limited),
            format!(
                "each process falls back to its share (83 / 4 = 20 req/s); {} ok in {:.2} s; \
                 target: the fleet near 83 req/s, not 4 × 83",
                t.ok, t.seconds
            ),
        ));
    }
}
