//! Agent inputs from the command line and from files, typed and checked against the agent's
//! record before anything is sent: `--param k=v` and CSV cells are read as the type their input
//! declares, JSONL lines are taken as JSON, and every item goes through the same rules generated
//! `validate()` methods apply.

use std::io::{BufRead, BufReader};
use std::path::Path;

use agents_runtime::validate::{Localization, RequestCheck};
use agents_schema::AgentRecord;
use agents_schema::diag::json_kind;
use agents_schema::inputs::{COMMON_PARAMS, LOCALIZATION_PARAMS, ParamTy, param_type};
use serde_json::{Map, Value};

use crate::documents::Documents;

/// The type an input `name` of `record` takes; common params (`country`, `locale`, `tag`,
/// `parse`) and undeclared ones as the service takes them.
fn input_type(record: &AgentRecord, name: &str) -> ParamTy {
    let page = record.pagination_param().map(|p| p.name.as_str());
    match record.inputs().iter().find(|i| i.name == name) {
        Some(input) => param_type(input, page == Some(name)).0,
        None => COMMON_PARAMS
            .iter()
            .find(|(common, _)| *common == name)
            .map_or(ParamTy::String, |(_, ty)| *ty),
    }
}

/// `text` read as the value of input `name`: a number for a number input, and so on. An
/// untyped input takes JSON, or the text itself when it is not JSON.
pub fn typed_param(record: &AgentRecord, name: &str, text: &str) -> Result<Value, String> {
    let ty = input_type(record, name);
    let fail = |what: &str| format!("parameter `{name}` must be {what}, not {text:?}");
    let trimmed = text.trim();
    Ok(match ty {
        ParamTy::String => Value::String(text.to_owned()),
        // JSON's spelling of a number first, so that `12345678901234567` is sent as written
        // rather than as the nearest double; then what else Rust reads as one (`+1`, `.5`).
        // Never one past a double's range (`1e400`, which serde_json's `arbitrary_precision`
        // would keep as text): the service reads it as infinity, or not at all.
        ParamTy::Number => trimmed
            .parse::<serde_json::Number>()
            .ok()
            .filter(|n| n.as_f64().is_some_and(f64::is_finite))
            .or_else(|| {
                trimmed
                    .parse::<f64>()
                    .ok()
                    .and_then(serde_json::Number::from_f64)
            })
            .map(Value::Number)
            .ok_or_else(|| fail("a number"))?,
        // `12.0` and `1e3` are integers in JSON Schema (a spreadsheet writes a whole number
        // so): every spelling of one is taken, exactly. An integer input is an `i64` in the
        // generated params, so one past its range is refused saying so.
        ParamTy::Integer => Value::from(agents_runtime::decode::integer_text(trimmed).ok_or_else(
            || {
                let past_i64 = trimmed
                    .parse::<f64>()
                    .is_ok_and(|f| f.is_finite() && f.abs() >= 9.2e18);
                fail(if past_i64 {
                    "an integer from -9223372036854775808 to 9223372036854775807 (an i64)"
                } else {
                    "an integer"
                })
            },
        )?),
        ParamTy::Page => Value::from(
            trimmed
                .parse::<u32>()
                .map_err(|_| fail("a positive integer"))?,
        ),
        ParamTy::Boolean => match trimmed.to_ascii_lowercase().as_str() {
            "true" | "1" | "yes" => Value::Bool(true),
            "false" | "0" | "no" => Value::Bool(false),
            _ => return Err(fail("true or false")),
        },
        // A list or an object is written as JSON; what it holds is checked with the rest of
        // the request, item by item.
        ParamTy::List(_) | ParamTy::Object => match serde_json::from_str::<Value>(trimmed) {
            Ok(v)
                if matches!(
                    (ty, &v),
                    (ParamTy::List(_), Value::Array(_)) | (ParamTy::Object, Value::Object(_))
                ) =>
            {
                v
            }
            Ok(other) => {
                return Err(format!(
                    "parameter `{name}` must be {}, not {} ({text:?}); write it as JSON: {}",
                    ty.expected(),
                    json_kind(&other),
                    json_example(ty)
                ));
            }
            Err(_) => {
                return Err(format!(
                    "parameter `{name}` must be {}, written as JSON ({}), not {text:?}",
                    ty.expected(),
                    json_example(ty)
                ));
            }
        },
        ParamTy::Any => {
            serde_json::from_str(trimmed).unwrap_or_else(|_| Value::String(text.to_owned()))
        }
    })
}

/// How a value of kind `ty` is written as JSON, for messages.
fn json_example(ty: ParamTy) -> &'static str {
    use agents_schema::inputs::ItemTy;
    match ty {
        ParamTy::List(ItemTy::String) => r#"["a", "b"]"#,
        ParamTy::List(ItemTy::Number) => "[1.5, 2]",
        ParamTy::List(ItemTy::Integer) => "[1, 2]",
        ParamTy::List(ItemTy::Boolean) => "[true, false]",
        ParamTy::List(ItemTy::Any) => r#"[1, "a"]"#,
        _ => r#"{"key": "value"}"#,
    }
}

/// Whether a param without a name can mean anything to `record`: only when one of its inputs
/// is so named. Otherwise it is a slip (a pandas index column, `-p =x`) that would be sent.
fn nameless_refused(record: &AgentRecord, name: &str) -> bool {
    name.is_empty() && !record.inputs().iter().any(|i| i.name.is_empty())
}

/// `k=v` pairs typed by [`typed_param`]; a pair without `=` or without a name is named, and so
/// is a name given twice, since only one of its values could be sent.
pub fn from_pairs(record: &AgentRecord, pairs: &[String]) -> Result<Map<String, Value>, String> {
    let mut params = Map::new();
    for pair in pairs {
        let Some((key, value)) = pair.split_once('=') else {
            return Err(format!("--param {pair:?} is not of the form NAME=VALUE"));
        };
        let key = key.trim();
        if nameless_refused(record, key) {
            return Err(format!(
                "--param {pair:?} has no name before `=`: write NAME=VALUE, NAME an input of \
                 agent `{}`",
                record.name
            ));
        }
        if params.contains_key(key) {
            let first = pairs
                .iter()
                .find(|p| p.split_once('=').is_some_and(|(k, _)| k.trim() == key))
                .map_or(key, String::as_str);
            return Err(format!(
                "--param `{key}` is given twice ({first:?} and {pair:?}); an input takes one \
                 value: give it once (a list as JSON, `{key}=[\"a\",\"b\"]`, where the input \
                 takes one)"
            ));
        }
        params.insert(key.to_owned(), typed_param(record, key, value)?);
    }
    Ok(params)
}

/// A warning naming the params of `items` that are neither inputs of `record` nor common or
/// localization params, with the inputs it has: a misspelt input is sent as given (the service
/// takes params it does not declare), so the user hears of it before the results lack it.
pub fn undeclared<'a>(
    record: &AgentRecord,
    items: impl IntoIterator<Item = &'a Map<String, Value>>,
) -> Option<String> {
    let known = |name: &str| {
        record.inputs().iter().any(|i| i.name == name)
            || COMMON_PARAMS.iter().any(|(common, _)| *common == name)
            || LOCALIZATION_PARAMS.contains(&name)
    };
    let strangers: std::collections::BTreeSet<&str> = items
        .into_iter()
        .flat_map(|params| params.keys())
        .map(String::as_str)
        .filter(|name| !known(name))
        .collect();
    if strangers.is_empty() {
        return None;
    }
    // An agent's localization input is also a localization param: each name once.
    let takes: std::collections::BTreeSet<&str> = record
        .inputs()
        .iter()
        .map(|i| i.name.as_str())
        .chain(COMMON_PARAMS.iter().map(|(name, _)| *name))
        .chain(LOCALIZATION_PARAMS.iter().copied())
        .collect();
    let named: Vec<String> = strangers
        .iter()
        .map(|name| {
            let near = agents_schema::nearest_names(name, takes.iter().copied());
            format!("`{name}`{}", agents_schema::did_you_mean(&near))
        })
        .collect();
    let inputs = quoted(record.inputs().iter().map(|i| i.name.as_str()));
    let common = quoted(COMMON_PARAMS.iter().map(|(name, _)| *name));
    let (is, them) = if strangers.len() == 1 {
        ("is not an input", "it is")
    } else {
        ("are not inputs", "they are")
    };
    Some(format!(
        "{} {is} of agent `{}`; {them} sent to the service as given. Its inputs: {}; every agent \
         also takes {common}",
        named.join(", "),
        record.name,
        if inputs.is_empty() { "none" } else { &inputs },
    ))
}

/// "`a`, `b`".
fn quoted<'a>(names: impl Iterator<Item = &'a str>) -> String {
    names
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The request check of `record`'s items, its input schema's references read from `documents`.
/// What the check cannot judge (a reference to a document not given) is said here, once, as a
/// warning: those keywords pass unjudged, and the service judges them.
pub fn request_check<'r>(record: &'r AgentRecord, documents: &Documents) -> RequestCheck<'r> {
    let check = RequestCheck::with_options(record, documents.check_options());
    for problem in check.schema_problems() {
        eprintln!(
            "warning: agent `{}`: input_schema#{}: {}; params are sent without this check \
             (`--documents PREFIX=DIR` reads the documents a reference names)",
            record.name, problem.pointer, problem.message
        );
    }
    check
}

/// Every problem with one item's params, in one message: missing required inputs, values of
/// the wrong type, broken rules, bad common params, localization inputs on an agent that is not
/// localized (the runtime's one request check). `None` when the item can be sent.
pub fn problems(check: &RequestCheck<'_>, params: &Map<String, Value>) -> Option<String> {
    let params = Value::Object(params.clone());
    check
        .check(&params, Localization::Derived)
        .err()
        .map(|found| {
            found
                .problems
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("; ")
        })
}

/// One input item: its 1-based position in the file and its params.
pub struct Item {
    /// Position among the file's items (a CSV data row, a JSONL line), from 1.
    pub row: usize,
    /// The params, typed.
    pub params: Map<String, Value>,
}

/// The character between a CSV file's cells: a tab in a `.tsv` file; in a `.csv` file a comma,
/// unless its header line has none and has semicolons, as Excel writes CSV where a comma is the
/// decimal mark (read with commas, its header would be one name, and every row sent wrong).
fn delimiter(ext: &str, head: &[u8]) -> u8 {
    let header = head.split(|b| *b == b'\n').next().unwrap_or_default();
    if ext == "tsv" {
        b'\t'
    } else if !header.contains(&b',') && header.contains(&b';') {
        b';'
    } else {
        b','
    }
}

/// The items of a CSV file (a header row of input names, empty cells left out) or a JSONL file
/// (one JSON object of params per line, blank lines skipped), by extension.
pub fn read_items(record: &AgentRecord, path: &Path) -> Result<Vec<Item>, String> {
    let file =
        std::fs::File::open(path).map_err(|e| format!("cannot open {}: {e}", path.display()))?;
    let mut items = Vec::new();
    // Every row that cannot be read is named at once, as the rules of readable rows are.
    let mut unreadable = Vec::new();
    match path.extension().and_then(|e| e.to_str()) {
        Some(ext @ ("csv" | "tsv")) => {
            let mut file = BufReader::new(file);
            let head = file
                .fill_buf()
                .map_err(|e| format!("{}: {e}", path.display()))?;
            let delimiter = delimiter(ext, head);
            // Where cells are parted by semicolons a comma is the decimal mark (`2,5`).
            let decimal_comma = delimiter == b';';
            let mut reader = csv::ReaderBuilder::new()
                .delimiter(delimiter)
                .from_reader(file);
            let headers = reader
                .headers()
                .map_err(|e| format!("{}: {e}", path.display()))?
                .clone();
            // A header cell's spaces are not part of the name (`asin, zip_code` is how people
            // type a header), as they are not in `-p asin = B1`.
            let headers: Vec<&str> = headers.iter().map(str::trim).collect();
            // A name twice in the header would keep one column's cells and drop the other's.
            let mut columns: indexmap::IndexMap<&str, Vec<usize>> = indexmap::IndexMap::new();
            for (at, name) in headers.iter().enumerate() {
                columns.entry(name).or_default().push(at + 1);
            }
            let faults: Vec<String> = columns
                .iter()
                .filter_map(|(name, at)| {
                    let at: Vec<String> = at.iter().map(ToString::to_string).collect();
                    let at = at.join(", ");
                    if nameless_refused(record, name) {
                        Some(format!(
                            "the header gives column(s) {at} no name: name each after an input \
                             of agent `{}`, or remove it (pandas writes its index so; \
                             `to_csv(index=False)` does not)",
                            record.name
                        ))
                    } else if at.contains(',') {
                        Some(format!(
                            "the header names `{name}` in columns {at}: rename or remove all \
                             but one"
                        ))
                    } else {
                        None
                    }
                })
                .collect();
            if !faults.is_empty() {
                return Err(format!(
                    "nothing was sent; {}: {}",
                    path.display(),
                    faults.join("; ")
                ));
            }
            for (i, row) in reader.records().enumerate() {
                let row = match row {
                    Ok(row) => row,
                    // A CSV error names its line; an I/O error ends the file.
                    Err(e) if e.is_io_error() => return Err(format!("{}: {e}", path.display())),
                    Err(e) => {
                        unreadable.push(match e.kind() {
                            csv::ErrorKind::UnequalLengths {
                                pos,
                                expected_len,
                                len,
                            } => format!(
                                "row {}{}: {len} field(s), where the header has {expected_len}",
                                i + 1,
                                pos.as_ref()
                                    .map_or_else(String::new, |p| format!(" (line {})", p.line()))
                            ),
                            csv::ErrorKind::Utf8 { pos, err } => format!(
                                "row {}{}: column {} is not UTF-8 text: save the file as UTF-8 \
                                 (in Excel, \"CSV UTF-8\")",
                                i + 1,
                                pos.as_ref()
                                    .map_or_else(String::new, |p| format!(" (line {})", p.line())),
                                headers.get(err.field()).map_or_else(
                                    || (err.field() + 1).to_string(),
                                    |h| format!("`{h}`")
                                )
                            ),
                            _ => format!("row {}: {e}", i + 1),
                        });
                        continue;
                    }
                };
                let mut params = Map::new();
                for (&name, cell) in headers.iter().zip(row.iter()) {
                    if cell.is_empty() {
                        continue;
                    }
                    let numeric =
                        matches!(input_type(record, name), ParamTy::Number | ParamTy::Integer);
                    let cell = if decimal_comma
                        && numeric
                        && !cell.contains('.')
                        && cell.matches(',').count() == 1
                    {
                        std::borrow::Cow::Owned(cell.replace(',', "."))
                    } else {
                        std::borrow::Cow::Borrowed(cell)
                    };
                    match typed_param(record, name, &cell) {
                        Ok(value) => {
                            params.insert(name.to_owned(), value);
                        }
                        Err(e) => unreadable.push(format!("row {}: {e}", i + 1)),
                    }
                }
                items.push(Item { row: i + 1, params });
            }
        }
        Some("jsonl" | "ndjson") => {
            for (i, line) in BufReader::new(file).lines().enumerate() {
                let line = line.map_err(|e| format!("{}: {e}", path.display()))?;
                // A byte order mark an editor saved before the first line is skipped, as in
                // every JSON file read (the CSV reader skips it too).
                let line = agents_wire::json::text_without_bom(&line);
                if line.trim().is_empty() {
                    continue;
                }
                match serde_json::from_str::<Value>(line) {
                    Ok(Value::Object(params)) => {
                        // A name given twice would send the last value and drop the other, as
                        // `-p` and a CSV header would.
                        let twice = agents_schema::duplicate_keys(line);
                        let nameless = params.keys().any(|k| nameless_refused(record, k));
                        if nameless {
                            unreadable.push(format!(
                                "line {}: a param named \"\": name it after an input of agent \
                                 `{}`, or remove it",
                                i + 1,
                                record.name
                            ));
                        }
                        if twice.is_empty() && !nameless {
                            items.push(Item { row: i + 1, params });
                        }
                        for t in twice {
                            unreadable.push(format!("line {}: {t}", i + 1));
                        }
                    }
                    Ok(other) => unreadable.push(format!(
                        "line {}: expected a JSON object of params, found {}",
                        i + 1,
                        json_kind(&other)
                    )),
                    Err(e) => unreadable.push(format!("line {}: {e}", i + 1)),
                }
            }
        }
        _ => {
            return Err(format!(
                "{}: give a .csv (or .tsv) or a .jsonl file of inputs",
                path.display()
            ));
        }
    }
    if !unreadable.is_empty() {
        const SHOWN: usize = 20;
        let more = unreadable.len().saturating_sub(SHOWN);
        let mut text = format!(
            "nothing was sent; {} problem(s) reading {}:\n  {}",
            unreadable.len(),
            path.display(),
            unreadable[..unreadable.len().min(SHOWN)].join("\n  ")
        );
        if more > 0 {
            text.push_str(&format!("\n  and {more} more"));
        }
        return Err(text);
    }
    if items.is_empty() {
        return Err(format!(
            "{} holds no rows of inputs: nothing was sent",
            path.display()
        ));
    }
    Ok(items)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn record() -> AgentRecord {
        AgentRecord::from_value(&json!({
            "name": "a",
            "input_schema": {"type": "object", "properties": {
                "below": {"type": "number"},
                "count": {"type": "integer"},
                "asin": {"type": "string"},
            }},
            "output_schema": {"type": "object", "properties": {}},
        }))
        .unwrap()
    }

    #[test]
    fn a_list_or_object_input_is_written_as_json_of_its_kind() {
        let r = AgentRecord::from_value(&json!({
            "name": "a",
            "input_schema": {"type": "object", "properties": {
                "tags": {"type": "array", "items": {"type": "string"}},
                "filters": {"type": "object"},
            }},
            "output_schema": {"type": "object", "properties": {}},
        }))
        .unwrap();
        assert_eq!(
            typed_param(&r, "tags", r#" ["a", "b"] "#).unwrap(),
            json!(["a", "b"])
        );
        assert_eq!(
            typed_param(&r, "filters", r#"{"open": true}"#).unwrap(),
            json!({"open": true})
        );
        for (name, text, said) in [
            (
                "tags",
                "a",
                r#"parameter `tags` must be an array of strings, written as JSON (["a", "b"]), not "a""#,
            ),
            (
                "tags",
                "5",
                r#"parameter `tags` must be an array of strings, not a number ("5"); write it as JSON: ["a", "b"]"#,
            ),
            (
                "filters",
                "[1]",
                r#"parameter `filters` must be an object, not an array ("[1]"); write it as JSON: {"key": "value"}"#,
            ),
        ] {
            assert_eq!(typed_param(&r, name, text).unwrap_err(), said);
        }
        // Items of the wrong kind are named with the rest of the request's problems.
        let params = from_pairs(&r, &[r#"tags=["a", 2]"#.to_owned()]).unwrap();
        let err = agents_runtime::validate::check_request(
            &r,
            &Value::Object(params),
            Localization::Derived,
        )
        .unwrap_err();
        assert!(
            err.to_string()
                .contains("parameter `tags[1]` must be a string, not a number"),
            "{err}"
        );
    }

    #[test]
    fn a_number_input_is_sent_as_written() {
        let r = record();
        for (text, sent) in [
            ("12345678901234567", "12345678901234567"),
            ("-9007199254740993", "-9007199254740993"),
            ("57414.518664216484", "57414.518664216484"),
            (" 0.1 ", "0.1"),
            ("+1.5", "1.5"),
            (".5", "0.5"),
        ] {
            let value = typed_param(&r, "below", text).unwrap();
            assert_eq!(value.to_string(), sent, "{text:?}");
        }
        for text in ["1e400", "NaN", "inf", "ten"] {
            let err = typed_param(&r, "below", text).unwrap_err();
            assert!(err.contains("`below` must be a number"), "{text:?}: {err}");
        }
    }

    #[test]
    fn an_integer_input_takes_whole_numbers_however_written() {
        let r = record();
        for (text, sent) in [
            ("12", 12),
            (" 12.0 ", 12),
            ("1e3", 1000),
            ("-9223372036854775808", i64::MIN),
            ("9007199254740993.0", 9_007_199_254_740_993),
        ] {
            assert_eq!(
                typed_param(&r, "count", text).unwrap(),
                json!(sent),
                "{text}"
            );
        }
        for (text, range) in [
            ("12.5", false),
            ("4503599627370495.8", false),
            ("9223372036854775808", true),
            ("-99999999999999999999", true),
            ("1e19", true),
            ("1e400", false),
            ("NaN", false),
        ] {
            let err = typed_param(&r, "count", text).unwrap_err();
            assert!(
                err.contains("`count` must be an integer"),
                "{text:?}: {err}"
            );
            assert_eq!(
                err.contains("to 9223372036854775807"),
                range,
                "{text:?}: {err}"
            );
        }
    }

    #[test]
    fn a_param_given_twice_is_refused_naming_both() {
        let pairs = ["asin=B1", "below=3", " asin =B2"].map(String::from);
        let err = from_pairs(&record(), &pairs).unwrap_err();
        assert!(
            err.contains(r#"`asin` is given twice ("asin=B1" and " asin =B2")"#),
            "{err}"
        );
        let once = from_pairs(&record(), &pairs[..2]).unwrap();
        assert_eq!(Value::Object(once), json!({"asin": "B1", "below": 3}));
    }

    #[test]
    fn a_param_without_a_name_is_refused_unless_an_input_has_none() {
        let err = from_pairs(&record(), &[" =x".to_owned()]).unwrap_err();
        assert!(err.contains("has no name before `=`"), "{err}");
        let dir =
            std::env::temp_dir().join(format!("agents-inputs-nameless-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        // A pandas index column, and a header typed with spaces after its commas.
        let csv = dir.join("rows.csv");
        std::fs::write(&csv, ",asin, below\n0,B1, 2\n").unwrap();
        let jsonl = dir.join("rows.jsonl");
        std::fs::write(&jsonl, "{\"asin\": \"B1\", \"\": 0}\n").unwrap();
        let csv_err = read_items(&record(), &csv).err().unwrap();
        let jsonl_err = read_items(&record(), &jsonl).err().unwrap();
        std::fs::write(&csv, "asin, below \nB1, 2\n").unwrap();
        let trimmed = read_items(&record(), &csv).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(csv_err.contains("gives column(s) 1 no name"), "{csv_err}");
        assert!(
            jsonl_err.contains("line 1: a param named \"\""),
            "{jsonl_err}"
        );
        assert_eq!(
            Value::Object(trimmed[0].params.clone()),
            json!({"asin": "B1", "below": 2})
        );
        // An agent that does take an input named "" gets it.
        let takes = AgentRecord::from_value(&json!({
            "name": "b",
            "input_schema": {"type": "object", "properties": {"": {"type": "string"}}},
            "output_schema": {"type": "object", "properties": {}},
        }))
        .unwrap();
        let sent = from_pairs(&takes, &["=x".to_owned()]).unwrap();
        assert_eq!(Value::Object(sent), json!({"": "x"}));
    }

    #[test]
    fn files_read_as_the_spreadsheet_wrote_them() {
        let dir = std::env::temp_dir().join(format!("agents-inputs-excel-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let read = |file: &str, bytes: &[u8]| {
            let path = dir.join(file);
            std::fs::write(&path, bytes).unwrap();
            read_items(&record(), &path).map(|items| {
                items
                    .into_iter()
                    .map(|i| Value::Object(i.params))
                    .collect::<Vec<_>>()
            })
        };
        let want = vec![json!({"asin": "B1", "below": 2.5})];
        // Excel where a comma is the decimal mark writes semicolons; a .tsv file has tabs.
        assert_eq!(read("semi.csv", b"asin;below\nB1;2.5\n").unwrap(), want);
        // With its decimal comma, for a number; a text input keeps its comma.
        assert_eq!(
            read("comma.csv", b"asin;below\nB,1;2,5\n").unwrap(),
            vec![json!({"asin": "B,1", "below": 2.5})]
        );
        assert_eq!(read("tabs.tsv", b"asin\tbelow\nB1\t2.5\n").unwrap(), want);
        // A comma in the header keeps commas, whatever the cells hold.
        assert_eq!(
            read("comma.csv", b"asin,below\n\"B;1\",2.5\n").unwrap(),
            vec![json!({"asin": "B;1", "below": 2.5})]
        );
        // Latin-1, as older Excel saves CSV: named by row and column, with the fix.
        let err = read("latin.csv", b"below,asin\n1,M\xfcnchen\n").unwrap_err();
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(
            err.contains("row 1 (line 2): column `asin` is not UTF-8 text: save the file as UTF-8"),
            "{err}"
        );
    }

    #[test]
    fn a_jsonl_file_saved_with_a_byte_order_mark_reads_as_without() {
        let dir = std::env::temp_dir().join(format!("agents-inputs-bom-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("rows.jsonl");
        std::fs::write(&path, "\u{feff}{\"asin\": \"B1\"}\n{\"asin\": \"B2\"}\n").unwrap();
        let items = read_items(&record(), &path).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        let asins: Vec<&Value> = items.iter().map(|i| &i.params["asin"]).collect();
        assert_eq!(asins, [&json!("B1"), &json!("B2")]);
    }

    #[test]
    fn a_header_naming_an_input_twice_is_refused_before_any_row_is_read() {
        let dir = std::env::temp_dir().join(format!("agents-inputs-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("twice.csv");
        std::fs::write(&path, "asin,below,asin,below,x\nB1,1,B2,2,\n").unwrap();
        let err = read_items(&record(), &path).err().unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(err.starts_with("nothing was sent; "), "{err}");
        assert!(
            err.contains("the header names `asin` in columns 1, 3")
                && err.contains("the header names `below` in columns 2, 4"),
            "{err}"
        );
    }
}
