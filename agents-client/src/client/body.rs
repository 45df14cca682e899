//! Bodies: a request's JSON serialized once, an answer read up to a limit, and the one place
//! bytes become a typed value.

use serde::de::DeserializeOwned;

use super::error::{self, ApiError, Error, ResponseInfo, TooLargeError};

/// Most bytes of an error answer's body the client reads; the rest is dropped.
pub(crate) const MAX_ERROR_BODY: u64 = 64 * 1024;

/// A JSON document a request carries as it was written: sent as its text, compared by its
/// value. A schema's key order is the order of the fields generated from it, and a `Value`
/// sorts its keys (unless a program turns on serde_json's `preserve_order`).
#[derive(Debug, Clone)]
pub(crate) struct Document {
    value: serde_json::Value,
    text: Box<serde_json::value::RawValue>,
}

impl Document {
    /// `value`, written in its own key order.
    pub(crate) fn of(value: serde_json::Value) -> Document {
        let text = serde_json::value::to_raw_value(&value).unwrap_or_else(|_| {
            // A `Value` always serializes; `null` keeps the type total.
            serde_json::value::RawValue::NULL.to_owned()
        });
        Document { value, text }
    }

    /// The document `text` is, kept as written.
    pub(crate) fn parse(text: &str) -> Result<Document, serde_json::Error> {
        Ok(Document {
            value: serde_json::from_str(text)?,
            text: serde_json::value::RawValue::from_string(text.trim().to_owned())?,
        })
    }

    /// Its value.
    pub(crate) fn value(&self) -> &serde_json::Value {
        &self.value
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
/// UTF-8 byte order mark is skipped. Errs with (path, message); trailing data after the value
/// is an error.
pub(crate) fn decode_body<T: DeserializeOwned + Send>(bytes: &[u8]) -> Result<T, (String, String)> {
    use agents_wire::json::{self, DeepError};
    let bytes = error::strip_bom(bytes);
    json::from_slice::<T>(bytes).map_err(|e| match e {
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
