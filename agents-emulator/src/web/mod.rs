//! Extract, search, map and crawl.
//!
//! The emulator never contacts anything outside loopback: URLs on 127.0.0.0/8, `localhost` or
//! `[::1]` are fetched for real (so a test can serve a site), every other host gets a
//! deterministic synthetic page. Browser actions are validated; each gets a result entry, and the
//! ones that need a browser are reported as `skipped`, never as done.

mod actions;
mod crawl;
mod discover;
mod extract;
mod page;
mod search;

pub use crate::net::is_loopback;
pub use crawl::Crawl;
pub(crate) use crawl::{crawl, crawl_delete, crawl_get, crawl_list};
pub(crate) use discover::map;
pub use extract::extract_result;
pub(crate) use extract::{answer, extract};
pub use page::{MAX_PAGE, Page, fetch, links, markdown};
pub(crate) use search::search;

/// This area's endpoints and their handlers, under the endpoint's `method`: the router asks
/// every area, so serving a new endpoint of the area is an arm here and nothing in `routes.rs`.
pub(crate) fn handler(
    e: &agents_runtime::endpoint::Endpoint,
    method: axum::routing::MethodFilter,
) -> Option<axum::routing::MethodRouter<std::sync::Arc<crate::state::State>>> {
    use agents_runtime::endpoint;
    use axum::routing::on;
    Some(match *e {
        endpoint::EXTRACT_RUN => on(method, extract::<false>),
        endpoint::EXTRACT_ASYNC => on(method, extract::<true>),
        endpoint::SEARCH_RUN => on(method, search::<false>),
        endpoint::SEARCH_ASYNC => on(method, search::<true>),
        endpoint::MAP_RUN => on(method, map::<false>),
        endpoint::MAP_ASYNC => on(method, map::<true>),
        endpoint::CRAWL_START => on(method, crawl),
        endpoint::CRAWL_LIST => on(method, crawl_list),
        endpoint::CRAWL_GET => on(method, crawl_get),
        endpoint::CRAWL_CANCEL => on(method, crawl_delete),
        _ => return None,
    })
}
