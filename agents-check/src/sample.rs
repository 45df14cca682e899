//! Values a schema accepts, made from its compiled rules: what a service stand-in answers for a
//! template or a research question.
//!
//! A value is made for every schema it must meet at once — a property's own schema, the
//! `patternProperties` its name matches, what references and `allOf` bring, the branch of
//! `anyOf`/`oneOf` and the side of `if` chosen — honouring the keywords that say what a value
//! is: `type`, `const`/`enum`, bounds and `multipleOf`, lengths and `pattern` (a string drawn
//! from the expression itself), `format`, counts, `required`, `properties`, `propertyNames`,
//! `contains`, `uniqueItems`, and of a `not` the kinds of value its schema can fail. Then the
//! value is checked against those schemas; one that breaks a rule no maker honours (the rest of
//! a `not`, `oneOf` matching two branches, …) is made again with the next choices, a bounded
//! number of times. A `$dynamicRef` lands where the check lands it, in the dynamic scope gathered
//! on the way. Where the schema leaves a value free, [`Leaves`] decides what it looks like. The
//! same schema and seed give the same value.

use std::collections::HashSet;
use std::mem::take;

use rand::SeedableRng;
use rand::distr::Distribution;
use regex_syntax::hir::{Class, ClassUnicode, ClassUnicodeRange, Hir, HirKind};
use serde_json::{Map, Number, Value};

use crate::check::Eval;
use crate::compile::{Compiled, Dynamic, Keywords, Node, NodeId};
use crate::instance::equal;

/// What a value looks like where the schema leaves it free.
pub trait Leaves {
    /// The seed of a part of a value (a property by its name, an item by its position) from
    /// the seed of the whole.
    fn mix(&self, seed: u64, part: &str) -> u64;
    /// Text for a value named `name` (the nearest property's name).
    fn text(&self, name: &str, seed: u64) -> String;
    /// A string in `format` for `name`; `None` for a format this does not make.
    fn formatted(&self, format: &str, name: &str, seed: u64) -> Option<String>;
    /// Where a number named `name` lies when the schema gives no bounds, and how many steps a
    /// unit has (`1.0`: whole numbers, `100.0`: cents).
    fn range(&self, name: &str) -> (f64, f64, f64);
    /// Items in an array whose schema does not say how many.
    fn array_len(&self) -> usize {
        ARRAY_LEN
    }
}

/// How many items an array has when its schema does not say.
pub const ARRAY_LEN: usize = 3;

/// How many times a value that breaks its schema is made again.
const ATTEMPTS: u64 = 8;

/// How many references one value follows in all: past it, optional parts behind a reference are
/// left out, so a value grows with the schema, not with the paths through it.
const MAX_REFS: usize = 512;

/// How many values one sample makes, retries included, before it stops retrying.
const MAX_WORK: usize = 200_000;

/// The schemas a value must meet at once, with what the choices made brought in.
#[derive(Default)]
struct Gathered<'c> {
    keywords: Vec<&'c Keywords>,
    /// A `false` schema is among them: no value meets them.
    never: bool,
    /// A reference was not followed (recursion, or the budget spent).
    cut: bool,
    /// The dynamic scope the value's parts are made in: the resources around this value, then
    /// those its schemas entered, outermost first.
    scope: Vec<usize>,
}

pub(crate) struct Sampler<'c> {
    compiled: &'c Compiled,
    leaves: &'c dyn Leaves,
    refs: usize,
    work: usize,
    /// Values `make` returned that do not meet their schemas (none could be made that did).
    unmet: usize,
    /// The resources the value being made is inside, outermost first, as the check keeps them:
    /// where a `$dynamicRef` lands.
    scope: Vec<usize>,
}

impl<'c> Sampler<'c> {
    pub(crate) fn new(compiled: &'c Compiled, leaves: &'c dyn Leaves) -> Self {
        Sampler {
            compiled,
            leaves,
            refs: 0,
            work: 0,
            unmet: 0,
            scope: Vec::new(),
        }
    }

    pub(crate) fn root(&mut self, seed: u64) -> Value {
        let root = self.compiled.root;
        self.make(&[root], "answer", seed, &mut Vec::new(), true)
            .unwrap_or(Value::Null)
    }

    fn valid(&self, nodes: &[NodeId], value: &Value) -> bool {
        nodes.iter().all(|id| {
            Eval::new(self.compiled, None)
                .within(&self.scope)
                .passes(*id, value)
        })
    }

    /// A value meeting every schema of `nodes`, named `name`; `None` when none can be made or,
    /// for an optional part (`must` false), when it would only recurse.
    fn make(
        &mut self,
        nodes: &[NodeId],
        name: &str,
        seed: u64,
        stack: &mut Vec<NodeId>,
        must: bool,
    ) -> Option<Value> {
        let mut first = None;
        for attempt in 0..ATTEMPTS {
            let mark = stack.len();
            let mut gathered = self.gather(nodes, attempt, stack, must);
            if gathered.never || (gathered.cut && !must) {
                stack.truncate(mark);
                if gathered.cut && !must {
                    return None;
                }
                continue;
            }
            self.work += 1;
            let seed = if attempt == 0 {
                seed
            } else {
                self.leaves.mix(seed, &format!("attempt {attempt}"))
            };
            let ks = &gathered.keywords;
            let unmet = self.unmet;
            let (value, settled) = match self.pick(ks, seed, attempt) {
                Some(named) => (named, false),
                None => {
                    let outer = std::mem::replace(&mut self.scope, take(&mut gathered.scope));
                    let value = self.build(ks, name, seed, attempt, stack);
                    self.scope = outer;
                    (
                        value,
                        ks.iter().all(|k| k.only_parts) && self.unmet == unmet,
                    )
                }
            };
            stack.truncate(mark);
            // A value whose recursion was cut is as good as it gets; one built for keywords that
            // only name its parts is valid when each part is.
            if gathered.cut || settled || self.valid(nodes, &value) {
                return Some(value);
            }
            first.get_or_insert(value);
            if self.work > MAX_WORK {
                break;
            }
        }
        if first.is_some() {
            self.unmet += 1;
        }
        first
    }

    /// Whether the reference to `target` is followed from here.
    fn follows(&self, target: NodeId, stack: &[NodeId], must: bool) -> bool {
        let entered = stack.iter().filter(|t| **t == target).count();
        let spent = self.refs >= MAX_REFS;
        // A required part follows what it has not entered yet whatever was spent: without it
        // the value could not be valid.
        (must && entered == 0 && self.work < MAX_WORK)
            || (entered < if must { 3 } else { 2 } && !spent)
    }

    /// `nodes` with what their references, `allOf`, `dependentSchemas` and the choices of
    /// attempt `choice` bring: the `choice`-th branch of each `anyOf`/`oneOf` (branches that
    /// allow only `null` last), the `then` side of an `if` on even attempts, `else` on odd ones.
    fn gather(
        &mut self,
        nodes: &[NodeId],
        choice: u64,
        stack: &mut Vec<NodeId>,
        must: bool,
    ) -> Gathered<'c> {
        let compiled = self.compiled;
        let mut out = Gathered {
            scope: self.scope.clone(),
            ..Gathered::default()
        };
        // Breadth first: a schema's keywords before those it brings in, in the order written.
        // A queue read from the front, which also says what was visited: a value meets a few
        // schemas at once, so a scan is cheaper than hashing. Beside each entry, the entry that
        // brought it in: the path a `$dynamicRef` looks along.
        let mut todo: Vec<NodeId> = nodes.to_vec();
        let mut from: Vec<Option<usize>> = vec![None; todo.len()];
        let mut next = 0;
        let mut point = 0u64;
        while let Some(&id) = todo.get(next) {
            let at = next;
            next += 1;
            if todo[..at].contains(&id) {
                continue;
            }
            let k = match &compiled.nodes[id] {
                Node::Always | Node::Pending => continue,
                Node::Never(..) => {
                    out.never = true;
                    continue;
                }
                Node::Keywords(k) => k,
            };
            out.keywords.push(k);
            if let Some(r) = k.resource
                && !out.scope.contains(&r)
            {
                out.scope.push(r);
            }
            let targets = k.reference.into_iter().chain(
                k.dynamic
                    .as_ref()
                    .map(|d| self.dynamic_target(d, &todo, &from, at)),
            );
            for target in targets {
                if self.follows(target, stack, must) {
                    self.refs += 1;
                    stack.push(target);
                    todo.push(target);
                } else {
                    out.cut = true;
                }
            }
            todo.extend(k.all_of.iter().copied());
            todo.extend(k.dependent_schemas.iter().map(|(_, id)| *id));
            for branches in [&k.any_of, &k.one_of] {
                if branches.is_empty() {
                    continue;
                }
                let mut order: Vec<NodeId> = branches.clone();
                order.sort_by_key(|b| self.only_null(*b));
                let pick = order[((choice + point) % order.len() as u64) as usize];
                point += 1;
                todo.push(pick);
            }
            if let Some(if_) = k.if_ {
                if (choice + point).is_multiple_of(2) {
                    todo.push(if_);
                    todo.extend(k.then);
                } else {
                    todo.extend(k.else_);
                }
                point += 1;
            }
            from.resize(todo.len(), Some(at));
        }
        out
    }

    /// Where the `$dynamicRef` `d` of entry `at` of a gathering lands: the outermost resource
    /// of its dynamic scope (the resources around the value, then those entered on the way to
    /// `at`) with a `$dynamicAnchor` of its name, else its static target.
    fn dynamic_target(
        &self,
        d: &Dynamic,
        todo: &[NodeId],
        from: &[Option<usize>],
        at: usize,
    ) -> NodeId {
        let Some(name) = &d.anchor else {
            return d.target;
        };
        let mut path = Vec::new();
        let mut i = Some(at);
        while let Some(entry) = i {
            if let Node::Keywords(k) = &self.compiled.nodes[todo[entry]]
                && let Some(r) = k.resource
            {
                path.push(r);
            }
            i = from[entry];
        }
        self.scope
            .iter()
            .chain(path.iter().rev())
            .find_map(|r| self.compiled.resources[*r].dynamic_anchors.get(name))
            .copied()
            .unwrap_or(d.target)
    }

    /// The kinds of value that can fail node `id`: one of any other kind meets it, whatever it
    /// holds. Kept wide where unsure (a value matching two `oneOf` branches, a nested `not`, a
    /// `$dynamicRef`, deep references): what it leaves out must never be able to fail.
    fn breakable(&self, id: NodeId, depth: usize) -> u8 {
        let k = match &self.compiled.nodes[id] {
            Node::Always => return 0,
            Node::Never(..) | Node::Pending => return ALL_KINDS,
            Node::Keywords(k) => k,
        };
        if depth > 16
            || k.constant.is_some()
            || k.enumeration.is_some()
            || k.not.is_some()
            || k.dynamic.is_some()
            || !k.one_of.is_empty()
        {
            return ALL_KINDS;
        }
        let mut bits = k.types.map_or(0, |t| ALL_KINDS & !t.kinds());
        if !k.properties.is_empty()
            || !k.required.is_empty()
            || !k.dependent_required.is_empty()
            || !k.dependent_schemas.is_empty()
            || !k.pattern_properties.is_empty()
            || k.additional_properties.is_some()
            || k.unevaluated_properties.is_some()
            || k.property_names.is_some()
            || k.min_properties.is_some()
            || k.max_properties.is_some()
        {
            bits |= KIND_OBJECT;
        }
        if !k.prefix_items.is_empty()
            || k.items.is_some()
            || k.contains.is_some()
            || k.unevaluated_items.is_some()
            || k.min_items.is_some()
            || k.max_items.is_some()
            || k.unique_items
        {
            bits |= KIND_ARRAY;
        }
        if k.pattern.is_some() || k.min_length.is_some() || k.max_length.is_some() {
            bits |= KIND_STRING;
        }
        if k.minimum.is_some()
            || k.maximum.is_some()
            || k.exclusive_minimum.is_some()
            || k.exclusive_maximum.is_some()
            || k.multiple_of.is_some()
        {
            bits |= KIND_NUMBER | KIND_INTEGER;
        }
        for sub in k
            .reference
            .iter()
            .chain(&k.all_of)
            .chain(&k.then)
            .chain(&k.else_)
        {
            bits |= self.breakable(*sub, depth + 1);
        }
        // A value fails `anyOf` only where it fails every branch.
        if !k.any_of.is_empty() {
            bits |= k
                .any_of
                .iter()
                .fold(ALL_KINDS, |all, b| all & self.breakable(*b, depth + 1));
        }
        bits
    }

    fn only_null(&self, id: NodeId) -> bool {
        matches!(&self.compiled.nodes[id], Node::Keywords(k)
            if k.types.is_some_and(|t| t.kinds() == KIND_NULL))
    }

    /// A value the schemas `ks` name: their `const`, one of their `enum`, or on the first
    /// attempt one of their `examples`.
    fn pick(&self, ks: &[&'c Keywords], seed: u64, attempt: u64) -> Option<Value> {
        if let Some(c) = ks.iter().find_map(|k| k.constant.as_ref()) {
            return Some(c.clone());
        }
        if let Some(list) = ks.iter().find_map(|k| k.enumeration.as_ref()) {
            let fits: Vec<&Value> = list
                .iter()
                .filter(|v| {
                    ks.iter().all(|k| {
                        k.enumeration
                            .as_ref()
                            .is_none_or(|l| l.iter().any(|x| equal(x, *v)))
                    })
                })
                .collect();
            // `null` is a value a page shows last.
            let pick = fits
                .iter()
                .filter(|v| !v.is_null())
                .chain(fits.iter().filter(|v| v.is_null()))
                .nth(((seed + attempt) % fits.len().max(1) as u64) as usize);
            if let Some(v) = pick {
                return Some((*v).clone());
            }
        }
        if attempt == 0 {
            return ks.iter().find_map(|k| self.example(k, seed));
        }
        None
    }

    /// A value for the schemas `ks`, made kind by kind.
    fn build(
        &mut self,
        ks: &[&'c Keywords],
        name: &str,
        seed: u64,
        attempt: u64,
        stack: &mut Vec<NodeId>,
    ) -> Value {
        let allowed = ks
            .iter()
            .filter_map(|k| k.types)
            .fold(ALL_KINDS, |bits, t| bits & t.kinds());
        // Under `not`, only a value of a kind its schema can fail can be valid.
        let breaking = ks
            .iter()
            .filter_map(|k| k.not)
            .fold(ALL_KINDS, |bits, n| bits & self.breakable(n, 0));
        let allowed = if allowed & breaking != 0 {
            allowed & breaking
        } else {
            allowed
        };
        let allows = |bit: u8| allowed & bit != 0;
        // The kinds the keywords describe, before the others (at most seven, on the stack: a
        // value is made for every leaf).
        let mut order = [0u8; 12];
        let mut len = 0;
        let mut push = |bit: u8| {
            order[len] = bit;
            len += 1;
        };
        let has = |f: &dyn Fn(&Keywords) -> bool| ks.iter().any(|k| f(k));
        if has(&|k| {
            !k.properties.is_empty()
                || !k.required.is_empty()
                || !k.pattern_properties.is_empty()
                || k.min_properties.is_some()
                || k.additional_properties.is_some()
        }) {
            push(KIND_OBJECT);
        }
        if has(&|k| {
            k.items.is_some()
                || !k.prefix_items.is_empty()
                || k.contains.is_some()
                || k.min_items.is_some()
        }) {
            push(KIND_ARRAY);
        }
        if has(&|k| k.pattern.is_some() || k.min_length.is_some() || k.max_length.is_some()) {
            push(KIND_STRING);
        }
        if has(&|k| {
            k.minimum.is_some()
                || k.maximum.is_some()
                || k.exclusive_minimum.is_some()
                || k.exclusive_maximum.is_some()
                || k.multiple_of.is_some()
        }) {
            push(KIND_NUMBER);
            push(KIND_INTEGER);
        }
        for bit in [
            KIND_STRING,
            KIND_NUMBER,
            KIND_INTEGER,
            KIND_BOOLEAN,
            KIND_OBJECT,
            KIND_ARRAY,
            KIND_NULL,
        ] {
            push(bit);
        }
        let mut kinds = [0u8; 7];
        let mut count = 0;
        for &bit in &order[..len] {
            if allows(bit) && !kinds[..count].contains(&bit) {
                kinds[count] = bit;
                count += 1;
            }
        }
        let kinds = &kinds[..count];
        let Some(&kind) = kinds.get((attempt as usize / 2) % kinds.len().max(1)) else {
            return Value::Null;
        };
        match kind {
            KIND_OBJECT => self.object(ks, name, seed, stack),
            KIND_ARRAY => self.array(ks, name, seed, stack),
            KIND_STRING => Value::String(self.string(ks, name, seed, attempt)),
            KIND_NUMBER => self.number(ks, name, seed, !allows(KIND_NUMBER)),
            KIND_INTEGER => self.number(ks, name, seed, true),
            KIND_BOOLEAN => Value::Bool(seed.is_multiple_of(2)),
            _ => Value::Null,
        }
    }

    /// One of the schema's `examples` that is not `null`.
    fn example(&self, k: &Keywords, seed: u64) -> Option<Value> {
        let list = k.examples.as_ref()?;
        let pick = list.get((seed % list.len().max(1) as u64) as usize)?;
        (!pick.is_null()).then(|| pick.clone())
    }

    fn format(&self, k: &'c Keywords) -> Option<&'c str> {
        k.format.as_deref()
    }

    /// The schemas the property `key` must meet in an object of `ks`.
    fn property_nodes(ks: &[&Keywords], key: &str) -> Vec<NodeId> {
        // `unevaluatedProperties` takes only keys no schema of the value evaluates.
        let evaluated = || {
            ks.iter().any(|k| {
                k.properties.iter().any(|(name, _)| name == key)
                    || k.pattern_properties.iter().any(|(p, _)| p.is_match(key))
                    || k.additional_properties.is_some()
            })
        };
        let mut nodes = Vec::new();
        for k in ks {
            if let Some((_, id)) = k.properties.iter().find(|(name, _)| name == key) {
                nodes.push(*id);
                continue;
            }
            let before = nodes.len();
            nodes.extend(
                k.pattern_properties
                    .iter()
                    .filter(|(p, _)| p.is_match(key))
                    .map(|(_, id)| *id),
            );
            if nodes.len() == before {
                let rest = match k.additional_properties {
                    Some(a) => Some(a),
                    None if !evaluated() => k.unevaluated_properties,
                    None => None,
                };
                nodes.extend(rest);
            }
        }
        nodes
    }

    fn object(
        &mut self,
        ks: &[&'c Keywords],
        name: &str,
        seed: u64,
        stack: &mut Vec<NodeId>,
    ) -> Value {
        let mut keys: Vec<&str> = Vec::new();
        let mut seen: HashSet<&str> = HashSet::new();
        for k in ks {
            for key in k
                .properties
                .iter()
                .map(|(key, _)| key.as_str())
                .chain(k.required.iter().map(String::as_str))
            {
                if seen.insert(key) {
                    keys.push(key);
                }
            }
        }
        let required: HashSet<&str> = ks
            .iter()
            .flat_map(|k| k.required.iter().map(String::as_str))
            .collect();
        let mut out = Map::new();
        for key in &keys {
            let nodes = Self::property_nodes(ks, key);
            let must = required.contains(key);
            if let Some(v) = self.make(&nodes, key, self.leaves.mix(seed, key), stack, must) {
                out.insert((*key).to_owned(), v);
            }
        }
        // Properties other properties require.
        for k in ks {
            for (present, needed) in &k.dependent_required {
                if !out.contains_key(present) {
                    continue;
                }
                for key in needed {
                    if out.contains_key(key) {
                        continue;
                    }
                    let nodes = Self::property_nodes(ks, key);
                    let v = self.make(&nodes, key, self.leaves.mix(seed, key), stack, true);
                    out.insert(key.clone(), v.unwrap_or(Value::Null));
                }
            }
        }
        // A map (no named properties) shows two entries; any object at least its minimum.
        let fewest = ks
            .iter()
            .filter_map(|k| k.min_properties)
            .max()
            .unwrap_or(0) as usize;
        let wanted = if keys.is_empty() {
            fewest.max(2)
        } else {
            fewest
        };
        let names: Vec<NodeId> = ks.iter().filter_map(|k| k.property_names).collect();
        let mut tried = 0;
        while out.len() < wanted && tried < wanted * 4 + 4 {
            let key = self.map_key(
                ks,
                &names,
                name,
                self.leaves.mix(seed, &format!("key {tried}")),
                tried,
            );
            tried += 1;
            if out.contains_key(&key) {
                continue;
            }
            let nodes = Self::property_nodes(ks, &key);
            let value_name = if keys.is_empty() && tried <= 2 {
                key.clone()
            } else {
                name.to_owned()
            };
            if let Some(v) = self.make(
                &nodes,
                &value_name,
                self.leaves.mix(seed, &key),
                stack,
                out.len() < fewest,
            ) {
                out.insert(key, v);
            }
        }
        if let Some(most) = ks.iter().filter_map(|k| k.max_properties).min() {
            let drop: Vec<String> = out
                .keys()
                .rev()
                .filter(|k| !required.contains(k.as_str()))
                .take(out.len().saturating_sub(most as usize))
                .cloned()
                .collect();
            for key in drop {
                out.remove(&key);
            }
        }
        Value::Object(out)
    }

    /// A key for a map entry: drawn from a `patternProperties` expression or `propertyNames`
    /// when the schema has them, else `key`, `other_key`, `key_3`, …
    fn map_key(
        &mut self,
        ks: &[&Keywords],
        names: &[NodeId],
        name: &str,
        seed: u64,
        n: usize,
    ) -> String {
        let patterns: Vec<&str> = ks
            .iter()
            .flat_map(|k| k.pattern_properties.iter().map(|(p, _)| p.as_str()))
            .collect();
        let closed = ks.iter().any(|k| {
            k.additional_properties
                .is_some_and(|a| matches!(self.compiled.nodes[a], Node::Never(..)))
        });
        if !names.is_empty() {
            let mut stack = Vec::new();
            if let Some(Value::String(s)) = self.make(names, name, seed, &mut stack, true) {
                return s;
            }
        }
        if (closed || n % 2 == 1) && !patterns.is_empty() {
            let pattern = patterns[n / 2 % patterns.len()];
            if let Some(s) = from_pattern(pattern, seed) {
                return s;
            }
        }
        match n {
            0 => "key".to_owned(),
            1 => "other_key".to_owned(),
            _ => format!("key_{}", n + 1),
        }
    }

    fn array(
        &mut self,
        ks: &[&'c Keywords],
        name: &str,
        seed: u64,
        stack: &mut Vec<NodeId>,
    ) -> Value {
        let fewest = ks.iter().filter_map(|k| k.min_items).max().unwrap_or(0) as usize;
        let most = ks
            .iter()
            .filter_map(|k| k.max_items)
            .min()
            .map(|m| m as usize);
        // A tuple whose other items are `false` ends after its prefix.
        let closed = ks
            .iter()
            .filter(|k| {
                k.items
                    .is_some_and(|i| matches!(self.compiled.nodes[i], Node::Never(..)))
            })
            .map(|k| k.prefix_items.len())
            .min();
        // Items past every prefix that `unevaluatedItems: false` leaves unevaluated (no `items`
        // or `contains` of the value takes them) end the array too.
        let never = |id: Option<NodeId>| {
            id.is_some_and(|i| matches!(self.compiled.nodes[i], Node::Never(..)))
        };
        let unevaluated_closed = ks.iter().any(|k| never(k.unevaluated_items))
            && ks.iter().all(|k| k.items.is_none() && k.contains.is_none());
        let closed = if unevaluated_closed {
            let prefix = ks.iter().map(|k| k.prefix_items.len()).max().unwrap_or(0);
            Some(closed.map_or(prefix, |c| c.min(prefix)))
        } else {
            closed
        };
        let mut len = self.leaves.array_len().max(fewest);
        if let Some(m) = most {
            len = len.min(m);
        }
        if let Some(c) = closed {
            len = len.min(c.max(fewest));
        }
        let contains: Vec<NodeId> = ks.iter().filter_map(|k| k.contains).collect();
        let containing = if contains.is_empty() {
            0
        } else {
            ks.iter().filter_map(|k| k.min_contains).max().unwrap_or(1) as usize
        };
        let unique = ks.iter().any(|k| k.unique_items);
        let mut items: Vec<Value> = Vec::with_capacity(len);
        let mut tries = 0;
        while items.len() < len && tries < len * 4 + 4 {
            let i = items.len();
            let mut nodes: Vec<NodeId> = ks
                .iter()
                .filter_map(|k| k.prefix_items.get(i).copied().or(k.items))
                .collect();
            if i < containing {
                nodes.extend(&contains);
            }
            let part = if tries == i {
                i.to_string()
            } else {
                format!("{i} {tries}")
            };
            tries += 1;
            let Some(v) = self.make(
                &nodes,
                name,
                self.leaves.mix(seed, &part),
                stack,
                i < fewest,
            ) else {
                break;
            };
            if unique && items.iter().any(|x| equal(x, &v)) {
                continue;
            }
            items.push(v);
        }
        Value::Array(items)
    }

    fn string(&self, ks: &[&Keywords], name: &str, seed: u64, attempt: u64) -> String {
        let patterns: Vec<_> = ks.iter().filter_map(|k| k.pattern.as_ref()).collect();
        let fits = |s: &String| patterns.iter().all(|p| p.is_match(s));
        let format = ks.iter().find_map(|k| self.format(k));
        let text = || {
            let text = self.leaves.text(name, seed);
            // Later attempts try plainer text, for a `not` that forbids spaces or marks.
            match attempt {
                0 | 1 => text,
                2 | 3 => text
                    .chars()
                    .map(|c| if c.is_alphanumeric() { c } else { '-' })
                    .collect(),
                _ => text.chars().filter(|c| c.is_alphanumeric()).collect(),
            }
        };
        // The format's own shape when the patterns allow it, else drawn from a pattern.
        let formatted = format
            .and_then(|f| self.leaves.formatted(f, name, seed))
            .filter(fits);
        let made = formatted
            .or_else(|| {
                patterns
                    .first()
                    .and_then(|p| from_pattern(p.as_str(), seed))
            })
            .unwrap_or_else(text);
        let fewest = ks.iter().filter_map(|k| k.min_length).max().unwrap_or(0) as usize;
        let most = ks
            .iter()
            .filter_map(|k| k.max_length)
            .min()
            .map(|m| m as usize);
        if fewest == 0 && most.is_none() {
            return made;
        }
        let mut chars: Vec<char> = made.chars().collect();
        if let Some(m) = most {
            chars.truncate(m);
        }
        while chars.len() < fewest {
            chars.push(chars.last().copied().unwrap_or('x'));
        }
        chars.into_iter().collect()
    }

    fn number(&self, ks: &[&Keywords], name: &str, seed: u64, integer: bool) -> Value {
        let max = |f: fn(&Keywords) -> Option<f64>| ks.iter().filter_map(|k| f(k)).reduce(f64::max);
        let min = |f: fn(&Keywords) -> Option<f64>| ks.iter().filter_map(|k| f(k)).reduce(f64::min);
        let (lo, x_lo) = (max(|k| k.minimum), max(|k| k.exclusive_minimum));
        let (hi, x_hi) = (min(|k| k.maximum), min(|k| k.exclusive_maximum));
        let multiple = max(|k| k.multiple_of.filter(|m| *m > 0.0));
        let (free_lo, free_hi, steps) = self.leaves.range(name);
        let lower = match (lo, x_lo) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
        let upper = match (hi, x_hi) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        let (mut lo, mut hi) = match (lower, upper) {
            (None, None) => (free_lo, free_hi),
            (Some(l), None) => (l, free_hi.max(l + (free_hi - free_lo).max(1.0))),
            (None, Some(h)) => (free_lo.min(h - (free_hi - free_lo).max(1.0)), h),
            (Some(l), Some(h)) => (l, h),
        };
        // Exclusive bounds: a hundredth of the range inside them.
        let step = ((hi - lo).abs() / 100.0).max(f64::EPSILON);
        if x_lo.is_some_and(|x| lo <= x) {
            lo += step;
        }
        if x_hi.is_some_and(|x| hi >= x) {
            hi -= step;
        }
        let hi = hi.max(lo);
        let value = if integer {
            let (lo, hi) = (lo.ceil() as i64, hi.floor() as i64);
            let span = (hi - lo).max(0) as u64 + 1;
            let v = lo + (seed % span) as i64;
            match multiple.filter(|m| *m >= 1.0 && m.fract() == 0.0) {
                Some(m) => {
                    let m = m as i64;
                    let up = v + (m - v.rem_euclid(m)) % m;
                    (if up > hi { up - m } else { up }) as f64
                }
                None => v as f64,
            }
        } else {
            let at = (seed % 10_000) as f64 / 10_000.0;
            let v = (((lo + (hi - lo) * at) * steps).round() / steps).clamp(lo, hi);
            match multiple {
                // The multiple nearest inside the bounds.
                Some(m) => {
                    let k = (v / m).round();
                    let k = if k * m > hi {
                        k - 1.0
                    } else if k * m < lo {
                        k + 1.0
                    } else {
                        k
                    };
                    // As many decimals as the multiple has: 3 × 0.01 is 0.03, not 0.030…02.
                    let places = format!("{m}").split('.').nth(1).map_or(0, str::len);
                    let scale = 10f64.powi(places.min(15) as i32);
                    (k * m * scale).round() / scale
                }
                None => v,
            }
        };
        if integer {
            Value::Number(Number::from(value as i64))
        } else {
            Number::from_f64(value).map_or(Value::Null, Value::Number)
        }
    }
}

/// A string matching `pattern`, drawn by its parts; `None` for an expression the drawer does
/// not read (look-arounds, back-references).
fn from_pattern(pattern: &str, seed: u64) -> Option<String> {
    let hir = regex_syntax::ParserBuilder::new()
        .build()
        .parse(pattern)
        .ok()?;
    let regex = rand_regex::Regex::with_hir(drawable(hir), 6).ok()?;
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    Some(regex.sample(&mut rng))
}

/// `hir` as the drawer takes it: anchors and other assertions dropped (what is drawn is the
/// whole string, so `^` and `$` hold), and classes kept to printable ASCII where they have any
/// (JSON Schema's `\d` and `\w` are ASCII; a Unicode digit would not match them).
fn drawable(hir: Hir) -> Hir {
    match hir.into_kind() {
        HirKind::Look(_) | HirKind::Empty => Hir::empty(),
        HirKind::Literal(literal) => Hir::literal(literal.0),
        HirKind::Class(Class::Unicode(class)) => {
            let mut ascii = ClassUnicode::new([ClassUnicodeRange::new(' ', '~')]);
            ascii.intersect(&class);
            let ranges = ascii.ranges().len();
            Hir::class(Class::Unicode(if ranges == 0 { class } else { ascii }))
        }
        HirKind::Class(class) => Hir::class(class),
        HirKind::Repetition(mut repetition) => {
            repetition.sub = Box::new(drawable(*repetition.sub));
            Hir::repetition(repetition)
        }
        HirKind::Capture(mut capture) => {
            capture.sub = Box::new(drawable(*capture.sub));
            Hir::capture(capture)
        }
        HirKind::Concat(parts) => Hir::concat(parts.into_iter().map(drawable).collect()),
        HirKind::Alternation(parts) => Hir::alternation(parts.into_iter().map(drawable).collect()),
    }
}

const KIND_NULL: u8 = 1;
const KIND_BOOLEAN: u8 = 1 << 1;
const KIND_NUMBER: u8 = 1 << 2;
const KIND_STRING: u8 = 1 << 3;
const KIND_ARRAY: u8 = 1 << 4;
const KIND_OBJECT: u8 = 1 << 5;
const KIND_INTEGER: u8 = 1 << 6;
const ALL_KINDS: u8 = 0x7f;
