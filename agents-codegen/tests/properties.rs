#![allow(clippy::unwrap_used)] // test helpers outside #[test] fns
//! The generator never panics: for any record it returns code that parses, or an error.

use agents_codegen::{Options, generate};
use agents_schema::AgentRecord;
use agents_test_support::arb_record;
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn generate_returns_code_or_an_error(records in prop::collection::vec(arb_record(), 1..4)) {
        match generate(&records, &Options::default()) {
            Ok(out) => {
                // Both outputs are syntactically valid: the printed source and the macro
                // path's tokens parse back.
                let source = out.to_source();
                prop_assert!(source.is_ok(), "{:?}", source.err());
                let source = source.unwrap_or_default();
                let parsed = syn::parse_file(&source);
                prop_assert!(parsed.is_ok(), "{:?}", parsed.err());
                let tokens = out.tokens().map_err(|e| e.to_string())
                    .and_then(|t| syn::parse2::<syn::File>(t).map_err(|e| e.to_string()));
                prop_assert!(tokens.is_ok(), "{:?}", tokens.err());
                let again = generate(&records, &Options::default()).map(|o| o.to_source());
                prop_assert_eq!(again.ok().and_then(Result::ok), Some(source));
            }
            Err(e) => prop_assert!(!e.0.is_empty()),
        }
    }

    #[test]
    fn reading_any_json_text_never_panics(text in ".{0,200}") {
        let _ = AgentRecord::from_json(&text);
    }

    #[test]
    fn reading_any_json_value_never_panics(value in arb_json()) {
        let _ = AgentRecord::from_value(&value);
    }
}

fn arb_json() -> impl Strategy<Value = serde_json::Value> {
    use serde_json::Value;
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i32>().prop_map(Value::from),
        "[a-z_]{0,6}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        let keys = prop::sample::select(&[
            "name",
            "type",
            "output_schema",
            "input_properties",
            "items",
            "properties",
            "rules",
            "feature_flags",
            "required",
            "x",
        ]);
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec((keys, inner), 0..6).prop_map(|kv| Value::Object(
                kv.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()
            )),
        ]
    })
}
