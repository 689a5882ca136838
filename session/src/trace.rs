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
/// end at the swaps it recorded, as `apitrace dump` shows them; see
/// [`DumpFrames`]). The retracer is started directly (`eglretrace` or
/// `glretrace`, as `apitrace replay` would choose from the trace's API), so
/// that the process the session starts, and ends on `terminate` or a
/// restart, is the one that draws (`apitrace replay` forks it). Without a
/// display, EGL traces replay on a surfaceless EGL platform.
pub fn replay_config(trace: &Path, mut extra_args: Vec<String>) -> LaunchConfig {
    let (program, mut args) = match retracer(trace) {
        Some(r) => (PathBuf::from(r), Vec::new()),
        None => (PathBuf::from("apitrace"), vec!["replay".to_string()]),
    };
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
        program,
        args,
        env,
        ..Default::default()
    }
}

/// The retracer for `trace`, from the API `apitrace info` reports (`None`:
/// unknown; `apitrace replay` then chooses).
fn retracer(trace: &Path) -> Option<&'static str> {
    let out = std::process::Command::new("apitrace")
        .arg("info")
        .arg(trace)
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    let info: serde_json::Value = serde_json::from_slice(&out.stdout).ok()?;
    retracer_for_api(info.get("API")?.as_str()?)
}

/// `eglretrace` for EGL traces, `glretrace` for GLX/WGL/CGL ones.
fn retracer_for_api(api: &str) -> Option<&'static str> {
    if api.contains("EGL") {
        Some("eglretrace")
    } else if api.contains("OpenGL") {
        Some("glretrace")
    } else {
        None
    }
}

/// The frames of a trace as `apitrace dump` shows them: a frame ends with a
/// swap call (`eglSwapBuffers`, `glXSwapBuffers`, ...), frames count from 0,
/// and each frame lists its draw and dispatch calls (call number, function)
/// in order: the agent's "draw D, frame F" of a replay is
/// `frames[F].draws[D]` (one context; the agent counts per context).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DumpFrames {
    pub frames: Vec<DumpFrame>,
    /// How many GL contexts the trace makes current (the agent numbers
    /// frames and draws per context: with several, the dump's global
    /// numbering is not the agent's).
    pub contexts: usize,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DumpFrame {
    /// (call number, function name) of each draw or dispatch.
    pub draws: Vec<(u64, String)>,
    /// The swap call that ends the frame (`None`: the calls after the last swap).
    pub swap: Option<u64>,
}

impl DumpFrames {
    /// Reads `apitrace dump --color=never` output: each call is a line
    /// `NUMBER function(args...)`; continuation lines (strings with line
    /// breaks) do not start with a call number and a name.
    pub fn parse(dump: &str) -> DumpFrames {
        let mut frames = Vec::new();
        let mut cur = DumpFrame::default();
        let mut contexts = std::collections::BTreeSet::new();
        // Inside a string argument that spans lines (shader sources).
        let mut in_string = false;
        for line in dump.lines() {
            let was_in_string = in_string;
            in_string ^= unescaped_quotes(line) % 2 == 1;
            if was_in_string {
                continue;
            }
            let Some((number, rest)) = line.split_once(' ') else {
                continue;
            };
            let Ok(call) = number.parse::<u64>() else {
                continue;
            };
            let name: &str = rest
                .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .next()
                .unwrap_or("");
            if name.is_empty() || !rest[name.len()..].starts_with('(') {
                continue;
            }
            if name.contains("MakeCurrent") || name.contains("MakeContextCurrent") {
                if let Some(ctx) = rest.split("ctx = ").nth(1).and_then(|c| {
                    c.split([',', ')'])
                        .next()
                        .filter(|c| *c != "NULL" && *c != "0")
                }) {
                    contexts.insert(ctx.to_string());
                }
            }
            if is_draw(name) {
                cur.draws.push((call, name.to_string()));
            } else if is_swap(name) {
                cur.swap = Some(call);
                frames.push(std::mem::take(&mut cur));
            }
        }
        if !cur.draws.is_empty() {
            frames.push(cur);
        }
        DumpFrames {
            frames,
            contexts: contexts.len(),
        }
    }

    /// Runs `apitrace dump` on `trace` and reads it.
    pub fn of(trace: &Path) -> std::io::Result<DumpFrames> {
        let out = std::process::Command::new("apitrace")
            .args(["dump", "--color=never"])
            .arg(trace)
            .stderr(std::process::Stdio::null())
            .output()?;
        if !out.status.success() {
            return Err(std::io::Error::other(format!(
                "apitrace dump {} failed ({})",
                trace.display(),
                out.status
            )));
        }
        Ok(DumpFrames::parse(&String::from_utf8_lossy(&out.stdout)))
    }

    /// The call number of draw `draw` of frame `frame` (`None` also when
    /// the trace has several contexts: see [`DumpFrames::contexts`]).
    pub fn call(&self, frame: u64, draw: u64) -> Option<u64> {
        if self.contexts > 1 {
            return None;
        }
        let f = self.frames.get(usize::try_from(frame).ok()?)?;
        f.draws.get(usize::try_from(draw).ok()?).map(|d| d.0)
    }
}

/// The `"` in a line of `apitrace dump` output that are not `\"`.
fn unescaped_quotes(line: &str) -> usize {
    let mut n = 0;
    let mut escaped = false;
    for c in line.chars() {
        if escaped {
            escaped = false;
        } else if c == '\\' {
            escaped = true;
        } else if c == '"' {
            n += 1;
        }
    }
    n
}

/// The calls that end a frame in a replay (glretrace's frame boundaries).
fn is_swap(name: &str) -> bool {
    matches!(
        name,
        "eglSwapBuffers"
            | "eglSwapBuffersWithDamageEXT"
            | "eglSwapBuffersWithDamageKHR"
            | "glXSwapBuffers"
            | "wglSwapBuffers"
            | "wglSwapLayerBuffers"
            | "CGLFlushDrawable"
    )
}

/// The calls the agent counts as draws (and dispatches).
fn is_draw(name: &str) -> bool {
    name.starts_with("glDraw") && !name.starts_with("glDrawBuffer")
        || name.starts_with("glMultiDraw")
        || name.starts_with("glDispatchCompute")
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
        // No such file: `apitrace replay` chooses.
        let c = replay_config(Path::new("/nonexistent/app.trace"), Vec::new());
        assert_eq!(c.program, PathBuf::from("apitrace"));
        assert_eq!(c.args, ["replay", "/nonexistent/app.trace"]);
        assert_eq!(
            retracer_for_api("OpenGL/GLES1/GLES2/VG + EGL"),
            Some("eglretrace")
        );
        assert_eq!(retracer_for_api("OpenGL + GLX/WGL/CGL"), Some("glretrace"));
        assert_eq!(retracer_for_api("Direct3D 11"), None);
        let cmd = capture_command(TraceApi::Egl, Path::new("/tmp/o.trace"), &["app".into()]);
        assert_eq!(
            cmd.join(" "),
            "apitrace trace --api egl -o /tmp/o.trace app"
        );
    }

    #[test]
    fn dump_frames_end_at_swaps() {
        let dump = "\
20 eglMakeCurrent(dpy = 0x1, draw = 0x2, read = 0x2, ctx = 0x3) = EGL_TRUE
982 glShaderSource(shader = 3, count = 1, string = &\"#version 330 core
12 glDrawArrays(mode = GL_TRIANGLES) is text \\\"quoted\\\" in a string
\", length = NULL)
990 glDrawBuffers(n = 1, bufs = {GL_COLOR_ATTACHMENT0})
999 glDrawArrays(mode = GL_TRIANGLES, first = 0, count = 3)
1000 glDrawElements(mode = GL_TRIANGLES, count = 3, type = GL_UNSIGNED_INT, indices = NULL)
1006 eglSwapBuffers(dpy = 0x1, surface = 0x2) = EGL_TRUE

1013 glDispatchCompute(num_groups_x = 1, num_groups_y = 1, num_groups_z = 1)
1020 eglSwapBuffers(dpy = 0x1, surface = 0x2) = EGL_TRUE

1040 eglMakeCurrent(dpy = 0x1, draw = NULL, read = NULL, ctx = NULL) = EGL_TRUE
";
        let f = DumpFrames::parse(dump);
        assert_eq!(f.frames.len(), 2, "{f:?}");
        assert_eq!(
            f.frames[0].draws,
            [
                (999, "glDrawArrays".into()),
                (1000, "glDrawElements".into())
            ]
        );
        assert_eq!(f.frames[0].swap, Some(1006));
        assert_eq!(f.frames[1].draws, [(1013, "glDispatchCompute".into())]);
        assert_eq!(f.call(0, 1), Some(1000));
        assert_eq!(f.call(1, 0), Some(1013));
        assert_eq!(f.call(2, 0), None);
        assert_eq!(f.contexts, 1);
        let two = format!(
            "{dump}1041 eglMakeCurrent(dpy = 0x1, draw = 0x2, read = 0x2, ctx = 0x4) = EGL_TRUE\n"
        );
        let f = DumpFrames::parse(&two);
        assert_eq!(f.contexts, 2);
        assert_eq!(f.call(0, 0), None, "numbered per context by the agent");
    }
}
