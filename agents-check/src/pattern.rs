//! A schema's `pattern`s compiled once, matched on every string a check reads.
//!
//! The engine is regex-lite: `\d` and `\w` are ASCII as in JSON Schema's regexes, and it keeps a
//! user's build light (the regex crate's parser and automata add seconds to it). Its matcher
//! is a Pike VM, which costs thousands of instructions per string even for `^https?://`, and
//! most patterns real schemas write are no more than a run of characters and classes, each
//! repeated (`^[a-z][a-z0-9_-]*$`, `^x-`, `^sha256-[A-Za-z0-9+/]{43}=$`). Those are matched here
//! by a bit-parallel automaton over the run instead, a few instructions per character; any
//! other pattern (groups, alternation, Unicode literals, assertions, long counted repetitions)
//! stays with regex-lite. The run is read from the same text regex-lite compiled, with its
//! meaning of every piece (`.` is any character but `\n`, `$` the end of the text), and a test
//! compares the two on every pattern of the official suite and the corpus.

/// A compiled pattern: regex-lite, with a run of classes matched without it; with the feature
/// `unicode`, a pattern regex-lite refuses (`\p{Letter}`) is compiled by regex.
#[derive(Debug)]
pub struct Pattern {
    regex: Engine,
    run: Option<Run>,
}

#[derive(Debug)]
enum Engine {
    Lite(regex_lite::Regex),
    #[cfg(feature = "unicode")]
    Full(regex::Regex),
}

impl Pattern {
    /// The pattern `source` compiled as the checks compile a `pattern`; `None` when it does not
    /// compile (the schema's problems say why).
    pub fn new(source: &str) -> Option<Pattern> {
        match regex_lite::Regex::new(source) {
            Ok(regex) => Some(Pattern {
                regex: Engine::Lite(regex),
                run: Run::read(source),
            }),
            #[cfg(feature = "unicode")]
            Err(_) => regex::Regex::new(source).ok().map(|regex| Pattern {
                regex: Engine::Full(regex),
                run: None,
            }),
            #[cfg(not(feature = "unicode"))]
            Err(_) => None,
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
        if let Some(run) = &self.run {
            return run.is_match(text);
        }
        match &self.regex {
            Engine::Lite(regex) => regex.is_match(text),
            #[cfg(feature = "unicode")]
            Engine::Full(regex) => regex.is_match(text),
        }
    }

    /// True when the pattern is matched without the regex engine (for the tests that compare
    /// the two).
    #[doc(hidden)]
    pub fn is_run(&self) -> bool {
        self.run.is_some()
    }
}

/// The characters one step of a run takes: a set of ASCII characters, and whether it takes
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

/// How many times a step of a run is taken.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Times {
    Once,
    Maybe,
    Any,
}

/// The longest run matched here: one bit per step and one for the end.
const MAX_STEPS: usize = 63;

/// A pattern that is a run of steps, each a class taken once, at most once or any number of
/// times (`x+` is `xx*`, `x{2,4}` is `xxx?x?`), between an optional `^` and `$`.
///
/// Matching keeps, as the bits of one word, every number of steps done so far that the text
/// read so far allows; each character moves them all at once.
#[derive(Debug)]
struct Run {
    /// Bit `i` set when step `i` takes the character, for every ASCII character.
    ascii: Box<[u64; 128]>,
    /// Bit `i` set when step `i` takes characters outside ASCII.
    wide: u64,
    /// Steps taken once or at most once: done, the state moves to the next.
    advance: u64,
    /// Steps taken any number of times: the state stays.
    repeat: u64,
    /// Steps that may be skipped.
    skip: u64,
    /// Every step done.
    end: u64,
    /// The states before the first character (the first steps that may be skipped, skipped).
    start: u64,
    anchored_start: bool,
    anchored_end: bool,
}

impl Run {
    /// The run `source` is, or `None` when it is anything else.
    fn read(source: &str) -> Option<Run> {
        let mut chars = source.chars().peekable();
        let anchored_start = chars.next_if_eq(&'^').is_some();
        let mut steps: Vec<(Class, Times)> = Vec::new();
        let mut anchored_end = false;
        while let Some(c) = chars.next() {
            if anchored_end {
                return None;
            }
            let class = match c {
                '$' => {
                    anchored_end = true;
                    continue;
                }
                '.' => Class {
                    ascii: !bit(b'\n'),
                    wide: true,
                },
                '\\' => escape(chars.next()?)?,
                '[' => class(&mut chars)?,
                '^' | '(' | ')' | '|' | '*' | '+' | '?' | '{' | '}' | ']' => return None,
                c if c.is_ascii() => Class::of(bit(c as u8)),
                _ => return None,
            };
            let quantifier = chars.next_if(|c| matches!(c, '?' | '*' | '+' | '{'));
            let (min, max) = match quantifier {
                None => (1, Some(1)),
                Some('?') => (0, Some(1)),
                Some('*') => (0, None),
                Some('+') => (1, None),
                Some(_) => counted(&mut chars)?,
            };
            if quantifier.is_some() {
                // A lazy repetition (`x*?`) matches the same texts.
                chars.next_if_eq(&'?');
            }
            let mut steps_of = |times, n: usize| {
                for _ in 0..n {
                    steps.push((class, times));
                }
            };
            steps_of(Times::Once, min);
            match max {
                Some(max) => steps_of(Times::Maybe, max.checked_sub(min)?),
                None => steps_of(Times::Any, 1),
            }
            if steps.len() > MAX_STEPS {
                return None;
            }
        }
        Some(Run::build(&steps, anchored_start, anchored_end))
    }

    fn build(steps: &[(Class, Times)], anchored_start: bool, anchored_end: bool) -> Run {
        let mut run = Run {
            ascii: Box::new([0; 128]),
            wide: 0,
            advance: 0,
            repeat: 0,
            skip: 0,
            end: 1 << steps.len(),
            start: 0,
            anchored_start,
            anchored_end,
        };
        for (i, (class, times)) in steps.iter().enumerate() {
            let step = 1_u64 << i;
            for (c, mask) in run.ascii.iter_mut().enumerate() {
                if class.ascii & (1 << c) != 0 {
                    *mask |= step;
                }
            }
            if class.wide {
                run.wide |= step;
            }
            match times {
                Times::Once => run.advance |= step,
                Times::Maybe => {
                    run.advance |= step;
                    run.skip |= step;
                }
                Times::Any => {
                    run.repeat |= step;
                    run.skip |= step;
                }
            }
        }
        run.start = run.close(1);
        run
    }

    /// `states` with every step that may be skipped, skipped.
    #[inline]
    fn close(&self, mut states: u64) -> u64 {
        loop {
            let more = states | ((states & self.skip) << 1);
            if more == states {
                return states;
            }
            states = more;
        }
    }

    fn is_match(&self, text: &str) -> bool {
        let mut states = self.start;
        for c in text.chars() {
            if !self.anchored_end && states & self.end != 0 {
                return true;
            }
            let takes = if c.is_ascii() {
                self.ascii[c as usize]
            } else {
                self.wide
            };
            let taken = states & takes;
            states = self.close(((taken & self.advance) << 1) | (taken & self.repeat));
            if !self.anchored_start {
                states |= self.start;
            } else if states == 0 {
                return false;
            }
        }
        states & self.end != 0
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
fn class(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) -> Option<Class> {
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
fn range_from(from: u8, chars: &mut std::iter::Peekable<std::str::Chars<'_>>) -> Option<u128> {
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
fn counted(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) -> Option<(usize, Option<usize>)> {
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
        assert!(pattern.is_run(), "{source} is a run");
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
    fn runs_match_as_regex_lite_does() {
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
        ] {
            agrees(source, &texts);
        }
    }

    #[test]
    fn other_patterns_stay_with_the_regex_engine() {
        for source in [
            "^(a|b)$",
            "a|b",
            "\\bword",
            "^é$",
            "[[:alpha:]]",
            "[a&&b]",
            "x{1,100}",
            "\\x41",
            "^a$b",
        ] {
            assert!(
                Pattern::new(source).is_none_or(|p| !p.is_run()),
                "{source} is not a run"
            );
        }
    }
}
