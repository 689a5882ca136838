//! End-to-end on Mesa llvmpipe: instrument WGSL in naga's IR, emit GLSL with
//! naga, run it through a headless EGL context, read the record buffer back,
//! decode it with the core's decoder and the engine's probe table, and
//! compare what was recorded with values computed on the CPU from the pixel.

mod common;

use common::{
    assert_spirv_valid, call_stack_names, glsl, instrument_src, line_of, Gpu, COMPUTE, VERTEX,
};
use shaderdbg_core::decode::{decode, Exit, InvocationTrace};
use shaderdbg_core::layout;
use shaderdbg_core::probes::ProbeTable;
use shaderdbg_core::{Invocation, Value};
use shaderdbg_test_support::values::{final_value, float as f, floats};
use shaderdbg_wgsl::{Instrumented, Mode};

const BINDING: u32 = 7;

/// Every construct the engine has to get right; values at pixel (x, y)
/// follow from x and y alone (see `expected`).
const SHADER: &str = r#"
struct Acc {
    sum: f32,
    count: i32,
    hist: vec2<f32>,
}

fn half(v: f32) -> f32 {
    return v * 0.5;
}

fn weigh(v: f32, sq: ptr<function, f32>) -> f32 {
    *sq = v * v;
    return half(v);
}

fn classify(n: i32) -> f32 {
    switch n {
        case 0: { return 10.0; }
        case 1, 2: { return 20.0; }
        default: { return 30.0; }
    }
}

@fragment
fn fs_main(@builtin(position) frag: vec4<f32>) -> @location(0) vec4<f32> {
    let p = floor(frag.xy);
    let n = i32(p.x + p.y) % 5;
    var acc: Acc;
    var arr = array<f32, 4>(0.0, 0.0, 0.0, 0.0);
    for (var i = 0; i < 8; i++) {
        if i == 2 {
            continue;
        }
        if i >= n + 3 {
            break;
        }
        var sq = 0.0;
        acc.sum += weigh(p.x + f32(i), &sq);
        acc.count += 1;
        arr[i % 4] += sq;
    }
    let m = mat2x2<f32>(p.x, 1.0, 2.0, p.y);
    let t = m * vec2<f32>(1.0, 2.0);
    acc.hist = vec2<f32>(classify(n), select(-1.0, 1.0, p.x > p.y));
    if p.x == 1.0 && p.y == 1.0 {
        discard;
    }
    if p.y == 3.0 {
        return vec4<f32>(1.0, 0.0, 1.0, 1.0);
    }
    return vec4<f32>(acc.sum / 256.0, f32(acc.count) / 8.0, arr[1] / 4096.0, (acc.hist.x + t.y) / 64.0);
}
"#;

struct Expected {
    n: i32,
    sum: f32,
    count: i32,
    arr: [f32; 4],
    hist: [f32; 2],
    /// Arguments `weigh` was called with, in order.
    weigh_args: Vec<f32>,
    color: [f32; 4],
}

fn expected(x: u32, y: u32) -> Expected {
    let (xf, yf) = (x as f32, y as f32);
    let n = ((x + y) % 5) as i32;
    let (mut sum, mut count, mut arr, mut weigh_args) = (0.0f32, 0, [0.0f32; 4], Vec::new());
    for i in 0..8 {
        if i == 2 {
            continue;
        }
        if i >= n + 3 {
            break;
        }
        let v = xf + i as f32;
        weigh_args.push(v);
        sum += v * 0.5;
        count += 1;
        arr[(i % 4) as usize] += v * v;
    }
    let class = match n {
        0 => 10.0,
        1 | 2 => 20.0,
        _ => 30.0,
    };
    let hist = [class, if xf > yf { 1.0 } else { -1.0 }];
    let color = if y == 3 {
        [1.0, 0.0, 1.0, 1.0]
    } else {
        [
            sum / 256.0,
            count as f32 / 8.0,
            arr[1] / 4096.0,
            (class + 1.0 + 2.0 * yf) / 64.0,
        ]
    };
    Expected {
        n,
        sum,
        count,
        arr,
        hist,
        weigh_args,
        color,
    }
}

fn instrumented(src: &str, mode: Mode) -> Instrumented {
    instrument_src(src, "fs_main", mode, 0, BINDING).expect("instruments")
}

/// `frag` with a record buffer of `cap` words: pixels and buffer words.
fn run(gpu: &Gpu, frag: &str, cap: u32) -> (Vec<u8>, Vec<u32>) {
    gpu.render(frag, Some((BINDING, &layout::new_record_buffer(cap))))
}

fn function_id(table: &ProbeTable, name: &str) -> usize {
    table
        .functions
        .iter()
        .position(|f| f.name == name)
        .unwrap_or_else(|| panic!("no function {name}"))
}

/// Return values of the activations of function `fid`.
fn returns_of(inv: &InvocationTrace, fid: usize) -> Vec<Value> {
    inv.returns
        .iter()
        .filter(|(_, frame, _)| inv.frames[*frame].function == Some(fid))
        .map(|(_, _, v)| v.clone())
        .collect()
}

#[test]
fn recorded_values_match_the_cpu_and_the_image_is_unchanged() {
    let gpu = Gpu::new();
    let original = gpu
        .render(&glsl(&instrumented(SHADER, Mode::Plain)), None)
        .0;
    for (x, y) in [
        (5u32, 2u32),
        (13, 9),
        (0, 0),
        (11, 3),
        (2, 7),
        (1, 1),
        (4, 0),
    ] {
        let inst = instrumented(SHADER, Mode::Record(Invocation::fragment(x, y)));
        let (pixels, words) = run(&gpu, &glsl(&inst), 1 << 16);
        assert!(
            pixels == original,
            "({x},{y}): the instrumented shader renders differently"
        );
        let table = &inst.probes;
        let trace = decode(&words, table).expect("decodes");
        assert!(!trace.overflowed);
        assert_eq!(
            trace.invocations.len(),
            1,
            "({x},{y}): one invocation records"
        );
        let inv = &trace.invocations[0];
        assert_eq!(inv.invocation, Some(Invocation::fragment(x, y)));
        let e = expected(x, y);
        if (x, y) == (1, 1) {
            assert_eq!(inv.exit, Exit::Discarded);
            continue;
        }
        assert_eq!(inv.exit, Exit::Returned, "({x},{y})");

        assert_eq!(floats(&final_value(inv, table, "p")), [x as f32, y as f32]);
        assert_eq!(final_value(inv, table, "n"), Value::Int(e.n), "({x},{y})");
        let acc = final_value(inv, table, "acc");
        assert_eq!(acc.field("sum").map(f), Some(e.sum), "({x},{y}) {acc}");
        assert_eq!(
            acc.field("count"),
            Some(&Value::Int(e.count)),
            "({x},{y}) {acc}"
        );
        assert_eq!(acc.field("hist").map(floats), Some(e.hist.to_vec()));
        assert_eq!(
            floats(&final_value(inv, table, "arr")),
            e.arr.to_vec(),
            "({x},{y})"
        );

        // `weigh` ran once per counted iteration, one call deep; its pointer
        // parameter's write and the caller's variable both show v * v.
        let weigh = function_id(table, "weigh");
        let halves: Vec<f32> = e.weigh_args.iter().map(|v| v * 0.5).collect();
        let got: Vec<f32> = returns_of(inv, weigh).iter().map(f).collect();
        assert_eq!(got, halves, "({x},{y})");
        // ... through `half`, two calls deep.
        let half = function_id(table, "half");
        let got: Vec<f32> = returns_of(inv, half).iter().map(f).collect();
        assert_eq!(got, halves, "({x},{y})");
        let half_steps: Vec<usize> = (0..inv.steps.len())
            .filter(|&k| inv.frames[inv.steps[k].frame].function == Some(half))
            .collect();
        assert_eq!(half_steps.len(), e.weigh_args.len());
        assert!(half_steps.iter().all(|&k| inv.steps[k].depth == 2));
        if let Some(&k) = half_steps.first() {
            assert_eq!(
                call_stack_names(inv, table, k),
                ["half", "weigh", "fs_main"]
            );
        }
        let squares: Vec<f32> = e.weigh_args.iter().map(|v| v * v).collect();
        let sq_writes = |line_text: &str| -> Vec<f32> {
            let line = line_of(SHADER, line_text);
            inv.writes
                .iter()
                .filter(|w| {
                    table.vars[w.decl].name == "sq"
                        && table.get(w.probe).is_some_and(|p| p.line == line)
                })
                .map(|w| f(&w.value))
                .collect()
        };
        assert_eq!(sq_writes("*sq = v * v"), squares, "({x},{y}) inside weigh");
        assert_eq!(
            sq_writes("acc.sum += weigh"),
            squares,
            "({x},{y}) back in the caller"
        );
        let weigh_steps = inv
            .steps
            .iter()
            .filter(|s| s.depth == 1 && inv.frames[s.frame].function == Some(weigh));
        assert_eq!(weigh_steps.count(), 2 * e.weigh_args.len(), "({x},{y})");
        if let Some(k) = inv
            .steps
            .iter()
            .position(|s| inv.frames[s.frame].function == Some(weigh))
        {
            assert_eq!(call_stack_names(inv, table, k), ["weigh", "fs_main"]);
        }
        // `switch` in `classify` returned through the right case.
        let classify = function_id(table, "classify");
        assert_eq!(
            returns_of(inv, classify).iter().map(f).collect::<Vec<_>>(),
            [e.hist[0]]
        );

        // The `continue` and `break` conditions: `i == 2` was true once,
        // `i >= n + 3` at the loop's last iteration (if it broke out).
        let cond_values = |line_text: &str| -> Vec<bool> {
            let line = line_of(SHADER, line_text);
            inv.conditions
                .iter()
                .filter(|c| table.get(c.probe).is_some_and(|p| p.line == line))
                .map(|c| c.value)
                .collect()
        };
        let cont = cond_values("if i == 2");
        assert_eq!(cont.iter().filter(|c| **c).count(), 1, "({x},{y}) {cont:?}");
        let brk = cond_values("if i >= n + 3");
        let broke = e.n + 3 < 8;
        assert_eq!(brk.last() == Some(&true), broke, "({x},{y}) {brk:?}");
        assert_eq!(brk.iter().filter(|c| **c).count(), usize::from(broke));

        // The early return, and the entry point's return value is the colour.
        let early = inv
            .steps
            .iter()
            .any(|s| s.line == line_of(SHADER, "return vec4<f32>(1.0, 0.0"));
        assert_eq!(early, y == 3, "({x},{y})");
        let color = returns_of(inv, function_id(table, "fs_main"));
        assert_eq!(
            color.iter().map(floats).collect::<Vec<_>>(),
            [e.color.to_vec()],
            "({x},{y})"
        );
    }
}

#[test]
fn a_full_log_stops_at_the_first_entry_that_does_not_fit() {
    let gpu = Gpu::new();
    let inst = instrumented(SHADER, Mode::Record(Invocation::fragment(13, 9)));
    let (_, full) = run(&gpu, &glsl(&inst), 1 << 16);
    let used = full[0];
    for cap in [40u32, 77, used - 1] {
        let (_, words) = run(&gpu, &glsl(&inst), cap);
        let trace = decode(&words, &inst.probes).expect("decodes");
        assert!(trace.overflowed, "cap {cap}");
        assert_eq!(trace.invocations[0].exit, Exit::Overflowed);
        // What fits is exactly the prefix of the full log.
        let data_end = (layout::HEADER_WORDS + cap as usize).min(words.len());
        let written = words[layout::HEADER_WORDS..data_end]
            .iter()
            .rposition(|w| *w != 0)
            .map_or(0, |i| i + 1);
        assert!(written <= cap as usize);
        assert_eq!(
            words[layout::HEADER_WORDS..layout::HEADER_WORDS + written],
            full[layout::HEADER_WORDS..layout::HEADER_WORDS + written],
            "cap {cap}"
        );
    }
    let (_, words) = run(&gpu, &glsl(&inst), used);
    assert!(!decode(&words, &inst.probes).expect("decodes").overflowed);
}

#[test]
fn compute_invocations_record_by_global_id() {
    let gpu = Gpu::new();
    let log = layout::new_record_buffer(1 << 12);
    let run = |inst: &Instrumented, with_log: bool| {
        gpu.dispatch_compute(inst, with_log.then_some((BINDING, &log[..])))
    };
    let record = |mode| instrument_src(COMPUTE, "cs", mode, 0, BINDING);
    let (original, _) = run(&record(Mode::Plain).expect("plain"), false);
    let sums: Vec<u32> = (0..16).map(|i| i * (i + 1) / 2).collect();
    assert_eq!(original, sums);
    for id in [[5u32, 1, 0], [0, 0, 0], [7, 0, 0]] {
        let inst = record(Mode::Record(Invocation::Compute { id })).expect("record");
        let (out, log) = run(&inst, true);
        assert_eq!(
            out, original,
            "{id:?}: results change under instrumentation"
        );
        let trace = decode(&log, &inst.probes).expect("decodes");
        assert_eq!(trace.invocations.len(), 1);
        let inv = &trace.invocations[0];
        assert_eq!(inv.invocation, Some(Invocation::Compute { id }));
        assert_eq!(inv.exit, Exit::Returned);
        let i = id[0] + 8 * id[1];
        assert_eq!(final_value(inv, &inst.probes, "i"), Value::Uint(i));
        assert_eq!(
            final_value(inv, &inst.probes, "acc"),
            Value::Uint(i * (i + 1) / 2)
        );
        // One loop test per iteration, the last one false.
        let tests: Vec<bool> = inv.conditions.iter().map(|c| c.value).collect();
        assert_eq!(tests.len() as u32, i + 2, "{id:?}");
        assert_eq!(tests.iter().filter(|t| !**t).count(), 1);
    }
}

/// The instrumented modules also go to SPIR-V (the Vulkan path), and the
/// Khronos validator accepts what naga writes.
#[test]
fn instrumented_spirv_validates() {
    let frag = instrumented(SHADER, Mode::Record(Invocation::fragment(3, 4)));
    let comp = instrument_src(
        COMPUTE,
        "cs",
        Mode::Record(Invocation::Compute { id: [1, 0, 0] }),
        1,
        0,
    )
    .expect("record");
    assert_spirv_valid("spv", &[("frag", frag), ("comp", comp)]);
}

#[test]
fn vertex_invocations_record_by_index() {
    let gpu = Gpu::new();
    let record = |mode| instrument_src(VERTEX, "vs", mode, 0, BINDING);
    let plain = record(Mode::Plain).expect("plain");
    let (original, _) = gpu.draw_vertex(&glsl(&plain), None);
    // gl-headless's full-screen triangle.
    let corners = [[-1.0f32, -1.0], [3.0, -1.0], [-1.0, 3.0]];
    for (vertex, p) in corners.iter().enumerate() {
        let sel = Invocation::Vertex {
            vertex: vertex as i32,
            instance: 0,
        };
        let inst = record(Mode::Record(sel)).expect("record");
        let buffer = (BINDING, layout::new_record_buffer(1 << 12));
        let (pixels, words) = gpu.draw_vertex(&glsl(&inst), Some(buffer));
        assert!(pixels == original, "vertex {vertex}: the image changed");
        let trace = decode(&words, &inst.probes).expect("decodes");
        assert_eq!(trace.invocations.len(), 1, "vertex {vertex}");
        let inv = &trace.invocations[0];
        assert_eq!(inv.invocation, Some(sel));
        let table = &inst.probes;
        let q = [p[0] * 0.5 + 0.5, p[1] * 0.5 + 0.5];
        assert_eq!(floats(&final_value(inv, table, "q")), q);
        let o = final_value(inv, table, "o");
        assert_eq!(o.field("pos").map(floats), Some(vec![p[0], p[1], 0.0, 1.0]));
        assert_eq!(o.field("uv").map(floats), Some(q.to_vec()));
        let ret = returns_of(inv, function_id(table, "vs"));
        assert_eq!(ret, [o]);
    }
}
