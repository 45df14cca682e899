//! A schema's `pattern`s compiled once, matched on every string a check reads.
//!
//! The engine is regex-lite: `\d` and `\w` are ASCII as in JSON Schema's regexes, and it keeps a
//! user's build light (the regex crate's parser and automata add seconds to it). Its matcher
//! is a Pike VM, which costs thousands of instructions per string even for `^https?://`. Most
//! patterns real schemas write are built of nothing but characters, classes, groups,
//! alternation and repetition (`^[a-z][a-z0-9_-]*$`, `^x-`, `^(and|or|not)$`,
//! `^sha256-[A-Za-z0-9+/]{43}=$`); those are matched here by a position automaton whose states
//! are the bits of one word, a few instructions per character. Any other pattern (assertions
//! such as `\b`, flags, Unicode literals, more than 64 classes once repetitions are counted out)
//! stays with regex-lite. The automaton is read from the same text regex-lite compiled, with
//! its meaning of every piece (`.` is any character but `\n`, `$` the end of the text), and a
//! test compares the two on every pattern of the official suite and the corpus.

/// A compiled pattern: regex-lite, or the position automaton of a simple one; with the feature
/// `unicode`, a pattern regex-lite refuses (`\p{Letter}`) is compiled by regex.
#[derive(Debug, Clone)]
pub struct Pattern {
    regex: Engine,
    automaton: Option<Automaton>,
}

#[derive(Debug, Clone)]
enum Engine {
    Lite(regex_lite::Regex),
    #[cfg(feature = "unicode")]
    Full(regex::Regex),
}

impl Pattern {
    /// The pattern `source` compiled as the checks compile a `pattern`; `None` when it does not
    /// compile (the schema's problems say why).
    pub fn new(source: &str) -> Option<Pattern> {
        Pattern::parse(source).ok()
    }

    /// The pattern `source` compiled, or why it does not compile, in one line (the regex
    /// engine's last line: "unclosed group", …).
    pub fn parse(source: &str) -> Result<Pattern, String> {
        match regex_lite::Regex::new(source) {
            Ok(regex) => Ok(Pattern {
                regex: Engine::Lite(regex),
                automaton: Automaton::read(source),
            }),
            Err(e) => {
                #[cfg(feature = "unicode")]
                if let Ok(regex) = regex::Regex::new(source) {
                    return Ok(Pattern {
                        regex: Engine::Full(regex),
                        automaton: None,
                    });
                }
                let why = e.to_string();
                Err(why.lines().last().unwrap_or("invalid").to_owned())
            }
        }
    }

    /// The expression as written.
    pub fn as_str(&self) -> &str {
        match &self.regex {
            Engine::Lite(regex) => regex.as_str(),
            #[cfg(feature = "unicode")]
            Engine::Full(regex) => regex.as_str(),
        }
    }

    /// True when `text` has a match (JSON Schema's patterns are not anchored).
    pub fn is_match(&self, text: &str) -> bool {
        if let Some(automaton) = &self.automaton {
            return automaton.is_match(text);
        }
        match &self.regex {
            Engine::Lite(regex) => regex.is_match(text),
            #[cfg(feature = "unicode")]
            Engine::Full(regex) => regex.is_match(text),
        }
    }

    /// True when the pattern is matched by its position automaton rather than the regex
    /// engine (for the tests that compare the two).
    #[doc(hidden)]
    pub fn is_automaton(&self) -> bool {
        self.automaton.is_some()
    }
}

/// The characters a class takes: a set of ASCII characters, and whether it takes
/// every character outside ASCII (`.`, `[^ ]`, `\S`) or none.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Class {
    ascii: u128,
    wide: bool,
}

impl Class {
    const DIGIT: u128 = range(b'0', b'9');
    const WORD: u128 = range(b'0', b'9') | range(b'A', b'Z') | range(b'a', b'z') | bit(b'_');
    // regex-lite's `\s`: tab, line feed, vertical tab, form feed, carriage return, space.
    const SPACE: u128 = range(b'\t', b'\r') | bit(b' ');

    fn of(ascii: u128) -> Class {
        Class { ascii, wide: false }
    }

    fn negate(self) -> Class {
        Class {
            ascii: !self.ascii,
            wide: !self.wide,
        }
    }

    fn union(self, other: Class) -> Class {
        Class {
            ascii: self.ascii | other.ascii,
            wide: self.wide || other.wide,
        }
    }
}

const fn bit(b: u8) -> u128 {
    1 << b
}

const fn range(from: u8, to: u8) -> u128 {
    let mut set = 0;
    let mut b = from;
    while b <= to {
        set |= 1 << b;
        b += 1;
    }
    set
}

/// The most classes an automaton has: one bit of a word each.
const MAX_POSITIONS: usize = 64;

/// A pattern read as regex-lite reads it, when it is built of nothing but classes, groups,
/// alternation and repetition, between an optional `^` and `$`.
#[derive(Debug, Clone)]
enum Expr {
    Class(Class),
    Concat(Vec<Expr>),
    Alt(Vec<Expr>),
    /// Repeated at least `min` and at most `max` times (`None`: no most).
    Repeat(Box<Expr>, usize, Option<usize>),
}

type Chars<'a> = std::iter::Peekable<std::str::Chars<'a>>;

impl Expr {
    /// Alternatives, up to a `)` or a `$` (which the caller reads) or the end.
    fn alternation(chars: &mut Chars<'_>) -> Option<Expr> {
        let mut alternatives = vec![Expr::concat(chars)?];
        while chars.next_if_eq(&'|').is_some() {
            alternatives.push(Expr::concat(chars)?);
        }
        Some(if alternatives.len() == 1 {
            alternatives.pop()?
        } else {
            Expr::Alt(alternatives)
        })
    }

    fn concat(chars: &mut Chars<'_>) -> Option<Expr> {
        let mut items = Vec::new();
        while let Some(&c) = chars.peek() {
            if matches!(c, '|' | ')' | '$') {
                break;
            }
            chars.next();
            let atom = match c {
                '(' => {
                    // A group, capturing or not (`(?:…)`); flags (`(?i)`) are not read here.
                    if chars.next_if_eq(&'?').is_some() && chars.next() != Some(':') {
                        return None;
                    }
                    let inner = Expr::alternation(chars)?;
                    if chars.next() != Some(')') {
                        return None;
                    }
                    inner
                }
                '.' => Expr::Class(Class {
                    ascii: !bit(b'\n'),
                    wide: true,
                }),
                '\\' => Expr::Class(escape(chars.next()?)?),
                '[' => Expr::Class(class(chars)?),
                '^' | '*' | '+' | '?' | '{' | '}' | ']' => return None,
                c if c.is_ascii() => Expr::Class(Class::of(bit(c as u8))),
                _ => return None,
            };
            let quantifier = chars.next_if(|c| matches!(c, '?' | '*' | '+' | '{'));
            let (min, max) = match quantifier {
                None => {
                    items.push(atom);
                    continue;
                }
                Some('?') => (0, Some(1)),
                Some('*') => (0, None),
                Some('+') => (1, None),
                Some(_) => counted(chars)?,
            };
            // Past one position per bit, the copies would not fit (and an empty group
            // repeated a million times would be a million copies of nothing).
            if max.is_some_and(|max| max < min || max > MAX_POSITIONS) || min > MAX_POSITIONS {
                return None;
            }
            // A lazy repetition (`x*?`) matches the same texts.
            chars.next_if_eq(&'?');
            items.push(Expr::Repeat(Box::new(atom), min, max));
        }
        Some(Expr::Concat(items))
    }
}

/// What a part of a pattern contributes to its automaton: whether it matches the empty text,
/// the positions a match of it can begin and end with.
#[derive(Debug, Clone, Copy)]
struct Part {
    empty: bool,
    first: u64,
    last: u64,
}

/// A pattern as a position (Glushkov) automaton: one state per class of the pattern, entered
/// by reading a character of that class. A match is followed as the set of positions the
/// text read so far may end at, the bits of one word, so each character is a table lookup,
/// an OR of the follow sets and an AND.
#[derive(Debug, Clone)]
struct Automaton {
    /// Bit `p` set when the class at position `p` takes the character, for every ASCII one.
    ascii: Box<[u64; 128]>,
    /// Bit `p` set when the class at position `p` takes characters outside ASCII.
    wide: u64,
    /// The positions that may come next after each position.
    follow: Vec<u64>,
    /// The positions a match may begin with, end with, and whether the empty text matches.
    whole: Part,
    anchored_start: bool,
    anchored_end: bool,
}

impl Automaton {
    /// The automaton of `source`, or `None` when it holds anything else than classes,
    /// groups, alternation and repetition, or more than [`MAX_POSITIONS`] classes.
    fn read(source: &str) -> Option<Automaton> {
        let mut chars = source.chars().peekable();
        let anchored_start = chars.next_if_eq(&'^').is_some();
        let expr = Expr::alternation(&mut chars)?;
        let anchored_end = chars.next_if_eq(&'$').is_some();
        // `^a|b` anchors its first alternative only.
        let anchored = anchored_start || anchored_end;
        if chars.next().is_some() || (anchored && matches!(expr, Expr::Alt(_))) {
            return None;
        }
        let mut automaton = Automaton {
            ascii: Box::new([0; 128]),
            wide: 0,
            follow: Vec::new(),
            whole: Part {
                empty: true,
                first: 0,
                last: 0,
            },
            anchored_start,
            anchored_end,
        };
        automaton.whole = automaton.build(&expr)?;
        Some(automaton)
    }

    fn position(&mut self, class: Class) -> Option<Part> {
        let p = self.follow.len();
        if p == MAX_POSITIONS {
            return None;
        }
        self.follow.push(0);
        for (c, mask) in self.ascii.iter_mut().enumerate() {
            if class.ascii & (1 << c) != 0 {
                *mask |= 1 << p;
            }
        }
        if class.wide {
            self.wide |= 1 << p;
        }
        Some(Part {
            empty: false,
            first: 1 << p,
            last: 1 << p,
        })
    }

    /// `b` after `a`: every end of `a` may be followed by every beginning of `b`.
    fn then(&mut self, a: Part, b: Part) -> Part {
        self.follows(a.last, b.first);
        Part {
            empty: a.empty && b.empty,
            first: if a.empty { a.first | b.first } else { a.first },
            last: if b.empty { a.last | b.last } else { b.last },
        }
    }

    fn follows(&mut self, ends: u64, next: u64) {
        let mut rest = ends;
        while rest != 0 {
            self.follow[rest.trailing_zeros() as usize] |= next;
            rest &= rest - 1;
        }
    }

    fn build(&mut self, expr: &Expr) -> Option<Part> {
        const EMPTY: Part = Part {
            empty: true,
            first: 0,
            last: 0,
        };
        Some(match expr {
            Expr::Class(class) => self.position(*class)?,
            Expr::Concat(items) => {
                let mut whole = EMPTY;
                for item in items {
                    let part = self.build(item)?;
                    whole = self.then(whole, part);
                }
                whole
            }
            Expr::Alt(alternatives) => {
                let mut whole = Part {
                    empty: false,
                    ..EMPTY
                };
                for alternative in alternatives {
                    let part = self.build(alternative)?;
                    whole.empty |= part.empty;
                    whole.first |= part.first;
                    whole.last |= part.last;
                }
                whole
            }
            // Each time the part is taken is a copy of its positions: `x{2,3}` is `xxx?`,
            // `x+` is `xx*`.
            Expr::Repeat(inner, min, max) => {
                let mut whole = EMPTY;
                for _ in 0..*min {
                    let part = self.build(inner)?;
                    whole = self.then(whole, part);
                }
                match max {
                    Some(max) => {
                        for _ in *min..*max {
                            let part = self.build(inner)?;
                            whole = self.then(
                                whole,
                                Part {
                                    empty: true,
                                    ..part
                                },
                            );
                        }
                    }
                    None => {
                        let part = self.build(inner)?;
                        self.follows(part.last, part.first);
                        whole = self.then(
                            whole,
                            Part {
                                empty: true,
                                ..part
                            },
                        );
                    }
                }
                whole
            }
        })
    }

    fn is_match(&self, text: &str) -> bool {
        let Part { empty, first, last } = self.whole;
        if empty && !self.anchored_end {
            return true;
        }
        let mut at = 0_u64;
        let mut begun = false;
        for c in text.chars() {
            let mut next = if self.anchored_start && begun {
                0
            } else {
                first
            };
            let mut rest = at;
            while rest != 0 {
                next |= self.follow[rest.trailing_zeros() as usize];
                rest &= rest - 1;
            }
            at = next
                & if c.is_ascii() {
                    self.ascii[c as usize]
                } else {
                    self.wide
                };
            begun = true;
            if !self.anchored_end && at & last != 0 {
                return true;
            }
            if self.anchored_start && at == 0 {
                return false;
            }
        }
        // The empty text matches at the end, and, anchored, only when it is the whole text.
        at & last != 0 || (empty && (!self.anchored_start || text.is_empty()))
    }
}

/// The class an escape outside `[…]` stands for, as regex-lite reads it; `None` for escapes that
/// are not one character or class (assertions such as `\b`, hex and Unicode escapes).
fn escape(c: char) -> Option<Class> {
    Some(match c {
        'd' => Class::of(Class::DIGIT),
        'w' => Class::of(Class::WORD),
        's' => Class::of(Class::SPACE),
        'D' => Class::of(Class::DIGIT).negate(),
        'W' => Class::of(Class::WORD).negate(),
        'S' => Class::of(Class::SPACE).negate(),
        _ => Class::of(bit(escaped(c)?)),
    })
}

/// The one character `\c` stands for: ASCII punctuation stands for itself, and the control
/// escapes regex-lite knows for theirs.
fn escaped(c: char) -> Option<u8> {
    match c {
        'a' => Some(0x07),
        'f' => Some(0x0C),
        't' => Some(b'\t'),
        'n' => Some(b'\n'),
        'r' => Some(b'\r'),
        'v' => Some(0x0B),
        '<' | '>' => None,
        c if c.is_ascii_punctuation() => Some(c as u8),
        _ => None,
    }
}

/// A class `[…]` after its `[`: ASCII characters, ranges of them and `\d`-like escapes, maybe
/// negated; `None` for nested classes, set operations, POSIX names and anything not ASCII.
fn class(chars: &mut Chars<'_>) -> Option<Class> {
    let negated = chars.next_if_eq(&'^').is_some();
    let mut set = Class::of(0);
    let mut first = true;
    loop {
        let c = chars.next()?;
        match c {
            ']' if !first => break,
            '[' | ']' | '^' => return None,
            '&' | '~' if chars.peek() == Some(&c) => return None,
            '-' if chars.peek() == Some(&'-') => return None,
            '\\' => {
                let e = chars.next()?;
                match e {
                    'd' | 'w' | 's' | 'D' | 'W' | 'S' => set = set.union(escape(e)?),
                    _ => set = set.union(Class::of(range_from(escaped(e)?, chars)?)),
                }
            }
            c if c.is_ascii() => set = set.union(Class::of(range_from(c as u8, chars)?)),
            _ => return None,
        }
        first = false;
    }
    Some(if negated { set.negate() } else { set })
}

/// The character `from` alone, or the range `from-to` when a `-` and a character follow.
fn range_from(from: u8, chars: &mut Chars<'_>) -> Option<u128> {
    let mut ahead = chars.clone();
    if ahead.next() != Some('-') {
        return Some(bit(from));
    }
    let to = match ahead.next()? {
        ']' => return Some(bit(from)),
        '\\' => escaped(ahead.next()?)?,
        '[' | '^' => return None,
        c if c.is_ascii() => c as u8,
        _ => return None,
    };
    if to < from {
        return None;
    }
    *chars = ahead;
    Some(range(from, to))
}

/// `{n}`, `{n,}` or `{n,m}` after its `{`: the least and most times (`None`: no most).
fn counted(chars: &mut Chars<'_>) -> Option<(usize, Option<usize>)> {
    let mut text = String::new();
    for c in chars.by_ref() {
        if c == '}' {
            break;
        }
        text.push(c);
    }
    let number = |s: &str| -> Option<usize> {
        (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
            .then(|| s.parse().ok())
            .flatten()
    };
    match text.split_once(',') {
        None => number(&text).map(|n| (n, Some(n))),
        Some((min, "")) => number(min).map(|n| (n, None)),
        Some((min, max)) => Some((number(min)?, Some(number(max)?))),
    }
}

#[cfg(test)]
mod tests {
    use super::Pattern;

    fn agrees(source: &str, texts: &[&str]) {
        let pattern = Pattern::new(source).expect(source);
        assert!(pattern.is_automaton(), "{source} is read");
        let regex = regex_lite::Regex::new(source).expect(source);
        for text in texts {
            assert_eq!(
                pattern.is_match(text),
                regex.is_match(text),
                "{source} on {text:?}"
            );
        }
    }

    #[test]
    fn automata_match_as_regex_lite_does() {
        let texts = [
            "",
            "a",
            "x-",
            "x-y",
            "ax-",
            "http://",
            "https://a",
            "httpss://",
            "HTTP://",
            "ab1_-",
            "1ab",
            "a\n",
            "\n",
            "é",
            "aé",
            " é ",
            "a.yaml",
            "a.yml",
            "b.ymll",
            "2024",
            "20245",
        ];
        for source in [
            "^https?://",
            "^x-",
            "\\.ya?ml$",
            "^[a-z][a-z\\d_-]*$",
            "^.+$",
            ".*",
            "^[^ \\t\\n\\v\\f\\r]+$",
            "^\\d{4}$",
            "^\\d{2,4}$",
            "^\\d{2,}$",
            "a*a",
            "^a*?a$",
            "[-a]",
            "[a-]+$",
            "^\\S+$",
            "\\W",
            "",
            "^$",
            "^(a|b)$",
            "a|b",
            "^(?:ab|c)+$",
            "^((10|[1-9])m|([1-9][0-9]*)s)$",
            "^([0-9]+(ns|us|ms|s|m)){1,5}$",
            "(a|)x",
        ] {
            agrees(source, &texts);
        }
    }

    #[test]
    fn other_patterns_stay_with_the_regex_engine() {
        for source in [
            "^a|b",
            "a|b$",
            "(?i)a",
            "\\bword",
            "^é$",
            "[[:alpha:]]",
            "[a&&b]",
            "x{1,100}",
            "(?:){0,1000}",
            "\\x41",
            "^a$b",
        ] {
            assert!(
                Pattern::new(source).is_none_or(|p| !p.is_automaton()),
                "{source} stays with the regex engine"
            );
        }
    }
}
