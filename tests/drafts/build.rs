//! Generates bindings of the JSON-Schema-Test-Suite's older drafts
//! (`tests/json-schema-test-suite-drafts/`: 7, 2019-09, 6 and 4) into OUT_DIR, one unit per
//! draft (`agents_test_support::suite`), with the table that decodes each case into its group's
//! type (`agents_test_support::suite::case`), which `tests/suite.rs` includes.

use std::path::PathBuf;

use agents_codegen::write_if_changed;
use agents_test_support::{suite, workspace_root};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let out = PathBuf::from(std::env::var_os("OUT_DIR").ok_or("cargo sets OUT_DIR")?);
    let drafts = workspace_root().join("tests/json-schema-test-suite-drafts");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed={}", drafts.display());
    for (draft, _) in suite::OLDER_DRAFTS {
        let module = format!("suite_{}", draft.replace('-', "_"));
        let (source, table) = suite::unit(
            &drafts,
            draft,
            "agents_test_support::suite::case",
            &format!("agents_tests_drafts::{module}"),
        )?;
        write_if_changed(&out.join(format!("{module}.rs")), &source)?;
        write_if_changed(&out.join(format!("{module}_table.rs")), &table)?;
    }
    Ok(())
}
