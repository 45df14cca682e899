//! Reading cloud-delivered results: a task's result stored under `storage_url` as
//! `<task_id>.json`, `<task_id>.json.gz` or a custom object name, decoded typed. Any
//! `object_store` works (S3, GCS, a local directory).
//!
//! ```no_run
//! # async fn demo() -> Result<(), agents_runtime::client::delivery::DeliveryError> {
//! use agents_runtime::client::delivery::DeliveryReader;
//! use agents_runtime::catalog::RetailerAPdp;
//! use agents_runtime::RunResult;
//! // A local directory standing in for the bucket `results`.
//! let reader = DeliveryReader::local("/tmp/buckets/results")?;
//! let result: RunResult<RetailerAPdp> = reader.read("s3://results/pdp/", "TASK_ID").await?;
//! # Ok(()) }
//! ```

use std::io::Read as _;
use std::sync::Arc;

use object_store::path::Path as ObjectPath;
use object_store::{ObjectStore, ObjectStoreExt};
use serde::de::DeserializeOwned;

pub use super::error::DeliveryError;

/// Reads delivered results from one bucket.
#[derive(Debug, Clone)]
pub struct DeliveryReader {
    store: Arc<dyn ObjectStore>,
}

impl DeliveryReader {
    /// A reader over a store for the bucket.
    pub fn new(store: Arc<dyn ObjectStore>) -> Self {
        DeliveryReader { store }
    }

    /// A reader over a local directory standing in for the bucket.
    pub fn local(dir: impl AsRef<std::path::Path>) -> Result<Self, DeliveryError> {
        let fs = object_store::local::LocalFileSystem::new_with_prefix(dir.as_ref())?;
        Ok(DeliveryReader::new(Arc::new(fs)))
    }

    /// Reads the result `name` (a task id, or the `storage_object_name`) delivered under
    /// `storage_url`: `name.json`, else `name.json.gz`.
    pub async fn read<R: DeserializeOwned + Send>(
        &self,
        storage_url: &str,
        name: &str,
    ) -> Result<R, DeliveryError> {
        let rest = storage_url
            .strip_prefix("s3://")
            .or_else(|| storage_url.strip_prefix("gs://"))
            .ok_or_else(|| DeliveryError::Url(storage_url.to_owned()))?;
        let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
        if bucket.is_empty() {
            return Err(DeliveryError::Url(storage_url.to_owned()));
        }
        let prefix = prefix.trim_matches('/');
        let mut tried = Vec::new();
        for ext in ["json", "json.gz"] {
            let key = if prefix.is_empty() {
                format!("{name}.{ext}")
            } else {
                format!("{prefix}/{name}.{ext}")
            };
            let path = ObjectPath::from(key.as_str());
            match self.store.get(&path).await {
                Ok(got) => {
                    let bytes = got.bytes().await?;
                    let data: std::borrow::Cow<'_, [u8]> = if ext == "json.gz" {
                        let mut out = Vec::new();
                        flate2::read::GzDecoder::new(&bytes[..])
                            .read_to_end(&mut out)
                            .map_err(|e| DeliveryError::Decode {
                                object: key.clone(),
                                path: ".".into(),
                                message: format!("not gzip: {e}"),
                            })?;
                        out.into()
                    } else {
                        bytes[..].into()
                    };
                    return super::body::decode_body(&data).map_err(|(path, message)| {
                        DeliveryError::Decode {
                            object: key,
                            path,
                            message,
                        }
                    });
                }
                Err(object_store::Error::NotFound { .. }) => tried.push(format!("{bucket}/{key}")),
                Err(e) => return Err(e.into()),
            }
        }
        Err(DeliveryError::NotFound { tried })
    }
}
