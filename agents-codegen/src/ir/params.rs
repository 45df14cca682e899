//! Lowering a record's inputs to the params type: names claimed in the params namespace,
//! types resolved, rules kept with their text for `validate()`.

use std::collections::BTreeMap;

use agents_check::path::pointer_to as pointer;
use agents_schema::diag::Diagnostic;
use agents_schema::{AgentRecord, InputProperty};
use serde_json::Value;

use super::{ParamIr, ParamsIr};
use crate::docs;
use crate::naming::{self, Namespace};
use crate::rules::Rule;
use crate::types::{self, Ty};

pub(super) fn lower_params(
    record: &AgentRecord,
    ident: String,
    root: &str,
    warnings: &mut Vec<Diagnostic>,
) -> ParamsIr {
    let mut names = Namespace::values(naming::PARAMS_MEMBERS);
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    let mut inputs: Vec<InputProperty> = Vec::new();
    let mut repeated: BTreeMap<&str, usize> = BTreeMap::new();
    for (i, input) in record.inputs().iter().enumerate() {
        match seen.get(input.name.as_str()) {
            Some(&first) => {
                warnings.push(Diagnostic::new(
                    &record.name,
                    &format!("$.input_properties[{i}].name"),
                    &format!(
                        "input {} is declared again (first at $.input_properties[{first}]); the \
                         first declaration is used",
                        Value::String(input.name.clone())
                    ),
                ));
                *repeated.entry(input.name.as_str()).or_default() += 1;
            }
            None => {
                seen.insert(&input.name, i);
                inputs.push(input.clone());
            }
        }
    }
    let page_name = record.pagination_param().map(|p| p.name.clone());
    let synthesized_page = record.supports_pagination() && page_name.is_none();

    let mut fields = Vec::new();
    for input in &inputs {
        let is_page = page_name.as_deref() == Some(input.name.as_str());
        let (kind, note) = agents_schema::inputs::param_type(input, is_page);
        let param_ident = names.claim(&naming::field_base(&input.name));
        let mut checked = Vec::new();
        let mut unchecked = Vec::new();
        for rule in &input.rules {
            match rule.check(kind) {
                Ok(r) => checked.push((rule.text.clone(), r.clone())),
                Err(why) => unchecked.push((rule.text.clone(), why)),
            }
        }
        let mut docs = docs::param(input, &param_ident, &checked, &unchecked, note.as_deref());
        let unread = agents_schema::inputs::unchecked_keywords(input);
        if !unread.is_empty() {
            docs.push(String::new());
            docs.push(docs::unchecked_keywords(&unread));
            let at = |keyword: &str| match &record.written.input {
                Some(_) => format!(
                    "input_schema#{}",
                    pointer(&pointer("/properties", &input.name), keyword)
                ),
                None => {
                    let i = (record.inputs().iter())
                        .position(|i| i.name == input.name)
                        .unwrap_or_default();
                    format!("$.input_properties[{i}].{keyword}")
                }
            };
            for keyword in unread {
                warnings.push(Diagnostic::new(
                    &record.name,
                    &at(keyword),
                    &format!(
                        "`{keyword}` of input {} is not checked by the generated `validate()` \
                         (it applies the input's type, bounds, lengths, counts, `pattern` and \
                         `enum`); `cargo agents` judges it by the schema before sending, as \
                         `validate::check_request` does, and so does the service",
                        Value::String(input.name.clone())
                    ),
                ));
            }
        }
        if let Some(n) = repeated.get(input.name.as_str()) {
            docs.push(String::new());
            docs.push(docs::repeated_input(n + 1));
        }
        fields.push(ParamIr {
            json: input.name.clone(),
            ident: param_ident,
            ty: types::param_ty(kind),
            required: input.required && !is_page,
            rules: checked,
            country: false,
            localization: input.is_localization_param,
            docs,
        });
    }
    if synthesized_page {
        fields.push(ParamIr {
            json: "page".to_owned(),
            ident: names.claim("page"),
            ty: Ty::Page,
            required: false,
            rules: vec![(Rule::Minimum(1.0).to_string(), Rule::Minimum(1.0))],
            country: false,
            localization: false,
            docs: docs::page_param(),
        });
    }
    for (json, ty) in &agents_schema::inputs::COMMON_PARAMS {
        if inputs.iter().any(|i| i.name == *json) {
            continue;
        }
        fields.push(ParamIr {
            json: (*json).to_owned(),
            ident: names.claim(json),
            ty: types::param_ty(*ty),
            required: false,
            rules: Vec::new(),
            country: *json == "country",
            localization: false,
            docs: docs::common_param(json),
        });
    }

    ParamsIr {
        docs: docs::params(&record.name, root),
        ident,
        fields,
    }
}
