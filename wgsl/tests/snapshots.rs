//! Snapshots: probe tables of small shaders (rendered by the core), and one
//! instrumented module as WGSL. Every instrumented module here has passed
//! naga's validator (`instrument` validates what it returns).

mod common;

use common::instrument_src;
use expect_test::{expect, Expect};
use shaderdbg_core::Invocation;
use shaderdbg_wgsl::emit::{to_glsl, to_wgsl};
use shaderdbg_wgsl::{parse, probe_table, Instrumented, Mode};

fn record(src: &str, entry: &str, sel: Invocation) -> Instrumented {
    instrument_src(src, entry, Mode::Record(sel), 1, 3).unwrap_or_else(|e| panic!("{e}"))
}

fn check_table(src: &str, entry: &str, sel: Invocation, expect: Expect) {
    let parsed = parse(src).unwrap_or_else(|e| panic!("{e}"));
    let table = probe_table(&parsed, entry).unwrap_or_else(|e| panic!("{e}"));
    // Same ids in every mode, and the recording emits as GLSL too.
    let inst = record(src, entry, sel);
    assert_eq!(inst.probes, table);
    to_glsl(&inst, &Default::default()).unwrap_or_else(|e| panic!("{e}"));
    // expect! strips common indentation, and ids are right-aligned.
    let text: String = table
        .render()
        .lines()
        .map(|l| format!("{}\n", l.trim_start()))
        .collect();
    expect.assert_eq(&text);
}

#[test]
fn lets_vars_and_branches() {
    check_table(
        r#"
@fragment
fn main(@builtin(position) pos: vec4<f32>) -> @location(0) vec4<f32> {
    let x = pos.x * 2.0;
    var c = vec3<f32>(0.0);
    if x > 4.0 {
        c.y = 1.0;
    } else {
        c = vec3<f32>(x);
    }
    return vec4<f32>(c, 1.0);
}
"#,
        "main",
        Invocation::fragment(1, 2),
        expect![[r#"
            1 line   3 main: invocationstart : uvec4
            2 line   3 main: functionentry
            3 line   3 main: input pos : vec4
            4 line   5 main: write c : vec3
            5 line   4 main: statement
            6 line   4 main: write x : float
            7 line   5 main: statement
            8 line   6 main: statement
            9 line   6 main: condition : bool
            10 line   7 main: statement
            11 line   7 main: write c[1] : float
            12 line   9 main: statement
            13 line   9 main: write c : vec3
            14 line  11 main: statement
            15 line  11 main: functionreturn : vec4
        "#]],
    );
}

#[test]
fn declarations_without_statements() {
    // naga hoists constant initialisers and has no statement for a `let` of
    // a constant: they get steps where they are written; `u` has nothing
    // after it in its block and gets none.
    check_table(
        r#"
@fragment
fn main(@builtin(position) pos: vec4<f32>) -> @location(0) vec4<f32> {
    var a = 1.0;
    let k = 3.0;
    if pos.x > 2.0 {
        var t = 2.0;
        a = t * k;
    }
    if pos.y > 2.0 {
        var u = 5.0;
    }
    a += 1.0;
    return vec4<f32>(a);
}
"#,
        "main",
        Invocation::fragment(1, 2),
        expect![[r#"
            1 line   3 main: invocationstart : uvec4
            2 line   3 main: functionentry
            3 line   3 main: input pos : vec4
            4 line   4 main: write a : float
            5 line   7 main: write t : float
            6 line  11 main: write u : float
            7 line   5 main: write k : float
            8 line   4 main: statement
            9 line   5 main: statement
            10 line   6 main: statement
            11 line   6 main: condition : bool
            12 line   7 main: statement
            13 line   8 main: statement
            14 line   8 main: write a : float
            15 line  10 main: statement
            16 line  10 main: condition : bool
            17 line  13 main: statement
            18 line  13 main: write a : float
            19 line  14 main: statement
            20 line  14 main: functionreturn : vec4
        "#]],
    );
}

#[test]
fn loops() {
    check_table(
        r#"
@fragment
fn main(@location(0) uv: vec2<f32>) -> @location(0) vec4<f32> {
    var k = 0;
    while k < 3 {
        k += 1;
    }
    loop {
        k -= 1;
        continuing {
            break if k <= 0;
        }
    }
    return vec4<f32>(f32(k));
}
"#,
        "main",
        Invocation::fragment(0, 0),
        expect![[r#"
            1 line   3 main: invocationstart : uvec4
            2 line   3 main: functionentry
            3 line   3 main: input uv : vec2
            4 line   4 main: write k : int
            5 line   4 main: statement
            6 line   5 main: statement
            7 line   5 main: loopiteration
            8 line   5 main: statement
            9 line   5 main: condition : bool
            10 line   5 main: statement
            11 line   6 main: statement
            12 line   6 main: write k : int
            13 line   8 main: statement
            14 line   8 main: loopiteration
            15 line   9 main: statement
            16 line   9 main: write k : int
            17 line  11 main: statement
            18 line  11 main: condition : bool
            19 line  14 main: statement
            20 line  14 main: functionreturn : vec4
        "#]],
    );
}

#[test]
fn calls_pointers_uniforms_and_globals() {
    check_table(
        r#"
struct Params { scale: f32, offset: vec2<f32> }
@group(0) @binding(0) var<uniform> params: Params;
var<private> counter: u32;

fn bump(v: ptr<function, mat2x2<f32>>) {
    (*v)[1] = vec2<f32>(params.scale);
    counter += 1u;
}

@fragment
fn main(@builtin(position) pos: vec4<f32>) -> @location(0) vec4<f32> {
    var m = mat2x2<f32>(1.0, 0.0, 0.0, 1.0);
    bump(&m);
    let v = m * (pos.xy + params.offset);
    return vec4<f32>(v, f32(counter), 1.0);
}
"#,
        "main",
        Invocation::fragment(0, 0),
        expect![[r#"
            1 line   6 bump: functionentry
            2 line   6 bump: write v : mat2
            3 line   7 bump: statement
            4 line   7 bump: write v[1] : vec2
            5 line   8 bump: statement
            6 line   8 bump: write counter : uint
            7 line   8 bump: functionreturn
            8 line  12 main: invocationstart : uvec4
            9 line  12 main: functionentry
            10 line  12 main: input pos : vec4
            11 line  12 main: input params : Params
            12 line  12 main: input counter : uint
            13 line  13 main: write m : mat2
            14 line  13 main: statement
            15 line  14 main: statement
            16 line  14 main: write m : mat2
            17 line  15 main: statement
            18 line  15 main: write v : vec2
            19 line  16 main: statement
            20 line  16 main: functionreturn : vec4
        "#]],
    );
}

#[test]
fn vertex_and_compute_entry_points() {
    let src = r#"
@group(0) @binding(0) var<storage, read_write> out: array<u32>;

@vertex
fn vs(@location(0) p: vec2<f32>) -> @builtin(position) vec4<f32> {
    let q = p * 0.5;
    return vec4<f32>(q, 0.0, 1.0);
}

@compute @workgroup_size(4)
fn cs(@builtin(local_invocation_id) lid: vec3<u32>) {
    out[lid.x] = lid.x * 2u;
}
"#;
    let vs = record(
        src,
        "vs",
        Invocation::Vertex {
            vertex: 2,
            instance: 0,
        },
    );
    let cs = record(src, "cs", Invocation::Compute { id: [3, 0, 0] });
    let texts: Vec<String> = [&vs, &cs]
        .iter()
        .map(|i| {
            let glsl = to_glsl(i, &Default::default()).unwrap_or_else(|e| panic!("{e}"));
            // Just the selection: the built-ins the shader lacked were added.
            glsl.lines()
                .filter(|l| l.contains("_sdbg_begin(") && !l.contains("void"))
                .map(str::trim)
                .collect::<Vec<_>>()
                .join("\n")
        })
        .collect();
    expect![[r#"
        _sdbg_begin(1u, ((_sdbg_vertex_index == 2u) && (_sdbg_instance_index == 0u)), _sdbg_vertex_index, _sdbg_instance_index, 0u);
        _sdbg_begin(1u, (((_sdbg_global_id.x == 3u) && (_sdbg_global_id.y == 0u)) && (_sdbg_global_id.z == 0u)), _sdbg_global_id.x, _sdbg_global_id.y, _sdbg_global_id.z);"#]]
    .assert_eq(&texts.join("\n"));
    let err =
        instrument_src(src, "vs", Mode::Record(Invocation::fragment(0, 0)), 0, 1).unwrap_err();
    assert_eq!(
        err.to_string(),
        "cannot select a fragment invocation in a vertex shader"
    );
    let sel = Invocation::Compute { id: [0; 3] };
    let err = instrument_src(src, "cs", Mode::Record(sel), 0, 0).unwrap_err();
    assert_eq!(
        err.to_string(),
        "@group(0) @binding(0) is the shader's own; the debug buffer needs a free one"
    );
}

#[test]
fn instrumented_wgsl() {
    let inst = record(
        r#"
@fragment
fn main() -> @location(0) vec4<f32> {
    var c = 0.5;
    c *= 2.0;
    return vec4<f32>(c);
}
"#,
        "main",
        Invocation::fragment(3, 4),
    );
    let wgsl = to_wgsl(&inst).unwrap_or_else(|e| panic!("{e}"));
    // The runtime's helpers first, then the shader; the shader's part is
    // what this snapshot is about.
    let shader = &wgsl[wgsl.find("@fragment").expect("entry point")..];
    expect![[r#"
        @fragment 
        fn main(@builtin(position) _sdbg_position: vec4<f32>) -> @location(0) vec4<f32> {
            var c: f32 = 0.5f;

            let _e9 = u32(_sdbg_position.x);
            let _e11 = u32(_sdbg_position.y);
            _sdbg_begin(1u, ((_e9 == 3u) && (_e11 == 4u)), _e9, _e11, 4294967295u);
            _sdbg_step(2u);
            let _e21 = c;
            _sdbg_w0_(3u, _e21);
            _sdbg_step(4u);
            _sdbg_step(5u);
            let _e2 = c;
            let _e4 = (_e2 * 2f);
            c = _e4;
            _sdbg_w0_(6u, _e4);
            _sdbg_step(7u);
            let _e5 = c;
            let _e6 = vec4(_e5);
            _sdbg_w1_(8u, _e6);
            return _e6;
        }
    "#]]
    .assert_eq(shader);
    // The output is WGSL naga reads back.
    parse(&wgsl).unwrap_or_else(|e| panic!("{e}\n{wgsl}"));
}

#[test]
fn locals_in_scope_per_step() {
    let src = r#"
fn f(a: f32) -> f32 {
    var s = a;
    for (var i = 0; i < 2; i++) {
        let t = s * 2.0;
        s = t;
    }
    return s;
}

fn g() -> i32 {
    var n = 0;
    loop {
        let m = n + 1;
        n = m;
        continuing {
            break if m > 2;
        }
    }
    return n;
}

@fragment
fn main(@builtin(position) pos: vec4<f32>) -> @location(0) vec4<f32> {
    let x = f(pos.x);
    if x > 1.0 {
        var u = x;
        u += 1.0;
    }
    return vec4<f32>(x);
}
"#;
    let table = probe_table(&parse(src).unwrap(), "main").unwrap();
    let text: String = table
        .probes
        .iter()
        .filter(|p| p.is_step())
        .map(|p| {
            let names: Vec<&str> = p
                .locals
                .iter()
                .map(|&d| table.vars[d].name.as_str())
                .collect();
            format!("line {:>2}: {}\n", p.line, names.join(" "))
        })
        .collect();
    expect![[r#"
        line  3: a
        line  4: a s
        line  4: a s i
        line  4: a s i
        line  5: a s i
        line  6: a s i t
        line  4: a s i
        line  8: a s
        line 12: 
        line 13: n
        line 14: n
        line 15: n m
        line 17: n m
        line 20: n
        line 25: 
        line 26: x
        line 27: x
        line 28: x u
        line 30: x
    "#]]
    .assert_eq(&text);
}

/// One small shader instrumented in the mode `mode` makes from its probe
/// table (a step by line), as WGSL (runtime included).
fn instrumented_in(mode: impl Fn(&dyn Fn(u32) -> u32) -> Mode) -> String {
    let src = r#"
@fragment
fn main(@builtin(position) pos: vec4<f32>) -> @location(0) vec4<f32> {
    let x = pos.x;
    if x > 2.0 {
        discard;
    }
    return vec4<f32>(x);
}
"#;
    let parsed = parse(src).unwrap_or_else(|e| panic!("{e}"));
    let table = probe_table(&parsed, "main").expect("table");
    let step = |line| table.step_for_line(line).expect("step").id;
    let inst = instrument_src(src, "main", mode(&step), 0, 2).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(inst.probes, table);
    to_glsl(&inst, &Default::default()).unwrap_or_else(|e| panic!("{e}"));
    to_wgsl(&inst).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn instrumented_hit_test() {
    let wgsl = instrumented_in(|step| {
        Mode::HitTest(vec![
            shaderdbg_wgsl::Breakpoint {
                probe: step(3),
                condition: Some("pos.y < 1.0 && pos.x > 0.0".to_string()),
            },
            shaderdbg_wgsl::Breakpoint {
                probe: step(6),
                condition: None,
            },
        ])
    });
    expect![[r#"
        struct _SdbgHits {
            count: atomic<u32>,
            cap: u32,
            pad0_: u32,
            pad1_: u32,
            data: array<u32>,
        }

        @group(0) @binding(2) 
        var<storage, read_write> _sdbg_hits: _SdbgHits;
        var<private> _sdbg_key0_: u32;
        var<private> _sdbg_key1_: u32;
        var<private> _sdbg_key2_: u32;
        var<private> _sdbg_occ0_: u32;
        var<private> _sdbg_first0_: u32;
        var<private> _sdbg_occ1_: u32;
        var<private> _sdbg_first1_: u32;

        fn _sdbg_put_hit(p: u32, occ: u32, tag: u32) {
            let _e6 = atomicAdd((&_sdbg_hits.count), 1u);
            let _e8 = _sdbg_hits.cap;
            if (_e6 >= _e8) {
                return;
            }
            let _e11 = (_e6 * 6u);
            _sdbg_hits.data[_e11] = p;
            _sdbg_hits.data[(_e11 + 1u)] = occ;
            let _e19 = _sdbg_key0_;
            _sdbg_hits.data[(_e11 + 2u)] = _e19;
            let _e25 = _sdbg_key1_;
            _sdbg_hits.data[(_e11 + 3u)] = _e25;
            let _e31 = _sdbg_key2_;
            _sdbg_hits.data[(_e11 + 4u)] = _e31;
            _sdbg_hits.data[(_e11 + 5u)] = tag;
            return;
        }

        fn _sdbg_hit0_(c: bool) {
            let _e3 = _sdbg_occ0_;
            let _e5 = _sdbg_first0_;
            if (c && (_e5 == 0u)) {
                _sdbg_first0_ = (_e3 + 1u);
            }
            _sdbg_occ0_ = (_e3 + 1u);
            return;
        }

        fn _sdbg_hit1_(c_1: bool) {
            let _e3 = _sdbg_occ1_;
            let _e5 = _sdbg_first1_;
            if (c_1 && (_e5 == 0u)) {
                _sdbg_first1_ = (_e3 + 1u);
            }
            _sdbg_occ1_ = (_e3 + 1u);
            return;
        }

        fn _sdbg_flush() {
            let _e2 = _sdbg_first0_;
            if (_e2 != 0u) {
                _sdbg_put_hit(4u, (_e2 - 1u), 0u);
                _sdbg_first0_ = 0u;
            }
            let _e10 = _sdbg_first1_;
            if (_e10 != 0u) {
                _sdbg_put_hit(8u, (_e10 - 1u), 1u);
                _sdbg_first1_ = 0u;
            }
            return;
        }

        fn _sdbg_expr4_(_sdbg_pos: vec4<f32>) -> bool {
            var local: bool;

            if (_sdbg_pos.y < 1f) {
                local = (_sdbg_pos.x > 0f);
            } else {
                local = false;
            }
            let _e10 = local;
            return _e10;
        }

        @fragment 
        fn main(@builtin(position) pos: vec4<f32>) -> @location(0) vec4<f32> {
            _sdbg_key0_ = u32(pos.x);
            _sdbg_key1_ = u32(pos.y);
            _sdbg_key2_ = 4294967295u;
            let _e15 = _sdbg_expr4_(pos);
            _sdbg_hit0_(_e15);
            let x = pos.x;
            if (x > 2f) {
                _sdbg_hit1_(true);
                _sdbg_flush();
                discard;
            }
            _sdbg_flush();
            return vec4(x);
        }
    "#]]
    .assert_eq(&wgsl);
}

#[test]
fn instrumented_nan_inf() {
    let wgsl = instrumented_in(|_| Mode::HitTestNanInf(Vec::new()));
    let shader = &wgsl[wgsl.find("@fragment").expect("entry point")..];
    expect![[r#"
        @fragment 
        fn main(@builtin(position) pos: vec4<f32>) -> @location(0) vec4<f32> {
            _sdbg_key0_ = u32(pos.x);
            _sdbg_key1_ = u32(pos.y);
            _sdbg_key2_ = 4294967295u;
            let x = pos.x;
            if (x > 2f) {
                _sdbg_flush();
                discard;
            }
            let _e4 = vec4(x);
            let _e16 = vec4(2139095040u);
            _sdbg_nan(9u, any(((bitcast<vec4<u32>>(_e4) & _e16) == _e16)));
            _sdbg_flush();
            return _e4;
        }
    "#]]
    .assert_eq(shader);
}

#[test]
fn instrumented_watch() {
    let wgsl = instrumented_in(|step| Mode::Watch {
        probe: step(8),
        expr: "x * 2.0".to_string(),
    });
    expect![[r#"
        struct _SdbgWatch {
            width: u32,
            height: u32,
            stride: u32,
            pad0_: u32,
            data: array<atomic<u32>>,
        }

        @group(0) @binding(2) 
        var<storage, read_write> _sdbg_watch: _SdbgWatch;
        var<private> _sdbg_slot: u32;

        fn _sdbg_watch_begin(_sdbg_x: u32, _sdbg_y: u32) {
            _sdbg_slot = 4294967295u;
            let _e6 = _sdbg_watch.width;
            let _e8 = _sdbg_watch.height;
            let _e10 = _sdbg_watch.stride;
            let _e11 = (_sdbg_y != 4294967295u);
            if (_e11 && (_sdbg_x >= _e6)) {
                return;
            }
            let _e16 = select(_sdbg_x, ((_sdbg_y * _e6) + _sdbg_x), _e11);
            if (_e16 >= (_e6 * _e8)) {
                return;
            }
            _sdbg_slot = (_e16 * _e10);
            return;
        }

        fn _sdbg_expr1_(_sdbg_x_1: f32) -> f32 {
            return (_sdbg_x_1 * 2f);
        }

        fn _sdbg_put1_(at: u32, v: f32) {
            atomicStore((&_sdbg_watch.data[at]), bitcast<u32>(v));
            return;
        }

        fn _sdbg_watch_value(v_1: f32) {
            let _e3 = _sdbg_slot;
            if (_e3 == 4294967295u) {
                return;
            }
            let _e10 = atomicAdd((&_sdbg_watch.data[_e3]), 1u);
            if (_e10 != 0u) {
                return;
            }
            _sdbg_put1_((_e3 + 1u), v_1);
            return;
        }

        @fragment 
        fn main(@builtin(position) pos: vec4<f32>) -> @location(0) vec4<f32> {
            _sdbg_watch_begin(u32(pos.x), u32(pos.y));
            let x = pos.x;
            if (x > 2f) {
                discard;
            }
            let _e11 = _sdbg_expr1_(x);
            _sdbg_watch_value(_e11);
            return vec4(x);
        }
    "#]]
    .assert_eq(&wgsl);
}
