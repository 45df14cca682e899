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
}

/// A download URL that answers a page (a proxy's sign-in page, status 200) is not an artifact.
#[tokio::test]
async fn a_download_that_answers_a_page_is_not_an_artifact() {
    for (kind, content_type) in [
        ("parquet", "text/html"),
        ("jsonl", "application/octet-stream"),
    ] {
        let app = Router::new()
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
                    (
                        [(axum::http::header::CONTENT_TYPE, content_type)],
                        "<!doctype html><html><body>Sign in</body></html>",
                    )
                }),
            );
        let base = serve(app).await;
        let err = v2(&base).download_artifact("r", "1").await.unwrap_err();
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
