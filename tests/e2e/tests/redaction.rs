#![allow(clippy::unwrap_used)] // test helpers outside #[test] fns
//! The API key never shows in Debug output, errors or traces. Its own test binary: tracing's
//! per-callsite interest cache is process-wide, so a thread-local subscriber only sees every
//! event when no other test ran first.

use std::io::Write;
use std::sync::{Arc, Mutex};

use agents_emulator::{Emulator, Fault};
use agents_runtime::catalog::LlmAParams;
use agents_tests_e2e::{client_for, start};

#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test]
async fn the_key_is_never_in_debug_errors_or_traces() {
    let secret = "sk-live-0123456789-secret";
    let e = start(Emulator::builder().rate_limit(None).api_key(secret)).await;
    let captured = Captured::default();
    let sink = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_writer(move || sink.clone())
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);
    let c = client_for(&e).api_key(secret).build().unwrap();
    c.run(LlmAParams::new("hi")).await.unwrap();
    e.inject(secret, Fault::RateLimited, Some(1));
    c.agent("llm_a").await.unwrap();
    let bad = client_for(&e)
        .api_key(format!("{secret}-wrong"))
        .build()
        .unwrap();
    let err = bad.agent("llm_a").await.unwrap_err();
    let logs = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
    assert!(
        logs.contains("agents_request"),
        "spans were recorded: {logs}"
    );
    assert!(logs.contains("retrying"));
    for text in [
        format!("{c:?}"),
        format!("{bad:?}"),
        format!("{err}"),
        format!("{err:?}"),
        logs,
    ] {
        assert!(!text.contains(secret), "{text}");
    }
}
