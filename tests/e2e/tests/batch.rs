#![allow(clippy::unwrap_used)] // test helpers outside #[test] fns
//! Batches and pagination against the emulator.

use std::collections::HashSet;
use std::time::Duration;

use agents_emulator::{Emulator, Fault};
use agents_runtime::catalog::{
    LlmA, LlmAParams, RetailerAPdp, RetailerAPdpParams, RetailerASerpParams,
};
use agents_runtime::client::batch::BatchHandle;
use agents_runtime::{Error, RunResult, WaitOptions};
use agents_tests_e2e::{KEY, client, client_for, emulator, start};
use futures::StreamExt;
use serde_json::json;

fn fast() -> WaitOptions {
    WaitOptions::TASK.intervals(Duration::from_millis(25), Duration::from_millis(100))
}

#[tokio::test]
async fn a_typed_batch_merges_shared_params_and_streams_every_result() {
    let e = emulator().await;
    let c = client(&e);
    let asins: Vec<String> = (0..30).map(|i| format!("B{i:09}")).collect();
    let handle = c
        .batch::<RetailerAPdp>()
        .shared_param("country", "US")
        .submit(asins.iter().map(|a| RetailerAPdpParams::new(a.clone())))
        .await
        .unwrap()
        .with_wait(fast());
    assert_eq!(handle.ids().len(), 1);
    let progress: Vec<_> = handle.progress_stream().collect().await;
    let last = progress.last().unwrap().as_ref().unwrap();
    assert!(last.done);
    assert_eq!((last.completed, last.total), (30, 30));
    let results: Vec<_> = handle.results().collect().await;
    assert_eq!(results.len(), 30);
    let mut seen = HashSet::new();
    for r in results {
        let r = r.unwrap();
        assert!(seen.insert(r.task_id.clone().unwrap()));
        let url = r.url.clone().unwrap();
        let asin = url
            .split("asin=")
            .nth(1)
            .unwrap()
            .split('&')
            .next()
            .unwrap();
        // Merged params: the item's asin plus the shared country, same record as a direct run.
        let direct = c
            .run(RetailerAPdpParams::new(asin).country("US"))
            .await
            .unwrap();
        assert_eq!(r.record(), direct.record());
    }
    assert!(handle.progress_polls() >= 2);
}

#[tokio::test]
async fn invalid_items_stop_the_batch_before_anything_is_sent() {
    let e = emulator().await;
    let c = client(&e);
    // 10,000 items, 30 of them bad: all 30 are reported, with their positions.
    let items: Vec<RetailerAPdpParams> = (0..10_000)
        .map(|i| {
            RetailerAPdpParams::new(if i % 333 == 7 {
                String::new()
            } else {
                format!("B{i}")
            })
        })
        .collect();
    match c.batch::<RetailerAPdp>().submit(items).await.unwrap_err() {
        Error::InvalidItems(bad) => {
            let indexes: Vec<usize> = bad.iter().map(|(i, _)| *i).collect();
            let expected: Vec<usize> = (0..10_000).filter(|i| i % 333 == 7).collect();
            assert_eq!(indexes, expected);
            assert_eq!(bad.len(), 31);
            for (_, e) in &bad {
                let Error::Validation(v) = e else {
                    panic!("{e}")
                };
                assert_eq!(v.violations[0].param, "asin");
            }
        }
        other => panic!("{other:?}"),
    }
    let err = c
        .batch::<RetailerAPdp>()
        .shared_param("country", "Narnia")
        .submit([RetailerAPdpParams::new("B1")])
        .await
        .unwrap_err();
    assert!(matches!(
        err,
        Error::InvalidOption {
            option: "country",
            ..
        }
    ));
    assert_eq!(e.requests_seen(KEY), 0);
}

#[tokio::test]
async fn the_emulator_enforces_the_batch_rules() {
    let e = emulator().await;
    let http = post_batch(&e);
    let too_many: Vec<_> = (0..1001)
        .map(|i| json!({"params": {"prompt": format!("p{i}")}}))
        .collect();
    let (s, v) = http(json!({"shared_inputs": {"agent": "llm_a"}, "inputs": too_many})).await;
    assert_eq!(s, 400, "{v}");
    assert_eq!(v["error"]["field"], "inputs");
    let (s, v) = http(json!({"shared_inputs": {"agent": "llm_a"}, "inputs": [{"agent": "llm_b", "params": {"prompt": "x"}}]})).await;
    assert_eq!(s, 422);
    assert_eq!(v["error"]["field"], "inputs[0].agent");
    let (s, v) = http(
        json!({"shared_inputs": {"agent": "retailer_a_pdp", "params": {"asin": "B1"}},
        "inputs": [{"params": {}}, {"params": {"asin": ""}}]}),
    )
    .await;
    assert_eq!(s, 422, "{v}");
    assert_eq!(v["error"]["field"], "inputs[1].params.asin");
}

/// POSTs a raw body to `v1/agents/batch`, answering its status and JSON body.
fn post_batch(
    e: &agents_emulator::EmulatorHandle,
) -> impl Fn(
    serde_json::Value,
) -> std::pin::Pin<Box<dyn std::future::Future<Output = (u16, serde_json::Value)>>> {
    let url = format!("{}/v1/agents/batch", e.base_url().trim_end_matches('/'));
    let http = reqwest::Client::new();
    move |body| {
        let request = http.post(&url).bearer_auth(KEY).json(&body);
        Box::pin(async move {
            let response = request.send().await.unwrap();
            let status = response.status().as_u16();
            (status, response.json().await.unwrap())
        })
    }
}

#[tokio::test]
async fn a_2500_item_batch_under_faults_accounts_for_every_item_exactly_once() {
    let e = emulator().await;
    // Every 97th task of each batch ends in state error.
    let c = client_for(&e)
        .header("x-emulator-task-error-every", "97")
        .build()
        .unwrap();
    let items: Vec<LlmAParams> = (0..2500)
        .map(|i| LlmAParams::new(format!("prompt {i}")))
        .collect();
    let handle = c
        .batch::<LlmA>()
        .submit(items)
        .await
        .unwrap()
        .with_wait(fast())
        .concurrency(32);
    assert_eq!(
        handle.ids().len(),
        3,
        "2,500 items are split into 1,000 + 1,000 + 500"
    );
    let mut ok = HashSet::new();
    let mut failed_tasks = HashSet::new();
    let mut fetch_errors = 0;
    let mut results = handle.results();
    let mut received = 0;
    while let Some(item) = results.next().await {
        // While results are fetched, 32 at a time: resets, 555s, a 429 storm and two 500s, each
        // kind injected once the one before is spent (faults injected together land on the same
        // requests, and the first answer wins). Injected before the stream, they would all land
        // on the progress polls, which wait them out one after another.
        received += 1;
        match received {
            1 => e.inject(KEY, Fault::Reset, Some(5)),
            200 => e.inject(KEY, Fault::Status(555), Some(5)),
            400 => e.inject(KEY, Fault::RateLimited, Some(20)),
            600 => e.inject(KEY, Fault::Status(500), Some(2)),
            _ => {}
        }
        match item {
            Ok(r) => assert!(ok.insert(r.task_id.unwrap()), "duplicate result"),
            Err(err) => match err.error {
                Error::TaskFailed(_) => {
                    // The failed item says what it was, without a list kept beside the batch.
                    let prompt = err.input.as_ref().unwrap()["prompt"].as_str().unwrap();
                    let index = err.index.unwrap();
                    assert_eq!(prompt, format!("prompt {index}"));
                    assert!(
                        failed_tasks.insert(err.task_id.unwrap()),
                        "duplicate failure"
                    )
                }
                other => {
                    // A result fetch answered 500, which is not retried by default: reported
                    // once, with its task id.
                    assert!(matches!(other, Error::Internal(_)), "{other}");
                    assert!(err.task_id.is_some(), "{other}");
                    fetch_errors += 1;
                }
            },
        }
    }
    assert_eq!(failed_tasks.len(), 10 + 10 + 5);
    assert!(ok.is_disjoint(&failed_tasks));
    assert_eq!(ok.len() + failed_tasks.len() + fetch_errors, 2500);
    // The resets, 555s and 429s were retried; the two 500s were not, and each is reported once.
    assert_eq!(fetch_errors, 2);
}

#[tokio::test]
async fn a_handle_reattaches_and_fetches_only_what_is_left() {
    let e = emulator().await;
    let c = client(&e);
    let items: Vec<LlmAParams> = (0..20).map(|i| LlmAParams::new(format!("p{i}"))).collect();
    let first = c
        .batch::<LlmA>()
        .submit(items)
        .await
        .unwrap()
        .with_wait(fast());
    let ids = first.ids().to_vec();
    let done: Vec<String> = first
        .results()
        .take(8)
        .map(|r| r.unwrap().task_id.unwrap())
        .collect()
        .await;
    drop(first); // "crash"
    let rest: Vec<String> = BatchHandle::<RunResult<LlmA>>::attach(&c, ids)
        .with_wait(fast())
        .skip_tasks(done.clone())
        .results()
        .map(|r| r.unwrap().task_id.unwrap())
        .collect()
        .await;
    assert_eq!(rest.len(), 12);
    assert!(rest.iter().all(|t| !done.contains(t)));
}

#[tokio::test]
async fn pages_stop_on_repeats_empty_pages_and_the_guard() {
    let e = start(
        Emulator::builder()
            .rate_limit(None)
            .pages("retailer_a_serp", 3),
    )
    .await;
    let c = client(&e);
    let pages: Vec<_> = c
        .pages(RetailerASerpParams::new("earbuds"))
        .stream()
        .collect()
        .await;
    assert_eq!(pages.len(), 3, "page 4 repeats page 3: placeholder content");
    let firsts: HashSet<String> = pages
        .iter()
        .map(|p| serde_json::to_string(&p.as_ref().unwrap().records()[0]).unwrap())
        .collect();
    assert_eq!(firsts.len(), 3, "distinct pages");

    let from_two: Vec<_> = c
        .pages(RetailerASerpParams::new("earbuds").page(2))
        .stream()
        .collect()
        .await;
    assert_eq!(from_two.len(), 2);

    let empty = start(
        Emulator::builder()
            .rate_limit(None)
            .pages("retailer_a_serp", 2)
            .empty_past_end(true),
    )
    .await;
    let pages: Vec<_> = client(&empty)
        .pages(RetailerASerpParams::new("earbuds"))
        .stream()
        .collect()
        .await;
    assert_eq!(pages.len(), 2, "stops on an empty page");

    let many = start(Emulator::builder().rate_limit(None).default_pages(1000)).await;
    let pages: Vec<_> = client(&many)
        .pages(RetailerASerpParams::new("earbuds"))
        .max_pages(7)
        .stream()
        .collect()
        .await;
    assert_eq!(pages.len(), 7, "the guard holds");
}
