//! How the service's JSON is read and named: text nested deeper than serde_json's 128 levels,
//! up to [`MAX_DEPTH`], read without overflowing the stack (on a thread of its own with room for
//! that depth; deeper text is refused with its depth named), the JSON path of the value a
//! reading error stopped in ([`path_at`]), a value's kind as messages say it ([`kind`]), the key
//! serde_json spells a number with when its `arbitrary_precision` is on ([`NUMBER_TOKEN`]), and
//! answers whose strings end in half a character, read with U+FFFD in its place
//! ([`from_slice_lossy`], [`repairing`]).
//! The generator's record loader and the client's answers both read through this, so each
//! reads what the other does (the loader without the repair: a user's schema that holds half
//! a character is refused, naming where).

use serde::de::DeserializeOwned;

/// The deepest arrays and objects may nest in a document read here: room for a schema of 500
/// levels (each a schema inside a `properties` map), which the generator types to 32 levels
/// and keeps raw below.
pub const MAX_DEPTH: usize = 1_100;

/// The UTF-8 byte order mark some servers and editors (Windows' Notepad) write before JSON
/// text. RFC 8259 lets a reader skip it; serde_json refuses it as the first character.
pub const BYTE_ORDER_MARK: char = '\u{feff}';

/// `bytes` without a leading UTF-8 [`BYTE_ORDER_MARK`]: what every reader here reads, an
/// answer of the service or a file of a user alike.
///
/// ```
/// assert_eq!(agents_wire::json::without_bom(b"\xEF\xBB\xBF{}"), b"{}");
/// assert_eq!(agents_wire::json::without_bom(b"{}"), b"{}");
/// ```
pub fn without_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes)
}

/// `text` without a leading [`BYTE_ORDER_MARK`], as [`without_bom`] reads bytes.
pub fn text_without_bom(text: &str) -> &str {
    text.strip_prefix(BYTE_ORDER_MARK).unwrap_or(text)
}

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

/// The one key of the map serde_json hands a visitor in place of a number when its
/// `arbitrary_precision` feature is on (any crate in a build may turn it on): the value is the
/// number's text. Only serde_json's own `Number` and `Value` read that map back as a number, so
/// every reader of ours that asks for any value (`deserialize_any`) looks for this key too.
pub const NUMBER_TOKEN: &str = "$serde_json::private::Number";

/// serde_json's own limit, past which [`from_str`] reads on a thread of its own.
const SERDE_JSON_DEPTH: usize = 128;

/// The stack of the thread a document nested past [`SERDE_JSON_DEPTH`] is read on: sixteen
/// times what the tests' deepest documents take in a debug build (they pass on 4 MiB), as a
/// record's decoder and its schema's check nest more calls per level than they do. The memory
/// is reserved, and touched only as deep as the reading goes.
const DEEP_STACK: usize = 64 << 20;

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

/// Why [`from_slice`] or [`from_str`] refused or failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DeepError {
    /// The text nests deeper than [`MAX_DEPTH`].
    #[error(
        "the document nests arrays and objects {depth} levels deep; at most {MAX_DEPTH} are read"
    )]
    TooDeep {
        /// How deep it nests.
        depth: usize,
    },
    /// The text nests past serde_json's 128 levels, and the thread it is read on could not
    /// start.
    #[error(
        "the document nests arrays and objects {depth} levels deep, which is read on a thread of its own, and that thread could not start: {reason}"
    )]
    NoThread {
        /// How deep it nests.
        depth: usize,
        /// What the system said.
        reason: String,
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

impl From<serde_json::Error> for DeepError {
    fn from(e: serde_json::Error) -> DeepError {
        DeepError::Json {
            message: strip_position(&e.to_string()),
            line: e.line(),
            column: e.column(),
        }
    }
}

/// Deserializes `bytes`, nested up to [`MAX_DEPTH`] deep. Bytes that are not UTF-8 are refused
/// with the position of the first bad one ([`not_utf8`]).
pub fn from_slice<T: DeserializeOwned + Send>(bytes: &[u8]) -> Result<T, DeepError> {
    match std::str::from_utf8(bytes) {
        Ok(text) => from_str(text),
        Err(e) => Err(not_utf8(bytes, &e).into()),
    }
}

/// Deserializes `text`, nested up to [`MAX_DEPTH`] deep. Text nested no deeper than
/// serde_json's 128 levels (nearly all) is read where the caller is, and whatever fails there
/// fails for good; deeper text is read again on a thread whose stack has room for
/// [`MAX_DEPTH`] levels, with serde_json's limit lifted. The same reader either way, so a
/// program compiles one decoder of `T` for both.
pub fn from_str<T: DeserializeOwned + Send>(text: &str) -> Result<T, DeepError> {
    let error = match read(text, false) {
        Ok(value) => return Ok(value),
        Err(error) => error,
    };
    let depth = depth(text.as_bytes());
    if depth <= SERDE_JSON_DEPTH {
        return Err(error.into());
    }
    if depth > MAX_DEPTH {
        return Err(DeepError::TooDeep { depth });
    }
    // `on_deep_stack` returns once the read has run (or with its panic), so the first error
    // stands only for a read that never happened.
    let mut deep = Err(error);
    on_deep_stack(depth, &mut || deep = read(text, true))?;
    deep.map_err(DeepError::from)
}

/// Deserializes `bytes` as [`from_slice`] does, except that strings holding an unpaired UTF-16
/// surrogate escape (`"…\ud83d"`, text cut between the halves of a character), which
/// serde_json refuses, are read with U+FFFD in its place ([`repairing`]). For answers of the
/// service, where one such string would otherwise cost every field of the record; a document
/// a user wrote (a schema) is read with [`from_slice`], which refuses it.
pub fn from_slice_lossy<T: DeserializeOwned + Send>(bytes: &[u8]) -> Result<T, DeepError> {
    match std::str::from_utf8(bytes) {
        Ok(text) => repairing(text, from_str),
        Err(e) => Err(not_utf8(bytes, &e).into()),
    }
}

/// `read(text)`; when that fails and `text` holds unpaired UTF-16 surrogate escapes,
/// `read` of the text with each written as `\ufffd` (U+FFFD, the replacement character, as
/// `String::from_utf16_lossy` reads one), and a warning (`tracing`) naming the JSON path of each
/// string repaired. A document without one costs nothing more: it is only looked for after a
/// failure. The repaired text is as long as the text, so an error it still has is placed where
/// it is in the text sent.
pub fn repairing<T, E>(text: &str, read: impl Fn(&str) -> Result<T, E>) -> Result<T, E> {
    let error = match read(text) {
        Ok(value) => return Ok(value),
        Err(error) => error,
    };
    let Some((fixed, at)) = crate::surrogates::repair(text) else {
        return Err(error);
    };
    let value = read(&fixed)?;
    tracing::warn!(
        strings = %strings_at(text, &at).join(", "),
        "unpaired UTF-16 surrogate escapes (text cut between the halves of a character) read as \
         U+FFFD, the replacement character"
    );
    Ok(value)
}

/// The JSON paths of the strings holding byte offsets `at` of `text`, each once.
fn strings_at(text: &str, at: &[usize]) -> Vec<String> {
    let mut paths: Vec<String> = at.iter().map(|&i| path_to(text.as_bytes(), i)).collect();
    paths.dedup();
    paths
}

/// `T` from all of `text`, serde_json's depth limit lifted or not.
fn read<T: DeserializeOwned>(text: &str, unlimited: bool) -> serde_json::Result<T> {
    let mut de = serde_json::Deserializer::from_str(text);
    if unlimited {
        de.disable_recursion_limit();
    }
    let value = T::deserialize(&mut de)?;
    de.end()?;
    Ok(value)
}

/// Runs `work` on a thread of [`DEEP_STACK`] and waits for it; a panic there goes on here.
/// Not generic: one copy of the thread machinery serves every type a program decodes.
fn on_deep_stack(depth: usize, work: &mut (dyn FnMut() + Send)) -> Result<(), DeepError> {
    std::thread::scope(|scope| {
        let thread = std::thread::Builder::new()
            .name("agents-deep-json".to_owned())
            .stack_size(DEEP_STACK)
            .spawn_scoped(scope, work)
            .map_err(|e| DeepError::NoThread {
                depth,
                reason: e.to_string(),
            })?;
        thread
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        Ok(())
    })
}

/// The error for JSON bytes that are not UTF-8, with the line and column serde_json gives the
/// first bad byte. It is found by reading the bytes as a `Value`, whatever the type asked for:
/// reading them as that type would compile a second decoder of it for this error alone.
#[cold]
pub fn not_utf8(bytes: &[u8], e: &std::str::Utf8Error) -> serde_json::Error {
    match serde_json::from_slice::<serde_json::Value>(bytes) {
        Err(error) => error,
        // Not reached: serde_json refuses a byte that is not UTF-8 inside or outside a string.
        Ok(_) => serde::de::Error::custom(format!(
            "the text is not UTF-8 from byte {} on",
            e.valid_up_to() + 1
        )),
    }
}

/// The JSON path of the value serde_json was reading when it stopped at `line` and `column`
/// of `text` (what its errors carry), written as serde_path_to_error writes one: `items[2].price`,
/// `.` for the document itself. A value is open from the `:` or `,` before it (or its array's
/// `[`) to the `,` or bracket after it, so an error raised on reading a value, or on finding
/// its object short of a field, names that value; one raised between values, such as trailing
/// text, names the array or object around them.
pub fn path_at(text: &[u8], line: usize, column: usize) -> String {
    let mut end = offset(text, line, column).min(text.len());
    // An array or object of the wrong type is reported before its bracket, unread. An error
    // about a byte serde_json only peeked at (`peek_error`) is placed after it though, so a
    // bracket just before the error opened nothing yet, unless another follows it, which is
    // then the one reported. (Placed after a bracket it did read, the error is about the array
    // or object as a whole, whose path is the same either way.)
    if end > 0
        && matches!(text[end - 1], b'[' | b'{')
        && !matches!(text.get(end), Some(b'[' | b'{'))
    {
        end -= 1;
    }
    path_to(text, end)
}

/// The JSON path of the value open at byte `end` of `text` (a string's when `end` is inside
/// one), as [`path_at`] writes it.
fn path_to(text: &[u8], end: usize) -> String {
    enum Frame {
        /// An object, and the key whose value is open (its span in `text`).
        Object {
            key: Option<(usize, usize)>,
            in_key: bool,
        },
        /// An array, the position of the value being read, and whether it has begun.
        Array { index: usize, begun: bool },
    }
    let end = end.min(text.len());
    let mut stack: Vec<Frame> = Vec::new();
    let mut i = 0;
    while i < end {
        let b = text[i];
        if b == b'"' {
            // A string: skipped whole (escapes included); a key's span is kept.
            let start = i + 1;
            let mut j = start;
            while j < text.len() && text[j] != b'"' {
                j += if text[j] == b'\\' { 2 } else { 1 };
            }
            match stack.last_mut() {
                Some(Frame::Object { key, in_key }) if *in_key => {
                    *key = Some((start, j.min(text.len())));
                }
                Some(Frame::Array { begun, .. }) => *begun = true,
                _ => {}
            }
            i = j + 1;
            continue;
        }
        match (b, stack.last_mut()) {
            (b' ' | b'\t' | b'\n' | b'\r', _) => {}
            (b':', Some(Frame::Object { in_key, .. })) => *in_key = false,
            (b',', Some(Frame::Object { key, in_key })) => {
                *key = None;
                *in_key = true;
            }
            (b',', Some(Frame::Array { index, begun })) => {
                *index += 1;
                *begun = false;
            }
            (b'}' | b']', _) => {
                stack.pop();
            }
            (b'{' | b'[', top) => {
                if let Some(Frame::Array { begun, .. }) = top {
                    *begun = true;
                }
                stack.push(if b == b'{' {
                    Frame::Object {
                        key: None,
                        in_key: true,
                    }
                } else {
                    Frame::Array {
                        index: 0,
                        begun: false,
                    }
                });
            }
            (_, Some(Frame::Array { begun, .. })) => *begun = true,
            _ => {}
        }
        i += 1;
    }
    // A value about to be read (serde_json stops before a bracket it does not want) is open.
    let next = text[end..]
        .iter()
        .find(|b| !b.is_ascii_whitespace())
        .copied();
    let mut path = String::new();
    for frame in &stack {
        match *frame {
            Frame::Object {
                key: Some((start, stop)),
                in_key: false,
            } => {
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(&key_text(&text[start..stop]));
            }
            Frame::Array { index, begun } if begun || next.is_some_and(|b| b != b']') => {
                path.push_str(&format!("[{index}]"));
            }
            _ => {}
        }
    }
    if path.is_empty() {
        path.push('.');
    }
    path
}

/// The byte offset of 1-based `line` and serde_json's `column` on it (the bytes of the line it
/// has read).
fn offset(text: &[u8], line: usize, column: usize) -> usize {
    let start = if line <= 1 {
        0
    } else {
        text.iter()
            .enumerate()
            .filter(|(_, b)| **b == b'\n')
            .nth(line - 2)
            .map_or(text.len(), |(i, _)| i + 1)
    };
    start + column
}

/// A key as written between its quotes, escapes read.
fn key_text(raw: &[u8]) -> String {
    if raw.contains(&b'\\') {
        let mut quoted = Vec::with_capacity(raw.len() + 2);
        quoted.push(b'"');
        quoted.extend_from_slice(raw);
        quoted.push(b'"');
        if let Ok(key) = serde_json::from_slice::<String>(&quoted) {
            return key;
        }
    }
    String::from_utf8_lossy(raw).into_owned()
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

    /// Where the test's subscriber writes.
    struct Sink(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

    impl std::io::Write for Sink {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    fn nested(levels: usize) -> String {
        let mut text = String::from("\"[{not brackets}]\"");
        for _ in 0..levels {
            text = format!("{{\"inner\": [{text}]}}");
        }
        text
    }

    #[test]
    fn a_string_cut_between_the_halves_of_a_character_is_read_and_named() {
        let text =
            r#"{"a": {"b": ["ok", "cut \ud83d", "\ud83d\ude00"]}, "c\ud800": "\udc00x\udc00"}"#;
        assert!(from_slice::<serde_json::Value>(text.as_bytes()).is_err());
        // The only test that reaches the warning's call site, so its subscriber decides the
        // site's interest (tracing caches it per process).
        let logs = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let sink = std::sync::Arc::clone(&logs);
        let subscriber = tracing_subscriber::fmt()
            .with_writer(move || Sink(std::sync::Arc::clone(&sink)))
            .with_ansi(false)
            .finish();
        let v: serde_json::Value = tracing::subscriber::with_default(subscriber, || {
            from_slice_lossy(text.as_bytes()).unwrap()
        });
        let logs = String::from_utf8(logs.lock().unwrap().clone()).unwrap();
        assert!(
            logs.contains(r"WARN") && logs.contains(r"strings=a.b[1], ., c\ud800"),
            "{logs}"
        );
        assert_eq!(v["a"]["b"][1], "cut \u{fffd}");
        assert_eq!(v["a"]["b"][2], "\u{1f600}");
        assert_eq!(v["c\u{fffd}"], "\u{fffd}x\u{fffd}");
        let (_, at) = crate::surrogates::repair(text).unwrap();
        // A key's repair names the object that holds it (the document here); a key that
        // holds one is written as sent.
        assert_eq!(strings_at(text, &at), ["a.b[1]", ".", "c\\ud800"]);
        // Another error in the text is still an error, placed where it is in the text sent.
        let broken = r#"{"a": "\ud800", "b": tru}"#;
        let err = from_slice_lossy::<serde_json::Value>(broken.as_bytes()).unwrap_err();
        assert!(matches!(err, DeepError::Json { column: 25, .. }), "{err}");
    }

    #[test]
    fn depth_counts_brackets_outside_strings() {
        assert_eq!(depth(b"1"), 0);
        assert_eq!(depth(br#"{"a": "[[[\"]]]", "b": [[1], {}]}"#), 3);
        assert_eq!(depth(nested(10).as_bytes()), 20);
    }

    #[test]
    fn deep_documents_read_up_to_the_limit_and_are_refused_past_it() {
        // On a thread with the stack of a tokio worker: the reading moves to a thread of its own.
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
