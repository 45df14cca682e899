//! Search engine results pages (SERP) and the fast SERP path: typed requests, answered in the
//! run-result envelope, whose `data.parsing` reads as [`SerpParsing`].

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::batch::BatchHandle;
use super::error::{Error, OptionCheck};
use super::run::{Delivery, RunResult};
use super::tasks::TaskHandle;
use super::{Client, JsonBody};
use crate::endpoint;

open_enum! {
    /// The search engine a SERP request queries (an open set: the service adds engines).
    SearchEngine {
        /// Google web search.
        GoogleSearch = "google_search",
        /// Google's generative search experience.
        GoogleSge = "google_sge",
        /// Google AI overviews.
        GoogleAio = "google_aio",
        /// Google Maps search.
        GoogleMapsSearch = "google_maps_search",
        /// Reviews of a Google Maps place.
        GoogleMapsReviews = "google_maps_reviews",
        /// One Google Maps place.
        GoogleMapsPlace = "google_maps_place",
        /// Google News.
        GoogleNews = "google_news",
        /// Google Images.
        GoogleImages = "google_images",
        /// Bing web search.
        BingSearch = "bing_search",
        /// Yandex web search.
        YandexSearch = "yandex_search",
    }
}

open_enum! {
    /// The device a SERP is fetched as.
    Device {
        /// A desktop browser.
        Desktop = "desktop",
        /// A mobile browser.
        Mobile = "mobile",
    }
}

/// A SERP request: `SerpRequest::new(SearchEngine::GoogleSearch, "rust serde").num_results(20)`.
#[derive(Debug, Clone, PartialEq)]
pub struct SerpRequest {
    body: Map<String, Value>,
}

impl SerpRequest {
    /// A query to `engine`.
    pub fn new(engine: SearchEngine, query: impl Into<String>) -> Self {
        SerpRequest::settings(engine).query(query)
    }

    /// Settings without a query: the shared inputs of [`Client::serp_batch`], which every item
    /// inherits unless it sets them itself.
    pub fn settings(engine: SearchEngine) -> Self {
        let mut body = Map::new();
        body.insert("search_engine".into(), json!(engine));
        SerpRequest { body }
    }

    /// A query without an engine: an item of [`Client::serp_batch`], whose engine is shared.
    pub fn item(query: impl Into<String>) -> Self {
        SerpRequest { body: Map::new() }.query(query)
    }

    /// The query.
    pub fn query(mut self, query: impl Into<String>) -> Self {
        self.body.insert("query".into(), json!(query.into()));
        self
    }

    setters! {
        /// Two-letter country of the residential IP (`US`, `DE`).
        country: &str => "country",
        /// Locale of the results page (`en`, `de-DE`).
        locale: &str => "locale",
        /// A place the search is made from (a city, an address).
        location: &str => "location",
        /// The engine's domain to query (`www.google.de`).
        domain: &str => "domain",
        /// The device.
        device: Device => "device",
        /// Results per page.
        num_results: u32 => "num_results",
        /// The page, from 1.
        page: u32 => "page",
        /// Parse the page into entities (default true).
        parse: bool => "parse",
        /// Render the page in a browser.
        render: bool => "render",
        /// Include results the engine hides as duplicates (Google).
        show_hidden_results: bool => "show_hidden_results",
        /// Resolve redirector links to where they lead (`/v2`).
        resolve_url: bool => "resolve_url",
    }

    fn check(&self, needs_engine: bool) -> Result<(), Error> {
        let mut check = OptionCheck::default();
        if needs_engine && !self.body.contains_key("search_engine") {
            check.bad(
                "search_engine",
                "a SERP request needs an engine: SerpRequest::new or ::settings",
            );
        }
        for field in ["num_results", "page"] {
            if self.body.get(field).and_then(Value::as_u64) == Some(0) {
                check.bad(field, format!("{field} starts at 1"));
            }
        }
        check.finish()
    }
}

/// A SERP's `data.parsing`: entities by kind (`OrganicResult`, `Place`, `NewsResult`,
/// `RelatedSearch`, …), or the parser's error. Read it with
/// [`RunResult::into_typed`] or from [`RunResult::record`].
///
/// ```no_run
/// # async fn demo(client: agents_runtime::Client) -> Result<(), agents_runtime::Error> {
/// use agents_runtime::client::serp::{SearchEngine, SerpParsing, SerpRequest};
/// let page = client.serp(SerpRequest::new(SearchEngine::GoogleSearch, "rust serde")).await?;
/// let parsed = page.into_typed::<SerpParsing>()?;
/// for hit in parsed.record().map(|p| p.entities("OrganicResult")).unwrap_or_default() {
///     println!("{}", hit["title"]);
/// }
/// # Ok(()) }
/// ```
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct SerpParsing {
    /// `success` or `error` (an open set).
    #[serde(default)]
    pub status: Option<String>,
    /// Entities by kind.
    #[serde(default)]
    pub entities: BTreeMap<String, Vec<Value>>,
    /// Why parsing failed.
    #[serde(default)]
    pub error: Option<String>,
    /// Everything else (`total_entities_count`, `entities_count`, …), kept as sent.
    #[serde(flatten)]
    pub rest: Map<String, Value>,
}

impl SerpParsing {
    /// The entities of one kind (none when the page has none).
    pub fn entities(&self, kind: &str) -> &[Value] {
        self.entities.get(kind).map_or(&[], Vec::as_slice)
    }
}

impl Client {
    /// Fetches and parses one results page.
    pub async fn serp(&self, request: SerpRequest) -> Result<RunResult<Value>, Error> {
        self.serp_on(&endpoint::SERP_RUN, request).await
    }

    /// Fetches a results page on the fast path (run only; no async, no batch).
    pub async fn fast_serp(&self, request: SerpRequest) -> Result<RunResult<Value>, Error> {
        self.serp_on(&endpoint::FAST_SERP_RUN, request).await
    }

    async fn serp_on(
        &self,
        endpoint: &endpoint::Endpoint,
        request: SerpRequest,
    ) -> Result<RunResult<Value>, Error> {
        request.check(true)?;
        let (mut result, info): (RunResult<Value>, _) =
            self.post(endpoint, &[], &request.body, "request").await?;
        result.response = info;
        Ok(result)
    }

    /// Fetches a results page as a task, with optional delivery.
    pub async fn serp_async(
        &self,
        request: SerpRequest,
        delivery: &Delivery,
    ) -> Result<TaskHandle<RunResult<Value>>, Error> {
        request.check(true)?;
        let mut body = request.body;
        delivery.add_to(&mut body)?;
        self.start_task(&endpoint::SERP_ASYNC, &JsonBody::new(&body, "request")?)
            .await
    }

    /// Fetches many results pages as a batch: `shared` (an engine and settings,
    /// [`SerpRequest::settings`]) applies to every item ([`SerpRequest::item`]), item fields
    /// override it; more than 1,000 items are split into several batches, and every invalid
    /// item is reported at once with its position, nothing sent.
    pub async fn serp_batch(
        &self,
        shared: SerpRequest,
        items: impl IntoIterator<Item = SerpRequest>,
    ) -> Result<BatchHandle<RunResult<Value>>, Error> {
        shared.check(true)?;
        let items = items.into_iter().map(|item| {
            item.check(false)?;
            Ok(item.body)
        });
        super::batch::submit_items(self, &endpoint::SERP_BATCH, shared.body, items).await
    }
}
