//! Keys given twice in one object of a document a user wrote, as the loader reports them: each
//! an error at its JSON path. The walk is `agents_wire::repeated`, which the schema compiler
//! also runs over the documents references read.

use agents_wire::repeated::{self, Step};

use super::error::{FieldError, join_path};

/// The keys the JSON `text` gives twice in one object, each a problem at its path, in the order
/// of the text. Text that is not JSON, or is nested deeper than the loader reads, has none
/// here: what reads it reports what is wrong with it.
///
/// ```
/// let twice = agents_schema::duplicate_keys(r#"{"asin": "A", "offers": [{"n": 1, "n": 2}], "asin": "B"}"#);
/// let paths: Vec<&str> = twice.iter().map(|e| e.path.as_str()).collect();
/// assert_eq!(paths, ["$.offers[0].n", "$.asin"]);
/// assert!(agents_schema::duplicate_keys(r#"{"a": {"a": 1}}"#).is_empty());
/// ```
pub fn duplicate_keys(text: &str) -> Vec<FieldError> {
    repeated::keys(text)
        .into_iter()
        .map(|twice| {
            let object = twice
                .object
                .iter()
                .fold("$".to_owned(), |path, step| match step {
                    Step::Key(key) => join_path(&path, key),
                    Step::Item(i) => format!("{path}[{i}]"),
                });
            FieldError {
                path: join_path(&object, &twice.key),
                message: format!(
                    "`{}` is given twice in this object, and a JSON reader keeps only the last; \
                     remove or rename one",
                    twice.key
                ),
            }
        })
        .collect()
}
