//! Params judged by the input schema itself, for the keywords no typed rule covers
//! (`uniqueItems`, `const`, the rules of a list's items, root `additionalProperties`,
//! `dependentRequired`, …): the document comes from `agents_schema::inputs::judged_document`,
//! which leaves out what the typed check says, so nothing is said twice. A generated
//! `validate()` holds the document as an [`InputSchema`]; the request check compiles it from
//! the record.

use std::sync::OnceLock;

use agents_check::{Breach, Schema};

use super::Violations;

/// The input document a generated `validate()` judges params by, compiled once on first use
/// by the checker the decoder uses.
///
/// ```
/// use agents_runtime::validate::{InputSchema, Violations};
///
/// static INPUT_SCHEMA: InputSchema = InputSchema::new(
///     r#"{"properties": {"tags": {"uniqueItems": true}}, "additionalProperties": false}"#,
/// );
/// let mut v = Violations::new("shop");
/// INPUT_SCHEMA.judge(&mut v, &serde_json::json!({"tags": ["a", "a"], "colour": "red"}));
/// let err = v.finish().unwrap_err();
/// let mut broken: Vec<(&str, &str)> = (err.violations.iter())
///     .map(|v| (v.param.as_str(), v.rule.as_str()))
///     .collect();
/// broken.sort();
/// assert_eq!(broken, [("colour", "additionalProperties"), ("tags", "uniqueItems")]);
/// ```
pub struct InputSchema {
    text: &'static str,
    compiled: OnceLock<Schema>,
}

impl InputSchema {
    /// The document as the generator wrote it; compiled lazily.
    pub const fn new(text: &'static str) -> Self {
        InputSchema {
            text,
            compiled: OnceLock::new(),
        }
    }

    fn compiled(&self) -> &Schema {
        self.compiled.get_or_init(|| Schema::from_text(self.text))
    }

    /// Records every rule of the document that `params` break, except under a param whose
    /// value already broke its type (said once, as the wrong type).
    pub fn judge(&self, v: &mut Violations, params: &impl serde::Serialize) {
        let params = match serde_json::to_value(params) {
            Ok(params) => params,
            Err(e) => {
                v.push(
                    "",
                    "JSON",
                    format!("the params cannot be written as JSON: {e}"),
                );
                return;
            }
        };
        let mistyped: Vec<String> = (v.found.iter())
            .filter(|f| f.rule == "type")
            .map(|f| f.param.clone())
            .collect();
        for b in breaches(self.compiled(), &params, &|p| {
            mistyped.iter().any(|m| m == p)
        }) {
            let param = b.field().unwrap_or_default();
            v.push(&param, &b.keyword, words(&b));
        }
    }
}

/// The breaches of `schema` by `params`, less those under a param `skip` names.
pub(crate) fn breaches(
    schema: &Schema,
    params: &serde_json::Value,
    skip: &dyn Fn(&str) -> bool,
) -> Vec<Breach> {
    let mut found = schema.check(params);
    found.retain(|b| !b.field().is_some_and(|f| skip(&f)));
    found
}

/// A breach in words: `tags[1]: breaks `minLength: 2` (/properties/tags/items/minLength),
/// found "a"`, or `postcode: missing, and `dependentRequired: {"near":["postcode"]}`
/// (/dependentRequired) requires it`; the params as a whole are `params`.
pub(crate) fn words(b: &Breach) -> String {
    let at = if b.path.is_empty() { "params" } else { &b.path };
    match &b.found {
        Some(found) => format!(
            "{at}: breaks `{}: {}` ({}), found {found}",
            b.keyword, b.rule, b.schema_path
        ),
        // The rule says why (`dependentRequired: {"near":["postcode"]}`).
        None => format!(
            "{at}: missing, and `{}: {}` ({}) requires it",
            b.keyword, b.rule, b.schema_path
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::{InputSchema, Violations};

    #[derive(serde::Serialize)]
    struct Params {
        tags: Vec<&'static str>,
        #[serde(flatten)]
        extra: serde_json::Map<String, serde_json::Value>,
    }

    /// Each breach is a violation of its param (of no param, for a rule of the params as a
    /// whole), named by its keyword; a param whose value broke its type is not judged again.
    #[test]
    fn breaches_become_violations_of_their_param() {
        static SCHEMA: InputSchema = InputSchema::new(
            r#"{"properties": {"tags": {"uniqueItems": true}, "code": {"const": "x"}},
                "minProperties": 3}"#,
        );
        let params = |code: serde_json::Value| Params {
            tags: vec!["a", "a"],
            extra: serde_json::Map::from_iter([("code".to_owned(), code)]),
        };
        let mut v = Violations::new("shop");
        SCHEMA.judge(&mut v, &params("y".into()));
        let err = v.finish().unwrap_err();
        // In the order of the params map, which serde_json's `preserve_order` changes.
        let mut said: Vec<(&str, &str)> = (err.violations.iter())
            .map(|v| (v.param.as_str(), v.rule.as_str()))
            .collect();
        said.sort_unstable();
        assert_eq!(
            said,
            [
                ("", "minProperties"),
                ("code", "const"),
                ("tags", "uniqueItems")
            ],
            "{err}"
        );
        let whole = err.violations.iter().find(|v| v.param.is_empty());
        assert!(
            whole.is_some_and(|v| v.to_string().starts_with(
                "params break rule \"minProperties\": params: breaks `minProperties: 3` \
                 (/minProperties), found {"
            )),
            "{err}"
        );

        let mut v = Violations::new("shop");
        let _: Option<String> = v.given("code", ".code(…)", false, &5.into());
        SCHEMA.judge(&mut v, &params(5.into()));
        let err = v.finish().unwrap_err();
        let mut rules: Vec<&str> = err.violations.iter().map(|v| v.rule.as_str()).collect();
        rules.sort_unstable();
        assert_eq!(rules, ["minProperties", "type", "uniqueItems"], "{err}");
    }
}
