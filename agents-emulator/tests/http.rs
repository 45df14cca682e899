#![allow(clippy::unwrap_used)] // test helpers outside #[test] fns
//! Black-box tests of the emulator over real HTTP on loopback.

use std::time::Duration;

use agents_emulator::{
    Account, AccountStatus, Emulator, EmulatorHandle, Fault, Lifecycle, RateLimitShape,
};
use reqwest::{Client, Response, StatusCode};
use serde_json::{Value, json};

const KEY: &str = "test-key";

async fn start(b: agents_emulator::EmulatorBuilder) -> EmulatorHandle {
    b.api_key(KEY)
        .lifecycle(Lifecycle::fast())
        .start()
        .await
        .unwrap()
}

async fn emulator() -> EmulatorHandle {
    start(Emulator::builder().rate_limit(None)).await
}

struct Api<'a> {
    e: &'a EmulatorHandle,
    http: Client,
    key: String,
}

impl<'a> Api<'a> {
    fn new(e: &'a EmulatorHandle) -> Self {
        Api {
            e,
            http: Client::new(),
            key: KEY.into(),
        }
    }
    fn key(mut self, key: &str) -> Self {
        self.key = key.into();
        self
    }
    async fn get(&self, path: &str) -> Response {
        self.http
            .get(format!("{}{path}", self.e.base_url()))
            .bearer_auth(&self.key)
            .send()
            .await
            .unwrap()
    }
    async fn post(&self, path: &str, body: Value) -> Response {
        self.post_with(path, body, &[]).await
    }
    async fn post_with(&self, path: &str, body: Value, headers: &[(&str, &str)]) -> Response {
        let mut req = self
            .http
            .post(format!("{}{path}", self.e.base_url()))
            .bearer_auth(&self.key)
            .json(&body);
        for (k, v) in headers {
            req = req.header(*k, *v);
        }
        req.send().await.unwrap()
    }
}

async fn json_of(r: Response) -> (StatusCode, Value) {
    let status = r.status();
    let text = r.text().await.unwrap();
    let v = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{status} {text:?}: {e}"));
    (status, v)
}

fn pdp(asin: &str) -> Value {
    json!({"agent": "retailer_a_pdp", "params": {"asin": asin}})
}

#[tokio::test]
async fn auth_missing_unknown_no_budget_blocked() {
    let e = start(
        Emulator::builder()
            .account(Account::new("broke").status(AccountStatus::NoBudget))
            .account(Account::new("banned").status(AccountStatus::Blocked)),
    )
    .await;
    let http = Client::new();
    let r = http
        .get(format!("{}/v1/agents", e.base_url()))
        .send()
        .await
        .unwrap();
    assert!(r.headers().contains_key("x-task-id"));
    let (s, body) = json_of(r).await;
    assert_eq!(s, StatusCode::UNAUTHORIZED);
    assert_eq!(body["error"]["code"], "UNAUTHORIZED");
    for (key, status) in [
        ("nope", StatusCode::UNAUTHORIZED),
        ("broke", StatusCode::PAYMENT_REQUIRED),
        ("banned", StatusCode::FORBIDDEN),
        (KEY, StatusCode::OK),
    ] {
        let r = Api::new(&e).key(key).get("/v1/agents").await;
        assert_eq!(r.status(), status, "{key}");
    }
    assert_eq!(e.requests_seen("broke"), 1);
}

#[tokio::test]
async fn a_run_is_deterministic_conforms_and_adds_formats() {
    let e = emulator().await;
    let api = Api::new(&e);
    let r = api.post("/v1/agents/run", pdp("B08N5WRWNW")).await;
    let header_id = r.headers()["x-task-id"].to_str().unwrap().to_owned();
    let (s, a) = json_of(r).await;
    assert_eq!(s, StatusCode::OK, "{a}");
    assert_eq!(a["task_id"], header_id.as_str());
    assert_eq!(a["status"], "success");
    assert_eq!(a["status_code"], 200);
    assert_eq!(a["metadata"]["agent"], "retailer_a_pdp");
    assert!(a["metadata"]["driver"].is_string());
    let parsing = a["data"]["parsing"].as_object().unwrap();
    assert_eq!(parsing.len(), 112);
    let avg = parsing["average_of_reviews"].as_f64().unwrap();
    assert!((0.0..=5.0).contains(&avg));
    assert!(parsing["product_hierarchy"].is_array());
    assert!(a["data"].get("html").is_none(), "no html unless asked");

    let (_, b) = json_of(api.post("/v1/agents/run", pdp("B08N5WRWNW")).await).await;
    assert_eq!(
        a["data"]["parsing"], b["data"]["parsing"],
        "same call, same record"
    );
    let (_, c) = json_of(api.post("/v1/agents/run", pdp("B000000001")).await).await;
    assert_ne!(a["data"]["parsing"], c["data"]["parsing"]);

    let mut req = pdp("B08N5WRWNW");
    req["formats"] = json!(["html", "markdown", "headers", "links"]);
    let (_, f) = json_of(api.post("/v1/agents/run", req).await).await;
    assert!(f["data"]["html"].as_str().unwrap().contains("<html>"));
    assert!(f["data"]["markdown"].as_str().unwrap().starts_with("# "));
    assert!(f["data"]["headers"].is_object());
    assert!(f["data"]["links"].as_array().unwrap().len() > 1);
}

#[tokio::test]
async fn validation_names_the_field_at_fault() {
    let e = emulator().await;
    let api = Api::new(&e);
    let cases = [
        (json!({"params": {}}), StatusCode::BAD_REQUEST, "agent"),
        (
            json!({"agent": "retailer_a_pdp"}),
            StatusCode::BAD_REQUEST,
            "params",
        ),
        (
            json!({"agent": "retailer_a_pdp", "params": {}}),
            StatusCode::BAD_REQUEST,
            "params.asin",
        ),
        (
            json!({"agent": "retailer_a_pdq", "params": {}}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "agent",
        ),
        (
            json!({"agent": "retailer_a_pdp", "params": {"asin": 5}}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "params.asin",
        ),
        (
            json!({"agent": "retailer_a_pdp", "params": {"asin": ""}}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "params.asin",
        ),
        (
            json!({"agent": "retailer_a_pdp", "params": {"asin": "B1", "zip_code": "10001"}}),
            StatusCode::BAD_REQUEST,
            "localization",
        ),
        (
            json!({"agent": "llm_a", "params": {"prompt": "hi"}, "localization": true}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "localization",
        ),
        (
            json!({"agent": "llm_a", "params": {"prompt": "hi", "store_id": "7"}}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "params.store_id",
        ),
        (
            json!({"agent": "retailer_a_serp", "params": {"keyword": "x", "page": 0}}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "params.page",
        ),
        (
            json!({"agent": "retailer_a_pdp", "params": {"asin": "B1", "country": "USA"}}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "params.country",
        ),
        (
            json!({"agent": "retailer_a_pdp", "params": {"asin": "B1"}, "formats": ["pdf"]}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "formats[0]",
        ),
        (
            json!({"agent": "retailer_a_pdp", "params": ["B1"]}),
            StatusCode::BAD_REQUEST,
            "params",
        ),
    ];
    for (body, status, field) in cases {
        let (s, v) = json_of(api.post("/v1/agents/run", body.clone()).await).await;
        assert_eq!(s, status, "{body} → {v}");
        assert_eq!(v["error"]["field"], field, "{body} → {v}");
    }
    // Both localization forms are accepted, and a page may be a string.
    for loc in [json!(true), json!({"zip_code": "10001"})] {
        let body = json!({"agent": "retailer_a_pdp", "params": {"asin": "B1", "zip_code": "10001"}, "localization": loc});
        assert_eq!(
            api.post("/v1/agents/run", body).await.status(),
            StatusCode::OK
        );
    }
    let body = json!({"agent": "retailer_a_serp", "params": {"keyword": "x", "page": "2"}});
    assert_eq!(
        api.post("/v1/agents/run", body).await.status(),
        StatusCode::OK
    );
}

#[tokio::test]
async fn hostile_bodies_get_4xx_never_5xx() {
    let e = emulator().await;
    let http = Client::new();
    let url = format!("{}/v1/agents/run", e.base_url());
    let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    let huge = vec![b' '; 17 * 1024 * 1024];
    let bodies: Vec<(Vec<u8>, &str)> = vec![
        (b"{not json".to_vec(), "application/json"),
        (vec![0xff, 0xfe, b'{', b'}'], "application/json"),
        (deep.into_bytes(), "application/json"),
        (b"[1, 2]".to_vec(), "application/json"),
        (
            br#"{"agent": "retailer_a_pdp", "params": {"asin": "x"}}"#.to_vec(),
            "text/plain",
        ),
        (huge, "application/json"),
        (Vec::new(), "application/json"),
    ];
    for (body, ct) in bodies {
        let r = http
            .post(&url)
            .bearer_auth(KEY)
            .header("content-type", ct)
            .body(body)
            .send()
            .await
            .unwrap();
        let s = r.status();
        assert!(s.is_client_error(), "{s}");
        let v: Value = r.json().await.unwrap();
        assert!(v["error"]["message"].is_string(), "{v}");
    }
    let r = Api::new(&e).get("/v1/nothing/here").await;
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
    let r = http.delete(&url).bearer_auth(KEY).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::METHOD_NOT_ALLOWED);
}

#[tokio::test]
async fn rate_limit_answers_429_in_both_shapes_with_headers() {
    let e = start(
        Emulator::builder()
            .rate_limit(Some(5))
            .burst(2)
            .rate_limit_shape(RateLimitShape::Alternating),
    )
    .await;
    let api = Api::new(&e);
    let mut shapes = Vec::new();
    let mut ok = 0;
    for _ in 0..8 {
        let r = api.get("/v1/agents/llm_a").await;
        let h = r.headers().clone();
        for name in [
            "x-ratelimit-limit",
            "x-ratelimit-remaining",
            "x-ratelimit-reset",
            "ratelimit-limit",
            "ratelimit-remaining",
            "x-task-id",
        ] {
            assert!(h.contains_key(name), "{name}");
        }
        assert_eq!(h["ratelimit-limit"], "5");
        if r.status() == StatusCode::TOO_MANY_REQUESTS {
            assert!(h.contains_key("retry-after"));
            let (_, v) = json_of(r).await;
            if v["error"]["code"] == "RATE_LIMIT_EXCEEDED" {
                assert!(v["error"]["retry_after"].as_u64().unwrap() >= 1);
                shapes.push("nested");
            } else {
                assert_eq!(v["status"], "failed");
                assert!(v["msg"].is_string());
                shapes.push("flat");
            }
        } else {
            ok += 1;
        }
    }
    assert!(ok >= 2, "the burst is served");
    assert!(
        shapes.contains(&"nested") && shapes.contains(&"flat"),
        "{shapes:?}"
    );
    // Another key has its own budget.
    tokio::time::sleep(Duration::from_millis(10)).await;
}

#[tokio::test]
async fn pages_are_distinct_until_the_last_then_repeat() {
    let e = start(
        Emulator::builder()
            .rate_limit(None)
            .pages("retailer_a_serp", 3),
    )
    .await;
    let api = Api::new(&e);
    let mut pages = Vec::new();
    for page in 1..=5 {
        let body =
            json!({"agent": "retailer_a_serp", "params": {"keyword": "earbuds", "page": page}});
        let (s, v) = json_of(api.post("/v1/agents/run", body).await).await;
        assert_eq!(s, StatusCode::OK);
        let items = v["data"]["parsing"].as_array().unwrap().clone();
        assert_eq!(items.len(), 10);
        pages.push(items);
    }
    assert_ne!(pages[0], pages[1]);
    assert_ne!(pages[1], pages[2]);
    assert_eq!(pages[2], pages[3], "placeholder past the last page");
    assert_eq!(pages[3], pages[4]);
}

#[tokio::test]
async fn drift_mode_sends_wrong_types() {
    let e = emulator().await;
    let api = Api::new(&e);
    let (_, clean) = json_of(api.post("/v1/agents/run", pdp("B1")).await).await;
    let (_, drifted) = json_of(
        api.post_with(
            "/v1/agents/run",
            pdp("B1"),
            &[("x-emulator-fault", "drift")],
        )
        .await,
    )
    .await;
    let (c, d) = (&clean["data"]["parsing"], &drifted["data"]["parsing"]);
    let changed: Vec<&String> = c
        .as_object()
        .unwrap()
        .keys()
        .filter(|k| c[k.as_str()] != d[k.as_str()])
        .collect();
    assert!(changed.len() > 5, "{changed:?}");
    let currency = changed.iter().any(|k| {
        c[k.as_str()].is_number() && d[k.as_str()].as_str().is_some_and(|s| s.starts_with('$'))
    });
    assert!(currency, "a number arrives as a currency string");
}

#[tokio::test]
async fn async_task_moves_from_pending_to_success_or_error() {
    let e = emulator().await;
    let api = Api::new(&e);
    let mut body = pdp("B08N5WRWNW");
    body["callback_url"] = json!("http://127.0.0.1:9/hook");
    let (s, created) = json_of(api.post("/v1/agents/async", body.clone()).await).await;
    assert_eq!(s, StatusCode::OK, "{created}");
    let id = created["task_id"].as_str().unwrap().to_owned();
    let (_, t) = json_of(api.get(&format!("/v1/tasks/{id}")).await).await;
    assert_eq!(t["task"]["state"], "pending");
    assert_eq!(
        api.get(&format!("/v1/tasks/{id}/results")).await.status(),
        StatusCode::BAD_REQUEST
    );
    tokio::time::sleep(Duration::from_millis(150)).await;
    let (_, t) = json_of(api.get(&format!("/v1/tasks/{id}")).await).await;
    assert_eq!(t["task"]["state"], "success");
    let (s, result) = json_of(api.get(&format!("/v1/tasks/{id}/results")).await).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(result["task_id"], id.as_str());
    let (_, sync) = json_of(api.post("/v1/agents/run", pdp("B08N5WRWNW")).await).await;
    assert_eq!(result["data"]["parsing"], sync["data"]["parsing"]);

    let (_, failing) = json_of(
        api.post_with(
            "/v1/agent/async",
            pdp("B1"),
            &[("x-emulator-task", "error"), ("x-emulator-task-ms", "0")],
        )
        .await,
    )
    .await;
    let id = failing["task_id"].as_str().unwrap();
    let (_, t) = json_of(api.get(&format!("/v1/tasks/{id}")).await).await;
    assert_eq!(t["task"]["state"], "error");
    assert!(t["task"]["error"].is_string());
    // The same task faults on every path that creates tasks: async extract, search and map.
    for (path, body) in [
        (
            "/v1/extract/async",
            json!({"url": "https://shop.example/p/1"}),
        ),
        ("/v1/search/async", json!({"query": "kettle"})),
        ("/v1/map/async", json!({"url": "https://shop.example/"})),
    ] {
        let (s, created) = json_of(
            api.post_with(
                path,
                body,
                &[("x-emulator-task", "error"), ("x-emulator-task-ms", "0")],
            )
            .await,
        )
        .await;
        assert_eq!(s, StatusCode::OK, "{path}: {created}");
        let id = created["task_id"]
            .as_str()
            .or(created["task"]["id"].as_str())
            .unwrap_or_else(|| panic!("{path}: {created}"))
            .to_owned();
        let (_, t) = json_of(api.get(&format!("/v1/tasks/{id}")).await).await;
        assert_eq!(t["task"]["state"], "error", "{path}: {t}");
    }
    let other = start(Emulator::builder()).await;
    assert_eq!(
        Api::new(&other)
            .get(&format!("/v1/tasks/{id}"))
            .await
            .status(),
        StatusCode::NOT_FOUND
    );

    // Delivery options are checked.
    for (field, value, status) in [
        (
            "storage_url",
            json!("s3://bucket/prefix/"),
            StatusCode::BAD_REQUEST,
        ),
        ("callback_url", json!("ftp://x"), StatusCode::BAD_REQUEST),
        (
            "storage_type",
            json!("azure"),
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
    ] {
        let mut b = pdp("B1");
        b[field] = value;
        let (s, v) = json_of(api.post("/v1/agents/async", b).await).await;
        assert_eq!(s, status, "{v}");
    }
    let mut b = pdp("B1");
    b["params"]["storage_type"] = json!("gs");
    b["params"]["storage_url"] = json!("gs://bucket/results/");
    assert_eq!(
        api.post("/v1/agents/async", b).await.status(),
        StatusCode::OK
    );
}

#[tokio::test]
async fn catalog_lists_filters_and_pages() {
    let e = emulator().await;
    let api = Api::new(&e);
    let (_, all) = json_of(api.get("/v1/agents").await).await;
    assert_eq!(all.as_array().unwrap().len(), 18);
    assert!(
        all[0].get("output_schema").is_none(),
        "list items are a subset"
    );
    let (_, page) = json_of(api.get("/v1/agents?offset=16&limit=5").await).await;
    assert_eq!(page.as_array().unwrap().len(), 2);
    let (_, found) = json_of(api.get("/v1/agents?search=Retailer%20B").await).await;
    assert_eq!(found.as_array().unwrap().len(), 2);
    let (_, private) = json_of(api.get("/v1/agents?privacy=private").await).await;
    assert_eq!(private, json!([]));
    assert_eq!(
        api.get("/v1/agents?privacy=secret").await.status(),
        StatusCode::UNPROCESSABLE_ENTITY
    );
    assert_eq!(
        api.get("/v1/agents?limit=-1").await.status(),
        StatusCode::UNPROCESSABLE_ENTITY
    );
    let (s, details) = json_of(api.get("/v1/agents/retailer_a_pdp").await).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(details["output_schema"].as_object().unwrap().len(), 112);
    assert_eq!(details["feature_flags"]["is_localization_supported"], true);
    let (s, missing) = json_of(api.get("/v1/agents/retailer_a_pd").await).await;
    assert_eq!(s, StatusCode::NOT_FOUND);
    assert!(
        missing["error"]["message"]
            .as_str()
            .unwrap()
            .contains("retailer_a_pdp")
    );
}

#[tokio::test]
async fn a_failed_generation_frees_its_name_for_the_next_try() {
    let e = emulator().await;
    let api = Api::new(&e);
    let url = "https://books.example/item/1";
    let vague = json!({"prompt": "Get it.", "url": url, "agent_name": "book_try"});
    let (s, first) = json_of(api.post("/v1/agents/generations", vague.clone()).await).await;
    assert_eq!(s, StatusCode::CREATED, "{first}");
    // While it runs the name is held.
    let (s, held) = json_of(api.post("/v1/agents/generations", vague).await).await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{held}");
    let id = first["id"].as_str().unwrap().to_owned();
    let mut status = String::new();
    for _ in 0..100 {
        let (_, g) = json_of(api.get(&format!("/v1/agents/generations/{id}")).await).await;
        status = g["status"].as_str().unwrap().to_owned();
        if status != "queued" && status != "in_progress" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(status, "failed");
    let clear = json!({"prompt": "Extract the book title and price.", "url": url, "agent_name": "book_try"});
    let (s, again) = json_of(api.post("/v1/agents/generations", clear).await).await;
    assert_eq!(s, StatusCode::CREATED, "{again}");
}

#[tokio::test]
async fn generation_lifecycle_publishes_a_private_runnable_agent() {
    let e = start(
        Emulator::builder()
            .rate_limit(None)
            .generation_daily_limit(3)
            .api_key("other"),
    )
    .await;
    let api = Api::new(&e);
    let req = json!({"prompt": "Extract the book title, price, rating and author.", "url": "https://books.example/item/1", "agent_name": "book_page"});
    let (s, created) = json_of(api.post("/v1/agents/generations", req.clone()).await).await;
    assert_eq!(s, StatusCode::CREATED, "{created}");
    assert_eq!(created["status"], "queued");
    let id = created["id"].as_str().unwrap().to_owned();
    let (s, dup) = json_of(api.post("/v1/agents/generations", req).await).await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{dup}");
    // Not runnable before it succeeds.
    let run = json!({"agent": "book_page", "params": {"url": "https://books.example/item/2"}});
    assert_eq!(
        api.post("/v1/agents/run", run.clone()).await.status(),
        StatusCode::UNPROCESSABLE_ENTITY
    );
    let mut seen = Vec::new();
    for _ in 0..50 {
        let (_, g) = json_of(api.get(&format!("/v1/agents/generations/{id}")).await).await;
        let status = g["status"].as_str().unwrap().to_owned();
        if seen.last() != Some(&status) {
            seen.push(status.clone());
        }
        if status == "success" {
            assert!(g["generated_version_id"].is_string());
            assert!(g["summary"].as_str().unwrap().contains("book_title"));
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(seen.first().map(String::as_str), Some("queued"));
    assert!(seen.contains(&"in_progress".to_owned()), "{seen:?}");
    assert_eq!(seen.last().map(String::as_str), Some("success"));
    let (s, result) = json_of(api.post("/v1/agents/run", run.clone()).await).await;
    assert_eq!(s, StatusCode::OK, "{result}");
    let parsing = result["data"]["parsing"].as_object().unwrap();
    assert!(parsing["price"].is_number());
    assert!(parsing["author"].is_string());
    // Private: another account sees nothing.
    let other = Api::new(&e).key("other");
    assert_eq!(
        other.post("/v1/agents/run", run).await.status(),
        StatusCode::UNPROCESSABLE_ENTITY
    );
    assert_eq!(
        other.get("/v1/agents/book_page").await.status(),
        StatusCode::NOT_FOUND
    );
    let (_, mine) = json_of(api.get("/v1/agents?privacy=private").await).await;
    assert_eq!(mine[0]["name"], "book_page");

    // Refinement adds fields; then the daily limit (3) is reached.
    let (s, _) = json_of(
        api.post(
            "/v1/agents/generations",
            json!({"from_agent": "book_page", "prompt": "also extract the isbn"}),
        )
        .await,
    )
    .await;
    assert_eq!(s, StatusCode::CREATED);
    let (s, failing) = json_of(
        api.post(
            "/v1/agents/generations",
            json!({"prompt": "...", "url": "https://x.example/"}),
        )
        .await,
    )
    .await;
    assert_eq!(s, StatusCode::CREATED);
    let (s, limit) = json_of(
        api.post(
            "/v1/agents/generations",
            json!({"prompt": "get price", "url": "https://y.example/"}),
        )
        .await,
    )
    .await;
    assert_eq!(s, StatusCode::PAYMENT_REQUIRED, "{limit}");
    assert_eq!(limit["error"]["code"], "GENERATION_LIMIT_REACHED");
    tokio::time::sleep(Duration::from_millis(400)).await;
    let (_, g) = json_of(
        api.get(&format!(
            "/v1/agents/generations/{}",
            failing["id"].as_str().unwrap()
        ))
        .await,
    )
    .await;
    assert_eq!(g["status"], "failed");
    assert!(g["error"].as_str().unwrap().contains("names no data"));
    let (_, details) = json_of(api.get("/v1/agents/book_page").await).await;
    assert!(details["output_schema"]["isbn"].is_object(), "{details}");
}

#[tokio::test]
async fn injected_faults() {
    let e = emulator().await;
    let api = Api::new(&e);
    for (fault, status) in [("500", 500), ("501", 501), ("555", 555)] {
        let r = api
            .post_with("/v1/agents/run", pdp("B1"), &[("x-emulator-fault", fault)])
            .await;
        assert_eq!(r.status().as_u16(), status);
        assert!(r.headers().contains_key("x-task-id"));
        let v: Value = r.json().await.unwrap();
        assert!(v["error"]["code"].is_string());
    }
    let r = api
        .post_with(
            "/v1/agents/run",
            pdp("B1"),
            &[("x-emulator-fault", "truncate")],
        )
        .await;
    assert_eq!(r.status(), StatusCode::OK);
    assert!(serde_json::from_slice::<Value>(&r.bytes().await.unwrap()).is_err());
    let r = api
        .post_with(
            "/v1/agents/run",
            pdp("B1"),
            &[("x-emulator-fault", "malformed")],
        )
        .await;
    assert!(serde_json::from_slice::<Value>(&r.bytes().await.unwrap()).is_err());
    let sent = api
        .http
        .post(format!("{}/v1/agents/run", e.base_url()))
        .bearer_auth(KEY)
        .header("x-emulator-fault", "reset")
        .json(&pdp("B1"))
        .send()
        .await;
    match sent {
        Ok(r) => assert!(r.bytes().await.is_err(), "the body is cut off"),
        Err(err) => assert!(err.is_request() || err.is_body(), "{err}"),
    }
    let r = api
        .post_with(
            "/v1/agents/run",
            pdp("B1"),
            &[("x-emulator-fault", "teapot")],
        )
        .await;
    assert_eq!(r.status(), StatusCode::BAD_REQUEST);

    // Per key, for a number of requests.
    e.inject(KEY, Fault::Status(555), Some(2));
    assert_eq!(api.get("/v1/agents").await.status().as_u16(), 555);
    assert_eq!(api.get("/v1/agents").await.status().as_u16(), 555);
    assert_eq!(api.get("/v1/agents").await.status(), StatusCode::OK);
    e.inject(KEY, Fault::Latency(Duration::from_millis(120)), Some(1));
    // The injected latency is real time, which the client waits through.
    #[allow(clippy::disallowed_methods)]
    let t = std::time::Instant::now();
    assert_eq!(api.get("/v1/agents").await.status(), StatusCode::OK);
    assert!(t.elapsed() >= Duration::from_millis(120));
}

#[tokio::test]
async fn every_post_endpoint_answers_garbage_with_a_4xx() {
    let e = emulator().await;
    let http = Client::new();
    let endpoints = [
        "/v1/agents/run",
        "/v1/agents/async",
        "/v1/agent/async",
        "/v1/agents/batch",
        "/v1/agents/generations",
        "/v1/extract",
        "/v1/extract/async",
        "/v1/extract/batch",
        "/v1/search",
        "/v1/search/async",
        "/v1/map",
        "/v1/map/async",
        "/v1/crawl",
    ];
    let bodies = [
        "{not json",
        "[]",
        "{}",
        "null",
        r#"{"url": 5, "query": [], "prompt": {}, "inputs": "x", "agent": 1, "params": 2}"#,
        r#"{"url": "javascript:alert(1)", "query": "", "inputs": [], "shared_inputs": 3}"#,
        r#"{"url": "http://127.0.0.1:1/", "limit": -1, "focus": [1], "max_results": 0, "formats": ["x"]}"#,
    ];
    for path in endpoints {
        for body in bodies {
            let r = http
                .post(format!("{}{path}", e.base_url()))
                .bearer_auth(KEY)
                .header("content-type", "application/json")
                .body(body)
                .send()
                .await
                .unwrap();
            let status = r.status();
            let v: Value = r.json().await.unwrap_or(Value::Null);
            assert!(status.is_client_error(), "{path} {body} → {status} {v}");
            assert!(v["error"]["message"].is_string(), "{path} {body} → {v}");
        }
    }
    // Extract options that only extract checks (map and crawl ignore fields they do not know).
    for body in [
        r#"{"url": "https://x.example/", "browser_actions": [{"wait": "forever"}]}"#,
        r#"{"url": "https://x.example/", "browser_actions": [{}]}"#,
        r#"{"url": "https://x.example/", "expected_status_codes": ["a"]}"#,
        r#"{"url": "https://x.example/", "render": "sometimes"}"#,
    ] {
        let r = http
            .post(format!("{}/v1/extract", e.base_url()))
            .bearer_auth(KEY)
            .header("content-type", "application/json")
            .body(body)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    }
}

/// An unknown name is called what the version calls the thing a run names: "agent" on `/v1`,
/// "extract template" on `/v2`, in lookups, runs, refinements and domain knowledge alike.
#[tokio::test]
async fn unknown_names_are_called_what_their_version_calls_them() {
    let e = emulator().await;
    let api = Api::new(&e);
    for (version, noun, run_field, from_field, lookup) in [
        ("v1", "agent", "agent", "from_agent", "agents"),
        (
            "v2",
            "extract template",
            "template",
            "from_extract_template",
            "extract/templates",
        ),
    ] {
        let run = format!("/{version}/{lookup}/run");
        let answers = [
            api.get(&format!("/{version}/{lookup}/retailer_a_pdq"))
                .await,
            api.post(&run, json!({run_field: "retailer_a_pdq", "params": {}}))
                .await,
            api.post(
                &format!("/{version}/{lookup}/generations"),
                json!({"prompt": "add a field", from_field: "retailer_a_pdq"}),
            )
            .await,
            api.get(&format!(
                "/{version}/domain-knowledge/driver?agent=retailer_a_pdq"
            ))
            .await,
        ];
        for answer in answers {
            let (status, v) = json_of(answer).await;
            let message = v["error"]["message"].as_str().unwrap_or_default();
            assert!(
                status.is_client_error()
                    && message.starts_with(&format!("unknown {noun} `retailer_a_pdq`")),
                "{version}: {status} {v}"
            );
        }
        let (_, v) = json_of(
            api.post(
                &format!("/{version}/{lookup}/generations"),
                json!({"prompt": "add a field", from_field: "retailer_a_pdp"}),
            )
            .await,
        )
        .await;
        assert_eq!(
            v["error"]["message"],
            format!("`retailer_a_pdp` is a public {noun}; only your own {noun}s can be refined")
        );
    }
}
