//! Generated bindings of the JSON-Schema-Test-Suite's older drafts
//! (`tests/json-schema-test-suite-drafts/`, MIT), compiled under `#![deny(warnings)]`: in the
//! module of its draft, each group's schema is the field `value` of `Suite{n}`, the root
//! declaring the draft. `tests/suite.rs` decodes every case into them.
#![deny(warnings)]

/// Draft 7's groups.
pub mod suite_draft7 {
    include!(concat!(env!("OUT_DIR"), "/suite_draft7.rs"));
}

/// Draft 2019-09's groups.
pub mod suite_draft2019_09 {
    include!(concat!(env!("OUT_DIR"), "/suite_draft2019_09.rs"));
}

/// Draft 6's groups.
pub mod suite_draft6 {
    include!(concat!(env!("OUT_DIR"), "/suite_draft6.rs"));
}

/// Draft 4's groups.
pub mod suite_draft4 {
    include!(concat!(env!("OUT_DIR"), "/suite_draft4.rs"));
}
