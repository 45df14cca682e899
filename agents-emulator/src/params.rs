//! Checks an agent request against the agent's record, as the service does, with the runtime's
//! one request check (`agents_runtime::validate::RequestCheck`, made once per request body, so a
//! batch's items share it), which also decides 400 versus 422. Input rules are the typed rules
//! read once with the record (`agents_schema::rules`), the same values the generator writes
//! `validate()` from, so the emulator, the CLI and generated code agree on every rule.

use agents_runtime::validate::{Localization, Problem, RequestCheck};
use agents_schema::AgentRecord;
use serde_json::{Map, Value, json};

use crate::error::ApiError;

/// The page a paginated request asks for (`page` may arrive as a number or a string).
pub fn page_number(record: &AgentRecord, params: &Map<String, Value>) -> Option<u32> {
    let name = &record.pagination_param()?.name;
    match params.get(name)? {
        Value::Number(n) => n.as_u64().and_then(|n| u32::try_from(n).ok()),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// Whether `localization` in a request turns localization on: `true` (what the vendor's
/// clients send) or an object (the documented form).
pub fn localization_on(value: Option<&Value>) -> bool {
    matches!(value, Some(Value::Bool(true) | Value::Object(_)))
}

/// Checks `params` and `localization` of one agent request with the runtime's one request check
/// (every problem collected); `at` prefixes field paths (`params` for a run,
/// `inputs[3].params` for a batch item). The answer names the first problem's field, lists every
/// problem in its message and `details`, and takes the status the check decides.
pub fn check(
    check: &RequestCheck<'_>,
    params: &Value,
    localization: Option<&Value>,
    at: &str,
) -> Result<(), ApiError> {
    answer(check.check(params, Localization::Sent(localization)), at)
}

/// [`check`] for params whose localization the service derives from them (a job's inputs).
pub fn check_derived(check: &RequestCheck<'_>, params: &Value, at: &str) -> Result<(), ApiError> {
    answer(check.check(params, Localization::Derived), at)
}

fn answer(
    checked: Result<(), agents_runtime::validate::RequestProblems>,
    at: &str,
) -> Result<(), ApiError> {
    let Err(found) = checked else {
        return Ok(());
    };
    let field = |p: &Problem| match p.param.as_str() {
        "" => at.to_owned(),
        "localization" => "localization".to_owned(),
        name => format!("{at}.{name}"),
    };
    let first = found.problems.first().map(field).unwrap_or_default();
    let details: Vec<Value> = found
        .problems
        .iter()
        .map(|p| json!({"field": field(p), "param": p.param, "rule": p.rule, "message": p.message}))
        .collect();
    let message = found
        .problems
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("; ");
    Err(ApiError::with_status(found.status(), first, message).details(Value::Array(details)))
}

/// The JSON kind of a value, for messages.
pub use agents_runtime::validate::json_kind as kind;
