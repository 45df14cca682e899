//! Parquet files of records read back into the typed records they were written from.

use std::collections::BTreeMap;
use std::marker::PhantomData;

use arrow_array::cast::AsArray;
use arrow_array::types::{Float64Type, Int64Type, UInt32Type, UInt64Type};
use arrow_array::{Array, RecordBatch, StructArray};
use arrow_schema::{DataType, Field, Fields};
use parquet::arrow::ProjectionMask;
use parquet::arrow::arrow_reader::{ParquetRecordBatchReader, ParquetRecordBatchReaderBuilder};
use parquet::errors::ParquetError;
use parquet::file::reader::ChunkReader;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::{
    BREACH_COUNT, BREACHES, ENCODING, INPUT, MISMATCH_COUNT, MISMATCHES, ROW, UNKNOWN_FIELDS,
    object_column,
};
use crate::decode::{Mismatch, Record};

/// One record read back, with the input row it came from when the file has a `_row` column.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadRecord<T> {
    /// The `_row` column, when the file has one ([`ParquetOptions::row_column`](super::ParquetOptions::row_column)).
    pub row: Option<u64>,
    /// The `_input` column, when the file has one ([`ParquetOptions::input`](super::ParquetOptions::input)):
    /// the row's inputs as the column holds them (see [`row_inputs`]).
    pub input: Option<Map<String, Value>>,
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
        let mut input = None;
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
                INPUT => input = object_at(field, column, i)?,
                MISMATCH_COUNT | BREACH_COUNT | BREACHES => {}
                _ => put(&mut object, field, column, i)?,
            }
        }
        let mut record = T::deserialize(Value::Object(object))
            .map_err(|e| ParquetError::General(format!("row {i}: {e}")))?;
        if !mismatches.is_empty() {
            record.set_mismatches(mismatches);
        }
        Ok(ReadRecord { row, input, record })
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

/// The input rows a Parquet file holds records of, each with its inputs: the `_row` column and,
/// when the file has one, the `_input` column, read without the records' columns. Records of
/// one row share its inputs, so each row is listed once.
///
/// Inputs come back as their column holds them: an Int64 or Boolean input as it was, a Float64
/// one as a double (`25` becomes `25.0`), any other one as text (a value that was not a string
/// as its JSON text). To ask whether a file holds a row's inputs, compare with those inputs
/// put through the same column ([`inputs_as_written`]).
///
/// ```
/// use agents_runtime::catalog::RetailerAPdp;
/// use agents_runtime::columnar::{ParquetOptions, ParquetWriter, row_inputs};
/// use arrow_schema::{DataType, Field, Fields};
///
/// let options = ParquetOptions {
///     row_column: true,
///     input: Some(vec![Field::new("asin", DataType::Utf8, true)].into()),
///     ..ParquetOptions::default()
/// };
/// let path = std::env::temp_dir().join(format!("inputs-{}.parquet", std::process::id()));
/// let mut writer = ParquetWriter::<RetailerAPdp, _>::new(std::fs::File::create(&path)?, options)?;
/// let input = serde_json::json!({"asin": "B0TEST0001"});
/// let input = input.as_object().cloned().unwrap_or_default();
/// writer.write_row_with_input(7, input.clone(), serde_json::from_str("{}")?)?;
/// writer.write_row_with_input(7, input.clone(), serde_json::from_str("{}")?)?;
/// writer.finish()?;
///
/// let rows = row_inputs(std::fs::File::open(&path)?)?;
/// assert_eq!(rows.len(), 1); // two records of one row
/// assert_eq!(rows.get(&7), Some(&Some(input)));
/// std::fs::remove_file(&path)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn row_inputs(
    file: impl ChunkReader + 'static,
) -> Result<BTreeMap<u64, Option<Map<String, Value>>>, ParquetError> {
    let builder = ParquetRecordBatchReaderBuilder::try_new(file)?;
    let fields = builder.schema().fields();
    let at = |name: &str| fields.iter().position(|f| f.name() == name);
    let Some(row_at) = at(ROW) else {
        return Err(ParquetError::General(format!("it has no {ROW} column")));
    };
    let roots: Vec<usize> = [Some(row_at), at(INPUT)].into_iter().flatten().collect();
    let mask = ProjectionMask::roots(builder.parquet_schema(), roots);
    let mut rows = BTreeMap::new();
    for batch in builder.with_projection(mask).build()? {
        let batch = batch?;
        let Some(numbers) = batch
            .column_by_name(ROW)
            .and_then(|c| c.as_primitive_opt::<UInt64Type>())
        else {
            return Err(ParquetError::General(format!(
                "its {ROW} column is not UInt64"
            )));
        };
        let schema = batch.schema();
        let input = schema
            .field_with_name(INPUT)
            .ok()
            .zip(batch.column_by_name(INPUT));
        for i in 0..batch.num_rows() {
            if numbers.is_null(i) {
                continue;
            }
            let given = match input {
                Some((field, column)) => object_at(field, column, i)?,
                None => None,
            };
            rows.entry(numbers.value(i)).or_insert(given);
        }
    }
    Ok(rows)
}

/// `objects` as an `_input` column of `fields` holds them, read back as [`row_inputs`] reads
/// them: what a file written now would hold, to compare with what a file holds.
pub fn inputs_as_written(
    fields: &Fields,
    objects: &[&Map<String, Value>],
) -> Result<Vec<Map<String, Value>>, ParquetError> {
    let column = object_column(fields, objects);
    let field = Field::new(INPUT, column.data_type().clone(), true);
    (0..objects.len())
        .map(|i| Ok(object_at(&field, column.as_ref(), i)?.unwrap_or_default()))
        .collect()
}

/// The object at row `i` of a struct column (an `_input`); `None` for a null or another type.
fn object_at(
    field: &Field,
    column: &dyn Array,
    i: usize,
) -> Result<Option<Map<String, Value>>, ParquetError> {
    Ok(match value_at(field, column, i)? {
        Some(Value::Object(object)) => Some(object),
        _ => None,
    })
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
