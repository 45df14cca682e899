//! The intermediate model as items. Nothing here makes a naming or typing decision: names come
//! from [`crate::naming`] through the IR, types from [`crate::types`], doc prose from
//! [`crate::docs`].
//!
//! One builder per kind of item: `record.rs` (output structs), `enums.rs` (string enums and
//! unions), `params.rs` (the params struct and its impl), `validate.rs` (its `validate()`),
//! `traits.rs` (the agent's trait impls). Records, the params type and the trait impls are
//! written as source text the way prettyplease prints it (`text.rs`); enums are syntax trees
//! made with the doc template of `tree.rs` (the error of a template that lost its shape is in
//! `shape.rs`). Type spellings are in `tokens.rs`. An agent's code
//! comes out as [`Piece`]s, in order, and consumers print each piece and drop it.

mod enums;
mod params;
mod record;
mod shape;
mod text;
mod tokens;
mod traits;
mod tree;
mod validate;

pub use text::ItemText;
pub use tokens::{Paths, path_text};
pub use tree::Templates;

use syn::ItemEnum;

use crate::ir::AgentIr;

/// A piece of an agent's code.
#[allow(
    clippy::large_enum_variant,
    reason = "a piece is moved once, into the printer; none is ever stored in bulk"
)]
pub enum Piece {
    /// An output record struct as source, which printers wrap in the runtime's `record!`, with
    /// what the macro is told before it.
    Record(ItemText, RecordHead),
    /// A string enum, which printers wrap in the runtime's `string_enum!`.
    Enum(ItemEnum),
    /// A union of kinds of value, which printers wrap in the runtime's `union_enum!`.
    Union(ItemEnum),
    /// Items written as source (the params type, its impl, the agent's trait impls).
    Text(ItemText),
}

/// What `record!` is told before a record struct: the JSON Schema text a root record carries,
/// and the name of the struct of its field paths.
pub struct RecordHead {
    /// `#![schema = "…"]`, for the root record.
    pub schema: Option<String>,
    /// `#![fields = …]`.
    pub fields: String,
}

/// Every item of one agent, in order, handed to `sink` a piece at a time: record structs, the
/// params type and its impl, the agent's trait impls. Memory holds one item's tree, not the
/// agent's.
pub fn agent(
    agent: &AgentIr,
    p: &Paths,
    t: &Templates,
    sink: &mut dyn FnMut(Piece),
) -> syn::Result<()> {
    for s in &agent.structs {
        let head = RecordHead {
            schema: s.root.then(|| agent.output_schema.clone()),
            fields: s.fields_ident.clone(),
        };
        sink(Piece::Record(record::record(s, agent, p, &t.records), head));
    }
    for e in &agent.enums {
        sink(Piece::Enum(enums::string_enum(e, t)?));
    }
    for u in &agent.unions {
        sink(Piece::Union(enums::union_enum(u, agent, p, t)?));
    }
    let (params, methods) = params::params(&agent.params, agent, p);
    sink(Piece::Text(params));
    sink(Piece::Text(methods));
    if let Some(traits) = traits::traits(agent, p) {
        sink(Piece::Text(traits));
    }
    Ok(())
}
