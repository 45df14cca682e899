//! JSON Patch documents (RFC 6902) as the client sends them to change a template or a research
//! agent. The service applies them; the client only writes them, so this is the document's
//! shape and a check of its pointers, not an implementation of patching.
//!
//! ```
//! use agents_runtime::client::patch::Patch;
//! use serde_json::json;
//!
//! let patch = Patch::new()
//!     .test("/name", json!("shop_product"))
//!     .replace("/published_version/metadata/display_name", json!("Shop"))
//!     .remove("/published_version/metadata/tags/0");
//! assert_eq!(
//!     serde_json::to_value(&patch).unwrap()[1],
//!     json!({"op": "replace", "path": "/published_version/metadata/display_name", "value": "Shop"})
//! );
//! // A document written as JSON reads into the same type.
//! let same: Patch = serde_json::from_value(serde_json::to_value(&patch).unwrap()).unwrap();
//! assert_eq!(same, patch);
//! ```

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::error::Error;

/// A JSON Patch document: operations applied in order, all or none.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Patch(pub Vec<PatchOperation>);

/// One operation of a [`Patch`]; `path` and `from` are JSON Pointers (`/goals/0/goal`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "lowercase")]
pub enum PatchOperation {
    /// Adds `value` at `path` (inserting into an array, `-` for its end).
    Add {
        /// Where.
        path: String,
        /// What.
        value: Value,
    },
    /// Removes what is at `path`.
    Remove {
        /// Where.
        path: String,
    },
    /// Replaces what is at `path` with `value`.
    Replace {
        /// Where.
        path: String,
        /// The new value.
        value: Value,
    },
    /// Moves what is at `from` to `path`.
    Move {
        /// From where.
        from: String,
        /// To where.
        path: String,
    },
    /// Copies what is at `from` to `path`.
    Copy {
        /// From where.
        from: String,
        /// To where.
        path: String,
    },
    /// Fails the whole patch unless what is at `path` equals `value`.
    Test {
        /// Where.
        path: String,
        /// The value expected.
        value: Value,
    },
}

impl Patch {
    /// An empty patch.
    pub fn new() -> Self {
        Patch::default()
    }

    /// Adds an `add` operation.
    #[must_use]
    pub fn add(mut self, path: impl Into<String>, value: Value) -> Self {
        self.0.push(PatchOperation::Add {
            path: path.into(),
            value,
        });
        self
    }

    /// Adds a `remove` operation.
    #[must_use]
    pub fn remove(mut self, path: impl Into<String>) -> Self {
        self.0.push(PatchOperation::Remove { path: path.into() });
        self
    }

    /// Adds a `replace` operation.
    #[must_use]
    pub fn replace(mut self, path: impl Into<String>, value: Value) -> Self {
        self.0.push(PatchOperation::Replace {
            path: path.into(),
            value,
        });
        self
    }

    /// Adds a `move` operation.
    #[must_use]
    pub fn move_to(mut self, from: impl Into<String>, path: impl Into<String>) -> Self {
        self.0.push(PatchOperation::Move {
            from: from.into(),
            path: path.into(),
        });
        self
    }

    /// Adds a `copy` operation.
    #[must_use]
    pub fn copy_to(mut self, from: impl Into<String>, path: impl Into<String>) -> Self {
        self.0.push(PatchOperation::Copy {
            from: from.into(),
            path: path.into(),
        });
        self
    }

    /// Adds a `test` operation.
    #[must_use]
    pub fn test(mut self, path: impl Into<String>, value: Value) -> Self {
        self.0.push(PatchOperation::Test {
            path: path.into(),
            value,
        });
        self
    }

    /// Every pointer that is not a JSON Pointer (empty, or `/` then segments in which `~` is
    /// followed only by `0` or `1`), each naming its operation, as one error; an empty patch
    /// is refused too. The client runs this before sending.
    pub fn check(&self) -> Result<(), Error> {
        if self.0.is_empty() {
            return Err(Error::InvalidOption {
                option: "patch",
                message: "the patch has no operations: it would change nothing".into(),
            });
        }
        let mut found = Vec::new();
        for (i, op) in self.0.iter().enumerate() {
            let (path, from) = match op {
                PatchOperation::Add { path, .. }
                | PatchOperation::Remove { path }
                | PatchOperation::Replace { path, .. }
                | PatchOperation::Test { path, .. } => (path, None),
                PatchOperation::Move { from, path } | PatchOperation::Copy { from, path } => {
                    (path, Some(from))
                }
            };
            for (field, pointer) in [("path", Some(path)), ("from", from)] {
                if let Some(p) = pointer
                    && !is_pointer(p)
                {
                    found.push(format!(
                        "patch[{i}].{field}: {p:?} is not a JSON Pointer (write `/a/b`, `~1` for `/` and `~0` for `~` within a segment)"
                    ));
                }
            }
        }
        if found.is_empty() {
            Ok(())
        } else {
            Err(Error::InvalidOption {
                option: "patch",
                message: found.join("; "),
            })
        }
    }
}

/// An operation of a patch the client writes itself to send a document as written (a
/// template's schema, a research agent's output schema): a [`Patch`]'s `Value` would sort its
/// keys.
#[derive(Debug, Serialize)]
pub(crate) struct WrittenOp {
    pub(crate) op: &'static str,
    pub(crate) path: String,
    pub(crate) value: super::Document,
}

impl From<Vec<PatchOperation>> for Patch {
    fn from(ops: Vec<PatchOperation>) -> Self {
        Patch(ops)
    }
}

fn is_pointer(p: &str) -> bool {
    if p.is_empty() {
        return true;
    }
    if !p.starts_with('/') {
        return false;
    }
    let mut chars = p.chars();
    while let Some(c) = chars.next() {
        if c == '~' && !matches!(chars.next(), Some('0' | '1')) {
            return false;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_and_writes_every_operation_as_rfc_6902_spells_it() {
        let doc = json!([
            {"op": "add", "path": "/a/-", "value": 1},
            {"op": "remove", "path": "/b"},
            {"op": "replace", "path": "", "value": {}},
            {"op": "move", "from": "/c", "path": "/d"},
            {"op": "copy", "from": "/e", "path": "/f~1g"},
            {"op": "test", "path": "/h~0", "value": null}
        ]);
        let patch: Patch = serde_json::from_value(doc.clone()).unwrap();
        assert_eq!(patch.0.len(), 6);
        assert_eq!(serde_json::to_value(&patch).unwrap(), doc);
        assert!(patch.check().is_ok());
        assert!(
            serde_json::from_value::<Patch>(json!([{"op": "frobnicate", "path": "/a"}])).is_err()
        );
    }

    #[test]
    fn names_every_bad_pointer_and_an_empty_patch() {
        let err = Patch::new()
            .replace("name", json!(1))
            .move_to("/ok", "/a~2")
            .check()
            .unwrap_err()
            .to_string();
        assert!(err.contains("patch[0].path: \"name\""), "{err}");
        assert!(err.contains("patch[1].path: \"/a~2\""), "{err}");
        assert!(!err.contains("patch[1].from"), "{err}");
        assert!(
            Patch::new()
                .check()
                .unwrap_err()
                .to_string()
                .contains("no operations")
        );
    }
}
