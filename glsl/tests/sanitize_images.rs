//! Image bounds under the sanitizer (`Checks::out_of_bounds`), on
//! llvmpipe: `imageStore`, `imageLoad`, `imageAtomic*` and `texelFetch`
//! (its level too) outside the image are reported at their line with the
//! access, the coordinate and the image's size; the fixed twins report
//! nothing; and every run, buggy or not, leaves the image and the output
//! as the unsanitized kernel does (the access runs as OpenGL defines an
//! invalid one: a store or atomic has no effect, a load reads zeros).

use shaderdbg_core::decode::{ImageOp, SanitizerKind, SanitizerReport};
use shaderdbg_core::layout;
use shaderdbg_core::Invocation;
use shaderdbg_gl_headless::glow::{self, HasContext};
use shaderdbg_gl_headless::{ContextKind, Headless, Stage as GlStage};
use shaderdbg_glsl::instrument::{instrument, probe_table, Checks, Mode, Request, Target};
use shaderdbg_glsl::parse::parse;
use shaderdbg_glsl::Stage;

mod common;

use common::sanitize::{compute, read_reports, report_buffer, BINDING, OOB};

const DST_BINDING: u32 = 1;
/// The image (and texture) is `SIZE` x `SIZE` texels of `r32ui`.
const SIZE: i32 = 4;

/// What a dispatch left: the image's texels, the output buffer, and
/// (sanitizing) the reports.
struct Outcome {
    texels: Vec<u32>,
    dst: Vec<u32>,
    reports: Vec<SanitizerReport>,
}

/// Runs `comp` (8 x 8 invocations in one work group) with a `SIZE` x
/// `SIZE` `r32ui` texture holding `100 + y * SIZE + x` bound both as image
/// unit 0 and as texture unit 0, and a zeroed `uint dst[64]` at binding 1.
fn dispatch(kind: ContextKind, comp: &str, checks: Option<Checks>) -> Outcome {
    let (gl, out, program) = compute(kind, comp, checks);
    let texels: Vec<u32> = (0..SIZE * SIZE).map(|i| 100 + i as u32).collect();
    let raw = gl.gl();
    // SAFETY: the context is current (`Headless::new`); the slice holds
    // SIZE * SIZE words.
    let tex = unsafe {
        let tex = raw.create_texture().expect("texture");
        raw.active_texture(glow::TEXTURE0);
        raw.bind_texture(glow::TEXTURE_2D, Some(tex));
        raw.tex_storage_2d(glow::TEXTURE_2D, 1, glow::R32UI, SIZE, SIZE);
        for p in [glow::TEXTURE_MIN_FILTER, glow::TEXTURE_MAG_FILTER] {
            raw.tex_parameter_i32(glow::TEXTURE_2D, p, glow::NEAREST as i32);
        }
        raw.tex_sub_image_2d(
            glow::TEXTURE_2D,
            0,
            0,
            0,
            SIZE,
            SIZE,
            glow::RED_INTEGER,
            glow::UNSIGNED_INT,
            glow::PixelUnpackData::Slice(Some(&layout::to_bytes(&texels))),
        );
        raw.bind_image_texture(0, Some(tex), 0, false, 0, glow::READ_WRITE, glow::R32UI);
        tex
    };
    let dst_buf = gl
        .create_storage_buffer(DST_BINDING, &[0u8; 64 * 4])
        .expect("ssbo");
    let report_buf = report_buffer(&gl, &out, 16);
    gl.dispatch_compute(&program, 1, 1, 1).expect("dispatch");
    let texels = if kind == ContextKind::Gles32 {
        Vec::new()
    } else {
        let mut bytes = vec![0u8; (SIZE * SIZE * 4) as usize];
        // SAFETY: current context; `bytes` holds the level's texels.
        unsafe {
            raw.get_tex_image(
                glow::TEXTURE_2D,
                0,
                glow::RED_INTEGER,
                glow::UNSIGNED_INT,
                glow::PixelPackData::Slice(Some(&mut bytes)),
            );
        }
        layout::to_words(&bytes)
    };
    let dst = layout::to_words(&gl.read_storage_buffer(&dst_buf).expect("read"));
    let (reports, lost) = read_reports(&gl, &report_buf, &out);
    assert!(!lost);
    for b in [dst_buf, report_buf] {
        gl.delete_storage_buffer(b).expect("delete");
    }
    // SAFETY: current context; the texture is ours.
    unsafe { raw.delete_texture(tex) };
    Outcome {
        texels,
        dst,
        reports,
    }
}

/// The sanitized run of a kernel: its reports, after checking it left
/// the image and the output as the unsanitized run does.
fn reports(kind: ContextKind, comp: &str) -> Vec<SanitizerReport> {
    let plain = dispatch(kind, comp, None);
    let checked = dispatch(kind, comp, Some(OOB));
    assert_eq!(checked.texels, plain.texels, "the image changed");
    assert_eq!(checked.dst, plain.dst, "the output changed");
    checked.reports
}

fn line_of(src: &str, needle: &str) -> u32 {
    src.lines()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("`{needle}` not in the shader")) as u32
        + 1
}

/// The declaration of `name` in `src`'s probe table.
fn decl_of(src: &str, name: &str) -> usize {
    let parsed = parse(&[src], Stage::Compute, None).expect("parses");
    let table = probe_table(&parsed);
    table
        .vars
        .iter()
        .position(|v| v.name == name)
        .expect("declared")
}

fn compute_id(r: &SanitizerReport) -> [u32; 3] {
    match r.invocation {
        Invocation::Compute { id } => id,
        other => panic!("{other}"),
    }
}

const STORE: &str = "#version 430
layout(local_size_x = 8, local_size_y = 8) in;
layout(r32ui, binding = 0) uniform uimage2D img;
void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (p.y < 4)
        imageStore(img, p, uvec4(uint(p.x + 10 * p.y)));
}
";

#[test]
fn an_image_store_outside_the_image_is_reported_at_its_line() {
    let r = &one_report_at(STORE, "imageStore");
    let id = compute_id(r);
    let SanitizerKind::ImageOob {
        image,
        op,
        dims,
        coord,
        size,
        lod,
    } = r.kind
    else {
        panic!("{r:?}")
    };
    assert_eq!(
        (image, op, dims, size, lod),
        (
            Some(decl_of(STORE, "img")),
            ImageOp::Store,
            2,
            [4, 4, 0],
            false
        )
    );
    // The report's invocation is the one whose coordinate it names.
    assert_eq!([coord[0], coord[1]], [id[0] as i32, id[1] as i32]);
    assert!(coord[0] >= SIZE && coord[1] < SIZE, "{coord:?}");

    let fixed = STORE.replace("p.y < 4", "all(lessThan(p, imageSize(img)))");
    assert_eq!(core_reports(&fixed), []);
}

/// [`reports`] in a core context.
fn core_reports(comp: &str) -> Vec<SanitizerReport> {
    reports(ContextKind::Core45, comp)
}

/// The one report of `comp` in a core context, checked to be at the line
/// containing `needle`.
#[track_caller]
fn one_report_at(comp: &str, needle: &str) -> SanitizerReport {
    let reports = core_reports(comp);
    assert_eq!(reports.len(), 1, "{reports:?}");
    let r = reports.into_iter().next().expect("one report");
    assert_eq!(r.line, line_of(comp, needle));
    r
}

const LOAD: &str = "#version 430
layout(local_size_x = 8, local_size_y = 8) in;
layout(r32ui, binding = 0) uniform readonly uimage2D img;
layout(std430, binding = 1) buffer Dst { uint dst[64]; };
void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    uint i = gl_LocalInvocationIndex;
    if (p.x < 4 && p.y < 4)
        dst[i] = imageLoad(img, p - ivec2(1, 0)).x;
}
";

#[test]
fn an_image_load_at_a_negative_coordinate_is_reported() {
    let r = &one_report_at(LOAD, "imageLoad");
    assert!(
        matches!(
            r.kind,
            SanitizerKind::ImageOob {
                op: ImageOp::Load,
                coord: [-1, _, _],
                size: [4, 4, 0],
                ..
            }
        ),
        "{r:?}"
    );
    assert_eq!(compute_id(r)[0], 0);
    let fixed = LOAD.replace("p.x < 4", "p.x >= 1 && p.x < 4");
    assert_eq!(core_reports(&fixed), []);
}

const ATOMIC: &str = "#version 430
layout(local_size_x = 8, local_size_y = 8) in;
layout(r32ui, binding = 0) uniform uimage2D img;
layout(std430, binding = 1) buffer Dst { uint dst[64]; };
void main() {
    uint i = gl_LocalInvocationIndex;
    int k = int(i % 8u);
    if (i < 8u)
        dst[i] = imageAtomicAdd(img, ivec2(k, 0), 1u) >= 100u ? 1u : 0u;
}
";

#[test]
fn an_image_atomic_outside_the_image_is_reported() {
    let r = &one_report_at(ATOMIC, "imageAtomicAdd");
    let SanitizerKind::ImageOob { op, coord, .. } = r.kind else {
        panic!("{r:?}")
    };
    assert_eq!(op, ImageOp::Atomic);
    assert!((SIZE..8).contains(&coord[0]), "{coord:?}");
    let fixed = ATOMIC.replace("i < 8u", "i < 4u");
    assert_eq!(core_reports(&fixed), []);
}

const FETCH: &str = "#version 430
layout(local_size_x = 8, local_size_y = 8) in;
layout(binding = 0) uniform usampler2D tex;
layout(std430, binding = 1) buffer Dst { uint dst[64]; };
uniform int level;
void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    uint i = gl_LocalInvocationIndex;
    dst[i] = texelFetch(tex, p, 0).x;
    if (i == 0u)
        dst[i] = texelFetch(tex, ivec2(0), level + 1).x;
}
";

#[test]
fn texel_fetches_outside_the_texture_or_its_levels_are_reported() {
    let reports = core_reports(FETCH);
    assert_eq!(reports.len(), 2, "{reports:?}");
    let (coord, level) = (&reports[0], &reports[1]);
    assert_eq!(coord.line, line_of(FETCH, "tex, p, 0"));
    let SanitizerKind::ImageOob {
        op,
        coord: c,
        size,
        lod,
        ..
    } = coord.kind
    else {
        panic!("{coord:?}")
    };
    assert_eq!((op, size, lod), (ImageOp::Fetch, [4, 4, 0], false));
    assert!(c[0] >= SIZE || c[1] >= SIZE, "{c:?}");
    assert_eq!(level.line, line_of(FETCH, "level + 1"));
    assert!(
        matches!(
            level.kind,
            SanitizerKind::ImageOob {
                op: ImageOp::Fetch,
                lod: true,
                coord: [1, _, _],
                size: [1, _, _],
                ..
            }
        ),
        "{level:?}"
    );
    let fixed = FETCH
        .replace("tex, p, 0", "tex, min(p, textureSize(tex, 0) - 1), 0")
        .replace("level + 1", "level");
    assert_eq!(core_reports(&fixed), []);
}

/// GLSL ES 3.10: the helpers carry precision qualifiers where ES wants
/// them (and nowhere it forbids them).
#[test]
fn image_bounds_are_checked_in_glsl_es() {
    let es = STORE
        .replace("#version 430", "#version 310 es")
        .replace("uniform uimage2D", "uniform highp writeonly uimage2D");
    let r = dispatch(ContextKind::Gles32, &es, Some(OOB)).reports;
    assert!(
        matches!(
            r.as_slice(),
            [SanitizerReport {
                kind: SanitizerKind::ImageOob {
                    op: ImageOp::Store,
                    ..
                },
                ..
            }]
        ),
        "{r:?}"
    );
}

/// Every kind of image and texel fetch the check knows compiles checked
/// (cube coordinates count faces, cube arrays layer-faces), and each
/// access gets its check.
#[test]
fn every_image_dimensionality_compiles_checked() {
    let comp = "#version 430
layout(local_size_x = 1) in;
layout(r32f, binding = 0) uniform image1D i1;
layout(r32f, binding = 1) uniform image3D i3;
layout(r32f, binding = 2) uniform imageCube ic;
layout(r32f, binding = 3) uniform imageCubeArray ica;
layout(r32f, binding = 4) uniform imageBuffer ib;
layout(r32f, binding = 5) uniform image2DArray i2a;
layout(r32f, binding = 6) uniform image1DArray i1a;
uniform sampler1D s1;
uniform sampler3D s3;
uniform samplerBuffer sb;
uniform sampler2DRect sr;
uniform sampler2DMS sms;
uniform sampler2DArray s2a;
uniform int k;
layout(std430, binding = 1) buffer Dst { vec4 dst[]; };
void main() {
    imageStore(i1, k, vec4(1.0));
    imageStore(i3, ivec3(k), vec4(1.0));
    imageStore(ic, ivec3(k), vec4(1.0));
    imageStore(ica, ivec3(k), vec4(1.0));
    imageStore(ib, k, vec4(1.0));
    imageStore(i2a, ivec3(k), vec4(1.0));
    imageStore(i1a, ivec2(k), vec4(1.0));
    dst[0] = texelFetch(s1, k, k) + texelFetch(s3, ivec3(k), 0) + texelFetch(sb, k)
        + texelFetch(sr, ivec2(k)) + texelFetch(sms, ivec2(k), 0) + texelFetch(s2a, ivec3(k), 0);
}
";
    let parsed = parse(&[comp], Stage::Compute, None).expect("parses");
    let req = Request {
        mode: Mode::Sanitize(OOB),
        target: Target::CORE,
        binding: BINDING,
    };
    let out = instrument(&parsed, &req).expect("instruments");
    let main = &out.glsl[out.glsl.find("void main()").expect("main")..];
    // The fetches are checked once: their statement's write to `dst` is
    // bounds-checked, the right-hand side computed before the check's `if`.
    assert_eq!(main.matches("_sdbg_ic(").count(), 7 + 3, "{main}");
    assert_eq!(main.matches("_sdbg_tc(").count(), 3, "{main}");
    assert!(main.contains("ivec3(imageSize(ic), 6)"), "{main}");
    assert!(main.contains("imageSize(ica) * ivec3(1, 1, 6)"), "{main}");
    let gl = Headless::new(ContextKind::Core45, 4, 4).expect("context");
    gl.compile_program(&[(GlStage::Compute, &out.glsl)])
        .unwrap_or_else(|e| panic!("{e}\n{}", out.glsl));
}
