//! The params type of an agent: its struct and one inherent impl with `new`, `validate`, a
//! setter per optional input and `param`, all trees from the templates.

use syn::punctuated::Punctuated;
use syn::{Fields, Item};

use super::shape::shape;
use super::tokens::Paths;
use super::tree::Templates;
use crate::ir::{AgentIr, ParamsIr};
use crate::naming::ident;

/// The params struct and its inherent impl.
pub(super) fn params(
    params: &ParamsIr,
    agent: &AgentIr,
    p: &Paths,
    t: &mut Templates,
) -> syn::Result<(Item, Item)> {
    let name = ident(&params.ident);
    let mut fields = Punctuated::new();
    let mut setters = Vec::new();
    let mut inputs = Vec::with_capacity(params.fields.len());
    for f in &params.fields {
        let id = ident(&f.ident);
        let ty = t.param_type(&f.ty, !f.required, agent, p)?;
        let mut attrs = t.docs(&f.docs);
        attrs.extend(t.param_serde(&f.json, &f.ident, !f.required)?);
        fields.push(t.field(attrs, id.clone(), ty));
        if !f.required {
            let doc = crate::docs::setter(&f.json);
            setters.push(t.setter(&doc, id.clone(), &f.ty, agent, p)?);
        }
        inputs.push((id, &f.ty, f.required));
    }
    // The struct: docs, the inputs, then `extra`.
    let mut item = t.params_struct.clone();
    item.ident = name.clone();
    let mut attrs = t.docs(&params.docs);
    attrs.append(&mut item.attrs);
    item.attrs = attrs;
    let Fields::Named(named) = &mut item.fields else {
        return Err(shape("params struct"));
    };
    fields.extend(std::mem::take(&mut named.named));
    named.named = fields;
    let required: Vec<&str> = (params.fields.iter().filter(|f| f.required))
        .map(|f| f.json.as_str())
        .collect();
    let new = t.constructor(&crate::docs::constructor(&required), &inputs, agent, p)?;
    let validate = t.validate(params, agent, p)?;
    let mut items = Vec::with_capacity(setters.len() + 3);
    items.push(new);
    items.push(validate);
    items.extend(setters);
    Ok((Item::Struct(item), Item::Impl(t.params_impl(name, items)?)))
}
