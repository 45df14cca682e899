//! The intermediate model as items. Nothing here makes a naming or typing decision: names come
//! from [`crate::naming`] through the IR, types from [`crate::types`], doc prose from
//! [`crate::docs`].
//!
//! One builder per kind of item: `record.rs` (output structs), `enums.rs` (string enums and
//! unions), `params.rs` (the params struct and its impl), `validate.rs` (its `validate()`),
//! `traits.rs` (the agent's trait impls), each written as source text the way prettyplease
//! prints it by the one writer in `text.rs`. Type spellings are in `tokens.rs`. An agent's code
//! comes out as [`Piece`]s, in order, and consumers print each piece and drop it.

mod enums;
mod params;
mod record;
mod text;
mod tokens;
mod traits;
mod validate;

pub use record::Skeleton;
pub use text::ItemText;
pub use tokens::{Paths, path_text};

use crate::ir::AgentIr;

/// A piece of an agent's code.
pub enum Piece {
    /// An item as source that printers wrap in the runtime's macro `name` (`record`,
    /// `string_enum`, `union_enum`), with what a record's macro is told before it.
    Macro {
        name: &'static str,
        item: ItemText,
        head: Option<RecordHead>,
    },
    /// Items as source (the params type, its impl, the agent's trait impls).
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
/// enums, the params type and its impl, the agent's trait impls. Memory holds one item's text,
/// not the agent's.
pub fn agent(agent: &AgentIr, p: &Paths, records: &Skeleton, sink: &mut dyn FnMut(Piece)) {
    for s in &agent.structs {
        let head = RecordHead {
            schema: s.root.then(|| agent.output_schema.clone()),
            fields: s.fields_ident.clone(),
        };
        sink(Piece::Macro {
            name: "record",
            item: record::record(s, agent, p, records),
            head: Some(head),
        });
    }
    for e in &agent.enums {
        sink(Piece::Macro {
            name: "string_enum",
            item: enums::string_enum(e),
            head: None,
        });
    }
    for u in &agent.unions {
        sink(Piece::Macro {
            name: "union_enum",
            item: enums::union_enum(u, agent, p),
            head: None,
        });
    }
    let (params, methods) = params::params(&agent.params, agent, p);
    sink(Piece::Text(params));
    sink(Piece::Text(methods));
    if let Some(traits) = traits::traits(agent, p) {
        sink(Piece::Text(traits));
    }
}
