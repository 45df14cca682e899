//! The page paginator: one call per page, the pagination parameter incremented from
//! its start. The service gives no last-page signal, so the stream stops when the caller stops,
//! on an empty page, when a page repeats the records of the previous one (placeholder content
//! past the real last page), or at a maximum number of pages (default 100).
//!
//! Only agents with pagination have it: `client.pages(params)` needs `Paginated`; an agent
//! without bindings is paged by the name of its page input, `client.pages_raw(agent, params,
//! "page")`.
//!
//! ```compile_fail
//! # async fn f(client: agents_runtime::Client) {
//! // retailer_a_pdp has no pagination parameter.
//! let pages = client.pages(agents_runtime::catalog::RetailerAPdpParams::new("B1"));
//! # }
//! ```

use std::sync::Arc;

use futures_util::StreamExt;
use futures_util::future::BoxFuture;
use futures_util::stream::BoxStream;
use serde::Serialize;
use serde_json::{Map, Value};

use super::Client;
use super::error::Error;
use super::run::{RunOptions, RunResult};
use crate::agent::{Agent, AgentParams, Paginated};

/// Runs one page: the client, the options and the page number in, the page's result out.
type RunPage<T> = dyn Fn(Client, RunOptions, u32) -> BoxFuture<'static, Result<RunResult<T>, Error>>
    + Send
    + Sync;

/// Pages of an agent, `T` its record: from [`Client::pages`] (a typed agent with pagination) or
/// [`Client::pages_raw`] (`T` is `Value`); see the module docs.
///
/// Only [`Client::pages`] asks for [`Paginated`]; the paginator keeps how to set the page from
/// there, so its own methods need no bound, and misuse is one error at `pages`, not a second one
/// at `stream`.
#[derive(Clone)]
pub struct Pages<T> {
    client: Client,
    options: RunOptions,
    max_pages: u32,
    /// The page the params ask for, else 1.
    first: u32,
    run: Arc<RunPage<T>>,
}

impl<T> std::fmt::Debug for Pages<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pages")
            .field("client", &self.client)
            .field("options", &self.options)
            .field("max_pages", &self.max_pages)
            .field("first", &self.first)
            .finish_non_exhaustive()
    }
}

impl<T: Serialize + Send + 'static> Pages<T> {
    /// From page `first`, each run by `run`, with the default options and at most 100 pages.
    fn new(client: &Client, first: u32, run: Arc<RunPage<T>>) -> Self {
        Pages {
            client: client.clone(),
            options: RunOptions::new(),
            max_pages: 100,
            first,
            run,
        }
    }

    /// The number of the first page the stream reads: the one the params ask for, else 1.
    pub fn first_page(&self) -> u32 {
        self.first
    }

    /// At most this many pages (default 100).
    pub fn max_pages(mut self, n: u32) -> Self {
        self.max_pages = n;
        self
    }

    /// Formats for every page.
    pub fn options(mut self, options: RunOptions) -> Self {
        self.options = options;
        self
    }

    /// The pages, fetched one at a time as the stream is read: it ends at an empty page, at a
    /// page that repeats the records of the one before, after a failure (its last item), or
    /// after `max_pages` pages. The stream is `Unpin`: read it with `while let Some(page) =
    /// pages.next().await` (`StreamExt`, in `agents_runtime::prelude`).
    pub fn stream(self) -> BoxStream<'static, Result<RunResult<T>, Error>> {
        struct S<T> {
            pages: Pages<T>,
            next: u32,
            fetched: u32,
            previous: Option<Value>,
            done: bool,
        }
        let start = S {
            next: self.first,
            pages: self,
            fetched: 0,
            previous: None,
            done: false,
        };
        futures_util::stream::unfold(start, |mut s| async move {
            if s.done || s.fetched >= s.pages.max_pages {
                return None;
            }
            let run = (s.pages.run)(s.pages.client.clone(), s.pages.options.clone(), s.next);
            let page = match run.await {
                Ok(p) => p,
                Err(e) => {
                    s.done = true;
                    return Some((Err(e), s));
                }
            };
            if page.records().is_empty() {
                return None;
            }
            let records = serde_json::to_value(page.records()).ok();
            if records.is_some() && records == s.previous {
                tracing::debug!(page = s.next, "page repeats the previous one; stopping");
                return None;
            }
            s.previous = records;
            s.fetched += 1;
            s.next = s.next.saturating_add(1);
            Some((Ok(page), s))
        })
        .boxed()
    }
}

impl Client {
    /// The pages of a paginated agent, starting at the page `params` asks for (else 1).
    pub fn pages<P>(&self, params: P) -> Pages<P::Agent>
    where
        P: AgentParams,
        P::Agent: Paginated + Agent<Params = P>,
    {
        let first = <P::Agent as Paginated>::page(&params).unwrap_or(1);
        let run: Arc<RunPage<P::Agent>> = Arc::new(move |client, options, n| {
            let mut params = params.clone();
            <P::Agent as Paginated>::set_page(&mut params, n);
            Box::pin(async move { client.run_with(params, &options).await })
        });
        Pages::new(self, first, run)
    }

    /// The pages of an agent without bindings: `page_input` names its page number input
    /// (`AgentRecord::pagination_param` says which), the rest is as [`Client::pages`].
    ///
    /// ```no_run
    /// # use agents_runtime::prelude::*;
    /// # async fn demo(client: Client) -> Result<(), Error> {
    /// let params = serde_json::json!({"query": "coffee"});
    /// let params = params.as_object().cloned().unwrap_or_default();
    /// let mut pages = client
    ///     .pages_raw("search_engine_maps_search", params, "page")
    ///     .max_pages(3)
    ///     .stream();
    /// while let Some(page) = pages.next().await {
    ///     println!("{} records", page?.records().len());
    /// }
    /// # Ok(()) }
    /// ```
    pub fn pages_raw(
        &self,
        agent: impl Into<String>,
        params: Map<String, Value>,
        page_input: impl Into<String>,
    ) -> Pages<Value> {
        let (agent, page_input) = (agent.into(), page_input.into());
        let first = params
            .get(&page_input)
            .and_then(Value::as_u64)
            .and_then(|n| u32::try_from(n).ok())
            .unwrap_or(1);
        let run: Arc<RunPage<Value>> = Arc::new(move |client, options, n| {
            let mut params = params.clone();
            params.insert(page_input.clone(), n.into());
            let agent = agent.clone();
            Box::pin(async move {
                client
                    .run_raw_with(&agent, Value::Object(params), &options)
                    .await
            })
        });
        Pages::new(self, first, run)
    }
}
