//! `shaderdbg demo`: the whole product on a bundled shader. The built-in host
//! renders `demo/demo.frag` (a Shadertoy-style shader) headless; it runs
//! under the agent; a conditional breakpoint in `shade` stops at one pixel; the
//! stop is printed with its locals and the recorded execution of that fragment.

use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::Args;

use crate::run::{self, BreakpointArgs, RunArgs, TargetArgs};

const DEMO_SHADER: &str = include_str!("../demo/demo.frag");

#[derive(Args)]
pub struct DemoArgs {
    /// Pixel to stop at, X,Y (gl_FragCoord; origin bottom-left of the 640x360 frame).
    #[arg(long, default_value = "200,150")]
    pixel: String,
    /// Condition of the breakpoint on `c += lights[i].color * falloff;`.
    #[arg(long, default_value = "falloff > 0.5")]
    condition: String,
    /// One JSON object per line instead of text.
    #[arg(long)]
    json: bool,
}

pub fn run(args: DemoArgs) -> Result<ExitCode> {
    let dir = std::env::temp_dir().join(format!("shaderdbg-demo-{}", std::process::id()));
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let file = dir.join("demo.frag");
    std::fs::write(&file, DEMO_SHADER).with_context(|| format!("writing {}", file.display()))?;
    let line = DEMO_SHADER
        .lines()
        .position(|l| l.contains("c += lights[i].color * falloff;"))
        .context("the demo shader has no breakpoint line")? as u32
        + 1;
    eprintln!(
        "demo: running {} in the built-in host under the agent; breakpoint at line {line} if {}, pixel {}",
        file.display(),
        args.condition,
        args.pixel
    );
    let result = run::run(RunArgs {
        breakpoints: BreakpointArgs {
            breaks: vec![format!("{}:{line}:{}", file.display(), args.condition)],
            ..Default::default()
        },
        max_stops: None,
        json: args.json,
        trace: true,
        screenshot: None,
        timeout: Some(120.0),
        sanitize: Vec::new(),
        sources: Vec::new(),
        target: TargetArgs {
            pixel: Some(args.pixel),
            frame: Some(0),
            command: vec![file.display().to_string()],
        },
    });
    let _ = std::fs::remove_dir_all(&dir);
    result
}
