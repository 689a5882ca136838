//! What the host hands `glShaderSource`: the user's file, unchanged, split
//! into strings with our generated code between them, and the map back from
//! driver line numbers to the user's file.
//!
//! A complete fragment shader (one with its own `main`) is passed as a single
//! string. A Shadertoy-style body (`mainImage` and no `main`) becomes
//!
//! ```text
//! [ file up to its #version/#extension lines ]   (only if it has #version)
//! [ generated header: #version, precision, uniforms, output ]
//! [ the rest of the file, unchanged ]
//! [ generated footer: void main() { mainImage(...); } ]
//! ```
//!
//! so that the concatenation contains every line of the file with its text
//! unchanged (the debugger binds breakpoints by a line-level diff between the
//! file and the runtime source). Every string but the last ends with a newline,
//! so each string starts on a fresh line of the concatenation.

use shaderdbg_glsl::shadertoy;
use std::fmt::Write as _;

/// The `#version` directive of a shader.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GlslVersion {
    /// The number (`110` when the shader has no `#version`).
    pub number: u32,
    /// The profile word (`core`, `compatibility`, `es`), if any.
    pub profile: Option<String>,
}

impl GlslVersion {
    /// Whether this is GLSL ES (`#version 100` or `#version NNN es`).
    pub fn is_es(&self) -> bool {
        self.profile.as_deref() == Some("es") || self.number == 100
    }

    /// Whether fragment outputs are user-declared `out` variables (desktop
    /// 1.30+, ES 3.00+) rather than `gl_FragColor`.
    pub fn has_out_variables(&self) -> bool {
        if self.is_es() {
            self.number >= 300
        } else {
            self.number >= 130
        }
    }

    /// The `#version` line for this version (without a newline).
    pub fn directive(&self) -> String {
        match &self.profile {
            Some(p) => format!("#version {} {p}", self.number),
            None => format!("#version {}", self.number),
        }
    }
}

pub use shaderdbg_gl_headless::ContextKind;

/// The context for a shader of `version`: ES -> GLES 3.2; 150 and later
/// without `compatibility` -> 4.5 core; everything else -> 4.5
/// compatibility.
pub fn context_kind(version: &GlslVersion) -> ContextKind {
    if version.is_es() {
        ContextKind::Gles32
    } else if version.number >= 150 && version.profile.as_deref() != Some("compatibility") {
        ContextKind::Core45
    } else {
        ContextKind::Compat45
    }
}

/// Where a string passed to `glShaderSource` came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// Lines of the user's file, starting at this (1-based) line.
    User { first_line: u32 },
    /// Code the host generated.
    Generated(&'static str),
}

/// One string of the shader source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Segment {
    /// The text handed to the driver.
    pub text: String,
    /// Where it came from.
    pub origin: Origin,
}

/// The fragment shader as the host compiles it.
#[derive(Debug, Clone)]
pub struct FragmentSource {
    /// The strings for `glShaderSource`, in order.
    pub segments: Vec<Segment>,
    /// The effective GLSL version.
    pub version: GlslVersion,
    /// Whether the file was a `mainImage` body that the host wrapped.
    pub wrapped: bool,
}

/// The name of the output variable a wrapped body writes to.
pub const OUTPUT_NAME: &str = "shaderdbg_FragColor";

impl FragmentSource {
    /// Builds the strings for the file `text`.
    pub fn new(text: &str) -> FragmentSource {
        let code = shadertoy::code_view(text);
        let directive = find_version(&code);
        let wrapped = shadertoy::is_main_image_body(&code);
        if !wrapped {
            let version = directive
                .as_ref()
                .map(|d| d.version.clone())
                .unwrap_or(GlslVersion {
                    number: 110,
                    profile: None,
                });
            return FragmentSource {
                segments: vec![Segment {
                    text: text.to_owned(),
                    origin: Origin::User { first_line: 1 },
                }],
                version,
                wrapped,
            };
        }

        let mut segments = Vec::new();
        let mut header = String::new();
        let version;
        let rest_start;
        match &directive {
            Some(d) => {
                version = d.version.clone();
                // Keep `#extension` lines right after `#version` before our
                // declarations: they must precede other code.
                let split = prologue_end(text, &code, d.line);
                let (pre, rest) = text.split_at(split);
                if !pre.ends_with('\n') {
                    header.push('\n');
                }
                segments.push(Segment {
                    text: pre.to_owned(),
                    origin: Origin::User { first_line: 1 },
                });
                rest_start = (pre.matches('\n').count() + 1) as u32;
                header_body(&mut header, &version);
                segments.push(Segment {
                    text: header,
                    origin: Origin::Generated("header"),
                });
                if !rest.is_empty() {
                    segments.push(Segment {
                        text: rest.to_owned(),
                        origin: Origin::User {
                            first_line: rest_start,
                        },
                    });
                }
            }
            None => {
                version = GlslVersion {
                    number: 330,
                    profile: Some("core".to_owned()),
                };
                header.push_str(shadertoy::DEFAULT_VERSION);
                header.push('\n');
                header_body(&mut header, &version);
                segments.push(Segment {
                    text: header,
                    origin: Origin::Generated("header"),
                });
                segments.push(Segment {
                    text: text.to_owned(),
                    origin: Origin::User { first_line: 1 },
                });
            }
        }
        let mut footer = String::new();
        if !segments.last().is_some_and(|s| s.text.ends_with('\n')) {
            footer.push('\n');
        }
        let output = if version.has_out_variables() {
            OUTPUT_NAME
        } else {
            "gl_FragColor"
        };
        let _ = writeln!(
            footer,
            "void main() {{ mainImage({output}, gl_FragCoord.xy); }}"
        );
        segments.push(Segment {
            text: footer,
            origin: Origin::Generated("footer"),
        });
        FragmentSource {
            segments,
            version,
            wrapped,
        }
    }

    /// GLSL the host generated whole (a WGSL shader's, written by naga):
    /// one string, compiled as `#version 430 core`.
    pub fn generated(text: String, which: &'static str) -> FragmentSource {
        FragmentSource {
            segments: vec![Segment {
                text,
                origin: Origin::Generated(which),
            }],
            version: GlslVersion {
                number: 430,
                profile: Some("core".to_owned()),
            },
            wrapped: false,
        }
    }

    /// The strings' texts, in order.
    pub fn strings(&self) -> Vec<&str> {
        self.segments.iter().map(|s| s.text.as_str()).collect()
    }

    /// The concatenation of all strings (what the driver compiles).
    #[cfg(test)]
    pub fn concatenated(&self) -> String {
        self.strings().concat()
    }

    /// Maps a line the driver reported to where it came from. `string` is
    /// the source-string number of the report: Mesa (and glslang) always say
    /// 0 and count lines over the concatenation of all strings; a driver that
    /// counts per string names the string, and string 0 starts at line 1
    /// either way.
    pub fn map_line(&self, string: u32, line: u32) -> Option<(Origin, u32)> {
        if line == 0 {
            return None;
        }
        if string > 0 {
            let seg = self.segments.get(string as usize)?;
            return Some(resolve(seg, line - 1));
        }
        let mut start = 1u32;
        for (i, seg) in self.segments.iter().enumerate() {
            let lines = seg.text.matches('\n').count() as u32;
            let last = i + 1 == self.segments.len();
            // The last string also owns any lines past its end.
            if line < start + lines || last {
                return Some(resolve(seg, line - start));
            }
            start += lines;
        }
        None
    }

    /// The text of line `line` (1-based) of the user's file, if it lies in
    /// one of the user's strings.
    pub fn user_line_text(&self, line: u32) -> Option<&str> {
        for seg in &self.segments {
            if let Origin::User { first_line } = seg.origin {
                if line >= first_line {
                    if let Some(t) = seg
                        .text
                        .split_inclusive('\n')
                        .nth((line - first_line) as usize)
                    {
                        return Some(t.trim_end_matches(['\n', '\r']));
                    }
                }
            }
        }
        None
    }

    /// The text of line `offset` (0-based) of a generated string.
    pub fn generated_line_text(&self, which: &'static str, offset: u32) -> Option<&str> {
        self.segments
            .iter()
            .find(|s| s.origin == Origin::Generated(which))
            .and_then(|s| s.text.split('\n').nth(offset as usize))
    }
}

fn resolve(seg: &Segment, offset: u32) -> (Origin, u32) {
    match seg.origin {
        Origin::User { first_line } => (seg.origin.clone(), first_line + offset),
        Origin::Generated(_) => (seg.origin.clone(), offset),
    }
}

fn header_body(header: &mut String, version: &GlslVersion) {
    if version.is_es() {
        header.push_str("precision highp float;\nprecision highp int;\n");
    }
    header.push_str(shadertoy::UNIFORMS);
    if version.has_out_variables() {
        let _ = writeln!(header, "out vec4 {OUTPUT_NAME};");
    }
}

/// The `#version` directive found in a shader.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VersionDirective {
    /// The version.
    pub version: GlslVersion,
    /// The 0-based line it is on.
    pub line: usize,
}

/// A directive line: `#` and a name, returning the name and the rest.
fn directive(line: &str) -> Option<(&str, &str)> {
    let rest = line.trim_start().strip_prefix('#')?.trim_start();
    let end = rest
        .find(|c: char| !c.is_ascii_alphanumeric() && c != '_')
        .unwrap_or(rest.len());
    Some((&rest[..end], &rest[end..]))
}

/// The first `#version` directive of the comment-free `code`.
pub fn find_version(code: &str) -> Option<VersionDirective> {
    for (line_no, line) in code.lines().enumerate() {
        if let Some(("version", rest)) = directive(line) {
            let mut words = rest.split_whitespace();
            let number = words.next()?.parse().ok()?;
            let profile = words.next().map(str::to_owned);
            return Some(VersionDirective {
                version: GlslVersion { number, profile },
                line: line_no,
            });
        }
    }
    None
}

/// Byte offset just past the `#version` line (0-based `version_line`) and
/// any `#extension` lines that follow it before other code.
fn prologue_end(text: &str, code: &str, version_line: usize) -> usize {
    let mut last = version_line;
    for (i, line) in code.lines().enumerate().skip(version_line + 1) {
        match directive(line) {
            Some(("extension", _)) => last = i,
            _ if line.trim().is_empty() => {}
            _ => break,
        }
    }
    // Offset of the start of line `last + 1`.
    let mut offset = 0;
    for (i, line) in text.split_inclusive('\n').enumerate() {
        offset += line.len();
        if i == last {
            break;
        }
    }
    offset
}

/// A location in a driver log line: the string number, the line, the
/// column if given, and the byte range the location occupies in the line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogLocation {
    pub string: u32,
    pub line: u32,
    pub column: Option<u32>,
    pub start: usize,
    pub end: usize,
}

fn digits(s: &str, at: usize) -> Option<(u32, usize)> {
    let len = s[at..].bytes().take_while(u8::is_ascii_digit).count();
    if len == 0 {
        return None;
    }
    Some((s[at..at + len].parse().ok()?, at + len))
}

/// Finds the location at the start of a driver log line: Mesa's `0:7(12):`,
/// the `0:7:` of others (optionally after `ERROR: `/`WARNING: `), and
/// NVIDIA's `0(7) :`.
pub fn parse_log_location(line: &str) -> Option<LogLocation> {
    let mut start = line.len() - line.trim_start().len();
    for prefix in ["ERROR: ", "WARNING: ", "error: ", "warning: "] {
        if line[start..].starts_with(prefix) {
            start += prefix.len();
            break;
        }
    }
    let (string, at) = digits(line, start)?;
    let sep = *line.as_bytes().get(at)?;
    match sep {
        b':' => {
            let (l, at) = digits(line, at + 1)?;
            let (column, end) = if line.as_bytes().get(at) == Some(&b'(') {
                let (c, at2) = digits(line, at + 1)?;
                if line.as_bytes().get(at2) != Some(&b')') {
                    return None;
                }
                (Some(c), at2 + 1)
            } else {
                (None, at)
            };
            Some(LogLocation {
                string,
                line: l,
                column,
                start,
                end,
            })
        }
        b'(' => {
            let (l, at) = digits(line, at + 1)?;
            if line.as_bytes().get(at) != Some(&b')') {
                return None;
            }
            Some(LogLocation {
                string,
                line: l,
                column: None,
                start,
                end: at + 1,
            })
        }
        _ => None,
    }
}

/// Rewrites a driver info log so that every location names the user's file
/// (`PATH:LINE:COL: message`, gcc style, followed by the offending line) or
/// the generated wrapper code.
pub fn map_log(log: &str, source: &FragmentSource, path: &str) -> String {
    let mut out = String::new();
    for raw in log.lines() {
        let raw = raw.trim_end();
        if raw.is_empty() {
            continue;
        }
        let Some(loc) = parse_log_location(raw) else {
            let _ = writeln!(out, "{raw}");
            continue;
        };
        let message = raw[loc.end..]
            .trim_start_matches(|c: char| c == ':' || c.is_whitespace())
            .to_owned();
        let col = loc.column.map(|c| format!(":{c}")).unwrap_or_default();
        match source.map_line(loc.string, loc.line) {
            Some((Origin::User { .. }, line)) => {
                let _ = writeln!(out, "{path}:{line}{col}: {message}");
                if let Some(text) = source.user_line_text(line) {
                    let _ = writeln!(out, "{line:>5} | {text}");
                }
            }
            Some((Origin::Generated(which), offset)) => {
                let _ = writeln!(
                    out,
                    "<shaderdbg-host {which}, line {}>{col}: {message}",
                    offset + 1
                );
                if let Some(text) = source.generated_line_text(which, offset) {
                    let _ = writeln!(out, "      | {text}");
                }
            }
            None => {
                let _ = writeln!(out, "{raw}");
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn complete_shader_is_one_string() {
        let text = "#version 330 core\nout vec4 c;\nvoid main() { c = vec4(1.0); }\n";
        let s = FragmentSource::new(text);
        assert!(!s.wrapped);
        assert_eq!(s.strings(), vec![text]);
        assert_eq!(context_kind(&s.version), ContextKind::Core45);
    }

    #[test]
    fn context_selection() {
        let v = |t: &str| context_kind(&FragmentSource::new(t).version);
        assert_eq!(v("void main(){}"), ContextKind::Compat45);
        assert_eq!(v("#version 120\nvoid main(){}"), ContextKind::Compat45);
        assert_eq!(v("#version 140\nvoid main(){}"), ContextKind::Compat45);
        assert_eq!(v("#version 150\nvoid main(){}"), ContextKind::Core45);
        assert_eq!(
            v("#version 450 compatibility\nvoid main(){}"),
            ContextKind::Compat45
        );
        assert_eq!(v("#version 300 es\nvoid main(){}"), ContextKind::Gles32);
        assert_eq!(v("#version 100\nvoid main(){}"), ContextKind::Gles32);
        assert_eq!(
            v("// #version 300 es\n/* #version 100 */\n  #  version 460\nvoid main(){}"),
            ContextKind::Core45
        );
        assert_eq!(
            v("void mainImage(out vec4 c, in vec2 p){}"),
            ContextKind::Core45
        );
    }

    #[test]
    fn main_image_detection() {
        let w = |t: &str| FragmentSource::new(t).wrapped;
        assert!(w("void mainImage(out vec4 c, in vec2 p) { c = vec4(1); }"));
        assert!(w(
            "// void main() {}\nvoid mainImage(out vec4 c, in vec2 p) {}"
        ));
        assert!(!w(
            "void mainImage(out vec4 c, in vec2 p) {}\nvoid main() {}"
        ));
        assert!(!w("void  main ( void ) { }"));
        assert!(w(
            "void mainImage2() {}\nvoid mainImage(out vec4 c, in vec2 p) {}"
        ));
        assert!(!w("void mainImage2() {}\nvoid main() {}"));
        assert!(!w("void main_image() {}"));
    }

    #[test]
    fn wrapped_without_version() {
        let text = "void mainImage(out vec4 c, in vec2 p)\n{\n  c = vec4(p, 0.0, 1.0);\n}\n";
        let s = FragmentSource::new(text);
        assert!(s.wrapped);
        assert_eq!(s.segments.len(), 3);
        assert!(s.segments[0].text.starts_with("#version 330 core\n"));
        assert_eq!(s.segments[1].text, text);
        assert_eq!(
            s.segments[2].text,
            "void main() { mainImage(shaderdbg_FragColor, gl_FragCoord.xy); }\n"
        );
        let header_lines = s.segments[0].text.matches('\n').count() as u32;
        // Concatenated line header_lines + 3 is the user's line 3.
        assert_eq!(
            s.map_line(0, header_lines + 3),
            Some((Origin::User { first_line: 1 }, 3))
        );
        assert_eq!(s.map_line(0, 1), Some((Origin::Generated("header"), 0)));
        assert_eq!(
            s.map_line(0, header_lines + 5),
            Some((Origin::Generated("footer"), 0))
        );
        // Per-string numbering.
        assert_eq!(s.map_line(1, 3), Some((Origin::User { first_line: 1 }, 3)));
        assert_eq!(s.user_line_text(3), Some("  c = vec4(p, 0.0, 1.0);"));
        assert!(s.concatenated().contains(text));
    }

    #[test]
    fn wrapped_with_version_and_extensions() {
        let text = "// demo\n#version 300 es\n#extension GL_EXT_foo : enable\n\nfloat f() { return 1.0; }\nvoid mainImage(out vec4 c, in vec2 p) { c = vec4(f()); }";
        let s = FragmentSource::new(text);
        assert!(s.wrapped);
        assert!(s.version.is_es());
        assert_eq!(s.segments.len(), 4);
        assert_eq!(
            s.segments[0].text,
            "// demo\n#version 300 es\n#extension GL_EXT_foo : enable\n"
        );
        assert!(s.segments[1].text.starts_with("precision highp float;"));
        assert_eq!(s.segments[2].origin, Origin::User { first_line: 4 });
        assert!(s.segments[3].text.starts_with('\n'));
        assert_eq!(s.segments[0].text.clone() + &s.segments[2].text, text);
        let h = s.segments[1].text.matches('\n').count() as u32;
        assert_eq!(s.map_line(0, 2), Some((Origin::User { first_line: 1 }, 2)));
        assert_eq!(
            s.map_line(0, 3 + h + 2),
            Some((Origin::User { first_line: 4 }, 5))
        );
        assert_eq!(s.user_line_text(5), Some("float f() { return 1.0; }"));
        assert_eq!(s.user_line_text(6).map(|t| &t[..9]), Some("void main"));
    }

    #[test]
    fn legacy_wrapped_uses_gl_frag_color() {
        let s = FragmentSource::new("#version 120\nvoid mainImage(out vec4 c, in vec2 p) {}\n");
        assert!(!s.concatenated().contains("out vec4 shaderdbg_FragColor"));
        assert!(s.concatenated().contains("mainImage(gl_FragColor"));
    }

    #[test]
    fn log_locations() {
        let l = parse_log_location("0:7(12): error: syntax error").unwrap();
        assert_eq!((l.string, l.line, l.column), (0, 7, Some(12)));
        assert_eq!(
            &"0:7(12): error: syntax error"[l.end..],
            ": error: syntax error"
        );
        let l = parse_log_location("ERROR: 0:15: 'x' : undeclared").unwrap();
        assert_eq!((l.string, l.line, l.column), (0, 15, None));
        let l = parse_log_location("0(3) : error C0000: bad").unwrap();
        assert_eq!((l.string, l.line), (0, 3));
        assert!(parse_log_location("error: linking failed").is_none());
    }

    #[test]
    fn map_log_names_the_file() {
        let text = "void mainImage(out vec4 c, in vec2 p)\n{\n  c = vec4(1.0) +;\n}\n";
        let s = FragmentSource::new(text);
        let h = s.segments[0].text.matches('\n').count();
        let log = format!("0:{}(17): error: syntax error, unexpected ';'\n", h + 3);
        let mapped = map_log(&log, &s, "a.frag");
        assert!(
            mapped.starts_with("a.frag:3:17: error: syntax error"),
            "{mapped}"
        );
        assert!(mapped.contains("    3 |   c = vec4(1.0) +;"), "{mapped}");
    }
}
