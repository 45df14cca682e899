#![allow(clippy::unwrap_used)] // test helpers outside #[test] fns
//! The client against servers that misbehave: day-long 429 hints, huge bodies, byte order marks,
//! refused and dropped connections. Each server is a small axum app or a raw socket on loopback.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use agents_emulator::{Emulator, Fault};
use agents_runtime::catalog::RetailerAPdpParams;
use agents_runtime::{Error, ErrorKind, RetryPolicy};
use agents_tests_e2e::{KEY, client_of as client, serve, start};
use axum::Router;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// A raw TCP server on loopback that runs `on_connection` for each connection it accepts, with a
/// counter the handler increments per request it receives.
async fn raw_server<F, Fut>(on_connection: F) -> (std::net::SocketAddr, Arc<AtomicU32>)
where
    F: Fn(TcpStream, Arc<AtomicU32>) -> Fut + Send + Sync + 'static,
    Fut: std::future::Future<Output = ()> + Send + 'static,
{
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let received = Arc::new(AtomicU32::new(0));
    let count = received.clone();
    tokio::spawn(async move {
        while let Ok((s, _)) = listener.accept().await {
            tokio::spawn(on_connection(s, count.clone()));
        }
    });
    (addr, received)
}

fn fast_retries() -> RetryPolicy {
    RetryPolicy {
        min_delay: Duration::from_millis(1),
        max_delay: Duration::from_millis(5),
        ..RetryPolicy::default()
    }
}

#[tokio::test]
async fn a_day_long_429_hint_fails_calls_at_once_instead_of_freezing_the_client() {
    let gets = Arc::new(AtomicU32::new(0));
    let counter = gets.clone();
    let app = Router::new()
        .route(
            "/v1/agents/run",
            post(|| async {
                let body = json!({"error": {"code": "RATE_LIMIT_EXCEEDED",
                                            "message": "slow down", "retry_after": 86_400}});
                (StatusCode::TOO_MANY_REQUESTS, axum::Json(body))
            }),
        )
        .route(
            "/v1/agents",
            get(move || {
                counter.fetch_add(1, Ordering::SeqCst);
                async { axum::Json(json!([])) }
            }),
        );
    let base = serve(app).await;
    let c = client(&base).build().unwrap();
    let clone = c.clone();
    let started = Instant::now();
    let err = c.run(RetailerAPdpParams::new("B1")).await.unwrap_err();
    assert!(matches!(err, Error::RateLimited(_)), "{err}");
    assert_eq!(err.kind(), ErrorKind::RateLimited);
    assert_eq!(err.retry_after(), Some(Duration::from_secs(86_400)));
    assert_eq!(err.attempts(), Some(1));
    assert!(err.to_string().contains("retry after 86400 s"), "{err}");

    // A read on a clone fails at once with the same 429 rather than sleeping for 300 s, and
    // nothing is sent.
    let err = clone.agents().list().await.unwrap_err();
    assert!(matches!(err, Error::HeldBack(_)), "{err}");
    assert_eq!(
        err.kind(),
        ErrorKind::HeldBack,
        "told apart from a 429 the service sent"
    );
    assert!(err.to_string().contains("not sent"), "{err}");
    let left = err.retry_after().unwrap();
    assert!(left > Duration::from_secs(86_000), "{left:?}");
    assert_eq!(gets.load(Ordering::SeqCst), 0);
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "the calls failed instead of waiting out the pause"
    );
}

#[tokio::test]
async fn a_short_429_hint_pauses_every_clone_and_then_they_succeed() {
    let calls = Arc::new(AtomicU32::new(0));
    let counter = calls.clone();
    let app = Router::new().route(
        "/v1/agents",
        get(move || {
            let n = counter.fetch_add(1, Ordering::SeqCst);
            async move {
                if n == 0 {
                    let body = json!({"status": "failed", "msg": "slow down"});
                    let mut r = (StatusCode::TOO_MANY_REQUESTS, axum::Json(body)).into_response();
                    r.headers_mut()
                        .insert("retry-after-ms", HeaderValue::from_static("300"));
                    r
                } else {
                    axum::Json(json!([])).into_response()
                }
            }
        }),
    );
    let base = serve(app).await;
    let c = client(&base).build().unwrap();
    let list = c.agents().list().await.unwrap();
    assert!(list.is_empty());
    assert_eq!(calls.load(Ordering::SeqCst), 2);
}

fn big_json(bytes: usize) -> String {
    format!("[\"{}\"]", "x".repeat(bytes))
}

#[tokio::test]
async fn answers_larger_than_the_cap_fail_with_size_and_limit() {
    let app = Router::new()
        .route("/v1/agents", get(|| async { big_json(20 * 1024 * 1024) }))
        .route(
            "/v1/agents/{name}",
            get(|| async {
                // Chunked: no Content-Length to refuse on.
                let chunks = (0..40).map(|_| Ok::<_, std::io::Error>(vec![b' '; 64 * 1024]));
                Response::new(axum::body::Body::from_stream(futures::stream::iter(chunks)))
            }),
        );
    let base = serve(app).await;
    let c = client(&base)
        .max_response_bytes(1024 * 1024)
        .build()
        .unwrap();
    let err = c.agents().list().await.unwrap_err();
    let Error::TooLarge(t) = &err else {
        panic!("{err}")
    };
    assert_eq!(t.limit, 1024 * 1024);
    assert_eq!(t.declared, Some(20 * 1024 * 1024 + 4));
    assert_eq!(err.kind(), ErrorKind::Response);
    let text = err.to_string();
    assert!(
        text.contains("1048576")
            && text.contains("20971524")
            && text.contains("max_response_bytes"),
        "{text}"
    );

    let err = c.agent("x").await.unwrap_err();
    let Error::TooLarge(t) = &err else {
        panic!("{err}")
    };
    assert_eq!(t.declared, None);
    assert_eq!(t.read, 1024 * 1024);

    // The default cap (64 MiB) reads a 20 MB answer.
    let c = client(&base).build().unwrap();
    let err = c.agents().list().await.unwrap_err();
    assert!(
        matches!(err, Error::Decode(_)),
        "read whole, then decoded: {err}"
    );
}

#[tokio::test]
async fn a_byte_order_mark_before_json_is_tolerated() {
    let app = Router::new().route(
        "/v1/agents",
        get(|| async {
            let mut r = "\u{feff}[{\"name\": \"a\", \"display_name\": \"A\", \"is_public\": true}]"
                .into_response();
            r.headers_mut().insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            );
            r
        }),
    );
    let base = serve(app).await;
    let list = client(&base)
        .build()
        .unwrap()
        .agents()
        .list()
        .await
        .unwrap();
    assert_eq!(list.len(), 1);
}

/// A record whose longest string ends in half a character (`\ud83d`, which serde_json refuses
/// and JavaScript and Python read) comes back whole, that string ending in U+FFFD.
#[tokio::test]
async fn a_string_cut_between_the_halves_of_a_character_costs_one_character() {
    let e = start(Emulator::builder().rate_limit(None)).await;
    let c = agents_tests_e2e::client_for(&e).build().unwrap();
    let params = RetailerAPdpParams::new("B08N5WRWNW");
    let whole = c.run(params.clone()).await.unwrap().into_record().unwrap();
    e.inject(KEY, Fault::SplitCharacter, Some(1));
    let cut = c.run(params).await.unwrap().into_record().unwrap();
    let (whole, cut) = (
        serde_json::to_value(&whole).unwrap(),
        serde_json::to_value(&cut).unwrap(),
    );
    let changed: Vec<(&String, &serde_json::Value)> = cut
        .as_object()
        .unwrap()
        .iter()
        .filter(|(k, v)| whole.get(k.as_str()) != Some(v))
        .collect();
    let longest = whole
        .as_object()
        .unwrap()
        .iter()
        .filter_map(|(k, v)| Some((k, v.as_str()?)))
        .max_by_key(|(_, v)| v.len())
        .unwrap();
    assert_eq!(
        changed,
        [(longest.0, &json!(format!("{}\u{fffd}", longest.1)))],
        "only the longest string changed"
    );
}

#[tokio::test]
async fn transport_errors_say_their_cause_and_attempts_are_counted() {
    // Nothing listens on port 1.
    let c = client("http://127.0.0.1:1")
        .retry_policy(fast_retries())
        .build()
        .unwrap();
    let err = c.agents().list().await.unwrap_err();
    let text = err.to_string();
    assert!(
        text.to_lowercase().contains("connection refused"),
        "the cause chain is in the message: {text}"
    );
    assert_eq!(err.kind(), ErrorKind::Transport);
    assert_eq!(err.attempts(), Some(6));
    let Error::Transport(t) = &err else {
        panic!("{err}")
    };
    assert!(t.never_sent());

    // Attempts are on successes too.
    let e = start(Emulator::builder().rate_limit(None)).await;
    e.inject(KEY, agents_emulator::Fault::RateLimited, Some(2));
    let c = client(e.base_url())
        .retry_policy(fast_retries())
        .build()
        .unwrap();
    let r = c.run(RetailerAPdpParams::new("B1")).await.unwrap();
    assert_eq!(r.response.attempts, 3);
    let r = c.run(RetailerAPdpParams::new("B1")).await.unwrap();
    assert_eq!(r.response.attempts, 1);
}

#[tokio::test]
async fn a_run_is_resent_only_when_it_provably_never_left() {
    // Connection refused, then the service comes up on that port: the POST is sent again and
    // runs once.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let addr = std::net::SocketAddr::from(([127, 0, 0, 1], port));
    let late = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        start(Emulator::builder().rate_limit(None).addr(addr)).await
    });
    let c = client(&format!("http://{addr}")).build().unwrap();
    let r = c.run(RetailerAPdpParams::new("B1")).await.unwrap();
    assert!(r.response.attempts > 1, "{}", r.response.attempts);
    let e = late.await.unwrap();
    assert_eq!(e.requests_seen(KEY), 1, "ran exactly once");

    // A server that reads the request and drops the connection without answering: the request
    // left, so the run is not sent again.
    let (addr, received) = raw_server(|mut s: TcpStream, count: Arc<AtomicU32>| async move {
        let mut buf = vec![0u8; 64 * 1024];
        if s.read(&mut buf).await.unwrap_or(0) > 0 {
            count.fetch_add(1, Ordering::SeqCst);
        }
    })
    .await;
    let c = client(&format!("http://{addr}"))
        .retry_policy(fast_retries())
        .build()
        .unwrap();
    let err = c.run(RetailerAPdpParams::new("B1")).await.unwrap_err();
    let Error::Transport(t) = &err else {
        panic!("{err}")
    };
    assert!(!t.never_sent(), "{err}");
    assert_eq!(err.attempts(), Some(1));
    assert_eq!(received.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_server_closing_after_each_answer_loses_and_duplicates_nothing() {
    // Answers every request on a connection and closes it without `Connection: close`, as the
    // emulator once did after early 429s.
    let (addr, received) = raw_server(|mut s: TcpStream, count: Arc<AtomicU32>| async move {
        let mut buf = Vec::new();
        let mut chunk = [0u8; 4096];
        // Read the head and the body the head announces.
        loop {
            let Ok(n) = s.read(&mut chunk).await else {
                return;
            };
            if n == 0 {
                return;
            }
            buf.extend_from_slice(&chunk[..n]);
            let text = String::from_utf8_lossy(&buf).to_lowercase();
            if let Some(end) = text.find("\r\n\r\n") {
                let len: usize = text
                    .lines()
                    .find_map(|l| l.strip_prefix("content-length:"))
                    .and_then(|v| v.trim().parse().ok())
                    .unwrap_or(0);
                if buf.len() >= end + 4 + len {
                    break;
                }
            }
        }
        count.fetch_add(1, Ordering::SeqCst);
        let body = r#"{"url": "u", "task_id": "t", "status": "success", "data": {"parsing": {}}}"#;
        let answer = format!(
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
            body.len()
        );
        let _ = s.write_all(answer.as_bytes()).await;
    })
    .await;
    let c = client(&format!("http://{addr}")).build().unwrap();
    for i in 0..20 {
        let r = c.run(RetailerAPdpParams::new("B1")).await;
        assert!(r.is_ok(), "run {i}: {}", r.unwrap_err());
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(received.load(Ordering::SeqCst), 20);
}

#[tokio::test]
async fn a_429_storm_on_the_emulator_ends_in_answers_never_transport_errors() {
    use std::sync::{Arc, Mutex};

    /// Log lines of this test's thread, as a subscriber writes them.
    #[derive(Clone, Default)]
    struct Lines(Arc<Mutex<Vec<u8>>>);
    impl std::io::Write for Lines {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let lines = Lines::default();
    let writer = lines.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::WARN)
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .finish();
    let _logging = tracing::subscriber::set_default(subscriber);
    let started = std::time::Instant::now();

    let e = start(Emulator::builder().rate_limit(Some(20)).burst(2)).await;
    let c = client(e.base_url())
        .retry_policy(RetryPolicy {
            max_attempts: 3,
            ..fast_retries()
        })
        .build()
        .unwrap();
    let runs = (0..200).map(|i| {
        let c = c.clone();
        async move { c.run(RetailerAPdpParams::new(format!("B{i}"))).await }
    });
    let results = futures::future::join_all(runs).await;
    let (mut ok, mut limited, mut attempts) = (0, 0, 0u64);
    for r in results {
        match r {
            Ok(r) => {
                ok += 1;
                attempts += u64::from(r.response.attempts);
            }
            Err(e) => {
                assert_eq!(e.kind(), ErrorKind::RateLimited, "{e}");
                limited += 1;
                attempts += u64::from(e.attempts().unwrap());
            }
        }
    }
    assert_eq!(ok + limited, 200);
    assert!(ok > 0);
    assert_eq!(
        attempts,
        e.requests_seen(KEY),
        "every request the emulator saw is an attempt the client counted"
    );
    // Hundreds of 429s are at most one warning a second, not one per retry.
    let text = String::from_utf8(lines.0.lock().unwrap().clone()).unwrap();
    let warnings = text.lines().filter(|l| l.contains("WARN")).count() as u64;
    let seconds = started.elapsed().as_secs() + 1;
    eprintln!("{} requests, {warnings} warnings in {seconds} s", attempts);
    assert!(
        warnings <= seconds,
        "{warnings} warnings in {seconds} s:\n{text}"
    );
}
