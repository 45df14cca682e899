//! Where `cargo agents batch` writes: the results (JSONL or CSV, one line per record, each
//! carrying the input row it came from and that row's inputs) and, beside them, the failures
//! (JSONL, one line per input row with the reason). A record that breaks rules of the agent's
//! output schema carries them in `_breaches` (a list of `{path, keyword, schema_path, rule,
//! found}`; in CSV, that list as JSON text), so a query can keep or drop such records.
//!
//! Both are appended a whole row at a time, with one write of all the row's lines, and flushed,
//! so a run that is killed stops between rows: the write of a row is one system call, which a
//! kill does not split. [`Sink::open`] reads back which rows are done: every row whose lines are
//! complete. Only a line without its newline (a write cut short, as by a full disk) is dropped
//! and its row done again; a row on disk is never sent twice, so never billed twice. Each done
//! row is read back with the inputs it was sent with ([`Sink::changed`]), since a row is known
//! by its position: an input file edited between runs would otherwise leave its moved rows
//! unsent and counted as done.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use agents_schema::{AgentRecord, Json};
use indexmap::IndexMap;
use serde_json::{Map, Value, json};

use crate::fields::{BREACHES, INPUT, ROW, TASK, UNKNOWN};

/// The results file's format, by extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    Jsonl,
    Csv,
}

impl Format {
    fn of(path: &Path) -> Option<Format> {
        match path.extension().and_then(|e| e.to_str()) {
            Some("jsonl" | "ndjson") => Some(Format::Jsonl),
            Some("csv") => Some(Format::Csv),
            _ => None,
        }
    }
}

/// Whether `out` asks for Parquet, which this build writes (the `parquet` feature).
pub fn parquet_wanted(out: &Path) -> bool {
    cfg!(feature = "parquet") && out.extension().is_some_and(|e| e == "parquet")
}

/// Refuses an output `batch` cannot write, before anything is read or sent.
pub fn check_out(out: &Path) -> Result<(), String> {
    if Format::of(out).is_some() || parquet_wanted(out) {
        Ok(())
    } else {
        Err(unwritable(out))
    }
}

/// Where the rows of a Parquet output go before they become Parquet.
pub fn staging_path(out: &Path) -> PathBuf {
    let mut name = out.file_name().unwrap_or_default().to_os_string();
    name.push(".partial.jsonl");
    out.with_file_name(name)
}

/// Refuses a run whose output, failures or staging file is its input file (by another name too:
/// `./rows.jsonl`, a link): the run would write its results over the rows it reads, and a
/// resumed one would take them for results.
pub fn apart_from_input(input: &Path, out: &Path) -> Result<(), String> {
    let Ok(read) = std::fs::canonicalize(input) else {
        // An input that cannot be found is named when it is read.
        return Ok(());
    };
    for written in [out.to_owned(), failures_path(out), staging_path(out)] {
        if std::fs::canonicalize(&written).is_ok_and(|w| w == read) {
            return Err(format!(
                "nothing was sent: {} is the input file {}; write the results to another file",
                written.display(),
                input.display()
            ));
        }
    }
    Ok(())
}

fn unwritable(out: &Path) -> String {
    format!(
        "{}: write to a .jsonl, .csv or .parquet file (.parquet needs the `parquet` feature of \
         agents-cli, on by default)",
        out.display()
    )
}

/// The results and failures files of one batch run.
pub struct Sink {
    /// The agent's output schema, which every record is checked against.
    schema: agents_runtime::Schema,
    /// The order its fields are listed in, which a JSON line's fields follow.
    order: agents_schema::SchemaOrder,
    /// This run's records, field by field.
    pub table: crate::fields::Table,
    format: Format,
    out: File,
    failures: File,
    failures_path: PathBuf,
    /// CSV columns: the record's top-level fields, by JSON name.
    columns: Vec<String>,
    /// CSV columns `_input.NAME`: the agent's declared inputs.
    inputs: Vec<String>,
    /// Rows already in either file, each with its declared inputs as written ([`given`]).
    pub done: HashMap<usize, Vec<String>>,
}

/// The declared inputs of a row as every output keeps them: one CSV cell each, in the order
/// the agent declares them. What a resumed run compares to tell the same row from another.
pub fn given(inputs: &[String], params: &Map<String, Value>) -> Vec<String> {
    inputs
        .iter()
        .map(|i| params.get(i).map_or_else(String::new, cell))
        .collect()
}

/// The rows of `now` (each with its declared `inputs` as [`given`] makes them) that `done` holds
/// with other inputs, each as `row N: was NAME=VALUE, now NAME=VALUE` (the inputs that differ).
pub fn changed(
    inputs: &[String],
    done: &HashMap<usize, Vec<String>>,
    now: impl IntoIterator<Item = (usize, Vec<String>)>,
) -> Vec<String> {
    let mut changed = Vec::new();
    for (row, now) in now {
        let Some(was) = done.get(&row) else {
            continue;
        };
        if *was == now {
            continue;
        }
        let differ: Vec<usize> = (0..inputs.len())
            .filter(|&i| was.get(i) != now.get(i))
            .collect();
        let show = |cells: &[String]| {
            let pairs: Vec<String> = differ
                .iter()
                .map(|&i| {
                    let cell = cells.get(i).map_or("", String::as_str);
                    format!("{}={cell:?}", inputs[i])
                })
                .collect();
            pairs.join(" ")
        };
        changed.push(format!("row {row}: was {}, now {}", show(was), show(&now)));
    }
    changed
}

/// Whether `batch` writes a column of its own under `name` (`_row`, `_task_id`, `_input`,
/// `_breaches`; `_unknown` and `_input.NAME` in CSV): a record's field of that name would
/// overwrite it, and a resumed run would no longer know the row.
pub fn reserved(name: &str) -> bool {
    crate::fields::BOOKKEEPING.contains(&name)
        || name == UNKNOWN
        || name
            .strip_prefix(INPUT)
            .is_some_and(|rest| rest.starts_with('.'))
}

/// `OUT.failures.jsonl` beside `OUT`.
pub fn failures_path(out: &Path) -> PathBuf {
    let mut name = out.file_name().unwrap_or_default().to_os_string();
    name.push(".failures.jsonl");
    out.with_file_name(name)
}

fn io(path: &Path, e: std::io::Error) -> String {
    format!("{}: {e}", path.display())
}

impl Sink {
    /// Opens the files for `record`'s results (`failures_path` beside them). Without `resume`,
    /// existing files are an error
    /// (nothing is overwritten); with it, their complete rows are kept and counted as done.
    pub fn open(
        record: &AgentRecord,
        out: &Path,
        failures_path: PathBuf,
        resume: bool,
    ) -> Result<Sink, String> {
        let Some(format) = Format::of(out) else {
            return Err(unwritable(out));
        };
        if !resume {
            for p in [out, failures_path.as_path()] {
                if p.exists() {
                    return Err(format!(
                        "{} exists; pass --resume to continue that run, or remove it",
                        p.display()
                    ));
                }
            }
        }
        let columns: Vec<String> = record
            .output_schema
            .as_ref()
            .map(|s| s.keys().cloned().collect())
            .unwrap_or_default();
        let inputs: Vec<String> = record.inputs().iter().map(|i| i.name.clone()).collect();
        let width = columns.len() + inputs.len() + 4;
        let mut done = HashMap::new();
        let open = |p: &Path| {
            OpenOptions::new()
                .create(true)
                .read(true)
                .append(true)
                .open(p)
                .map_err(|e| io(p, e))
        };
        let mut out_file = open(out)?;
        // Two runs on one output would each send the rows the other has not written yet (each
        // billed twice), and one would cut off what the other appended: the second is refused
        // while the first holds the file.
        match out_file.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                return Err(format!(
                    "another run is writing {}: nothing was sent; wait for it to end (or stop \
                     it), then --resume",
                    out.display()
                ));
            }
            Err(std::fs::TryLockError::Error(e)) => eprintln!(
                "warning: cannot lock {} ({e}): a second run on it at once would not be refused",
                out.display()
            ),
        }
        let mut failures = open(&failures_path)?;
        let kept = match format {
            Format::Jsonl => keep_jsonl(&mut out_file, out, &inputs, &mut done)?,
            Format::Csv => keep_csv(&mut out_file, out, width, inputs.len(), &mut done)?,
        };
        out_file.set_len(kept).map_err(|e| io(out, e))?;
        let kept = keep_jsonl(&mut failures, &failures_path, &inputs, &mut done)?;
        failures.set_len(kept).map_err(|e| io(&failures_path, e))?;
        let written = agents_schema::json_schema::output_schema(record);
        let mut sink = Sink {
            schema: agents_runtime::Schema::compile(&written.to_value()),
            order: agents_schema::SchemaOrder::new(&written),
            table: crate::fields::Table::new(&columns),
            format,
            out: out_file,
            failures,
            failures_path,
            columns,
            inputs,
            done,
        };
        if format == Format::Csv && sink.out.metadata().map(|m| m.len()).unwrap_or(0) == 0 {
            let mut header = vec![ROW.to_owned(), TASK.to_owned()];
            header.extend(sink.inputs.iter().map(|i| format!("{INPUT}.{i}")));
            header.extend(sink.columns.iter().cloned());
            header.push(UNKNOWN.to_owned());
            header.push(BREACHES.to_owned());
            let line = csv_line(&header)?;
            sink.write(&line, false)?;
        }
        Ok(sink)
    }

    /// The rows of `items` done before with other inputs than the file now gives them, each as
    /// `row N: was NAME=VALUE, now NAME=VALUE` (the inputs that differ). The input file was
    /// edited since the run began: resumed, the rows now at those positions would never be sent.
    pub fn changed<'a>(
        &self,
        items: impl IntoIterator<Item = (usize, &'a Map<String, Value>)>,
    ) -> Vec<String> {
        let now = items
            .into_iter()
            .map(|(row, params)| (row, given(&self.inputs, params)));
        changed(&self.inputs, &self.done, now)
    }

    /// Where failures went: `None` when no row failed, in which case the empty failures file is
    /// removed (a later run without `--resume` is then not refused over an empty file).
    pub fn failures_written(&self) -> Result<Option<&Path>, String> {
        let len = self
            .failures
            .metadata()
            .map_err(|e| io(&self.failures_path, e))?
            .len();
        if len > 0 {
            return Ok(Some(&self.failures_path));
        }
        match std::fs::remove_file(&self.failures_path) {
            Ok(()) => Ok(None),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(io(&self.failures_path, e)),
        }
    }

    fn write(&mut self, bytes: &[u8], failure: bool) -> Result<(), String> {
        let (file, what) = if failure {
            (&mut self.failures, "the failures file")
        } else {
            (&mut self.out, "the results file")
        };
        file.write_all(bytes)
            .and_then(|()| file.flush())
            .map_err(|e| format!("cannot write {what}: {e}"))
    }

    /// Appends the records of input `row` with its `input` (at least one line, an empty record
    /// when the page had none), all in one write: `Some` of the number of records. A record
    /// the service sent with a field `batch` writes its own column under ([`reserved`]) is not
    /// written over it: the row goes to the failures file with its records, and `None` says so.
    pub fn result(
        &mut self,
        row: usize,
        task_id: Option<&str>,
        input: &Map<String, Value>,
        records: &[Value],
    ) -> Result<Option<usize>, String> {
        let mut clashing: Vec<&str> = records
            .iter()
            .filter_map(Value::as_object)
            .flat_map(|r| r.keys())
            .map(String::as_str)
            .filter(|k| reserved(k))
            .collect();
        if !clashing.is_empty() {
            clashing.sort_unstable();
            clashing.dedup();
            let names: Vec<String> = clashing.iter().map(|k| format!("`{k}`")).collect();
            let reason = format!(
                "the service sent field(s) {} that batch writes its own columns under; the \
                 records are kept here, under `records`",
                names.join(", ")
            );
            let line = json!({ROW: row, "input": input, "kind": "reserved", "error": reason, "records": records});
            let mut buf = serde_json::to_vec(&line).map_err(|e| e.to_string())?;
            buf.push(b'\n');
            self.write(&buf, true)?;
            self.done.insert(row, given(&self.inputs, input));
            return Ok(None);
        }
        let empty = [Value::Object(Map::new())];
        let records = if records.is_empty() {
            &empty[..]
        } else {
            records
        };
        let mut buf = Vec::new();
        for record in records {
            let breaches = self.schema.check(record);
            let no_fields = Map::new();
            self.table
                .add(record.as_object().unwrap_or(&no_fields), &breaches);
            let breaches = (!breaches.is_empty())
                .then(|| serde_json::to_value(&breaches).map_err(|e| e.to_string()))
                .transpose()?;
            match self.format {
                Format::Jsonl => {
                    // As documented, and as a reader shows its columns: the row, the task, the
                    // inputs as declared, the fields as the schema lists them, the breaches.
                    let mut line = IndexMap::new();
                    line.insert(ROW.to_owned(), Json::from(json!(row)));
                    line.insert(TASK.to_owned(), Json::from(json!(task_id)));
                    let mut given = IndexMap::new();
                    for name in self.inputs.iter().chain(input.keys()) {
                        if let (Some(v), false) = (input.get(name), given.contains_key(name)) {
                            given.insert(name.clone(), Json::from(v));
                        }
                    }
                    line.insert(INPUT.to_owned(), Json::Object(given));
                    match self.order.arrange(record) {
                        Json::Object(fields) => line.extend(fields),
                        other => {
                            line.insert("_value".to_owned(), other);
                        }
                    }
                    if let Some(breaches) = &breaches {
                        line.insert(BREACHES.to_owned(), Json::from(breaches));
                    }
                    serde_json::to_writer(&mut buf, &Json::Object(line))
                        .map_err(|e| e.to_string())?;
                    buf.push(b'\n');
                }
                Format::Csv => {
                    let mut cells = vec![row.to_string(), task_id.unwrap_or("").to_owned()];
                    for i in &self.inputs {
                        cells.push(input.get(i).map_or_else(String::new, cell));
                    }
                    let fields = record.as_object();
                    for c in &self.columns {
                        cells.push(fields.and_then(|f| f.get(c)).map_or_else(String::new, cell));
                    }
                    let unknown: Map<String, Value> = fields
                        .map(|f| {
                            f.iter()
                                .filter(|(k, _)| !self.columns.contains(k))
                                .map(|(k, v)| (k.clone(), v.clone()))
                                .collect()
                        })
                        .unwrap_or_default();
                    cells.push(if unknown.is_empty() {
                        String::new()
                    } else {
                        Value::Object(unknown).to_string()
                    });
                    cells.push(breaches.as_ref().map_or_else(String::new, Value::to_string));
                    buf.extend(csv_line(&cells)?);
                }
            }
        }
        self.write(&buf, false)?;
        self.done.insert(row, given(&self.inputs, input));
        Ok(Some(records.len()))
    }

    /// Appends why input `row` produced no result.
    pub fn failure(
        &mut self,
        row: usize,
        input: &Map<String, Value>,
        kind: &str,
        reason: &str,
    ) -> Result<(), String> {
        let line = json!({ROW: row, "input": input, "kind": kind, "error": reason});
        let mut buf = serde_json::to_vec(&line).map_err(|e| e.to_string())?;
        buf.push(b'\n');
        self.write(&buf, true)?;
        self.done.insert(row, given(&self.inputs, input));
        Ok(())
    }
}

/// A CSV cell: text as it is, other scalars as JSON, nothing for null, arrays and objects as
/// JSON text.
fn cell(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn csv_line(cells: &[String]) -> Result<Vec<u8>, String> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(cells).map_err(|e| e.to_string())?;
    w.into_inner().map_err(|e| e.to_string())
}

/// The rows of a JSONL file of `_row` lines (a failures file) that are complete, each with its
/// declared `inputs` ([`given`]); none when the file does not exist.
#[cfg(feature = "parquet")]
pub fn done_rows(path: &Path, inputs: &[String]) -> Result<HashMap<usize, Vec<String>>, String> {
    let mut done = HashMap::new();
    match File::open(path) {
        Ok(mut file) => {
            keep_jsonl(&mut file, path, inputs, &mut done)?;
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(io(path, e)),
    }
    Ok(done)
}

/// Reads a JSONL file of `_row` lines: every row with a complete line goes into `done`, with
/// its declared `inputs` as the line holds them (`_input` of a result, `input` of a failure);
/// returns the length to keep (up to the end of the last complete line: a line cut short is
/// dropped).
fn keep_jsonl(
    file: &mut File,
    path: &Path,
    inputs: &[String],
    done: &mut HashMap<usize, Vec<String>>,
) -> Result<u64, String> {
    file.seek(SeekFrom::Start(0)).map_err(|e| io(path, e))?;
    let mut offset = 0u64;
    let mut reader = BufReader::new(&mut *file);
    let mut line = String::new();
    loop {
        line.clear();
        let n = reader.read_line(&mut line).map_err(|e| io(path, e))?;
        if n == 0 || !line.ends_with('\n') {
            break;
        }
        let line = serde_json::from_str::<Value>(&line).ok();
        let row = line
            .as_ref()
            .and_then(|v| v.get(ROW).and_then(Value::as_u64))
            .and_then(|r| usize::try_from(r).ok());
        let Some(row) = row else {
            break;
        };
        let no_params = Map::new();
        let params = line
            .as_ref()
            .and_then(|v| v.get(INPUT).or_else(|| v.get("input")))
            .and_then(Value::as_object)
            .unwrap_or(&no_params);
        done.insert(row, given(inputs, params));
        offset += n as u64;
    }
    Ok(offset)
}

/// The same for a CSV results file of `width` columns (its header row kept), whose `inputs`
/// columns `_input.NAME` follow `_row` and `_task_id`.
fn keep_csv(
    file: &mut File,
    path: &Path,
    width: usize,
    inputs: usize,
    done: &mut HashMap<usize, Vec<String>>,
) -> Result<u64, String> {
    let len = file.metadata().map_err(|e| io(path, e))?.len();
    let complete = ends_with_newline(file, path, len)?;
    file.seek(SeekFrom::Start(0)).map_err(|e| io(path, e))?;
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(BufReader::new(&mut *file));
    let mut end = 0u64;
    let mut record = csv::ByteRecord::new();
    let mut first = true;
    // A record that does not parse ends what is kept, as the end of the file does.
    while let Ok(true) = reader.read_byte_record(&mut record) {
        let next = reader.position().byte();
        // The last record of a file cut short has no newline after it: it is not complete.
        if next == len && !complete {
            break;
        }
        if first {
            first = false;
            if record.len() != width {
                return Err(format!(
                    "{}: its header does not match the agent's inputs and fields; write to a new \
                     file",
                    path.display()
                ));
            }
            end = next;
            continue;
        }
        let row = std::str::from_utf8(record.get(0).unwrap_or_default())
            .ok()
            .and_then(|r| r.parse::<usize>().ok());
        let (Some(row), true) = (row, record.len() == width) else {
            break;
        };
        let given = (2..2 + inputs)
            .map(|at| String::from_utf8_lossy(record.get(at).unwrap_or_default()).into_owned())
            .collect();
        done.insert(row, given);
        end = next;
    }
    Ok(end)
}

/// Whether the file's last byte (at `len - 1`) is a newline.
fn ends_with_newline(file: &mut File, path: &Path, len: u64) -> Result<bool, String> {
    use std::io::Read as _;
    if len == 0 {
        return Ok(false);
    }
    file.seek(SeekFrom::Start(len - 1))
        .map_err(|e| io(path, e))?;
    let mut last = [0u8; 1];
    file.read_exact(&mut last).map_err(|e| io(path, e))?;
    Ok(last[0] == b'\n')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_never_writes_over_its_input() {
        let dir = std::env::temp_dir().join(format!("agents-apart-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let input = dir.join("rows.jsonl");
        std::fs::write(&input, "{\"asin\": \"B1\"}\n").unwrap();
        let elsewhere = dir.join("results.jsonl");
        let by_another_name = dir.join(".").join("rows.jsonl");
        let failures_of = dir.join("rows");
        std::fs::write(failures_path(&failures_of), "").unwrap();
        let said = [
            apart_from_input(&input, &input),
            apart_from_input(&input, &by_another_name),
            apart_from_input(&input, &elsewhere),
            apart_from_input(&failures_path(&failures_of), &failures_of),
        ];
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(
            said[0].as_ref().unwrap_err().contains("is the input file"),
            "{said:?}"
        );
        assert!(said[1].is_err(), "{said:?}");
        assert!(said[2].is_ok(), "{said:?}");
        assert!(said[3].is_err(), "{said:?}");
    }

    /// An agent taking a `url` and giving a `title`.
    fn titled() -> AgentRecord {
        AgentRecord::from_value(&json!({
            "name": "a",
            "input_schema": {"type": "object", "properties": {"url": {"type": "string"}}},
            "output_schema": {"type": "object", "properties": {"title": {"type": "string"}}},
        }))
        .unwrap()
    }

    #[test]
    fn a_second_run_on_an_output_in_use_is_refused() {
        let record = titled();
        let dir = std::env::temp_dir().join(format!("agents-cli-locked-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let out = dir.join("r.jsonl");
        let first = Sink::open(&record, &out, failures_path(&out), false).unwrap();
        let second = Sink::open(&record, &out, failures_path(&out), true).err();
        drop(first);
        let after = Sink::open(&record, &out, failures_path(&out), true).is_ok();
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(
            second
                .as_deref()
                .is_some_and(|e| e.starts_with("another run is writing")),
            "{second:?}"
        );
        assert!(after, "the file is free once the first run ends");
    }

    /// A record the service sent with a field under a name `batch` writes its own column under
    /// does not overwrite it: its row is a failure holding the records, done for `--resume`,
    /// while the rows around it are written as any.
    #[test]
    fn a_record_with_a_field_named_as_a_column_of_batch_is_kept_apart() {
        let record = titled();
        let dir = std::env::temp_dir().join(format!("agents-cli-reserved-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for out in ["r.jsonl", "r.csv"] {
            let out = dir.join(out);
            let failures = failures_path(&out);
            let input = |n: u32| {
                let mut m = Map::new();
                m.insert("url".into(), json!(format!("http://a.example/{n}")));
                m
            };
            let mut sink = Sink::open(&record, &out, failures.clone(), false).unwrap();
            let clash = [json!({"title": "t", "_row": "theirs", "_input.url": 1})];
            assert_eq!(sink.result(1, Some("t1"), &input(1), &clash).unwrap(), None);
            let fine = [json!({"title": "u"})];
            assert_eq!(
                sink.result(2, Some("t2"), &input(2), &fine).unwrap(),
                Some(1)
            );
            drop(sink);

            let failed: Value =
                serde_json::from_str(std::fs::read_to_string(&failures).unwrap().trim()).unwrap();
            assert_eq!(failed["kind"], "reserved");
            assert_eq!(failed["records"], json!(clash));
            assert!(
                failed["error"]
                    .as_str()
                    .unwrap()
                    .contains("`_input.url`, `_row`"),
                "{failed}"
            );
            let written = std::fs::read_to_string(&out).unwrap();
            assert!(!written.contains("theirs"), "{written}");
            let sink = Sink::open(&record, &out, failures, true).unwrap();
            let mut done: Vec<usize> = sink.done.keys().copied().collect();
            done.sort_unstable();
            assert_eq!(done, [1, 2], "{}", out.display());
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
