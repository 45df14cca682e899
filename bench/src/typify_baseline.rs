//! The codegen baseline: typify generating and formatting an agent's output schema written as
//! JSON Schema, the same job `agents_codegen` does for the record's output type.

use agents_schema::AgentRecord;
use schemars::schema::RootSchema;
use serde_json::Value;

/// The record's output schema as an equivalent draft-07 JSON Schema (see
/// [`crate::typify_input::record_schema`]).
pub fn json_schema(record: &AgentRecord, title: &str) -> Value {
    let properties = serde_json::to_value(&record.output_schema).unwrap_or(Value::Null);
    crate::typify_input::record_schema(properties, title)
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
