//! The codegen baseline: typify generating and formatting an agent's output schema written as
//! JSON Schema, the same job `agents_codegen` does for the record's output type.

use agents_schema::AgentRecord;
use schemars::schema::RootSchema;
use serde_json::{Value, json};

/// The record's output schema as an equivalent draft-07 JSON Schema. The service's field schemas
/// already use JSON Schema keywords (`type`, `description`, `format`, `minimum`, `maximum`,
/// `items`, `properties`) and no field is required, so the output schema becomes the root's
/// `properties` as is, taken from the record's JSON rather than re-written by hand.
pub fn json_schema(record: &AgentRecord, title: &str) -> Value {
    let properties = serde_json::to_value(&record.output_schema).unwrap_or(Value::Null);
    json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "title": title,
        "type": "object",
        "properties": properties,
    })
}

/// Parses the JSON Schema into typify's input type.
pub fn root_schema(schema: &Value) -> RootSchema {
    match serde_json::from_value(schema.clone()) {
        Ok(root) => root,
        Err(e) => panic!("the JSON Schema rendering of the output schema is not a RootSchema: {e}"),
    }
}

/// typify's generate + format: a fresh type space, the root schema added (typify takes it by
/// value: callers clone outside the timed part), the token stream parsed and printed by
/// prettyplease (as `agents_codegen` does). Returns the source.
pub fn generate(root: RootSchema) -> String {
    let mut space = typify::TypeSpace::new(&typify::TypeSpaceSettings::default());
    if let Err(e) = space.add_root_schema(root) {
        panic!("typify rejected the schema: {e}");
    }
    match syn::parse2::<syn::File>(space.to_stream()) {
        Ok(file) => prettyplease::unparse(&file),
        Err(e) => panic!("typify's output does not parse: {e}"),
    }
}
