//! Checks an agent request against the agent's record, as the service does (spec 4.4, 7).
//!
//! Which status a problem gets:
//! * 400: a missing required parameter, a `params` that is not an object, `localization` missing
//!   while `params` has a localization parameter (spec 4.4, params rule 3);
//! * 422: a parameter of the wrong type, a broken input rule, localization on an agent without
//!   `is_localization_supported`, a bad common parameter (country, locale, tag, parse).
//!
//! Input rules are read by the generator's own rule parser (`agents_schema::rules`) and checked
//! by the runtime's `Violations`, so the emulator and generated `validate()` agree on every rule.

use agents_runtime::validate::{Violations, check_json};
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
/// clients send) or an object (the spec's form).
pub fn localization_on(value: Option<&Value>) -> bool {
    matches!(value, Some(Value::Bool(true) | Value::Object(_)))
}

/// Checks `params` and `localization` of one agent request; `at` prefixes field paths
/// (`params` for a run, `inputs[3].params` for a batch item).
pub fn check(
    record: &AgentRecord,
    params: &Value,
    localization: Option<&Value>,
    at: &str,
) -> Result<(), ApiError> {
    let Some(params) = params.as_object() else {
        return Err(ApiError::bad_request(
            at,
            format!("{at} must be a JSON object"),
        ));
    };
    let page = record.pagination_param().map(|p| p.name.as_str());
    for input in record.inputs() {
        let is_page = page == Some(input.name.as_str());
        if input.required && !is_page && params.get(&input.name).is_none_or(Value::is_null) {
            return Err(ApiError::bad_request(
                format!("{at}.{}", input.name),
                format!(
                    "missing required parameter `{}` of agent `{}`",
                    input.name, record.name
                ),
            ));
        }
    }

    let mut violations = Violations::new(record.name.clone());
    check_json(record, params, &mut violations)
        .map_err(|e| ApiError::invalid(format!("{at}.{}", e.param), e.to_string()))?;
    check_common(params, at, &mut violations)?;
    if let Err(e) = violations.finish() {
        let first = e.violations.first().map(|v| format!("{at}.{}", v.param));
        let details: Vec<Value> = e
            .violations
            .iter()
            .map(|v| json!({"param": v.param, "rule": v.rule, "message": v.message}))
            .collect();
        return Err(ApiError::invalid(first.unwrap_or_default(), e.to_string())
            .details(Value::Array(details)));
    }

    let localizing: Vec<&str> = params
        .keys()
        .map(String::as_str)
        .filter(|k| {
            matches!(*k, "zip_code" | "store_id")
                || record
                    .inputs()
                    .iter()
                    .any(|i| i.is_localization_param && i.name == *k)
        })
        .filter(|k| params.get(*k).is_some_and(|v| !v.is_null()))
        .collect();
    let on = localization_on(localization);
    if !record.supports_localization() {
        if let Some(k) = localizing.first() {
            return Err(ApiError::invalid(
                format!("{at}.{k}"),
                format!(
                    "agent `{}` does not support localization, so `{k}` is not accepted",
                    record.name
                ),
            ));
        }
        if on {
            return Err(ApiError::invalid(
                "localization",
                format!("agent `{}` does not support localization", record.name),
            ));
        }
    } else if let Some(k) = localizing.first()
        && !on
    {
        return Err(ApiError::bad_request(
            "localization",
            format!("localization is required when params contains `{k}`"),
        ));
    }
    if let Some(v) = localization
        && !matches!(v, Value::Bool(_) | Value::Object(_) | Value::Null)
    {
        return Err(ApiError::invalid(
            "localization",
            format!(
                "localization must be a boolean or an object, not {}",
                kind(v)
            ),
        ));
    }
    Ok(())
}

/// The common params of spec 4.4, params rule 2.
fn check_common(
    params: &Map<String, Value>,
    at: &str,
    violations: &mut Violations,
) -> Result<(), ApiError> {
    let wrong = |name: &str, what: &str, v: &Value| {
        ApiError::invalid(
            format!("{at}.{name}"),
            format!("parameter `{name}` must be {what}, not {}", kind(v)),
        )
    };
    for name in ["country", "locale", "tag"] {
        match params.get(name) {
            None | Some(Value::Null) => {}
            Some(Value::String(s)) if name == "country" => violations.country_code(name, s),
            Some(Value::String(_)) => {}
            Some(v) => return Err(wrong(name, "a string", v)),
        }
    }
    match params.get("parse") {
        None | Some(Value::Null | Value::Bool(_)) => Ok(()),
        Some(v) => Err(wrong("parse", "a boolean", v)),
    }
}

/// The JSON kind of a value, for messages.
pub use agents_runtime::validate::json_kind as kind;
