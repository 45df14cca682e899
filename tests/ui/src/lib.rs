//! Compile-fail tests only (`tests/ui.rs`); this library exists so that trybuild has a crate to
//! build the cases against, with `agents-runtime`'s catalog and `agent!`.
