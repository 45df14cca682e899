//! Writing generated files only when their content changes, and never half.

use std::fs;
use std::io;
use std::path::Path;

/// Writes `content` to `path` unless the file already holds exactly that; returns whether it
/// wrote. Unchanged files keep their modification time, so nothing downstream rebuilds.
///
/// The content goes to a file beside `path` that is then renamed over it, so a write stopped
/// part way (Ctrl-C, a full disk) leaves the old file whole rather than a truncated record or
/// bindings file that the next build fails on, and a reader never sees half of one.
pub fn write_if_changed(path: &Path, content: &str) -> io::Result<bool> {
    match fs::read(path) {
        Ok(existing) if existing == content.as_bytes() => return Ok(false),
        Ok(_) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    let parent = path.parent().filter(|p| !p.as_os_str().is_empty());
    if let Some(parent) = parent {
        fs::create_dir_all(parent)?;
    }
    let Some(name) = path.file_name() else {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} names no file", path.display()),
        ));
    };
    // The process id keeps two writers of one file (two builds) off each other's partial file.
    let mut partial = name.to_owned();
    partial.push(format!(".{}.partial", std::process::id()));
    let partial = path.with_file_name(partial);
    let written = fs::write(&partial, content).and_then(|()| fs::rename(&partial, path));
    if written.is_err() {
        // What could be written of it is of no use; the error says why it stopped.
        let _ = fs::remove_file(&partial);
    }
    written.map(|()| true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_write_that_fails_leaves_the_old_file_whole_and_no_partial_one() {
        let dir = std::env::temp_dir().join(format!("agents-write-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        let path = dir.join("agents.rs");
        assert!(write_if_changed(&path, "old").unwrap());
        assert!(!write_if_changed(&path, "old").unwrap());
        // A directory where the partial file would go makes the write fail.
        let blocker = dir.join(format!("agents.rs.{}.partial", std::process::id()));
        fs::create_dir_all(blocker.join("inside")).unwrap();
        assert!(write_if_changed(&path, "new").is_err());
        assert_eq!(fs::read_to_string(&path).unwrap(), "old");
        fs::remove_dir_all(&blocker).unwrap();
        assert!(write_if_changed(&path, "new").unwrap());
        assert_eq!(fs::read_to_string(&path).unwrap(), "new");
        let left: Vec<_> = fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        fs::remove_dir_all(&dir).unwrap();
        assert_eq!(left, ["agents.rs"]);
    }
}
