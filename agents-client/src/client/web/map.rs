//! Map: the URLs of a site, from its sitemap and links.

use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::super::Client;
use super::super::JsonBody;
use super::super::error::Error;
use super::super::tasks::{TaskHandle, TaskOutput};
use crate::endpoint;

use super::Sitemap;

/// A map request.
#[derive(Debug, Clone, PartialEq)]
pub struct MapRequest {
    body: Map<String, Value>,
}

impl MapRequest {
    /// Map the site of `url`.
    pub fn new(url: impl Into<String>) -> Self {
        let mut body = Map::new();
        body.insert("url".into(), json!(url.into()));
        MapRequest { body }
    }

    setters! {
        /// Most links to return.
        limit: u32 => "limit",
        /// `domain`, `subdomain` or `all`.
        domain_filter: &str => "domain_filter",
        /// Two-letter country.
        country: &str => "country",
        /// Locale of the requests (`en-US`).
        locale: &str => "locale",
        /// Sitemap use.
        sitemap: Sitemap => "sitemap",
    }
}

/// One mapped link.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct MapLink {
    /// URL.
    pub url: String,
    /// Page title.
    #[serde(default)]
    pub title: Option<String>,
    /// Page description.
    #[serde(default)]
    pub description: Option<String>,
}

/// A map result.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct MapResult {
    /// Whether mapping succeeded.
    #[serde(default)]
    pub success: bool,
    /// The links.
    #[serde(default)]
    pub links: Vec<MapLink>,
    /// The task id.
    #[serde(default)]
    pub task_id: Option<String>,
}

impl TaskOutput for MapResult {}

impl Client {
    /// Lists a site's URLs.
    pub async fn map(&self, request: MapRequest) -> Result<MapResult, Error> {
        Ok(self
            .post(&endpoint::MAP_RUN, &[], &request.body, "request")
            .await?
            .0)
    }

    /// Lists a site's URLs as a task (`/v1` only).
    pub async fn map_async(&self, request: MapRequest) -> Result<TaskHandle<MapResult>, Error> {
        self.start_task(
            &endpoint::MAP_ASYNC,
            &JsonBody::new(&request.body, "request")?,
        )
        .await
    }
}
