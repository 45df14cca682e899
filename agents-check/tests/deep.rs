//! A value nested far deeper than anything a thread's stack would hold, walked level by level:
//! the check goes on past what fits on the caller's stack (here the 2 MiB of a tokio worker)
//! and reports a breach at the bottom with its whole path. Where it stops (4,096 schemas deep:
//! a deeper value, or a schema that refers to itself in place) it fails with a breach saying
//! so, and compiling such a schema reports the loop.

use agents_check::Schema;
use serde_json::{Map, Value, json};

/// `{"inner": {"inner": … bottom …}}`, `levels` objects deep. Each level is a map holding the
/// one below it; `json!({"inner": value})` would serialize the whole value again at every level.
fn nested(levels: usize, bottom: Value) -> Value {
    let mut value = bottom;
    for _ in 0..levels {
        value = Value::Object(Map::from_iter([("inner".to_owned(), value)]));
    }
    value
}

/// Runs `check` on a thread of `stack` bytes, as a tokio worker (2 MiB) or a larger one would.
fn on_thread(stack: usize, check: impl FnOnce() + Send + 'static) {
    let thread = std::thread::Builder::new().stack_size(stack).spawn(check);
    if let Err(panic) = thread.expect("a thread for the check").join() {
        std::panic::resume_unwind(panic);
    }
}

#[test]
fn a_value_thousands_of_levels_deep_is_checked_to_the_bottom() {
    on_thread(2 << 20, || {
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
    });
}

#[test]
fn a_value_deeper_than_the_check_goes_fails_with_a_depth_breach_instead_of_passing() {
    on_thread(16 << 20, || {
        let schema = Schema::compile(&json!({
            "type": "object",
            "properties": {"inner": {"$ref": "#"}}
        }));
        assert!(schema.problems().is_empty(), "{:?}", schema.problems());
        // Well below the limit: valid, nothing reported.
        assert!(schema.is_valid(&nested(1_000, json!({}))));
        // Past it: a breach below the limit would go unseen, so the check fails, once, where
        // it stopped.
        let deep = nested(5_000, json!({}));
        assert!(!schema.is_valid(&deep));
        let breaches = schema.check(&deep);
        assert_eq!(breaches.len(), 1, "{:?}", breaches.first());
        let breach = &breaches[0];
        assert_eq!(breach.keyword, agents_check::DEPTH_KEYWORD);
        assert_eq!(breach.rule, json!(4096));
        assert!(breach.path.starts_with("inner.inner."), "{}", breach.path);
        drop(breaches);
        drop(deep);
    });
}

#[test]
fn a_schema_that_refers_to_itself_in_place_is_a_problem_and_its_check_fails_with_a_depth_breach() {
    on_thread(2 << 20, || {
        for (schema, pointer) in [
            (json!({"$ref": "#"}), ""),
            (
                json!({"$defs": {"a": {"allOf": [{"$ref": "#/$defs/b"}]}, "b": {"not": {"$ref": "#/$defs/a"}}},
                           "properties": {"x": {"$ref": "#/$defs/a"}}}),
                "/$defs/a",
            ),
            (json!({"anyOf": [{"type": "string"}, {"$ref": "#"}]}), ""),
        ] {
            let compiled = Schema::compile(&schema);
            let problems = compiled.problems();
            assert_eq!(problems.len(), 1, "{schema}: {problems:?}");
            assert_eq!(
                problems[0].kind,
                agents_check::ProblemKind::Loop,
                "{schema}"
            );
            assert_eq!(problems[0].pointer, pointer, "{schema}");
            assert!(!problems[0].kind.breaks_the_type());
            let value = json!({"x": 1});
            assert!(!compiled.is_valid(&value), "{schema}");
            assert!(!compiled.check(&value).is_empty(), "{schema}");
        }
        // A string passes the first branch of the `anyOf` before the loop is reached.
        let compiled = Schema::compile(&json!({"anyOf": [{"type": "string"}, {"$ref": "#"}]}));
        assert!(compiled.is_valid(&json!("text")));
        // Recursion through properties and items descends into the value: no loop.
        let tree = Schema::compile(&json!({
            "$defs": {"node": {"allOf": [{"$ref": "#/$defs/leaf"}], "properties": {"kids": {"items": {"$ref": "#/$defs/node"}}}},
                      "leaf": {"type": "object"}},
            "$ref": "#/$defs/node"
        }));
        assert!(tree.problems().is_empty(), "{:?}", tree.problems());
    });
}

/// Plain values where the schema leaves them free.
#[cfg(feature = "sample")]
struct Plain;

#[cfg(feature = "sample")]
impl agents_check::Leaves for Plain {
    fn mix(&self, seed: u64, part: &str) -> u64 {
        seed ^ part.len() as u64
    }
    fn text(&self, name: &str, seed: u64) -> String {
        format!("{name} {seed}")
    }
    fn formatted(&self, _format: &str, _name: &str, _seed: u64) -> Option<String> {
        None
    }
    fn range(&self, _name: &str) -> (f64, f64, f64) {
        (0.0, 100.0, 100.0)
    }
}

#[cfg(feature = "sample")]
#[test]
fn values_made_for_a_schema_that_loops_in_place_end_and_are_judged_by_the_check() {
    on_thread(2 << 20, || {
        let schema = Schema::compile(&json!({"anyOf": [{"type": "string"}, {"$ref": "#"}]}));
        let value = schema.sample(7, &Plain);
        assert!(value.is_string(), "{value}");
        assert!(schema.is_valid(&value));
        // Nothing passes `{"$ref": "#"}`: the value made is the best found, and the check
        // says it fails.
        let schema = Schema::compile(&json!({"$ref": "#"}));
        let value = schema.sample(7, &Plain);
        assert!(!schema.is_valid(&value), "{value}");
    });
}
