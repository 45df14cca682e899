//! Media downloads (images, video, documents through the service's residential network,
//! optionally uploaded to your storage) and domain knowledge (which driver fetches a domain,
//! the anti-bot systems it meets).

use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::error::{Error, OptionCheck};
use super::run::{Delivery, RunResult};
use super::tasks::TaskHandle;
use super::{Client, JsonBody};
use crate::endpoint;

open_enum! {
    /// Where a media file is uploaded.
    MediaStorageType {
        /// Amazon S3.
        S3 = "s3",
        /// Google Cloud Storage.
        Gcs = "gcs",
        /// DigitalOcean Spaces.
        Do = "do",
        /// Oracle Cloud Infrastructure.
        Oci = "oci",
    }
}

/// A media download: `MediaRequest::new("https://cdn.example/a.jpg").expect_mime_type("image/*")`.
#[derive(Debug, Clone, PartialEq)]
pub struct MediaRequest {
    body: Map<String, Value>,
}

impl MediaRequest {
    /// Download `url`.
    pub fn new(url: impl Into<String>) -> Self {
        let mut body = Map::new();
        body.insert("url".into(), json!(url.into()));
        MediaRequest { body }
    }

    setters! {
        /// Two-letter country of the residential IP.
        country: &str => "country",
        /// Locale of the request.
        locale: &str => "locale",
    }

    /// A MIME type the file must have (`image/png`, or `image/*`); a file of another type
    /// answers an error result. Repeatable.
    pub fn expect_mime_type(mut self, mime: impl Into<String>) -> Self {
        let list = self
            .body
            .entry("expected_mime_types")
            .or_insert_with(|| Value::Array(Vec::new()));
        if let Value::Array(items) = list {
            items.push(json!(mime.into()));
        }
        self
    }

    /// Uploads the file to `url` in storage of type `ty`, under `object_name` when given.
    pub fn storage(
        mut self,
        ty: MediaStorageType,
        url: impl Into<String>,
        object_name: Option<&str>,
    ) -> Self {
        let mut storage = json!({ "type": ty, "url": url.into() });
        if let Some(name) = object_name {
            storage["object_name"] = json!(name);
        }
        self.body.insert("storage".into(), storage);
        self
    }

    fn check(&self) -> Result<(), Error> {
        let mut check = OptionCheck::default();
        let url = self.body.get("url").and_then(Value::as_str).unwrap_or("");
        check.take(super::check_http_url("url", url));
        let not_mime: Vec<String> = self
            .body
            .get("expected_mime_types")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter(|mime| !mime.as_str().is_some_and(|m| m.contains('/')))
            .map(Value::to_string)
            .collect();
        if !not_mime.is_empty() {
            check.bad(
                "expected_mime_types",
                format!(
                    "{} not a MIME type such as image/png",
                    if let [one] = not_mime.as_slice() {
                        format!("{one} is")
                    } else {
                        format!("{} are", not_mime.join(", "))
                    }
                ),
            );
        }
        check.finish()
    }
}

/// What the service knows about fetching a domain, or about the driver an agent runs on.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct DomainDriver {
    /// The driver's name (`vx6`, `vx8`, `vx10`, …).
    pub driver: String,
    /// What the driver does.
    #[serde(default)]
    pub description: String,
    /// Anti-bot systems seen on the domain.
    #[serde(default)]
    pub antibots: Vec<String>,
    /// Whether pages need rendering in a browser.
    #[serde(default)]
    pub need_to_render: Option<bool>,
    /// The agent asked about.
    #[serde(default)]
    pub agent: Option<String>,
    /// The URL asked about.
    #[serde(default)]
    pub url: Option<String>,
    /// Everything else, kept as sent.
    #[serde(flatten)]
    pub rest: Map<String, Value>,
}

/// What a domain-knowledge lookup asks about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DriverLookup {
    /// A domain or a URL on it (`shop.example`, `https://shop.example/p/1`).
    Url(String),
    /// An agent (extract template) by name.
    Agent(String),
}

impl Client {
    /// Downloads a media file and answers what it is (and where it was uploaded).
    pub async fn media(&self, request: MediaRequest) -> Result<RunResult<Value>, Error> {
        request.check()?;
        let (mut result, info): (RunResult<Value>, _) = self
            .post(&endpoint::MEDIA_RUN, &[], &request.body, "request")
            .await?;
        result.response = info;
        Ok(result)
    }

    /// Downloads a media file as a task, with optional delivery of the result.
    pub async fn media_async(
        &self,
        request: MediaRequest,
        delivery: &Delivery,
    ) -> Result<TaskHandle<RunResult<Value>>, Error> {
        request.check()?;
        let mut body = request.body;
        delivery.add_to(&mut body)?;
        self.start_task(&endpoint::MEDIA_ASYNC, &JsonBody::new(&body, "request")?)
            .await
    }

    /// Which driver fetches a domain, or which one an agent runs on.
    ///
    /// ```no_run
    /// # async fn demo(client: agents_runtime::Client) -> Result<(), agents_runtime::Error> {
    /// use agents_runtime::client::media::DriverLookup;
    /// let d = client.domain_driver(DriverLookup::Url("shop.example".into())).await?;
    /// println!("{} (render: {:?}), anti-bots: {:?}", d.driver, d.need_to_render, d.antibots);
    /// # Ok(()) }
    /// ```
    pub async fn domain_driver(&self, lookup: DriverLookup) -> Result<DomainDriver, Error> {
        let query = match &lookup {
            DriverLookup::Url(u) if !u.trim().is_empty() => ("url", u.clone()),
            DriverLookup::Agent(a) if !a.trim().is_empty() => ("agent", a.clone()),
            _ => {
                return Err(Error::InvalidOption {
                    option: "lookup",
                    message: "a domain-knowledge lookup needs a non-empty URL or agent name".into(),
                });
            }
        };
        Ok(self.get(&endpoint::DOMAIN_DRIVER, &[], &[query]).await?.0)
    }
}
