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
