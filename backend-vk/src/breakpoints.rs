//! Breakpoints in Vulkan shader modules: each module's recovered source,
//! parsed with its probe table (Vulkan GLSL for the GLSL engine, or WGSL
//! for the WGSL engine), the breakpoints the session set in it bound to
//! steps, and the instrumented SPIR-V for a hit test or a recording (GLSL
//! compiled by glslang; WGSL written by naga under the program's options).

use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex, MutexGuard};

use shaderdbg_core::control::StopFilter;
use shaderdbg_core::probes::ProbeTable;
use shaderdbg_core::{Invocation, Stage};
use shaderdbg_glsl::instrument::{self, Breakpoint, Mode};
use shaderdbg_glsl::parse::Parsed;
use shaderdbg_protocol::LineBreakpoint;

use crate::error::Error;

/// How a GLSL module is instrumented for Vulkan.
type VulkanInstrument =
    fn(&Parsed, &Mode, u32) -> Result<instrument::Instrumented, instrument::InstrumentError>;

/// An entry point of a module the session can set breakpoints in.
pub struct ModuleDebug {
    pub stage: Stage,
    pub entry_point: String,
    engine: Engine,
    pub table: ProbeTable,
}

enum Engine {
    Glsl(Parsed),
    Wgsl(Arc<crate::wgsl::WgslModule>),
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
    /// Why a module announced to the session cannot be debugged.
    unusable: HashMap<u32, String>,
    breakpoints: HashMap<u32, Vec<Bound>>,
    /// The lines the session last asked breakpoints at, per module.
    requested: HashMap<u32, Vec<u32>>,
    filter: StopFilter,
    /// A pause was asked: stop at the next submission with a module.
    pause: bool,
    /// Stop where a fragment or vertex shader writes NaN or infinity.
    nan_inf: bool,
}

fn state() -> MutexGuard<'static, State> {
    static STATE: LazyLock<Mutex<State>> = LazyLock::new(Default::default);
    STATE.lock().unwrap_or_else(|e| e.into_inner())
}

/// Remembers an entry point's recovered source (as Vulkan GLSL) under
/// `shader`; the error says why it cannot be debugged.
pub fn register(shader: u32, stage: Stage, entry_point: &str, text: &str) -> Result<(), Error> {
    let text = crate::compile::compilable(text);
    let mut parsed = shaderdbg_glsl::parse::parse(&[&text], stage, None).map_err(Error::from)?;
    parsed.api = shaderdbg_glsl::Api::Vulkan;
    let table = instrument::probe_table(&parsed);
    let module = ModuleDebug {
        stage,
        entry_point: entry_point.to_string(),
        engine: Engine::Glsl(parsed),
        table,
    };
    state().modules.insert(shader, Arc::new(module));
    Ok(())
}

/// Remembers an entry point of a WGSL module under `shader`.
pub fn register_wgsl(
    shader: u32,
    stage: Stage,
    entry_point: &str,
    module: &Arc<crate::wgsl::WgslModule>,
) -> Result<(), Error> {
    let table = shaderdbg_wgsl::probe_table(&module.parsed, entry_point).map_err(Error::from)?;
    let module = ModuleDebug {
        stage,
        entry_point: entry_point.to_string(),
        engine: Engine::Wgsl(module.clone()),
        table,
    };
    state().modules.insert(shader, Arc::new(module));
    Ok(())
}

/// Remembers why `shader` cannot be debugged (its breakpoints say it).
pub fn unusable(shader: u32, why: String) {
    state().unusable.insert(shader, why);
}

/// Makes `shader` one that cannot be debugged from now on (`why`), its
/// breakpoints gone: the lines the session asked breakpoints at, to tell
/// it they are not placed; none if it was not debuggable already.
pub fn withdraw(shader: u32, why: &str) -> Option<Vec<u32>> {
    let mut st = state();
    st.modules.remove(&shader)?;
    st.unusable.insert(shader, why.to_string());
    st.breakpoints.remove(&shader);
    Some(st.requested.remove(&shader).unwrap_or_default())
}

/// Binds the session's breakpoints of `shader` to steps: each to the step
/// on its line or the next line that has one. Per breakpoint, the line it
/// binds to or why it cannot be placed.
pub fn set(shader: u32, requested: &[LineBreakpoint]) -> Vec<Result<u32, Error>> {
    let mut st = state();
    st.requested
        .insert(shader, requested.iter().map(|b| b.line).collect());
    let Some(module) = st.modules.get(&shader).cloned() else {
        let why = st.unusable.get(&shader).cloned().unwrap_or_else(|| {
            "the module's source could not be read as Vulkan GLSL or WGSL".into()
        });
        return requested
            .iter()
            .map(|_| Err(Error::Undebuggable(why.clone())))
            .collect();
    };
    let mut bound = Vec::new();
    let out = requested
        .iter()
        .map(|b| {
            let step = match &module.engine {
                Engine::Wgsl(wgsl) if b.line > 0 => {
                    wgsl.step_for_line(&module.table, &module.entry_point, b.line)?
                }
                _ if b.line == 0 => module
                    .table
                    .entry_step()
                    .ok_or(Error::Cannot("the entry point has no statement"))?,
                _ => module
                    .table
                    .step_for_line(b.line)
                    .ok_or(Error::NoStatement(b.line))?,
            };
            let b = Bound {
                id: b.id,
                line: step.line,
                probe: step.id,
                condition: b.condition.clone(),
            };
            // A condition that does not compile is said now, not at the
            // first submission.
            if b.condition.is_some() {
                module.check(&ModuleDebug::hit_test(std::slice::from_ref(&b)))?;
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
    let mut st = state();
    st.breakpoints.clear();
    st.nan_inf = false;
    st.filter = StopFilter::default();
}

/// Whether a submission may stop: a module has breakpoints, a pause waits,
/// pixel history or the NaN/Inf filter is on.
pub fn any() -> bool {
    let st = state();
    st.pause
        || st.nan_inf
        || (st.filter.pixel_history && st.filter.pixel.is_some())
        || !st.breakpoints.is_empty()
}

/// The exception filters the layer acts on (NaN/Inf); whether the session
/// asked for ones it does not (the sanitizer's, GL errors).
pub fn set_exceptions(f: shaderdbg_protocol::ExceptionFilters) -> bool {
    state().nan_inf = f.nan_inf;
    f.gl_error || f.sanitize_oob || f.sanitize_uninit || f.sanitize_race
}

/// Whether the NaN/Inf filter is on.
pub fn nan_inf() -> bool {
    state().nan_inf
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
    /// SPIR-V of the entry point instrumented for `mode`, the debug buffer
    /// in descriptor set `set`, and a watch expression's type.
    fn instrumented(
        &self,
        mode: &Mode,
        set: u32,
    ) -> Result<(Vec<u32>, Option<shaderdbg_core::Type>), Error> {
        self.instrumented_with(mode, set, instrument::instrument_vulkan)
    }

    /// [`Self::instrumented`] by `instrument` (a GLSL module's).
    fn instrumented_with(
        &self,
        mode: &Mode,
        set: u32,
        instrument: VulkanInstrument,
    ) -> Result<(Vec<u32>, Option<shaderdbg_core::Type>), Error> {
        match &self.engine {
            Engine::Glsl(parsed) => {
                let inst = instrument(parsed, mode, set).map_err(Error::from)?;
                let name = format!("module.{}", self.stage.short_name());
                let code = crate::compile::glsl_to_spirv(
                    &inst.glsl,
                    self.stage,
                    &self.entry_point,
                    &name,
                )?;
                Ok((code, inst.watch_type))
            }
            Engine::Wgsl(module) => module.spirv(&self.entry_point, mode, set),
        }
    }

    /// Whether `mode` instruments (a condition or a watch expression that
    /// does not compile says why), and a watch expression's type; nothing
    /// is compiled.
    fn check(&self, mode: &Mode) -> Result<Option<shaderdbg_core::Type>, Error> {
        match &self.engine {
            Engine::Glsl(parsed) => instrument::instrument_vulkan(parsed, mode, 0)
                .map(|i| i.watch_type)
                .map_err(Error::from),
            Engine::Wgsl(module) => module.check(&self.entry_point, mode),
        }
    }

    /// SPIR-V of the entry point instrumented for `mode`, the debug buffer
    /// in descriptor set `set`.
    pub fn spirv(&self, mode: &Mode, set: u32) -> Result<Vec<u32>, Error> {
        self.instrumented(mode, set).map(|(code, _)| code)
    }

    /// SPIR-V (for a debug set number) of the entry point instrumented to
    /// watch `expr` at the step of `line`, and the expression's type.
    #[allow(clippy::type_complexity)]
    pub fn watch_spirv(
        &self,
        line: u32,
        expr: &str,
    ) -> Result<
        (
            impl Fn(u32) -> Result<Vec<u32>, Error> + '_,
            shaderdbg_core::Type,
        ),
        Error,
    > {
        let probe = self
            .table
            .step_for_line(line)
            .ok_or(Error::NoStatement(line))?
            .id;
        let mode = Mode::Watch {
            probe,
            expr: expr.to_string(),
        };
        // The type, and errors in the expression, before any compiling.
        let ty = self
            .check(&mode)?
            .ok_or_else(|| Error::Untyped(expr.to_string()))?;
        Ok((move |set| self.spirv(&mode, set), ty))
    }

    /// SPIR-V of the entry point instrumented for a hit test of `bound`
    /// (tags are indices into it), with NaN/Inf checks, and of the fragment
    /// at `pixel` only (so that a hit buffer full of other fragments' hits
    /// cannot hide its hits), the debug buffer in set `set`.
    pub fn hit_test_spirv(
        &self,
        bound: &[Bound],
        nan_inf: bool,
        pixel: Option<[u32; 2]>,
        set: u32,
    ) -> Result<Vec<u32>, Error> {
        self.hit_spirv(bound, nan_inf, pixel, set, instrument::instrument_vulkan)
    }

    /// SPIR-V (for a debug set number) of [`Self::hit_test_spirv`] that
    /// only flags a hit (the debug buffer's first word non-zero, no hit
    /// records: see `instrument::instrument_vulkan_flag`); none for a WGSL
    /// module.
    #[allow(clippy::type_complexity)]
    pub fn hit_flag<'a>(
        &'a self,
        bound: &'a [Bound],
        nan_inf: bool,
        pixel: Option<[u32; 2]>,
    ) -> Option<Box<dyn Fn(u32) -> Result<Vec<u32>, Error> + 'a>> {
        let flag = instrument::instrument_vulkan_flag;
        matches!(self.engine, Engine::Glsl(_)).then(|| -> Box<dyn Fn(u32) -> _> {
            Box::new(move |set| self.hit_spirv(bound, nan_inf, pixel, set, flag))
        })
    }

    fn hit_spirv(
        &self,
        bound: &[Bound],
        nan_inf: bool,
        pixel: Option<[u32; 2]>,
        set: u32,
        by: VulkanInstrument,
    ) -> Result<Vec<u32>, Error> {
        let pixel = pixel.filter(|_| self.stage == Stage::Fragment);
        let breakpoints = |bound: &[Bound]| {
            bound
                .iter()
                .map(|b| Breakpoint {
                    probe: b.probe,
                    condition: b.condition.clone(),
                })
                .collect()
        };
        let mode = |bps| match nan_inf {
            true => Mode::HitTestNanInf(bps),
            false => Mode::HitTest(bps),
        };
        match (&self.engine, pixel) {
            (Engine::Wgsl(module), Some([x, y])) => module
                .hit_test_spirv(
                    &self.entry_point,
                    &mode(breakpoints(bound)),
                    Invocation::fragment(x, y),
                    set,
                )
                .map(|(code, _)| code),
            (Engine::Glsl(_), Some([x, y])) => {
                // The pixel is part of each condition (Vulkan's
                // `gl_FragCoord` has the stop filter's origin, top left).
                let at = format!("uint(gl_FragCoord.x) == {x}u && uint(gl_FragCoord.y) == {y}u");
                let at_pixel: Vec<Bound> = bound
                    .iter()
                    .map(|b| Bound {
                        condition: Some(match &b.condition {
                            Some(c) => format!("({at}) && ({c})"),
                            None => at.clone(),
                        }),
                        ..b.clone()
                    })
                    .collect();
                let mode = mode(breakpoints(&at_pixel));
                self.instrumented_with(&mode, set, by).map(|(code, _)| code)
            }
            (_, None) => {
                let mode = mode(breakpoints(bound));
                self.instrumented_with(&mode, set, by).map(|(code, _)| code)
            }
        }
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
