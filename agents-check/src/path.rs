//! How a value's place is written: `reviews[2].rating`, `attributes["Screen size"]`. The
//! decoder's mismatches and the checks' breaches write it the same way, here.

/// Appends the property `key`: `.key` when it is a plain name (ASCII letters, digits, `_` and
/// `-`, not starting with a digit), `["key"]` (JSON-quoted) otherwise.
pub fn push_key(out: &mut String, key: &str) {
    let plain = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        && !key.starts_with(|c: char| c.is_ascii_digit());
    if plain {
        if !out.is_empty() {
            out.push('.');
        }
        out.push_str(key);
    } else {
        out.push('[');
        out.push_str(&serde_json::Value::String(key.to_owned()).to_string());
        out.push(']');
    }
}

/// Appends the item `index`: `[index]`.
pub fn push_index(out: &mut String, index: usize) {
    out.push('[');
    out.push_str(&index.to_string());
    out.push(']');
}

/// The property a path starts with (`reviews` of `reviews[2].rating`, `Screen size` of
/// `["Screen size"].unit`); `None` for the empty path (the value itself) or one starting with
/// an item.
pub fn first_key(path: &str) -> Option<String> {
    if let Some(rest) = path.strip_prefix('[') {
        // A quoted key: a JSON string, then `]`.
        let mut stream = serde_json::Deserializer::from_str(rest).into_iter::<String>();
        return match stream.next() {
            Some(Ok(key)) if rest[stream.byte_offset()..].starts_with(']') => Some(key),
            _ => None,
        };
    }
    let end = path.find(['.', '[']).unwrap_or(path.len());
    (end > 0).then(|| path[..end].to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_key_is_read_back() {
        for (path, key) in [
            ("reviews[2].rating", Some("reviews")),
            ("runs-on", Some("runs-on")),
            (r#"["Screen size"].unit"#, Some("Screen size")),
            (r#"["a\"]b"]"#, Some("a\"]b")),
            ("[0].x", None),
            ("", None),
        ] {
            assert_eq!(first_key(path).as_deref(), key, "{path}");
        }
    }

    #[test]
    fn plain_names_are_dotted_and_others_quoted() {
        let mut out = String::new();
        push_key(&mut out, "reviews");
        push_index(&mut out, 2);
        push_key(&mut out, "rating");
        push_key(&mut out, "Screen size");
        push_key(&mut out, "2nd");
        push_key(&mut out, "runs-on");
        assert_eq!(out, r#"reviews[2].rating["Screen size"]["2nd"].runs-on"#);
    }
}
