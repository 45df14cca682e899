//! The `record!` macro that every generated output record is written in.

/// Declares an output record: the struct as written, plus its drift-tolerant `Deserialize`
/// (through [`Decode`](crate::decode::Decode)), [`Record`](crate::Record) and `Serialize`.
///
/// Generated bindings wrap each record struct in it, so the meaning of every field sits beside
/// the field:
///
/// * a declared field is `Option<T>`, where `T` implements [`Decode`](crate::decode::Decode);
///   its JSON name is the field's name, or the one given by `#[json(rename = "…")]` after its
///   docs;
/// * `#[json(required = true)]` after a field's JSON name marks a field the schema requires and does
///   not allow to be `null`: when it is missing or `null`, a [`Mismatch`](crate::Mismatch) says
///   so (found `null`, left empty);
/// * `#[json(keys = "pattern")]` before the docs of a `BTreeMap<String, T>` field after the
///   declared ones makes it a typed map: the keys the struct does not declare that the pattern
///   matches (`""`: every key the maps before it left) are read into it as `T`; a value `T`
///   cannot hold stays in `unknown_fields`, with its mismatch. Its entries serialize after the
///   declared fields;
/// * `#[json(flatten)]` marks `unknown_fields`, which keeps the keys the struct does not declare,
///   and the declared fields sent as `null` or as a value their type cannot hold (the field is
///   `None`; writing the record back writes the value as sent, unless the field was set since),
///   and serializes them after the declared fields;
/// * `#[json(skip)]` marks `mismatches`, the values that did not have their declared type, and
///   then `breaches`, the rules of the schema that values break; neither is serialized;
/// * `#![schema = "…"]` before the struct gives the JSON Schema of a root record: decoding one
///   checks every rule of it and records each breach (see [`Record::breaches`](crate::Record::breaches)).
///   The text is compiled on first use; what is wrong with it (not JSON, a key given twice, a
///   `type` no value has) is a `tracing` warning naming the record, and stays in
///   `Name::schema().problems()`;
/// * `#![fields = NameFields]` names the struct of the record's typed field paths, which the
///   macro declares with a [`FieldPath`](crate::fields::FieldPath) per field, and the record's
///   `FIELDS` constant of it (see [`fields`](crate::fields)).
///
/// Deserializing reads the object once: each key is matched against the declared names without
/// allocating, each value is read by its field's type, and a value of the wrong type becomes a
/// [`Mismatch`](crate::Mismatch) on the root record instead of an error. Serializing writes the
/// declared fields that are set, by JSON name, then the unknown fields.
///
/// Field attributes other than docs and the ones above are not accepted, typed maps come after
/// the declared fields, and the three bookkeeping fields come last, each with its marker before
/// its docs.
///
/// ```
/// agents_runtime::record! {
///     #![schema = r#"{"properties": {"stars": {"maximum": 5}}}"#]
///     #![fields = ReviewFields]
///     /// A review.
///     #[derive(Debug, Clone, PartialEq, Default)]
///     pub struct Review {
///         /// Stars, 1 to 5.
///         pub stars: Option<f64>,
///         /// Who wrote it.
///         #[json(rename = "authorName")]
///         pub author: Option<String>,
///         #[json(flatten)]
///         /// Keys this struct does not declare.
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
/// let review: Review = serde_json::from_str(r#"{"stars": "4", "authorName": "Ada", "lang": "en"}"#)?;
/// assert_eq!(review.stars, Some(4.0));
/// assert_eq!(review.author.as_deref(), Some("Ada"));
/// assert_eq!(review.unknown_fields["lang"], "en");
/// assert_eq!(review.mismatches[0].path, "stars");
/// assert_eq!(
///     serde_json::to_string(&review)?,
///     r#"{"stars":4.0,"authorName":"Ada","lang":"en"}"#
/// );
///
/// let review: Review = serde_json::from_str(r#"{"stars": 47}"#)?;
/// assert_eq!(review.breaches[0].to_string(), "stars: breaks `maximum: 5` (/properties/stars/maximum), found 47");
/// # Ok::<(), serde_json::Error>(())
/// ```
#[macro_export]
macro_rules! record {
    (
        $(#![schema = $schema:literal])?
        #![fields = $fields:ident]
        $(#[$attr:meta])*
        $vis:vis struct $name:ident {
            $(
                $(#[doc = $doc:literal])*
                $(#[json(rename = $json:literal)])?
                $(#[json(required = $required:literal)])?
                pub $field:ident : $ty:ty,
            )*
            $(
                #[json(keys = $keys:literal)]
                $(#[doc = $map_doc:literal])*
                pub $map:ident : $map_ty:ty,
            )*
            #[json(flatten)]
            $(#[doc = $unknown_doc:literal])*
            pub unknown_fields : $unknown_ty:ty,
            #[json(skip)]
            $(#[doc = $mismatches_doc:literal])*
            pub mismatches : $mismatches_ty:ty,
            #[json(skip)]
            $(#[doc = $breaches_doc:literal])*
            pub breaches : $breaches_ty:ty $(,)?
        }
    ) => {
        $(#[$attr])*
        $vis struct $name {
            $(
                $(#[doc = $doc])*
                pub $field: $ty,
            )*
            $(
                $(#[doc = $map_doc])*
                pub $map: $map_ty,
            )*
            $(#[doc = $unknown_doc])*
            pub unknown_fields: $unknown_ty,
            $(#[doc = $mismatches_doc])*
            pub mismatches: $mismatches_ty,
            $(#[doc = $breaches_doc])*
            pub breaches: $breaches_ty,
        }

        #[doc = ::core::concat!(
            "Typed paths to the fields of [`", ::core::stringify!($name), "`], one per field: `",
            ::core::stringify!($name), "::FIELDS`."
        )]
        #[derive(Debug, Clone, PartialEq)]
        $vis struct $fields {
            $(
                $(#[doc = $doc])*
                pub $field: $crate::fields::FieldPath<$name, $ty>,
            )*
            $(
                $(#[doc = $map_doc])*
                pub $map: $crate::fields::Entries<$name, $map_ty>,
            )*
        }

        impl $name {
            /// Typed paths to this record's fields (`FIELDS.price`), for code that names a
            /// field: checked by the compiler, renamed with the field.
            pub const FIELDS: $fields = $fields {
                $($field: $crate::fields::FieldPath::field($crate::__json_name!($field $(= $json)?)),)*
                $($map: $crate::fields::Entries::new(),)*
            };
        }

        impl $crate::fields::Nested for $name {
            type Record = $name;
            type Fields = $fields;
            fn fields() -> $fields {
                $name::FIELDS
            }
        }

        impl $crate::decode::Decode for $name {
            const EXPECTED: $crate::decode::Expected = $crate::decode::Expected::Object;
            fn from_map<'de, A: $crate::__private::serde::de::MapAccess<'de>>(
                mut map: A,
                ctx: $crate::__private::decode::Ctx<'_, '_>,
            ) -> ::core::result::Result<::core::option::Option<Self>, A::Error> {
                #[allow(non_camel_case_types)]
                enum Field {
                    $($field,)*
                }
                fn field(name: &str) -> ::core::option::Option<Field> {
                    match name {
                        $($crate::__json_name!($field $(= $json)?) => {
                            ::core::option::Option::Some(Field::$field)
                        })*
                        _ => ::core::option::Option::None,
                    }
                }
                impl Field {
                    #[allow(dead_code)]
                    fn json_name(self) -> &'static str {
                        match self {
                            $(Field::$field => $crate::__json_name!($field $(= $json)?),)*
                        }
                    }
                }
                let $crate::__private::decode::Ctx { sink, path } = ctx;
                let _ = (&sink, &path);
                let mut out = <Self as ::core::default::Default>::default();
                let first = sink.len();
                let _ = first;
                while let ::core::option::Option::Some(key) =
                    map.next_key_seed($crate::__private::decode::KeySeed(field))?
                {
                    // Every arm gives its result and one `?` reads them all: a return path per
                    // field would be checked and borrow-checked once per field.
                    #[allow(unused_labels)]
                    let read = match key {
                        $($crate::__private::decode::Key::Known(Field::$field) => {
                            $crate::__private::decode::field(
                                &mut map,
                                &mut *sink,
                                &path,
                                $crate::__json_name!($field $(= $json)?),
                                &mut out.$field,
                                &mut out.unknown_fields,
                            )
                        })*
                        $crate::__private::decode::Key::Unknown(name) => 'unknown: {
                            $(
                                if {
                                    static KEYS: $crate::__private::decode::Keys =
                                        $crate::__private::decode::Keys::new($keys);
                                    KEYS.matches(&name)
                                } {
                                    break 'unknown $crate::__private::decode::entry(
                                        &mut map,
                                        &mut *sink,
                                        &path,
                                        name,
                                        &mut out.$map,
                                        &mut out.unknown_fields,
                                    );
                                }
                            )*
                            $crate::__private::decode::unknown(
                                &mut map,
                                name,
                                &mut out.unknown_fields,
                            )
                        }
                    };
                    read?;
                }
                if !out.unknown_fields.is_empty() {
                    if let ::core::option::Option::Some(n) =
                        $crate::__private::decode::number_in(&mut out.unknown_fields)
                    {
                        let ctx = $crate::__private::decode::Ctx { sink, path };
                        return ::core::result::Result::Ok($crate::__private::decode::from_number(n, ctx));
                    }
                }
                $($(
                    if $required {
                        $crate::__private::decode::required(
                            &out.$field,
                            &mut *sink,
                            first,
                            &path,
                            Field::$field.json_name(),
                        );
                    }
                )?)*
                ::core::result::Result::Ok(::core::option::Option::Some(out))
            }
        }

        impl $crate::decode::Record for $name {
            fn unknown_fields(&self) -> &$crate::JsonMap {
                &self.unknown_fields
            }
            fn mismatches(&self) -> &[$crate::decode::Mismatch] {
                &self.mismatches
            }
            fn set_mismatches(&mut self, mismatches: ::std::vec::Vec<$crate::decode::Mismatch>) {
                self.mismatches = mismatches;
            }
            fn breaches(&self) -> &[$crate::Breach] {
                &self.breaches
            }
            fn set_breaches(&mut self, breaches: ::std::vec::Vec<$crate::Breach>) {
                self.breaches = breaches;
            }
            $crate::__record_undeclared!($($map),*);
            $(
                fn schema() -> ::core::option::Option<&'static $crate::Schema> {
                    static SCHEMA: ::std::sync::OnceLock<$crate::Schema> = ::std::sync::OnceLock::new();
                    ::core::option::Option::Some($crate::__private::decode::compiled(&SCHEMA, $schema, ::core::stringify!($name)))
                }
                fn schema_text() -> ::core::option::Option<&'static str> {
                    ::core::option::Option::Some($schema)
                }
            )?
        }

        impl $crate::Instance for $name {
            fn kind(&self) -> $crate::__private::agents_check::Kind {
                $crate::__private::agents_check::Kind::Object
            }
            fn len(&self) -> usize {
                let mut n = 0;
                self.properties(&mut |_, _| n += 1);
                n
            }
            fn property(&self, key: &str) -> ::core::option::Option<&dyn $crate::Instance> {
                // A declared field that is not set may have been sent as `null`, which
                // `unknown_fields` keeps.
                match key {
                    $($crate::__json_name!($field $(= $json)?) => {
                        if let ::core::option::Option::Some(v) = &self.$field {
                            return ::core::option::Option::Some(v);
                        }
                    })*
                    _ => {}
                }
                $(
                    if let ::core::option::Option::Some(v) = self.$map.get(key) {
                        return ::core::option::Option::Some(v as &dyn $crate::Instance);
                    }
                )*
                self.unknown_fields.get(key).map(|v| v as &dyn $crate::Instance)
            }
            fn properties(&self, each: &mut dyn FnMut(&str, &dyn $crate::Instance)) {
                $(
                    $crate::__private::decode::visit(
                        each,
                        $crate::__json_name!($field $(= $json)?),
                        &self.$field,
                    );
                )*
                $(
                    for (key, value) in &self.$map {
                        each(key, value);
                    }
                )*
                for (key, value) in &self.unknown_fields {
                    if !$crate::__record_set!(self, key; $($field $(= $json)?),*) {
                        each(key, value);
                    }
                }
            }
            fn to_json(&self) -> $crate::Value {
                $crate::__private::serde_json::to_value(self).unwrap_or($crate::Value::Null)
            }
            // A field sent as `null` is absent here and kept in `unknown_fields`, so a record
            // with any unknown field is looked at in full.
            fn exact(&self) -> bool {
                self.unknown_fields.is_empty()
                    $(&& self.$map.is_empty())*
                    $(&& self.$field.as_ref().is_none_or($crate::Instance::exact))*
            }
            fn fields_only(&self) -> bool {
                self.unknown_fields.is_empty() $(&& self.$map.is_empty())*
            }
        }

        impl<'de> $crate::__private::serde::Deserialize<'de> for $name {
            fn deserialize<D: $crate::__private::serde::Deserializer<'de>>(
                deserializer: D,
            ) -> ::core::result::Result<Self, D::Error> {
                $crate::__private::decode::deserialize_record(deserializer)
            }
        }

        $crate::__record_columnar! {
            $name [$($field $(= $json)? : $ty [$($doc),*]),*]
        }

        impl $crate::__private::serde::Serialize for $name {
            fn serialize<S: $crate::__private::serde::Serializer>(
                &self,
                serializer: S,
            ) -> ::core::result::Result<S::Ok, S::Error> {
                use $crate::__private::serde::ser::SerializeMap as _;
                let mut map = serializer.serialize_map(::core::option::Option::None)?;
                $(
                    $crate::__private::decode::put(
                        &mut map,
                        $crate::__json_name!($field $(= $json)?),
                        &self.$field,
                    )?;
                )*
                $(
                    for (key, value) in &self.$map {
                        map.serialize_entry(key, value)?;
                    }
                )*
                for (key, value) in &self.unknown_fields {
                    if !$crate::__record_set!(self, key; $($field $(= $json)?),*) {
                        map.serialize_entry(key, value)?;
                    }
                }
                map.end()
            }
        }
    };
}

/// Hands a record's field to `each` when it is set (a record's `Instance::properties`).
#[doc(hidden)]
#[inline]
pub fn visit<T: agents_check::Instance>(
    each: &mut dyn FnMut(&str, &dyn agents_check::Instance),
    name: &str,
    value: &Option<T>,
) {
    if let Some(value) = value {
        each(name, value);
    }
}

/// Writes a record's field when it is set (a record's `Serialize`).
#[doc(hidden)]
#[inline]
pub fn put<M: serde::ser::SerializeMap, T: serde::Serialize>(
    map: &mut M,
    name: &'static str,
    value: &Option<T>,
) -> Result<(), M::Error> {
    match value {
        Some(value) => map.serialize_entry(name, value),
        None => Ok(()),
    }
}

/// A record's [`Record::undeclared`](crate::Record::undeclared) when it has typed maps: their
/// entries beside its unknown fields (without maps, the trait's own).
#[doc(hidden)]
#[macro_export]
macro_rules! __record_undeclared {
    () => {};
    ($($map:ident),+) => {
        fn undeclared(&self) -> ::std::borrow::Cow<'_, $crate::JsonMap> {
            let mut out = self.unknown_fields.clone();
            $($crate::__private::decode::add_entries(&mut out, &self.$map);)+
            ::std::borrow::Cow::Owned(out)
        }
    };
}

/// True when `key` is the JSON name of a field of the record that is set: `unknown_fields` then
/// holds the `null` the field was sent as, which the field's value replaces.
#[doc(hidden)]
#[macro_export]
macro_rules! __record_set {
    ($record:ident, $key:ident; $($field:ident $(= $json:literal)?),*) => {
        match $key.as_str() {
            $($crate::__json_name!($field $(= $json)?) => $record.$field.is_some(),)*
            _ => false,
        }
    };
}

/// The JSON name of a field of a [`record!`]: the one given by `#[json(rename = "…")]`, or the
/// field's own name (never for a raw identifier: `stringify!(r#type)` is `"r#type"`, so the
/// generator always renames those).
#[doc(hidden)]
#[macro_export]
macro_rules! __json_name {
    ($field:ident) => {
        ::core::stringify!($field)
    };
    ($field:ident = $json:literal) => {
        $json
    };
}

/// The Arrow columns of a [`record!`] (feature `arrow`): a struct of its fields by JSON name,
/// each documented by its docs, then `_unknown_fields`.
#[cfg(feature = "arrow")]
#[doc(hidden)]
#[macro_export]
macro_rules! __record_columnar {
    ($name:ident [$($field:ident $(= $json:literal)? : $ty:ty [$($doc:literal),*]),*]) => {
        impl $crate::columnar::Columnar for $name {
            fn data_type() -> $crate::__private::arrow_schema::DataType {
                $crate::__private::arrow_schema::DataType::Struct(Self::__fields().clone())
            }
            fn column(rows: &[::core::option::Option<&Self>]) -> $crate::__private::arrow_array::ArrayRef {
                let columns = ::std::vec![
                    $($crate::columnar::field_column(rows, |r: &Self| &r.$field),)*
                ];
                $crate::columnar::struct_column(Self::__fields(), columns, rows)
            }
        }

        impl $name {
            fn __fields() -> &'static $crate::__private::arrow_schema::Fields {
                static FIELDS: ::std::sync::OnceLock<$crate::__private::arrow_schema::Fields> =
                    ::std::sync::OnceLock::new();
                FIELDS.get_or_init(|| {
                    $crate::columnar::struct_fields(::std::vec![
                        $($crate::columnar::field::<$ty>(
                            $crate::__json_name!($field $(= $json)?),
                            &[$($doc),*],
                        ),)*
                    ])
                })
            }
        }
    };
}

/// Without the `arrow` feature, records have no columns.
#[cfg(not(feature = "arrow"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __record_columnar {
    ($($any:tt)*) => {};
}
