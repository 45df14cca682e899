//! Text from agent records made safe for rustdoc.
//!
//! Descriptions are written by whoever made the agent, and rustdoc interprets Markdown: a fenced
//! or indented block would become a doctest that fails, HTML would be rendered or warned about,
//! brackets would become broken intra-doc links, a bare URL is a lint. [`text`] makes any string
//! render as the text it is: each line is trimmed, Markdown punctuation is escaped, `<`, `>` and
//! `&` become entities, URLs become autolinks, and control and bidirectional characters are
//! spelled as escapes. [`code`] renders a value inside an inline code span.

use std::fmt::Write as _;

pub(crate) fn is_hazard(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}')
        || matches!(c, '\u{2028}' | '\u{2029}' | '\u{FEFF}')
}

/// Escapes what rustdoc would not render as text: code spans and fences (`` ` ``, `~`),
/// emphasis (`*`, `_` at a word boundary), links (`[`, `]`), HTML (`<`, `>`, `&`), a heading
/// (`#` at the start of a line) and the escape character itself.
fn push_escaped_char(out: &mut String, c: char, prev: Option<char>, next: Option<char>) {
    let word = |c: Option<char>| c.is_some_and(char::is_alphanumeric);
    match c {
        '<' => out.push_str("&lt;"),
        '>' => out.push_str("&gt;"),
        '&' => out.push_str("&amp;"),
        '_' if word(prev) && word(next) => out.push('_'),
        '#' if prev.is_some() => out.push('#'),
        '\\' | '`' | '*' | '_' | '[' | ']' | '#' | '~' => {
            out.push('\\');
            out.push(c);
        }
        c if is_hazard(c) => {
            let _ = write!(out, "\\\\u{{{:x}}}", u32::from(c));
        }
        c => out.push(c),
    }
}

/// The length of a URL starting at the beginning of `s`, if one does.
fn url_len(s: &str) -> Option<usize> {
    let starts = |scheme: &str| {
        s.as_bytes()
            .get(..scheme.len())
            .is_some_and(|b| b.eq_ignore_ascii_case(scheme.as_bytes()))
    };
    if !(starts("http://") || starts("https://")) {
        return None;
    }
    let end = s
        .char_indices()
        .find(|&(_, c)| c.is_whitespace() || matches!(c, '<' | '>' | '"' | '`') || is_hazard(c))
        .map_or(s.len(), |(i, _)| i);
    let url = s[..end].trim_end_matches(['.', ',', ';', ':', ')', '!', '?', '\'']);
    (url.len() > "https://".len()).then_some(url.len())
}

/// Whether a byte of ASCII text is one [`line`] may rewrite: Markdown punctuation, HTML's
/// `<`, `>`, `&`, the `:` of a URL, a control character or a byte of a wider character.
fn may_rewrite(b: u8) -> bool {
    !(b' '..=b'~').contains(&b)
        || matches!(
            b,
            b'<' | b'>' | b'&' | b'_' | b'#' | b'\\' | b'`' | b'*' | b'[' | b']' | b'~' | b':'
        )
}

/// One line of schema text, rendered as plain text by rustdoc.
fn line(raw: &str) -> String {
    let raw = raw.trim();
    // Most descriptions are plain words, which come out as they are.
    if !raw.bytes().any(may_rewrite) {
        return raw.to_owned();
    }
    let mut out = String::with_capacity(raw.len() + 8);
    let mut rest = raw;
    let mut prev = None;
    while let Some(c) = rest.chars().next() {
        if let Some(n) = url_len(rest) {
            out.push('<');
            out.push_str(&rest[..n]);
            out.push('>');
            rest = &rest[n..];
            prev = Some('>');
            continue;
        }
        rest = &rest[c.len_utf8()..];
        push_escaped_char(&mut out, c, prev, rest.chars().next());
        prev = Some(c);
    }
    out
}

/// Schema text as doc lines; blank lines between paragraphs are kept, runs of them folded.
pub fn text(raw: &str) -> Vec<String> {
    let mut lines = Vec::new();
    // ASCII text without a carriage return breaks only at `\n`, found a word at a time.
    let normalized;
    let parts: Box<dyn Iterator<Item = &str>> = if raw.is_ascii() && !raw.contains('\r') {
        Box::new(raw.split('\n'))
    } else {
        normalized = raw.replace("\r\n", "\n");
        Box::new(normalized.split(['\n', '\r', '\u{2028}', '\u{2029}']))
    };
    for l in parts {
        let l = line(l);
        if l.is_empty() && lines.last().is_none_or(|p: &String| p.is_empty()) {
            continue;
        }
        lines.push(l);
    }
    while lines.last().is_some_and(String::is_empty) {
        lines.pop();
    }
    lines
}

/// A value shown in an inline code span (a JSON name, an example value).
pub fn code(raw: &str) -> String {
    // A name of printable ASCII without a backtick that is not all spaces is its own code span.
    if raw.bytes().all(|b| (b' '..=b'~').contains(&b) && b != b'`') && !raw.trim().is_empty() {
        let mut out = String::with_capacity(raw.len() + 2);
        out.push('`');
        out.push_str(raw);
        out.push('`');
        return out;
    }
    let cleaned: String = raw
        .chars()
        .map(|c| if is_hazard(c) { ' ' } else { c })
        .collect();
    let longest_run = cleaned.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest_run + 1);
    if cleaned.trim().is_empty() {
        return format!("`{:?}`", cleaned);
    }
    if cleaned.starts_with('`') || cleaned.ends_with('`') {
        format!("{fence} {cleaned} {fence}")
    } else {
        format!("{fence}{cleaned}{fence}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_is_neutralised() {
        assert_eq!(
            text("```rust\nfn main() { panic!() }\n```"),
            ["\\`\\`\\`rust", "fn main() { panic!() }", "\\`\\`\\`"]
        );
        assert_eq!(text("    indented code"), ["indented code"]);
        assert_eq!(
            text("<b>bold</b> & [link]"),
            ["&lt;b&gt;bold&lt;/b&gt; &amp; \\[link\\]"]
        );
        assert_eq!(text("ends */ here"), ["ends \\*/ here"]);
    }

    #[test]
    fn urls_become_autolinks() {
        assert_eq!(
            text("see https://example.com/a_b. Then"),
            ["see <https://example.com/a_b>. Then"]
        );
    }

    #[test]
    fn hazards_are_spelled_out() {
        assert_eq!(text("a\u{202E}b\u{0007}c"), ["a\\\\u{202e}b\\\\u{7}c"]);
        assert_eq!(text("a\r\nb"), ["a", "b"]);
        assert_eq!(text("\n\n"), Vec::<String>::new());
    }

    #[test]
    fn code_spans_survive_backticks() {
        assert_eq!(code("a`b"), "``a`b``");
        assert_eq!(code("`a"), "`` `a ``");
        assert_eq!(code("plain"), "`plain`");
        assert_eq!(code("snake_case"), "`snake_case`");
        assert_eq!(text("a_b _c_ #1"), ["a_b \\_c\\_ #1"]);
        assert_eq!(text("# title"), ["\\# title"]);
    }
}
