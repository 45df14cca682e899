//! `Schema::localized`: every reference a pointer from the root, meaning what the schema means
//! (the official suite checks the same over all its groups, in `suite.rs`).

use std::borrow::Cow;

use agents_check::{Options, Schema};
use serde_json::json;

#[test]
fn references_by_uri_anchor_and_embedded_base_become_pointers() {
    let schema = json!({
        "$id": "https://example.com/root.json",
        "properties": {
            "price": {"$ref": "price.json"},
            "amount": {"$ref": "price.json#/$defs/Amount"},
            "tag": {"$ref": "#tag"},
            "inner": {"$ref": "inner.json"}
        },
        "$defs": {
            "Tag": {"$anchor": "tag", "type": "string"},
            "Inner": {
                "$id": "inner.json",
                "properties": {"n": {"$ref": "#/$defs/N"}},
                "$defs": {"N": {"type": "integer"}}
            }
        }
    });
    let price = json!({
        "$id": "https://example.com/price.json",
        "properties": {"amount": {"$ref": "#/$defs/Amount"}},
        "$defs": {"Amount": {"type": "number"}}
    });
    let compiled = Options::new()
        .document("https://example.com/price.json", price)
        .compile(&schema);
    let local = compiled.localized();
    assert_eq!(local["properties"]["price"]["$ref"], "#/$defs/price");
    assert_eq!(
        local["properties"]["amount"]["$ref"],
        "#/$defs/price/$defs/Amount"
    );
    assert_eq!(local["properties"]["tag"]["$ref"], "#/$defs/Tag");
    assert_eq!(local["properties"]["inner"]["$ref"], "#/$defs/Inner");
    assert_eq!(
        local["$defs"]["Inner"]["properties"]["n"]["$ref"],
        "#/$defs/Inner/$defs/N"
    );
    assert_eq!(
        local["$defs"]["price"]["properties"]["amount"]["$ref"],
        "#/$defs/price/$defs/Amount"
    );
    assert!(local["$defs"]["price"].get("$id").is_none());
    assert!(local["$defs"]["Inner"].get("$id").is_none());
    // The same checks: an instance breaks the rewritten schema where it breaks the first.
    let again = Schema::compile(&local);
    for value in [
        json!({"price": {"amount": 3}, "tag": "x", "inner": {"n": 2}}),
        json!({"price": {"amount": "3"}}),
        json!({"inner": {"n": 2.5}}),
        json!({"amount": true}),
    ] {
        assert_eq!(compiled.is_valid(&value), again.is_valid(&value), "{value}");
    }
}

#[test]
fn a_dynamic_reference_means_the_outermost_anchor() {
    let tree = json!({
        "$id": "https://example.com/tree",
        "$dynamicAnchor": "node",
        "type": "object",
        "properties": {"children": {"type": "array", "items": {"$dynamicRef": "#node"}}}
    });
    let strict = json!({
        "$id": "https://example.com/strict-tree",
        "$dynamicAnchor": "node",
        "$ref": "tree",
        "unevaluatedProperties": false
    });
    let compiled = Options::new()
        .document("https://example.com/tree", tree)
        .compile(&strict);
    let local = compiled.localized();
    assert_eq!(local["$ref"], "#/$defs/tree");
    let items = &local["$defs"]["tree"]["properties"]["children"]["items"];
    assert_eq!(items["$ref"], "#");
    assert!(items.get("$dynamicRef").is_none());
}

#[test]
fn a_schema_with_local_references_only_is_unchanged() {
    let schema = json!({
        "properties": {"a": {"$ref": "#/$defs/A"}},
        "$defs": {"A": {"type": "string"}}
    });
    // The schema itself, not a copy of it.
    let compiled = Schema::compile(&schema);
    assert!(matches!(compiled.localized(), Cow::Borrowed(v) if *v == schema));
    let with_id = json!({"$id": "https://example.com/a", "$ref": "#/$defs/A", "$defs": {"A": {}}});
    let compiled = Schema::compile(&with_id);
    assert!(matches!(compiled.localized(), Cow::Borrowed(v) if *v == with_id));
}

/// A document read from a file is embedded where the bundled and the localized schema say,
/// with the file's text (whose key order a `Value` does not keep); a document given as a value
/// has no text to give.
#[test]
fn documents_read_from_files_say_where_they_are_embedded() {
    let dir = std::env::temp_dir().join(format!("agents-check-embedded-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let text = r#"{"properties": {"zulu": {"type": "string"}, "alpha": {"type": "number"}}}"#;
    std::fs::write(dir.join("part.json"), text).unwrap();
    let schema = json!({
        "properties": {
            "part": {"$ref": "https://example.com/s/part.json"},
            "given": {"$ref": "https://example.com/given.json"}
        }
    });
    let compiled = Options::new()
        .directory("https://example.com/s/", &dir)
        .document("https://example.com/given.json", json!({"type": "string"}))
        .compile(&schema);
    std::fs::remove_dir_all(&dir).unwrap();

    let (bundled, files) = compiled.bundled_from_files();
    assert_eq!(files.len(), 1, "{files:?}");
    assert_eq!(
        files[0].pointer,
        "/$defs/https:~1~1example.com~1s~1part.json"
    );
    assert_eq!(files[0].text, text);
    assert_eq!(
        bundled.pointer(&files[0].pointer).unwrap()["properties"]["zulu"],
        json!({"type": "string"})
    );
    assert_eq!(bundled, compiled.bundled());

    let (localized, files) = compiled.localized_from_files();
    assert_eq!(files.len(), 1, "{files:?}");
    assert_eq!(files[0].pointer, "/$defs/part");
    assert_eq!(files[0].text, text);
    assert_eq!(localized["properties"]["part"]["$ref"], "#/$defs/part");
    assert_eq!(localized, compiled.localized());
}
