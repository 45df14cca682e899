//! What code generated for the service's agents needs at run time: the traits that tie an
//! agent's parameters to its output record ([`Agent`], [`AgentParams`]), the tolerant decoder
//! that records values of the wrong type ([`decode`], [`Mismatch`]) and the rules they break
//! ([`Breach`]), the parameter checks of generated `validate()` methods ([`validate`]), typed
//! field paths ([`FieldPath`], [`path!`]) and the [`record!`] macro generated records expand
//! through.
//!
//! Programs use these through `agents-runtime`, which re-exports every item here under the same
//! name; this crate exists so that the catalog's bindings and a program's own generated types
//! compile without waiting for the HTTP client.

pub mod agent;
#[cfg(feature = "arrow")]
pub mod columnar;
pub mod decode;
pub mod fields;
pub use agents_wire::endpoint;
mod record;
pub mod research;
mod string_enum;
mod union_enum;
pub mod validate;
pub use agents_wire::words;

pub use agent::{Agent, AgentParams, AgentVisitor, Localize, Localized, Paginated};
/// JSON Schema rules over typed values (the `agents-check` crate): what records check as they
/// are decoded, and what a program can check its own values with (`check::Schema::compile`,
/// `check::Options::documents`, `Kind` for implementing `Instance`).
pub use agents_check as check;
pub use agents_check::{Breach, Instance, Schema};
/// Agent records as the generator reads them (the `agents-schema` crate, feature `records`):
/// `AgentRecord`, which `Client::agent` answers and `validate::RequestCheck` checks requests
/// by, read from a record's JSON with `AgentRecord::from_json`.
#[cfg(feature = "records")]
pub use agents_schema as records;
pub use decode::{DriftError, Mismatch, Parsing, Record};
pub use endpoint::ApiVersion;
pub use fields::FieldPath;
pub use serde_json::Value;
pub use validate::{ValidationError, Violation};

/// A JSON object: the type of objects an agent schema declares without properties, and of the
/// `unknown_fields` of every generated record.
pub type JsonMap = serde_json::Map<String, Value>;

/// Re-exports used by generated code; not a stable API.
#[doc(hidden)]
pub mod __private {
    pub use agents_check;
    #[cfg(feature = "arrow")]
    pub use arrow_array;
    #[cfg(feature = "arrow")]
    pub use arrow_schema;
    pub use serde;
    pub use serde_json;

    /// The decoder's moving parts that [`record!`](crate::record) expands to.
    pub mod decode {
        pub use crate::decode::compiled;
        pub use crate::decode::ctx::{Ctx, Path};
        pub use crate::decode::number::object_or_number;
        pub use crate::decode::rest::{Keys, add_entries, entry};
        pub use crate::decode::seed::{
            Key, KeySeed, Seed, deserialize_record, field, required, unknown,
        };
        pub use crate::decode::{from_number, number_in};
        pub use crate::record::{put, visit};
    }
}

/// The example of README.md, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
mod readme {}
