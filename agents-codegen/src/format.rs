//! Formatting generated source: prettyplease for every front door, rustfmt for checked-in files.

use proc_macro2::TokenStream;

use agents_schema::diag::{Diagnostic, Diagnostics};

use crate::emitter::generator_bug;

/// Formats items as Rust source with prettyplease.
pub fn format(tokens: TokenStream) -> Result<String, Diagnostics> {
    let file: syn::File = syn::parse2(tokens).map_err(|e| generator_bug(None, &e))?;
    Ok(prettyplease::unparse(&file))
}

/// Formats source with rustfmt (`$RUSTFMT`, else `rustfmt` on `PATH`, edition 2024), for
/// generated files that are checked in and held to `cargo fmt --check`. prettyplease output is
/// valid and deterministic but not byte-identical to rustfmt's.
pub fn rustfmt(source: &str) -> Result<String, Diagnostics> {
    use std::io::Write as _;
    use std::process::{Command, Stdio};

    let fail = |message: String| Diagnostics::from(Diagnostic::at("rustfmt", message));
    let program = std::env::var_os("RUSTFMT").unwrap_or_else(|| "rustfmt".into());
    let mut child = Command::new(&program)
        .args(["--edition", "2024", "--emit", "stdout", "--quiet"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| fail(format!("cannot run {}: {e}", program.to_string_lossy())))?;
    let mut stdin = child
        .stdin
        .take()
        .ok_or_else(|| fail("rustfmt has no stdin".to_owned()))?;
    let input = source.to_owned();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child
        .wait_with_output()
        .map_err(|e| fail(format!("rustfmt failed: {e}")))?;
    match writer.join() {
        Ok(Ok(())) => {}
        Ok(Err(e)) => return Err(fail(format!("cannot write to rustfmt: {e}"))),
        Err(_) => return Err(fail("the thread feeding rustfmt panicked".to_owned())),
    }
    if !out.status.success() {
        return Err(fail(format!(
            "rustfmt exited with {}: {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    String::from_utf8(out.stdout).map_err(|e| fail(format!("rustfmt wrote invalid UTF-8: {e}")))
}
