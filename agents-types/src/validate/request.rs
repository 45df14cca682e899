//! The one request check of raw requests, the CLI and the emulator: an agent request against
//! the agent's record, every problem collected (feature `records`, which reads records with
//! `agents-schema`).

use super::{Problem, ProblemKind, RequestProblems, Violations, json_kind};

/// A JSON parameter whose value is not of its input's type.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("parameter `{param}` must be {expected}, not {found}")]
pub struct WrongType {
    /// The parameter.
    pub param: String,
    /// What its input takes (`a number`).
    pub expected: &'static str,
    /// What it was (`a string`).
    pub found: &'static str,
}

/// A parameter value read as its declared type.
enum Typed<'a> {
    Text(&'a str),
    Number(f64),
    /// An input the record does not type (lists among them).
    Json(&'a serde_json::Value),
    Other,
}

fn typed_value(ty: agents_schema::inputs::ParamTy, value: &serde_json::Value) -> Option<Typed<'_>> {
    use agents_schema::inputs::ParamTy;
    use serde_json::Value;
    match (ty, value) {
        (ParamTy::String, Value::String(s)) => Some(Typed::Text(s)),
        (ParamTy::Number, Value::Number(n)) => n.as_f64().map(Typed::Number),
        (ParamTy::Integer, Value::Number(n)) if n.is_i64() || n.is_u64() => {
            n.as_f64().map(Typed::Number)
        }
        // A page arrives as a number, sometimes as a string ("1").
        (ParamTy::Page, Value::Number(n)) if n.is_u64() => n.as_f64().map(Typed::Number),
        (ParamTy::Page, Value::String(s)) => s
            .trim()
            .parse::<u32>()
            .ok()
            .map(|p| Typed::Number(p.into())),
        (ParamTy::List(item), Value::Array(items)) if items.iter().all(|i| item.fits(i)) => {
            Some(Typed::Json(value))
        }
        (ParamTy::Object, Value::Object(_)) | (ParamTy::Any, _) => Some(Typed::Json(value)),
        (ParamTy::Boolean, Value::Bool(_)) => Some(Typed::Other),
        _ => None,
    }
}

fn apply(
    v: &mut Violations,
    param: &str,
    text: &str,
    rule: &agents_schema::rules::Rule,
    value: &Typed<'_>,
) {
    use agents_schema::rules::Rule;
    match (rule, value) {
        (Rule::MinLength(n), Typed::Text(s)) => v.min_length(param, text, s, *n),
        (Rule::MaxLength(n), Typed::Text(s)) => v.max_length(param, text, s, *n),
        (Rule::Minimum(m), Typed::Number(x)) => v.minimum(param, text, *x, *m),
        (Rule::Maximum(m), Typed::Number(x)) => v.maximum(param, text, *x, *m),
        (Rule::Pattern(p), Typed::Text(s)) => v.matches(param, text, s, p.compiled()),
        (Rule::OneOf(values), Typed::Text(s)) => {
            let allowed: Vec<&str> = values.iter().map(String::as_str).collect();
            v.one_of(param, text, s, &allowed);
        }
        (Rule::ExclusiveMinimum(m), Typed::Number(x)) => v.exclusive_minimum(param, text, *x, *m),
        (Rule::ExclusiveMaximum(m), Typed::Number(x)) => v.exclusive_maximum(param, text, *x, *m),
        (Rule::MultipleOf(m), Typed::Number(x)) => v.multiple_of(param, text, *x, *m),
        (Rule::MinItems(n), Typed::Json(j)) => v.min_items(param, text, j, *n),
        (Rule::MaxItems(n), Typed::Json(j)) => v.max_items(param, text, j, *n),
        _ => {}
    }
}

/// The breaches of the keywords of the input schema that the typed rules do not cover
/// (`uniqueItems`, `const`, the rules of a list's items, root `additionalProperties`, …),
/// judged by `schema`, the compiled document `inputs::judged_document` makes, each as (param,
/// keyword, message); a value of the wrong kind (`mistyped`) is not judged again.
fn schema_judged(
    schema: &agents_check::Schema,
    params: &serde_json::Value,
    mistyped: &[&str],
) -> Vec<(String, String, String)> {
    super::judged::breaches(schema, params, &|p| mistyped.contains(&p))
        .into_iter()
        .map(|b| {
            let words = super::judged::words(&b);
            let message = if b.path.is_empty() {
                words
            } else {
                format!("parameter {words}")
            };
            (b.field().unwrap_or_default(), b.keyword, message)
        })
        .collect()
}

/// What an input of type `ty` takes, for messages.
pub fn expected(ty: agents_schema::inputs::ParamTy) -> &'static str {
    ty.expected()
}

/// Where `value` is not of kind `ty`: the parameter, or its first item of the wrong kind
/// (`tags[1]`), with what it should be and what it is.
fn wrong_type(
    param: &str,
    ty: agents_schema::inputs::ParamTy,
    value: &serde_json::Value,
) -> WrongType {
    use agents_schema::inputs::ParamTy;
    if let (ParamTy::List(item), Some(items)) = (ty, value.as_array())
        && let Some((i, bad)) = items.iter().enumerate().find(|(_, v)| !item.fits(v))
    {
        return WrongType {
            param: format!("{param}[{i}]"),
            expected: item.expected(),
            found: json_kind(bad),
        };
    }
    WrongType {
        param: param.to_owned(),
        expected: expected(ty),
        found: json_kind(value),
    }
}

pub use agents_schema::inputs::{COMMON_PARAMS, LOCALIZATION_PARAMS};

/// How a request's `localization` is known.
#[derive(Debug, Clone, Copy)]
pub enum Localization<'a> {
    /// The client sends it when the params localize (the runtime and the CLI do).
    Derived,
    /// As the request carries it (the emulator reads it).
    Sent(Option<&'a serde_json::Value>),
}

/// Checks one agent request against `record`, collecting every problem: `params` being an
/// object, required inputs, each value's type and rules (as generated `validate()` applies
/// them), the keywords of a JSON Schema input document those rules do not cover (`uniqueItems`,
/// `const`, the rules of a list's items: judged by the document itself), the common params
/// ([`COMMON_PARAMS`], `country` a two-letter code), and localization (inputs such as
/// `zip_code` only on localized agents; with [`Localization::Sent`], also `localization` on
/// when they are given).
///
/// The one request check of the CLI and the emulator, and the one to call on raw params: the
/// same as [`RequestCheck::new`]`(record).check(params, localization)`. To check many requests
/// of one agent, or an input schema that refers to other files, make a [`RequestCheck`] once.
pub fn check_request(
    record: &agents_schema::AgentRecord,
    params: &serde_json::Value,
    localization: Localization<'_>,
) -> Result<(), RequestProblems> {
    RequestCheck::new(record).check(params, localization)
}

/// The request check of one agent ([`check_request`]), its input schema's keywords that no
/// typed rule covers compiled once: a batch of 10,000 items compiles them once, not per item.
///
/// ```
/// use agents_runtime::records::AgentRecord;
/// use agents_runtime::validate::{Localization, RequestCheck};
/// use serde_json::json;
///
/// let record = AgentRecord::from_value(&json!({
///     "name": "finder",
///     "input_schema": {"type": "object", "properties": {"ids": {"type": "array", "uniqueItems": true}}},
///     "output_schema": {"type": "object", "properties": {"name": {"type": "string"}}},
/// }))?;
/// let check = RequestCheck::new(&record);
/// assert!(check.check(&json!({"ids": [1, 2]}), Localization::Derived).is_ok());
/// let found = check.check(&json!({"ids": [7, 7]}), Localization::Derived).unwrap_err();
/// assert_eq!(found.problems[0].param, "ids");
/// assert_eq!(found.problems[0].rule.as_deref(), Some("uniqueItems"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct RequestCheck<'r> {
    record: &'r agents_schema::AgentRecord,
    judged: Option<agents_check::Schema>,
}

impl std::fmt::Debug for RequestCheck<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RequestCheck")
            .field("agent", &self.record.name)
            .field("judged", &self.judged.is_some())
            .finish()
    }
}

impl<'r> RequestCheck<'r> {
    /// The check of `record`'s requests; references to other documents in its input schema
    /// are not followed (see [`RequestCheck::with_options`]).
    pub fn new(record: &'r agents_schema::AgentRecord) -> Self {
        Self::with_options(record, agents_check::Options::new())
    }

    /// The check of `record`'s requests, its input schema's references to other documents read
    /// as `options` says ([`Options::directory`](agents_check::Options::directory),
    /// [`Options::document`](agents_check::Options::document)).
    pub fn with_options(
        record: &'r agents_schema::AgentRecord,
        options: agents_check::Options,
    ) -> Self {
        let judged =
            agents_schema::inputs::judged_document(record).map(|d| options.compile_owned(d));
        RequestCheck { record, judged }
    }

    /// What could not be read of the input schema's keywords the check judges by: a reference
    /// that points nowhere (no document given for it), a pattern that does not compile, each
    /// with its pointer. What such a keyword would judge passes unjudged, so a caller says
    /// these once, before sending.
    pub fn schema_problems(&self) -> &[agents_check::Problem] {
        self.judged.as_ref().map_or(&[], |s| s.problems())
    }

    /// Checks one request, collecting every problem (as [`check_request`] lists them).
    pub fn check(
        &self,
        params: &serde_json::Value,
        localization: Localization<'_>,
    ) -> Result<(), RequestProblems> {
        check_with(self.record, self.judged.as_ref(), params, localization)
    }
}

fn check_with(
    record: &agents_schema::AgentRecord,
    judged: Option<&agents_check::Schema>,
    params: &serde_json::Value,
    localization: Localization<'_>,
) -> Result<(), RequestProblems> {
    use serde_json::Value;

    let mut problems = Vec::new();
    let mut push = |kind, param: &str, rule: Option<String>, message: String| {
        problems.push(Problem {
            kind,
            param: param.to_owned(),
            rule,
            message,
        });
    };
    let fail = |problems: Vec<Problem>| {
        if problems.is_empty() {
            Ok(())
        } else {
            Err(RequestProblems {
                agent: record.name.clone(),
                problems,
            })
        }
    };
    let Some(map) = params.as_object() else {
        push(
            ProblemKind::NotAnObject,
            "",
            None,
            format!("params must be a JSON object, not {}", json_kind(params)),
        );
        return fail(problems);
    };

    let page = record.pagination_param().map(|p| p.name.as_str());
    for input in record.inputs() {
        let is_page = page == Some(input.name.as_str());
        if input.required && !is_page && map.get(&input.name).is_none_or(Value::is_null) {
            push(
                ProblemKind::Missing,
                &input.name,
                None,
                format!(
                    "missing required parameter `{}` of agent `{}`",
                    input.name, record.name
                ),
            );
        }
    }

    // Types and rules of the declared inputs, every one of them.
    let mut violations = Violations::new(record.name.clone());
    let mut mistyped = Vec::new();
    {
        use agents_schema::inputs::param_type;
        for input in record.inputs() {
            let Some(value) = map.get(&input.name).filter(|v| !v.is_null()) else {
                continue;
            };
            let (ty, _) = param_type(input, page == Some(input.name.as_str()));
            let Some(typed) = typed_value(ty, value) else {
                mistyped.push(input.name.as_str());
                push(
                    ProblemKind::WrongType,
                    &input.name,
                    None,
                    wrong_type(&input.name, ty, value).to_string(),
                );
                continue;
            };
            for rule in &input.rules {
                if let Ok(checked) = rule.check(ty) {
                    apply(&mut violations, &input.name, &rule.text, checked, &typed);
                }
            }
        }
    }
    let declared = |name: &str| record.inputs().iter().any(|i| i.name == name);
    for (name, ty) in COMMON_PARAMS {
        if declared(name) {
            continue;
        }
        match (map.get(name), ty) {
            (None | Some(Value::Null), _) => {}
            (Some(Value::String(s)), agents_schema::inputs::ParamTy::String) => {
                if name == "country" {
                    violations.country_code(name, s);
                }
            }
            (Some(Value::Bool(_)), agents_schema::inputs::ParamTy::Boolean) => {}
            (Some(v), ty) => push(
                ProblemKind::WrongType,
                name,
                None,
                format!(
                    "parameter `{name}` must be {}, not {}",
                    expected(ty),
                    json_kind(v)
                ),
            ),
        }
    }
    if let Err(e) = violations.finish() {
        for v in e.violations {
            let message = v.to_string();
            push(ProblemKind::Rule, &v.param, Some(v.rule), message);
        }
    }
    if let Some(schema) = judged {
        for (param, keyword, message) in schema_judged(schema, params, &mistyped) {
            push(ProblemKind::Rule, &param, Some(keyword), message);
        }
    }

    let localizing: Vec<&str> = map
        .iter()
        .filter(|(k, v)| {
            !v.is_null()
                && (LOCALIZATION_PARAMS.contains(&k.as_str())
                    || record
                        .inputs()
                        .iter()
                        .any(|i| i.is_localization_param && i.name == **k))
        })
        .map(|(k, _)| k.as_str())
        .collect();
    let sent = match localization {
        Localization::Derived => None,
        Localization::Sent(v) => Some(v),
    };
    let on = matches!(sent, Some(Some(Value::Bool(true) | Value::Object(_))));
    if !record.supports_localization() {
        for k in &localizing {
            push(
                ProblemKind::NotLocalized,
                k,
                None,
                format!(
                    "agent `{}` is not localized (it does not support localization), so `{k}` \
                     is not accepted",
                    record.name
                ),
            );
        }
        if localizing.is_empty() && on {
            push(
                ProblemKind::NotLocalized,
                "localization",
                None,
                format!("agent `{}` does not support localization", record.name),
            );
        }
    } else if let (Some(k), Some(_)) = (localizing.first(), sent)
        && !on
    {
        push(
            ProblemKind::LocalizationRequired,
            "localization",
            None,
            format!("localization is required when params contains `{k}`"),
        );
    }
    if let Some(Some(v)) = sent
        && !matches!(v, Value::Bool(_) | Value::Object(_) | Value::Null)
    {
        push(
            ProblemKind::BadLocalization,
            "localization",
            None,
            format!(
                "localization must be a boolean or an object, not {}",
                json_kind(v)
            ),
        );
    }
    fail(problems)
}
