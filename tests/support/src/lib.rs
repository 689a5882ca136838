//! What the end-to-end tests of every crate share: the agent library, the
//! test apps and the built-in host, built once per test binary into its own
//! target directory and profile (cargo cannot make another package's
//! binaries a dependency of tests).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// `<target>/<profile>` of the running test binary (or bench).
pub fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("current_exe");
    let dir = exe.parent().expect("test binary directory");
    if dir.file_name().is_some_and(|n| n == "deps") {
        dir.parent().expect("profile directory").to_owned()
    } else {
        dir.to_owned()
    }
}

/// Builds `shaderdbg-backend-gl` (the agent), `shaderdbg-backend-vk` (the
/// Vulkan layer), `shaderdbg-test-apps`, `shaderdbg-vk-test-apps`,
/// `shaderdbg-wgpu-test-apps`, `shaderdbg-host`, `shaderdbg-dap` and
/// `shaderdbg-lsp` once, and returns the directory they are in.
pub fn built() -> &'static Path {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT.get_or_init(|| {
        let dir = built_packages(&[
            "shaderdbg-backend-gl",
            "shaderdbg-backend-vk",
            "shaderdbg-test-apps",
            "shaderdbg-vk-test-apps",
            "shaderdbg-wgpu-test-apps",
            "shaderdbg-host",
            "shaderdbg-dap",
            "shaderdbg-lsp",
        ]);
        for name in [
            "libshaderdbg_agent.so",
            "libVkLayer_shaderdbg.so",
            "single_pass",
            "vk_triangle",
            "wgpu_quad",
            "shaderdbg-host",
            "shaderdbg-dap",
            "shaderdbg-lsp",
        ] {
            assert!(dir.join(name).exists(), "{name} was not built");
        }
        dir
    })
}

/// Builds `packages` into the running binary's target directory and
/// profile (what a benchmark needs of [`built`]), and returns the directory
/// they are in.
pub fn built_packages(packages: &[&str]) -> PathBuf {
    let dir = profile_dir();
    let target = dir.parent().expect("target directory");
    let profile = dir
        .file_name()
        .expect("profile name")
        .to_string_lossy()
        .into_owned();
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.current_dir(env!("CARGO_MANIFEST_DIR")).arg("build");
    for p in packages {
        cmd.args(["-p", p]);
    }
    cmd.arg("--target-dir").arg(target);
    match profile.as_str() {
        "debug" => {}
        "release" => {
            cmd.arg("--release");
        }
        other => {
            cmd.args(["--profile", other]);
        }
    }
    let status = cmd.status().expect("running cargo build");
    assert!(status.success(), "cargo build of {packages:?} failed");
    dir
}

/// Fails the test, saying how to fix it, when a system file the test needs
/// (a program or data from a Debian package) is not installed: `cargo
/// xtask setup` installs them all, and a missing one is a failure, not a skip.
#[track_caller]
pub fn require_installed(paths: &[&str]) {
    for p in paths {
        assert!(
            Path::new(p).exists(),
            "{p} is missing: run `cargo xtask setup`"
        );
    }
}

/// The Khronos validation layer's settings file (`VK_LAYER_SETTINGS_PATH`):
/// log errors and warnings. Written once per test binary (tests run in
/// parallel; a program must not read it half-written).
pub fn validation_settings() -> &'static Path {
    static SETTINGS: OnceLock<PathBuf> = OnceLock::new();
    SETTINGS.get_or_init(|| {
        require_installed(&["/usr/share/vulkan/explicit_layer.d/VkLayer_khronos_validation.json"]);
        let dir = std::env::temp_dir().join(format!("shaderdbg-validation-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let settings = dir.join("vk_layer_settings.txt");
        std::fs::write(
            &settings,
            "khronos_validation.debug_action = VK_DBG_LAYER_ACTION_LOG_MSG\n\
             khronos_validation.report_flags = error,warn\n",
        )
        .expect("settings");
        settings
    })
}

/// The message ids of the validation layer's errors and warnings among
/// `lines` (a program's output under [`validation_settings`]), in order.
pub fn validation_reports<'a>(lines: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    lines
        .into_iter()
        .filter(|l| l.contains("(ERROR /") || l.contains("(WARN /"))
        .map(|l| l.split('(').next().unwrap_or(l))
        .collect()
}

/// `file` copied into a fresh directory of its own
/// (`$TMPDIR/shaderdbg-TAG-PID/`), same name: breakpoints bind by file, and
/// tests run in parallel.
pub fn fresh_copy(file: &Path, tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("shaderdbg-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let name = file.file_name().expect("a file name");
    let copy = dir.join(name);
    std::fs::copy(file, &copy).unwrap_or_else(|e| panic!("copy {}: {e}", file.display()));
    copy
}

/// `xvfb-run` on a fresh display of `width`x`height` (24 bits), ready for
/// the program to run under it (`.arg(program)`): a window for GLX and
/// Vulkan programs on a machine without X. Fails if Xvfb is not installed.
#[track_caller]
pub fn xvfb_run(width: u32, height: u32) -> Command {
    require_installed(&["/usr/bin/xvfb-run", "/usr/bin/Xvfb"]);
    let mut cmd = Command::new("/usr/bin/xvfb-run");
    cmd.args(["-a", "-s", &format!("-screen 0 {width}x{height}x24")]);
    cmd
}

/// Runs `cmd` to its end, fails the test unless it succeeds (showing its
/// standard error), and returns its standard output's lines.
#[track_caller]
pub fn stdout_lines(cmd: &mut Command) -> Vec<String> {
    let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?} failed ({}): {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect()
}

/// A test app (a binary of `shaderdbg-test-apps`), built.
pub fn app(name: &str) -> PathBuf {
    built().join(name)
}

/// One message of a `Content-Length` framed stream (DAP, LSP), as JSON;
/// `None` at the end of the stream or on a broken frame (the tests that
/// read one then fail on what they were waiting for).
pub fn read_frame(r: &mut impl std::io::BufRead) -> Option<serde_json::Value> {
    let mut length = None;
    loop {
        let mut line = String::new();
        if r.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        let (name, value) = line.split_once(':')?;
        if name.eq_ignore_ascii_case("content-length") {
            length = value.trim().parse::<usize>().ok();
        }
    }
    let mut body = vec![0; length?];
    r.read_exact(&mut body).ok()?;
    serde_json::from_slice(&body).ok()
}

/// Reading recorded values in tests.
pub mod values {
    use shaderdbg_core::decode::InvocationTrace;
    use shaderdbg_core::probes::ProbeTable;
    use shaderdbg_core::Value;

    /// A float value.
    #[track_caller]
    pub fn float(v: &Value) -> f32 {
        match v {
            Value::Float(x) => *x,
            other => panic!("not a float: {other:?}"),
        }
    }

    /// A vector (or array) of floats.
    #[track_caller]
    pub fn floats(v: &Value) -> Vec<f32> {
        match v {
            Value::List(items) => items.iter().map(float).collect(),
            other => panic!("not a list of floats: {other:?}"),
        }
    }

    /// The value of `name` in scope at the last step of the entry point
    /// (depth 0).
    #[track_caller]
    pub fn final_value(inv: &InvocationTrace, table: &ProbeTable, name: &str) -> Value {
        let step = (0..inv.steps.len())
            .rev()
            .find(|&i| inv.steps[i].depth == 0)
            .expect("a step in the entry point");
        inv.variables_at(step, table)
            .into_iter()
            .find(|(d, _)| table.vars[*d].name == name)
            .and_then(|(_, v)| v)
            .unwrap_or_else(|| panic!("{name} has no value at the last step"))
    }
}

/// Timing for the benchmarks that print figures, and what they run
/// programs under: callgrind, a scripted debugger.
pub mod bench {
    use std::hint::black_box;
    use std::io::BufReader;
    use std::os::unix::net::{UnixListener, UnixStream};
    use std::path::Path;
    use std::process::{Command, ExitStatus, Stdio};
    use std::time::{Duration, Instant};

    use shaderdbg_core::Stage;
    use shaderdbg_protocol::{self as proto, FromAgent, ToAgent};

    /// CPU time the whole process has used so far, its threads' together
    /// (a driver's worker threads too): on a machine others load, a
    /// steadier measure of work than the wall clock.
    pub fn process_cpu_time() -> Duration {
        let mut t = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `t` is a valid timespec for the call to fill.
        let ok = unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut t) } == 0;
        if !ok {
            return Duration::ZERO;
        }
        Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
    }

    /// `cmd` under callgrind (children not traced). The profiles are
    /// dropped unless `SHADERDBG_CALLGRIND_OUT` names where to keep them (a
    /// callgrind `--callgrind-out-file` pattern, such as `/tmp/cg.%p`, for
    /// `callgrind_annotate`).
    pub fn under_callgrind(cmd: &Command) -> Command {
        let out = std::env::var("SHADERDBG_CALLGRIND_OUT").unwrap_or_else(|_| "/dev/null".into());
        let mut c = Command::new("valgrind");
        c.arg("--tool=callgrind")
            .arg(format!("--callgrind-out-file={out}"))
            .arg(cmd.get_program())
            .args(cmd.get_args());
        for (k, v) in cmd.get_envs() {
            match v {
                Some(v) => c.env(k, v),
                None => c.env_remove(k),
            };
        }
        c
    }

    /// The instructions callgrind counted, from its standard error.
    pub fn collected(stderr: &str) -> Option<u64> {
        stderr
            .lines()
            .find_map(|l| l.split("Collected :").nth(1))
            .and_then(|n| n.trim().parse().ok())
    }

    /// The instructions `cmd` runs under callgrind (`None`: no valgrind,
    /// or it failed).
    pub fn callgrind(cmd: &Command) -> Option<u64> {
        let out = under_callgrind(cmd).output().ok()?;
        collected(&String::from_utf8_lossy(&out.stderr))
    }

    /// A breakpoint a scripted debugger sets on the first line containing
    /// `needle`, with `condition`, in every shader it is told of that has
    /// such a line (of `stage`; `None`: of any stage).
    #[derive(Clone, Copy)]
    pub struct Breakpoint<'a> {
        pub needle: &'a str,
        pub condition: &'a str,
        pub stage: Option<Stage>,
    }

    /// How a program ran under a scripted debugger: its exit status, what
    /// it printed (standard error only where the caller piped it), the
    /// agent's errors, and how many shaders the breakpoint was set in.
    pub struct Debugged {
        pub status: ExitStatus,
        pub stdout: String,
        pub stderr: String,
        pub errors: Vec<String>,
        pub set: usize,
    }

    /// Runs `cmd`, whose environment loads the agent (`LD_PRELOAD`, or the
    /// Vulkan layer), with a debugger scripted over the agent's socket (in
    /// a fresh directory in `dir`): `breakpoint` set in every shader it
    /// binds in, every stop resumed, the first only after `at_stop` ran
    /// (its requests go over the socket); `setup` is sent after `Hello`. A
    /// breakpoint that does not bind fails the bench: it would measure
    /// nothing.
    pub fn debug(
        dir: &Path,
        mut cmd: Command,
        breakpoint: Option<Breakpoint>,
        setup: &[ToAgent],
        mut at_stop: impl FnMut(&mut UnixStream, &mut BufReader<UnixStream>),
    ) -> Debugged {
        let sock_dir = dir.join(format!("bench-sock-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&sock_dir);
        std::fs::create_dir_all(&sock_dir).expect("socket dir");
        let path = sock_dir.join("agent.sock");
        let listener = UnixListener::bind(&path).expect("bind");
        let child = cmd
            .env(proto::SOCKET_ENV, &path)
            .stdout(Stdio::piped())
            .spawn()
            .expect("spawn");
        let (stream, _) = listener.accept().expect("accept");
        let mut w = stream.try_clone().expect("clone");
        let mut r = BufReader::new(stream);
        let (mut stopped, mut errors, mut set) = (false, Vec::new(), 0);
        let send = |w: &mut UnixStream, msg: &ToAgent| {
            proto::write_message(w, msg).expect("the agent hears");
        };
        while let Ok(Some(msg)) = proto::read_message::<_, FromAgent>(&mut r) {
            match msg {
                FromAgent::Hello { .. } => {
                    send(
                        &mut w,
                        &ToAgent::Hello {
                            version: proto::VERSION,
                        },
                    );
                    for msg in setup {
                        send(&mut w, msg);
                    }
                }
                FromAgent::ShaderCompiled {
                    shader,
                    sources,
                    stage,
                    ..
                } => {
                    let text = sources.concat();
                    let at = breakpoint
                        .filter(|b| b.stage.is_none_or(|s| s == stage))
                        .and_then(|b| Some((b, text.lines().position(|l| l.contains(b.needle))?)));
                    if let Some((b, line)) = at {
                        let breakpoints = vec![proto::LineBreakpoint {
                            id: 0,
                            line: line as u32 + 1,
                            condition: Some(b.condition.to_string()),
                        }];
                        send(
                            &mut w,
                            &ToAgent::SetBreakpoints {
                                shader,
                                breakpoints,
                            },
                        );
                        set += 1;
                    }
                    send(&mut w, &ToAgent::Resume);
                }
                FromAgent::BreakpointStatus {
                    line: None,
                    message,
                    ..
                } => panic!("the bench's breakpoint did not bind: {message:?}"),
                FromAgent::Stopped { .. } => {
                    if !stopped {
                        stopped = true;
                        at_stop(&mut w, &mut r);
                    }
                    send(&mut w, &ToAgent::Resume);
                }
                FromAgent::Error { message, .. } => errors.push(message),
                _ => {}
            }
        }
        let out = child.wait_with_output().expect("wait");
        let _ = std::fs::remove_dir_all(&sock_dir);
        Debugged {
            status: out.status,
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            errors,
            set,
        }
    }

    /// Runs `f` `n` times (after one warm-up run) and returns the median duration.
    pub fn median<T>(n: usize, f: impl FnMut() -> T) -> Duration {
        let times = times(n, f);
        times[times.len() / 2]
    }

    /// Runs `f` `n` times (at least once, after one warm-up run): the
    /// durations, shortest first (on a shared machine the minimum is the
    /// steadier figure, the median the typical one).
    pub fn times<T>(n: usize, mut f: impl FnMut() -> T) -> Vec<Duration> {
        black_box(f());
        let mut times: Vec<Duration> = (0..n.max(1))
            .map(|_| {
                let t = Instant::now();
                black_box(f());
                t.elapsed()
            })
            .collect();
        times.sort();
        times
    }
}
