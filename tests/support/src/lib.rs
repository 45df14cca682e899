//! Fixtures shared by the workspace's tests and build scripts: the hostile schema corpus under
//! `tests/corpus/`, synthetic wide records, a proptest strategy over random agent records, and
//! fleets of worker processes with the `redis-server` they share a rate limit through
//! ([`fleet`]); the JSON-Schema-Test-Suite's groups as a type generator reads them ([`suite`]);
//! with the feature `instances`, valid instances of real-world JSON Schemas ([`instances`]).

pub mod fleet;
#[cfg(feature = "instances")]
pub mod instances;
pub mod suite;

use std::path::{Path, PathBuf};

use agents_schema::{AgentRecord, FieldSchema, InputProperty, SchemaType};
use indexmap::IndexMap;
use proptest::prelude::*;
use serde_json::Value;

/// The workspace root.
pub fn workspace_root() -> PathBuf {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    here.ancestors()
        .nth(2)
        .map_or_else(|| here.to_path_buf(), Path::to_path_buf)
}

/// The hostile corpus directory, `tests/corpus/`.
pub fn corpus_dir() -> PathBuf {
    workspace_root().join("tests").join("corpus")
}

/// The catalog schema directory, `schemas/`.
pub fn schemas_dir() -> PathBuf {
    workspace_root().join("schemas")
}

fn plain(ty: &str) -> FieldSchema {
    FieldSchema {
        ty: Some(SchemaType::One(ty.to_owned())),
        ..FieldSchema::default()
    }
}

/// A record with `n` output fields cycling through the scalar, array and object types.
pub fn wide_record(name: &str, n: usize) -> AgentRecord {
    let mut out = IndexMap::with_capacity(n);
    for i in 0..n {
        let schema = match i % 6 {
            0 => plain("string"),
            1 => plain("number"),
            2 => plain("boolean"),
            3 => FieldSchema {
                items: Some(Box::new(plain("string"))),
                ..plain("array")
            },
            4 => FieldSchema {
                properties: Some(
                    [
                        ("a".to_owned(), plain("string")),
                        ("b".to_owned(), plain("number")),
                    ]
                    .into_iter()
                    .collect(),
                ),
                ..plain("object")
            },
            _ => FieldSchema {
                description: Some(format!("Field number {i}")),
                format: Some("uri".to_owned()),
                ..plain("string")
            },
        };
        out.insert(format!("field_{i}"), schema);
    }
    AgentRecord {
        name: name.to_owned(),
        is_public: Some(true),
        display_name: Some(format!("{n} fields")),
        managed_by: None,
        description: None,
        vertical: None,
        entity_type: None,
        domain: None,
        input_properties: Some(vec![InputProperty {
            name: "id".to_owned(),
            ty: Some("string".to_owned()),
            description: None,
            required: true,
            default: None,
            examples: None,
            rules: vec![agents_schema::rules::Rule::MinLength(1).into()],
            is_localization_param: false,
            is_pagination_param: false,
            extra: serde_json::Map::new(),
        }]),
        output_schema: Some(out),
        feature_flags: None,
        output_document: None,
        template_version: None,
        written: Default::default(),
        extra: serde_json::Map::new(),
    }
}

/// Pieces JSON names are drawn from: keywords, digits, case changes, punctuation, spaces,
/// non-ASCII, bidi and control characters, Markdown and comment terminators.
const NAME_PIECES: &[&str] = &[
    "a",
    "b",
    "URL",
    "Url",
    "url",
    "_",
    "0",
    "9",
    "type",
    "self",
    "Self",
    "crate",
    "gen",
    " ",
    "-",
    "$",
    "é",
    "日",
    "\u{202e}",
    "\u{7}",
    "`",
    "*/",
    "<b>",
    "[x]",
    "::",
    "\"",
    "\\",
    "Params",
    "unknown_fields",
    "mismatches",
    "new",
    "Option",
    "",
];

/// A JSON name made of hostile pieces (possibly empty).
pub fn arb_name() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(NAME_PIECES), 0..4).prop_map(|p| p.concat())
}

/// Descriptions: absent, or text with Markdown hazards.
fn arb_description() -> impl Strategy<Value = Option<String>> {
    prop::option::of(
        prop::collection::vec(
            prop::sample::select(&[
                "text",
                "```",
                "\n",
                "    code",
                "<p>",
                "[link]",
                "*/",
                "https://x.io/a_b",
                "\r",
                "\u{202e}",
                "&amp;",
                "#",
                "~~~",
            ]),
            0..6,
        )
        .prop_map(|p| p.join(" ")),
    )
}

/// A random output field descriptor, nested up to `depth` levels.
pub fn arb_field(depth: u32) -> impl Strategy<Value = FieldSchema> {
    let type_name = prop::option::of(prop::sample::select(&[
        "string", "number", "integer", "boolean", "array", "object", "null", "date", "",
    ]));
    let leaf = (type_name, arb_description(), prop::option::of(0.0f64..10.0)).prop_map(
        |(ty, description, minimum)| FieldSchema {
            ty: ty.map(|t| SchemaType::One(t.to_owned())),
            description,
            minimum,
            ..FieldSchema::default()
        },
    );
    leaf.prop_recursive(depth, 64, 6, |inner| {
        prop_oneof![
            inner.clone().prop_map(|items| FieldSchema {
                ty: Some(SchemaType::One("array".to_owned())),
                items: Some(Box::new(items)),
                ..FieldSchema::default()
            }),
            prop::collection::vec((arb_name(), inner), 0..5).prop_map(|props| FieldSchema {
                ty: Some(SchemaType::One("object".to_owned())),
                properties: Some(props.into_iter().collect()),
                ..FieldSchema::default()
            }),
            Just(FieldSchema {
                ty: Some(SchemaType::Union(vec![
                    "string".to_owned(),
                    "number".to_owned()
                ])),
                ..FieldSchema::default()
            }),
        ]
    })
}

fn arb_input() -> impl Strategy<Value = InputProperty> {
    (
        arb_name(),
        prop::option::of(prop::sample::select(&[
            "string", "number", "boolean", "integer", "x",
        ])),
        any::<bool>(),
        prop::collection::vec(
            prop::sample::select(&[
                "minimum length 1",
                "maximum length 3",
                "minimum 2",
                "maximum 9",
                "pattern: ^a+$",
                "pattern: (",
                "one of: a, b",
                "???",
            ]),
            0..3,
        ),
        any::<bool>(),
        any::<bool>(),
        arb_description(),
    )
        .prop_map(
            |(name, ty, required, rules, loc, page, description)| InputProperty {
                name,
                ty: ty.map(str::to_owned),
                description,
                required,
                default: None,
                examples: Some(vec![Value::from("ex`ample")]),
                rules: rules
                    .into_iter()
                    .map(agents_schema::rules::InputRule::read)
                    .collect(),
                is_localization_param: loc,
                is_pagination_param: page,
                extra: serde_json::Map::new(),
            },
        )
}

/// A random agent record: hostile names, random types and nesting, missing and null fields.
pub fn arb_record() -> impl Strategy<Value = AgentRecord> {
    (
        arb_name(),
        arb_description(),
        prop::option::of(prop::collection::vec(arb_input(), 0..5)),
        prop::option::of(prop::collection::vec((arb_name(), arb_field(3)), 0..8)),
        prop::option::of((any::<bool>(), any::<bool>())),
    )
        .prop_map(|(name, description, inputs, outputs, flags)| AgentRecord {
            name,
            is_public: None,
            display_name: None,
            managed_by: None,
            description,
            vertical: None,
            entity_type: None,
            domain: None,
            input_properties: inputs,
            output_schema: outputs.map(|o| o.into_iter().collect()),
            feature_flags: flags.map(|(l, p)| agents_schema::FeatureFlags {
                is_localization_supported: l,
                is_pagination_supported: p,
                extra: serde_json::Map::new(),
            }),
            output_document: None,
            template_version: None,
            written: Default::default(),
            extra: serde_json::Map::new(),
        })
}

/// `count` random records drawn with a fixed seed: the same records on every machine.
pub fn fixed_sample(count: usize, seed: u8) -> Vec<AgentRecord> {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
    let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &[seed; 32]);
    let mut runner = TestRunner::new_with_rng(Config::default(), rng);
    let strategy = arb_record();
    let mut out = Vec::with_capacity(count);
    for i in 0..count {
        if let Ok(tree) = strategy.new_tree(&mut runner) {
            let mut record = tree.current();
            // Distinct agent names, so that the sample generates as one unit.
            record.name = format!("{}_{i}", record.name);
            out.push(record);
        }
    }
    out
}

/// `value` with every number as an f64: declared `number` fields hold f64, so `4` comes back
/// as `4.0`, the same JSON number. Compare round trips through this.
pub fn numbers_as_f64(value: &Value) -> Value {
    match value {
        Value::Number(n) => n
            .as_f64()
            .and_then(serde_json::Number::from_f64)
            .map_or(Value::Null, Value::Number),
        Value::Array(items) => Value::Array(items.iter().map(numbers_as_f64).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), numbers_as_f64(v)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// Agents written as hostile JSON Schema, for the compile test (`tests/generated`):
/// `hostile_names`, whose properties, definitions and enum values are keywords, differ only in
/// case or punctuation, or collide with the generated members; `deep_nest`, objects nested
/// `depth` deep; and `unions`, fields that are one of several kinds of value.
///
/// # Panics
/// Never for these fixed documents (a failure to read one is a bug in this function).
pub fn hostile_json_schemas(depth: usize) -> Vec<AgentRecord> {
    let names: serde_json::Map<String, Value> = [
        "type",
        "self",
        "Self",
        "crate",
        "super",
        "async",
        "gen",
        "match",
        "Name",
        "name",
        "NAME",
        "a-b",
        "a_b",
        "a.b",
        "a b",
        "",
        "1st",
        "café",
        "unknown_fields",
        "mismatches",
        "$ref",
    ]
    .iter()
    .map(|n| ((*n).to_owned(), serde_json::json!({"type": "string"})))
    .chain([
        (
            "item".to_owned(),
            serde_json::json!({"$ref": "#/$defs/item"}),
        ),
        (
            "Item".to_owned(),
            serde_json::json!({"$ref": "#/$defs/Item"}),
        ),
        (
            "my_def".to_owned(),
            serde_json::json!({"$ref": "#/$defs/my_def"}),
        ),
        (
            "my-def".to_owned(),
            serde_json::json!({"$ref": "#/$defs/my-def"}),
        ),
        (
            "self_def".to_owned(),
            serde_json::json!({"$ref": "#/$defs/Self"}),
        ),
        (
            "values".to_owned(),
            serde_json::json!({"enum": ["a-b", "a_b", "A B", "", "Unknown", "self", "1", "Self"]}),
        ),
    ])
    .collect::<std::collections::BTreeMap<_, _>>()
    // In name order whether or not serde_json's `preserve_order` is on: which of two colliding
    // names gets the suffix follows the order of the schema's keys.
    .into_iter()
    .collect();
    let object =
        |key: &str| serde_json::json!({"type": "object", "properties": {key: {"type": "integer"}}});
    let names = serde_json::json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": names,
        "$defs": {
            "Item": object("upper"),
            "Self": object("me"),
            "item": object("lower"),
            "my-def": object("kebab"),
            "my_def": object("snake"),
        },
    });
    let mut deep = serde_json::json!({"type": "string"});
    for _ in 0..depth {
        deep = serde_json::json!({"type": "object", "properties": {"inner": deep}});
    }
    let unions = serde_json::json!({
        "type": "object",
        "properties": {
            "runs_on": {"oneOf": [
                {"type": "string"},
                {"type": "array", "items": {"type": "string"}},
                {"type": "object", "properties": {"group": {"type": "string"}, "size": {"type": "number"}}},
                {"type": "null"},
            ]},
            "amount": {"anyOf": [{"type": "integer"}, {"type": "number"}, {"type": "boolean"}]},
            "either": {"oneOf": [
                {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
                {"type": "object", "properties": {"b": {"type": "integer"}}},
            ]},
        },
    });
    [
        ("hostile_names", names),
        ("deep_nest", deep),
        ("unions", unions),
    ]
    .into_iter()
    .map(|(name, output)| {
        let version = serde_json::json!({
            "name": name,
            "input_schema": {"type": "object", "properties": {}},
            "output_schema": output,
        });
        match AgentRecord::from_value(&version) {
            Ok(record) => record,
            Err(e) => panic!("{name}: {e}"),
        }
    })
    .collect()
}
