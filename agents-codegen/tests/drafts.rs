#![allow(clippy::unwrap_used)] // test helpers outside #[test] fns
//! The JSON-Schema-Test-Suite's groups for drafts 4, 6, 7 and 2019-09
//! (`tests/json-schema-test-suite-drafts/`, MIT), each as the field `value` of an object root
//! declaring its draft, through `generate`: every group generates and prints, and warns only
//! where its schema earns it. Draft 2020-12's groups are also compiled and decoded
//! (`tests/external`); `agents-check` judges every case of these drafts (`agents-check/tests/drafts.rs`).

use std::path::PathBuf;

use agents_codegen::{Options, generate};
use serde_json::{Value, json};

fn drafts_dir() -> PathBuf {
    agents_test_support::workspace_root().join("tests/json-schema-test-suite-drafts")
}

#[test]
fn every_group_of_the_older_drafts_generates() {
    let dir = drafts_dir();
    let options = Options::default().documents("http://localhost:1234/", dir.join("remotes"));
    let mut warned = Vec::new();
    let mut generated = 0;
    for (draft, meta) in [
        ("draft4", "http://json-schema.org/draft-04/schema#"),
        ("draft6", "http://json-schema.org/draft-06/schema#"),
        ("draft7", "http://json-schema.org/draft-07/schema#"),
        (
            "draft2019-09",
            "https://json-schema.org/draft/2019-09/schema",
        ),
    ] {
        let mut files: Vec<PathBuf> = std::fs::read_dir(dir.join("tests").join(draft))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        for file in &files {
            let stem = file.file_stem().unwrap().to_string_lossy().into_owned();
            let groups: Vec<Value> =
                serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
            for (i, group) in groups.iter().enumerate() {
                let mut schema = group["schema"].clone();
                // Its own base, so that its `#` references still mean it inside the wrapper.
                let id = if draft == "draft4" { "id" } else { "$id" };
                if let Value::Object(map) = &mut schema {
                    map.entry(id).or_insert_with(|| {
                        json!(format!("https://suite.invalid/{draft}/{stem}/{i}.json"))
                    });
                }
                let wrapped = json!({
                    "$schema": meta,
                    "type": "object",
                    "properties": {"value": schema},
                });
                let record = agents_schema::json_schema::record(
                    "suite",
                    None,
                    Some(&agents_schema::Json::from(&wrapped)),
                    None,
                )
                .unwrap();
                let out = match generate(&[record], &options) {
                    Ok(out) => out,
                    Err(e) => panic!("{draft} {stem} #{i}: {e}"),
                };
                if let Err(e) = out.to_source() {
                    panic!("{draft} {stem} #{i}: {e}");
                }
                generated += 1;
                if !out.warnings.is_empty() {
                    warned.push(format!("{draft} {stem} #{i}"));
                }
            }
        }
    }
    assert_eq!(generated, 148 + 217 + 237 + 335);
    // `minContains: 3` beside `maxContains: 1`, which no array keeps, and two `$recursiveRef`s
    // that recur through `additionalProperties`, which no struct can hold.
    assert_eq!(
        warned,
        [
            "draft2019-09 minContains #5",
            "draft2019-09 recursiveRef #5",
            "draft2019-09 recursiveRef #6",
        ]
    );
}
