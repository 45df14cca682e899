#![allow(clippy::unwrap_used)] // test helpers outside #[test] fns
//! Webhooks, cloud delivery and the proxy.

use std::time::{Duration, Instant};

use agents_emulator::{Account, Emulator};
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
use futures::StreamExt as _;

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
        .run_async_with(
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
        .run_async_with(
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

async fn read_when_delivered<R: agents_runtime::__private::serde::de::DeserializeOwned + Send>(
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
        .run_async_with(
            RetailerAPdpParams::new("B08N5WRWNW"),
            &RunOptions::new(),
            &Delivery::new()
                .storage(StorageType::S3, "s3://results/pdp/")
                .compress(true),
        )
        .await
        .unwrap();
    let named = c
        .run_async_with(
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

#[tokio::test]
async fn a_large_batch_reads_its_results_from_the_bucket_not_one_get_each() {
    let buckets = std::env::temp_dir().join(format!("agents-batch-buckets-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&buckets);
    std::fs::create_dir_all(buckets.join("results")).unwrap();
    let e = start(Emulator::builder().rate_limit(None).bucket_dir(&buckets)).await;
    let c = client(&e);
    let n = 1_500; // two batches
    let asin = |i: usize| format!("B{i:09}");
    let batch = c
        .batch::<RetailerAPdp>()
        .delivery(
            Delivery::new()
                .storage(StorageType::S3, "s3://results/nightly/")
                .object_name("pdp"),
        )
        .submit((0..n).map(|i| RetailerAPdpParams::new(asin(i))))
        .await
        .unwrap()
        .with_wait(fast());
    let reader = DeliveryReader::local(buckets.join("results")).unwrap();
    let before = e.requests_seen(agents_tests_e2e::KEY);
    let from_bucket = batch.clone().read_from(reader).unwrap();
    let mut seen = vec![false; n];
    let mut results = from_bucket.indexed_results();
    while let Some(item) = results.next().await {
        let (index, result) = item.unwrap();
        assert!(
            !std::mem::replace(&mut seen[index], true),
            "item {index} twice"
        );
        // Each object is the result of its own item, typed.
        assert!(result.record().is_some(), "item {index}: {result:?}");
        assert!(
            result
                .url
                .as_deref()
                .unwrap_or_default()
                .contains(&asin(index)),
            "{result:?}"
        );
    }
    assert!(seen.iter().all(|s| *s));
    let asked = e.requests_seen(agents_tests_e2e::KEY) - before;
    // Progress and the task lists of two batches, not 1,500 results.
    assert!(asked < 50, "{asked} requests to the service");
    // The same results as the service answers them, for a sample.
    let mut from_service = batch.indexed_results().take(3);
    while let Some(item) = from_service.next().await {
        let (index, result) = item.unwrap();
        assert!(
            result
                .url
                .as_deref()
                .unwrap_or_default()
                .contains(&asin(index))
        );
    }

    // Without a storage location there is no bucket to read from, and the error says how.
    let plain = c
        .batch::<RetailerAPdp>()
        .submit([RetailerAPdpParams::new("B08N5WRWNW")])
        .await
        .unwrap();
    let reader = DeliveryReader::local(buckets.join("results")).unwrap();
    let err = plain.read_from(reader).unwrap_err();
    assert!(err.to_string().contains("BatchBuilder::delivery"), "{err}");
    let _ = std::fs::remove_dir_all(&buckets);
}

#[tokio::test]
async fn the_proxy_builder_authenticates_through_the_emulators_proxy() {
    let password = "p@ss:w/rd";
    let e = start(
        Emulator::builder()
            .rate_limit(None)
            .account(Account::new("other-key").name("acme"))
            .proxy(password),
    )
    .await;
    let proxy = e.proxy_addr().unwrap();
    // A loopback site the proxy forwards to.
    let site = Router::new().route(
        "/page",
        axum::routing::get(|headers: HeaderMap| async move {
            // The proxy's own credentials never reach the target.
            assert!(headers.get("proxy-authorization").is_none());
            "hello through the proxy"
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let page = format!("http://{}/page", listener.local_addr().unwrap());
    tokio::spawn(async move {
        let _ = axum::serve(listener, site).await;
    });
    let through = |cfg: &ProxyConfig| {
        reqwest::Client::builder()
            .proxy(cfg.to_reqwest().unwrap())
            .build()
            .unwrap()
    };

    let cfg = ProxyConfig::new("127.0.0.1", "acme", "resi", "de", password)
        .unwrap()
        .port(proxy.port());
    let r = through(&cfg).get(&page).send().await.unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["x-emulator-proxy-country"], "DE");
    assert_eq!(r.headers()["x-emulator-proxy-account"], "acme");
    assert_eq!(r.text().await.unwrap(), "hello through the proxy");

    for wrong in [
        ProxyConfig::new("127.0.0.1", "acme", "resi", "de", "nope"),
        ProxyConfig::new("127.0.0.1", "nobody", "resi", "de", password),
    ] {
        let wrong = wrong.unwrap().port(proxy.port());
        let r = through(&wrong).get(&page).send().await.unwrap();
        assert_eq!(r.status(), 407);
        assert!(r.headers().contains_key("proxy-authenticate"));
    }
    // Other hosts are never contacted.
    let r = through(&cfg)
        .get("http://elsewhere.example/")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 502);
    assert!(!format!("{cfg:?}").contains(password));
    assert!(ProxyConfig::new("127.0.0.1", "acme", "resi", "USA", "x").is_err());
    assert!(ProxyConfig::new("127.0.0.1", "ac:me", "resi", "us", "x").is_err());
}
