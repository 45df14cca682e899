//! Typed Rust bindings for the web data extraction service: every agent's parameters and output
//! record as Rust types, and an async client that knows the service's rules (validation before
//! sending, rate limits, retries, waiting for tasks, batches of any size).
//!
//! # Quickstart
//!
//! ```toml
//! [dependencies]
//! agents-runtime = "0.1"
//! tokio = { version = "1", features = ["macros", "rt-multi-thread"] }
//! ```
//!
//! ```no_run
//! use agents_runtime::catalog::RetailerAPdpParams;
//! use agents_runtime::prelude::*;
//!
//! #[tokio::main]
//! async fn main() -> Result<(), Error> {
//!     let client = Client::from_env()?; // AGENTS_API_KEY, and AGENTS_BASE_URL if not the default
//!     let run = client.run(RetailerAPdpParams::new("B08N5WRWNW").zip_code("10001")).await?;
//!     if let Some(product) = run.into_record() {
//!         println!("{:?} at {:?} USD", product.product_title, product.web_price);
//!     }
//!     Ok(())
//! }
//! ```
//!
//! Parameters are checked against the agent's rules before anything is sent
//! ([`Error::Validation`]); options an agent does not support do not compile (`zip_code` exists
//! only on agents that localize, [`Client::pages`] only on agents that paginate). Output fields
//! are all `Option`s: values of the wrong type are coerced or left empty and recorded in the
//! record's `mismatches`, and keys the schema does not declare are kept in `unknown_fields`.
//!
//! # Everyday tasks
//!
//! Pages of a paginated agent, as a stream:
//!
//! ```no_run
//! # use agents_runtime::{catalog::RetailerASerpParams, prelude::*};
//! # async fn f(client: Client) -> Result<(), Error> {
//! let mut pages = client.pages(RetailerASerpParams::new("earbuds")).max_pages(3).stream();
//! while let Some(page) = pages.next().await {
//!     for listing in page?.records() {
//!         println!("{:?} at {:?}", listing.product_title, listing.price);
//!     }
//! }
//! # Ok(()) }
//! ```
//!
//! A batch of any size (split into batches of 1,000), results streamed as tasks finish:
//!
//! ```no_run
//! # use agents_runtime::{catalog::{RetailerAPdp, RetailerAPdpParams}, prelude::*};
//! # async fn f(client: Client) -> Result<(), Error> {
//! let items = ["B08N5WRWNW", "B07FZ8S74R"].map(RetailerAPdpParams::new);
//! let batch = client.batch::<RetailerAPdp>().submit(items).await?;
//! let mut results = batch.results();
//! while let Some(item) = results.next().await {
//!     match item {
//!         Ok(run) => println!("{:?}", run.record().and_then(|p| p.web_price)),
//!         // A failed item carries the params it was sent with: no list of your own to keep.
//!         Err(failed) => eprintln!("{:?} failed: {}", failed.input.map(|i| i["asin"].clone()), failed.error),
//!     }
//! }
//! # Ok(()) }
//! ```
//!
//! An async run, and a custom agent generated from a prompt:
//!
//! ```no_run
//! # use agents_runtime::{catalog::RetailerAPdpParams, prelude::*};
//! # async fn f(client: Client) -> Result<(), Error> {
//! let product = client.run_async(RetailerAPdpParams::new("B08N5WRWNW")).await?.wait().await?;
//!
//! let request = GenerationRequest::new("title, price and rating", "https://shop.example/p/1")
//!     .agent_name("shop_product");
//! let generation = client.generate_agent(request).await?.wait().await?;
//! println!("published {:?}", generation.generated_version_id);
//! # Ok(()) }
//! ```
//!
//! Errors classify with [`Error::kind`]; [`Error::is_retryable`] says whether trying again may
//! help (the client already retried what its [`RetryPolicy`] allows).
//!
//! # Agents that are not in the catalog
//!
//! Custom agents get the same types from their record, cached as `schemas/NAME.json`
//! (`cargo agents fetch NAME`, or `cargo agents generate-agent`):
//!
//! * `agent!("NAME")` (feature `macros`) generates them in place at compile time;
//! * a build script with `agents_codegen::Builder` writes them into `OUT_DIR`;
//! * `cargo agents generate` writes a file to check in.
//!
//! [`Client::run_raw`] and [`Client::batch_raw`] run any agent by name with JSON params.
//!
//! # Features
//!
//! | feature | default | what it adds |
//! | --- | --- | --- |
//! | `client` | yes | [`Client`] (reqwest, tokio) |
//! | `rustls` | yes | HTTPS for the client through rustls; without it the client it makes speaks plain HTTP, and `ClientBuilder::http_client` takes a `reqwest::Client` with any TLS |
//! | `catalog` | yes | [`catalog`]: the bindings of every public agent |
//! | `records` | no | agent records as the generator reads them (`Client::agent`, `Client::agents`) and `validate::check_request`, the request check of raw params (pulls in `agents-schema`) |
//! | `macros` | no | `agent!`, bindings generated at compile time (pulls in the generator) |
//! | `delivery` | no | reading results delivered to S3, GCS or a directory |
//! | `redis` | no | one rate limit shared by every process on the key |
//! | `arrow` | no | [`columnar`]: records as Arrow columns, with a schema from their types |
//! | `parquet` | no | `columnar::ParquetWriter`: records into Parquet files, one row group at a time |
//!
//! Without `client`, the crate is only what generated code needs ([`Agent`], [`decode`],
//! [`validate`], [`record!`]).

#[cfg(feature = "catalog")]
pub use agents_catalog as catalog;

// What generated code needs lives in agents-types, so that the catalog and a program's own
// bindings compile beside the HTTP client rather than after it; every item keeps its name here.
#[doc(hidden)]
pub use agents_types::__private;
#[cfg(feature = "arrow")]
pub use agents_types::columnar;
pub use agents_types::{
    Agent, AgentParams, AgentVisitor, ApiVersion, Breach, DriftError, FieldPath, Instance, JsonMap,
    Localize, Localized, Mismatch, Paginated, Parsing, Record, Schema, ValidationError, Value,
    Violation, agent, check, decode, endpoint, fields, path, record, research, string_enum,
    union_enum, validate, words,
};

#[cfg(feature = "client")]
pub use agents_client::client;

#[cfg(feature = "records")]
pub use agents_types::records;

/// `agent!("name")`: the typed bindings of one agent, generated at compile time from its cached
/// schema (`schemas/NAME.json` of the package or workspace, or `AGENTS_SCHEMA_DIR`).
#[cfg(feature = "macros")]
pub use agents_macro::agent;

#[cfg(feature = "client")]
pub use agents_client::{
    BatchHandle, BatchItemError, Client, ClientBuilder, Clock, Delivery, Error, ErrorKind, Format,
    GenerationRequest, LimiterState, ManualClock, RetryPolicy, RunOptions, RunResult, RunStatus,
    StorageType, TaskHandle, TokioClock, WaitOptions,
};

/// One `use` for everyday code: the client and its options, the traits that tie agents
/// together, and `StreamExt` to read the streams the client returns.
///
/// ```
/// use agents_runtime::prelude::*;
/// ```
pub mod prelude {
    pub use crate::ApiVersion;
    #[cfg(feature = "client")]
    pub use crate::client::{
        Client, ClientBuilder, Error, ErrorKind, WaitOptions,
        generation::GenerationRequest,
        publish::{Published, TemplateSource},
        run::{Delivery, Format, RunOptions, RunResult},
    };
    pub use crate::path;
    pub use crate::{Agent, AgentParams, Localize, Localized, Paginated, Record};
    #[cfg(feature = "client")]
    pub use futures_util::{StreamExt as _, TryStreamExt as _};
}

/// The examples of README.md, compiled and run as doctests so that the README never lies
/// (`cargo test --workspace`, whose members turn on the features they use).
#[cfg(all(doctest, feature = "catalog", feature = "parquet"))]
#[doc = include_str!("../../README.md")]
mod readme {}
