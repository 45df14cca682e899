//! The official JSON-Schema-Test-Suite's drafts 7, 2019-09, 6 and 4
//! (`tests/json-schema-test-suite-drafts/`, MIT) run through the generator: every group of each
//! is generated, compiled and decodes every case, a valid one exact and an invalid one reported
//! (`agents_test_support::suite::judge` says how each is judged; draft 2020-12 is
//! `tests/external`'s).

use agents_test_support::suite::{Entry, judge};

const DRAFT7: &[Entry] = include!(concat!(env!("OUT_DIR"), "/suite_draft7_table.rs"));
const DRAFT2019_09: &[Entry] = include!(concat!(env!("OUT_DIR"), "/suite_draft2019_09_table.rs"));
const DRAFT6: &[Entry] = include!(concat!(env!("OUT_DIR"), "/suite_draft6_table.rs"));
const DRAFT4: &[Entry] = include!(concat!(env!("OUT_DIR"), "/suite_draft4_table.rs"));

fn drafts() -> std::path::PathBuf {
    agents_test_support::workspace_root().join("tests/json-schema-test-suite-drafts")
}

#[test]
fn every_group_of_draft7_is_generated_and_every_case_decodes_as_the_suite_says() {
    judge(&drafts(), "draft7", DRAFT7);
}

#[test]
fn every_group_of_draft2019_09_is_generated_and_every_case_decodes_as_the_suite_says() {
    judge(&drafts(), "draft2019-09", DRAFT2019_09);
}

#[test]
fn every_group_of_draft6_is_generated_and_every_case_decodes_as_the_suite_says() {
    judge(&drafts(), "draft6", DRAFT6);
}

#[test]
fn every_group_of_draft4_is_generated_and_every_case_decodes_as_the_suite_says() {
    judge(&drafts(), "draft4", DRAFT4);
}
