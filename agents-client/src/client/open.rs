//! Open sets: the service adds states, statuses and drivers over time, so every
//! such enum keeps unknown values instead of failing. One macro makes them all. And whole
//! numbers that the vendor's models type as floats (`200.0`, `3.0`), read as integers.

use serde::{Deserialize, Deserializer};

/// Deserializes a string that may be missing or null (as empty), for open string fields.
pub fn open_string<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    Ok(Option::<String>::deserialize(d)?.unwrap_or_default())
}

/// A whole number sent as an integer or a float with no fraction (`3` or `3.0`).
fn whole(n: f64) -> Option<f64> {
    (n.is_finite() && n >= 0.0 && n.fract() == 0.0).then_some(n)
}

/// An optional HTTP status (`200` or `200.0`); null or missing is `None`.
pub fn status_code<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u16>, D::Error> {
    match Option::<f64>::deserialize(d)? {
        None => Ok(None),
        Some(n) => whole(n)
            .filter(|n| *n <= f64::from(u16::MAX))
            .map(|n| Some(n as u16))
            .ok_or_else(|| serde::de::Error::custom(format!("expected an HTTP status, found {n}"))),
    }
}

/// A count (`3` or `3.0`); null or missing is 0; counts past `usize::MAX` saturate.
pub fn count<'de, D: Deserializer<'de>>(d: D) -> Result<usize, D::Error> {
    let n = Option::<f64>::deserialize(d)?.unwrap_or(0.0);
    whole(n)
        .map(|n| n.min(usize::MAX as f64) as usize)
        .ok_or_else(|| serde::de::Error::custom(format!("expected a count, found {n}")))
}

/// An enum over an open set of wire strings: known values as variants, anything else kept in
/// `Other`, so an unknown value never fails a response.
macro_rules! open_enum {
    ($(#[$doc:meta])* $name:ident { $($(#[$vdoc:meta])* $variant:ident = $wire:literal),* $(,)? }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash)]
        pub enum $name {
            $($(#[$vdoc])* $variant,)*
            /// A value this client does not know, sent and kept as is.
            Other(String),
        }

        impl $name {
            /// The wire value.
            pub fn as_str(&self) -> &str {
                match self {
                    $($name::$variant => $wire,)*
                    $name::Other(s) => s,
                }
            }
        }

        impl From<&str> for $name {
            fn from(s: &str) -> Self {
                match s {
                    $($wire => $name::$variant,)*
                    other => $name::Other(other.to_owned()),
                }
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                $crate::client::open::open_string(d).map(|s| $name::from(s.as_str()))
            }
        }
    };
}

pub(crate) use open_enum;

/// Request bodies built field by field: typed setters, plus `field(name, value)`, the escape
/// hatch for fields this client does not know (sent as is).
macro_rules! setters {
    ($($(#[$doc:meta])* $name:ident : $ty:ty => $key:literal),* $(,)?) => {
        /// Any other field, sent as is.
        pub fn field(mut self, name: impl Into<String>, value: impl Into<Value>) -> Self {
            self.body.insert(name.into(), value.into());
            self
        }

        $(
            $(#[$doc])*
            pub fn $name(mut self, value: $ty) -> Self {
                self.body.insert($key.into(), json!(value));
                self
            }
        )*
    };
}
