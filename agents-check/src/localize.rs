//! The schema as one document whose references are all JSON pointers from its root: what a
//! reader that knows nothing of `$id`, `$anchor`, `$dynamicRef` or other documents (the
//! generator's type lowering) can follow and still mean what the compiled schema means.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value};

use crate::compile::{
    Compiled, Holds, Node, NodeId, Placed, defs_keyword, holds, id_keyword, lookup,
};

/// The root document with every reference the compiled schema follows rewritten as `#/…`
/// from the root, and every other document a reference reaches (supplied, or a metaschema)
/// embedded under `$defs` (`definitions` in a draft 7 root) by the last segment of its URI.
/// A `$dynamicRef` is written as the `$ref` it means when evaluation starts at the root (the
/// anchor of its name in the first resource an evaluation from the root enters, else its
/// static target). References the compiled
/// schema could not follow are left as written.
pub(crate) fn localized(compiled: &Compiled) -> (Cow<'_, Value>, Placed) {
    let entered = resources_in_order(compiled);
    // (document, pointer of the schema object) → (keyword to drop, `$ref` to write).
    let mut rewrites: BTreeMap<usize, Vec<(String, &'static str, NodeId)>> = BTreeMap::new();
    for node in &compiled.nodes {
        let Node::Keywords(k) = node else { continue };
        if let Some(target) = k.reference {
            rewrites
                .entry(k.doc)
                .or_default()
                .push((k.at.clone(), "$ref", target));
        }
        if let Some(dynamic) = &k.dynamic {
            let target = dynamic
                .anchor
                .as_ref()
                .and_then(|name| {
                    entered
                        .iter()
                        .find_map(|r| compiled.resources.get(*r)?.dynamic_anchors.get(name))
                        .copied()
                })
                .unwrap_or(dynamic.target);
            rewrites
                .entry(k.doc)
                .or_default()
                .push((k.at.clone(), "$dynamicRef", target));
        }
    }
    if rewrites.is_empty() {
        return (Cow::Borrowed(&compiled.docs[0]), Vec::new());
    }
    let defs_keyword = defs_keyword(&compiled.docs[0]);
    let mut taken: BTreeSet<String> = compiled.docs[0]
        .get(defs_keyword)
        .and_then(Value::as_object)
        .map(|d| d.keys().cloned().collect())
        .unwrap_or_default();
    // Every document a reference reaches, by the key it is embedded under.
    let mut names: BTreeMap<usize, String> = BTreeMap::new();
    let mut pointer_of = |target: NodeId| -> Option<String> {
        let (doc, pointer) = compiled.locations.get(target)?;
        if *doc == 0 {
            return Some(pointer.clone());
        }
        let name = names
            .entry(*doc)
            .or_insert_with(|| unique(&mut taken, &document_name(&compiled.doc_uris[*doc])));
        Some(format!("/{defs_keyword}/{name}{pointer}"))
    };
    let mut written: BTreeMap<usize, Vec<(String, &'static str, String)>> = BTreeMap::new();
    let mut changed = false;
    for (doc, list) in &rewrites {
        for (at, keyword, target) in list {
            if let Some(pointer) = pointer_of(*target) {
                let before = lookup(&compiled.docs[*doc], at)
                    .and_then(|s| s.get(keyword))
                    .and_then(Value::as_str);
                changed |= *keyword == "$dynamicRef" || before != Some(&format!("#{pointer}"));
                written
                    .entry(*doc)
                    .or_default()
                    .push((at.clone(), keyword, pointer));
            }
        }
    }
    if !changed && names.is_empty() {
        return (Cow::Borrowed(&compiled.docs[0]), Vec::new());
    }
    let mut docs: BTreeMap<usize, Value> = BTreeMap::new();
    for doc in written.keys().chain(names.keys()) {
        docs.entry(*doc)
            .or_insert_with(|| compiled.docs[*doc].clone());
    }
    for (doc, list) in written {
        let Some(value) = docs.get_mut(&doc) else {
            continue;
        };
        for (at, keyword, pointer) in list {
            let Some(Value::Object(schema)) = value.pointer_mut(&at) else {
                continue;
            };
            let reference = Value::String(format!("#{}", pointer.replace('%', "%25")));
            if keyword == "$dynamicRef" {
                schema.remove("$dynamicRef");
                schema.remove("$recursiveRef");
                // A schema with both keeps its `$ref`: a type follows one of them.
                schema.entry("$ref").or_insert(reference);
            } else {
                schema.insert("$ref".into(), reference);
            }
        }
    }
    // Identifiers would make the pointers written above mean something else to a reader that
    // honours them; without them the document means what the compiled schema does.
    docs.entry(0).or_insert_with(|| compiled.docs[0].clone());
    // Every document is read in the root's draft here (an embedded one loses its `$schema`).
    let id_keyword = id_keyword(compiled.docs[0].get("$schema").and_then(Value::as_str));
    for doc in docs.values_mut() {
        strip_ids(doc, id_keyword);
    }
    let mut root = docs.remove(&0).unwrap_or_else(|| compiled.docs[0].clone());
    let mut placed = Vec::new();
    if names.is_empty() {
        return (Cow::Owned(root), placed);
    }
    if let Value::Bool(allowed) = root {
        root = if allowed {
            Value::Object(Map::new())
        } else {
            serde_json::json!({"not": {}})
        };
    }
    if let Value::Object(map) = &mut root {
        let defs = map
            .entry(defs_keyword)
            .or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(defs) = defs {
            for (doc, name) in names {
                if let Some(mut value) = docs.remove(&doc) {
                    if let Value::Object(d) = &mut value {
                        d.remove("$schema");
                    }
                    strip_ids(&mut value, id_keyword);
                    placed.push((
                        crate::path::pointer_to(&format!("/{defs_keyword}"), &name),
                        doc,
                    ));
                    defs.insert(name, value);
                }
            }
        }
    }
    (Cow::Owned(root), placed)
}

/// The resources in the order an evaluation from the root first enters them (breadth first
/// over every subschema and reference): the dynamic scope a `$dynamicRef` most often meets, its
/// outermost resource first.
fn resources_in_order(compiled: &Compiled) -> Vec<usize> {
    let mut seen = vec![false; compiled.nodes.len()];
    let mut queue = std::collections::VecDeque::from([compiled.root]);
    let mut order = Vec::new();
    while let Some(id) = queue.pop_front() {
        if seen.get(id).is_none_or(|s| *s) {
            continue;
        }
        seen[id] = true;
        let Some(Node::Keywords(k)) = compiled.nodes.get(id) else {
            continue;
        };
        if let Some(r) = k.resource
            && !order.contains(&r)
        {
            order.push(r);
        }
        let singles = [
            k.reference,
            k.dynamic.as_ref().map(|d| d.target),
            k.not,
            k.if_,
            k.then,
            k.else_,
            k.items,
            k.contains,
            k.additional_properties,
            k.property_names,
            k.unevaluated_items,
            k.unevaluated_properties,
        ];
        queue.extend(singles.into_iter().flatten());
        queue.extend(k.all_of.iter().chain(&k.any_of).chain(&k.one_of));
        queue.extend(&k.prefix_items);
        queue.extend(k.properties.iter().map(|(_, id)| *id));
        queue.extend(k.pattern_properties.iter().map(|(_, id)| *id));
        queue.extend(k.dependent_schemas.iter().map(|(_, id)| *id));
    }
    order
}

/// Removes every `$id` (`id_keyword`: draft 4's `id`) that changes a base URI from a schema and
/// the schemas inside it (draft 7's `"$id": "#name"` is an anchor and stays).
fn strip_ids(value: &mut Value, id_keyword: &str) {
    let Value::Object(map) = value else { return };
    if map
        .get(id_keyword)
        .and_then(Value::as_str)
        .is_some_and(|id| !id.starts_with('#'))
    {
        map.remove(id_keyword);
    }
    for (keyword, child) in map.iter_mut() {
        match (holds(keyword), child) {
            (Some(Holds::Named), Value::Object(children)) => {
                children.values_mut().for_each(|c| strip_ids(c, id_keyword));
            }
            (Some(Holds::Listed), Value::Array(children)) => {
                children.iter_mut().for_each(|c| strip_ids(c, id_keyword));
            }
            (Some(Holds::Listed | Holds::One), other) => strip_ids(other, id_keyword),
            _ => {}
        }
    }
}

/// What a document is called where it is embedded: the last segment of its URI without an
/// extension, as letters, digits and `_` (`https://example.com/schemas/price.json` → `price`).
fn document_name(uri: &str) -> String {
    let path = uri.split(['#', '?']).next().unwrap_or(uri);
    let last = path
        .trim_end_matches('/')
        .rsplit(['/', ':'])
        .next()
        .unwrap_or("");
    let stem = last.split('.').next().unwrap_or("");
    let name: String = stem
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    if name.trim_matches('_').is_empty() {
        "document".to_owned()
    } else {
        name
    }
}

/// `name`, or `name2`, `name3`… when it is taken.
fn unique(taken: &mut BTreeSet<String>, name: &str) -> String {
    let mut candidate = name.to_owned();
    let mut n = 2;
    while taken.contains(&candidate) {
        candidate = format!("{name}{n}");
        n += 1;
    }
    taken.insert(candidate.clone());
    candidate
}
