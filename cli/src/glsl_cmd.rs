//! `shaderdbg glsl ...`: diagnostics, probe tables and instrumented GLSL.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand, ValueEnum};
use shaderdbg_core::Invocation;
use shaderdbg_glsl::analysis::Model;
use shaderdbg_glsl::instrument::{self, Breakpoint, Mode, Request, Target};
use shaderdbg_glsl::parse::{parse, IncludeResolver, Origin, Parsed};
use shaderdbg_glsl::{ide, shadertoy, Diagnostic, Severity, Stage};

#[derive(Subcommand)]
pub enum GlslCommand {
    /// Parse and analyse shaders; print diagnostics as FILE:LINE:COL: message.
    Check {
        #[arg(long, value_parser = parse_stage)]
        stage: Option<Stage>,
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Print the probe table (every step, condition, write... with its line).
    Probes {
        #[arg(long, value_parser = parse_stage)]
        stage: Option<Stage>,
        file: PathBuf,
    },
    /// Print the instrumented GLSL.
    Instrument(InstrumentArgs),
}

#[derive(Args)]
pub struct InstrumentArgs {
    /// Record one invocation (select it with --fragment, --vertex or --compute).
    #[arg(long)]
    record: bool,
    /// Fragment to record: X,Y or X,Y,PRIMITIVE (gl_FragCoord, origin bottom-left).
    #[arg(long, value_name = "X,Y[,PRIM]")]
    fragment: Option<String>,
    /// Vertex to record: VERTEX or VERTEX,INSTANCE.
    #[arg(long, value_name = "V[,I]")]
    vertex: Option<String>,
    /// Compute invocation to record: X,Y,Z (gl_GlobalInvocationID).
    #[arg(long, value_name = "X,Y,Z")]
    compute: Option<String>,
    /// Hit test for a breakpoint at LINE, optionally with a GLSL condition.
    #[arg(long, value_name = "LINE[:CONDITION]")]
    hit: Vec<String>,
    /// Capture an expression at LINE for every invocation.
    #[arg(long, value_name = "LINE:EXPR")]
    watch: Option<String>,
    /// Instrument for the sanitizer with these checks (comma-separated).
    #[arg(long, value_enum, value_delimiter = ',')]
    sanitize: Vec<crate::run::SanitizeCheck>,
    /// The context the program runs in.
    #[arg(long, value_enum, default_value = "compat")]
    target: TargetArg,
    /// Storage-buffer binding of the debug buffer.
    #[arg(long, default_value_t = 7)]
    binding: u32,
    #[arg(long, value_parser = parse_stage)]
    stage: Option<Stage>,
    file: PathBuf,
}

#[derive(Clone, Copy, ValueEnum)]
enum TargetArg {
    Core,
    Compat,
    Es,
}

fn parse_stage(s: &str) -> Result<Stage> {
    Stage::from_extension(s)
        .with_context(|| format!("unknown stage `{s}` (vert, tesc, tese, geom, frag, comp)"))
}

/// Resolves `#include` relative to the including file.
struct FileIncludes {
    dir: PathBuf,
}

impl IncludeResolver for FileIncludes {
    fn resolve(
        &self,
        path: &str,
        includer: Option<&str>,
    ) -> Result<(String, String), shaderdbg_glsl::parse::IncludeError> {
        let base = includer
            .and_then(|i| Path::new(i).parent().map(Path::to_path_buf))
            .unwrap_or_else(|| self.dir.clone());
        let full = base.join(path);
        let text = std::fs::read_to_string(&full)
            .with_context(|| full.display().to_string())
            .map_err(|e| format!("{e:#}"))?;
        Ok((full.display().to_string(), text))
    }
}

fn stage_of(file: &Path, stage: Option<Stage>) -> Result<Stage> {
    if let Some(s) = stage {
        return Ok(s);
    }
    let ext = file.extension().and_then(|e| e.to_str()).unwrap_or("");
    Stage::from_extension(ext).with_context(|| {
        format!(
            "{}: cannot tell the stage from the extension; pass --stage",
            file.display()
        )
    })
}

fn load(file: &Path, stage: Option<Stage>) -> Result<std::result::Result<Parsed, Diagnostic>> {
    let stage = stage_of(file, stage)?;
    let text = read_text(file)?;
    Ok(parse(&[&text], stage, Some(&includes_of(file))))
}

fn read_text(file: &Path) -> Result<String> {
    let bytes = std::fs::read(file).with_context(|| format!("reading {}", file.display()))?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

fn includes_of(file: &Path) -> FileIncludes {
    FileIncludes {
        dir: file.parent().map(Path::to_path_buf).unwrap_or_default(),
    }
}

/// A file as `check` parses it: its source strings, each with the file
/// line it starts at (`None`: text we added).
struct Checked {
    parsed: std::result::Result<Parsed, Diagnostic>,
    strings: Vec<(String, Option<u32>)>,
}

impl Checked {
    /// Where an offset of a diagnostic that did not parse is: the offsets
    /// are those of the strings run together.
    fn locate_unparsed(&self, mut offset: usize) -> (Option<u32>, u32, u32) {
        for (i, (text, first)) in self.strings.iter().enumerate() {
            if offset > text.len() && i + 1 < self.strings.len() {
                offset -= text.len();
                continue;
            }
            let before = &text[..floor_boundary(text, offset)];
            let line = before.matches('\n').count() as u32 + 1;
            let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) as u32 + 1;
            return (*first, line, col);
        }
        (Some(1), 1, 1)
    }
}

fn floor_boundary(text: &str, mut at: usize) -> usize {
    at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// A Shadertoy-style fragment body (`mainImage`, no `main`) is checked as
/// the built-in host and the language server read it: with the host's
/// uniforms after its `#version` line (a default `#version` where it has
/// none). Anything else is parsed as it is.
fn load_for_check(file: &Path, stage: Option<Stage>) -> Result<Checked> {
    let stage = stage_of(file, stage)?;
    let text = read_text(file)?;
    let includes = includes_of(file);
    if stage != Stage::Fragment || !shadertoy::is_main_image_body(&text) {
        return Ok(Checked {
            parsed: parse(&[&text], stage, Some(&includes)),
            strings: vec![(text, Some(1))],
        });
    }
    let split = ide::version_split(&text);
    let (pre, rest) = text.split_at(split);
    let header = shadertoy::header(&text);
    let rest_line = pre.matches('\n').count() as u32 + 1;
    Ok(Checked {
        parsed: parse(&[pre, &header, rest], stage, Some(&includes)),
        strings: vec![
            (pre.to_string(), Some(1)),
            (header, None),
            (rest.to_string(), Some(rest_line)),
        ],
    })
}

fn print_diagnostic(file: &Path, checked: &Checked, d: &Diagnostic) {
    let in_strings = |i: usize, line: u32, col: u32| match checked.strings.get(i) {
        Some((_, Some(first))) => (file.display().to_string(), first + line - 1, col),
        Some((_, None)) => ("<shadertoy uniforms>".to_string(), line, col),
        None => (file.display().to_string(), line, col),
    };
    let (name, line, col) = match &checked.parsed {
        Ok(p) => {
            let loc = p.source.locate(d.span.start);
            match loc.origin {
                Origin::String(i) => in_strings(i, loc.line, loc.column),
                Origin::Include(n) => (n, loc.line, loc.column),
            }
        }
        Err(_) => match checked.locate_unparsed(d.span.start) {
            (Some(first), line, col) => (file.display().to_string(), first + line - 1, col),
            (None, line, col) => ("<shadertoy uniforms>".to_string(), line, col),
        },
    };
    let sev = match d.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
    };
    println!("{name}:{line}:{col}: {sev}: {}", d.message);
}

pub fn run(cmd: GlslCommand) -> Result<ExitCode> {
    match cmd {
        GlslCommand::Check { stage, files } => {
            let mut errors = 0;
            for file in &files {
                let checked = load_for_check(file, stage)?;
                match &checked.parsed {
                    Ok(parsed) => {
                        let model = Model::analyze(parsed);
                        for d in &model.diagnostics {
                            print_diagnostic(file, &checked, d);
                        }
                        errors += model.errors().count();
                    }
                    Err(d) => {
                        print_diagnostic(file, &checked, d);
                        errors += 1;
                    }
                }
            }
            Ok(if errors == 0 {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            })
        }
        GlslCommand::Probes { stage, file } => {
            let parsed =
                load(&file, stage)?.map_err(|d| anyhow::anyhow!("{}: {d}", file.display()))?;
            print!("{}", instrument::probe_table(&parsed).render());
            Ok(ExitCode::SUCCESS)
        }
        GlslCommand::Instrument(args) => instrument_cmd(args),
    }
}

fn numbers<T: std::str::FromStr>(s: &str, what: &str) -> Result<Vec<T>> {
    s.split(',')
        .map(|p| {
            p.trim()
                .parse::<T>()
                .map_err(|_| anyhow::anyhow!("{what}: `{p}` is not a number"))
        })
        .collect()
}

fn instrument_cmd(a: InstrumentArgs) -> Result<ExitCode> {
    let parsed =
        load(&a.file, a.stage)?.map_err(|d| anyhow::anyhow!("{}: {d}", a.file.display()))?;
    let table = instrument::probe_table(&parsed);
    let step_at = |line: u32| -> Result<u32> {
        table
            .step_for_line(line)
            .map(|p| p.id)
            .with_context(|| format!("no executable statement at or after line {line}"))
    };
    let mode = if a.record {
        let sel = match (&a.fragment, &a.vertex, &a.compute) {
            (Some(f), None, None) => match numbers::<u32>(f, "--fragment")?.as_slice() {
                [x, y] => Invocation::fragment(*x, *y),
                [x, y, p] => Invocation::Fragment {
                    x: *x,
                    y: *y,
                    primitive: Some(*p),
                    sample: None,
                },
                _ => bail!("--fragment takes X,Y or X,Y,PRIMITIVE"),
            },
            (None, Some(v), None) => match numbers::<i32>(v, "--vertex")?.as_slice() {
                [v] => Invocation::Vertex {
                    vertex: *v,
                    instance: 0,
                },
                [v, i] => Invocation::Vertex {
                    vertex: *v,
                    instance: *i,
                },
                _ => bail!("--vertex takes VERTEX or VERTEX,INSTANCE"),
            },
            (None, None, Some(c)) => match numbers::<u32>(c, "--compute")?.as_slice() {
                [x, y, z] => Invocation::Compute { id: [*x, *y, *z] },
                _ => bail!("--compute takes X,Y,Z"),
            },
            _ => bail!("--record needs exactly one of --fragment, --vertex, --compute"),
        };
        Mode::Record(sel)
    } else if !a.hit.is_empty() {
        let mut bps = Vec::new();
        for h in &a.hit {
            let (line, cond) = match h.split_once(':') {
                Some((l, c)) => (l, Some(c.to_string())),
                None => (h.as_str(), None),
            };
            let line: u32 = line
                .trim()
                .parse()
                .with_context(|| format!("--hit {h}: bad line"))?;
            bps.push(Breakpoint {
                probe: step_at(line)?,
                condition: cond,
            });
        }
        Mode::HitTest(bps)
    } else if let Some(w) = &a.watch {
        let (line, expr) = w.split_once(':').context("--watch takes LINE:EXPR")?;
        let line: u32 = line
            .trim()
            .parse()
            .with_context(|| format!("--watch {w}: bad line"))?;
        Mode::Watch {
            probe: step_at(line)?,
            expr: expr.to_string(),
        }
    } else if !a.sanitize.is_empty() {
        let f = crate::run::sanitize_filters(&a.sanitize);
        Mode::Sanitize(shaderdbg_glsl::instrument::Checks {
            out_of_bounds: f.sanitize_oob,
            uninit_shared: f.sanitize_uninit,
            race: f.sanitize_race,
        })
    } else {
        Mode::Plain
    };
    let target = match a.target {
        TargetArg::Core => Target::CORE,
        TargetArg::Compat => Target::COMPAT,
        TargetArg::Es => Target::ES,
    };
    let out = instrument::instrument(
        &parsed,
        &Request {
            mode,
            target,
            binding: a.binding,
        },
    )?;
    print!("{}", out.glsl);
    Ok(ExitCode::SUCCESS)
}
