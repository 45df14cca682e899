//! Generates the bindings of retailer_a_pdp into OUT_DIR. Schemas are found like `agent!` finds
//! them: AGENTS_SCHEMA_DIR, this package's schemas/, else the workspace's.

fn main() -> Result<(), agents_codegen::Diagnostics> {
    let out = std::env::var_os("OUT_DIR").unwrap_or_default();
    agents_codegen::Builder::new()
        .agents(["retailer_a_pdp"])
        .generate_to(out)?;
    Ok(())
}
