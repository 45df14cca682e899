#![allow(clippy::unwrap_used)] // test helpers outside #[test] fns
//! A pattern built of classes, groups, alternation and repetition is matched by a position
//! automaton, not regex-lite: here the two are compared, regex-lite being the oracle, on every
//! pattern of the official suite and the real-world corpus, and on patterns put together at
//! random from those pieces, each over
//! strings drawn to match it (by rand_regex), the same strings broken one character at a time,
//! and strings of random characters.

mod common;

use std::path::Path;

use agents_check::Pattern;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use serde_json::Value;

/// Characters the random strings are made of: ASCII of every class the pieces tell apart, a line
/// feed (`.` does not take it), and characters outside ASCII.
const ALPHABET: &[char] = &[
    'a', 'b', 'c', 'x', 'z', 'A', 'Z', '0', '1', '9', '_', '-', ' ', '.', '/', ':', '\n', '\t',
    '+', '=', 'é', '☃',
];

fn patterns_in(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (key, v) in map {
                match (key.as_str(), v) {
                    ("pattern", Value::String(p)) => out.push(p.clone()),
                    ("patternProperties", Value::Object(patterns)) => {
                        out.extend(patterns.keys().cloned());
                    }
                    _ => {}
                }
                patterns_in(v, out);
            }
        }
        Value::Array(items) => items.iter().for_each(|v| patterns_in(v, out)),
        _ => {}
    }
}

fn json_files(dir: &Path, out: &mut Vec<Value>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            json_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "json") {
            out.push(serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap());
        }
    }
}

/// Strings to try `source` on: drawn to match it, broken, and random.
fn texts(source: &str, rng: &mut StdRng) -> Vec<String> {
    let mut out = Vec::new();
    let drawn = regex_syntax::ParserBuilder::new()
        .build()
        .parse(source)
        .ok()
        .and_then(|hir| rand_regex::Regex::with_hir(hir, 8).ok());
    for _ in 0..24 {
        let mut text: Vec<char> = match &drawn {
            Some(regex) => rng.sample::<String, _>(regex).chars().collect(),
            None => Vec::new(),
        };
        out.push(text.iter().collect());
        let at = rng.random_range(0..=text.len());
        match rng.random_range(0..4) {
            0 if at < text.len() => {
                text.remove(at);
            }
            1 if at < text.len() => text[at] = ALPHABET[rng.random_range(0..ALPHABET.len())],
            _ => text.insert(at, ALPHABET[rng.random_range(0..ALPHABET.len())]),
        }
        out.push(text.iter().collect());
        let len = rng.random_range(0..10);
        out.push(
            (0..len)
                .map(|_| ALPHABET[rng.random_range(0..ALPHABET.len())])
                .collect(),
        );
    }
    out
}

/// Compares the automaton with regex-lite on `source`; true when `source` has one.
fn agrees(source: &str, rng: &mut StdRng, wrong: &mut Vec<String>) -> bool {
    let (Some(pattern), Ok(regex)) = (Pattern::new(source), regex_lite::Regex::new(source)) else {
        return false;
    };
    if !pattern.is_automaton() {
        return false;
    }
    for text in texts(source, rng) {
        if pattern.is_match(&text) != regex.is_match(&text) {
            wrong.push(format!(
                "{source:?} on {text:?}: automaton {}, regex-lite {}",
                pattern.is_match(&text),
                regex.is_match(&text)
            ));
        }
    }
    true
}

#[test]
fn automata_match_what_regex_lite_matches_on_the_suite_and_the_corpus() {
    let mut documents = Vec::new();
    json_files(&common::suite().join("tests/draft2020-12"), &mut documents);
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/json-schema/corpus/schemas");
    json_files(&corpus, &mut documents);
    let mut patterns = Vec::new();
    for document in &documents {
        patterns_in(document, &mut patterns);
    }
    patterns.sort();
    patterns.dedup();
    let mut rng = StdRng::seed_from_u64(7);
    let mut wrong = Vec::new();
    let runs = patterns
        .iter()
        .filter(|p| agrees(p, &mut rng, &mut wrong))
        .count();
    assert!(
        wrong.is_empty(),
        "{} disagreements:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
    // The corpus holds hundreds of patterns, most of them simple: a reader that took none
    // would pass the comparison without testing anything.
    assert!(
        runs * 4 > patterns.len() * 3,
        "{runs} of {} patterns have an automaton",
        patterns.len()
    );
}

#[test]
fn automata_match_what_regex_lite_matches_on_random_patterns() {
    const PIECES: &[&str] = &[
        "a",
        "b",
        "x",
        "-",
        "/",
        ".",
        "\\.",
        "\\d",
        "\\w",
        "\\s",
        "\\D",
        "\\W",
        "\\S",
        "[a-c]",
        "[^a]",
        "[-a]",
        "[a-]",
        "[\\d_]",
        "[^\\s]",
        "[ab\\-z]",
        "\\n",
        "\\t",
        "(a|b)",
        "(?:ab|c)",
        "(x)",
        "(a|)",
        "(a|b.|)",
        "(?:x+|\\d)",
    ];
    const TIMES: &[&str] = &[
        "", "", "?", "*", "+", "{2}", "{1,3}", "{0,2}", "{2,}", "*?", "+?",
    ];
    let mut rng = StdRng::seed_from_u64(11);
    let mut wrong = Vec::new();
    let mut runs = 0;
    for _ in 0..3000 {
        let mut source = String::new();
        if rng.random_bool(0.5) {
            source.push('^');
        }
        for _ in 0..rng.random_range(0..5) {
            source.push_str(PIECES[rng.random_range(0..PIECES.len())]);
            source.push_str(TIMES[rng.random_range(0..TIMES.len())]);
        }
        if rng.random_bool(0.5) {
            source.push('$');
        }
        if agrees(&source, &mut rng, &mut wrong) {
            runs += 1;
        }
    }
    assert!(
        wrong.is_empty(),
        "{} disagreements:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
    assert_eq!(
        runs, 3000,
        "every pattern made of a run's pieces is read as a run"
    );
}
