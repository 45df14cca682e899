#![allow(clippy::unwrap_used)] // test helpers outside #[test] fns
//! `cargo agents jobs` against the emulator over loopback: a job made from a CSV file (bad rows
//! named, nothing sent; a name a job has refused), triggered and waited for, listed, deleted, and
//! its artifacts downloaded.

use crate::common;

use std::path::Path;
use std::process::Output;
use std::time::Duration;

use agents_emulator::{EmulatorHandle, Fault};
use common::{KEY, emulator, scratch};

async fn cargo_agents(e: &EmulatorHandle, cwd: &Path, args: &[&str]) -> Output {
    common::output(common::on_catalog(e, cwd, KEY, args)).await
}

fn stdout(out: &Output) -> String {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone()).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn jobs_are_created_triggered_listed_and_downloaded() {
    let e = emulator().await;
    let dir = scratch("jobs");
    std::fs::write(
        dir.join("bad.jsonl"),
        "{\"asin\": \"\"}\n{\"asin\": \"B1\"}\n{}\n",
    )
    .unwrap();
    let seen = e.requests_seen(KEY);
    let out = cargo_agents(
        &e,
        &dir,
        &[
            "jobs",
            "create",
            "x",
            "--agent",
            "retailer_a_pdp",
            "--input",
            "bad.jsonl",
        ],
    )
    .await;
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("2 row(s)") && err.contains("row 1") && err.contains("row 3"),
        "{err}"
    );
    assert_eq!(e.requests_seen(KEY), seen, "nothing sent");

    std::fs::write(dir.join("asins.csv"), "asin,zip_code\nB1,\nB2,10001\nB3,\n").unwrap();
    for version in ["v1", "v2"] {
        // One job per version: the emulator's state is shared, and a name finds one job.
        let name = format!("prices-{version}");
        let id = stdout(
            &cargo_agents(
                &e,
                &dir,
                &[
                    "--api-version",
                    version,
                    "jobs",
                    "create",
                    &name,
                    "--agent",
                    "retailer_a_pdp",
                    "--input",
                    "asins.csv",
                    "--format",
                    "csv",
                ],
            )
            .await,
        );
        let id = id.trim();
        let listed =
            stdout(&cargo_agents(&e, &dir, &["--api-version", version, "jobs", "list"]).await);
        assert!(
            listed.contains(id) && listed.contains("on demand"),
            "{listed}"
        );
        let run = stdout(
            &cargo_agents(
                &e,
                &dir,
                &[
                    "--json",
                    "--api-version",
                    version,
                    "jobs",
                    "trigger",
                    id,
                    "--wait",
                ],
            )
            .await,
        );
        let run: serde_json::Value = serde_json::from_str(&run).unwrap();
        assert_eq!(run["status"], "SUCCESS", "{run}");
        assert_eq!(run["result_count"], 3);
        let run_id = run["id"].as_str().unwrap();
        let runs =
            stdout(&cargo_agents(&e, &dir, &["--api-version", version, "jobs", "runs", id]).await);
        assert!(runs.contains(run_id), "{runs}");
        let files = stdout(
            &cargo_agents(
                &e,
                &dir,
                &[
                    "--api-version",
                    version,
                    "jobs",
                    "download",
                    run_id,
                    "--out",
                    "artifacts",
                ],
            )
            .await,
        );
        let path = files.lines().next().unwrap();
        let csv = std::fs::read_to_string(dir.join(path)).unwrap();
        assert_eq!(csv.lines().count(), 4, "{csv}");
        assert!(
            path.starts_with("artifacts/") && path.ends_with(".csv"),
            "{path}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_job_is_named_by_its_id_or_by_the_name_one_job_has() {
    let e = emulator().await;
    let dir = scratch("job-names");
    std::fs::write(dir.join("asins.csv"), "asin\nB1\nB2\n").unwrap();
    let create = |name: &'static str| {
        let args = [
            "jobs",
            "create",
            name,
            "--agent",
            "retailer_a_pdp",
            "--input",
            "asins.csv",
        ];
        let (e, dir) = (&e, &dir);
        async move { stdout(&cargo_agents(e, dir, &args).await).trim().to_owned() }
    };
    let first = create("nightly").await;

    let out = cargo_agents(&e, &dir, &["jobs", "trigger", "nightly", "--wait"]).await;
    // The ended run as `jobs runs` lists it, and what to do with its results.
    let line = stdout(&out);
    let run: Vec<&str> = line.trim_end().split('\t').collect();
    assert_eq!(
        run.get(1..),
        Some(&["SUCCESS", run[2], "2 input(s)", "2 result(s)"][..])
    );
    let id = run[0];
    // The run's id comes first, on standard error, for a wait that is stopped.
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.starts_with(&format!("run {id} started")), "{err}");
    assert!(
        err.contains(&format!("`cargo agents jobs download {id}`")),
        "{err}"
    );
    let runs = stdout(&cargo_agents(&e, &dir, &["jobs", "runs", "nightly"]).await);
    assert_eq!(runs, line);
    let runs = stdout(&cargo_agents(&e, &dir, &["--json", "jobs", "runs", "nightly"]).await);
    let listed: serde_json::Value = serde_json::from_str(&runs).unwrap();
    assert_eq!(
        (&listed["id"], &listed["result_count"]),
        (&id.into(), &2.into())
    );

    // Its JSONL artifact, and the command that checks it against the template.
    let out = cargo_agents(&e, &dir, &["jobs", "download", id, "--out", "got"]).await;
    let path = stdout(&out).trim_end().to_owned();
    assert!(path.ends_with(".jsonl"), "{path}");
    let hint = format!("`cargo agents fields {path} --agent retailer_a_pdp`");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(&hint), "{err}");
    let fields = cargo_agents(&e, &dir, &["fields", &path, "--agent", "retailer_a_pdp"]).await;
    assert!(
        stdout(&fields).starts_with("2 records\n"),
        "{}",
        stdout(&fields)
    );

    // A name no job has: the service's 404, and where to look.
    let out = cargo_agents(&e, &dir, &["jobs", "trigger", "weekly"]).await;
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("404") && err.contains("`cargo agents jobs list`"),
        "{err}"
    );
    assert!(!err.contains("cargo agents list"), "{err}");

    // `create` refuses a name a job has: another job would run beside it and the name would find
    // neither. Nothing is made, and the way to replace it is named.
    let args = [
        "jobs",
        "create",
        "nightly",
        "--agent",
        "retailer_a_pdp",
        "--input",
        "asins.csv",
    ];
    let out = cargo_agents(&e, &dir, &args).await;
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!(
            "nothing was created: a job named \"nightly\" exists ({first})"
        )) && err.contains(&format!("`cargo agents jobs delete {first}`")),
        "{err}"
    );
    let list = stdout(&cargo_agents(&e, &dir, &["jobs", "list"]).await);
    assert_eq!(list.lines().count(), 1, "{list}");

    // A name two jobs have (as another program may make them) runs neither: the ids are named
    // instead.
    let client = agents_runtime::Client::builder()
        .base_url(e.base_url())
        .api_key(KEY)
        .rate_limit(None)
        .build()
        .unwrap();
    let request = agents_runtime::client::jobs::JobRequest::new("nightly", "retailer_a_pdp")
        .inputs(
            agents_runtime::client::jobs::JobInputs::inline([serde_json::json!({"asin": "B3"})])
                .unwrap(),
        );
    let second = client.create_job(request).await.unwrap().id;
    let out = cargo_agents(&e, &dir, &["jobs", "trigger", "nightly"]).await;
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("2 jobs are named \"nightly\"")
            && err.contains(&first)
            && err.contains(&second),
        "{err}"
    );
    for id in [&first, &second] {
        let runs = stdout(&cargo_agents(&e, &dir, &["jobs", "runs", id]).await);
        assert_eq!(runs.lines().count(), usize::from(*id == first), "{runs}");
    }

    // Deleted by id, the first leaves the name to the second; deleted by name, that one goes.
    let out = cargo_agents(&e, &dir, &["jobs", "delete", &first]).await;
    stdout(&out);
    let out = cargo_agents(&e, &dir, &["--json", "jobs", "delete", "nightly"]).await;
    assert_eq!(common::json(&out)["deleted"], second.as_str());
    let list = stdout(&cargo_agents(&e, &dir, &["jobs", "list"]).await);
    assert_eq!(list, "");
    create("nightly").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_c_stops_a_wait_and_names_the_run_that_goes_on() {
    let e = emulator().await;
    let dir = scratch("job-ctrl-c");
    std::fs::write(dir.join("asins.csv"), "asin\nB1\n").unwrap();
    let args = [
        "jobs",
        "create",
        "slow",
        "--agent",
        "retailer_a_pdp",
        "--input",
        "asins.csv",
    ];
    let job = stdout(&cargo_agents(&e, &dir, &args).await)
        .trim()
        .to_owned();
    // Every answer late, so the wait is still at its first poll when Ctrl-C comes.
    e.inject(KEY, Fault::Latency(Duration::from_secs(3)), None);
    let trigger = common::on_catalog(&e, &dir, KEY, &["jobs", "trigger", &job, "--wait"]);
    let (started, status, rest) = common::interrupted(trigger).await;
    e.clear_faults(KEY);
    assert!(started.starts_with("run "), "{started}");
    let run_id = started.split_whitespace().nth(1).unwrap().to_owned();
    assert_eq!(status.code(), Some(130), "{rest}");
    assert!(
        rest.contains(&format!("interrupted; run {run_id} goes on at the service")),
        "{rest}"
    );
}
