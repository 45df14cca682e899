#![allow(clippy::unwrap_used)] // test helpers outside #[test] fns
//! Bindings of hostile JSON Schemas (compiled under `deny(warnings)` by this crate): names that
//! are keywords or differ only in case or punctuation each keep their value, and objects nested
//! 500 deep decode typed to 32 levels and as raw JSON below, or fail with serde_json's own
//! recursion limit, never a stack overflow.

use agents_runtime::Record;
use agents_tests_generated::hostile_json_schema::*;
use serde_json::{Value, json};

#[test]
fn colliding_names_each_keep_their_own_value() {
    let sent = json!({
        "": "empty", "$ref": "r", "1st": "first", "NAME": "N", "Name": "Nn", "name": "n",
        "Self": "S", "self": "s", "a b": "space", "a-b": "dash", "a.b": "dot", "a_b": "under",
        "async": "as", "café": "c", "crate": "cr", "gen": "g", "match": "m", "super": "su",
        "type": "t", "unknown_fields": "uf", "mismatches": "mm",
        "Item": {"upper": 1}, "item": {"lower": 2}, "my-def": {"kebab": 3},
        "my_def": {"snake": 4}, "self_def": {"me": 5},
        "values": "A B", "not_declared": [1],
    });
    let record: HostileNames = serde_json::from_value(sent.clone()).unwrap();
    assert!(record.mismatches().is_empty(), "{:?}", record.mismatches());
    assert_eq!(record.field.as_deref(), Some("empty"));
    assert_eq!(record.r#ref.as_deref(), Some("r"));
    assert_eq!(record._1st.as_deref(), Some("first"));
    assert_eq!(
        [&record.name, &record.name_2, &record.name_3].map(|n| n.as_deref()),
        [Some("N"), Some("Nn"), Some("n")]
    );
    assert_eq!(
        [&record.a_b, &record.a_b_2, &record.a_b_3, &record.a_b_4].map(|n| n.as_deref()),
        [Some("space"), Some("dash"), Some("dot"), Some("under")]
    );
    assert_eq!(record.self_.as_deref(), Some("S"));
    assert_eq!(record.self_2.as_deref(), Some("s"));
    assert_eq!(record.unknown_fields_2.as_deref(), Some("uf"));
    assert_eq!(record.mismatches_2.as_deref(), Some("mm"));
    // Definitions whose names differ only in case or punctuation are distinct types.
    assert_eq!(record.item.as_ref().unwrap().upper, Some(1));
    assert_eq!(record.item_2.as_ref().unwrap().lower, Some(2));
    assert_eq!(record.my_def.as_ref().unwrap().kebab, Some(3));
    assert_eq!(record.my_def_2.as_ref().unwrap().snake, Some(4));
    assert_eq!(record.self_def.as_ref().unwrap().me, Some(5));
    assert_eq!(record.values, Some(HostileNamesValues::AB3));
    assert_eq!(record.unknown_fields()["not_declared"], json!([1]));
    assert_eq!(serde_json::to_value(&record).unwrap(), sent);

    // Enum values that collide once made identifiers are distinct variants.
    let variants: Vec<HostileNamesValues> =
        ["a-b", "a_b", "A B", "", "Unknown", "self", "1", "Self"]
            .into_iter()
            .map(|v| serde_json::from_value(json!(v)).unwrap())
            .collect();
    for (i, a) in variants.iter().enumerate() {
        assert!(!matches!(a, HostileNamesValues::Unknown(_)), "{a:?}");
        assert!(variants[i + 1..].iter().all(|b| b != a), "{a:?} repeated");
    }
}

fn nested(depth: usize) -> Value {
    let mut v = json!("bottom");
    for _ in 0..depth {
        v = json!({"inner": v});
    }
    v
}

#[test]
fn deep_values_decode_typed_then_raw_and_too_deep_ones_fail_cleanly() {
    let sent = nested(60);
    let record: DeepNest = serde_json::from_value(sent.clone()).unwrap();
    assert!(record.mismatches().is_empty(), "{:?}", record.mismatches());
    assert_eq!(serde_json::to_value(&record).unwrap(), sent);
    // The levels below the 32 typed ones are raw JSON, which `agents-codegen`'s hostile test
    // checks in the generated source.

    // serde_json refuses JSON nested deeper than 128 levels, with an error, on any type.
    let text = serde_json::to_string(&nested(500)).unwrap();
    let err = serde_json::from_str::<DeepNest>(&text).unwrap_err();
    assert!(err.to_string().contains("recursion limit"), "{err}");
}

#[test]
fn unions_pick_their_variant_by_the_kind_of_value_and_record_the_rest() {
    let sent = json!({
        "runs_on": {"group": "big", "size": "12"},
        "amount": 3,
        "either": {"a": "x", "b": 2},
    });
    let record: Unions = serde_json::from_value(sent).unwrap();
    // An object goes to the object variant; a numeric string inside it is coerced and recorded
    // at its path.
    let Some(UnionsRunsOnUnion::Object(object)) = &record.runs_on else {
        panic!("{:?}", record.runs_on);
    };
    assert_eq!(object.group.as_deref(), Some("big"));
    assert_eq!(object.size, Some(12.0));
    assert_eq!(record.mismatches().len(), 1, "{:?}", record.mismatches());
    assert_eq!(record.mismatches()[0].path, "runs_on.size");
    // Integers are numbers; two object branches are one struct with both fields.
    assert_eq!(record.amount, Some(UnionsAmount::Number(3.0)));
    let either = record.either.as_ref().unwrap();
    assert_eq!((either.a.as_deref(), either.b), (Some("x"), Some(2)));

    for (runs_on, expected) in [
        (
            json!("ubuntu"),
            Some(UnionsRunsOnUnion::String("ubuntu".into())),
        ),
        (
            json!(["a", "b"]),
            Some(UnionsRunsOnUnion::List(vec!["a".into(), "b".into()])),
        ),
        (json!(null), None),
    ] {
        let record: Unions = serde_json::from_value(json!({"runs_on": runs_on})).unwrap();
        assert_eq!(record.runs_on, expected);
        assert!(record.mismatches().is_empty(), "{:?}", record.mismatches());
    }
    // A number where the union allows a string, a list or an object: text is the lossless
    // reading (as for any string field), recorded as coerced. Text where it allows a number or
    // a boolean fits neither: left empty, recorded with the value sent (in the order read).
    let record: Unions = serde_json::from_value(json!({"amount": "seven", "runs_on": 5})).unwrap();
    assert_eq!(record.runs_on, Some(UnionsRunsOnUnion::String("5".into())));
    assert_eq!(record.amount, None);
    let found: Vec<(&str, bool)> = record
        .mismatches()
        .iter()
        .map(|m| (m.path.as_str(), m.coerced))
        .collect();
    assert_eq!(found, [("amount", false), ("runs_on", true)]);
    assert_eq!(record.mismatches()[0].found, json!("seven"));
    // What no variant could hold is kept as sent and written back so.
    assert!(record.mismatches()[0].kept);
    assert_eq!(
        serde_json::to_value(&record).unwrap(),
        json!({"runs_on": "5", "amount": "seven"})
    );
}
