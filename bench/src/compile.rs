//! Compile cost of bindings through each mode: a scratch crate using all catalog agents, built
//! with the workspace's dependencies already compiled (so the figures are the bindings' own cost).
//!
//! * clean: `cargo clean -p <crate>` then `cargo build` (for build.rs mode this includes running
//!   the build script);
//! * incremental: touch the crate's lib.rs and rebuild;
//! * macro, ten invocations: touch a file with ten `agent!` calls and rebuild.
//!
//! Measured twice: with cargo's default dev profile (what a user gets), and with the
//! `[profile.dev.build-override] opt-level = 3` README.md recommends (code generation optimized).
//! The modes run in interleaved rounds; a figure is the median over rounds, a ratio the median of
//! the per-round ratios.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use agents_bench::measure::{Row, median_of, median_ratio, row};
use agents_codegen::{Builder, load_dir};

fn cargo() -> Command {
    Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
}

fn write(path: &Path, text: &str) {
    if let Some(parent) = path.parent() {
        let _ = std::fs::create_dir_all(parent);
    }
    if let Err(e) = std::fs::write(path, text) {
        panic!("{}: {e}", path.display());
    }
}

/// Builds `package` in the scratch workspace; returns the wall time.
fn build(dir: &Path, package: &str) -> Duration {
    let t = Instant::now();
    let status = cargo()
        .current_dir(dir)
        .args(["build", "--quiet", "--offline", "--package", package])
        .status();
    match status {
        Ok(s) if s.success() => t.elapsed(),
        other => panic!("building {package} failed: {other:?}"),
    }
}

fn touch(path: &Path) {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    write(path, &format!("{text}\n"));
}

/// Interleaved rounds of one configuration.
const ROUNDS: usize = 5;

/// What one mode measured: a time per round for each figure.
pub struct Measured {
    /// "checked-in", "build.rs", "macro", or the ten-call case.
    pub mode: String,
    /// Clean builds, one per round.
    pub clean: Vec<Duration>,
    /// Incremental builds after touching lib.rs (or the ten-call file), one per round.
    pub incremental: Vec<Duration>,
}

/// Measures every mode in a scratch workspace under `target/`; with `build_override`, code
/// generation (proc macros, build scripts and their dependencies) is compiled at opt-level 3.
/// The first entry is the checked-in mode, the baseline.
pub fn measure(root: &Path, build_override: bool) -> Vec<Measured> {
    let dir = root.join(if build_override {
        "target/bench-compile-opt"
    } else {
        "target/bench-compile"
    });
    let names: Vec<String> = match load_dir(&root.join("schemas")) {
        Ok(l) => l.into_iter().map(|l| l.record.name).collect(),
        Err(e) => panic!("{e}"),
    };
    let dep = |name: &str| {
        // `macros` for the macro mode; the other modes compile it too, so the three differ only
        // in how their bindings are made.
        let features = if name == "agents-runtime" {
            ", features = [\"macros\"]"
        } else {
            ""
        };
        format!(
            "{name} = {{ path = {:?}{features} }}",
            root.join(name).display().to_string()
        )
    };
    let manifest = |name: &str, build_dep: bool| {
        let mut m = format!(
            "[package]\nname = \"{name}\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n[dependencies]\n{}\n",
            dep("agents-runtime")
        );
        if build_dep {
            m.push_str(&format!(
                "\n[build-dependencies]\n{}\n",
                dep("agents-codegen")
            ));
        }
        m
    };
    let mut workspace = String::from(
        "[workspace]\nresolver = \"3\"\nmembers = [\"macro-mode\", \"buildrs-mode\", \"checked-mode\"]\n",
    );
    if build_override {
        // The profile setting README.md recommends for the macro and build.rs modes (as sqlx
        // does for its macros): code generation runs optimized even in debug builds.
        workspace.push_str("\n[profile.dev.build-override]\nopt-level = 3\n");
    }
    write(&dir.join("Cargo.toml"), &workspace);
    // Macro mode: every agent through agent!, ten of them in one file.
    let mut lib = String::from("#![allow(missing_docs)]\nmod ten;\n");
    let mut ten = String::new();
    for (i, n) in names.iter().enumerate() {
        let line = format!("pub mod m_{n} {{ agents_runtime::agent!({n:?}); }}\n");
        if i < 10 {
            ten.push_str(&line);
        } else {
            lib.push_str(&line);
        }
    }
    write(
        &dir.join("macro-mode/Cargo.toml"),
        &manifest("macro-mode", false),
    );
    write(&dir.join("macro-mode/src/lib.rs"), &lib);
    write(&dir.join("macro-mode/src/ten.rs"), &ten);
    // build.rs mode.
    write(
        &dir.join("buildrs-mode/Cargo.toml"),
        &manifest("buildrs-mode", true),
    );
    write(
        &dir.join("buildrs-mode/build.rs"),
        &format!(
            "fn main() {{\n    let out = std::env::var_os(\"OUT_DIR\").unwrap_or_default();\n    if let Err(e) = agents_codegen::Builder::new().schema_dir({:?}).generate_to(out) {{\n        eprintln!(\"{{e}}\");\n        std::process::exit(1);\n    }}\n}}\n",
            root.join("schemas").display().to_string()
        ),
    );
    write(
        &dir.join("buildrs-mode/src/lib.rs"),
        "#![allow(missing_docs)]\ninclude!(concat!(env!(\"OUT_DIR\"), \"/agents.rs\"));\n",
    );
    // Checked-in mode: the generated source committed in the crate.
    let source = match Builder::new()
        .schema_dir(root.join("schemas"))
        .cargo_directives(false)
        .generate()
    {
        Ok(s) => s,
        Err(e) => panic!("{e}"),
    };
    write(
        &dir.join("checked-mode/Cargo.toml"),
        &manifest("checked-mode", false),
    );
    let mut checked = String::from("#![allow(missing_docs)]\n");
    let _ = write!(checked, "{source}");
    write(&dir.join("checked-mode/src/lib.rs"), &checked);

    // Warm the dependencies once (not measured).
    for p in ["macro-mode", "buildrs-mode", "checked-mode"] {
        build(&dir, p);
    }
    let modes = [
        ("checked-mode", "checked-in"),
        ("buildrs-mode", "build.rs"),
        ("macro-mode", "macro"),
    ];
    let mut rows: Vec<Measured> = modes
        .iter()
        .map(|(_, label)| (*label).to_owned())
        .chain(["macro, touch a file with ten agent! calls".to_owned()])
        .map(|mode| Measured {
            mode,
            clean: Vec::new(),
            incremental: Vec::new(),
        })
        .collect();
    for round in 0..ROUNDS {
        // Rotate the order so that no mode always runs first after the others.
        for k in 0..modes.len() {
            let i = (k + round) % modes.len();
            let p = modes[i].0;
            let _ = cargo()
                .current_dir(&dir)
                .args(["clean", "--quiet", "--offline", "--package", p])
                .status();
            rows[i].clean.push(build(&dir, p));
            touch(&dir.join(format!("{p}/src/lib.rs")));
            rows[i].incremental.push(build(&dir, p));
        }
        touch(&dir.join("macro-mode/src/ten.rs"));
        let ten = build(&dir, "macro-mode");
        rows[modes.len()].clean.push(ten);
        rows[modes.len()].incremental.push(ten);
    }
    rows
}

/// The workspace root (this package's parent).
pub fn workspace_root() -> PathBuf {
    let here = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    here.parent().map_or(here.clone(), Path::to_path_buf)
}

/// Rows for one compile configuration: each mode's medians and its ratios to the checked-in mode
/// (medians of per-round ratios).
pub fn rows(rows: &mut Vec<Row>, measured: &[Measured], profile: &str) {
    let Some(checked) = measured.first() else {
        return;
    };
    let figure = |runs: &[Duration], base: &[Duration]| {
        format!(
            "{:.2} s ({:.2}×)",
            median_of(runs).as_secs_f64(),
            median_ratio(runs, base)
        )
    };
    for m in measured {
        let (name, result) = if m.mode.starts_with("macro, touch") {
            (
                m.mode.clone(),
                format!("rebuild {}", figure(&m.incremental, &checked.incremental)),
            )
        } else {
            (
                format!("{}: all catalog agents", m.mode),
                format!(
                    "clean {}, incremental {}",
                    figure(&m.clean, &checked.clean),
                    figure(&m.incremental, &checked.incremental)
                ),
            )
        };
        rows.push(row(
            "compile",
            name,
            result,
            format!(
                "{profile}; ratios to checked-in, medians of {} interleaved rounds; dependencies prebuilt; target: macro ≤ 1.2×",
                m.clean.len()
            ),
        ));
    }
}
