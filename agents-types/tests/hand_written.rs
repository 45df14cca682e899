//! A `record!` written by hand has had no generator check its schema: what is wrong with the
//! text is said once, naming the record, when the schema is first compiled, and stays in its
//! problems, where nothing was said before (text that is not JSON silently checked nothing).

use std::sync::{Arc, Mutex};

use agents_runtime::Record;
use agents_runtime::check::ProblemKind;

agents_runtime::record! {
    #![schema = r#"{"properties": {"stars": {"maximum": 5}},}"#]
    #![fields = TrailingCommaFields]
    #[derive(Debug, Clone, PartialEq, Default)]
    struct TrailingComma {
        pub stars: Option<f64>,
        #[json(flatten)]
        pub unknown_fields: agents_runtime::JsonMap,
        #[json(skip)]
        pub mismatches: Vec<agents_runtime::Mismatch>,
        #[json(skip)]
        pub breaches: Vec<agents_runtime::Breach>,
    }
}

agents_runtime::record! {
    #![schema = r#"{"properties": {"stars": {"maximum": 5, "maximum": 50}, "by": {"type": "strng"}}}"#]
    #![fields = TwiceFields]
    #[derive(Debug, Clone, PartialEq, Default)]
    struct Twice {
        pub stars: Option<f64>,
        pub by: Option<agents_runtime::Value>,
        #[json(flatten)]
        pub unknown_fields: agents_runtime::JsonMap,
        #[json(skip)]
        pub mismatches: Vec<agents_runtime::Mismatch>,
        #[json(skip)]
        pub breaches: Vec<agents_runtime::Breach>,
    }
}

#[derive(Clone)]
struct Sink(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Sink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0
            .lock()
            .map_err(|_| std::io::ErrorKind::Other)?
            .extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn what_is_wrong_with_a_hand_written_schema_is_said_naming_the_record() {
    let logs = Arc::new(Mutex::new(Vec::new()));
    let sink = Sink(Arc::clone(&logs));
    let subscriber = tracing_subscriber::fmt()
        .with_writer(move || sink.clone())
        .with_ansi(false)
        .finish();
    let (broken, twice) = tracing::subscriber::with_default(subscriber, || {
        let broken: TrailingComma = serde_json::from_str(r#"{"stars": 47}"#).unwrap();
        let twice: Twice = serde_json::from_str(r#"{"stars": 47}"#).unwrap();
        (broken, twice)
    });
    let logs = String::from_utf8(logs.lock().unwrap().clone()).unwrap();

    // Not JSON: nothing can be checked, and that is said rather than passed over.
    let problems = TrailingComma::schema().unwrap().problems();
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!(problems[0].kind, ProblemKind::Unreadable);
    assert!(broken.breaches.is_empty());
    assert!(
        logs.contains("WARN")
            && logs.contains("the schema of `TrailingComma`")
            && logs.contains("not JSON"),
        "{logs}"
    );

    // A key given twice is named at its pointer; the last `maximum` is the one checked, as
    // every JSON reader keeps it.
    let problems = Twice::schema().unwrap().problems();
    let kinds: Vec<(ProblemKind, &str)> = (problems.iter())
        .map(|p| (p.kind, p.pointer.as_str()))
        .collect();
    assert_eq!(
        kinds,
        [
            (ProblemKind::RepeatedKey, "/properties/stars/maximum"),
            (ProblemKind::UnknownType, "/properties/by/type"),
        ]
    );
    assert!(twice.breaches.is_empty(), "{:?}", twice.breaches);
    assert!(
        logs.contains("the schema of `Twice`: /properties/stars/maximum: `maximum` is given twice"),
        "{logs}"
    );
}
