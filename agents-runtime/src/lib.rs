//! Runtime for typed bindings of the web data extraction service.
//!
//! Generated agent bindings (from `cargo xtask codegen`, the `agent!` macro or a build script)
//! build on the items here:
//!
//! * [`Agent`], [`AgentParams`], [`Localized`] and [`Paginated`] tie an agent's name, parameters
//!   and output type together, so that options an agent does not support do not compile;
//! * [`decode`] reads agent output in one pass and tolerates drift from the schema, recording
//!   each [`Mismatch`] instead of failing the record;
//! * [`validate`] checks parameters against the rules of the agent's inputs before sending.
//!
//! With the default `catalog` feature, [`catalog`] holds the bindings of every agent of the
//! service's public catalog; with the default `client` feature, [`client`] is the async client
//! that runs them.

pub mod agent;
pub mod decode;
mod record;
pub mod validate;

#[cfg(feature = "catalog")]
pub mod catalog;

#[cfg(feature = "client")]
pub mod client;

/// `agent!("name")`: the typed bindings of one agent, generated at compile time from its cached
/// schema (`schemas/NAME.json` of the package or workspace, or `AGENTS_SCHEMA_DIR`).
#[cfg(feature = "macros")]
pub use agents_macro::agent;

#[cfg(feature = "client")]
pub use client::{
    Client, ClientBuilder, Error, ErrorKind, RetryPolicy, WaitOptions,
    run::{Delivery, Format, RunOptions, RunResult, StorageType},
};

pub use agent::{Agent, AgentParams, Localized, Paginated};
pub use decode::{DriftError, Mismatch, Record};
pub use serde_json::Value;
pub use validate::{ValidationError, Violation};

/// A JSON object: the type of objects an agent schema declares without properties, and of the
/// `unknown_fields` of every generated record.
pub type JsonMap = serde_json::Map<String, Value>;

/// Re-exports used by generated code; not a stable API.
#[doc(hidden)]
pub mod __private {
    pub use serde;
    pub use serde_json;

    /// The decoder's moving parts that [`record!`](crate::record) expands to.
    pub mod decode {
        pub use crate::decode::seed::{Ctx, Key, KeySeed, Path, Seed, deserialize_record};
    }
}

/// The examples of README.md, compiled and run as doctests so that the README never lies.
#[cfg(all(doctest, feature = "catalog"))]
#[doc = include_str!("../../README.md")]
mod readme {}
