//! Instrumentation of one entry point. The probe table comes from a walk of
//! the IR; a recording walks again with the runtime in place, and the two
//! tables must agree (checked, not assumed).

use naga::valid::ModuleInfo;
use naga::{Arena, Block, Expression, Function, Handle, Statement};
use shaderdbg_core::probes::ProbeTable;
use shaderdbg_core::{Invocation, Stage};

use crate::parse::{error_chain, validator, Parsed};
use crate::runtime;
use crate::walk::{Record, Walker};

/// What to instrument for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Only assign probes; the module is returned unchanged.
    Plain,
    /// Log every step, condition, loop iteration, call, return and write of
    /// the selected invocation (the record layout of `core::layout`).
    Record(Invocation),
}

#[derive(Clone, Debug)]
pub struct Request {
    pub entry_point: String,
    pub mode: Mode,
    /// Where the debug buffer goes: a group/binding the program does not use.
    pub group: u32,
    pub binding: u32,
}

/// An instrumented module, validated.
#[derive(Debug)]
pub struct Instrumented {
    pub module: naga::Module,
    pub info: ModuleInfo,
    pub probes: ProbeTable,
    pub entry_point: String,
    pub stage: naga::ShaderStage,
    /// The debug buffer's binding (record mode).
    pub debug_binding: Option<naga::ResourceBinding>,
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
    Ok(w.run().map_err(InstrumentError::Unsupported)?.table)
}

pub fn instrument(parsed: &Parsed, req: &Request) -> Result<Instrumented, InstrumentError> {
    let entry = entry_index(parsed, &req.entry_point)?;
    let ep = &parsed.module.entry_points[entry];
    let mut plain = Walker::new(parsed, entry, parsed.module.types.clone(), None);
    let table = plain.run().map_err(InstrumentError::Unsupported)?.table;
    let sel = match &req.mode {
        Mode::Plain => {
            return Ok(Instrumented {
                module: parsed.module.clone(),
                info: parsed.info.clone(),
                probes: table,
                entry_point: ep.name.clone(),
                stage: ep.stage,
                debug_binding: None,
            })
        }
        Mode::Record(sel) => *sel,
    };
    if sel.stage() != table.stage {
        return Err(InstrumentError::WrongStage {
            selector: sel.stage(),
            stage: table.stage,
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
    let rt = runtime::build(
        &mut types,
        &mut module.global_variables,
        &mut functions,
        req.group,
        req.binding,
        &plain.payload_types,
    );
    // The user's functions after the helpers, same order (callees first).
    let fn_map: Vec<Handle<Function>> = parsed
        .module
        .functions
        .iter()
        .map(|(_, f)| functions.append(f.clone(), naga::Span::UNDEFINED))
        .collect();
    let mut walker = Walker::new(
        parsed,
        entry,
        types,
        Some(Record {
            rt: &rt,
            select: sel,
            fn_map: fn_map.clone(),
        }),
    );
    let walked = walker.run().map_err(InstrumentError::Internal)?;
    if walked.table != table {
        return Err(InstrumentError::Internal(
            "the recording walk assigned other probes than the plain walk".to_string(),
        ));
    }
    for (f, h) in walked.functions.into_iter().zip(&fn_map) {
        functions[*h] = f;
    }
    module.types = walker.types;
    module.functions = functions;
    for (i, e) in module.entry_points.iter_mut().enumerate() {
        if i != entry {
            remap_calls(&mut e.function, &fn_map);
        }
    }
    if let Some(f) = walked.entry_function {
        module.entry_points[entry].function = f;
    }
    tracing::debug!(
        entry = %ep.name,
        probes = table.probes.len(),
        writers = plain.payload_types.len(),
        "instrumented a WGSL entry point for a recording"
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
    })
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
