//! A document changed by a JSON Patch (RFC 6902), put back in the order it was written. A patch
//! is applied to a `Value`, whose maps sort their keys, and the order of a schema's properties
//! is the order of the fields generated from it: templates and research agents alike keep the
//! order their patches and their earlier versions wrote.

use agents_schema::Json as Written;
use serde_json::Value;

/// The patched document `patched` with its objects' keys in the order they were written: a
/// key an operation of `patch` wrote (its `value`, or for `move` and `copy` what it took) where
/// that value has it, the rest where the document `before` had it, anything else after them.
pub(crate) fn in_written_order(patched: &Value, patch: &Written, before: &Written) -> Written {
    // Each pointer's value from the last operation that wrote there.
    let mut placed: std::collections::HashMap<&str, &Written> = std::collections::HashMap::new();
    for op in patch.as_array().into_iter().flatten().rev() {
        let (Some(path), kind) = (
            op.get("path").and_then(Written::as_str),
            op.get("op").and_then(Written::as_str),
        ) else {
            continue;
        };
        let value = match kind {
            Some("move" | "copy") => op
                .get("from")
                .and_then(Written::as_str)
                .and_then(|from| before.pointer(from)),
            _ => op.get("value"),
        };
        if let Some(value) = value {
            placed.entry(path).or_insert(value);
        }
    }
    let at = |pointer: &str| placed.get(pointer).copied();
    Written::arranged_with(patched, &[before], &at)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(text: &str) -> Written {
        serde_json::from_str(text).expect("JSON")
    }

    /// Applies `patch` as an update does and gives the keys of the object at `at`, in order.
    fn keys_after(before: &str, patch: &str, at: &str) -> Vec<String> {
        let (before, patch) = (tree(before), tree(patch));
        let mut doc = before.to_value();
        let ops: json_patch::Patch = serde_json::from_value(patch.to_value()).expect("patch");
        json_patch::patch(&mut doc, &ops).expect("applies");
        let ordered = in_written_order(&doc, &patch, &before);
        ordered
            .pointer(at)
            .and_then(Written::as_object)
            .map(|o| o.keys().cloned().collect())
            .unwrap_or_default()
    }

    #[test]
    fn a_patched_document_keeps_the_order_written() {
        let before = r#"{"v": {"schema": {"properties": {"z": {}, "m": {}, "a/b": {}}}}}"#;
        // A replaced document in its own order; what it does not replace as it was.
        assert_eq!(
            keys_after(
                before,
                r#"[{"op": "replace", "path": "/v/schema", "value": {"properties": {"q": {}, "b": {}}}}]"#,
                "/v/schema/properties"
            ),
            ["q", "b"]
        );
        // An added key after the ones that were there; a key with `/` in it found by its
        // escaped pointer.
        assert_eq!(
            keys_after(
                before,
                r#"[{"op": "add", "path": "/v/schema/properties/a~1b/properties", "value": {"y": 1, "c": 2}},
                    {"op": "add", "path": "/v/schema/properties/b", "value": {}}]"#,
                "/v/schema/properties"
            ),
            ["z", "m", "a/b", "b"]
        );
        assert_eq!(
            keys_after(
                before,
                r#"[{"op": "add", "path": "/v/schema/properties/a~1b/properties", "value": {"y": 1, "c": 2}}]"#,
                "/v/schema/properties/a~1b/properties"
            ),
            ["y", "c"]
        );
        // A copy takes the order of what it copied.
        assert_eq!(
            keys_after(
                before,
                r#"[{"op": "copy", "from": "/v/schema/properties", "path": "/v/copy"}]"#,
                "/v/copy"
            ),
            ["z", "m", "a/b"]
        );
    }
}
