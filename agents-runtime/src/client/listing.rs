//! List answers in either shape the service is known to send: a bare JSON array, or the vendor
//! models' page `{"data": [...], "pagination": {"has_next", "next_cursor", "total"}}`.

use serde::{Deserialize, Deserializer};
use serde_json::Value;

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
    }
}
