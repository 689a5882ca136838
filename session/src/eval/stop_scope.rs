//! A stop's cursor as an evaluation scope.

use std::cell::RefCell;
use std::sync::Arc;

use shaderdbg_core::probes::VarKind;
use shaderdbg_core::types::StructType;
use shaderdbg_core::{Invocation, Type, Value};
use shaderdbg_glsl::analysis::Model;

use shaderdbg_core::Language;
use shaderdbg_wgsl::eval as wgsl_eval;

use super::gpu::{GpuSite, GpuWatch, Slot};
use super::{parse, EvalError, Evaluator, Scope, Typed, R};
use crate::stop::{self, Stop, Variable};

/// The names at a step of a stop: the variables in scope before the step
/// executes (the innermost local of a name shadows the others, locals shadow
/// globals), globals not read yet (no value) and samplers (opaque), the
/// shader's structs and functions (from its analysis, built on first need).
pub struct StopScope<'a> {
    stop: &'a Stop,
    vars: Vec<Variable>,
    model: RefCell<Option<Model>>,
}

impl<'a> StopScope<'a> {
    pub fn new(stop: &'a Stop, step: usize) -> StopScope<'a> {
        StopScope {
            stop,
            vars: stop.variables(step),
            model: RefCell::new(None),
        }
    }

    /// `None` for a WGSL shader (its structs come from the probe table).
    fn with_model<T>(&self, f: impl FnOnce(&mut Model) -> T) -> Option<T> {
        let crate::stop::Source::Glsl(parsed) = &*self.stop.parsed else {
            return None;
        };
        let mut m = self.model.borrow_mut();
        let m = m.get_or_insert_with(|| Model::analyze(parsed));
        Some(f(m))
    }
}

impl Scope for StopScope<'_> {
    fn lookup(&self, name: &str) -> Option<(Type, Option<Value>)> {
        let locals = self
            .vars
            .iter()
            .filter(|v| v.scope == stop::Scope::Local)
            .rev();
        let others = self.vars.iter().filter(|v| v.scope != stop::Scope::Local);
        if let Some(v) = locals.chain(others).find(|v| v.name == name) {
            return Some((v.ty.clone(), v.value.clone()));
        }
        // A global nothing has read or written yet, or a sampler.
        self.stop
            .table
            .vars
            .iter()
            .find(|v| v.name == name && matches!(v.kind, VarKind::Global(_)))
            .map(|v| (v.ty.clone(), None))
    }

    fn struct_type(&self, name: &str) -> Option<Arc<StructType>> {
        if let Some(found) = self.with_model(|m| m.structs.get(name).cloned()) {
            return found;
        }
        // WGSL: the structs the recorded variables have.
        fn find(ty: &Type, name: &str) -> Option<Arc<StructType>> {
            match ty {
                Type::Struct(s) if s.name == name => Some(s.clone()),
                Type::Struct(s) => s.fields.iter().find_map(|f| find(&f.ty, name)),
                Type::Array(e, _) => find(e, name),
                _ => None,
            }
        }
        self.stop.table.vars.iter().find_map(|v| find(&v.ty, name))
    }

    fn is_function(&self, name: &str) -> bool {
        self.stop.table.functions.iter().any(|f| f.name == name)
    }
}

/// Where the GPU evaluates for the stop's invocation at `step` (`None`: the
/// step does not exist, or the stage has no watch slots per invocation).
pub fn gpu_site(stop: &Stop, step: usize) -> Option<GpuSite> {
    let s = stop.trace.steps.get(step)?;
    let slot = match stop.hit.invocation {
        Invocation::Fragment { x, y, .. } => Slot::Pixel { x, y },
        Invocation::Vertex { vertex, .. } => Slot::Index(u32::try_from(vertex).ok()?),
        Invocation::Compute { .. } => return None,
    };
    let first_reach = !stop.trace.steps[..step].iter().any(|t| t.probe == s.probe);
    Some(GpuSite {
        line: s.line,
        slot,
        first_reach,
    })
}

/// Evaluates `expr` over the values of `stop` before `step` executes (in the
/// shader's language: WGSL goes to naga's constant evaluator). With
/// `gpu`, calls the CPU cannot evaluate faithfully go to the GPU (a watch at
/// the step's line); without it, or for a stage other than fragment and
/// vertex, they are [`EvalError::NeedsGpu`].
pub fn evaluate_at(
    stop: &Stop,
    step: usize,
    expr: &str,
    gpu: Option<&mut dyn GpuWatch>,
) -> R<Typed> {
    if stop.language() == Language::Wgsl {
        return evaluate_wgsl(stop, step, expr, gpu);
    }
    let scope = StopScope::new(stop, step);
    let e = parse(expr)?;
    let gpu = match (gpu, gpu_site(stop, step)) {
        (Some(g), Some(site)) => Some((g, site)),
        _ => None,
    };
    super::shown(Evaluator::new(&scope, gpu).eval(&e)?)
}

/// A WGSL shader's expression over the values before `step`, evaluated as
/// GLSL ones are: on the CPU where it is faithful (naga's constant
/// evaluator, `shaderdbg_wgsl::eval`: WGSL syntax and rules), otherwise on
/// the GPU by a watch of the whole expression. The GPU takes calls of the
/// shader's functions and of the built-ins only it has (texture access,
/// derivatives), and what a constant cannot be but a run-time value can
/// (division by zero, a NaN in scope, ...: `wgsl_eval::EvalError::RunTime`).
/// A watch evaluates where the invocation first reaches the cursor's line;
/// elsewhere, without a GPU, or in a compute shader, such an expression is
/// an error saying why.
fn evaluate_wgsl(stop: &Stop, step: usize, expr: &str, gpu: Option<&mut dyn GpuWatch>) -> R<Typed> {
    if expr.len() > super::MAX_EXPR_LEN {
        return Err(EvalError::Parse(format!(
            "the expression is longer than {} bytes",
            super::MAX_EXPR_LEN
        )));
    }
    let vars = stop.variables(step);
    // Locals first, innermost first: the first of a name wins.
    let ordered = vars
        .iter()
        .filter(|v| v.scope == stop::Scope::Local)
        .rev()
        .chain(vars.iter().filter(|v| v.scope != stop::Scope::Local));
    let in_scope: Vec<wgsl_eval::Var> = ordered
        .map(|v| wgsl_eval::Var {
            name: &v.name,
            ty: &v.ty,
            value: v.value.as_ref(),
        })
        .collect();
    // A variable of the name shadows a function (WGSL scoping).
    let called = wgsl_eval::identifiers(expr).into_iter().find(|n| {
        !in_scope.iter().any(|v| v.name == *n)
            && (wgsl_eval::gpu_only_builtin(n) || stop.table.functions.iter().any(|f| f.name == *n))
    });
    let why = match called {
        Some(name) => format!("{name}()"),
        None => match wgsl_eval::evaluate(expr, &in_scope) {
            Ok((ty, value)) => return Ok(Typed::new(ty, value)),
            Err(wgsl_eval::EvalError::RunTime(why)) => why,
            Err(e @ wgsl_eval::EvalError::Invalid { .. }) => {
                return Err(EvalError::Parse(e.to_string()))
            }
            Err(e @ wgsl_eval::EvalError::NoValue(_)) => {
                return Err(EvalError::Invalid(e.to_string()))
            }
        },
    };
    let what = format!("`{}` ({why})", expr.trim());
    let (Some(gpu), Some(site)) = (gpu, gpu_site(stop, step)) else {
        return Err(EvalError::NeedsGpu { what });
    };
    if !site.first_reach {
        return Err(EvalError::Gpu(format!(
            "{what} is evaluated on the GPU where the invocation first reaches line {}; \
             this is a later reach",
            site.line
        )));
    }
    let image = gpu
        .watch(site.line, expr.trim())
        .map_err(|e| EvalError::Gpu(e.to_string()))?;
    let value = super::read_slot(&image, &site)?;
    Ok(Typed::new(image.ty, value))
}
