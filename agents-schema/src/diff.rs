//! Field-by-field differences between two versions of an agent record (`cargo agents check`):
//! output fields added, removed or retyped (at any depth), the rules of an output field or of
//! the whole output changed (bounds, `pattern`, `enum`, `required`, …: what the generated type
//! checks as it decodes), inputs added, removed or changed (type, required, rules,
//! localization/pagination role), feature flags, and for `/v2` templates the version the record
//! describes.

use indexmap::IndexMap;

use crate::{AgentRecord, FieldSchema, InputProperty};

/// What changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ChangeKind {
    /// An output field exists only in the new record.
    FieldAdded,
    /// An output field exists only in the old record.
    FieldRemoved,
    /// An output field's type (or item type) changed.
    TypeChanged,
    /// A rule of an output field, or of the whole output, changed: a keyword that constrains
    /// values (`minimum`, `pattern`, `enum`, `required`, a `$defs` entry, …), which the
    /// generated type checks as it decodes. Annotations (`title`, `description`, `examples`,
    /// `default`, `deprecated`, `$comment`) are not rules.
    RuleChanged,
    /// An input exists only in the new record.
    InputAdded,
    /// An input exists only in the old record.
    InputRemoved,
    /// An input's type, required flag, rules or role changed.
    InputChanged,
    /// A feature flag changed.
    FlagChanged,
    /// The record describes another version of its template (`/v2`): generated bindings carry
    /// the old one's id and number, even when no field changed.
    VersionChanged,
}

/// One difference.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Change {
    /// What changed.
    pub kind: ChangeKind,
    /// Where: `output_schema.price`, `output_schema.reviews[].stars`, `input_properties.asin`,
    /// `feature_flags.is_pagination_supported`, `template_version`.
    pub path: String,
    /// Old and new, in words.
    pub detail: String,
}

impl std::fmt::Display for Change {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = match self.kind {
            ChangeKind::FieldAdded => "added",
            ChangeKind::FieldRemoved => "removed",
            ChangeKind::TypeChanged => "type changed",
            ChangeKind::RuleChanged => "rule changed",
            ChangeKind::InputAdded => "input added",
            ChangeKind::InputRemoved => "input removed",
            ChangeKind::InputChanged => "input changed",
            ChangeKind::FlagChanged => "flag changed",
            ChangeKind::VersionChanged => "version",
        };
        write!(f, "{kind:<14} {}: {}", self.path, self.detail)
    }
}

/// Every difference from `old` to `new`, in schema order.
pub fn diff(old: &AgentRecord, new: &AgentRecord) -> Vec<Change> {
    let mut out = Vec::new();
    if let (Some(a), Some(b)) = (&old.template_version, &new.template_version)
        && a.id != b.id
    {
        let says = |v: &crate::TemplateVersion| match v.number {
            Some(n) => format!("{n} (id {})", v.id),
            None => format!("id {}", v.id),
        };
        out.push(Change {
            kind: ChangeKind::VersionChanged,
            path: "template_version".into(),
            detail: format!("{} → {}", says(a), says(b)),
        });
    }
    let empty = IndexMap::new();
    // Keywords are named as each version's draft spells them.
    let drafts = Drafts(
        old.output_document.as_deref().and_then(FieldSchema::meta),
        new.output_document.as_deref().and_then(FieldSchema::meta),
    );
    fields(
        "output_schema",
        old.output_schema.as_ref().unwrap_or(&empty),
        new.output_schema.as_ref().unwrap_or(&empty),
        drafts,
        &mut out,
    );
    // What the output document says of the whole (`required`, `$defs`, …).
    let whole = |r: &AgentRecord, meta| {
        r.output_document
            .as_deref()
            .map(|d| d.rules_in(meta))
            .unwrap_or_default()
    };
    rule_changes(
        "output_schema",
        &whole(old, drafts.0),
        &whole(new, drafts.1),
        &mut out,
    );
    inputs(old.inputs(), new.inputs(), &mut out);
    let (of, nf) = (
        old.feature_flags.clone().unwrap_or_default(),
        new.feature_flags.clone().unwrap_or_default(),
    );
    for (name, a, b) in [
        (
            "is_localization_supported",
            of.is_localization_supported,
            nf.is_localization_supported,
        ),
        (
            "is_pagination_supported",
            of.is_pagination_supported,
            nf.is_pagination_supported,
        ),
    ] {
        if a != b {
            out.push(Change {
                kind: ChangeKind::FlagChanged,
                path: format!("feature_flags.{name}"),
                detail: format!("{a} → {b}"),
            });
        }
    }
    out
}

/// The drafts the old and the new output documents declare.
#[derive(Clone, Copy)]
struct Drafts<'a>(Option<&'a str>, Option<&'a str>);

fn fields(
    at: &str,
    old: &IndexMap<String, FieldSchema>,
    new: &IndexMap<String, FieldSchema>,
    drafts: Drafts<'_>,
    out: &mut Vec<Change>,
) {
    for (name, o) in old {
        let path = format!("{at}.{name}");
        match new.get(name) {
            None => out.push(Change {
                kind: ChangeKind::FieldRemoved,
                path,
                detail: o.type_name(),
            }),
            Some(n) => field(&path, o, n, drafts, out),
        }
    }
    for (name, n) in new {
        if !old.contains_key(name) {
            out.push(Change {
                kind: ChangeKind::FieldAdded,
                path: format!("{at}.{name}"),
                detail: n.type_name(),
            });
        }
    }
}

/// One change per keyword that differs between `old` and `new`, with both values when they are
/// short enough to read on a line.
fn rule_changes(
    path: &str,
    old: &IndexMap<String, serde_json::Value>,
    new: &IndexMap<String, serde_json::Value>,
    out: &mut Vec<Change>,
) {
    const SHORT: usize = 60;
    let shown = |v: &serde_json::Value| {
        let text = v.to_string();
        (text.chars().count() <= SHORT).then_some(text)
    };
    let mut keys: Vec<&String> = old.keys().collect();
    keys.extend(new.keys().filter(|k| !old.contains_key(*k)));
    for key in keys {
        let detail = match (old.get(key), new.get(key)) {
            (Some(a), Some(b)) if a == b => continue,
            (Some(a), Some(b)) => match (shown(a), shown(b)) {
                (Some(a), Some(b)) => format!("{key} {a} → {b}"),
                _ => format!("{key} changed"),
            },
            (Some(a), None) => match shown(a) {
                Some(a) => format!("{key} {a} removed"),
                None => format!("{key} removed"),
            },
            (None, Some(b)) => match shown(b) {
                Some(b) => format!("{key} {b} added"),
                None => format!("{key} added"),
            },
            (None, None) => continue,
        };
        out.push(Change {
            kind: ChangeKind::RuleChanged,
            path: path.to_owned(),
            detail,
        });
    }
}

fn field(path: &str, o: &FieldSchema, n: &FieldSchema, drafts: Drafts<'_>, out: &mut Vec<Change>) {
    let (ot, nt) = (o.type_name(), n.type_name());
    if ot != nt {
        out.push(Change {
            kind: ChangeKind::TypeChanged,
            path: path.to_owned(),
            detail: format!("{ot} → {nt}"),
        });
        return;
    }
    rule_changes(path, &o.rules_in(drafts.0), &n.rules_in(drafts.1), out);
    let empty = IndexMap::new();
    if o.properties.is_some() || n.properties.is_some() {
        fields(
            path,
            o.properties.as_ref().unwrap_or(&empty),
            n.properties.as_ref().unwrap_or(&empty),
            drafts,
            out,
        );
    }
    if let (Some(oi), Some(ni)) = (&o.items, &n.items) {
        field(&format!("{path}[]"), oi, ni, drafts, out);
    }
}

fn inputs(old: &[InputProperty], new: &[InputProperty], out: &mut Vec<Change>) {
    for o in old {
        let path = format!("input_properties.{}", o.name);
        match new.iter().find(|n| n.name == o.name) {
            None => out.push(Change {
                kind: ChangeKind::InputRemoved,
                path,
                detail: o.ty.clone().unwrap_or_default(),
            }),
            Some(n) => {
                let mut what = Vec::new();
                if o.ty != n.ty {
                    what.push(format!(
                        "type {} → {}",
                        o.ty.as_deref().unwrap_or("none"),
                        n.ty.as_deref().unwrap_or("none")
                    ));
                }
                if o.required != n.required {
                    what.push(format!("required {} → {}", o.required, n.required));
                }
                let texts = |i: &InputProperty| -> Vec<String> {
                    i.rules.iter().map(|r| r.text.clone()).collect()
                };
                if texts(o) != texts(n) {
                    what.push(format!("rules {:?} → {:?}", texts(o), texts(n)));
                }
                if o.is_localization_param != n.is_localization_param
                    || o.is_pagination_param != n.is_pagination_param
                {
                    what.push("localization/pagination role".to_owned());
                }
                if !what.is_empty() {
                    out.push(Change {
                        kind: ChangeKind::InputChanged,
                        path,
                        detail: what.join("; "),
                    });
                }
            }
        }
    }
    for n in new {
        if !old.iter().any(|o| o.name == n.name) {
            out.push(Change {
                kind: ChangeKind::InputAdded,
                path: format!("input_properties.{}", n.name),
                detail: format!(
                    "{}{}",
                    n.ty.as_deref().unwrap_or("untyped"),
                    if n.required { ", required" } else { "" }
                ),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(json: &str) -> AgentRecord {
        match AgentRecord::from_json(json) {
            Ok(r) => r,
            Err(e) => panic!("{e}"),
        }
    }

    #[test]
    fn reports_each_kind_with_its_path() {
        let old = rec(
            r#"{"name":"a","output_schema":{"price":{"type":"number"},"gone":{"type":"string"},
            "reviews":{"type":"array","items":{"type":"object","properties":{"stars":{"type":"number"}}}}},
            "input_properties":[{"name":"q","type":"string","required":true,"rules":["minimum length 1"]},
                                {"name":"old","type":"string"}],
            "feature_flags":{"is_localization_supported":false,"is_pagination_supported":false}}"#,
        );
        let new = rec(
            r#"{"name":"a","output_schema":{"price":{"type":"string"},"new":{"type":"boolean"},
            "reviews":{"type":"array","items":{"type":"object","properties":{"stars":{"type":"string"},"text":{"type":"string"}}}}},
            "input_properties":[{"name":"q","type":"string","required":true,"rules":["minimum length 2"]},
                                {"name":"page","type":"number"}],
            "feature_flags":{"is_localization_supported":false,"is_pagination_supported":true}}"#,
        );
        let changes: Vec<String> = diff(&old, &new).iter().map(ToString::to_string).collect();
        assert_eq!(
            changes,
            [
                "type changed   output_schema.price: number → string",
                "removed        output_schema.gone: string",
                "type changed   output_schema.reviews[].stars: number → string",
                "added          output_schema.reviews[].text: string",
                "added          output_schema.new: boolean",
                "input changed  input_properties.q: rules [\"minimum length 1\"] → [\"minimum length 2\"]",
                "input removed  input_properties.old: string",
                "input added    input_properties.page: number",
                "flag changed   feature_flags.is_pagination_supported: false → true",
            ]
        );
        assert!(diff(&old, &old).is_empty());
    }

    /// A rule the generated type checks is drift as much as a type: a bound, a pattern, an
    /// enum, what the whole output requires. Words about a field are not.
    #[test]
    fn a_changed_rule_is_a_change_and_a_changed_description_is_not() {
        let doc = |price: &str, tags: &str, required: &str| {
            rec(&format!(
                r#"{{"name":"t","input_schema":{{"type":"object","properties":{{}}}},
                "output_schema":{{"type":"object","required":{required},"properties":{{
                "price":{price},"tags":{{"type":"array","items":{tags}}}}}}}}}"#
            ))
        };
        let old = doc(
            r#"{"type":"number","minimum":0,"description":"in USD"}"#,
            r#"{"type":"string","pattern":"^[a-z]+$"}"#,
            r#"["price"]"#,
        );
        let new = doc(
            r#"{"type":"number","minimum":1,"maximum":5,"description":"in dollars"}"#,
            r#"{"type":"string"}"#,
            r#"["price","tags"]"#,
        );
        let changes: Vec<String> = diff(&old, &new).iter().map(ToString::to_string).collect();
        assert_eq!(
            changes,
            [
                "rule changed   output_schema.price: minimum 0 → 1",
                "rule changed   output_schema.price: maximum 5 added",
                "rule changed   output_schema.tags[]: pattern \"^[a-z]+$\" removed",
                "rule changed   output_schema: required [\"price\"] → [\"price\",\"tags\"]",
            ]
        );
        let reworded = doc(
            r#"{"type":"number","minimum":0,"description":"in dollars","title":"Price"}"#,
            r#"{"type":"string","pattern":"^[a-z]+$","examples":["a"]}"#,
            r#"["price"]"#,
        );
        assert!(diff(&old, &reworded).is_empty());
    }

    #[test]
    fn another_version_of_a_template_is_a_change_even_with_the_same_fields() {
        let version = |id: &str, n: u64, out: &str| {
            rec(&format!(
                r#"{{"name":"t","id":"{id}","version_number":{n},"input_schema":{{"type":"object","properties":{{}}}},
                "output_schema":{{"type":"object","properties":{out}}}}}"#
            ))
        };
        let v3 = version("v7", 3, r#"{"price":{"type":"number"}}"#);
        let v4 = version("v9", 4, r#"{"price":{"type":"number"}}"#);
        let v5 = version("v11", 5, r#"{"price":{"type":"string"}}"#);
        let changes: Vec<String> = diff(&v3, &v4).iter().map(ToString::to_string).collect();
        assert_eq!(
            changes,
            ["version        template_version: 3 (id v7) → 4 (id v9)"]
        );
        let changes: Vec<String> = diff(&v3, &v5).iter().map(ToString::to_string).collect();
        assert_eq!(
            changes,
            [
                "version        template_version: 3 (id v7) → 5 (id v11)",
                "type changed   output_schema.price: number → string",
            ]
        );
        assert!(diff(&v3, &v3).is_empty());
    }

    #[test]
    fn rules_are_named_as_the_schema_s_draft_names_them() {
        let doc = |tuple: &str| {
            rec(&format!(
                r#"{{"name":"t","input_schema":{{"type":"object","properties":{{}}}},
                "output_schema":{{"$schema":"http://json-schema.org/draft-07/schema#",
                "type":"object","properties":{{"pair":{{"type":"array","items":{tuple}}}}}}}}}"#
            ))
        };
        let old = doc(r#"[{"type":"string"}]"#);
        let new = doc(r#"[{"type":"string"},{"type":"integer"}]"#);
        let changes: Vec<String> = diff(&old, &new).iter().map(ToString::to_string).collect();
        assert_eq!(
            changes,
            [
                r#"rule changed   output_schema.pair: items [{"type":"string"}] → [{"type":"string"},{"type":"integer"}]"#
            ]
        );
    }
}
