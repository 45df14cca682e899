//! The page paginator: one call per page, the pagination parameter incremented from
//! its start. The service gives no last-page signal, so the stream stops when the caller stops,
//! on an empty page, when a page repeats the records of the previous one (placeholder content
//! past the real last page), or at a maximum number of pages (default 100).
//!
//! Only agents with pagination have it: `client.pages(params)` needs `Paginated`.
//!
//! ```compile_fail
//! # async fn f(client: agents_runtime::Client) {
//! // retailer_a_pdp has no pagination parameter.
//! let pages = client.pages(agents_runtime::catalog::RetailerAPdpParams::new("B1"));
//! # }
//! ```

use futures_util::StreamExt;
use futures_util::stream::BoxStream;

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
        struct S<A: Agent> {
            pages: Pages<A>,
            next: u32,
            fetched: u32,
            previous: Option<serde_json::Value>,
            done: bool,
        }
        let next = (self.page)(&self.params).unwrap_or(1);
        let start = S {
            pages: self,
            next,
            fetched: 0,
            previous: None,
            done: false,
        };
        futures_util::stream::unfold(start, |mut s| async move {
            if s.done || s.fetched >= s.pages.max_pages {
                return None;
            }
            let mut params = s.pages.params.clone();
            (s.pages.set_page)(&mut params, s.next);
            let page = match s.pages.client.run_with(params, &s.pages.options).await {
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
        Pages {
            client: self.clone(),
            params,
            options: RunOptions::new(),
            max_pages: 100,
            page: <P::Agent as Paginated>::page,
            set_page: <P::Agent as Paginated>::set_page,
        }
    }
}
