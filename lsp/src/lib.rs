//! The shaderdbg language server: GLSL through the shaderdbg engine
//! (`shaderdbg-glsl`), WGSL through naga. LSP over stdio; see README.md for
//! the settings and what each request does.

pub mod config;
pub mod glsl;
pub mod line_index;
pub mod server;
/// Text-level helpers (the engine's, shared with the WGSL side).
pub use shaderdbg_glsl::ide::text;
pub mod wgsl;

use std::path::PathBuf;

use tower_lsp_server::gen_lsp_types::{DiagnosticSeverity, Range};

/// Whether the tests' panic hook is on (`SHADERDBG_LSP_TEST_PANIC=1`): then a
/// hover on the word `shaderdbg_test_panic`, and the analysis of a document
/// that contains `shaderdbg_test_panic_analysis`, panic, to show that one
/// broken request or document does not take the server down.
pub fn test_panics() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| std::env::var_os("SHADERDBG_LSP_TEST_PANIC").is_some_and(|v| v == "1"))
}

/// A diagnostic in document byte offsets.
#[derive(Clone, Debug, PartialEq)]
pub struct Diag {
    pub start: usize,
    pub end: usize,
    pub severity: DiagnosticSeverity,
    pub message: String,
    /// Where in another file (an included one) the problem is.
    pub related: Vec<(PathBuf, Range, String)>,
}

impl Diag {
    pub fn new(start: usize, end: usize, severity: DiagnosticSeverity, message: String) -> Diag {
        Diag {
            start,
            end: end.max(start),
            severity,
            message,
            related: Vec::new(),
        }
    }
}

/// The file path of a `file:` URI (percent-decoded); `None` for other schemes.
pub fn uri_to_path(uri: &str) -> Option<PathBuf> {
    let rest = uri.strip_prefix("file://")?;
    let rest = rest.strip_prefix("localhost").unwrap_or(rest);
    if !rest.starts_with('/') {
        return None;
    }
    let b = rest.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            let hex = |c: u8| (c as char).to_digit(16);
            if let (Some(h), Some(l)) = (hex(b[i + 1]), hex(b[i + 2])) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    use std::os::unix::ffi::OsStringExt;
    Some(PathBuf::from(std::ffi::OsString::from_vec(out)))
}

/// A `file:` URI for a path (percent-encoding what URIs do not allow).
pub fn path_to_uri(path: &std::path::Path) -> tower_lsp_server::gen_lsp_types::Uri {
    use std::os::unix::ffi::OsStrExt;
    let mut s = String::from("file://");
    for &b in path.as_os_str().as_bytes() {
        if b.is_ascii_alphanumeric() || b"/-_.~".contains(&b) {
            s.push(b as char);
        } else {
            s.push_str(&format!("%{b:02X}"));
        }
    }
    tower_lsp_server::gen_lsp_types::Uri(s)
}
