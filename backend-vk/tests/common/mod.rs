//! What the layer's end-to-end tests share.

use std::path::Path;
use std::time::{Duration, Instant};

use shaderdbg_session::{Event, Session};

/// Hands the session's events to `on` until the program exits (within two
/// minutes); how it exited. `what` names the program for the failure.
#[allow(dead_code)]
pub fn run_to_exit(
    session: &mut Session,
    what: &str,
    mut on: impl FnMut(&mut Session, Event),
) -> Option<i32> {
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        assert!(Instant::now() < deadline, "{what} did not finish");
        match session.next_event(Duration::from_millis(100)) {
            Some(Event::Exited { code, .. }) => return code,
            Some(event) => on(session, event),
            None => {}
        }
    }
}

/// The `frame ...` lines among a program's output lines.
#[allow(dead_code)]
pub fn frames(lines: &[String]) -> Vec<String> {
    let frames = lines.iter().filter(|l| l.starts_with("frame "));
    frames.cloned().collect()
}

/// The environment that enables the Khronos validation layer with best
/// practices, its messages on stdout (settings in `dir`).
pub fn validation_env(dir: &Path) -> Vec<(String, String)> {
    shaderdbg_test_support::require_installed(&[
        "/usr/share/vulkan/explicit_layer.d/VkLayer_khronos_validation.json",
    ]);
    std::fs::create_dir_all(dir).expect("temp dir");
    let settings = dir.join("vk_layer_settings.txt");
    std::fs::write(
        &settings,
        "khronos_validation.debug_action = VK_DBG_LAYER_ACTION_LOG_MSG\n\
         khronos_validation.report_flags = error,warn,perf\n\
         khronos_validation.enables = VK_VALIDATION_FEATURE_ENABLE_BEST_PRACTICES_EXT\n",
    )
    .expect("settings file");
    vec![
        (
            "VK_INSTANCE_LAYERS".to_string(),
            "VK_LAYER_KHRONOS_validation".to_string(),
        ),
        (
            "VK_LAYER_SETTINGS_PATH".to_string(),
            settings.display().to_string(),
        ),
    ]
}

/// The validation layer's errors and warnings among output lines
/// (`ID(SEVERITY / TYPE): ...`): the message ids, in order.
pub fn reports(lines: &[String]) -> Vec<String> {
    lines
        .iter()
        .filter_map(|l| {
            let (id, rest) = l.split_once('(')?;
            let severity = rest.split_once(" / ")?.0;
            ["ERROR", "WARN"]
                .contains(&severity)
                .then(|| format!("{id} {severity}"))
        })
        .collect()
}
