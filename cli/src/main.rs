//! `shaderdbg`: the command line. Today it looks inside the GLSL engine
//! (`glsl check`, `glsl instrument`, `glsl probes`) and runs the demo; it grows
//! into the scripted/interactive front end of the session engine.

mod capture;
mod demo;
mod glsl_cmd;
mod interactive;
mod run;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "shaderdbg",
    version,
    about = "A source-level debugger for GPU shaders"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Look inside the GLSL engine.
    Glsl {
        #[command(subcommand)]
        command: glsl_cmd::GlslCommand,
    },
    /// Render the bundled demo shader headless, record one pixel, print its trace.
    Demo(demo::DemoArgs),
    /// Run a program (or a fragment shader in the built-in host, or an
    /// apitrace recording) under the debugger.
    Run(run::RunArgs),
    /// Record a program's GL calls with apitrace into a trace to debug any
    /// number of times (`run -- FILE.trace`).
    Capture(capture::CaptureArgs),
    /// Debug a program interactively (break, run, next, step, back, print,
    /// info locals, threads, continue), gdb style.
    Debug(interactive::DebugArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Glsl { command } => glsl_cmd::run(command),
        Command::Demo(args) => demo::run(args),
        Command::Run(args) => run::run(args),
        Command::Capture(args) => capture::run(args),
        Command::Debug(args) => interactive::run(args),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("shaderdbg: error: {e:#}");
            ExitCode::from(2)
        }
    }
}
