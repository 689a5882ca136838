//! `shaderdbg run`: the session engine for terminals, scripts and CI.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use clap::Args;
use serde_json::{json, Map, Value as Json};
use shaderdbg_core::{Language, Type, Value};
use shaderdbg_session::binding::FileBreakpoint;
use shaderdbg_session::breakpoints::HitCondition;
use shaderdbg_session::launch::LaunchConfig;
use shaderdbg_session::sanitizer::{Finding, Memory, SanitizerKind};
use shaderdbg_session::stop::{Scope, Stop};
use shaderdbg_session::{json as value_json, trace, Event, ExceptionFilters, Session};
use shaderdbg_session::{Invocation, ScreenshotAt, StopFilter, StopReason};

#[derive(Args)]
pub struct RunArgs {
    #[command(flatten)]
    pub breakpoints: BreakpointArgs,
    /// After this many stops, remove the breakpoints and let the program run to its end.
    #[arg(long)]
    pub max_stops: Option<u64>,
    /// One JSON object per line.
    #[arg(long)]
    pub json: bool,
    /// Include the whole recorded invocation in each stop.
    #[arg(long)]
    pub trace: bool,
    /// Write the frame's image (the one `--frame` names, else the first) as
    /// a PNG at the swap that ends it.
    #[arg(long, value_name = "PNG")]
    pub screenshot: Option<PathBuf>,
    /// End the program after this many seconds.
    #[arg(long)]
    pub timeout: Option<f64>,
    /// Sanitize compute dispatches and draws and stop where a check fails,
    /// each report printed: `oob` (an index out of its array's bounds, an
    /// image access outside the image), `uninit` (a shared-memory read
    /// before any invocation wrote it, a local read before it was
    /// written), `race` (two
    /// invocations of a work group access a shared element with no barrier
    /// between, or two invocations of a dispatch a storage-buffer element
    /// with nothing ordering them, one writing), `all`; comma-separated.
    /// Off by default.
    #[arg(long, value_name = "CHECKS", value_delimiter = ',')]
    pub sanitize: Vec<SanitizeCheck>,
    /// A shader file the program's shaders may come from (it loads it
    /// itself): stops and reports in shaders built from it are located in
    /// it, as in the files of breakpoints.
    #[arg(long = "source", value_name = "FILE")]
    pub sources: Vec<PathBuf>,
    #[command(flatten)]
    pub target: TargetArgs,
}

/// A check of `--sanitize`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum SanitizeCheck {
    /// Indexing out of bounds.
    Oob,
    /// Shared memory read before any invocation wrote it, or a local
    /// read before it was written.
    Uninit,
    /// A data race on shared memory or a storage buffer.
    Race,
    /// Every check.
    All,
}

/// The exception filters `--sanitize` asks for.
pub(crate) fn sanitize_filters(checks: &[SanitizeCheck]) -> ExceptionFilters {
    let on = |c| checks.contains(&c) || checks.contains(&SanitizeCheck::All);
    ExceptionFilters {
        sanitize_oob: on(SanitizeCheck::Oob),
        sanitize_uninit: on(SanitizeCheck::Uninit),
        sanitize_race: on(SanitizeCheck::Race),
        ..ExceptionFilters::default()
    }
}

/// Where stops may happen, and the program: shared by `run` and `debug`.
#[derive(Args)]
pub struct TargetArgs {
    /// Only invocations at this pixel stop (gl_FragCoord as the shader
    /// sees it: origin bottom-left in OpenGL, top-left in Vulkan); for `run`
    /// without breakpoints: stop at every fragment shader invocation
    /// covering it (pixel history).
    #[arg(long, value_name = "X,Y")]
    pub pixel: Option<String>,
    /// Only stop in this frame (frames count from 0; frame N ends at the (N+1)-th swap).
    #[arg(long)]
    pub frame: Option<u64>,
    /// The program and its arguments, a fragment shader file to run in the
    /// built-in host, or an apitrace recording (`.trace`, replayed with
    /// `apitrace replay`). After `--`, or without it: everything from the
    /// first word that is not an option of ours on belongs to the program.
    #[arg(
        trailing_var_arg = true,
        allow_hyphen_values = true,
        required = true,
        value_name = "PROGRAM [ARGS]..."
    )]
    pub command: Vec<String>,
}

impl TargetArgs {
    pub(crate) fn pixel(&self) -> Result<Option<[u32; 2]>> {
        self.pixel.as_deref().map(parse_pixel).transpose()
    }
}

/// Breakpoints on the command line, numbered as gdb numbers them: the
/// `--break`s from 1 in order, then the `--dprintf`s.
#[derive(Args, Default)]
pub struct BreakpointArgs {
    /// Breakpoint: FILE:LINE or FILE:LINE:CONDITION (a GLSL bool expression).
    #[arg(long = "break", value_name = "FILE:LINE[:CONDITION]")]
    pub breaks: Vec<String>,
    /// Logpoint (gdb's dprintf): print MESSAGE for each invocation that
    /// reaches the line (the first 32 of a draw, then how many more),
    /// `{expr}` replaced by its value; never stops.
    #[arg(long, value_name = "FILE:LINE:MESSAGE")]
    pub dprintf: Vec<String>,
    /// gdb's `ignore`: breakpoint N stops only after COUNT invocations
    /// reached it (they are counted across draws, once per draw each).
    #[arg(long, value_name = "N:COUNT")]
    pub ignore: Vec<String>,
    /// Breakpoint N stops only when its hit count satisfies HITS:
    /// `5` or `>= 5`, `> 5`, `== 5`, `< 5`, `<= 5`, `% 5` (every fifth).
    #[arg(long, value_name = "N:HITS")]
    pub hit_condition: Vec<String>,
}

impl BreakpointArgs {
    pub(crate) fn resolve(&self) -> Result<Vec<FileBreakpoint>> {
        let mut list = self
            .breaks
            .iter()
            .map(|b| parse_break(b))
            .collect::<Result<Vec<_>>>()?;
        for spec in &self.dprintf {
            list.push(parse_dprintf(spec)?);
        }
        let numbered = |spec: &str, flag: &str| -> Result<(usize, String)> {
            let (n, rest) = spec
                .split_once(':')
                .with_context(|| format!("--{flag} {spec}: expected N:VALUE"))?;
            let n: usize = n
                .trim()
                .parse()
                .ok()
                .filter(|n| (1..=list.len()).contains(n))
                .with_context(|| {
                    format!(
                        "--{flag} {spec}: no breakpoint {n} (there are {})",
                        list.len()
                    )
                })?;
            Ok((n - 1, rest.trim().to_string()))
        };
        let mut conditions = Vec::new();
        for spec in &self.ignore {
            let (i, count) = numbered(spec, "ignore")?;
            let count: u64 = count
                .parse()
                .with_context(|| format!("--ignore {spec}: COUNT is a whole number"))?;
            conditions.push((i, HitCondition::Greater(count)));
        }
        for spec in &self.hit_condition {
            let (i, hits) = numbered(spec, "hit-condition")?;
            let c =
                HitCondition::parse(&hits).with_context(|| format!("--hit-condition {spec}"))?;
            conditions.push((i, c));
        }
        for (i, c) in conditions {
            list[i].hit_condition = Some(c);
        }
        Ok(list)
    }
}

/// `FILE:LINE:MESSAGE` as a logpoint.
pub(crate) fn parse_dprintf(spec: &str) -> Result<FileBreakpoint> {
    let mut bp = parse_break(spec).with_context(|| format!("--dprintf {spec}"))?;
    match bp.condition.take() {
        Some(message) => {
            bp.log_message = Some(message);
            Ok(bp)
        }
        None => bail!("--dprintf {spec}: expected FILE:LINE:MESSAGE"),
    }
}

/// Splits `FILE:LINE[:CONDITION]` at the first `:LINE` that is all digits.
pub(crate) fn parse_break(spec: &str) -> Result<FileBreakpoint> {
    for (i, _) in spec.match_indices(':') {
        let rest = &spec[i + 1..];
        let (line, cond) = match rest.split_once(':') {
            Some((l, c)) => (l, Some(c.to_string())),
            None => (rest, None),
        };
        if let Ok(line) = line.parse::<u32>() {
            let file = PathBuf::from(&spec[..i]);
            let file = file
                .canonicalize()
                .with_context(|| format!("--break {spec}: {}", file.display()))?;
            return Ok(FileBreakpoint::new(
                file,
                line,
                cond.filter(|c| !c.trim().is_empty()),
            ));
        }
    }
    bail!("--break {spec}: expected FILE:LINE or FILE:LINE:CONDITION")
}

pub(crate) fn parse_pixel(s: &str) -> Result<[u32; 2]> {
    match s.split_once(',') {
        Some((x, y)) => Ok([x.trim().parse()?, y.trim().parse()?]),
        None => bail!("--pixel takes X,Y"),
    }
}

fn is_shader_file(p: &Path) -> bool {
    matches!(
        p.extension().and_then(|e| e.to_str()),
        Some("frag" | "glsl" | "fs" | "wgsl")
    )
}

/// The built-in host next to this executable.
fn host_binary() -> Result<PathBuf> {
    let exe = std::env::current_exe()?;
    let dir = exe.parent().context("executable directory")?;
    [dir.join("shaderdbg-host"), dir.join("../shaderdbg-host")]
        .into_iter()
        .find(|p| p.exists())
        .context(
            "the built-in host `shaderdbg-host` is not next to shaderdbg (build the workspace)",
        )
}

/// What to start for `PROGRAM [ARGS]...`: the program, or the built-in host
/// for a lone fragment shader file.
pub(crate) fn launch_config(command: &[String]) -> Result<LaunchConfig> {
    let first = PathBuf::from(command.first().context("no program given")?);
    if trace::is_trace_file(&first) {
        let file = first
            .canonicalize()
            .with_context(|| first.display().to_string())?;
        return Ok(trace::replay_config(&file, command[1..].to_vec()));
    }
    Ok(if is_shader_file(&first) && command.len() == 1 {
        LaunchConfig {
            program: host_binary()?,
            args: vec![first
                .canonicalize()
                .with_context(|| first.display().to_string())?
                .display()
                .to_string()],
            ..Default::default()
        }
    } else {
        LaunchConfig {
            program: first,
            args: command[1..].to_vec(),
            ..Default::default()
        }
    })
}

pub fn run(a: RunArgs) -> Result<ExitCode> {
    let breakpoints = a.breakpoints.resolve()?;
    let pixel = a.target.pixel()?;
    let filter = StopFilter {
        frame: a.target.frame,
        pixel,
        pixel_history: pixel.is_some() && breakpoints.is_empty(),
    };
    let config = launch_config(&a.target.command)?;
    let mut session = Session::start(&config, breakpoints.clone(), filter)?;
    // Screenshots here are of frames' ends, never of a stopped draw.
    session.never_screenshot_at_stops();
    // A lone shader file in the built-in host: stops are located in it even
    // without breakpoints there (pixel history).
    if let [only] = a.target.command.as_slice() {
        let only = Path::new(only);
        if is_shader_file(only) {
            if let Ok(f) = only.canonicalize() {
                session.add_source_file(f);
            }
        }
    }
    for file in &a.sources {
        session.add_source_file(
            file.canonicalize()
                .with_context(|| format!("--source {}", file.display()))?,
        );
    }
    if !a.sanitize.is_empty() {
        session.set_exception_filters(sanitize_filters(&a.sanitize));
    }
    if a.screenshot.is_some() {
        session.request_screenshot(ScreenshotAt::FrameEnd {
            frame: Some(a.target.frame.unwrap_or(0)),
        });
    }
    let mut screenshot_written = false;
    let out = &mut std::io::stdout().lock();
    let deadline = a
        .timeout
        .map(|t| Instant::now() + Duration::from_secs_f64(t));
    let mut stops = 0u64;
    loop {
        if deadline.is_some_and(|d| Instant::now() > d) {
            session.kill();
            emit(
                out,
                a.json,
                json!({"event": "timeout", "seconds": a.timeout}),
                || {
                    format!(
                        "timeout: the program ran longer than {}s and was ended",
                        a.timeout.unwrap_or_default()
                    )
                },
            )?;
        }
        let Some(event) = session.next_event(Duration::from_millis(100)) else {
            continue;
        };
        match event {
            Event::ShaderLoaded { .. } => {}
            Event::BreakpointBound {
                index,
                line,
                message,
                ..
            } => {
                let bp = &breakpoints[index];
                let j = json!({"event": "breakpoint", "file": bp.file, "requested_line": bp.line, "line": line, "verified": line.is_some(), "message": message});
                let name = format!("{}:{}", bp.file.display(), bp.line);
                emit(out, a.json, j, || match Binding::of(bp, line, message) {
                    Binding::Bound => format!("breakpoint {name} bound"),
                    Binding::Moved(l) => format!("breakpoint {name} moved to line {l}"),
                    Binding::Unplaced(why) => format!("breakpoint {name} unverified: {why}"),
                })?;
            }
            Event::Log {
                index,
                file,
                line,
                text,
            } => {
                let place = format!(
                    "{}:{line}",
                    file.as_deref()
                        .map_or("shader".into(), |f| f.display().to_string())
                );
                let j = json!({"event": "log", "breakpoint": index + 1, "file": file, "line": line, "text": text});
                emit(out, a.json, j, || format!("{place}: {text}"))?;
            }
            Event::Stopped(stop) => {
                stops += 1;
                print_stop(out, &stop, a.json, a.trace)?;
                if a.max_stops.is_some_and(|k| stops >= k) {
                    session.detach();
                } else {
                    session.resume();
                }
            }
            Event::Output { stderr, line } => {
                let stream = if stderr { "stderr" } else { "stdout" };
                if a.json {
                    emit(
                        out,
                        true,
                        json!({"event": "output", "stream": stream, "text": line}),
                        String::new,
                    )?;
                } else {
                    eprintln!("{line}");
                }
            }
            Event::Screenshot { result, .. } => {
                let path = a.screenshot.clone().unwrap_or_default();
                match result.map_err(|e| e.to_string()).and_then(|shot| {
                    let png = shot.png().map_err(|e| e.to_string())?;
                    std::fs::write(&path, png)
                        .map_err(|e| format!("writing {}: {e}", path.display()))?;
                    Ok(shot)
                }) {
                    Ok(shot) => {
                        screenshot_written = true;
                        emit(
                            out,
                            a.json,
                            json!({"event": "screenshot", "file": path, "frame": shot.frame, "width": shot.width, "height": shot.height}),
                            || {
                                format!(
                                    "frame {} written to {} ({}x{})",
                                    shot.frame,
                                    path.display(),
                                    shot.width,
                                    shot.height
                                )
                            },
                        )?
                    }
                    Err(message) => emit(
                        out,
                        a.json,
                        json!({"event": "error", "message": format!("screenshot: {message}")}),
                        || format!("screenshot: {message}"),
                    )?,
                }
            }
            Event::Halted(halt) => {
                // Nothing asks for halts here (no exception filters): report, go on.
                emit(
                    out,
                    a.json,
                    json!({"event": "halted", "reason": format!("{halt:?}")}),
                    || format!("halted: {halt:?}"),
                )?;
                session.resume();
            }
            Event::AgentError(message) => emit(
                out,
                a.json,
                json!({"event": "error", "message": message}),
                || format!("agent: {message}"),
            )?,
            Event::Exited { code, signal } => {
                if let (Some(path), false) = (&a.screenshot, screenshot_written) {
                    let message = format!(
                        "no screenshot written to {}: the program ended before frame {} ended",
                        path.display(),
                        a.target.frame.unwrap_or(0)
                    );
                    emit(
                        out,
                        a.json,
                        json!({"event": "error", "message": message}),
                        || message.clone(),
                    )?;
                }
                emit(
                    out,
                    a.json,
                    json!({"event": "exited", "code": code, "signal": signal}),
                    || describe_exit(code, signal),
                )?;
                return Ok(match code {
                    Some(0) => ExitCode::SUCCESS,
                    Some(c) => ExitCode::from(c.clamp(1, 255) as u8),
                    None => ExitCode::FAILURE,
                });
            }
        }
    }
}

/// How the program ended, as the CLI says it.
pub(crate) fn describe_exit(code: Option<i32>, signal: Option<i32>) -> String {
    match (code, signal) {
        (Some(c), _) => format!("program exited with code {c}"),
        (_, Some(s)) => format!("program killed by signal {s}"),
        _ => "program exited".into(),
    }
}

/// Where a breakpoint bound, as the session reported it.
pub(crate) enum Binding {
    Bound,
    Moved(u32),
    Unplaced(String),
}

impl Binding {
    pub(crate) fn of(bp: &FileBreakpoint, line: Option<u32>, message: Option<String>) -> Self {
        match line {
            Some(l) if l != bp.line => Binding::Moved(l),
            Some(_) => Binding::Bound,
            None => Binding::Unplaced(message.unwrap_or_else(|| "unknown reason".into())),
        }
    }
}

fn emit(out: &mut impl Write, as_json: bool, j: Json, text: impl FnOnce() -> String) -> Result<()> {
    if as_json {
        writeln!(out, "{j}")?;
    } else {
        let t = text();
        if !t.is_empty() {
            writeln!(out, "{t}")?;
        }
    }
    out.flush()?;
    Ok(())
}

/// Step `step`'s source line as the CLI shows it (`   27 | text`), after a
/// mark (`=>` for the cursor in a listing).
pub(crate) fn write_source_line(
    out: &mut impl Write,
    mark: &str,
    stop: &Stop,
    step: usize,
) -> Result<()> {
    let loc = stop.location(step);
    let text = stop.line_text(loc.runtime_line);
    writeln!(out, "{mark}{:>5} | {}", loc.line, text.trim_end())?;
    Ok(())
}

/// A name with its type and value as the stop's language declares it:
/// `vec2 uv = ...` in GLSL, `uv: vec2<f32> = ...` in WGSL, after `indent`.
pub(crate) fn write_declaration(
    out: &mut impl Write,
    indent: &str,
    name: &str,
    ty: &Type,
    value: &str,
    lang: Language,
) -> Result<()> {
    match lang {
        Language::Glsl => writeln!(out, "{indent}{ty} {name} = {value}")?,
        Language::Wgsl => writeln!(out, "{indent}{name}: {} = {value}", ty.display_in(lang))?,
    }
    Ok(())
}

/// A stop reason as JSON names it (`breakpoint`, `sanitizer`, ...).
fn reason_name(reason: StopReason) -> Json {
    serde_json::to_value(reason).unwrap_or(Json::Null)
}

/// What `shaderdbg run` says after the reports of a dispatch or draw whose
/// sanitizer found more than the agent keeps (`--json`: the stop's
/// `reports_lost`).
pub(crate) const SANITIZER_LOST: &str =
    "sanitizer: more reports than the agent keeps were found here; the others are lost";

/// One sanitizer report: a line people read, or a `sanitizer` event.
fn print_finding(out: &mut impl Write, f: &Finding, as_json: bool) -> Result<()> {
    if as_json {
        let mut j = json!({
            "event": "sanitizer",
            "kind": f.kind,
            "file": f.location.file.as_ref().map(|p| p.display().to_string()),
            "line": f.location.line,
            "runtime_line": f.location.runtime_line,
            "invocation": f.invocation.to_string(),
            "message": f.text,
        });
        if let Invocation::Compute { id } = f.invocation {
            j["invocation_id"] = json!(id);
        }
        j["address"] = f.address.as_ref().map_or(Json::Null, |a| json!(a));
        // Every invocation involved, each at its access (a race: both).
        let involved = |inv: &Invocation, line: u32, access: Option<Json>| {
            let mut e = json!({"invocation": inv.to_string(), "line": line});
            if let Invocation::Compute { id } = inv {
                e["id"] = json!(id);
            }
            if let Some(a) = access {
                e["access"] = a;
            }
            e
        };
        let (access, other_access) = match f.report.kind {
            SanitizerKind::Race {
                access,
                other_access,
                ..
            } => (Some(json!(access)), Some(json!(other_access))),
            _ => (None, None),
        };
        let mut invocations = vec![involved(&f.invocation, f.location.line, access)];
        if let Some((other, at)) = &f.other {
            invocations.push(involved(other, at.line, other_access));
        }
        j["invocations"] = json!(invocations);
        match f.report.kind {
            SanitizerKind::Oob { index, bound } => {
                j["index"] = json!(index);
                j["bound"] = json!(bound);
                j["array"] = json!(f.variable);
            }
            SanitizerKind::ImageOob {
                op,
                dims,
                coord,
                size,
                lod,
                ..
            } => {
                j["image"] = json!(f.variable);
                j["access"] = json!(op.name());
                if lod {
                    j["level"] = json!(coord[0]);
                    j["levels"] = json!(size[0]);
                } else {
                    let n = usize::from(dims).clamp(1, 3);
                    j["coordinate"] = json!(coord[..n]);
                    j["size"] = json!(size[..n]);
                }
            }
            SanitizerKind::UninitRead { element, .. } => {
                j["variable"] = json!(f.variable);
                j["element"] = json!(element);
            }
            SanitizerKind::Race {
                element,
                access,
                other_access,
                memory,
                ..
            } => {
                j["variable"] = json!(f.variable);
                j["element"] = json!(element);
                j["access"] = json!(access);
                if let Some((other, at)) = &f.other {
                    j["other_invocation"] = json!(other.to_string());
                    if let Invocation::Compute { id } = other {
                        j["other_invocation_id"] = json!(id);
                    }
                    j["other_line"] = json!(at.line);
                }
                j["other_access"] = json!(other_access);
                j["memory"] = json!(match memory {
                    Memory::Shared => "shared",
                    Memory::Storage { .. } => "storage",
                });
                let value = |v: &Option<Value>| v.as_ref().map_or(Json::Null, value_json::value);
                if f.value_written.is_some() {
                    j["value_written"] = value(&f.value_written);
                }
                if f.value_read.is_some() {
                    j["value_read"] = value(&f.value_read);
                }
                if f.other_value_written.is_some() {
                    j["other_value_written"] = value(&f.other_value_written);
                }
            }
            SanitizerKind::DivergentBarrier {
                arrived,
                invocations,
            } => {
                j["arrived"] = json!(arrived);
                j["work_group_size"] = json!(invocations);
            }
        }
        writeln!(out, "{j}")?;
    } else {
        writeln!(out, "{}", f.text)?;
    }
    Ok(())
}

fn stage_name(stop: &Stop) -> &'static str {
    stop.stage.snake_name()
}

pub(crate) fn print_stop(
    out: &mut impl Write,
    stop: &Stop,
    as_json: bool,
    with_trace: bool,
) -> Result<()> {
    print_stop_with(out, stop, &stop.findings(), as_json, with_trace)
}

/// A stop with these of its sanitizer findings (`shaderdbg run`: all of
/// them; `shaderdbg debug`: the one the stop shows).
pub(crate) fn print_stop_with(
    out: &mut impl Write,
    stop: &Stop,
    findings: &[Finding],
    as_json: bool,
    with_trace: bool,
) -> Result<()> {
    for f in findings {
        print_finding(out, f, as_json)?;
    }
    // Reports past what the agent keeps (its records, or an invocation's
    // two) were found but are not shown: said once, with the first.
    let lost = stop.reason == StopReason::Sanitizer && stop.truncated;
    if lost && !as_json && stop.report == 0 {
        writeln!(out, "{SANITIZER_LOST}")?;
    }
    let loc = stop.location(stop.cursor);
    let vars = stop.variables(stop.cursor);
    let lang = stop.language();
    if as_json {
        let mut locals = Map::new();
        for v in vars.iter().filter(|v| v.scope == Scope::Local) {
            locals.insert(v.name.clone(), json!({"type": v.ty.display_in(lang).to_string(), "value": v.value.as_ref().map_or(Json::Null, value_json::value)}));
        }
        let mut inputs = Map::new();
        for v in vars.iter().filter(|v| v.scope != Scope::Local) {
            inputs.insert(v.name.clone(), json!({"type": v.ty.display_in(lang).to_string(), "value": v.value.as_ref().map_or(Json::Null, value_json::value)}));
        }
        let mut j = json!({
            "event": "stopped",
            "file": loc.file.as_ref().map_or_else(|| format!("shader {}", stop.shader), |f| f.display().to_string()),
            "line": loc.line,
            "stage": stage_name(stop),
            "draw": stop.draw,
            "frame": stop.frame,
            "shader": stop.shader,
            "invocation": stop.invocation_name(),
            "hits": stop.hits.len(),
            "reason": reason_name(stop.reason),
            "breakpoints": stop.breakpoints.iter().map(|i| i + 1).collect::<Vec<_>>(),
            "locals": locals,
            "globals": inputs,
        });
        if stop.reason == StopReason::Sanitizer {
            j["reports_lost"] = json!(lost);
        }
        match stop.hit.invocation {
            Invocation::Fragment {
                x, y, primitive, ..
            } => {
                j["pixel"] = json!([x, y]);
                j["primitive"] = primitive.map_or(Json::Null, |p| json!(p));
            }
            Invocation::Vertex { vertex, instance } => {
                j["vertex"] = json!(vertex);
                j["instance"] = json!(instance);
            }
            Invocation::Compute { id } => j["invocation_id"] = json!(id),
        }
        if with_trace {
            let steps: Vec<Json> = (0..stop.trace.steps.len())
                .map(|i| {
                    let l = stop.location(i);
                    let writes: Map<String, Json> = stop.writes(i).into_iter().map(|(n, v)| (n, value_json::value(&v))).collect();
                    json!({"file": l.file.as_ref().map(|f| f.display().to_string()), "line": l.line, "writes": writes})
                })
                .collect();
            j["steps"] = Json::Array(steps);
        }
        writeln!(out, "{j}")?;
    } else {
        let file = loc.file.as_ref().map_or_else(
            || format!("<shader {}>", stop.shader),
            |f| f.display().to_string(),
        );
        writeln!(
            out,
            "stopped at {file}:{} in {} (draw {}, frame {}; {} invocation(s) hit)",
            loc.line,
            stop.invocation_name(),
            stop.draw,
            stop.frame,
            stop.hits.len()
        )?;
        write_source_line(out, "", stop, stop.cursor)?;
        for (scope, title) in [
            (Scope::Local, "locals"),
            (Scope::Input, "inputs & uniforms"),
            (Scope::Builtin, "built-ins"),
        ] {
            let vs: Vec<_> = vars.iter().filter(|v| v.scope == scope).collect();
            if vs.is_empty() {
                continue;
            }
            writeln!(out, "{title}:")?;
            for v in vs {
                let value = v
                    .value
                    .as_ref()
                    .map_or("(not written yet)".to_string(), |v| v.to_string());
                write_declaration(out, "  ", &v.name, &v.ty, &value, lang)?;
            }
        }
        if with_trace {
            writeln!(out, "trace:")?;
            for i in 0..stop.trace.steps.len() {
                let l = stop.location(i);
                let marker = if i == stop.cursor { "=>" } else { "  " };
                let depth = stop.trace.steps[i].depth;
                writeln!(
                    out,
                    "{marker}{:indent$}{:>4} | {}",
                    "",
                    l.line,
                    stop.line_text(l.runtime_line).trim(),
                    indent = depth * 2
                )?;
                for (n, v) in stop.writes(i) {
                    writeln!(out, "  {:indent$}       {n} = {v}", "", indent = depth * 2)?;
                }
            }
        }
    }
    out.flush()?;
    Ok(())
}
