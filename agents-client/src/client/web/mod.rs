//! Extract, search, map and crawl, with the request fields the live service takes: one file
//! per endpoint family.
//!
//! Every request type has an escape hatch, `.field(name, value)`, for fields it does not know;
//! open sets (drivers, focus, statuses) have an `Other` variant so unknown values never fail.

mod crawl;
mod extract;
mod map;
mod search;

pub use crawl::{
    CrawlCallback, CrawlEvent, CrawlHandle, CrawlRecord, CrawlRequest, CrawlStatus, CrawlTask,
};
pub use extract::{
    ActionResult, BrowserAction, BrowserActions, Driver, ExtractData, ExtractFormat,
    ExtractRequest, ExtractResult,
};
pub use map::{MapLink, MapRequest, MapResult};
pub use search::{Focus, SearchDepth, SearchHit, SearchRequest, SearchResult};

open_enum! {
    /// How map and crawl use the sitemap.
    Sitemap {
        /// Ignore it.
        Skip = "skip",
        /// Use it with links.
        Include = "include",
        /// Use only it.
        Only = "only",
    }
}
