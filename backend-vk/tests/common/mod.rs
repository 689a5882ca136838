//! What the layer's end-to-end tests share.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use shaderdbg_session::binding::FileBreakpoint;
use shaderdbg_session::launch::LaunchConfig;
use shaderdbg_session::{Event, Session, StopFilter};

/// `tests/vk-apps/shaders/NAME`, the file breakpoints name.
#[allow(dead_code)]
pub fn vk_shader(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/vk-apps/shaders")
        .join(name)
        .canonicalize()
        .expect("shader file")
}

/// The launch of `program ARGS`, with `env` added, and the agent.
#[allow(dead_code)]
pub fn launch(program: &Path, args: &[&str], env: &[(String, String)]) -> LaunchConfig {
    LaunchConfig {
        program: program.to_path_buf(),
        args: args.iter().map(|s| s.to_string()).collect(),
        env: env.to_vec(),
        agent: Some(shaderdbg_test_support::built().join("libshaderdbg_agent.so")),
        ..Default::default()
    }
}

/// A session of `program ARGS`, with `env` added, and `breakpoints`.
#[allow(dead_code)]
pub fn start(
    program: &Path,
    args: &[&str],
    env: &[(String, String)],
    breakpoints: Vec<FileBreakpoint>,
) -> Session {
    let config = launch(program, args, env);
    Session::start(&config, breakpoints, StopFilter::default()).expect("session starts")
}

/// What `program ARGS`, with `env` added, prints alone.
#[allow(dead_code)]
pub fn alone(program: &Path, args: &[&str], env: &[(String, String)]) -> Vec<String> {
    let env = env.iter().map(|(k, v)| (k, v));
    shaderdbg_test_support::stdout_lines(Command::new(program).args(args).envs(env))
}

/// Hands the session's events to `on` until the program exits (within
/// three minutes); how it exited. `what` names the program for the failure.
#[allow(dead_code)]
pub fn run_to_exit(
    session: &mut Session,
    what: &str,
    mut on: impl FnMut(&mut Session, Event),
) -> Option<i32> {
    let deadline = Instant::now() + Duration::from_secs(180);
    loop {
        assert!(Instant::now() < deadline, "{what} did not finish");
        match session.next_event(Duration::from_millis(100)) {
            Some(Event::Exited { code, .. }) => return code,
            Some(event) => on(session, event),
            None => {}
        }
    }
}

/// What a session saw of its program: what it printed, the agent's
/// errors, and how it exited.
#[derive(Default)]
pub struct Ran {
    pub output: Vec<String>,
    pub errors: Vec<String>,
    pub code: Option<i32>,
}

/// [`run_to_exit`] keeping the program's output and the agent's errors;
/// the other events go to `on`.
#[allow(dead_code)]
pub fn run_keeping(
    session: &mut Session,
    what: &str,
    mut on: impl FnMut(&mut Session, Event),
) -> Ran {
    let (mut output, mut errors) = (Vec::new(), Vec::new());
    let code = run_to_exit(session, what, |session, event| match event {
        Event::Output {
            stderr: false,
            line,
        } => output.push(line),
        Event::AgentError(m) => errors.push(m),
        other => on(session, other),
    });
    Ran {
        output,
        errors,
        code,
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
