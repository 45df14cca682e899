//! Search: a query's results, with an optional written answer.

use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::super::Client;
use super::super::JsonBody;
use super::super::error::Error;
use super::super::open::open_string as open_enum;
use super::super::tasks::{TaskHandle, TaskOutput};
use crate::endpoint;

open_enum! {
    /// Search focus.
    Focus {
        /// General web.
        General = "general",
        /// Code.
        Coding = "coding",
        /// News.
        News = "news",
        /// Papers.
        Academic = "academic",
        /// Shopping.
        Shopping = "shopping",
        /// Social media.
        Social = "social",
        /// Geographic.
        Geo = "geo",
        /// Places.
        Location = "location",
    }
}

open_enum! {
    /// Search depth: `lite`, `fast` and `deep` in `/v1`; `lite` and `standard` in `/v2`
    /// (where [`SearchRequest::full_content`] asks for whole pages).
    SearchDepth {
        /// Fastest (both versions).
        Lite = "lite",
        /// Balanced (`/v1`).
        Fast = "fast",
        /// Most thorough (`/v1`).
        Deep = "deep",
        /// Thorough (`/v2`).
        Standard = "standard",
    }
}

/// A search request.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchRequest {
    body: Map<String, Value>,
}

impl SearchRequest {
    /// Search for `query`.
    pub fn new(query: impl Into<String>) -> Self {
        let mut body = Map::new();
        body.insert("query".into(), json!(query.into()));
        SearchRequest { body }
    }

    setters! {
        /// Results to return.
        max_results: u32 => "max_results",
        /// Add an AI-written answer.
        include_answer: bool => "include_answer",
        /// The focus (open set).
        focus: Focus => "focus",
        /// The depth (open set).
        depth: SearchDepth => "search_depth",
        /// Each hit's whole page text in `content`, not only a description (`/v2`).
        full_content: bool => "full_content",
    }
}

/// One search hit.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct SearchHit {
    /// Title.
    #[serde(default)]
    pub title: Option<String>,
    /// URL.
    #[serde(default)]
    pub url: Option<String>,
    /// Snippet.
    #[serde(default)]
    pub snippet: Option<String>,
    /// Description.
    #[serde(default)]
    pub description: Option<String>,
    /// Page content.
    #[serde(default)]
    pub content: Option<String>,
    /// Everything else.
    #[serde(flatten)]
    pub rest: Map<String, Value>,
}

/// A search result.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct SearchResult {
    /// Status (open set).
    #[serde(default, deserialize_with = "open_enum")]
    pub status: String,
    /// The query.
    #[serde(default)]
    pub query: Option<String>,
    /// The hits.
    #[serde(default)]
    pub results: Vec<SearchHit>,
    /// The AI-written answer, when asked for.
    #[serde(default)]
    pub answer: Option<String>,
    /// Sources of the answer.
    #[serde(default)]
    pub answer_citations: Option<Value>,
    /// Everything else (`request_id`, `total_results`, …).
    #[serde(flatten)]
    pub rest: Map<String, Value>,
}

impl TaskOutput for SearchResult {}

impl Client {
    /// Searches the web.
    pub async fn search(&self, request: SearchRequest) -> Result<SearchResult, Error> {
        Ok(self
            .post(&endpoint::SEARCH_RUN, &[], &request.body, "request")
            .await?
            .0)
    }

    /// Searches the web as a task (`/v1` only).
    pub async fn search_async(
        &self,
        request: SearchRequest,
    ) -> Result<TaskHandle<SearchResult>, Error> {
        self.start_task(
            &endpoint::SEARCH_ASYNC,
            &JsonBody::new(&request.body, "request")?,
        )
        .await
    }
}
