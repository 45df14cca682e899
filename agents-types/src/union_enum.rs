//! The `union_enum!` macro that generated code writes a schema's union of kinds of value
//! (`anyOf` / `oneOf` of a string, a list, an object, …) in.

/// Declares an enum with one variant per kind of JSON value a schema allows (`oneOf: [{"type":
/// "string"}, {"type": "array", …}]`), each holding that kind's type, at most one variant per
/// kind.
///
/// Decoding picks the variant by the kind of value sent, with the drift tolerance of the rest of
/// a record: a value that one variant takes exactly is that variant; otherwise the first variant
/// that takes it by a lossless conversion (a numeric string where only a number is allowed),
/// recorded as a [`Mismatch`](crate::Mismatch); otherwise the field is left empty and the value
/// recorded. Arrays go to the variant whose type is an array and objects to the one whose type
/// is an object, mismatches inside them recorded at their paths. Serialization writes the
/// variant's value (no tag), so a record serializes back to the JSON it was decoded from. With
/// the `arrow` feature its column is JSON text.
///
/// ```
/// use agents_runtime::Record;
///
/// agents_runtime::union_enum! {
///     /// Where a job runs: a runner's label, or several.
///     #[derive(Debug, Clone, PartialEq)]
///     pub enum RunsOn {
///         /// A string.
///         String(String),
///         /// A list.
///         List(Vec<String>),
///     }
/// }
///
/// agents_runtime::record! {
///     #![fields = JobFields]
///     /// A job.
///     #[derive(Debug, Clone, Default, PartialEq)]
///     pub struct Job {
///         /// Where it runs.
///         #[json(rename = "runs-on")]
///         pub runs_on: Option<RunsOn>,
///         #[json(flatten)]
///         /// Keys the schema does not declare.
///         pub unknown_fields: agents_runtime::JsonMap,
///         #[json(skip)]
///         /// Values that did not have their declared type.
///         pub mismatches: Vec<agents_runtime::Mismatch>,
///         #[json(skip)]
///         /// Rules of the schema that values break.
///         pub breaches: Vec<agents_runtime::Breach>,
///     }
/// }
///
/// let one: Job = serde_json::from_str(r#"{"runs-on": "ubuntu"}"#)?;
/// assert_eq!(one.runs_on, Some(RunsOn::String("ubuntu".into())));
/// let many: Job = serde_json::from_str(r#"{"runs-on": ["linux", "x64"]}"#)?;
/// assert_eq!(many.runs_on, Some(RunsOn::List(vec!["linux".into(), "x64".into()])));
/// let odd: Job = serde_json::from_str(r#"{"runs-on": {"group": "big"}}"#)?;
/// assert_eq!(odd.runs_on, None);
/// assert_eq!(odd.mismatches()[0].path, "runs-on");
/// assert_eq!(serde_json::to_string(&many)?, r#"{"runs-on":["linux","x64"]}"#);
/// # Ok::<(), serde_json::Error>(())
/// ```
#[macro_export]
macro_rules! union_enum {
    (
        $(#[$attr:meta])*
        $vis:vis enum $name:ident {
            $(
                $(#[doc = $doc:literal])*
                $variant:ident($ty:ty $(,)?),
            )+
        }
    ) => {
        $(#[$attr])*
        $vis enum $name {
            $(
                $(#[doc = $doc])*
                $variant($ty),
            )+
        }

        impl $name {
            /// The first variant taking a scalar exactly, else the first taking it by a
            /// conversion, else none.
            fn pick(
                outcomes: &mut dyn ::core::iter::Iterator<Item = $crate::decode::Outcome<Self>>,
            ) -> $crate::decode::Outcome<Self> {
                let mut coerced = ::core::option::Option::None;
                for outcome in outcomes {
                    match outcome {
                        $crate::decode::Outcome::Exact(v) => {
                            return $crate::decode::Outcome::Exact(v);
                        }
                        $crate::decode::Outcome::Coerced(v) => {
                            coerced.get_or_insert(v);
                        }
                        $crate::decode::Outcome::Rejected => {}
                    }
                }
                match coerced {
                    ::core::option::Option::Some(v) => $crate::decode::Outcome::Coerced(v),
                    ::core::option::Option::None => $crate::decode::Outcome::Rejected,
                }
            }
        }

        impl $crate::decode::Decode for $name {
            const EXPECTED: $crate::decode::Expected = $crate::decode::Expected::Union;

            fn from_bool(v: bool) -> $crate::decode::Outcome<Self> {
                Self::pick(&mut [$(<$ty as $crate::decode::Decode>::from_bool(v).map(Self::$variant)),+].into_iter())
            }
            fn from_i64(v: i64) -> $crate::decode::Outcome<Self> {
                Self::pick(&mut [$(<$ty as $crate::decode::Decode>::from_i64(v).map(Self::$variant)),+].into_iter())
            }
            fn from_u64(v: u64) -> $crate::decode::Outcome<Self> {
                Self::pick(&mut [$(<$ty as $crate::decode::Decode>::from_u64(v).map(Self::$variant)),+].into_iter())
            }
            fn from_f64(v: f64) -> $crate::decode::Outcome<Self> {
                Self::pick(&mut [$(<$ty as $crate::decode::Decode>::from_f64(v).map(Self::$variant)),+].into_iter())
            }
            fn from_str(v: &str) -> $crate::decode::Outcome<Self> {
                Self::pick(&mut [$(<$ty as $crate::decode::Decode>::from_str(v).map(Self::$variant)),+].into_iter())
            }
            fn from_seq<'de, A: $crate::__private::serde::de::SeqAccess<'de>>(
                seq: A,
                ctx: $crate::__private::decode::Ctx<'_, '_>,
            ) -> ::core::result::Result<::core::option::Option<Self>, A::Error> {
                $(
                    if <$ty as $crate::decode::Decode>::EXPECTED == $crate::decode::Expected::Array {
                        return <$ty as $crate::decode::Decode>::from_seq(seq, ctx)
                            .map(|v| v.map(Self::$variant));
                    }
                )+
                ctx.reject_seq(Self::EXPECTED, seq)
            }
            fn from_map<'de, A: $crate::__private::serde::de::MapAccess<'de>>(
                map: A,
                ctx: $crate::__private::decode::Ctx<'_, '_>,
            ) -> ::core::result::Result<::core::option::Option<Self>, A::Error> {
                $(
                    if <$ty as $crate::decode::Decode>::EXPECTED == $crate::decode::Expected::Object {
                        return $crate::__private::decode::object_or_number(map, ctx, Self::$variant);
                    }
                )+
                ctx.reject_map(map)
            }
        }

        impl $crate::__private::serde::Serialize for $name {
            fn serialize<S: $crate::__private::serde::Serializer>(
                &self,
                serializer: S,
            ) -> ::core::result::Result<S::Ok, S::Error> {
                match self {
                    $(Self::$variant(v) => $crate::__private::serde::Serialize::serialize(v, serializer),)+
                }
            }
        }

        /// Outside a record (where mismatches have no place to go), a value that no variant
        /// takes exactly or by a conversion is an error.
        impl<'de> $crate::__private::serde::Deserialize<'de> for $name {
            fn deserialize<D: $crate::__private::serde::Deserializer<'de>>(
                deserializer: D,
            ) -> ::core::result::Result<Self, D::Error> {
                let mut sink = ::std::vec::Vec::new();
                let root = $crate::__private::decode::Path::Root;
                let seed = $crate::__private::decode::Seed::<Self>::value(&mut sink, root);
                match $crate::__private::serde::de::DeserializeSeed::deserialize(seed, deserializer)? {
                    ::core::option::Option::Some(v) => ::core::result::Result::Ok(v),
                    ::core::option::Option::None => ::core::result::Result::Err(
                        <D::Error as $crate::__private::serde::de::Error>::custom(
                            "a value of none of the kinds the schema allows here",
                        ),
                    ),
                }
            }
        }

        impl $crate::Instance for $name {
            fn kind(&self) -> $crate::__private::agents_check::Kind {
                match self {
                    $(Self::$variant(v) => $crate::Instance::kind(v),)+
                }
            }
            fn as_bool(&self) -> ::core::option::Option<bool> {
                match self {
                    $(Self::$variant(v) => $crate::Instance::as_bool(v),)+
                }
            }
            fn as_f64(&self) -> ::core::option::Option<f64> {
                match self {
                    $(Self::$variant(v) => $crate::Instance::as_f64(v),)+
                }
            }
            fn as_str(&self) -> ::core::option::Option<&str> {
                match self {
                    $(Self::$variant(v) => $crate::Instance::as_str(v),)+
                }
            }
            fn len(&self) -> usize {
                match self {
                    $(Self::$variant(v) => $crate::Instance::len(v),)+
                }
            }
            fn item(&self, index: usize) -> ::core::option::Option<&dyn $crate::Instance> {
                match self {
                    $(Self::$variant(v) => $crate::Instance::item(v, index),)+
                }
            }
            fn property(&self, key: &str) -> ::core::option::Option<&dyn $crate::Instance> {
                match self {
                    $(Self::$variant(v) => $crate::Instance::property(v, key),)+
                }
            }
            fn properties(&self, each: &mut dyn FnMut(&str, &dyn $crate::Instance)) {
                match self {
                    $(Self::$variant(v) => $crate::Instance::properties(v, each),)+
                }
            }
            fn to_json(&self) -> $crate::Value {
                match self {
                    $(Self::$variant(v) => $crate::Instance::to_json(v),)+
                }
            }
        }

        $crate::__union_enum_columnar!($name);
    };
}

/// The Arrow column of a [`union_enum!`] (feature `arrow`): its JSON text, since its kinds
/// share no Arrow type.
#[cfg(feature = "arrow")]
#[doc(hidden)]
#[macro_export]
macro_rules! __union_enum_columnar {
    ($name:ident) => {
        impl $crate::columnar::Columnar for $name {
            const JSON_TEXT: bool = true;
            fn data_type() -> $crate::__private::arrow_schema::DataType {
                $crate::__private::arrow_schema::DataType::Utf8
            }
            fn column(
                values: &[::core::option::Option<&Self>],
            ) -> $crate::__private::arrow_array::ArrayRef {
                $crate::columnar::json_text_column(values)
            }
        }
    };
}

/// Without the `arrow` feature, unions have no column.
#[cfg(not(feature = "arrow"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __union_enum_columnar {
    ($name:ident) => {};
}
