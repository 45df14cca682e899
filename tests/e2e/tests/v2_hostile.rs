#![allow(clippy::unwrap_used)] // test code
//! The `/v2` client against servers that misbehave: a list holding a record its readers cannot
//! read, research event streams that are huge, broken or interrupted, templates nested deeper
//! than serde_json reads, and downloads that are not what they say. Each server is a small
//! axum app on loopback.

use agents_runtime::{ApiVersion, Client, Error};
use agents_tests_e2e::{client_of, serve};
use axum::Router;
use axum::routing::get;
use futures::StreamExt;
use serde_json::{Value, json};

fn v2(base: &str) -> Client {
    client_of(base).api_version(ApiVersion::V2).build().unwrap()
}

fn template(name: &str, tags: Value) -> Value {
    json!({
        "id": format!("tpl_{name}"), "name": name,
        "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z",
        "published_version_id": "v1",
        "published_version": {
            "id": "v1", "name": name, "version_number": 1, "created_at": "2026-01-01T00:00:00Z",
            "input_schema": {"type": "object", "properties": {}},
            "output_schema": {"type": "object", "properties": {"title": {"type": "string"}}},
            "metadata": {"display_name": name, "tags": tags}
        }
    })
}

/// One record the client cannot read is one error, naming its place and path; the records
/// around it still arrive.
#[tokio::test]
async fn one_bad_record_in_a_list_is_one_error_and_the_rest_arrive() {
    let page = json!({
        "items": [template("a", json!(["x"])), template("b", json!([1, {}])), template("c", json!([]))],
        "limit": 100, "offset": 0, "total": 3
    });
    let app = Router::new().route(
        "/v2/extract/templates",
        get(move || {
            let page = page.clone();
            async move { axum::Json(page) }
        }),
    );
    let base = serve(app).await;
    let got: Vec<Result<_, Error>> = v2(&base).templates().collect().await;
    assert_eq!(got.len(), 3);
    assert_eq!(got[0].as_ref().unwrap().name, "a");
    assert_eq!(got[2].as_ref().unwrap().name, "c");
    let Err(Error::Decode(e)) = &got[1] else {
        panic!("{:?}", got[1]);
    };
    assert!(
        e.path
            .starts_with("items[1].published_version.metadata.tags[0]"),
        "{}",
        e.path
    );
    // The error carries the record as the page held it, not the whole page.
    let held: Value = serde_json::from_str(&e.body).unwrap();
    assert_eq!(held["name"], "b", "{}", e.body);
}

/// A server of one artifact of `kind` whose download answers `content_type` and `chunks`, a
/// pause of `pause` before each chunk after the first.
fn artifact_server(
    kind: &'static str,
    content_type: &'static str,
    chunks: Vec<&'static [u8]>,
    pause: std::time::Duration,
) -> Router {
    Router::new()
        .route(
            "/v2/jobs/runs/{run}/artifacts/{id}",
            get(move || async move {
                axum::Json(json!({"id": "1", "type": kind, "description": "results"}))
            }),
        )
        .route(
            "/v2/jobs/runs/{run}/artifacts/{id}/download-url",
            get(|headers: axum::http::HeaderMap| async move {
                let host = headers["host"].to_str().unwrap().to_owned();
                axum::Json(json!({"url": format!("http://{host}/dl"),
                                  "expires_at": "2026-11-25T00:00:00Z"}))
            }),
        )
        .route(
            "/dl",
            get(move || async move {
                let body = futures::stream::iter(chunks.into_iter().enumerate()).then(
                    move |(i, c)| async move {
                        if i > 0 {
                            tokio::time::sleep(pause).await;
                        }
                        Ok::<_, std::convert::Infallible>(bytes::Bytes::from_static(c))
                    },
                );
                (
                    [(axum::http::header::CONTENT_TYPE, content_type)],
                    axum::body::Body::from_stream(body),
                )
            }),
        )
}

const PAGE: &[u8] = b"<!doctype html><html><body>Sign in</body></html>";

/// A download URL that answers a page (a proxy's sign-in page, status 200) is not an artifact,
/// read whole or as it arrives: the error comes before any byte is handed out.
#[tokio::test]
async fn a_download_that_answers_a_page_is_not_an_artifact() {
    for (kind, content_type) in [
        ("parquet", "text/html"),
        ("jsonl", "application/octet-stream"),
    ] {
        let app = artifact_server(kind, content_type, vec![PAGE], Default::default());
        let base = serve(app).await;
        let whole = v2(&base).download_artifact("r", "1").await.unwrap_err();
        let chunks = match v2(&base).artifact_chunks("r", "1").await {
            Err(e) => e,
            Ok(_) => panic!("{kind}: a page read as an artifact's chunks"),
        };
        for err in [whole, chunks] {
            let Error::Decode(e) = &err else {
                panic!("{kind}: {err}");
            };
            assert!(
                e.message.starts_with("the download"),
                "{kind}: {}",
                e.message
            );
        }
    }
}

/// An artifact read as it arrives: larger than the client takes whole, its bytes as sent; a
/// Parquet file cut before its closing mark ends with an error; one that goes silent past the
/// client's timeout ends with [`Error::Stalled`].
#[tokio::test]
async fn an_artifact_read_as_it_arrives_is_checked_and_watched() {
    // Larger than the limit set below, which the artifact's records (about 100 bytes) are not.
    const ROWS: &[u8] = &[b'r'; 1000];
    let whole = [&b"PAR1"[..], ROWS, b"PAR1"].concat();
    let app = artifact_server(
        "parquet",
        "application/octet-stream",
        vec![b"PA", b"R1", ROWS, b"PAR1"],
        std::time::Duration::from_millis(5),
    );
    let base = serve(app).await;
    let small = client_of(&base)
        .api_version(ApiVersion::V2)
        .max_response_bytes(400)
        .build()
        .unwrap();
    let err = small.download_artifact("r", "1").await.unwrap_err();
    assert!(matches!(err, Error::TooLarge(_)), "{err}");
    let chunks: Vec<bytes::Bytes> = small
        .artifact_chunks("r", "1")
        .await
        .unwrap()
        .map(Result::unwrap)
        .collect()
        .await;
    assert_eq!(chunks.concat(), whole);

    let cut = artifact_server(
        "parquet",
        "application/octet-stream",
        vec![b"PAR1 rows", b" and rows, cut"],
        Default::default(),
    );
    let items: Vec<Result<bytes::Bytes, Error>> = v2(&serve(cut).await)
        .artifact_chunks("r", "1")
        .await
        .unwrap()
        .collect()
        .await;
    assert!(items[..items.len() - 1].iter().all(Result::is_ok));
    match items.last() {
        Some(Err(Error::Decode(e))) => assert!(e.message.contains("PAR1"), "{}", e.message),
        other => panic!("a cut Parquet file ended with {other:?}"),
    }

    let silent = artifact_server(
        "jsonl",
        "application/x-ndjson",
        vec![b"{\"a\": 1}\n", b"{\"a\": 2}\n"],
        std::time::Duration::from_secs(5),
    );
    let impatient = client_of(&serve(silent).await)
        .api_version(ApiVersion::V2)
        .timeout(std::time::Duration::from_millis(200))
        .build()
        .unwrap();
    let items: Vec<Result<bytes::Bytes, Error>> = impatient
        .artifact_chunks("r", "1")
        .await
        .unwrap()
        .collect()
        .await;
    assert_eq!(items.len(), 2, "{items:?}");
    assert_eq!(items[0].as_ref().unwrap().as_ref(), b"{\"a\": 1}\n");
    assert!(
        matches!(&items[1], Err(Error::Stalled { .. })),
        "{:?}",
        items[1]
    );
}

/// A research server whose events endpoint answers, connection by connection, what `answers`
/// gives for that connection's number (0, 1, …): a status and the body's chunks.
fn research_server(
    answers: impl Fn(u32) -> (u16, Vec<Vec<u8>>) + Clone + Send + Sync + 'static,
) -> Router {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicU32, Ordering};
    let opened = Arc::new(AtomicU32::new(0));
    Router::new()
        .route(
            "/v2/agents/{agent}/runs",
            axum::routing::post(|| async {
                axum::Json(
                    json!({"id": "run1", "web_search_agent_id": "a", "status": "queued",
                                  "is_active": true, "effort": "low",
                                  "created_at": "2026-11-25T00:00:00Z"}),
                )
            }),
        )
        .route(
            "/v2/agents/{agent}/runs/{run}/events",
            get(move || {
                let n = opened.fetch_add(1, Ordering::SeqCst);
                let (status, chunks) = answers(n);
                async move {
                    let body = futures::stream::iter(
                        chunks
                            .into_iter()
                            .map(|c| Ok::<_, std::convert::Infallible>(bytes::Bytes::from(c))),
                    );
                    let status = axum::http::StatusCode::from_u16(status).unwrap();
                    let body = if status.is_success() {
                        axum::body::Body::from_stream(body)
                    } else {
                        axum::body::Body::from(
                            json!({"error": {"code": "UNAVAILABLE", "message": "busy"}})
                                .to_string(),
                        )
                    };
                    (
                        status,
                        [(axum::http::header::CONTENT_TYPE, "text/event-stream")],
                        body,
                    )
                }
            }),
        )
}

fn sse(id: u32, name: &str, data: &str) -> Vec<u8> {
    format!("id: {id}\nevent: {name}\ndata: {data}\n\n").into_bytes()
}

async fn events_of(
    client: &Client,
) -> Vec<Result<agents_runtime::client::research::RunEvent, Error>> {
    use agents_runtime::client::research::ResearchRunRequest;
    let run = client
        .start_research("a", ResearchRunRequest::new("q").events(true))
        .await
        .unwrap();
    tokio::time::timeout(
        std::time::Duration::from_secs(60),
        run.events().collect::<Vec<_>>(),
    )
    .await
    .expect("the stream ends")
}

fn fast_retries() -> agents_runtime::RetryPolicy {
    agents_runtime::RetryPolicy {
        min_delay: std::time::Duration::from_millis(1),
        max_delay: std::time::Duration::from_millis(5),
        ..agents_runtime::RetryPolicy::default()
    }
}

/// A 16 MiB event arrives whole (read in time linear in its size: BENCHMARKS.md has the row);
/// an event past the client's limit, or a line that never ends, fails with "too large" while
/// its bytes are still arriving.
#[tokio::test]
async fn large_events_are_read_whole_and_oversized_ones_refused_as_they_arrive() {
    use agents_runtime::client::research::StreamEnd;
    let big = format!("{{\"query\": \"{}\"}}", "x".repeat(16 << 20));
    let event = sse(1, "search", &big);
    let chunks: Vec<Vec<u8>> = event
        .chunks(16 << 10)
        .map(<[u8]>::to_vec)
        .chain([sse(2, "status", r#"{"status": "completed"}"#)])
        .collect();
    let base = serve(research_server(move |_| (200, chunks.clone()))).await;
    let got = events_of(&v2(&base)).await;
    assert_eq!(
        got.len(),
        2,
        "{:?}",
        got.iter().map(|e| e.is_ok()).collect::<Vec<_>>()
    );
    assert_eq!(
        got[0].as_ref().unwrap().data["query"]
            .as_str()
            .unwrap()
            .len(),
        16 << 20
    );

    // Past a 1 MiB limit: an event, and a line that never ends (the server would go on).
    for body in [sse(1, "search", &"y".repeat(4 << 20)), vec![b'z'; 64 << 20]] {
        let chunks: Vec<Vec<u8>> = body.chunks(64 << 10).map(<[u8]>::to_vec).collect();
        let base = serve(research_server(move |_| (200, chunks.clone()))).await;
        let client = client_of(&base)
            .api_version(ApiVersion::V2)
            .max_response_bytes(1 << 20)
            .build()
            .unwrap();
        let got = events_of(&client).await;
        assert!(
            matches!(
                got.last(),
                Some(Err(Error::EventStream {
                    end: StreamEnd::TooLarge(_),
                    ..
                }))
            ),
            "{:?}",
            got.last()
        );
    }
}

/// One event whose data is not UTF-8 is one error; the stream goes on to the final status.
/// A keep-alive comment after an id dispatches nothing.
#[tokio::test]
async fn an_event_that_is_not_utf8_is_one_error_and_the_stream_goes_on() {
    let chunks = vec![
        sse(1, "status", r#"{"status": "running"}"#),
        b": keep-alive\n\n".to_vec(),
        b"id: 2\nevent: search\ndata: {\"query\": \"\xff\"}\n\n".to_vec(),
        b":\n".to_vec(),
        sse(3, "status", r#"{"status": "completed"}"#),
    ];
    let base = serve(research_server(move |_| (200, chunks.clone()))).await;
    let got = events_of(&v2(&base)).await;
    assert_eq!(got.len(), 3, "{got:?}");
    assert!(got[0].is_ok());
    assert!(
        matches!(&got[1], Err(Error::Decode(e)) if e.message.contains("UTF-8")),
        "{:?}",
        got[1]
    );
    assert!(got[2].as_ref().unwrap().is_final());
}

/// A stream cut after its first event resumes through 503s, as patiently as any call: the
/// client's one retry policy decides, not a count of its own.
#[tokio::test]
async fn resuming_a_stream_retries_5xx_like_any_call() {
    let base = serve(research_server(|n| match n {
        0 => (200, vec![sse(1, "status", r#"{"status": "running"}"#)]),
        1..=3 => (503, vec![]),
        _ => (200, vec![sse(2, "status", r#"{"status": "completed"}"#)]),
    }))
    .await;
    let client = client_of(&base)
        .api_version(ApiVersion::V2)
        .retry_policy(fast_retries())
        .build()
        .unwrap();
    let got = events_of(&client).await;
    assert_eq!(got.len(), 2, "{got:?}");
    assert!(got[1].as_ref().unwrap().is_final(), "{got:?}");
}

/// A template whose output schema nests 500 levels (1,000 of JSON) reads, alone and in a list,
/// as the generator reads it; past the limit the error names the depth.
#[tokio::test]
async fn templates_nested_as_deep_as_the_generator_reads_are_read() {
    // Written as text: serializing a value this deep recurses as deep.
    fn nested_template(levels: usize) -> String {
        let mut schema = String::from(r#"{"type": "string"}"#);
        for _ in 0..levels {
            schema = format!(r#"{{"type": "object", "properties": {{"inner": {schema}}}}}"#);
        }
        let mut t = template("deep", json!([]));
        t["published_version"]["output_schema"] = json!("SCHEMA");
        t.to_string().replace(r#""SCHEMA""#, &schema)
    }
    for (levels, readable) in [(500, true), (600, false)] {
        let one = nested_template(levels);
        assert!(one.len() > levels * 40, "the schema is in the template");
        let page = format!(r#"{{"items": [{one}], "limit": 100, "offset": 0, "total": 1}}"#);
        let app = Router::new()
            .route(
                "/v2/extract/templates/deep",
                get(move || {
                    let one = one.clone();
                    async move {
                        (
                            [(axum::http::header::CONTENT_TYPE, "application/json")],
                            one,
                        )
                    }
                }),
            )
            .route(
                "/v2/extract/templates",
                get(move || {
                    let page = page.clone();
                    async move {
                        (
                            [(axum::http::header::CONTENT_TYPE, "application/json")],
                            page,
                        )
                    }
                }),
            );
        let base = serve(app).await;
        let c = v2(&base);
        let got = c.template("deep").await;
        let listed: Vec<_> = c.templates().collect().await;
        if readable {
            let t = got.unwrap();
            let schema = Value::Object(t.published_version.unwrap().output_schema);
            let mut at = &schema;
            for _ in 0..levels {
                at = &at["properties"]["inner"];
            }
            assert_eq!(at["type"], "string");
            assert!(listed[0].is_ok(), "{:?}", listed[0].as_ref().err());
        } else {
            let err = got.unwrap_err();
            assert!(err.to_string().contains("levels deep"), "{err}");
            assert!(listed[0].is_err());
        }
    }
}
