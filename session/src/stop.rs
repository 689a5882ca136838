//! One stop: the invocation that hit, its recorded trace, a cursor into it, and
//! everything in terms of the user's file where the shader came from one.

use std::path::PathBuf;

use std::sync::Arc;

use crate::binding::FileMap;
use shaderdbg_core::decode::{InvocationTrace, SanitizerReport, Write};
use shaderdbg_core::probes::{PathElem, ProbeTable, Storage, VarKind};
use shaderdbg_core::{Hit, Invocation, Language, Stage, StopReason, Type, Value};

/// A shader's runtime source, parsed by its language's engine (names and
/// structs for expressions).
pub enum Source {
    Glsl(shaderdbg_glsl::parse::Parsed),
    /// WGSL (what GLSL that naga wrote came from, `shaderdbg_wgsl::gl_origin`).
    Wgsl(Box<shaderdbg_wgsl::Parsed>),
}

impl Source {
    pub fn language(&self) -> Language {
        match self {
            Source::Glsl(_) => Language::Glsl,
            Source::Wgsl(_) => Language::Wgsl,
        }
    }

    /// The whole runtime source.
    pub fn text(&self) -> &str {
        match self {
            Source::Glsl(p) => &p.source.text,
            Source::Wgsl(p) => &p.source,
        }
    }

    /// The text of one 1-based line, without its newline.
    pub fn line_text(&self, line: u32) -> &str {
        match self {
            Source::Glsl(p) => p.source.line_text(line),
            Source::Wgsl(p) => p
                .source
                .split('\n')
                .nth(line.saturating_sub(1) as usize)
                .map_or("", |l| l.strip_suffix('\r').unwrap_or(l)),
        }
    }
}

/// Which scope a variable is shown in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// Locals and parameters of the function executing.
    Local,
    /// Inputs (`in`, `varying`, `attribute`) and uniforms.
    Input,
    /// Built-in variables (`gl_FragCoord`, `gl_FragColor`, ...).
    Builtin,
    /// Other globals and outputs.
    Global,
}

#[derive(Clone, Debug)]
pub struct Variable {
    pub name: String,
    pub ty: Type,
    /// `None` when not written yet.
    pub value: Option<Value>,
    pub scope: Scope,
}

/// A place in the source: the user's file when the shader came from one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Location {
    pub file: Option<PathBuf>,
    /// 1-based line in `file`, or in the runtime source when there is no file
    /// (or the line is not from it).
    pub line: u32,
    pub runtime_line: u32,
}

pub struct Stop {
    pub shader: u32,
    pub stage: Stage,
    pub frame: u64,
    pub draw: u64,
    pub program: u32,
    /// The invocation recorded, and the step it is stopped for (`probe` 0:
    /// an invocation recorded on request, not for a hit).
    pub hit: Hit,
    /// Every invocation that hit at this draw, in order.
    pub hits: Vec<Hit>,
    /// More invocations hit than the agent's buffer held.
    pub truncated: bool,
    /// Why the agent stopped at this draw.
    pub reason: StopReason,
    /// [`StopReason::Sanitizer`]: what the sanitizer found at this
    /// dispatch (hit `i` is report `i`'s); described by
    /// [`Stop::findings`](crate::sanitizer).
    pub sanitizer: Vec<SanitizerReport>,
    /// [`StopReason::Sanitizer`]: the report this stop shows (index into
    /// `sanitizer`; [`Stop::finding`](crate::sanitizer) describes it).
    pub report: usize,
    /// For a breakpoint stop: the breakpoints (indices into the session's
    /// list) the stop is for.
    pub breakpoints: Vec<usize>,
    /// The user's files the shader came from, with their maps (the main
    /// file first; more where the source `#include`s files).
    pub files: Vec<(PathBuf, FileMap)>,
    /// The runtime source, parsed (names and structs for expressions).
    pub parsed: Arc<Source>,
    /// The probe table the agent instrumented the shader with.
    pub table: Arc<ProbeTable>,
    pub trace: InvocationTrace,
    /// The step the stop is at.
    pub cursor: usize,
}

impl Stop {
    /// The step of the trace the hit names: the (occurrence+1)-th time the
    /// invocation reached the breakpoint's step.
    pub fn hit_step(table: &ProbeTable, trace: &InvocationTrace, hit: &Hit) -> Option<usize> {
        let probe = table.get(hit.probe).filter(|p| p.is_step())?.id;
        trace
            .steps
            .iter()
            .enumerate()
            .filter(|(_, s)| s.probe == probe)
            .nth(hit.occurrence as usize)
            .map(|(i, _)| i)
    }

    pub fn location(&self, step: usize) -> Location {
        let runtime_line = self.trace.steps.get(step).map_or(0, |s| s.line);
        self.location_of_line(runtime_line)
    }

    pub fn location_of_line(&self, runtime_line: u32) -> Location {
        match self
            .files
            .iter()
            .find_map(|(f, m)| Some((f, m.runtime_to_file(runtime_line)?)))
        {
            Some((file, line)) => Location {
                file: Some(file.clone()),
                line,
                runtime_line,
            },
            None => Location {
                file: None,
                line: runtime_line,
                runtime_line,
            },
        }
    }

    /// The source text of a runtime line.
    pub fn line_text(&self, runtime_line: u32) -> &str {
        self.parsed.line_text(runtime_line)
    }

    /// The language of the shader's source (type names are spelled in it:
    /// `Type::display_in`).
    pub fn language(&self) -> Language {
        self.parsed.language()
    }

    /// The variables in scope at `step`, as they are before it executes.
    pub fn variables(&self, step: usize) -> Vec<Variable> {
        self.trace
            .variables_at(step, &self.table)
            .into_iter()
            .map(|(d, value)| {
                let v = &self.table.vars[d];
                let scope = match v.kind {
                    VarKind::Local | VarKind::Param => Scope::Local,
                    VarKind::Builtin(_) => Scope::Builtin,
                    VarKind::Global(Storage::In | Storage::Uniform) => Scope::Input,
                    VarKind::Global(_) => Scope::Global,
                };
                Variable {
                    name: v.name.clone(),
                    ty: v.ty.clone(),
                    value,
                    scope,
                }
            })
            .collect()
    }

    /// What `step` wrote: (name with path, value).
    pub fn writes(&self, step: usize) -> Vec<(String, Value)> {
        self.trace
            .writes_of(step)
            .map(|w| (self.write_name(w), w.value.clone()))
            .collect()
    }

    fn write_name(&self, w: &Write) -> String {
        let mut name = self.table.vars[w.decl].name.clone();
        for p in &w.path {
            match p {
                PathElem::Field(f) => {
                    name.push('.');
                    name.push_str(f);
                }
                PathElem::Index(i) => name.push_str(&format!("[{i}]")),
            }
        }
        name
    }

    /// The function executing at `step` and the call stack, innermost first:
    /// (function name, location).
    pub fn call_stack(&self, step: usize) -> Vec<(String, Location)> {
        self.trace
            .call_stack(step)
            .into_iter()
            .map(|(f, line)| {
                let name = f
                    .and_then(|f| self.table.functions.get(f))
                    .map_or("?".to_string(), |f| f.name.clone());
                (name, self.location_of_line(line))
            })
            .collect()
    }

    /// A thread-like name for the invocation, e.g. `fragment (412,300) prim 7`.
    pub fn invocation_name(&self) -> String {
        self.hit.invocation.to_string()
    }

    pub fn invocation(&self) -> Invocation {
        self.hit.invocation
    }
}

/// Stepping: navigation of the recorded trace. Each returns the step to move
/// to, or `None` when there is none in the recording.
impl Stop {
    /// The first step after `from` whose call depth satisfies `keep` (given
    /// the depth at `from` and the step's).
    fn next_at_depth(&self, from: usize, keep: impl Fn(usize, usize) -> bool) -> Option<usize> {
        let depth = self.trace.steps.get(from)?.depth;
        self.trace
            .steps
            .iter()
            .enumerate()
            .skip(from + 1)
            .find(|(_, s)| keep(depth, s.depth))
            .map(|(i, _)| i)
    }

    /// Step over: the next step after `from` at the same or a shallower call depth.
    pub fn step_over_target(&self, from: usize) -> Option<usize> {
        self.next_at_depth(from, |at, d| d <= at)
    }

    /// Step in: the next step.
    pub fn step_in_target(&self, from: usize) -> Option<usize> {
        (from + 1 < self.trace.steps.len()).then_some(from + 1)
    }

    /// Step out: the next step at a shallower call depth (in a caller).
    pub fn step_out_target(&self, from: usize) -> Option<usize> {
        self.next_at_depth(from, |at, d| d < at)
    }

    /// Step back: the previous step.
    pub fn step_back_target(&self, from: usize) -> Option<usize> {
        from.checked_sub(1).filter(|&i| i < self.trace.steps.len())
    }

    /// Every invocation that hit at this draw (a sanitizer stop: of the
    /// report shown), once each (its first hit), in the agent's order.
    /// Linear in the hits: a draw can have 65,536.
    pub fn invocations(&self) -> Vec<Hit> {
        let mut seen = std::collections::HashSet::new();
        self.report_hits()
            .filter(|h| seen.insert(h.invocation))
            .copied()
            .collect()
    }

    /// The steps of this trace where the agent's hit test found a breakpoint
    /// (its condition true) for the recorded invocation, in order.
    pub fn hit_steps(&self) -> Vec<usize> {
        let mut steps: Vec<usize> = self
            .hits
            .iter()
            .filter(|h| h.invocation == self.hit.invocation && h.line != 0)
            .filter_map(|h| Self::hit_step(&self.table, &self.trace, h))
            .collect();
        steps.sort_unstable();
        steps.dedup();
        steps
    }

    /// The step each frame of [`Stop::call_stack`] at `step` is executing,
    /// innermost first, aligned with it (a caller frame's step is its call;
    /// `None` for a call made before the first step).
    pub fn call_stack_steps(&self, step: usize) -> Vec<Option<usize>> {
        let mut out = Vec::new();
        let Some(s) = self.trace.steps.get(step) else {
            return out;
        };
        out.push(Some(step));
        let mut f = s.frame;
        while let Some(c) = self.trace.frames.get(f).and_then(|fr| fr.caller) {
            out.push(self.trace.frames[f].call_step);
            f = c;
        }
        out
    }
}
