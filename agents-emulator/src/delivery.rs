//! What happens when an async task with delivery options completes: a webhook POST to
//! `callback_url` with task metadata (no result data), and cloud delivery of the result as
//! `<task_id>.json` (or `.json.gz`, or a custom object name) under `storage_url`.
//!
//! The emulator's "buckets" are local directories: with `--bucket-dir DIR`,
//! `s3://bucket/prefix/` is `DIR/bucket/prefix/`. Webhooks go to loopback URLs only; any other
//! host is never contacted (the task record says so in `delivery_errors`).

use std::io::Write as _;
use std::path::PathBuf;
use std::sync::Arc;

use agents_schema::Json as Written;
use reqwest::Url;
use serde_json::{Map, Value, json};

use crate::error::ApiError;
use crate::lifecycle::{TaskEnd, TaskState};
use crate::net::is_loopback;
use crate::params::kind;
use crate::request::{http_url, optional_str};
use crate::state::{State, lock};
use crate::wire::timestamp;

/// Delivery options of a request, already checked when the request arrived.
#[derive(Debug, Clone, Default)]
pub struct Delivery {
    /// Webhook URL.
    pub callback_url: Option<String>,
    /// `(s3|gs, storage_url)`.
    pub storage: Option<(String, String)>,
    /// GZIP the object.
    pub compress: bool,
    /// Object name instead of the task id.
    pub object_name: Option<String>,
}

impl Delivery {
    /// Reads the (checked) options of a request body.
    pub fn from_body(body: &Map<String, Value>) -> Option<Delivery> {
        let text = |k: &str| body.get(k).and_then(Value::as_str).map(str::to_owned);
        let d = Delivery {
            callback_url: text("callback_url"),
            storage: text("storage_type").zip(text("storage_url")),
            compress: body
                .get("storage_compress")
                .and_then(Value::as_bool)
                .unwrap_or(false),
            object_name: text("storage_object_name"),
        };
        (d.callback_url.is_some() || d.storage.is_some()).then_some(d)
    }
}

/// Waits until task `id` ends, then delivers.
pub fn schedule(state: Arc<State>, id: String, delivery: Delivery) {
    tokio::spawn(async move {
        let Some(ends_at) = lock(&state.tasks).get(&id).map(|t| t.ends_at) else {
            return;
        };
        state.clock.sleep_until(ends_at).await;
        let errors = deliver(&state, &id, &delivery).await;
        if !errors.is_empty() {
            tracing::warn!(task = %id, ?errors, "delivery problems");
            lock(&state.delivery_errors).insert(id, errors);
        }
    });
}

async fn deliver(state: &State, id: &str, d: &Delivery) -> Vec<String> {
    let mut errors = Vec::new();
    let now = state.clock.now();
    let Some(task) = lock(&state.tasks).get(id).cloned() else {
        return errors;
    };
    let task_state = task.state(now);
    if let Some((_, url)) = &d.storage
        && task_state == TaskState::Success
    {
        let result = match &task.end {
            TaskEnd::Success(spec) => Some(spec.result(id, task.created)),
            TaskEnd::Value(v) => Some(Written::from(&**v)),
            TaskEnd::Error(_) => None,
        };
        if let Some(result) = result
            && let Err(e) = store(state, url, id, d, &result)
        {
            errors.push(e);
        }
    }
    if let Some(url) = &d.callback_url {
        let payload = json!({
                    "task_id": id,
                    "state": task_state.as_str(),
                    "status": if task_state == TaskState::Success { "success" } else { "failed" },
                    "agent": task.agent,
                    "batch_id": task.batch_id,
                    "account_name": task.account,
                    "created_at": timestamp(task.created),
                    "completed_at": timestamp(task.created + task.duration),
                    "download_url": task.url(state.base_url.get().map_or("", String::as_str), true),
        });
        if let Err(e) = post_webhook(url, &Map::new(), &payload).await {
            errors.push(e);
        }
    }
    errors
}

/// POSTs `payload` to a webhook `url` with extra `headers`; only loopback addresses are
/// contacted. Errs with what went wrong, naming the URL.
pub async fn post_webhook(
    url: &str,
    headers: &Map<String, Value>,
    payload: &Value,
) -> Result<(), String> {
    let u = match Url::parse(url) {
        Ok(u) if is_loopback(&u) => u,
        _ => {
            return Err(format!(
                "webhook {url} not called: the emulator only contacts loopback addresses"
            ));
        }
    };
    let mut req = crate::net::client(0, std::time::Duration::from_secs(10))
        .map_err(|e| format!("webhook {url} not called: {e}"))?
        .post(u)
        .header("user-agent", "agents-emulator-webhook")
        .json(payload);
    for (name, value) in headers {
        if let Some(v) = value.as_str() {
            req = req.header(name.as_str(), v);
        }
    }
    match req.send().await {
        Ok(r) if r.status().is_success() => Ok(()),
        Ok(r) => Err(format!("webhook {url} answered {}", r.status())),
        Err(e) => Err(format!("webhook {url} failed: {e}")),
    }
}

/// Why a bucket path or object name is refused: the request field at fault and what is wrong.
pub type KeyError = (&'static str, String);

/// The path of a delivered object relative to the bucket directory: bucket, prefix segments and
/// object name, checked like object-store keys so that nothing lands outside the directory. A
/// segment is refused when it is empty (the bucket), `.` or `..`, or holds a backslash, NUL or
/// another control character; the object name may not start with `/`.
pub fn object_path(storage_url: &str, object: &str) -> Result<PathBuf, KeyError> {
    fn segment(field: &'static str, seg: &str, whole: &str) -> Result<(), KeyError> {
        if seg == "." || seg == ".." || seg.contains(['\\']) || seg.chars().any(char::is_control) {
            return Err((
                field,
                format!(
                    "{field} {whole:?} has the segment {seg:?}: segments may not be `.` or `..` or \
                     hold a backslash or a control character"
                ),
            ));
        }
        Ok(())
    }
    let rest = storage_url
        .split_once("://")
        .map_or(storage_url, |(_, r)| r);
    let mut parts = rest.trim_end_matches('/').split('/');
    let bucket = parts.next().unwrap_or("");
    if bucket.is_empty() {
        return Err((
            "storage_url",
            format!("storage_url {storage_url:?} names no bucket"),
        ));
    }
    let mut path = PathBuf::new();
    let mut key_len = 0;
    for (i, seg) in std::iter::once(bucket)
        .chain(parts.filter(|s| !s.is_empty()))
        .enumerate()
    {
        segment("storage_url", seg, storage_url)?;
        path.push(seg);
        if i > 0 {
            key_len += seg.len() + 1;
        }
    }
    // The object's key in the bucket: prefix, name and the longest extension written.
    key_len += object.len() + ".json.gz".len();
    if key_len > MAX_KEY_BYTES {
        return Err((
            "storage_object_name",
            format!(
                "storage_object_name makes an object key of {key_len} bytes; object stores take \
                 at most {MAX_KEY_BYTES}"
            ),
        ));
    }
    if object.is_empty() || object.starts_with('/') {
        return Err((
            "storage_object_name",
            format!("storage_object_name {object:?} must be a relative, non-empty name"),
        ));
    }
    for seg in object.split('/') {
        if seg.is_empty() {
            return Err((
                "storage_object_name",
                format!("storage_object_name {object:?} has an empty segment"),
            ));
        }
        segment("storage_object_name", seg, object)?;
        path.push(seg);
    }
    Ok(path)
}

/// The longest object key S3 and GCS take, in bytes.
const MAX_KEY_BYTES: usize = 1024;

/// Writes a result into the local-directory bucket.
fn store(state: &State, url: &str, id: &str, d: &Delivery, result: &Written) -> Result<(), String> {
    let Some(root) = &state.config.bucket_dir else {
        return Err(format!(
            "result for {url} not stored: start the emulator with a bucket directory (--bucket-dir)"
        ));
    };
    let name = d.object_name.as_deref().unwrap_or(id);
    let relative = object_path(url, name).map_err(|(_, why)| why)?;
    let Some(name) = relative
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
    else {
        return Err(format!("no object name for {url}"));
    };
    let dir: PathBuf = root.join(relative.parent().unwrap_or(relative.as_path()));
    let bytes = serde_json::to_vec(result).map_err(|e| e.to_string())?;
    let (file, data) = if d.compress {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gz.write_all(&bytes).map_err(|e| e.to_string())?;
        (
            format!("{name}.json.gz"),
            gz.finish().map_err(|e| e.to_string())?,
        )
    } else {
        (format!("{name}.json"), bytes)
    };
    // An object store shows an object whole or not at all: written under a temporary name and
    // renamed, so a reader polling for the object never reads half of it.
    let partial = dir.join(format!(".{file}.partial"));
    std::fs::create_dir_all(&dir)
        .and_then(|()| std::fs::write(&partial, data))
        .and_then(|()| std::fs::rename(&partial, dir.join(&file)))
        .map_err(|e| format!("cannot write {}: {e}", dir.join(file).display()))
}

/// Delivery options of an async run, top-level or (one documentation page) inside
/// `params`.
pub(crate) fn check(body: &mut Map<String, Value>) -> Result<(), ApiError> {
    const FIELDS: [&str; 5] = [
        "storage_type",
        "storage_url",
        "storage_compress",
        "storage_object_name",
        "callback_url",
    ];
    if let Some(Value::Object(params)) = body.get_mut("params") {
        let moved: Vec<(String, Value)> = FIELDS
            .iter()
            .filter_map(|f| params.remove(*f).map(|v| ((*f).to_owned(), v)))
            .collect();
        for (k, v) in moved {
            body.entry(k).or_insert(v);
        }
    }
    let storage_type = optional_str(body, "storage_type")?;
    let storage_url = optional_str(body, "storage_url")?;
    match (storage_type, storage_url) {
        (None, None) => {}
        (Some(t), _) if t != "s3" && t != "gs" => {
            return Err(ApiError::refused(
                "storage_type",
                format!("storage_type must be s3 or gs, not {t:?}"),
            ));
        }
        (Some(_), None) => {
            return Err(ApiError::malformed(
                "storage_url",
                "storage_url is required with storage_type",
            ));
        }
        (None, Some(_)) => {
            return Err(ApiError::malformed(
                "storage_type",
                "storage_type is required with storage_url",
            ));
        }
        (Some(t), Some(u)) => {
            let bucket = u
                .strip_prefix(&format!("{t}://"))
                .and_then(|r| r.split('/').next())
                .unwrap_or("");
            if bucket.is_empty() || !u.ends_with('/') {
                return Err(ApiError::malformed(
                    "storage_url",
                    format!("invalid storage_url {u:?}: expected {t}://<bucket>/<path_prefix>/"),
                ));
            }
        }
    }
    if let Some(v) = body
        .get("storage_compress")
        .filter(|v| !v.is_null() && !v.is_boolean())
    {
        return Err(ApiError::wrong_type(
            "storage_compress",
            format!("storage_compress must be a boolean, not {}", kind(v)),
        ));
    }
    let object = optional_str(body, "storage_object_name")?;
    if let Some(url) = storage_url {
        // The task id stands in for a missing object name; any id is a valid segment.
        object_path(url, object.unwrap_or("task"))
            .map_err(|(field, why)| ApiError::malformed(field, why))?;
    }
    if let Some(u) = optional_str(body, "callback_url")?
        && !http_url(u)
    {
        return Err(ApiError::malformed(
            "callback_url",
            format!("invalid callback_url {u:?}: expected an http(s) URL"),
        ));
    }
    Ok(())
}
