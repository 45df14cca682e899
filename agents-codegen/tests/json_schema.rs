#![allow(clippy::unwrap_used)] // test helpers outside #[test] fns
//! JSON Schema documents the generator reads as an agent's output, through `generate`:
//! a root that declares no properties of its own (its `$ref`, `allOf` or union of objects);
//! unions of kinds of value (an enum with a variant per kind, branches of one kind merged);
//! hostile documents (reference cycles, references to nowhere, 10,000 properties, nesting 500
//! deep), each giving code that parses (the printer parses what it prints) or a diagnostic,
//! quickly and without a panic, every problem naming its JSON pointer. The names and depths that
//! must also compile are in `tests/generated` (built under `deny(warnings)`).

use agents_codegen::{Options, generate};
use agents_schema::AgentRecord;
use serde_json::{Map, Value, json};

/// The source and warnings generated for agent `name` whose output document is `output`.
fn generated(name: &str, output: Value) -> (String, Vec<String>) {
    let record = AgentRecord::from_value(&json!({
        "name": name,
        "input_schema": {"type": "object", "properties": {}},
        "output_schema": output,
    }))
    .unwrap();
    let out = generate(&[record], &Options::default()).unwrap();
    let warnings = out.warnings.iter().map(ToString::to_string).collect();
    (out.to_source().unwrap(), warnings)
}

/// The source generated for agent `u` whose output is an object with `properties`.
fn source(properties: Value) -> String {
    generated("u", json!({"type": "object", "properties": properties})).0
}

// ---- roots ----

/// The names of the fields of struct `name` in `source`, in order.
fn field_names(source: &str, name: &str) -> Vec<String> {
    fields_of(source, name)
        .iter()
        .map(|l| {
            let name = l.trim_start_matches("pub ").split(':').next();
            name.unwrap_or_default().to_owned()
        })
        .collect()
}

/// The lines of `source` declaring the schema's fields of struct `name`, in the order of the
/// schema's keys. The fixtures write keys in name order, which is the order `json!` gives them
/// whether or not serde_json's `preserve_order` is on.
fn fields_of(source: &str, name: &str) -> Vec<String> {
    let start = source
        .find(&format!("pub struct {name} {{"))
        .unwrap_or_else(|| panic!("no struct {name} in:\n{source}"));
    source[start..]
        .lines()
        .skip(1)
        .take_while(|l| !l.starts_with('}'))
        .filter(|l| l.trim_start().starts_with("pub "))
        .filter(|l| {
            !l.contains("pub unknown_fields:")
                && !l.contains("pub mismatches:")
                && !l.contains("pub breaches:")
        })
        .map(|l| l.trim().to_owned())
        .collect()
}

#[test]
fn a_root_reference_is_the_record_and_references_back_box_it() {
    let (source, warnings) = generated(
        "doc",
        json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "$ref": "#/definitions/pipeline",
            "definitions": {
                "pipeline": {
                    "type": "object",
                    "required": ["name"],
                    "properties": {
                        "child": {"$ref": "#/definitions/pipeline"},
                        "name": {"type": "string"},
                    },
                },
            },
        }),
    );
    assert_eq!(
        fields_of(&source, "Doc"),
        ["pub child: Option<Box<Doc>>,", "pub name: Option<String>,",]
    );
    assert!(!source.contains("pub struct DocPipeline"), "{source}");
    assert!(warnings.is_empty(), "{warnings:#?}");
}

/// vega-lite's `layer`: a list whose items are a union of the layer spec (which holds `layer`
/// again) and the unit spec. The union is merged into one object, which copies what the
/// references point to, so the recursion is met as the same merged content, not the same
/// reference: one type refers back to itself, where the layers were unrolled 32 types deep
/// (`…LayerLayerLayer…`, then raw JSON with a warning).
#[test]
fn a_recursion_through_a_merged_union_refers_back_to_one_type() {
    let spec = json!({"anyOf": [{"$ref": "#/$defs/layer"}, {"$ref": "#/$defs/unit"}]});
    let (source, warnings) = generated(
        "chart",
        json!({
            "type": "object",
            "properties": {"layer": {"type": "array", "items": spec}},
            "$defs": {
                "layer": {
                    "type": "object",
                    "properties": {
                        "layer": {"type": "array", "items": spec},
                        "title": {"type": "string"},
                    },
                },
                "unit": {"type": "object", "properties": {"mark": {"type": "string"}}},
            },
        }),
    );
    assert!(warnings.is_empty(), "{warnings:#?}");
    assert!(!source.contains("LayerLayer"), "{source}");
    assert_eq!(
        fields_of(&source, "ChartLayer"),
        [
            "pub layer: Option<Vec<ChartLayer>>,",
            "pub title: Option<String>,",
            "pub mark: Option<String>,",
        ]
    );
}

#[test]
fn a_root_all_of_is_merged_and_required_alternatives_do_not_make_a_union() {
    let (source, warnings) = generated(
        "doc",
        json!({
            "allOf": [{
                "type": "object",
                "required": ["version"],
                "properties": {
                    "includes": {"type": "array", "items": {"type": "string"}},
                    "tasks": {"type": "object", "additionalProperties": {"type": "string"}},
                    "version": {"type": "string"},
                },
                "anyOf": [{"required": ["includes"]}, {"required": ["tasks"]}],
            }],
        }),
    );
    assert_eq!(
        fields_of(&source, "Doc"),
        [
            "pub includes: Option<Vec<String>>,",
            "pub tasks: Option<::std::collections::BTreeMap<String, String>>,",
            "pub version: Option<String>,",
        ]
    );
    assert!(warnings.is_empty(), "{warnings:#?}");
}

#[test]
fn a_root_union_of_objects_holds_every_branchs_fields() {
    let (source, warnings) = generated(
        "doc",
        json!({
            "$defs": {
                "app": {
                    "type": "object",
                    "required": ["type", "name"],
                    "properties": {
                        "name": {"type": "string"},
                        "size": {"type": "integer"},
                        "type": {"enum": ["app"]},
                    },
                },
                "base": {
                    "type": "object",
                    "required": ["type"],
                    "properties": {
                        "base": {"type": "boolean"},
                        "size": {"type": "string"},
                        "type": {"enum": ["base", "kernel"]},
                    },
                },
            },
            "oneOf": [{"$ref": "#/$defs/app"}, {"$ref": "#/$defs/base"}, {"type": "string"}],
        }),
    );
    assert_eq!(
        fields_of(&source, "Doc"),
        [
            "pub name: Option<String>,",
            "pub size: Option<::agents_runtime::Value>,",
            "pub r#type: Option<DocType>,",
            "pub base: Option<bool>,",
        ]
    );
    // Every branch's values, and `type` is required because every branch requires it.
    for variant in ["App = \"app\"", "Base = \"base\"", "Kernel = \"kernel\""] {
        assert!(source.contains(variant), "{variant} in {source}");
    }
    let required = source.find("#[json(required = true)]").unwrap();
    assert!(
        source[required..]
            .trim_start_matches("#[json(required = true)]")
            .trim_start()
            .starts_with("pub r#type"),
        "{source}"
    );
    assert_eq!(
        source.matches("#[json(required = true)]").count(),
        1,
        "{source}"
    );
    assert!(warnings.is_empty(), "{warnings:#?}");
}

#[test]
fn a_root_that_is_no_object_is_a_warning_naming_where() {
    let (source, warnings) = generated(
        "doc",
        json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "array",
            "items": {"type": "string"},
        }),
    );
    assert!(fields_of(&source, "Doc").is_empty());
    assert_eq!(warnings.len(), 1, "{warnings:#?}");
    assert!(
        warnings[0].contains("output_schema")
            && warnings[0].contains("describes no object with properties"),
        "{warnings:#?}"
    );
    let (_, warnings) = generated("doc", json!({"$ref": "#/$defs/missing"}));
    assert_eq!(warnings.len(), 1, "{warnings:#?}");
    assert!(
        warnings[0].contains("output_schema#/$ref") && warnings[0].contains("points nowhere"),
        "{warnings:#?}"
    );
}

// ---- hostile documents ----

#[test]
fn reference_cycles_end_in_raw_json_with_a_warning() {
    let (source, warnings) = generated(
        "hostile",
        json!({
            "type": "object",
            "properties": {
                "ping": {"$ref": "#/$defs/ping"},
                "merged": {"$ref": "#/$defs/merged"},
                "me": {"$ref": "#"},
            },
            "$defs": {
                "ping": {"$ref": "#/$defs/pong"},
                "pong": {"$ref": "#/$defs/ping"},
                "merged": {"allOf": [{"$ref": "#/$defs/merged"}]},
            },
        }),
    );
    assert!(
        source.contains("pub ping: Option<::agents_runtime::Value>"),
        "{source}"
    );
    assert!(
        source.contains("pub merged: Option<::agents_runtime::Value>"),
        "{source}"
    );
    // A reference to the whole document is the record itself.
    assert!(source.contains("pub me: Option<Box<Hostile>>"), "{source}");
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("output_schema#/$defs/pong/$ref") && w.contains("recursion")),
        "{warnings:#?}"
    );
}

#[test]
fn a_root_that_refers_to_itself_or_fans_out_into_a_cycle_ends() {
    let (source, _) = generated("hostile", json!({"$ref": "#"}));
    assert!(source.contains("pub struct Hostile"), "{source}");
    // Ten branches that each lead back to the union: walked once, not 10^16 times.
    let branches: Vec<Value> = (0..10).map(|_| json!({"$ref": "#/$defs/u"})).collect();
    let (source, _) = generated(
        "hostile",
        json!({
            "$ref": "#/$defs/u",
            "$defs": {"u": {"oneOf": branches}},
        }),
    );
    assert!(source.contains("pub struct Hostile"), "{source}");
    let mut branches: Vec<Value> = (0..10).map(|_| json!({"$ref": "#/$defs/u"})).collect();
    branches.push(json!({"type": "object", "properties": {"leaf": {"type": "string"}}}));
    let (source, _) = generated(
        "hostile",
        json!({
            "$ref": "#/$defs/u",
            "$defs": {"u": {"anyOf": branches}},
        }),
    );
    assert!(source.contains("pub leaf: Option<String>"), "{source}");
}

#[test]
fn references_by_uri_anchor_base_and_dynamic_anchor_are_typed() {
    let dir = std::env::temp_dir().join(format!("agents-codegen-refs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("price.json"),
        json!({
            "type": "object",
            "properties": {"amount": {"type": "number"}, "currency": {"$ref": "#/$defs/Code"}},
            "$defs": {"Code": {"enum": ["EUR", "USD"]}}
        })
        .to_string(),
    )
    .unwrap();
    let record = AgentRecord::from_value(&json!({
        "name": "shop",
        "input_schema": {"type": "object", "properties": {}},
        "output_schema": {
            "$id": "https://example.com/schemas/shop.json",
            "$dynamicAnchor": "node",
            "type": "object",
            "properties": {
                "children": {"type": "array", "items": {"$dynamicRef": "#node"}},
                "code": {"$ref": "https://example.com/schemas/price.json#/$defs/Code"},
                "price": {"$ref": "price.json"},
                "seller": {"$ref": "#seller"},
                "warranty": {"$ref": "warranty.json"}
            },
            "$defs": {
                "Seller": {"$anchor": "seller", "type": "object",
                           "properties": {"name": {"type": "string"}}},
                "Warranty": {
                    "$id": "warranty.json",
                    "type": "object",
                    "properties": {"months": {"$ref": "#/$defs/Months"}},
                    "$defs": {"Months": {"type": "integer"}}
                }
            }
        },
    }))
    .unwrap();
    let options = Options::default().documents("https://example.com/schemas/", &dir);
    let out = generate(&[record], &options).unwrap();
    let warnings: Vec<String> = out.warnings.iter().map(ToString::to_string).collect();
    let source = out.to_source().unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(warnings.is_empty(), "{warnings:#?}");
    assert_eq!(
        fields_of(&source, "Shop"),
        [
            "pub children: Option<Vec<Shop>>,",
            "pub code: Option<ShopCode>,",
            "pub price: Option<ShopPrice>,",
            "pub seller: Option<ShopSeller>,",
            "pub warranty: Option<ShopWarranty>,",
        ]
    );
    assert_eq!(
        fields_of(&source, "ShopPrice"),
        [
            "pub amount: Option<f64>,",
            "pub currency: Option<ShopCode>,"
        ]
    );
    assert_eq!(
        fields_of(&source, "ShopWarranty"),
        ["pub months: Option<i64>,"]
    );
    assert!(source.contains("pub enum ShopCode"), "{source}");
    // The record still carries the schema as written, with the file it refers to.
    assert!(source.contains(r#""$ref": "price.json""#), "{source}");
    assert!(
        source.contains(r#""$id": "https://example.com/schemas/price.json""#),
        "{source}"
    );
}

/// A schema whose references are rewritten before it is lowered (an `$anchor`, a base URI)
/// still gives its fields in the order it wrote them, nested records too.
#[test]
fn fields_keep_the_order_written_through_rewritten_references() {
    let record = AgentRecord::from_json(
        r##"{"name": "thing", "output_schema": {
            "$id": "https://example.com/thing.json",
            "type": "object",
            "properties": {
                "zeta": {"type": "string"},
                "owner": {"$ref": "#person"},
                "alpha": {"type": "integer"}
            },
            "$defs": {"p": {"$anchor": "person", "type": "object",
                "properties": {"zname": {"type": "string"}, "age": {"type": "integer"}}}}
        }}"##,
    )
    .unwrap();
    let source = generate(&[record], &Options::default())
        .unwrap()
        .to_source()
        .unwrap();
    let names = |s: &str| field_names(&source, s);
    assert_eq!(names("Thing"), ["zeta", "owner", "alpha"]);
    assert_eq!(names("ThingP"), ["zname", "age"]);
}

/// A schema that refers to a file keeps the order it and the file wrote: the fields of each
/// type, and the schema text the record carries (what `publish` sends).
#[test]
fn fields_keep_the_order_written_across_documents() {
    let dir = std::env::temp_dir().join(format!("agents-codegen-order-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("part.json"),
        r#"{"type": "object", "properties": {"zulu": {"type": "string"}, "bravo": {"type": "integer"}}}"#,
    )
    .unwrap();
    let record = AgentRecord::from_json(
        r#"{"name": "thing", "output_schema": {
            "type": "object",
            "properties": {
                "zeta": {"type": "string"},
                "part": {"$ref": "https://example.com/s/part.json"},
                "alpha": {"type": "integer"}
            }
        }}"#,
    )
    .unwrap();
    let options = Options::default().documents("https://example.com/s/", &dir);
    let source = generate(&[record], &options).unwrap().to_source().unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    let names = |s: &str| field_names(&source, s);
    assert_eq!(names("Thing"), ["zeta", "part", "alpha"]);
    assert_eq!(names("ThingPart"), ["zulu", "bravo"]);
    let at = |key: &str| {
        source
            .find(&format!("\"{key}\""))
            .unwrap_or_else(|| panic!("{key}: {source}"))
    };
    assert!(
        at("zeta") < at("part") && at("part") < at("alpha"),
        "{source}"
    );
    assert!(at("zulu") < at("bravo"), "{source}");
}

#[test]
fn keys_typed_beside_properties_are_typed_maps() {
    let (source, warnings) = generated(
        "config",
        json!({
            "type": "object",
            "properties": {
                "labels": {
                    "type": "object",
                    "properties": {"team": {"type": "string"}},
                    "unevaluatedProperties": {"type": "string"}
                },
                "loose": {
                    "type": "object",
                    "properties": {"a": {"type": "string"}},
                    "patternProperties": {"^any": true},
                    "additionalProperties": false
                },
                "name": {"type": "string"}
            },
            "patternProperties": {
                "^port_": {"type": "object", "properties": {"number": {"type": "integer"}}},
                "^x-": {"type": "string"}
            },
            "additionalProperties": {"type": "integer"}
        }),
    );
    assert!(warnings.is_empty(), "{warnings:#?}");
    // One map per pattern (in the document's order, written here in the order `json!` gives
    // without `preserve_order`), then every other key.
    let config = fields_of(&source, "Config");
    assert_eq!(
        config[..3],
        [
            "pub labels: Option<ConfigLabels>,",
            "pub loose: Option<ConfigLoose>,",
            "pub name: Option<String>,",
        ]
    );
    let flat = source.split_whitespace().collect::<Vec<_>>().join(" ");
    for map in [
        r#"#[json(keys = "^port_")] /// The keys matching `^port_` (`patternProperties`), each an object; a value of another type stays in `unknown_fields`, and `mismatches` says so. pub pattern_properties: ::std::collections::BTreeMap< String, ConfigPatternProperties, >,"#,
        r#"#[json(keys = "^x-")] /// The keys matching `^x-` (`patternProperties`), each a string; a value of another type stays in `unknown_fields`, and `mismatches` says so. pub pattern_properties_2: ::std::collections::BTreeMap<String, String>,"#,
        r#"#[json(keys = "")] /// Every other key (`additionalProperties`), each an integer; a value of another type stays in `unknown_fields`, and `mismatches` says so. pub additional_properties: ::std::collections::BTreeMap<String, i64>, #[json(flatten)]"#,
    ] {
        assert!(flat.contains(map), "{map}\n{source}");
    }
    assert_eq!(
        fields_of(&source, "ConfigPatternProperties"),
        ["pub number: Option<i64>,"]
    );
    assert_eq!(
        fields_of(&source, "ConfigLabels"),
        [
            "pub team: Option<String>,",
            "pub unevaluated_properties: ::std::collections::BTreeMap<String, String>,",
        ]
    );
    // Values that may be anything, or no value at all: no map, the keys stay unknown fields.
    assert_eq!(
        fields_of(&source, "ConfigLoose"),
        ["pub a: Option<String>,"]
    );
}

/// A draft 7 schema has no `unevaluatedProperties` (2019-09 brought it in): it types no map,
/// as it checks nothing, and the warning says so where it is written.
#[test]
fn a_keyword_the_schemas_draft_lacks_types_nothing_and_is_named() {
    let (source, warnings) = generated(
        "config",
        json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "properties": {
                "labels": {
                    "type": "object",
                    "properties": {"team": {"type": "string"}},
                    "unevaluatedProperties": {"type": "string"}
                }
            }
        }),
    );
    assert_eq!(
        fields_of(&source, "ConfigLabels"),
        ["pub team: Option<String>,"]
    );
    assert_eq!(warnings.len(), 1, "{warnings:#?}");
    for said in [
        "/properties/labels/unevaluatedProperties",
        "`unevaluatedProperties` is a keyword of draft 2019-09 and later",
        "this schema is draft 7",
        "ignored",
    ] {
        assert!(
            warnings[0].contains(said),
            "{said:?} missing from {warnings:#?}"
        );
    }
}

/// Draft 4 makes `minimum` exclusive with `"exclusiveMinimum": true` beside it: read as the
/// exclusive bound it is (the docs say so), not warned about as a number of the wrong kind. Its
/// `id` is later drafts' `$id`: a reference to the anchor it names is the type found there.
/// Draft 4 has no `const` and draft 7 no `prefixItems`: a schema of that draft that writes one
/// means any value there (its validators ignore the keyword), so the type holds any value, and
/// the one warning is the compile's, naming the keyword and the draft.
#[test]
fn const_in_draft4_and_prefix_items_in_draft7_type_nothing() {
    for (meta, keyword, value, field) in [
        (
            "http://json-schema.org/draft-04/schema#",
            "const",
            json!(5),
            "pub pinned: Option<::agents_runtime::Value>,",
        ),
        (
            "http://json-schema.org/draft-07/schema#",
            "prefixItems",
            json!([{"type": "string"}]),
            "pub pinned: Option<Vec<::agents_runtime::Value>>,",
        ),
    ] {
        let mut pinned = json!({});
        if keyword == "prefixItems" {
            pinned["type"] = json!("array");
        }
        pinned[keyword] = value;
        let (source, warnings) = generated(
            "old",
            json!({"$schema": meta, "type": "object", "properties": {"pinned": pinned}}),
        );
        assert_eq!(fields_of(&source, "Old"), [field], "{keyword}");
        assert_eq!(warnings.len(), 1, "{keyword}: {warnings:#?}");
        assert!(
            warnings[0].contains(&format!("/properties/pinned/{keyword}"))
                && warnings[0].contains("ignored"),
            "{warnings:#?}"
        );
    }
}

#[test]
fn draft4_exclusive_bounds_and_ids_are_read() {
    let (source, warnings) = generated(
        "d4",
        json!({
            "$schema": "http://json-schema.org/draft-04/schema#",
            "type": "object",
            "properties": {
                "both": {
                    "type": "number",
                    "minimum": 0, "exclusiveMinimum": true,
                    "maximum": 10, "exclusiveMaximum": false
                },
                "tighter": {"type": "number", "minimum": 5, "exclusiveMinimum": 1},
                "short": {"$ref": "#short"}
            },
            "definitions": {"short": {"id": "#short", "type": "string", "maxLength": 2}}
        }),
    );
    assert!(warnings.is_empty(), "{warnings:#?}");
    let flat = source.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(flat.contains("pub short: Option<String>,"), "{source}");
    for doc in [
        "/// Range: 0 (exclusive) to 10. pub both: Option<f64>,",
        "/// Minimum: 5. pub tighter: Option<f64>,",
    ] {
        assert!(flat.contains(doc), "{doc}\n{source}");
    }
}

/// A reference may point anywhere in the document: under a key no JSON Schema keyword reads
/// (OpenAPI's `components/schemas`, where schemas taken from an API description keep their
/// definitions), inside `not`, or into a list. Each is typed from the schema it reaches.
#[test]
fn references_into_keys_no_keyword_reads_are_typed() {
    let (source, warnings) = generated(
        "openapi",
        json!({
            "type": "object",
            "properties": {
                "count": {"$ref": "#/not/anyOf/0"},
                "names": {"$ref": "#/x-lists/1"},
                "pet": {"$ref": "#/components/schemas/Pet"},
            },
            "components": {"schemas": {
                "Pet": {"type": "object", "properties": {
                    "name": {"type": "string"},
                    "owner": {"$ref": "#/components/schemas/Owner"},
                }},
                "Owner": {"type": "object", "properties": {"email": {"type": "string"}}},
            }},
            "not": {"anyOf": [{"type": "integer"}]},
            "x-lists": [{}, {"type": "array", "items": {"type": "string"}}],
        }),
    );
    assert!(warnings.is_empty(), "{warnings:#?}");
    assert_eq!(
        fields_of(&source, "Openapi"),
        [
            "pub count: Option<i64>,",
            "pub names: Option<Vec<String>>,",
            "pub pet: Option<OpenapiPet>,",
        ]
    );
    assert_eq!(
        fields_of(&source, "OpenapiPet"),
        [
            "pub name: Option<String>,",
            "pub owner: Option<OpenapiOwner>,"
        ]
    );
    assert_eq!(
        fields_of(&source, "OpenapiOwner"),
        ["pub email: Option<String>,"]
    );
}

#[test]
fn references_to_nowhere_are_raw_json_with_their_pointer() {
    let (source, warnings) = generated(
        "hostile",
        json!({
            "type": "object",
            "properties": {
                "missing": {"$ref": "#/$defs/missing"},
                "remote": {"$ref": "https://example.com/other.json#/x"},
                "bad_pointer": {"$ref": "#/properties/nothing/items"},
            },
        }),
    );
    for field in ["missing", "remote", "bad_pointer"] {
        assert!(
            source.contains(&format!("pub {field}: Option<::agents_runtime::Value>")),
            "{field}: {source}"
        );
        assert!(
            warnings.iter().any(
                |w| w.contains(&format!("output_schema#/properties/{field}/$ref"))
                    && w.contains("points nowhere")
            ),
            "{field}: {warnings:#?}"
        );
    }
}

#[test]
fn ten_thousand_properties_give_ten_thousand_fields() {
    let properties: Map<String, Value> = (0..10_000)
        .map(|i| {
            let ty = ["string", "number", "boolean", "integer"][i % 4];
            (format!("field_{i}"), json!({"type": ty}))
        })
        .collect();
    let (source, warnings) = generated(
        "hostile",
        json!({"type": "object", "properties": properties}),
    );
    assert_eq!(source.matches("pub field_").count(), 10_000);
    assert!(warnings.is_empty(), "{warnings:#?}");
}

#[test]
fn nesting_five_hundred_deep_is_typed_to_thirty_two_levels_then_raw() {
    let mut schema = json!({"type": "string"});
    for _ in 0..500 {
        schema = json!({"type": "object", "properties": {"inner": schema}});
    }
    // On a thread with the stack a build script's main thread has (rustc runs proc macros on a
    // thread with a larger one).
    let (source, warnings) = std::thread::Builder::new()
        .stack_size(8 << 20)
        .spawn(move || generated("hostile", schema))
        .unwrap()
        .join()
        .unwrap();
    assert_eq!(
        source.matches("pub struct Hostile").count(),
        33,
        "the record and 32 levels"
    );
    assert_eq!(
        source
            .matches("pub inner: Option<::agents_runtime::Value>")
            .count(),
        1
    );
    let deepest = "output_schema#".to_owned() + &"/properties/inner".repeat(32);
    assert_eq!(warnings.len(), 1, "{warnings:#?}");
    assert!(
        warnings[0].contains(&format!("{deepest}: objects nested more than 32 deep")),
        "{warnings:#?}"
    );
}

// ---- unions ----

/// The variant lines of enum `name` in `source`.
fn variants(source: &str, name: &str) -> Vec<String> {
    let start = source
        .find(&format!("pub enum {name} {{"))
        .unwrap_or_else(|| panic!("no enum {name} in:\n{source}"));
    source[start..]
        .lines()
        .skip(1)
        .take_while(|l| l.trim() != "}")
        .filter(|l| !l.trim_start().starts_with("///"))
        .map(|l| l.trim().to_owned())
        .collect()
}

#[test]
fn a_union_of_kinds_is_an_enum_named_after_its_field() {
    let src = source(json!({
        "on": {"oneOf": [
            {"type": "string", "enum": ["push", "pull"]},
            {"type": "array", "items": {"type": "string"}},
            {"type": "null"},
        ]},
        "size": {"anyOf": [{"type": "integer"}, {"type": "boolean"}]},
    }));
    // The string variant's listed values took the field's name.
    assert!(src.contains("pub on: Option<UOnUnion>,"), "{src}");
    assert_eq!(
        variants(&src, "UOnUnion"),
        ["String(UOn),", "List(Vec<String>),"]
    );
    assert_eq!(variants(&src, "USize"), ["Integer(i64),", "Boolean(bool),"]);
    assert!(src.contains("::agents_runtime::union_enum! {"), "{src}");
    assert!(src.contains("/// When the value is a list."), "{src}");
}

#[test]
fn an_object_variant_keeps_the_fields_name_and_the_union_is_named_union() {
    let src = source(json!({
        "runs-on": {"oneOf": [
            {"type": "string"},
            {"type": "object", "properties": {"group": {"type": "string"}}},
            {"type": "object", "properties": {"labels": {"type": "array", "items": {"type": "string"}}}},
        ]},
    }));
    assert!(src.contains("pub runs_on: Option<URunsOnUnion>,"), "{src}");
    assert_eq!(
        variants(&src, "URunsOnUnion"),
        ["String(String),", "Object(URunsOn),"]
    );
    assert!(src.contains("pub group: Option<String>,"), "{src}");
    assert!(src.contains("pub labels: Option<Vec<String>>,"), "{src}");
}

#[test]
fn one_kind_after_merging_is_no_enum_and_an_untyped_branch_keeps_raw_json() {
    let src = source(json!({
        "count": {"anyOf": [{"type": "integer"}, {"type": "number"}]},
        "name": {"oneOf": [{"type": "string"}, {"enum": ["a", "b"]}]},
        "free": {"oneOf": [{"type": "string"}, {"description": "anything"}]},
    }));
    assert!(src.contains("pub count: Option<f64>,"), "{src}");
    assert!(src.contains("pub name: Option<String>,"), "{src}");
    assert!(
        src.contains("pub free: Option<::agents_runtime::Value>,"),
        "{src}"
    );
    assert!(
        src.contains("the kind of value of branch 1 cannot be told"),
        "{src}"
    );
    assert!(!src.contains("union_enum!"), "{src}");
}
