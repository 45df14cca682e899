//! The order a schema gives its instances' keys, worked out once per schema.
//!
//! A record read into a `serde_json::Value` has its keys sorted; shown or written, it reads as
//! its type does when its keys follow the schema's `properties`. Which schemas apply to a value
//! (through `$ref`s and `allOf`/`anyOf`/`oneOf`, into items and members) depends only on where
//! the value stands, so each such place is a node of a table made from the schema alone, and
//! ordering a value is one hash lookup per key: a batch of 10,000 records does not walk the
//! schema 10,000 times.

use std::collections::{HashMap, VecDeque};

use indexmap::IndexMap;
use serde_json::Value;

use crate::json::Json;

/// Most schemas one place is ordered by (what its `$ref`s and branches reach): a bound on the
/// work per place whatever a schema's references do.
const MOST_SCHEMAS: usize = 32;

/// How many entries (members and first items placed) a table holds for each value of the
/// schema, beyond [`LEAST_ROOM`]. A place is a set of the schema's subschemas, so a schema whose
/// branches combine could make far more places than it has subschemas (2^n for n branches that
/// each leave a different key out); the table stays within a multiple of the schema's size, and
/// the values at places past it keep their own order.
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
/// Made once per schema and used for every value, as `cargo agents batch` does for each row.
///
/// ```
/// use agents_schema::{Json, SchemaOrder};
/// let schema: Json = serde_json::from_str(
///     r##"{"properties": {"title": {}, "offers": {"items": {"$ref": "#/$defs/offer"}}},
///         "$defs": {"offer": {"properties": {"seller": {}, "price": {}}}}}"##,
/// ).unwrap();
/// let order = SchemaOrder::new(&schema);
/// let record = serde_json::json!({"offers": [{"price": 3, "seller": "s"}], "extra": 1, "title": "t"});
/// assert_eq!(
///     order.arrange(&record).to_string(),
///     r#"{"title":"t","offers":[{"seller":"s","price":3}],"extra":1}"#
/// );
/// ```
#[derive(Debug, Clone)]
pub struct SchemaOrder {
    places: Vec<Place>,
    root: usize,
}

/// Where the members and items of a value at one place go.
#[derive(Debug, Clone, Default)]
struct Place {
    /// The keys the applying schemas list, the first to list each placing it, each with the
    /// place of its value.
    listed: IndexMap<String, usize>,
    /// The place of a member no schema lists (`additionalProperties`).
    other: usize,
    /// The places of the first items (`prefixItems`, or draft 7's `items` as a list).
    first: Vec<usize>,
    /// The place of every later item.
    rest: usize,
}

impl SchemaOrder {
    /// The order of `schema`'s instances. References are followed within `schema` (its
    /// `#` fragments); one that reaches nowhere adds nothing.
    pub fn new(schema: &Json) -> SchemaOrder {
        let mut table = Table {
            root: schema,
            room: LEAST_ROOM.saturating_add(size(schema).saturating_mul(ROOM_PER_VALUE)),
            places: vec![Place::default()],
            known: HashMap::new(),
            todo: VecDeque::new(),
        };
        let root = table.place(vec![schema]);
        // Breadth first: when a schema's table runs out of room, it is the deepest places that
        // keep their values' order.
        while let Some((at, schemas)) = table.todo.pop_front() {
            table.fill(at, &schemas);
        }
        SchemaOrder {
            places: table.places,
            root,
        }
    }

    /// `value` with each object's keys in this order.
    pub fn arrange(&self, value: &Value) -> Json {
        self.at(value, self.root)
    }

    fn at(&self, value: &Value, at: usize) -> Json {
        if at == FREE {
            return Json::from(value);
        }
        let place = &self.places[at];
        match value {
            Value::Object(map) => {
                let unlisted = place.listed.len();
                let mut members: Vec<(usize, &String, &Value, usize)> = map
                    .iter()
                    .enumerate()
                    .map(|(i, (key, member))| match place.listed.get_full(key) {
                        Some((position, _, &below)) => (position, key, member, below),
                        None => (unlisted + i, key, member, place.other),
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
            Value::Array(items) => Json::Array(
                items
                    .iter()
                    .enumerate()
                    .map(|(i, item)| {
                        self.at(item, place.first.get(i).copied().unwrap_or(place.rest))
                    })
                    .collect(),
            ),
            other => Json::from(other),
        }
    }
}

/// The table being made: each place is the list of schemas that apply there, known by their
/// addresses in `root`.
struct Table<'a> {
    root: &'a Json,
    /// The entries the table may still make.
    room: usize,
    places: Vec<Place>,
    known: HashMap<Vec<*const Json>, usize>,
    todo: VecDeque<(usize, Vec<&'a Json>)>,
}

impl<'a> Table<'a> {
    /// The place where `schemas` apply, made (and its members' and items' places queued) when
    /// first met.
    fn place(&mut self, schemas: Vec<&'a Json>) -> usize {
        let schemas = applying(schemas, self.root);
        if !schemas
            .iter()
            .any(|s| ORDERING.iter().any(|k| s.get(k).is_some()))
        {
            return FREE;
        }
        let key: Vec<*const Json> = schemas.iter().map(|s| *s as *const Json).collect();
        if let Some(&at) = self.known.get(&key) {
            return at;
        }
        if self.room == 0 {
            return FREE;
        }
        self.room -= 1;
        let at = self.places.len();
        self.places.push(Place::default());
        self.known.insert(key, at);
        self.todo.push_back((at, schemas));
        at
    }

    fn fill(&mut self, at: usize, schemas: &[&'a Json]) {
        let mut listed = IndexMap::new();
        for key in schemas
            .iter()
            .filter_map(|s| s.get("properties")?.as_object())
            .flat_map(IndexMap::keys)
        {
            if !listed.contains_key(key) && self.room > 0 {
                self.room -= 1;
                let named = schemas
                    .iter()
                    .filter_map(|s| s.get("properties")?.get(key))
                    .collect();
                listed.insert(key.clone(), self.place(named));
            }
        }
        let other = self.place(
            schemas
                .iter()
                .filter_map(|s| s.get("additionalProperties"))
                .collect(),
        );
        // Past the longest list of first items, every item has the same schemas.
        let longest = schemas
            .iter()
            .flat_map(|s| [s.get("prefixItems"), s.get("items")])
            .filter_map(|list| list?.as_array().map(<[Json]>::len))
            .max()
            .unwrap_or(0);
        let longest = longest.min(self.room);
        self.room -= longest;
        let first = (0..longest)
            .map(|i| self.place(item_schemas(schemas, i)))
            .collect();
        let rest = self.place(item_schemas(schemas, longest));
        self.places[at] = Place {
            listed,
            other,
            first,
            rest,
        };
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

/// The schemas among `schemas`' keywords that item `i` of an array has.
fn item_schemas<'a>(schemas: &[&'a Json], i: usize) -> Vec<&'a Json> {
    schemas
        .iter()
        .filter_map(|s| {
            // Draft 2020-12's `prefixItems` then `items`; draft 7's `items` as a list, then
            // `additionalItems`.
            match (s.get("prefixItems"), s.get("items")) {
                (Some(Json::Array(prefix)), _) if i < prefix.len() => prefix.get(i),
                (_, Some(Json::Array(tuple))) => tuple.get(i).or_else(|| s.get("additionalItems")),
                (_, items) => items,
            }
        })
        .collect()
}

/// `schemas` and what they reach through local `$ref`s and `allOf`/`anyOf`/`oneOf` (at most
/// [`MOST_SCHEMAS`] in all, each once).
fn applying<'a>(mut schemas: Vec<&'a Json>, root: &'a Json) -> Vec<&'a Json> {
    let mut next = 0;
    while next < schemas.len() && schemas.len() < MOST_SCHEMAS {
        let schema = schemas[next];
        next += 1;
        let target = schema
            .get("$ref")
            .and_then(Json::as_str)
            .and_then(|r| r.strip_prefix('#'))
            .and_then(|fragment| root.pointer(&agents_check::path::percent_decoded(fragment)));
        let branches = ["allOf", "anyOf", "oneOf"]
            .into_iter()
            .filter_map(|k| schema.get(k)?.as_array())
            .flatten();
        for reached in target.into_iter().chain(branches) {
            if schemas.len() < MOST_SCHEMAS && !schemas.iter().any(|s| std::ptr::eq(*s, reached)) {
                schemas.push(reached);
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
        let order = SchemaOrder::new(&schema);
        assert_eq!(
            order.places.len(),
            4,
            "free (a name), the root, children, a child"
        );
        let mut value = serde_json::json!({"name": "leaf", "children": []});
        for depth in 0..50 {
            value = serde_json::json!({"children": [value], "name": format!("n{depth}")});
        }
        let text = order.arrange(&value).to_string();
        assert!(
            text.starts_with(r#"{"name":"n49","children":[{"name":"n48","#),
            "{text}"
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
    fn a_schema_whose_places_combine_stays_within_its_bound() {
        // Member j of the root's `allOf` lists every key but `kj`, each leading back to itself:
        // the schemas at `k3.k7.k1` are those not named on the way, so there are 2^18 places
        // (1,179,409 entries, 41 s in a debug build when first tried).
        let members: Vec<Value> = (0..18)
            .map(|j| {
                let keys: serde_json::Map<String, Value> = (0..18)
                    .filter(|&t| t != j)
                    .map(|t| {
                        (
                            format!("k{t}"),
                            serde_json::json!({"$ref": format!("#/allOf/{j}")}),
                        )
                    })
                    .collect();
                serde_json::json!({"properties": keys})
            })
            .collect();
        let schema = Json::from(serde_json::json!({ "allOf": members }));
        let order = SchemaOrder::new(&schema);
        let entries: usize = order.places[1..].iter().map(|p| p.listed.len() + 1).sum();
        assert!(
            entries <= LEAST_ROOM + size(&schema) * ROOM_PER_VALUE,
            "{entries}"
        );
        let value = serde_json::json!({"k3": {"k9": {"k2": 1, "k1": 2}}});
        assert_eq!(
            order.arrange(&value).to_string(),
            r#"{"k3":{"k9":{"k1":2,"k2":1}}}"#
        );
    }
}
