//! The typed maps of a record: keys the record does not declare as fields but its schema types
//! (`patternProperties`, a typed `additionalProperties` or `unevaluatedProperties` beside
//! `properties`), each value read at its key's path.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde::de::MapAccess;
use serde_json::{Map, Value};

use super::ctx::{Ctx, Path};
use super::seed::{Seed, rejected};
use super::{Decode, Mismatch, NUMBER_TOKEN};

/// Which keys a typed map takes: those a pattern matches (compiled on first use, as the checks
/// compile a `pattern`), or with an empty pattern every key the fields before it left.
pub struct Keys {
    source: &'static str,
    pattern: OnceLock<Option<agents_check::Pattern>>,
}

impl Keys {
    /// The keys `source` matches; `""` for every key.
    pub const fn new(source: &'static str) -> Keys {
        Keys {
            source,
            pattern: OnceLock::new(),
        }
    }

    /// True when the map takes `key`. A pattern that does not compile takes none (the
    /// generator warned of it, with its JSON pointer). serde_json's token for a number sent as
    /// a map is left to `unknown_fields`, where the record finds it (see
    /// [`number_in`](super::number_in)).
    pub fn matches(&self, key: &str) -> bool {
        key != NUMBER_TOKEN
            && (self.source.is_empty()
                || self
                    .pattern
                    .get_or_init(|| agents_check::Pattern::new(self.source))
                    .as_ref()
                    .is_some_and(|p| p.is_match(key)))
    }
}

/// Decodes the value of `key` into the typed map `rest`. A `null` the type cannot hold, or a
/// value of another type (its mismatch says so), is kept in `unknown` as a field's would be, so
/// that nothing sent is lost and the checks see it.
pub fn entry<'de, A: MapAccess<'de>, T: Decode>(
    map: &mut A,
    sink: &mut Vec<Mismatch>,
    parent: &Path<'_>,
    key: String,
    rest: &mut BTreeMap<String, T>,
    unknown: &mut Map<String, Value>,
) -> Result<(), A::Error> {
    let before = sink.len();
    let mut null = false;
    let value = map.next_value_seed(Seed::<T>::keyed(
        Ctx {
            sink: &mut *sink,
            path: Path::Key(parent, &key),
        },
        &mut null,
    ))?;
    let kept = match value {
        Some(value) => {
            rest.insert(key, value);
            return Ok(());
        }
        None if null => match T::from_null_item() {
            Some(value) => {
                rest.insert(key, value);
                return Ok(());
            }
            None => Some(Value::Null),
        },
        None => rejected(sink, before),
    };
    if let Some(value) = kept {
        unknown.insert(key, value);
    }
    Ok(())
}

/// Adds the entries of the typed map `map` to `out` as JSON: what a record without a column for
/// them (a table's `_unknown_fields`) writes.
pub fn add_entries<T: serde::Serialize>(out: &mut Map<String, Value>, map: &BTreeMap<String, T>) {
    for (key, value) in map {
        out.insert(
            key.clone(),
            serde_json::to_value(value).unwrap_or(Value::Null),
        );
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use std::collections::BTreeMap;

    use serde_json::json;

    use crate::Record;

    crate::record! {
        #![schema = r#"{
            "properties": {"name": {"type": "string"}},
            "patternProperties": {"^x-": {"type": "string"}},
            "additionalProperties": {"type": "integer", "maximum": 10}
        }"#]
        #![fields = ConfigFields]
        #[derive(Debug, Clone, PartialEq, Default)]
        pub struct Config {
            pub name: Option<String>,
            #[json(keys = "^x-")]
            pub pattern_properties: BTreeMap<String, String>,
            #[json(keys = "")]
            pub additional_properties: BTreeMap<String, i64>,
            #[json(flatten)]
            pub unknown_fields: crate::JsonMap,
            #[json(skip)]
            pub mismatches: Vec<crate::Mismatch>,
            #[json(skip)]
            pub breaches: Vec<crate::Breach>,
        }
    }

    #[test]
    fn keys_the_schema_types_land_in_typed_maps_and_come_back() {
        let sent = json!({"name": "a", "x-team": "red", "x-null": null, "retries": 3, "limit": 40,
                          "port": "eighty"});
        let config: Config = serde_json::from_value(sent.clone()).unwrap();
        assert_eq!(config.pattern_properties["x-team"], "red");
        assert_eq!(
            config.additional_properties,
            BTreeMap::from([("retries".into(), 3), ("limit".into(), 40)])
        );
        // A value of another type is kept as sent, with its mismatch, like a field's.
        assert_eq!(config.unknown_fields.get("port"), Some(&json!("eighty")));
        assert_eq!(config.unknown_fields.get("x-null"), Some(&json!(null)));
        let paths: Vec<&str> = config
            .mismatches()
            .iter()
            .map(|m| m.path.as_str())
            .collect();
        assert_eq!(paths, ["port"]);
        // The checks see the maps' entries: 40 breaks the maximum, "eighty" and null their types.
        let breaches: Vec<(String, String)> = config
            .breaches()
            .iter()
            .map(|b| (b.path.clone(), b.keyword.clone()))
            .collect();
        assert!(
            breaches.contains(&("limit".into(), "maximum".into())),
            "{breaches:?}"
        );
        assert!(
            breaches.contains(&("x-null".into(), "type".into())),
            "{breaches:?}"
        );
        assert_eq!(serde_json::to_value(&config).unwrap(), sent);
        // A table has no column for them: they are written with the unknown fields.
        let undeclared = config.undeclared();
        assert_eq!(undeclared.len(), 5);
        assert_eq!(undeclared["retries"], 3);
    }
}
