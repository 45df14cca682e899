#![allow(clippy::unwrap_used)] // test helpers outside #[test] fns
//! The runtime client against the emulator over real HTTP.

use std::time::{Duration, Instant};

use agents_emulator::{Account, AccountStatus, Emulator, Fault, RateLimitShape};
use agents_runtime::catalog::{LlmAParams, RetailerAPdp, RetailerAPdpParams, RetailerASerpParams};
use agents_runtime::client::agents::Privacy;
use agents_runtime::client::generation::GenerationRequest;
use agents_runtime::client::tasks::TaskHandle;
use agents_runtime::{
    Delivery, Error, ErrorKind, Format, ManualClock, Record, RetryPolicy, RunOptions, RunResult,
    StorageType, WaitOptions,
};
use agents_tests_e2e::{KEY, client, client_for, emulator, start};
use futures::StreamExt;
use serde_json::{Value, json};

#[tokio::test]
async fn typed_run_returns_the_typed_record_and_response_facts() {
    let e = start(Emulator::builder()).await;
    let c = client_for(&e).rate_limit(Some(83)).build().unwrap();
    let r = c.run(RetailerAPdpParams::new("B08N5WRWNW")).await.unwrap();
    let product: &RetailerAPdp = r.record().unwrap();
    assert!(product.product_title.is_some());
    assert!(product.mismatches().is_empty());
    assert!(product.unknown_fields.is_empty());
    assert!((0.0..=5.0).contains(&product.average_of_reviews.unwrap()));
    assert_eq!(r.metadata.agent.as_deref(), Some("retailer_a_pdp"));
    assert_eq!(r.status_code, Some(200));
    assert!(r.data.html.is_none());
    assert_eq!(r.response.task_id, r.task_id);
    assert_eq!(r.response.rate_limit.limit, Some(83));
    assert!(r.response.rate_limit.remaining.is_some());

    let with = c
        .run_with(
            RetailerAPdpParams::new("B08N5WRWNW"),
            &RunOptions::new().format(Format::Html).format(Format::Links),
        )
        .await
        .unwrap();
    assert!(with.data.html.unwrap().contains("<html>"));
    assert!(!with.data.links.unwrap().is_empty());
    assert!(with.data.markdown.is_none());

    // List pages decode into many records.
    let serp = c.run(RetailerASerpParams::new("earbuds")).await.unwrap();
    assert_eq!(serp.records().len(), 10);
}

#[tokio::test]
async fn localization_is_sent_when_a_localization_param_is_set() {
    let e = emulator().await;
    let c = client(&e);
    // Without `localization` the service answers 400 (spec 4.4 rule 3); the client adds it.
    let r = c
        .run(RetailerAPdpParams::new("B1").zip_code("10001"))
        .await
        .unwrap();
    assert!(r.record().is_some());
    let raw = c
        .run_raw("retailer_a_pdp", json!({"asin": "B1", "zip_code": "10001"}))
        .await
        .unwrap();
    assert!(raw.record().unwrap().is_object());
}

#[tokio::test]
async fn validation_stops_a_bad_request_before_it_is_sent() {
    let e = emulator().await;
    let c = client(&e);
    let err = c.run(RetailerAPdpParams::new("")).await.unwrap_err();
    match &err {
        Error::Validation(v) => assert_eq!(v.violations[0].param, "asin"),
        other => panic!("{other:?}"),
    }
    let err = c
        .run(RetailerAPdpParams::new("B1").country("USA"))
        .await
        .unwrap_err();
    assert!(err.to_string().contains("country"), "{err}");
    let bad_delivery = Delivery::new().storage(StorageType::S3, "gs://wrong/");
    let err = c
        .run_async_with(
            RetailerAPdpParams::new("B1"),
            &RunOptions::new(),
            &bad_delivery,
        )
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            Error::InvalidOption {
                option: "storage_url",
                ..
            }
        ),
        "{err}"
    );
    let err = c
        .generate_agent(GenerationRequest::new("extract price", "not a url"))
        .await
        .unwrap_err();
    assert!(
        matches!(err, Error::InvalidOption { option: "url", .. }),
        "{err}"
    );
    // Every invalid option of one request is named at once, and nothing is sent.
    let seen = e.requests_seen(KEY);
    let err = c
        .generate_agent(GenerationRequest::new(" ", "not a url").agent_name("Shop Page"))
        .await
        .unwrap_err();
    match &err {
        Error::InvalidOptions(problems) => assert_eq!(
            problems.iter().map(|p| p.option).collect::<Vec<_>>(),
            ["prompt", "GenerationRequest::agent_name", "url"]
        ),
        other => panic!("{other:?}"),
    }
    assert_eq!(err.kind(), ErrorKind::Invalid);
    let err = c
        .run_async_with(
            RetailerAPdpParams::new("B1"),
            &RunOptions::new(),
            &Delivery::new()
                .storage(StorageType::S3, "s3://bucket/no-slash")
                .object_name("a/b")
                .callback_url("ftp://hook"),
        )
        .await
        .unwrap_err();
    assert!(
        err.to_string().starts_with(
            "3 invalid options; nothing was sent: `storage_url`: \"s3://bucket/no-slash\" is not"
        ),
        "{err}"
    );
    assert_eq!(e.requests_seen(KEY), seen);
    // `.param()` under a declared input's name is checked as the typed setter is: its type,
    // its rules, and that it is not set twice; the message names the setter to use.
    let err = c
        .run(RetailerASerpParams::new("kettle").param("page", "two"))
        .await
        .unwrap_err();
    assert!(
        err.to_string().contains("page") && err.to_string().contains("use `.page(…)`"),
        "{err}"
    );
    let err = c
        .run(RetailerASerpParams::new("kettle").param("page", 0))
        .await
        .unwrap_err();
    assert!(err.to_string().contains("minimum 1"), "{err}");
    let err = c
        .run(RetailerASerpParams::new("kettle").page(2).param("page", 3))
        .await
        .unwrap_err();
    assert!(err.to_string().contains("set it once"), "{err}");
    assert_eq!(e.requests_seen(KEY), 0, "the emulator saw nothing");
    // Given right, it is sent as given.
    c.run(RetailerASerpParams::new("kettle").param("page", 2))
        .await
        .unwrap();
}

#[tokio::test]
async fn every_status_maps_to_its_variant() {
    let e = start(
        Emulator::builder()
            .rate_limit(None)
            .account(Account::new("broke").status(AccountStatus::NoBudget))
            .account(Account::new("banned").status(AccountStatus::Blocked)),
    )
    .await;
    let no_retry = |key: &str| {
        client_for(&e)
            .api_key(key)
            .retry_policy(RetryPolicy::none())
            .build()
            .unwrap()
    };
    let c = no_retry(KEY);
    fn status<T>(r: Result<T, Error>) -> Option<(Option<u16>, &'static str)> {
        r.err().map(|e| (e.status(), variant(&e)))
    }
    assert_eq!(
        status(no_retry("wrong").agent("llm_a").await),
        Some((Some(401), "Unauthorized"))
    );
    assert_eq!(
        status(no_retry("broke").agent("llm_a").await),
        Some((Some(402), "PaymentRequired"))
    );
    assert_eq!(
        status(no_retry("banned").agent("llm_a").await),
        Some((Some(403), "Forbidden"))
    );
    assert_eq!(
        status(c.agent("no_such_agent").await),
        Some((Some(404), "NotFound"))
    );
    assert_eq!(
        status(c.run_raw("retailer_a_pdp", json!({})).await),
        Some((Some(400), "BadRequest"))
    );
    let err = c
        .run_raw("retailer_a_pdp", json!({"asin": 7}))
        .await
        .unwrap_err();
    assert_eq!(variant(&err), "Unprocessable");
    assert_eq!(err.api().unwrap().field.as_deref(), Some("params.asin"));
    assert!(err.api().unwrap().info.task_id.is_some());
    for (fault, code, name) in [
        (Fault::Status(500), 500, "Internal"),
        (Fault::Status(501), 501, "NotImplemented"),
        (Fault::Status(555), 555, "ServiceTimeout"),
        (Fault::Status(418), 418, "Status"),
        (Fault::RateLimited, 429, "RateLimited"),
    ] {
        e.inject(KEY, fault, Some(1));
        let err = c.run(LlmAParams::new("hi")).await.unwrap_err();
        assert_eq!((err.status(), variant(&err)), (Some(code), name));
    }
    let err = c.run(LlmAParams::new("hi")).await;
    assert!(err.is_ok());
}

fn variant(e: &Error) -> &'static str {
    match e {
        Error::BadRequest(_) => "BadRequest",
        Error::Unauthorized(_) => "Unauthorized",
        Error::PaymentRequired(_) => "PaymentRequired",
        Error::Forbidden(_) => "Forbidden",
        Error::NotFound(_) => "NotFound",
        Error::Unprocessable(_) => "Unprocessable",
        Error::RateLimited(_) => "RateLimited",
        Error::Internal(_) => "Internal",
        Error::NotImplemented(_) => "NotImplemented",
        Error::ServiceTimeout(_) => "ServiceTimeout",
        Error::Status(_) => "Status",
        Error::Transport(_) => "Transport",
        Error::Timeout(_) => "Timeout",
        Error::Decode(_) => "Decode",
        _ => "other",
    }
}

/// Every sleep a client took, in seconds.
fn slept(clock: &ManualClock) -> Vec<f64> {
    clock.sleeps().iter().map(Duration::as_secs_f64).collect()
}

#[tokio::test]
async fn both_429_shapes_are_retried_honouring_retry_after() {
    for shape in [RateLimitShape::Nested, RateLimitShape::Flat] {
        let e = start(Emulator::builder().rate_limit(None).rate_limit_shape(shape)).await;
        let clock = ManualClock::new();
        let c = client_for(&e).clock(clock.clone()).build().unwrap();
        e.inject(KEY, Fault::RateLimited, Some(1));
        let r = c.run(LlmAParams::new("hello")).await.unwrap();
        assert!(r.record().is_some());
        assert_eq!(e.requests_seen(KEY), 2, "{shape:?}");
        // The injected 429 asks for one second: the one sleep is the hint, raised by at most
        // the policy's first backoff (200 ms), and the pause it set is over by the retry.
        let sleeps = slept(&clock);
        assert!(
            matches!(sleeps[..], [d] if (1.0..=1.2).contains(&d)),
            "{shape:?} {sleeps:?}"
        );
    }
}

#[tokio::test]
async fn retries_back_off_on_the_clients_clock_within_max_elapsed() {
    let e = emulator().await;
    let clock = ManualClock::new();
    let policy = RetryPolicy {
        max_attempts: 4,
        min_delay: Duration::from_secs(1),
        max_delay: Duration::from_secs(8),
        max_elapsed: Duration::from_secs(60),
        retry_server_errors: true,
        ..RetryPolicy::default()
    };
    let c = client_for(&e)
        .retry_policy(policy.clone())
        .clock(clock.clone())
        .build()
        .unwrap();
    // Three 500s on a read, then an answer: three sleeps, each its exponential step (1, 2, 4 s)
    // plus a jitter below the step.
    e.inject(KEY, Fault::Status(500), Some(3));
    let agent = c.agent("llm_a").await.unwrap();
    assert_eq!(agent.name, "llm_a");
    assert_eq!(e.requests_seen(KEY), 4);
    let sleeps = slept(&clock);
    assert_eq!(sleeps.len(), 3, "{sleeps:?}");
    for (d, step) in sleeps.iter().zip([1.0, 2.0, 4.0]) {
        assert!((step..2.0 * step).contains(d), "{sleeps:?}");
    }

    // A service that keeps failing: the client stops before its sleeps would pass max_elapsed
    // (20 s on its clock), having sent one request more than it slept.
    let clock = ManualClock::new();
    let c = client_for(&e)
        .retry_policy(RetryPolicy {
            max_attempts: 100,
            max_elapsed: Duration::from_secs(20),
            ..policy
        })
        .clock(clock.clone())
        .build()
        .unwrap();
    e.clear_faults(KEY);
    e.inject(KEY, Fault::Status(500), None);
    let before = e.requests_seen(KEY);
    let err = c.agent("llm_a").await.unwrap_err();
    assert!(matches!(err, Error::Internal(_)), "{err}");
    let sleeps = slept(&clock);
    let total: f64 = sleeps.iter().sum();
    assert!((20.0 - 16.0..=20.0).contains(&total), "{sleeps:?}");
    assert_eq!(e.requests_seen(KEY) - before, sleeps.len() as u64 + 1);
    assert_eq!(err.attempts(), Some(sleeps.len() as u32 + 1));
    e.clear_faults(KEY);
}

#[tokio::test]
async fn a_429_pauses_the_next_call_on_the_clients_clock() {
    let e = emulator().await;
    let clock = ManualClock::new();
    let c = client_for(&e)
        .retry_policy(RetryPolicy::none())
        .clock(clock.clone())
        .build()
        .unwrap();
    e.inject(KEY, Fault::RateLimited, Some(1));
    let err = c.run(LlmAParams::new("hi")).await.unwrap_err();
    assert!(matches!(err, Error::RateLimited(_)), "{err}");
    assert!(clock.sleeps().is_empty());
    // The next call, on a clone, waits out the second the 429 asked for, and no longer.
    let other = c.clone();
    other.agent("llm_a").await.unwrap();
    assert_eq!(clock.sleeps(), [Duration::from_secs(1)]);
    // Once that second has passed, nothing waits.
    other.agent("llm_a").await.unwrap();
    assert_eq!(clock.sleeps().len(), 1);
}

#[tokio::test]
async fn a_wait_times_out_after_max_wait_on_the_clients_clock() {
    let e = emulator().await;
    let clock = ManualClock::new();
    // The task takes a minute of real time; the default wait (10 minutes, 250 ms growing by
    // half to 5 s) gives up on the client's clock without sleeping for real.
    let c = client_for(&e)
        .header("x-emulator-task-ms", "60000")
        .clock(clock.clone())
        .build()
        .unwrap();
    let err = c
        .run_async_raw(
            "llm_b",
            json!({"prompt": "x"}),
            &RunOptions::new(),
            &Delivery::new(),
        )
        .await
        .unwrap()
        .wait()
        .await
        .unwrap_err();
    match err {
        Error::WaitTimeout {
            waited,
            ref last_state,
            ..
        } => {
            assert_eq!(waited, WaitOptions::TASK.max_wait);
            assert_eq!(last_state, "pending");
        }
        other => panic!("{other:?}"),
    }
    let sleeps = clock.sleeps();
    assert_eq!(sleeps.iter().sum::<Duration>(), WaitOptions::TASK.max_wait);
    assert_eq!(
        sleeps[..4],
        [250_000, 375_000, 562_500, 843_750].map(Duration::from_micros)
    );
    assert!(sleeps.iter().all(|d| *d <= Duration::from_secs(5)));
}

#[tokio::test]
async fn server_errors_and_transport_failures_follow_the_classifier() {
    let e = emulator().await;
    let c = client(&e);
    // 500 is not retried by default: the service already retried.
    e.inject(KEY, Fault::Status(500), Some(1));
    assert!(matches!(c.agent("llm_a").await, Err(Error::Internal(_))));
    assert_eq!(e.requests_seen(KEY), 1);
    // A reset on a safe call (GET) is retried.
    e.inject(KEY, Fault::Reset, Some(1));
    assert!(c.agent("llm_a").await.is_ok());
    assert_eq!(e.requests_seen(KEY), 3);
    // A reset on a run is not (it may have run).
    e.inject(KEY, Fault::Reset, Some(1));
    let err = c.run(LlmAParams::new("hi")).await.unwrap_err();
    assert!(matches!(err, Error::Transport(_)), "{err}");
    assert_eq!(e.requests_seen(KEY), 4);
    // 555 on a GET is retried.
    e.inject(KEY, Fault::Status(555), Some(1));
    assert!(c.agent("llm_a").await.is_ok());
    // A gateway's 502, 503 or 504 on a GET is retried; on a run it is not (it may have run).
    for status in [502, 503, 504] {
        let before = e.requests_seen(KEY);
        e.inject(KEY, Fault::Status(status), Some(1));
        assert!(c.agent("llm_a").await.is_ok(), "{status}");
        assert_eq!(e.requests_seen(KEY) - before, 2, "{status}");
        e.inject(KEY, Fault::Status(status), Some(1));
        let err = c.run(LlmAParams::new("hi")).await.unwrap_err();
        assert_eq!(err.api().map(|a| a.info.status), Some(status), "{err}");
        assert_eq!(e.requests_seen(KEY) - before, 3, "{status}");
    }
    // Bodies that are not what the interface says are decode errors keeping the body.
    for fault in [Fault::Truncate, Fault::Malformed] {
        e.inject(KEY, fault, Some(1));
        match c.run(LlmAParams::new("hi")).await.unwrap_err() {
            Error::Decode(d) => {
                assert!(!d.body.is_empty());
                assert_eq!(d.info.status, 200);
            }
            other => panic!("{other:?}"),
        }
    }
}

#[tokio::test]
async fn the_limiter_keeps_below_the_limit_without_429s() {
    let e = start(Emulator::builder().rate_limit(Some(83))).await;
    let c = client_for(&e)
        .rate_limit(Some(83))
        .retry_policy(RetryPolicy::none())
        .build()
        .unwrap();
    let n = 166u32;
    let t = Instant::now();
    let results = futures::future::join_all((0..n).map(|i| {
        let c = c.clone();
        async move { c.run(LlmAParams::new(format!("prompt {i}"))).await }
    }))
    .await;
    let elapsed = t.elapsed().as_secs_f64();
    let rate = f64::from(n) / elapsed;
    let limited = results
        .iter()
        .filter(|r| matches!(r, Err(Error::RateLimited(_))))
        .count();
    assert_eq!(limited, 0, "no 429s");
    assert!(results.iter().all(Result::is_ok));
    // The limiter never lets the client exceed the limit (the lower bound is a benchmark).
    assert!(rate <= 83.0 * 1.05, "{rate:.1} req/s");
    eprintln!("limiter: {n} runs in {elapsed:.2} s = {rate:.1} req/s");
}

#[tokio::test]
async fn wait_ends_in_success_or_error() {
    // The time-out is `a_wait_times_out_after_max_wait_on_the_clients_clock`.
    let e = emulator().await;
    let c = client(&e);
    let fast = WaitOptions::TASK.intervals(Duration::from_millis(20), Duration::from_millis(50));
    let handle = c
        .run_async_with(
            RetailerAPdpParams::new("B08N5WRWNW"),
            &RunOptions::new(),
            &Delivery::new().callback_url("http://127.0.0.1:9/done"),
        )
        .await
        .unwrap()
        .with_wait(fast);
    let r = handle.wait().await.unwrap();
    let sync = c.run(RetailerAPdpParams::new("B08N5WRWNW")).await.unwrap();
    assert_eq!(r.record(), sync.record());
    // Re-attaching by id gives the same result.
    let again = TaskHandle::<RunResult<RetailerAPdp>>::attach(&c, handle.id())
        .wait()
        .await
        .unwrap();
    assert_eq!(again.record(), r.record());

    let failing = client_for(&e)
        .header("x-emulator-task", "error")
        .build()
        .unwrap();
    let err = failing
        .run_async_with(LlmAParams::new("x"), &RunOptions::new(), &Delivery::new())
        .await
        .unwrap()
        .with_wait(fast)
        .wait()
        .await
        .unwrap_err();
    match err {
        Error::TaskFailed(record) => assert!(record.error.is_some()),
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn generation_create_wait_then_run_by_name() {
    let e = emulator().await;
    let c = client(&e);
    let fast =
        WaitOptions::GENERATION.intervals(Duration::from_millis(20), Duration::from_millis(50));
    let handle = c
        .generate_agent(
            GenerationRequest::new(
                "Extract the title, price and rating of the listing.",
                "https://market.example/listing/9",
            )
            .agent_name("market_listing"),
        )
        .await
        .unwrap()
        .with_wait(fast);
    assert_eq!(handle.agent_name(), Some("market_listing"));
    let done = handle.wait().await.unwrap();
    assert!(done.generated_version_id.is_some());
    assert!(done.summary.unwrap().contains("price"));
    let record = c.agent("market_listing").await.unwrap();
    assert_eq!(record.output_schema.unwrap().len(), 3);
    let r = c
        .run_raw(
            "market_listing",
            json!({"url": "https://market.example/listing/10"}),
        )
        .await
        .unwrap();
    assert!(r.record().unwrap()["price"].is_number());
    // The typed path for an agent the program generated itself: its own type.
    #[derive(Debug, serde::Deserialize)]
    struct Listing {
        price: f64,
    }
    let typed = r.clone().into_typed::<Listing>().unwrap();
    assert!(typed.record().unwrap().price.is_finite());
    assert_eq!(typed.attempts(), 1);
    #[derive(Debug, serde::Deserialize)]
    struct Wrong {
        #[allow(dead_code)]
        price: String,
    }
    let err = r.into_typed::<Wrong>().unwrap_err();
    let Error::Decode(d) = &err else {
        panic!("{err}")
    };
    assert_eq!(d.path, "data.parsing.price", "{err}");

    let refined = c
        .generate_agent(GenerationRequest::refine(
            "market_listing",
            "also extract the seller",
        ))
        .await
        .unwrap()
        .with_wait(fast)
        .wait()
        .await
        .unwrap();
    assert_eq!(refined.agent_name.as_deref(), Some("market_listing"));
    // A new agent by a taken name: the service says to use its field `from_agent`; the error
    // names this client's method for it.
    let taken = c
        .generate_agent(
            GenerationRequest::new("again", "https://market.example/listing/9")
                .agent_name("market_listing"),
        )
        .await
        .unwrap_err();
    assert!(
        taken.to_string().contains("GenerationRequest::refine"),
        "{taken}"
    );
    let failed = c
        .generate_agent(GenerationRequest::new("?", "https://x.example/"))
        .await
        .unwrap()
        .with_wait(fast)
        .wait()
        .await
        .unwrap_err();
    assert!(matches!(failed, Error::GenerationFailed(_)), "{failed}");
}

#[tokio::test]
async fn catalog_lists_streams_and_reads_records() {
    let e = emulator().await;
    let c = client(&e);
    let public = c.agents().privacy(Privacy::Public).list().await.unwrap();
    assert_eq!(public.len(), 18);
    let retail = c.agents().search("retailer b").list().await.unwrap();
    assert_eq!(retail.len(), 2);
    let streamed: Vec<_> = c.agents().limit(5).stream().collect().await;
    assert_eq!(streamed.len(), 18);
    let names: Vec<String> = streamed.into_iter().map(|r| r.unwrap().name).collect();
    assert_eq!(names.first().map(String::as_str), Some("llm_a"));
    let details = c.agent("retailer_a_pdp").await.unwrap();
    let file = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../schemas/retailer_a_pdp.json"),
    )
    .unwrap();
    assert_eq!(
        details,
        agents_schema::AgentRecord::from_json(&file).unwrap()
    );
}

#[tokio::test]
async fn drifted_values_are_recorded_not_fatal() {
    let e = emulator().await;
    let c = client_for(&e)
        .header("x-emulator-fault", "drift")
        .build()
        .unwrap();
    let r = c.run(RetailerAPdpParams::new("B08N5WRWNW")).await.unwrap();
    let p = r.record().unwrap();
    assert!(!p.mismatches().is_empty());
    let coerced = p.mismatches().iter().filter(|m| m.coerced).count();
    assert!(coerced > 0, "currency strings become numbers");
    let raw: Value = serde_json::to_value(p).unwrap();
    assert!(raw.is_object());
}

#[test]
fn localize_sets_the_declared_input_or_sends_the_other_and_localizes_either_way() {
    use agents_runtime::catalog::{RetailerAPdpParams, RetailerBSearchParams};
    use agents_runtime::{AgentParams, Localize};
    // `retailer_b_search` is localized by store; its own setter and the trait's agree.
    let own = RetailerBSearchParams::new("milk").store_id("4711");
    let by_trait = Localize::store_id(RetailerBSearchParams::new("milk"), "4711");
    assert_eq!(own, by_trait);
    // It declares no `zip_code`: the value is sent as given, and the request localized.
    let zip = RetailerBSearchParams::new("milk").zip_code("10001");
    assert_eq!(zip.extra["zip_code"], "10001");
    assert!(zip.uses_localization());
    assert!(!RetailerBSearchParams::new("milk").uses_localization());
    let pdp = Localize::zip_code(RetailerAPdpParams::new("B1"), "10001");
    assert_eq!(pdp.zip_code.as_deref(), Some("10001"));
}
