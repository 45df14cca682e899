//! Emission: the runtime paths and parsed templates, and printing an agent's pieces as tokens
//! (the macro) or as prettyplease source.

use proc_macro2::TokenStream;

use agents_schema::diag::Diagnostics;

use crate::emit;
use crate::format::{Printer, generator_bug};
use crate::ir::AgentIr;

/// The runtime paths and the records' shared tail of one emission (of one agent or of several).
pub(crate) struct Emitter {
    paths: emit::Paths,
    records: emit::Skeleton,
}

impl Emitter {
    /// An emitter for runtime path `rt`; a failure names `agent`.
    pub(crate) fn new(rt: &str, agent: &str) -> Result<Self, Diagnostics> {
        let make = || -> syn::Result<Emitter> {
            let path: syn::Path = syn::parse_str(rt)?;
            let paths = emit::Paths::new(&path)?;
            let records = emit::Skeleton::new(&paths);
            Ok(Emitter { paths, records })
        };
        make().map_err(|e| generator_bug(Some(agent), &e))
    }

    /// Emits `a`, handing each piece to `sink`.
    fn emit(&self, a: &AgentIr, sink: &mut dyn FnMut(emit::Piece)) {
        emit::agent(a, &self.paths, &self.records, sink);
    }

    /// The text of every piece lexed into tokens (the macro path).
    pub(crate) fn tokens(&self, a: &AgentIr, out: &mut TokenStream) -> Result<(), Diagnostics> {
        let rt = self.paths.rt().clone();
        let mut unlexed = None;
        let lex = |text: &str| {
            text.parse::<TokenStream>().map_err(|e| {
                syn::Error::new(
                    proc_macro2::Span::call_site(),
                    format!("an item's text does not lex: {e}"),
                )
            })
        };
        self.emit(a, &mut |piece| {
            let lexed = match piece {
                emit::Piece::Macro { name, item, head } => lex(&item.text).map(|item| {
                    let name = proc_macro2::Ident::new(name, proc_macro2::Span::call_site());
                    let head = head.map(|head| {
                        let fields = crate::naming::ident(&head.fields);
                        let schema = head.schema.map(|s| quote::quote!(#![schema = #s]));
                        quote::quote!(#schema #![fields = #fields])
                    });
                    quote::quote!(#rt::#name! { #head #item })
                }),
                emit::Piece::Text(item) => lex(&item.text),
            };
            match lexed {
                Ok(tokens) => out.extend(tokens),
                Err(e) => {
                    unlexed.get_or_insert(e);
                }
            }
        });
        match unlexed {
            Some(e) => Err(generator_bug(Some(&a.name), &e)),
            None => Ok(()),
        }
    }

    /// The source of every piece: its text, or where it is marked unformatted, its parse
    /// printed by prettyplease.
    pub(crate) fn source(&self, a: &AgentIr) -> Result<String, Diagnostics> {
        let mut printer = Printer::default();
        let mut unparsed = None;
        let rt_text = self.paths.rt_text().to_owned();
        self.emit(a, &mut |piece| {
            let printed = match piece {
                emit::Piece::Macro { name, item, head } => {
                    let head =
                        head.map(|h| crate::format::record_head(h.schema.as_deref(), &h.fields));
                    printer.macro_text(&rt_text, name, head.as_deref(), item)
                }
                emit::Piece::Text(item) => printer.text(item),
            };
            if let Err(e) = printed {
                unparsed.get_or_insert(e);
            }
        });
        match unparsed {
            Some(e) => Err(generator_bug(Some(&a.name), &e)),
            None => Ok(printer.finish()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Emitter;
    use crate::emit::{ItemText, Piece};

    /// Every item written as text and marked formatted is exactly what prettyplease prints for
    /// it, for the catalog, the test schemas and arbitrary records, under runtime paths short
    /// and long; and every item of the catalog and the test schemas is written formatted, which
    /// is what makes text worth writing.
    /// An item written to stand in a macro call, one step in, as it stands alone.
    fn unindented(item: ItemText) -> ItemText {
        let mut text = String::with_capacity(item.text.len());
        for line in item.text.lines() {
            text.push_str(line.strip_prefix("    ").unwrap_or(line));
            text.push('\n');
        }
        ItemText { text, ..item }
    }

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
                    emitter.emit(&agent.ir, &mut |piece| match piece {
                        Piece::Text(t) => texts.push(t),
                        Piece::Macro { item, .. } => texts.push(unindented(item)),
                    });
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
