//! List answers in every shape the service is known to send: a bare JSON array, the vendor
//! models' cursor page `{"data": [...], "pagination": {"has_next", "next_cursor", "total"}}`, and
//! `/v2`'s offset page `{"items": [...], "limit", "offset", "total"}`; and the one stream that
//! walks offset pages.

use futures_util::StreamExt;
use futures_util::stream::BoxStream;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer};
use serde_json::Value;

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

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Listing<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        struct Pagination {
            #[serde(default)]
            has_next: bool,
            #[serde(default)]
            next_cursor: Option<String>,
            #[serde(default)]
            total: Option<Value>,
        }
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Shape<T> {
            Bare(Vec<T>),
            Offset {
                items: Vec<T>,
                #[serde(default)]
                total: Option<Value>,
            },
            Paged {
                data: Vec<T>,
                #[serde(default)]
                pagination: Option<Pagination>,
            },
        }
        Ok(match Shape::deserialize(d)? {
            Shape::Bare(items) => Listing {
                items,
                next_cursor: None,
                total: None,
            },
            Shape::Offset { items, total } => Listing {
                items,
                next_cursor: None,
                total: total.as_ref().and_then(Value::as_f64).map(|t| t as u64),
            },
            Shape::Paged { data, pagination } => {
                let p = pagination.unwrap_or(Pagination {
                    has_next: false,
                    next_cursor: None,
                    total: None,
                });
                Listing {
                    items: data,
                    next_cursor: p.next_cursor.filter(|_| p.has_next),
                    total: p.total.as_ref().and_then(Value::as_f64).map(|t| t as u64),
                }
            }
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
                .get::<Listing<Value>>(endpoint, &segments, &query)
                .await
            {
                Ok((page, info)) => {
                    let n = page.items.len() as u64;
                    let next = offset + n;
                    let more = n > 0 && page.total.map_or(n >= limit, |t| next < t);
                    let items: Vec<Result<T, Error>> = page
                        .items
                        .into_iter()
                        .enumerate()
                        .map(|(i, item)| item_of(item, offset + i as u64, &info))
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

/// One item of a list, decoded alone: an error names the item's position in the whole list
/// and the path inside it. The item is read from its text by the one decoder of answers
/// ([`super::decode_body`], which also reads what nests past serde_json's limit), so a program
/// compiles one decoder of `T`.
fn item_of<T: DeserializeOwned + Send>(
    item: Value,
    at: u64,
    info: &ResponseInfo,
) -> Result<T, Error> {
    let body = item.to_string();
    drop(item);
    super::decode_body::<T>(body.as_bytes()).map_err(|(inner, message)| {
        let path = if inner == "." {
            format!("items[{at}]")
        } else {
            format!("items[{at}].{inner}")
        };
        Error::Decode(Box::new(DecodeError {
            path,
            message,
            body,
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
}
