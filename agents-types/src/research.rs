//! The rules of research agent and run requests (`/v2/agents`, `/v1/task-agents`): the one check
//! the client runs before sending and the emulator runs on what it receives, so both refuse the
//! same bodies with the same words.

use serde_json::{Map, Value};

use crate::endpoint::ApiVersion;

/// Use cases of research agents.
pub const USE_CASES: [&str; 3] = ["research", "enrichment", "dataset_building"];

/// A rule a request broke: the field at fault (a JSON path such as `sources.allow[0].domains`)
/// and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Broken {
    /// The field at fault.
    pub field: String,
    /// What is wrong, and what to send instead.
    pub message: String,
}

fn broken(field: impl Into<String>, message: impl Into<String>) -> Broken {
    Broken {
        field: field.into(),
        message: message.into(),
    }
}

/// The efforts `version` knows (the `efforts` row of [`crate::words`]).
pub fn efforts(version: ApiVersion) -> &'static [&'static str] {
    version.words().efforts
}

fn kind(v: &Value) -> &'static str {
    agents_wire::json::kind(v)
}

fn one_of(body: &Map<String, Value>, field: &str, allowed: &[&str], out: &mut Vec<Broken>) {
    match body.get(field) {
        None | Some(Value::Null) => {}
        Some(Value::String(s)) if allowed.contains(&s.as_str()) => {}
        Some(other) => out.push(broken(
            field,
            format!("{field} must be one of {}, not {other}", allowed.join(", ")),
        )),
    }
}

fn text(body: &Map<String, Value>, field: &str, out: &mut Vec<Broken>) {
    if let Some(v) = body.get(field).filter(|v| !v.is_null() && !v.is_string()) {
        out.push(broken(
            field,
            format!("{field} must be a string, not {}", kind(v)),
        ));
    }
}

fn texts(body: &Map<String, Value>, field: &str, out: &mut Vec<Broken>) {
    match body.get(field) {
        None | Some(Value::Null) => {}
        Some(Value::Array(items)) => {
            for (i, item) in items.iter().enumerate() {
                if !item.is_string() {
                    out.push(broken(
                        format!("{field}[{i}]"),
                        format!("each of {field} is a string, not {}", kind(item)),
                    ));
                }
            }
        }
        Some(other) => out.push(broken(
            field,
            format!("{field} must be a list of strings, not {}", kind(other)),
        )),
    }
}

fn schema(body: &Map<String, Value>, field: &str, out: &mut Vec<Broken>) {
    if let Some(v) = body.get(field).filter(|v| !v.is_null() && !v.is_object()) {
        out.push(broken(
            field,
            format!("{field} must be a JSON Schema object, not {}", kind(v)),
        ));
    }
}

/// `sources`: `{allow: [{title, domains, order?}], block: […], avoid?, prioritize?}`.
fn sources(body: &Map<String, Value>, out: &mut Vec<Broken>) {
    let Some(v) = body.get("sources").filter(|v| !v.is_null()) else {
        return;
    };
    let Some(s) = v.as_object() else {
        out.push(broken(
            "sources",
            format!("sources must be an object, not {}", kind(v)),
        ));
        return;
    };
    for list in ["allow", "block"] {
        let at = format!("sources.{list}");
        match s.get(list) {
            None | Some(Value::Null) => {}
            Some(Value::Array(groups)) => {
                for (i, g) in groups.iter().enumerate() {
                    let at = format!("{at}[{i}]");
                    let Some(g) = g.as_object() else {
                        out.push(broken(&at, "a source group is {title, domains, order?}"));
                        continue;
                    };
                    if !g.get("title").is_some_and(Value::is_string) {
                        out.push(broken(
                            format!("{at}.title"),
                            "a source group needs a title",
                        ));
                    }
                    let domains_ok = g
                        .get("domains")
                        .and_then(Value::as_array)
                        .is_some_and(|d| d.iter().all(Value::is_string));
                    if !domains_ok {
                        out.push(broken(
                            format!("{at}.domains"),
                            "a source group needs its domains, a list of strings",
                        ));
                    }
                }
            }
            Some(other) => out.push(broken(
                &at,
                format!("{at} must be a list of source groups, not {}", kind(other)),
            )),
        }
    }
    for field in ["avoid", "prioritize"] {
        if let Some(v) = s.get(field).filter(|v| !v.is_null() && !v.is_string()) {
            out.push(broken(
                format!("sources.{field}"),
                format!("sources.{field} must be a string, not {}", kind(v)),
            ));
        }
    }
}

/// Checks a new research agent, its body in the words records are kept in
/// ([`crate::words::KEPT`]); every broken rule, in field order.
pub fn check_agent(body: &Map<String, Value>, version: ApiVersion) -> Vec<Broken> {
    let mut out = Vec::new();
    one_of(body, "effort", efforts(version), &mut out);
    one_of(body, "use_case", &USE_CASES, &mut out);
    for field in [
        "agent_name",
        "display_name",
        "description",
        "icon",
        crate::words::KEPT.words().skill,
        "template",
    ] {
        text(body, field, &mut out);
    }
    texts(body, "goals", &mut out);
    texts(body, "suggested_questions", &mut out);
    if let Some(v) = body.get("is_active").filter(|v| !v.is_boolean()) {
        out.push(broken(
            "is_active",
            format!("is_active must be a boolean, not {}", kind(v)),
        ));
    }
    schema(body, "output_schema", &mut out);
    sources(body, &mut out);
    out
}

/// Checks a run request; every broken rule, in field order.
pub fn check_run(body: &Map<String, Value>, version: ApiVersion) -> Vec<Broken> {
    let mut out = Vec::new();
    match body.get("input") {
        Some(Value::String(s)) if !s.trim().is_empty() => {}
        Some(Value::String(_)) => out.push(broken(
            "input",
            "input must not be empty: ask a question or give instructions",
        )),
        None | Some(Value::Null) => out.push(broken(
            "input",
            "missing required field `input` (the question or instructions)",
        )),
        Some(other) => out.push(broken(
            "input",
            format!("input must be a string, not {}", kind(other)),
        )),
    }
    for field in version.words().research_run_absent {
        if body.contains_key(*field) {
            let has: Vec<String> = ApiVersion::ALL
                .iter()
                .filter(|v| !v.words().research_run_absent.contains(field))
                .map(|v| format!("/{v}"))
                .collect();
            out.push(broken(
                *field,
                format!(
                    "/{version} research runs have no `{field}`; use {}",
                    has.join(" or ")
                ),
            ));
        }
    }
    one_of(body, "effort", efforts(version), &mut out);
    one_of(body, "use_case", &USE_CASES, &mut out);
    one_of(body, "origin", &["api"], &mut out);
    for field in ["agent_name", "skill", "previous_interaction_id"] {
        text(body, field, &mut out);
    }
    if let Some(v) = body.get("enable_events").filter(|v| !v.is_boolean()) {
        out.push(broken(
            "enable_events",
            format!("enable_events must be a boolean, not {}", kind(v)),
        ));
    }
    match body.get("input_data") {
        None | Some(Value::Null) | Some(Value::Object(_)) => {}
        Some(Value::Array(rows)) => {
            for (i, row) in rows.iter().enumerate() {
                if !row.is_object() {
                    out.push(broken(
                        format!("input_data[{i}]"),
                        format!("each row of input_data is an object, not {}", kind(row)),
                    ));
                }
            }
        }
        Some(other) => out.push(broken(
            "input_data",
            format!(
                "input_data must be an object or a list of objects, not {}",
                kind(other)
            ),
        )),
    }
    schema(body, "output_schema", &mut out);
    sources(body, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn fields(found: Vec<Broken>) -> Vec<String> {
        found.into_iter().map(|b| b.field).collect()
    }

    #[test]
    fn every_broken_rule_is_named() {
        let body = json!({
            "input": "",
            "effort": "5x-high",
            "skill": "x",
            "input_data": [{}, 3],
            "sources": {"allow": [{"title": "t"}], "avoid": 1},
        });
        let body = body.as_object().unwrap();
        assert_eq!(
            fields(check_run(body, ApiVersion::V1)),
            [
                "input",
                "skill",
                "effort",
                "input_data[1]",
                "sources.allow[0].domains",
                "sources.avoid"
            ]
        );
        assert_eq!(
            fields(check_run(body, ApiVersion::V2)),
            [
                "input",
                "input_data[1]",
                "sources.allow[0].domains",
                "sources.avoid"
            ]
        );
        let agent = json!({"goals": ["a", 2], "output_schema": "x", "use_case": "chat"});
        assert_eq!(
            fields(check_agent(agent.as_object().unwrap(), ApiVersion::V2)),
            ["use_case", "goals[1]", "output_schema"]
        );
    }
}
