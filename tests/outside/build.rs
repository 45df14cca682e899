// Build-script mode: the bindings of `shop_page`, from this package's schemas/, into OUT_DIR.
fn main() {
    let out = std::env::var_os("OUT_DIR").unwrap_or_default();
    if let Err(e) = agents_codegen::Builder::new()
        .agents(["shop_page"])
        .generate_to(out)
    {
        eprintln!("{e}");
        std::process::exit(1);
    }
}
