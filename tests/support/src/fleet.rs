//! Fleets of worker processes sharing one API key, and the `redis-server` they share a rate limit
//! through: used by the fleet tests and the benchmark.

use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

/// A `redis-server` of a test or benchmark, on a free loopback port, with its files in a temporary directory.
pub struct RedisServer {
    child: Option<Child>,
    port: u16,
    dir: PathBuf,
}

impl RedisServer {
    /// Starts one; errs with why not when `redis-server` is not on the PATH.
    pub fn start() -> Result<RedisServer, String> {
        let found = Command::new("redis-server")
            .arg("--version")
            .stdout(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !found {
            return Err("redis-server is not on the PATH (Debian package `redis-server`)".into());
        }
        let port = TcpListener::bind("127.0.0.1:0")
            .expect("fleet helper")
            .local_addr()
            .expect("fleet helper")
            .port();
        let dir = std::env::temp_dir().join(format!("agents-redis-{}-{port}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("fleet helper");
        let mut server = RedisServer {
            child: None,
            port,
            dir,
        };
        server.spawn();
        Ok(server)
    }

    /// Starts (or starts again, after [`RedisServer::kill`]) the server on its port.
    pub fn spawn(&mut self) {
        let child = Command::new("redis-server")
            .args(["--port", &self.port.to_string(), "--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no", "--loglevel", "warning"])
            .arg("--dir")
            .arg(&self.dir)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("fleet helper");
        self.child = Some(child);
        let addr = SocketAddr::from(([127, 0, 0, 1], self.port));
        let deadline = Instant::now() + Duration::from_secs(10);
        while TcpStream::connect_timeout(&addr, Duration::from_millis(100)).is_err() {
            assert!(Instant::now() < deadline, "redis-server did not start");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// `redis://127.0.0.1:PORT/`.
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }

    /// Stops the server (its port stays reserved for [`RedisServer::spawn`]).
    pub fn kill(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        self.kill();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// What the workers reported, added up.
#[derive(Debug, Default)]
pub struct Totals {
    /// Runs that succeeded.
    pub ok: u64,
    /// Runs that ended in a 429.
    pub limited: u64,
    /// Runs that failed otherwise.
    pub other: u64,
    /// Requests sent, retries included.
    pub attempts: u64,
    /// Longest worker run, in seconds.
    pub seconds: f64,
}

/// Starts one `fleet-worker` (`exe`) against `base_url` with `key`, sharing the limit through
/// `redis` when given; `mode` is `("FLEET_SECONDS", "3")` or `("FLEET_COUNT", "100")`.
pub fn spawn_worker(
    exe: &Path,
    base_url: &str,
    key: &str,
    redis: Option<&str>,
    mode: (&str, &str),
) -> Child {
    let mut cmd = Command::new(exe);
    cmd.env("FLEET_BASE_URL", base_url)
        .env("FLEET_KEY", key)
        .env(mode.0, mode.1)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    match redis {
        Some(url) => cmd.env("FLEET_REDIS", url),
        None => cmd.env_remove("FLEET_REDIS"),
    };
    cmd.spawn().expect("fleet helper")
}

/// Waits for the workers and adds up what they report.
pub fn collect(workers: Vec<Child>) -> Totals {
    let mut t = Totals::default();
    for w in workers {
        let out = w.wait_with_output().expect("fleet helper");
        assert!(out.status.success(), "a worker failed");
        let v: Value = serde_json::from_slice(&out.stdout).expect("fleet helper");
        t.ok += v["ok"].as_u64().expect("fleet helper");
        t.limited += v["limited"].as_u64().expect("fleet helper");
        t.other += v["other"].as_u64().expect("fleet helper");
        t.attempts += v["attempts"].as_u64().expect("fleet helper");
        t.seconds = t.seconds.max(v["seconds"].as_f64().unwrap_or(0.0));
    }
    t
}
