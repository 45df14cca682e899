#![allow(clippy::unwrap_used)] // test helpers outside #[test] fns
//! What strangers and attackers send: numbers that overflow, panics, paths that escape the bucket
//! directory, unknown keys by the thousand, 429 storms on keep-alive connections, and requests
//! axum would answer in plain text. Every answer is a complete JSON response; nothing escapes.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use agents_emulator::{Emulator, EmulatorHandle, Lifecycle};
use reqwest::{Client, StatusCode};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

const KEY: &str = "test-key";

async fn emulator(b: agents_emulator::EmulatorBuilder) -> EmulatorHandle {
    b.api_key(KEY)
        .lifecycle(Lifecycle::fast())
        .start()
        .await
        .unwrap()
}

async fn post(e: &EmulatorHandle, path: &str, body: &Value) -> (StatusCode, Value) {
    json_answer(
        Client::new()
            .post(format!("{}{path}", e.base_url()))
            .json(body),
    )
    .await
}

/// Sends `r` with the test key; the status and the JSON body (a body that is not JSON fails).
async fn json_answer(r: reqwest::RequestBuilder) -> (StatusCode, Value) {
    let r = r.bearer_auth(KEY).send().await.unwrap();
    let status = r.status();
    let text = r.text().await.unwrap();
    let v = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{status} {text:?}: {e}"));
    (status, v)
}

/// Numbers a JSON parser accepts and naive code turns into panics or overflows.
const NUMBERS: [&str; 9] = [
    "1e300",
    "1e308",
    "-1",
    "18446744073709551615",
    "-9223372036854775809",
    "\"1e300s\"",
    "\"inf\"",
    "\"NaN\"",
    "\"-0.5ms\"",
];

#[tokio::test]
async fn huge_infinite_and_negative_waits_are_422_naming_the_field() {
    let e = emulator(Emulator::builder().rate_limit(None)).await;
    for n in NUMBERS {
        let action: Value = serde_json::from_str(&format!("{{\"wait\": {n}}}")).unwrap();
        let body = json!({"url": "https://example.com/", "browser_actions": [action]});
        for path in ["/v1/extract", "/v1/extract/async"] {
            let (status, v) = post(&e, path, &body).await;
            assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{path} {n}: {v}");
            assert_eq!(v["error"]["field"], "browser_actions[0].wait", "{v}");
        }
        let batch = json!({"inputs": [body], "shared_inputs": {}});
        let (status, v) = post(&e, "/v1/extract/batch", &batch).await;
        assert!(status.is_client_error(), "batch {n}: {status} {v}");
        assert!(
            v["error"]["field"]
                .as_str()
                .unwrap()
                .ends_with("browser_actions[0].wait"),
            "{v}"
        );
    }
    // A wait within bounds still runs.
    let ok = json!({"url": "https://example.com/", "browser_actions": [{"wait": "5ms"}]});
    assert_eq!(post(&e, "/v1/extract", &ok).await.0, StatusCode::OK);
}

#[tokio::test]
async fn hostile_numbers_in_every_field_never_get_a_5xx() {
    let e = emulator(Emulator::builder().rate_limit(None)).await;
    let endpoints = [
        "/v1/agents/run",
        "/v1/agents/async",
        "/v1/agents/batch",
        "/v1/extract",
        "/v1/search",
        "/v1/map",
        "/v1/crawl",
    ];
    let fields = [
        "limit",
        "max_results",
        "max_discovery_depth",
        "timeout",
        "page",
        "expected_status_codes",
    ];
    for path in endpoints {
        for n in NUMBERS {
            let value: Value = serde_json::from_str(n).unwrap();
            let mut body = json!({
                "url": "https://example.com/",
                "query": "q",
                "agent": "retailer_a_serp",
                "params": {"keyword": "k", "page": value},
                "inputs": [{"params": {"keyword": "k", "page": value}}],
                "shared_inputs": {"agent": "retailer_a_serp"},
            });
            for f in fields {
                body[f] = value.clone();
            }
            let (status, v) = post(&e, path, &body).await;
            assert!(!status.is_server_error(), "{path} {n}: {status} {v}");
            if !status.is_success() {
                assert!(v["error"]["message"].is_string(), "{path} {n}: {v}");
            }
        }
    }
}

#[tokio::test]
async fn a_panic_answers_a_json_500_and_the_server_goes_on() {
    let e = emulator(Emulator::builder().rate_limit(None)).await;
    let http = Client::new();
    for _ in 0..3 {
        let r = http
            .get(format!("{}/v1/agents", e.base_url()))
            .bearer_auth(KEY)
            .header("x-emulator-fault", "panic")
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::INTERNAL_SERVER_ERROR);
        let v: Value = r.json().await.unwrap();
        assert_eq!(v["error"]["code"], "INTERNAL_ERROR", "{v}");
        assert!(
            v["error"]["message"]
                .as_str()
                .unwrap()
                .contains("injected fault: panic"),
            "{v}"
        );
    }
    let r = http
        .get(format!("{}/v1/agents", e.base_url()))
        .bearer_auth(KEY)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
}

/// Every file below `dir`, relative to it.
fn files_below(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                out.push(path.strip_prefix(dir).unwrap().to_path_buf());
            }
        }
    }
    out.sort();
    out
}

#[tokio::test]
async fn cloud_delivery_never_writes_outside_the_bucket_directory() {
    let root = std::env::temp_dir().join(format!("agents-escape-{}", uuid_like()));
    let buckets = root.join("a").join("b").join("buckets");
    std::fs::create_dir_all(&buckets).unwrap();
    let e = emulator(Emulator::builder().rate_limit(None).bucket_dir(&buckets)).await;
    let run = |extra: Value| {
        let mut body = json!({"agent": "retailer_a_pdp", "params": {"asin": "B0ESCAPE"},
                              "storage_type": "s3"});
        for (k, v) in extra.as_object().unwrap() {
            body[k] = v.clone();
        }
        body
    };
    let attempts = [
        (json!({"storage_url": "s3://b/../../../x/"}), "storage_url"),
        (json!({"storage_url": "s3://../x/"}), "storage_url"),
        (json!({"storage_url": "s3://b/./x/"}), "storage_url"),
        (
            json!({"storage_url": "s3://b/p\\..\\..\\x/"}),
            "storage_url",
        ),
        (json!({"storage_url": "s3://b/p\u{0}q/"}), "storage_url"),
        (
            json!({"storage_url": "s3://b/ok/", "storage_object_name": "../../../x"}),
            "storage_object_name",
        ),
        (
            json!({"storage_url": "s3://b/ok/", "storage_object_name": "/tmp/x"}),
            "storage_object_name",
        ),
        (
            json!({"storage_url": "s3://b/ok/", "storage_object_name": "a/../../x"}),
            "storage_object_name",
        ),
        (
            json!({"storage_url": "s3://b/ok/", "storage_object_name": "..\\x"}),
            "storage_object_name",
        ),
        (
            json!({"storage_url": "s3://b/ok/", "storage_object_name": "x\ny"}),
            "storage_object_name",
        ),
        (
            json!({"storage_url": "s3://b/ok/", "storage_object_name": ""}),
            "storage_object_name",
        ),
    ];
    for (extra, field) in &attempts {
        let (status, v) = post(&e, "/v1/agents/async", &run(extra.clone())).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{extra}: {v}");
        assert_eq!(v["error"]["field"], *field, "{extra}: {v}");
        // The same options as a batch's shared settings.
        let batch = json!({"inputs": [{"params": {"asin": "B0ESCAPE"}}],
                           "shared_inputs": run(extra.clone())});
        let (status, v) = post(&e, "/v1/agents/batch", &batch).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "batch {extra}: {v}");
    }
    // A nested object name is a key with slashes, inside the prefix.
    let ok = run(json!({"storage_url": "s3://b/ok/", "storage_object_name": "day/one"}));
    let (status, v) = post(&e, "/v1/agents/async", &ok).await;
    assert_eq!(status, StatusCode::OK, "{v}");
    let wanted = PathBuf::from("b/ok/day/one.json");
    for _ in 0..100 {
        if buckets.join(&wanted).exists() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(
        files_below(&root),
        vec![PathBuf::from("a/b/buckets").join(&wanted)]
    );
    e.shutdown().await;
    let _ = std::fs::remove_dir_all(&root);
}

fn uuid_like() -> String {
    format!("{}-{}", std::process::id(), uuid::Uuid::new_v4())
}

/// The emulator binary as a child process, killed on drop.
struct Binary {
    child: Child,
    base_url: String,
}

impl Binary {
    fn start(args: &[&str]) -> Binary {
        let mut child = Command::new(env!("CARGO_BIN_EXE_agents-emulator"))
            .args(["--port", "0"])
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        Binary {
            child,
            base_url: line.trim().to_owned(),
        }
    }

    /// Resident set size in kB, from /proc (Linux).
    fn rss_kb(&self) -> Option<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).ok()?;
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
    }
}

impl Drop for Binary {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[tokio::test]
async fn unknown_keys_leave_no_state_behind() {
    let bin = Binary::start(&["--api-key", KEY, "--rate-limit", "0"]);
    let http = Client::new();
    let url = format!("{}/v1/agents?limit=1", bin.base_url);
    // Warm up the server's buffers with known-key traffic of the same size.
    for i in 0..50 {
        let r = http
            .get(&url)
            .header("authorization", format!("Bearer {KEY}"))
            .header("x-padding", format!("{i}{}", "p".repeat(100 * 1024)))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::OK);
    }
    let Some(before) = bin.rss_kb() else {
        // Straight to stderr, past the test harness's capture, so the skip shows.
        let _ = std::io::Write::write_all(
            &mut std::io::stderr(),
            b"skipped unknown_keys_leave_no_state_behind: no /proc/PID/status to read the RSS\n",
        );
        return;
    };
    for i in 0..1_000 {
        let key = format!("{i:04}{}", "k".repeat(100 * 1024));
        let r = http.get(&url).bearer_auth(&key).send().await.unwrap();
        assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
        let v: Value = r.json().await.unwrap();
        assert_eq!(v["error"]["code"], "UNAUTHORIZED");
    }
    let after = bin.rss_kb().unwrap();
    let grown_mb = after.saturating_sub(before) as f64 / 1024.0;
    eprintln!(
        "emulator RSS {} MB before, {} MB after 1,000 distinct 100 KB unknown keys (+{grown_mb:.1} MB)",
        before / 1024,
        after / 1024
    );
    // Keeping the keys would add about 100 MB.
    assert!(grown_mb < 30.0, "RSS grew by {grown_mb:.1} MB");
}

/// One HTTP/1.1 answer read off a raw connection: status, head (lowercased), body.
async fn read_answer(s: &mut TcpStream) -> Option<(u16, String, Vec<u8>)> {
    let mut buf = Vec::new();
    let mut byte = [0u8; 1];
    while !buf.ends_with(b"\r\n\r\n") {
        match s.read(&mut byte).await {
            Ok(1) => buf.push(byte[0]),
            _ => return None,
        }
    }
    let head = String::from_utf8_lossy(&buf).to_lowercase();
    let status = head.get(9..12)?.parse().ok()?;
    let len: usize = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .and_then(|v| v.trim().parse().ok())?;
    let mut body = vec![0u8; len];
    s.read_exact(&mut body).await.ok()?;
    Some((status, head, body))
}

fn raw_post(addr: &str, key: &str, body: &str) -> Vec<u8> {
    format!(
        "POST /v1/agents/run HTTP/1.1\r\nhost: {addr}\r\nauthorization: Bearer {key}\r\n\
         content-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

#[tokio::test]
async fn a_429_storm_leaves_the_keep_alive_connection_usable() {
    let e = emulator(Emulator::builder().rate_limit(Some(2)).burst(1)).await;
    let addr = e.addr().to_string();
    let mut s = TcpStream::connect(&addr).await.unwrap();
    let body = r#"{"agent": "retailer_a_pdp", "params": {"asin": "B08N5WRWNW"}}"#;
    let (mut ok, mut limited) = (0, 0);
    for i in 0..400 {
        s.write_all(&raw_post(&addr, KEY, body)).await.unwrap();
        let Some((status, head, body)) = read_answer(&mut s).await else {
            panic!("answer {i} was not a complete HTTP response ({ok} ok, {limited} × 429)");
        };
        assert!(!head.contains("connection: close"), "answer {i}: {head}");
        let v: Value = serde_json::from_slice(&body).unwrap();
        match status {
            200 => ok += 1,
            429 => {
                limited += 1;
                assert_eq!(v["error"]["code"], "RATE_LIMIT_EXCEEDED");
            }
            other => panic!("answer {i}: {other} {v}"),
        }
    }
    assert!(limited > 300, "{ok} ok, {limited} × 429");
    eprintln!("one keep-alive connection: 400 POSTs, {ok} × 200, {limited} × 429, 0 broken");

    // Unknown keys and refusals that come before the handler behave the same.
    for i in 0..50 {
        s.write_all(&raw_post(&addr, "wrong-key", body))
            .await
            .unwrap();
        let (status, head, _) = read_answer(&mut s).await.unwrap();
        assert_eq!(status, 401, "{i}");
        assert!(!head.contains("connection: close"));
    }

    // A body that does not arrive in time is not waited for: the answer closes the connection,
    // and says so.
    let mut s = TcpStream::connect(&addr).await.unwrap();
    let head = format!(
        "POST /v1/agents/run HTTP/1.1\r\nhost: {addr}\r\nauthorization: Bearer wrong-key\r\n\
         content-type: application/json\r\ncontent-length: 3000000\r\n\r\n{{\"pad\": \""
    );
    s.write_all(head.as_bytes()).await.unwrap();
    let (status, head, _) = read_answer(&mut s).await.unwrap();
    assert_eq!(status, 401);
    assert!(head.contains("connection: close"), "{head}");
    let mut rest = Vec::new();
    let _ = s.read_to_end(&mut rest).await;
    assert!(rest.is_empty(), "nothing follows the answer");
}

#[tokio::test]
async fn every_error_is_json_and_the_bearer_scheme_is_case_insensitive() {
    let e = emulator(Emulator::builder().rate_limit(None)).await;
    let http = Client::new();
    for path in [
        "/v1/tasks/%FF",
        "/v1/tasks/%FF/results",
        "/v1/agents/%C3%28",
        "/v1/batches/%FE",
        "/v1/agents?limit=1&limit=2",
        "/v1/agents?offset=1&offset=1",
        "/v1/crawl/%FF",
    ] {
        let r = http
            .get(format!("{}{path}", e.base_url()))
            .bearer_auth(KEY)
            .send()
            .await
            .unwrap();
        let status = r.status();
        let ct = r.headers()["content-type"].to_str().unwrap().to_owned();
        let v: Value = r.json().await.unwrap();
        assert_eq!(status, StatusCode::BAD_REQUEST, "{path}: {v}");
        assert_eq!(ct, "application/json", "{path}");
        assert!(v["error"]["message"].is_string(), "{path}: {v}");
    }
    for scheme in ["Bearer", "bearer", "BEARER", "bEaReR"] {
        for sep in [" ", "  ", "\t"] {
            let r = http
                .get(format!("{}/v1/agents?limit=1", e.base_url()))
                .header("authorization", format!("{scheme}{sep}{KEY}"))
                .send()
                .await
                .unwrap();
            assert_eq!(r.status(), StatusCode::OK, "{scheme:?}{sep:?}");
        }
    }
    for bad in [KEY.to_owned(), format!("Basic {KEY}"), "Bearer".to_owned()] {
        let r = http
            .get(format!("{}/v1/agents", e.base_url()))
            .header("authorization", bad.clone())
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::UNAUTHORIZED, "{bad}");
    }
}

async fn get(e: &EmulatorHandle, path: &str) -> (StatusCode, Value) {
    json_answer(Client::new().get(format!("{}{path}", e.base_url()))).await
}

/// A job of 1,000 inline inputs triggered past its run allowance: the oldest runs are
/// forgotten, and a page of one run describes that run only.
#[tokio::test]
async fn job_runs_are_bounded_and_paged_before_they_are_described() {
    let e = emulator(Emulator::builder().rate_limit(None)).await;
    let data: Vec<Value> = (0..1_000)
        .map(|i| json!({"asin": format!("B{i:05}")}))
        .collect();
    let (status, job) = post(
        &e,
        "/v2/jobs",
        &json!({"name": "big", "extract_template_name": "retailer_a_pdp",
                "inputs": {"type": "inline", "data": data}}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{job}");
    let id = job["id"].as_str().unwrap();
    let runs = agents_emulator::MAX_RUNS_PER_JOB + 20;
    for _ in 0..runs {
        let (status, run) = post(&e, &format!("/v2/jobs/{id}/runs"), &json!({})).await;
        assert_eq!(status, StatusCode::OK, "{run}");
    }
    let (status, page) = get(&e, &format!("/v2/jobs/{id}/runs?limit=1")).await;
    assert_eq!(status, StatusCode::OK, "{page}");
    assert_eq!(page["total"], agents_emulator::MAX_RUNS_PER_JOB, "{page}");
    assert_eq!(page["items"].as_array().unwrap().len(), 1);
    assert_eq!(page["items"][0]["input_count"], 1_000);
}

async fn send(
    e: &EmulatorHandle,
    method: reqwest::Method,
    path: &str,
    body: Option<Vec<u8>>,
) -> (StatusCode, Option<String>, String) {
    let mut r = Client::new()
        .request(method, format!("{}{path}", e.base_url()))
        .bearer_auth(KEY);
    if let Some(b) = body {
        r = r.header("content-type", "application/json").body(b);
    }
    let r = r.send().await.unwrap();
    let status = r.status();
    let ct = r
        .headers()
        .get("content-type")
        .map(|v| v.to_str().unwrap().to_owned());
    (status, ct, r.text().await.unwrap())
}

/// The small things of the `/v2` surface under bad input: every error is the JSON error
/// shape, a page size of 0 is refused, a template's `updated_at` moves with every change, a
/// `/v2` task points at `/v2` URLs, output schemas name JSON Schema types, object keys fit a
/// bucket.
#[tokio::test]
async fn small_v2_edges_answer_json_and_refuse_what_cannot_work() {
    use reqwest::Method;
    let e = emulator(Emulator::builder().rate_limit(None)).await;
    let big = vec![b' '; agents_emulator::routes::MAX_BODY + 1024];
    let (_, job) = post(
        &e,
        "/v2/jobs",
        &json!({"name": "j", "extract_template_name": "retailer_a_pdp"}),
    )
    .await;
    let (_, agent) = post(&e, "/v2/agents", &json!({"agent_name": "a"})).await;
    for (method, path) in [
        (
            Method::POST,
            format!("/v2/jobs/{}/runs", job["id"].as_str().unwrap()),
        ),
        (
            Method::PATCH,
            format!("/v2/agents/{}", agent["id"].as_str().unwrap()),
        ),
    ] {
        let (status, ct, body) = send(&e, method, &path, Some(big.clone())).await;
        assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE, "{path}");
        assert!(ct.unwrap().starts_with("application/json"), "{path}");
        let v: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(v["error"]["code"], "PAYLOAD_TOO_LARGE");
    }
    let (status, ct, body) = send(&e, Method::POST, "/downloads/x", None).await;
    assert_eq!(status, StatusCode::METHOD_NOT_ALLOWED);
    assert!(ct.unwrap().starts_with("application/json"));
    assert!(serde_json::from_str::<Value>(&body).unwrap()["error"].is_object());

    for path in [
        "/v2/extract/templates?limit=0",
        "/v2/extract/templates/retailer_a_pdp/versions?limit=0",
        "/v2/jobs?limit=0",
    ] {
        let (status, v) = get(&e, path).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{path}: {v}");
        assert_eq!(v["error"]["field"], "limit", "{path}: {v}");
    }

    // A template of one's own, changed in place twice: updated_at moves each time.
    let (status, made) = post(
        &e,
        "/v2/extract/templates/generations",
        &json!({"prompt": "the title", "url": "https://market.example/l/1", "name": "mine"}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{made}");
    e.advance(Duration::from_secs(3600));
    let (_, before) = get(&e, "/v2/extract/templates/mine").await;
    let mut seen = vec![before["updated_at"].clone()];
    for name in ["One", "Two"] {
        let op = json!([{"op": "replace", "path": "/published_version/metadata/display_name",
                         "value": name}]);
        let (status, _, body) = send(
            &e,
            Method::PATCH,
            "/v2/extract/templates/mine",
            Some(op.to_string().into_bytes()),
        )
        .await;
        assert_eq!(status, StatusCode::OK, "{body}");
        let v: Value = serde_json::from_str(&body).unwrap();
        assert!(
            !seen.contains(&v["updated_at"]),
            "{seen:?} {}",
            v["updated_at"]
        );
        seen.push(v["updated_at"].clone());
    }

    // A /v2 async task points at /v2.
    let (status, task) = post(
        &e,
        "/v2/extract/templates/async",
        &json!({"template": "retailer_a_pdp", "params": {"asin": "B1"}}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{task}");
    for key in ["status_url", "download_url"] {
        let url = task["task"][key].as_str().unwrap();
        assert!(url.contains("/v2/tasks/"), "{key}: {url}");
    }

    // Output schemas name JSON Schema types.
    let weird = json!({"type": "object", "properties": {"x": {"type": "weird"}}});
    let (status, v) = post(&e, "/v2/agents", &json!({"output_schema": weird})).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
    assert_eq!(
        v["error"]["field"], "output_schema.properties.x.type",
        "{v}"
    );
    let (status, v) = post(
        &e,
        "/v2/extract/templates/generations",
        &json!({"prompt": "p", "url": "https://market.example/l/2", "name": "weird",
                "output_schema": weird}),
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{v}");

    // An object key longer than a bucket takes is refused, not written as 2,000 directories.
    let (status, v) = post(
        &e,
        "/v2/extract/templates/async",
        &json!({"template": "retailer_a_pdp", "params": {"asin": "B1"},
                "storage_type": "s3", "storage_url": "s3://bucket/prefix/",
                "storage_object_name": "a/".repeat(2_000)}),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{v}");
    assert_eq!(v["error"]["field"], "storage_object_name", "{v}");
}
