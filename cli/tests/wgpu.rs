//! A wgpu program's WGSL debugged through the Vulkan layer: `shaderdbg run
//! --break wgpu_quad.wgsl:LINE:COND -- wgpu_quad` on lavapipe. wgpu
//! compiles the WGSL with naga into SPIR-V that carries the WGSL (wgpu's
//! `InstanceFlags::DEBUG`); the layer binds the file to it, instruments the
//! WGSL with the WGSL engine and writes it with naga under the options the
//! program's wgpu used. Values are checked against the same computation on
//! the CPU; frames against a run without the debugger.

mod common;

use std::path::{Path, PathBuf};

use common::{
    f32s, frames, frames_alone, json_events, line_of, of_kind, program_output, run_program,
};

/// The program's shader, copied to a fresh directory (breakpoints bind by
/// file content, and tests run in parallel).
fn shader(tag: &str) -> PathBuf {
    let file =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/wgpu-apps/shaders/wgpu_quad.wgsl");
    shaderdbg_test_support::fresh_copy(&file, &format!("wgpu-{tag}"))
}

fn app() -> PathBuf {
    shaderdbg_test_support::app("wgpu_quad")
}

fn fract(x: f32) -> f32 {
    x - x.floor()
}

/// `ring` of `wgpu_quad.wgsl`.
fn ring(p: [f32; 2], t: f32) -> f32 {
    let d = ((p[0] - 1.0).powi(2) + (p[1] - 1.0).powi(2)).sqrt();
    fract(d * 2.0 - t)
}

/// `fs_main`'s `p`, `bands` and `r` at pixel (x, y) (Vulkan's: origin top
/// left, as `@builtin(position)`), frame time `t`.
fn cpu(x: u32, y: u32, t: f32) -> ([f32; 2], u32, f32) {
    let p = [(x as f32 + 0.5) / 32.0, (y as f32 + 0.5) / 32.0];
    let bands = (0..3)
        .filter(|k| ring(p, t + *k as f32 * 0.25) > 0.5)
        .count() as u32;
    (p, bands, ring(p, t))
}

/// Stops at the first fragment where `r > 0.9 && bands == 2u` on the
/// return line, each frame, with the CPU's values; frames as alone.
fn conditional_stops(tag: &str, args: &[&str]) {
    let file = shader(tag);
    let line = line_of(&file, "return vec4<f32>(fract(p.x + t), r");
    let bp = format!("{}:{line}:r > 0.9 && bands == 2u", file.display());
    let (out, text) = run_program(&bp, &app(), args);
    let events = json_events(&text);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stops = of_kind(&events, "stopped");
    assert_eq!(stops.len(), 2, "one stop per frame:\n{text}\n{stderr}");
    for (frame, stop) in stops.iter().enumerate() {
        assert_eq!(stop["line"], line, "{stop}");
        assert_eq!(stop["stage"], "fragment");
        assert_eq!(stop["frame"], frame as u64);
        let t = frame as f32 * 0.125;
        let [x, y] = [stop["pixel"][0].as_u64(), stop["pixel"][1].as_u64()]
            .map(|v| v.expect("pixel") as u32);
        // The first fragment in row order where the condition holds.
        let first = (0..64)
            .flat_map(|y| (0..64).map(move |x| (x, y)))
            .find(|&(x, y)| {
                let (_, bands, r) = cpu(x, y, t);
                r > 0.9 && bands == 2
            })
            .expect("some fragment");
        assert_eq!((x, y), first, "{stop}");
        let (p, bands, r) = cpu(x, y, t);
        let locals = &stop["locals"];
        assert_eq!(f32s(&locals["p"]["value"]), p, "{locals}");
        assert_eq!(locals["t"]["value"].as_f64().map(|v| v as f32), Some(t));
        assert_eq!(locals["bands"]["value"].as_u64(), Some(u64::from(bands)));
        let got = locals["r"]["value"].as_f64().expect("r") as f32;
        assert!((got - r).abs() < 1e-5, "{got} vs {r}");
        assert_eq!(
            locals["p"]["type"], "vec2<f32>",
            "WGSL type names: {locals}"
        );
    }
    assert_eq!(
        frames(program_output(&events).into_iter()),
        frames_alone(&app(), args),
        "frames differ under the debugger"
    );
}

#[test]
fn a_conditional_breakpoint_in_a_wgpu_program_s_wgsl_stops_with_the_values_of_the_cpu() {
    conditional_stops("stop", &["2", "64"]);
}

/// Without `InstanceFlags::DEBUG` the SPIR-V carries no WGSL: the layer
/// finds the breakpoint's file by writing the module again from it.
#[test]
fn without_the_wgsl_in_the_spirv_the_file_naga_writes_the_module_from_is_bound() {
    conditional_stops("nodebug", &["2", "64", "nodebug"]);
}

/// Without the WGSL in the SPIR-V, a file that is not what the program
/// compiled (edited since) binds to nothing: no stop, and the program runs
/// as alone. (With it, the session maps the edited file's lines onto the
/// embedded text, as for GLSL.)
#[test]
fn a_file_the_module_was_not_written_from_does_not_bind() {
    let file = shader("edited");
    let text = std::fs::read_to_string(&file).expect("read");
    std::fs::write(&file, text.replace("f32(k) * 0.25", "f32(k) * 0.3")).expect("write");
    let line = line_of(&file, "let r = ring(p, t);");
    let bp = format!("{}:{line}", file.display());
    {
        let args = &["1", "32", "nodebug"];
        let (out, text) = run_program(&bp, &app(), args);
        assert!(out.status.success(), "{text}");
        let events = json_events(&text);
        assert!(of_kind(&events, "stopped").is_empty(), "{text}");
        assert!(
            of_kind(&events, "breakpoint")
                .iter()
                .all(|b| b["verified"] == false),
            "{text}"
        );
        assert_eq!(
            frames(program_output(&events).into_iter()),
            frames_alone(&app(), args)
        );
    }
}

/// `shaderdbg debug -- wgpu_quad` with commands piped in: a breakpoint in
/// a function the fragment entry point calls, the WGSL call stack, stepping
/// forward and back, and WGSL expressions over the recorded values; those
/// a constant cannot be (an integer division by zero, `i32` min / -1) are
/// evaluated on the GPU with WGSL's run-time rules (the dividend), and a
/// call of the function the stop is in is refused (WGSL has no recursion).
#[test]
fn stepping_back_and_the_call_stack_in_a_wgpu_program() {
    let file = shader("debug");
    let f = file.display();
    let line = line_of(&file, "return fract(d * 2.0 - t);");
    let caller = line_of(&file, "if ring(p, t + f32(k) * 0.25) > 0.5");
    let increment = line_of(&file, "bands += 1u;");
    let commands = format!(
        "break {f}:{line} if d > 1.2\nrun\nprint d\n\
         print i32(d * 10.0) / (i32(t) - i32(t))\nprint (i32(d) - 2147483647 - 2) / -1\n\
         print ring(p, t)\nwhere\nnext\nnext\nback\n\
         print p - vec2<f32>(1.0)\ncontinue\nquit\n"
    );
    let app = app();
    let (ok, text, _) =
        common::debug_session(["--", app.to_str().expect("path"), "1", "64"], &commands);
    assert!(ok, "{text}");
    // The first fragment in row order calls ring(p, t) with d > 1.2: (0, 0).
    let p = 0.5f32 / 32.0;
    let d = ((p - 1.0).powi(2) * 2.0).sqrt();
    for want in [
        format!("stopped at {f}:{line} in fragment (0,0)"),
        format!("#0  ring at {f}:{line}"),
        format!("#1  fs_main at {f}:{caller}"),
        format!(
            "p - vec2<f32>(1.0): vec2<f32> = vec2<f32>({}, {})",
            p - 1.0,
            p - 1.0
        ),
        // The GPU's values (the stop is the first reach of its line, where a watch evaluates).
        format!(
            "i32(d * 10.0) / (i32(t) - i32(t)): i32 = {}",
            (d * 10.0) as i32
        ),
        format!("(i32(d) - 2147483647 - 2) / -1: i32 = {}", i32::MIN),
        "calls a function that contains the line it is evaluated at".to_string(),
        "program exited with code 0".to_string(),
    ] {
        assert!(text.contains(&want), "no `{want}` in:\n{text}");
    }
    let printed: f32 = text
        .lines()
        .find_map(|l| l.strip_prefix("d: f32 = "))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or_else(|| panic!("no d printed:\n{text}"));
    assert!((printed - d).abs() < 1e-6, "{printed} vs {d}");
    // next, next, back: the caller's loop body, the loop, the body again.
    let numbers: Vec<u32> = text
        .lines()
        .filter_map(|l| l.split(" | ").next()?.trim().parse().ok())
        .collect();
    let looping = line_of(&file, "for (var k = 0u; k < 3u; k++)");
    assert!(
        numbers
            .windows(4)
            .any(|w| w == [line, increment, looping, increment]),
        "{numbers:?}\n{text}"
    );
}

/// `--pixel` without breakpoints is pixel history: the fragment shader
/// stops at the start of its entry point for that pixel (Vulkan's pixel,
/// origin top left, as `@builtin(position)` says), in the GLSL of a
/// glslang module as in the WGSL of a wgpu one.
#[test]
fn pixel_history_in_vulkan_programs_stops_at_the_pixel() {
    let vk_triangle = shaderdbg_test_support::app("vk_triangle");
    for (program, args, builtin) in [
        (app(), &["1", "64"][..], "in"),
        (vk_triangle, &["1", "64"][..], "gl_FragCoord"),
    ] {
        let mut all = vec!["run", "--json", "--pixel", "10,20", "--"];
        all.push(program.to_str().expect("path"));
        all.extend_from_slice(args);
        let (out, text) = common::shaderdbg(all);
        let events = json_events(&text);
        let stops = of_kind(&events, "stopped");
        assert_eq!(
            stops.len(),
            1,
            "{text}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let stop = stops[0];
        assert_eq!(stop["reason"], "pixel_history", "{stop}");
        assert_eq!(stop["pixel"], serde_json::json!([10, 20]));
        let position = match builtin {
            "in" => &stop["globals"]["in"]["value"]["position"],
            _ => &stop["globals"]["gl_FragCoord"]["value"],
        };
        assert_eq!(f32s(position)[..2], [10.5, 20.5], "{stop}");
        assert_eq!(
            frames(program_output(&events).into_iter()),
            frames_alone(&program, args)
        );
    }
}
