#![allow(clippy::unwrap_used)] // test helpers outside #[test] fns
//! The client reads the vendor-shaped answers: a loopback server answers with the fixtures in
//! `conformance/v1/fixtures/`, and `/v2`'s records are read from `conformance/v2/fixtures/`,
//! each of which `conformance/run` validates strictly against the model it is named after in
//! that version's vendor client. The emulator's spec-shaped answers are covered by the other
//! tests; together they show both shapes decode.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use agents_runtime::catalog::{RetailerAPdp, RetailerAPdpParams};
use agents_runtime::client::tasks::TaskState;
use agents_runtime::client::web::{CrawlHandle, CrawlStatus, MapRequest, SearchRequest};
use agents_runtime::{Client, Delivery, Record, RunOptions, WaitOptions};
use axum::Router;
use axum::extract::{Path, Query};
use axum::http::header;
use axum::response::IntoResponse;
use axum::routing::{get, post};
use futures::{StreamExt, TryStreamExt};

fn fixture(name: &str) -> String {
    fixture_of("v1", name)
}

fn fixture_of(version: &str, name: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../conformance")
        .join(version)
        .join("fixtures")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn json(name: &'static str) -> impl IntoResponse {
    ([(header::CONTENT_TYPE, "application/json")], fixture(name))
}

async fn vendor_server() -> String {
    let polls = Arc::new(AtomicU32::new(0));
    let app = Router::new()
        .route(
            "/v1/agents/async",
            post(|| async { json("AgentRunAsyncResponse.vendor.json") }),
        )
        .route(
            "/v1/tasks/{id}",
            get(move |Path(_id): Path<String>| {
                let n = polls.fetch_add(1, Ordering::SeqCst);
                async move {
                    if n == 0 {
                        json("TaskGetResponse.in_progress.json")
                    } else {
                        json("TaskGetResponse.success.json")
                    }
                }
            }),
        )
        .route(
            "/v1/tasks/{id}/results",
            get(|| async { json("AgentRunResponse.pdp.json") }),
        )
        .route(
            "/v1/tasks",
            get(
                |Query(q): Query<std::collections::HashMap<String, String>>| async move {
                    match q.get("cursor").map(String::as_str) {
                        Some("opaque-cursor-2") => json("TaskListResponse.last.json"),
                        _ => json("TaskListResponse.page.json"),
                    }
                },
            ),
        )
        .route(
            "/v1/agents/batch",
            post(|| async { json("AgentRunBatchResponse.vendor.json") }),
        )
        .route(
            "/v1/batches/{id}/progress",
            get(|| async { json("BatchProgressResponse.done.json") }),
        )
        .route(
            "/v1/batches/{id}",
            get(|| async { json("BatchGetResponse.done.json") }),
        )
        .route(
            "/v1/search",
            post(|| async { json("SearchResponse.answer.json") }),
        )
        .route(
            "/v1/map",
            post(|| async { json("MapResponse.vendor.json") }),
        )
        .route(
            "/v1/crawl/{id}",
            get(|| async { json("CrawlStatusResponse.running.json") }),
        )
        .route(
            "/v1/crawl",
            get(|| async { json("CrawlListResponse.page.json") }),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    format!("http://{addr}")
}

fn client(base: &str) -> Client {
    Client::builder()
        .base_url(base)
        .api_key("k")
        .rate_limit(None)
        .build()
        .unwrap()
}

fn fast() -> WaitOptions {
    WaitOptions {
        initial_interval: Duration::from_millis(1),
        max_interval: Duration::from_millis(5),
        ..WaitOptions::TASK
    }
}

#[tokio::test]
async fn an_async_run_answered_in_the_vendor_shape_is_followed_to_its_typed_result() {
    let c = client(&vendor_server().await);
    let handle = c
        .run_async_with(
            RetailerAPdpParams::new("B08N5WRWNW"),
            &RunOptions::new(),
            &Delivery::new(),
        )
        .await
        .unwrap()
        .with_wait(fast());
    // No top-level task_id: the id comes from task.id.
    assert_eq!(handle.id(), "7b0f5a1e-2c4d-4e8f-9a1b-3c5d7e9f1a2b");
    let status = c.task(handle.id()).await.unwrap();
    assert_eq!(status.state, TaskState::InProgress);
    let result = handle.wait().await.unwrap();
    assert_eq!(result.status_code, Some(200), "200.0 reads as 200");
    let product: &RetailerAPdp = result.record().unwrap();
    assert_eq!(product.web_price, Some(49.99));
    assert_eq!(product.top_reviews.as_ref().unwrap()[0].stars, Some(5.0));
    assert_eq!(
        product.mismatches().len(),
        1,
        "the price string is recorded"
    );
    assert_eq!(result.metadata.agent.as_deref(), Some("retailer_a_pdp"));
}

#[tokio::test]
async fn task_listings_are_paged_by_cursor() {
    let c = client(&vendor_server().await);
    let first = c.tasks_page(None, None).await.unwrap();
    assert_eq!(first.items.len(), 2);
    assert_eq!(first.next_cursor.as_deref(), Some("opaque-cursor-2"));
    assert_eq!(first.total, Some(3));
    let all: Vec<_> = c.tasks().try_collect().await.unwrap();
    let states: Vec<&TaskState> = all.iter().map(|t| &t.state).collect();
    assert_eq!(
        states,
        [&TaskState::Error, &TaskState::Pending, &TaskState::Success]
    );
    assert_eq!(all[0].error.as_deref(), Some("navigation timeout"));
}

#[tokio::test]
async fn a_vendor_shaped_batch_reports_details_and_every_item() {
    let c = client(&vendor_server().await);
    let batch = c
        .batch::<RetailerAPdp>()
        .submit(["B01", "B02"].map(RetailerAPdpParams::new))
        .await
        .unwrap()
        .with_wait(fast());
    assert_eq!(batch.ids(), ["b-0001"]);
    let details = c.batch_details("b-0001").await.unwrap();
    assert!(details.completed);
    assert_eq!(details.completed_count, 2, "2.0 reads as 2");
    assert_eq!(details.tasks.len(), 2);
    assert!(details.tasks[1].is_none());
    let items: Vec<_> = batch.results().collect().await;
    assert_eq!(items.len(), 2, "every item comes out once");
    assert_eq!(items.iter().filter(|r| r.is_ok()).count(), 1);
    let failed = items.iter().find_map(|r| r.as_ref().err()).unwrap();
    assert!(
        failed.to_string().contains("no record for item 1"),
        "{failed}"
    );
}

#[tokio::test]
async fn search_map_and_crawl_records_in_the_vendor_shape_decode() {
    let c = client(&vendor_server().await);
    let search = c.search(SearchRequest::new("serde")).await.unwrap();
    assert_eq!(search.results.len(), 2);
    assert_eq!(
        search.answer_citations,
        Some(serde_json::json!([{"marker": 1, "result_index": 0}]))
    );
    let map = c
        .map(MapRequest::new("https://shop.example/"))
        .await
        .unwrap();
    assert_eq!(map.links.len(), 2);
    assert_eq!(map.task_id.as_deref(), Some("m-1"));
    let crawls = c.crawls().await.unwrap();
    assert_eq!(crawls.len(), 1);
    assert_eq!(crawls[0].status, CrawlStatus::Succeeded);
    let running = CrawlHandle::attach(&c, "c-1").record().await.unwrap();
    assert_eq!(running.status, CrawlStatus::Running);
    assert_eq!(running.tasks.len(), 3);
    assert_eq!(
        running.rest["crawl_options"]["callback"]["events"][0],
        "page"
    );
}

#[test]
fn v2_template_records_decode_with_every_fact_kept() {
    use agents_runtime::client::templates::{TemplateRecord, TemplateVersion};
    let t: TemplateRecord =
        serde_json::from_str(&fixture_of("v2", "TemplateGetResponse.published.json")).unwrap();
    let v = t.published_version.unwrap();
    assert_eq!((v.version_number, v.name.as_str()), (2, "shop_product"));
    assert_eq!(v.input_schema["required"], serde_json::json!(["url"]));
    assert_eq!(v.metadata.tags, ["shop", "product"]);
    assert_eq!(v.metadata.data_source, None);
    assert_eq!(v.samples[0].output["price"], 24.5);
    assert_eq!(v.rest["status"], "published", "an unknown field is kept");
    let page: serde_json::Value =
        serde_json::from_str(&fixture_of("v2", "TemplateListResponse.unpublished.json")).unwrap();
    let item: TemplateRecord = serde_json::from_value(page["items"][0].clone()).unwrap();
    assert!(item.published_version.is_none() && item.published_version_id.is_none());
    let versions: serde_json::Value =
        serde_json::from_str(&fixture_of("v2", "VersionListResponse.page.json")).unwrap();
    let first: TemplateVersion = serde_json::from_value(versions["items"][0].clone()).unwrap();
    assert!(first.samples.is_empty(), "null samples read as none");
}

#[test]
fn v2_job_and_domain_records_decode_with_unknown_values_kept() {
    use agents_runtime::client::jobs::{
        ArtifactPreview, DestinationType, Job, JobRun, JobStatus, TriggeredBy,
    };
    use agents_runtime::client::media::DomainDriver;
    let text = fixture_of("v2", "JobGetResponse.scheduled.json");
    let job: Job = serde_json::from_str(&text).unwrap();
    assert_eq!(job.template.as_deref(), Some("retailer_a_pdp"));
    assert_eq!(job.destination.unwrap().kind, DestinationType::S3);
    assert_eq!(job.last_run_status, Some(JobStatus::Warning));
    // A status the vendor's model does not list yet is kept, not an error.
    let mut newer: serde_json::Value = serde_json::from_str(&text).unwrap();
    newer["last_run_status"] = "PARTIAL".into();
    let job: Job = serde_json::from_value(newer).unwrap();
    assert_eq!(
        job.last_run_status,
        Some(JobStatus::Other("PARTIAL".into()))
    );
    let run: JobRun =
        serde_json::from_str(&fixture_of("v2", "RunGetResponse.warning.json")).unwrap();
    assert_eq!(run.status, JobStatus::Warning);
    assert_eq!(run.triggered_by, Some(TriggeredBy::Schedule));
    assert_eq!(run.match_rate(), Some(0.75));
    assert_eq!(run.error_message(), Some("1 of 4 inputs failed"));
    let preview: ArtifactPreview =
        serde_json::from_str(&fixture_of("v2", "ArtifactPreviewResponse.rows.json")).unwrap();
    assert_eq!((preview.row_count, preview.rows.len()), (2, 2));
    let d: DomainDriver = serde_json::from_str(&fixture_of(
        "v2",
        "DomainKnowledgeGetDriverResponse.url.json",
    ))
    .unwrap();
    assert_eq!((d.driver.as_str(), d.need_to_render), ("vx8", Some(true)));
}
