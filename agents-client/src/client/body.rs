//! Bodies: a request's JSON serialized once, an answer read up to a limit, and the one place
//! bytes become a typed value.

use serde::de::DeserializeOwned;

use super::error::{ApiError, Error, ResponseInfo, TooLargeError};

/// Most bytes of an error answer's body the client reads; the rest is dropped.
pub(crate) const MAX_ERROR_BODY: u64 = 64 * 1024;

/// A JSON document a request carries as it was written (a schema, as the setters of
/// [`ResearchRunRequest`](super::research::ResearchRunRequest),
/// [`ResearchAgentRequest`](super::research::ResearchAgentRequest) and
/// [`GenerationRequest`](super::generation::GenerationRequest) take it): sent as its text,
/// compared by its value. The order of a schema's properties is the order of the fields
/// generated from it, and the order a model fills them in; a `serde_json::Value` sorts its
/// keys (unless a program turns on serde_json's `preserve_order`), so a schema read from a
/// file is best parsed into a `Document`, which keeps them.
///
/// ```
/// use agents_runtime::client::Document;
///
/// let schema: Document = r#"{"type": "object", "properties": {"verdict": {}, "evidence": {}}}"#
///     .parse()?;
/// assert_eq!(schema.to_string(), r#"{"type": "object", "properties": {"verdict": {}, "evidence": {}}}"#);
/// // A `Value` is a document too, written in its own (sorted) order.
/// let same = Document::from(serde_json::json!({"type": "object", "properties": {"evidence": {}, "verdict": {}}}));
/// assert_eq!(schema, same);
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct Document {
    value: serde_json::Value,
    text: Box<serde_json::value::RawValue>,
}

impl Document {
    /// Its value.
    pub fn value(&self) -> &serde_json::Value {
        &self.value
    }

    /// Its text, as it is sent.
    pub fn text(&self) -> &str {
        self.text.get()
    }
}

impl From<serde_json::Value> for Document {
    /// `value`, written in its own key order.
    fn from(value: serde_json::Value) -> Document {
        let text = serde_json::value::to_raw_value(&value).unwrap_or_else(|_| {
            // A `Value` always serializes; `null` keeps the type total.
            serde_json::value::RawValue::NULL.to_owned()
        });
        Document { value, text }
    }
}

impl std::str::FromStr for Document {
    type Err = serde_json::Error;

    /// The document `text` is, kept as written (without the whitespace around it).
    fn from_str(text: &str) -> Result<Document, serde_json::Error> {
        Ok(Document {
            value: serde_json::from_str(text)?,
            text: serde_json::value::RawValue::from_string(text.trim().to_owned())?,
        })
    }
}

impl std::fmt::Display for Document {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.text())
    }
}

impl PartialEq for Document {
    fn eq(&self, other: &Self) -> bool {
        self.value == other.value
    }
}

impl serde::Serialize for Document {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.text.serialize(s)
    }
}

/// A request body's fields: the values its checks read and its comparisons compare, and the
/// documents among them, sent as written.
#[derive(Debug, Clone, Default)]
pub(crate) struct Fields {
    values: serde_json::Map<String, serde_json::Value>,
    written: Vec<(String, Document)>,
}

impl Fields {
    /// Sets `key` to `value`.
    pub(crate) fn insert(&mut self, key: String, value: serde_json::Value) {
        self.written.retain(|(k, _)| *k != key);
        self.values.insert(key, value);
    }

    /// Sets `key` to `document`, sent as written.
    pub(crate) fn document(&mut self, key: &str, document: Document) {
        self.written.retain(|(k, _)| k != key);
        self.values.insert(key.to_owned(), document.value.clone());
        self.written.push((key.to_owned(), document));
    }

    /// The values.
    pub(crate) fn values(&self) -> &serde_json::Map<String, serde_json::Value> {
        &self.values
    }

    /// The values, to change; a document whose value changes is sent as its new value.
    pub(crate) fn values_mut(&mut self) -> &mut serde_json::Map<String, serde_json::Value> {
        &mut self.values
    }

    /// What `key` is sent as: its document as written, or its value.
    pub(crate) fn sent(&self, key: &str) -> Option<Document> {
        let value = self.values.get(key)?;
        Some(
            self.written_as(key, value)
                .map_or_else(|| Document::from(value.clone()), Document::clone),
        )
    }

    /// The document `key` was set to, while its value is still `value`.
    fn written_as(&self, key: &str, value: &serde_json::Value) -> Option<&Document> {
        (self.written.iter())
            .find(|(k, d)| k == key && d.value == *value)
            .map(|(_, d)| d)
    }
}

impl PartialEq for Fields {
    fn eq(&self, other: &Self) -> bool {
        self.values == other.values
    }
}

impl serde::Serialize for Fields {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = s.serialize_map(Some(self.values.len()))?;
        for (key, value) in &self.values {
            match self.written_as(key, value) {
                Some(document) => map.serialize_entry(key, document)?,
                None => map.serialize_entry(key, value)?,
            }
        }
        map.end()
    }
}

/// A request body serialized once: every attempt of a call sends the same bytes.
#[derive(Debug, Clone)]
pub(crate) struct JsonBody(pub(crate) bytes::Bytes);

impl JsonBody {
    /// Serializes `body`; a failure (a map with non-string keys in raw params, say) is an
    /// [`Error::InvalidOption`] naming `what`.
    pub(crate) fn new(body: &impl serde::Serialize, what: &'static str) -> Result<Self, Error> {
        serde_json::to_vec(body)
            .map(|v| JsonBody(v.into()))
            .map_err(|e| Error::InvalidOption {
                option: what,
                message: e.to_string(),
            })
    }
}

/// Reads an answer: a non-2xx status becomes its [`Error`] (the body read up to 64 KiB), a 2xx
/// body larger than `limit` is [`Error::TooLarge`] without being buffered.
pub(crate) async fn read_answer(
    resp: &mut reqwest::Response,
    info: &ResponseInfo,
    limit: u64,
    now: std::time::SystemTime,
) -> Result<Vec<u8>, Error> {
    if !(200..300).contains(&info.status) {
        let headers = resp.headers().clone();
        let bytes = match read_body(resp, MAX_ERROR_BODY).await? {
            Body::Whole(b) | Body::Cut(b) => b,
        };
        return Err(Error::from_status(ApiError::from_parts_at(
            info.status,
            &headers,
            &bytes,
            now,
        )));
    }
    match read_body(resp, limit).await? {
        Body::Whole(b) => Ok(b),
        Body::Cut(b) => Err(Error::TooLarge(Box::new(TooLargeError {
            limit,
            declared: resp.content_length(),
            read: b.len() as u64,
            info: info.clone(),
        }))),
    }
}

/// An answer's body read up to a limit.
enum Body {
    /// All of it.
    Whole(Vec<u8>),
    /// The first part: the body is larger than the limit (or says so in `Content-Length`, in
    /// which case nothing is read).
    Cut(Vec<u8>),
}

/// Reads a body chunk by chunk, stopping once it is larger than `limit` bytes.
async fn read_body(resp: &mut reqwest::Response, limit: u64) -> Result<Body, Error> {
    if resp.content_length().is_some_and(|n| n > limit) {
        return Ok(Body::Cut(Vec::new()));
    }
    let mut out = Vec::with_capacity(
        resp.content_length()
            .and_then(|n| usize::try_from(n).ok())
            .unwrap_or(0),
    );
    while let Some(chunk) = resp.chunk().await? {
        let room = usize::try_from(limit)
            .unwrap_or(usize::MAX)
            .saturating_sub(out.len());
        if chunk.len() > room {
            out.extend_from_slice(&chunk[..room]);
            return Ok(Body::Cut(out));
        }
        out.extend_from_slice(&chunk);
    }
    Ok(Body::Whole(out))
}

/// Decodes a JSON body (an answer, a webhook, a delivered object, an item of a list): the one
/// place the client turns bytes into a typed value. UTF-8 is checked once per body and
/// serde_json reads the text, through `agents_wire::json::from_slice` so that a body nested past
/// serde_json's 128 levels (a template whose schema nests 60 deep) is read too, up to
/// `agents_wire::json::MAX_DEPTH`. An error names the JSON path of the value it stopped in,
/// found from its position (`agents_wire::json::path_at`) rather than by decoding again with
/// path tracking, so that a program compiles one decoder of each type it reads. A leading
/// UTF-8 byte order mark is skipped, and a string cut between the halves of a character (an
/// unpaired `\ud83d`) is read with U+FFFD in its place and a warning naming it
/// (`agents_wire::json::from_slice_lossy`), rather than refusing the whole answer. Errs with
/// (path, message); trailing data after the value is an error.
pub(crate) fn decode_body<T: DeserializeOwned + Send>(bytes: &[u8]) -> Result<T, (String, String)> {
    use agents_wire::json::{self, DeepError};
    let bytes = agents_wire::json::without_bom(bytes);
    json::from_slice_lossy::<T>(bytes).map_err(|e| match e {
        DeepError::Json {
            message,
            line,
            column,
        } => (
            json::path_at(bytes, line, column),
            format!("{message} at line {line} column {column}"),
        ),
        other => (".".to_owned(), other.to_string()),
    })
}
