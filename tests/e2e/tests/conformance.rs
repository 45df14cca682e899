#![allow(clippy::unwrap_used)] // test helpers outside #[test] fns
//! What the conformance work fixed, end to end over loopback against the emulator: localization
//! wherever the params set it, batch details and untyped batches, task listings, waiters through
//! every unfinished state, limits the emulator no longer invents, one delivered object per batch
//! task, and the field a 422 names.

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use agents_emulator::{Emulator, Lifecycle};
use agents_runtime::catalog::{RetailerAPdp, RetailerAPdpParams, RetailerBPdpParams};
use agents_runtime::client::tasks::TaskState;
use agents_runtime::client::web::{MapRequest, SearchRequest};
use agents_runtime::{Delivery, Error, RunOptions, StorageType, WaitOptions};
use agents_tests_e2e::{KEY, client, emulator, start};
use futures::{StreamExt, TryStreamExt};
use serde_json::json;

fn fast() -> WaitOptions {
    WaitOptions::TASK.intervals(Duration::from_millis(10), Duration::from_millis(40))
}

#[tokio::test]
async fn localization_follows_the_params_wherever_they_are_set() {
    let e = emulator().await;
    let c = client(&e);
    // A shared zip_code: without `localization` on each item the service answers 400.
    let batch = c
        .batch::<RetailerAPdp>()
        .shared_param("zip_code", "10001")
        .submit(["B01", "B02"].map(RetailerAPdpParams::new))
        .await
        .unwrap()
        .with_wait(fast());
    let results: Vec<_> = batch.results().collect().await;
    assert_eq!(results.len(), 2);
    assert!(results.iter().all(Result::is_ok), "{results:?}");
    // store_id through `.param()` on a typed run.
    let r = c
        .run(RetailerBPdpParams::new("123456").param("store_id", "42"))
        .await;
    assert!(r.is_ok(), "{:?}", r.err());
    // And through raw params.
    let raw = c
        .run_raw(
            "retailer_a_pdp",
            json!({"asin": "B03", "zip_code": "10001"}),
        )
        .await;
    assert!(raw.is_ok(), "{:?}", raw.err());
}

#[tokio::test]
async fn batch_details_untyped_batches_and_listings() {
    let e = emulator().await;
    let c = client(&e);
    let typed = c
        .batch::<RetailerAPdp>()
        .submit(["B01", "B02", "B03"].map(RetailerAPdpParams::new))
        .await
        .unwrap()
        .with_wait(fast());
    let raw = c
        .batch_raw("retailer_a_pdp")
        .submit_raw([json!({"asin": "B04"}), json!({"asin": "B05"})])
        .await
        .unwrap()
        .with_wait(fast());
    let raw_results: Vec<_> = raw.results().try_collect().await.unwrap();
    assert_eq!(raw_results.len(), 2);
    assert!(raw_results.iter().all(|r| r.record().is_some()));
    let _: Vec<_> = typed.results().try_collect().await.unwrap();
    let details = typed.details().await.unwrap();
    assert_eq!(details.len(), 1);
    assert!(details[0].completed);
    assert_eq!(details[0].completed_count, 3);
    assert_eq!(details[0].tasks.len(), 3);
    assert!(
        details[0]
            .tasks
            .iter()
            .all(|t| t.as_ref().unwrap().state == TaskState::Success)
    );
    let listed = c.batches().await.unwrap();
    assert_eq!(listed.len(), 2);
    // Untyped items must be objects; nothing is sent otherwise.
    let err = c
        .batch_raw("retailer_a_pdp")
        .submit_raw([json!("B06")])
        .await
        .unwrap_err();
    assert!(
        matches!(
            &err,
            Error::InvalidItems(items) if matches!(
                items.as_slice(),
                [(0, Error::InvalidOption { option: "items", .. })]
            )
        ),
        "{err}"
    );

    // Every task of the account, page after page.
    let first = c.tasks_page(None, Some(2)).await.unwrap();
    assert_eq!(first.items.len(), 2);
    assert_eq!(first.total, Some(5));
    let all: Vec<_> = c.tasks().try_collect().await.unwrap();
    let ids: BTreeSet<_> = all.iter().map(|t| t.id.clone()).collect();
    assert_eq!(ids.len(), 5);
}

#[tokio::test]
async fn waiters_poll_through_pending_queued_and_in_progress() {
    let e = start(Emulator::builder().rate_limit(None).lifecycle(Lifecycle {
        task: Duration::from_millis(400),
        ..Lifecycle::fast()
    }))
    .await;
    let c = client(&e);
    let handle = c
        .run_async_with(
            RetailerAPdpParams::new("B01"),
            &RunOptions::new(),
            &Delivery::new(),
        )
        .await
        .unwrap();
    let batch = c
        .batch::<RetailerAPdp>()
        .submit([RetailerAPdpParams::new("B02")])
        .await
        .unwrap()
        .with_wait(fast());
    let batch_task = c.batch_details(&batch.ids()[0]).await.unwrap().tasks[0]
        .clone()
        .unwrap()
        .id;
    let (mut seen_async, mut seen_batch) = (Vec::new(), Vec::new());
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        let a = c.task(handle.id()).await.unwrap().state;
        let b = c.task(&batch_task).await.unwrap().state;
        if seen_async.last() != Some(&a) {
            seen_async.push(a.clone());
        }
        if seen_batch.last() != Some(&b) {
            seen_batch.push(b.clone());
        }
        if a == TaskState::Success && b == TaskState::Success {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(
        seen_async,
        [
            TaskState::Pending,
            TaskState::InProgress,
            TaskState::Success
        ]
    );
    assert_eq!(
        seen_batch[seen_batch.len() - 2..],
        [TaskState::InProgress, TaskState::Success]
    );
    assert!(seen_batch.contains(&TaskState::Queued) || seen_batch[0] == TaskState::InProgress);
    // The waiters get through all of them.
    assert!(
        handle
            .with_wait(fast())
            .wait()
            .await
            .unwrap()
            .record()
            .is_some()
    );
    let items: Vec<_> = batch.results().try_collect().await.unwrap();
    assert_eq!(items.len(), 1);
}

#[tokio::test]
async fn limits_neither_the_spec_nor_the_vendor_states_are_not_enforced() {
    let e = emulator().await;
    let c = client(&e);
    let search = c
        .search(SearchRequest::new("serde").max_results(500))
        .await
        .unwrap();
    assert!(!search.results.is_empty() && search.results.len() <= 500);
    let map = c
        .map(
            MapRequest::new("https://shop.example/")
                .limit(10_000)
                .locale("de-DE"),
        )
        .await;
    assert!(map.is_ok(), "{:?}", map.err());
}

#[tokio::test]
async fn a_batch_with_an_object_name_delivers_one_object_per_task() {
    let buckets = std::env::temp_dir().join(format!("agents-batch-objects-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&buckets);
    let e = start(Emulator::builder().rate_limit(None).bucket_dir(&buckets)).await;
    let c = client(&e);
    let batch = c
        .batch::<RetailerAPdp>()
        .delivery(
            Delivery::new()
                .storage(StorageType::S3, "s3://results/daily/")
                .object_name("pdp"),
        )
        .submit(["B01", "B02", "B03"].map(RetailerAPdpParams::new))
        .await
        .unwrap()
        .with_wait(fast());
    let ids: Vec<String> = batch.details().await.unwrap()[0]
        .tasks
        .iter()
        .map(|t| t.as_ref().unwrap().id.clone())
        .collect();
    let _: Vec<_> = batch.results().try_collect().await.unwrap();
    let dir = buckets.join("results/daily");
    let mut files = Vec::new();
    for _ in 0..100 {
        files = std::fs::read_dir(&dir)
            .map(|d| {
                d.filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
                    .collect()
            })
            .unwrap_or_default();
        if files.len() == 3 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    files.sort();
    let mut want: Vec<String> = ids.iter().map(|id| format!("pdp-{id}.json")).collect();
    want.sort();
    assert_eq!(files, want);
    let _ = std::fs::remove_dir_all(&buckets);
}

#[tokio::test]
async fn a_422_names_the_field_at_fault() {
    let e = emulator().await;
    let c = client(&e);
    let err = c
        .run_raw("retailer_a_pdp", json!({"asin": 5}))
        .await
        .unwrap_err();
    assert_eq!(err.status(), Some(422), "{err}");
    assert_eq!(err.api().unwrap().field.as_deref(), Some("params.asin"));
    assert_eq!(e.requests_seen(KEY), 1);
}
