//! Uninitialized reads of locals under the sanitizer
//! (`Checks::uninit_shared`, every stage), on llvmpipe: a local declared
//! without an initializer (or an `out` parameter) read before anything
//! wrote the part read, on the path the invocation took, is reported at
//! the reading line with the variable and the part (component, column,
//! element, field); the fixed twins report nothing and compute what they
//! compute unsanitized.

use shaderdbg_core::decode::{decode_sanitizer, SanitizerKind, SanitizerReport};
use shaderdbg_core::layout;
use shaderdbg_core::Invocation;
use shaderdbg_gl_headless::{ContextKind, Headless};
use shaderdbg_glsl::instrument::{Checks, Target};
use shaderdbg_glsl::Stage;

mod common;

use common::sanitize::{compute, instrumented, read_reports, report_buffer, BINDING, UNINIT};

struct Outcome {
    dst: Vec<u32>,
    reports: Vec<SanitizerReport>,
    /// The probe table's variables' names, by declaration.
    names: Vec<String>,
}

/// Runs `comp` (one work group of 8) with a zeroed `float dst[8]` at
/// binding 1.
fn dispatch(comp: &str, checks: Option<Checks>) -> Outcome {
    let (gl, out, program) = compute(ContextKind::Core45, comp, checks);
    let dst_buf = gl.create_storage_buffer(1, &[0u8; 8 * 4]).expect("ssbo");
    let report_buf = report_buffer(&gl, &out, 16);
    gl.dispatch_compute(&program, 1, 1, 1).expect("dispatch");
    let dst = layout::to_words(&gl.read_storage_buffer(&dst_buf).expect("read"));
    let (reports, lost) = read_reports(&gl, &report_buf, &out);
    assert!(!lost);
    for b in [dst_buf, report_buf] {
        gl.delete_storage_buffer(b).expect("delete");
    }
    Outcome {
        dst,
        reports,
        names: out.probes.vars.iter().map(|v| v.name.clone()).collect(),
    }
}

/// (line, invocation x, variable, part) of each report of the sanitized
/// run of `comp`. Every output word the sanitized run wrote is the plain
/// run's where `same` says the kernel's result is defined there.
fn found(comp: &str, same: impl Fn(usize) -> bool) -> Vec<(u32, u32, String, u32)> {
    let plain = dispatch(comp, None);
    let checked = dispatch(comp, Some(UNINIT));
    for (i, (a, b)) in checked.dst.iter().zip(&plain.dst).enumerate() {
        if same(i) {
            assert_eq!(a, b, "dst[{i}] changed");
        }
    }
    checked
        .reports
        .iter()
        .map(|r| {
            let SanitizerKind::UninitRead { decl, element } = r.kind else {
                panic!("{r:?}")
            };
            let Invocation::Compute { id } = r.invocation else {
                panic!("{r:?}")
            };
            (r.line, id[0], checked.names[decl].clone(), element)
        })
        .collect()
}

fn line_of(src: &str, needle: &str) -> u32 {
    src.lines()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("`{needle}` not in the shader")) as u32
        + 1
}

macro_rules! kernel {
    ($body:literal) => {
        concat!(
            "#version 430\nlayout(local_size_x = 8) in;\n",
            "layout(std430, binding = 1) buffer Dst { float dst[8]; };\n",
            "void main() {\n    uint i = gl_LocalInvocationIndex;\n",
            $body,
            "}\n"
        )
    };
}

const PATH: &str = kernel!(
    "    float acc;
    if (i % 2u == 0u)
        acc = float(i);
    dst[i] = acc * 2.0;
"
);

/// Written on one branch only: the odd invocations read it unwritten.
#[test]
fn a_local_written_on_one_path_only_is_reported_where_it_is_read() {
    let got = found(PATH, |i| i % 2 == 0);
    let line = line_of(PATH, "acc * 2.0");
    assert_eq!(got.len(), 1, "{got:?}");
    let (l, x, name, part) = &got[0];
    assert_eq!((*l, name.as_str(), *part), (line, "acc", 0));
    assert_eq!(x % 2, 1, "an odd invocation");
    let fixed = PATH.replace("float acc;", "float acc = 0.0;");
    assert_eq!(found(&fixed, |_| true), []);
}

const PARTIAL: &str = kernel!(
    "    vec4 v;
    v.xz = vec2(1.0, float(i));
    if (i == 3u)
        dst[i] = v.y;
    else
        dst[i] = v.x + v.z;
"
);

/// A vector whose `.x` and `.z` were written and whose `.y` is read.
#[test]
fn a_component_never_written_is_reported_with_its_component() {
    let got = found(PARTIAL, |i| i != 3);
    assert_eq!(
        got,
        [(line_of(PARTIAL, "v.y"), 3, "v".to_string(), 1)],
        "{got:?}"
    );
    let fixed = PARTIAL.replace(
        "v.xz = vec2(1.0, float(i));",
        "v.xyz = vec3(1.0, 2.0, float(i));",
    );
    assert_eq!(found(&fixed, |_| true), []);
}

const ARRAY: &str = kernel!(
    "    float a[4];
    for (int k = 0; k < 3; k++)
        a[k] = float(k + 1);
    int j = int(i % 4u);
    dst[i] = a[j];
"
);

/// An array whose last element no iteration wrote, read at a dynamic
/// index.
#[test]
fn an_element_never_written_is_reported_with_its_index() {
    let got = found(ARRAY, |i| i % 4 != 3);
    assert_eq!(got.len(), 1, "{got:?}");
    let (l, x, name, part) = &got[0];
    assert_eq!((*l, name.as_str(), *part), (line_of(ARRAY, "a[j]"), "a", 3));
    assert_eq!(x % 4, 3);
    let fixed = ARRAY.replace("k < 3", "k < 4");
    assert_eq!(found(&fixed, |_| true), []);
}

const FIELDS: &str = "#version 430
layout(local_size_x = 8) in;
layout(std430, binding = 1) buffer Dst { float dst[8]; };
struct S { float a; float b; };
void fill(out S s, uint i) {
    s.a = float(i);
    if (i > 5u)
        s.b = s.a + s.b;
}
void main() {
    uint i = gl_LocalInvocationIndex;
    S s;
    fill(s, i);
    dst[i] = s.a;
}
";

/// An `out` parameter is undefined until the function writes it: a
/// field read before any write, in the callee; the caller's variable is
/// written by the call (all of it).
#[test]
fn an_out_parameter_read_before_it_is_written_is_reported() {
    let got = found(FIELDS, |i| i <= 5);
    assert_eq!(got.len(), 1, "{got:?}");
    let (l, x, name, part) = &got[0];
    assert_eq!(
        (*l, name.as_str(), *part),
        (line_of(FIELDS, "s.a + s.b"), "s", 1)
    );
    assert!(*x > 5);
    let fixed = FIELDS.replace("s.a + s.b", "s.a + 1.0");
    assert_eq!(found(&fixed, |_| true), []);
}

/// Writes in every form mark what they write: compound assignment after
/// a write, `++`, swizzles, matrices by column, nested assignments,
/// `out` arguments of built-ins, whole-struct assignment, locals in loops
/// (declared again each iteration).
#[test]
fn every_form_of_write_counts_and_nothing_is_reported_of_correct_code() {
    let src = kernel!(
        "    float f;
    f = 1.0;
    f += 2.0;
    int n;
    n = 0;
    n++;
    vec3 v;
    v.x = 1.0; v.yz = vec2(2.0);
    mat2 m;
    m[0] = vec2(1.0); m[1].x = 2.0; m[1].y = 3.0;
    float w;
    float y = (w = 4.0) + w;
    float ip;
    float fr = modf(3.5, ip);
    struct T { float p; vec2 q; };
    T t;
    t = T(1.0, vec2(2.0));
    float sum = 0.0;
    for (int k = 0; k < 3; k++) {
        float tmp;
        tmp = float(k);
        sum += tmp;
    }
    uint u[2];
    u[i % 2u] = 1u;
    u[1u - i % 2u] = 2u;
    dst[i] = f + float(n) + v.x + v.y + v.z + m[0].x + m[1].y + y + ip + fr + t.p + t.q.y + sum + float(u[0] + u[1]);
"
    );
    assert_eq!(found(src, |_| true), []);
}

/// Fragment shaders (every stage) are checked too.
#[test]
fn a_fragment_shader_reading_a_local_it_did_not_write_is_reported() {
    let frag = "#version 430
out vec4 color;
void main() {
    vec4 c;
    if (gl_FragCoord.x < 2.0)
        c = vec4(1.0);
    color = c;
}
";
    let vert = "#version 430\nin vec2 pos;\nvoid main() { gl_Position = vec4(pos, 0.0, 1.0); }\n";
    let out = instrumented(frag, Stage::Fragment, Some(UNINIT), Target::CORE);
    let gl = Headless::new(ContextKind::Core45, 4, 4).expect("context");
    let buffer = layout::new_sanitize_buffer(16, out.probes.probes.len());
    let (_, words) = gl
        .render(vert, &out.glsl, Some((BINDING, &buffer)))
        .unwrap_or_else(|e| panic!("{e}\n{}", out.glsl));
    let (reports, _) = decode_sanitizer(&words, &out.probes);
    assert_eq!(reports.len(), 1, "{reports:?}");
    let r = &reports[0];
    assert_eq!(r.line, line_of(frag, "color = c"));
    let Invocation::Fragment { x, .. } = r.invocation else {
        panic!("{r:?}")
    };
    assert!(x >= 2, "{r:?}");
}

/// `a[g] = next()` where `next` moves the global `g` on: the write is to
/// `a[0]`, and marking "the element at `g`" after the statement marked
/// `a[1]`, so reading `a[0]` was reported though written. A statement
/// that may write anything besides its target marks the whole variable.
#[test]
fn an_index_the_statement_changes_never_makes_a_false_report() {
    let src = "#version 430
layout(local_size_x = 8) in;
layout(std430, binding = 1) buffer Dst { float dst[8]; };
int g = 0;
float next() {
    g = g + 1;
    return 2.0;
}
void main() {
    uint i = gl_LocalInvocationIndex;
    float a[4];
    a[g] = next();
    float b[2];
    int k = 0;
    float m = modf(1.5, b[k]);
    dst[i] = a[0] + b[0] + m;
}
";
    assert_eq!(found(src, |_| true), []);
}
