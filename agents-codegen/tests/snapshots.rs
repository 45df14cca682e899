#![allow(clippy::unwrap_used)] // test helpers outside #[test] fns
//! Snapshots of generated source, and its determinism.

use agents_codegen::{Options, generate, load_dir, load_file};
use agents_test_support::schemas_dir;

fn source_of(agent: &str) -> String {
    let loaded = load_file(&schemas_dir().join(format!("{agent}.json"))).unwrap();
    generate(&[loaded.record], &Options::default())
        .unwrap()
        .to_source()
        .unwrap()
}

#[test]
fn retailer_a_pdp() {
    insta::assert_snapshot!(source_of("retailer_a_pdp"));
}

#[test]
fn retailer_a_serp() {
    insta::assert_snapshot!(source_of("retailer_a_serp"));
}

#[test]
fn search_engine_search() {
    insta::assert_snapshot!(source_of("search_engine_search"));
}

#[test]
fn llm_a() {
    insta::assert_snapshot!(source_of("llm_a"));
}

#[test]
fn output_is_identical_across_runs_and_input_orders() {
    let records: Vec<_> = load_dir(&schemas_dir())
        .unwrap()
        .into_iter()
        .map(|l| l.record)
        .collect();
    let first = generate(&records, &Options::default())
        .unwrap()
        .to_source()
        .unwrap();
    let mut reversed = records.clone();
    reversed.reverse();
    let second = generate(&reversed, &Options::default())
        .unwrap()
        .to_source()
        .unwrap();
    assert_eq!(first, second);
}

#[test]
fn the_runtime_path_is_configurable() {
    let loaded = load_file(&schemas_dir().join("llm_b.json")).unwrap();
    let options = Options::default().runtime_path("crate::rt");
    let source = generate(&[loaded.record], &options)
        .unwrap()
        .to_source()
        .unwrap();
    assert!(source.contains("impl crate::rt::Agent for LlmB"));
    assert!(source.contains("#[serde(crate = \"crate::rt::__private::serde\")]"));
    assert!(!source.contains("agents_runtime"));
}
