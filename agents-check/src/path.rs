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

/// `path`, written from inside the item `index` of a list, written from the list: `[2].price`
/// of `price`, `[2]["Screen size"]` of `["Screen size"]`, `[2]` of the item itself.
pub fn in_item(index: usize, path: &str) -> String {
    let mut out = String::with_capacity(path.len() + 8);
    push_index(&mut out, index);
    if !path.is_empty() && !path.starts_with('[') {
        out.push('.');
    }
    out.push_str(path);
    out
}

/// Appends `/segment` to the JSON Pointer `out` (RFC 6901): `~` written `~0`, `/` written `~1`.
pub fn push_pointer_segment(out: &mut String, segment: &str) {
    out.reserve(segment.len() + 1);
    out.push('/');
    let mut rest = segment;
    // Both are ASCII, so a byte scan finds them at character boundaries (and faster than a
    // search by characters).
    while let Some(i) = rest.bytes().position(|b| b == b'~' || b == b'/') {
        out.push_str(&rest[..i]);
        out.push_str(if rest.as_bytes()[i] == b'~' {
            "~0"
        } else {
            "~1"
        });
        rest = &rest[i + 1..];
    }
    out.push_str(rest);
}

/// The JSON Pointer `at` followed by `segment`, escaped as [`push_pointer_segment`] escapes it.
pub fn pointer_to(at: &str, segment: &str) -> String {
    let mut out = String::with_capacity(at.len() + segment.len() + 1);
    out.push_str(at);
    push_pointer_segment(&mut out, segment);
    out
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

/// `text` (a URI fragment) with its `%XX` escapes decoded: a pointer to `a b` is written
/// `#/a%20b`.
pub fn percent_decoded(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let Some(byte) = std::str::from_utf8(&bytes[i + 1..i + 3])
                .ok()
                .and_then(|h| u8::from_str_radix(h, 16).ok())
        {
            out.push(byte);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
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
    fn pointer_segments_are_escaped_as_rfc_6901_says() {
        let doc = serde_json::json!({"a/b": {"m~n": {"": {"%": 1}}}});
        let mut at = String::new();
        for segment in ["a/b", "m~n", "", "%"] {
            push_pointer_segment(&mut at, segment);
        }
        assert_eq!(at, "/a~1b/m~0n//%");
        assert_eq!(doc.pointer(&at), Some(&serde_json::json!(1)));
        assert_eq!(pointer_to("/x", "~/"), "/x/~0~1");
    }

    #[test]
    fn a_path_inside_an_item_is_written_as_from_the_list() {
        let steps: [&[&str]; 4] = [&[], &["price"], &["Screen size", "unit"], &["#", "offers"]];
        for steps in steps {
            let (mut from_item, mut from_list) = (String::new(), String::new());
            push_index(&mut from_list, 3);
            for key in steps {
                push_key(&mut from_item, key);
                push_key(&mut from_list, key);
            }
            assert_eq!(in_item(3, &from_item), from_list, "{steps:?}");
        }
        let mut nested = String::new();
        push_index(&mut nested, 0);
        assert_eq!(in_item(3, &nested), "[3][0]");
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
