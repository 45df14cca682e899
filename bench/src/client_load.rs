//! The emulator's throughput, the typed client against bare reqwest, and the rate limit held
//! at the service's 83 requests a second.

use std::time::{Duration, Instant};

use agents_bench::measure::{Row, median_ratio, row};
use agents_emulator::{Emulator, EmulatorHandle, Lifecycle};
use agents_runtime::catalog::LlmAParams;
use agents_runtime::{Client, RetryPolicy};
use futures::StreamExt;
use serde_json::{Value, json};

use crate::loadgen;
use crate::processes::spawn_emulator;

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

/// `total` POSTs of `bodies` (in turn) to `/v1/agents/run` from one thread of this process,
/// like `wrk -t1`: the other core is the emulator's. The runtime lives and dies on its own thread
/// (a runtime cannot be dropped inside another's async context).
fn lean_load(
    addr: std::net::SocketAddr,
    bodies: &[bytes::Bytes],
    total: usize,
    concurrency: usize,
) -> loadgen::Outcome {
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
                bodies,
                total,
                concurrency,
            )))
        })
        .join()
    });
    match o {
        Ok(Ok(o)) => o,
        Ok(Err(e)) => panic!("load generator runtime: {e}"),
        Err(_) => panic!("load generator panicked"),
    }
}

pub async fn bench(rows: &mut Vec<Row>, quick: bool) {
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
    let o = lean_load(addr, &bodies, emu_total, concurrency);
    rows.push(row(
        "emulator",
        format!("small agent runs, {concurrency} connections, limit lifted"),
        format!("{:.0} req/s", o.rate()),
        format!(
            "{}/{emu_total} ok, {} failed; emulator in a child process, load from one thread of this one (hyper, keep-alive, like wrk -t1); target ≥ 20,000",
            o.ok, o.failed
        ),
    ));
    // A catalog record made for every request (each ASIN new): what the sampler costs the
    // emulator, the schema compiled once per template.
    let pdp: Vec<bytes::Bytes> = (0..total)
        .map(|i| {
            let body = json!({"agent": "retailer_a_pdp", "params": {"asin": format!("B{i:09}")}});
            bytes::Bytes::from(body.to_string())
        })
        .collect();
    let o = lean_load(addr, &pdp, total, concurrency);
    rows.push(row(
        "emulator",
        format!("retailer_a_pdp runs, each a new record, {concurrency} connections"),
        format!("{:.0} req/s", o.rate()),
        format!(
            "{}/{total} ok, {} failed; a 12.6 KB record made from the output schema per request",
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
