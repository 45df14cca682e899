//! One worker of the fleet tests (`tests/fleet.rs`): sends agent runs through a client as fast as
//! its rate limiter lets it, then prints what happened as one JSON line on standard output.
//!
//! Settings from the environment: `FLEET_BASE_URL`, `FLEET_KEY`, `FLEET_REDIS` (a shared limit;
//! absent: this process limits itself), and either `FLEET_SECONDS` (send for that long, no
//! retries, so every 429 is counted) or `FLEET_COUNT` (send that many runs, retried until each
//! completes). `FLEET_DEBUG` set prints the limiter's state (`Client::limiter`) and the counts
//! every 250 ms on standard error.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use agents_runtime::catalog::RetailerAPdpParams;
use agents_runtime::{Client, ErrorKind, RetryPolicy};

/// Runs in flight at once per worker.
const CONCURRENCY: usize = 16;

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let (Some(base), Some(key)) = (env("FLEET_BASE_URL"), env("FLEET_KEY")) else {
        eprintln!("fleet-worker: set FLEET_BASE_URL and FLEET_KEY");
        return std::process::ExitCode::FAILURE;
    };
    let seconds = env("FLEET_SECONDS").and_then(|s| s.parse::<f64>().ok());
    let count = env("FLEET_COUNT").and_then(|s| s.parse::<u64>().ok());
    let retry = if seconds.is_some() {
        RetryPolicy::none()
    } else {
        RetryPolicy {
            max_attempts: 1_000,
            max_elapsed: Duration::from_secs(60),
            min_delay: Duration::from_millis(5),
            max_delay: Duration::from_millis(50),
            ..RetryPolicy::default()
        }
    };
    let mut builder = Client::builder()
        .base_url(base)
        .api_key(key)
        .retry_policy(retry);
    if let Some(url) = env("FLEET_REDIS") {
        builder = builder.shared_limit(url);
    }
    let client = match builder.build() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("fleet-worker: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    let deadline = seconds.map(|s| Instant::now() + Duration::from_secs_f64(s));
    let next = Arc::new(AtomicU64::new(0));
    let counters: Arc<[AtomicU64; 4]> = Arc::new(Default::default()); // ok, 429, other, attempts
    // Of each run that succeeded: its latency (ms) and when it ended (Unix ms).
    let done: Arc<Mutex<Vec<(f64, u64)>>> = Arc::default();
    let started = Instant::now();
    if env("FLEET_DEBUG").is_some() {
        let (c, counters) = (client.clone(), counters.clone());
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(Duration::from_millis(250)).await;
                eprintln!(
                    "{:.2} {:?} ok={} 429={}",
                    started.elapsed().as_secs_f64(),
                    c.limiter(),
                    counters[0].load(Ordering::Relaxed),
                    counters[1].load(Ordering::Relaxed)
                );
            }
        });
    }
    let mut tasks = Vec::new();
    for _ in 0..CONCURRENCY {
        let (client, next, counters, done) =
            (client.clone(), next.clone(), counters.clone(), done.clone());
        tasks.push(tokio::spawn(async move {
            loop {
                if deadline.is_some_and(|d| Instant::now() >= d) {
                    break;
                }
                let i = next.fetch_add(1, Ordering::Relaxed);
                if count.is_some_and(|c| i >= c) {
                    break;
                }
                let asked = Instant::now();
                let (slot, attempts) = match client
                    .run(RetailerAPdpParams::new(format!("B{i:09}")))
                    .await
                {
                    Ok(r) => {
                        let at = SystemTime::now()
                            .duration_since(SystemTime::UNIX_EPOCH)
                            .map_or(0, |d| d.as_millis() as u64);
                        let ms = asked.elapsed().as_secs_f64() * 1000.0;
                        done.lock()
                            .unwrap_or_else(std::sync::PoisonError::into_inner)
                            .push((ms, at));
                        (0, r.response.attempts)
                    }
                    Err(e) if matches!(e.kind(), ErrorKind::RateLimited | ErrorKind::HeldBack) => {
                        (1, e.attempts().unwrap_or(1))
                    }
                    Err(e) => {
                        eprintln!("fleet-worker: {e}");
                        (2, e.attempts().unwrap_or(1))
                    }
                };
                counters[slot].fetch_add(1, Ordering::Relaxed);
                counters[3].fetch_add(u64::from(attempts), Ordering::Relaxed);
            }
        }));
    }
    for t in tasks {
        let _ = t.await;
    }
    let [ok, limited, other, attempts] = [0, 1, 2, 3].map(|i| counters[i].load(Ordering::Relaxed));
    let done = done
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    println!(
        "{}",
        serde_json::json!({
            "ok": ok, "limited": limited, "other": other, "attempts": attempts,
            "seconds": started.elapsed().as_secs_f64(),
            "latencies_ms": done.iter().map(|d| d.0).collect::<Vec<_>>(),
            "done_at_ms": done.iter().map(|d| d.1).collect::<Vec<_>>(),
        })
    );
    std::process::ExitCode::SUCCESS
}
