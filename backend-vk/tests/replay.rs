//! The replay buffer against real programs on lavapipe: with the
//! self-check on (`SHADERDBG_VK_SHADOW=1`) every command buffer a program
//! submits is replaced by a shadow the layer recorded from its copy of the
//! program's commands; with `SHADERDBG_VK_SHADOW=twins` the shadows also
//! bind each pipeline's twin (made again by the layer from its copy of the
//! create info, with the debug set added to its layout) and the debug set;
//! with `recompiled` the twins' modules are compiled again (glslang) from
//! the source the layer recovered: embedded, or decompiled; with
//! `instrumented` that source is instrumented by the GLSL engine (Vulkan
//! dialect) for a hit test at the first step of `main` before compiling,
//! and the layer counts the hits the debug buffer received.
//! The frames must not change, no buffer may be left out, and the Khronos
//! validation layer below ours must find nothing new.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use shaderdbg_test_support::{validation_reports, validation_settings};

/// A directory holding the layer's manifest (as the session writes it).
/// Written once: rewriting it while another test's program starts let the
/// loader read it half-written, and that program ran without our layer.
fn layer_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("shaderdbg-vk-replay-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let library = shaderdbg_test_support::built().join(shaderdbg_protocol::vulkan::LIBRARY);
        std::fs::write(
            dir.join(shaderdbg_protocol::vulkan::MANIFEST),
            shaderdbg_protocol::vulkan::manifest(&library.display().to_string()),
        )
        .expect("manifest");
        dir
    })
}

/// `cmd` with our layer enabled (above any the program's environment adds)
/// and the self-check on in `mode` (`1` or `twins`).
fn with_self_check(cmd: &mut Command, below: &[&str], mode: &str) -> Output {
    let mut layers = vec![shaderdbg_protocol::vulkan::LAYER_NAME];
    layers.extend_from_slice(below);
    cmd.env("VK_ADD_LAYER_PATH", layer_dir())
        .env("VK_INSTANCE_LAYERS", layers.join(":"))
        .env("SHADERDBG_VK_SHADOW", mode)
        .output()
        .expect("program runs")
}

/// `(shadowed, recorded)` from the self-check's line on stderr.
fn summary(stderr: &[u8]) -> (u64, u64) {
    let text = String::from_utf8_lossy(stderr);
    let line = text
        .lines()
        .find(|l| l.starts_with("shaderdbg replay self-check:"))
        .unwrap_or_else(|| panic!("no self-check line in stderr: {text}"));
    let numbers: Vec<u64> = line
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|w| w.parse().ok())
        .collect();
    assert!(numbers.len() >= 2, "unexpected self-check line: {line}");
    assert!(
        numbers[1] == 0,
        "command buffers submitted without a shadow: {line}"
    );
    (numbers[0], numbers[1])
}

fn stdout(out: &Output) -> Vec<String> {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect()
}

const MODES: [&str; 4] = ["1", "twins", "recompiled", "instrumented"];

/// Frames of `app ARGS` alone and through shadows (with and without
/// twins) are identical; the number of shadows submitted.
fn frames_unchanged(app: &str, args: &[&str], sort: bool) -> u64 {
    let program = shaderdbg_test_support::app(app);
    let mut alone = shaderdbg_test_support::stdout_lines(Command::new(&program).args(args));
    if sort {
        // Threads print in the order they finish.
        alone.sort();
    }
    assert!(!alone.is_empty());
    let mut counts = Vec::new();
    for mode in MODES {
        let out = with_self_check(Command::new(&program).args(args), &[], mode);
        let mut shadowed = stdout(&out);
        if sort {
            shadowed.sort();
        }
        assert_eq!(
            shadowed, alone,
            "frames differ when replayed from shadows ({mode})"
        );
        counts.push(summary(&out.stderr).0);
    }
    assert!(counts.iter().all(|n| *n == counts[0]), "{counts:?}");
    counts[0]
}

/// With its modules' GLSL embedded by `glslangValidator -g` (`OpSource`)
/// and `-gVS` (NonSemantic.Shader.DebugInfo.100), and without any (the
/// source is SPIRV-Cross's).
#[test]
fn the_triangle_replayed_from_shadows_renders_the_same_frames() {
    for debug_info in ["source", "nonsemantic", "plain"] {
        let n = frames_unchanged("vk_triangle", &["3", "64", debug_info], false);
        assert_eq!(n, 3, "one command buffer per frame");
    }
}

#[test]
fn a_draw_heavy_program_replayed_from_shadows_renders_the_same_frames() {
    let n = frames_unchanged("vk_api_heavy", &["2", "300"], false);
    assert!(n >= 2, "{n}");
}

/// A compute dispatch writing a storage buffer (descriptor set 0; the
/// twins' debug set is set 1): the buffer's checksums are unchanged in
/// every mode, and the instrumented twin hits once per invocation.
#[test]
fn a_compute_dispatch_replayed_from_shadows_writes_the_same_buffer() {
    let n = frames_unchanged("vk_compute", &["2", "256"], false);
    assert_eq!(n, 2);
    let out = with_self_check(
        Command::new(shaderdbg_test_support::app("vk_compute")).args(["2", "256", "plain"]),
        &[],
        "instrumented",
    );
    assert_eq!(hits(&out.stderr), 2 * 256);
}

/// Frames unchanged in every mode for `app FRAMES 64 DEBUG_INFO`, with
/// embedded source and without (decompiled), `submissions` shadows per
/// run; instrumented, `hits` hits per frame (every fragment and vertex).
fn frames_and_hits_unchanged(app: &str, submissions: u64, hits_per_frame: u64) {
    let program = shaderdbg_test_support::app(app);
    for debug_info in ["source", "plain"] {
        let n = frames_unchanged(app, &["3", "64", debug_info], false);
        assert_eq!(n, submissions, "{app} {debug_info}");
        let out = with_self_check(
            Command::new(&program).args(["3", "64", debug_info]),
            &[],
            "instrumented",
        );
        assert_eq!(hits(&out.stderr), 3 * hits_per_frame, "{app} {debug_info}");
    }
}

/// A texture uploaded by a submission of its own, sampled through a
/// combined image sampler, with a uniform buffer in the same set; the
/// frame's command buffer recorded once and submitted every frame. The
/// quad covers the middle 32x32 pixels and has 6 vertices.
#[test]
fn a_textured_quad_replayed_from_shadows_renders_the_same_frames() {
    frames_and_hits_unchanged("vk_textured", 1 + 3, 32 * 32 + 6);
}

/// The same quad with its inputs pushed (`vkCmdPushDescriptorSetKHR`: the
/// writes copied by their descriptor types), and a storage buffer its
/// fragment shader counts in (the counts are part of its frames' lines).
#[test]
fn pushed_descriptors_replayed_from_shadows_render_the_same_frames() {
    frames_and_hits_unchanged("vk_push", 1 + 3, 32 * 32 + 6);
    validation_unchanged("vk_push", 1 + 2);
}

/// Three descriptor sets (uniform buffer, storage buffer, texture): the
/// twins' debug set is set 3.
#[test]
fn a_draw_reading_three_descriptor_sets_replayed_from_shadows_renders_the_same_frames() {
    frames_and_hits_unchanged("vk_sets", 1 + 3, 64 * 64 + 3);
}

/// Specialization constants set to other values than their defaults: the
/// twins (also those recompiled from recovered source) keep them.
#[test]
fn specialized_pipelines_replayed_from_shadows_render_the_same_frames() {
    frames_and_hits_unchanged("vk_spec", 3, 64 * 64 + 3);
}

/// Draws recorded in secondary command buffers (`vk_secondary`: two per
/// frame, executed in a render pass begun for them): the shadows execute
/// shadows of the secondaries, whose pipelines are the twins (instrumented,
/// every invocation of both draws hits), and the validation layer below
/// ours finds nothing new.
#[test]
fn secondary_command_buffers_replayed_from_shadows_render_the_same_frames() {
    frames_and_hits_unchanged("vk_secondary", 3, 2 * (64 * 64 + 3));
    validation_unchanged("vk_secondary", 2);
}

#[test]
fn devices_on_several_threads_replayed_from_shadows_render_the_same_frames() {
    let n = frames_unchanged("vk_threads", &[], true);
    assert!(n >= 2, "{n}");
}

/// vkcube (nobody here wrote it) records its command buffers once per
/// swapchain image and submits them again every frame, and destroys its
/// shader modules as soon as its pipeline exists (twins are made from the
/// code the layer kept; its modules carry no source, and SPIRV-Cross's
/// GLSL compiles back): all go through shadows, and the validation layer
/// below ours reports nothing.
#[test]
fn vkcube_runs_replayed_from_shadows() {
    shaderdbg_test_support::require_installed(&[
        "/usr/bin/vkcube",
        "/usr/bin/xvfb-run",
        "/usr/share/vulkan/explicit_layer.d/VkLayer_khronos_validation.json",
    ]);
    for mode in MODES {
        let out = with_self_check(
            Command::new("/usr/bin/xvfb-run")
                .args(["-a", "-s", "-screen 0 640x480x24", "vkcube", "--c", "20"])
                .env("VK_LAYER_SETTINGS_PATH", validation_settings()),
            &["VK_LAYER_KHRONOS_validation"],
            mode,
        );
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let (shadowed, _) = summary(&out.stderr);
        assert!(shadowed >= 20, "{shadowed}");
        assert_eq!(reports(&out), Vec::<String>::new(), "{mode}");
    }
}

/// The validation layer's reports (message ids) in a program's output.
fn reports(out: &Output) -> Vec<String> {
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    validation_reports(stdout.lines().chain(stderr.lines()))
        .into_iter()
        .map(str::to_string)
        .collect()
}

/// The validation layer below ours checks our pools, shadows and
/// submissions: it reports what it reports for the program alone.
#[test]
fn the_validation_layer_finds_nothing_in_the_shadows() {
    validation_unchanged("vk_triangle", 2);
}

/// The same for the texture (and its upload), the three descriptor sets
/// (the debug set fourth) and the specialized pipeline.
#[test]
fn the_validation_layer_finds_nothing_in_textures_sets_and_specialization() {
    validation_unchanged("vk_textured", 1 + 2);
    validation_unchanged("vk_sets", 1 + 2);
    validation_unchanged("vk_spec", 2);
}

/// `app 2 64` in every mode with the validation layer below ours reports
/// what it reports alone, through `submissions` shadows.
fn validation_unchanged(app: &str, submissions: u64) {
    let settings = validation_settings();
    let program = shaderdbg_test_support::app(app);
    let alone = Command::new(&program)
        .args(["2", "64"])
        .env("VK_INSTANCE_LAYERS", "VK_LAYER_KHRONOS_validation")
        .env("VK_LAYER_SETTINGS_PATH", settings)
        .output()
        .expect("runs");
    for mode in MODES {
        let out = with_self_check(
            Command::new(&program)
                .args(["2", "64"])
                .env("VK_LAYER_SETTINGS_PATH", settings),
            &["VK_LAYER_KHRONOS_validation"],
            mode,
        );
        assert!(out.status.success(), "{app} {mode}");
        assert_eq!(summary(&out.stderr).0, submissions, "{app} {mode}");
        assert_eq!(reports(&out), reports(&alone), "{app} {mode}");
    }
}

/// `, N hits` of the self-check line (`instrumented`).
fn hits(stderr: &[u8]) -> u64 {
    let text = String::from_utf8_lossy(stderr);
    text.lines()
        .find(|l| l.starts_with("shaderdbg replay self-check:"))
        .and_then(|l| l.rsplit_once(", ")?.1.strip_suffix(" hits")?.parse().ok())
        .unwrap_or_else(|| panic!("no hit count in: {text}"))
}

/// The instrumented twins run: with no condition, every invocation of the
/// entry step hits, so each frame of the 64x64 triangle gives one hit per
/// pixel (the triangle covers the image) and one per vertex (3), whatever
/// the module carried (embedded source, NonSemantic debug info, none).
#[test]
fn instrumented_twins_report_a_hit_for_every_invocation() {
    let program = shaderdbg_test_support::app("vk_triangle");
    for debug_info in ["source", "nonsemantic", "plain"] {
        let out = with_self_check(
            Command::new(&program).args(["3", "64", debug_info]),
            &[],
            "instrumented",
        );
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(summary(&out.stderr).0, 3);
        assert_eq!(hits(&out.stderr), 3 * (64 * 64 + 3), "{debug_info}");
    }
}
