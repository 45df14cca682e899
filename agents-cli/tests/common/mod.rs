//! What the CLI's test files share: an emulator, scratch directories, and running
//! `cargo-agents` as cargo would.

#![allow(clippy::unwrap_used)] // test helpers outside #[test] fns

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use agents_emulator::{Emulator, EmulatorHandle, Lifecycle};
use serde_json::Value;

pub const KEY: &str = "cli-key";

/// An emulator on a loopback port: key [`KEY`], no rate limit, fast tasks.
pub async fn emulator() -> EmulatorHandle {
    Emulator::builder()
        .api_key(KEY)
        .rate_limit(None)
        .lifecycle(Lifecycle::fast())
        .start()
        .await
        .unwrap()
}

/// An empty directory of this process under the system's temporary directory.
pub fn scratch(name: &str) -> Scratch {
    let dir = std::env::temp_dir().join(format!("agents-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    Scratch(dir)
}

/// A test's scratch directory: removed when the test passes, kept when it fails so that what
/// the CLI wrote can be looked at.
pub struct Scratch(PathBuf);

impl std::ops::Deref for Scratch {
    type Target = Path;

    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

/// `cargo agents ARGS` in `cwd` against `e` with `key`, as cargo invokes the subcommand.
pub fn command(e: &EmulatorHandle, cwd: &Path, key: &str, args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_cargo-agents"));
    c.arg("agents")
        .args(args)
        .current_dir(cwd)
        .env("AGENTS_BASE_URL", e.base_url())
        .env("AGENTS_API_KEY", key);
    c
}

/// `cargo agents ARGS` in `cwd` with `--dir` at a copy of the catalog's records there
/// (`catalog/`, made on first use) and no rate limit: a command that writes records (`fetch`)
/// cannot touch the workspace's.
pub fn on_catalog(e: &EmulatorHandle, cwd: &Path, key: &str, args: &[&str]) -> Command {
    let copy = cwd.join("catalog");
    if !copy.exists() {
        let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("../schemas");
        std::fs::create_dir_all(&copy).unwrap();
        for file in std::fs::read_dir(workspace).unwrap() {
            let file = file.unwrap();
            std::fs::copy(file.path(), copy.join(file.file_name())).unwrap();
        }
    }
    let mut c = command(e, cwd, key, args);
    c.arg("--dir").arg(copy).args(["--rate-limit", "0"]);
    c
}

/// Runs `c` to its end off the async runtime.
pub async fn output(mut c: Command) -> Output {
    tokio::task::spawn_blocking(move || c.output().unwrap())
        .await
        .unwrap()
}

/// Runs `c` until it prints its first line on standard error, then sends it SIGINT (as Ctrl-C
/// does), a moment later so that its handler is in place: that line, how it ended, and the rest
/// of its standard error.
pub async fn interrupted(mut c: Command) -> (String, std::process::ExitStatus, String) {
    use std::io::{BufRead, Read};
    let mut child = c
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = std::io::BufReader::new(child.stderr.take().unwrap());
    let (first, stderr) = tokio::task::spawn_blocking(move || {
        let mut line = String::new();
        stderr.read_line(&mut line).unwrap();
        (line, stderr)
    })
    .await
    .unwrap();
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    let sent = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let (status, rest) = tokio::task::spawn_blocking(move || {
        let mut rest = String::new();
        { stderr }.read_to_string(&mut rest).unwrap();
        (child.wait().unwrap(), rest)
    })
    .await
    .unwrap();
    (first, status, rest)
}

/// Standard output as one JSON document.
pub fn json(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}
