//! The order a schema gives its instances' keys, worked out once per place.
//!
//! A record read into a `serde_json::Value` has its keys sorted; shown or written, it reads as
//! its type does when its keys follow the schema's `properties`. Which schemas apply to a value
//! (through `$ref`s and `allOf`/`anyOf`/`oneOf`, into items and members) depends only on where
//! the value stands, so each such place is read from the schema once, the first time a value
//! stands there, and kept: a batch of 10,000 records does not walk the schema 10,000 times.
//! Places are read when reached, not all at first: a schema whose branches combine describes
//! far more places than it has subschemas (renovate's configuration schema is one), of which a
//! record reaches a few.

use std::collections::HashMap;

use indexmap::IndexMap;
use serde_json::Value;

use agents_check::path::pointer_to;

use crate::json::Json;

/// Most schemas one place is ordered by (what its `$ref`s and branches reach): a bound on the
/// work per place whatever a schema's references do.
const MOST_SCHEMAS: usize = 32;

/// How many entries (places, members and first items placed) the table may hold for each value
/// of the schema, beyond [`LEAST_ROOM`]: what strangers' records make it read stays within a
/// multiple of the schema's size, and values at places past it keep their own order.
const ROOM_PER_VALUE: usize = 4;

/// The room every schema has, however small.
const LEAST_ROOM: usize = 1024;

/// The keywords that place members or items: a place whose schemas have none of them is free.
const ORDERING: [&str; 5] = [
    "properties",
    "additionalProperties",
    "prefixItems",
    "items",
    "additionalItems",
];

/// The place no schema orders: keys keep the order the value has.
const FREE: usize = 0;

/// The order `schema` gives the keys of its instances: each object's keys in the order its
/// schema lists them (its `properties`, through local `$ref`s and `allOf`/`anyOf`/`oneOf`
/// branches, into items and members), the keys it does not list after them in the value's own
/// order.
///
/// Made once per schema and used for every value, as `cargo agents batch` does for each row:
/// each place a value reaches is read from the schema once.
///
/// ```
/// use agents_schema::{Json, SchemaOrder};
/// let schema: Json = serde_json::from_str(
///     r##"{"properties": {"title": {}, "offers": {"items": {"$ref": "#/$defs/offer"}}},
///         "$defs": {"offer": {"properties": {"seller": {}, "price": {}}}}}"##,
/// ).unwrap();
/// let mut order = SchemaOrder::new(&schema);
/// let record = serde_json::json!({"offers": [{"price": 3, "seller": "s"}], "extra": 1, "title": "t"});
/// assert_eq!(
///     order.arrange(&record).to_string(),
///     r#"{"title":"t","offers":[{"seller":"s","price":3}],"extra":1}"#
/// );
/// ```
#[derive(Debug, Clone)]
pub struct SchemaOrder {
    schema: Json,
    table: Table,
    root: usize,
}

/// The places read so far.
#[derive(Debug, Clone)]
struct Table {
    places: Vec<Place>,
    /// Each place by the JSON pointers of the schemas named for it.
    known: HashMap<Vec<String>, usize>,
    /// The entries the table may still make.
    room: usize,
}

/// Where the members and items of a value at one place go.
#[derive(Debug, Clone)]
enum Place {
    /// Not reached by a value yet: the pointers of the schemas named for it.
    Unread(Vec<String>),
    Read {
        /// The keys the applying schemas list, the first to list each placing it, each with
        /// the place of its value.
        listed: IndexMap<String, usize>,
        /// The place of a member no schema lists (`additionalProperties`).
        other: usize,
        /// The places of the first items (`prefixItems`, or draft 7's `items` as a list).
        first: Vec<usize>,
        /// The place of every later item.
        rest: usize,
    },
}

impl Place {
    fn free() -> Place {
        Place::Read {
            listed: IndexMap::new(),
            other: FREE,
            first: Vec::new(),
            rest: FREE,
        }
    }
}

impl SchemaOrder {
    /// The order of `schema`'s instances. References are followed within `schema` (its
    /// `#` fragments); one that reaches nowhere adds nothing.
    pub fn new(schema: &Json) -> SchemaOrder {
        let mut table = Table {
            places: vec![Place::free()],
            known: HashMap::new(),
            room: LEAST_ROOM.saturating_add(size(schema).saturating_mul(ROOM_PER_VALUE)),
        };
        let root = table.place(vec![String::new()]);
        SchemaOrder {
            schema: schema.clone(),
            table,
            root,
        }
    }

    /// `value` with each object's keys in this order.
    pub fn arrange(&mut self, value: &Value) -> Json {
        self.at(value, self.root)
    }

    fn at(&mut self, value: &Value, at: usize) -> Json {
        if at == FREE {
            return Json::from(value);
        }
        if let Place::Unread(pointers) = &mut self.table.places[at] {
            let pointers = std::mem::take(pointers);
            self.table.places[at] = self.table.read(&self.schema, pointers);
        }
        let Place::Read {
            listed,
            other,
            first,
            rest,
        } = &self.table.places[at]
        else {
            return Json::from(value);
        };
        match value {
            Value::Object(map) => {
                let unlisted = listed.len();
                let mut members: Vec<(usize, &String, &Value, usize)> = map
                    .iter()
                    .enumerate()
                    .map(|(i, (key, member))| match listed.get_full(key) {
                        Some((position, _, &below)) => (position, key, member, below),
                        None => (unlisted + i, key, member, *other),
                    })
                    .collect();
                members.sort_unstable_by_key(|m| m.0);
                Json::Object(
                    members
                        .into_iter()
                        .map(|(_, key, member, below)| (key.clone(), self.at(member, below)))
                        .collect(),
                )
            }
            Value::Array(items) => {
                let places: Vec<usize> = (0..items.len())
                    .map(|i| first.get(i).copied().unwrap_or(*rest))
                    .collect();
                Json::Array(
                    items
                        .iter()
                        .zip(places)
                        .map(|(item, below)| self.at(item, below))
                        .collect(),
                )
            }
            other => Json::from(other),
        }
    }
}

impl Table {
    /// The place of the schemas at `pointers`, made unread when first named.
    fn place(&mut self, pointers: Vec<String>) -> usize {
        if pointers.is_empty() {
            return FREE;
        }
        if let Some(&at) = self.known.get(&pointers) {
            return at;
        }
        if self.room == 0 {
            return FREE;
        }
        self.room -= 1;
        let at = self.places.len();
        self.places.push(Place::Unread(pointers.clone()));
        self.known.insert(pointers, at);
        at
    }

    /// The place of the schemas at `pointers` in `root`, read: its members' and items' places
    /// named (and left unread until a value reaches them).
    fn read(&mut self, root: &Json, pointers: Vec<String>) -> Place {
        let named = pointers
            .into_iter()
            .filter_map(|p| Some((root.pointer(&p)?, p)))
            .collect();
        let schemas = applying(named, root);
        if !schemas
            .iter()
            .any(|(s, _)| ORDERING.iter().any(|k| s.get(k).is_some()))
        {
            return Place::free();
        }
        let mut keys: Vec<&String> = Vec::new();
        for key in schemas
            .iter()
            .filter_map(|(s, _)| s.get("properties")?.as_object())
            .flat_map(IndexMap::keys)
        {
            if !keys.contains(&key) {
                keys.push(key);
            }
        }
        // Past the longest list of first items, every item has the same schemas.
        let longest = schemas
            .iter()
            .flat_map(|(s, _)| [s.get("prefixItems"), s.get("items")])
            .filter_map(|list| list?.as_array().map(<[Json]>::len))
            .max()
            .unwrap_or(0);
        let needed = keys.len() + longest;
        if needed > self.room {
            self.room = 0;
            return Place::free();
        }
        self.room -= needed;
        let listed = keys
            .into_iter()
            .map(|key| {
                let named = schemas
                    .iter()
                    .filter(|(s, _)| s.get("properties").and_then(|p| p.get(key)).is_some())
                    .map(|(_, p)| pointer_to(&pointer_to(p, "properties"), key))
                    .collect();
                (key.clone(), self.place(named))
            })
            .collect();
        let other = self.place(
            schemas
                .iter()
                .filter(|(s, _)| s.get("additionalProperties").is_some())
                .map(|(_, p)| pointer_to(p, "additionalProperties"))
                .collect(),
        );
        let first = (0..longest)
            .map(|i| self.place(item_pointers(&schemas, i)))
            .collect();
        let rest = self.place(item_pointers(&schemas, longest));
        Place::Read {
            listed,
            other,
            first,
            rest,
        }
    }
}

/// The number of values in `json`, counted without recursion (a schema may nest deeper than a
/// thread's stack goes).
fn size(json: &Json) -> usize {
    let mut count = 0;
    let mut todo = vec![json];
    while let Some(value) = todo.pop() {
        count += 1;
        match value {
            Json::Array(items) => todo.extend(items),
            Json::Object(members) => todo.extend(members.values()),
            _ => {}
        }
    }
    count
}

/// The pointers of the schemas among `schemas`' keywords that item `i` of an array has.
fn item_pointers(schemas: &[(&Json, String)], i: usize) -> Vec<String> {
    schemas
        .iter()
        .filter_map(|(s, p)| {
            // Draft 2020-12's `prefixItems` then `items`; draft 7's `items` as a list, then
            // `additionalItems`.
            match (s.get("prefixItems"), s.get("items")) {
                (Some(Json::Array(prefix)), _) if i < prefix.len() => {
                    Some(format!("{p}/prefixItems/{i}"))
                }
                (_, Some(Json::Array(tuple))) if i < tuple.len() => Some(format!("{p}/items/{i}")),
                (_, Some(Json::Array(_))) => s
                    .get("additionalItems")
                    .map(|_| pointer_to(p, "additionalItems")),
                (_, Some(_)) => Some(pointer_to(p, "items")),
                (_, None) => None,
            }
        })
        .collect()
}

/// `schemas` (each with its pointer) and what they reach through local `$ref`s and
/// `allOf`/`anyOf`/`oneOf` (at most [`MOST_SCHEMAS`] in all, each once).
fn applying<'a>(mut schemas: Vec<(&'a Json, String)>, root: &'a Json) -> Vec<(&'a Json, String)> {
    let mut next = 0;
    while next < schemas.len() && schemas.len() < MOST_SCHEMAS {
        let (schema, at) = (schemas[next].0, schemas[next].1.clone());
        next += 1;
        let target = schema
            .get("$ref")
            .and_then(Json::as_str)
            .and_then(|r| r.strip_prefix('#'))
            .map(agents_check::path::percent_decoded)
            .and_then(|pointer| Some((root.pointer(&pointer)?, pointer)));
        let branches = ["allOf", "anyOf", "oneOf"]
            .into_iter()
            .filter_map(|k| Some((k, schema.get(k)?.as_array()?)))
            .flat_map(|(k, list)| {
                let at = &at;
                list.iter()
                    .enumerate()
                    .map(move |(i, s)| (s, format!("{at}/{k}/{i}")))
            });
        for (reached, pointer) in target.into_iter().chain(branches) {
            if schemas.len() < MOST_SCHEMAS
                && !schemas.iter().any(|(s, _)| std::ptr::eq(*s, reached))
            {
                schemas.push((reached, pointer));
            }
        }
    }
    schemas
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json(text: &str) -> Json {
        serde_json::from_str(text).unwrap()
    }

    #[test]
    fn recursion_is_one_place_and_orders_at_any_depth() {
        let schema = json(
            r##"{"$ref": "#/$defs/node", "$defs": {"node": {"properties": {
                "name": {}, "children": {"items": {"$ref": "#/$defs/node"}}}}}}"##,
        );
        let mut order = SchemaOrder::new(&schema);
        let mut value = serde_json::json!({"name": "leaf", "children": []});
        for depth in 0..50 {
            value = serde_json::json!({"children": [value], "name": format!("n{depth}")});
        }
        let text = order.arrange(&value).to_string();
        assert!(
            text.starts_with(r#"{"name":"n49","children":[{"name":"n48","#),
            "{text}"
        );
        assert_eq!(
            order.table.places.len(),
            5,
            "free, the root, a name, children, a child"
        );
    }

    #[test]
    fn tuples_members_and_branches_take_their_own_order() {
        let schema = json(
            r#"{"properties": {"pair": {"prefixItems": [{"properties": {"z": {}, "a": {}}}],
                    "items": {"properties": {"y": {}, "b": {}}}},
                "old": {"items": [{"properties": {"x": {}, "c": {}}}],
                    "additionalItems": {"properties": {"w": {}, "d": {}}}}},
                "additionalProperties": {"properties": {"v": {}, "e": {}}},
                "anyOf": [{"properties": {"u": {}, "f": {}}}]}"#,
        );
        let value = serde_json::json!({
            "f": 1, "u": 2, "more": {"e": 3, "v": 4},
            "pair": [{"a": 1, "z": 2}, {"b": 1, "y": 2}, {"b": 3, "y": 4}],
            "old": [{"c": 1, "x": 2}, {"d": 1, "w": 2}],
        });
        assert_eq!(
            SchemaOrder::new(&schema).arrange(&value).to_string(),
            r#"{"pair":[{"z":2,"a":1},{"y":2,"b":1},{"y":4,"b":3}],"old":[{"x":2,"c":1},{"w":2,"d":1}],"u":2,"f":1,"more":{"v":4,"e":3}}"#
        );
    }

    #[test]
    fn places_are_read_when_reached_and_within_their_bound() {
        // Member j of the root's `allOf` lists every key but `kj`, each leading back to itself:
        // the schemas at `k3.k7.k1` are those not named on the way, so the schema describes
        // 2^18 places.
        let members: Vec<Value> = (0..18)
            .map(|j| {
                let keys: serde_json::Map<String, Value> = (0..18)
                    .filter(|&t| t != j)
                    .map(|t| {
                        let back = serde_json::json!({"$ref": format!("#/allOf/{j}")});
                        (format!("k{t}"), back)
                    })
                    .collect();
                serde_json::json!({ "properties": keys })
            })
            .collect();
        let schema = Json::from(serde_json::json!({ "allOf": members }));
        let mut order = SchemaOrder::new(&schema);
        let value = serde_json::json!({"k3": {"k9": {"k2": 1, "k1": 2}}});
        assert_eq!(
            order.arrange(&value).to_string(),
            r#"{"k3":{"k9":{"k1":2,"k2":1}}}"#
        );
        assert!(
            order.table.places.len() < 100,
            "only the places reached are read"
        );
        // Records that reach ever more places: the table stops at its bound, and their keys
        // past it keep their own order.
        for a in 0..18 {
            for b in 0..18 {
                let mut path = serde_json::json!({"z": 1, "k0": 2});
                for k in [a, b, (a + b) % 18] {
                    path = serde_json::json!({ format!("k{k}"): path });
                }
                order.arrange(&path);
            }
        }
        let entries: usize = order
            .table
            .places
            .iter()
            .map(|p| match p {
                Place::Read { listed, first, .. } => 1 + listed.len() + first.len(),
                Place::Unread(_) => 1,
            })
            .sum();
        assert!(
            entries <= 1 + LEAST_ROOM + size(&schema) * ROOM_PER_VALUE,
            "{entries}"
        );
        assert_eq!(
            order.table.room, 0,
            "the records reached more places than fit"
        );
    }
}
