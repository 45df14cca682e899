#![allow(clippy::unwrap_used)] // test helpers outside #[test] fns
//! SERP, fast SERP, media and domain knowledge through the client, in both versions of the
//! interface, against the emulator over loopback.

use agents_runtime::client::media::{DriverLookup, MediaRequest, MediaStorageType};
use agents_runtime::client::serp::{Device, SearchEngine, SerpParsing, SerpRequest};
use agents_runtime::{ApiVersion, Client, Delivery, Error};
use agents_tests_e2e::{KEY, client_for, emulator};
use futures::StreamExt;

fn clients(e: &agents_emulator::EmulatorHandle) -> [Client; 2] {
    ApiVersion::ALL.map(|v| client_for(e).api_version(v).build().unwrap())
}

#[tokio::test]
async fn serp_pages_parse_into_entities_in_both_versions() {
    let e = emulator().await;
    for c in clients(&e) {
        let page = c
            .serp(
                SerpRequest::new(SearchEngine::GoogleSearch, "rust serde")
                    .num_results(7)
                    .device(Device::Mobile),
            )
            .await
            .unwrap();
        let parsed = page.into_typed::<SerpParsing>().unwrap();
        let p = parsed.record().unwrap();
        assert_eq!(
            p.entities("OrganicResult").len(),
            7,
            "{:?}",
            c.api_version()
        );
        assert_eq!(p.entities("OrganicResult")[0]["position"], 1);
        // Page 2 continues the positions; the same request answers the same page.
        let second = |c: Client| async move {
            c.serp(
                SerpRequest::new(SearchEngine::GoogleSearch, "rust serde")
                    .num_results(7)
                    .page(2),
            )
            .await
            .unwrap()
            .into_typed::<SerpParsing>()
            .unwrap()
        };
        let a = second(c.clone()).await;
        let b = second(c.clone()).await;
        let first = &a.record().unwrap().entities("OrganicResult")[0];
        assert_eq!(first["position"], 8);
        assert_eq!(first, &b.record().unwrap().entities("OrganicResult")[0]);

        let places = c
            .fast_serp(
                SerpRequest::new(SearchEngine::GoogleMapsSearch, "coffee").location("Berlin"),
            )
            .await
            .unwrap()
            .into_typed::<SerpParsing>()
            .unwrap();
        let place = &places.record().unwrap().entities("Place")[0];
        assert!(place["address"].as_str().unwrap().ends_with("Berlin"));

        // An engine the service does not list is refused, naming the ones it does.
        let err = c
            .serp(SerpRequest::new(
                SearchEngine::Other("altavista".into()),
                "x",
            ))
            .await
            .unwrap_err();
        assert!(matches!(err, Error::Unprocessable(_)), "{err}");
        assert!(err.to_string().contains("google_search"), "{err}");
    }
}

#[tokio::test]
async fn serp_tasks_and_batches_report_every_bad_item() {
    let e = emulator().await;
    for c in clients(&e) {
        let task = c
            .serp_async(
                SerpRequest::new(SearchEngine::GoogleNews, "tokio"),
                &Delivery::new(),
            )
            .await
            .unwrap();
        let done = task.wait().await.unwrap();
        let news = done.into_typed::<SerpParsing>().unwrap();
        assert!(!news.record().unwrap().entities("NewsResult").is_empty());
        assert_eq!(c.task(task.id()).await.unwrap().id, task.id());

        let batch = c
            .serp_batch(
                SerpRequest::settings(SearchEngine::BingSearch).country("DE"),
                ["a", "b", "c"].map(SerpRequest::item),
            )
            .await
            .unwrap();
        let results: Vec<_> = batch.results().collect().await;
        assert_eq!(results.len(), 3);
        assert!(results.iter().all(Result::is_ok));

        // Items with a zero page are caught before sending, all of them.
        let err = c
            .serp_batch(
                SerpRequest::settings(SearchEngine::BingSearch),
                [
                    SerpRequest::item("a").page(0),
                    SerpRequest::item("b"),
                    SerpRequest::item("c").num_results(0),
                ],
            )
            .await
            .unwrap_err();
        let Error::InvalidItems(items) = &err else {
            panic!("{err}")
        };
        assert_eq!(items.iter().map(|(i, _)| *i).collect::<Vec<_>>(), [0, 2]);
    }
    // The emulator, too, names every bad item of a batch it is sent.
    let body = serde_json::json!({
        "inputs": [{"query": ""}, {"query": "fine"}, {"page": "2", "query": "x"}],
        "shared_inputs": {"search_engine": "google_search"},
    });
    let answer = reqwest::Client::new()
        .post(format!(
            "{}/v2/serp/batch",
            e.base_url().trim_end_matches('/')
        ))
        .bearer_auth(KEY)
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 400);
    let err: serde_json::Value = answer.json().await.unwrap();
    let fields: Vec<&str> = err["error"]["details"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["field"].as_str().unwrap())
        .collect();
    assert_eq!(fields, ["inputs[0].query", "inputs[2].page"]);
}

#[tokio::test]
async fn media_and_domain_knowledge_in_both_versions() {
    let e = emulator().await;
    for c in clients(&e) {
        let r = c
            .media(
                MediaRequest::new("https://cdn.example/a/photo.jpg")
                    .expect_mime_type("image/*")
                    .storage(MediaStorageType::S3, "s3://bucket/media/", Some("photo")),
            )
            .await
            .unwrap();
        let parsing = r.record().unwrap();
        assert_eq!(parsing["mime_type"], "image/jpeg");
        assert_eq!(parsing["storage"]["object_name"], "photo");
        let wrong = c
            .media(MediaRequest::new("https://cdn.example/v.mp4").expect_mime_type("image/png"))
            .await
            .unwrap();
        assert_eq!(wrong.status.as_str(), "error");
        assert_eq!(wrong.status_code, Some(415));
        let err = c.media(MediaRequest::new("ftp://x/y")).await.unwrap_err();
        assert!(
            matches!(err, Error::InvalidOption { option: "url", .. }),
            "{err}"
        );
        let task = c
            .media_async(
                MediaRequest::new("https://cdn.example/d.pdf"),
                &Delivery::new(),
            )
            .await
            .unwrap();
        assert_eq!(
            task.wait().await.unwrap().record().unwrap()["mime_type"],
            "application/pdf"
        );

        let by_url = c
            .domain_driver(DriverLookup::Url("https://shop.example/p/1".into()))
            .await
            .unwrap();
        let again = c
            .domain_driver(DriverLookup::Url("shop.example".into()))
            .await
            .unwrap();
        assert_eq!(by_url.driver, again.driver, "one domain, one driver");
        assert_eq!(by_url.url.as_deref(), Some("https://shop.example/p/1"));
        let by_agent = c
            .domain_driver(DriverLookup::Agent("retailer_a_pdp".into()))
            .await
            .unwrap();
        assert_eq!(by_agent.agent.as_deref(), Some("retailer_a_pdp"));
        let missing = c
            .domain_driver(DriverLookup::Agent("retailer_a_pdq".into()))
            .await
            .unwrap_err();
        assert!(missing.to_string().contains("retailer_a_pdp"), "{missing}");
    }
}
