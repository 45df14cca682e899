//! `cargo agents` against the emulator over loopback. Each file beside this one is a module of
//! one test binary (compiled and linked once, its tests sharing the harness's threads);
//! `common` holds what they share.
//!
//! `cargo test -p agents-cli -- run::` runs one file's tests.

mod common;

mod cli;
mod jobs;
mod publish;
mod research;
mod run;
