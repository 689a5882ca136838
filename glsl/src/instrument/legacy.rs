//! Older desktop GLSL in a core-profile context. Drivers (Mesa) compile
//! GLSL 1.10–4.10 shaders there with what those versions had: 1.10–1.30's
//! `attribute`/`varying`, and up to 4.10 `gl_FragColor`, `gl_FragData` and
//! the `texture2D`-style lookups (deprecated, removed in 4.20). Storage
//! buffers need 4.30, and `#version 430 compatibility` does not compile in
//! a core context, so the instrumented shader is `430 core` with those
//! spelled as 4.30 spells them: `in`/`out`, fragment outputs of our own at
//! location 0, `texture`/`textureProj`/`textureLod`/`textureProjLod`, and
//! `shadow*` lookups as helpers returning `vec4` as they did.
//!
//! The one difference: `gl_FragColor` went to every draw buffer, an output
//! at location 0 goes to the first only. Legacy built-ins a core context
//! cannot feed (`gl_Vertex`, `gl_ModelViewMatrix`, `ftransform()`, ...)
//! are an error, as before.
//!
//! The emitted text is the transpiler's (no comments, no directives, no
//! string literals), so renaming whole identifier tokens is exact.

use super::InstrumentError;
use crate::builtins::{self, BuiltinEnv};
use crate::shader::{Profile, Stage, Version};

/// Whether a shader of version `from` instrumented as `to` needs the
/// translation: a desktop shader before 4.20 (not compatibility profile)
/// raised to a core profile.
pub fn needed(from: Version, to: Version) -> bool {
    !from.is_es()
        && from.profile != Profile::Compatibility
        && from.number < 420
        && !to.is_es()
        && to.profile == Profile::Core
        && to.number >= 420
}

/// Lookups renamed to their 4.30 name (same arguments, same result).
const RENAMED: &[(&str, &str)] = &[
    ("texture1D", "texture"),
    ("texture2D", "texture"),
    ("texture3D", "texture"),
    ("textureCube", "texture"),
    ("texture2DRect", "texture"),
    ("texture1DProj", "textureProj"),
    ("texture2DProj", "textureProj"),
    ("texture3DProj", "textureProj"),
    ("texture2DRectProj", "textureProj"),
    ("texture1DLod", "textureLod"),
    ("texture2DLod", "textureLod"),
    ("texture3DLod", "textureLod"),
    ("textureCubeLod", "textureLod"),
    ("texture1DProjLod", "textureProjLod"),
    ("texture2DProjLod", "textureProjLod"),
    ("texture3DProjLod", "textureProjLod"),
];

/// Shadow lookups returned `vec4` (the comparison in every component);
/// 4.30's return `float`: helpers keep the old result type. (name, sampler,
/// coordinate, 4.30 function, whether a bias (or lod) parameter follows).
const SHADOW: &[(&str, &str, &str, &str, Option<&str>)] = &[
    ("shadow1D", "sampler1DShadow", "vec3", "texture", None),
    ("shadow2D", "sampler2DShadow", "vec3", "texture", None),
    (
        "shadow1DProj",
        "sampler1DShadow",
        "vec4",
        "textureProj",
        None,
    ),
    (
        "shadow2DProj",
        "sampler2DShadow",
        "vec4",
        "textureProj",
        None,
    ),
    (
        "shadow1DLod",
        "sampler1DShadow",
        "vec3",
        "textureLod",
        Some("lod"),
    ),
    (
        "shadow2DLod",
        "sampler2DShadow",
        "vec3",
        "textureLod",
        Some("lod"),
    ),
    (
        "shadow1DProjLod",
        "sampler1DShadow",
        "vec4",
        "textureProjLod",
        Some("lod"),
    ),
    (
        "shadow2DProjLod",
        "sampler2DShadow",
        "vec4",
        "textureProjLod",
        Some("lod"),
    ),
    (
        "shadow2DRect",
        "sampler2DRectShadow",
        "vec3",
        "texture",
        None,
    ),
    (
        "shadow2DRectProj",
        "sampler2DRectShadow",
        "vec4",
        "textureProj",
        None,
    ),
];

/// The 4.30 core spelling of `body` (a stage's transpiled declarations and
/// functions), and the declarations it needs before it.
pub fn to_core(body: &str, stage: Stage) -> Result<(String, String), InstrumentError> {
    let env = BuiltinEnv {
        version: Version {
            number: 430,
            profile: Profile::Core,
        },
        stage,
        api: crate::Api::OpenGl,
    };
    // What only the compatibility profile has: in 4.60 compatibility, and
    // not in 4.30 core even with every extension enabled.
    let compat = BuiltinEnv {
        version: Version {
            number: 460,
            profile: Profile::Compatibility,
        },
        ..env
    };
    let all = builtins::ExtSet::all();
    let mut out = String::with_capacity(body.len());
    let mut decls = String::new();
    let (mut frag_color, mut frag_data) = (false, false);
    let mut shadows: Vec<&str> = Vec::new();
    let bytes = body.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if c.is_ascii_digit() {
            // A number, suffixes and exponents included (`1e5`, `0x1Fu`).
            let start = i;
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'.') {
                i += 1;
            }
            out.push_str(&body[start..i]);
            continue;
        }
        if !(c.is_ascii_alphabetic() || c == b'_') {
            let start = i;
            i += body[i..].chars().next().map_or(1, char::len_utf8);
            out.push_str(&body[start..i]);
            continue;
        }
        let start = i;
        while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
            i += 1;
        }
        let word = &body[start..i];
        let called = body[i..].trim_start().starts_with('(');
        match word {
            "gl_FragColor" if stage == Stage::Fragment => {
                frag_color = true;
                out.push_str("_sdbg_FragColor");
            }
            "gl_FragData" if stage == Stage::Fragment => {
                frag_data = true;
                out.push_str("_sdbg_FragData");
            }
            "attribute" if stage == Stage::Vertex => out.push_str("in"),
            "varying" if stage == Stage::Vertex => out.push_str("out"),
            "varying" if stage == Stage::Fragment => out.push_str("in"),
            w if called && RENAMED.iter().any(|(from, _)| *from == w) => {
                let to = RENAMED
                    .iter()
                    .find(|(from, _)| *from == w)
                    .map(|(_, to)| *to);
                out.push_str(to.unwrap_or(w));
            }
            w if called && SHADOW.iter().any(|s| s.0 == w) => {
                if !shadows.contains(&w) {
                    shadows.push(w);
                }
                out.push_str("_sdbg_");
                out.push_str(w);
            }
            w if w.starts_with("gl_")
                && builtins::variable(w, &compat).is_some()
                && builtins::variable_with(w, &env, &all).is_none() =>
            {
                return Err(unsupported(w));
            }
            w if called
                && !builtins::function_overloads(w, &compat).is_empty()
                && builtins::function_overloads_with(w, &env, &all).is_empty() =>
            {
                return Err(unsupported(&format!("{w}()")));
            }
            w => out.push_str(w),
        }
    }
    if frag_color {
        decls.push_str("layout(location = 0) out vec4 _sdbg_FragColor;\n");
    }
    if frag_data {
        decls.push_str("layout(location = 0) out vec4 _sdbg_FragData[gl_MaxDrawBuffers];\n");
    }
    for name in shadows {
        let Some(&(_, sampler, coord, f, extra)) = SHADOW.iter().find(|s| s.0 == name) else {
            continue;
        };
        match extra {
            Some(p) => decls.push_str(&format!(
                "vec4 _sdbg_{name}({sampler} s, {coord} c, float {p}) {{ return vec4({f}(s, c, {p})); }}\n"
            )),
            None => {
                decls.push_str(&format!(
                    "vec4 _sdbg_{name}({sampler} s, {coord} c) {{ return vec4({f}(s, c)); }}\n"
                ));
                // Rectangle textures have no mipmaps, so no bias.
                if !sampler.contains("Rect") {
                    decls.push_str(&format!(
                        "vec4 _sdbg_{name}({sampler} s, {coord} c, float b) {{ return vec4({f}(s, c, b)); }}\n"
                    ));
                }
            }
        }
    }
    Ok((decls, out))
}

/// Words GLSL 4.30 (and ES 3.10) keeps for itself that older versions
/// did not: types, qualifiers and statements added since 1.10, and words
/// reserved for future use. A shader of an older version may name a
/// variable `mat4x2` or `sample` (piglit's `glsl-mat-110`).
const NEWER_KEYWORDS: &[&str] = &[
    "active",
    "atomic_uint",
    "buffer",
    "case",
    "centroid",
    "coherent",
    "common",
    "default",
    "dmat2",
    "dmat2x2",
    "dmat2x3",
    "dmat2x4",
    "dmat3",
    "dmat3x2",
    "dmat3x3",
    "dmat3x4",
    "dmat4",
    "dmat4x2",
    "dmat4x3",
    "dmat4x4",
    "double",
    "dvec2",
    "dvec3",
    "dvec4",
    "filter",
    "flat",
    "highp",
    "iimage1D",
    "iimage1DArray",
    "iimage2D",
    "iimage2DArray",
    "iimage2DMS",
    "iimage2DMSArray",
    "iimage2DRect",
    "iimage3D",
    "iimageBuffer",
    "iimageCube",
    "iimageCubeArray",
    "image1D",
    "image1DArray",
    "image2D",
    "image2DArray",
    "image2DMS",
    "image2DMSArray",
    "image2DRect",
    "image3D",
    "imageBuffer",
    "imageCube",
    "imageCubeArray",
    "invariant",
    "isampler1D",
    "isampler1DArray",
    "isampler2D",
    "isampler2DArray",
    "isampler2DMS",
    "isampler2DMSArray",
    "isampler2DRect",
    "isampler3D",
    "isamplerBuffer",
    "isamplerCube",
    "isamplerCubeArray",
    "layout",
    "lowp",
    "mat2x2",
    "mat2x3",
    "mat2x4",
    "mat3x2",
    "mat3x3",
    "mat3x4",
    "mat4x2",
    "mat4x3",
    "mat4x4",
    "mediump",
    "noperspective",
    "partition",
    "patch",
    "precise",
    "precision",
    "readonly",
    "resource",
    "restrict",
    "sample",
    "sampler1DArray",
    "sampler1DArrayShadow",
    "sampler2DArray",
    "sampler2DArrayShadow",
    "sampler2DMS",
    "sampler2DMSArray",
    "sampler2DRect",
    "sampler2DRectShadow",
    "samplerBuffer",
    "samplerCubeArray",
    "samplerCubeArrayShadow",
    "samplerCubeShadow",
    "shared",
    "smooth",
    "subroutine",
    "superp",
    "switch",
    "uimage1D",
    "uimage1DArray",
    "uimage2D",
    "uimage2DArray",
    "uimage2DMS",
    "uimage2DMSArray",
    "uimage2DRect",
    "uimage3D",
    "uimageBuffer",
    "uimageCube",
    "uimageCubeArray",
    "uint",
    "usampler1D",
    "usampler1DArray",
    "usampler2D",
    "usampler2DArray",
    "usampler2DMS",
    "usampler2DMSArray",
    "usampler2DRect",
    "usampler3D",
    "usamplerBuffer",
    "usamplerCube",
    "usamplerCubeArray",
    "uvec2",
    "uvec3",
    "uvec4",
    "volatile",
    "writeonly",
];

/// `body` with each of `names` (names the shader declares that are
/// keywords of the raised version: [`NEWER_KEYWORDS`]) spelled
/// `_sdbg_kw_NAME`. The shader parsed them as identifiers, so every
/// occurrence is one.
pub fn rename_keywords(body: &str, names: &std::collections::HashSet<String>) -> String {
    let mut out = String::with_capacity(body.len());
    let bytes = body.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        let start = i;
        if c.is_ascii_alphabetic() || c == b'_' {
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            let word = &body[start..i];
            if names.contains(word) {
                out.push_str("_sdbg_kw_");
            }
            out.push_str(word);
        } else if c.is_ascii_digit() {
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'.') {
                i += 1;
            }
            out.push_str(&body[start..i]);
        } else {
            i += body[i..].chars().next().map_or(1, char::len_utf8);
            out.push_str(&body[start..i]);
        }
    }
    out
}

/// Whether `name` is a keyword of GLSL 4.30 / ES 3.10 that older versions
/// let a shader use as a name.
pub fn is_newer_keyword(name: &str) -> bool {
    NEWER_KEYWORDS.contains(&name)
}

fn unsupported(what: &str) -> InstrumentError {
    InstrumentError::Unsupported(format!(
        "{what} exists only in the compatibility profile: instrumenting this shader needs a compatibility-profile context"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn legacy_names_are_spelled_as_four_thirty_core_spells_them() {
        let body = "uniform sampler2D s;\nuniform sampler2DShadow d;\nvarying vec2 uv;\nvoid main() {\n    gl_FragColor = texture2D(s, uv * 1e5) + shadow2D(d, vec3(uv, 0.5)) + vec4(gl_FragCoord.x);\n}\n";
        let (decls, out) = to_core(body, Stage::Fragment).expect("translates");
        assert_eq!(
            out,
            "uniform sampler2D s;\nuniform sampler2DShadow d;\nin vec2 uv;\nvoid main() {\n    _sdbg_FragColor = texture(s, uv * 1e5) + _sdbg_shadow2D(d, vec3(uv, 0.5)) + vec4(gl_FragCoord.x);\n}\n"
        );
        assert!(
            decls.contains("layout(location = 0) out vec4 _sdbg_FragColor;"),
            "{decls}"
        );
        assert!(
            decls.contains("vec4 _sdbg_shadow2D(sampler2DShadow s, vec3 c)"),
            "{decls}"
        );
        let (_, vs) = to_core("attribute vec2 p;\nvarying vec2 uv;\n", Stage::Vertex).unwrap();
        assert_eq!(vs, "in vec2 p;\nout vec2 uv;\n");
    }

    #[test]
    fn names_that_became_keywords_are_renamed_everywhere() {
        let names = ["mat4x2".to_string(), "sample".to_string()]
            .into_iter()
            .collect();
        let body = "float f(float sample) { return sample; }\nvoid main() {\n    float mat4x2 = 1.0e2;\n    x = vec2(mat4x2, f(mat4x2));\n}\n";
        assert_eq!(
            rename_keywords(body, &names),
            "float f(float _sdbg_kw_sample) { return _sdbg_kw_sample; }\nvoid main() {\n    float _sdbg_kw_mat4x2 = 1.0e2;\n    x = vec2(_sdbg_kw_mat4x2, f(_sdbg_kw_mat4x2));\n}\n"
        );
        assert!(is_newer_keyword("mat4x2") && !is_newer_keyword("texture"));
    }

    #[test]
    fn compatibility_only_builtins_are_an_error() {
        let body = "void main() {\n    gl_Position = gl_ModelViewMatrix * gl_Vertex;\n}\n";
        let e = to_core(body, Stage::Vertex).expect_err("gl_ModelViewMatrix");
        assert!(e.to_string().contains("gl_ModelViewMatrix"), "{e}");
        let e = to_core("void main() { gl_Position = ftransform(); }", Stage::Vertex);
        assert!(e.is_err());
    }

    #[test]
    fn only_older_desktop_shaders_raised_to_core_are_translated() {
        let v = |number, profile| Version { number, profile };
        let core430 = v(430, Profile::Core);
        assert!(needed(v(150, Profile::Core), core430));
        assert!(needed(v(110, Profile::Core), core430));
        assert!(!needed(v(430, Profile::Core), core430));
        assert!(!needed(
            v(150, Profile::Compatibility),
            v(430, Profile::Compatibility)
        ));
        assert!(!needed(
            v(110, Profile::Core),
            v(430, Profile::Compatibility)
        ));
        assert!(!needed(v(300, Profile::Es), v(310, Profile::Es)));
    }
}
