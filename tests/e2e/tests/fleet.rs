#![allow(clippy::unwrap_used)] // test helpers outside #[test] fns
//! A fleet on one key: worker processes (`fleet-worker`) share the service's 83 req/s through a
//! real `redis-server` started on a free loopback port, against one emulator key.
//!
//! Without `redis-server` on the PATH these tests say they were skipped and pass, unless
//! `AGENTS_REQUIRE_REDIS=1` (CI sets it) makes its absence a failure. Debian's package is
//! `redis-server`.

use std::io::Write as _;
use std::path::Path;
use std::process::Child;
use std::time::Duration;

use agents_emulator::{Emulator, EmulatorHandle};
use agents_test_support::fleet::{RedisServer, Totals, collect};
use agents_tests_e2e::{KEY, start};

/// A Redis server for `test`, or `None` after saying why the test is skipped (a failure under
/// `AGENTS_REQUIRE_REDIS=1`).
fn redis_for(test: &str) -> Option<RedisServer> {
    match RedisServer::start() {
        Ok(r) => Some(r),
        Err(why) if std::env::var("AGENTS_REQUIRE_REDIS").is_ok_and(|v| v == "1") => {
            panic!("{test}: {why}, and AGENTS_REQUIRE_REDIS=1")
        }
        Err(why) => {
            // Straight to stderr, past the test harness's capture, so the skip shows.
            let _ = writeln!(
                std::io::stderr(),
                "skipped {test}: {why}; set AGENTS_REQUIRE_REDIS=1 to make this a failure"
            );
            None
        }
    }
}

fn spawn_worker(e: &EmulatorHandle, redis: Option<&str>, mode: (&str, &str)) -> Child {
    let exe = Path::new(env!("CARGO_BIN_EXE_fleet-worker"));
    agents_test_support::fleet::spawn_worker(exe, e.base_url(), KEY, redis, mode)
}

/// Four processes, each as fast as it can for `seconds`, with or without the shared limit.
async fn fleet_for(redis: Option<&RedisServer>, seconds: f64) -> Totals {
    let url = redis.map(RedisServer::url);
    let e = start(Emulator::builder().rate_limit(Some(83))).await;
    let secs = seconds.to_string();
    let workers = (0..4)
        .map(|_| spawn_worker(&e, url.as_deref(), ("FLEET_SECONDS", &secs)))
        .collect();
    tokio::task::spawn_blocking(move || collect(workers))
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn four_processes_share_one_limit_and_meet_no_429() {
    let Some(redis) = redis_for("four_processes_share_one_limit_and_meet_no_429") else {
        return;
    };
    let seconds = 3.0;
    redis.reset_stats();
    let shared = fleet_for(Some(&redis), seconds).await;
    let scripts = redis.script_calls();
    let alone = fleet_for(None, seconds).await;
    eprintln!(
        "4 processes for {seconds} s at 83 req/s: shared limit {} ok, {} x 429; each alone {} ok, {} x 429",
        shared.ok, shared.limited, alone.ok, alone.limited
    );
    assert_eq!(shared.limited, 0, "{shared:?}");
    assert_eq!(shared.other, 0, "{shared:?}");
    let floor = 0.97 * 83.0 * seconds;
    assert!(
        shared.ok as f64 >= floor,
        "{} < {floor}: {shared:?}",
        shared.ok
    );
    assert!(
        alone.limited > 0,
        "four processes alone overrun the key: {alone:?}"
    );
    // A permit is one reservation: one script run per request sent, however many calls wait
    // (a polling limiter made about 60). A run whose answer outlasts the client's time-out still
    // counts in Redis, and its request goes out once under the fallback share: never more runs
    // than requests. The scripts are loaded when the connection is made, so no call meets
    // NOSCRIPT (before, a fleet's first calls each did, all at once).
    eprintln!(
        "{scripts:?} script calls in Redis for {} requests",
        shared.attempts
    );
    assert!(
        scripts.ran <= shared.attempts,
        "{} script runs for {} requests sent: the limiter asks more than once per permit",
        scripts.ran,
        shared.attempts
    );
    assert_eq!(scripts.failed, 0, "script calls Redis refused: {scripts:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_redis_outage_falls_back_to_a_fair_share_and_says_so() {
    use agents_runtime::{Client, LimiterState};

    let Some(mut redis) = redis_for("a_redis_outage_falls_back_to_a_fair_share_and_says_so") else {
        return;
    };
    let e = start(Emulator::builder().rate_limit(None)).await;
    // Four clients built apart count as four members of the key's fleet, as four processes do.
    let clients: Vec<Client> = (0..4)
        .map(|_| {
            Client::builder()
                .base_url(e.base_url())
                .api_key(KEY)
                .rate_limit(Some(83))
                .shared_limit(redis.url())
                .build()
                .unwrap()
        })
        .collect();
    for c in &clients {
        c.agents().limit(1).list().await.unwrap();
    }
    let first = &clients[0];
    first.agents().limit(1).list().await.unwrap();
    assert_eq!(first.limiter(), LimiterState::Shared { fleet: 4 });

    redis.kill();
    let seen = e.requests_seen(KEY);
    first.agents().limit(1).list().await.unwrap();
    assert_eq!(
        first.limiter(),
        LimiterState::Fallback {
            fleet: 4,
            per_second: 20
        },
        "a quarter of 83 req/s while Redis is out"
    );
    assert_eq!(e.requests_seen(KEY), seen + 1, "the call went out once");

    redis.spawn();
    // Redis is asked again a second after it failed. A probe that takes longer than the
    // limiter's 250 ms (this machine busy with the other fleet tests' processes) counts as a
    // failure and is made again a second later, so the limiter must be back within a few.
    let mut probes = 0;
    while !matches!(first.limiter(), LimiterState::Shared { .. }) {
        assert!(
            probes < 5,
            "still {:?} after {probes} probes of a running Redis",
            first.limiter()
        );
        tokio::time::sleep(Duration::from_millis(1100)).await;
        first.agents().limit(1).list().await.unwrap();
        probes += 1;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_redis_outage_and_restart_mid_run_lose_and_duplicate_nothing() {
    let Some(mut redis) =
        redis_for("a_redis_outage_and_restart_mid_run_lose_and_duplicate_nothing")
    else {
        return;
    };
    let e = start(Emulator::builder().rate_limit(Some(83))).await;
    let url = redis.url();
    let per_worker = 120;
    let workers: Vec<Child> = (0..4)
        .map(|_| spawn_worker(&e, Some(&url), ("FLEET_COUNT", &per_worker.to_string())))
        .collect();
    let totals = tokio::task::spawn_blocking(move || {
        std::thread::sleep(Duration::from_millis(1500));
        redis.kill();
        std::thread::sleep(Duration::from_millis(1500));
        redis.spawn();
        let t = collect(workers);
        drop(redis);
        t
    })
    .await
    .unwrap();
    eprintln!("Redis killed and restarted mid-run: {totals:?}");
    assert_eq!(totals.ok, 4 * per_worker, "every run completed: {totals:?}");
    assert_eq!(totals.other, 0);
    assert_eq!(
        totals.attempts,
        e.requests_seen(KEY),
        "every request the emulator saw is an attempt a worker counted: none lost, none doubled"
    );
}

#[tokio::test]
async fn a_429_seen_by_one_process_pauses_the_fleet() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicU32, Ordering};

    use agents_runtime::{Client, ErrorKind, RetryPolicy};
    use axum::http::{HeaderValue, StatusCode};
    use axum::response::IntoResponse;

    let Some(redis) = redis_for("a_429_seen_by_one_process_pauses_the_fleet") else {
        return;
    };
    let seen = Arc::new(AtomicU32::new(0));
    let count = seen.clone();
    let app = axum::Router::new().route(
        "/v1/agents",
        axum::routing::get(move || {
            let n = count.fetch_add(1, Ordering::SeqCst);
            async move {
                if n == 0 {
                    let body = serde_json::json!({"status": "failed", "msg": "slow down"});
                    let mut r = (StatusCode::TOO_MANY_REQUESTS, axum::Json(body)).into_response();
                    r.headers_mut()
                        .insert("retry-after-ms", HeaderValue::from_static("3000"));
                    r
                } else {
                    axum::Json(serde_json::json!([])).into_response()
                }
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    // Two clients built apart, as two processes would be, on one key and one Redis.
    let build = |timeout: Duration| {
        Client::builder()
            .base_url(&base)
            .api_key("fleet-key")
            .shared_limit(redis.url())
            .retry_policy(RetryPolicy::none())
            .timeout(timeout)
            .build()
            .unwrap()
    };
    let first = build(Duration::from_secs(30));
    let err = first.agents().list().await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::RateLimited);
    // The pause reaches Redis in the background.
    tokio::time::sleep(Duration::from_millis(200)).await;
    let second = build(Duration::from_millis(500));
    let err = second.agents().list().await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::HeldBack, "{err}");
    assert!(err.to_string().contains("another process"), "{err}");
    assert_eq!(
        seen.load(Ordering::SeqCst),
        1,
        "the second client sent nothing"
    );
}
