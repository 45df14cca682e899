#![allow(clippy::unwrap_used)] // test helpers outside #[test] fns
//! A fleet on one key: worker processes (`fleet-worker`) share the service's 83 req/s through a
//! real `redis-server` started on a free loopback port, against one emulator key.
//!
//! Without `redis-server` on the PATH these tests say they were skipped and pass, unless
//! `AGENTS_REQUIRE_REDIS=1` (CI sets it) makes its absence a failure. Debian's package is
//! `redis-server`.

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
            eprintln!("skipped {test}: {why}; set AGENTS_REQUIRE_REDIS=1 to make this a failure");
            None
        }
    }
}

fn spawn_worker(e: &EmulatorHandle, redis: Option<&str>, mode: (&str, &str)) -> Child {
    let exe = Path::new(env!("CARGO_BIN_EXE_fleet-worker"));
    agents_test_support::fleet::spawn_worker(exe, e.base_url(), KEY, redis, mode)
}

/// Four processes, each as fast as it can for `seconds`, with or without the shared limit.
async fn fleet_for(redis: Option<&str>, seconds: f64) -> Totals {
    let e = start(Emulator::builder().rate_limit(Some(83))).await;
    let secs = seconds.to_string();
    let workers = (0..4)
        .map(|_| spawn_worker(&e, redis, ("FLEET_SECONDS", &secs)))
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
    let shared = fleet_for(Some(&redis.url()), seconds).await;
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
