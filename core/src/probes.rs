//! The probe table: an id for every place instrumentation can observe, with its
//! source span and the type of what it logs. An engine (GLSL today) fills it
//! while instrumenting; the same walk assigns the same ids in every
//! instrumentation mode, so a hit from the hit test names the same probe as a
//! step of a recording. The table is plain data (serde): the agent that
//! instrumented a shader sends it to the session, which decodes with it.

use serde::{Deserialize, Serialize};

use crate::stage::Stage;
use crate::types::Type;

pub type ProbeId = u32;
/// Index into [`ProbeTable::vars`].
pub type DeclId = usize;
/// Index into [`ProbeTable::functions`].
pub type FunctionId = usize;

/// A byte range of the runtime source.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

impl Span {
    pub fn new(start: usize, len: usize) -> Span {
        Span {
            start,
            end: start + len,
        }
    }
}

/// Where a variable lives, as far as a debugger cares.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Storage {
    /// A global private to the invocation.
    Private,
    Const,
    /// A stage input (or a read-only system value).
    In,
    Out,
    /// Readable and writable built-ins.
    InOut,
    Uniform,
    /// A storage buffer.
    Buffer,
    /// Workgroup-shared memory.
    Shared,
}

/// What kind of variable a probe table entry is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VarKind {
    Local,
    Param,
    /// A global the shader declares.
    Global(Storage),
    /// A variable the language provides (`gl_FragCoord`, `@builtin(position)`).
    Builtin(Storage),
}

impl VarKind {
    pub fn is_global(self) -> bool {
        matches!(self, VarKind::Global(_) | VarKind::Builtin(_))
    }
}

/// One element of a write target's path below its root variable.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PathElem {
    Field(String),
    Index(u32),
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProbeKind {
    /// The selected invocation starts: payload is its key (see `layout::Hit::key`).
    InvocationStart,
    /// An executable statement is about to run: a step.
    Statement,
    /// `discard` is about to run (also a step).
    Discard,
    /// A condition was evaluated (if, loop test, `?:`); payload is the bool.
    Condition,
    /// A loop body starts another iteration.
    LoopIteration,
    /// A function was entered.
    FunctionEntry,
    /// A function returns; payload is the return value unless void.
    FunctionReturn,
    /// A variable (or the part of it at `path`) was written; payload its new value.
    Write { decl: DeclId, path: Vec<PathElem> },
    /// The value of an input, uniform or built-in input when `main` starts.
    Input { decl: DeclId },
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Probe {
    pub id: ProbeId,
    pub kind: ProbeKind,
    pub span: Span,
    /// 1-based line in the runtime source text.
    pub line: u32,
    pub function: Option<FunctionId>,
    /// What the probe logs, if anything.
    pub payload: Option<Type>,
    /// For steps: the function-local variables in scope (parameters included).
    pub locals: Vec<DeclId>,
}

impl Probe {
    pub fn is_step(&self) -> bool {
        matches!(self.kind, ProbeKind::Statement | ProbeKind::Discard)
    }

    /// Words of payload the probe's entries carry.
    pub fn payload_words(&self) -> usize {
        self.payload.as_ref().and_then(Type::words).unwrap_or(0) as usize
    }
}

/// A variable as the probe table remembers it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct VarInfo {
    pub name: String,
    pub ty: Type,
    pub kind: VarKind,
    pub function: Option<FunctionId>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FunctionInfo {
    pub name: String,
    pub signature: String,
}

/// All probes of one shader, with what is needed to interpret their entries
/// without the AST.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProbeTable {
    pub stage: Stage,
    /// Indexed by `id - 1`.
    pub probes: Vec<Probe>,
    /// Indexed by `DeclId`.
    pub vars: Vec<VarInfo>,
    /// Indexed by `FunctionId`.
    pub functions: Vec<FunctionInfo>,
}

impl ProbeTable {
    pub fn get(&self, id: ProbeId) -> Option<&Probe> {
        self.probes.get((id as usize).checked_sub(1)?)
    }

    /// Lines (1-based, runtime source) that have at least one step.
    pub fn executable_lines(&self) -> Vec<u32> {
        let mut lines: Vec<u32> = self
            .probes
            .iter()
            .filter(|p| p.is_step())
            .map(|p| p.line)
            .collect();
        lines.sort_unstable();
        lines.dedup();
        lines
    }

    /// The step a breakpoint on `line` binds to: the first step on that line, or
    /// else on the nearest following line that has one.
    pub fn step_for_line(&self, line: u32) -> Option<&Probe> {
        let best_line = self
            .probes
            .iter()
            .filter(|p| p.is_step() && p.line >= line)
            .map(|p| p.line)
            .min()?;
        self.probes
            .iter()
            .find(|p| p.is_step() && p.line == best_line)
    }

    /// The first step of a shader's entry point, whatever its name (`main`
    /// in GLSL, the `@fragment`/`@vertex`/`@compute` function in WGSL): the
    /// first step of the function its invocations start in, else of `main`.
    pub fn entry_step(&self) -> Option<&Probe> {
        let entry = self
            .probes
            .iter()
            .find(|p| p.kind == ProbeKind::InvocationStart)
            .map(|p| p.function);
        match entry {
            Some(f) => self.probes.iter().find(|p| p.is_step() && p.function == f),
            None => self.main_entry_step(),
        }
    }

    /// The first step of `main`: where a stop "at the start of the shader" goes.
    pub fn main_entry_step(&self) -> Option<&Probe> {
        let main = self.functions.iter().position(|f| f.name == "main")?;
        self.probes
            .iter()
            .find(|p| p.is_step() && p.function == Some(main))
    }

    /// A readable dump, for snapshot tests and `shaderdbg glsl probes`.
    pub fn render(&self) -> String {
        let mut out = String::new();
        for p in &self.probes {
            let func = p
                .function
                .and_then(|f| self.functions.get(f))
                .map_or("-", |f| f.name.as_str());
            let kind = match &p.kind {
                ProbeKind::Write { decl, path } => {
                    let mut s = format!("write {}", self.vars[*decl].name);
                    for e in path {
                        match e {
                            PathElem::Field(f) => s.push_str(&format!(".{f}")),
                            PathElem::Index(i) => s.push_str(&format!("[{i}]")),
                        }
                    }
                    s
                }
                ProbeKind::Input { decl } => format!("input {}", self.vars[*decl].name),
                other => format!("{other:?}").to_lowercase(),
            };
            let payload = p
                .payload
                .as_ref()
                .map(|t| format!(" : {t}"))
                .unwrap_or_default();
            out.push_str(&format!(
                "{:>3} line {:>3} {func}: {kind}{payload}\n",
                p.id, p.line
            ));
        }
        out
    }
}
