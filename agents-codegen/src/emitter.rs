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
    pub(crate) fn emit(&self, a: &AgentIr, sink: &mut dyn FnMut(emit::Piece)) {
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
