//! Output record structs: the struct with its fields' docs and JSON names, handed out whole so
//! that printers wrap it in the runtime's `record!`.

use syn::punctuated::Punctuated;
use syn::{Fields, ItemStruct};

use super::shape::shape;
use super::tokens::{Paths, ty_tokens};
use super::tree::Templates;
use crate::ir::{AgentIr, StructIr};
use crate::naming::{self, ident};

/// The struct of `s`, as `record!` takes it.
pub(super) fn record(
    s: &StructIr,
    agent: &AgentIr,
    p: &Paths,
    t: &mut Templates,
) -> syn::Result<ItemStruct> {
    let mut item = if s.root {
        t.root.clone()
    } else {
        t.nested.clone()
    };
    item.ident = ident(&s.ident);
    let mut attrs = t.docs(&s.docs);
    attrs.append(&mut item.attrs);
    item.attrs = attrs;
    let Fields::Named(named) = &mut item.fields else {
        return Err(shape("record struct"));
    };
    let trailing = std::mem::take(&mut named.named);
    let mut fields = Punctuated::new();
    for f in &s.fields {
        let ty = t.output_type(&f.ty, agent, p)?;
        let mut attrs = t.docs(&f.docs);
        // `record!` takes the field's name as its JSON name unless told otherwise; a raw
        // identifier is always told, since `stringify!(r#type)` keeps the `r#`.
        if f.json != f.ident || naming::is_raw(&f.ident) {
            attrs.push(t.json_rename(&f.json)?);
        }
        if f.required {
            attrs.push(t.json_required()?);
        }
        fields.push(t.field(attrs, ident(&f.ident), ty));
    }
    for m in &s.maps {
        let value = ty_tokens(&m.ty, agent, p);
        let ty = syn::parse2(quote::quote!(::std::collections::BTreeMap<String, #value>))?;
        // `record!` takes the marker before the docs: it tells a map from a declared field.
        let mut attrs = vec![t.json_keys(&m.keys)?];
        attrs.extend(t.docs(&m.docs));
        fields.push(t.field(attrs, ident(&m.ident), ty));
    }
    fields.extend(trailing);
    named.named = fields;
    Ok(item)
}
