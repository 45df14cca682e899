//! The async client of the web data extraction service: runs of typed agents, tasks, batches of
//! any size, jobs, research runs and the rest of the interface, with the service's rules built
//! in (parameters checked before sending, the rate limit, retries with the service's hints,
//! waiting for what runs asynchronously).
//!
//! Programs use it through `agents-runtime`, which re-exports it whole (`agents_runtime::Client`,
//! `agents_runtime::client::…`) beside the catalog and the generated-code support. It is a crate
//! of its own so that the catalog's bindings compile beside it rather than before it.

pub mod client;

pub use client::{
    Client, ClientBuilder, Clock, Error, ErrorKind, LimiterState, ManualClock, RetryPolicy,
    TokioClock, WaitOptions,
    batch::{BatchHandle, BatchItemError},
    generation::GenerationRequest,
    run::{Delivery, Format, RunOptions, RunResult, RunStatus, StorageType},
    tasks::TaskHandle,
};

// The client's files name what generated code needs as the runtime does (`crate::decode`, …).
use agents_types::{Record, agent, decode, endpoint, fields, research, validate, words};
