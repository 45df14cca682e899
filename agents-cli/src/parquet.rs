//! `--out FILE.parquet`: the batch runs into a JSONL file beside the output (`FILE.parquet.partial.jsonl`,
//! with everything that makes `--resume` work), and when every row is done that file becomes the
//! Parquet file, record by record through the agent's typed bindings, one row group in memory at
//! a time. Only agents with typed bindings here (the catalog) can be written as Parquet: the
//! columns come from their types.
//!
//! The Parquet file is written under a temporary name and renamed when complete, so a file by
//! the output's name is always a finished one: `--resume` reads its `_row` column back.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use agents_runtime::columnar::{
    INPUT, ParquetOptions, ParquetWriter, ROW, inputs_as_written, row_inputs,
};
use agents_runtime::{Agent, AgentVisitor, catalog};
use agents_schema::AgentRecord;
use agents_schema::inputs::{ItemTy, ParamTy, param_type};
use arrow_array::{Array, StringArray};
use arrow_schema::{DataType, Field, Fields};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use serde_json::{Map, Value};

use crate::global::Failure;
use crate::inputs::Item;
use crate::output;

/// Refuses Parquet output for an agent without typed bindings, before anything is sent.
pub fn check_agent(agent: &str) -> Result<(), String> {
    struct Known;
    impl AgentVisitor for Known {
        type Output = ();
        fn visit<A: Agent>(self) {}
    }
    catalog::visit(agent, Known).ok_or_else(|| {
        format!(
            "Parquet output takes its columns from an agent's typed bindings, and `{agent}` is not \
             in the catalog; write .jsonl or .csv, or use agents_runtime::columnar with agent!(\"{agent}\")"
        )
    })
}

/// What a finished Parquet output and its failures file hold of the input file's `items`.
pub struct Finished {
    /// The rows done: those the Parquet file holds records of, and those that failed.
    pub done: HashSet<usize>,
    /// The rows done with other inputs than `items` now give them ([`output::changed`]): the
    /// input file was edited since the run.
    pub changed: Vec<String>,
}

/// Reads back the rows a finished Parquet output `out` holds (its `_row` column) with their
/// inputs (its `_input` column), and the rows of its `failures` file with theirs, and compares
/// those with `items`: a row's inputs as the file holds them against the row's inputs now, put
/// through the same column (a Float64 input is compared as a double, as it was written).
pub fn finished(
    out: &Path,
    failures: &Path,
    record: &AgentRecord,
    items: &[Item],
) -> Result<Finished, String> {
    let fail = |e: &dyn std::fmt::Display| {
        format!(
            "{}: {e}; it is not a Parquet file this command wrote: remove it or write to another file",
            out.display()
        )
    };
    let names: Vec<String> = record.inputs().iter().map(|i| i.name.clone()).collect();
    let file = File::open(out).map_err(|e| fail(&e))?;
    let held = row_inputs(file).map_err(|e| fail(&e))?;
    let mut done = HashSet::new();
    let mut in_file = HashMap::new();
    for (row, input) in held {
        let Ok(row) = usize::try_from(row) else {
            continue;
        };
        done.insert(row);
        // A file without an `_input` column holds no inputs to compare; its rows are done.
        if let Some(input) = input {
            in_file.insert(row, output::given(&names, &input));
        }
    }
    let params: Vec<&Map<String, Value>> = items.iter().map(|i| &i.params).collect();
    let now = inputs_as_written(&input_fields(record), &params).map_err(|e| fail(&e))?;
    let now = items
        .iter()
        .zip(&now)
        .map(|(item, input)| (item.row, output::given(&names, input)));
    let mut changed = output::changed(&names, &in_file, now);
    let failed = output::done_rows(failures, &names)?;
    let now = items
        .iter()
        .map(|item| (item.row, output::given(&names, &item.params)));
    changed.extend(output::changed(&names, &failed, now));
    done.extend(failed.into_keys());
    Ok(Finished { done, changed })
}

/// The field table of a finished Parquet output: each record column's values and nulls, and
/// the `_breaches` column's breaches by field and keyword.
pub fn table(out: &Path) -> Result<crate::fields::Table, Failure> {
    use agents_runtime::columnar::{
        BREACH_COUNT, BREACHES, MISMATCH_COUNT, MISMATCHES, UNKNOWN_FIELDS,
    };
    let fail = |e: &dyn std::fmt::Display| Failure::new(format!("{}: {e}", out.display()));
    let file = File::open(out).map_err(|e| fail(&e))?;
    let builder = ParquetRecordBatchReaderBuilder::try_new(file).map_err(|e| fail(&e))?;
    // Breaches are counted from what `batch` wrote beside each record; a file without its
    // columns (a job's artifact) would read as one without breaches.
    if builder.schema().field_with_name(ROW).is_err() {
        return Err(fail(&format!(
            "no `{ROW}` column, so not an output of `cargo agents batch`; {}",
            crate::fields::JOB_RESULTS
        )));
    }
    let not_fields = [
        ROW,
        INPUT,
        UNKNOWN_FIELDS,
        MISMATCH_COUNT,
        MISMATCHES,
        BREACH_COUNT,
        BREACHES,
    ];
    // The typed columns are the schema's fields, written for every record whether filled or not.
    let columns: Vec<String> = builder
        .schema()
        .fields()
        .iter()
        .map(|f| f.name().clone())
        .filter(|name| !not_fields.contains(&name.as_str()))
        .collect();
    let mut table = crate::fields::Table::new(&columns);
    // Keys the schema does not name are kept in `_unknown_fields`: records filling each.
    let mut unnamed: BTreeMap<String, u64> = BTreeMap::new();
    let mut records = 0;
    for batch in builder.build().map_err(|e| fail(&e))? {
        let batch = batch.map_err(|e| fail(&e))?;
        let rows = batch.num_rows() as u64;
        // A value the typed column could not hold is a mismatch, not a breach: a `type` breach
        // of its field, as the JSONL output counts it.
        let mut mismatched: Vec<agents_runtime::Breach> = Vec::new();
        if let Some(column) = batch.column_by_name(MISMATCHES) {
            let Some(texts) = column.as_any().downcast_ref::<StringArray>() else {
                return Err(fail(&format!("its {MISMATCHES} column is not text")));
            };
            for (i, text) in texts.iter().enumerate() {
                let Some(text) = text else { continue };
                let mismatches: Vec<Value> = serde_json::from_str(text)
                    .map_err(|e| fail(&format!("{MISMATCHES} of record {i}: {e}")))?;
                mismatched.extend(mismatches.iter().map(|m| agents_runtime::Breach {
                    path: m["path"].as_str().unwrap_or_default().to_owned(),
                    keyword: "type".to_owned(),
                    schema_path: String::new(),
                    rule: m["expected"].clone(),
                    found: m.get("found").cloned(),
                }));
            }
        }
        // A field's value the column could not hold is null there, but it was sent (and is
        // kept in `_unknown_fields`): the field was filled.
        let mut rejected: HashMap<String, u64> = HashMap::new();
        for b in &mismatched {
            if let Some(field) = b.field() {
                let mut bare = String::new();
                agents_runtime::check::path::push_key(&mut bare, &field);
                if bare == b.path {
                    *rejected.entry(field).or_default() += 1;
                }
            }
        }
        for (field, column) in batch.schema().fields().iter().zip(batch.columns()) {
            if not_fields.contains(&field.name().as_str()) {
                continue;
            }
            let nulls = column.null_count() as u64;
            let empty = nulls - rejected.get(field.name()).copied().unwrap_or(0).min(nulls);
            table.count_column(field.name(), rows - empty, empty);
        }
        table.count_breaches(&mismatched);
        if let Some(column) = batch.column_by_name(UNKNOWN_FIELDS) {
            let Some(texts) = column.as_any().downcast_ref::<StringArray>() else {
                return Err(fail(&format!("its {UNKNOWN_FIELDS} column is not text")));
            };
            for (i, text) in texts.iter().enumerate() {
                let Some(text) = text else { continue };
                let fields: Map<String, Value> = serde_json::from_str(text)
                    .map_err(|e| fail(&format!("{UNKNOWN_FIELDS} of record {i}: {e}")))?;
                for (name, value) in fields {
                    // A declared field's value its column could not hold is counted above.
                    if !value.is_null() && !columns.contains(&name) {
                        *unnamed.entry(name).or_default() += 1;
                    }
                }
            }
        }
        if let Some(column) = batch.column_by_name(BREACHES) {
            let Some(texts) = column.as_any().downcast_ref::<StringArray>() else {
                return Err(fail(&format!("its {BREACHES} column is not text")));
            };
            for (i, text) in texts.iter().enumerate() {
                let Some(text) = text else { continue };
                let breaches: Vec<agents_runtime::Breach> = serde_json::from_str(text)
                    .map_err(|e| fail(&format!("{BREACHES} of record {i}: {e}")))?;
                table.count_breaches(&breaches);
            }
        }
        table.count_records(rows);
        records += rows;
    }
    for (name, filled) in unnamed {
        table.count_column(&name, filled, records - filled);
    }
    Ok(table)
}

/// The `_input` column's fields: the record's declared inputs, typed as they are sent.
fn input_fields(record: &AgentRecord) -> Fields {
    let page = record.pagination_param().map(|p| p.name.as_str());
    record
        .inputs()
        .iter()
        .map(|input| {
            let scalar = |item| match item {
                ItemTy::Integer => Some(DataType::Int64),
                ItemTy::Number => Some(DataType::Float64),
                ItemTy::Boolean => Some(DataType::Boolean),
                ItemTy::String => Some(DataType::Utf8),
                ItemTy::Any => None,
            };
            let ty = match param_type(input, page == Some(input.name.as_str())).0 {
                ParamTy::Integer | ParamTy::Page => DataType::Int64,
                ParamTy::Number => DataType::Float64,
                ParamTy::Boolean => DataType::Boolean,
                // A list of one scalar kind is a list column DuckDB and pandas filter by.
                ParamTy::List(item) => scalar(item).map_or(DataType::Utf8, |ty| {
                    DataType::List(Arc::new(Field::new("item", ty, true)))
                }),
                // Untyped inputs keep a string as it is; objects, mixed lists and other values
                // are JSON text.
                ParamTy::String | ParamTy::Object | ParamTy::Any => DataType::Utf8,
            };
            Arc::new(Field::new(&input.name, ty, true))
        })
        .collect()
}

/// Writes the rows of `staging` (JSONL lines of `_row`, `_task_id`, `_input` and a record) to
/// `out` as Parquet (through a temporary file renamed when complete); returns the number of
/// records.
pub fn convert(
    agent: &str,
    record: &AgentRecord,
    staging: &Path,
    out: &Path,
) -> Result<usize, String> {
    struct Convert<'a> {
        staging: &'a Path,
        out: &'a Path,
        input: Fields,
    }
    impl AgentVisitor for Convert<'_> {
        type Output = Result<usize, String>;
        fn visit<A: Agent>(self) -> Result<usize, String> {
            let fail = |e: &dyn std::fmt::Display| format!("{}: {e}", self.out.display());
            let input = File::open(self.staging).map_err(|e| fail(&e))?;
            let mut partial = self.out.as_os_str().to_os_string();
            partial.push(".writing");
            let partial = PathBuf::from(partial);
            let file = File::create(&partial).map_err(|e| fail(&e))?;
            let options = ParquetOptions {
                row_column: true,
                input: Some(self.input),
                ..ParquetOptions::default()
            };
            let mut writer =
                ParquetWriter::<A, _>::new(BufWriter::new(file), options).map_err(|e| fail(&e))?;
            for line in BufReader::new(input).lines() {
                let line = line.map_err(|e| fail(&e))?;
                let mut fields: Map<String, Value> =
                    serde_json::from_str(&line).map_err(|e| fail(&e))?;
                let row = fields.remove(ROW).and_then(|r| r.as_u64()).unwrap_or(0);
                fields.remove("_task_id");
                // The typed record finds its breaches again as it is decoded.
                fields.remove(crate::fields::BREACHES);
                let input = match fields.remove(INPUT) {
                    Some(Value::Object(input)) => input,
                    _ => Map::new(),
                };
                let record: A =
                    serde_json::from_value(Value::Object(fields)).map_err(|e| fail(&e))?;
                writer
                    .write_row_with_input(row, input, record)
                    .map_err(|e| fail(&e))?;
            }
            let records = writer.rows();
            let file = writer.finish().map_err(|e| fail(&e))?;
            let file = file.into_inner().map_err(|e| fail(&e.error()))?;
            file.sync_all().map_err(|e| fail(&e))?;
            std::fs::rename(&partial, self.out).map_err(|e| fail(&e))?;
            Ok(records)
        }
    }
    let input = input_fields(record);
    catalog::visit(
        agent,
        Convert {
            staging,
            out,
            input,
        },
    )
    .unwrap_or_else(|| check_agent(agent).map(|()| 0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use agents_runtime::catalog::RetailerAPdp;

    /// A Parquet file of records that `batch` did not write (a job's artifact, records written
    /// by a program) has none of the breaches `batch` writes beside each record: its table is
    /// refused with the way to count and check such results, not printed as if clean.
    #[test]
    fn only_a_batch_output_has_a_table_of_its_own() {
        let dir = std::env::temp_dir().join(format!("agents-cli-pq-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for (name, row_column) in [("artifact.parquet", false), ("batch.parquet", true)] {
            let path = dir.join(name);
            let options = ParquetOptions {
                row_column,
                ..ParquetOptions::default()
            };
            let mut w =
                ParquetWriter::<RetailerAPdp, _>::new(File::create(&path).unwrap(), options)
                    .unwrap();
            let record: RetailerAPdp = serde_json::from_str(r#"{"product_title": "K"}"#).unwrap();
            if row_column {
                w.write_row(1, record).unwrap();
            } else {
                w.write(record).unwrap();
            }
            w.finish().unwrap();
        }
        let refused = table(&dir.join("artifact.parquet")).err().map(|f| f.0);
        let table = table(&dir.join("batch.parquet")).map(|t| t.to_json());
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(
            refused.as_deref().is_some_and(|e| e.contains(
                "artifact.parquet: no `_row` column, so not an output of `cargo agents batch`; a job's results"
            )),
            "{refused:?}"
        );
        assert_eq!(table.map(|t| t["records"].clone()).ok(), Some(1.into()));
    }
}
