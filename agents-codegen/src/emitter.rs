//! Emission on a thread: the runtime paths and parsed templates (kept per thread between calls),
//! and printing an agent's pieces as tokens (the macro) or as prettyplease source.

use proc_macro2::TokenStream;

use agents_schema::diag::Diagnostics;

use crate::emit;
use crate::format::{Printer, generator_bug};
use crate::ir::AgentIr;

/// The runtime paths and the parsed templates of one thread's emission (`syn` trees are not
/// `Send`, so each thread that emits has its own).
pub(crate) struct Emitter {
    rt_text: String,
    paths: emit::Paths,
    templates: emit::Templates,
}

thread_local! {
    /// The emitter this thread used last, kept for its next emission with the same runtime path:
    /// `agent!` emits one agent per call, and the templates need not be parsed again for each
    /// call. Its tokens are proc-macro2's own (`agent!` forces the fallback around every
    /// expansion, and outside a proc macro there is nothing else), so a kept emitter never meets
    /// compiler tokens.
    static KEPT: std::cell::RefCell<Option<Emitter>> = const { std::cell::RefCell::new(None) };
}

impl Emitter {
    fn new(rt_text: &str) -> syn::Result<Self> {
        let rt: syn::Path = syn::parse_str(rt_text)?;
        let paths = emit::Paths::new(quote::quote!(#rt), rt_text);
        let templates = emit::Templates::new(&paths)?;
        Ok(Emitter {
            rt_text: rt_text.to_owned(),
            paths,
            templates,
        })
    }

    /// Runs `f` with this thread's kept emitter if it was made for runtime path `rt`, else with
    /// a new one (a failure names `agent`); keeps the emitter afterwards.
    pub(crate) fn with<R>(
        rt: &str,
        agent: &str,
        f: impl FnOnce(&mut Emitter) -> Result<R, Diagnostics>,
    ) -> Result<R, Diagnostics> {
        let kept = KEPT
            .try_with(|k| k.try_borrow_mut().ok().and_then(|mut k| k.take()))
            .ok()
            .flatten()
            .filter(|e| e.rt_text == rt);
        let mut emitter = match kept {
            Some(e) => e,
            None => Emitter::new(rt).map_err(|e| generator_bug(Some(agent), &e))?,
        };
        let result = f(&mut emitter);
        // A thread being torn down or a nested call keeps nothing; the emitter is dropped.
        let _ = KEPT.try_with(|k| {
            if let Ok(mut k) = k.try_borrow_mut() {
                *k = Some(emitter);
            }
        });
        result
    }

    /// Emits `a`, handing each piece to `sink`.
    fn emit(&mut self, a: &AgentIr, sink: &mut dyn FnMut(emit::Piece)) -> Result<(), Diagnostics> {
        emit::agent(a, &self.paths, &mut self.templates, sink)
            .map_err(|e| generator_bug(Some(&a.name), &e))
    }

    /// Trees are printed as tokens; quoted pieces are tokens already and are not parsed.
    pub(crate) fn tokens(&mut self, a: &AgentIr, out: &mut TokenStream) -> Result<(), Diagnostics> {
        let rt = self.paths.rt().clone();
        self.emit(a, &mut |piece| match piece {
            emit::Piece::Record(item) => out.extend(quote::quote!(#rt::record! { #item })),
            emit::Piece::Enum(item) => out.extend(quote::quote!(#rt::string_enum! { #item })),
            emit::Piece::Union(item) => out.extend(quote::quote!(#rt::union_enum! { #item })),
            emit::Piece::Tree(item) => quote::ToTokens::to_tokens(&item, out),
            emit::Piece::Quoted(tokens) => out.extend(tokens),
        })
    }

    /// prettyplease prints a file as its items one after the other, so printing item by item
    /// gives the same text while only one item's tree is alive. Quoted pieces are parsed here.
    pub(crate) fn source(&mut self, a: &AgentIr) -> Result<String, Diagnostics> {
        let mut printer = Printer::default();
        let mut unparsed = None;
        let rt_text = self.rt_text.clone();
        self.emit(a, &mut |piece| match piece {
            emit::Piece::Record(item) => {
                printer.wrapped(&rt_text, "record", syn::Item::Struct(item))
            }
            emit::Piece::Enum(item) => {
                printer.wrapped(&rt_text, "string_enum", syn::Item::Enum(item))
            }
            emit::Piece::Union(item) => {
                printer.wrapped(&rt_text, "union_enum", syn::Item::Enum(item))
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
