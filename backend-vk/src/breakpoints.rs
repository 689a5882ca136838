//! Breakpoints in Vulkan shader modules: each module's recovered source,
//! parsed as Vulkan GLSL with its probe table, the breakpoints the session
//! set in it bound to steps, and the instrumented SPIR-V for a hit test or
//! a recording (GLSL engine, Vulkan dialect, compiled by glslang).

use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex, MutexGuard};

use shaderdbg_core::control::StopFilter;
use shaderdbg_core::probes::ProbeTable;
use shaderdbg_core::{Invocation, Stage};
use shaderdbg_glsl::instrument::{self, Breakpoint, Mode};
use shaderdbg_glsl::parse::Parsed;
use shaderdbg_protocol::LineBreakpoint;

/// A module the session can set breakpoints in.
pub struct ModuleDebug {
    pub stage: Stage,
    parsed: Parsed,
    pub table: ProbeTable,
}

/// A breakpoint bound to a step.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Bound {
    /// The session's id for it.
    pub id: u32,
    pub line: u32,
    pub probe: u32,
    pub condition: Option<String>,
}

#[derive(Default)]
struct State {
    modules: HashMap<u32, Arc<ModuleDebug>>,
    breakpoints: HashMap<u32, Vec<Bound>>,
    filter: StopFilter,
    /// A pause was asked: stop at the next submission with a module.
    pause: bool,
}

fn state() -> MutexGuard<'static, State> {
    static STATE: LazyLock<Mutex<State>> = LazyLock::new(Default::default);
    STATE.lock().unwrap_or_else(|e| e.into_inner())
}

/// Remembers a module's recovered source (as Vulkan GLSL) under `shader`;
/// the error says why it cannot be debugged.
pub fn register(shader: u32, stage: Stage, text: &str) -> Result<(), String> {
    let text = crate::compile::compilable(text);
    let mut parsed =
        shaderdbg_glsl::parse::parse(&[&text], stage, None).map_err(|d| d.to_string())?;
    parsed.api = shaderdbg_glsl::Api::Vulkan;
    let table = instrument::probe_table(&parsed);
    let module = ModuleDebug {
        stage,
        parsed,
        table,
    };
    state().modules.insert(shader, Arc::new(module));
    Ok(())
}

/// Binds the session's breakpoints of `shader` to steps: each to the step
/// on its line or the next line that has one. Per breakpoint, the line it
/// binds to or why it cannot be placed.
pub fn set(shader: u32, requested: &[LineBreakpoint]) -> Vec<Result<u32, String>> {
    let mut st = state();
    let Some(module) = st.modules.get(&shader).cloned() else {
        return requested
            .iter()
            .map(|_| Err("the module's source could not be read as Vulkan GLSL".into()))
            .collect();
    };
    let mut bound = Vec::new();
    let out = requested
        .iter()
        .map(|b| {
            let step = if b.line == 0 {
                module.table.main_entry_step()
            } else {
                module.table.step_for_line(b.line)
            };
            let step = step.ok_or_else(|| format!("no statement at or after line {}", b.line))?;
            let b = Bound {
                id: b.id,
                line: step.line,
                probe: step.id,
                condition: b.condition.clone(),
            };
            // A condition that does not compile is said now, not at the
            // first submission.
            if b.condition.is_some() {
                let mode = ModuleDebug::hit_test(std::slice::from_ref(&b));
                instrument::instrument_vulkan(&module.parsed, &mode, 0)
                    .map_err(|e| e.to_string())?;
            }
            let line = b.line;
            bound.push(b);
            Ok(line)
        })
        .collect();
    if bound.is_empty() {
        st.breakpoints.remove(&shader);
    } else {
        st.breakpoints.insert(shader, bound);
    }
    out
}

/// The breakpoints of `shader` (empty: none).
pub fn of(shader: u32) -> Vec<Bound> {
    state()
        .breakpoints
        .get(&shader)
        .cloned()
        .unwrap_or_default()
}

/// Forgets every breakpoint (the debugger detached).
pub fn clear() {
    state().breakpoints.clear();
}

/// Whether any module has breakpoints, or a pause waits.
pub fn any() -> bool {
    let st = state();
    st.pause || !st.breakpoints.is_empty()
}

/// Where stops may happen (`--frame`, `--pixel`).
pub fn set_filter(filter: StopFilter) {
    state().filter = filter;
}

pub fn filter() -> StopFilter {
    state().filter
}

/// Asks for a stop at the next submission that runs a module.
pub fn request_pause() {
    state().pause = true;
}

/// Takes the pause request, if there is one.
pub fn take_pause() -> bool {
    std::mem::take(&mut state().pause)
}

/// Whether a pause waits (without taking it).
pub fn pause_pending() -> bool {
    state().pause
}

/// The module registered as `shader`.
pub fn module(shader: u32) -> Option<Arc<ModuleDebug>> {
    state().modules.get(&shader).cloned()
}

impl ModuleDebug {
    /// SPIR-V of the module instrumented for `mode`, the debug buffer in
    /// descriptor set `set`.
    pub fn spirv(&self, mode: &Mode, set: u32) -> Result<Vec<u32>, String> {
        let inst =
            instrument::instrument_vulkan(&self.parsed, mode, set).map_err(|e| e.to_string())?;
        let name = format!("module.{}", self.stage.short_name());
        crate::compile::glsl_to_spirv(&inst.glsl, self.stage, &name)
    }

    /// SPIR-V (for a debug set number) of the module instrumented to watch
    /// `expr` at the step of `line`, and the expression's type.
    #[allow(clippy::type_complexity)]
    pub fn watch_spirv(
        &self,
        line: u32,
        expr: &str,
    ) -> Result<
        (
            impl Fn(u32) -> Result<Vec<u32>, String> + '_,
            shaderdbg_core::Type,
        ),
        String,
    > {
        let probe = self
            .table
            .step_for_line(line)
            .ok_or_else(|| format!("no statement at or after line {line}"))?
            .id;
        let mode = Mode::Watch {
            probe,
            expr: expr.to_string(),
        };
        // The type, and errors in the expression, from a first instrumentation.
        let inst =
            instrument::instrument_vulkan(&self.parsed, &mode, 0).map_err(|e| e.to_string())?;
        let ty = inst
            .watch_type
            .ok_or_else(|| format!("watch expression `{expr}`: it has no type here"))?;
        Ok((move |set| self.spirv(&mode, set), ty))
    }

    /// The hit-test mode for `bound` (tags are indices into it).
    pub fn hit_test(bound: &[Bound]) -> Mode {
        Mode::HitTest(
            bound
                .iter()
                .map(|b| Breakpoint {
                    probe: b.probe,
                    condition: b.condition.clone(),
                })
                .collect(),
        )
    }

    /// The recording mode for one invocation.
    pub fn record(selector: Invocation) -> Mode {
        Mode::Record(selector)
    }
}
