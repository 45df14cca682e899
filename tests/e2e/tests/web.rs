#![allow(clippy::unwrap_used)] // test helpers outside #[test] fns
//! Extract, search, map and crawl against the emulator, which fetches a loopback site served
//! here.

use std::time::Duration;

use agents_emulator::{Emulator, Lifecycle};
use agents_runtime::client::web::{
    BrowserAction, CrawlCallback, CrawlEvent, CrawlRequest, CrawlStatus, ExtractFormat,
    ExtractRequest, Focus, MapRequest, SearchRequest,
};
use agents_runtime::{Error, WaitOptions};
use agents_tests_e2e::{client, emulator, start};
use axum::Router;
use axum::http::{StatusCode, header};
use axum::response::{Html, IntoResponse, Redirect};
use axum::routing::get;

/// A small site on a loopback port; returns its base URL.
async fn site() -> String {
    let app = Router::new()
        .route(
            "/",
            get(|| async {
                Html(
                    "<html><head><title>Home</title><meta name=\"description\" content=\"The home page\"></head>\
                     <body><h1>Welcome</h1><p>Hello <b>there</b>.</p><ul><li><a href=\"/a\">A</a></li>\
                     <li><a href='/b#top'>B</a></li><li><a href=\"https://elsewhere.example/x\">out</a></li></ul></body></html>",
                )
            }),
        )
        .route("/a", get(|| async { Html("<html><head><title>Page A</title></head><body><a href=\"/b\">b</a></body></html>") }))
        .route("/b", get(|| async { Html("<html><head><title>Page B</title></head><body><a href=\"/a\">a</a></body></html>") }))
        .route("/c", get(|| async { Html("<html><head><title>Only in the sitemap</title></head></html>") }))
        .route("/notfound", get(|| async { (StatusCode::NOT_FOUND, Html("<html><title>Gone</title></html>")) }))
        .route("/loop", get(|| async { Redirect::temporary("/loop") }))
        .route("/big", get(|| async { "x".repeat(11 * 1024 * 1024) }))
        .route(
            "/sitemap.xml",
            get(|| async {
                (
                    [(header::CONTENT_TYPE, "application/xml")],
                    "<urlset><url><loc>SITE/c</loc></url></urlset>",
                )
                    .into_response()
            }),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    // The sitemap names absolute URLs: patch the placeholder with the bound address.
    let app = app.layer(axum::middleware::map_response({
        let base = base.clone();
        move |resp: axum::response::Response| {
            let base = base.clone();
            async move {
                let is_xml = resp
                    .headers()
                    .get(header::CONTENT_TYPE)
                    .is_some_and(|v| v.as_bytes().starts_with(b"application/xml"));
                if !is_xml {
                    return resp;
                }
                let (parts, body) = resp.into_parts();
                let bytes = axum::body::to_bytes(body, 1 << 20)
                    .await
                    .unwrap_or_default();
                let text = String::from_utf8_lossy(&bytes).replace("SITE", &base);
                let mut parts = parts;
                parts.headers.remove(header::CONTENT_LENGTH);
                axum::response::Response::from_parts(parts, axum::body::Body::from(text))
            }
        }
    }));
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    base
}

fn fast() -> WaitOptions {
    WaitOptions::TASK.intervals(Duration::from_millis(25), Duration::from_millis(100))
}

#[tokio::test]
async fn extract_fetches_loopback_pages_for_real() {
    let (e, base) = (emulator().await, site().await);
    let c = client(&e);
    let r = c
        .extract(
            ExtractRequest::new(format!("{base}/"))
                .format(ExtractFormat::Markdown)
                .format(ExtractFormat::Links)
                .format(ExtractFormat::Headers),
        )
        .await
        .unwrap();
    assert_eq!(r.status, "success");
    assert_eq!(r.status_code, Some(200));
    let md = r.data.markdown.unwrap();
    assert!(md.starts_with("# Home"), "{md}");
    assert!(
        md.contains("# Welcome") && md.contains("Hello there."),
        "{md}"
    );
    let links = r.data.links.unwrap();
    assert_eq!(
        links,
        [
            format!("{base}/a"),
            format!("{base}/b"),
            "https://elsewhere.example/x".to_owned()
        ]
    );
    assert!(
        r.data.headers.unwrap()["content-type"]
            .as_str()
            .unwrap()
            .starts_with("text/html")
    );
    assert!(r.data.html.is_none(), "only the formats asked for");

    let handle = c
        .extract_async(ExtractRequest::new(format!("{base}/a")).format(ExtractFormat::Html))
        .await
        .unwrap()
        .with_wait(fast());
    let r = handle.wait().await.unwrap();
    assert!(r.data.html.unwrap().contains("Page A"));
}

#[tokio::test]
async fn extract_edge_cases_are_results_or_typed_errors() {
    let (e, base) = (emulator().await, site().await);
    let c = client(&e);
    let missing = c
        .extract(ExtractRequest::new(format!("{base}/notfound")))
        .await
        .unwrap();
    assert_eq!(
        (missing.status.as_str(), missing.status_code),
        ("failed", Some(404))
    );
    let expected = c
        .extract(ExtractRequest::new(format!("{base}/notfound")).expected_status_codes(vec![404]))
        .await
        .unwrap();
    assert_eq!(
        (expected.status.as_str(), expected.status_code),
        ("success", Some(404))
    );
    let looping = c
        .extract(ExtractRequest::new(format!("{base}/loop")))
        .await
        .unwrap();
    assert_eq!(looping.status, "failed");
    assert!(
        looping.warnings[0].as_str().unwrap().contains("redirect"),
        "{:?}",
        looping.warnings
    );
    let big = c
        .extract(ExtractRequest::new(format!("{base}/big")).format(ExtractFormat::Html))
        .await
        .unwrap();
    assert_eq!(big.data.html.unwrap().len(), 10 * 1024 * 1024);
    assert!(
        big.warnings
            .iter()
            .any(|w| w.as_str().unwrap().contains("cut"))
    );
    let err = c
        .extract(ExtractRequest::new("ftp://nope"))
        .await
        .unwrap_err();
    assert!(matches!(err, Error::InvalidOption { option: "url", .. }));
}

#[tokio::test]
async fn other_hosts_are_synthetic_and_screenshots_decode() {
    let e = emulator().await;
    let c = client(&e);
    let req = || {
        ExtractRequest::new("https://shop.example/item/1")
            .format(ExtractFormat::Links)
            .format(ExtractFormat::Screenshot)
    };
    let a = c.extract(req()).await.unwrap();
    let b = c.extract(req()).await.unwrap();
    assert_eq!(a.data.links, b.data.links, "deterministic");
    assert_eq!(a.data.links.as_ref().unwrap().len(), 5);
    let png = a.screenshot_png().unwrap().unwrap();
    assert!(png.starts_with(b"\x89PNG"));
    assert!(
        a.warnings
            .iter()
            .any(|w| w.as_str().unwrap().contains("placeholder"))
    );
    assert_eq!(a.metadata["driver"], "vx8", "screenshot turns rendering on");
}

#[tokio::test]
async fn browser_actions_are_validated_and_reported_honestly() {
    let (e, base) = (emulator().await, site().await);
    let c = client(&e);
    let r = c
        .extract(ExtractRequest::new(format!("{base}/")).browser_actions([
            BrowserAction::Goto(format!("{base}/a")),
            BrowserAction::Wait(Duration::from_millis(20)),
            BrowserAction::Click("#buy".into()),
            BrowserAction::Goto("https://elsewhere.example/".into()),
        ]))
        .await
        .unwrap();
    let actions = r.data.browser_actions.unwrap();
    let statuses: Vec<&str> = actions.results.iter().map(|a| a.status.as_str()).collect();
    assert_eq!(statuses, ["done", "done", "skipped", "skipped"]);
    assert_eq!(actions.results[0].result["status_code"], 200);
    assert!(
        actions.results[2]
            .error
            .as_ref()
            .unwrap()
            .contains("browser")
    );
    let err = c
        .extract(
            ExtractRequest::new(format!("{base}/"))
                .browser_actions([BrowserAction::Other("teleport".into(), true.into())]),
        )
        .await
        .unwrap_err();
    assert_eq!(
        err.api().unwrap().field.as_deref(),
        Some("browser_actions[0].teleport")
    );
}

#[tokio::test]
async fn search_is_deterministic_with_an_answer_when_asked() {
    let e = emulator().await;
    let c = client(&e);
    let req = || {
        SearchRequest::new("rust async runtimes")
            .max_results(4)
            .focus(Focus::Coding)
    };
    let a = c.search(req().include_answer(true)).await.unwrap();
    assert_eq!(a.results.len(), 4);
    assert!(a.answer.is_some());
    let b = c.search(req()).await.unwrap();
    assert_eq!(a.results, b.results);
    assert!(b.answer.is_none());
    let err = c
        .search(SearchRequest::new("x").focus(Focus::Other("vibes".into())))
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Unprocessable(_)));
    // A list of foci is accepted too, even an empty one.
    for focus in [serde_json::json!([]), serde_json::json!(["news", "geo"])] {
        let r = c
            .search(SearchRequest::new("x").field("focus", focus))
            .await
            .unwrap();
        assert_eq!(r.results.len(), 10);
    }
    let async_hits = c
        .search_async(req())
        .await
        .unwrap()
        .with_wait(fast())
        .wait()
        .await
        .unwrap();
    assert_eq!(async_hits.results, b.results);
}

#[tokio::test]
async fn map_follows_links_and_the_sitemap_of_a_loopback_site() {
    let (e, base) = (emulator().await, site().await);
    let c = client(&e);
    let m = c.map(MapRequest::new(format!("{base}/"))).await.unwrap();
    assert!(m.success);
    let urls: Vec<&str> = m.links.iter().map(|l| l.url.as_str()).collect();
    for path in ["/", "/a", "/b", "/c"] {
        assert!(
            urls.contains(&format!("{base}{path}").as_str()),
            "{path} in {urls:?}"
        );
    }
    assert!(
        !urls.iter().any(|u| u.contains("elsewhere")),
        "same domain only"
    );
    let home = m
        .links
        .iter()
        .find(|l| l.url == format!("{base}/"))
        .unwrap();
    assert_eq!(home.title.as_deref(), Some("Home"));
    assert_eq!(home.description.as_deref(), Some("The home page"));
    let limited = c
        .map(MapRequest::new(format!("{base}/")).limit(2))
        .await
        .unwrap();
    assert_eq!(limited.links.len(), 2);
}

#[tokio::test]
async fn crawl_extracts_up_to_limit_pages_and_can_be_terminated() {
    let base = site().await;
    let e = emulator().await;
    let c = client(&e);
    let crawl = c
        .crawl(CrawlRequest::new(format!("{base}/")).limit(3))
        .await
        .unwrap()
        .with_wait(fast());
    let done = crawl.wait().await.unwrap();
    assert_eq!(done.status, CrawlStatus::Succeeded);
    assert_eq!(done.tasks.len(), 3);
    assert!(done.tasks.iter().all(|t| t.status == "completed"));
    let page = crawl.page(&done.tasks[0].task_id).await.unwrap();
    assert!(page.data.markdown.unwrap().contains("Home"));
    assert_eq!(c.crawls().await.unwrap().len(), 1);

    let slow = start(Emulator::builder().rate_limit(None).lifecycle(Lifecycle {
        task: Duration::from_secs(30),
        ..Lifecycle::fast()
    }))
    .await;
    let sc = client(&slow);
    let running = sc
        .crawl(CrawlRequest::new(format!("{base}/")).limit(2))
        .await
        .unwrap();
    // Queued for the first half of a page's time, then running (the vendor's states).
    assert_eq!(running.record().await.unwrap().status, CrawlStatus::Queued);
    let stopped = running.terminate().await.unwrap();
    assert_eq!(stopped.status, CrawlStatus::Canceled);
    assert!(
        stopped.tasks.iter().all(|t| t.status == "failed"),
        "{stopped:?}"
    );
}

#[tokio::test]
async fn extract_batches_run_every_url() {
    let (e, base) = (emulator().await, site().await);
    let c = client(&e);
    let handle = c
        .extract_batch(
            ExtractRequest::settings().format(ExtractFormat::Markdown),
            [
                ExtractRequest::new(format!("{base}/a")),
                ExtractRequest::new(format!("{base}/b")).format(ExtractFormat::Links),
                ExtractRequest::new("https://shop.example/p/7"),
            ],
        )
        .await
        .unwrap()
        .with_wait(fast());
    let mut results: Vec<_> = futures::StreamExt::collect::<Vec<_>>(handle.results())
        .await
        .into_iter()
        .map(Result::unwrap)
        .collect();
    results.sort_by(|a, b| a.url.cmp(&b.url));
    assert_eq!(results.len(), 3);
    assert!(
        results
            .iter()
            .all(|r| r.task_id.as_deref().is_some_and(|t| !t.is_empty()))
    );
    assert!(
        results[0]
            .data
            .markdown
            .as_ref()
            .unwrap()
            .contains("Page A")
    );
    assert!(
        results[1].data.links.is_some(),
        "item formats override shared ones"
    );
    assert!(results[1].data.markdown.is_none());
    assert!(results[2].url.as_deref().unwrap().contains("shop.example"));
}

#[tokio::test]
async fn a_crawl_calls_its_webhook_and_echoes_every_option() {
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<(String, serde_json::Value)>();
    let hook = Router::new().route(
        "/hook",
        axum::routing::post(
            move |headers: axum::http::HeaderMap, body: axum::Json<serde_json::Value>| {
                let tx = tx.clone();
                async move {
                    let secret = headers
                        .get("x-hook-secret")
                        .and_then(|v| v.to_str().ok())
                        .unwrap_or("")
                        .to_owned();
                    let _ = tx.send((secret, body.0));
                    StatusCode::OK
                }
            },
        ),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let hook_url = format!("http://{}/hook", listener.local_addr().unwrap());
    tokio::spawn(async move {
        let _ = axum::serve(listener, hook).await;
    });
    let base = site().await;
    let e = emulator().await;
    let c = client(&e);
    let crawl = c
        .crawl(
            CrawlRequest::new(format!("{base}/"))
                .limit(2)
                .crawl_entire_domain(true)
                .ignore_query_parameters(true)
                .callback(
                    CrawlCallback::new(hook_url)
                        .header("x-hook-secret", "s3cr3t")
                        .metadata(serde_json::json!({"run": 7}))
                        .events([CrawlEvent::Started, CrawlEvent::Page, CrawlEvent::Completed]),
                ),
        )
        .await
        .unwrap()
        .with_wait(fast());
    let done = crawl.wait().await.unwrap();
    assert_eq!(done.status, CrawlStatus::Succeeded);
    let options = &done.rest["crawl_options"];
    assert_eq!(options["crawl_entire_domain"], true);
    assert_eq!(options["ignore_query_parameters"], true);
    assert_eq!(options["allow_subdomains"], false);
    assert_eq!(options["limit"], 2);
    assert_eq!(options["callback"]["events"][1], "page");
    // A finished crawl's completed_at does not move between reads.
    let again = crawl.record().await.unwrap();
    assert_eq!(again.rest["completed_at"], done.rest["completed_at"]);
    let mut events = Vec::new();
    while events.len() < 4 {
        let (secret, body) = tokio::time::timeout(Duration::from_secs(5), rx.recv())
            .await
            .unwrap()
            .unwrap();
        assert_eq!(secret, "s3cr3t");
        assert_eq!(body["crawl_id"], crawl.id());
        assert_eq!(body["metadata"]["run"], 7);
        events.push(body["event"].as_str().unwrap().to_owned());
    }
    assert_eq!(events, ["started", "page", "page", "completed"]);
}
