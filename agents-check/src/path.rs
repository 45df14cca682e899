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

#[cfg(test)]
mod tests {
    use super::*;

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
