//! How the workspace's targets are laid out, where a mistake would go unnoticed.

use std::path::Path;

use serde_json::Value;

/// Whether `text` declares a test `cargo test` would run.
fn declares_a_test(text: &str) -> bool {
    ["#[test]", "#[tokio::test", "#[cfg(test)]"]
        .iter()
        .any(|mark| text.contains(mark))
}

/// Every `.rs` file under `dir` that declares a test.
fn files_with_tests(dir: &Path, found: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for path in entries.filter_map(Result::ok).map(|e| e.path()) {
        if path.is_dir() {
            files_with_tests(&path, found);
        } else if path.extension().is_some_and(|e| e == "rs")
            && std::fs::read_to_string(&path).is_ok_and(|text| declares_a_test(&text))
        {
            found.push(path.display().to_string());
        }
    }
}

/// A library or program marked `test = false` (so that `cargo test` does not build it a second
/// time as an empty harness) holds no unit test: one written there would never run.
#[test]
fn a_target_cargo_test_skips_declares_no_test() {
    let output = std::process::Command::new(env!("CARGO"))
        .args([
            "metadata",
            "--no-deps",
            "--format-version",
            "1",
            "--offline",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo metadata runs");
    assert!(
        output.status.success(),
        "cargo metadata: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let metadata: Value = serde_json::from_slice(&output.stdout).expect("cargo metadata's JSON");
    let mut skipped = 0;
    let mut found = Vec::new();
    for package in metadata["packages"].as_array().expect("packages") {
        for target in package["targets"].as_array().expect("targets") {
            let kinds = target["kind"].as_array().expect("kind");
            let unit = kinds.iter().any(|k| k == "lib" || k == "bin");
            if !unit || target["test"] != Value::Bool(false) {
                continue;
            }
            skipped += 1;
            let source = Path::new(target["src_path"].as_str().expect("src_path"));
            files_with_tests(
                source.parent().expect("a source in a directory"),
                &mut found,
            );
        }
    }
    // The test crates, the benchmark runner and its programs are marked.
    assert!(
        skipped >= 8,
        "only {skipped} targets are marked test = false"
    );
    found.sort();
    found.dedup();
    assert!(
        found.is_empty(),
        "these files declare tests in a target marked `test = false`, which `cargo test` does not \
         build as a test harness: move the tests under tests/ or drop the mark: {found:#?}"
    );
}
