//! Typed records as Arrow columns (feature `arrow`) and Parquet files (feature `parquet`).
//!
//! Every generated record knows its Arrow schema from its own field types, not from data:
//!
//! | field type | Arrow type |
//! | --- | --- |
//! | `String` | `Utf8` |
//! | `f64` | `Float64` |
//! | `i64` | `Int64` |
//! | `bool` | `Boolean` |
//! | a nested record | `Struct` of its fields |
//! | `Vec<T>` (records or scalars) | `List` of `T`'s type |
//! | `Value`, `JsonMap` (untyped in the schema) | `Utf8` holding JSON text, metadata `encoding: json` |
//!
//! Column names are the service's JSON names; each field's metadata carries its documentation
//! (the schema's description and facts) under `description`. Nothing the service sent is lost:
//! every struct has a `_unknown_fields` column (the keys without a column of their own — those
//! the schema does not declare, and the entries of typed maps, whose keys are data — as JSON
//! text, null when there are none) and a batch has `_mismatch_count` and `_mismatches` (the
//! values that did not have their declared type, as JSON text) and `_breach_count` and
//! `_breaches` (the rules of the record's JSON Schema its values break, as JSON text) per
//! record, so a query can keep or drop the records that break a rule.
//!
//! ```
//! use agents_runtime::catalog::RetailerAPdp;
//! use agents_runtime::columnar;
//!
//! let records: Vec<RetailerAPdp> = vec![
//!     serde_json::from_str(r#"{"product_title": "Kettle", "web_price": "$25", "color": "red"}"#)?,
//! ];
//! let batch = columnar::record_batch(&records)?;
//! assert_eq!(batch.num_rows(), 1);
//! assert!(batch.schema().field_with_name("web_price").is_ok());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::builder::{BooleanBuilder, Float64Builder, Int64Builder, StringBuilder};
use arrow_array::{ArrayRef, ListArray, RecordBatch, StringArray, StructArray, UInt32Array};
use arrow_buffer::{NullBuffer, OffsetBuffer};
use arrow_schema::{ArrowError, DataType, Field, FieldRef, Fields, Schema, SchemaRef};
use serde_json::{Map, Value};

use crate::decode::Record;

#[cfg(feature = "parquet")]
mod parquet_reader;
#[cfg(feature = "parquet")]
mod parquet_writer;
#[cfg(feature = "parquet")]
pub use parquet_reader::{ParquetReader, ReadRecord, inputs_as_written, row_inputs};
#[cfg(feature = "parquet")]
pub use parquet_writer::{ParquetOptions, ParquetWriter};

/// The leading column of a [`ParquetWriter`] with [`ParquetOptions::row_column`]: the input
/// row a record came from.
pub const ROW: &str = "_row";
/// The column of a [`ParquetWriter`] with [`ParquetOptions::input`]: a struct of the inputs a
/// record came from (`_input.asin`), to join results with their inputs.
pub const INPUT: &str = "_input";
/// The column of unknown keys in every struct.
pub const UNKNOWN_FIELDS: &str = "_unknown_fields";
/// The column counting a record's mismatches.
pub const MISMATCH_COUNT: &str = "_mismatch_count";
/// The column of a record's mismatches as JSON text.
pub const MISMATCHES: &str = "_mismatches";
/// The column counting the rules of its schema a record breaks.
pub const BREACH_COUNT: &str = "_breach_count";
/// The column of a record's breaches as JSON text (`[{"path", "keyword", "schema_path",
/// "rule", "found"}]`).
pub const BREACHES: &str = "_breaches";

/// A type whose values make an Arrow column. Generated records implement it through
/// [`record!`](crate::record); the field types (`String`, `f64`, `i64`, `bool`, `Vec<T>`,
/// `Box<T>`, `Value`, `JsonMap`) here.
pub trait Columnar {
    /// Whether the column holds JSON text (values the schema does not type); such fields carry
    /// the metadata `encoding: json`.
    const JSON_TEXT: bool = false;
    /// The Arrow type of the column.
    fn data_type() -> DataType;
    /// The column of `values`, one per row (`None` is null).
    fn column(values: &[Option<&Self>]) -> ArrayRef;
}

impl Columnar for String {
    fn data_type() -> DataType {
        DataType::Utf8
    }
    fn column(values: &[Option<&Self>]) -> ArrayRef {
        let bytes = values.iter().flatten().map(|s| s.len()).sum();
        let mut b = StringBuilder::with_capacity(values.len(), bytes);
        for v in values {
            b.append_option(v.map(String::as_str));
        }
        Arc::new(b.finish())
    }
}

/// Scalars that arrow's builders take by value.
macro_rules! scalar_columns {
    ($($ty:ty => $data_type:ident, $builder:ident;)*) => {$(
        impl Columnar for $ty {
            fn data_type() -> DataType {
                DataType::$data_type
            }
            fn column(values: &[Option<&Self>]) -> ArrayRef {
                let mut b = $builder::with_capacity(values.len());
                for v in values {
                    b.append_option(v.copied());
                }
                Arc::new(b.finish())
            }
        }
    )*};
}

scalar_columns! {
    f64 => Float64, Float64Builder;
    i64 => Int64, Int64Builder;
    bool => Boolean, BooleanBuilder;
}

/// JSON text of any value.
fn json_column<'a, T: serde::Serialize + ?Sized + 'a>(
    values: impl Iterator<Item = Option<&'a T>>,
) -> ArrayRef {
    let texts: StringArray = values
        .map(|v| v.and_then(|v| serde_json::to_string(v).ok()))
        .collect();
    Arc::new(texts)
}

/// The column of values as JSON text: what [`union_enum!`](crate::union_enum) types write.
#[doc(hidden)]
pub fn json_text_column<T: serde::Serialize>(values: &[Option<&T>]) -> ArrayRef {
    json_column(values.iter().copied())
}

/// Untyped values (the schema gave no usable type) as JSON text.
impl Columnar for Value {
    const JSON_TEXT: bool = true;
    fn data_type() -> DataType {
        DataType::Utf8
    }
    fn column(values: &[Option<&Self>]) -> ArrayRef {
        json_column(values.iter().copied())
    }
}

/// Objects without declared properties as JSON text.
impl Columnar for Map<String, Value> {
    const JSON_TEXT: bool = true;
    fn data_type() -> DataType {
        DataType::Utf8
    }
    fn column(values: &[Option<&Self>]) -> ArrayRef {
        json_column(values.iter().copied())
    }
}

/// A boxed value marks where a recursive type refers back to itself, which no Arrow type can
/// nest without end: its column is the value as JSON text.
impl<T: serde::Serialize> Columnar for Box<T> {
    const JSON_TEXT: bool = true;
    fn data_type() -> DataType {
        DataType::Utf8
    }
    fn column(values: &[Option<&Self>]) -> ArrayRef {
        json_column(values.iter().map(|v| v.map(|b| &**b)))
    }
}

/// A map with typed values (`additionalProperties`) as JSON text, like objects without
/// declared properties.
impl<T: serde::Serialize> Columnar for std::collections::BTreeMap<String, T> {
    const JSON_TEXT: bool = true;
    fn data_type() -> DataType {
        DataType::Utf8
    }
    fn column(values: &[Option<&Self>]) -> ArrayRef {
        json_column(values.iter().copied())
    }
}

/// The list item field of a `List` column.
fn item_field<T: Columnar>() -> FieldRef {
    let field = Field::new_list_field(T::data_type(), true);
    Arc::new(if T::JSON_TEXT {
        field.with_metadata(json_metadata(HashMap::new()))
    } else {
        field
    })
}

/// The metadata key and value that mark a column of JSON text.
pub const ENCODING: (&str, &str) = ("encoding", "json");

fn json_metadata(mut metadata: HashMap<String, String>) -> HashMap<String, String> {
    metadata.insert(ENCODING.0.to_owned(), ENCODING.1.to_owned());
    metadata
}

impl<T: Columnar> Columnar for Vec<T> {
    fn data_type() -> DataType {
        DataType::List(item_field::<T>())
    }
    fn column(values: &[Option<&Self>]) -> ArrayRef {
        let items: Vec<Option<&T>> = values
            .iter()
            .flatten()
            .flat_map(|v| v.iter().map(Some))
            .collect();
        let offsets = OffsetBuffer::from_lengths(values.iter().map(|v| v.map_or(0, Vec::len)));
        let nulls = NullBuffer::from_iter(values.iter().map(Option::is_some));
        Arc::new(ListArray::new(
            item_field::<T>(),
            offsets,
            T::column(&items),
            Some(nulls),
        ))
    }
}

/// The value type of an optional record field (`Option<T>` → `T`), for [`record!`](crate::record).
pub trait Nullable {
    /// `T`.
    type Inner: Columnar;
    /// The value, if set.
    fn get(&self) -> Option<&Self::Inner>;
}

impl<T: Columnar> Nullable for Option<T> {
    type Inner = T;
    fn get(&self) -> Option<&T> {
        self.as_ref()
    }
}

/// The column of field values `get` reads from each row.
pub fn field_column<R, F: Nullable>(rows: &[Option<&R>], get: impl Fn(&R) -> &F) -> ArrayRef {
    let values: Vec<Option<&F::Inner>> =
        rows.iter().map(|r| r.and_then(|r| get(r).get())).collect();
    F::Inner::column(&values)
}

/// The doc text of a field as plain text: rustdoc's escapes undone, lines joined.
pub fn doc_text(lines: &[&str]) -> String {
    let mut out = String::new();
    for line in lines {
        let line = line.strip_prefix(' ').unwrap_or(line);
        if !out.is_empty() {
            out.push('\n');
        }
        let mut chars = line.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '\\' if chars.peek().is_some_and(|n| "\\`*_[]#~".contains(*n)) => {
                    if let Some(n) = chars.next() {
                        out.push(n);
                    }
                }
                _ => out.push(c),
            }
        }
    }
    out.trim()
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

/// A nullable field named `name` for a record field of type `F` (`Option<T>`), its docs as
/// `description` metadata.
pub fn field<F: Nullable>(name: &str, docs: &[&str]) -> FieldRef {
    let description = doc_text(docs);
    let mut metadata = if description.is_empty() {
        HashMap::new()
    } else {
        description_metadata(description)
    };
    if F::Inner::JSON_TEXT {
        metadata = json_metadata(metadata);
    }
    Field::new(name, F::Inner::data_type(), true)
        .with_metadata(metadata)
        .into()
}

/// Field metadata holding a description.
fn description_metadata(text: impl Into<String>) -> HashMap<String, String> {
    HashMap::from([("description".to_owned(), text.into())])
}

/// The `_unknown_fields` column of `rows`: the keys without a column of their own (the unknown
/// fields, and the entries of typed maps, whose keys are the data's).
pub fn unknown_fields_column<R: Record>(rows: &[Option<&R>]) -> ArrayRef {
    let maps: Vec<_> = rows.iter().map(|r| r.map(Record::undeclared)).collect();
    json_column(maps.iter().map(|m| m.as_deref().filter(|m| !m.is_empty())))
}

/// The fields of a record's struct: `declared`, then `_unknown_fields`.
pub fn struct_fields(declared: Vec<FieldRef>) -> Fields {
    let mut all = declared;
    all.push(Arc::new(
        Field::new(UNKNOWN_FIELDS, DataType::Utf8, true).with_metadata(json_metadata(
            description_metadata(
                "Keys the schema does not declare, as the service sent them (JSON text)",
            ),
        )),
    ));
    Fields::from(all)
}

/// The struct column of `rows` (`None` rows are null) from its fields' columns, the unknown
/// fields' column last.
pub fn struct_column<R: Record>(
    fields: &Fields,
    mut columns: Vec<ArrayRef>,
    rows: &[Option<&R>],
) -> ArrayRef {
    columns.push(unknown_fields_column(rows));
    Arc::new(StructArray::new(
        fields.clone(),
        columns,
        Some(NullBuffer::from_iter(rows.iter().map(Option::is_some))),
    ))
}

/// A struct column of JSON objects with the given `fields`: each field an Int64, Float64 or
/// Boolean column of the object's value under its name (null when absent or of another type), a
/// List of one of these or of Utf8 for a list of scalars (null for a value that is not a list,
/// a null item for an item of another kind), or for any other type a Utf8 column holding a
/// string as it is and any other value as JSON text.
pub fn object_column(fields: &Fields, objects: &[&Map<String, Value>]) -> ArrayRef {
    let columns: Vec<ArrayRef> = fields
        .iter()
        .map(|f| value_column(f.data_type(), objects.iter().map(|o| o.get(f.name()))))
        .collect();
    let fields: Fields = fields
        .iter()
        .zip(&columns)
        .map(|(f, c)| Arc::new(Field::new(f.name(), c.data_type().clone(), true)))
        .collect();
    Arc::new(StructArray::new(fields, columns, None))
}

/// A column of `ty` holding `values` as [`object_column`] writes a field.
fn value_column<'a>(
    ty: &DataType,
    values: impl ExactSizeIterator<Item = Option<&'a Value>>,
) -> ArrayRef {
    match ty {
        DataType::Int64 => {
            let mut b = Int64Builder::with_capacity(values.len());
            values.for_each(|v| b.append_option(v.and_then(Value::as_i64)));
            Arc::new(b.finish())
        }
        DataType::Float64 => {
            let mut b = Float64Builder::with_capacity(values.len());
            values.for_each(|v| b.append_option(v.and_then(Value::as_f64)));
            Arc::new(b.finish())
        }
        DataType::Boolean => {
            let mut b = BooleanBuilder::with_capacity(values.len());
            values.for_each(|v| b.append_option(v.and_then(Value::as_bool)));
            Arc::new(b.finish())
        }
        DataType::List(item) => {
            let lists: Vec<Option<&Vec<Value>>> =
                values.map(|v| v.and_then(Value::as_array)).collect();
            let items = value_column(
                item.data_type(),
                lists
                    .iter()
                    .flatten()
                    .flat_map(|l| l.iter().map(Some))
                    .collect::<Vec<_>>()
                    .into_iter(),
            );
            let item = Arc::new(Field::new(item.name(), items.data_type().clone(), true));
            Arc::new(ListArray::new(
                item,
                OffsetBuffer::from_lengths(lists.iter().map(|l| l.map_or(0, Vec::len))),
                items,
                Some(NullBuffer::from_iter(lists.iter().map(Option::is_some))),
            ))
        }
        _ => Arc::new(
            values
                .map(|v| match v? {
                    Value::Null => None,
                    Value::String(text) => Some(text.clone()),
                    other => Some(other.to_string()),
                })
                .collect::<StringArray>(),
        ),
    }
}

/// The Arrow schema of a batch of `T`: `T`'s fields, then `_mismatch_count`, `_mismatches`,
/// `_breach_count` and `_breaches`.
pub fn schema<T: Columnar + Record>() -> SchemaRef {
    let DataType::Struct(fields) = T::data_type() else {
        return Arc::new(Schema::empty());
    };
    let mut all: Vec<FieldRef> = fields.iter().cloned().collect();
    all.push(Arc::new(
        Field::new(MISMATCH_COUNT, DataType::UInt32, false).with_metadata(description_metadata(
            "How many values of the record did not have their declared type",
        )),
    ));
    all.push(Arc::new(
        Field::new(MISMATCHES, DataType::Utf8, true).with_metadata(json_metadata(
            description_metadata(
                "The values that did not have their declared type, with their paths (JSON text)",
            ),
        )),
    ));
    all.push(Arc::new(
        Field::new(BREACH_COUNT, DataType::UInt32, false).with_metadata(description_metadata(
            "How many rules of the record's JSON Schema its values break",
        )),
    ));
    all.push(Arc::new(
        Field::new(BREACHES, DataType::Utf8, true).with_metadata(json_metadata(
            description_metadata(
                "The rules of the record's JSON Schema its values break, each with the value's \
                 path, the keyword and the value (JSON text)",
            ),
        )),
    ));
    Arc::new(Schema::new(all))
}

/// The records as one Arrow batch with [`schema`]'s columns.
pub fn record_batch<T: Columnar + Record>(records: &[T]) -> Result<RecordBatch, ArrowError> {
    let rows: Vec<Option<&T>> = records.iter().map(Some).collect();
    let root = T::column(&rows);
    let Some(root) = root.as_any().downcast_ref::<StructArray>() else {
        return Err(ArrowError::SchemaError(
            "a record's column is not a struct".to_owned(),
        ));
    };
    let mut columns: Vec<ArrayRef> = root.columns().to_vec();
    let counts: UInt32Array = records
        .iter()
        .map(|r| Some(u32::try_from(r.mismatches().len()).unwrap_or(u32::MAX)))
        .collect();
    columns.push(Arc::new(counts));
    columns.push(json_column(records.iter().map(|r| {
        let m = r.mismatches();
        (!m.is_empty()).then_some(m)
    })));
    let counts: UInt32Array = records
        .iter()
        .map(|r| Some(u32::try_from(r.breaches().len()).unwrap_or(u32::MAX)))
        .collect();
    columns.push(Arc::new(counts));
    columns.push(json_column(records.iter().map(|r| {
        let b = r.breaches();
        (!b.is_empty()).then_some(b)
    })));
    RecordBatch::try_new(schema::<T>(), columns)
}
