//! Parquet files of records read back into the typed records they were written from.

use std::marker::PhantomData;

use arrow_array::cast::AsArray;
use arrow_array::types::{Float64Type, Int64Type, UInt32Type, UInt64Type};
use arrow_array::{Array, RecordBatch, StructArray};
use arrow_schema::{DataType, Field};
use parquet::arrow::arrow_reader::{ParquetRecordBatchReader, ParquetRecordBatchReaderBuilder};
use parquet::errors::ParquetError;
use parquet::file::reader::ChunkReader;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::{
    BREACH_COUNT, BREACHES, ENCODING, INPUT, MISMATCH_COUNT, MISMATCHES, ROW, UNKNOWN_FIELDS,
};
use crate::decode::{Mismatch, Record};

/// One record read back, with the input row it came from when the file has a `_row` column.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadRecord<T> {
    /// The `_row` column, when the file has one ([`ParquetOptions::row_column`](super::ParquetOptions::row_column)).
    pub row: Option<u64>,
    /// The record.
    pub record: T,
}

/// The records of a Parquet file that a [`ParquetWriter`](super::ParquetWriter) wrote (or a
/// job's Parquet artifact), as `T` again, a row group at a time: each row becomes the JSON
/// object it was made from (the columns by their JSON names, `_unknown_fields` merged back in,
/// JSON-text columns parsed, other columns kept as unknown fields) and is decoded as `T`, so its
/// schema's rules are checked again; the mismatches recorded when it was first decoded come
/// back from `_mismatches`.
///
/// ```
/// # #[cfg(feature = "catalog")] {
/// use agents_runtime::catalog::RetailerAPdp;
/// use agents_runtime::columnar::{ParquetOptions, ParquetReader, ParquetWriter};
///
/// let product: RetailerAPdp =
///     serde_json::from_str(r#"{"product_title": "Kettle", "web_price": "$25", "colour": "red"}"#)?;
/// let path = std::env::temp_dir().join(format!("products-{}.parquet", std::process::id()));
/// let mut writer = ParquetWriter::new(std::fs::File::create(&path)?, ParquetOptions::default())?;
/// writer.write(product.clone())?;
/// writer.finish()?;
///
/// let back: Vec<RetailerAPdp> = ParquetReader::new(std::fs::File::open(&path)?)?
///     .map(|r| r.map(|read| read.record))
///     .collect::<Result<_, _>>()?;
/// assert_eq!(back, [product]); // mismatches and unknown fields too
/// std::fs::remove_file(&path)?;
/// # }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct ParquetReader<T> {
    batches: ParquetRecordBatchReader,
    batch: Option<RecordBatch>,
    next_row: usize,
    marker: PhantomData<fn() -> T>,
}

impl<T: Record + DeserializeOwned> ParquetReader<T> {
    /// Reads `file` (a `File`, or `bytes::Bytes`).
    pub fn new(file: impl ChunkReader + 'static) -> Result<Self, ParquetError> {
        let batches = ParquetRecordBatchReaderBuilder::try_new(file)?.build()?;
        Ok(ParquetReader {
            batches,
            batch: None,
            next_row: 0,
            marker: PhantomData,
        })
    }

    fn row(batch: &RecordBatch, i: usize) -> Result<ReadRecord<T>, ParquetError> {
        let schema = batch.schema();
        let mut object = Map::new();
        let mut row = None;
        let mut mismatches = Vec::new();
        for (field, column) in schema.fields().iter().zip(batch.columns()) {
            match field.name().as_str() {
                ROW => row = column.as_primitive_opt::<UInt64Type>().map(|c| c.value(i)),
                MISMATCHES => {
                    if let Some(text) = text_at(column, i) {
                        mismatches = serde_json::from_str::<Vec<Mismatch>>(text).map_err(|e| {
                            ParquetError::General(format!("row {i}: {MISMATCHES}: {e}"))
                        })?;
                    }
                }
                INPUT | MISMATCH_COUNT | BREACH_COUNT | BREACHES => {}
                _ => put(&mut object, field, column, i)?,
            }
        }
        let mut record = T::deserialize(Value::Object(object))
            .map_err(|e| ParquetError::General(format!("row {i}: {e}")))?;
        if !mismatches.is_empty() {
            record.set_mismatches(mismatches);
        }
        Ok(ReadRecord { row, record })
    }
}

impl<T: Record + DeserializeOwned> Iterator for ParquetReader<T> {
    type Item = Result<ReadRecord<T>, ParquetError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(batch) = &self.batch
                && self.next_row < batch.num_rows()
            {
                let i = self.next_row;
                self.next_row += 1;
                return Some(Self::row(batch, i));
            }
            match self.batches.next()? {
                Ok(batch) => {
                    self.batch = Some(batch);
                    self.next_row = 0;
                }
                Err(e) => return Some(Err(e.into())),
            }
        }
    }
}

/// The text at row `i` of a Utf8 column, if any.
fn text_at(column: &dyn Array, i: usize) -> Option<&str> {
    let texts = column.as_string_opt::<i32>()?;
    texts.is_valid(i).then(|| texts.value(i))
}

/// Puts the value of `field` at row `i` into `object` under the field's name: nothing for a
/// null; `_unknown_fields` merged in.
fn put(
    object: &mut Map<String, Value>,
    field: &Field,
    column: &dyn Array,
    i: usize,
) -> Result<(), ParquetError> {
    if field.name() == UNKNOWN_FIELDS {
        if let Some(text) = text_at(column, i) {
            let Value::Object(unknown) = parse(text, field)? else {
                return Err(ParquetError::General(format!(
                    "{UNKNOWN_FIELDS} holds JSON that is not an object"
                )));
            };
            // A field sent as `null` is kept there; it goes back beside the typed ones.
            object.extend(unknown);
        }
        return Ok(());
    }
    if let Some(value) = value_at(field, column, i)? {
        object.insert(field.name().clone(), value);
    }
    Ok(())
}

/// The JSON value at row `i` of a column of `field`'s type; `None` for a null.
fn value_at(field: &Field, column: &dyn Array, i: usize) -> Result<Option<Value>, ParquetError> {
    if column.is_null(i) || column.data_type() == &DataType::Null {
        return Ok(None);
    }
    let json_text = field.metadata().get(ENCODING.0).map(String::as_str) == Some(ENCODING.1);
    let value = match column.data_type() {
        DataType::Utf8 => {
            let text = column.as_string::<i32>().value(i);
            if json_text {
                parse(text, field)?
            } else {
                Value::String(text.to_owned())
            }
        }
        DataType::Int64 => Value::from(column.as_primitive::<Int64Type>().value(i)),
        DataType::UInt32 => Value::from(column.as_primitive::<UInt32Type>().value(i)),
        DataType::UInt64 => Value::from(column.as_primitive::<UInt64Type>().value(i)),
        DataType::Float64 => Value::from(column.as_primitive::<Float64Type>().value(i)),
        DataType::Boolean => Value::Bool(column.as_boolean().value(i)),
        DataType::Struct(fields) => {
            let s: &StructArray = column.as_struct();
            let mut object = Map::new();
            for (f, c) in fields.iter().zip(s.columns()) {
                put(&mut object, f, c.as_ref(), i)?;
            }
            Value::Object(object)
        }
        DataType::List(item) => {
            let items = column.as_list::<i32>().value(i);
            let mut out = Vec::with_capacity(items.len());
            for j in 0..items.len() {
                out.push(value_at(item, items.as_ref(), j)?.unwrap_or(Value::Null));
            }
            Value::Array(out)
        }
        other => {
            return Err(ParquetError::General(format!(
                "column {}: {other} is not a type records are written as",
                field.name()
            )));
        }
    };
    Ok(Some(value))
}

fn parse(text: &str, field: &Field) -> Result<Value, ParquetError> {
    serde_json::from_str(text)
        .map_err(|e| ParquetError::General(format!("column {}: not JSON: {e}", field.name())))
}
