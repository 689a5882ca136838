//! Stops through the command line in the Vulkan test programs that use
//! what `vk_triangle` does not (`shaderdbg run --json --break
//! SHADER:LINE:COND -- APP FRAMES 64 DEBUG_INFO`, lavapipe): a sampled
//! texture in a command buffer recorded once, three descriptor sets, and
//! specialization constants. Each conditional breakpoint stops once per
//! frame at the first fragment in row order where the condition holds,
//! computed here on the CPU from the pixel and the program's inputs (the
//! texture's generating function, the uniform, storage and specialization
//! values), and the locals recorded there equal those computed values; the
//! frames are the ones the program renders alone, and the Khronos
//! validation layer, enabled below ours, reports what it reports for the
//! program alone.

mod common;

use std::path::PathBuf;
use std::process::Command;

use common::{json_events, of_kind};
use serde_json::Value;

/// The side of the programs' target image.
const SIZE: u32 = 64;

/// A stop of a run, with the values read from it.
struct Stop(Value);

impl Stop {
    /// The `stopped` events among `events`.
    fn all_in(events: &[Value]) -> Vec<Stop> {
        of_kind(events, "stopped")
            .into_iter()
            .map(|s| Stop(s.clone()))
            .collect()
    }

    fn pixel(&self) -> (u32, u32) {
        let at = |i: usize| self.0["pixel"][i].as_u64().expect("pixel") as u32;
        (at(0), at(1))
    }

    /// Asserts the stop is at the first pixel in row order where `holds`
    /// (the first fragment where a breakpoint's condition holds); that pixel.
    #[track_caller]
    fn assert_first_pixel(&self, holds: impl Fn(u32, u32) -> bool) -> (u32, u32) {
        let at = self.pixel();
        assert_eq!(at, first_pixel(holds), "{}", self.0);
        at
    }

    fn frame_and_draw(&self) -> (u64, u64) {
        let at = |key: &str| self.0[key].as_u64().unwrap_or(99);
        (at("frame"), at("draw"))
    }

    fn local(&self, name: &str) -> &Value {
        let value = &self.0["locals"][name]["value"];
        assert!(!value.is_null(), "no local {name} in {}", self.0);
        value
    }

    fn float(&self, name: &str) -> f32 {
        self.local(name).as_f64().expect("a number") as f32
    }

    fn int(&self, name: &str) -> i64 {
        self.local(name).as_i64().expect("an integer")
    }

    /// A vector local's components.
    fn floats(&self, name: &str) -> Vec<f32> {
        let v = self.local(name).as_array().expect("a vector");
        v.iter()
            .map(|x| x.as_f64().expect("a number") as f32)
            .collect()
    }

    /// Asserts the vector local `name` is `want`, to within `eps` per
    /// component.
    #[track_caller]
    fn assert_near(&self, name: &str, want: &[f32], eps: f32) {
        let got = self.floats(name);
        assert_eq!(got.len(), want.len(), "{name}: {got:?} vs {want:?}");
        for (g, w) in got.iter().zip(want) {
            assert!(
                (g - w).abs() <= eps,
                "{name}: {got:?} vs {want:?}\n{}",
                self.0
            );
        }
    }
}

/// Runs `APP FRAMES 64 DEBUG_INFO EXTRA...` under `shaderdbg run --json` with a
/// breakpoint at `line` of `shaders/SHADER` if `condition` and the
/// validation layer below ours, checks that every frame line it prints
/// and every report of the validation layer are those of the program
/// alone, and returns the stops (`frames` of them, each in the fragment
/// stage at `line`).
fn stops(
    app: &str,
    shader: &str,
    line: u32,
    condition: &str,
    frames: usize,
    debug_info: &str,
    extra: &[&str],
) -> Vec<Stop> {
    let file = shader_file(shader);
    let breakpoint = format!("{}:{line}:{condition}", file.display());
    let mut args = vec![frames.to_string(), SIZE.to_string(), debug_info.to_string()];
    args.extend(extra.iter().map(|a| a.to_string()));
    let (events, text) = run_checked(app, &[breakpoint], &args);
    let stops = Stop::all_in(&events);
    assert_eq!(
        stops.len(),
        frames,
        "one stop per frame ({app} {debug_info}):\n{text}"
    );
    for stop in &stops {
        assert_eq!(stop.0["stage"], "fragment", "{}", stop.0);
        assert_eq!(stop.0["line"], line, "{}", stop.0);
        assert_eq!(stop.0["file"], file.display().to_string(), "{}", stop.0);
    }
    stops
}

/// `tests/vk-apps/shaders/NAME`.
fn shader_file(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/vk-apps/shaders")
        .join(name)
        .canonicalize()
        .expect("shader")
}

/// Runs `APP ARGS` (ARGS[0] the frames) under `shaderdbg run --json
/// --break BREAKPOINT...` with the validation layer below ours, checks that
/// every frame line it prints and every report of the validation layer
/// are those of the program alone; its events, and the output with
/// stderr.
fn run_checked(app: &str, breakpoints: &[String], args: &[String]) -> (Vec<Value>, String) {
    let program = shaderdbg_test_support::app(app);
    common::single_pass();
    // The session puts ours above the layers the environment asks for.
    let out = validated(&mut Command::new(env!("CARGO_BIN_EXE_shaderdbg")))
        .args(["run", "--json"])
        .args(breakpoints.iter().flat_map(|b| ["--break", b.as_str()]))
        .arg("--")
        .arg(&program)
        .args(args)
        .output()
        .expect("runs shaderdbg");
    let text = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{text}\n{stderr}");
    let events = json_events(&text);
    let under_debugger: Vec<&str> = of_kind(&events, "output")
        .iter()
        .filter_map(|e| e["text"].as_str())
        .chain(stderr.lines())
        .collect();
    let alone = validated(Command::new(&program).args(args))
        .output()
        .expect("runs");
    assert!(alone.status.success(), "{alone:?}");
    let alone = [&alone.stdout, &alone.stderr].map(|o| String::from_utf8_lossy(o).into_owned());
    let alone: Vec<&str> = alone.iter().flat_map(|o| o.lines()).collect();
    let frame_lines = |lines: &[&str]| -> Vec<String> {
        let frames = lines.iter().filter(|l| l.starts_with("frame "));
        frames.map(|l| l.to_string()).collect()
    };
    assert_eq!(
        frame_lines(&under_debugger),
        frame_lines(&alone),
        "frames differ under the debugger"
    );
    let frames: usize = args[0].parse().expect("frames");
    assert_eq!(frame_lines(&alone).len(), frames, "{alone:?}");
    assert_eq!(
        validation_reports(&under_debugger),
        validation_reports(&alone),
        "the validation layer reports something of ours:\n{text}\n{stderr}"
    );
    (events, format!("{text}\n{stderr}"))
}

/// `cmd` with the Khronos validation layer enabled, logging errors and
/// warnings.
fn validated(cmd: &mut Command) -> &mut Command {
    cmd.env("VK_INSTANCE_LAYERS", "VK_LAYER_KHRONOS_validation")
        .env(
            "VK_LAYER_SETTINGS_PATH",
            shaderdbg_test_support::validation_settings(),
        )
}

/// The message ids of the validation layer's errors and warnings among
/// `lines`, each once. Each kind once: `-gVS` modules declare
/// SPV_KHR_non_semantic_info, which a Vulkan 1.0 device on lavapipe cannot
/// enable, so the programs alone have that report for their modules, and
/// the layer's modules made from the same code have it again.
fn validation_reports<'a>(lines: &[&'a str]) -> Vec<&'a str> {
    let mut ids = shaderdbg_test_support::validation_reports(lines.iter().copied());
    ids.sort_unstable();
    ids.dedup();
    ids
}

/// The first pixel in row order where `holds`.
fn first_pixel(holds: impl Fn(u32, u32) -> bool) -> (u32, u32) {
    (0..SIZE)
        .flat_map(|y| (0..SIZE).map(move |x| (x, y)))
        .find(|&(x, y)| holds(x, y))
        .expect("the condition holds somewhere")
}

/// Texel (i, j) of the programs' 8x8 texture as the shader reads it (RGBA8
/// unorm): `(32i + 16, 32j + 16, 255 - 16(i + j), 255) / 255`.
fn texel(i: u32, j: u32) -> [f32; 4] {
    [32 * i + 16, 32 * j + 16, 255 - 16 * (i + j), 255].map(|c| c as f32 / 255.0)
}

fn mul(a: [f32; 4], b: [f32; 4]) -> [f32; 4] {
    std::array::from_fn(|i| a[i] * b[i])
}

/// The first program frame is the layer's frame 1 when a texture upload
/// (a submission of its own, in a program without a swapchain) came first.
fn assert_frames(stops: &[Stop], first: u64) {
    for (i, stop) in stops.iter().enumerate() {
        assert_eq!(stop.0["frame"], first + i as u64, "{}", stop.0);
    }
}

/// `vk_textured`: the quad covers pixels 16..48 of the 64x64 target, with
/// uv = (pixel + 0.5) / 32 - 0.5; the nearest of the 8x8 texels is
/// `(pixel - 16) / 4`; the tint is `(1, 0.5 + 0.25 frame, 0.25, 1)`. The
/// command buffer is recorded once and submitted every frame, so the frames
/// differ only by the uniform buffer, and so do the stops. `vk_push` draws
/// the same with the uniform buffer, the texture and a storage buffer it
/// counts fragments in pushed (`vkCmdPushDescriptorSetKHR`): the same
/// stops, and the counts it prints are the program's alone (the storage
/// is put back before each run again).
#[test]
fn a_textured_quad_stops_where_the_sampled_texel_meets_the_condition() {
    for (app, debug_info) in [
        ("vk_textured", "source"),
        ("vk_textured", "nonsemantic"),
        ("vk_push", "source"),
        ("vk_push", "nonsemantic"),
    ] {
        let stops = stops(
            app,
            &format!("{app}.frag"),
            15,
            "shaded.g > 0.4 && texel.r > 0.5",
            3,
            debug_info,
            &[],
        );
        assert_frames(&stops, 1);
        for (frame, stop) in stops.iter().enumerate() {
            let tint = [1.0, 0.5 + 0.25 * frame as f32, 0.25, 1.0];
            let inside = |p: u32| (16..48).contains(&p);
            let texel_at = |x: u32, y: u32| texel((x - 16) / 4, (y - 16) / 4);
            let (x, y) = stop.assert_first_pixel(|x, y| {
                inside(x) && inside(y) && {
                    let t = texel_at(x, y);
                    mul(t, tint)[1] > 0.4 && t[0] > 0.5
                }
            });
            let uv = |p: u32| (p as f32 + 0.5) / 32.0 - 0.5;
            stop.assert_near("st", &[uv(x), uv(y)], 1e-5);
            stop.assert_near("texel", &texel_at(x, y), 1e-6);
            stop.assert_near("shaded", &mul(texel_at(x, y), tint), 1e-6);
        }
    }
}

/// `vk_sets`: per 8x8 cell (cx, cy) of the target, `base` is palette
/// colour `(cx + cy + frame) % 4` (set 1, a storage buffer), `texel` is
/// texel (cx % 8, cy % 8) (set 2), `mixed = base * scale + texel` with
/// `scale = (0.5, 0.25, 1, 1)` (set 0, with the frame number). `early`:
/// the set layouts of the pipeline's layout are destroyed once the
/// pipeline exists (its twins' layouts are made from set layouts made
/// again).
#[test]
fn a_draw_reading_three_descriptor_sets_stops_with_each_sets_values() {
    const PALETTE: [[f32; 4]; 4] = [
        [0.1, 0.2, 0.3, 1.0],
        [0.9, 0.1, 0.5, 1.0],
        [0.3, 0.8, 0.2, 1.0],
        [0.7, 0.6, 0.9, 1.0],
    ];
    const SCALE: [f32; 4] = [0.5, 0.25, 1.0, 1.0];
    for (debug_info, extra) in [
        ("source", None),
        ("nonsemantic", None),
        ("source", Some("early")),
    ] {
        let stops = stops(
            "vk_sets",
            "vk_sets.frag",
            19,
            "mixed.r > 0.9 && base.b > 0.4",
            2,
            debug_info,
            extra.as_slice(),
        );
        assert_frames(&stops, 1);
        for (frame, stop) in stops.iter().enumerate() {
            let values = |x: u32, y: u32| {
                let (cx, cy) = (x / 8, y / 8);
                let base = PALETTE[(cx + cy + frame as u32) as usize % 4];
                let texel = texel(cx % 8, cy % 8);
                let mixed: [f32; 4] = std::array::from_fn(|i| base[i] * SCALE[i] + texel[i]);
                (base, texel, mixed)
            };
            let (x, y) = stop.assert_first_pixel(|x, y| {
                let (base, _, mixed) = values(x, y);
                mixed[0] > 0.9 && base[2] > 0.4
            });
            let (base, texel, mixed) = values(x, y);
            assert_eq!(stop.local("cell"), &serde_json::json!([x / 8, y / 8]));
            assert_eq!(stop.floats("base"), base, "{}", stop.0);
            stop.assert_near("texel", &texel, 1e-6);
            stop.assert_near("mixed", &mixed, 1e-6);
        }
    }
}

/// `vk_spec`: the pipeline specializes `GAIN` to 2.5 and `BANDS` to 5
/// (defaults 1.0 and 2); `wave = fract(p.x * 2.5 + 0.125 frame)` (exact in
/// binary), `band = int(p.y * 5)`, `level = wave * (band + 1) / 5`, with
/// p = (pixel + 0.5) / 64.
#[test]
fn specialization_constants_have_the_pipelines_values_at_a_stop() {
    for debug_info in ["source", "nonsemantic"] {
        let stops = stops(
            "vk_spec",
            "vk_spec.frag",
            18,
            "band == 3 && wave > 0.75",
            2,
            debug_info,
            &[],
        );
        assert_frames(&stops, 0);
        for (frame, stop) in stops.iter().enumerate() {
            let t = frame as f32 * 0.125;
            let p = |c: u32| (c as f32 + 0.5) / 64.0;
            let wave = |x: u32| (p(x) * 2.5 + t).fract();
            let band = |y: u32| (p(y) * 5.0) as i64;
            let (x, y) = stop.assert_first_pixel(|x, y| band(y) == 3 && wave(x) > 0.75);
            assert_eq!(stop.float("gain"), 2.5, "{}", stop.0);
            assert_eq!(stop.int("bands"), 5, "{}", stop.0);
            stop.assert_near("p", &[p(x), p(y)], 0.0);
            assert_eq!(stop.float("wave"), wave(x), "{}", stop.0);
            assert_eq!(stop.int("band"), 3, "{}", stop.0);
            let level = wave(x) * 4.0 / 5.0;
            assert!((stop.float("level") - level).abs() < 1e-6, "{}", stop.0);
        }
    }
}

/// `vk_subpass`: the second subpass of its render pass reads, as an input
/// attachment (`subpassLoad`), what the first drew there: `vk_triangle`'s
/// pattern at `t = 0.125 frame`, stored as 8-bit unorm. A breakpoint in
/// the second subpass stops at the first fragment where what it read meets
/// the condition, with that colour and its tint.
#[test]
fn a_breakpoint_in_a_second_subpass_sees_what_the_first_drew() {
    for debug_info in ["source", "nonsemantic"] {
        let stops = stops(
            "vk_subpass",
            "vk_subpass.frag",
            10,
            "seen.r > 0.5",
            2,
            debug_info,
            &[],
        );
        assert_frames(&stops, 0);
        for (frame, stop) in stops.iter().enumerate() {
            let t = frame as f32 * 0.125;
            let drawn = |x: u32, y: u32| triangle_color(x, y, t);
            let (x, y) = stop.assert_first_pixel(|x, y| drawn(x, y)[0] > 0.5);
            let seen = drawn(x, y);
            stop.assert_near("seen", &seen, 1.0 / 255.0);
            let tint = [0.5, 1.0, 0.25];
            let tinted: Vec<f32> = (0..3)
                .map(|i| seen[i] * tint[i] + if i == 0 { 0.25 } else { 0.0 })
                .collect();
            stop.assert_near("tinted", &tinted, 1.0 / 255.0);
        }
    }
}

/// `vk_triangle`'s fragment colour at pixel (x, y), frame time `t`, as
/// the second subpass of `vk_subpass` reads it (8-bit unorm).
fn triangle_color(x: u32, y: u32, t: f32) -> [f32; 4] {
    let p = [x, y].map(|c| (c as f32 + 0.5) / 32.0);
    let ring = ((p[0] - 1.0).hypot(p[1] - 1.0) * 2.0 - t).rem_euclid(1.0);
    let color = [
        (p[0] + t).fract(),
        ring,
        ((p[0] + p[1]) * 0.5 - t).rem_euclid(1.0),
        1.0,
    ];
    color.map(|c| (c * 255.0).round() / 255.0)
}

/// Breakpoints in two shaders drawn in one submission (`vk_subpass`: the
/// first subpass's draw runs `vk_triangle.frag`, the second's
/// `vk_subpass.frag`) both stop, one after the other in submission order,
/// each in its own draw at the first fragment where its condition holds,
/// with that draw's values; the frames and the validation layer's reports
/// are the program's alone.
#[test]
fn breakpoints_in_two_shaders_of_one_submission_both_stop_in_submission_order() {
    let first_frag = shader_file("vk_triangle.frag");
    let second_frag = shader_file("vk_subpass.frag");
    let breakpoints = [
        format!("{}:12:p.x > 1.5", first_frag.display()),
        format!("{}:10:seen.r > 0.5", second_frag.display()),
    ];
    let args = ["2", "64", "source"].map(String::from);
    let (events, text) = run_checked("vk_subpass", &breakpoints, &args);
    let stops = Stop::all_in(&events);
    let seen: Vec<(u64, u64, String)> = stops
        .iter()
        .map(|s| {
            let (frame, draw) = s.frame_and_draw();
            let file = s.0["file"].as_str().unwrap_or_default().to_string();
            (frame, draw, file)
        })
        .collect();
    let (first, second) = (
        first_frag.display().to_string(),
        second_frag.display().to_string(),
    );
    assert_eq!(
        seen,
        [
            (0, 0, first.clone()),
            (0, 1, second.clone()),
            (1, 0, first),
            (1, 1, second)
        ],
        "{text}"
    );
    for pair in stops.chunks(2) {
        let t = pair[0].0["frame"].as_u64().unwrap_or(0) as f32 * 0.125;
        // The first subpass's draw.
        let (x, y) = pair[0].assert_first_pixel(|x, _| (x as f32 + 0.5) / 32.0 > 1.5);
        assert_eq!(pair[0].float("t"), t, "{}", pair[0].0);
        let ring = triangle_color(x, y, t)[1];
        assert!(
            (pair[0].float("ring") - ring).abs() <= 1.0 / 255.0,
            "{}",
            pair[0].0
        );
        // The second's, reading what the first drew.
        let (x, y) = pair[1].assert_first_pixel(|x, y| triangle_color(x, y, t)[0] > 0.5);
        pair[1].assert_near("seen", &triangle_color(x, y, t), 1.0 / 255.0);
    }
}

/// A breakpoint in the vertex shader and one in the fragment shader of one
/// pipeline (`vk_triangle`'s) both stop in each frame's draw: first the
/// vertex stage's (the first vertex where its condition holds), then the
/// fragment stage's, each with its own values.
#[test]
fn vertex_and_fragment_breakpoints_of_one_pipeline_both_stop() {
    let vertex = shader_file("vk_triangle.vert");
    let fragment = shader_file("vk_triangle.frag");
    let line = common::line_of(&vertex, "gl_Position =");
    let breakpoints = [
        format!("{}:{line}:uv.x > 0.0", vertex.display()),
        format!("{}:12:p.y > 1.0", fragment.display()),
    ];
    let args = ["2", "64", "source"].map(String::from);
    let (events, text) = run_checked("vk_triangle", &breakpoints, &args);
    let stops = Stop::all_in(&events);
    let seen: Vec<(u64, u64, &str)> = stops
        .iter()
        .map(|s| {
            let (frame, draw) = s.frame_and_draw();
            (frame, draw, s.0["stage"].as_str().unwrap_or_default())
        })
        .collect();
    assert_eq!(
        seen,
        [
            (0, 0, "vertex"),
            (0, 0, "fragment"),
            (1, 0, "vertex"),
            (1, 0, "fragment")
        ],
        "{text}"
    );
    for pair in stops.chunks(2) {
        // Vertex 1: uv = (2, 0), the first with uv.x > 0.
        assert_eq!(pair[0].0["vertex"], 1, "{}", pair[0].0);
        pair[0].assert_near("uv", &[2.0, 0.0], 0.0);
        let (x, y) = pair[1].assert_first_pixel(|_, y| (y as f32 + 0.5) / 32.0 > 1.0);
        pair[1].assert_near(
            "p",
            &[(x as f32 + 0.5) / 32.0, (y as f32 + 0.5) / 32.0],
            0.0,
        );
    }
}

/// `vk_secondary`: `vk_triangle`'s draws, each in a secondary command
/// buffer of its own, executed inside a render pass begun with
/// `VK_SUBPASS_CONTENTS_SECONDARY_COMMAND_BUFFERS`, at times
/// `frame * 0.125 + i * 0.25`. A breakpoint stops in each draw where its condition holds,
/// in order (draws numbered across the secondaries), with that draw's
/// values; frames and the validation layer's reports are the program's
/// alone.
#[test]
fn breakpoints_in_draws_of_secondary_command_buffers_stop() {
    let file = shader_file("vk_triangle.frag");
    let breakpoint = format!("{}:12:t > 0.3", file.display());
    let args = ["2", "64", "source", "4"].map(String::from);
    let (events, text) = run_checked("vk_secondary", &[breakpoint], &args);
    let stops = Stop::all_in(&events);
    let seen: Vec<(u64, u64)> = stops.iter().map(Stop::frame_and_draw).collect();
    // Frame 0 draws at t = 0, 0.25, 0.5, 0.75; frame 1 at 0.125, 0.375, ...
    assert_eq!(seen, [(0, 2), (0, 3), (1, 1), (1, 2), (1, 3)], "{text}");
    for (stop, (frame, draw)) in stops.iter().zip(seen) {
        let t = frame as f32 * 0.125 + draw as f32 * 0.25;
        assert_eq!(stop.pixel(), (0, 0), "{}", stop.0);
        assert_eq!(stop.float("t"), t, "{}", stop.0);
        let ring = ((0.5f32 / 32.0 - 1.0).hypot(0.5 / 32.0 - 1.0) * 2.0 - t).rem_euclid(1.0);
        assert!((stop.float("ring") - ring).abs() < 1e-5, "{}", stop.0);
    }
}

/// `vk_sets ... full`: the pipeline layout has every descriptor set the
/// device can bind, so no twin can add the debug set: the breakpoint in
/// its fragment shader ends unverified with that reason, the session hears
/// it once per shader, and the program runs as it does alone (checked with the
/// validation layer by `run_checked`), never stopping.
#[test]
fn a_layout_without_a_free_descriptor_set_leaves_its_breakpoints_unverified() {
    let breakpoint = format!("{}:19", shader_file("vk_sets.frag").display());
    let args = ["2", "64", "source", "full"].map(String::from);
    let (events, text) = run_checked("vk_sets", &[breakpoint], &args);
    assert!(of_kind(&events, "stopped").is_empty(), "{text}");
    let bound = of_kind(&events, "breakpoint");
    let last = bound.last().expect("a breakpoint event");
    assert_eq!(last["verified"], false, "{text}");
    let message = last["message"].as_str().unwrap_or_default();
    assert!(message.contains("maxBoundDescriptorSets"), "{message}");
    // Once per shader of the pipeline (its vertex and fragment shaders).
    let said: Vec<&str> = of_kind(&events, "error")
        .iter()
        .filter_map(|e| e["message"].as_str())
        .filter(|m| m.contains("maxBoundDescriptorSets"))
        .collect();
    let mut once = said.clone();
    once.dedup();
    assert_eq!((said.len(), once.len()), (2, 2), "{text}");
}

/// `vk_chained`: the pipeline's shaders come in its stages' chains, with
/// no shader module: the layer announces them like modules, so the
/// breakpoint binds to `vk_triangle.frag` and stops at the first fragment
/// where `p = (pixel + 0.5) / 32` is past (1, 0.5).
#[test]
fn shaders_chained_into_a_pipeline_stop_like_modules() {
    for debug_info in ["source", "nonsemantic"] {
        let stops = stops(
            "vk_chained",
            "vk_triangle.frag",
            12,
            "p.x > 1.0 && p.y > 0.5",
            2,
            debug_info,
            &[],
        );
        for stop in &stops {
            let (x, y) = stop.assert_first_pixel(|x, y| {
                (x as f32 + 0.5) / 32.0 > 1.0 && (y as f32 + 0.5) / 32.0 > 0.5
            });
            stop.assert_near(
                "p",
                &[(x as f32 + 0.5) / 32.0, (y as f32 + 0.5) / 32.0],
                0.0,
            );
        }
    }
}
