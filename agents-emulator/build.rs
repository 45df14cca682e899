//! Embeds the catalog records of the package's `schemas/` into the emulator. In the repository
//! it is a link to the workspace's `schemas/`; a packaged crate carries the files themselves.

use std::env;
use std::fmt::Write as _;
use std::fs;
use std::path::PathBuf;

fn main() {
    let manifest = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let dir = manifest.join("schemas");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut files: Vec<PathBuf> = match fs::read_dir(&dir) {
        Ok(entries) => entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect(),
        Err(e) => {
            eprintln!(
                "error: cannot read the catalog directory {}: {e}",
                dir.display()
            );
            std::process::exit(1);
        }
    };
    files.sort();
    let mut out =
        String::from("/// The catalog records embedded from `schemas/`: (file name, JSON text).\n");
    out.push_str("pub(crate) static EMBEDDED: &[(&str, &str)] = &[\n");
    for f in &files {
        println!("cargo:rerun-if-changed={}", f.display());
        let name = f
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "    ({name:?}, include_str!({:?})),",
            f.display().to_string()
        );
    }
    out.push_str("];\n");
    let out_dir = PathBuf::from(env::var_os("OUT_DIR").unwrap_or_default());
    if let Err(e) = fs::write(out_dir.join("embedded.rs"), out) {
        eprintln!("error: cannot write embedded.rs: {e}");
        std::process::exit(1);
    }
}
