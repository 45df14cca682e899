#![allow(clippy::unwrap_used)] // test helpers outside #[test] fns
//! The build-time live fetch (agents-codegen feature `live`, a small blocking client) against the
//! emulator: what `agent!` and build scripts do with AGENTS_OFFLINE=false.

use agents_codegen::locate::{LocateError, fetch_record};
use agents_schema::AgentRecord;
use agents_tests_e2e::{KEY, emulator};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fetches_the_record_the_api_serves() {
    let e = emulator().await;
    let base = e.base_url().to_owned();
    let (body, wrong) = tokio::task::spawn_blocking(move || {
        (
            fetch_record(&base, KEY, "retailer_a_pdp"),
            fetch_record(&format!("{base}/v1"), "not-the-key", "retailer_a_pdp"),
        )
    })
    .await
    .unwrap();
    let record = AgentRecord::from_json(&body.unwrap()).unwrap();
    assert_eq!(record.output_schema.unwrap().len(), 112);
    match wrong {
        Err(LocateError::Fetch { message, url, .. }) => {
            assert!(message.contains("HTTP 401"), "{message}");
            assert!(url.ends_with("/v1/agents/retailer_a_pdp"), "{url}");
            assert!(!message.contains("not-the-key"));
        }
        other => panic!("{other:?}"),
    }
}
