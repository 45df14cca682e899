//! The `string_enum!` macro that generated code writes a schema's list of strings (`enum`) in.

/// Declares a string enum: the listed values as variants, and `Unknown(String)` for any other
/// text, so a value the service adds later decodes instead of failing (and is recorded as a
/// [`Mismatch`](crate::Mismatch) expecting one of the listed values).
///
/// Each variant names its JSON text with `= "text"`; `Unknown(String)` comes last, marked
/// `#[json(other)]` before its docs and written out so that readers of the generated code see
/// it. The macro adds `as_str`, `VALUES`, `Display`,
/// `From<&str>`, the drift-tolerant decoding, `Serialize` (the JSON text), and an Arrow string
/// column with the `arrow` feature.
///
/// ```
/// agents_runtime::string_enum! {
///     /// A size.
///     #[derive(Debug, Clone, PartialEq, Eq, Hash)]
///     pub enum Size {
///         /// `S`.
///         Small = "S",
///         /// `M`.
///         Medium = "M",
///         #[json(other)]
///         /// A value the schema does not list, kept as sent.
///         Unknown(String),
///     }
/// }
///
/// assert_eq!(Size::from("M"), Size::Medium);
/// assert_eq!(Size::from("XL"), Size::Unknown("XL".into()));
/// assert_eq!(Size::Small.as_str(), "S");
/// assert_eq!(serde_json::to_string(&Size::Unknown("XL".into()))?, r#""XL""#);
/// # Ok::<(), serde_json::Error>(())
/// ```
#[macro_export]
macro_rules! string_enum {
    (
        $(#[$attr:meta])*
        $vis:vis enum $name:ident {
            $(
                $(#[doc = $doc:literal])*
                $variant:ident = $json:literal,
            )*
            #[json(other)]
            $(#[doc = $unknown_doc:literal])*
            Unknown(String) $(,)?
        }
    ) => {
        $(#[$attr])*
        $vis enum $name {
            $(
                $(#[doc = $doc])*
                $variant,
            )*
            $(#[doc = $unknown_doc])*
            Unknown(::std::string::String),
        }

        impl $name {
            /// Every value the schema lists, in its order.
            pub const VALUES: &'static [&'static str] = &[$($json),*];

            /// The JSON text of the value.
            pub fn as_str(&self) -> &str {
                match self {
                    $(Self::$variant => $json,)*
                    Self::Unknown(text) => text,
                }
            }

            /// The listed value `text` names, or `None`.
            fn listed(text: &str) -> ::core::option::Option<Self> {
                match text {
                    $($json => ::core::option::Option::Some(Self::$variant),)*
                    _ => ::core::option::Option::None,
                }
            }
        }

        impl ::core::convert::From<&str> for $name {
            fn from(text: &str) -> Self {
                Self::listed(text).unwrap_or_else(|| Self::Unknown(text.to_owned()))
            }
        }

        impl ::core::fmt::Display for $name {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl $crate::decode::Decode for $name {
            const EXPECTED: $crate::decode::Expected = $crate::decode::Expected::Listed;
            fn from_str(text: &str) -> $crate::decode::Outcome<Self> {
                match Self::listed(text) {
                    ::core::option::Option::Some(v) => $crate::decode::Outcome::Exact(v),
                    ::core::option::Option::None => {
                        $crate::decode::Outcome::Coerced(Self::Unknown(text.to_owned()))
                    }
                }
            }
        }

        impl $crate::__private::serde::Serialize for $name {
            fn serialize<S: $crate::__private::serde::Serializer>(
                &self,
                serializer: S,
            ) -> ::core::result::Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        impl<'de> $crate::__private::serde::Deserialize<'de> for $name {
            fn deserialize<D: $crate::__private::serde::Deserializer<'de>>(
                deserializer: D,
            ) -> ::core::result::Result<Self, D::Error> {
                let text: ::std::borrow::Cow<'de, str> =
                    $crate::__private::serde::Deserialize::deserialize(deserializer)?;
                ::core::result::Result::Ok(Self::from(&*text))
            }
        }

        impl $crate::Instance for $name {
            fn kind(&self) -> $crate::__private::agents_check::Kind {
                $crate::__private::agents_check::Kind::String
            }
            fn as_str(&self) -> ::core::option::Option<&str> {
                ::core::option::Option::Some($name::as_str(self))
            }
            fn to_json(&self) -> $crate::Value {
                $crate::Value::String($name::as_str(self).to_owned())
            }
        }

        $crate::__string_enum_columnar!($name);
    };
}

/// The Arrow column of a [`string_enum!`] (feature `arrow`): its JSON text.
#[cfg(feature = "arrow")]
#[doc(hidden)]
#[macro_export]
macro_rules! __string_enum_columnar {
    ($name:ident) => {
        impl $crate::columnar::Columnar for $name {
            fn data_type() -> $crate::__private::arrow_schema::DataType {
                $crate::__private::arrow_schema::DataType::Utf8
            }
            fn column(
                values: &[::core::option::Option<&Self>],
            ) -> $crate::__private::arrow_array::ArrayRef {
                ::std::sync::Arc::new(
                    values
                        .iter()
                        .map(|v| v.map($name::as_str))
                        .collect::<$crate::__private::arrow_array::StringArray>(),
                )
            }
        }
    };
}

/// Without the `arrow` feature, enums have no column.
#[cfg(not(feature = "arrow"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __string_enum_columnar {
    ($name:ident) => {};
}
