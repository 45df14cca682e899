//! Job artifacts as files: JSON lines, CSV (one column per top-level field, in order of first
//! appearance; nested values as JSON text) or Parquet (zstd; the schema inferred from the rows
//! by arrow-json, so nested objects are structs and lists are lists, readable by any Parquet
//! reader).

#[cfg(feature = "parquet")]
use std::io::Cursor;
#[cfg(feature = "parquet")]
use std::sync::Arc;

use serde_json::{Map, Value};

/// The bytes of `rows` in `format` (`jsonl`, `csv` or `parquet`), and their content type.
pub fn write(format: &str, rows: &[Map<String, Value>]) -> Result<(Vec<u8>, &'static str), String> {
    match format {
        "csv" => csv(rows).map(|b| (b, "text/csv")),
        #[cfg(feature = "parquet")]
        "parquet" => parquet(rows).map(|b| (b, "application/vnd.apache.parquet")),
        _ => Ok((jsonl(rows), "application/x-ndjson")),
    }
}

fn jsonl(rows: &[Map<String, Value>]) -> Vec<u8> {
    let mut out = Vec::new();
    for row in rows {
        // A map of JSON values always serializes.
        if serde_json::to_writer(&mut out, row).is_ok() {
            out.push(b'\n');
        }
    }
    out
}

fn csv(rows: &[Map<String, Value>]) -> Result<Vec<u8>, String> {
    let mut columns: Vec<&str> = Vec::new();
    for row in rows {
        for k in row.keys() {
            if !columns.contains(&k.as_str()) {
                columns.push(k);
            }
        }
    }
    let mut w = ::csv::Writer::from_writer(Vec::new());
    w.write_record(&columns).map_err(|e| e.to_string())?;
    for row in rows {
        let cells = columns.iter().map(|c| match row.get(*c) {
            None | Some(Value::Null) => String::new(),
            Some(Value::String(s)) => s.clone(),
            Some(other) => other.to_string(),
        });
        w.write_record(cells).map_err(|e| e.to_string())?;
    }
    w.into_inner().map_err(|e| e.to_string())
}

/// The formats this build writes.
pub const FORMATS: &[&str] = &[
    "jsonl",
    "csv",
    #[cfg(feature = "parquet")]
    "parquet",
];

#[cfg(feature = "parquet")]
fn parquet(rows: &[Map<String, Value>]) -> Result<Vec<u8>, String> {
    let values: Vec<Value> = rows.iter().cloned().map(Value::Object).collect();
    let schema = arrow_json::reader::infer_json_schema_from_iterator(values.iter().map(Ok))
        .map_err(|e| format!("cannot infer a schema: {e}"))?;
    let schema = Arc::new(schema);
    let text = jsonl(rows);
    let reader = arrow_json::ReaderBuilder::new(schema.clone())
        .with_batch_size(1_024)
        .build(Cursor::new(text))
        .map_err(|e| e.to_string())?;
    let props = parquet::file::properties::WriterProperties::builder()
        .set_compression(parquet::basic::Compression::ZSTD(Default::default()))
        .build();
    let mut out = Vec::new();
    let mut writer = parquet::arrow::ArrowWriter::try_new(&mut out, schema, Some(props))
        .map_err(|e| e.to_string())?;
    for batch in reader {
        let batch = batch.map_err(|e| e.to_string())?;
        writer.write(&batch).map_err(|e| e.to_string())?;
    }
    writer.close().map_err(|e| e.to_string())?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn rows() -> Vec<Map<String, Value>> {
        [
            json!({"_input_index": 0, "title": "a, b", "price": 1.5, "tags": ["x"], "seller": {"name": "s"}}),
            json!({"_input_index": 1, "title": "c", "price": null, "tags": [], "extra": true}),
        ]
        .into_iter()
        .filter_map(|v| v.as_object().cloned())
        .collect()
    }

    #[test]
    fn csv_has_every_column_once_and_quotes_what_needs_it() {
        let (bytes, _) = write("csv", &rows()).unwrap();
        let text = String::from_utf8(bytes).unwrap();
        let mut lines = text.lines();
        // Columns in the order rows first name them (a row's keys come in key order).
        assert_eq!(
            lines.next(),
            Some("_input_index,price,seller,tags,title,extra")
        );
        assert_eq!(
            lines.next(),
            Some(r#"0,1.5,"{""name"":""s""}","[""x""]","a, b","#)
        );
        assert_eq!(lines.next(), Some("1,,,[],c,true"));
    }

    #[cfg(feature = "parquet")]
    #[test]
    fn parquet_reads_back_with_the_parquet_reader() {
        let (bytes, _) = write("parquet", &rows()).unwrap();
        let reader = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(
            bytes::Bytes::from(bytes),
        )
        .unwrap()
        .build()
        .unwrap();
        let batches: Vec<_> = reader.map(Result::unwrap).collect();
        assert_eq!(batches.iter().map(|b| b.num_rows()).sum::<usize>(), 2);
        let schema = batches[0].schema();
        assert!(
            schema
                .field_with_name("seller")
                .unwrap()
                .data_type()
                .is_nested()
        );
    }
}
