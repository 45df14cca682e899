//! Records into a Parquet file, one row group at a time. Records are turned into Arrow columns a
//! chunk of [`CHUNK`] at a time and handed to the Parquet encoder, which keeps the row group
//! being filled in encoded form and writes it out when it is full: in memory there is one
//! chunk of records and at most one encoded row group, never a row group of records.

use std::io::Write;
use std::marker::PhantomData;
use std::sync::Arc;

use arrow_array::{ArrayRef, RecordBatch, UInt64Array};
use arrow_schema::{DataType, Field, Fields, Schema, SchemaRef};
use serde_json::{Map, Value};

use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::errors::ParquetError;
use parquet::file::properties::WriterProperties;

use super::{Columnar, INPUT, ROW, object_column, record_batch, schema};
use crate::decode::Record;

/// Records turned into columns at a time.
pub const CHUNK: usize = 1_024;

/// Bytes a column's open data page or dictionary may hold before it is encoded and compressed.
const PAGE_LIMIT: usize = 128 * 1024;

/// How a [`ParquetWriter`] writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParquetOptions {
    /// Records per row group (default 2,000); the writer holds at most one row group, encoded.
    /// The Parquet encoder keeps an open row group in memory at several times its size in the
    /// file (a `retailer_a_pdp` record has hundreds of leaf columns; BENCHMARKS.md has the sizes), so
    /// this is what bounds the writer's memory.
    pub row_group_size: usize,
    /// zstd compression level, 1 to 22 (default 3).
    pub zstd_level: i32,
    /// A leading `_row` column (UInt64) with the number given to [`ParquetWriter::write_row`]:
    /// the input a record came from (default false).
    pub row_column: bool,
    /// With `row_column`, a second column `_input`: a struct of these fields (Int64, Float64,
    /// Boolean, or a List of one of these or of Utf8; any other type a Utf8 column of strings,
    /// other values as JSON text) from the object given to
    /// [`ParquetWriter::write_row_with_input`], to join results with their inputs (default none).
    pub input: Option<Fields>,
}

impl Default for ParquetOptions {
    fn default() -> Self {
        ParquetOptions {
            row_group_size: 2_000,
            zstd_level: 3,
            row_column: false,
            input: None,
        }
    }
}

/// Writes records of `T` as Parquet into `W`, with the schema of
/// [`columnar::schema`](super::schema) (stored in the file, so Arrow readers get the same
/// types and metadata back).
///
/// ```
/// use agents_runtime::catalog::RetailerAPdp;
/// use agents_runtime::columnar::{ParquetOptions, ParquetWriter};
///
/// let mut writer = ParquetWriter::<RetailerAPdp, _>::new(Vec::new(), ParquetOptions::default())?;
/// writer.write(serde_json::from_str(r#"{"product_title": "Kettle", "web_price": 25}"#)?)?;
/// let bytes = writer.finish()?;
/// assert!(bytes.starts_with(b"PAR1"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct ParquetWriter<T, W: Write + Send> {
    writer: ArrowWriter<W>,
    schema: SchemaRef,
    /// Records not yet turned into columns.
    chunk: Vec<T>,
    /// The `_row` of each record of `chunk`, when the file has that column.
    chunk_rows: Option<Vec<u64>>,
    /// The `_input` fields and each record's input, when the file has that column.
    chunk_inputs: Option<(Fields, Vec<Map<String, Value>>)>,
    row_group_size: usize,
    /// Records in the row group being filled (handed to the encoder).
    in_group: usize,
    /// Records in row groups already written.
    rows: usize,
    _records: PhantomData<fn(T)>,
}

impl<T: Columnar + Record, W: Write + Send> ParquetWriter<T, W> {
    /// A writer into `out`.
    pub fn new(out: W, options: ParquetOptions) -> Result<Self, ParquetError> {
        let row_group_size = options.row_group_size.max(1);
        let properties = WriterProperties::builder()
            .set_compression(Compression::ZSTD(ZstdLevel::try_new(options.zstd_level)?))
            .set_max_row_group_row_count(Some(row_group_size))
            // The encoder keeps each column's open page (and its dictionary) uncompressed until
            // a limit is reached; an agent record has hundreds of leaf columns, so the default
            // 1 MiB limits would let the open pages of one row group alone take hundreds of MB.
            .set_data_page_size_limit(PAGE_LIMIT)
            .set_dictionary_page_size_limit(PAGE_LIMIT)
            .build();
        let input = options.input.filter(|_| options.row_column);
        let schema = if options.row_column {
            let mut fields = vec![Arc::new(Field::new(ROW, DataType::UInt64, false))];
            if let Some(input) = &input {
                fields.push(Arc::new(Field::new(
                    INPUT,
                    DataType::Struct(nullable(input)),
                    false,
                )));
            }
            fields.extend(schema::<T>().fields().iter().cloned());
            Arc::new(Schema::new(fields))
        } else {
            schema::<T>()
        };
        Ok(ParquetWriter {
            writer: ArrowWriter::try_new(out, schema.clone(), Some(properties))?,
            schema,
            chunk: Vec::with_capacity(CHUNK),
            chunk_rows: options.row_column.then(Vec::new),
            chunk_inputs: input.map(|f| (nullable(&f), Vec::new())),
            row_group_size,
            in_group: 0,
            rows: 0,
            _records: PhantomData,
        })
    }

    /// Adds a record; a full row group is written out. A file with a `_row` column takes its
    /// records through [`ParquetWriter::write_row`].
    pub fn write(&mut self, record: T) -> Result<(), ParquetError> {
        if self.chunk_rows.is_some() {
            return Err(ParquetError::General(
                "this file has a _row column: write its records with write_row".to_owned(),
            ));
        }
        self.push(record)
    }

    /// Adds a record with the input row it came from, for a file with a `_row` column
    /// ([`ParquetOptions::row_column`]) and no `_input` column.
    pub fn write_row(&mut self, row: u64, record: T) -> Result<(), ParquetError> {
        if self.chunk_inputs.is_some() {
            return Err(ParquetError::General(
                "this file has an _input column: write its records with write_row_with_input"
                    .to_owned(),
            ));
        }
        self.push_row(row, record)
    }

    /// Adds a record with the input row it came from and that row's inputs, for a file with
    /// `_row` and `_input` columns ([`ParquetOptions::input`]).
    pub fn write_row_with_input(
        &mut self,
        row: u64,
        input: Map<String, Value>,
        record: T,
    ) -> Result<(), ParquetError> {
        match &mut self.chunk_inputs {
            Some((_, inputs)) => inputs.push(input),
            None => {
                return Err(ParquetError::General(
                    "this file has no _input column: set ParquetOptions::input".to_owned(),
                ));
            }
        }
        self.push_row(row, record)
    }

    fn push_row(&mut self, row: u64, record: T) -> Result<(), ParquetError> {
        match &mut self.chunk_rows {
            Some(rows) => rows.push(row),
            None => {
                return Err(ParquetError::General(
                    "this file has no _row column: set ParquetOptions::row_column".to_owned(),
                ));
            }
        }
        self.push(record)
    }

    fn push(&mut self, record: T) -> Result<(), ParquetError> {
        self.chunk.push(record);
        if self.chunk.len() >= CHUNK.min(self.row_group_size - self.in_group) {
            self.encode_chunk()?;
        }
        Ok(())
    }

    /// Records written so far (including those of the row group being filled).
    pub fn rows(&self) -> usize {
        self.rows + self.in_group + self.chunk.len()
    }

    /// Hands the chunk to the encoder as one batch; a full row group is written out.
    fn encode_chunk(&mut self) -> Result<(), ParquetError> {
        if self.chunk.is_empty() {
            return Ok(());
        }
        let mut batch = record_batch(&self.chunk)?;
        if let Some(rows) = &mut self.chunk_rows {
            let mut columns: Vec<ArrayRef> =
                vec![Arc::new(UInt64Array::from(std::mem::take(rows)))];
            if let Some((fields, inputs)) = &mut self.chunk_inputs {
                let objects: Vec<&Map<String, Value>> = inputs.iter().collect();
                columns.push(object_column(fields, &objects));
                inputs.clear();
            }
            columns.extend(batch.columns().iter().cloned());
            batch = RecordBatch::try_new(self.schema.clone(), columns)?;
        }
        self.writer.write(&batch)?;
        self.in_group += self.chunk.len();
        self.chunk.clear();
        if self.in_group >= self.row_group_size {
            self.writer.flush()?;
            self.rows += self.in_group;
            self.in_group = 0;
        }
        Ok(())
    }

    /// Writes the last row group and the file's footer; returns `out`.
    pub fn finish(mut self) -> Result<W, ParquetError> {
        self.encode_chunk()?;
        self.writer.into_inner()
    }
}

/// `fields` as [`object_column`] writes them: every field nullable (an input a row did not give
/// is null), and Utf8 for a type other than Int64, Float64, Boolean and a List of one of these
/// or of Utf8.
fn nullable(fields: &Fields) -> Fields {
    fields
        .iter()
        .map(|f| Arc::new(Field::new(f.name(), written_type(f.data_type()), true)))
        .collect()
}

fn written_type(ty: &DataType) -> DataType {
    match ty {
        t @ (DataType::Int64 | DataType::Float64 | DataType::Boolean) => t.clone(),
        DataType::List(item) => DataType::List(Arc::new(Field::new(
            item.name(),
            written_type(item.data_type()),
            true,
        ))),
        _ => DataType::Utf8,
    }
}
