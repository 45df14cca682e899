//! What a batch's records hold, field by field: how many records fill each field, how many
//! leave it empty (absent or `null`), and which rules of the agent's JSON Schema its values
//! break, by keyword. `cargo agents batch` prints the table when it ends; `cargo agents fields
//! OUT` prints it again from a finished JSONL, CSV or Parquet output, from the `_breaches` each
//! record carries (in Parquet, with the typed values' `_mismatches`, which are `type` breaches
//! the typed columns could not hold), or, for JSONL records from elsewhere (a job's artifacts),
//! from each record checked against the agent's schema (`--agent`). A CSV cell cannot tell an empty string from no value, so
//! there an empty cell counts as empty.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::io::{BufRead, BufReader};
use std::path::Path;

use agents_runtime::Breach;
use agents_schema::{AgentRecord, Json};
use indexmap::IndexMap;
use serde_json::{Map, Value, json};

use crate::global::{Failure, Global};

/// The columns every results line starts with: the input's row (from 1: the first data row of
/// a CSV file, the first line of a JSONL file), the service's task id, the row's inputs (in CSV,
/// one `_input.NAME` column each).
pub const ROW: &str = "_row";
/// See [`ROW`].
pub const TASK: &str = "_task_id";
/// See [`ROW`].
pub const INPUT: &str = "_input";
/// The CSV column of keys the record does not declare, as JSON.
pub const UNKNOWN: &str = "_unknown";

/// The columns of a results line that are not the record's fields.
pub const BOOKKEEPING: [&str; 4] = [ROW, TASK, INPUT, BREACHES];

/// A results line's breaches of the agent's output schema (JSONL and CSV; Parquet has the
/// runtime's column of the same name).
pub const BREACHES: &str = "_breaches";

/// One field's counts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Counts {
    /// Records with a value other than `null`.
    pub filled: u64,
    /// Records without one.
    pub empty: u64,
    /// Breaches in the field, by keyword.
    pub breaches: BTreeMap<String, u64>,
}

/// The table: the breaches of rules about a record as a whole first, under `(record)`, then the
/// fields in the schema's order (the order the table was made with), then those only records
/// name, in the order they were first seen.
#[derive(Debug, Clone, Default)]
pub struct Table {
    records: u64,
    fields: IndexMap<String, Counts>,
    /// The fields the schema names, when the table knows the schema (a JSONL file read without
    /// `--agent` does not): a field outside it is one the service sent unasked.
    named: Option<BTreeSet<String>>,
}

/// What reads a job's results, for messages about a file that is not a batch's output.
pub const JOB_RESULTS: &str = "a job's results are counted and checked as JSON lines: create \
                                the job with `--format jsonl`, then run `cargo agents fields \
                                FILE.jsonl --agent TEMPLATE`";

/// The row of rules about the record as a whole (`required`, `minProperties`, a root `oneOf`).
const WHOLE: &str = "(record)";

impl Table {
    /// A table whose rows start as the schema's fields, in that order, so that a field no
    /// record fills is counted too (a JSONL output cannot say so afterwards; a Parquet one can).
    pub fn new<'a>(fields: impl IntoIterator<Item = &'a String>) -> Table {
        let fields: IndexMap<String, Counts> = fields
            .into_iter()
            .map(|f| (f.clone(), Counts::default()))
            .collect();
        Table {
            records: 0,
            named: Some(fields.keys().cloned().collect()),
            fields,
        }
    }

    /// The fields records hold that the schema does not name, when the table knows the schema.
    pub fn unnamed(&self) -> Option<Vec<&str>> {
        let named = self.named.as_ref()?;
        Some(
            self.fields
                .keys()
                .filter(|f| f.as_str() != WHOLE && !named.contains(*f))
                .map(String::as_str)
                .collect(),
        )
    }

    /// Counts one record (its fields, without the bookkeeping columns) and its breaches.
    pub fn add(&mut self, record: &Map<String, Value>, breaches: &[Breach]) {
        self.see(record.keys().map(String::as_str));
        self.records += 1;
        for (name, counts) in &mut self.fields {
            if name == WHOLE {
                continue;
            }
            match record.get(name) {
                Some(v) if !v.is_null() => counts.filled += 1,
                _ => counts.empty += 1,
            }
        }
        self.count_breaches(breaches);
    }

    /// Rows for the fields of `names` the table has not seen, in that order (a record's keys
    /// as its line wrote them: a `Map` sorts them), before the record naming them is counted.
    fn see<'a>(&mut self, names: impl IntoIterator<Item = &'a str>) {
        for name in names {
            if BOOKKEEPING.contains(&name) || self.fields.contains_key(name) {
                continue;
            }
            self.fields.insert(
                name.to_owned(),
                Counts {
                    // Records counted before this field was first seen did not have it.
                    empty: self.records,
                    ..Counts::default()
                },
            );
        }
    }

    /// Counts `records` records at once, with how many of them fill `field` (a column of a
    /// Parquet file).
    #[cfg(feature = "parquet")]
    pub fn count_column(&mut self, field: &str, filled: u64, empty: u64) {
        let counts = self.fields.entry(field.to_owned()).or_default();
        counts.filled += filled;
        counts.empty += empty;
    }

    /// Counts records whose fields are counted by [`Table::count_column`].
    #[cfg(feature = "parquet")]
    pub fn count_records(&mut self, records: u64) {
        self.records += records;
    }

    /// Counts one record's breaches, each in the field it is in.
    pub fn count_breaches(&mut self, breaches: &[Breach]) {
        for b in breaches {
            let field = b.field().unwrap_or_else(|| WHOLE.to_owned());
            if field == WHOLE && !self.fields.contains_key(WHOLE) {
                self.fields
                    .shift_insert(0, field.clone(), Counts::default());
            }
            let records = self.records;
            let counts = self.fields.entry(field).or_insert_with(|| Counts {
                // A field only a breach names (a required one, absent) is empty so far.
                empty: records,
                ..Counts::default()
            });
            *counts.breaches.entry(b.keyword.clone()).or_default() += 1;
        }
    }

    /// The table as JSON, for `--json`.
    pub fn to_json(&self) -> Value {
        let fields: Vec<Value> = self
            .fields
            .iter()
            .map(|(name, c)| {
                let in_schema = self
                    .named
                    .as_ref()
                    .filter(|_| name != WHOLE)
                    .map(|named| named.contains(name));
                json!({"field": name, "filled": c.filled, "empty": c.empty, "breaches": c.breaches,
                       "in_schema": in_schema})
            })
            .collect();
        json!({"records": self.records, "fields": fields})
    }

    /// The rows, by field name.
    #[cfg(test)]
    fn get(&self, field: &str) -> Option<&Counts> {
        self.fields.get(field)
    }
}

impl fmt::Display for Table {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let width = self
            .fields
            .keys()
            .map(|k| k.chars().count())
            .max()
            .unwrap_or(0)
            .max("field".len());
        writeln!(f, "{} records", self.records)?;
        // Without records every row would read 0 and 0.
        if self.records == 0 {
            return Ok(());
        }
        writeln!(
            f,
            "{:width$}  {:>8}  {:>8}  breaches",
            "field", "filled", "empty"
        )?;
        for (name, c) in &self.fields {
            let breaches: Vec<String> =
                c.breaches.iter().map(|(k, n)| format!("{k} {n}")).collect();
            let (filled, empty) = if name == WHOLE {
                (String::new(), String::new())
            } else {
                (c.filled.to_string(), c.empty.to_string())
            };
            let line = format!(
                "{name:width$}  {filled:>8}  {empty:>8}  {}",
                breaches.join(", ")
            );
            writeln!(f, "{}", line.trim_end())?;
        }
        if let Some(unnamed) = self.unnamed().filter(|u| !u.is_empty()) {
            writeln!(f, "fields the schema does not name: {}", unnamed.join(", "))?;
        }
        Ok(())
    }
}

/// Prints the table: as text on standard output, or as JSON with `--json`.
pub fn print(cli: &Global, table: &Table) {
    if cli.json {
        outln!("{}", table.to_json());
    } else {
        out!("{table}");
    }
}

/// The breaches a results line carries.
fn breaches_of(value: Option<&Value>) -> Result<Vec<Breach>, String> {
    match value {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(v) => serde_json::from_value(v.clone())
            .map_err(|e| format!("`{BREACHES}` is not a list of breaches: {e}")),
    }
}

/// The table of a finished JSONL output, from each line's fields and `_breaches`, or, given the
/// agent's `record`, from each line checked against its output schema (its bookkeeping columns
/// left out), with a row for every field the schema names, filled or not. Lines it cannot count
/// are reported together ([`Unread`]).
pub fn from_jsonl(path: &Path, record: Option<&AgentRecord>) -> Result<Table, Failure> {
    let file = std::fs::File::open(path)
        .map_err(|e| Failure::new(format!("cannot read {}: {e}", path.display())))?;
    let schema = record.map(|r| {
        agents_runtime::Schema::compile(&agents_schema::json_schema::output_schema(r).to_value())
    });
    let mut table = match record.and_then(|r| r.output_schema.as_ref()) {
        Some(fields) => Table::new(fields.keys()),
        None => Table::default(),
    };
    let name = path.display();
    let mut unread = Unread::new(&name);
    let mut reader = BufReader::new(file);
    let mut line = Vec::new();
    let (mut number, mut complete) = (0, true);
    loop {
        line.clear();
        let n = (reader.read_until(b'\n', &mut line))
            .map_err(|e| Failure::new(format!("cannot read {name}: {e}")))?;
        if n == 0 {
            break;
        }
        number += 1;
        complete = line.ends_with(b"\n");
        if line.trim_ascii().is_empty() {
            unread.next();
            continue;
        }
        let counted = count_jsonl_line(&mut table, schema.as_ref(), &line);
        unread.counted(counted.map_err(|why| format!("line {number}: {why}")));
    }
    unread.finish(complete)?;
    Ok(table)
}

/// Counts one line of a JSONL output into `table`, its breaches found by `schema` when given.
fn count_jsonl_line(
    table: &mut Table,
    schema: Option<&agents_runtime::Schema>,
    line: &[u8],
) -> Result<(), String> {
    let written: Json = serde_json::from_slice(line).map_err(|e| format!("not JSON: {e}"))?;
    let (Some(order), Value::Object(record)) = (written.as_object(), written.to_value()) else {
        return Err("not a JSON object".into());
    };
    let breaches = match schema {
        Some(schema) => {
            let mut fields = record.clone();
            fields.retain(|k, _| !BOOKKEEPING.contains(&k.as_str()));
            schema.check(&Value::Object(fields))
        }
        None => breaches_of(record.get(BREACHES))?,
    };
    table.see(order.keys().map(String::as_str));
    table.add(&record, &breaches);
    Ok(())
}

/// The table of a finished CSV output: every field column (the header names them all, so a
/// field no record fills is counted too), the keys of `_unknown` and each row's `_breaches`.
pub fn from_csv(path: &Path) -> Result<Table, Failure> {
    let file = std::fs::File::open(path)
        .map_err(|e| Failure::new(format!("cannot read {}: {e}", path.display())))?;
    csv_table(BufReader::new(file), &path.display())
}

/// Lines of an output that cannot be counted, reported together, each by its number. A last
/// line without its newline is one a batch was writing when it stopped: it is left out with a
/// warning, as resuming the batch leaves it out (and runs its row again).
struct Unread<'a> {
    name: &'a dyn fmt::Display,
    /// The first [`Unread::LISTED`] of them; the rest are counted, not kept, so that a file of
    /// short bad lines does not cost more memory than it takes on disk.
    bad: Vec<String>,
    unlisted: usize,
    /// The latest line that cannot be counted, until a line after it shows it was not the last.
    last: Option<String>,
}

impl<'a> Unread<'a> {
    /// How many unreadable lines a failure lists; it counts the rest.
    const LISTED: usize = 10;

    fn new(name: &'a dyn fmt::Display) -> Self {
        Unread {
            name,
            bad: Vec::new(),
            unlisted: 0,
            last: None,
        }
    }

    /// A line counted, or why it cannot be (`line 7: not JSON: …`).
    fn counted(&mut self, line: Result<(), String>) {
        match line {
            Ok(()) => self.next(),
            Err(why) => {
                let before = self.last.replace(why);
                self.keep(before);
            }
        }
    }

    /// A line that is not the last.
    fn next(&mut self) {
        let last = self.last.take();
        self.keep(last);
    }

    fn keep(&mut self, bad: Option<String>) {
        match bad {
            Some(why) if self.bad.len() < Self::LISTED => self.bad.push(why),
            Some(_) => self.unlisted += 1,
            None => {}
        }
    }

    /// Says that the last line, `what`, is left out.
    fn cut_short(&self, what: &str) {
        eprintln!(
            "warning: {}: {what}; it has no newline after it, so a batch stopped while writing \
             it: not counted (resuming the batch runs its row again)",
            self.name
        );
    }

    /// Ok when every line was counted but a last one cut short (`complete`: the input ended
    /// with a newline); else every line that was not, in one failure.
    fn finish(mut self, complete: bool) -> Result<(), Failure> {
        match self.last.take() {
            Some(last) if !complete => self.cut_short(&last),
            last => self.keep(last),
        }
        if self.bad.is_empty() {
            return Ok(());
        }
        let mut message = format!(
            "{}: {} line(s) cannot be counted: {}",
            self.name,
            self.bad.len() + self.unlisted,
            self.bad.join("; ")
        );
        if self.unlisted > 0 {
            message.push_str(&format!("; and {} more", self.unlisted));
        }
        Err(Failure::new(message))
    }
}

/// A reader that remembers the last byte it gave: whether a file ended with a newline, learnt
/// while a reader that does not say (the CSV reader) reads it.
struct LastByte<R> {
    inner: R,
    last: Option<u8>,
}

impl<R: std::io::Read> std::io::Read for LastByte<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        if let Some(&b) = buf[..n].last() {
            self.last = Some(b);
        }
        Ok(n)
    }
}

/// [`from_csv`] over any reader; `name` names it in messages.
fn csv_table(input: impl std::io::Read, name: &dyn fmt::Display) -> Result<Table, Failure> {
    let fail = |e: &dyn fmt::Display| Failure::new(format!("cannot read {name}: {e}"));
    let mut reader = csv::Reader::from_reader(LastByte {
        inner: input,
        last: None,
    });
    let header = reader.headers().map_err(|e| fail(&e))?.clone();
    let is_field = |name: &str| {
        !BOOKKEEPING.contains(&name) && name != UNKNOWN && !name.starts_with(&format!("{INPUT}."))
    };
    if !header.iter().any(|h| h == ROW) {
        return Err(Failure::new(format!(
            "{name}: no `{ROW}` column, so not an output of `cargo agents batch`; {JOB_RESULTS}"
        )));
    }
    let mut table = Table::new(
        &header
            .iter()
            .filter(|h| is_field(h))
            .map(String::from)
            .collect::<Vec<_>>(),
    );
    let mut unread = Unread::new(name);
    let count = |table: &mut Table, unread: &mut Unread<'_>, (line, row): (u64, _)| {
        let counted = count_csv_row(table, &header, &row, &is_field);
        unread.counted(counted.map_err(|why| format!("line {line}: {why}")));
    };
    // The latest row read, counted once something follows it: a row cut short at a cell's end
    // still parses, so only the newline after it says it is whole.
    let mut held: Option<(u64, csv::StringRecord)> = None;
    let mut row = csv::StringRecord::new();
    loop {
        match reader.read_record(&mut row) {
            Ok(false) => break,
            Ok(true) => {
                let line = row.position().map_or(0, csv::Position::line);
                if let Some(before) = held.replace((line, row.clone())) {
                    count(&mut table, &mut unread, before);
                }
            }
            Err(e) if matches!(e.kind(), csv::ErrorKind::Io(_)) => return Err(fail(&e)),
            Err(e) => {
                if let Some(before) = held.take() {
                    count(&mut table, &mut unread, before);
                }
                let line = e.position().map_or(0, csv::Position::line);
                unread.counted(Err(format!("line {line}: {e}")));
            }
        }
    }
    let complete = reader.get_ref().last.is_none_or(|b| b == b'\n');
    match held {
        Some(last) if complete => count(&mut table, &mut unread, last),
        Some((line, _)) => {
            unread.next();
            unread.cut_short(&format!("line {line}"));
        }
        None => {}
    }
    unread.finish(complete)?;
    Ok(table)
}

/// Counts one row of a CSV output into `table`: its field cells, the keys of `_unknown`, the
/// breaches of `_breaches`.
fn count_csv_row(
    table: &mut Table,
    header: &csv::StringRecord,
    row: &csv::StringRecord,
    is_field: &dyn Fn(&str) -> bool,
) -> Result<(), String> {
    let mut record = Map::new();
    let mut breaches = None;
    for (name, cell) in header.iter().zip(row.iter()) {
        if cell.is_empty() {
            continue;
        }
        if name == UNKNOWN {
            match serde_json::from_str(cell) {
                Ok(Value::Object(unknown)) => record.extend(unknown),
                _ => return Err(format!("`{UNKNOWN}` is not a JSON object")),
            }
        } else if name == BREACHES {
            let value =
                serde_json::from_str(cell).map_err(|e| format!("`{BREACHES}` is not JSON: {e}"))?;
            breaches = Some(value);
        } else if is_field(name) {
            record.insert(name.to_owned(), Value::String(cell.to_owned()));
        }
    }
    let breaches = breaches_of(breaches.as_ref())?;
    table.add(&record, &breaches);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn breach(path: &str, keyword: &str) -> Breach {
        Breach {
            path: path.into(),
            keyword: keyword.into(),
            schema_path: String::new(),
            rule: Value::Null,
            found: None,
        }
    }

    /// Every line that cannot be counted is named in one failure; a last line cut short (no
    /// newline after it) is left out, and the rest counted.
    #[test]
    fn lines_that_cannot_be_counted_are_named_together() {
        let dir = std::env::temp_dir().join(format!("agents-fields-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("out.jsonl");
        let good = r#"{"_row": 1, "price": 2}"#;
        std::fs::write(
            &file,
            format!("{good}\nnot json\n\n[1]\n{good}\n{{\"_row\""),
        )
        .unwrap();
        let e = from_jsonl(&file, None)
            .err()
            .map(|f| f.0)
            .unwrap_or_default();
        assert!(e.contains("out.jsonl: 2 line(s) cannot be counted"), "{e}");
        assert!(e.contains("line 2: not JSON"), "{e}");
        assert!(e.contains("line 4: not a JSON object"), "{e}");
        assert!(!e.contains("line 6"), "{e}");

        std::fs::write(&file, format!("{good}\n{good}\n{{\"_row\": 3, \"pri")).unwrap();
        let t = from_jsonl(&file, None).map_err(|f| f.0).unwrap();
        assert_eq!((t.records, t.get("price").map(|c| c.filled)), (2, Some(2)));
        // With its newline, the same line is a line that cannot be counted.
        std::fs::write(&file, format!("{good}\n{{\"_row\": 3, \"pri\n")).unwrap();
        assert!(from_jsonl(&file, None).is_err());

        let many: String = (0..25).map(|i| format!("bad {i}\n")).collect();
        std::fs::write(&file, many).unwrap();
        let e = from_jsonl(&file, None)
            .err()
            .map(|f| f.0)
            .unwrap_or_default();
        assert!(
            e.contains("25 line(s)") && e.ends_with("; and 15 more"),
            "{e}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_csv_output_is_counted_by_its_columns_unknown_keys_and_breaches() {
        let csv = "_row,_task_id,_input.asin,price,title,_unknown,_breaches\n\
                   1,t1,A,47,,\"{\"\"colour\"\":\"\"red\"\"}\",\"[{\"\"path\"\":\"\"price\"\",\"\"keyword\"\":\"\"maximum\"\",\"\"schema_path\"\":\"\"\"\",\"\"rule\"\":5}]\"\n\
                   2,t2,B,3,Echo,,\n";
        let t = csv_table(csv.as_bytes(), &"out.csv")
            .map_err(|f| f.0)
            .unwrap();
        assert_eq!(t.records, 2);
        assert_eq!(t.get("price").map(|c| (c.filled, c.empty)), Some((2, 0)));
        // A field no record fills is a row too, since the header names it; an empty cell is empty.
        assert_eq!(t.get("title").map(|c| (c.filled, c.empty)), Some((1, 1)));
        assert_eq!(t.get("colour").map(|c| (c.filled, c.empty)), Some((1, 1)));
        assert_eq!(t.get("price").map(|c| c.breaches["maximum"]), Some(1));
        for bookkeeping in ["_row", "_task_id", "_input.asin", "_unknown", "_breaches"] {
            assert!(t.get(bookkeeping).is_none(), "{bookkeeping}");
        }

        let bad = "_row,price,_breaches\n1,2,not json\n";
        let e = csv_table(bad.as_bytes(), &"out.csv").err().map(|f| f.0);
        assert!(
            e.as_deref().is_some_and(|e| e.starts_with(
                "out.csv: 1 line(s) cannot be counted: line 2: `_breaches` is not JSON"
            )),
            "{e:?}"
        );
        // A batch stopped while writing its last row: the rows before it are counted.
        let cut = "_row,price\n1,2\n2,3\n3,\"4";
        let t = csv_table(cut.as_bytes(), &"out.csv")
            .map_err(|f| f.0)
            .unwrap();
        assert_eq!(t.get("price").map(|c| c.filled), Some(2));
        let e = csv_table("a,b\n1,2\n".as_bytes(), &"in.csv")
            .err()
            .map(|f| f.0);
        assert!(
            e.as_deref().is_some_and(|e| e.contains("no `_row` column")),
            "{e:?}"
        );
    }

    #[test]
    fn fields_are_counted_filled_empty_and_by_broken_keyword() {
        let names = ["title".to_owned(), "price".to_owned()];
        let mut t = Table::new(&names);
        assert_eq!(t.to_string(), "0 records\n");
        let r = |v: Value| v.as_object().cloned().unwrap_or_default();
        t.add(
            &r(json!({"_row": 1, "price": 47, "title": null})),
            &[breach("price", "maximum")],
        );
        t.add(
            &r(json!({"_row": 2, "price": 3, "extra": [1]})),
            &[breach("", "required"), breach("extra[0]", "type")],
        );
        assert_eq!(t.get("price").map(|c| (c.filled, c.empty)), Some((2, 0)));
        assert_eq!(t.get("title").map(|c| (c.filled, c.empty)), Some((0, 2)));
        // A field first seen in the second record was empty in the first.
        assert_eq!(t.get("extra").map(|c| (c.filled, c.empty)), Some((1, 1)));
        assert_eq!(t.get("price").map(|c| c.breaches["maximum"]), Some(1));
        assert_eq!(t.get(WHOLE).map(|c| c.breaches["required"]), Some(1));
        assert!(t.get("_row").is_none());
        let text = t.to_string();
        assert!(text.starts_with("2 records\n"), "{text}");
        // Rules about the whole record, then the schema's fields in its order, then the others.
        let rows: Vec<&str> = text
            .lines()
            .skip(2)
            .take(4)
            .filter_map(|l| l.split_whitespace().next())
            .collect();
        assert_eq!(rows, [WHOLE, "title", "price", "extra"], "{text}");
        assert!(text.contains("price"), "{text}");
        assert!(
            text.lines()
                .any(|l| l.starts_with("price") && l.ends_with("maximum 1")),
            "{text}"
        );
        // `extra` is not among the schema's fields the table started with; a table that never
        // knew the schema cannot say so.
        assert_eq!(t.unnamed(), Some(vec!["extra"]));
        assert!(
            text.ends_with("fields the schema does not name: extra\n"),
            "{text}"
        );
        let mut plain = Table::default();
        plain.add(&r(json!({"extra": 1})), &[]);
        assert_eq!(plain.unnamed(), None);
        assert!(!plain.to_string().contains("does not name"));
    }
}
