//! The compile-time guarantees, pinned by the compiler's own messages (`tests/ui/**/*.stderr`):
//! a field the record does not declare, localization or pages on an agent without them, a
//! missing required input, an input of the wrong type, and `agent!` errors (an unknown agent
//! with the names near it, a record that is not valid, a file holding another agent's record).
//!
//! `TRYBUILD=overwrite cargo test -p agents-tests-modes --test ui` rewrites the `.stderr` files
//! after a deliberate change of a message.

use std::path::Path;
use std::process::Command;

/// The catalog's guarantees and the unknown agent, against the workspace's `schemas/`.
#[test]
fn catalog_guarantees_fail_to_compile_with_these_messages() {
    trybuild::TestCases::new().compile_fail("tests/ui/catalog/*.rs");
}

/// `agent!` errors against `tests/ui/schemas/`. `AGENTS_SCHEMA_DIR` reaches the macro through
/// the environment of the compiler trybuild runs, so these cases run in a child process of this
/// test binary that has it set (the variable is never changed in a running process).
#[test]
fn agent_macro_errors_name_the_file_the_agent_and_the_fix() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ui/schemas");
    let exe = std::env::current_exe().expect("the test binary's path");
    let status = Command::new(exe)
        .args(["schema_dir_cases", "--exact", "--ignored", "--nocapture"])
        .env("AGENTS_SCHEMA_DIR", dir)
        .status()
        .expect("running the schema_dir cases");
    assert!(status.success(), "the schema_dir cases failed: {status}");
}

#[test]
#[ignore = "run by agent_macro_errors_name_the_file_the_agent_and_the_fix, with AGENTS_SCHEMA_DIR set"]
fn schema_dir_cases() {
    assert!(
        std::env::var_os("AGENTS_SCHEMA_DIR").is_some(),
        "run through agent_macro_errors_name_the_file_the_agent_and_the_fix"
    );
    trybuild::TestCases::new().compile_fail("tests/ui/schema_dir/*.rs");
}
