//! The agents whose bindings ship with `agents_runtime::catalog`, so that `agent!` can point at
//! them instead of asking for a schema file.
//!
//! The list is in `catalog/names.rs`, written by `cargo xtask codegen` beside the catalog's
//! bindings (and checked by `cargo xtask codegen --check` in CI).

mod names;

pub use names::CATALOG;

/// The catalog's record type for `agent` (`RetailerAPdp` for `retailer_a_pdp`), if it is a
/// catalog agent.
pub fn type_name(agent: &str) -> Option<&'static str> {
    CATALOG
        .iter()
        .find(|(name, _)| *name == agent)
        .map(|(_, ty)| *ty)
}
