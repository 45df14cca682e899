//! What a user pays to compile: a 10-line program running `retailer_a_pdp` through
//! `agents-runtime` (default features: the catalog and the client, no generator), against the
//! same program written by hand with reqwest + serde. Each is its own crate with its own
//! workspace and target directory under `target/bench-user-build/`, built in cargo's default dev
//! profile:
//!
//! * clean: the target directory removed, then `cargo build --offline` (every dependency
//!   compiled, as on a new machine with the crates downloaded);
//! * incremental: `src/main.rs` touched, then `cargo build --offline`.
//!
//! The two programs alternate within each round, in rotating order; a ratio is the median of the
//! per-round ratios. A clean build takes about a minute, so there are few rounds of it; a rebuild
//! takes under a second and moves with the VM by more than the target's margin, so rebuilds get
//! many rounds of their own once both programs are built.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use agents_bench::measure::{Row, interleaved, median_of, median_ratio, row};

/// One program's builds, one figure per round.
pub struct Builds {
    /// Clean builds.
    pub clean: Vec<Duration>,
    /// Incremental builds after touching `src/main.rs`.
    pub incremental: Vec<Duration>,
}

/// Rounds of clean builds.
const ROUNDS: usize = 3;

/// Rounds of incremental builds, after the clean ones.
const INCREMENTAL_ROUNDS: usize = 15;

const OURS: &str = r#"use agents_runtime::catalog::RetailerAPdpParams;
use agents_runtime::prelude::*;

#[tokio::main]
async fn main() -> Result<(), Error> {
    let client = Client::from_env()?;
    let run = client.run(RetailerAPdpParams::new("B08N5WRWNW")).await?;
    let product = run.into_record().unwrap_or_default();
    println!("{:?} {:?} {:?}", product.product_title, product.brand, product.web_price);
    Ok(())
}
"#;

const HANDWRITTEN: &str = r#"use serde::Deserialize;

#[derive(Debug, Deserialize)]
struct Product {
    product_title: Option<String>,
    brand: Option<String>,
    web_price: Option<f64>,
}

#[derive(Debug, Deserialize)]
struct Data {
    parsing: Product,
}

#[derive(Debug, Deserialize)]
struct RunResult {
    data: Data,
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let key = std::env::var("AGENTS_API_KEY")?;
    let base = std::env::var("AGENTS_BASE_URL")?;
    let body = serde_json::json!({"agent": "retailer_a_pdp", "params": {"asin": "B08N5WRWNW"}});
    let run: RunResult = reqwest::Client::new()
        .post(format!("{base}/v1/agents/run"))
        .bearer_auth(key)
        .json(&body)
        .send()
        .await?
        .error_for_status()?
        .json()
        .await?;
    let product = run.data.parsing;
    println!("{:?} {:?} {:?}", product.product_title, product.brand, product.web_price);
    Ok(())
}
"#;

/// A user gets the SDK's crates from a registry, and cargo builds registry crates without
/// incremental state; path dependencies, as here, it would build with it (slower from clean).
/// These overrides build them as a registry would, and leave the program itself incremental.
const REGISTRY_LIKE: &str = "[profile.dev.package.agents-runtime]\nincremental = false\n\n\
[profile.dev.package.agents-catalog]\nincremental = false\n\n\
[profile.dev.package.agents-client]\nincremental = false\n\n\
[profile.dev.package.agents-types]\nincremental = false\n\n\
[profile.dev.package.agents-check]\nincremental = false\n\n\
[profile.dev.package.agents-wire]\nincremental = false\n";

fn write(path: &Path, text: &str) {
    if let Some(parent) = path.parent() {
        let _ = std::fs::create_dir_all(parent);
    }
    if let Err(e) = std::fs::write(path, text) {
        panic!("{}: {e}", path.display());
    }
}

fn cargo() -> Command {
    Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
}

fn build(dir: &Path) -> Duration {
    let t = Instant::now();
    let status = cargo()
        .current_dir(dir)
        .args(["build", "--quiet", "--offline"])
        .env_remove("CARGO_TARGET_DIR")
        // What a user's shell has: cargo's default (incremental for the program), whatever the
        // shell that started the benchmark set.
        .env_remove("CARGO_INCREMENTAL")
        .status();
    match status {
        Ok(s) if s.success() => t.elapsed(),
        other => panic!("building {} failed: {other:?}", dir.display()),
    }
}

fn clean_build(dir: &Path) -> Duration {
    let _ = std::fs::remove_dir_all(dir.join("target"));
    build(dir)
}

fn touch_build(dir: &Path) -> Duration {
    let main = dir.join("src/main.rs");
    let text = std::fs::read_to_string(&main).unwrap_or_default();
    write(&main, &format!("{text}\n"));
    build(dir)
}

/// Writes the two crates under `root/target/bench-user-build/` and builds them in interleaved
/// rounds; returns (ours, handwritten).
pub fn measure(root: &Path) -> (Builds, Builds) {
    let base = root.join("target/bench-user-build");
    let runtime = root.join("agents-runtime").display().to_string();
    let ours: PathBuf = base.join("ours");
    let hand: PathBuf = base.join("handwritten");
    write(
        &ours.join("Cargo.toml"),
        &format!(
            "[package]\nname = \"ours\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n[workspace]\n\n[dependencies]\nagents-runtime = {{ path = {runtime:?} }}\ntokio = {{ version = \"1\", features = [\"macros\", \"rt-multi-thread\"] }}\n\n{REGISTRY_LIKE}"
        ),
    );
    write(&ours.join("src/main.rs"), OURS);
    // The same reqwest features the runtime uses (rustls, system proxies, JSON), so TLS is on
    // both sides.
    write(
        &hand.join("Cargo.toml"),
        "[package]\nname = \"handwritten\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n[workspace]\n\n[dependencies]\nreqwest = { version = \"0.13\", default-features = false, features = [\"rustls\", \"http2\", \"json\", \"system-proxy\"] }\nserde = { version = \"1\", features = [\"derive\"] }\nserde_json = \"1\"\ntokio = { version = \"1\", features = [\"macros\", \"rt-multi-thread\"] }\n",
    );
    write(&hand.join("src/main.rs"), HANDWRITTEN);
    // Both resolve the versions this workspace locked, offline.
    for dir in [&ours, &hand] {
        let lock = root.join("Cargo.lock");
        if let Err(e) = std::fs::copy(&lock, dir.join("Cargo.lock")) {
            panic!("{}: {e}", lock.display());
        }
    }
    let mut a = Builds {
        clean: Vec::new(),
        incremental: Vec::new(),
    };
    let mut b = Builds {
        clean: Vec::new(),
        incremental: Vec::new(),
    };
    for round in 0..ROUNDS {
        let order: [(&Path, bool); 2] = if round % 2 == 0 {
            [(&ours, true), (&hand, false)]
        } else {
            [(&hand, false), (&ours, true)]
        };
        for (dir, is_ours) in order {
            let clean = clean_build(dir);
            let builds = if is_ours { &mut a } else { &mut b };
            builds.clean.push(clean);
            eprintln!(
                "  round {}: {} clean {:.1} s",
                round + 1,
                if is_ours {
                    "agents-runtime"
                } else {
                    "reqwest + serde"
                },
                clean.as_secs_f64(),
            );
        }
    }
    // `interleaved` builds each once first, so the first rebuild after a clean build is not
    // counted; the order rotates every round.
    let mut rebuilds = interleaved(
        INCREMENTAL_ROUNDS,
        &mut [
            &mut || {
                touch_build(&ours);
            },
            &mut || {
                touch_build(&hand);
            },
        ],
    )
    .into_iter();
    a.incremental = rebuilds.next().unwrap_or_default();
    b.incremental = rebuilds.next().unwrap_or_default();
    eprintln!(
        "  {INCREMENTAL_ROUNDS} rounds of rebuilds: agents-runtime {:.2} s, reqwest + serde {:.2} s (medians)",
        median_of(&a.incremental).as_secs_f64(),
        median_of(&b.incremental).as_secs_f64()
    );
    (a, b)
}

/// The user-build group's rows: the program with agents-runtime and by hand, and their ratio.
pub fn bench(rows: &mut Vec<Row>) {
    eprintln!("a user's build: agents-runtime vs reqwest + serde by hand…");
    let (ours, hand) = measure(&crate::compile::workspace_root());
    let figure = |runs: &[Duration]| format!("{:.1} s", median_of(runs).as_secs_f64());
    let note = |builds: &Builds| {
        format!(
            "default dev profile, own workspace and target dir; medians of {} interleaved rounds \
             from clean and {} of rebuilds",
            builds.clean.len(),
            builds.incremental.len()
        )
    };
    rows.push(row(
        "user-build",
        "10-line program running retailer_a_pdp: agents-runtime (catalog + client)",
        format!(
            "clean {}, incremental {:.2} s",
            figure(&ours.clean),
            median_of(&ours.incremental).as_secs_f64()
        ),
        note(&ours),
    ));
    rows.push(row(
        "user-build",
        "the same program by hand: reqwest + serde + tokio",
        format!(
            "clean {}, incremental {:.2} s",
            figure(&hand.clean),
            median_of(&hand.incremental).as_secs_f64()
        ),
        note(&hand),
    ));
    rows.push(row(
        "user-build",
        "agents-runtime ÷ by hand",
        format!(
            "clean {:.2}×, incremental {:.2}×",
            median_ratio(&ours.clean, &hand.clean),
            median_ratio(&ours.incremental, &hand.incremental)
        ),
        "target ≤ 1.15× clean, ≤ 1.1× incremental (median of per-round ratios)".to_owned(),
    ));
}
