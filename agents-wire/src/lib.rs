//! The service's interface as data, in two tables every other crate reads: [`endpoint`] (each
//! endpoint's method, its path in each version and whether a call may be repeated) and
//! [`words`] (what each version calls things in bodies and queries); and [`json`], how its
//! JSON is read (nested past serde_json's limit) and named in messages. The client builds its
//! requests from them, the emulator routes and answers by them and the generator's live fetch
//! finds its URL in them, so a difference between versions is a row here and nowhere else
//! (a test reads the other crates' sources to keep it so). [`repeated`] finds the keys a
//! document gives twice in one object, for every reader of a user's JSON.
//!
//! Most users meet these tables through `agents_runtime::endpoint` and `agents_runtime::words`,
//! which re-export them.

pub mod endpoint;
pub mod json;
pub mod repeated;
mod surrogates;
pub mod words;

pub use endpoint::ApiVersion;
