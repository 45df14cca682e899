//! How a generation turns a prompt into an agent record: one output field per data item
//! the prompt names ("Extract the product name, price, rating and whether it is in stock" →
//! `product_name`, `price`, `rating`, `in_stock`), a `url` input unless an input_schema is given,
//! and for a refinement the existing record with the newly named fields added.

use agents_schema::{AgentRecord, FeatureFlags, FieldSchema, InputProperty, Json, SchemaType};
use indexmap::IndexMap;
use serde_json::{Map, Value, json};

/// Data items a prompt names, as snake_case field names, in order, without duplicates.
pub fn fields_of(prompt: &str) -> Vec<String> {
    let lower = prompt.to_lowercase();
    // What follows the verb is the list; without a verb, the whole prompt is.
    let list = [
        "extract ", "get ", "scrape ", "collect ", "capture ", "fetch ", "add ",
    ]
    .iter()
    .filter_map(|v| lower.find(v).map(|i| &lower[i + v.len()..]))
    .next()
    .unwrap_or(&lower);
    let list = list.split(['.', ';', ':', '\n']).next().unwrap_or("");
    let mut out: Vec<String> = Vec::new();
    for item in list.split(',').flat_map(|p| p.split(" and ")) {
        let words: Vec<&str> = item
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .filter(|w| !STOP.contains(w))
            .collect();
        if words.is_empty() {
            continue;
        }
        let name = words.join("_");
        let name = if name.starts_with(|c: char| c.is_ascii_digit()) {
            format!("field_{name}")
        } else {
            name
        };
        if !out.contains(&name) {
            out.push(name);
        }
    }
    out
}

const STOP: [&str; 22] = [
    "the",
    "a",
    "an",
    "of",
    "its",
    "their",
    "each",
    "every",
    "all",
    "from",
    "this",
    "that",
    "page",
    "whether",
    "it",
    "is",
    "also",
    "field",
    "fields",
    "for",
    "on",
    "product's",
];

/// The declared type a field name suggests.
fn field_schema(name: &str) -> FieldSchema {
    let ty = if [
        "price", "rating", "count", "number", "score", "amount", "total", "reviews", "stars",
    ]
    .iter()
    .any(|w| name.split('_').any(|p| p == *w))
    {
        "number"
    } else if name.starts_with("in_") || name.starts_with("is_") || name.starts_with("has_") {
        "boolean"
    } else if ["images", "tags", "links", "urls", "categories", "features"]
        .iter()
        .any(|w| name.ends_with(w))
    {
        return FieldSchema {
            ty: Some(SchemaType::One("array".into())),
            description: Some(name.replace('_', " ")),
            items: Some(Box::new(FieldSchema {
                ty: Some(SchemaType::One("string".into())),
                ..FieldSchema::default()
            })),
            ..FieldSchema::default()
        };
    } else {
        "string"
    };
    FieldSchema {
        ty: Some(SchemaType::One(ty.into())),
        description: Some(name.replace('_', " ")),
        format: (name.ends_with("_url") || name == "url").then(|| "uri".to_owned()),
        ..FieldSchema::default()
    }
}

/// A generated agent name from a URL's host: `https://shop.example/p/1` → `shop_example_agent`.
pub fn name_from_url(url: &str) -> String {
    let host = url
        .split("://")
        .nth(1)
        .unwrap_or(url)
        .split(['/', '?', '#', ':'])
        .next()
        .unwrap_or("");
    let host = host.strip_prefix("www.").unwrap_or(host);
    let base: String = host
        .chars()
        .map(|c| {
            if c.is_ascii_alphabetic() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect();
    let base = base
        .split('_')
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join("_");
    if base.is_empty() {
        "custom_agent".to_owned()
    } else {
        format!("{base}_agent")
    }
}

/// Whether a custom agent name is valid: lowercase letters and underscores, not
/// starting or ending with an underscore.
pub fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b == b'_' || b.is_ascii_digit())
        && name.starts_with(|c: char| c.is_ascii_lowercase())
        && !name.ends_with('_')
}

/// The record of a new agent, or `Err` with why it cannot be built.
pub fn new_agent(
    name: &str,
    prompt: &str,
    url: &str,
    input_schema: Option<&Json>,
    output_schema: Option<&Json>,
    metadata: Option<&Value>,
) -> Result<AgentRecord, String> {
    // Documents (objects with `properties`) are read as a template version's are, and kept as
    // written; a plain name → descriptor map or a list of inputs is the /v1 shape.
    let is_document = |v: &&Json| v.get("properties").and_then(Json::as_object).is_some();
    let documents = agents_schema::json_schema::record(
        name,
        input_schema.filter(is_document),
        output_schema.filter(is_document),
        None,
    )
    .map_err(|e| e.to_string())?;
    let output = match (output_schema, &documents.output_schema) {
        (Some(v), None) => schema_map(v)?,
        (Some(_), Some(read)) => read.clone(),
        (None, _) => fields_of(prompt)
            .into_iter()
            .map(|f| (f.clone(), field_schema(&f)))
            .collect(),
    };
    if output.is_empty() {
        return Err("the prompt names no data to extract; list the fields, for example \"extract the title, price and rating\"".into());
    }
    let inputs = match (input_schema, &documents.input_properties) {
        (Some(v), None) => input_list(v)?,
        (Some(_), Some(read)) => read.clone(),
        (None, _) => vec![url_input()],
    };
    let domain = url
        .split("://")
        .nth(1)
        .and_then(|r| r.split('/').next())
        .map(str::to_owned);
    let mut extra = Map::new();
    extra.insert("version_number".into(), json!(1));
    if let Some(m) = metadata {
        extra.insert("metadata".into(), m.clone());
    }
    Ok(AgentRecord {
        name: name.to_owned(),
        is_public: Some(false),
        display_name: Some(title(name)),
        managed_by: Some("self".into()),
        description: Some(prompt.trim().to_owned()),
        vertical: None,
        entity_type: Some("custom".into()),
        domain,
        input_properties: Some(inputs),
        output_schema: Some(output),
        feature_flags: documents.feature_flags.or_else(|| {
            documents
                .written
                .input
                .is_none()
                .then(FeatureFlags::default)
        }),
        output_document: documents.output_document,
        template_version: None,
        written: documents.written,
        extra,
    })
}

/// The record of a refinement: `base` with the fields the prompt names added.
pub fn refine(base: &AgentRecord, prompt: &str) -> Result<AgentRecord, String> {
    let mut record = base.clone();
    let output = record.output_schema.get_or_insert_with(IndexMap::new);
    let before = output.len();
    for f in fields_of(prompt) {
        if !output.contains_key(&f) {
            output.insert(f.clone(), field_schema(&f));
        }
    }
    if output.len() == before {
        return Err("the prompt names no field the agent does not already have".into());
    }
    let version = record
        .extra
        .get("version_number")
        .and_then(Value::as_u64)
        .unwrap_or(1);
    record
        .extra
        .insert("version_number".into(), json!(version + 1));
    Ok(record)
}

fn url_input() -> InputProperty {
    InputProperty {
        name: "url".into(),
        ty: Some("string".into()),
        description: Some("URL of the page to extract".into()),
        required: true,
        default: None,
        examples: None,
        rules: vec![agents_schema::rules::Rule::MinLength(1).into()],
        is_localization_param: false,
        is_pagination_param: false,
        extra: Map::new(),
    }
}

fn schema_map(v: &Json) -> Result<IndexMap<String, FieldSchema>, String> {
    // Accept both a plain name → descriptor map and a JSON Schema object with `properties`.
    let props = v.get("properties").unwrap_or(v);
    let probe = Json::Object(IndexMap::from([
        ("name".to_owned(), Json::String("probe".into())),
        ("output_schema".to_owned(), props.clone()),
    ]));
    AgentRecord::from_json(&probe.to_string())
        .map(|r| r.output_schema.unwrap_or_default())
        .map_err(|e| format!("output_schema: {e}"))
}

fn input_list(v: &Json) -> Result<Vec<InputProperty>, String> {
    let list = match v {
        Json::Array(_) => v.to_value(),
        // A map of input name to descriptor (a document with `properties` is read as one).
        Json::Object(m) => Value::Array(
            m.iter()
                .map(|(name, d)| {
                    let d = d.to_value();
                    json!({
                        "name": name,
                        "type": d.get("type").cloned().unwrap_or(json!("string")),
                        "description": d.get("description").cloned().unwrap_or(json!("")),
                        "required": false,
                        "rules": [],
                        "is_localization_param": false,
                        "is_pagination_param": false,
                    })
                })
                .collect(),
        ),
        _ => return Err("input_schema must be an object or an array of input properties".into()),
    };
    let probe = json!({ "name": "probe", "input_properties": list });
    AgentRecord::from_value(&probe)
        .map(|r| r.input_properties.unwrap_or_default())
        .map_err(|e| format!("input_schema: {e}"))
}

fn title(name: &str) -> String {
    name.split('_')
        .filter(|w| !w.is_empty())
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_uppercase().chain(c).collect::<String>())
                .unwrap_or_default()
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_come_from_the_items_a_prompt_names() {
        assert_eq!(
            fields_of("Extract the product name, price, rating and whether it is in stock."),
            ["product_name", "price", "rating", "in_stock"]
        );
        assert_eq!(
            fields_of("Please get title and author"),
            ["title", "author"]
        );
        assert!(fields_of("").is_empty());
    }

    #[test]
    fn types_follow_the_names() {
        let r = new_agent(
            "x",
            "extract price, in stock, images, title",
            "https://s.example/p",
            None,
            None,
            None,
        )
        .expect("record");
        let out = r.output_schema.expect("schema");
        let ty = |n: &str| {
            out[n]
                .ty
                .as_ref()
                .and_then(|t| t.single())
                .map(str::to_owned)
        };
        assert_eq!(ty("price").as_deref(), Some("number"));
        assert_eq!(ty("in_stock").as_deref(), Some("boolean"));
        assert_eq!(ty("images").as_deref(), Some("array"));
        assert_eq!(ty("title").as_deref(), Some("string"));
        assert_eq!(r.domain.as_deref(), Some("s.example"));
    }

    #[test]
    fn names() {
        assert_eq!(
            name_from_url("https://www.Shop-1.example/p?q"),
            "shop_example_agent"
        );
        assert!(valid_name("my_agent"));
        assert!(!valid_name("My_agent"));
        assert!(!valid_name("_x"));
        assert!(!valid_name(""));
    }
}
