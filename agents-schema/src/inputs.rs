//! What an input property means: the kind of value it takes ([`ParamTy`]) and, in
//! [`crate::rules`], the rules it states. The generator turns these into Rust types and
//! `validate()`; the emulator judges requests by the same reading.

use crate::InputProperty;
use crate::rules::{InputRule, Pattern, Rule};

pub use crate::kind::{ItemTy, ParamTy};

/// The params every agent takes besides its declared inputs, with their kinds.
pub const COMMON_PARAMS: [(&str, ParamTy); 4] = [
    ("country", ParamTy::String),
    ("locale", ParamTy::String),
    ("tag", ParamTy::String),
    ("parse", ParamTy::Boolean),
];

pub use agents_wire::words::LOCALIZATION_PARAMS;

/// The kind of value of an input parameter, and a note for the docs when its declared type is
/// not known or is a cursor.
pub fn param_type(input: &InputProperty, is_page: bool) -> (ParamTy, Option<String>) {
    match input.ty.as_deref() {
        Some("number" | "integer") if is_page => (ParamTy::Page, None),
        None if is_page => (ParamTy::Page, None),
        Some("string") if is_page => (
            ParamTy::String,
            Some(
                "The pagination input is a string (an opaque cursor, not a page number): set it \
                 from what the previous page returned."
                    .to_owned(),
            ),
        ),
        Some("string") => (ParamTy::String, None),
        Some("number") => (ParamTy::Number, None),
        Some("integer") => (ParamTy::Integer, None),
        Some("boolean") => (ParamTy::Boolean, None),
        Some("array") => match item_type(input.extra.get("items")) {
            ItemTy::Any => (
                ParamTy::List(ItemTy::Any),
                Some(
                    "Its items are given as JSON (`serde_json::json!`): the record gives them no \
                     one kind, so theirs is not checked before sending."
                        .to_owned(),
                ),
            ),
            item => (ParamTy::List(item), None),
        },
        // An object's fields are not typed here; that it is an object is checked.
        Some("object") => (
            ParamTy::Object,
            Some(
                "It is given as a JSON object; its fields are sent as given, not checked before \
                 sending."
                    .to_owned(),
            ),
        ),
        Some(other) => (
            ParamTy::Any,
            Some(format!(
                "The record declares type `{other}`, which the generator does not know; any JSON value is accepted."
            )),
        ),
        None => (
            ParamTy::Any,
            Some("The record declares no type; any JSON value is accepted.".to_owned()),
        ),
    }
}

/// The keywords that constrain a value (JSON Schema's validation vocabulary) which an input's
/// [`Rule`]s and kind do not cover: those no rule is made of, and those a rule is made of when
/// the input's kind does not let it apply (an `enum` of numbers, `minLength` on an input of no
/// one type), which the reader leaves in the input's `extra`. They are judged by the input
/// schema itself ([`judged_document`]), in a generated `validate()` and in the request check
/// alike.
const UNCHECKED: [&str; 37] = [
    "const",
    "enum",
    "minLength",
    "maxLength",
    "pattern",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minItems",
    "maxItems",
    "uniqueItems",
    "items",
    "prefixItems",
    "additionalItems",
    "contains",
    "minContains",
    "maxContains",
    "unevaluatedItems",
    "properties",
    "required",
    "patternProperties",
    "additionalProperties",
    "unevaluatedProperties",
    "propertyNames",
    "minProperties",
    "maxProperties",
    "dependentRequired",
    "dependentSchemas",
    "dependencies",
    "not",
    "if",
    "allOf",
    "anyOf",
    "oneOf",
    "$ref",
];

/// Keys that say what a value is or means, not what it may be.
const SAYS_WHAT: [&str; 6] = [
    "type",
    "title",
    "description",
    "$comment",
    "examples",
    "default",
];

/// The keywords of `input`'s schema that constrain its value and are not typed rules (`const`,
/// `uniqueItems`, `contains`, an object input's `properties`, `not`, `if`, …), in one fixed
/// order whatever order the map keeps. `items` counts when it says more than its items' type;
/// `anyOf`/`oneOf`/`allOf` when a branch does (a nullable type is its kind, already read).
pub fn unchecked_keywords(input: &InputProperty) -> Vec<&'static str> {
    use serde_json::Value;
    let says_more = |v: &Value| match v {
        Value::Object(m) => m.keys().any(|k| !SAYS_WHAT.contains(&k.as_str())),
        Value::Bool(b) => !b,
        _ => false,
    };
    UNCHECKED
        .into_iter()
        .filter(|k| match (*k, input.extra.get(*k)) {
            (_, None) => false,
            ("items", Some(v)) => says_more(v),
            ("anyOf" | "oneOf" | "allOf", Some(v)) => {
                v.as_array().is_some_and(|b| b.iter().any(says_more))
            }
            _ => true,
        })
        .collect()
}

/// The keywords of an input document's root that constrain the params as a whole and that no
/// input's rules cover: which params may be given (`additionalProperties`, `propertyNames`,
/// `patternProperties`, `unevaluatedProperties`), how many, which go together
/// (`dependentRequired`, `dependentSchemas`, `dependencies`), and branches (`not`, `if`,
/// `allOf`, `anyOf`, `oneOf`, `$ref`, `const`, `enum`).
const ROOT_UNCHECKED: [&str; 17] = [
    "additionalProperties",
    "patternProperties",
    "unevaluatedProperties",
    "propertyNames",
    "minProperties",
    "maxProperties",
    "dependentRequired",
    "dependentSchemas",
    "dependencies",
    "not",
    "if",
    "allOf",
    "anyOf",
    "oneOf",
    "$ref",
    "const",
    "enum",
];

/// The keywords of an input document's root that constrain the params as a whole (root
/// `additionalProperties: false`, `dependentRequired`, a root `oneOf`, …), in one fixed order.
pub fn unchecked_root_keywords(document: &serde_json::Value) -> Vec<&'static str> {
    let Some(root) = document.as_object() else {
        return Vec::new();
    };
    ROOT_UNCHECKED
        .into_iter()
        .filter(|k| root.contains_key(*k))
        .collect()
}

/// The input document a generated `validate()` and the request check judge params by: what
/// the typed check does not already say. Each input's schema is its [`InputProperty::extra`]
/// (its schema, a `$ref` followed, less its type and the keywords read as [`Rule`]s), or `true`
/// when nothing is left of it; the [`COMMON_PARAMS`] every agent takes are allowed; `required`
/// keeps only names no input declares; the root's other
/// keywords (`$defs`, `$schema`, `additionalProperties`, `dependentRequired`, …) are kept as
/// written. `None` when there is nothing to judge: no input has [`unchecked_keywords`] and the
/// root has no [`unchecked_root_keywords`].
pub fn judged_document(record: &crate::AgentRecord) -> Option<serde_json::Value> {
    use serde_json::{Map, Value};
    let mut document = match record.written.input.as_ref().map(|d| d.to_value()) {
        Some(Value::Object(m)) => m,
        _ => Map::new(),
    };
    let inputs = record.inputs();
    let declared = |name: &str| inputs.iter().any(|i| i.name == name);
    // A declared input's `required` is the typed check's (its constructor takes it).
    let required: Vec<Value> = (document.get("required").and_then(Value::as_array))
        .into_iter()
        .flatten()
        .filter(|name| !name.as_str().is_some_and(declared))
        .cloned()
        .collect();
    if !ROOT_UNCHECKED.iter().any(|k| document.contains_key(*k))
        && required.is_empty()
        && inputs.iter().all(|i| unchecked_keywords(i).is_empty())
    {
        return None;
    }
    let mut properties = Map::new();
    for input in inputs {
        if properties.contains_key(&input.name) {
            // A repeated declaration: the first one is the input.
            continue;
        }
        let schema = if unchecked_keywords(input).is_empty() {
            Value::Bool(true)
        } else {
            Value::Object(input.extra.clone())
        };
        properties.insert(input.name.clone(), schema);
    }
    // Every agent takes the common params, whatever its schema says of other properties.
    for (name, _) in COMMON_PARAMS {
        properties.entry(name).or_insert(Value::Bool(true));
    }
    document.remove("type");
    document.remove("required");
    if !required.is_empty() {
        document.insert("required".into(), Value::Array(required));
    }
    document.insert("properties".into(), Value::Object(properties));
    Some(Value::Object(document))
}

/// The kind of a list input's items, from its `items`: a string, number, integer or boolean
/// type, or an `enum` of strings. Anything else (objects, lists, nullable or mixed items, a
/// `$ref`) is any JSON value, since a `Vec` of one scalar type could not hold it.
fn item_type(items: Option<&serde_json::Value>) -> ItemTy {
    use serde_json::Value;
    let Some(Value::Object(items)) = items else {
        return ItemTy::Any;
    };
    match items.get("type") {
        Some(Value::String(t)) => match t.as_str() {
            "string" => ItemTy::String,
            "number" => ItemTy::Number,
            "integer" => ItemTy::Integer,
            "boolean" => ItemTy::Boolean,
            _ => ItemTy::Any,
        },
        None => match items.get("enum") {
            Some(Value::Array(values))
                if !values.is_empty() && values.iter().all(Value::is_string) =>
            {
                ItemTy::String
            }
            _ => ItemTy::Any,
        },
        _ => ItemTy::Any,
    }
}

/// The params that page through results, when a JSON Schema input names one and says nothing
/// else (`/v2` records carry no pagination flag).
pub const PAGINATION_PARAMS: [&str; 1] = ["page"];

/// The inputs of a JSON Schema input document (a `/v2` template's `input_schema`, or a user's
/// `NAME.input.schema.json`): one per property, in order.
///
/// The keywords a generated `validate()` checks become typed [`Rule`]s (`minLength: 3` is
/// [`Rule::MinLength`]`(3)`, `enum` of strings [`Rule::OneOf`]; also `minimum`, `maximum`,
/// `maxLength`, `pattern`, `exclusiveMinimum`, `exclusiveMaximum`, `multipleOf`, `minItems`,
/// `maxItems`), stated in words for the docs; `x-rules` adds rules written as text. A property's type is its `type`, the one non-null type
/// of a list or of an `anyOf`/`oneOf`, or `string` for an `enum` of strings; a `$ref` to the
/// document's `$defs` is followed.
///
/// `/v2` records carry no localization or pagination flags, so they are derived by name: an
/// input named `zip_code` or `store_id` localizes the request, one named `page` taking a number
/// is the page number. `x-localization` and `x-pagination` (`true` or `false`) on a property say
/// otherwise. Keys this reading does not use are kept in the input's `extra`.
pub fn from_json_schema(doc: &crate::FieldSchema) -> Vec<InputProperty> {
    let required = doc.required.as_deref().unwrap_or_default();
    doc.properties
        .iter()
        .flatten()
        .map(|(name, p)| {
            let p = match &p.reference {
                Some(r) => doc.resolve(r).unwrap_or(p),
                None => p,
            };
            input(name, p, required.contains(name))
        })
        .collect()
}

fn input(name: &str, p: &crate::FieldSchema, required: bool) -> InputProperty {
    use serde_json::Value;

    // Each rule with the keyword that states it, and whether the schema can judge it when the
    // input's kind does not let the typed check (a doc-only pattern or `multipleOf` is a
    // problem of the schema, said as such, not a rule to judge).
    let mut stated: Vec<(&'static str, InputRule, bool)> = Vec::new();
    let mut rule = |keyword, r: Rule| stated.push((keyword, r.into(), true));
    let count = |n: u64| usize::try_from(n).unwrap_or(usize::MAX);
    if let Some(n) = p.min_length {
        rule("minLength", Rule::MinLength(count(n)));
    }
    if let Some(n) = p.max_length {
        rule("maxLength", Rule::MaxLength(count(n)));
    }
    if let Some(n) = p.minimum {
        rule("minimum", Rule::Minimum(n));
    }
    if let Some(n) = p.maximum {
        rule("maximum", Rule::Maximum(n));
    }
    if let Some(n) = p.exclusive_minimum {
        rule("exclusiveMinimum", Rule::ExclusiveMinimum(n));
    }
    if let Some(n) = p.exclusive_maximum {
        rule("exclusiveMaximum", Rule::ExclusiveMaximum(n));
    }
    if let Some(n) = p.multiple_of.filter(|n| *n > 0.0) {
        rule("multipleOf", Rule::MultipleOf(n));
    }
    if let Some(n) = p.min_items {
        rule("minItems", Rule::MinItems(count(n)));
    }
    if let Some(n) = p.max_items {
        rule("maxItems", Rule::MaxItems(count(n)));
    }
    if let Some(n) = p.multiple_of.filter(|n| *n <= 0.0) {
        stated.push((
            "multipleOf",
            InputRule::doc_only(
                format!("multiple of {n}"),
                "multipleOf must be greater than 0",
            ),
            false,
        ));
    }
    if let Some(re) = &p.pattern {
        stated.push(match Pattern::new(re) {
            Ok(pattern) => ("pattern", Rule::Pattern(pattern).into(), true),
            Err(why) => (
                "pattern",
                InputRule::doc_only(format!("pattern {re}"), why),
                false,
            ),
        });
    }
    if let Some(values) = &p.enum_values {
        let strings: Option<Vec<String>> = values
            .iter()
            .map(|v| v.as_str().map(str::to_owned))
            .collect();
        stated.push(match strings {
            Some(strings) if !strings.is_empty() => ("enum", Rule::OneOf(strings).into(), true),
            _ => {
                let words: Vec<String> = values
                    .iter()
                    .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_owned))
                    .collect();
                (
                    "enum",
                    InputRule::doc_only(
                        format!("one of {}", words.join(", ")),
                        "only a list of strings is checked",
                    ),
                    true,
                )
            }
        });
    }
    let flag = |key: &str| p.extra.get(key).and_then(Value::as_bool);
    let ty = single_type(p);
    let numeric = matches!(ty.as_deref(), Some("integer" | "number"));
    let written = match serde_json::to_value(p) {
        Ok(Value::Object(m)) => m,
        _ => serde_json::Map::new(),
    };
    // What the input's own fields and rules hold is not kept again among its other keywords.
    let mut extra = written.clone();
    let own = [
        "type",
        "description",
        "default",
        "examples",
        "x-rules",
        "x-localization",
        "x-pagination",
    ];
    for key in own
        .into_iter()
        .chain(stated.iter().map(|(keyword, ..)| *keyword))
    {
        extra.remove(key);
    }
    let mut input = InputProperty {
        name: name.to_owned(),
        ty,
        description: p.description.clone().or_else(|| p.title.clone()),
        required,
        default: p.default.clone(),
        examples: p.examples.clone(),
        rules: Vec::new(),
        is_localization_param: flag("x-localization")
            .unwrap_or(LOCALIZATION_PARAMS.contains(&name)),
        is_pagination_param: flag("x-pagination")
            .unwrap_or(numeric && PAGINATION_PARAMS.contains(&name)),
        extra,
    };
    // A rule the input's kind does not let the typed check apply is still the schema's word:
    // an `enum` of numbers, or a bound on an input of no one type (which may be a string or a
    // number). It stays a keyword of the input's schema, judged by the schema itself.
    let (kind, _) = param_type(&input, false);
    for (keyword, rule, judgeable) in stated {
        let typed = rule.check(kind).is_ok();
        let meaningful = kind == ParamTy::Any || keyword == "enum";
        match written.get(keyword) {
            Some(value) if judgeable && !typed && meaningful => {
                input.extra.insert(keyword.to_owned(), value.clone());
            }
            _ => input.rules.push(rule),
        }
    }
    input.rules.extend(
        p.extra
            .get("x-rules")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(InputRule::read),
    );
    input
}

/// The one type a JSON Schema property takes, `null` aside.
fn single_type(p: &crate::FieldSchema) -> Option<String> {
    if let Some(t) = p.ty.as_ref().and_then(crate::SchemaType::single) {
        return Some(t.to_owned());
    }
    let branches = p.any_of.as_ref().or(p.one_of.as_ref());
    if let Some(list) = branches {
        let mut types = list
            .iter()
            .filter(|b| b.ty.as_ref().and_then(crate::SchemaType::single) != Some("null"))
            .filter_map(single_type);
        if let (Some(only), None) = (types.next(), types.next()) {
            return Some(only);
        }
    }
    let strings = p
        .enum_values
        .as_ref()
        .is_some_and(|v| !v.is_empty() && v.iter().all(serde_json::Value::is_string));
    strings.then(|| "string".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind_of(property: serde_json::Value) -> ParamTy {
        let record = crate::AgentRecord::from_value(&serde_json::json!({
            "name": "a",
            "input_schema": {"type": "object", "properties": {"x": property}},
            "output_schema": {"type": "object", "properties": {}},
        }))
        .unwrap();
        param_type(&record.inputs()[0], false).0
    }

    #[test]
    fn a_list_input_takes_its_items_kind_when_it_is_one_scalar() {
        use serde_json::json;
        for (property, kind) in [
            (
                json!({"type": "array", "items": {"type": "string"}}),
                ParamTy::List(ItemTy::String),
            ),
            (
                json!({"type": "array", "items": {"enum": ["a", "b"]}}),
                ParamTy::List(ItemTy::String),
            ),
            (
                json!({"type": ["array", "null"], "items": {"type": "integer"}}),
                ParamTy::List(ItemTy::Integer),
            ),
            // A null item, an object or a mixed list does not fit a `Vec` of one scalar.
            (
                json!({"type": "array", "items": {"type": ["string", "null"]}}),
                ParamTy::List(ItemTy::Any),
            ),
            (
                json!({"type": "array", "items": {"type": "object"}}),
                ParamTy::List(ItemTy::Any),
            ),
            (
                json!({"type": "array", "items": {"enum": ["a", 1]}}),
                ParamTy::List(ItemTy::Any),
            ),
            (json!({"type": "array"}), ParamTy::List(ItemTy::Any)),
            (json!({"type": "object"}), ParamTy::Object),
            (json!({}), ParamTy::Any),
        ] {
            assert_eq!(kind_of(property.clone()), kind, "{property}");
        }
    }

    fn judged(input_schema: serde_json::Value) -> Option<serde_json::Value> {
        let record = crate::AgentRecord::from_value(&serde_json::json!({
            "name": "a",
            "input_schema": input_schema,
            "output_schema": {"type": "object", "properties": {}},
        }))
        .unwrap();
        judged_document(&record)
    }

    /// The judged document holds what the typed check does not say: an input's keywords with
    /// its type and typed rules left out (through a `$ref`), `true` for an input with nothing
    /// left, the common params allowed, `required` only for names no input declares.
    #[test]
    fn the_judged_document_leaves_out_what_the_typed_check_says() {
        use serde_json::json;
        assert_eq!(
            judged(json!({"type": "object", "required": ["q"], "properties": {
                "q": {"type": "string", "minLength": 2, "pattern": "^a"},
                "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 3},
            }})),
            None
        );
        let document = judged(json!({
            "type": "object",
            "required": ["q", "token", "country"],
            "properties": {
                "q": {"type": "string", "minLength": 2},
                "tags": {"$ref": "#/$defs/tags"},
            },
            "$defs": {"tags": {"type": "array", "maxItems": 3, "uniqueItems": true}},
            "additionalProperties": false,
        }))
        .unwrap();
        assert_eq!(document["properties"]["q"], json!(true));
        assert_eq!(document["properties"]["tags"], json!({"uniqueItems": true}));
        assert_eq!(document["properties"]["country"], json!(true));
        assert_eq!(document["required"], json!(["token", "country"]));
        assert_eq!(document["additionalProperties"], json!(false));
        assert!(document.get("type").is_none());
        // A required name no input declares is the schema's to judge.
        let document =
            judged(json!({"properties": {"q": {"type": "string"}}, "required": ["token"]}));
        assert_eq!(document.unwrap()["required"], json!(["token"]));
        assert_eq!(
            unchecked_root_keywords(&json!({"oneOf": [], "properties": {}, "not": {}})),
            ["not", "oneOf"]
        );
    }

    /// A rule the input's kind lets no typed check apply is left to the schema: an `enum` of
    /// numbers, the bounds of an input of no one type. One that cannot apply to the kind's
    /// values at all (`minimum` on a string) says nothing to judge, and a string `enum` on a
    /// string input stays a typed rule.
    #[test]
    fn rules_the_kind_does_not_let_apply_are_judged_by_the_schema() {
        use serde_json::json;
        let document = judged(json!({"type": "object", "properties": {
            "size": {"type": "integer", "enum": [1, 2, 3], "minimum": 1},
            "loose": {"minLength": 2, "maximum": 9},
            "both": {"type": ["string", "integer"], "pattern": "^a"},
            "code": {"type": "string", "enum": ["x"], "minimum": 3},
        }}))
        .unwrap();
        let properties = &document["properties"];
        assert_eq!(properties["size"], json!({"enum": [1, 2, 3]}));
        assert_eq!(properties["loose"], json!({"minLength": 2, "maximum": 9}));
        assert_eq!(properties["both"], json!({"pattern": "^a"}));
        assert_eq!(properties["code"], json!(true));
        let record = crate::AgentRecord::from_value(&json!({
            "name": "a",
            "input_schema": {"type": "object", "properties": {
                "size": {"type": "integer", "enum": [1, 2], "minimum": 1},
            }},
            "output_schema": {"type": "object", "properties": {}},
        }))
        .unwrap();
        let size = &record.inputs()[0];
        assert_eq!(size.rules, ["minimum 1"]);
        assert_eq!(unchecked_keywords(size), ["enum"]);
    }
}
