//! The five tasks run as a user runs them, against the emulator (twice in a row: a program that
//! publishes must run again), and each is no longer than the same task with the vendor's Python
//! client (`python/`, which CI runs against the emulator too).

use std::path::Path;
use std::process::Command;

use agents_emulator::{Emulator, EmulatorHandle, Lifecycle};

const KEY: &str = "tasks-key";

/// The tasks: the binary's name, which is also the stem of its Python twin.
const TASKS: [&str; 5] = [
    "task1_run",
    "task2_batch",
    "task3_template",
    "task4_research",
    "task5_job",
];

fn exe(task: &str) -> &'static str {
    match task {
        "task1_run" => env!("CARGO_BIN_EXE_task1_run"),
        "task2_batch" => env!("CARGO_BIN_EXE_task2_batch"),
        "task3_template" => env!("CARGO_BIN_EXE_task3_template"),
        "task4_research" => env!("CARGO_BIN_EXE_task4_research"),
        "task5_job" => env!("CARGO_BIN_EXE_task5_job"),
        other => panic!("no task {other}"),
    }
}

async fn run(emulator: &EmulatorHandle, task: &'static str) -> String {
    let base = emulator.base_url().to_owned();
    let out = tokio::task::spawn_blocking(move || {
        Command::new(exe(task))
            .env("AGENTS_API_KEY", KEY)
            .env("AGENTS_BASE_URL", base)
            .env_remove("AGENTS_API_VERSION")
            .env_remove("AGENTS_REDIS_URL")
            .output()
    })
    .await
    .unwrap_or_else(|e| panic!("{task}: {e}"))
    .unwrap_or_else(|e| panic!("{task} did not start: {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{task} failed ({}):\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

#[tokio::test(flavor = "multi_thread")]
async fn each_task_runs_twice_against_the_emulator() {
    let emulator = Emulator::builder()
        .api_key(KEY)
        .rate_limit(None)
        .lifecycle(Lifecycle::fast())
        .start()
        .await
        .unwrap_or_else(|e| panic!("emulator: {e}"));
    for task in TASKS {
        let first = run(&emulator, task).await;
        let second = run(&emulator, task).await;
        match task {
            "task1_run" => assert!(first.contains("Some("), "{first}"),
            "task2_batch" => {
                assert!(first.contains("1000/1000 done"), "{first}");
                assert_eq!(first.lines().filter(|l| l.starts_with('B')).count(), 1000);
            }
            "task3_template" => {
                assert!(first.starts_with("review: created, version 1\n"), "{first}");
                assert!(
                    second.starts_with("review: unchanged, version 1\n"),
                    "{second}"
                );
            }
            "task4_research" => {
                assert!(first.contains("status: completed"), "{first}");
                assert!(
                    first.contains(" says "),
                    "no citation of offers[0].price:\n{first}"
                );
            }
            "task5_job" => assert!(first.contains("Some("), "{first}"),
            _ => {}
        }
        assert!(!second.is_empty(), "{task}: the second run printed nothing");
    }
    emulator.shutdown().await;
}

/// Lines of a Rust task after rustfmt: neither blank, nor comments, nor `use` declarations
/// (which may span lines).
fn rust_lines(text: &str) -> usize {
    let mut in_use = false;
    let mut n = 0;
    for line in text.lines().map(str::trim) {
        if in_use {
            in_use = !line.ends_with(';');
            continue;
        }
        if line.starts_with("use ") {
            in_use = !line.ends_with(';');
            continue;
        }
        if !line.is_empty() && !line.starts_with("//") {
            n += 1;
        }
    }
    n
}

/// Lines of a Rust program's `main` frame, which a Python script does not have: the
/// `#[tokio::main]` attribute, the signature, the final `Ok(())` and the closing brace.
fn frame_lines(text: &str) -> usize {
    text.lines()
        .filter(|l| {
            matches!(*l, "#[tokio::main]" | "    Ok(())" | "}") || l.starts_with("async fn main(")
        })
        .count()
}

/// Lines of a Python task after black: neither blank, nor comments, nor the module docstring,
/// nor imports.
fn python_lines(text: &str) -> usize {
    let mut lines = text.lines().map(str::trim).peekable();
    if lines.peek().is_some_and(|l| l.starts_with("\"\"\"")) {
        let first = lines.next().unwrap_or_default();
        if !(first.len() > 3 && first.ends_with("\"\"\"")) {
            for line in lines.by_ref() {
                if line.ends_with("\"\"\"") {
                    break;
                }
            }
        }
    }
    lines
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .filter(|l| !l.starts_with("import ") && !l.starts_with("from "))
        .count()
}

/// The task's own lines count: a Rust program's four-line `main` frame is a fixed cost no
/// library removes (examples/README.md gives both counts).
#[test]
fn no_task_is_longer_in_rust_than_with_the_vendors_python_client() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut longer = Vec::new();
    for task in TASKS {
        let read = |p: &Path| {
            std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
        };
        let rust = read(&root.join(format!("src/bin/{task}.rs")));
        let (lines, frame) = (rust_lines(&rust), frame_lines(&rust));
        let python = python_lines(&read(&root.join(format!("python/{task}.py"))));
        println!("{task}: Rust {lines} lines ({frame} of them the main frame), Python {python}");
        assert_eq!(frame, 4, "{task}: not one main frame");
        if lines - frame > python {
            longer.push(format!(
                "{task}: {} lines in Rust besides the main frame, {python} in Python",
                lines - frame
            ));
        }
    }
    assert!(longer.is_empty(), "{}", longer.join("\n"));
}

#[test]
fn the_counts_skip_only_imports_comments_and_blank_lines() {
    let rust = "//! Doc.\n\nuse a::{\n    b,\n};\nuse c;\n\nfn main() {\n    // why\n    x();\n}\n";
    assert_eq!(rust_lines(rust), 3);
    let frame = "#[tokio::main]\nasync fn main() -> Result<(), E> {\n    x()?;\n    Ok(())\n}\n";
    assert_eq!((rust_lines(frame), frame_lines(frame)), (5, 4));
    let python = "\"\"\"Doc\nmore.\"\"\"\n\nimport a\nfrom b import c\n\n# why\nx = c(\n    1\n)\n";
    assert_eq!(python_lines(python), 3);
    assert_eq!(python_lines("\"\"\"One line.\"\"\"\nx = 1\n"), 1);
}
