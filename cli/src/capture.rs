//! `shaderdbg capture`: record a program's GL calls with apitrace, to debug
//! the recording any number of times (`shaderdbg run --break ... -- FILE.trace`
//! replays it under the agent; every replay draws the same frames).

use std::path::PathBuf;
use std::process::{Command, ExitCode};

use anyhow::{bail, Context, Result};
use clap::{Args, ValueEnum};
use shaderdbg_session::trace::{self, TraceApi};

#[derive(Clone, Copy, ValueEnum)]
pub enum Api {
    /// Desktop OpenGL through GLX (glmark2, most X11 programs).
    Gl,
    /// OpenGL or OpenGL ES through EGL.
    Egl,
}

#[derive(Args)]
pub struct CaptureArgs {
    /// Which window-system API the program uses.
    #[arg(long, value_enum, default_value = "gl")]
    pub api: Api,
    /// The trace file to write.
    #[arg(
        short,
        long,
        value_name = "FILE.trace",
        default_value = "capture.trace"
    )]
    pub output: PathBuf,
    /// The program and its arguments (after `--`, or without it).
    #[arg(
        trailing_var_arg = true,
        allow_hyphen_values = true,
        required = true,
        value_name = "PROGRAM [ARGS]..."
    )]
    pub command: Vec<String>,
}

pub fn run(a: CaptureArgs) -> Result<ExitCode> {
    if !trace::is_trace_file(&a.output) {
        bail!(
            "{}: a trace file's name ends in .trace (replays find it by that)",
            a.output.display()
        );
    }
    let api = match a.api {
        Api::Gl => TraceApi::Gl,
        Api::Egl => TraceApi::Egl,
    };
    let cmd = trace::capture_command(api, &a.output, &a.command);
    let status = Command::new(&cmd[0])
        .args(&cmd[1..])
        .status()
        .with_context(|| "running apitrace (Debian package `apitrace`)".to_string())?;
    if !status.success() {
        bail!("apitrace trace failed ({status})");
    }
    eprintln!(
        "captured {}; debug it with: shaderdbg run --break FILE:LINE -- {}",
        a.output.display(),
        a.output.display()
    );
    Ok(ExitCode::SUCCESS)
}
