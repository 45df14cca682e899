//! Emission: the runtime paths and parsed templates, and printing an agent's pieces as tokens
//! (the macro) or as prettyplease source.

use proc_macro2::TokenStream;

use agents_schema::diag::Diagnostics;

use crate::emit;
use crate::format::{Printer, generator_bug};
use crate::ir::AgentIr;

/// The runtime paths and the parsed templates of one emission (of one agent or of several).
pub(crate) struct Emitter {
    paths: emit::Paths,
    templates: emit::Templates,
}

impl Emitter {
    /// An emitter for runtime path `rt`; a failure names `agent`.
    pub(crate) fn new(rt: &str, agent: &str) -> Result<Self, Diagnostics> {
        let make = || -> syn::Result<Emitter> {
            let path: syn::Path = syn::parse_str(rt)?;
            let paths = emit::Paths::new(&path)?;
            let templates = emit::Templates::new(&paths)?;
            Ok(Emitter { paths, templates })
        };
        make().map_err(|e| generator_bug(Some(agent), &e))
    }

    /// Emits `a`, handing each piece to `sink`.
    fn emit(&self, a: &AgentIr, sink: &mut dyn FnMut(emit::Piece)) -> Result<(), Diagnostics> {
        emit::agent(a, &self.paths, &self.templates, sink)
            .map_err(|e| generator_bug(Some(&a.name), &e))
    }

    /// Trees are printed as tokens, the text of everything else lexed.
    pub(crate) fn tokens(&mut self, a: &AgentIr, out: &mut TokenStream) -> Result<(), Diagnostics> {
        let rt = self.paths.rt().clone();
        let mut unlexed = None;
        self.emit(a, &mut |piece| match piece {
            emit::Piece::Record(record, head) => match record.text.parse::<TokenStream>() {
                Ok(item) => {
                    let fields = crate::naming::ident(&head.fields);
                    let schema = head.schema.map(|s| quote::quote!(#![schema = #s]));
                    out.extend(quote::quote!(#rt::record! { #schema #![fields = #fields] #item }));
                }
                Err(e) => {
                    unlexed.get_or_insert_with(|| {
                        syn::Error::new(
                            proc_macro2::Span::call_site(),
                            format!("a record's text does not lex: {e}"),
                        )
                    });
                }
            },
            emit::Piece::Enum(item) => out.extend(quote::quote!(#rt::string_enum! { #item })),
            emit::Piece::Union(item) => out.extend(quote::quote!(#rt::union_enum! { #item })),
            emit::Piece::Text(item) => match item.text.parse::<TokenStream>() {
                Ok(item) => out.extend(item),
                Err(e) => {
                    unlexed.get_or_insert_with(|| {
                        syn::Error::new(
                            proc_macro2::Span::call_site(),
                            format!("an item's text does not lex: {e}"),
                        )
                    });
                }
            },
        })?;
        match unlexed {
            Some(e) => Err(generator_bug(Some(&a.name), &e)),
            None => Ok(()),
        }
    }

    /// prettyplease prints a file as its items one after the other, so printing item by item
    /// gives the same text while only one item's tree is alive. Text marked unformatted is
    /// parsed here.
    pub(crate) fn source(&mut self, a: &AgentIr) -> Result<String, Diagnostics> {
        let mut printer = Printer::default();
        let mut unparsed = None;
        let rt_text = self.paths.rt_text().to_owned();
        self.emit(a, &mut |piece| match piece {
            emit::Piece::Record(record, head) => {
                if let Err(e) =
                    printer.record_text(&rt_text, head.schema.as_deref(), &head.fields, record)
                {
                    unparsed.get_or_insert(e);
                }
            }
            emit::Piece::Enum(item) => {
                printer.wrapped(&rt_text, "string_enum", syn::Item::Enum(item), None)
            }
            emit::Piece::Union(item) => {
                printer.wrapped(&rt_text, "union_enum", syn::Item::Enum(item), None)
            }
            emit::Piece::Text(item) => {
                if let Err(e) = printer.text(item) {
                    unparsed.get_or_insert(e);
                }
            }
        })?;
        match unparsed {
            Some(e) => Err(generator_bug(Some(&a.name), &e)),
            None => Ok(printer.finish()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Emitter;
    use crate::emit::Piece;

    /// Every item written as text and marked formatted is exactly what prettyplease prints for
    /// it, for the catalog, the test schemas and arbitrary records, under runtime paths short
    /// and long; and the catalog's params types are all written formatted, which is what makes
    /// text worth writing.
    #[test]
    fn text_marked_formatted_is_what_prettyplease_prints() {
        let root = agents_test_support::workspace_root();
        let mut records = Vec::new();
        for dir in [
            agents_test_support::schemas_dir(),
            root.join("tests/modes/schemas"),
            root.join("tests/json-schema"),
        ] {
            match crate::load_dir(&dir) {
                Ok(loaded) => records.extend(loaded.into_iter().map(|l| (true, l.record))),
                Err(e) => panic!("{}: {e}", dir.display()),
            }
        }
        for seed in [3, 7, 11] {
            let sample = agents_test_support::fixed_sample(120, seed);
            records.extend(sample.into_iter().map(|r| (false, r)));
        }
        let (mut checked, mut formatted, mut ours_unformatted) = (0, 0, Vec::new());
        for rt in [
            "::agents_runtime",
            "crate",
            "::a_runtime_crate_with_a_long_name::and_a_module_of_its_own::rt",
        ] {
            let options = crate::Options {
                runtime_path: rt.to_owned(),
                ..crate::Options::default()
            };
            for (ours, record) in &records {
                let Ok(out) = crate::generate(std::slice::from_ref(record), &options) else {
                    continue;
                };
                for agent in &out.agents {
                    let emitter = match Emitter::new(rt, &agent.name) {
                        Ok(e) => e,
                        Err(e) => panic!("{e}"),
                    };
                    let mut texts = Vec::new();
                    let emitted = emitter.emit(&agent.ir, &mut |piece| {
                        if let Piece::Text(t) = piece {
                            texts.push(t);
                        }
                    });
                    assert!(emitted.is_ok(), "{}", agent.name);
                    for t in texts {
                        let file = match syn::parse_file(&t.text) {
                            Ok(file) => file,
                            Err(e) => panic!("{}: {e}\n{}", agent.name, t.text),
                        };
                        checked += 1;
                        if t.formatted {
                            formatted += 1;
                            let pretty = prettyplease::unparse(&file);
                            assert_eq!(t.text, pretty, "{} under {rt}", agent.name);
                        } else if *ours && rt == "::agents_runtime" {
                            ours_unformatted.push(agent.name.clone());
                        }
                    }
                }
            }
        }
        assert!(checked > 500, "{checked}");
        eprintln!("{formatted} of {checked} items written as prettyplease prints them");
        assert!(
            ours_unformatted.is_empty(),
            "left to prettyplease: {ours_unformatted:?}"
        );
    }
}
