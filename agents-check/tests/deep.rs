//! A value nested far deeper than anything a thread's stack would hold, walked level by level:
//! the check goes on past what fits on the caller's stack (here the 2 MiB of a tokio worker)
//! and reports a breach at the bottom with its whole path.

use agents_check::Schema;
use serde_json::{Value, json};

/// `{"inner": {"inner": … bottom …}}`, `levels` objects deep.
fn nested(levels: usize, bottom: Value) -> Value {
    let mut value = bottom;
    for _ in 0..levels {
        value = json!({ "inner": value });
    }
    value
}

#[test]
fn a_value_thousands_of_levels_deep_is_checked_to_the_bottom() {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(|| {
            let schema = Schema::compile(&json!({
                "$ref": "#/$defs/node",
                "$defs": {"node": {
                    "type": "object",
                    "properties": {"inner": {"$ref": "#/$defs/node"}}
                }}
            }));
            let levels = 1_500;
            assert!(schema.is_valid(&nested(levels, json!({}))));
            let bad = nested(levels, json!(5));
            let breaches = schema.check(&bad);
            assert_eq!(breaches.len(), 1, "{breaches:?}");
            assert_eq!(breaches[0].keyword, "type");
            assert_eq!(breaches[0].path, vec!["inner"; levels].join("."));
            // The values are dropped level by level on this thread too: serde_json's drop
            // recurses; 1,500 levels fit where the walk's frames would not.
            drop(bad);
        })
        .unwrap()
        .join()
        .unwrap();
}
