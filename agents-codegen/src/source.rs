//! Writing generated files only when their content changes.

use std::fs;
use std::io;
use std::path::Path;

/// Writes `content` to `path` unless the file already holds exactly that; returns whether it
/// wrote. Unchanged files keep their modification time, so nothing downstream rebuilds.
pub fn write_if_changed(path: &Path, content: &str) -> io::Result<bool> {
    match fs::read(path) {
        Ok(existing) if existing == content.as_bytes() => return Ok(false),
        Ok(_) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent)?;
    }
    fs::write(path, content)?;
    Ok(true)
}
