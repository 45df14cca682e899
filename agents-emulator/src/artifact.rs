//! Job artifacts as files: JSON lines, CSV (one column per top-level field, in order of first
//! appearance; nested values as JSON text) or Parquet (zstd; the schema inferred from the rows
//! by arrow-json, so nested objects are structs and lists are lists, readable by any Parquet
//! reader). Every format keeps the order the rows give their fields in, nested ones included.

#[cfg(feature = "parquet")]
use std::io::Cursor;
#[cfg(feature = "parquet")]
use std::sync::Arc;

use agents_schema::Json as Written;

use crate::job_model::Row;

/// The bytes of `rows` in `format` (`jsonl`, `csv` or `parquet`), and their content type.
pub fn write(format: &str, rows: &[Row]) -> Result<(Vec<u8>, &'static str), String> {
    match format {
        "csv" => csv(rows).map(|b| (b, "text/csv")),
        #[cfg(feature = "parquet")]
        "parquet" => parquet(rows).map(|b| (b, "application/vnd.apache.parquet")),
        _ => Ok((jsonl(rows), "application/x-ndjson")),
    }
}

fn jsonl(rows: &[Row]) -> Vec<u8> {
    let mut out = Vec::new();
    for row in rows {
        // A map of JSON values always serializes.
        if serde_json::to_writer(&mut out, row).is_ok() {
            out.push(b'\n');
        }
    }
    out
}

/// The keys of `rows`, each once, in the order the rows first name them.
pub(crate) fn columns(rows: &[Row]) -> Vec<&str> {
    first_named(rows.iter()).into_iter().collect()
}

/// The keys of `objects`, each once, in the order they first name them.
fn first_named<'a>(objects: impl Iterator<Item = &'a Row>) -> indexmap::IndexSet<&'a str> {
    let mut seen = indexmap::IndexSet::new();
    for object in objects {
        seen.extend(object.keys().map(String::as_str));
    }
    seen
}

fn csv(rows: &[Row]) -> Result<Vec<u8>, String> {
    let columns = columns(rows);
    let mut w = ::csv::Writer::from_writer(Vec::new());
    w.write_record(&columns).map_err(|e| e.to_string())?;
    for row in rows {
        let cells = columns.iter().map(|c| match row.get(*c) {
            None | Some(Written::Null) => String::new(),
            Some(Written::String(s)) => s.clone(),
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
fn parquet(rows: &[Row]) -> Result<Vec<u8>, String> {
    let values: Vec<serde_json::Value> = rows
        .iter()
        .map(|row| {
            serde_json::Value::Object(row.iter().map(|(k, v)| (k.clone(), v.to_value())).collect())
        })
        .collect();
    let inferred = arrow_json::reader::infer_json_schema_from_iterator(values.iter().map(Ok))
        .map_err(|e| format!("cannot infer a schema: {e}"))?;
    // The inference reads `Value`s, which sort their keys: the fields go back in the rows' order.
    let fields = in_rows_order(inferred.fields(), rows.iter().collect());
    let schema = Arc::new(arrow_schema::Schema::new(fields));
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

/// The `fields` inferred from `objects`, in the order the objects first name them, and so on
/// at every depth.
#[cfg(feature = "parquet")]
fn in_rows_order(fields: &arrow_schema::Fields, objects: Vec<&Row>) -> arrow_schema::Fields {
    let order = first_named(objects.iter().copied());
    let rank = |name: &str| order.get_index_of(name).unwrap_or(order.len());
    let mut sorted: Vec<_> = fields.iter().collect();
    sorted.sort_by_key(|f| rank(f.name()));
    sorted
        .into_iter()
        .map(|f| {
            let below = objects.iter().filter_map(|o| o.get(f.name())).collect();
            arrow_schema::Field::clone(f).with_data_type(type_in_rows_order(f.data_type(), below))
        })
        .collect()
}

/// `ty` inferred from `examples` (the values at its place), its struct fields in the order the
/// examples first name them.
#[cfg(feature = "parquet")]
fn type_in_rows_order(
    ty: &arrow_schema::DataType,
    examples: Vec<&Written>,
) -> arrow_schema::DataType {
    use arrow_schema::{DataType, Field};
    match ty {
        DataType::Struct(fields) => {
            let objects = examples.iter().filter_map(|e| e.as_object()).collect();
            DataType::Struct(in_rows_order(fields, objects))
        }
        DataType::List(item) => {
            let items = examples
                .iter()
                .filter_map(|e| e.as_array())
                .flatten()
                .collect();
            let item =
                Field::clone(item).with_data_type(type_in_rows_order(item.data_type(), items));
            DataType::List(Arc::new(item))
        }
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows() -> Vec<Row> {
        [
            r#"{"_input_index": 0, "title": "a, b", "price": 1.5, "tags": ["x"],
                "seller": {"name": "s", "city": "c"}, "offers": [{"shop": "x", "at": 2}]}"#,
            r#"{"_input_index": 1, "title": "c", "price": null, "tags": [], "extra": true}"#,
        ]
        .into_iter()
        .filter_map(|text| match serde_json::from_str(text).unwrap() {
            Written::Object(fields) => Some(fields),
            _ => None,
        })
        .collect()
    }

    #[test]
    fn csv_has_every_column_once_and_quotes_what_needs_it() {
        let (bytes, _) = write("csv", &rows()).unwrap();
        let text = String::from_utf8(bytes).unwrap();
        let mut lines = text.lines();
        // Columns in the order rows first name them.
        assert_eq!(
            lines.next(),
            Some("_input_index,title,price,tags,seller,offers,extra")
        );
        assert_eq!(
            lines.next(),
            Some(
                r#"0,"a, b",1.5,"[""x""]","{""name"":""s"",""city"":""c""}","[{""shop"":""x"",""at"":2}]","#
            )
        );
        assert_eq!(lines.next(), Some("1,c,,[],,,true"));
    }

    #[test]
    fn json_lines_keep_the_order_of_each_row() {
        let (bytes, _) = write("jsonl", &rows()).unwrap();
        let text = String::from_utf8(bytes).unwrap();
        assert!(
            text.starts_with(r#"{"_input_index":0,"title":"a, b","price":1.5,"tags":["x"],"seller":{"name":"s","city":"c"}"#),
            "{text}"
        );
    }

    #[cfg(feature = "parquet")]
    #[test]
    fn parquet_reads_back_with_the_parquet_reader_in_the_rows_order() {
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
        let names = |fields: &arrow_schema::Fields| -> Vec<String> {
            fields.iter().map(|f| f.name().clone()).collect()
        };
        assert_eq!(
            names(schema.fields()),
            [
                "_input_index",
                "title",
                "price",
                "tags",
                "seller",
                "offers",
                "extra"
            ]
        );
        let arrow_schema::DataType::Struct(seller) =
            schema.field_with_name("seller").unwrap().data_type()
        else {
            panic!("seller is not a struct: {schema:?}");
        };
        assert_eq!(names(seller), ["name", "city"]);
        let arrow_schema::DataType::List(offer) =
            schema.field_with_name("offers").unwrap().data_type()
        else {
            panic!("offers is not a list: {schema:?}");
        };
        let arrow_schema::DataType::Struct(offer) = offer.data_type() else {
            panic!("an offer is not a struct: {schema:?}");
        };
        assert_eq!(names(offer), ["shop", "at"]);
    }
}
