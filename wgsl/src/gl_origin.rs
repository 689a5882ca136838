//! How GLSL that naga wrote for a WGSL file says where it came from: a
//! program that compiles WGSL to GLSL for OpenGL (the built-in host) puts
//! the WGSL it compiled, as line comments, before the GLSL. The GL agent
//! only sees GLSL; with this header it debugs the WGSL instead (the WGSL
//! engine instruments the module and emits GLSL again), and announces the
//! shader to the session as WGSL.
//!
//! ```text
//! // shaderdbg-wgsl: entry_point=fs file_lines=31 file=/path/to/effect.wgsl
//! //| <each line of the WGSL text naga compiled>
//! // shaderdbg-wgsl end
//! #version 430 core
//! ...
//! ```
//!
//! Comments may precede `#version`, so the driver compiles the text as it
//! would without the header. `file_lines`: how many lines of the text, from
//! the first, are the file's (the rest is what the program appended, such
//! as the host's uniform block); breakpoint files are matched against those.

const START: &str = "// shaderdbg-wgsl: ";
const LINE: &str = "//|";
const END: &str = "// shaderdbg-wgsl end";

/// The WGSL a GLSL shader was compiled from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WgslOrigin {
    /// The entry point the GLSL is of.
    pub entry_point: String,
    /// The file, as the compiling program named it (may be empty).
    pub file: String,
    /// How many lines of `source`, from the first, are the file's (0: all).
    pub file_lines: u32,
    /// The WGSL text compiled (the file's text and whatever the program
    /// added to it; lines are this text's lines).
    pub source: String,
}

impl WgslOrigin {
    /// The part of `source` that is the file's (its first `file_lines`
    /// lines; all of it when that is 0).
    pub fn file_part(&self) -> &str {
        if self.file_lines == 0 {
            return &self.source;
        }
        let end = self
            .source
            .match_indices('\n')
            .nth(self.file_lines as usize - 1)
            .map_or(self.source.len(), |(i, _)| i + 1);
        &self.source[..end]
    }
}

/// `glsl` with the header naming `origin` in front.
pub fn embed(origin: &WgslOrigin, glsl: &str) -> String {
    let mut out = String::with_capacity(origin.source.len() * 11 / 10 + glsl.len() + 128);
    out.push_str(START);
    out.push_str("entry_point=");
    out.push_str(&origin.entry_point);
    out.push_str(&format!(" file_lines={}", origin.file_lines));
    out.push_str(" file=");
    // One line: a newline in the name would end the header.
    out.push_str(&origin.file.replace(['\n', '\r'], " "));
    out.push('\n');
    for line in origin.source.split('\n') {
        out.push_str(LINE);
        if !line.is_empty() {
            out.push(' ');
            out.push_str(line.strip_suffix('\r').unwrap_or(line));
        }
        out.push('\n');
    }
    out.push_str(END);
    out.push('\n');
    out.push_str(glsl);
    out
}

/// Whether a GLSL text starts with the header (cheap: reads the first line).
pub fn has_header(glsl: &str) -> bool {
    glsl.starts_with(START)
}

/// The origin a GLSL text names in its header, if it has one.
pub fn extract(glsl: &str) -> Option<WgslOrigin> {
    let mut lines = glsl.split('\n');
    let first = lines.next()?.strip_prefix(START)?;
    let rest = first.strip_prefix("entry_point=")?;
    let (entry_point, file) = match rest.split_once(" file=") {
        Some((e, f)) => (e, f),
        None => (rest, ""),
    };
    let (entry_point, file_lines) = match entry_point.split_once(" file_lines=") {
        Some((e, n)) => (e, n.parse().ok()?),
        None => (entry_point, 0),
    };
    if entry_point.is_empty() {
        return None;
    }
    let mut source: Vec<&str> = Vec::new();
    for line in lines {
        if line == END {
            return Some(WgslOrigin {
                entry_point: entry_point.to_string(),
                file: file.to_string(),
                file_lines,
                source: source.join("\n"),
            });
        }
        let l = line.strip_prefix(LINE)?;
        source.push(l.strip_prefix(' ').unwrap_or(l));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_header_round_trips() {
        let origin = WgslOrigin {
            entry_point: "fs".into(),
            file: "/tmp/a b.wgsl".into(),
            file_lines: 4,
            source:
                "@fragment\nfn fs() -> @location(0) vec4<f32> {\n\n  return vec4(1.0); // é\n}\n"
                    .into(),
        };
        let glsl = embed(&origin, "#version 430 core\nvoid main() {}\n");
        assert!(
            glsl.starts_with(
                "// shaderdbg-wgsl: entry_point=fs file_lines=4 file=/tmp/a b.wgsl\n//| @fragment\n"
            ),
            "{glsl}"
        );
        assert!(
            glsl.ends_with("// shaderdbg-wgsl end\n#version 430 core\nvoid main() {}\n"),
            "{glsl}"
        );
        assert_eq!(
            origin.file_part(),
            "@fragment\nfn fs() -> @location(0) vec4<f32> {\n\n  return vec4(1.0); // é\n"
        );
        assert_eq!(extract(&glsl), Some(origin));
        assert_eq!(extract("#version 430 core\nvoid main() {}\n"), None);
        // A header cut short is no header.
        assert_eq!(
            extract("// shaderdbg-wgsl: entry_point=fs file=x\n//| fn f() {}\n"),
            None
        );
    }
}
