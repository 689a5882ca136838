//! `launch` arguments -> what the session engine starts. A `program` ending
//! in `.frag`/`.glsl`/`.fs`/`.wgsl` runs in the built-in host
//! `shaderdbg-host`, found next to this adapter.

use std::path::{Path, PathBuf};

use shaderdbg_session::launch::LaunchConfig;

use crate::protocol::LaunchArguments;

/// Why a launch cannot go ahead.
#[derive(Debug, thiserror::Error)]
pub enum LaunchError {
    #[error("`program` is empty")]
    EmptyProgram,
    #[error("`cwd` {} is not a directory", .0.display())]
    CwdNotADirectory(PathBuf),
    #[error("program {} does not exist", .0.display())]
    NoProgram(PathBuf),
    #[error("program {} is not a file", .0.display())]
    NotAFile(PathBuf),
    #[error("program {} is not executable", .0.display())]
    NotExecutable(PathBuf),
    #[error("{}: {source}", path.display())]
    Unreadable {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot find this executable: {0}")]
    NoExecutable(std::io::Error),
    #[error("the built-in host `shaderdbg-host` is not next to shaderdbg-dap in {} (build the workspace)", .0.display())]
    NoHost(PathBuf),
    #[error(transparent)]
    Agent(#[from] shaderdbg_session::launch::LaunchError),
}

/// A checked launch, held until `configurationDone` starts it.
#[derive(Clone, Debug)]
pub struct Plan {
    pub config: LaunchConfig,
    pub frame: Option<u64>,
    pub pixel: Option<[u32; 2]>,
    pub stop_on_entry: bool,
    /// `noDebug`: run without breakpoints or stops.
    pub no_debug: bool,
    /// The shader file the built-in host runs (stops in it are shown in it).
    pub shader_file: Option<PathBuf>,
    /// The recording replayed (`program` was a `.trace`): every replay
    /// draws the same frames, so `restart` can return to a stop.
    pub trace: Option<PathBuf>,
}

fn is_shader_file(p: &Path) -> bool {
    matches!(
        p.extension().and_then(|e| e.to_str()),
        Some("frag" | "glsl" | "fs" | "wgsl")
    )
}

/// The built-in host next to this executable (or one level up, for test
/// binaries in `target/<profile>/deps`).
pub fn host_binary() -> Result<PathBuf, LaunchError> {
    let exe = std::env::current_exe().map_err(LaunchError::NoExecutable)?;
    let dir = exe.parent().map(Path::to_path_buf).unwrap_or_default();
    [dir.join("shaderdbg-host"), dir.join("../shaderdbg-host")]
        .into_iter()
        .find(|p| p.is_file())
        .ok_or(LaunchError::NoHost(dir))
}

/// Checks the arguments and resolves the program.
pub fn plan(a: LaunchArguments) -> Result<Plan, LaunchError> {
    if a.program.trim().is_empty() {
        return Err(LaunchError::EmptyProgram);
    }
    let cwd = a
        .cwd
        .as_deref()
        .filter(|c| !c.is_empty())
        .map(PathBuf::from);
    if let Some(c) = &cwd {
        if !c.is_dir() {
            return Err(LaunchError::CwdNotADirectory(c.clone()));
        }
    }
    let program = resolve(Path::new(&a.program), cwd.as_deref());
    if !program.exists() {
        return Err(LaunchError::NoProgram(program));
    }
    if !program.is_file() {
        return Err(LaunchError::NotAFile(program));
    }
    let env = a
        .env
        .into_iter()
        .filter_map(|(k, v)| v.map(|v| (k, v)))
        .collect();
    let mut shader_file = None;
    let mut trace = None;
    let config = if shaderdbg_session::trace::is_trace_file(&program) {
        // A recording: replayed by apitrace under the agent, the same
        // frames every time.
        let file = canonical(&program)?;
        let mut c = shaderdbg_session::trace::replay_config(&file, a.args);
        trace = Some(file);
        c.cwd = cwd;
        c.env.extend(env);
        c
    } else if is_shader_file(&program) {
        let shader = canonical(&program)?;
        shader_file = Some(shader.clone());
        let mut args = vec![shader.display().to_string()];
        args.extend(a.args);
        LaunchConfig {
            program: host_binary()?,
            args,
            cwd,
            env,
            agent: None,
        }
    } else {
        use std::os::unix::fs::PermissionsExt;
        let mode = program
            .metadata()
            .map(|m| m.permissions().mode())
            .unwrap_or(0);
        if mode & 0o111 == 0 {
            return Err(LaunchError::NotExecutable(program));
        }
        LaunchConfig {
            program,
            args: a.args,
            cwd,
            env,
            agent: None,
        }
    };
    shaderdbg_session::launch::find_agent()?;
    let no_debug = a.no_debug;
    Ok(Plan {
        config,
        frame: a.frame,
        pixel: a.pixel.filter(|_| !no_debug),
        stop_on_entry: a.stop_on_entry && !no_debug,
        no_debug,
        shader_file,
        trace,
    })
}

/// Where `program` is: an absolute path as it is; a relative one from `cwd`
/// (else from here); a bare name that is not a file there from `PATH`.
fn resolve(program: &Path, cwd: Option<&Path>) -> PathBuf {
    if program.is_absolute() {
        return program.to_path_buf();
    }
    let here = match cwd {
        Some(c) => c.join(program),
        None => program.to_path_buf(),
    };
    if here.exists() || program.components().count() > 1 {
        return here;
    }
    std::env::var_os("PATH")
        .and_then(|paths| {
            std::env::split_paths(&paths)
                .map(|d| d.join(program))
                .find(|p| p.is_file())
        })
        .unwrap_or(here)
}

/// The absolute path of a file the launch names, or why it cannot be read.
fn canonical(path: &std::path::Path) -> Result<PathBuf, LaunchError> {
    path.canonicalize()
        .map_err(|source| LaunchError::Unreadable {
            path: path.to_path_buf(),
            source,
        })
}
