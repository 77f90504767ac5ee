//! Small file-system helpers shared by the stages that write files.

use std::io::Write;
use std::path::Path;

/// Writes `bytes` to `path` so that a reader never sees a half-written file: write a sibling
/// temporary file, flush it, then rename it over the target.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or_else(|| Path::new("."));
    let mut file = tempfile::NamedTempFile::new_in(dir)?;
    file.write_all(bytes)?;
    file.as_file().sync_all()?;
    file.persist(path).map_err(|error| error.error)?;
    Ok(())
}
