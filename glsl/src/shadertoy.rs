//! Shadertoy-style shaders: a body defining
//! `void mainImage(out vec4 fragColor, in vec2 fragCoord)` and no `main`,
//! which the built-in host wraps with Shadertoy's uniforms. The language
//! server analyses such files with the same uniforms.

/// The uniforms a wrapped `mainImage` body gets (Shadertoy's names).
pub const UNIFORMS: &str = "\
uniform vec3 iResolution;
uniform float iTime;
uniform float iTimeDelta;
uniform int iFrame;
uniform vec4 iMouse;
uniform sampler2D iChannel0;
uniform sampler2D iChannel1;
uniform sampler2D iChannel2;
uniform sampler2D iChannel3;
uniform vec3 iChannelResolution[4];
";

/// The version a `mainImage` body without `#version` is compiled as.
pub const DEFAULT_VERSION: &str = "#version 330 core";

/// What a `mainImage` body gets after its `#version` line (or first, where
/// it has none) so that it reads as the built-in host compiles it: the
/// default `#version` where it has none, default precisions for GLSL ES,
/// and the uniforms. (The host also declares the output `main` writes.)
pub fn header(text: &str) -> String {
    let code = code_view(text);
    let version = code.lines().find_map(|l| {
        let rest = l.trim_start().strip_prefix('#')?.trim_start();
        rest.strip_prefix("version").map(str::trim)
    });
    let mut h = String::new();
    let es = match version {
        None => {
            h.push_str(DEFAULT_VERSION);
            h.push('\n');
            false
        }
        Some(v) => v.ends_with("es") || v == "100",
    };
    if es {
        h.push_str("precision highp float;\nprecision highp int;\n");
    }
    h.push_str(UNIFORMS);
    h
}

/// Whether `text` is a `mainImage` body (it names `mainImage` and declares no
/// `void main(`); comments are ignored.
pub fn is_main_image_body(text: &str) -> bool {
    let code = code_view(text);
    has_identifier(&code, "mainImage") && !has_void_main(&code)
}

/// `text` with comments replaced by spaces (newlines kept), so that line and
/// byte positions stay the same.
pub fn code_view(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'/' && bytes.get(i + 1) == Some(&b'/') {
            while i < bytes.len() && bytes[i] != b'\n' {
                out.push(b' ');
                i += 1;
            }
        } else if bytes[i] == b'/' && bytes.get(i + 1) == Some(&b'*') {
            out.extend_from_slice(b"  ");
            i += 2;
            while i < bytes.len() && !(bytes[i] == b'*' && bytes.get(i + 1) == Some(&b'/')) {
                out.push(if bytes[i] == b'\n' { b'\n' } else { b' ' });
                i += 1;
            }
            if i < bytes.len() {
                out.extend_from_slice(b"  ");
                i += 2;
            }
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    // Only ASCII bytes were replaced by ASCII bytes, but a multi-byte
    // character inside a comment was replaced byte by byte.
    String::from_utf8_lossy(&out).into_owned()
}

fn is_ident_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Byte offsets of whole-word occurrences of `word` in `code`.
fn identifier_positions<'a>(code: &'a str, word: &'a str) -> impl Iterator<Item = usize> + 'a {
    let bytes = code.as_bytes();
    code.match_indices(word).filter_map(move |(i, _)| {
        let before = i.checked_sub(1).map(|j| bytes[j]);
        let after = bytes.get(i + word.len()).copied();
        let whole = !before.is_some_and(is_ident_byte) && !after.is_some_and(is_ident_byte);
        whole.then_some(i)
    })
}

pub fn has_identifier(code: &str, word: &str) -> bool {
    identifier_positions(code, word).next().is_some()
}

/// Whether `code` declares `void main (` (prototype or definition).
fn has_void_main(code: &str) -> bool {
    identifier_positions(code, "main").any(|i| {
        let after = code[i + 4..].trim_start();
        let before = code[..i].trim_end();
        after.starts_with('(')
            && before.ends_with("void")
            && !before.as_bytes()[..before.len() - 4]
                .last()
                .is_some_and(|&b| is_ident_byte(b))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bodies_are_told_from_complete_shaders() {
        assert!(is_main_image_body(
            "void mainImage(out vec4 c, in vec2 p) { c = vec4(1); }"
        ));
        assert!(!is_main_image_body(
            "void mainImage(out vec4 c, in vec2 p) {}\nvoid main() { mainImage(o, gl_FragCoord.xy); }"
        ));
        assert!(!is_main_image_body("// mainImage\nvoid main() {}"));
        assert!(!is_main_image_body("void main () {} /* mainImage */"));
        assert!(!is_main_image_body("void mymainImage() {}"));
    }

    #[test]
    fn the_header_gives_a_version_precisions_for_es_and_the_uniforms() {
        let body = "void mainImage(out vec4 o, in vec2 p) {}";
        assert!(header(body).starts_with("#version 330 core\nuniform vec3 iResolution;"));
        let es = header(&format!("// x\n#version 300 es\n{body}"));
        assert!(es.starts_with("precision highp float;\nprecision highp int;\nuniform"));
        assert!(header(&format!("#version 100\n{body}")).starts_with("precision highp float;"));
        assert!(header(&format!("#version 450\n{body}")).starts_with("uniform vec3"));
    }
}
