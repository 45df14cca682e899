//! Fleets of worker processes sharing one API key, and the `redis-server` they share a rate limit
//! through: used by the fleet tests and the benchmark.

use std::io::{Read as _, Write as _};
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

    /// Scripts run (`EVALSHA` and `EVAL` calls) since the server started or the last
    /// [`RedisServer::reset_stats`], from Redis's own `INFO commandstats`: those that ran, and
    /// those that failed (Redis counts a `NOSCRIPT` answer as a failed call).
    pub fn script_calls(&self) -> ScriptCalls {
        let info = self.command("*2\r\n$4\r\nINFO\r\n$12\r\ncommandstats\r\n");
        let stat = |command: &str, field: &str| -> u64 {
            let Some(line) = info
                .lines()
                .find(|l| l.starts_with(&format!("cmdstat_{command}:")))
            else {
                return 0;
            };
            line.split([':', ','])
                .find_map(|kv| kv.strip_prefix(field)?.strip_prefix('='))
                .and_then(|v| v.parse().ok())
                .unwrap_or(0)
        };
        let (mut calls, mut failed) = (0, 0);
        for command in ["evalsha", "eval"] {
            calls += stat(command, "calls");
            failed += stat(command, "failed_calls") + stat(command, "rejected_calls");
        }
        ScriptCalls {
            ran: calls.saturating_sub(failed),
            failed,
        }
    }

    /// Clears the command statistics.
    pub fn reset_stats(&self) {
        self.command("*2\r\n$6\r\nCONFIG\r\n$9\r\nRESETSTAT\r\n");
    }

    /// Sends one command (already in the protocol's form) and returns the answer as text.
    fn command(&self, resp: &str) -> String {
        let mut conn = TcpStream::connect(("127.0.0.1", self.port)).expect("redis-server answers");
        conn.set_read_timeout(Some(Duration::from_secs(5)))
            .expect("fleet helper");
        conn.write_all(resp.as_bytes()).expect("fleet helper");
        let mut answer = Vec::new();
        let mut buf = [0u8; 8192];
        // A bulk answer (`$LEN\r\n...`) is read to its length; a simple one to its line end.
        loop {
            let n = conn.read(&mut buf).expect("fleet helper");
            answer.extend_from_slice(&buf[..n]);
            let text = String::from_utf8_lossy(&answer);
            let complete = match text.strip_prefix('$') {
                Some(rest) => rest.split_once("\r\n").is_some_and(|(len, body)| {
                    len.parse::<usize>().is_ok_and(|len| body.len() >= len + 2)
                }),
                None => text.ends_with("\r\n"),
            };
            if n == 0 || complete {
                break;
            }
        }
        String::from_utf8_lossy(&answer).into_owned()
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

/// Script calls Redis counted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ScriptCalls {
    /// Calls that ran the script.
    pub ran: u64,
    /// Calls refused or failed (`NOSCRIPT` included).
    pub failed: u64,
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
    /// Latency of every run that succeeded, in milliseconds (from asking the limiter for a
    /// permit to the answer).
    pub latencies_ms: Vec<f64>,
    /// When each successful run ended, in milliseconds since the Unix epoch.
    pub done_at_ms: Vec<u64>,
    /// The same, per worker.
    pub per_process_done_at_ms: Vec<Vec<u64>>,
}

impl Totals {
    /// The `q` quantile of the latencies (0.99 for p99), in milliseconds.
    pub fn latency_ms(&self, q: f64) -> f64 {
        let mut l = self.latencies_ms.clone();
        l.sort_by(f64::total_cmp);
        if l.is_empty() {
            return 0.0;
        }
        let i = ((l.len() as f64 * q).ceil() as usize).clamp(1, l.len()) - 1;
        l[i]
    }

    /// Each worker's share of the runs that ended while every worker was running (from the
    /// last worker's first success to the first worker's last), as a multiple of a fair share:
    /// `(lowest, highest)`; `(1.0, 1.0)` is perfectly fair.
    pub fn shares_while_all_ran(&self) -> (f64, f64) {
        let first = self
            .per_process_done_at_ms
            .iter()
            .filter_map(|d| d.iter().min())
            .max();
        let last = self
            .per_process_done_at_ms
            .iter()
            .filter_map(|d| d.iter().max())
            .min();
        let (Some(&from), Some(&to)) = (first, last) else {
            return (0.0, 0.0);
        };
        let counts: Vec<f64> = self
            .per_process_done_at_ms
            .iter()
            .map(|d| d.iter().filter(|t| (from..=to).contains(*t)).count() as f64)
            .collect();
        let fair = counts.iter().sum::<f64>() / counts.len().max(1) as f64;
        if fair == 0.0 {
            return (0.0, 0.0);
        }
        let lo = counts.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = counts.iter().copied().fold(0.0, f64::max);
        (lo / fair, hi / fair)
    }

    /// Successful runs that ended within `[from, to)` (Unix milliseconds).
    pub fn done_between(&self, from: u64, to: u64) -> usize {
        self.done_at_ms
            .iter()
            .filter(|t| (from..to).contains(*t))
            .count()
    }
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
        let numbers = |k: &str| v[k].as_array().cloned().unwrap_or_default();
        t.latencies_ms
            .extend(numbers("latencies_ms").iter().filter_map(Value::as_f64));
        let done: Vec<u64> = numbers("done_at_ms")
            .iter()
            .filter_map(Value::as_u64)
            .collect();
        t.done_at_ms.extend(&done);
        t.per_process_done_at_ms.push(done);
    }
    t
}
