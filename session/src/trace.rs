//! Recorded traces (apitrace): a program's GL calls captured once with
//! `apitrace trace`, replayed deterministically by `apitrace replay` (which
//! picks glretrace or eglretrace) under the agent. A stop in a trace can be
//! revisited: every replay draws the same frames.

use std::path::{Path, PathBuf};

use crate::launch::LaunchConfig;

/// Whether `path` names an apitrace file.
pub fn is_trace_file(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "trace")
}

/// Replays `trace` (frame N of the trace is frame N of the session: frames
/// end at the swaps it recorded). Without a display, EGL traces replay on
/// a surfaceless EGL platform.
pub fn replay_config(trace: &Path, mut extra_args: Vec<String>) -> LaunchConfig {
    let mut args = vec!["replay".to_string()];
    args.append(&mut extra_args);
    args.push(trace.display().to_string());
    let headless =
        std::env::var_os("DISPLAY").is_none() && std::env::var_os("WAYLAND_DISPLAY").is_none();
    let env = if headless && std::env::var_os("WAFFLE_PLATFORM").is_none() {
        vec![("WAFFLE_PLATFORM".to_string(), "surfaceless_egl".to_string())]
    } else {
        Vec::new()
    };
    LaunchConfig {
        program: PathBuf::from("apitrace"),
        args,
        env,
        ..Default::default()
    }
}

/// Which API a program draws with, for `apitrace trace --api`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TraceApi {
    /// Desktop GL through GLX.
    Gl,
    /// OpenGL or GLES through EGL.
    Egl,
}

/// The command that captures `program args` into `output`.
pub fn capture_command(api: TraceApi, output: &Path, program: &[String]) -> Vec<String> {
    let api = match api {
        TraceApi::Gl => "gl",
        TraceApi::Egl => "egl",
    };
    let mut cmd = vec![
        "apitrace".to_string(),
        "trace".into(),
        "--api".into(),
        api.into(),
        "-o".into(),
        output.display().to_string(),
    ];
    cmd.extend(program.iter().cloned());
    cmd
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn traces_replay_through_apitrace() {
        assert!(is_trace_file(Path::new("/tmp/app.trace")));
        assert!(!is_trace_file(Path::new("/tmp/app.frag")));
        let c = replay_config(Path::new("/tmp/app.trace"), Vec::new());
        assert_eq!(c.program, PathBuf::from("apitrace"));
        assert_eq!(c.args, ["replay", "/tmp/app.trace"]);
        let cmd = capture_command(TraceApi::Egl, Path::new("/tmp/o.trace"), &["app".into()]);
        assert_eq!(
            cmd.join(" "),
            "apitrace trace --api egl -o /tmp/o.trace app"
        );
    }
}
