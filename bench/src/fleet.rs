//! Fleets of processes on one key, with and without the limit shared through Redis.

use std::time::{Duration, Instant};

use agents_bench::measure::{Row, row};
use agents_runtime::Client;

use crate::processes::{sibling_exe, spawn_emulator, spawn_emulator_with};

/// Fleets on one key: N worker processes (`fleet-worker`), each as fast as it can against one
/// emulator key at the service's 83 req/s, with and without the limit shared through a
/// `redis-server` of this run; and the latency a shared permit adds to a request.
pub async fn bench(rows: &mut Vec<Row>, quick: bool) {
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
