//! Lowering a record's inputs to the params type: names claimed in the params namespace,
//! types resolved, rules kept with their text for `validate()`.

use std::collections::BTreeMap;

use agents_schema::diag::Diagnostic;
use agents_schema::{AgentRecord, InputProperty};
use serde_json::Value;

use super::documents::{check_options, placed, schema_text};
use super::{ParamIr, ParamsIr};
use crate::docs;
use crate::naming::{self, Namespace};
use crate::rules::Rule;
use crate::types::{self, Ty};

pub(super) fn lower_params(
    record: &AgentRecord,
    ident: String,
    root: &str,
    documents: &BTreeMap<String, std::path::PathBuf>,
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
        let judged = agents_schema::inputs::unchecked_keywords(input);
        if !judged.is_empty() {
            docs.push(String::new());
            docs.push(docs::judged_keywords(&judged));
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

    let mut params_docs = docs::params(&record.name, root);
    let root_judged = (record.written.input.as_ref())
        .map(|d| agents_schema::inputs::unchecked_root_keywords(&d.to_value()))
        .unwrap_or_default();
    if !root_judged.is_empty() {
        params_docs.push(String::new());
        params_docs.push(docs::judged_root_keywords(&root_judged));
    }
    let judged = agents_schema::inputs::judged_document(record).map(|document| {
        // Compiled here, with the documents references read, so that what `validate()`
        // holds refers to nothing outside itself and what it cannot check is said now.
        let schema = check_options(documents).compile_owned(document);
        for problem in schema.problems() {
            let message = format!(
                "{}; `validate()` judges the params by the input schema without it",
                problem.message
            );
            warnings.push(placed(&record.name, problem, "input_schema", &message));
        }
        // In the order the input schema writes its keys (a `Value` sorts them): it is read in
        // the user's IDE.
        let written = agents_schema::json_schema::input_schema(record);
        let (bundled, files) = schema.bundled_from_files();
        schema_text(&agents_schema::Json::arranged_from_files(
            &bundled, &written, &files,
        ))
    });
    ParamsIr {
        docs: params_docs,
        ident,
        fields,
        judged,
    }
}
