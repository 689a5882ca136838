//! How GLSL that naga wrote for a WGSL file says where it came from: a
//! program that compiles WGSL to GLSL for OpenGL (the built-in host) puts
//! the WGSL it compiled, as line comments, before the GLSL. The GL agent
//! only sees GLSL; with this header it debugs the WGSL instead (the WGSL
//! engine instruments the module and emits GLSL again), and announces the
//! shader to the session as WGSL.
//!
//! ```text
//! // shaderdbg-wgsl: entry_point=fs file=/path/to/effect.wgsl
//! //| <each line of the WGSL text naga compiled>
//! // shaderdbg-wgsl end
//! #version 430 core
//! ...
//! ```
//!
//! Comments may precede `#version`, so the driver compiles the text as it
//! would without the header.

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
    /// The WGSL text compiled (the file's text and whatever the program
    /// added to it; lines are this text's lines).
    pub source: String,
}

/// `glsl` with the header naming `origin` in front.
pub fn embed(origin: &WgslOrigin, glsl: &str) -> String {
    let mut out = String::with_capacity(origin.source.len() * 11 / 10 + glsl.len() + 128);
    out.push_str(START);
    out.push_str("entry_point=");
    out.push_str(&origin.entry_point);
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
    if entry_point.is_empty() {
        return None;
    }
    let mut source: Vec<&str> = Vec::new();
    for line in lines {
        if line == END {
            return Some(WgslOrigin {
                entry_point: entry_point.to_string(),
                file: file.to_string(),
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
            source:
                "@fragment\nfn fs() -> @location(0) vec4<f32> {\n\n  return vec4(1.0); // é\n}\n"
                    .into(),
        };
        let glsl = embed(&origin, "#version 430 core\nvoid main() {}\n");
        assert!(
            glsl.starts_with(
                "// shaderdbg-wgsl: entry_point=fs file=/tmp/a b.wgsl\n//| @fragment\n"
            ),
            "{glsl}"
        );
        assert!(
            glsl.ends_with("// shaderdbg-wgsl end\n#version 430 core\nvoid main() {}\n"),
            "{glsl}"
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
