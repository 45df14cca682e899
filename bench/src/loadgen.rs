//! A lean HTTP/1.1 load generator for measuring the emulator: a fixed number of keep-alive
//! connections on hyper's connection API (no pool, no URL parsing per request), each sending its
//! next request as soon as the previous answer is read, like `wrk`. The client benchmarks use
//! reqwest; this one exists so that the emulator's rate is not capped by the load generator's own
//! cost on a machine where both share two cores.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::Request;
use hyper::header::{AUTHORIZATION, CONTENT_TYPE, HOST};
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;

/// What a load run achieved.
#[derive(Debug, Clone, Copy)]
pub struct Outcome {
    /// Requests answered 200 with a body read to its end.
    pub ok: usize,
    /// Requests that failed (connection error or another status).
    pub failed: usize,
    /// Wall time from the first request to the last answer.
    pub elapsed: Duration,
}

impl Outcome {
    /// Successful requests per second.
    pub fn rate(&self) -> f64 {
        self.ok as f64 / self.elapsed.as_secs_f64()
    }
}

/// Sends `total` POSTs of `bodies` (round robin) to `path` at `addr` over `connections`
/// keep-alive connections, bearer `key`. Must be called inside a tokio runtime.
pub async fn post_json(
    addr: SocketAddr,
    path: &str,
    key: &str,
    bodies: &[Bytes],
    total: usize,
    connections: usize,
) -> Outcome {
    let next = Arc::new(AtomicUsize::new(0));
    let host = addr.to_string();
    let auth = format!("Bearer {key}");
    let bodies: Arc<[Bytes]> = bodies.into();
    let started = Instant::now();
    let mut tasks = tokio::task::JoinSet::new();
    for _ in 0..connections {
        let (next, host, auth, bodies, path) = (
            next.clone(),
            host.clone(),
            auth.clone(),
            bodies.clone(),
            path.to_owned(),
        );
        tasks.spawn(async move {
            let (mut ok, mut failed) = (0usize, 0usize);
            let Ok(stream) = TcpStream::connect(addr).await else {
                return (ok, failed + 1);
            };
            let _ = stream.set_nodelay(true);
            let Ok((mut sender, conn)) =
                hyper::client::conn::http1::handshake(TokioIo::new(stream)).await
            else {
                return (ok, failed + 1);
            };
            tokio::spawn(conn);
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= total {
                    break;
                }
                let body = bodies[i % bodies.len()].clone();
                let req = Request::post(path.as_str())
                    .header(HOST, host.as_str())
                    .header(AUTHORIZATION, auth.as_str())
                    .header(CONTENT_TYPE, "application/json")
                    .body(Full::new(body));
                let Ok(req) = req else {
                    failed += 1;
                    continue;
                };
                if sender.ready().await.is_err() {
                    // The connection is gone; the other connections take the rest.
                    failed += 1;
                    break;
                }
                match sender.send_request(req).await {
                    Ok(resp) => {
                        let good = resp.status() == hyper::StatusCode::OK;
                        match resp.into_body().collect().await {
                            Ok(_) if good => ok += 1,
                            _ => failed += 1,
                        }
                    }
                    Err(_) => failed += 1,
                }
            }
            (ok, failed)
        });
    }
    let (mut ok, mut failed) = (0, 0);
    while let Some(r) = tasks.join_next().await {
        match r {
            Ok((o, f)) => {
                ok += o;
                failed += f;
            }
            Err(_) => failed += 1,
        }
    }
    Outcome {
        ok,
        failed,
        elapsed: started.elapsed(),
    }
}
