//! Checking a value against compiled nodes: every keyword that constrains it, with each breach
//! recorded (path, keyword, rule, value) while recording, or the first failure ending the
//! check while probing (`anyOf`, `oneOf`, `not`, `if`, `contains` only ask whether a value
//! passes).

use std::collections::{BTreeSet, HashSet};
use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::compile::{Compiled, Keywords, Node, NodeId, lookup};
use crate::instance::{Instance, Kind, equal};
use crate::path;

/// A rule of the schema that a value breaks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Breach {
    /// Where the value is, in JSON names: `reviews[2].rating` (a missing required property:
    /// where it should be).
    pub path: String,
    /// The keyword broken: `maximum`, `pattern`, `required`, `oneOf`, …; or
    /// [`DEPTH_KEYWORD`] where the check stopped, 4,096 schemas deep, without looking further.
    pub keyword: String,
    /// Where the keyword is in the schema, as a JSON pointer (`/properties/rating/maximum`),
    /// preceded by the document's URI when it is in another document.
    pub schema_path: String,
    /// The keyword's value in the schema (`5` for `"maximum": 5`).
    pub rule: Value,
    /// The value that breaks it; `None` for a property that is required and absent (and then
    /// left out of the JSON form, so that a `null` found reads back as `Some(Value::Null)`).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    pub found: Option<Value>,
}

/// A key that is present holds a value, `null` included.
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

impl Breach {
    /// The record's property the breach is in (`reviews` of `reviews[2].rating`); `None` for a
    /// rule of the record as a whole.
    pub fn field(&self) -> Option<String> {
        path::first_key(&self.path)
    }
}

impl fmt::Display for Breach {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = if self.path.is_empty() {
            "the record"
        } else {
            &self.path
        };
        match &self.found {
            Some(found) => write!(
                f,
                "{path}: breaks `{}: {}` ({}), found {found}",
                self.keyword, self.rule, self.schema_path
            ),
            None => write!(
                f,
                "{path}: missing, and `{}` ({}) requires it",
                self.keyword, self.schema_path
            ),
        }
    }
}

/// Where the checked value is, built on the stack as the check descends.
#[derive(Clone, Copy)]
pub(crate) enum Loc<'a> {
    Root,
    Key(&'a Loc<'a>, &'a str),
    Index(&'a Loc<'a>, usize),
}

impl Loc<'_> {
    fn write(&self, out: &mut String) {
        match self {
            Loc::Root => {}
            Loc::Key(parent, key) => {
                parent.write(out);
                path::push_key(out, key);
            }
            Loc::Index(parent, i) => {
                parent.write(out);
                path::push_index(out, *i);
            }
        }
    }
}

/// The annotations `unevaluated*` read: which properties and items the keywords that passed
/// looked at. Kept only when the schema has `unevaluated*`.
#[derive(Default)]
struct Seen {
    all_properties: bool,
    all_items: bool,
    // One is made and dropped for every schema visited and most stay empty: the sets are
    // allocated on the first insert, so an empty one costs a null pointer.
    sets: Option<Box<Sets>>,
}

#[derive(Default)]
struct Sets {
    properties: BTreeSet<String>,
    items: BTreeSet<usize>,
}

impl Seen {
    fn merge(&mut self, other: Seen) {
        self.all_properties |= other.all_properties;
        self.all_items |= other.all_items;
        match (&mut self.sets, other.sets) {
            (_, None) => {}
            (mine @ None, theirs) => *mine = theirs,
            (Some(mine), Some(theirs)) => {
                mine.properties.extend(theirs.properties);
                mine.items.extend(theirs.items);
            }
        }
    }

    fn sets(&mut self) -> &mut Sets {
        self.sets.get_or_insert_default()
    }

    fn add_property(&mut self, key: &str) {
        self.sets().properties.insert(key.to_owned());
    }

    fn add_item(&mut self, index: usize) {
        self.sets().items.insert(index);
    }

    fn has_property(&self, key: &str) -> bool {
        self.sets
            .as_ref()
            .is_some_and(|s| s.properties.contains(key))
    }

    fn has_item(&self, index: usize) -> bool {
        self.sets.as_ref().is_some_and(|s| s.items.contains(&index))
    }
}

/// How deep the walk may nest: a schema that refers to itself in place (`{"$ref": "#"}`, which
/// compiling reports as a [`ProblemKind::Loop`](crate::ProblemKind::Loop)) stops here instead of
/// looping, as does a value nested deeper than this. Either way the check fails with a breach
/// of [`DEPTH_KEYWORD`], rather than passing what it did not look at.
const MAX_DEPTH: usize = 4096;

/// The keyword of the breach recorded where a check stopped, 4,096 schemas deep (a schema that
/// refers to itself without descending into the value, or a value nested deeper than that):
/// not a keyword of JSON Schema, as the rule is the checker's. Its `rule` is the limit, and
/// nothing below that point was checked.
pub const DEPTH_KEYWORD: &str = "depth";

/// How deep the walk goes on the caller's stack. Past it, it goes on on a thread of
/// [`DEEP_STACK`]: a few KiB a level in a debug build, so this many fit in the 2 MiB of a tokio
/// worker with room to spare, and nearly every value is checked without a thread.
const SHALLOW: usize = 128;

/// The stack of the thread that checks what lies deeper than [`SHALLOW`]: room for
/// [`MAX_DEPTH`] levels, reserved and touched only as deep as the walk goes.
const DEEP_STACK: usize = 64 << 20;

pub(crate) struct Eval<'s, 'o> {
    pub schema: &'s Compiled,
    pub out: Option<&'o mut Vec<Breach>>,
    scope: Vec<usize>,
    depth: usize,
    /// The walk runs on a thread of [`DEEP_STACK`].
    deep: bool,
    /// The walk reached [`MAX_DEPTH`]: whatever the levels above made of it (a `not` turns a
    /// failure into a pass), the check fails.
    stopped: bool,
    /// The breach saying so is recorded (once).
    reported: bool,
}

impl<'s, 'o> Eval<'s, 'o> {
    pub(crate) fn new(schema: &'s Compiled, out: Option<&'o mut Vec<Breach>>) -> Self {
        Eval {
            schema,
            out,
            scope: Vec::new(),
            depth: 0,
            deep: false,
            stopped: false,
            reported: false,
        }
    }

    /// Checks `inst` against node `id`; `None` when it breaks a rule. `typed`: the Rust type of
    /// `inst` was generated from node `id` alone, so what [`Instance::exact`] promises holds.
    fn eval(
        &mut self,
        id: NodeId,
        inst: &dyn Instance,
        loc: &Loc<'_>,
        typed: bool,
    ) -> Option<Seen> {
        if self.depth >= MAX_DEPTH {
            self.stop(id, inst, loc);
            return None;
        }
        self.depth += 1;
        let seen = if self.depth == SHALLOW && !self.deep {
            self.on_deep_stack(|eval| eval.node(id, inst, loc, typed))
        } else {
            self.node(id, inst, loc, typed)
        };
        self.depth -= 1;
        seen
    }

    /// Notes that the walk stopped at [`MAX_DEPTH`] on node `id` at `loc`, and records it once
    /// when recording.
    #[cold]
    fn stop(&mut self, id: NodeId, inst: &dyn Instance, loc: &Loc<'_>) {
        self.stopped = true;
        if self.reported {
            return;
        }
        let schema = self.schema;
        if let Some(out) = self.out.as_deref_mut() {
            self.reported = true;
            let (doc, at) = &schema.locations[id];
            out.push(Breach {
                path: write(loc),
                keyword: DEPTH_KEYWORD.to_owned(),
                schema_path: schema_path(schema, *doc, at),
                rule: Value::from(MAX_DEPTH),
                found: Some(inst.to_json()),
            });
        }
    }

    /// The verdict of a whole check: `passed`, unless the walk stopped at [`MAX_DEPTH`]; a stop
    /// met only while probing (where nothing is recorded) is recorded at the value checked.
    fn verdict(&mut self, passed: bool, id: NodeId, inst: &dyn Instance) -> bool {
        if !self.stopped {
            return passed;
        }
        if !self.reported {
            self.stop(id, inst, &Loc::Root);
        }
        false
    }

    /// Runs `walk` on a thread of [`DEEP_STACK`], with what lies below it there too. Should the
    /// system refuse a thread, the walk goes on where it is.
    #[cold]
    fn on_deep_stack(
        &mut self,
        walk: impl Fn(&mut Self) -> Option<Seen> + Send + Sync,
    ) -> Option<Seen> {
        let spawned = std::thread::scope(|scope| {
            std::thread::Builder::new()
                .name("agents-check-deep".to_owned())
                .stack_size(DEEP_STACK)
                .spawn_scoped(scope, || {
                    self.deep = true;
                    let seen = walk(self);
                    self.deep = false;
                    seen
                })
                .map(|thread| {
                    thread
                        .join()
                        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
                })
        });
        spawned.unwrap_or_else(|_| walk(self))
    }

    /// Checks `inst` against the root; `typed` when its Rust type was generated from it.
    pub(crate) fn root(&mut self, inst: &dyn Instance, typed: bool) -> bool {
        let root = self.schema.root;
        let passed = self.eval(root, inst, &Loc::Root, typed).is_some();
        self.verdict(passed, root, inst)
    }

    /// This evaluation starting inside the resources of `scope`, outermost first (where a
    /// `$dynamicRef` looks first).
    #[cfg(feature = "sample")]
    pub(crate) fn within(mut self, scope: &[usize]) -> Self {
        self.scope = scope.to_vec();
        self
    }

    /// Whether `inst` passes node `id` in the scope it was given (`within`; none by
    /// default), recording nothing.
    #[cfg_attr(not(feature = "sample"), allow(dead_code))]
    pub(crate) fn passes(&mut self, id: NodeId, inst: &dyn Instance) -> bool {
        let passed = self.eval(id, inst, &Loc::Root, false).is_some();
        self.verdict(passed, id, inst)
    }

    /// Whether `inst` passes node `id`, recording nothing.
    fn probe(&mut self, id: NodeId, inst: &dyn Instance, loc: &Loc<'_>) -> Option<Seen> {
        let out = self.out.take();
        let seen = self.eval(id, inst, loc, false);
        self.out = out;
        seen
    }

    fn node(
        &mut self,
        id: NodeId,
        inst: &dyn Instance,
        loc: &Loc<'_>,
        typed: bool,
    ) -> Option<Seen> {
        let schema = self.schema;
        match &schema.nodes[id] {
            Node::Always | Node::Pending => Some(Seen::default()),
            // What such a schema asks, the value's type already holds: nothing to look at. (Not
            // where `unevaluated*` needs the properties and items it would have evaluated.)
            Node::Keywords(k)
                if typed && k.implied && !schema.tracks_evaluation && inst.exact() =>
            {
                Some(Seen::default())
            }
            Node::Never(doc, at) => {
                if let Some(out) = self.out.as_deref_mut() {
                    let keyword = keyword_of(at);
                    out.push(Breach {
                        path: write(loc),
                        keyword: keyword.to_owned(),
                        schema_path: schema_path(schema, *doc, at),
                        rule: Value::Bool(false),
                        found: Some(inst.to_json()),
                    });
                }
                None
            }
            // Most subschemas only name a type: checked without the machinery of the others.
            Node::Keywords(k) if k.only_types => {
                let kind = inst.kind();
                let ok = k.types.is_none_or(|types| types.allows(inst, kind));
                if !ok {
                    self.breach(k, "type", loc, Some(inst));
                }
                ok.then(Seen::default)
            }
            Node::Keywords(k) => {
                let entered = k
                    .resource
                    .filter(|r| self.scope.last() != Some(r))
                    .inspect(|r| self.scope.push(*r))
                    .is_some();
                let mut seen = Seen::default();
                let ok = self.keywords(k, inst, loc, &mut seen, typed);
                if entered {
                    self.scope.pop();
                }
                ok.then_some(seen)
            }
        }
    }

    fn recording(&self) -> bool {
        self.out.is_some()
    }

    fn breach(&mut self, k: &Keywords, keyword: &str, loc: &Loc<'_>, found: Option<&dyn Instance>) {
        let schema = self.schema;
        if let Some(out) = self.out.as_deref_mut() {
            let rule = lookup(&schema.docs[k.doc], &k.at)
                .and_then(|s| s.get(keyword))
                .cloned()
                .unwrap_or(Value::Null);
            out.push(Breach {
                path: write(loc),
                keyword: keyword.to_owned(),
                schema_path: schema_path(schema, k.doc, &format!("{}/{keyword}", k.at)),
                rule,
                found: found.map(Instance::to_json),
            });
        }
    }

    /// Every keyword of `k` on `inst`; false when one is broken.
    #[allow(clippy::too_many_lines)]
    fn keywords(
        &mut self,
        k: &Keywords,
        inst: &dyn Instance,
        loc: &Loc<'_>,
        seen: &mut Seen,
        typed: bool,
    ) -> bool {
        let track = self.schema.tracks_evaluation;
        // The types of the values at `properties` and `items` were made from those schemas
        // alone when this one's were, unless a keyword here may have merged others into them.
        let children = typed && k.keeps_types;
        let mut ok = true;
        // Records a breach; while probing, the first one ends the check.
        macro_rules! fail {
            ($keyword:expr) => {
                fail!($keyword, loc, Some(inst))
            };
            ($keyword:expr, $loc:expr, $found:expr) => {{
                ok = false;
                if !self.recording() {
                    return false;
                }
                self.breach(k, $keyword, $loc, $found);
            }};
        }
        // A subschema applied in place or to a child: its own breaches are recorded.
        macro_rules! apply {
            ($id:expr, $inst:expr, $loc:expr) => {
                apply!($id, $inst, $loc, false)
            };
            ($id:expr, $inst:expr, $loc:expr, $typed:expr) => {
                match self.eval($id, $inst, $loc, $typed) {
                    Some(s) => Some(s),
                    None => {
                        ok = false;
                        if !self.recording() {
                            return false;
                        }
                        None
                    }
                }
            };
        }

        if let Some(target) = k.reference
            && let Some(s) = apply!(target, inst, loc, typed && k.only_reference)
        {
            seen.merge(s);
        }
        if let Some(dynamic) = &k.dynamic {
            let target = dynamic
                .anchor
                .as_ref()
                .and_then(|name| {
                    self.scope
                        .iter()
                        .find_map(|r| self.schema.resources[*r].dynamic_anchors.get(name))
                        .copied()
                })
                .unwrap_or(dynamic.target);
            if let Some(s) = apply!(target, inst, loc) {
                seen.merge(s);
            }
        }

        let kind = inst.kind();
        if let Some(types) = k.types
            && !types.allows(inst, kind)
        {
            fail!("type");
        }
        if let Some(list) = &k.enumeration
            && !list.iter().any(|v| equal(v, inst))
        {
            fail!("enum");
        }
        if let Some(constant) = &k.constant
            && !equal(constant, inst)
        {
            fail!("const");
        }

        match kind {
            Kind::Number => {
                let n = inst.as_f64().unwrap_or(f64::NAN);
                if k.maximum.is_some_and(|m| n > m) {
                    fail!("maximum");
                }
                if k.minimum.is_some_and(|m| n < m) {
                    fail!("minimum");
                }
                if k.exclusive_maximum.is_some_and(|m| n >= m) {
                    fail!("exclusiveMaximum");
                }
                if k.exclusive_minimum.is_some_and(|m| n <= m) {
                    fail!("exclusiveMinimum");
                }
                if let Some(m) = k.multiple_of
                    && !is_multiple(n, m)
                {
                    fail!("multipleOf");
                }
            }
            Kind::String => {
                let text = inst.as_str().unwrap_or("");
                if k.max_length.is_some() || k.min_length.is_some() {
                    let chars = text.chars().count() as u64;
                    if k.max_length.is_some_and(|m| chars > m) {
                        fail!("maxLength");
                    }
                    if k.min_length.is_some_and(|m| chars < m) {
                        fail!("minLength");
                    }
                }
                if let Some(pattern) = &k.pattern
                    && !pattern.is_match(text)
                {
                    fail!("pattern");
                }
            }
            Kind::Array => {
                let len = inst.len();
                if k.max_items.is_some_and(|m| len as u64 > m) {
                    fail!("maxItems");
                }
                if k.min_items.is_some_and(|m| (len as u64) < m) {
                    fail!("minItems");
                }
                if k.unique_items && !unique(inst) {
                    fail!("uniqueItems");
                }
                for (i, id) in k.prefix_items.iter().enumerate().take(len) {
                    if let Some(item) = inst.item(i) {
                        apply!(*id, item, &Loc::Index(loc, i));
                        if track {
                            seen.add_item(i);
                        }
                    }
                }
                if let Some(id) = k.items {
                    for i in k.prefix_items.len()..len {
                        if let Some(item) = inst.item(i) {
                            apply!(id, item, &Loc::Index(loc, i), children);
                        }
                    }
                    seen.all_items = true;
                }
                if let Some(id) = k.contains {
                    let mut matched = 0_u64;
                    for i in 0..len {
                        if let Some(item) = inst.item(i)
                            && self.probe(id, item, &Loc::Index(loc, i)).is_some()
                        {
                            matched += 1;
                            if track {
                                seen.add_item(i);
                            }
                        }
                    }
                    let min = k.min_contains.unwrap_or(1);
                    if matched < min {
                        let keyword = if k.min_contains.is_some() {
                            "minContains"
                        } else {
                            "contains"
                        };
                        fail!(keyword);
                    }
                    if k.max_contains.is_some_and(|m| matched > m) {
                        fail!("maxContains");
                    }
                }
            }
            Kind::Object => {
                // Counting a record's properties walks its fields: only when a rule needs it.
                if k.max_properties.is_some() || k.min_properties.is_some() {
                    let len = inst.len() as u64;
                    if k.max_properties.is_some_and(|m| len > m) {
                        fail!("maxProperties");
                    }
                    if k.min_properties.is_some_and(|m| len < m) {
                        fail!("minProperties");
                    }
                }
                for name in &k.required {
                    if inst.property(name).is_none() {
                        fail!("required", &Loc::Key(loc, name), None);
                    }
                }
                // A probe stops at the first breach: the properties most likely to tell one
                // branch from another are looked at before the rest (and again with them).
                if !self.recording() {
                    for &i in &k.discriminants {
                        let (name, id) = &k.properties[i];
                        if let Some(value) = inst.property(name)
                            && self
                                .eval(*id, value, &Loc::Key(loc, name), children)
                                .is_none()
                        {
                            return false;
                        }
                    }
                }
                for (name, needs) in &k.dependent_required {
                    if inst.property(name).is_some() {
                        for need in needs {
                            if inst.property(need).is_none() {
                                let keyword = k.dependent_required_keyword;
                                fail!(keyword, &Loc::Key(loc, need), None);
                            }
                        }
                    }
                }
                // A record made from this schema alone keeps each declared property in a field
                // of its own; when it holds nothing else, `additionalProperties` applies to
                // none of its properties.
                let only_declared = k.pattern_properties.is_empty()
                    && k.property_names.is_none()
                    && (k.additional_properties.is_none() || (children && inst.fields_only()));
                if only_declared {
                    // Each declared name looked up in the value: a record finds its field with
                    // a `match` on the name, cheaper than a pass over its fields.
                    for (name, id) in &k.properties {
                        if let Some(value) = inst.property(name) {
                            // What `node` finds first for a subschema the field's type holds,
                            // found here without the visit: most of a record's properties.
                            if children && !track && self.schema.implied(*id) && value.exact() {
                                continue;
                            }
                            apply!(*id, value, &Loc::Key(loc, name), children);
                            if track {
                                seen.add_property(name);
                            }
                        }
                    }
                } else {
                    // One pass over the properties the value has: each is checked against its
                    // own schema, the patterns it matches, and `additionalProperties` when
                    // neither holds it.
                    let mut failed = false;
                    let recording = self.recording();
                    inst.properties(&mut |key, value| {
                        if failed && !recording {
                            return;
                        }
                        let here = Loc::Key(loc, key);
                        let declared = k.property(key);
                        if let Some(id) = declared {
                            if self.eval(id, value, &here, children).is_none() {
                                failed = true;
                            }
                            if track {
                                seen.add_property(key);
                            }
                        }
                        let mut matched = false;
                        for (pattern, id) in &k.pattern_properties {
                            if pattern.is_match(key) {
                                matched = true;
                                if self.eval(*id, value, &here, false).is_none() {
                                    failed = true;
                                }
                            }
                        }
                        if let Some(id) = k.additional_properties
                            && !matched
                            && declared.is_none()
                            && self.eval(id, value, &here, false).is_none()
                        {
                            failed = true;
                        }
                        if let Some(id) = k.property_names
                            && self.eval(id, &key, &here, false).is_none()
                        {
                            failed = true;
                        }
                        if track && (matched || k.additional_properties.is_some()) {
                            seen.add_property(key);
                        }
                    });
                    if failed {
                        ok = false;
                        if !recording {
                            return false;
                        }
                    }
                }
                for (name, id) in &k.dependent_schemas {
                    if inst.property(name).is_some()
                        && let Some(s) = apply!(*id, inst, loc)
                    {
                        seen.merge(s);
                    }
                }
            }
            Kind::Null | Kind::Boolean => {}
        }

        for id in &k.all_of {
            if let Some(s) = apply!(*id, inst, loc) {
                seen.merge(s);
            }
        }
        if !k.any_of.is_empty() {
            let mut any = false;
            for id in &k.any_of {
                if self.schema.rejects(*id, kind) {
                    continue;
                }
                if let Some(s) = self.probe(*id, inst, loc) {
                    any = true;
                    seen.merge(s);
                    if !track {
                        break;
                    }
                }
            }
            if !any {
                fail!("anyOf");
            }
        }
        if !k.one_of.is_empty() {
            let mut passed = 0;
            for id in &k.one_of {
                if self.schema.rejects(*id, kind) {
                    continue;
                }
                if let Some(s) = self.probe(*id, inst, loc) {
                    passed += 1;
                    seen.merge(s);
                    if passed > 1 {
                        break;
                    }
                }
            }
            if passed != 1 {
                fail!("oneOf");
            }
        }
        if let Some(id) = k.not
            && self.probe(id, inst, loc).is_some()
        {
            fail!("not");
        }
        if let Some(id) = k.if_ {
            match self.probe(id, inst, loc) {
                Some(s) => {
                    seen.merge(s);
                    if let Some(then) = k.then
                        && let Some(s) = apply!(then, inst, loc)
                    {
                        seen.merge(s);
                    }
                }
                None => {
                    if let Some(otherwise) = k.else_
                        && let Some(s) = apply!(otherwise, inst, loc)
                    {
                        seen.merge(s);
                    }
                }
            }
        }

        if kind == Kind::Array
            && let Some(id) = k.unevaluated_items
            && !seen.all_items
        {
            for i in 0..inst.len() {
                if !seen.has_item(i)
                    && let Some(item) = inst.item(i)
                {
                    apply!(id, item, &Loc::Index(loc, i));
                }
            }
            seen.all_items = true;
        }
        if kind == Kind::Object
            && let Some(id) = k.unevaluated_properties
            && !seen.all_properties
        {
            let mut failed = false;
            let recording = self.recording();
            inst.properties(&mut |key, value| {
                if (recording || !failed)
                    && !seen.has_property(key)
                    && self.eval(id, value, &Loc::Key(loc, key), false).is_none()
                {
                    failed = true;
                }
            });
            if failed {
                ok = false;
                if !recording {
                    return false;
                }
            }
            seen.all_properties = true;
        }
        ok
    }
}

fn write(loc: &Loc<'_>) -> String {
    let mut out = String::new();
    loc.write(&mut out);
    out
}

fn schema_path(schema: &Compiled, doc: usize, pointer: &str) -> String {
    if doc == 0 {
        pointer.to_owned()
    } else {
        format!("{}#{pointer}", schema.doc_uris[doc])
    }
}

/// The keyword a `false` schema stands under (`additionalProperties` for
/// `/additionalProperties`, `properties` for `/properties/name`).
fn keyword_of(pointer: &str) -> &str {
    let mut segments = pointer.rsplit('/');
    let last = segments.next().unwrap_or("");
    let parent = segments.next().unwrap_or("");
    match parent {
        "properties" | "patternProperties" | "prefixItems" | "dependentSchemas" | "allOf"
        | "anyOf" | "oneOf" | "$defs" | "definitions" | "items" => parent,
        _ if last.is_empty() => "false",
        _ => last,
    }
}

/// `n` is a whole multiple of `m` (within the rounding of a decimal fraction in binary).
fn is_multiple(n: f64, m: f64) -> bool {
    let q = n / m;
    if !q.is_finite() {
        return false;
    }
    (q - q.round()).abs() <= q.abs().max(1.0) * 1e-12
}

/// No two items are equal: up to 16 compared pairwise, more in linear time, each item's
/// canonical text going into a set.
fn unique(inst: &dyn Instance) -> bool {
    let len = inst.len();
    // A few items are compared pairwise, with no text built for each (most arrays under
    // `uniqueItems` are short lists of names).
    if len <= 16 {
        return (1..len).all(|j| {
            let Some(b) = inst.item(j) else {
                return true;
            };
            (0..j).all(|i| inst.item(i).is_none_or(|a| !equal(a, b)))
        });
    }
    let mut set = HashSet::with_capacity(inst.len());
    (0..inst.len()).all(|i| {
        let mut text = String::new();
        if let Some(item) = inst.item(i) {
            canonical(item, &mut text);
        }
        set.insert(text)
    })
}

/// A text that is the same for equal values: numbers by value, object keys sorted.
fn canonical(inst: &dyn Instance, out: &mut String) {
    match inst.kind() {
        Kind::Null => out.push('n'),
        Kind::Boolean => out.push(if inst.as_bool() == Some(true) {
            't'
        } else {
            'f'
        }),
        Kind::Number => {
            out.push('#');
            out.push_str(&inst.as_f64().unwrap_or(f64::NAN).to_string());
        }
        Kind::String => {
            out.push_str(&Value::String(inst.as_str().unwrap_or("").to_owned()).to_string());
        }
        Kind::Array => {
            out.push('[');
            for i in 0..inst.len() {
                if let Some(item) = inst.item(i) {
                    canonical(item, out);
                }
                out.push(',');
            }
            out.push(']');
        }
        Kind::Object => {
            let mut entries = Vec::new();
            inst.properties(&mut |key, value| {
                let mut text = Value::String(key.to_owned()).to_string();
                text.push(':');
                canonical(value, &mut text);
                entries.push(text);
            });
            entries.sort();
            out.push('{');
            out.push_str(&entries.join(","));
            out.push('}');
        }
    }
}
