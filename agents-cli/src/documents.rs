//! Where a schema's references to other documents are read from (`--documents`), and what the
//! service is sent for a template written as schema files: its documents standing alone.

use agents_codegen::Options;
use agents_schema::{AgentRecord, Json, RecordError, json_schema};

/// Where a schema's references to other documents are read from, for every command that reads a
/// schema (`generate`, `check`, `publish`, `research --schema`) or checks params by one (`run`,
/// `batch`, `jobs create`).
#[derive(Debug, Clone, Default, clap::Args)]
pub(crate) struct Documents {
    /// Where references to other documents are read from: the files under DIR are the URIs
    /// starting with PREFIX (`https://example.com/schemas/=schemas/shared`), never the network
    /// (repeatable).
    #[arg(long = "documents", value_name = "PREFIX=DIR", value_parser = parse_documents)]
    pub(crate) list: Vec<(String, std::path::PathBuf)>,
}

impl Documents {
    /// `options` reading these documents.
    pub(crate) fn apply(&self, mut options: Options) -> Options {
        for (prefix, dir) in &self.list {
            options = options.documents(prefix.clone(), dir.clone());
        }
        options
    }

    /// The checker's options reading these documents, for the request check.
    pub(crate) fn check_options(&self) -> agents_runtime::check::Options {
        let mut options = agents_runtime::check::Options::new();
        for (prefix, dir) in &self.list {
            options = options.directory(prefix.clone(), dir.clone());
        }
        options
    }

    /// `schema` with what its references read from these documents embedded under `$defs`, so
    /// that the service gets a schema that stands alone (as a generated type carries it); as
    /// written, key order and all, when it refers to none.
    pub(crate) fn bundle(&self, schema: &Json) -> Json {
        schema.standalone(&self.check_options().compile(&schema.to_value()))
    }

    /// The input and output documents `publish` sends for `record` (a template written as
    /// schema files), each [bundled](Self::bundle).
    pub(crate) fn published(&self, record: &AgentRecord) -> (Json, Json) {
        (
            self.bundle(&json_schema::input_schema(record)),
            self.bundle(&json_schema::output_schema(record)),
        )
    }

    /// `record` as the service holds it once published: read back from the documents
    /// [`published`](Self::published) sends, so that `check` compares what publishing would
    /// change, a shared file under `$defs` included.
    pub(crate) fn as_published(&self, record: &AgentRecord) -> Result<AgentRecord, RecordError> {
        let (input, output) = self.published(record);
        json_schema::record(
            &record.name,
            Some(&input),
            Some(&output),
            Some(&json_schema::metadata(record)),
        )
    }
}

fn parse_documents(text: &str) -> Result<(String, std::path::PathBuf), String> {
    match text.split_once('=') {
        Some((prefix, dir)) if !prefix.trim().is_empty() && !dir.trim().is_empty() => {
            Ok((prefix.trim().to_owned(), dir.trim().into()))
        }
        _ => Err(format!(
            "expected PREFIX=DIR, like https://example.com/schemas/=schemas/shared, not {text:?}"
        )),
    }
}
