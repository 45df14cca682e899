#![allow(clippy::unwrap_used)] // test helpers outside #[test] fns
//! Draft 7 (and draft 4) spells some rules differently from 2020-12 (`dependencies`, `items` as a list with
//! `additionalItems`, `definitions`, a `$ref` whose siblings are ignored, `$id` fragments as
//! anchors), and lacks what 2019-09 brought in. The official suite here is 2020-12's, so these
//! schemas are judged by the `jsonschema` crate, and every breach must name the keyword the
//! schema wrote, where it wrote it.

mod common;

use std::collections::HashMap;

use agents_check::{ProblemKind, Schema};
use serde_json::{Value, json};

fn draft7(schema: Value) -> Value {
    let mut schema = schema;
    schema["$schema"] = json!("http://json-schema.org/draft-07/schema#");
    schema
}

/// Schemas, values to judge, and the keywords each schema holds that draft 7 does not have.
fn cases() -> Vec<(Value, Vec<Value>, Vec<&'static str>)> {
    vec![
        (
            draft7(json!({
                "properties": {"card": {"type": "string"}},
                "dependencies": {"card": ["billing"], "billing": {"required": ["when"]}}
            })),
            vec![
                json!({}),
                json!({"card": "c"}),
                json!({"card": "c", "billing": "b"}),
                json!({"card": "c", "billing": "b", "when": 1}),
                json!({"billing": "b", "when": 1}),
                json!({"billing": "b"}),
                json!("not an object"),
            ],
            vec![],
        ),
        (
            draft7(json!({
                "items": [{"type": "string"}, {"type": "number", "minimum": 0}],
                "additionalItems": false
            })),
            vec![
                json!([]),
                json!(["a"]),
                json!(["a", 1]),
                json!(["a", -1]),
                json!([1, "a"]),
                json!(["a", 1, null]),
            ],
            vec![],
        ),
        (
            draft7(json!({
                "items": [{"type": "string"}],
                "additionalItems": {"type": "integer", "maximum": 9}
            })),
            vec![json!(["a", 1, 9]), json!(["a", 10]), json!(["a", "b"])],
            vec![],
        ),
        (
            draft7(json!({
                "definitions": {"pos": {"type": "integer", "minimum": 1}},
                "properties": {"n": {"$ref": "#/definitions/pos", "type": "string"}}
            })),
            vec![json!({"n": 1}), json!({"n": 0}), json!({"n": "1"})],
            vec![],
        ),
        (
            draft7(json!({
                "definitions": {"short": {"$id": "#short", "type": "string", "maxLength": 3}},
                "properties": {"s": {"$ref": "#short"}},
                "required": ["s"]
            })),
            vec![json!({"s": "abc"}), json!({"s": "abcd"}), json!({})],
            vec![],
        ),
        (
            draft7(json!({
                "type": "array",
                "contains": {"const": 3},
                "uniqueItems": true,
                "minItems": 2
            })),
            vec![json!([1, 3]), json!([3]), json!([1, 1, 3]), json!([1, 2])],
            vec![],
        ),
        (
            draft7(json!({
                "dependentRequired": {"a": ["b"]},
                "dependentSchemas": {"a": {"required": ["c"]}},
                "unevaluatedProperties": false,
                "prefixItems": [{"type": "string"}],
                "contains": {"type": "string"},
                "minContains": 2,
                "maxContains": 2
            })),
            vec![
                json!({"a": 1}),
                json!([1]),
                json!(["a"]),
                json!(["a", "b", "c"]),
            ],
            vec![
                "dependentRequired",
                "dependentSchemas",
                "maxContains",
                "minContains",
                "prefixItems",
                "unevaluatedProperties",
            ],
        ),
    ]
}

/// Draft 4: `id` where later drafts write `$id` (a base URI, or `#name` an anchor), a bound
/// made exclusive by `true` beside it, and none of the keywords drafts 6 and 7 brought in.
fn draft4_cases() -> Vec<(Value, Vec<Value>, Vec<&'static str>)> {
    let draft4 = |mut schema: Value| {
        schema["$schema"] = json!("http://json-schema.org/draft-04/schema#");
        schema
    };
    vec![
        (
            draft4(json!({
                "id": "http://example.com/root.json",
                "properties": {
                    "short": {"$ref": "#short"},
                    "item": {"$ref": "item.json"}
                },
                "definitions": {
                    "short": {"id": "#short", "type": "string", "maxLength": 2},
                    "item": {"id": "item.json", "type": "integer", "minimum": 1}
                }
            })),
            vec![
                json!({"short": "ab", "item": 1}),
                json!({"short": "abc"}),
                json!({"item": 0}),
                json!({"short": 1, "item": "1"}),
            ],
            vec![],
        ),
        (
            draft4(json!({
                "type": "number",
                "minimum": 0, "exclusiveMinimum": true,
                "maximum": 10, "exclusiveMaximum": false
            })),
            vec![json!(0), json!(0.5), json!(10), json!(10.5)],
            vec![],
        ),
        (
            draft4(json!({
                "const": 1,
                "contains": {"type": "string"},
                "propertyNames": {"maxLength": 1},
                "if": {"type": "object"},
                "then": {"required": ["a"]}
            })),
            vec![json!(2), json!([1]), json!({"long": 1}), json!({})],
            vec!["const", "contains", "if", "propertyNames", "then"],
        ),
        (
            json!({
                "$schema": "http://json-schema.org/draft-06/schema#",
                "const": 1,
                "if": {"const": 1},
                "else": false
            }),
            vec![json!(1), json!(2)],
            vec!["else", "if"],
        ),
    ]
}

#[test]
fn draft7_rules_are_checked_and_named_as_the_schema_writes_them() {
    let mut wrong = Vec::new();
    let mut invalid = 0;
    for (schema, values, later) in cases().into_iter().chain(draft4_cases()) {
        let ours = Schema::compile(&schema);
        // Each keyword draft 7 lacks is ignored, as the draft's validators ignore it, and said.
        let mut problems: Vec<String> = (ours.problems().iter())
            .map(|p| {
                assert_eq!(p.kind, ProblemKind::OtherDraft, "{p:?}");
                assert!(p.message.contains("ignored"), "{p:?}");
                p.pointer.trim_start_matches('/').to_owned()
            })
            .collect();
        problems.sort();
        assert_eq!(problems, later, "{schema}");
        let judge = jsonschema::validator_for(&schema).unwrap();
        for value in values {
            let verdict = judge.is_valid(&value);
            let breaches = ours.check(&value);
            if ours.is_valid(&value) != verdict || breaches.is_empty() != verdict {
                wrong.push(format!(
                    "{value} against {schema}: jsonschema says {verdict}, breaches {breaches:?}"
                ));
            }
            for breach in &breaches {
                if let Err(why) = common::names_its_rule(breach, &schema, &HashMap::new()) {
                    wrong.push(format!("{value} against {schema}: {breach}: {why}"));
                }
            }
            // The keywords jsonschema names are the keywords named here.
            let named = |pointer: &str| pointer.rsplit('/').next().unwrap_or_default().to_owned();
            let mut theirs: Vec<String> = judge
                .iter_errors(&value)
                .map(|e| named(&e.schema_path().to_string()))
                .collect();
            let mut mine: Vec<String> = breaches.iter().map(|b| b.keyword.clone()).collect();
            theirs.sort();
            theirs.dedup();
            mine.sort();
            mine.dedup();
            if theirs != mine {
                wrong.push(format!(
                    "{value} against {schema}: jsonschema names {theirs:?}, the check {mine:?}"
                ));
            }
            invalid += usize::from(!verdict);
        }
    }
    assert!(invalid > 10, "{invalid} invalid cases");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The other way round: draft 7's `dependencies` and `additionalItems` in a 2020-12 schema are
/// ignored and named; 2019-09 still has `additionalItems`, and is not told otherwise.
#[test]
fn draft7_keywords_in_a_2020_12_schema_are_named_and_ignored() {
    let schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "properties": {"list": {"prefixItems": [true], "additionalItems": false}},
        "dependencies": {"a": ["b"]}
    });
    let ours = Schema::compile(&schema);
    let mut named: Vec<(&str, ProblemKind)> = (ours.problems().iter())
        .map(|p| (p.pointer.as_str(), p.kind))
        .collect();
    named.sort_by_key(|(pointer, _)| *pointer);
    assert_eq!(
        named,
        [
            ("/dependencies", ProblemKind::OtherDraft),
            ("/properties/list/additionalItems", ProblemKind::OtherDraft),
        ]
    );
    assert!(ours.is_valid(&json!({"a": 1, "list": [1, 2]})));

    let older = json!({
        "$schema": "https://json-schema.org/draft/2019-09/schema",
        "additionalItems": false
    });
    assert!(Schema::compile(&older).problems().is_empty());
}

/// Draft 2019-09 spells a tuple as draft 7 does, and the jsonschema crate judges it so.
#[test]
fn a_2019_09_tuple_is_checked() {
    let schema = json!({
        "$schema": "https://json-schema.org/draft/2019-09/schema",
        "items": [{"type": "string"}],
        "additionalItems": {"type": "integer"}
    });
    let ours = Schema::compile(&schema);
    assert!(ours.problems().is_empty(), "{:?}", ours.problems());
    let judge = jsonschema::validator_for(&schema).unwrap();
    for value in [json!(["a", 1]), json!([1]), json!(["a", "b"]), json!([])] {
        assert_eq!(ours.is_valid(&value), judge.is_valid(&value), "{value}");
        for breach in ours.check(&value) {
            common::names_its_rule(&breach, &schema, &HashMap::new()).unwrap();
        }
    }
    assert!(!ours.is_valid(&json!([1])));
}

/// Draft 2019-09's `$recursiveRef`: the tree whose nodes a stricter schema extends (the example
/// of the draft's own text), judged by the jsonschema crate; in 2020-12 it is ignored and named.
#[test]
fn a_2019_09_recursive_reference_follows_the_dynamic_scope() {
    let tree = json!({
        "$schema": "https://json-schema.org/draft/2019-09/schema",
        "$id": "http://example.com/tree",
        "$recursiveAnchor": true,
        "type": "object",
        "properties": {
            "data": true,
            "children": {"type": "array", "items": {"$recursiveRef": "#"}}
        }
    });
    let strict = json!({
        "$schema": "https://json-schema.org/draft/2019-09/schema",
        "$id": "http://example.com/strict-tree",
        "$recursiveAnchor": true,
        "$ref": "tree",
        "unevaluatedProperties": false,
        "$defs": {"tree": tree}
    });
    let values = [
        json!({"children": [{"data": 1}]}),
        json!({"children": [{"daat": 1}]}),
        json!({"children": [{"children": [{"daat": 1}]}]}),
        json!({"children": [{"children": [{"data": 1}]}], "extra": 1}),
    ];
    let ours = Schema::compile(&strict);
    assert!(ours.problems().is_empty(), "{:?}", ours.problems());
    let judge = jsonschema::validator_for(&strict).unwrap();
    let mut invalid = 0;
    for value in &values {
        let verdict = judge.is_valid(value);
        assert_eq!(ours.is_valid(value), verdict, "{value}");
        invalid += usize::from(!verdict);
    }
    // The loose tree alone takes every one of them.
    let loose = Schema::compile(&tree);
    assert!(values.iter().all(|v| loose.is_valid(v)));
    assert_eq!(invalid, 3);

    let mut later = tree;
    later["$schema"] = json!("https://json-schema.org/draft/2020-12/schema");
    let problems = Schema::compile(&later).problems().to_vec();
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0]
            .message
            .contains("`$recursiveRef` is a keyword of draft 2019-09;")
    );
}
