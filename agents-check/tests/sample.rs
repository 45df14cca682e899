#![allow(clippy::unwrap_used)] // test helpers outside #[test] fns
//! Values made by `Schema::sample` for every schema of the official JSON-Schema-Test-Suite
//! (draft 2020-12) that accepts some value, judged by a validator nobody here wrote (the
//! `jsonschema` crate, which passes the suite): each keyword's schemas are what the sampler
//! must honour, one group at a time.

mod common;

use std::collections::HashMap;

use agents_check::{Leaves, Options};
use common::{remotes, suite, test_files};
use serde_json::Value;

/// Plain values where the schema leaves them free.
struct Plain;

impl Leaves for Plain {
    fn mix(&self, seed: u64, part: &str) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        (seed, part).hash(&mut h);
        h.finish()
    }
    fn text(&self, name: &str, seed: u64) -> String {
        format!("{name} {}", seed % 1000)
    }
    fn formatted(&self, _format: &str, _name: &str, _seed: u64) -> Option<String> {
        None
    }
    fn range(&self, _name: &str) -> (f64, f64, f64) {
        (0.0, 100.0, 100.0)
    }
}

/// The suite's remote documents, served by URI (nothing leaves the machine).
struct Remotes(HashMap<String, Value>);

impl jsonschema::Retrieve for Remotes {
    fn retrieve(
        &self,
        uri: &jsonschema::Uri<String>,
    ) -> Result<Value, Box<dyn std::error::Error + Send + Sync>> {
        let uri = uri.as_str().trim_end_matches('#');
        self.0
            .get(uri)
            .cloned()
            .ok_or_else(|| format!("no remote {uri}").into())
    }
}

#[test]
fn every_schema_of_the_suite_that_accepts_a_value_gets_one() {
    let docs = remotes();
    let files = test_files();
    let (mut groups, mut misses) = (0, Vec::new());
    for file in files {
        let name = file.file_stem().unwrap().to_string_lossy().into_owned();
        let all: Vec<Value> =
            serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        for group in all {
            let tests = group["tests"].as_array().unwrap();
            if !tests.iter().any(|t| t["valid"] == true) {
                continue;
            }
            let judge = jsonschema::options()
                .with_retriever(Remotes(docs.clone()))
                .build(&group["schema"])
                .unwrap();
            let schema = Options::new()
                .directory("http://localhost:1234/", suite().join("remotes"))
                .compile(&group["schema"]);
            // A keyword that does not compile (a Unicode class without the feature `unicode`) is
            // a reported problem: not honoured, and said so. Bounds no value keeps are checked
            // as written, so their groups are sampled too.
            if schema
                .problems()
                .iter()
                .any(|p| p.kind != agents_check::ProblemKind::Unsatisfiable)
            {
                continue;
            }
            groups += 1;
            let description = group["description"].as_str().unwrap();
            for seed in 0..4 {
                let value = schema.sample(seed, &Plain);
                if !judge.is_valid(&value) {
                    misses.push(format!("{name}: {description:?} (seed {seed}): {value}"));
                }
            }
        }
    }
    assert!(groups > 300, "the suite was not found: {groups} groups");
    assert!(
        misses.is_empty(),
        "{} misses:\n{}",
        misses.len(),
        misses.join("\n")
    );
}

/// A `$dynamicRef` under a property or an item lands where the check lands it: in the outermost
/// resource around the value with the anchor (here the list of numbers that extends a generic
/// list), not the one nearest the reference.
#[test]
fn a_dynamic_reference_in_a_part_lands_in_the_scope_of_the_whole() {
    let schema = serde_json::json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://example.com/numbers",
        "$ref": "list",
        "$defs": {
            "number": { "$dynamicAnchor": "item", "type": "number" },
            "list": {
                "$id": "list",
                "type": "object",
                "required": ["entries"],
                "properties": {
                    "entries": {
                        "type": "array",
                        "minItems": 1,
                        "items": { "$dynamicRef": "#item" }
                    }
                },
                "$defs": { "text": { "$dynamicAnchor": "item", "type": "string" } }
            }
        }
    });
    let judge = jsonschema::validator_for(&schema).unwrap();
    let compiled = Options::new().compile(&schema);
    assert!(compiled.problems().is_empty(), "{:?}", compiled.problems());
    for seed in 0..4 {
        let value = compiled.sample(seed, &Plain);
        assert!(judge.is_valid(&value), "seed {seed}: {value}");
        assert!(value["entries"][0].is_number(), "seed {seed}: {value}");
    }
}
