//! What the tests share: the shaders, instrumenting a WGSL source, and for
//! the GPU tests a headless GL context of `W` x `H` on Mesa llvmpipe that
//! renders, draws and reads buffers back, and `spirv-val` over naga's SPIR-V.

// Each test binary uses its own part of this module.
#![allow(dead_code)]

use shaderdbg_core::decode::InvocationTrace;
use shaderdbg_core::layout;
use shaderdbg_core::probes::ProbeTable;
use shaderdbg_gl_headless::{ContextKind, Headless, Stage as GlStage};
use shaderdbg_wgsl::emit::{to_glsl, to_spirv};
use shaderdbg_wgsl::{
    instrument, parse, probe_table, InstrumentError, Instrumented, Mode, Request,
};

pub const W: u32 = 24;
pub const H: u32 = 16;

/// The vertex shader drawn under every fragment shader.
pub const VERT: &str = "#version 430 core\nlayout(location = 0) in vec2 pos;\nvoid main() { gl_Position = vec4(pos, 0.0, 1.0); }\n";

/// A vertex shader without `vertex_index`/`instance_index`: instrumenting
/// adds them to select the vertex. gl-headless draws one full-screen
/// triangle with it.
pub const VERTEX: &str = r#"
struct Out {
    @builtin(position) pos: vec4<f32>,
    @location(0) uv: vec2<f32>,
}

@vertex
fn vs(@location(0) p: vec2<f32>) -> Out {
    var o: Out;
    let q = p * 0.5 + vec2<f32>(0.5);
    o.pos = vec4<f32>(p, 0.0, 1.0);
    o.uv = q;
    return o;
}
"#;

/// The fragment shader drawn with `VERTEX` (naga gives the varying an
/// explicit location).
const UV_FRAG: &str = "#version 430 core\nlayout(location = 0) smooth in vec2 uv;\nout vec4 c;\nvoid main() { c = vec4(uv, 0.0, 1.0); }\n";

/// A compute shader without `global_invocation_id`: instrumenting adds it
/// to select the invocation; the shader's own results are unchanged.
pub const COMPUTE: &str = r#"
@group(0) @binding(0) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(4, 2)
fn cs(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wg: vec3<u32>) {
    let i = wg.x * 4u + lid.x + 8u * lid.y;
    var acc = 0u;
    for (var k = 0u; k <= i; k++) {
        acc += k;
    }
    out[i] = acc;
}
"#;

/// The 1-based line of the first line of `src` containing `needle`.
pub fn line_of(src: &str, needle: &str) -> u32 {
    src.lines()
        .position(|l| l.contains(needle))
        .map(|i| i as u32 + 1)
        .unwrap_or_else(|| panic!("no line with {needle}"))
}

/// `src`'s entry point `entry` instrumented in `mode`, its debug buffer at
/// `@group(group) @binding(binding)`.
pub fn instrument_src(
    src: &str,
    entry: &str,
    mode: Mode,
    group: u32,
    binding: u32,
) -> Result<Instrumented, InstrumentError> {
    let parsed = parse(src).expect("parses");
    instrument(
        &parsed,
        &Request {
            entry_point: entry.to_string(),
            mode,
            group,
            binding,
            only: None,
        },
    )
}

/// The step at the first line of `src` containing `needle`, in the probe
/// table of entry point `entry`.
pub fn step_in(src: &str, entry: &str, needle: &str) -> u32 {
    let parsed = parse(src).expect("parses");
    let table = probe_table(&parsed, entry).expect("table");
    table
        .step_for_line(line_of(src, needle))
        .unwrap_or_else(|| panic!("no step at {needle}"))
        .id
}

pub fn glsl(inst: &Instrumented) -> String {
    to_glsl(inst, &Default::default()).expect("GLSL")
}

/// The names of the functions on the call stack at step `k`, innermost first.
pub fn call_stack_names<'t>(
    inv: &InvocationTrace,
    table: &'t ProbeTable,
    k: usize,
) -> Vec<&'t str> {
    inv.call_stack(k)
        .iter()
        .map(|(f, _)| f.map_or("?", |f| table.functions[f].name.as_str()))
        .collect()
}

pub struct Gpu {
    pub gl: Headless,
}

impl Gpu {
    pub fn new() -> Gpu {
        Gpu {
            gl: Headless::new(ContextKind::Core45, W, H).expect("headless context"),
        }
    }

    /// Fragment shader `frag` drawn over the image, with the storage buffer
    /// `buffer` (binding, contents): pixels and the buffer's words.
    pub fn render(&self, frag: &str, buffer: Option<(u32, &[u8])>) -> (Vec<u8>, Vec<u32>) {
        self.gl
            .render(VERT, frag, buffer)
            .unwrap_or_else(|e| panic!("{e}\n{frag}"))
    }

    /// Vertex shader `vert` (`VERTEX` instrumented) drawn with `UV_FRAG`, with
    /// the storage buffer `buffer` (binding, contents): pixels and the
    /// buffer's words.
    pub fn draw_vertex(&self, vert: &str, buffer: Option<(u32, Vec<u8>)>) -> (Vec<u8>, Vec<u32>) {
        let program = self
            .gl
            .compile_program(&[(GlStage::Vertex, vert), (GlStage::Fragment, UV_FRAG)])
            .unwrap_or_else(|e| panic!("{e}\n{vert}"));
        let buf =
            buffer.map(|(binding, b)| self.gl.create_storage_buffer(binding, &b).expect("buffer"));
        self.gl.draw_fullscreen(&program).expect("draw");
        let pixels = self.gl.read_pixels().expect("pixels");
        let words = buf
            .as_ref()
            .map(|b| layout::to_words(&self.gl.read_storage_buffer(b).expect("read")))
            .unwrap_or_default();
        if let Some(b) = buf {
            self.gl.delete_storage_buffer(b).expect("delete");
        }
        self.gl.delete_program(program).expect("delete");
        (pixels, words)
    }
}

impl Gpu {
    /// `COMPUTE` instrumented (`inst`) dispatched as 2 x 1 x 1 work groups
    /// with its output at binding 0 and, with `debug`, the debug buffer
    /// (binding, contents): the output's and the debug buffer's words.
    pub fn dispatch_compute(
        &self,
        inst: &Instrumented,
        debug: Option<(u32, &[u8])>,
    ) -> (Vec<u32>, Vec<u32>) {
        let map = [(
            shaderdbg_wgsl::naga::ResourceBinding {
                group: 0,
                binding: 0,
            },
            0u8,
        )]
        .into_iter()
        .collect();
        let glsl = to_glsl(inst, &map).expect("GLSL");
        let program = self
            .gl
            .compile_program(&[(GlStage::Compute, &glsl)])
            .unwrap_or_else(|e| panic!("{e}\n{glsl}"));
        let out = self.gl.create_storage_buffer(0, &[0u8; 64]).expect("ssbo");
        let log =
            debug.map(|(binding, b)| self.gl.create_storage_buffer(binding, b).expect("debug"));
        self.gl
            .dispatch_compute(&program, 2, 1, 1)
            .expect("dispatch");
        let words = |b| layout::to_words(&self.gl.read_storage_buffer(b).expect("read"));
        let result = (words(&out), log.as_ref().map(words).unwrap_or_default());
        self.gl.delete_storage_buffer(out).expect("delete");
        if let Some(l) = log {
            self.gl.delete_storage_buffer(l).expect("delete");
        }
        self.gl.delete_program(program).expect("delete");
        result
    }
}

/// Every case's module through naga's SPIR-V back end and the Khronos
/// validator, in a temporary folder named after `tag`.
pub fn assert_spirv_valid(tag: &str, cases: &[(&str, Instrumented)]) {
    let dir = std::env::temp_dir().join(format!("shaderdbg-wgsl-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    for (name, inst) in cases {
        let words = to_spirv(inst, &Default::default()).unwrap_or_else(|e| panic!("{name}: {e}"));
        let path = dir.join(format!("{name}.spv"));
        std::fs::write(&path, layout::to_bytes(&words)).expect("write");
        let out = std::process::Command::new("spirv-val")
            .arg(&path)
            .output()
            .expect("spirv-val (spirv-tools, installed with glslang-tools by `cargo xtask setup`)");
        assert!(
            out.status.success(),
            "{name}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}
