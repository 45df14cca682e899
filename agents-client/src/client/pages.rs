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

use std::future::Future;

use futures_util::StreamExt;
use futures_util::stream::BoxStream;
use serde::Serialize;
use serde_json::{Map, Value};

use super::Client;
use super::error::Error;
use super::run::{RunOptions, RunResult};
use crate::agent::{Agent, AgentParams, Paginated};

/// Pages of a paginated agent; see the module docs.
///
/// Only [`Client::pages`] asks for [`Paginated`]; the paginator keeps the agent's page accessors
/// from there, so its own methods need no bound, and misuse is one error at `pages`, not a
/// second one at `stream`.
#[derive(Debug, Clone)]
pub struct Pages<A: Agent> {
    client: Client,
    params: A::Params,
    options: RunOptions,
    max_pages: u32,
    /// [`Paginated::page`] and [`Paginated::set_page`] of the agent.
    page: fn(&A::Params) -> Option<u32>,
    set_page: fn(&mut A::Params, u32),
}

impl<A: Agent> Pages<A> {
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

    /// The pages, fetched one at a time as the stream is read. The stream is `Unpin`: read it
    /// with `while let Some(page) = pages.next().await` (`StreamExt`, in
    /// `agents_runtime::prelude`).
    pub fn stream(self) -> BoxStream<'static, Result<RunResult<A>, Error>> {
        let first = (self.page)(&self.params).unwrap_or(1);
        let Pages {
            client,
            params,
            options,
            max_pages,
            set_page,
            ..
        } = self;
        paged(first, max_pages, move |n| {
            let (client, options) = (client.clone(), options.clone());
            let mut params = params.clone();
            set_page(&mut params, n);
            async move { client.run_with(params, &options).await }
        })
    }
}

/// Pages of an agent without bindings, by the name of its page input; see
/// [`Client::pages_raw`] and the module docs.
#[derive(Debug, Clone)]
pub struct RawPages {
    client: Client,
    agent: String,
    params: Map<String, Value>,
    page_input: String,
    options: RunOptions,
    max_pages: u32,
}

impl RawPages {
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

    /// The pages, fetched one at a time as the stream is read, from the page the params ask for
    /// (else 1).
    pub fn stream(self) -> BoxStream<'static, Result<RunResult<Value>, Error>> {
        let first = self
            .params
            .get(&self.page_input)
            .and_then(Value::as_u64)
            .and_then(|n| u32::try_from(n).ok())
            .unwrap_or(1);
        let RawPages {
            client,
            agent,
            params,
            page_input,
            options,
            max_pages,
        } = self;
        paged(first, max_pages, move |n| {
            let (client, agent, options) = (client.clone(), agent.clone(), options.clone());
            let mut params = params.clone();
            params.insert(page_input.clone(), n.into());
            async move {
                client
                    .run_raw_with(&agent, Value::Object(params), &options)
                    .await
            }
        })
    }
}

/// The pages `fetch` gets, from page `first` on: the stream ends at an empty page, at a page
/// that repeats the records of the one before, after a failure (its last item), or after
/// `max_pages` pages.
fn paged<T, F, Fut>(
    first: u32,
    max_pages: u32,
    fetch: F,
) -> BoxStream<'static, Result<RunResult<T>, Error>>
where
    T: Serialize + Send + 'static,
    F: Fn(u32) -> Fut + Send + 'static,
    Fut: Future<Output = Result<RunResult<T>, Error>> + Send,
{
    struct S<F> {
        fetch: F,
        max_pages: u32,
        next: u32,
        fetched: u32,
        previous: Option<Value>,
        done: bool,
    }
    let start = S {
        fetch,
        max_pages,
        next: first,
        fetched: 0,
        previous: None,
        done: false,
    };
    futures_util::stream::unfold(start, |mut s| async move {
        if s.done || s.fetched >= s.max_pages {
            return None;
        }
        let page = match (s.fetch)(s.next).await {
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

impl Client {
    /// The pages of a paginated agent, starting at the page `params` asks for (else 1).
    pub fn pages<P>(&self, params: P) -> Pages<P::Agent>
    where
        P: AgentParams,
        P::Agent: Paginated + Agent<Params = P>,
    {
        Pages {
            client: self.clone(),
            params,
            options: RunOptions::new(),
            max_pages: 100,
            page: <P::Agent as Paginated>::page,
            set_page: <P::Agent as Paginated>::set_page,
        }
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
    ) -> RawPages {
        RawPages {
            client: self.clone(),
            agent: agent.into(),
            params,
            page_input: page_input.into(),
            options: RunOptions::new(),
            max_pages: 100,
        }
    }
}
