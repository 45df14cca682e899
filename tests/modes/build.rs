//! Build-script mode: the builder finds the package's `schemas/` (a user's JSON Schema file) and
//! the workspace's (the catalog's records), as `agent!` does; references to other documents
//! are read from the package's `shared/`.

fn main() {
    let Some(out) = std::env::var_os("OUT_DIR") else {
        eprintln!("OUT_DIR is not set; run through cargo");
        std::process::exit(1);
    };
    if let Err(e) = agents_codegen::Builder::new()
        .agents([
            "retailer_a_pdp",
            "llm_a",
            "price_check",
            "store_finder",
            "shop_refs",
        ])
        .options(
            agents_codegen::Options::default()
                .localized("store_finder", ["postcode"])
                .paginated("store_finder", Some("page_no"))
                .documents("https://example.com/schemas/", "shared"),
        )
        .generate_to(out)
    {
        eprintln!("{e}");
        std::process::exit(1);
    }
}
