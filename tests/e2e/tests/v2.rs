#![allow(clippy::unwrap_used)] // test helpers outside #[test] fns
//! The same typed calls over `/v2` (extract templates), against the emulator serving both
//! versions from one state: runs, async runs, batches, pages, tasks, extract, search, map,
//! crawl, generations and refinements, and `/v2`'s own template records and versions.

use std::time::Duration;

use agents_runtime::catalog::{RetailerAPdp, RetailerAPdpParams, RetailerASerpParams};
use agents_runtime::client::generation::GenerationRequest;
use agents_runtime::client::web::{
    CrawlRequest, ExtractRequest, MapRequest, SearchDepth, SearchRequest,
};
use agents_runtime::{ApiVersion, Client, Error, ErrorKind, WaitOptions};
use agents_tests_e2e::{KEY, client_for, emulator};
use futures::{StreamExt, TryStreamExt};
use serde_json::json;

fn v2(e: &agents_emulator::EmulatorHandle) -> Client {
    client_for(e).api_version(ApiVersion::V2).build().unwrap()
}

/// Starts a generation and waits until its version is published, polling fast.
async fn generated(
    c: &Client,
    request: GenerationRequest,
) -> agents_runtime::client::generation::Generation {
    let fast =
        WaitOptions::GENERATION.intervals(Duration::from_millis(20), Duration::from_millis(50));
    c.generate_agent(request)
        .await
        .unwrap()
        .with_wait(fast)
        .wait()
        .await
        .unwrap()
}

#[tokio::test]
async fn typed_runs_async_runs_batches_and_pages_work_over_v2() {
    let e = emulator().await;
    let c = v2(&e);
    assert_eq!(c.api_version(), ApiVersion::V2);
    let r = c.run(RetailerAPdpParams::new("B08N5WRWNW")).await.unwrap();
    let product: &RetailerAPdp = r.record().unwrap();
    assert!(product.product_title.is_some());

    let task = c.run_async(RetailerAPdpParams::new("B1")).await.unwrap();
    let done = task.wait().await.unwrap();
    assert!(done.record().unwrap().product_title.is_some());
    assert_eq!(c.task(task.id()).await.unwrap().id, task.id());

    let batch = c
        .batch::<RetailerAPdp>()
        .submit((0..5).map(|i| RetailerAPdpParams::new(format!("B{i}"))))
        .await
        .unwrap();
    let results: Vec<_> = batch.results().collect().await;
    assert_eq!(results.len(), 5);
    assert!(results.iter().all(Result::is_ok));
    assert!(!c.batches().await.unwrap().is_empty());

    let pages: Vec<_> = c
        .pages(RetailerASerpParams::new("earbuds"))
        .max_pages(3)
        .stream()
        .try_collect()
        .await
        .unwrap();
    assert_eq!(pages.len(), 3);
}

#[tokio::test]
async fn web_calls_work_over_v2() {
    let e = emulator().await;
    let c = v2(&e);
    let page = c
        .extract(ExtractRequest::new("https://shop.example/p/1"))
        .await
        .unwrap();
    assert_eq!(page.status, "success");
    assert_eq!(page.status_code, Some(200));
    let found = c
        .search(
            SearchRequest::new("rust serde")
                .depth(SearchDepth::Standard)
                .full_content(true)
                .max_results(2),
        )
        .await
        .unwrap();
    assert_eq!(found.results.len(), 2);
    assert!(
        found.results[0]
            .content
            .as_deref()
            .unwrap()
            .contains("whole page")
    );
    // `/v1`'s depths are not `/v2`'s: the emulator says which are.
    let err = c
        .search(SearchRequest::new("x").depth(SearchDepth::Deep))
        .await
        .unwrap_err();
    assert!(err.to_string().contains("lite, standard"), "{err}");
    let map = c
        .map(MapRequest::new("https://shop.example/"))
        .await
        .unwrap();
    assert!(!map.links.is_empty());
    let task = c
        .extract_async(ExtractRequest::new("https://shop.example/p/2"))
        .await
        .unwrap();
    assert_eq!(task.wait().await.unwrap().status, "success");
    let batch = c
        .extract_batch(
            ExtractRequest::settings(),
            ["https://shop.example/p/3", "https://shop.example/p/4"].map(ExtractRequest::new),
        )
        .await
        .unwrap();
    let pages: Vec<_> = batch.results().collect().await;
    assert!(pages.iter().all(Result::is_ok) && pages.len() == 2);
    let crawl = c
        .crawl(CrawlRequest::new("https://shop.example/").limit(3))
        .await
        .unwrap();
    assert!(!crawl.wait().await.unwrap().crawl_id.is_empty());
    assert!(!c.crawls().await.unwrap().is_empty());
    let sent = e.requests_seen(KEY);
    // Search as a task exists only in /v1: refused before sending, saying where it exists.
    let err = c.search_async(SearchRequest::new("x")).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Config);
    assert!(
        err.to_string().contains("`.api_version(ApiVersion::V1)`"),
        "{err}"
    );
    assert_eq!(
        e.requests_seen(KEY),
        sent,
        "nothing sent for the refused call"
    );
}

#[tokio::test]
async fn template_records_and_versions_follow_generations_across_versions() {
    let e = emulator().await;
    let c = v2(&e);
    let v1 = client_for(&e).build().unwrap();

    let t = c.template("retailer_a_pdp").await.unwrap();
    let published = t.published_version.unwrap();
    assert_eq!(
        t.published_version_id.as_deref(),
        Some(published.id.as_str())
    );
    assert_eq!(published.version_number, 1);
    let required = published.input_schema["required"].as_array().unwrap();
    assert!(required.contains(&json!("asin")));
    assert!(
        published.output_schema["properties"]
            .as_object()
            .unwrap()
            .len()
            > 100
    );
    assert_eq!(
        published.metadata.domain.as_deref(),
        Some("retailer-a.example")
    );
    let all: Vec<_> = c.templates().try_collect().await.unwrap();
    assert!(all.len() >= 18, "{}", all.len());
    assert!(all.iter().any(|t| t.name == "retailer_a_pdp"));

    // A template made through /v2 runs through /v1 by name, and its /v1 refinement is /v2's
    // version 2.
    let made = generated(
        &c,
        GenerationRequest::new("Extract the title and price.", "https://market.example/l/1")
            .agent_name("market_listing_v2"),
    )
    .await;
    assert_eq!(made.agent_name.as_deref(), Some("market_listing_v2"));
    let r = v1
        .run_raw(
            "market_listing_v2",
            json!({"url": "https://market.example/l/2"}),
        )
        .await
        .unwrap();
    assert!(r.record().unwrap()["price"].is_number());
    generated(
        &v1,
        GenerationRequest::refine("market_listing_v2", "also the seller"),
    )
    .await;
    let versions: Vec<_> = c
        .template_versions("market_listing_v2")
        .try_collect()
        .await
        .unwrap();
    let numbers: Vec<u64> = versions.iter().map(|v| v.version_number).collect();
    assert_eq!(numbers, [1, 2]);
    let second = c
        .template_version("market_listing_v2", &versions[1].id)
        .await
        .unwrap();
    assert_eq!(second, versions[1]);
    assert_eq!(
        c.template("market_listing_v2")
            .await
            .unwrap()
            .published_version_id,
        Some(versions[1].id.clone())
    );
    // Refining through /v2 names the template with /v2's field.
    let refined = generated(
        &c,
        GenerationRequest::refine("market_listing_v2", "and the stock"),
    )
    .await;
    assert_eq!(refined.agent_name.as_deref(), Some("market_listing_v2"));

    // Each version's record call on the other version fails before sending, saying what to use.
    let err = v1.template("retailer_a_pdp").await.unwrap_err();
    assert!(err.to_string().contains("Client::agent"), "{err}");
    // The agent record reads the same through either version: /v2's JSON Schema documents
    // read back into the record the generator takes.
    let via_v2 = c.agent("retailer_a_pdp").await.unwrap();
    let via_v1 = v1.agent("retailer_a_pdp").await.unwrap();
    assert_eq!(via_v2.output_schema, via_v1.output_schema);
    assert_eq!(via_v2.feature_flags, via_v1.feature_flags);
    let mut a: Vec<_> = via_v2
        .inputs()
        .iter()
        .map(|i| (&i.name, i.required))
        .collect();
    let mut b: Vec<_> = via_v1
        .inputs()
        .iter()
        .map(|i| (&i.name, i.required))
        .collect();
    a.sort();
    b.sort();
    assert_eq!(a, b);
    let listed: Vec<_> = c.agents().stream().try_collect().await.unwrap();
    assert!(
        listed
            .iter()
            .any(|r| r.name == "retailer_a_pdp" && r.output_schema.is_some())
    );
    let err = c.agents().search("retail").list().await.unwrap_err();
    assert!(err.to_string().contains("/v1's agent list"), "{err}");
    let missing = c.template("retailer_a_pdq").await.unwrap_err();
    assert!(matches!(missing, Error::NotFound(_)), "{missing}");
    assert!(missing.to_string().contains("retailer_a_pdp"), "{missing}");
}

#[tokio::test]
async fn the_version_comes_from_the_builder_or_the_base_url() {
    let e = emulator().await;
    let c = Client::builder()
        .base_url(format!("{}/v2", e.base_url().trim_end_matches('/')))
        .api_key(KEY)
        .rate_limit(None)
        .build()
        .unwrap();
    assert_eq!(c.api_version(), ApiVersion::V2);
    assert!(c.template("retailer_a_pdp").await.is_ok());
    let v1 = client_for(&e).build().unwrap();
    assert_eq!(v1.api_version(), ApiVersion::V1);
    assert!(v1.agent("retailer_a_pdp").await.is_ok());
}

#[tokio::test]
async fn templates_change_by_json_patch_and_are_deleted() {
    use agents_runtime::client::patch::Patch;
    let e = emulator().await;
    let c = v2(&e);
    let patch = |ops: serde_json::Value| -> Patch { serde_json::from_value(ops).unwrap() };
    generated(
        &c,
        GenerationRequest::new("Extract the title and price.", "https://market.example/l/1")
            .agent_name("patched"),
    )
    .await;

    // Metadata changes the published version in place.
    let t = c
        .update_template(
            "patched",
            &patch(json!([
                {"op": "replace", "path": "/published_version/metadata/display_name", "value": "Patched"},
                {"op": "add", "path": "/published_version/metadata/tags", "value": ["a", "b"]},
                {"op": "add", "path": "/published_version/samples", "value": [
                    {"input": {"url": "https://market.example/l/7"},
                     "output": {"title": "Kettle", "price": 24.5}}
                ]}
            ])),
        )
        .await
        .unwrap();
    let v = t.published_version.unwrap();
    assert_eq!(v.version_number, 1);
    assert_eq!(v.metadata.display_name.as_deref(), Some("Patched"));
    assert_eq!(v.metadata.tags, ["a", "b"]);
    assert_eq!(v.samples[0].output["title"], "Kettle");
    // A run with a published sample's input answers the sample's output.
    let sampled = c
        .run_raw("patched", json!({"url": "https://market.example/l/7"}))
        .await
        .unwrap();
    assert_eq!(sampled.record().unwrap()["title"], "Kettle");

    // A new output field publishes version 2, and runs return it.
    let t = c
        .update_template(
            "patched",
            &patch(json!([{
                "op": "add",
                "path": "/published_version/output_schema/properties/seller",
                "value": {"type": "string", "description": "Who sells it"}
            }])),
        )
        .await
        .unwrap();
    assert_eq!(t.published_version.unwrap().version_number, 2);
    let r = c
        .run_raw("patched", json!({"url": "https://market.example/l/2"}))
        .await
        .unwrap();
    assert!(
        r.record().unwrap()["seller"].is_string(),
        "{:?}",
        r.record()
    );

    // A failing test operation changes nothing; fields the service sets cannot be patched.
    let err = c
        .update_template(
            "patched",
            &patch(json!([
                {"op": "replace", "path": "/published_version/metadata/display_name", "value": "X"},
                {"op": "test", "path": "/name", "value": "other"}
            ])),
        )
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Unprocessable(_)), "{err}");
    assert!(err.to_string().contains("operation 1"), "{err}");
    let now = c
        .template("patched")
        .await
        .unwrap()
        .published_version
        .unwrap();
    assert_eq!(now.metadata.display_name.as_deref(), Some("Patched"));
    let err = c
        .update_template(
            "patched",
            &patch(
                json!([{"op": "replace", "path": "/published_version/version_number", "value": 9}]),
            ),
        )
        .await
        .unwrap_err();
    assert!(err.to_string().contains("version_number"), "{err}");
    let err = c
        .update_template(
            "retailer_a_pdp",
            &patch(json!([{"op": "remove", "path": "/published_version/metadata/tags"}])),
        )
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Forbidden(_)), "{err}");

    // A patch whose result is not a template record is refused whole, naming the path at
    // fault, and the account's list still reads.
    for (op, at) in [
        (
            json!({"op": "replace", "path": "/published_version/metadata/tags", "value": [1, {}]}),
            "published_version.metadata.tags[0]",
        ),
        (
            json!({"op": "replace", "path": "/published_version/metadata/display_name", "value": 42}),
            "published_version.metadata.display_name",
        ),
    ] {
        let err = c
            .update_template("patched", &patch(json!([op])))
            .await
            .unwrap_err();
        assert!(matches!(err, Error::Unprocessable(_)), "{err}");
        assert!(err.to_string().contains(at), "{at}: {err}");
    }
    let listed: Vec<_> = c.templates().try_collect().await.unwrap();
    assert!(listed.iter().any(|t| t.name == "patched"));

    c.delete_template("patched").await.unwrap();
    assert!(matches!(
        c.template("patched").await.unwrap_err(),
        Error::NotFound(_)
    ));
    let gone = c.run_raw("patched", json!({})).await.unwrap_err();
    assert!(matches!(gone, Error::Unprocessable(_)), "{gone}");
    assert!(matches!(
        c.delete_template("patched").await.unwrap_err(),
        Error::NotFound(_)
    ));
}

/// A refinement publishes over the record it refined or not at all: a template deleted while
/// it runs stays deleted, and a change made while it runs is kept (the refinement fails,
/// saying why) instead of being overwritten.
#[tokio::test]
async fn a_refinement_never_undoes_a_delete_or_a_concurrent_change() {
    use agents_runtime::client::patch::Patch;
    // Refinements take a second here, so the test's changes land while they run.
    let lifecycle = agents_emulator::Lifecycle {
        generation_refine: Duration::from_secs(1),
        ..agents_emulator::Lifecycle::fast()
    };
    let e = agents_tests_e2e::start(
        agents_emulator::Emulator::builder()
            .rate_limit(None)
            .lifecycle(lifecycle),
    )
    .await;
    let c = v2(&e);
    let fast =
        WaitOptions::GENERATION.intervals(Duration::from_millis(20), Duration::from_millis(50));
    let make = |name: &'static str| {
        let c = c.clone();
        async move {
            generated(
                &c,
                GenerationRequest::new("Extract the title.", "https://market.example/l/1")
                    .agent_name(name),
            )
            .await;
        }
    };

    let refine = |name: &'static str| {
        let c = c.clone();
        async move {
            c.generate_agent(GenerationRequest::refine(name, "also the seller"))
                .await
                .unwrap()
                .with_wait(fast)
        }
    };

    make("deleted_meanwhile").await;
    let refining = refine("deleted_meanwhile").await;
    c.delete_template("deleted_meanwhile").await.unwrap();
    let err = refining.wait().await.unwrap_err();
    assert!(matches!(err, Error::GenerationFailed(_)), "{err}");
    assert!(err.to_string().contains("deleted"), "{err}");
    assert!(matches!(
        c.template("deleted_meanwhile").await.unwrap_err(),
        Error::NotFound(_)
    ));

    make("changed_meanwhile").await;
    let refining = refine("changed_meanwhile").await;
    let patch: Patch = serde_json::from_value(json!([{
        "op": "add",
        "path": "/published_version/output_schema/properties/sku",
        "value": {"type": "string"}
    }]))
    .unwrap();
    c.update_template("changed_meanwhile", &patch)
        .await
        .unwrap();
    let err = refining.wait().await.unwrap_err();
    assert!(err.to_string().contains("changed while"), "{err}");
    let kept = c
        .template("changed_meanwhile")
        .await
        .unwrap()
        .published_version
        .unwrap();
    assert_eq!(kept.version_number, 2);
    assert!(kept.output_schema["properties"]["sku"].is_object());
}
