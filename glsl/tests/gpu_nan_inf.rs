//! The NaN/Inf exception check on llvmpipe: output writes inside `if` and
//! loop conditions and `return` values are checked right after the write
//! (not only writes that are whole statements), the hit names the statement
//! that wrote, and the image is the original's.

use shaderdbg_core::layout;
use shaderdbg_gl_headless::{ContextKind, Headless, Stage as GlStage};
use shaderdbg_glsl::instrument::{instrument, probe_table, Mode, Request, Target};
use shaderdbg_glsl::parse::parse;
use shaderdbg_glsl::Stage;

const VERT: &str = "#version 450 core\nlayout(location = 0) in vec2 pos;\nvoid main() { gl_Position = vec4(pos, 0.0, 1.0); }\n";

/// Line 5 (`if`): x == 3 writes an infinity. Line 7 (`while`): x == 9.
/// Line 10 (`return` of `f`, called on line 12): x == 20. Every write is
/// overwritten with finite values afterwards, so the image is finite.
const FRAG: &str = "#version 450 core
out vec4 o;
uniform float zero;
float f(float x) {
    if ((o.r = 1.0 / (x - 3.0 + zero)) > 1e30) { o.r = 0.0; }
    int n = 0;
    while ((o.g = (x == 9.0 ? 1.0 / zero : 0.5)) > 1.0 && n++ < 1) { o.g = 0.0; }
    o.g = 0.25;
    o.r = 0.5;
    return (o.b = 1.0 / (x - 20.0 + zero)) * 0.0;
}
void main() { float x = floor(gl_FragCoord.x); float y = f(x); o.b = 0.75; o.a = 1.0 + y * 0.0; }
";

#[test]
fn writes_in_conditions_and_return_values_are_checked() {
    let gl = Headless::new(ContextKind::Core45, 32, 1).expect("context");
    let parsed = parse(&[FRAG], Stage::Fragment, None).expect("parse");
    let table = probe_table(&parsed);
    let out = instrument(
        &parsed,
        &Request {
            mode: Mode::HitTestNanInf(Vec::new()),
            target: Target::CORE,
            binding: 7,
        },
    )
    .expect("instrument");
    assert_eq!(out.probes.render(), table.render());
    let draw = |frag: &str, buffer: Option<Vec<u8>>| {
        let program = gl
            .compile_program(&[(GlStage::Vertex, VERT), (GlStage::Fragment, frag)])
            .unwrap_or_else(|e| panic!("{e}\n{frag}"));
        let buf = buffer.map(|b| gl.create_storage_buffer(7, &b).expect("buffer"));
        gl.draw_fullscreen(&program).expect("draw");
        let pixels = gl.read_pixels().expect("pixels");
        let words = buf
            .map(|b| layout::to_words(&gl.read_storage_buffer(&b).expect("read")))
            .unwrap_or_default();
        gl.delete_program(program).expect("delete");
        (pixels, words)
    };
    let (original, _) = draw(FRAG, None);
    let (pixels, words) = draw(&out.glsl, Some(layout::new_hit_buffer(256)));
    assert_eq!(pixels, original, "the image changed");
    let (hits, lost) = layout::read_hits(&words);
    assert!(!lost);
    let mut got: Vec<(u32, u32, u32)> = hits
        .iter()
        .map(|h| {
            assert_eq!(h.tag(), layout::HIT_TAG_NAN_INF);
            let line = table.probes[h.probe as usize - 1].line;
            (h.key[0], line, h.occurrence)
        })
        .collect();
    got.sort_unstable();
    // The `while` condition runs twice at x == 9 (one hit per check).
    got.dedup();
    assert_eq!(got, vec![(3, 5, 0), (9, 7, 0), (20, 10, 0)], "{}", out.glsl);
    for (x, line) in [(3, 5), (9, 7), (20, 10)] {
        let h = hits.iter().find(|h| h.key[0] == x).unwrap();
        assert_eq!(
            h.probe,
            table.step_for_line(line).unwrap().id,
            "x = {x}: the hit names the statement's step"
        );
    }
}
