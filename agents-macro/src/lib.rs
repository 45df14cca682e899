//! `agent!("retailer_a_pdp")` expands in place to that agent's typed bindings: the output record
//! (`RetailerAPdp`), its nested types, the params (`RetailerAPdpParams`) and the `Agent` impls.
//!
//! A thin shell over `agents_codegen::expand`: the schema is found the way build scripts find it
//! (`AGENTS_SCHEMA_DIR`, the package's `schemas/`, the workspace's; a live fetch with
//! `AGENTS_OFFLINE=false` and the `live` feature), and every error points at the string literal.
//! Use it through `agents_runtime::agent!`, so that one dependency is enough.
//!
//! ```text
//! agent!("retailer_a_pdp");
//! agent!("my_custom_agent", runtime = "crate"); // inside a crate that re-exports the runtime
//! agent!("foo__bar", rename = "FooBarDouble");  // FooBarDouble, FooBarDoubleParams, …
//! agent!("store_finder", localized = ["postcode"], paginated = "page_no");
//! agent!("price_check", localized = [], paginated = false); // neither, whatever the record says
//! agent!("shop", documents = {"https://example.com/schemas/": "schemas/shared"});
//! ```
//!
//! `documents` maps a URI prefix to a directory (relative to the package) that the schema's
//! references to other documents are read from, never the network: their types are generated
//! too, and editing one of the files read rebuilds the code that uses it.
//!
//! `localized` and `paginated` decide which inputs make the params `Localized` and `Paginated`
//! when the record's flags (or, for JSON Schema records, the inputs named `zip_code`, `store_id`
//! and `page`) do not say what you want.
//!
//! Problems of the schema that the generator handles (a pattern that does not compile, a
//! keyword it cannot honour) are compiler warnings at the call, each with its JSON pointer.
//!
//! An agent's type names depend on its name alone. Two agents whose names give the same types
//! (`foo_bar` and `foo__bar` are both `FooBar`) cannot share a module as they are: rename one.

use proc_macro::TokenStream;
use syn::parse::{Parse, ParseStream};
use syn::{LitStr, Token};

struct Input {
    name: LitStr,
    options: agents_codegen::Options,
}

const OPTIONS: &str = "the options are `runtime = \"path\"`, `rename = \"TypeName\"`, \
                       `localized = [\"input\", …]`, `paginated = \"input\"` or `paginated = false`, \
                       and `documents = {\"https://uri/prefix/\": \"dir\", …}`";

impl Parse for Input {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let name: LitStr = input.parse()?;
        let agent = name.value();
        let mut options = agents_codegen::Options::default();
        while input.peek(Token![,]) {
            input.parse::<Token![,]>()?;
            if input.is_empty() {
                break;
            }
            let key: syn::Ident = input.parse()?;
            input.parse::<Token![=]>()?;
            if key == "runtime" {
                options = options.runtime_path(input.parse::<LitStr>()?.value());
            } else if key == "rename" {
                options = options.rename(&agent, input.parse::<LitStr>()?.value());
            } else if key == "localized" {
                let list;
                syn::bracketed!(list in input);
                let inputs = list.parse_terminated(|i| i.parse::<LitStr>(), Token![,])?;
                options = options.localized(&agent, inputs.iter().map(LitStr::value));
            } else if key == "documents" {
                let map;
                syn::braced!(map in input);
                let pairs = map.parse_terminated(
                    |pair| {
                        let prefix = pair.parse::<LitStr>()?;
                        pair.parse::<Token![:]>()?;
                        Ok((prefix, pair.parse::<LitStr>()?))
                    },
                    Token![,],
                )?;
                for (prefix, dir) in pairs {
                    options = options.documents(prefix.value(), dir.value());
                }
            } else if key == "paginated" {
                let page = match input.parse::<syn::Lit>()? {
                    syn::Lit::Str(s) => Some(s.value()),
                    syn::Lit::Bool(b) if !b.value => None,
                    other => {
                        return Err(syn::Error::new(
                            other.span(),
                            "`paginated` takes the name of the page-number input, or `false`",
                        ));
                    }
                };
                options = options.paginated(&agent, page.as_deref());
            } else {
                return Err(syn::Error::new(
                    key.span(),
                    format!("unknown option `{key}`; {OPTIONS}"),
                ));
            }
        }
        Ok(Input { name, options })
    }
}

/// Expands to the typed bindings of one agent. See the crate docs.
#[proc_macro]
pub fn agent(input: TokenStream) -> TokenStream {
    let input = match syn::parse::<Input>(input) {
        Ok(i) => i,
        Err(e) => return e.to_compile_error().into(),
    };
    let manifest = std::env::var_os("CARGO_MANIFEST_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_default();
    // The engine builds proc-macro2 tokens; on proc-macro2's own implementation that is plain
    // Rust data instead of a compiler round trip per token, and the result reaches the compiler
    // as one string.
    proc_macro2::fallback::force();
    let expanded = agents_codegen::expand::expand_with_warnings(
        &input.name.value(),
        &input.options,
        &manifest,
    );
    proc_macro2::fallback::unforce();
    let error = |message: String| -> TokenStream {
        syn::Error::new(input.name.span(), message)
            .to_compile_error()
            .into()
    };
    match expanded.map(|e| format!("{}{}", e.text, warnings(&e.warnings)).parse::<TokenStream>()) {
        Ok(Ok(tokens)) => tokens,
        Ok(Err(e)) => error(format!(
            "internal error: the generated code does not lex ({e}); please report it"
        )),
        Err(message) => error(message),
    }
}

/// The generator's warnings as compiler warnings: proc macros have no stable way to warn, so
/// each is the note of a deprecated constant that the expansion uses (the `#[deprecated]`
/// route), shown at the call as "use of deprecated constant …: <warning>".
fn warnings(list: &[String]) -> String {
    list.iter()
        .enumerate()
        .map(|(i, w)| {
            format!(
                "const _: () = {{ #[deprecated(note = {w:?})] #[allow(non_upper_case_globals)] \
                 const agent_schema_warning_{i}: () = (); agent_schema_warning_{i} }};"
            )
        })
        .collect()
}
