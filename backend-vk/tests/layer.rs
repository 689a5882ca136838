//! The layer in a real Vulkan program (`vk_triangle`, on lavapipe), under
//! the real session engine: the session enables it through the loader's
//! environment, the program renders exactly what it renders alone, the
//! shader's embedded GLSL binds to the user's file by content, and naga
//! decompiles modules that carry no source.

use std::path::{Path, PathBuf};

use shaderdbg_session::binding::FileBreakpoint;
use shaderdbg_session::{Event, Session, Stage, StopFilter};

mod common;
use common::{alone, frames, launch, reports, run_keeping, start, validation_env, vk_shader};

fn shader_file() -> PathBuf {
    vk_shader("vk_triangle.frag")
}

/// What a session on `vk_triangle ARGS` reported, in order.
#[derive(Default)]
struct Seen {
    loaded: Vec<(Stage, Option<PathBuf>)>,
    bound: Vec<(Option<u32>, Option<String>)>,
    output: Vec<String>,
    errors: Vec<String>,
    frames_seen_as_stops: usize,
    /// The variables at the first stop, by name.
    first_stop: Vec<(String, Option<shaderdbg_core::Value>)>,
    /// The sources of the shaders the session knows, by stage, at exit.
    sources: Vec<(Stage, String)>,
    /// Frames ended, as the session counted them.
    frames: u64,
    exit: Option<i32>,
}

fn debug(args: &[&str], breakpoints: Vec<FileBreakpoint>) -> Seen {
    let dir = shaderdbg_test_support::built();
    run(&dir.join("vk_triangle"), args, &[], breakpoints)
}

/// `program ARGS` (with `env` added) under the session with these
/// breakpoints, to its end.
fn run(
    program: &Path,
    args: &[&str],
    env: &[(String, String)],
    breakpoints: Vec<FileBreakpoint>,
) -> Seen {
    let mut session = start(program, args, env, breakpoints);
    let mut seen = Seen::default();
    let what = program.display().to_string();
    let ran = run_keeping(&mut session, &what, |session, event| match event {
        Event::ShaderLoaded { stage, file, .. } => seen.loaded.push((stage, file)),
        Event::BreakpointBound { line, message, .. } => seen.bound.push((line, message)),
        Event::Stopped(stop) => {
            if seen.frames_seen_as_stops == 0 {
                seen.first_stop = stop
                    .variables(stop.cursor)
                    .into_iter()
                    .map(|v| (v.name, v.value))
                    .collect();
            }
            seen.frames_seen_as_stops += 1;
            session.resume();
        }
        Event::Halted(_) => {
            seen.frames_seen_as_stops += 1;
            session.resume();
        }
        _ => {}
    });
    (seen.output, seen.errors, seen.exit) = (ran.output, ran.errors, ran.code);
    seen.frames = session.frame();
    let mut shaders = session.shaders();
    shaders.sort_by_key(|s| s.shader);
    seen.sources = shaders.into_iter().map(|s| (s.stage, s.source)).collect();
    seen
}

/// [`run`] of `program ARGS`, checked to end normally and print what it
/// prints alone.
fn run_unchanged(program: &Path, args: &[&str], breakpoints: Vec<FileBreakpoint>) -> Seen {
    let alone = alone(program, args, &[]);
    let seen = run(program, args, &[], breakpoints);
    assert_eq!(seen.exit, Some(0), "{:?}", seen.errors);
    assert_eq!(seen.output, alone, "{} {args:?}", program.display());
    seen
}

/// What `vk_triangle ARGS` prints alone.
fn plain(args: &[&str]) -> Vec<String> {
    alone(&shaderdbg_test_support::app("vk_triangle"), args, &[])
}

#[test]
fn embedded_glsl_binds_to_the_file_and_frames_are_unchanged() {
    let bp = FileBreakpoint::new(shader_file(), 12, Some("ring > 0.5".into()));
    let seen = debug(&["3", "64"], vec![bp]);
    assert_eq!(seen.exit, Some(0));
    assert_eq!(
        seen.output,
        plain(&["3", "64"]),
        "frames differ under the layer"
    );
    assert_eq!(seen.output.len(), 3);
    // No swapchain: each frame's one submission ends it.
    assert_eq!(seen.frames, 3);
    let stages: Vec<Stage> = seen.loaded.iter().map(|(s, _)| *s).collect();
    assert_eq!(stages, [Stage::Vertex, Stage::Fragment]);
    assert_eq!(seen.loaded[1].1.as_deref(), Some(shader_file().as_path()));
    assert!(seen.errors.is_empty(), "{:?}", seen.errors);
    // Each frame's submission stops once (the session records the first
    // hit and resumes): the shadows and the recording's re-execution leave
    // the frames as they were.
    assert_eq!(seen.frames_seen_as_stops, 3);
    assert_eq!(seen.bound, [(Some(12), None)]);
}

/// SPIR-V whose source travels in NonSemantic.Shader.DebugInfo.100
/// (`glslangValidator -gVS`, what shaderc writes): the same binding as `-g`.
#[test]
fn nonsemantic_debug_info_binds_to_the_file() {
    let bp = FileBreakpoint::new(shader_file(), 11, None);
    let seen = debug(&["2", "32", "nonsemantic"], vec![bp]);
    assert_eq!(seen.exit, Some(0));
    assert_eq!(seen.output, plain(&["2", "32", "nonsemantic"]));
    assert!(seen.errors.is_empty(), "{:?}", seen.errors);
    assert_eq!(seen.loaded[1], (Stage::Fragment, Some(shader_file())));
    let text = std::fs::read_to_string(shader_file()).expect("the file");
    assert!(seen.sources[1].1.ends_with(&text), "{}", seen.sources[1].1);
}

/// A fragment shader written in HLSL (`glslangValidator -D`, with `-g` or
/// `-gVS`: the SPIR-V carries HLSL): the module is announced with that text
/// so the user's file binds, the breakpoint there is unverified with the
/// reason, and the program runs untouched (no stop, frames as alone).
#[test]
fn a_breakpoint_in_an_hlsl_file_is_unverified_with_why_and_the_program_runs_untouched() {
    let file = vk_shader("vk_hlsl.frag.hlsl");
    let app = shaderdbg_test_support::app("vk_hlsl");
    for debug_info in ["source", "nonsemantic"] {
        let bp = FileBreakpoint::new(file.clone(), 10, None);
        let seen = run_unchanged(&app, &["2", "32", debug_info], vec![bp]);
        assert!(seen.errors.is_empty(), "{:?}", seen.errors);
        assert_eq!(seen.frames_seen_as_stops, 0);
        assert_eq!(seen.loaded[1], (Stage::Fragment, Some(file.clone())));
        assert_eq!(seen.bound.len(), 1, "{:?}", seen.bound);
        let (line, message) = &seen.bound[0];
        assert_eq!(*line, None);
        let message = message.as_deref().unwrap_or("");
        assert!(
            message.contains("the module's source is HLSL, not GLSL or WGSL")
                && message.contains("runs as the program made it"),
            "{message}"
        );
    }
}

/// A fragment shader in GLSL ES 3.10 with a loop to unroll (`vk_es`, as
/// Android programs write them). With debug information, a breakpoint in
/// its file stops with its values (its instrumented twin used to say
/// `#version 310 core`, which glslang refuses); without, it is decompiled
/// as GLSL ES 3.20 (SPIRV-Cross wrote `#version 460 es`), its hint a
/// macro, and a breakpoint in that text stops too. Frames as alone.
#[test]
fn glsl_es_with_loop_hints_stops_with_and_without_debug_information() {
    let app = shaderdbg_test_support::app("vk_es");
    let at_color = |text: &str| {
        text.lines()
            .position(|l| l.trim_start().starts_with("color = "))
            .expect("the line writing color") as u32
            + 1
    };
    let file = vk_shader("vk_es.frag");
    let text = std::fs::read_to_string(&file).expect("the shader");
    let bp = FileBreakpoint::new(file, at_color(&text), None);
    let seen = run_unchanged(&app, &["2", "32", "source"], vec![bp]);
    assert!(seen.errors.is_empty(), "{:?}", seen.errors);
    assert_eq!(seen.frames_seen_as_stops, 2, "{:?}", seen.bound);
    let ring = seen.first_stop.iter().find(|(n, _)| n == "ring");
    assert!(
        matches!(ring, Some((_, Some(shaderdbg_core::Value::Float(r)))) if (0.0..=2.0).contains(r)),
        "{:?}",
        seen.first_stop
    );

    let (dir, file, decompiled) = fragment_in_a_file(&app, &["1", "32", "plain"], "vk-es");
    assert!(decompiled.starts_with("#version 320 es"), "{decompiled}");
    assert!(decompiled.contains("SPIRV_CROSS_UNROLL\n"), "{decompiled}");
    let bp = FileBreakpoint::new(file, at_color(&decompiled), None);
    let seen = run_unchanged(&app, &["2", "32", "plain"], vec![bp]);
    let _ = std::fs::remove_dir_all(&dir);
    assert!(seen.errors.is_empty(), "{:?}", seen.errors);
    assert_eq!(seen.frames_seen_as_stops, 2, "{:?}", seen.bound);
}

/// HLSL sampling a `Texture2D` with a `SamplerState` (`vk_separate`: a
/// sampled image and a sampler descriptor), without debug information:
/// decompiled to Vulkan GLSL's separate `texture2D` and `sampler`, which
/// the engine now reads; a breakpoint on the `texture` line of that text
/// stops with the interpolated coordinate inside [0, 1]. Frames as alone.
#[test]
fn separate_textures_and_samplers_decompiled_from_hlsl_stop() {
    let app = shaderdbg_test_support::app("vk_separate");
    let (dir, file, decompiled) = fragment_in_a_file(&app, &["1", "32", "plain"], "vk-separate");
    for construct in ["uniform texture2D", "uniform sampler ", "sampler2D("] {
        assert!(decompiled.contains(construct), "{construct}: {decompiled}");
    }
    let line = decompiled
        .lines()
        .position(|l| l.contains("texture("))
        .expect("a texture call") as u32
        + 1;
    let seen = run_unchanged(
        &app,
        &["2", "32", "plain"],
        vec![FileBreakpoint::new(file, line, None)],
    );
    let _ = std::fs::remove_dir_all(&dir);
    assert!(seen.errors.is_empty(), "{:?}", seen.errors);
    assert_eq!(seen.frames_seen_as_stops, 2, "{:?}", seen.bound);
    assert_texture_coordinate(&seen, "uv");
}

/// Three threads with an instance, a device and a queue each, rendering at
/// once: every module is announced and bound, the frames are the ones the
/// program renders alone.
#[test]
fn instances_and_devices_on_several_threads_run_unchanged() {
    let app = shaderdbg_test_support::app("vk_threads");
    let bp = FileBreakpoint::new(shader_file(), 11, None);
    let seen = run_unchanged(&app, &["3", "3", "32"], vec![bp]);
    assert!(seen.errors.is_empty(), "{:?}", seen.errors);
    assert_eq!(seen.output.len(), 9);
    let fragments: Vec<&Option<PathBuf>> = seen
        .loaded
        .iter()
        .filter(|(stage, _)| *stage == Stage::Fragment)
        .map(|(_, file)| file)
        .collect();
    assert_eq!(fragments.len(), 3, "{:?}", seen.loaded);
    assert!(fragments
        .iter()
        .all(|f| f.as_deref() == Some(shader_file().as_path())));
    assert_eq!(seen.loaded.len(), 6);
}

#[test]
fn modules_without_source_are_decompiled_and_run_unchanged() {
    let seen = debug(&["2", "32", "plain"], vec![]);
    assert_eq!(seen.exit, Some(0));
    assert_eq!(seen.output, plain(&["2", "32", "plain"]));
    // Both modules decompiled: loaded, with no file of the user's, as
    // Vulkan GLSL that keeps the push constant block.
    assert_eq!(
        seen.loaded,
        [(Stage::Vertex, None), (Stage::Fragment, None)],
        "{:?}",
        seen.errors
    );
    let frag = &seen.sources[1].1;
    assert!(frag.contains("push_constant"), "{frag}");
    assert!(frag.contains("gl_FragCoord"), "{frag}");
}

/// vkcube (Debian's vulkan-tools), a program nobody here wrote, under
/// Xvfb: both of its shaders (SPIR-V without source; the fragment shader
/// samples a texture, which naga's SPIR-V reader rejects) are decompiled,
/// and it runs to its end.
#[test]
fn vkcube_runs_under_the_layer_with_its_shaders_decompiled() {
    let seen = run(Path::new(XVFB), &vkcube("3"), &[], vec![]);
    assert_eq!(seen.exit, Some(0), "{:?}", seen.errors);
    assert!(seen.errors.is_empty(), "{:?}", seen.errors);
    // A swapchain: frames end at presents (`--c 3`), not at submissions.
    assert_eq!(seen.frames, 3);
    let stages: Vec<Stage> = seen.sources.iter().map(|(s, _)| *s).collect();
    assert_eq!(stages, [Stage::Vertex, Stage::Fragment]);
    let frag = &seen.sources[1].1;
    assert!(frag.contains("texture("), "{frag}");
}

/// `xvfb-run`, which runs vkcube on a display of its own.
const XVFB: &str = "/usr/bin/xvfb-run";

/// The arguments of [`XVFB`] that run vkcube for `frames` frames (its
/// shaders decompiled by SPIRV-Cross); fails unless all are installed.
fn vkcube(frames: &str) -> [&str; 6] {
    shaderdbg_test_support::require_installed(&["/usr/bin/vkcube", XVFB, "/usr/bin/spirv-cross"]);
    ["-a", "-s", "-screen 0 640x480x24", "vkcube", "--c", frames]
}

/// vkcube's fragment shader as the layer decompiles it (vkcube run with
/// `args` under the session), written to a file (`fragment_in_a_file`)
/// `shaderdbg-TAG-PID`: the directory, the file and the text.
fn vkcube_fragment(args: &[&str], tag: &str) -> (PathBuf, PathBuf, String) {
    fragment_in_a_file(Path::new(XVFB), args, tag)
}

/// The fragment shader (the second module) of `program ARGS` as the layer
/// recovers it, written to `shader.frag` in a fresh directory
/// `shaderdbg-TAG-PID`: the directory, the file and the text.
fn fragment_in_a_file(program: &Path, args: &[&str], tag: &str) -> (PathBuf, PathBuf, String) {
    let first = run(program, args, &[], vec![]);
    let frag = first.sources[1].1.clone();
    let dir = std::env::temp_dir().join(format!("shaderdbg-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("shader.frag");
    std::fs::write(&file, &frag).expect("write");
    (dir, file, frag)
}

/// The first two components of the vector `name` at the first stop (a
/// texture coordinate), each asserted inside [0, 1].
fn assert_texture_coordinate(seen: &Seen, name: &str) {
    let value = seen
        .first_stop
        .iter()
        .find(|(n, _)| n == name)
        .and_then(|(_, v)| v.clone());
    let Some(shaderdbg_core::Value::List(c)) = value else {
        panic!("no {name} at the stop: {:?}", seen.first_stop);
    };
    for v in &c[..2] {
        assert!(
            matches!(v, shaderdbg_core::Value::Float(f) if (0.0..=1.0).contains(f)),
            "{c:?}"
        );
    }
}

/// The Khronos validation layer (Debian's vulkan-validationlayers), below
/// ours, reports the same for `vk_triangle` with and without the debugger
/// (its best-practices warnings included, which shows it is checking): the
/// layer causes nothing it would report.
/// Three draws per submission: the shadows bind the debug set again
/// before each draw (its own part of the debug buffer in the hit test,
/// the buffer or the scratch header in the recording).
#[test]
fn the_validation_layer_reports_nothing_that_ours_causes() {
    let dir = std::env::temp_dir().join(format!("shaderdbg-vk-validation-{}", std::process::id()));
    let env = validation_env(&dir);
    let args = ["2", "64", "source", "3"];
    let program = shaderdbg_test_support::app("vk_triangle");
    let alone = alone(&program, &args, &env);
    let expected = reports(&alone);
    assert!(
        !expected.is_empty(),
        "the validation layer reported nothing even with best practices: {alone:?}"
    );
    let bp = FileBreakpoint::new(shader_file(), 11, None);
    let seen = run(&program, &args, &env, vec![bp]);
    assert_eq!(seen.exit, Some(0), "{:?}", seen.errors);
    // A stop in each of the 3 draws of both frames.
    assert_eq!(seen.frames_seen_as_stops, 6, "{:?}", seen.errors);
    assert_eq!(reports(&seen.output), expected, "{:#?}", seen.output);
    assert_eq!(frames(&seen.output), frames(&alone));
    let _ = std::fs::remove_dir_all(&dir);
}

/// vkcube's fragment shader has no source in its SPIR-V: the GLSL the layer
/// decompiled, saved to a file, is a file breakpoints bind to by content.
/// A breakpoint on its `texture` line stops with the interpolated texture
/// coordinate inside [0, 1] (the cube's faces are textured edge to edge),
/// and vkcube runs to its end.
#[test]
fn vkcube_stops_in_its_decompiled_fragment_shader() {
    let vkcube = vkcube("3");
    let (dir, file, frag) = vkcube_fragment(&vkcube, "vkcube");
    let line = frag
        .lines()
        .position(|l| l.contains("texture("))
        .expect("a texture call") as u32
        + 1;
    let bp = FileBreakpoint::new(file, line, None);
    let seen = run(Path::new(XVFB), &vkcube, &[], vec![bp]);
    assert_eq!(seen.exit, Some(0), "{:?}", seen.errors);
    assert!(
        seen.frames_seen_as_stops >= 1,
        "{:?} {:?}",
        seen.bound,
        seen.errors
    );
    assert_texture_coordinate(&seen, "texcoord");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Pause (the debugger's pause button) stops the next submission that runs
/// a module, every invocation of its first module at the start of `main`,
/// once; the program then runs to its end with its frames unchanged.
#[test]
fn pause_stops_the_next_submission_once() {
    let program = shaderdbg_test_support::app("vk_triangle");
    let mut session = start(&program, &["3", "64"], &[], vec![]);
    session.pause();
    let mut reasons = Vec::new();
    let ran = run_keeping(&mut session, "vk_triangle", |session, event| {
        if let Event::Stopped(stop) = event {
            reasons.push((stop.reason, stop.stage, stop.hits.len()));
            session.resume();
        }
    });
    assert_eq!(ran.code, Some(0));
    assert_eq!(reasons.len(), 1, "{reasons:?}");
    let (reason, stage, hits) = reasons[0];
    assert_eq!(reason, shaderdbg_core::control::StopReason::Pause);
    // The vertex shader is the pipeline's first module: its three vertices.
    assert_eq!((stage, hits), (Stage::Vertex, 3));
    assert_eq!(ran.output, plain(&["3", "64"]));
}

/// A second render pass that LOADs what the first drew (an overlay pass,
/// here with additive blending and a loaded depth attachment, in its own
/// submission): the layer keeps the loaded attachments before the hit test
/// and puts them back before each re-execution, so the program stops in the
/// overlay's fragment shader, a recording of another invocation and a
/// watch over every fragment run it again, and each frame is the one the
/// program renders alone (blending over a doubly drawn image would
/// differ). The watch of `gl_FragCoord.y` says its origin (Vulkan's is
/// top-left): the stopped fragment's slot holds its own y, and the image
/// shown upright has the largest y in its bottom row. The validation layer
/// reports only what it reports without ours.
#[test]
fn a_render_pass_that_loads_its_attachments_stops_and_runs_again_unchanged() {
    stops_over_what_a_pass_loads(&["2", "64"]);
}

/// The same with dynamic rendering (`vkCmdBeginRendering` loading the
/// attachments, their layouts changed by the program's barriers).
#[test]
fn dynamic_rendering_that_loads_its_attachments_stops_and_runs_again_unchanged() {
    stops_over_what_a_pass_loads(&["2", "64", "dynamic"]);
}

/// `vk_two_passes ARGS` under the session with the validation layer: see
/// the tests above.
fn stops_over_what_a_pass_loads(args: &[&str]) {
    use shaderdbg_core::Value;
    use shaderdbg_session::images::Origin;
    let name = format!(
        "shaderdbg-vk-two-passes-{}-{}",
        std::process::id(),
        args.len()
    );
    let dir = std::env::temp_dir().join(name);
    let env = validation_env(&dir);
    let program = shaderdbg_test_support::app("vk_two_passes");
    let alone = alone(&program, args, &env);
    let bp = FileBreakpoint::new(shader_file(), 12, Some("ring > 0.9 && p.x > 1.0".into()));
    let mut session = start(&program, args, &env, vec![bp]);
    let p_at = |x: u32, y: u32| {
        Value::List(vec![
            Value::Float((x as f32 + 0.5) / 32.0),
            Value::Float((y as f32 + 0.5) / 32.0),
        ])
    };
    let mut stops = 0;
    let ran = run_keeping(&mut session, "vk_two_passes", |session, event| {
        let Event::Stopped(stop) = event else { return };
        stops += 1;
        let [x, y] = stop.hit.invocation.pixel().expect("a fragment");
        assert_eq!(var(&stop, "p"), Some(p_at(x, y)), "at ({x}, {y})");
        // Another invocation, recorded by running the pass again.
        let other = *stop.hits.last().expect("hits");
        let [ox, oy] = other.invocation.pixel().expect("a fragment");
        let again = session.record_hit(other).expect("records");
        assert_eq!(var(&again, "p"), Some(p_at(ox, oy)));
        let img = session.watch(12, "gl_FragCoord.y").expect("watches");
        assert_eq!(img.origin, Origin::TopLeft);
        assert_eq!((img.width, img.height), (64, 64));
        assert_eq!(img.at(x, y), Some(&Value::Float(y as f32 + 0.5)));
        let upright = img.bottom_row_first();
        assert_eq!(upright[0], Some(&Value::Float(63.5)), "bottom row first");
        assert_eq!(upright[64 * 63], Some(&Value::Float(0.5)), "top row last");
        session.resume();
    });
    assert_eq!(ran.code, Some(0), "{:?}", ran.errors);
    assert!(ran.errors.is_empty(), "{:?}", ran.errors);
    assert_eq!(stops, 2, "one stop per frame's overlay pass");
    assert_eq!(frames(&ran.output), frames(&alone), "frames differ");
    assert_eq!(frames(&ran.output).len(), 2);
    assert_eq!(reports(&ran.output), reports(&alone), "{:#?}", ran.output);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The value of local `name` at a stop's cursor.
fn var(stop: &shaderdbg_session::stop::Stop, name: &str) -> Option<shaderdbg_core::Value> {
    stop.variables(stop.cursor)
        .into_iter()
        .find(|v| v.name == name)
        .and_then(|v| v.value)
}

/// A compute shader that updates a storage image in place (each texel
/// three times what it held, plus its position and the frame): the layer
/// keeps the storage image the dispatch binds before the hit test and puts
/// it back before the recording runs the dispatch again, so each frame's
/// stop sees the texel the previous frame left, and the image ends as it
/// does alone (running the update twice would triple it again). The
/// validation layer reports only what it reports without ours.
#[test]
fn a_dispatch_updating_a_storage_image_stops_and_the_image_ends_unchanged() {
    let dir = std::env::temp_dir().join(format!("shaderdbg-vk-image-{}", std::process::id()));
    let env = validation_env(&dir);
    let program = shaderdbg_test_support::app("vk_image");
    let alone = alone(&program, &["3"], &env);
    let bp = FileBreakpoint::new(
        vk_shader("vk_image.comp"),
        14,
        Some("p == ivec2(5, 3)".into()),
    );
    let seen = run(&program, &["3"], &env, vec![bp]);
    assert_eq!(seen.exit, Some(0), "{:?}", seen.errors);
    assert!(seen.errors.is_empty(), "{:?}", seen.errors);
    assert_eq!(seen.frames_seen_as_stops, 3, "one stop per frame");
    // The first stop (frame 0) reads nothing; the texel's values per frame
    // are checked through the image's checksums.
    let old = seen.first_stop.iter().find(|(n, _)| n == "old");
    assert_eq!(
        old.and_then(|(_, v)| v.clone()),
        Some(shaderdbg_core::Value::Uint(0)),
        "{:?}",
        seen.first_stop
    );
    assert_eq!(frames(&seen.output), frames(&alone), "the image differs");
    assert_eq!(frames(&alone).len(), 3);
    assert_eq!(reports(&seen.output), reports(&alone), "{:#?}", seen.output);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Where a loaded attachment cannot be kept (a transient depth attachment
/// cannot have transfer usage), the overlay pass is not hit-tested: the
/// program runs as it does alone, and the session hears why, once.
#[test]
fn a_loaded_attachment_that_cannot_be_copied_refuses_the_stop_with_why() {
    let program = shaderdbg_test_support::app("vk_two_passes");
    let bp = FileBreakpoint::new(shader_file(), 12, None);
    let seen = run_unchanged(&program, &["2", "64", "transient"], vec![bp]);
    assert_eq!(seen.frames_seen_as_stops, 0);
    let why = "a render pass loads an attachment that cannot be kept: its image \
               cannot be copied: it is a transient attachment";
    let said: Vec<&String> = seen.errors.iter().filter(|e| e.contains(why)).collect();
    assert_eq!(said.len(), 1, "{:?}", seen.errors);
}

/// vk_triangle's colour at pixel (`x`, `y`) (Vulkan's framebuffer
/// coordinates, y down) at time `t`, as RGBA8: its fragment shader on the
/// CPU (`shaders/vk_triangle.frag`).
fn triangle_rgba(x: u32, y: u32, t: f32) -> [u8; 4] {
    let fract = |v: f32| v - v.floor();
    let (px, py) = ((x as f32 + 0.5) / 32.0, (y as f32 + 0.5) / 32.0);
    let ring = fract(((px - 1.0).powi(2) + (py - 1.0).powi(2)).sqrt() * 2.0 - t);
    let c = [fract(px + t), ring, fract((px + py) * 0.5 - t), 1.0];
    c.map(|v| (v.clamp(0.0, 1.0) * 255.0).round() as u8)
}

/// Whether two RGBA8 colours agree within one step per channel (the GPU's
/// float rounding may differ from the CPU's at a step's edge).
fn close(a: [u8; 4], b: [u8; 4]) -> bool {
    a.iter().zip(b).all(|(a, b)| a.abs_diff(b) <= 1)
}

/// A screenshot while stopped in vk_triangle (no swapchain: its colour
/// attachment, left for a copy by its render pass) shows the frame the
/// program renders: at the stopped pixel the colour its recorded locals
/// (`p`, `t`, `ring`) give, elsewhere the shader's formula computed on the
/// CPU, bottom row first. The copy leaves the image as it found it: the frames'
/// checksums are the program's own, and the validation layer reports
/// only what it reports without ours.
#[test]
fn a_screenshot_while_stopped_shows_what_the_submission_drew() {
    use shaderdbg_core::Value;
    use shaderdbg_session::ScreenshotAt;
    let dir = std::env::temp_dir().join(format!("shaderdbg-vk-shot-{}", std::process::id()));
    let env = validation_env(&dir);
    let args = ["2", "64"];
    let program = shaderdbg_test_support::app("vk_triangle");
    let alone = alone(&program, &args, &env);
    let bp = FileBreakpoint::new(shader_file(), 12, Some("p.y > 1.5".into()));
    let mut session = start(&program, &args, &env, vec![bp]);
    let float = |v: Option<Value>| match v {
        Some(Value::Float(f)) => f,
        other => panic!("not a float: {other:?}"),
    };
    let mut stops = 0;
    let ran = run_keeping(&mut session, "vk_triangle", |session, event| {
        let Event::Stopped(stop) = event else { return };
        stops += 1;
        let [x, y] = stop.hit.invocation.pixel().expect("a fragment");
        assert!(y >= 48, "the condition holds at ({x}, {y})");
        let t = float(var(&stop, "t"));
        let ring = float(var(&stop, "ring"));
        let Some(Value::List(p)) = var(&stop, "p") else {
            panic!("no p");
        };
        let (px, py) = (float(Some(p[0].clone())), float(Some(p[1].clone())));
        let shot = session.screenshot(ScreenshotAt::Now).expect("a screenshot");
        assert_eq!((shot.width, shot.height), (64, 64));
        assert_eq!(shot.rgba.len(), 64 * 64 * 4);
        // Row 0 is the bottom row: Vulkan's row y is row 63 - y.
        let at = |x: u32, y: u32| -> [u8; 4] {
            let i = (((63 - y) * 64 + x) * 4) as usize;
            shot.rgba[i..i + 4].try_into().expect("4 bytes")
        };
        let fract = |v: f32| v - v.floor();
        let from_locals = [fract(px + t), ring, fract((px + py) * 0.5 - t), 1.0]
            .map(|v: f32| (v.clamp(0.0, 1.0) * 255.0).round() as u8);
        assert!(
            close(at(x, y), from_locals),
            "at the stop ({x}, {y}): {:?} vs the locals' {from_locals:?}",
            at(x, y)
        );
        for (qx, qy) in [(0, 0), (63, 0), (5, 60), (40, 17), (63, 63)] {
            let want = triangle_rgba(qx, qy, t);
            assert!(
                close(at(qx, qy), want),
                "({qx}, {qy}): {:?} vs {want:?}",
                at(qx, qy)
            );
        }
        // The top and bottom rows differ (p.y enters two channels), so a
        // screenshot upside down would fail above.
        assert_ne!(at(0, 0), at(0, 63));
        session.resume();
    });
    assert_eq!(ran.code, Some(0), "{:?}", ran.errors);
    assert!(ran.errors.is_empty(), "{:?}", ran.errors);
    assert_eq!(stops, 2, "one stop per frame");
    assert_eq!(frames(&ran.output), frames(&alone), "frames differ");
    assert_eq!(reports(&ran.output), reports(&alone), "{:#?}", ran.output);
    let _ = std::fs::remove_dir_all(&dir);
}

/// 64-bit FNV-1a, as the Vulkan test programs print their frames' checksums.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// Screenshots at frames' ends in a program without a swapchain (frames end
/// at its submissions): each is the frame the program renders, checked
/// against the checksum it prints of its own copy of the image (top row
/// first: the screenshot's rows reversed); a request for a frame that
/// already ended (sent while stopped in a later one) gets an error saying so.
#[test]
fn screenshots_at_frames_ends_are_the_frames_the_program_renders() {
    use shaderdbg_session::ScreenshotAt;
    let args = ["3", "64"];
    let alone = plain(&args);
    let config = launch(&shaderdbg_test_support::app("vk_triangle"), &args, &[]);
    // A stop in frame 2 asks for frame 0's end, which has passed.
    let bp = FileBreakpoint::new(shader_file(), 12, None);
    let filter = StopFilter {
        frame: Some(2),
        ..Default::default()
    };
    let mut session = Session::start(&config, vec![bp], filter).expect("starts");
    let first = session.request_screenshot(ScreenshotAt::FrameEnd { frame: None });
    let second = session.request_screenshot(ScreenshotAt::FrameEnd { frame: Some(1) });
    let mut shots = Vec::new();
    let mut late = None;
    let mut answered_late = false;
    let ran = run_keeping(&mut session, "vk_triangle", |session, event| match event {
        Event::Screenshot { request, result } if request == first || request == second => {
            let shot = result.expect("a screenshot");
            if request == second {
                assert_eq!(shot.frame, 1);
            }
            shots.push(shot);
        }
        Event::Stopped(_) => {
            if late.is_none() {
                late = Some(session.request_screenshot(ScreenshotAt::FrameEnd { frame: Some(0) }));
            }
            session.resume();
        }
        Event::Screenshot { request, result } if Some(request) == late => {
            let e = result.expect_err("frame 0 has ended");
            assert!(e.to_string().contains("already ended"), "{e}");
            answered_late = true;
        }
        _ => {}
    });
    assert_eq!(ran.code, Some(0));
    assert_eq!(ran.output, alone, "frames differ");
    assert_eq!(shots.len(), 2);
    assert!(answered_late, "no answer for a frame that had ended");
    for shot in &shots {
        assert_eq!((shot.width, shot.height), (64, 64));
        let top_first: Vec<u8> = shot
            .rgba
            .chunks_exact(64 * 4)
            .rev()
            .flatten()
            .copied()
            .collect();
        let want = format!("frame {} checksum {:016x}", shot.frame, fnv1a(&top_first));
        assert!(alone.contains(&want), "{want} not in {alone:?}");
    }
}

/// vkcube (under Xvfb) stopped in its decompiled fragment shader at the
/// line that textures the cube: a screenshot of the stopped submission is
/// its swapchain image (copied by the layer, which adds transfer-source
/// usage to the swapchain where the surface supports it), and at the
/// stopped pixel it shows the colour that line assigns there (its
/// right-hand side, the lit texel, watched for every fragment), bottom
/// row first; vkcube runs to its end.
#[test]
fn a_screenshot_of_vkcube_at_a_stop_shows_the_textured_pixel() {
    use shaderdbg_core::Value;
    use shaderdbg_session::ScreenshotAt;
    let vkcube = vkcube("2");
    let xvfb = Path::new(XVFB);
    let (dir, file, frag) = vkcube_fragment(&vkcube, "vkcube-shot");
    let (index, text) = frag
        .lines()
        .enumerate()
        .find(|(_, l)| l.contains("texture(") && l.contains('='))
        .expect("an assignment of a texture call");
    let line = index as u32 + 1;
    let rhs = text
        .split_once('=')
        .expect("=")
        .1
        .trim()
        .trim_end_matches(';');
    let env = validation_env(&dir.join("validation"));
    let alone = alone(xvfb, &vkcube, &env);
    let bp = FileBreakpoint::new(file.clone(), line, None);
    let mut session = start(xvfb, &vkcube, &env, vec![bp]);
    let at_end = session.request_screenshot(ScreenshotAt::FrameEnd { frame: Some(1) });
    let mut at_end_seen = false;
    let mut stops = 0;
    // Not a blank image: the cube is textured.
    let textured = |rgba: &[u8]| {
        let distinct: std::collections::HashSet<&[u8]> = rgba.chunks_exact(4).collect();
        assert!(distinct.len() > 100, "{} colours", distinct.len());
    };
    let ran = run_keeping(&mut session, "vkcube", |session, event| match event {
        Event::Stopped(stop) => {
            stops += 1;
            if stops == 1 {
                let [x, y] = stop.hit.invocation.pixel().expect("a fragment");
                let shot = session.screenshot(ScreenshotAt::Now).expect("a screenshot");
                assert!(
                    shot.width > x && shot.height > y,
                    "{}x{}",
                    shot.width,
                    shot.height
                );
                let colour = session.watch(line, rhs).expect("watches the colour");
                let Some(Value::List(c)) = colour.at(x, y).cloned() else {
                    panic!("no colour at ({x}, {y}): {:?}", colour.at(x, y));
                };
                let want: Vec<u8> = c[..3]
                    .iter()
                    .map(|v| match v {
                        Value::Float(f) => (f.clamp(0.0, 1.0) * 255.0).round() as u8,
                        other => panic!("{other:?}"),
                    })
                    .collect();
                let i = (((shot.height - 1 - y) * shot.width + x) * 4) as usize;
                let got = &shot.rgba[i..i + 3];
                assert!(
                    got.iter().zip(&want).all(|(g, w)| g.abs_diff(*w) <= 1),
                    "at ({x}, {y}): the screenshot shows {got:?}, the line assigns {want:?}"
                );
                textured(&shot.rgba);
            }
            session.resume();
        }
        Event::Screenshot { request, result } if request == at_end => {
            // What frame 1 presents: the textured cube.
            let shot = result.expect("a screenshot at frame 1's end");
            assert_eq!(shot.frame, 1);
            textured(&shot.rgba);
            at_end_seen = true;
        }
        _ => {}
    });
    assert_eq!(ran.code, Some(0), "{:?}", ran.errors);
    assert!(stops >= 1, "{:?}", ran.errors);
    assert!(ran.errors.is_empty(), "{:?}", ran.errors);
    assert!(at_end_seen, "no screenshot at frame 1's end");
    // The copies' barriers (and the widened swapchain usage) leave the
    // validation layer as silent as without us: the same kinds of report
    // (their counts differ: the stop's shadows begin with vkcube's
    // simultaneous-use flag, which best practices remark on at each begin).
    let kinds = |lines: &[String]| {
        let mut k = reports(lines);
        k.sort();
        k.dedup();
        k
    };
    assert_eq!(kinds(&ran.output), kinds(&alone), "{:#?}", ran.output);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A screenshot while stopped in a submission that draws nothing (vk_image's
/// dispatch) is an error saying why, and the program runs on unchanged.
#[test]
fn a_screenshot_of_a_dispatch_says_there_is_nothing_drawn() {
    use shaderdbg_session::ScreenshotAt;
    let program = shaderdbg_test_support::app("vk_image");
    let alone = alone(&program, &["2"], &[]);
    let bp = FileBreakpoint::new(
        vk_shader("vk_image.comp"),
        14,
        Some("p == ivec2(5, 3)".into()),
    );
    let mut session = start(&program, &["2"], &[], vec![bp]);
    let mut stops = 0;
    let ran = run_keeping(&mut session, "vk_image", |session, event| {
        if let Event::Stopped(_) = event {
            stops += 1;
            let e = session
                .screenshot(ScreenshotAt::Now)
                .expect_err("nothing drawn");
            assert!(e.to_string().contains("draws in no render pass"), "{e}");
            session.resume();
        }
    });
    assert_eq!(ran.code, Some(0));
    assert_eq!(stops, 2);
    assert_eq!(ran.output, alone);
}

/// A debugger that leaves while the program is stopped (detaches mid-stop,
/// as DAP `disconnect` does) lets it go on unobserved: the stopped
/// submission and every later frame are what the program renders alone,
/// and no later submission stops.
#[test]
fn a_debugger_that_detaches_mid_stop_leaves_the_program_running_unchanged() {
    let program = shaderdbg_test_support::app("vk_triangle");
    let bp = FileBreakpoint::new(shader_file(), 12, Some("ring > 0.5".into()));
    let mut session = start(&program, &["4", "64"], &[], vec![bp]);
    let mut stops = 0;
    let ran = run_keeping(&mut session, "vk_triangle", |session, event| {
        if let Event::Stopped(_) = event {
            stops += 1;
            session.detach();
        }
    });
    assert_eq!(ran.code, Some(0));
    assert_eq!(stops, 1, "no stop after the detach");
    assert_eq!(ran.output, plain(&["4", "64"]), "frames differ");
}

/// `vk_submit2`: each frame's `vkQueueSubmit2` waits for a timeline
/// semaphore (the previous frame's value), signals its next value and a
/// fence. Stopped in (the hit test in the submission's place, the
/// recording's re-execution) and resumed, or attached without a
/// breakpoint, it signals what it signals alone: the program prints each
/// frame with whether its fence was signalled and the timeline's value.
/// The validation layer (synchronization checks included) reports nothing
/// of ours.
#[test]
fn queue_submit2_signals_its_timeline_and_fence_as_alone_when_stopped() {
    let dir = std::env::temp_dir().join(format!("shaderdbg-vk-submit2-{}", std::process::id()));
    let env = validation_env(&dir);
    let program = shaderdbg_test_support::app("vk_submit2");
    let args = ["3", "64"];
    let alone = alone(&program, &args, &env);
    assert_eq!(
        frames(&alone)
            .iter()
            .map(|l| l.split_once(" fence ").map(|(_, s)| s.to_string()))
            .collect::<Vec<_>>(),
        ["true timeline 10", "true timeline 20", "true timeline 30"].map(|s| Some(s.into())),
    );
    let bp = FileBreakpoint::new(shader_file(), 12, Some("ring > 0.5".into()));
    let stopped = run(&program, &args, &env, vec![bp]);
    let attached = run(&program, &args, &env, Vec::new());
    for (seen, stops) in [(&stopped, 3), (&attached, 0)] {
        assert_eq!(seen.exit, Some(0), "{:?}", seen.errors);
        assert!(seen.errors.is_empty(), "{:?}", seen.errors);
        assert_eq!(seen.frames_seen_as_stops, stops);
        assert_eq!(frames(&seen.output), frames(&alone));
        assert_eq!(reports(&seen.output), reports(&alone), "{:#?}", seen.output);
    }
    let t = stopped.first_stop.iter().find(|(n, _)| n == "t");
    assert_eq!(
        t.and_then(|(_, v)| v.clone()),
        Some(shaderdbg_core::Value::Float(0.0))
    );
    let _ = std::fs::remove_dir_all(&dir);
}
