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
    fn emit(&mut self, a: &AgentIr, sink: &mut dyn FnMut(emit::Piece)) -> Result<(), Diagnostics> {
        emit::agent(a, &self.paths, &mut self.templates, sink)
            .map_err(|e| generator_bug(Some(&a.name), &e))
    }

    /// Trees are printed as tokens, records lexed from their text; quoted pieces are tokens
    /// already and are not parsed.
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
            emit::Piece::Tree(item) => quote::ToTokens::to_tokens(&item, out),
            emit::Piece::Quoted(tokens) => out.extend(tokens),
        })?;
        match unlexed {
            Some(e) => Err(generator_bug(Some(&a.name), &e)),
            None => Ok(()),
        }
    }

    /// prettyplease prints a file as its items one after the other, so printing item by item
    /// gives the same text while only one item's tree is alive. Quoted pieces are parsed here.
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
            emit::Piece::Tree(item) => printer.item(item),
            emit::Piece::Quoted(tokens) => match syn::parse2::<syn::File>(tokens) {
                Ok(parsed) => parsed.items.into_iter().for_each(|i| printer.item(i)),
                Err(e) => {
                    unparsed.get_or_insert(e);
                }
            },
        })?;
        match unparsed {
            Some(e) => Err(generator_bug(Some(&a.name), &e)),
            None => Ok(printer.finish()),
        }
    }
}
