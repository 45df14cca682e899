//! Helpers for the end-to-end tests: an emulator and a client pointed at it.

use agents_emulator::{Emulator, EmulatorBuilder, EmulatorHandle, Lifecycle};
use agents_runtime::{Client, ClientBuilder};

/// The key every test account uses.
pub const KEY: &str = "e2e-key";

/// Starts an emulator from `builder` with the test key, and the fast lifecycle unless the builder
/// chose one.
pub async fn start(builder: EmulatorBuilder) -> EmulatorHandle {
    let builder = if builder.config().lifecycle == Lifecycle::default() {
        builder.lifecycle(Lifecycle::fast())
    } else {
        builder
    };
    match builder.api_key(KEY).start().await {
        Ok(h) => h,
        Err(e) => panic!("emulator did not start: {e}"),
    }
}

/// An emulator without a rate limit.
pub async fn emulator() -> EmulatorHandle {
    start(Emulator::builder().rate_limit(None)).await
}

/// A client builder for `emulator`, without a client-side rate limit.
pub fn client_for(emulator: &EmulatorHandle) -> ClientBuilder {
    Client::builder()
        .base_url(emulator.base_url())
        .api_key(KEY)
        .rate_limit(None)
}

/// A built client for `emulator`.
pub fn client(emulator: &EmulatorHandle) -> Client {
    match client_for(emulator).build() {
        Ok(c) => c,
        Err(e) => panic!("client did not build: {e}"),
    }
}

/// The answer to `request`, sent with the test key, as a tree whose objects keep the order the
/// emulator wrote them in (a `serde_json::Value` would sort them).
pub async fn read_in_order(request: reqwest::RequestBuilder) -> agents_schema::Json {
    let text = match request.bearer_auth(KEY).send().await {
        Ok(response) => response.text().await,
        Err(e) => panic!("the request failed: {e}"),
    };
    match text.map(|text| (serde_json::from_str(&text), text)) {
        Ok((Ok(tree), _)) => tree,
        Ok((Err(e), text)) => panic!("the answer is not JSON ({e}): {text}"),
        Err(e) => panic!("the answer did not arrive: {e}"),
    }
}

/// Serves `app` (a server that misbehaves on purpose) on a loopback port; returns its base URL.
pub async fn serve(app: axum::Router) -> String {
    let listener = match tokio::net::TcpListener::bind("127.0.0.1:0").await {
        Ok(l) => l,
        Err(e) => panic!("cannot bind a loopback port: {e}"),
    };
    let addr = match listener.local_addr() {
        Ok(a) => a,
        Err(e) => panic!("no local address: {e}"),
    };
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    format!("http://{addr}")
}

/// A client of a server at `base` (no client-side rate limit).
pub fn client_of(base: &str) -> ClientBuilder {
    Client::builder()
        .base_url(base)
        .api_key(KEY)
        .rate_limit(None)
}
