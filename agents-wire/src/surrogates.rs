//! Strings written with an unpaired UTF-16 surrogate escape (`"…\ud83d"`): what a JavaScript
//! service sends when it cuts text by length between the two halves of an emoji, and what
//! Python's `json.dumps` writes for text decoded with `surrogateescape`. Both languages read
//! such a document back; serde_json refuses all of it, as a Rust `String` cannot hold half a
//! character. [`repair`] writes each such escape as `\ufffd` (U+FFFD, the replacement
//! character), as `String::from_utf16_lossy` reads an unpaired surrogate.

/// The escape written in place of an unpaired surrogate's: six bytes, as long as the escape it
/// replaces, so every position in the text holds.
const REPLACEMENT: &[u8; 6] = br"\ufffd";

/// `text` with every `\uXXXX` escape of a surrogate (D800–DFFF) that is not half of a pair
/// written as `\ufffd`, and the byte offset of each; `None` when there is none. Escaped
/// backslashes are read as such (`\\ud800` is text, not an escape).
pub fn repair(text: &str) -> Option<(String, Vec<usize>)> {
    let bytes = text.as_bytes();
    let mut fixed: Option<Vec<u8>> = None;
    let mut at = Vec::new();
    let mut i = 0;
    while let Some(found) = bytes[i..].iter().position(|&b| b == b'\\') {
        i += found;
        let Some(unit) = (bytes.get(i + 1) == Some(&b'u'))
            .then(|| hex(bytes, i + 2))
            .flatten()
        else {
            // `\"`, `\\`, `\n`, …: the escaped character is skipped with its backslash.
            i += 2;
            continue;
        };
        let paired = (0xD800..=0xDBFF).contains(&unit)
            && bytes.get(i + 6) == Some(&b'\\')
            && bytes.get(i + 7) == Some(&b'u')
            && hex(bytes, i + 8).is_some_and(|low| (0xDC00..=0xDFFF).contains(&low));
        if paired {
            i += 12;
            continue;
        }
        if (0xD800..=0xDFFF).contains(&unit) {
            fixed.get_or_insert_with(|| bytes.to_vec())[i..i + 6].copy_from_slice(REPLACEMENT);
            at.push(i);
        }
        i += 6;
    }
    // ASCII was written over ASCII, so the text is still UTF-8.
    let fixed = String::from_utf8(fixed?).ok()?;
    Some((fixed, at))
}

/// The UTF-16 code unit of the four hex digits at `at`, if there are four.
fn hex(bytes: &[u8], at: usize) -> Option<u16> {
    let digits = std::str::from_utf8(bytes.get(at..at + 4)?).ok()?;
    if !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u16::from_str_radix(digits, 16).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The text as a JSON string: each unit escaped (`\uXXXX`, in upper or lower case) or, where
    /// it is a character of its own and `raw` says so, written as itself.
    fn quoted(units: &[u16], raw: &[bool], upper: bool) -> String {
        let mut out = String::from("\"");
        for (i, &unit) in units.iter().enumerate() {
            match char::from_u32(u32::from(unit)) {
                Some(c) if raw.get(i) == Some(&true) && c != '"' && c != '\\' && c >= ' ' => {
                    out.push(c);
                }
                _ if upper => out.push_str(&format!("\\u{unit:04X}")),
                _ => out.push_str(&format!("\\u{unit:04x}")),
            }
        }
        out.push('"');
        out
    }

    proptest! {
        /// The oracle is std's `String::from_utf16_lossy`: every unpaired surrogate one U+FFFD,
        /// every pair its character, as serde_json reads the repaired text.
        #[test]
        fn a_repaired_string_reads_as_std_reads_its_utf16_lossily(
            units in prop::collection::vec(
                prop_oneof![any::<u16>(), 0xD800u16..0xE000, Just(0xD83D), Just(0xDE00)],
                0..24,
            ),
            raw in prop::collection::vec(any::<bool>(), 24),
            upper in any::<bool>(),
        ) {
            let text = quoted(&units, &raw, upper);
            let expected = String::from_utf16_lossy(&units);
            let read: String = match repair(&text) {
                Some((fixed, at)) => {
                    prop_assert_eq!(fixed.len(), text.len());
                    prop_assert!(!at.is_empty());
                    serde_json::from_str(&fixed).unwrap()
                }
                None => serde_json::from_str(&text).unwrap(),
            };
            prop_assert_eq!(read, expected);
        }
    }

    #[test]
    fn only_unpaired_escapes_are_written_over() {
        let text = r#"{"a": ["x", "y\ud800z"], "b": "\ud83d\ude00", "c\\ud800": "\\udc00", "d": "\udc00\ud800"}"#;
        let (fixed, at) = repair(text).unwrap();
        assert_eq!(
            fixed,
            r#"{"a": ["x", "y\ufffdz"], "b": "\ud83d\ude00", "c\\ud800": "\\udc00", "d": "\ufffd\ufffd"}"#
        );
        let d = text.find(r#""\udc00\ud800""#).unwrap() + 1;
        assert_eq!(at, [text.find(r"\ud800z").unwrap(), d, d + 6]);
        assert_eq!(repair(r#"{"b": "\ud83d\ude00 \\ud800 \u00e9"}"#), None);
        // An escape cut short by the end of the text is not one.
        assert_eq!(repair(r#""\ud8"#), None);
    }
}
