//! WGSL shaders: a `.wgsl` file's `@fragment` entry point, compiled with
//! naga (through `shaderdbg_wgsl`) to GLSL 4.30 core for the GL path.
//!
//! The convention (README, "WGSL"): the entry point takes
//! `@builtin(position) pos: vec4<f32>` and no other inputs and returns
//! `@location(0) vec4<f32>`; a file that declares neither `host` nor `Host`
//! at module scope gets [`PRELUDE`], the uniform block the host fills every
//! frame (GL uniform-buffer binding [`HOST_BLOCK_BINDING`]). `pos.xy` is
//! `gl_FragCoord.xy`: pixel centres at `+0.5`, origin at the bottom left.
//!
//! The prelude goes *after* the user's text (WGSL's module-scope
//! declarations may come in any order), so naga's spans, and every line and
//! column it reports, are the file's own.

use std::collections::BTreeMap;

use shaderdbg_wgsl::naga;
use shaderdbg_wgsl::{emit, gl_origin, parse, Instrumented, ParseError};

/// The uniform block a host shader gets unless it declares `host` or
/// `Host` itself (its layout: [`host_block`]).
pub use shaderdbg_wgsl::HOST_PRELUDE as PRELUDE;

/// The GL uniform-buffer binding of `@group(0) @binding(0)`.
pub const HOST_BLOCK_BINDING: u32 = 0;

/// Bytes of the `Host` block.
pub const HOST_BLOCK_SIZE: usize = 48;

/// A WGSL shader compiled for the GL path.
#[derive(Debug)]
pub struct WgslShader {
    /// GLSL `#version 430 core`, as naga writes it, after the header
    /// that names the WGSL it came from (`shaderdbg_wgsl::gl_origin`).
    pub glsl: String,
    /// The fragment entry point drawn.
    pub entry_point: String,
    /// Whether [`PRELUDE`] was added.
    pub prelude: bool,
}

/// The `Host` block's bytes (std140; native byte order, as GL reads it).
pub fn host_block(
    resolution: [f32; 2],
    time: f32,
    time_delta: f32,
    frame: u32,
    mouse: [f32; 4],
) -> [u8; HOST_BLOCK_SIZE] {
    let mut b = [0u8; HOST_BLOCK_SIZE];
    let mut put = |at: usize, bytes: [u8; 4]| b[at..at + 4].copy_from_slice(&bytes);
    put(0, resolution[0].to_ne_bytes());
    put(4, resolution[1].to_ne_bytes());
    put(8, time.to_ne_bytes());
    put(12, time_delta.to_ne_bytes());
    put(16, frame.to_ne_bytes());
    for (i, m) in mouse.iter().enumerate() {
        put(32 + 4 * i, m.to_ne_bytes());
    }
    b
}

/// The text naga compiles: the file, then the prelude unless the file
/// declares `host`/`Host` itself.
pub fn with_prelude(text: &str) -> (String, bool) {
    if declares_host(text) {
        return (text.to_owned(), false);
    }
    let mut full = text.to_owned();
    if !full.is_empty() && !full.ends_with('\n') {
        full.push('\n');
    }
    full.push_str(PRELUDE);
    (full, true)
}

/// Why a WGSL file cannot be drawn.
#[derive(Debug, thiserror::Error)]
pub enum WgslError {
    /// `PATH:LINE:COL: error: MESSAGE` and the offending line.
    #[error("{0}")]
    Parse(String),
    #[error("{path}: no @fragment entry point")]
    NoFragment { path: String },
    #[error(
        "{path}: entry point `{entry_point}`: input `{input}` at @location({location}): \
         the host draws a full-screen triangle with no vertex outputs; \
         take `@builtin(position) pos: vec4<f32>` only"
    )]
    VertexInput {
        path: String,
        entry_point: String,
        input: String,
        location: u32,
    },
    #[error("{path}: {source}")]
    Emit {
        path: String,
        source: shaderdbg_wgsl::emit::EmitError,
    },
}

/// Compiles the WGSL file `text` (named `path` in messages). An error in
/// the WGSL reads `PATH: WGSL shader failed to compile`, then
/// `PATH:LINE:COL: error: MESSAGE` and the offending line.
pub fn compile(text: &str, path: &str) -> Result<WgslShader, WgslError> {
    let (full, prelude) = with_prelude(text);
    let parsed = parse(&full).map_err(|e| WgslError::Parse(parse_error(&e, text, path)))?;
    let module = &parsed.module;
    let ep = module
        .entry_points
        .iter()
        .find(|e| e.stage == naga::ShaderStage::Fragment)
        .ok_or_else(|| WgslError::NoFragment {
            path: path.to_string(),
        })?;
    for arg in &ep.function.arguments {
        let mut inputs = Vec::new();
        match &arg.binding {
            Some(b) => inputs.push((arg.name.clone(), b.clone())),
            None => {
                if let naga::TypeInner::Struct { members, .. } = &module.types[arg.ty].inner {
                    for m in members {
                        if let Some(b) = &m.binding {
                            inputs.push((m.name.clone(), b.clone()));
                        }
                    }
                }
            }
        }
        for (name, binding) in inputs {
            if let naga::Binding::Location { location, .. } = binding {
                return Err(WgslError::VertexInput {
                    path: path.to_string(),
                    entry_point: ep.name.clone(),
                    input: name.unwrap_or_else(|| "_".into()),
                    location,
                });
            }
        }
    }
    let inst = Instrumented {
        module: parsed.module.clone(),
        info: parsed.info.clone(),
        probes: shaderdbg_core::probes::ProbeTable {
            stage: shaderdbg_core::Stage::Fragment,
            probes: Vec::new(),
            vars: Vec::new(),
            functions: Vec::new(),
        },
        entry_point: ep.name.clone(),
        stage: naga::ShaderStage::Fragment,
        debug_binding: None,
        watch_type: None,
    };
    let map: BTreeMap<naga::ResourceBinding, u8> = [(
        naga::ResourceBinding {
            group: 0,
            binding: 0,
        },
        HOST_BLOCK_BINDING as u8,
    )]
    .into_iter()
    .collect();
    let glsl = emit::to_glsl(&inst, &map).map_err(|source| WgslError::Emit {
        path: path.to_string(),
        source,
    })?;
    // The agent reads the WGSL from this header and debugs it
    // (`shaderdbg_wgsl::gl_origin`); the driver sees comments.
    let glsl = gl_origin::embed(
        &gl_origin::WgslOrigin {
            entry_point: ep.name.clone(),
            file: path.to_string(),
            // The prelude follows the file's lines (`with_prelude`).
            file_lines: if prelude {
                text.split('\n').count() as u32 - u32::from(text.ends_with('\n'))
            } else {
                0
            },
            source: full.clone(),
        },
        &glsl,
    );
    Ok(WgslShader {
        glsl,
        entry_point: ep.name.clone(),
        prelude,
    })
}

/// `PATH:LINE:COL: error: MESSAGE` and the line, for an error of the text
/// `text` followed by the prelude.
fn parse_error(e: &ParseError, text: &str, path: &str) -> String {
    let (message, line, column) = match e {
        ParseError::Syntax {
            message,
            line,
            column,
        } => (message.clone(), *line, *column),
        ParseError::Invalid {
            message,
            line,
            column,
        } => (format!("invalid module: {message}"), *line, *column),
    };
    if line == 0 {
        return format!("{path}: {message}");
    }
    let user_lines = text.lines().count() as u32;
    if line <= user_lines.max(1) {
        let shown = text.lines().nth(line as usize - 1).unwrap_or("");
        format!("{path}: WGSL shader failed to compile\n{path}:{line}:{column}: error: {message}\n{line:>5} | {shown}")
    } else {
        let offset = line - user_lines;
        let shown = PRELUDE.lines().nth(offset as usize - 1).unwrap_or("");
        format!(
            "{path}: WGSL shader failed to compile\n<shaderdbg-host prelude, line {offset}>:{column}: error: {message}\n      | {shown}"
        )
    }
}

/// Whether `text` declares `host` or `Host` at module scope (`var`,
/// `const`, `override`, `fn`, `struct`, `alias`).
pub fn declares_host(text: &str) -> bool {
    let code = strip_comments(text);
    let mut depth = 0i32;
    let mut expect_name = false;
    let mut chars = code.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            '{' | '(' | '[' => depth += 1,
            '}' | ')' | ']' => depth -= 1,
            '<' if expect_name => {
                // `var<uniform>`: skip the template list.
                for (_, c) in chars.by_ref() {
                    if c == '>' {
                        break;
                    }
                }
            }
            c if c.is_alphabetic() || c == '_' => {
                let mut end = i + c.len_utf8();
                while let Some(&(j, d)) = chars.peek() {
                    if d.is_alphanumeric() || d == '_' {
                        end = j + d.len_utf8();
                        chars.next();
                    } else {
                        break;
                    }
                }
                let word = &code[i..end];
                if depth == 0 {
                    if expect_name && (word == "host" || word == "Host") {
                        return true;
                    }
                    expect_name = matches!(
                        word,
                        "var" | "const" | "override" | "fn" | "struct" | "alias"
                    );
                    continue;
                }
            }
            _ => {}
        }
        if !c.is_whitespace() && c != '<' {
            expect_name = false;
        }
    }
    false
}

/// `text` with `//` and (nested) `/* */` comments replaced by spaces.
fn strip_comments(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let mut depth = 0;
    let mut line_comment = false;
    let mut last = 0;
    while i < b.len() {
        if line_comment {
            if b[i] == b'\n' {
                line_comment = false;
                last = i;
            }
            i += 1;
        } else if depth > 0 {
            if b[i..].starts_with(b"*/") {
                depth -= 1;
                i += 2;
                if depth == 0 {
                    out.push(' ');
                    last = i;
                }
            } else if b[i..].starts_with(b"/*") {
                depth += 1;
                i += 2;
            } else {
                i += 1;
            }
        } else if b[i..].starts_with(b"//") {
            out.push_str(&text[last..i]);
            line_comment = true;
            i += 2;
        } else if b[i..].starts_with(b"/*") {
            out.push_str(&text[last..i]);
            depth = 1;
            i += 2;
        } else {
            i += 1;
        }
    }
    if !line_comment && depth == 0 {
        out.push_str(&text[last..]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_declarations_are_found_at_module_scope_only() {
        for (text, want) in [
            (
                "@fragment fn fs() -> @location(0) vec4<f32> { return vec4(host.time); }",
                false,
            ),
            ("@group(0) @binding(0) var<uniform> host: H;", true),
            ("@group(0) @binding(0)\nvar<uniform>\nhost : H;", true),
            ("const host = 1.0;", true),
            ("struct Host { a: f32 }", true),
            ("fn host() {}", true),
            ("alias Host = f32;", true),
            ("fn f() { var host = 1.0; let Host = 2; }", false),
            (
                "// var<uniform> host: H;\n/* const /* nested */ host = 1; */",
                false,
            ),
            ("var<private> hosts: f32; const Hostile = 1;", false),
        ] {
            assert_eq!(declares_host(text), want, "{text}");
        }
    }

    #[test]
    fn the_prelude_follows_the_file() {
        let (full, added) = with_prelude("// no newline");
        assert!(added);
        assert!(full.starts_with("// no newline\nstruct Host {"), "{full}");
        let (full, added) = with_prelude("const host = 1.0;\n");
        assert!(!added);
        assert_eq!(full, "const host = 1.0;\n");
    }

    #[test]
    fn the_block_is_std140() {
        let b = host_block([640.0, 360.0], 1.5, 0.25, 7, [1.0, 2.0, 3.0, 4.0]);
        let f = |at: usize| f32::from_ne_bytes(b[at..at + 4].try_into().unwrap());
        assert_eq!((f(0), f(4), f(8), f(12)), (640.0, 360.0, 1.5, 0.25));
        assert_eq!(u32::from_ne_bytes(b[16..20].try_into().unwrap()), 7);
        assert_eq!((f(32), f(44)), (1.0, 4.0));
        // naga lays `Host` out the same way (WGSL's uniform layout).
        let parsed = parse(PRELUDE).expect("prelude parses");
        let host = parsed
            .module
            .types
            .iter()
            .find(|(_, t)| t.name.as_deref() == Some("Host"))
            .expect("Host");
        let naga::TypeInner::Struct { members, span } = &host.1.inner else {
            panic!("struct");
        };
        let offsets: Vec<u32> = members.iter().map(|m| m.offset).collect();
        assert_eq!(offsets, [0, 8, 12, 16, 32]);
        assert_eq!(*span as usize, HOST_BLOCK_SIZE);
    }

    #[test]
    fn errors_name_the_file_line_and_column() {
        let err = compile(
            "@fragment\nfn fs() -> @location(0) vec4<f32> {\n  return vec4(1.0) +;\n}\n",
            "a.wgsl",
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("\na.wgsl:3:"), "{err}");
        assert!(err.contains("    3 |   return vec4(1.0) +;"), "{err}");
        let err = compile("@fragment\nfn fs(@location(0) uv: vec2<f32>) -> @location(0) vec4<f32> {\n  return vec4(uv, 0.0, 1.0);\n}\n", "b.wgsl").unwrap_err().to_string();
        assert!(err.contains("@location(0)"), "{err}");
        let err = compile("fn f() {}\n", "c.wgsl").unwrap_err().to_string();
        assert!(err.contains("no @fragment entry point"), "{err}");
    }

    #[test]
    fn the_host_block_is_a_bound_std140_uniform_block() {
        let s = compile(
            "@fragment\nfn fs(@builtin(position) pos: vec4<f32>) -> @location(0) vec4<f32> {\n  return vec4(pos.xy, host.time, f32(host.frame));\n}\n",
            "d.wgsl",
        )
        .expect("compiles");
        assert!(s.prelude);
        assert!(s.glsl.contains("\n#version 430 core"), "{}", s.glsl);
        let origin = gl_origin::extract(&s.glsl).expect("the header names the WGSL");
        assert_eq!(origin.entry_point, "fs");
        assert_eq!(origin.file, "d.wgsl");
        assert_eq!(origin.file_lines, 4);
        assert_eq!(origin.file_part().lines().count(), 4);
        assert!(origin.source.ends_with(PRELUDE), "{}", origin.source);
        assert!(
            s.glsl.contains("layout(std140, binding = 0) uniform"),
            "{}",
            s.glsl
        );
        assert!(s.glsl.contains("gl_FragCoord"), "{}", s.glsl);
    }
}
