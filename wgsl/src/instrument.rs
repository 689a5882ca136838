//! Instrumentation of one entry point. The probe table comes from a walk of
//! the IR; a recording walks again with the runtime in place, and the two
//! tables must agree (checked, not assumed).

use std::collections::HashMap;

use naga::valid::ModuleInfo;
use naga::{Arena, Block, Expression, Function, Handle, Statement};
use shaderdbg_core::probes::{ProbeId, ProbeTable};
use shaderdbg_core::types::Type;
use shaderdbg_core::{Invocation, Stage};

use crate::expr::ExprError;
use crate::parse::{error_chain, validator, Parsed};
use crate::runtime;
use crate::walk::{Kind, Record, Walker};

pub use shaderdbg_core::modes::{Breakpoint, Mode};

#[derive(Clone, Debug)]
pub struct Request {
    pub entry_point: String,
    pub mode: Mode,
    /// Where the debug buffer goes: a group/binding the program does not use.
    pub group: u32,
    pub binding: u32,
    /// Hit tests: only this invocation's hits are written (a fragment: any
    /// primitive at its pixel; WGSL cannot select by primitive), so a hit
    /// buffer full of other invocations' hits cannot hide its hits.
    pub only: Option<Invocation>,
}

/// An instrumented module, validated.
#[derive(Debug)]
pub struct Instrumented {
    pub module: naga::Module,
    pub info: ModuleInfo,
    pub probes: ProbeTable,
    pub entry_point: String,
    pub stage: naga::ShaderStage,
    /// The debug buffer's binding (every mode but plain).
    pub debug_binding: Option<naga::ResourceBinding>,
    /// Watch mode: the watched expression's type (`Type::words` gives the
    /// value words of a slot).
    pub watch_type: Option<Type>,
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum InstrumentError {
    #[error("no entry point named `{0}`")]
    NoEntryPoint(String),
    #[error("this shader cannot be instrumented: {0}")]
    Unsupported(String),
    #[error("@group({group}) @binding({binding}) is the shader's own; the debug buffer needs a free one")]
    BindingInUse { group: u32, binding: u32 },
    #[error("cannot select a {selector} invocation in a {stage} shader")]
    WrongStage { selector: Stage, stage: Stage },
    #[error("breakpoint condition `{condition}`: {error}")]
    Condition { condition: String, error: ExprError },
    #[error("watch expression `{expr}`: {error}")]
    Watch { expr: String, error: ExprError },
    #[error("no step with probe id {0}")]
    NoSuchProbe(ProbeId),
    /// A bug of the engine: the instrumented module does not validate, or
    /// the two walks disagree.
    #[error("internal error: {0}")]
    Internal(String),
}

fn entry_index(parsed: &Parsed, name: &str) -> Result<usize, InstrumentError> {
    parsed
        .entry_point(name)
        .ok_or_else(|| InstrumentError::NoEntryPoint(name.to_string()))
}

/// The probe table of an entry point (the ids every mode uses).
pub fn probe_table(parsed: &Parsed, entry_point: &str) -> Result<ProbeTable, InstrumentError> {
    let entry = entry_index(parsed, entry_point)?;
    let mut w = Walker::new(parsed, entry, parsed.module.types.clone(), None);
    Ok(w.run()
        .map_err(|e| InstrumentError::Unsupported(e.to_string()))?
        .table)
}

pub fn instrument(parsed: &Parsed, req: &Request) -> Result<Instrumented, InstrumentError> {
    let entry = entry_index(parsed, &req.entry_point)?;
    let ep = &parsed.module.entry_points[entry];
    let mut plain = Walker::new(parsed, entry, parsed.module.types.clone(), None);
    let table = plain
        .run()
        .map_err(|e| InstrumentError::Unsupported(e.to_string()))?
        .table;
    match &req.mode {
        Mode::Plain => {
            return Ok(Instrumented {
                module: parsed.module.clone(),
                info: parsed.info.clone(),
                probes: table,
                entry_point: ep.name.clone(),
                stage: ep.stage,
                debug_binding: None,
                watch_type: None,
            })
        }
        Mode::Record(sel) => check_selector(sel, table.stage)?,
        Mode::Sanitize(_) => {
            return Err(InstrumentError::Unsupported(
                "the sanitizer is not built for WGSL yet".into(),
            ))
        }
        Mode::HitTest(bps) | Mode::HitTestNanInf(bps) => {
            for b in bps {
                check_step(&table, b.probe)?;
            }
        }
        Mode::Watch { probe, .. } => {
            check_step(&table, *probe)?;
            // The linear global id needs the work group's size.
            if table.stage == Stage::Compute && ep.workgroup_size_overrides.is_some() {
                return Err(InstrumentError::Unsupported(
                    "watching a compute shader whose work group size is an override".to_string(),
                ));
            }
        }
    }

    let debug = naga::ResourceBinding {
        group: req.group,
        binding: req.binding,
    };
    if parsed
        .module
        .global_variables
        .iter()
        .any(|(_, g)| g.binding == Some(debug))
    {
        return Err(InstrumentError::BindingInUse {
            group: req.group,
            binding: req.binding,
        });
    }
    let mut module = parsed.module.clone();
    module.doc_comments = None;
    let mut types = plain.types;
    let mut functions = Arena::new();
    let target = runtime::Target {
        types: &mut types,
        globals: &mut module.global_variables,
        functions: &mut functions,
        group: req.group,
        binding: req.binding,
    };
    let (mut record_rt, mut hit_rt, mut watch_rt) = (None, None, None);
    match &req.mode {
        Mode::Record(_) => record_rt = Some(runtime::build(target, &plain.payload_types)),
        Mode::HitTest(bps) | Mode::HitTestNanInf(bps) => {
            let probes: Vec<ProbeId> = bps.iter().map(|b| b.probe).collect();
            let nan_inf = matches!(req.mode, Mode::HitTestNanInf(_));
            let only = req.only.map(|sel| {
                let k = sel.key();
                match sel {
                    Invocation::Fragment { .. } | Invocation::Vertex { .. } => {
                        [Some(k[0]), Some(k[1]), None]
                    }
                    Invocation::Compute { .. } => k.map(Some),
                }
            });
            hit_rt = Some(runtime::build_hits(target, &probes, nan_inf, only))
        }
        Mode::Watch { .. } => watch_rt = Some(runtime::build_watch(target)),
        // Answered before the walk.
        Mode::Plain | Mode::Sanitize(_) => {}
    }
    let kind = match (&req.mode, &record_rt, &hit_rt, &watch_rt) {
        (Mode::Record(select), Some(rt), _, _) => Kind::Record {
            rt,
            select: *select,
        },
        (Mode::HitTest(bps) | Mode::HitTestNanInf(bps), _, Some(rt), _) => Kind::Hits {
            rt,
            breakpoints: bps
                .iter()
                .enumerate()
                .map(|(i, b)| (b.probe, (i, b.condition.clone())))
                .collect::<HashMap<_, _>>(),
            nan: matches!(req.mode, Mode::HitTestNanInf(_)),
        },
        (Mode::Watch { probe, expr }, _, _, Some(rt)) => Kind::Watch {
            rt,
            probe: *probe,
            expr: expr.clone(),
        },
        _ => return Err(InstrumentError::Internal("no runtime".to_string())),
    };
    // The user's functions after the helpers, same order (callees first).
    let first_user = functions.len();
    let fn_map: Vec<Handle<Function>> = parsed
        .module
        .functions
        .iter()
        .map(|(_, f)| functions.append(f.clone(), naga::Span::UNDEFINED))
        .collect();
    let first_late = functions.len();
    let mut walker = Walker::new(
        parsed,
        entry,
        types,
        Some(Record {
            kind,
            fn_map: fn_map.clone(),
            functions,
        }),
    );
    let walked = walker
        .run()
        .map_err(|e| InstrumentError::Internal(e.to_string()))?;
    if let Some(e) = walker.user_error.take() {
        return Err(e);
    }
    if walked.table != table {
        return Err(InstrumentError::Internal(
            "the instrumenting walk assigned other probes than the plain walk".to_string(),
        ));
    }
    let watch_type = walker.watch_type.take();
    if let Mode::Watch { probe, .. } = &req.mode {
        if watch_type.is_none() {
            return Err(InstrumentError::NoSuchProbe(*probe));
        }
    }
    let Some(Record { mut functions, .. }) = walker.record.take() else {
        return Err(InstrumentError::Internal("no function arena".to_string()));
    };
    for (f, h) in walked.functions.into_iter().zip(&fn_map) {
        functions[*h] = f;
    }
    module.types = walker.types;
    for (i, e) in module.entry_points.iter_mut().enumerate() {
        if i != entry {
            remap_calls(&mut e.function, &fn_map);
        }
    }
    if let Some(f) = walked.entry_function {
        module.entry_points[entry].function = f;
    }
    // Functions made during the walk (user expressions, watch writers) go
    // before the user's, which call them, and after those they call (a
    // watch calling the shader's functions): naga wants callees first.
    let preferred: Vec<usize> = (0..first_user)
        .chain(first_late..functions.len())
        .chain(first_user..first_late)
        .collect();
    let Some(order) = callees_first(&functions, &preferred) else {
        return Err(match &req.mode {
            Mode::Watch { expr, .. } => InstrumentError::Watch {
                expr: expr.clone(),
                error: ExprError::Recursive,
            },
            _ => InstrumentError::Internal("the functions call each other in a cycle".into()),
        });
    };
    let mut new_index = vec![0; order.len()];
    for (new, &old) in order.iter().enumerate() {
        new_index[old] = new;
    }
    let old: Vec<Function> = functions.iter().map(|(_, f)| f.clone()).collect();
    let mut moved = Arena::new();
    let mut handles = Vec::with_capacity(order.len());
    for &o in &order {
        handles.push(moved.append(old[o].clone(), naga::Span::UNDEFINED));
    }
    let map: Vec<Handle<Function>> = new_index.iter().map(|&n| handles[n]).collect();
    for (_, f) in moved.iter_mut() {
        remap_calls(f, &map);
    }
    for e in module.entry_points.iter_mut() {
        remap_calls(&mut e.function, &map);
    }
    module.functions = moved;
    tracing::debug!(
        entry = %ep.name,
        probes = table.probes.len(),
        writers = plain.payload_types.len(),
        mode = ?req.mode,
        "instrumented a WGSL entry point"
    );
    let info = validator().validate(&module).map_err(|e| {
        InstrumentError::Internal(format!(
            "instrumented module: {}",
            error_chain(e.as_inner())
        ))
    })?;
    Ok(Instrumented {
        module,
        info,
        probes: table,
        entry_point: ep.name.clone(),
        stage: ep.stage,
        debug_binding: Some(debug),
        watch_type,
    })
}

fn check_selector(sel: &Invocation, stage: Stage) -> Result<(), InstrumentError> {
    if sel.stage() != stage {
        return Err(InstrumentError::WrongStage {
            selector: sel.stage(),
            stage,
        });
    }
    if let Invocation::Fragment {
        primitive: Some(_), ..
    } = sel
    {
        // WGSL needs the `primitive_index` extension for that.
        return Err(InstrumentError::Unsupported(
            "selecting a fragment by primitive".to_string(),
        ));
    }
    Ok(())
}

/// Breakpoints and watches go on steps.
fn check_step(table: &ProbeTable, probe: ProbeId) -> Result<(), InstrumentError> {
    if table.get(probe).is_some_and(|p| p.is_step()) {
        Ok(())
    } else {
        Err(InstrumentError::NoSuchProbe(probe))
    }
}

/// `preferred` (indices into `functions`) reordered as little as needed
/// for every function to come after those it calls; `None` for a cycle.
fn callees_first(functions: &Arena<Function>, preferred: &[usize]) -> Option<Vec<usize>> {
    fn calls(b: &Block, out: &mut Vec<usize>) {
        for s in b.iter() {
            match s {
                Statement::Call { function, .. } => out.push(function.index()),
                Statement::Block(b) => calls(b, out),
                Statement::If { accept, reject, .. } => {
                    calls(accept, out);
                    calls(reject, out);
                }
                Statement::Switch { cases, .. } => cases.iter().for_each(|c| calls(&c.body, out)),
                Statement::Loop {
                    body, continuing, ..
                } => {
                    calls(body, out);
                    calls(continuing, out);
                }
                _ => {}
            }
        }
    }
    let callees: Vec<Vec<usize>> = functions
        .iter()
        .map(|(_, f)| {
            let mut out = Vec::new();
            calls(&f.body, &mut out);
            out
        })
        .collect();
    // 0: not placed, 1: being placed (its callees first), 2: placed.
    let mut state = vec![0u8; callees.len()];
    let mut order = Vec::with_capacity(callees.len());
    fn place(
        i: usize,
        callees: &[Vec<usize>],
        state: &mut [u8],
        order: &mut Vec<usize>,
    ) -> Option<()> {
        match state.get(i)? {
            2 => return Some(()),
            1 => return None,
            _ => {}
        }
        state[i] = 1;
        for &c in &callees[i] {
            place(c, callees, state, order)?;
        }
        state[i] = 2;
        order.push(i);
        Some(())
    }
    for &i in preferred {
        place(i, &callees, &mut state, &mut order)?;
    }
    Some(order)
}

/// Points the calls of a function left as it was at the user functions' new handles.
fn remap_calls(f: &mut Function, map: &[Handle<Function>]) {
    for (_, e) in f.expressions.iter_mut() {
        if let Expression::CallResult(h) = e {
            *h = map[h.index()];
        }
    }
    remap_block(&mut f.body, map);
}

fn remap_block(b: &mut Block, map: &[Handle<Function>]) {
    for (s, _) in b.span_iter_mut() {
        match s {
            Statement::Call { function, .. } => *function = map[function.index()],
            Statement::Block(b) => remap_block(b, map),
            Statement::If { accept, reject, .. } => {
                remap_block(accept, map);
                remap_block(reject, map);
            }
            Statement::Switch { cases, .. } => {
                for c in cases {
                    remap_block(&mut c.body, map);
                }
            }
            Statement::Loop {
                body, continuing, ..
            } => {
                remap_block(body, map);
                remap_block(continuing, map);
            }
            _ => {}
        }
    }
}
