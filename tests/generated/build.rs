//! Generates bindings for the hostile corpus (`tests/corpus/`, plus a 2,000-field record) and
//! for a fixed-seed sample of random records, each as one unit, into OUT_DIR.

use std::path::PathBuf;

use agents_codegen::{Options, generate, generate_refs, load_dir, write_if_changed};
use agents_test_support::{corpus_dir, fixed_sample, wide_record};

/// How many random records the compiled sample draws.
const SAMPLE: usize = 48;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let out = PathBuf::from(std::env::var_os("OUT_DIR").ok_or("cargo sets OUT_DIR")?);
    let corpus = corpus_dir();
    println!("cargo:rerun-if-changed={}", corpus.display());
    println!("cargo:rerun-if-changed=build.rs");
    let options = Options::default();

    let mut records: Vec<_> = load_dir(&corpus)?.into_iter().map(|l| l.record).collect();
    records.push(wide_record("wide_2000", 2000));
    let hostile = generate(&records, &options)?.to_source()?;
    write_if_changed(&out.join("hostile.rs"), &hostile)?;

    // Random records that the generator accepts on their own (it may reject one, say, for an
    // input declared twice), generated together as one unit.
    let sample: Vec<_> = fixed_sample(SAMPLE, 7)
        .into_iter()
        .filter(|r| generate(std::slice::from_ref(r), &options).is_ok())
        .collect();
    let refs: Vec<_> = sample.iter().collect();
    let random = generate_refs(&refs, &options)?.to_source()?;
    write_if_changed(&out.join("random.rs"), &random)?;
    write_if_changed(&out.join("random_count.rs"), &format!("{}\n", sample.len()))?;
    Ok(())
}
