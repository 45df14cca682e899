#![allow(clippy::unwrap_used)] // test helpers outside #[test] fns
//! Webhooks, cloud delivery and the proxy.

use std::time::{Duration, Instant};

use agents_emulator::Emulator;
use agents_runtime::catalog::{RetailerAPdp, RetailerAPdpParams};
use agents_runtime::client::delivery::{DeliveryError, DeliveryReader};
use agents_runtime::client::proxy::ProxyConfig;
use agents_runtime::client::tasks::TaskState;
use agents_runtime::client::webhook::{Completion, WebhookError, parse_completion};
use agents_runtime::{Delivery, RunOptions, RunResult, StorageType, WaitOptions};
use agents_tests_e2e::{client, emulator, start};
use axum::Router;
use axum::http::{HeaderMap, StatusCode, header};
use axum::routing::post;
use base64::Engine as _;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

fn fast() -> WaitOptions {
    WaitOptions::TASK.intervals(Duration::from_millis(25), Duration::from_millis(100))
}

#[tokio::test]
async fn the_emulator_calls_the_webhook_with_task_metadata() {
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<Completion>();
    let app = Router::new().route(
        "/hook",
        post(move |headers: HeaderMap, body: axum::body::Bytes| {
            let tx = tx.clone();
            async move {
                let ct = headers
                    .get(header::CONTENT_TYPE)
                    .and_then(|v| v.to_str().ok());
                match parse_completion(ct, &body) {
                    Ok(c) => {
                        let _ = tx.send(c);
                        StatusCode::OK
                    }
                    Err(_) => StatusCode::BAD_REQUEST,
                }
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let hook = format!("http://{}/hook", listener.local_addr().unwrap());
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    let e = emulator().await;
    let c = client(&e);
    let handle = c
        .run_async(
            RetailerAPdpParams::new("B1"),
            &RunOptions::new(),
            &Delivery::new().callback_url(&hook),
        )
        .await
        .unwrap();
    let done = tokio::time::timeout(Duration::from_secs(5), rx.recv())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(done.task_id, handle.id());
    assert_eq!(done.state, TaskState::Success);
    assert_eq!(done.agent.as_deref(), Some("retailer_a_pdp"));
    assert!(
        !done.rest.contains_key("data"),
        "no result data in the notice"
    );

    // Non-loopback webhooks are never contacted, and the emulator says so.
    let far = c
        .run_async(
            RetailerAPdpParams::new("B2"),
            &RunOptions::new(),
            &Delivery::new().callback_url("https://hooks.example/x"),
        )
        .await
        .unwrap();
    far.clone().with_wait(fast()).wait().await.unwrap();
    let t = Instant::now();
    while e.delivery_errors(far.id()).is_empty() && t.elapsed() < Duration::from_secs(3) {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(e.delivery_errors(far.id())[0].contains("only contacts loopback"));

    assert!(parse_completion(Some("text/plain"), b"{}").is_err());
    assert!(parse_completion(None, br#"{"state": "success"}"#).is_err());
    let ok = br#"{"task_id": "t1", "state": "success"}"#;
    assert_eq!(parse_completion(None, ok).unwrap().task_id, "t1");
    // A body with something after the JSON value is refused, not half read.
    let trailing = [&ok[..], b" {}"].concat();
    match parse_completion(Some("application/json"), &trailing) {
        Err(WebhookError::Body { path, message }) => {
            assert_eq!(path, ".");
            assert!(message.contains("trailing characters"), "{message}");
        }
        other => panic!("{other:?}"),
    }
}

async fn read_when_delivered<R: agents_runtime::__private::serde::de::DeserializeOwned>(
    reader: &DeliveryReader,
    url: &str,
    name: &str,
) -> R {
    let t = Instant::now();
    loop {
        match reader.read::<R>(url, name).await {
            Ok(r) => return r,
            Err(DeliveryError::NotFound { .. }) if t.elapsed() < Duration::from_secs(5) => {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            Err(e) => panic!("{e}"),
        }
    }
}

#[tokio::test]
async fn results_delivered_to_a_bucket_read_back_typed() {
    let buckets = std::env::temp_dir().join(format!("agents-buckets-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&buckets);
    let e = start(Emulator::builder().rate_limit(None).bucket_dir(&buckets)).await;
    let c = client(&e);
    let gz = c
        .run_async(
            RetailerAPdpParams::new("B08N5WRWNW"),
            &RunOptions::new(),
            &Delivery::new()
                .storage(StorageType::S3, "s3://results/pdp/")
                .compress(true),
        )
        .await
        .unwrap();
    let named = c
        .run_async(
            RetailerAPdpParams::new("B08N5WRWNW"),
            &RunOptions::new(),
            &Delivery::new()
                .storage(StorageType::Gs, "gs://results/named/")
                .object_name("latest"),
        )
        .await
        .unwrap();
    // The bucket exists before anything is delivered, as a real one would.
    std::fs::create_dir_all(buckets.join("results")).unwrap();
    let reader = DeliveryReader::local(buckets.join("results")).unwrap();
    let a: RunResult<RetailerAPdp> =
        read_when_delivered(&reader, "s3://results/pdp/", gz.id()).await;
    let b: RunResult<RetailerAPdp> =
        read_when_delivered(&reader, "gs://results/named/", "latest").await;
    assert!(
        buckets
            .join(format!("results/pdp/{}.json.gz", gz.id()))
            .is_file()
    );
    assert_eq!(a.record(), b.record());
    let direct = c.run(RetailerAPdpParams::new("B08N5WRWNW")).await.unwrap();
    assert_eq!(a.record(), direct.record());
    let _ = named;
    match reader
        .read::<RunResult<RetailerAPdp>>("s3://results/pdp/", "nope")
        .await
    {
        Err(DeliveryError::NotFound { tried }) => assert_eq!(tried.len(), 2),
        other => panic!("{other:?}"),
    }
    let _ = std::fs::remove_dir_all(&buckets);
}

/// A minimal forward proxy on loopback that checks the account credentials.
async fn fake_proxy(expected_auth: String) -> u16 {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        loop {
            let Ok((mut sock, _)) = listener.accept().await else {
                return;
            };
            let expected = expected_auth.clone();
            tokio::spawn(async move {
                let mut buf = Vec::new();
                let mut chunk = [0u8; 1024];
                while !buf.windows(4).any(|w| w == b"\r\n\r\n") {
                    match sock.read(&mut chunk).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => buf.extend_from_slice(&chunk[..n]),
                    }
                }
                let head = String::from_utf8_lossy(&buf).to_string();
                let line = head.lines().next().unwrap_or("").to_owned();
                let authorized = head.lines().any(|l| {
                    l.to_ascii_lowercase().starts_with("proxy-authorization:")
                        && l.ends_with(&expected)
                });
                let (status, body) = if authorized {
                    ("200 OK", format!("proxied {line}"))
                } else {
                    (
                        "407 Proxy Authentication Required",
                        "who are you".to_owned(),
                    )
                };
                let resp = format!(
                    "HTTP/1.1 {status}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = sock.write_all(resp.as_bytes()).await;
            });
        }
    });
    port
}

#[tokio::test]
async fn the_proxy_builder_authenticates_through_a_loopback_proxy() {
    let cfg = ProxyConfig::new("127.0.0.1", "acme", "resi", "us", "pa55").unwrap();
    let basic = base64::engine::general_purpose::STANDARD
        .encode("account-acme-pipeline-resi-country-US:pa55");
    let port = fake_proxy(format!("Basic {basic}")).await;
    let cfg = cfg.port(port);
    let http = reqwest::Client::builder()
        .proxy(cfg.to_reqwest().unwrap())
        .build()
        .unwrap();
    let r = http.get("http://127.0.0.1:9/page").send().await.unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(
        r.text().await.unwrap(),
        "proxied GET http://127.0.0.1:9/page HTTP/1.1"
    );
    let wrong = ProxyConfig::new("127.0.0.1", "acme", "resi", "us", "nope")
        .unwrap()
        .port(port);
    let http = reqwest::Client::builder()
        .proxy(wrong.to_reqwest().unwrap())
        .build()
        .unwrap();
    assert_eq!(
        http.get("http://127.0.0.1:9/page")
            .send()
            .await
            .unwrap()
            .status(),
        407
    );
    assert!(!format!("{cfg:?}").contains("pa55"));
    assert!(ProxyConfig::new("127.0.0.1", "acme", "resi", "USA", "x").is_err());
    assert!(ProxyConfig::new("127.0.0.1", "ac:me", "resi", "us", "x").is_err());
}
