//! Shaders of older desktop GLSL versions instrumented for an OpenGL 4.5
//! core context, on llvmpipe: Mesa compiles GLSL 1.10-4.10 there with the
//! legacy syntax of those versions (`gl_FragColor` until 4.20, `varying`,
//! `texture2D`), so the instrumented shader (`430 core`) must too, and draw
//! the same picture. A `#version 150` shader writing `gl_FragColor` did not
//! compile raised, and GLSL 1.30 was refused in core contexts.

use shaderdbg_core::decode::decode_sanitizer;
use shaderdbg_core::layout;
use shaderdbg_gl_headless::{ContextKind, Headless};
use shaderdbg_glsl::instrument::{instrument, Checks, Instrumented, Mode, Request, Target};
use shaderdbg_glsl::parse::parse;
use shaderdbg_glsl::Stage;

const BINDING: u32 = 7;
const W: u32 = 16;
const H: u32 = 16;

const VERT_130: &str = "#version 130\nin vec2 pos;\nout vec2 uv;\nvoid main() {\n    uv = pos * 0.5 + 0.5;\n    gl_Position = vec4(pos, 0.0, 1.0);\n}\n";

/// Fragment shaders a core context compiles as they are.
const FRAGMENTS: &[(&str, &str)] = &[
    (
        "150 gl_FragColor",
        "#version 150\nin vec2 uv;\nvoid main() {\n    gl_FragColor = vec4(uv, 0.25, 1.0);\n}\n",
    ),
    (
        "130 gl_FragData",
        "#version 130\nin vec2 uv;\nvoid main() {\n    float k[4] = float[4](0.0, 0.25, 0.5, 1.0);\n    gl_FragData[0] = vec4(uv.x, k[int(uv.y * 3.0)], 0.5, 1.0);\n}\n",
    ),
    (
        "110 varying",
        "#version 110\nvarying vec2 uv;\nvoid main() {\n    gl_FragColor = vec4(uv.yx, 0.75, 1.0);\n}\n",
    ),
    (
        "410 core gl_FragColor",
        "#version 410 core\nin vec2 uv;\nvoid main() {\n    gl_FragColor = vec4(uv, uv.x * uv.y, 1.0);\n}\n",
    ),
];

/// `src` (of `stage`) sanitized with every check for `target`: the
/// instrumented shader, or the error's text.
fn sanitize(src: &str, stage: Stage, target: Target) -> Result<Instrumented, String> {
    let parsed = parse(&[src], stage, None).expect("parses");
    let req = Request {
        mode: Mode::Sanitize(Checks::ALL),
        target,
        binding: BINDING,
    };
    instrument(&parsed, &req).map_err(|e| e.to_string())
}

/// `src` sanitized for a core context: its text and how many probes.
fn sanitized(src: &str, stage: Stage) -> (String, usize) {
    let out = sanitize(src, stage, Target::CORE).unwrap_or_else(|e| panic!("{e}\n{src}"));
    (out.glsl, out.probes.probes.len())
}

/// Renders the fragment shader `frag` (named `name`) under [`VERT_130`] as
/// it is and sanitized, and checks the pictures are the same: the picture
/// and the sanitize buffer's words.
fn render_both(gl: &Headless, name: &str, frag: &str) -> (Vec<u8>, Vec<u32>) {
    let (plain, _) = gl
        .render(VERT_130, frag, None)
        .unwrap_or_else(|e| panic!("{name}: the original: {e}"));
    let (glsl, probes) = sanitized(frag, Stage::Fragment);
    let buffer = layout::new_sanitize_buffer(16, probes);
    let (pixels, words) = gl
        .render(VERT_130, &glsl, Some((BINDING, &buffer)))
        .unwrap_or_else(|e| panic!("{name}: {e}\n{glsl}"));
    assert!(pixels == plain, "{name}: the picture changed");
    (plain, words)
}

#[test]
fn legacy_fragment_shaders_run_sanitized_in_a_core_context_unchanged() {
    let gl = Headless::new(ContextKind::Core45, W, H).expect("headless context");
    for (name, frag) in FRAGMENTS {
        let (_, words) = render_both(&gl, name, frag);
        let parsed = parse(&[*frag], Stage::Fragment, None).expect("parses");
        let table = shaderdbg_glsl::instrument::probe_table(&parsed);
        let (reports, lost) = decode_sanitizer(&words, &table);
        assert!(reports.is_empty() && !lost, "{name}: {reports:?}");
    }
}

/// A GLSL 1.10 vertex shader (`attribute`, `varying`) in a core context.
#[test]
fn a_legacy_vertex_shader_runs_sanitized_in_a_core_context_unchanged() {
    let vert = "#version 110\nattribute vec2 pos;\nvarying vec2 uv;\nvoid main() {\n    uv = pos * 0.5 + 0.5;\n    gl_Position = vec4(pos, 0.0, 1.0);\n}\n";
    let frag = FRAGMENTS[2].1;
    let gl = Headless::new(ContextKind::Core45, W, H).expect("headless context");
    let (plain, _) = gl.render(vert, frag, None).expect("the original");
    let (glsl, probes) = sanitized(vert, Stage::Vertex);
    let buffer = layout::new_sanitize_buffer(16, probes);
    let (pixels, _) = gl
        .render(&glsl, frag, Some((BINDING, &buffer)))
        .unwrap_or_else(|e| panic!("{e}\n{glsl}"));
    assert!(pixels == plain, "the picture changed");
}

/// What a core context cannot feed stays an error, saying why.
#[test]
fn compatibility_only_builtins_are_refused_for_a_core_context() {
    let vert = "#version 110\nvoid main() {\n    gl_Position = gl_ModelViewProjectionMatrix * gl_Vertex;\n}\n";
    let e = sanitize(vert, Stage::Vertex, Target::CORE).expect_err("compatibility built-ins");
    assert!(e.contains("compatibility"), "{e}");
    assert!(sanitize(vert, Stage::Vertex, Target::COMPAT).is_ok());
}

/// piglit's `fs-do-while-scope` (GLSL 1.20): `int i = (j++, 0);` was
/// printed `int i = j++, 0;` (a second declarator) by every mode, so the
/// instrumented shader did not compile; a sequence passed to a call lost
/// its parentheses the same way.
#[test]
fn sequences_in_initializers_and_arguments_keep_their_meaning() {
    let frag = "#version 120
float pick(float a) { return a; }
void main() {
    int i = 17;
    int j = -2;
    do
        int i = (j++, 0);
    while (i <= 0 && j < 3);
    float g = pick((j++, 1.0));
    gl_FragColor = j == 0 ? vec4(0.0, g, 0.0, 1.0) : vec4(1.0, 0.0, 0.0, 1.0);
}
";
    let gl = Headless::new(ContextKind::Core45, W, H).expect("headless context");
    let (plain, _) = render_both(&gl, "do-while scope", frag);
    assert_eq!(&plain[..4], &[0, 255, 0, 255], "the original draws green");
}

/// piglit's `glsl-mat-110`: GLSL 1.10 may name a variable `mat4x2` (a type
/// from 1.20 on); raised to 4.30 it is renamed. An interface variable
/// cannot be, and says so.
#[test]
fn names_that_became_keywords_are_renamed_when_raised() {
    let frag = "#version 110
float mat2x3(float x) { return x; }
void main() {
    float mat4x2 = 1.0;
    float mat3x3 = mat2x3(0.5);
    gl_FragColor = vec4(0.0, mat4x2, mat3x3, 1.0);
}
";
    let gl = Headless::new(ContextKind::Core45, W, H).expect("headless context");
    let (plain, _) = render_both(&gl, "mat keywords", frag);
    assert_eq!(&plain[..4], &[0, 255, 128, 255], "the original");

    let uniform =
        "#version 110\nuniform float mat3x2;\nvoid main() { gl_FragColor = vec4(mat3x2); }\n";
    let e = sanitize(uniform, Stage::Fragment, Target::COMPAT).expect_err("a uniform named mat3x2");
    assert!(e.contains("`mat3x2` is a keyword"), "{e}");
}
