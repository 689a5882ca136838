//! Settings, from `initializationOptions` (and `workspace/didChangeConfiguration`
//! under the key `shaderdbg`). Every field is optional; see the crate README.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

/// Files larger than this are not analysed (a diagnostic says so).
pub const DEFAULT_MAX_FILE_SIZE: usize = 4 << 20;

#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase", default)]
pub struct Config {
    /// Directories searched for `#include "x"` after the including file's own
    /// directory; relative ones are relative to the workspace root.
    pub include_paths: Vec<String>,
    /// GLSL text put before every GLSL document, as an application that
    /// prepends a header before `glShaderSource` does (after the document's
    /// `#version` line if it has one).
    pub header: Option<String>,
    /// A file whose text is the header (read when the settings arrive; relative
    /// to the workspace root). `header` comes first when both are given.
    pub header_file: Option<String>,
    /// The stage of `.glsl` documents without a `#pragma shaderdbg stage(...)`:
    /// `vert`, `frag`, `geom`, `tesc`, `tese`, `comp` (or the full names).
    pub default_stage: Option<String>,
    /// Text for `$NAME$` placeholders that applications fill in at run time
    /// (glmark2 does): `{"MAIN": ""}` replaces `$MAIN$`.
    pub placeholders: HashMap<String, String>,
    /// Text for every `$NAME$` not in `placeholders` (unset: such placeholders
    /// stay and are syntax errors).
    pub placeholder_default: Option<String>,
    /// Documents larger than this many bytes are not analysed.
    pub max_file_size: Option<usize>,
}

/// Settings that do not have the expected shape.
#[derive(Debug, thiserror::Error)]
#[error("shaderdbg settings: {0}")]
pub struct ConfigError(#[from] serde_json::Error);

impl Config {
    /// Parses settings; unknown fields are ignored, a malformed value is an error.
    pub fn from_json(value: &serde_json::Value) -> Result<Config, ConfigError> {
        let value = match value.get("shaderdbg") {
            Some(inner) if inner.is_object() => inner,
            _ => value,
        };
        if value.is_null() {
            return Ok(Config::default());
        }
        Ok(Config::deserialize(value)?)
    }

    /// Whether a settings object is for this server: it has a `shaderdbg`
    /// section, or one of our keys at its top level.
    pub fn is_ours(value: &serde_json::Value) -> bool {
        const KEYS: &[&str] = &[
            "includePaths",
            "header",
            "headerFile",
            "defaultStage",
            "placeholders",
            "placeholderDefault",
            "maxFileSize",
        ];
        value.as_object().is_some_and(|o| {
            o.get("shaderdbg").is_some_and(|s| s.is_object())
                || KEYS.iter().any(|k| o.contains_key(*k))
        })
    }

    pub fn max_file_size(&self) -> usize {
        self.max_file_size.unwrap_or(DEFAULT_MAX_FILE_SIZE)
    }

    /// The include directories, made absolute against `root`.
    pub fn include_dirs(&self, root: Option<&Path>) -> Vec<PathBuf> {
        self.include_paths
            .iter()
            .map(|p| {
                let p = PathBuf::from(p);
                match root {
                    Some(root) if p.is_relative() => root.join(p),
                    _ => p,
                }
            })
            .collect()
    }
}

/// The settings as the analyses use them (header file read, paths resolved).
#[derive(Clone, Debug, Default)]
pub struct Resolved {
    pub config: Config,
    pub header: String,
    pub include_dirs: Vec<PathBuf>,
    /// Problems with the settings, shown to the user once.
    pub problems: Vec<String>,
}

impl Resolved {
    pub fn new(config: Config, root: Option<&Path>) -> Resolved {
        let mut problems = Vec::new();
        let mut header = config.header.clone().unwrap_or_default();
        if let Some(file) = &config.header_file {
            let mut path = PathBuf::from(file);
            if let (Some(root), true) = (root, path.is_relative()) {
                path = root.join(path);
            }
            match std::fs::read(&path) {
                Ok(bytes) => {
                    if !header.is_empty() && !header.ends_with('\n') {
                        header.push('\n');
                    }
                    header.push_str(&String::from_utf8_lossy(&bytes));
                }
                Err(e) => problems.push(format!("headerFile {}: {e}", path.display())),
            }
        }
        if !header.is_empty() && !header.ends_with('\n') {
            header.push('\n');
        }
        if let Some(stage) = &config.default_stage {
            if crate::glsl::parse_stage(stage).is_none() {
                problems.push(format!(
                    "defaultStage `{stage}` is not a stage (vert, frag, geom, tesc, tese, comp)"
                ));
            }
        }
        Resolved {
            include_dirs: config.include_dirs(root),
            config,
            header,
            problems,
        }
    }
}

impl Resolved {
    /// These settings for a document the running program built a shader
    /// from (`runtime`, what it compiled): the header and the placeholder
    /// texts the program put around the document's text replace the
    /// configured ones, so that what the program builds has no false
    /// errors. `None` when `runtime` was not built from `text`.
    pub fn in_runtime_context(&self, runtime: &str, text: &str) -> Option<Resolved> {
        let map = shaderdbg_glsl::source_map::SourceMap::new(runtime, text);
        if !map.is_match() {
            return None;
        }
        let cx = map.runtime_context(runtime, text);
        let mut settings = self.clone();
        settings.header = cx.header;
        settings.config.placeholders.extend(cx.placeholders);
        Some(settings)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runtime_context_replaces_the_header_and_fills_placeholders() {
        let doc = "void main() {\n    vec4 c = Diffuse;\n$BODY$\n    gl_FragColor = c;\n}\n";
        let runtime = "#version 100\nprecision mediump float;\nuniform vec4 Diffuse;\n\
            void main() {\n    vec4 c = Diffuse;\n    c *= 0.5;\n    gl_FragColor = c;\n}\n";
        let configured = Resolved::new(
            Config {
                header: Some("#define OLD 1".into()),
                ..Config::default()
            },
            None,
        );
        let s = configured
            .in_runtime_context(runtime, doc)
            .expect("built from it");
        assert_eq!(
            s.header,
            "#version 100\nprecision mediump float;\nuniform vec4 Diffuse;\n"
        );
        assert_eq!(s.config.placeholders["BODY"], "    c *= 0.5;");
        assert!(configured
            .in_runtime_context("void other() {}\n", doc)
            .is_none());
    }

    #[test]
    fn settings_parse_with_or_without_the_section() {
        let c = Config::from_json(&serde_json::json!({
            "includePaths": ["inc"], "header": "#define X 1", "placeholders": {"MAIN": ""}
        }))
        .unwrap();
        assert_eq!(c.include_paths, ["inc"]);
        assert_eq!(c.placeholders["MAIN"], "");
        let c2 = Config::from_json(&serde_json::json!({"shaderdbg": {"includePaths": ["inc"], "header": "#define X 1", "placeholders": {"MAIN": ""}}})).unwrap();
        assert_eq!(c, c2);
        assert!(Config::from_json(&serde_json::json!({"includePaths": 3})).is_err());
        assert_eq!(
            Config::from_json(&serde_json::Value::Null).unwrap(),
            Config::default()
        );
        assert!(Config::is_ours(&serde_json::json!({"shaderdbg": {}})));
        assert!(Config::is_ours(&serde_json::json!({"header": ""})));
        assert!(!Config::is_ours(&serde_json::json!({})));
        assert!(!Config::is_ours(
            &serde_json::json!({"editor": {"tabSize": 4}})
        ));
    }
}
