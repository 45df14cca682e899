//! The end-to-end tests: the runtime's client against the emulator over loopback HTTP. Each
//! file beside this one is a module of one test binary, so the client, the emulator and their
//! generic code are compiled and linked once for all of them, and their tests share the
//! harness's threads instead of running binary after binary. `redaction.rs` is a binary of
//! its own (its doc says why).
//!
//! `cargo test -p agents-tests-e2e -- fleet::` runs one file's tests.

mod batch;
mod client;
mod columnar;
mod conformance;
mod delivery;
mod docs;
mod fleet;
mod hostile;
mod jobs;
mod json_schema;
mod layout;
mod live_fetch;
mod publish;
mod research;
mod serp_media;
mod spelled_once;
mod synthesized;
mod v2;
mod v2_hostile;
mod vendor_shapes;
mod web;
