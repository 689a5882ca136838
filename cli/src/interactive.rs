//! `shaderdbg debug`: the session engine for people, gdb style. Commands are
//! read with history and completion on a terminal, or line by line from a
//! pipe (scripts, tests).

use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Result;
use clap::Args;
use rustyline::completion::{Completer, Pair};
use rustyline::error::ReadlineError;
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::history::DefaultHistory;
use rustyline::validate::Validator;
use rustyline::{Context, Editor, Helper};
use shaderdbg_core::Language;
use shaderdbg_session::binding::FileBreakpoint;
use shaderdbg_session::breakpoints::HitCondition;
use shaderdbg_session::launch::LaunchConfig;
use shaderdbg_session::stop::{Scope, Stop};
use shaderdbg_session::{eval, present, Event, Halt, Session};
use shaderdbg_session::{Invocation, StopFilter};

use crate::run::{
    describe_exit, launch_config, parse_break, parse_dprintf, print_stop_with, sanitize_filters,
    write_declaration, write_source_line, Binding, BreakpointArgs, SanitizeCheck, TargetArgs,
};

#[derive(Args)]
pub struct DebugArgs {
    /// Breakpoints to start with.
    #[command(flatten)]
    pub breakpoints: BreakpointArgs,
    /// Sanitize compute dispatches and stop at each report, as `run
    /// --sanitize` (`oob`, `uninit`, `race`, `all`; comma-separated);
    /// `continue` goes to the dispatch's next report, then on.
    #[arg(long, value_name = "CHECKS", value_delimiter = ',')]
    pub sanitize: Vec<SanitizeCheck>,
    #[command(flatten)]
    pub target: TargetArgs,
}

const COMMANDS: &[(&str, &str)] = &[
    ("break", "break FILE:LINE [if CONDITION] — set a breakpoint"),
    (
        "dprintf",
        "dprintf FILE:LINE,MESSAGE — a logpoint: print MESSAGE ({expr} replaced), never stop",
    ),
    (
        "ignore",
        "ignore N COUNT — breakpoint N stops only after COUNT invocations reached it",
    ),
    ("delete", "delete [N] — remove breakpoint N, or all"),
    ("run", "run — start the program; it runs to the first stop"),
    (
        "continue",
        "continue — leave this stop; run to the next one",
    ),
    (
        "next",
        "next — the next line at the same or a shallower call depth",
    ),
    ("step", "step — the next step, into calls"),
    ("finish", "finish — run until the current function returns"),
    ("back", "back — the previous step (reverse-step)"),
    (
        "print",
        "print EXPR — a GLSL expression's value at the current step",
    ),
    ("info", "info locals|inputs|builtins|breakpoints|threads"),
    ("threads", "threads — the invocations that hit at this stop"),
    (
        "thread",
        "thread N — record and switch to invocation N of `threads`",
    ),
    ("where", "where — the GLSL call stack"),
    ("list", "list — the source around the current line"),
    ("trace", "trace — every recorded step of this invocation"),
    ("help", "help — this list"),
    ("quit", "quit — end the program and leave"),
];

/// What to do after a command.
#[derive(Debug, PartialEq, Eq)]
enum Flow {
    Go,
    Quit,
}

struct Debugger {
    config: LaunchConfig,
    filter: StopFilter,
    breakpoints: Vec<FileBreakpoint>,
    session: Option<Session>,
    stop: Option<Box<Stop>>,
    /// Blocked outside a draw (compile error, GL error) until `continue`.
    halted: bool,
    exit_code: Option<i32>,
    sanitize: Vec<SanitizeCheck>,
}

pub fn run(a: DebugArgs) -> Result<ExitCode> {
    let breakpoints = a.breakpoints.resolve()?;
    let pixel = a.target.pixel()?;
    let mut dbg = Debugger {
        config: launch_config(&a.target.command)?,
        filter: StopFilter {
            frame: a.target.frame,
            pixel,
            pixel_history: false,
        },
        breakpoints,
        session: None,
        stop: None,
        halted: false,
        exit_code: None,
        sanitize: a.sanitize,
    };
    let out = &mut std::io::stdout().lock();
    writeln!(
        out,
        "shaderdbg: debugging {}; `help` lists the commands",
        dbg.config.program.display()
    )?;
    if std::io::IsTerminal::is_terminal(&std::io::stdin()) {
        terminal_loop(&mut dbg, out)?;
    } else {
        for line in std::io::stdin().lock().lines() {
            let line = line?;
            if dbg.execute(&line, out)? == Flow::Quit {
                break;
            }
        }
    }
    dbg.quit(out)?;
    Ok(match dbg.exit_code {
        Some(0) | None => ExitCode::SUCCESS,
        Some(c) => ExitCode::from(c.clamp(1, 255) as u8),
    })
}

fn history_file() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_STATE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/state")))?;
    Some(base.join("shaderdbg/history"))
}

fn terminal_loop(dbg: &mut Debugger, out: &mut impl Write) -> Result<()> {
    let mut editor: Editor<Completion, DefaultHistory> = Editor::new()?;
    editor.set_helper(Some(Completion::default()));
    let history = history_file();
    if let Some(h) = &history {
        let _ = editor.load_history(h);
    }
    let mut last = String::new();
    loop {
        if let Some(c) = editor.helper_mut() {
            c.names = dbg.names_in_scope();
        }
        match editor.readline("(shaderdbg) ") {
            Ok(line) => {
                // An empty line repeats the last command, as in gdb.
                let line = if line.trim().is_empty() {
                    last.clone()
                } else {
                    let _ = editor.add_history_entry(line.as_str());
                    line
                };
                last.clone_from(&line);
                if dbg.execute(&line, out)? == Flow::Quit {
                    break;
                }
            }
            Err(ReadlineError::Interrupted) => continue,
            Err(ReadlineError::Eof) => break,
            Err(e) => return Err(e.into()),
        }
    }
    if let Some(h) = &history {
        if let Some(dir) = h.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        let _ = editor.save_history(h);
    }
    Ok(())
}

/// Completes command names, then `info` topics, then variable names in scope.
#[derive(Default)]
struct Completion {
    names: Vec<String>,
}

impl Helper for Completion {}
impl Highlighter for Completion {}
impl Validator for Completion {}
impl Hinter for Completion {
    type Hint = String;
}

impl Completer for Completion {
    type Candidate = Pair;

    fn complete(
        &self,
        line: &str,
        pos: usize,
        _: &Context<'_>,
    ) -> rustyline::Result<(usize, Vec<Pair>)> {
        let before = &line[..pos];
        let start = before
            .rfind(|c: char| c.is_whitespace())
            .map_or(0, |i| i + 1);
        let word = &before[start..];
        let first_word = start == 0;
        let pool: Vec<String> = if first_word {
            COMMANDS.iter().map(|(c, _)| c.to_string()).collect()
        } else if before.trim_start().starts_with("info ") {
            ["locals", "inputs", "builtins", "breakpoints", "threads"]
                .iter()
                .map(|s| s.to_string())
                .collect()
        } else {
            self.names.clone()
        };
        let pairs = pool
            .into_iter()
            .filter(|c| c.starts_with(word))
            .map(|c| Pair {
                display: c.clone(),
                replacement: c,
            })
            .collect();
        Ok((start, pairs))
    }
}

/// Expands the gdb abbreviations.
fn command_name(word: &str) -> Option<&'static str> {
    let full = match word {
        "b" | "br" => "break",
        "d" => "delete",
        "r" => "run",
        "c" | "cont" => "continue",
        "n" => "next",
        "s" => "step",
        "fin" => "finish",
        "rs" | "reverse-step" | "reverse-next" | "rn" => "back",
        "p" => "print",
        "i" => "info",
        "bt" | "backtrace" => "where",
        "l" => "list",
        "h" => "help",
        "q" | "exit" => "quit",
        other => other,
    };
    COMMANDS.iter().map(|(c, _)| *c).find(|c| *c == full)
}

impl Debugger {
    fn names_in_scope(&self) -> Vec<String> {
        self.stop.as_ref().map_or_else(Vec::new, |s| {
            s.variables(s.cursor).into_iter().map(|v| v.name).collect()
        })
    }

    fn execute(&mut self, line: &str, out: &mut impl Write) -> Result<Flow> {
        let line = line.trim();
        let (word, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        let rest = rest.trim();
        if word.is_empty() || word.starts_with('#') {
            return Ok(Flow::Go);
        }
        let Some(cmd) = command_name(word) else {
            writeln!(out, "unknown command `{word}`; `help` lists the commands")?;
            return Ok(Flow::Go);
        };
        match cmd {
            "help" => {
                for (_, h) in COMMANDS {
                    writeln!(out, "  {h}")?;
                }
            }
            "quit" => return Ok(Flow::Quit),
            "break" => self.add_break(rest, out)?,
            "dprintf" => self.add_dprintf(rest, out)?,
            "ignore" => self.ignore(rest, out)?,
            "delete" => self.delete(rest, out)?,
            "run" => self.start(out)?,
            "continue" => self.cont(out)?,
            "next" | "step" | "finish" | "back" => self.navigate(cmd, out)?,
            "print" => self.print(rest, out)?,
            "info" => self.info(rest, out)?,
            "threads" => self.info("threads", out)?,
            "thread" => self.thread(rest, out)?,
            "where" => self.where_(out)?,
            "list" => self.list(out)?,
            "trace" => self.trace(out)?,
            _ => unreachable!("every command in COMMANDS is handled"),
        }
        out.flush()?;
        Ok(Flow::Go)
    }

    /// Hands the breakpoint list to a running program (it binds again).
    fn rebind(&mut self) {
        if let Some(s) = self.session.as_mut() {
            s.set_breakpoints(self.breakpoints.clone());
        }
    }

    fn add_break(&mut self, spec: &str, out: &mut impl Write) -> Result<()> {
        // gdb's `break FILE:LINE if COND` or our FILE:LINE:COND.
        let spec = match spec.split_once(" if ") {
            Some((loc, cond)) => format!("{}:{}", loc.trim(), cond.trim()),
            None => spec.to_string(),
        };
        self.add(parse_break(&spec), "breakpoint", out)
    }

    /// Adds a parsed breakpoint or dprintf (numbered as gdb does) and binds
    /// it in a running program, or says why the spec is wrong.
    fn add(
        &mut self,
        parsed: Result<FileBreakpoint>,
        what: &str,
        out: &mut impl Write,
    ) -> Result<()> {
        match parsed {
            Ok(bp) => {
                let condition = match (&bp.log_message, &bp.condition) {
                    (None, Some(c)) => format!(" if {c}"),
                    _ => String::new(),
                };
                let n = self.breakpoints.len() + 1;
                let place = format!("{}:{}", bp.file.display(), bp.line);
                writeln!(out, "{what} {n} at {place}{condition}")?;
                self.breakpoints.push(bp);
                self.rebind();
            }
            Err(e) => writeln!(out, "{e:#}")?,
        }
        Ok(())
    }

    fn add_dprintf(&mut self, spec: &str, out: &mut impl Write) -> Result<()> {
        // gdb's `dprintf FILE:LINE,"format"`; our message is one string.
        let spec = match spec.split_once(',') {
            Some((loc, message)) => {
                let message = message.trim();
                let message = message
                    .strip_prefix('"')
                    .and_then(|m| m.strip_suffix('"'))
                    .unwrap_or(message);
                format!("{}:{message}", loc.trim())
            }
            None => spec.to_string(),
        };
        self.add(parse_dprintf(&spec), "dprintf", out)
    }

    fn ignore(&mut self, rest: &str, out: &mut impl Write) -> Result<()> {
        let mut words = rest.split_whitespace();
        let n = words.next().and_then(|n| n.parse::<usize>().ok());
        let count = words.next().and_then(|c| c.parse::<u64>().ok());
        let (Some(n), Some(count)) = (n, count) else {
            writeln!(out, "usage: ignore N COUNT")?;
            return Ok(());
        };
        let Some(bp) = n.checked_sub(1).and_then(|i| self.breakpoints.get_mut(i)) else {
            writeln!(out, "no breakpoint {n}")?;
            return Ok(());
        };
        bp.hit_condition = (count > 0).then_some(HitCondition::Greater(count));
        writeln!(
            out,
            "will ignore the next {count} invocations reaching breakpoint {n}"
        )?;
        self.rebind();
        Ok(())
    }

    fn delete(&mut self, rest: &str, out: &mut impl Write) -> Result<()> {
        if rest.is_empty() {
            self.breakpoints.clear();
            writeln!(out, "all breakpoints deleted")?;
            self.rebind();
        } else {
            match rest.parse::<usize>() {
                Ok(n) if (1..=self.breakpoints.len()).contains(&n) => {
                    self.breakpoints.remove(n - 1);
                    writeln!(out, "breakpoint {n} deleted")?;
                    self.rebind();
                }
                _ => writeln!(out, "no breakpoint {rest}")?,
            }
        }
        Ok(())
    }

    fn start(&mut self, out: &mut impl Write) -> Result<()> {
        if self.session.is_some() {
            writeln!(out, "the program is already running")?;
            return Ok(());
        }
        if self.exit_code.is_some() {
            writeln!(out, "the program has ended")?;
            return Ok(());
        }
        match Session::start(&self.config, self.breakpoints.clone(), self.filter) {
            Ok(mut s) => {
                // No command here shows the framebuffer at a stop.
                s.never_screenshot_at_stops();
                if !self.sanitize.is_empty() {
                    s.set_exception_filters(sanitize_filters(&self.sanitize));
                }
                self.session = Some(s)
            }
            Err(e) => {
                writeln!(out, "cannot start the program: {e}")?;
                return Ok(());
            }
        }
        self.wait(out)
    }

    fn cont(&mut self, out: &mut impl Write) -> Result<()> {
        match self.session.as_mut() {
            None => writeln!(out, "the program is not running; `run` starts it")?,
            Some(s) => {
                if self.stop.take().is_some() {
                    // A sanitizer stop's next report first.
                    s.continue_();
                } else if std::mem::take(&mut self.halted) {
                    s.resume();
                }
                self.wait(out)?;
            }
        }
        Ok(())
    }

    /// Runs until the next stop or the end of the program, reporting events.
    fn wait(&mut self, out: &mut impl Write) -> Result<()> {
        let Some(session) = self.session.as_mut() else {
            return Ok(());
        };
        loop {
            let Some(event) = session.next_event(Duration::from_millis(200)) else {
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
                    let Some(bp) = self.breakpoints.get(index) else {
                        continue;
                    };
                    let n = index + 1;
                    match Binding::of(bp, line, message) {
                        Binding::Bound => {}
                        Binding::Moved(l) => writeln!(out, "breakpoint {n} moved to line {l}")?,
                        Binding::Unplaced(why) => {
                            writeln!(out, "breakpoint {n} not placed: {why}")?
                        }
                    }
                }
                Event::Output { line, .. } => writeln!(out, "{line}")?,
                Event::Log { text, .. } => writeln!(out, "{text}")?,
                Event::Screenshot { .. } => {}
                Event::Halted(halt) => {
                    writeln!(out, "halted: {}", describe_halt(&halt))?;
                    self.halted = true;
                    return Ok(());
                }
                Event::AgentError(m) => writeln!(out, "agent: {m}")?,
                Event::Stopped(stop) => {
                    let finding: Vec<_> = stop.finding().into_iter().collect();
                    print_stop_with(out, &stop, &finding, false, false)?;
                    self.stop = Some(stop);
                    return Ok(());
                }
                Event::Exited { code, signal } => {
                    writeln!(out, "{}", describe_exit(code, signal))?;
                    self.exit_code = Some(code.unwrap_or(1));
                    self.session = None;
                    return Ok(());
                }
            }
        }
    }

    fn stopped(&mut self, out: &mut impl Write) -> Result<Option<&mut Stop>> {
        if self.stop.is_none() {
            writeln!(out, "not stopped in a shader")?;
        }
        Ok(self.stop.as_deref_mut())
    }

    fn navigate(&mut self, cmd: &str, out: &mut impl Write) -> Result<()> {
        let Some(stop) = self.stopped(out)? else {
            return Ok(());
        };
        let from = stop.cursor;
        let target = match cmd {
            "next" => stop.step_over_target(from),
            "step" => stop.step_in_target(from),
            "finish" => stop.step_out_target(from),
            _ => stop.step_back_target(from),
        };
        match target {
            Some(t) => {
                stop.cursor = t;
                write_source_line(out, "", stop, stop.cursor)?;
            }
            None if cmd == "back" => writeln!(out, "at the first recorded step")?,
            None => writeln!(
                out,
                "the invocation ends here; `continue` goes to the next stop"
            )?,
        }
        Ok(())
    }

    fn print(&mut self, expr: &str, out: &mut impl Write) -> Result<()> {
        let Some(stop) = self.stop.as_deref() else {
            writeln!(out, "not stopped in a shader")?;
            return Ok(());
        };
        if expr.is_empty() {
            writeln!(out, "print what?")?;
            return Ok(());
        }
        let session = self.session.as_mut();
        let mut gpu = session.map(|s| move |line: u32, e: &str| s.watch(line, e));
        let gpu = gpu.as_mut().map(|g| g as &mut dyn eval::GpuWatch);
        let lang = stop.language();
        match eval::evaluate_at(stop, stop.cursor, expr, gpu) {
            Ok(v) => {
                let value = match lang {
                    Language::Glsl => v.to_string(),
                    Language::Wgsl => present::format_in(&v.ty, &v.value, lang),
                };
                write_declaration(out, "", expr, &v.ty, &value, lang)?
            }
            Err(e) => writeln!(out, "{e}")?,
        }
        Ok(())
    }

    fn thread(&mut self, n: &str, out: &mut impl Write) -> Result<()> {
        let (Some(stop), Some(session)) = (self.stop.as_ref(), self.session.as_mut()) else {
            writeln!(out, "not stopped in a shader")?;
            return Ok(());
        };
        let invocations = stop.invocations();
        let Some(hit) = n
            .parse::<usize>()
            .ok()
            .and_then(|i| invocations.get(i.wrapping_sub(1)).copied())
        else {
            writeln!(out, "no invocation {n}; `threads` lists them")?;
            return Ok(());
        };
        match session.record_hit(hit) {
            Ok(new) => {
                let finding: Vec<_> = new.finding().into_iter().collect();
                print_stop_with(out, &new, &finding, false, false)?;
                self.stop = Some(Box::new(new));
            }
            Err(e) => writeln!(out, "cannot record that invocation: {e}")?,
        }
        Ok(())
    }

    fn info(&mut self, topic: &str, out: &mut impl Write) -> Result<()> {
        let scope = match topic {
            "locals" => Scope::Local,
            "inputs" => Scope::Input,
            "builtins" => Scope::Builtin,
            "breakpoints" | "break" | "b" => {
                if self.breakpoints.is_empty() {
                    writeln!(out, "no breakpoints")?;
                }
                for (i, b) in self.breakpoints.iter().enumerate() {
                    let mut extra = String::new();
                    if let Some(c) = &b.condition {
                        extra.push_str(&format!(" if {c}"));
                    }
                    if let Some(m) = &b.log_message {
                        extra.push_str(&format!(" dprintf \"{m}\""));
                    }
                    if let Some(h) = &b.hit_condition {
                        extra.push_str(&format!(" (stops when hits {h})"));
                    }
                    // gdb's "breakpoint already hit N times".
                    let hits = self.session.as_ref().map_or(0, |s| s.hit_count(i));
                    if hits > 0 {
                        extra.push_str(&format!(", hit {hits} time(s)"));
                    }
                    writeln!(out, "{:>3}  {}:{}{extra}", i + 1, b.file.display(), b.line,)?;
                }
                return Ok(());
            }
            "threads" => {
                let Some(stop) = self.stopped(out)? else {
                    return Ok(());
                };
                let keys: Vec<Invocation> =
                    stop.invocations().iter().map(|h| h.invocation).collect();
                const SHOWN: usize = 20;
                for (i, key) in keys.iter().enumerate() {
                    let current = *key == stop.hit.invocation;
                    if i >= SHOWN && !current {
                        continue;
                    }
                    let name = key.to_string();
                    let mark = if current { "*" } else { " " };
                    writeln!(out, "{mark} {:>4}  {name}", i + 1)?;
                }
                if keys.len() > SHOWN {
                    writeln!(
                        out,
                        "  ... {} invocations in all{}",
                        keys.len(),
                        if stop.truncated {
                            " (more hit than the agent keeps)"
                        } else {
                            ""
                        }
                    )?;
                }
                return Ok(());
            }
            _ => {
                writeln!(out, "info locals|inputs|builtins|breakpoints|threads")?;
                return Ok(());
            }
        };
        let Some(stop) = self.stopped(out)? else {
            return Ok(());
        };
        let vars: Vec<_> = stop
            .variables(stop.cursor)
            .into_iter()
            .filter(|v| v.scope == scope)
            .collect();
        if vars.is_empty() {
            writeln!(out, "none")?;
        }
        let lang = stop.language();
        for v in vars {
            let value = v
                .value
                .map_or("(not written yet)".to_string(), |x| x.to_string());
            write_declaration(out, "", &v.name, &v.ty, &value, lang)?;
        }
        Ok(())
    }

    fn where_(&mut self, out: &mut impl Write) -> Result<()> {
        let Some(stop) = self.stopped(out)? else {
            return Ok(());
        };
        for (i, (name, loc)) in stop.call_stack(stop.cursor).into_iter().enumerate() {
            writeln!(out, "#{i}  {name} at {}", location_text(stop, &loc))?;
        }
        writeln!(
            out,
            "    {} in draw {} of frame {}",
            stop.invocation_name(),
            stop.draw,
            stop.frame
        )?;
        Ok(())
    }

    fn list(&mut self, out: &mut impl Write) -> Result<()> {
        let Some(stop) = self.stopped(out)? else {
            return Ok(());
        };
        let here = stop.location(stop.cursor).runtime_line;
        for l in here.saturating_sub(5).max(1)..=here + 5 {
            let text = stop.line_text(l);
            if text.is_empty() && l > here {
                break;
            }
            let mark = if l == here { "=>" } else { "  " };
            let shown = stop.location_of_line(l).line;
            writeln!(out, "{mark}{shown:>5} | {}", text.trim_end())?;
        }
        Ok(())
    }

    fn trace(&mut self, out: &mut impl Write) -> Result<()> {
        let Some(stop) = self.stopped(out)? else {
            return Ok(());
        };
        for i in 0..stop.trace.steps.len() {
            let mark = if i == stop.cursor { "=>" } else { "  " };
            write_source_line(out, mark, stop, i)?;
        }
        Ok(())
    }

    fn quit(&mut self, out: &mut impl Write) -> Result<()> {
        if let Some(mut s) = self.session.take() {
            // The program is not ours to keep: end it rather than leave it
            // running unobserved behind the prompt.
            s.kill();
            while let Some(e) = s.next_event(Duration::from_secs(10)) {
                if let Event::Exited { .. } = e {
                    writeln!(out, "program ended")?;
                    break;
                }
            }
        }
        Ok(())
    }
}

fn describe_halt(halt: &Halt) -> String {
    match halt {
        Halt::CompileError {
            shader,
            info_log,
            file,
            line,
            ..
        } => format!(
            "shader {shader} failed to compile{}: {}",
            match (file, line) {
                (Some(f), Some(l)) => format!(" at {}:{l}", f.display()),
                (None, Some(l)) => format!(" at line {l}"),
                _ => String::new(),
            },
            info_log.trim()
        ),
        Halt::GlError {
            frame,
            draw,
            call,
            error,
        } => format!("GL error {error:#06x} in {call} (frame {frame}, after {draw} draws)"),
    }
}

fn location_text(stop: &Stop, loc: &shaderdbg_session::stop::Location) -> String {
    match &loc.file {
        Some(f) => format!("{}:{}", f.display(), loc.line),
        None => format!("<shader {}>:{}", stop.shader, loc.line),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn abbreviations_expand_to_commands() {
        assert_eq!(command_name("n"), Some("next"));
        assert_eq!(command_name("bt"), Some("where"));
        assert_eq!(command_name("rs"), Some("back"));
        assert_eq!(command_name("print"), Some("print"));
        assert_eq!(command_name("frobnicate"), None);
    }

    #[test]
    fn every_command_has_help() {
        for (c, h) in COMMANDS {
            assert!(h.starts_with(c), "{c}: {h}");
        }
    }
}
