//! The files twofold reads and writes, made hard to redirect.
//!
//! - Every file read is opened without blocking (a FIFO does not hang the
//!   open), must be a regular file by the metadata of the handle opened
//!   (not of a name that may change in between), and is read with a size
//!   cap: a device, a FIFO, a directory or an oversized file is a clear
//!   error at once.
//! - Every write replaces its file atomically through a temporary file of a
//!   random name in the same directory, created exclusively (`O_EXCL`, which
//!   does not follow a symlink planted at that name), synced and renamed
//!   over the target.
//! - Private files (stores, keys) are created with mode 0600 and their
//!   directories with mode 0700.

use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

/// The most bytes of a key file (`NAME.key`, `NAME.pub`) read; a key is
/// about 120 bytes.
pub const KEY_FILE_CAP: u64 = 4096;

/// The most bytes of offending text an error message shows.
const CLIP: usize = 80;

/// Opens `path` (`what` names it in messages: `--key`, `the store`, …) for
/// reading: it must be a regular file of at most `cap` bytes. The handle
/// reads at most `cap` bytes even if the file grows.
pub fn open_regular(path: &Path, what: &str, cap: u64) -> Result<std::io::Take<File>> {
    Ok(open_checked(path, what, cap)?.take(cap))
}

/// `path` opened for reading, checked to be a regular file of at most
/// `cap` bytes.
fn open_checked(path: &Path, what: &str, cap: u64) -> Result<File> {
    let mut options = OpenOptions::new();
    options.read(true);
    // A FIFO opened without O_NONBLOCK waits for a writer forever.
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, libc::O_NONBLOCK);
    let file = options
        .open(path)
        .with_context(|| format!("cannot read {what} {}", path.display()))?;
    let meta = file
        .metadata()
        .with_context(|| format!("cannot read {what} {}", path.display()))?;
    if !meta.is_file() {
        bail!(
            "cannot read {what} {}: not a regular file (a directory, a FIFO or a device is refused)",
            path.display()
        );
    }
    if meta.len() > cap {
        bail!(
            "cannot read {what} {}: it has {} bytes, more than the {cap} allowed",
            path.display(),
            meta.len()
        );
    }
    Ok(file)
}

/// The bytes of the regular file `path` of at most `cap` bytes (see
/// [`open_regular`]).
pub fn read_regular(path: &Path, what: &str, cap: u64) -> Result<Vec<u8>> {
    let mut file = open_checked(path, what, cap)?.take(cap.saturating_add(1));
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)
        .with_context(|| format!("cannot read {what} {}", path.display()))?;
    if bytes.len() as u64 > cap {
        bail!(
            "cannot read {what} {}: it grew past the {cap} bytes allowed while being read",
            path.display()
        );
    }
    Ok(bytes)
}

/// Fails if the secret file `path` can be read or written by anyone but its
/// owner (as OpenSSH refuses such a private key).
pub fn refuse_if_shared(path: &Path, what: &str) -> Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(path)
            .with_context(|| format!("cannot read {what} {}", path.display()))?
            .permissions()
            .mode();
        if mode & 0o077 != 0 {
            bail!(
                "{what} {} is accessible by other users (mode {:03o}); a secret must be the owner's alone: chmod 600 it",
                path.display(),
                mode & 0o777
            );
        }
    }
    #[cfg(not(unix))]
    let _ = (path, what);
    Ok(())
}

/// Writes `bytes` to `path` in one atomic step (see the module docs), mode
/// 0644 less the umask; a failed or killed write leaves the old file (or
/// none).
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    write_replacing(path, bytes, 0o644)
}

/// As [`write_atomically`], readable and writable by the owner only (mode
/// 0600 from the moment the file exists).
pub fn write_private(path: &Path, bytes: &[u8]) -> Result<()> {
    write_replacing(path, bytes, 0o600)
}

/// Writes the temporary file of `path` with `bytes` and `mode`, synced;
/// returns its name. Remove it or [`commit`] it.
pub fn stage(path: &Path, bytes: &[u8], mode: u32) -> Result<PathBuf> {
    let cannot = || format!("cannot write {}", path.display());
    let (temp, ()) = stage_with(path, mode, |file| {
        file.write_all(bytes).with_context(cannot)
    })?;
    Ok(temp)
}

/// As [`write_atomically`], for a file `write` writes as it goes (through
/// a buffer), so that a program of hundreds of megabytes is not held
/// twice: a failed `write` leaves the old file (or none). Returns what
/// `write` does.
pub fn write_atomically_with<T>(
    path: &Path,
    write: impl FnOnce(&mut std::io::BufWriter<&mut File>) -> Result<T>,
) -> Result<T> {
    let (temp, t) = stage_with(path, 0o644, |file| {
        let mut out = std::io::BufWriter::new(file);
        let t = write(&mut out)?;
        out.flush()
            .with_context(|| format!("cannot write {}", path.display()))?;
        Ok(t)
    })?;
    commit(&temp, path)?;
    Ok(t)
}

/// Writes the temporary file of `path` by `write`, with `mode`, synced;
/// returns its name and what `write` did. Remove it or [`commit`] it; a
/// failed `write` removes it.
fn stage_with<T>(
    path: &Path,
    mode: u32,
    write: impl FnOnce(&mut File) -> Result<T>,
) -> Result<(PathBuf, T)> {
    if let Ok(meta) = std::fs::metadata(path) {
        if !meta.is_file() {
            bail!(
                "cannot write {}: it exists and is not a regular file",
                path.display()
            );
        }
    }
    let cannot = || format!("cannot write {}", path.display());
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let temp = parent(path).join(format!(".{name}.{}.tmp", random_hex()?));
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, mode);
    #[cfg(not(unix))]
    let _ = mode;
    // (Only a file this call created is removed: create_new fails on
    // anything already there.)
    let mut out = options.open(&temp).with_context(cannot)?;
    let written = write(&mut out).and_then(|t| {
        out.sync_all().with_context(cannot)?;
        Ok(t)
    });
    match written {
        Ok(t) => Ok((temp, t)),
        Err(e) => {
            let _ = std::fs::remove_file(&temp);
            Err(e)
        }
    }
}

/// Renames the staged `temp` over `path` and syncs the directory, so the
/// rename itself is durable.
pub fn commit(temp: &Path, path: &Path) -> Result<()> {
    let renamed = std::fs::rename(temp, path).and_then(|()| File::open(parent(path))?.sync_all());
    if renamed.is_err() {
        let _ = std::fs::remove_file(temp);
    }
    renamed.with_context(|| format!("cannot write {}", path.display()))
}

fn write_replacing(path: &Path, bytes: &[u8], mode: u32) -> Result<()> {
    let temp = stage(path, bytes, mode)?;
    commit(&temp, path)
}

/// The directory of `path` (`.` for a bare name).
fn parent(path: &Path) -> &Path {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}

/// 16 random hex digits (OS randomness).
fn random_hex() -> Result<String> {
    Ok(hex(&random_bytes::<8>()?))
}

/// `N` bytes of OS randomness.
pub fn random_bytes<const N: usize>() -> Result<[u8; N]> {
    let mut bytes = [0u8; N];
    getrandom::fill(&mut bytes)
        .map_err(|e| anyhow::anyhow!("the operating system's random generator failed: {e}"))?;
    Ok(bytes)
}

/// `bytes` in lower-case hex.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Creates `dir` and any missing parents with mode 0700 (directories that
/// exist are left as they are).
pub fn create_private_dir(dir: &Path) -> Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder
        .create(dir)
        .with_context(|| format!("cannot create {}", dir.display()))
}

/// A new directory of a random name starting with `prefix` under the
/// system's temporary directory, mode 0700, created exclusively (never one
/// that exists, nor a symlink planted at the name).
pub fn private_temp_dir(prefix: &str) -> Result<PathBuf> {
    let dir = std::env::temp_dir().join(format!("{prefix}-{}", random_hex()?));
    let mut builder = std::fs::DirBuilder::new();
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder
        .create(&dir)
        .with_context(|| format!("cannot create {}", dir.display()))?;
    Ok(dir)
}

/// `text` for an error message: whole if short, else its first ~80 bytes
/// (at a character boundary) and how long it was.
pub fn clip(text: &str) -> String {
    if text.len() <= CLIP {
        return text.to_string();
    }
    let end = (0..=CLIP)
        .rev()
        .find(|&k| text.is_char_boundary(k))
        .unwrap_or(0);
    format!("{}… ({} bytes)", &text[..end], text.len())
}

/// `message` with every occurrence of a long `text` replaced by its
/// [`clip`].
pub fn clip_in(message: &str, text: &str) -> String {
    if text.len() <= CLIP {
        message.to_string()
    } else {
        message.replace(text, &clip(text))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = private_temp_dir(&format!("twofold-files-{name}")).unwrap();
        dir
    }

    #[test]
    fn a_fifo_and_a_device_are_refused_at_once() {
        let dir = scratch("fifo");
        let fifo = dir.join("fifo");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        let start = std::time::Instant::now();
        for path in [fifo.as_path(), Path::new("/dev/zero"), dir.as_path()] {
            let err = read_regular(path, "the test file", 1 << 20).unwrap_err();
            assert!(format!("{err:#}").contains("not a regular file"), "{err:#}");
        }
        assert!(start.elapsed() < std::time::Duration::from_secs(1));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn an_oversized_file_is_refused() {
        let dir = scratch("big");
        let path = dir.join("big");
        std::fs::write(&path, [b'x'; 100]).unwrap();
        assert_eq!(read_regular(&path, "it", 100).unwrap().len(), 100);
        let err = read_regular(&path, "it", 99).unwrap_err().to_string();
        assert!(err.contains("100 bytes, more than the 99"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_symlink_at_a_temporary_name_is_not_followed() {
        let dir = scratch("link");
        let victim = dir.join("victim");
        std::fs::write(&victim, "keep me").unwrap();
        // Plant a link at every name the old code could have used and at
        // many random ones: none may be written through.
        for k in 0..64 {
            let name = format!(".out.{k}.tmp");
            std::os::unix::fs::symlink(&victim, dir.join(name)).unwrap();
        }
        std::os::unix::fs::symlink(
            &victim,
            dir.join(format!(".out.{}.tmp", std::process::id())),
        )
        .unwrap();
        write_atomically(&dir.join("out"), b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep me");
        assert_eq!(std::fs::read_to_string(dir.join("out")).unwrap(), "new");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn private_files_and_directories_are_the_owners_alone() {
        use std::os::unix::fs::PermissionsExt;
        let dir = scratch("private");
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&dir), 0o700);
        let nested = dir.join("a/b");
        create_private_dir(&nested).unwrap();
        assert_eq!(mode(&dir.join("a")), 0o700);
        assert_eq!(mode(&nested), 0o700);
        let secret = nested.join("s");
        write_private(&secret, b"x").unwrap();
        assert_eq!(mode(&secret), 0o600);
        refuse_if_shared(&secret, "it").unwrap();
        std::fs::set_permissions(&secret, std::fs::Permissions::from_mode(0o640)).unwrap();
        let err = refuse_if_shared(&secret, "--key").unwrap_err().to_string();
        assert!(err.contains("chmod 600"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_target_that_is_not_a_regular_file_is_not_replaced() {
        let dir = scratch("target");
        let err = write_atomically(&dir, b"x").unwrap_err().to_string();
        assert!(err.contains("not a regular file"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn long_text_is_clipped_in_messages() {
        let long = "é".repeat(1000);
        let clipped = clip(&long);
        assert!(
            clipped.len() < 110 && clipped.ends_with("(2000 bytes)"),
            "{clipped}"
        );
        assert_eq!(clip("short"), "short");
        let message = format!("`{long}` is not a number");
        assert!(clip_in(&message, &long).len() < 130);
    }
}
