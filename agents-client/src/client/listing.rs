//! List answers in every shape the service is known to send: a bare JSON array, the vendor
//! models' cursor page `{"data": [...], "pagination": {"has_next", "next_cursor", "total"}}`, and
//! `/v2`'s offset page `{"items": [...], "limit", "offset", "total"}`; and the one stream that
//! walks offset pages.

use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;

use futures_util::StreamExt;
use futures_util::stream::BoxStream;
use serde::de::{self, DeserializeOwned, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::Value;
use serde_json::value::RawValue;

use super::Client;
use super::error::{DecodeError, Error, ResponseInfo};
use crate::endpoint::Endpoint;
use crate::words::Paging;

/// One page of a list answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Listing<T> {
    /// The items.
    pub items: Vec<T>,
    /// Cursor of the next page (`pagination.next_cursor`), when there is one.
    pub next_cursor: Option<String>,
    /// Items in all (`pagination.total`), when the service says.
    pub total: Option<u64>,
}

/// Read in one pass whatever the shape, each item straight into `T`: trying the shapes in turn
/// (an untagged enum) would first copy the whole page into a buffer of its own.
impl<'de, T: Deserialize<'de>> Deserialize<'de> for Listing<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(Shapes(PhantomData))
    }
}

/// The shapes of a list answer: an array is the items; an object holds them under `items`
/// (an offset page, its `total` beside them) or under `data` (a cursor page, with
/// `pagination`). An object with both is an offset page.
struct Shapes<T>(PhantomData<T>);

/// The keys of a page that say something; the rest is skipped unread.
#[derive(Deserialize)]
#[serde(field_identifier, rename_all = "lowercase")]
enum Key {
    Items,
    Data,
    Total,
    Pagination,
    #[serde(other)]
    Other,
}

/// A cursor page's `pagination`.
#[derive(Default, Deserialize)]
struct Pagination {
    #[serde(default)]
    has_next: bool,
    #[serde(default)]
    next_cursor: Option<String>,
    #[serde(default)]
    total: Option<Value>,
}

/// A count the service may write as `4` or `4.0`.
fn count(value: Option<&Value>) -> Option<u64> {
    value.and_then(Value::as_f64).map(|t| t as u64)
}

impl<'de, T: Deserialize<'de>> Visitor<'de> for Shapes<T> {
    type Value = Listing<T>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list: an array, or an object holding `items` or `data`")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Listing<T>, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Listing {
            items,
            next_cursor: None,
            total: None,
        })
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Listing<T>, A::Error> {
        let mut offset: Option<Vec<T>> = None;
        let mut paged: Option<Vec<T>> = None;
        // Kept as sent until the shape is known: each belongs to one shape only.
        let mut total: Option<Value> = None;
        let mut pagination: Option<Value> = None;
        while let Some(key) = map.next_key()? {
            match key {
                Key::Items => offset = Some(map.next_value()?),
                Key::Data if offset.is_none() => paged = Some(map.next_value()?),
                Key::Total => total = map.next_value()?,
                Key::Pagination => pagination = map.next_value()?,
                Key::Data | Key::Other => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        if let Some(items) = offset {
            return Ok(Listing {
                items,
                next_cursor: None,
                total: count(total.as_ref()),
            });
        }
        let Some(items) = paged else {
            return Err(de::Error::custom(
                "a list page holds its items under `items` or `data`, and this one has neither",
            ));
        };
        let page = match pagination {
            Some(p) => Pagination::deserialize(p)
                .map_err(|e| de::Error::custom(format_args!("`pagination`: {e}")))?,
            None => Pagination::default(),
        };
        Ok(Listing {
            items,
            next_cursor: page.next_cursor.filter(|_| page.has_next),
            total: count(page.total.as_ref()),
        })
    }
}

/// Every item of an offset-paged list (`limit` and `offset` in the query), one page request
/// at a time as the stream is read; ends after the page that reaches `total` (or a short page
/// when the answer gives none). A failed request ends the stream after it is yielded; an item
/// that does not decode is yielded as an error naming its position and path, and the stream
/// goes on with the rest (one bad record never hides the others).
pub(crate) fn offset_stream<T: DeserializeOwned + Send + 'static>(
    client: Client,
    endpoint: &'static Endpoint,
    segments: Vec<String>,
    limit: u64,
) -> BoxStream<'static, Result<T, Error>> {
    let paging = client.api_version().words().paging;
    paged_stream(client, endpoint, segments, limit, paging)
}

/// [`offset_stream`] with the paging given (research lists page by offset in every version).
pub(crate) fn paged_stream<T: DeserializeOwned + Send + 'static>(
    client: Client,
    endpoint: &'static Endpoint,
    segments: Vec<String>,
    limit: u64,
    paging: Paging,
) -> BoxStream<'static, Result<T, Error>> {
    raw_items(client, endpoint, segments, limit, paging)
        .map(|item| item.and_then(|(text, at, info)| item_of(&text, at, &info)))
        .boxed()
}

/// An item of a list as the page held it: its text, its position in the whole list and the
/// answer of its page.
type RawItem = (Box<RawValue>, u64, Arc<ResponseInfo>);

/// The pages of [`paged_stream`], item by item, undecoded: the paging is the same whatever
/// the items are, so it is compiled once, not once per item type.
fn raw_items(
    client: Client,
    endpoint: &'static Endpoint,
    segments: Vec<String>,
    limit: u64,
    paging: Paging,
) -> BoxStream<'static, Result<RawItem, Error>> {
    let limit = limit.max(1);
    // (offset of the next page, whether a page is still to fetch)
    futures_util::stream::unfold((0u64, true), move |(offset, more)| {
        let client = client.clone();
        let segments = segments.clone();
        async move {
            if !more {
                return None;
            }
            let segments: Vec<&str> = segments.iter().map(String::as_str).collect();
            let query = match paging {
                Paging::Offset => [("limit", limit.to_string()), ("offset", offset.to_string())],
                Paging::Numbered => [
                    ("per_page", limit.to_string()),
                    ("page", (offset / limit + 1).to_string()),
                ],
            };
            match client
                .get::<Listing<Box<RawValue>>>(endpoint, &segments, &query)
                .await
            {
                Ok((page, info)) => {
                    let n = page.items.len() as u64;
                    let next = offset + n;
                    let more = n > 0 && page.total.map_or(n >= limit, |t| next < t);
                    let info = Arc::new(info);
                    let items: Vec<Result<RawItem, Error>> = page
                        .items
                        .into_iter()
                        .zip(offset..)
                        .map(|(item, at)| Ok((item, at, info.clone())))
                        .collect();
                    Some((futures_util::stream::iter(items), (next, more)))
                }
                Err(e) => Some((futures_util::stream::iter(vec![Err(e)]), (offset, false))),
            }
        }
    })
    .flatten()
    .boxed()
}

/// One item of a list, decoded alone from its text as the page held it: an error names the
/// item's position in the whole list and the path inside it, and carries that text. It is read
/// by the one decoder of answers ([`super::decode_body`], which also reads what nests past
/// serde_json's limit), so a program compiles one decoder of `T`.
fn item_of<T: DeserializeOwned + Send>(
    item: &RawValue,
    at: u64,
    info: &ResponseInfo,
) -> Result<T, Error> {
    let text = item.get();
    super::decode_body::<T>(text.as_bytes()).map_err(|(inner, message)| {
        let path = if inner == "." {
            format!("items[{at}]")
        } else {
            format!("items[{at}].{inner}")
        };
        Error::Decode(Box::new(DecodeError {
            path,
            message,
            body: text.to_owned(),
            info: info.clone(),
        }))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_shapes_read() {
        let bare: Listing<u32> = serde_json::from_str("[1, 2]").unwrap();
        assert_eq!(bare.items, [1, 2]);
        assert_eq!(bare.next_cursor, None);
        let paged: Listing<u32> = serde_json::from_str(
            r#"{"data": [3], "pagination": {"has_next": true, "next_cursor": "c", "total": 4.0}}"#,
        )
        .unwrap();
        assert_eq!(paged.items, [3]);
        assert_eq!(paged.next_cursor.as_deref(), Some("c"));
        assert_eq!(paged.total, Some(4));
        let last: Listing<u32> = serde_json::from_str(
            r#"{"data": [], "pagination": {"has_next": false, "next_cursor": "stale"}}"#,
        )
        .unwrap();
        assert_eq!(last.next_cursor, None);
        let offset: Listing<u32> =
            serde_json::from_str(r#"{"items": [5, 6], "limit": 2, "offset": 4, "total": 9}"#)
                .unwrap();
        assert_eq!((offset.items, offset.total), (vec![5, 6], Some(9)));
    }

    #[test]
    fn other_keys_are_skipped_and_each_count_belongs_to_its_shape() {
        // An offset page: its `total`, never `pagination`'s, even a malformed one.
        let offset: Listing<u32> = serde_json::from_str(
            r#"{"pagination": 7, "items": [1], "total": 3, "extra": {"deep": [[1]]}}"#,
        )
        .unwrap();
        assert_eq!((offset.items, offset.total), (vec![1], Some(3)));
        // A cursor page: `pagination`'s total, not one beside the items.
        let paged: Listing<u32> =
            serde_json::from_str(r#"{"total": 9, "data": [2], "pagination": null}"#).unwrap();
        assert_eq!((paged.items, paged.total), (vec![2], None));
        // Both: the offset page's items, whatever `data` holds.
        let both: Listing<u32> =
            serde_json::from_str(r#"{"items": [4], "data": ["not a number"]}"#).unwrap();
        assert_eq!(both.items, [4]);
    }

    #[test]
    fn a_page_without_items_is_refused_by_name() {
        let e = serde_json::from_str::<Listing<u32>>(r#"{"results": [1]}"#).unwrap_err();
        assert!(e.to_string().contains("`items` or `data`"), "{e}");
        let e = serde_json::from_str::<Listing<u32>>(
            r#"{"data": [], "pagination": {"has_next": "yes"}}"#,
        )
        .unwrap_err();
        assert!(e.to_string().contains("`pagination`"), "{e}");
        let e = serde_json::from_str::<Listing<u32>>("3").unwrap_err();
        assert!(e.to_string().contains("an array, or an object"), "{e}");
    }

    #[test]
    fn items_keep_their_text() {
        let page: Listing<Box<RawValue>> =
            serde_json::from_str(r#"{"items": [{"a": 1,  "b": [true]}, "x"], "total": 2}"#)
                .unwrap();
        let texts: Vec<&str> = page.items.iter().map(|i| i.get()).collect();
        assert_eq!(texts, [r#"{"a": 1,  "b": [true]}"#, r#""x""#]);
    }
}
