//! `--out FILE.parquet`: the batch runs into a JSONL file beside the output (`FILE.parquet.partial.jsonl`,
//! with everything that makes `--resume` work), and when every row is done that file becomes the
//! Parquet file, record by record through the agent's typed bindings, one row group in memory at
//! a time. Only agents with typed bindings here (the catalog) can be written as Parquet: the
//! columns come from their types.

use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter};
use std::path::{Path, PathBuf};

use agents_runtime::columnar::{ParquetOptions, ParquetWriter, ROW};
use agents_runtime::{Agent, AgentVisitor, catalog};
use serde_json::{Map, Value};

/// Where the rows go before they become Parquet.
pub fn staging_path(out: &Path) -> PathBuf {
    let mut name = out.file_name().unwrap_or_default().to_os_string();
    name.push(".partial.jsonl");
    out.with_file_name(name)
}

/// Whether `out` asks for Parquet.
pub fn wanted(out: &Path) -> bool {
    out.extension().is_some_and(|e| e == "parquet")
}

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

/// Writes the rows of `staging` (JSONL lines of `_row`, `_task_id` and a record) to `out` as
/// Parquet; returns the number of records.
pub fn convert(agent: &str, staging: &Path, out: &Path) -> Result<usize, String> {
    struct Convert<'a> {
        staging: &'a Path,
        out: &'a Path,
    }
    impl AgentVisitor for Convert<'_> {
        type Output = Result<usize, String>;
        fn visit<A: Agent>(self) -> Result<usize, String> {
            let fail = |e: &dyn std::fmt::Display| format!("{}: {e}", self.out.display());
            let input = File::open(self.staging).map_err(|e| fail(&e))?;
            let file = File::create(self.out).map_err(|e| fail(&e))?;
            let options = ParquetOptions {
                row_column: true,
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
                let record: A =
                    serde_json::from_value(Value::Object(fields)).map_err(|e| fail(&e))?;
                writer.write_row(row, record).map_err(|e| fail(&e))?;
            }
            let records = writer.rows();
            let mut file = writer.finish().map_err(|e| fail(&e))?;
            std::io::Write::flush(&mut file).map_err(|e| fail(&e))?;
            Ok(records)
        }
    }
    catalog::visit(agent, Convert { staging, out })
        .unwrap_or_else(|| check_agent(agent).map(|()| 0))
}
