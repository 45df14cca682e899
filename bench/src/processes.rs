//! The benchmark's child processes: the binaries `cargo xtask bench` builds beside the runner
//! (the emulator, the allocator and Parquet runners, the fleet workers), started and read, and
//! this process's resident memory.

use agents_bench::measure::Row;

/// A binary that `cargo xtask bench` builds beside this one.
pub fn sibling_exe(name: &str) -> std::path::PathBuf {
    let exe = std::env::current_exe().ok().and_then(|p| {
        Some(
            p.parent()?
                .join(format!("{name}{}", std::env::consts::EXE_SUFFIX)),
        )
    });
    match exe.filter(|p| p.is_file()) {
        Some(exe) => exe,
        None => panic!(
            "the {name} binary is not beside the benchmark runner: run `cargo xtask bench` (or `cargo build --release -p agents-emulator -p agents-bench --bins` first)"
        ),
    }
}

/// The allocation-heavy measurements of `group` (`codegen`: the synthetic agents; `decode`) in
/// child processes with fresh heaps: this runner itself (`--child`, glibc malloc), then
/// `agents-bench-mimalloc`. Glibc malloc is what bends the per-field codegen cost and sets the
/// decoding ratio to `Value` at 26 KB, and its speed depends on the heap's history
/// (BENCHMARKS.md).
pub fn in_children(rows: &mut Vec<Row>, group: &str) {
    let this = match std::env::current_exe() {
        Ok(p) => p,
        Err(e) => panic!("the benchmark runner's own path: {e}"),
    };
    for (exe, args) in [
        (this, &["--child", "--only", group][..]),
        (sibling_exe("agents-bench-mimalloc"), &["--only", group][..]),
    ] {
        let out = match std::process::Command::new(&exe)
            .args(args)
            .stderr(std::process::Stdio::inherit())
            .output()
        {
            Ok(out) if out.status.success() => out,
            Ok(out) => panic!("{}: {}", exe.display(), out.status),
            Err(e) => panic!("{}: {e}", exe.display()),
        };
        for line in String::from_utf8_lossy(&out.stdout).lines() {
            match Row::from_line(line) {
                Some(r) => rows.push(r),
                None => panic!("{}: not a table row: {line:?}", exe.display()),
            }
        }
    }
}

/// The `agents-emulator` binary in a child process (rate limit lifted, fast lifecycle), so that
/// its CPU, memory and allocator are its own, as when users run it; returns the child and its
/// base URL. `cargo xtask bench` builds the binary beside this one.
pub fn spawn_emulator() -> (std::process::Child, String) {
    spawn_emulator_with(&["--rate-limit", "0"])
}

/// [`spawn_emulator`] with other settings (`--rate-limit 83`).
pub fn spawn_emulator_with(settings: &[&str]) -> (std::process::Child, String) {
    let exe = sibling_exe("agents-emulator");
    let mut child = match std::process::Command::new(&exe)
        .args(["--port", "0", "--fast", "--api-key", "bench"])
        .args(settings)
        .env("RUST_LOG", "warn")
        .stdout(std::process::Stdio::piped())
        .spawn()
    {
        Ok(c) => c,
        Err(e) => panic!("{}: {e}", exe.display()),
    };
    let mut line = String::new();
    if let Some(out) = child.stdout.take() {
        let _ = std::io::BufRead::read_line(&mut std::io::BufReader::new(out), &mut line);
    }
    (child, line.trim().to_owned())
}

/// Resident set size of this process, from /proc (Linux); 0 elsewhere.
pub fn rss_bytes() -> u64 {
    std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| s.split_whitespace().nth(1)?.parse::<u64>().ok())
        .map_or(0, |pages| pages * 4096)
}
