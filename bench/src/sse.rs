//! Research event streams with large events: how long the client takes to read one event of
//! 1 to 48 MiB served in 16 KiB chunks by a loopback server (an in-process axum app), so that
//! reading time can be seen to grow with the size, not its square.

use std::time::{Duration, Instant};

use agents_runtime::client::research::ResearchRunRequest;
use agents_runtime::{ApiVersion, Client};
use axum::Router;
use axum::routing::{get, post};
use futures::StreamExt;
use serde_json::json;

/// The sizes measured, in MiB.
pub const SIZES_MIB: [usize; 4] = [1, 4, 16, 48];

/// Each size's reading time: one event of that many MiB then the final status, read through
/// `ResearchRunHandle::events`.
pub async fn measure() -> Result<Vec<(usize, Duration)>, String> {
    let mut out = Vec::new();
    for mib in SIZES_MIB {
        let event = format!(
            "id: 1\nevent: search\ndata: {{\"query\": \"{}\"}}\n\nid: 2\nevent: status\ndata: {{\"status\": \"completed\"}}\n\n",
            "x".repeat(mib << 20)
        );
        let chunks: Vec<bytes::Bytes> = event
            .as_bytes()
            .chunks(16 << 10)
            .map(bytes::Bytes::copy_from_slice)
            .collect();
        let app = Router::new()
            .route(
                "/v2/agents/{agent}/runs",
                post(|| async {
                    axum::Json(
                        json!({"id": "r", "web_search_agent_id": "a", "status": "queued",
                                      "is_active": true, "effort": "low",
                                      "created_at": "2026-11-25T00:00:00Z"}),
                    )
                }),
            )
            .route(
                "/v2/agents/{agent}/runs/{run}/events",
                get(move || {
                    let chunks = chunks.clone();
                    async move {
                        let body = futures::stream::iter(
                            chunks.into_iter().map(Ok::<_, std::convert::Infallible>),
                        );
                        (
                            [(axum::http::header::CONTENT_TYPE, "text/event-stream")],
                            axum::body::Body::from_stream(body),
                        )
                    }
                }),
            );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .map_err(|e| e.to_string())?;
        let addr = listener.local_addr().map_err(|e| e.to_string())?;
        let server = tokio::spawn(async move { axum::serve(listener, app).await });
        let client = Client::builder()
            .base_url(format!("http://{addr}"))
            .api_key("bench")
            .api_version(ApiVersion::V2)
            .rate_limit(None)
            .max_response_bytes(64 << 20)
            .build()
            .map_err(|e| e.to_string())?;
        let run = client
            .start_research("a", ResearchRunRequest::new("q").events(true))
            .await
            .map_err(|e| e.to_string())?;
        let started = Instant::now();
        let events: Vec<_> = run.events().collect().await;
        let took = started.elapsed();
        server.abort();
        let whole = events.len() == 2 && events.iter().all(Result::is_ok);
        if !whole {
            return Err(format!(
                "the {mib} MiB stream did not read whole: {events:?}"
            ));
        }
        out.push((mib, took));
    }
    Ok(out)
}
