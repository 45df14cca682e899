//! A research run's answer: its content typed as `T`, with the citations and claims that
//! support each part of it, found by the path of the part (`offers[0].price`).

use super::request::{Confidence, SourceCategory, SourceType};
use super::run::ResearchRun;
use crate::fields::{FieldPath, Step};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A page a claim or an answer rests on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Citation {
    /// The page.
    pub url: String,
    /// Its title.
    #[serde(default)]
    pub title: Option<String>,
    /// The passages that support the claim.
    #[serde(default, deserialize_with = "null_as_empty")]
    pub excerpts: Vec<String>,
    /// The extract template that read the page, when one did.
    #[serde(default)]
    pub extract_template_name: Option<String>,
    /// What kind of source the page is.
    #[serde(default)]
    pub source_category: Option<SourceCategory>,
    /// What kind of source the question needed.
    #[serde(default)]
    pub source_intent: Option<SourceCategory>,
    /// How authoritative the page is for the claim.
    #[serde(default)]
    pub source_type: Option<SourceType>,
}

fn null_as_empty<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    Ok(Option::<Vec<String>>::deserialize(d)?.unwrap_or_default())
}

/// A statement of the answer and the pages behind it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Claim {
    /// The part of a JSON answer it supports (`price`, `offers[0].seller`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// The callout number it has in a text answer (`[2]`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub callout: Option<u32>,
    /// The pages behind it.
    #[serde(default)]
    pub citations: Vec<Citation>,
    /// How sure the agent is of it.
    pub confidence: Confidence,
    /// Why the agent believes it.
    #[serde(default)]
    pub reasoning: String,
}

/// A source the agent used.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TrustSource {
    /// The page.
    pub url: String,
    /// How authoritative it is.
    #[serde(rename = "type")]
    pub kind: SourceType,
    /// Its title.
    #[serde(default)]
    pub title: Option<String>,
    /// The extract template that read it.
    #[serde(default)]
    pub extract_template_name: Option<String>,
    /// What kind of source it is.
    #[serde(default)]
    pub source_category: Option<SourceCategory>,
    /// What kind of source the question needed.
    #[serde(default)]
    pub source_intent: Option<SourceCategory>,
}

/// How far an answer can be trusted: a confidence, the reasoning, the claims and the sources.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Trust {
    /// How sure the agent is of the answer as a whole.
    pub confidence: Confidence,
    /// Why.
    #[serde(default)]
    pub reasoning: String,
    /// Its claims, each with its citations.
    #[serde(default)]
    pub claims: Vec<Claim>,
    /// Every source used.
    #[serde(default)]
    pub sources: Vec<TrustSource>,
}

/// A run's answer: its content typed as `T` (the record of the agent's output schema, `String`
/// for text answers, [`Value`] for any), how far it can be trusted, and the run.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Answer<T> {
    /// The answer.
    pub content: T,
    /// The answer as sent, which claims' paths point into.
    pub raw: Value,
    /// Confidence, claims with their citations, sources.
    pub trust: Trust,
    /// The run that answered.
    pub run: ResearchRun,
}

/// A part of an answer of type `T`: for a typed answer, a field's typed path (`T::FIELDS.price`,
/// on into nested records with `.then(…)`, into items with `.at(i)`; for a list answer, an item
/// and a path in it, `(1, T::FIELDS.product)`), so a field that does not exist does not compile;
/// for an untyped answer (`Answer<Value>`), text in any notation claims use (`offers[0].price`,
/// `$.offers[0].price`, `/offers/0/price`).
#[diagnostic::on_unimplemented(
    message = "`{Self}` does not name a part of an `Answer<{T}>`",
    label = "name the field with its typed path",
    note = "a typed answer's fields are named by their paths, `{T}::FIELDS.field` (on into a nested record with `.then(…)`, an item with `.at(i)`), so a field that does not exist does not compile; text paths are for `Answer<serde_json::Value>`"
)]
pub trait AnswerPath<T> {
    /// The path, as claims compare it.
    fn claim_path(&self) -> ClaimPath;
}

impl AnswerPath<Value> for &str {
    fn claim_path(&self) -> ClaimPath {
        ClaimPath::parse(self)
    }
}

impl AnswerPath<Value> for String {
    fn claim_path(&self) -> ClaimPath {
        ClaimPath::parse(self)
    }
}

impl<T, V> AnswerPath<T> for FieldPath<T, V> {
    fn claim_path(&self) -> ClaimPath {
        ClaimPath(
            self.steps()
                .map(|s| match s {
                    Step::Key(k) => k.into_owned(),
                    Step::Index(i) => i.to_string(),
                })
                .collect(),
        )
    }
}

impl<T, V> AnswerPath<T> for &FieldPath<T, V> {
    fn claim_path(&self) -> ClaimPath {
        (*self).claim_path()
    }
}

impl<T, V> AnswerPath<Vec<T>> for (usize, FieldPath<T, V>) {
    fn claim_path(&self) -> ClaimPath {
        let mut path = vec![self.0.to_string()];
        path.extend(self.1.claim_path().0);
        ClaimPath(path)
    }
}

impl<T> Answer<T> {
    /// The claims about the part of the answer at `path` or inside it ([`AnswerPath`]:
    /// `PriceCheck::FIELDS.offers.at(0)` of an `Answer<PriceCheck>`, `"offers[0]"` of an
    /// `Answer<Value>`).
    pub fn claims_for<'a>(
        &'a self,
        path: impl AnswerPath<T>,
    ) -> impl Iterator<Item = &'a Claim> + 'a {
        let want = path.claim_path();
        self.trust.claims.iter().filter(move |c| {
            c.path
                .as_deref()
                .is_some_and(|p| ClaimPath::parse(p).starts_with(&want))
        })
    }

    /// The part of the answer at `path`, as sent (`None` when the answer has nothing there).
    pub fn value(&self, path: impl AnswerPath<T>) -> Option<&Value> {
        path.claim_path().find(&self.raw)
    }

    /// The citations behind the part of the answer at `path` or inside it, each once:
    /// `answer.citations(PriceCheck::FIELDS.offers.at(0).then(Offer::FIELDS.price))`.
    pub fn citations(&self, path: impl AnswerPath<T>) -> Vec<&Citation> {
        let mut out: Vec<&Citation> = Vec::new();
        for c in self.claims_for(path).flat_map(|c| &c.citations) {
            if !out.contains(&c) {
                out.push(c);
            }
        }
        out
    }

    /// The citations of the text answer's callout `n` (`[n]` in the text).
    pub fn callout(&self, n: u32) -> Vec<&Citation> {
        self.trust
            .claims
            .iter()
            .filter(|c| c.callout == Some(n))
            .flat_map(|c| &c.citations)
            .collect()
    }

    /// Claims whose path points at nothing in the answer: evidence for a field the answer does
    /// not have. Empty for a well-formed answer.
    pub fn unanchored_claims(&self) -> Vec<&Claim> {
        self.trust
            .claims
            .iter()
            .filter(|c| {
                c.path
                    .as_deref()
                    .is_some_and(|p| ClaimPath::parse(p).find(&self.raw).is_none())
            })
            .collect()
    }
}

/// A path into a JSON answer, as claims give it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClaimPath(Vec<String>);

impl ClaimPath {
    /// Reads `a.b[0].c`, `$.a.b[0]`, `a["odd key"]` or `/a/b/0`; indexes and keys become plain
    /// segments, so the notations compare equal.
    pub fn parse(text: &str) -> ClaimPath {
        let text = text.trim();
        if let Some(pointer) = text.strip_prefix('/') {
            return ClaimPath(
                pointer
                    .split('/')
                    .map(|p| p.replace("~1", "/").replace("~0", "~"))
                    .collect(),
            );
        }
        let text = text.strip_prefix('$').unwrap_or(text);
        let mut segments = Vec::new();
        let mut current = String::new();
        let mut chars = text.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '.' => {
                    if !current.is_empty() {
                        segments.push(std::mem::take(&mut current));
                    }
                }
                '[' => {
                    if !current.is_empty() {
                        segments.push(std::mem::take(&mut current));
                    }
                    let mut inside = String::new();
                    for c in chars.by_ref() {
                        if c == ']' {
                            break;
                        }
                        inside.push(c);
                    }
                    let key = serde_json::from_str::<String>(&inside)
                        .unwrap_or_else(|_| inside.trim_matches(['\'', '"']).to_owned());
                    segments.push(key);
                }
                c => current.push(c),
            }
        }
        if !current.is_empty() {
            segments.push(current);
        }
        ClaimPath(segments)
    }

    /// Its segments (keys and indexes).
    pub fn segments(&self) -> &[String] {
        &self.0
    }

    fn starts_with(&self, prefix: &ClaimPath) -> bool {
        self.0.starts_with(&prefix.0)
    }

    /// The value the path points at in `root`.
    pub fn find<'a>(&self, root: &'a Value) -> Option<&'a Value> {
        self.0.iter().try_fold(root, |at, seg| match at {
            Value::Object(m) => m.get(seg),
            Value::Array(items) => items.get(seg.parse::<usize>().ok()?),
            _ => None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn claim_paths_compare_across_notations() {
        let dotted = ClaimPath::parse("offers[0].price");
        assert_eq!(dotted.segments(), ["offers", "0", "price"]);
        assert_eq!(ClaimPath::parse("$.offers[0].price"), dotted);
        assert_eq!(ClaimPath::parse("/offers/0/price"), dotted);
        assert_eq!(ClaimPath::parse("offers.0.price"), dotted);
        assert_eq!(
            ClaimPath::parse(r#"a["odd.key"]"#).segments(),
            ["a", "odd.key"]
        );
        let doc = json!({"offers": [{"price": 3}]});
        assert_eq!(dotted.find(&doc), Some(&json!(3)));
        assert_eq!(ClaimPath::parse("offers[1]").find(&doc), None);
    }
}
