#![allow(clippy::unwrap_used)] // test helpers outside #[test] fns
//! The JSON-Schema-Test-Suite's groups for drafts 4, 6, 7 and 2019-09
//! (`tests/json-schema-test-suite-drafts/`, MIT), each as the field `value` of an object root
//! declaring its draft, through `generate`: every group generates and prints, and warns only
//! where its schema earns it. Every group of every draft is also compiled and its cases decoded
//! (`tests/drafts`, and `tests/external` for draft 2020-12); `agents-check` judges every case of
//! these drafts on its own (`agents-check/tests/drafts.rs`).

use agents_codegen::{Options, generate};
use agents_test_support::suite;

#[test]
fn every_group_of_the_older_drafts_generates() {
    let dir = agents_test_support::workspace_root().join("tests/json-schema-test-suite-drafts");
    let options = Options::default().documents("http://localhost:1234/", dir.join("remotes"));
    let mut warned = Vec::new();
    let mut generated = 0;
    for (draft, _) in suite::OLDER_DRAFTS {
        for group in suite::groups(&dir, draft).unwrap() {
            let (stem, i) = (&group.file, group.index);
            let record = agents_schema::json_schema::record(
                "suite",
                None,
                Some(&agents_schema::Json::from(&group.schema)),
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
