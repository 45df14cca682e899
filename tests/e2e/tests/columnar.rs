#![allow(clippy::unwrap_used)] // test helpers outside #[test] fns
//! Typed records → Parquet, read back by readers we did not write (the `parquet` crate's Arrow
//! reader, then arrow-json's writer) and compared value by value with the records: nested
//! lists of structs, nulls, unknown keys at every depth and mismatches included.

use agents_emulator::Fault;
use agents_runtime::catalog::{RetailerAPdp, RetailerAPdpParams, RetailerASerp};
use agents_runtime::columnar::{self, ParquetOptions, ParquetReader, ParquetWriter, ReadRecord};
use agents_runtime::{Mismatch, Record};
use agents_tests_e2e::{KEY, client, emulator};
use arrow_array::RecordBatch;
use arrow_schema::{DataType, Field};
use futures::StreamExt;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use serde_json::{Map, Value, json};

/// Writes `records` to Parquet in row groups of `group`, reads the file back with the parquet
/// crate's reader: the batches and the number of row groups. The runtime's own reader
/// (`ParquetReader`) gives the records back exactly, rows numbered as written.
fn round_trip<T>(records: Vec<T>, group: usize) -> (Vec<RecordBatch>, usize)
where
    T: columnar::Columnar
        + Record
        + serde::de::DeserializeOwned
        + Clone
        + PartialEq
        + std::fmt::Debug,
{
    let expected = records.clone();
    let mut writer = ParquetWriter::<T, _>::new(
        Vec::new(),
        ParquetOptions {
            row_group_size: group,
            row_column: true,
            ..ParquetOptions::default()
        },
    )
    .unwrap();
    for (i, r) in records.into_iter().enumerate() {
        writer.write_row(i as u64 + 1, r).unwrap();
    }
    let bytes = bytes::Bytes::from(writer.finish().unwrap());
    let read: Vec<ReadRecord<T>> = ParquetReader::new(bytes.clone())
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let rows: Vec<Option<u64>> = read.iter().map(|r| r.row).collect();
    assert_eq!(
        rows,
        (1..=expected.len() as u64).map(Some).collect::<Vec<_>>()
    );
    let back: Vec<T> = read.into_iter().map(|r| r.record).collect();
    assert_eq!(back, expected);
    let builder = ParquetRecordBatchReaderBuilder::try_new(bytes).unwrap();
    let groups = builder.metadata().num_row_groups();
    let batches = builder.build().unwrap().map(Result::unwrap).collect();
    (batches, groups)
}

/// The rows as JSON objects, through arrow-json's writer.
fn rows(batches: &[RecordBatch]) -> Vec<Map<String, Value>> {
    let mut writer = arrow_json::ArrayWriter::new(Vec::new());
    let refs: Vec<&RecordBatch> = batches.iter().collect();
    writer.write_batches(&refs).unwrap();
    writer.finish().unwrap();
    let text = writer.into_inner();
    if text.is_empty() {
        return Vec::new();
    }
    serde_json::from_slice::<Vec<Map<String, Value>>>(&text).unwrap()
}

/// Parses the JSON text of the columns the schema marks `encoding: json`, at any depth, and
/// puts each struct's `_unknown_fields` back into its object.
fn restore(field: &Field, v: &mut Value) {
    if field.metadata().get("encoding").map(String::as_str) == Some("json") {
        if let Value::String(text) = v {
            *v = serde_json::from_str(text).unwrap();
        }
        return;
    }
    match (field.data_type(), v) {
        (DataType::List(item), Value::Array(items)) => {
            items.iter_mut().for_each(|i| restore(item, i));
        }
        (DataType::Struct(fields), Value::Object(m)) => {
            restore_object(fields.iter().map(|f| &**f), m)
        }
        _ => {}
    }
}

fn restore_object<'a>(fields: impl Iterator<Item = &'a Field>, m: &mut Map<String, Value>) {
    for f in fields {
        if let Some(v) = m.get_mut(f.name()) {
            restore(f, v);
        }
    }
    if let Some(Value::Object(extra)) = m.remove(columnar::UNKNOWN_FIELDS) {
        m.extend(extra);
    }
}

/// A row read back, decoded into `T` again, with its mismatches from `_mismatches` (and its
/// breaches, which decoding finds again, checked against `_breaches`).
fn decode_row<T: columnar::Columnar + Record + serde::de::DeserializeOwned>(
    mut row: Map<String, Value>,
) -> T {
    let schema = columnar::schema::<T>();
    row.remove(columnar::ROW);
    restore_object(schema.fields().iter().map(|f| &**f), &mut row);
    let count = row.remove(columnar::MISMATCH_COUNT).unwrap();
    let mismatches: Vec<Mismatch> = match row.remove(columnar::MISMATCHES) {
        Some(v) => serde_json::from_value(v).unwrap(),
        None => Vec::new(),
    };
    assert_eq!(count, json!(mismatches.len()));
    let count = row.remove(columnar::BREACH_COUNT).unwrap();
    let breaches: Vec<agents_runtime::Breach> = match row.remove(columnar::BREACHES) {
        Some(v) => serde_json::from_value(v).unwrap(),
        None => Vec::new(),
    };
    assert_eq!(count, json!(breaches.len()));
    let mut record: T = serde_json::from_value(Value::Object(row)).unwrap();
    record.set_mismatches(mismatches);
    // Decoding again finds the same breaches the file recorded.
    assert_eq!(record.breaches(), breaches);
    record
}

#[test]
fn the_schema_comes_from_the_types_with_json_names_and_descriptions() {
    let schema = columnar::schema::<RetailerAPdp>();
    let web_price = schema.field_with_name("web_price").unwrap();
    assert_eq!(web_price.data_type(), &DataType::Float64);
    assert_eq!(web_price.metadata()["description"], "Current price (USD)");
    // A JSON name that is not a Rust name keeps its JSON spelling.
    assert!(schema.field_with_name("UPC").is_ok());
    assert!(schema.field_with_name("upc").is_err());
    let DataType::List(item) = schema.field_with_name("top_reviews").unwrap().data_type() else {
        panic!("top_reviews is not a list");
    };
    let DataType::Struct(fields) = item.data_type() else {
        panic!("top_reviews items are not structs");
    };
    let names: Vec<&str> = fields.iter().map(|f| f.name().as_str()).collect();
    assert_eq!(
        names,
        ["stars", "review_title", "review_body", "_unknown_fields"]
    );
    // Untyped arrays hold JSON text.
    let DataType::List(item) = schema.field_with_name("promos").unwrap().data_type() else {
        panic!("promos is not a list");
    };
    assert_eq!(item.data_type(), &DataType::Utf8);
    let last: Vec<&str> = schema
        .fields()
        .iter()
        .rev()
        .take(5)
        .map(|f| f.name().as_str())
        .collect();
    assert_eq!(
        last,
        [
            "_breaches",
            "_breach_count",
            "_mismatches",
            "_mismatch_count",
            "_unknown_fields"
        ]
    );
}

#[test]
fn nested_lists_nulls_unknown_keys_and_mismatches_survive_parquet() {
    let texts = [
        // Nested list of structs, an unknown key at the root and inside a list item, drift.
        r#"{"product_title": "Kettle", "web_price": "$1,299.00", "availability": true,
            "top_reviews": [{"stars": 5, "review_title": "good", "lang": "en"}, {"stars": "4"}],
            "frequently_bought_with": {"total_price": "$30", "products": [{"asin": "B1", "title": "Cup"}]},
            "promos": [{"kind": "coupon"}, 3], "color_hex": "fff"}"#,
        // Nearly empty: every other column null; an empty list stays empty, not null.
        r#"{"product_title": null, "top_reviews": []}"#,
        // Values of the wrong shape: kept as mismatches, fields left empty.
        r#"{"web_price": {"amount": 3}, "top_reviews": "none", "number_of_reviews": 12}"#,
    ];
    let records: Vec<RetailerAPdp> = texts
        .iter()
        .map(|t| serde_json::from_str(t).unwrap())
        .collect();
    assert!(!records[0].mismatches.is_empty() && !records[2].mismatches.is_empty());
    assert!(!records[0].unknown_fields.is_empty());
    let (batches, groups) = round_trip(records.clone(), 2);
    assert_eq!(groups, 2, "row groups of 2 records");
    let back: Vec<RetailerAPdp> = rows(&batches).into_iter().map(decode_row).collect();
    assert_eq!(back, records);
    // The empty list is an empty list, and an absent field is NULL.
    let reviews = batches[0].column_by_name("top_reviews").unwrap();
    assert!(reviews.is_valid(1) && reviews.is_null(2));
}

/// The inputs written beside records come back, from `ParquetReader` and from `row_inputs`
/// (read as arrow-json reads the column), as their columns hold them; `inputs_as_written` says
/// what a file written now would hold, so a resumed run can compare.
#[test]
fn inputs_come_back_as_their_columns_hold_them() {
    let fields: arrow_schema::Fields = vec![
        Field::new("asin", DataType::Utf8, true),
        Field::new("page", DataType::Int64, true),
        Field::new("below", DataType::Float64, true),
        Field::new("prime", DataType::Boolean, true),
        Field::new("filters", DataType::Utf8, true),
        Field::new(
            "stores",
            DataType::List(std::sync::Arc::new(Field::new(
                "item",
                DataType::Int64,
                true,
            ))),
            true,
        ),
    ]
    .into();
    let inputs = [
        json!({"asin": "B1", "page": 2, "below": 25, "prime": true, "filters": {"new": true}, "stores": [7, 9]}),
        json!({"asin": "B2", "below": 12.5, "stores": []}),
        // Not of their columns' types: those columns hold null (an item, a null item).
        json!({"asin": 7, "page": "two", "prime": "yes", "stores": [1, "x"]}),
    ];
    let inputs: Vec<Map<String, Value>> = inputs
        .iter()
        .map(|v| v.as_object().unwrap().clone())
        .collect();
    let mut writer = ParquetWriter::<RetailerAPdp, _>::new(
        Vec::new(),
        ParquetOptions {
            row_group_size: 2,
            row_column: true,
            input: Some(fields.clone()),
            ..ParquetOptions::default()
        },
    )
    .unwrap();
    for (row, input) in inputs.iter().enumerate() {
        // Two records of each row: its inputs are listed once.
        for _ in 0..2 {
            let record = serde_json::from_str("{}").unwrap();
            writer
                .write_row_with_input(row as u64, input.clone(), record)
                .unwrap();
        }
    }
    let bytes = bytes::Bytes::from(writer.finish().unwrap());
    let held = [
        json!({"asin": "B1", "page": 2, "below": 25.0, "prime": true, "filters": "{\"new\":true}", "stores": [7, 9]}),
        json!({"asin": "B2", "below": 12.5, "stores": []}),
        json!({"asin": "7", "stores": [1, null]}),
    ];
    let held: Vec<Map<String, Value>> = held
        .iter()
        .map(|v| v.as_object().unwrap().clone())
        .collect();

    let read: Vec<Option<Map<String, Value>>> = ParquetReader::<RetailerAPdp>::new(bytes.clone())
        .unwrap()
        .map(|r| r.unwrap().input)
        .collect();
    let twice: Vec<Option<Map<String, Value>>> = held
        .iter()
        .flat_map(|h| [Some(h.clone()), Some(h.clone())])
        .collect();
    assert_eq!(read, twice);

    let by_row = columnar::row_inputs(bytes.clone()).unwrap();
    let expected: std::collections::BTreeMap<u64, Option<Map<String, Value>>> = held
        .iter()
        .enumerate()
        .map(|(row, h)| (row as u64, Some(h.clone())))
        .collect();
    assert_eq!(by_row, expected);

    // A reader we did not write sees the same values in the `_input` column.
    let batches: Vec<RecordBatch> = ParquetRecordBatchReaderBuilder::try_new(bytes)
        .unwrap()
        .build()
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let theirs: Vec<Value> = rows(&batches)
        .into_iter()
        .map(|r| r["_input"].clone())
        .collect();
    let ours: Vec<Value> = twice
        .into_iter()
        .map(|h| Value::Object(h.unwrap()))
        .collect();
    assert_eq!(theirs, ours);

    let objects: Vec<&Map<String, Value>> = inputs.iter().collect();
    assert_eq!(
        columnar::inputs_as_written(&fields, &objects).unwrap(),
        held
    );
}

#[tokio::test]
async fn emulator_results_round_trip_exactly() {
    let e = emulator().await;
    e.inject(KEY, Fault::Drift, None);
    let c = client(&e);
    let items = (0..120).map(|i| RetailerAPdpParams::new(format!("B{i:09}")));
    let batch = c.batch::<RetailerAPdp>().submit(items).await.unwrap();
    let mut results = batch.results();
    let mut records = Vec::new();
    while let Some(r) = results.next().await {
        records.extend(r.unwrap().into_records());
    }
    assert_eq!(records.len(), 120);
    assert!(
        records.iter().any(|r| !r.mismatches.is_empty()),
        "drift gave no mismatches"
    );
    let (batches, groups) = round_trip(records.clone(), 50);
    assert_eq!(groups, 3);
    let mut back: Vec<RetailerAPdp> = rows(&batches).into_iter().map(decode_row).collect();
    let key = |r: &RetailerAPdp| r.asin.clone();
    let mut expected = records;
    expected.sort_by_key(key);
    back.sort_by_key(key);
    assert_eq!(back, expected);

    // A list agent: every record of every page.
    let serp = c
        .run(agents_runtime::catalog::RetailerASerpParams::new("earbuds"))
        .await
        .unwrap()
        .into_records();
    assert!(serp.len() > 1);
    let (batches, _) = round_trip::<RetailerASerp>(serp.clone(), 1000);
    let back: Vec<RetailerASerp> = rows(&batches).into_iter().map(decode_row).collect();
    assert_eq!(back, serp);
}
