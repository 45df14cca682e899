//! How the service's JSON is read and named: text nested deeper than serde_json's 128 levels,
//! up to [`MAX_DEPTH`], read without overflowing the stack (the recursion limit is lifted and the
//! stack grown as needed, serde_stacker; deeper text is refused with its depth named), and a
//! value's kind as messages say it ([`kind`]). The generator's record loader and the client's
//! answers both read through this, so each reads what the other does.

use serde::de::DeserializeOwned;

/// The deepest arrays and objects may nest in a document read here: room for a schema of 500
/// levels (each a schema inside a `properties` map), which the generator types to 32 levels
/// and keeps raw below.
pub const MAX_DEPTH: usize = 1_100;

/// The kind of a JSON value as a message names it: `null`, `a boolean`, `a number`, `a string`,
/// `an array`, `an object`.
pub fn kind(v: &serde_json::Value) -> &'static str {
    use serde_json::Value;
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// serde_json's own limit, past which [`from_slice`] grows the stack.
const SERDE_JSON_DEPTH: usize = 128;

/// How deep arrays and objects nest in the JSON text `bytes` (brackets inside strings aside), in
/// one pass.
pub fn depth(bytes: &[u8]) -> usize {
    let (mut depth, mut deepest) = (0usize, 0usize);
    let (mut in_string, mut escaped) = (false, false);
    for &b in bytes {
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

/// Why [`from_slice`] refused or failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DeepError {
    /// The text nests deeper than [`MAX_DEPTH`].
    #[error(
        "the document nests arrays and objects {depth} levels deep; at most {MAX_DEPTH} are read"
    )]
    TooDeep {
        /// How deep it nests.
        depth: usize,
    },
    /// The text is not the value asked for: what serde_json said, and where.
    #[error("{message} at line {line} column {column}")]
    Json {
        /// What is wrong.
        message: String,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
    },
}

/// Deserializes `bytes`, nested up to [`MAX_DEPTH`] deep.
pub fn from_slice<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, DeepError> {
    let json = |e: serde_json::Error| DeepError::Json {
        message: strip_position(&e.to_string()),
        line: e.line(),
        column: e.column(),
    };
    let depth = depth(bytes);
    if depth <= SERDE_JSON_DEPTH {
        return serde_json::from_slice(bytes).map_err(json);
    }
    if depth > MAX_DEPTH {
        return Err(DeepError::TooDeep { depth });
    }
    with_deep_deserializer(bytes, |de| T::deserialize(de)).map_err(json)
}

/// Runs `read` over a deserializer of `bytes` without serde_json's depth limit, whose stack
/// grows as it goes deeper, and checks that nothing but white space follows the value.
pub fn with_deep_deserializer<T>(
    bytes: &[u8],
    read: impl FnOnce(
        serde_stacker::Deserializer<&mut serde_json::Deserializer<serde_json::de::SliceRead<'_>>>,
    ) -> Result<T, serde_json::Error>,
) -> Result<T, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    de.disable_recursion_limit();
    let value = read(serde_stacker::Deserializer::new(&mut de))?;
    de.end()?;
    Ok(value)
}

/// serde_json appends " at line L column C"; [`DeepError::Json`] carries those separately.
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_owned(),
        None => message.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nested(levels: usize) -> String {
        let mut text = String::from("\"[{not brackets}]\"");
        for _ in 0..levels {
            text = format!("{{\"inner\": [{text}]}}");
        }
        text
    }

    #[test]
    fn depth_counts_brackets_outside_strings() {
        assert_eq!(depth(b"1"), 0);
        assert_eq!(depth(br#"{"a": "[[[\"]]]", "b": [[1], {}]}"#), 3);
        assert_eq!(depth(nested(10).as_bytes()), 20);
    }

    #[test]
    fn deep_documents_read_up_to_the_limit_and_are_refused_past_it() {
        // On a thread with the stack of a tokio worker: the stack grows as needed.
        std::thread::Builder::new()
            .stack_size(2 << 20)
            .spawn(|| {
                let deep = nested(500);
                let v: serde_json::Value = from_slice(deep.as_bytes()).unwrap();
                assert!(v["inner"][0]["inner"][0].is_object());
                let too_deep = nested(MAX_DEPTH);
                let err = from_slice::<serde_json::Value>(too_deep.as_bytes()).unwrap_err();
                assert_eq!(
                    err,
                    DeepError::TooDeep {
                        depth: 2 * MAX_DEPTH
                    }
                );
                assert!(err.to_string().contains("2200 levels deep"), "{err}");
                // A deep value is dropped without overflowing too.
                drop(v);
            })
            .unwrap()
            .join()
            .unwrap();
    }
}
