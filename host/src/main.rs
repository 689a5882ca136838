//! `shaderdbg-host`: the built-in host. Renders a standalone fragment shader
//! on a full-screen triangle, headless (EGL pbuffer on the device platform)
//! or in an X11 window, so that the shaderdbg agent can debug it like any
//! other OpenGL program. See `host/README.md`.
//!
//! Exit status: 0 success, 1 an error (file, shader, GL, PNG), 2 a usage
//! error. stdout carries only the `pixel X Y R G B A` line of
//! `--print-pixel`; everything else goes to stderr.

mod image;
mod render;
mod source;
mod wgsl;
mod window;

use std::path::PathBuf;
use std::process::ExitCode;
use std::str::FromStr;

use anyhow::Context as _;
use clap::{CommandFactory, Parser};

use crate::render::{Job, ShaderError};
use crate::source::{context_kind, FragmentSource};

/// A command-line value that does not parse (clap prints it after the
/// option's name).
#[derive(Debug, thiserror::Error)]
enum ArgError {
    #[error("expected {expected}, got {got:?}")]
    Shape { expected: &'static str, got: String },
    #[error("{0:?} is not a size between 1 and 16384")]
    Size(String),
    #[error("{0:?} is not a valid number")]
    Number(String),
    #[error("channel {0:?}: must be 0, 1, 2 or 3")]
    Channel(String),
    #[error("empty path")]
    EmptyPath,
}

impl ArgError {
    fn shape(expected: &'static str, got: &str) -> ArgError {
        ArgError::Shape {
            expected,
            got: got.to_owned(),
        }
    }
}

/// `WxH`.
#[derive(Debug, Clone, Copy)]
struct Size {
    width: u32,
    height: u32,
}

impl FromStr for Size {
    type Err = ArgError;

    fn from_str(s: &str) -> Result<Size, ArgError> {
        let (w, h) = s
            .split_once(['x', 'X'])
            .ok_or_else(|| ArgError::shape("WIDTHxHEIGHT", s))?;
        let parse = |v: &str| -> Result<u32, ArgError> {
            match v.trim().parse::<u32>() {
                Ok(n) if (1..=16384).contains(&n) => Ok(n),
                _ => Err(ArgError::Size(v.to_owned())),
            }
        };
        Ok(Size {
            width: parse(w)?,
            height: parse(h)?,
        })
    }
}

/// `X,Y` of numbers.
#[derive(Debug, Clone, Copy)]
struct Pair<T>(T, T);

impl<T: FromStr> FromStr for Pair<T> {
    type Err = ArgError;

    fn from_str(s: &str) -> Result<Pair<T>, ArgError> {
        let (a, b) = s.split_once(',').ok_or_else(|| ArgError::shape("X,Y", s))?;
        let parse = |v: &str| {
            v.trim()
                .parse::<T>()
                .map_err(|_| ArgError::Number(v.to_owned()))
        };
        Ok(Pair(parse(a)?, parse(b)?))
    }
}

/// `N=PATH`.
#[derive(Debug, Clone)]
struct Channel {
    index: usize,
    path: PathBuf,
}

impl FromStr for Channel {
    type Err = ArgError;

    fn from_str(s: &str) -> Result<Channel, ArgError> {
        let (n, path) = s
            .split_once('=')
            .ok_or_else(|| ArgError::shape("N=PATH.png", s))?;
        let index = match n.trim() {
            "0" => 0,
            "1" => 1,
            "2" => 2,
            "3" => 3,
            other => return Err(ArgError::Channel(other.to_owned())),
        };
        if path.is_empty() {
            return Err(ArgError::EmptyPath);
        }
        Ok(Channel {
            index,
            path: PathBuf::from(path),
        })
    }
}

/// Render a standalone fragment shader on a full-screen triangle.
///
/// SHADER is either a complete fragment shader with its own `main` (compiled
/// as it is; `#version NNN es` gets an OpenGL ES 3.2 context, `#version` 150
/// and later without `compatibility` an OpenGL 4.5 core context, anything
/// else 4.5 compatibility), or a Shadertoy-style body defining
/// `void mainImage(out vec4 fragColor, in vec2 fragCoord)`, which is wrapped
/// with Shadertoy's uniforms (iResolution, iTime, iTimeDelta, iFrame, iMouse,
/// iChannel0..3, iChannelResolution) and a `main`. Frame k runs at
/// iTime = T0 + k/60. Rendering is headless (EGL) unless --window is given.
///
/// A `.wgsl` file is WGSL: its `@fragment` entry point takes
/// `@builtin(position) pos: vec4<f32>` (pixel centres, origin bottom left)
/// and returns `@location(0) vec4<f32>`; unless it declares `host` itself it
/// gets `@group(0) @binding(0) var<uniform> host: Host` with
/// `struct Host { resolution: vec2<f32>, time: f32, time_delta: f32,
/// frame: u32, mouse: vec4<f32> }`, filled like the Shadertoy uniforms.
#[derive(Debug, Parser)]
#[command(name = "shaderdbg-host", version, about, long_about)]
struct Cli {
    /// The fragment shader file (`.wgsl`: WGSL; anything else: GLSL).
    shader: PathBuf,
    /// Framebuffer size.
    #[arg(long, value_name = "WxH", default_value = "640x360")]
    size: Size,
    /// Number of frames to render [default: 1; with --window: until closed].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    frames: Option<u32>,
    /// iTime of the first frame, in seconds.
    #[arg(
        long,
        value_name = "T0",
        default_value_t = 0.0,
        allow_negative_numbers = true
    )]
    time: f32,
    /// Mouse position in pixels from the bottom left (iMouse = (X, Y, X, Y)).
    #[arg(long, value_name = "X,Y", allow_negative_numbers = true)]
    mouse: Option<Pair<f32>>,
    /// Bind a PNG to iChannelN (RGBA8, linear filtering, repeat wrap,
    /// shown upright like Shadertoy: texel row 0 is the image's bottom row).
    #[arg(long, value_name = "N=PATH.png")]
    channel: Vec<Channel>,
    /// Write the last frame to a PNG (top row first).
    #[arg(long, value_name = "OUT.png")]
    png: Option<PathBuf>,
    /// Print `pixel X Y R G B A` (0..255) of the last frame to stdout;
    /// origin bottom left, like gl_FragCoord. May be repeated.
    #[arg(long, value_name = "X,Y")]
    print_pixel: Vec<Pair<u32>>,
    /// Show the frames in an X11 window (needs DISPLAY); Escape, q or
    /// closing the window ends the program.
    #[arg(long)]
    window: bool,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    for p in &cli.print_pixel {
        if p.0 >= cli.size.width || p.1 >= cli.size.height {
            Cli::command()
                .error(
                    clap::error::ErrorKind::ValueValidation,
                    format!(
                        "--print-pixel {},{} lies outside the {}x{} frame",
                        p.0, p.1, cli.size.width, cli.size.height
                    ),
                )
                .exit();
        }
    }
    let mut seen = [false; 4];
    for c in &cli.channel {
        if std::mem::replace(&mut seen[c.index], true) {
            Cli::command()
                .error(
                    clap::error::ErrorKind::ArgumentConflict,
                    format!("--channel {} given more than once", c.index),
                )
                .exit();
        }
    }
    match run(&cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            if let Some(shader) = e.downcast_ref::<ShaderError>() {
                eprintln!("shaderdbg-host: error: {shader}");
            } else {
                eprintln!("shaderdbg-host: error: {e:#}");
            }
            ExitCode::from(1)
        }
    }
}

/// `SHADERDBG_HOST_VERBOSE` set: say on stderr how the shader is compiled.
fn verbose() -> bool {
    std::env::var_os("SHADERDBG_HOST_VERBOSE").is_some()
}

fn run(cli: &Cli) -> anyhow::Result<()> {
    let path = cli.shader.display().to_string();
    let bytes = std::fs::read(&cli.shader).with_context(|| format!("cannot read {path}"))?;
    let text = String::from_utf8(bytes).with_context(|| format!("{path} is not UTF-8 text"))?;
    let is_wgsl = cli
        .shader
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("wgsl"));
    let source = if is_wgsl {
        let shader = wgsl::compile(&text, &path).map_err(|e| ShaderError(e.to_string()))?;
        if verbose() {
            eprintln!(
                "shaderdbg-host: {path}: WGSL, @fragment `{}`, {}, compiled by naga to GLSL:\n{}",
                shader.entry_point,
                if shader.prelude {
                    "the host's `host` uniform block added"
                } else {
                    "its own `host`"
                },
                shader.glsl.trim_end()
            );
        }
        FragmentSource::generated(shader.glsl, "naga GLSL")
    } else {
        FragmentSource::new(&text)
    };

    let mut channels: [Option<image::Image>; 4] = Default::default();
    for c in &cli.channel {
        channels[c.index] = Some(
            image::load_png(&c.path)
                .with_context(|| format!("--channel {}={}", c.index, c.path.display()))?,
        );
    }

    let job = Job {
        source: &source,
        path: &path,
        width: cli.size.width,
        height: cli.size.height,
        frames: cli.frames,
        time0: cli.time,
        mouse: cli.mouse.map(|Pair(x, y)| [x, y]),
        channels,
        read_back: cli.png.is_some() || !cli.print_pixel.is_empty(),
        host_block: is_wgsl,
    };
    if verbose() && !is_wgsl {
        eprintln!(
            "shaderdbg-host: {path}: {} ({}), {} string(s), {}",
            source.version.directive(),
            if source.wrapped {
                "mainImage, wrapped"
            } else {
                "complete shader"
            },
            source.segments.len(),
            context_kind(&source.version).describe()
        );
    }
    let pixels = if cli.window {
        render::run_window(&job)?
    } else {
        render::run_headless(&job)?
    };

    if let Some(pixels) = pixels {
        let (w, h) = (cli.size.width, cli.size.height);
        for &Pair(x, y) in &cli.print_pixel {
            let i = (y as usize * w as usize + x as usize) * 4;
            let p = &pixels[i..i + 4];
            println!("pixel {x} {y} {} {} {} {}", p[0], p[1], p[2], p[3]);
        }
        if let Some(out) = &cli.png {
            image::write_png(out, w, h, &pixels)?;
        }
    }
    Ok(())
}
