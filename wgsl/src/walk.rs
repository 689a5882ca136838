//! The one walk over a module's naga IR: it assigns probes (the same ids in
//! every mode) and, when recording, rebuilds each function body with calls to
//! the runtime inserted. Inserted code only appends expressions (the
//! original ones keep their handles and are evaluated once, where they were)
//! and calls helpers that touch nothing but the debug buffer and the
//! runtime's private globals.
//!
//! Steps: naga has no statement-level markers for `let` (only `Emit`s), so a
//! block's IR statements are grouped into source statements by their spans:
//! a statement whose span overlaps the group's joins it (an `if`'s span holds
//! its condition's `Emit`, a store's span its value's), else it starts a
//! new step. naga hoists `var x = <constant>;` to the variable's
//! initialiser and binds `let k = <constant>;` to a constant, leaving no
//! statement: such declarations get a step of their own where they are
//! written.
//!
//! Writes: stores to function variables, parameters behind `ptr<function>`
//! / `ptr<private>` and private globals, with the constant path below the
//! root (`s.b[1]`); behind a dynamic index, or after a call that got a
//! pointer, the whole variable is read back and logged. `let`s are locals
//! written where their value is computed. Every local is logged at function
//! entry (WGSL zero-initialises; constant initialisers apply there), entry
//! point arguments and the uniforms and private globals the entry point
//! uses as `Input`s.

use std::collections::HashMap;

use naga::valid::FunctionInfo as NagaFnInfo;
use naga::Arena;
use naga::{
    AddressSpace, BinaryOperator, Binding, Block, BuiltIn, Expression, Function, FunctionArgument,
    GlobalVariable, Handle, LocalVariable, ScalarKind, Span as NSpan, Statement, TypeInner,
};
use shaderdbg_core::probes::{
    DeclId, FunctionId, FunctionInfo, PathElem, Probe, ProbeId, ProbeKind, ProbeTable, Span,
    Storage, VarInfo, VarKind,
};
use shaderdbg_core::types::{Scalar, Type, BOOL};
use shaderdbg_core::{Invocation, Stage};

use crate::expr::ExprError;
use crate::instrument::InstrumentError;

/// Why a walk made no probe table or instrumented module.
#[derive(Debug, thiserror::Error)]
pub enum WalkError {
    #[error("{0:?} shaders are not supported")]
    Stage(naga::ShaderStage),
    /// A bug of the engine: a logged value whose type has no writer.
    #[error("no writer for type {ty:?} (probe {probe})")]
    NoWriter {
        ty: Handle<naga::Type>,
        probe: ProbeId,
    },
}
use crate::parse::Parsed;
use crate::runtime::{emit, lit, HitRuntime, Runtime, WatchRuntime, NONE};
use crate::types::{core_resolution, core_type};

/// What an instrumenting walk needs besides the table walk.
pub(crate) struct Record<'r> {
    pub kind: Kind<'r>,
    /// New handle of each user function, by old index.
    pub fn_map: Vec<Handle<Function>>,
    /// The module's function arena (helpers, then the user's functions);
    /// functions made during the walk (user expressions, watch writers)
    /// are appended and moved before the user's afterwards.
    pub functions: Arena<Function>,
}

/// What the instrumented code does.
pub(crate) enum Kind<'r> {
    Record {
        rt: &'r Runtime,
        select: Invocation,
    },
    /// Breakpoints by probe: (index in the request, condition); `nan`:
    /// NaN/Inf checks of the entry point's results.
    Hits {
        rt: &'r HitRuntime,
        breakpoints: HashMap<ProbeId, (usize, Option<String>)>,
        nan: bool,
    },
    Watch {
        rt: &'r WatchRuntime,
        probe: ProbeId,
        expr: String,
    },
}

/// Where the value of a variable in scope comes from, in the rebuilt function.
#[derive(Clone, Copy)]
enum Src {
    Local(Handle<LocalVariable>),
    Let(Handle<Expression>),
    Arg(u32),
}

pub(crate) struct Walker<'a> {
    src: &'a Parsed,
    entry: usize,
    pub types: naga::UniqueArena<naga::Type>,
    pub record: Option<Record<'a>>,
    probes: Vec<Probe>,
    vars: Vec<VarInfo>,
    functions: Vec<FunctionInfo>,
    /// Types of logged values, first use first (the runtime makes writers for them).
    pub payload_types: Vec<Handle<naga::Type>>,
    globals: HashMap<Handle<GlobalVariable>, DeclId>,
    fx: FnState,
    error: Option<WalkError>,
    /// A user expression (condition, watch) that cannot be used.
    pub user_error: Option<InstrumentError>,
    /// Watch mode: the watched value's type.
    pub watch_type: Option<Type>,
}

#[derive(Default)]
struct FnState {
    fid: FunctionId,
    end: NSpan,
    locals: HashMap<Handle<LocalVariable>, DeclId>,
    lets: HashMap<Handle<Expression>, DeclId>,
    args: Vec<DeclId>,
    /// Variables not yet in scope, by source position, with the span of
    /// the step their declaration gets (declarations without a statement).
    pending: Vec<(usize, DeclId, Option<NSpan>)>,
    scopes: Vec<Vec<DeclId>>,
    is_entry: bool,
    /// The step being walked (NaN/Inf hits name it).
    step: Option<ProbeId>,
    /// Where each declaration's value is, by `DeclId`.
    srcs: HashMap<DeclId, Src>,
}

/// The function being rebuilt, with the original it comes from.
struct Cx<'f> {
    orig: &'f Function,
    info: &'f NagaFnInfo,
    new: Function,
}

type Expr = Handle<Expression>;

/// A write of the whole variable `decl`.
fn whole(decl: DeclId) -> ProbeKind {
    ProbeKind::Write {
        decl,
        path: Vec::new(),
    }
}

impl Cx<'_> {
    /// Appends `e` to the new function, with the `Emit` it needs (if any) at
    /// the end of `out`.
    fn emit(&mut self, out: &mut Block, e: Expression) -> Expr {
        emit(&mut self.new.expressions, out, e)
    }

    /// Appends `e`, an expression that needs no `Emit` (a variable, an
    /// argument, a literal, a call's result).
    fn add(&mut self, e: Expression) -> Expr {
        self.new.expressions.append(e, NSpan::UNDEFINED)
    }

    /// The value of the variable `var` (a pointer expression).
    fn load(&mut self, out: &mut Block, var: Expression) -> Expr {
        let pointer = self.add(var);
        self.emit(out, Expression::Load { pointer })
    }

    fn bin(&mut self, out: &mut Block, op: BinaryOperator, left: Expr, right: Expr) -> Expr {
        self.emit(out, Expression::Binary { op, left, right })
    }
}

enum Root {
    Local(Handle<LocalVariable>),
    Global(Handle<GlobalVariable>),
    Arg(u32),
}

pub(crate) struct Walked {
    pub table: ProbeTable,
    /// Instrumented user functions (by old index) and entry function (instrumenting walks only).
    pub functions: Vec<Function>,
    pub entry_function: Option<Function>,
}

impl<'a> Walker<'a> {
    pub fn new(
        src: &'a Parsed,
        entry: usize,
        types: naga::UniqueArena<naga::Type>,
        record: Option<Record<'a>>,
    ) -> Walker<'a> {
        Walker {
            src,
            entry,
            types,
            record,
            probes: Vec::new(),
            vars: Vec::new(),
            functions: Vec::new(),
            payload_types: Vec::new(),
            globals: HashMap::new(),
            fx: FnState::default(),
            error: None,
            user_error: None,
            watch_type: None,
        }
    }

    /// Walks every function of the module, then the entry point.
    pub fn run(&mut self) -> Result<Walked, WalkError> {
        let module = &self.src.module;
        let ep = &module.entry_points[self.entry];
        let ep_info = self.src.info.get_entry_point(self.entry);
        // Globals the entry point reads: uniforms and private variables
        // (reading others could change what the pipeline must bind).
        for (h, g) in module.global_variables.iter() {
            let storage = match g.space {
                AddressSpace::Private => Storage::Private,
                AddressSpace::Uniform => Storage::Uniform,
                _ => continue,
            };
            if ep_info[h].is_empty() {
                continue;
            }
            let d = self.var(
                g.name
                    .clone()
                    .unwrap_or_else(|| format!("global{}", h.index())),
                core_type(&module.types, g.ty),
                VarKind::Global(storage),
                None,
            );
            self.globals.insert(h, d);
        }
        let mut functions = Vec::new();
        for (h, f) in module.functions.iter() {
            let info = &self.src.info[h];
            let name = f
                .name
                .clone()
                .unwrap_or_else(|| format!("function{}", h.index()));
            let span = module.functions.get_span(h);
            functions.push(self.function(f, info, name, span, false));
        }
        let span = entry_span(&self.src.source, &ep.name).unwrap_or_else(|| {
            ep.function
                .body
                .span_iter()
                .map(|(_, s)| *s)
                .find(NSpan::is_defined)
                .unwrap_or_default()
        });
        let entry_function = self.function(&ep.function, ep_info, ep.name.clone(), span, true);
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        let stage = match ep.stage {
            naga::ShaderStage::Vertex => Stage::Vertex,
            naga::ShaderStage::Fragment => Stage::Fragment,
            naga::ShaderStage::Compute => Stage::Compute,
            other => return Err(WalkError::Stage(other)),
        };
        let record = self.record.is_some();
        Ok(Walked {
            table: ProbeTable {
                stage,
                probes: std::mem::take(&mut self.probes),
                vars: std::mem::take(&mut self.vars),
                functions: std::mem::take(&mut self.functions),
            },
            functions: if record { functions } else { Vec::new() },
            entry_function: record.then_some(entry_function),
        })
    }

    fn var(
        &mut self,
        name: String,
        ty: Type,
        kind: VarKind,
        function: Option<FunctionId>,
    ) -> DeclId {
        self.vars.push(VarInfo {
            name,
            ty,
            kind,
            function,
        });
        self.vars.len() - 1
    }

    fn probe(&mut self, kind: ProbeKind, span: NSpan, payload: Option<Type>) -> ProbeId {
        let id = self.probes.len() as ProbeId + 1;
        let locals = if matches!(kind, ProbeKind::Statement | ProbeKind::Discard) {
            self.fx.step = Some(id);
            self.fx.scopes.iter().flatten().copied().collect()
        } else {
            Vec::new()
        };
        let span = span.to_range().map_or(Span::default(), |r| Span {
            start: r.start,
            end: r.end,
        });
        self.probes.push(Probe {
            id,
            kind,
            span,
            line: self.src.line_of(span.start),
            function: Some(self.fx.fid),
            payload,
            locals,
        });
        id
    }

    // ---- types ----------------------------------------------------------------

    /// The handle and core type of an original expression's value, if loggable.
    fn payload_of(&mut self, cx: &Cx, e: Handle<Expression>) -> Option<(Handle<naga::Type>, Type)> {
        let h = self.type_of(cx, e);
        self.loggable(h)
    }

    /// The type of an original expression's value, added to the module's
    /// types if naga resolved it to a value.
    fn type_of(&mut self, cx: &Cx, e: Handle<Expression>) -> Handle<naga::Type> {
        match &cx.info[e].ty {
            naga::proc::TypeResolution::Handle(h) => *h,
            naga::proc::TypeResolution::Value(inner) => self.types.insert(
                naga::Type {
                    name: None,
                    inner: inner.clone(),
                },
                NSpan::UNDEFINED,
            ),
        }
    }

    fn loggable(&mut self, h: Handle<naga::Type>) -> Option<(Handle<naga::Type>, Type)> {
        if matches!(
            self.types[h].inner,
            TypeInner::Pointer { .. } | TypeInner::ValuePointer { .. }
        ) {
            return None;
        }
        let ty = core_type(&self.types, h);
        if !ty.is_loggable() {
            return None;
        }
        if !self.payload_types.contains(&h) {
            self.payload_types.push(h);
        }
        Some((h, ty))
    }

    /// What a pointer-typed value points at.
    fn pointee(&mut self, inner: &TypeInner) -> Option<Handle<naga::Type>> {
        match *inner {
            TypeInner::Pointer { base, .. } => Some(base),
            TypeInner::ValuePointer {
                size: None, scalar, ..
            } => Some(self.types.insert(
                naga::Type {
                    name: None,
                    inner: TypeInner::Scalar(scalar),
                },
                NSpan::UNDEFINED,
            )),
            TypeInner::ValuePointer {
                size: Some(size),
                scalar,
                ..
            } => Some(self.types.insert(
                naga::Type {
                    name: None,
                    inner: TypeInner::Vector { size, scalar },
                },
                NSpan::UNDEFINED,
            )),
            _ => None,
        }
    }

    // ---- emission (record mode only) ----------------------------------------------

    fn call(out: &mut Block, f: Handle<Function>, args: Vec<Expr>) {
        out.push(
            Statement::Call {
                function: f,
                arguments: args,
                result: None,
            },
            NSpan::UNDEFINED,
        );
    }

    fn log_step(&mut self, cx: &mut Cx, out: &mut Block, p: ProbeId) {
        let is_step = self.probes[p as usize - 1].is_step();
        match self.record.as_ref().map(|r| &r.kind) {
            Some(Kind::Record { rt, .. }) => {
                let l = lit(&mut cx.new.expressions, p);
                Self::call(out, rt.step, vec![l]);
            }
            Some(Kind::Hits {
                rt, breakpoints, ..
            }) if is_step => {
                let Some((k, cond)) = breakpoints.get(&p).cloned() else {
                    return;
                };
                let hit = rt.hit[k];
                let c = match cond {
                    None => cx.add(Expression::Literal(naga::Literal::Bool(true))),
                    Some(text) => match self.user_expr(cx, out, &text, true) {
                        Ok((c, _)) => c,
                        Err(error) => {
                            self.user_error.get_or_insert(InstrumentError::Condition {
                                condition: text,
                                error,
                            });
                            return;
                        }
                    },
                };
                Self::call(out, hit, vec![c]);
            }
            Some(Kind::Watch { probe, expr, .. }) if *probe == p => {
                let expr = expr.clone();
                let fail = |error| InstrumentError::Watch {
                    expr: expr.clone(),
                    error,
                };
                let (v, ty) = match self.user_expr(cx, out, &expr, false) {
                    Ok(x) => x,
                    Err(e) => {
                        self.user_error.get_or_insert(fail(e));
                        return;
                    }
                };
                let cty = core_type(&self.types, ty);
                let loggable = !matches!(
                    self.types[ty].inner,
                    TypeInner::Pointer { .. } | TypeInner::ValuePointer { .. }
                ) && cty.words().is_some();
                let Some(r) = self.record.as_mut() else {
                    return;
                };
                let Kind::Watch { rt, .. } = &r.kind else {
                    return;
                };
                let writer = if loggable {
                    rt.writer(&mut self.types, &mut r.functions, ty)
                } else {
                    None
                };
                let Some(w) = writer else {
                    let name = cty.to_string();
                    self.user_error
                        .get_or_insert(fail(ExprError::NotLoggable(name)));
                    return;
                };
                Self::call(out, w, vec![v]);
                self.watch_type = Some(cty);
            }
            _ => {}
        }
    }

    /// Compiles a user expression in the scope of the current step and
    /// calls it: its value (in the new function) and type.
    fn user_expr(
        &mut self,
        cx: &mut Cx,
        out: &mut Block,
        text: &str,
        condition: bool,
    ) -> Result<(Handle<Expression>, Handle<naga::Type>), ExprError> {
        let mut cands: Vec<(String, Handle<naga::Type>)> = Vec::new();
        let mut srcs: Vec<Src> = Vec::new();
        let mut decls: Vec<DeclId> = Vec::new();
        if self.fx.is_entry {
            decls.extend(self.fx.args.iter().copied());
        }
        decls.extend(self.fx.scopes.iter().flatten().copied());
        for d in decls {
            let Some(&src) = self.fx.srcs.get(&d) else {
                continue;
            };
            let ty = match src {
                Src::Local(h) => cx.orig.local_variables[h].ty,
                Src::Arg(i) => cx.orig.arguments[i as usize].ty,
                Src::Let(h) => self.type_of(cx, h),
            };
            if matches!(src, Src::Let(_))
                && matches!(
                    self.types[ty].inner,
                    TypeInner::Pointer { .. } | TypeInner::ValuePointer { .. }
                )
            {
                continue;
            }
            cands.push((self.vars[d].name.clone(), ty));
            srcs.push(src);
        }
        let ep_info = self.src.info.get_entry_point(self.entry);
        let used = |g: Handle<GlobalVariable>| !ep_info[g].is_empty();
        // A watch may call the shader's pure functions; a condition may not.
        let fn_map = match (&self.record, condition) {
            (Some(r), false) => r.fn_map.clone(),
            _ => Vec::new(),
        };
        let calls = if condition {
            crate::expr::Calls::Refused
        } else {
            crate::expr::Calls::To(&fn_map)
        };
        let compiled = crate::expr::compile(
            &self.src.source,
            &self.src.module,
            &mut self.types,
            &used,
            &cands,
            text,
            calls,
        )?;
        if condition
            && !matches!(self.types[compiled.ty].inner, TypeInner::Scalar(s) if s == naga::Scalar::BOOL)
        {
            return Err(ExprError::NotBool(
                core_type(&self.types, compiled.ty).to_string(),
            ));
        }
        let Some(r) = self.record.as_mut() else {
            return Err(ExprError::SideEffects);
        };
        let mut f = compiled.function;
        f.name = Some(format!("_sdbg_expr{}", r.functions.len()));
        let fh = r.functions.append(f, NSpan::UNDEFINED);
        let args = compiled
            .params
            .iter()
            .map(|&i| match srcs[i] {
                Src::Let(h) => h,
                Src::Arg(a) => cx.add(Expression::FunctionArgument(a)),
                Src::Local(h) => cx.load(out, Expression::LocalVariable(h)),
            })
            .collect();
        let result = cx.add(Expression::CallResult(fh));
        out.push(
            Statement::Call {
                function: fh,
                arguments: args,
                result: Some(result),
            },
            NSpan::UNDEFINED,
        );
        Ok((result, compiled.ty))
    }

    fn log_cond(&self, cx: &mut Cx, out: &mut Block, p: ProbeId, c: Handle<Expression>) {
        if let Some(Kind::Record { rt, .. }) = self.record.as_ref().map(|r| &r.kind) {
            let l = lit(&mut cx.new.expressions, p);
            Self::call(out, rt.cond, vec![l, c]);
        }
    }

    /// Hit tests: writes the hits kept in registers (the invocation ends).
    fn flush(&self, out: &mut Block) {
        if let Some(Kind::Hits { rt, .. }) = self.record.as_ref().map(|r| &r.kind) {
            Self::call(out, rt.flush, Vec::new());
        }
    }

    /// NaN/Inf checks of an entry point's result `v` of type `ty`, as a hit
    /// of the current step.
    fn nan_check(&mut self, cx: &mut Cx, out: &mut Block, v: Handle<Expression>) {
        let Some(Kind::Hits { rt, nan: true, .. }) = self.record.as_ref().map(|r| &r.kind) else {
            return;
        };
        let Some(nan) = rt.nan else { return };
        let (Some(p), Some(res)) = (self.fx.step, cx.orig.result.as_ref()) else {
            return;
        };
        let mut bads = Vec::new();
        match &self.types[res.ty].inner {
            TypeInner::Struct { members, .. } => {
                let members: Vec<_> = members.iter().map(|m| m.ty).collect();
                for (i, t) in members.into_iter().enumerate() {
                    let inner = self.types[t].inner.clone();
                    let mut field = None;
                    let mut get = |cx: &mut Cx, out: &mut Block| {
                        *field.get_or_insert_with(|| {
                            cx.emit(
                                out,
                                Expression::AccessIndex {
                                    base: v,
                                    index: i as u32,
                                },
                            )
                        })
                    };
                    if let Some(b) = bad_float(cx, out, &inner, &mut get) {
                        bads.push(b);
                    }
                }
            }
            inner => {
                let inner = inner.clone();
                if let Some(b) = bad_float(cx, out, &inner, &mut |_, _| v) {
                    bads.push(b);
                }
            }
        }
        let Some(mut bad) = bads.pop() else { return };
        for b in bads {
            bad = cx.bin(out, BinaryOperator::LogicalOr, b, bad);
        }
        let l = lit(&mut cx.new.expressions, p);
        Self::call(out, nan, vec![l, bad]);
    }

    /// Logs `value` (an expression of the new function) as probe `p`'s payload.
    fn log_value(
        &mut self,
        cx: &mut Cx,
        out: &mut Block,
        p: ProbeId,
        ty: Handle<naga::Type>,
        value: impl FnOnce(&mut Cx, &mut Block) -> Handle<Expression>,
    ) {
        let Some(Kind::Record { rt, .. }) = self.record.as_ref().map(|r| &r.kind) else {
            return;
        };
        let Some(w) = rt.writer(ty) else {
            self.error
                .get_or_insert(WalkError::NoWriter { ty, probe: p });
            return;
        };
        let v = value(cx, out);
        let l = lit(&mut cx.new.expressions, p);
        Self::call(out, w, vec![l, v]);
    }

    // ---- functions ------------------------------------------------------------------

    fn function(
        &mut self,
        orig: &Function,
        info: &NagaFnInfo,
        name: String,
        span: NSpan,
        is_entry: bool,
    ) -> Function {
        let fid = self.functions.len();
        self.functions.push(FunctionInfo {
            name: name.clone(),
            signature: self.signature(orig, &name),
        });
        let mut new = orig.clone();
        new.body = Block::new();
        if let Some(r) = &self.record {
            for (_, e) in new.expressions.iter_mut() {
                if let Expression::CallResult(f) = e {
                    *f = r.fn_map[f.index()];
                }
            }
        }
        let mut cx = Cx { orig, info, new };
        let body_end = orig
            .body
            .span_iter()
            .filter_map(|(_, s)| s.to_range())
            .map(|r| r.end)
            .max()
            .unwrap_or(0);
        self.fx = FnState {
            fid,
            end: NSpan::new(body_end.saturating_sub(1) as u32, body_end as u32),
            scopes: vec![Vec::new()],
            is_entry,
            ..FnState::default()
        };
        // Declarations: arguments, local variables, `let`s.
        for (i, arg) in orig.arguments.iter().enumerate() {
            let ty = core_type(&self.types, arg.ty);
            let kind = match (is_entry, &arg.binding) {
                (false, _) => VarKind::Param,
                (true, Some(Binding::BuiltIn(_))) => VarKind::Builtin(Storage::In),
                (true, _) => VarKind::Global(Storage::In),
            };
            let name = arg.name.clone().unwrap_or_else(|| format!("arg{i}"));
            let d = self.var(name, ty, kind, Some(fid));
            self.fx.args.push(d);
            self.fx.srcs.insert(d, Src::Arg(i as u32));
            if !is_entry {
                self.fx.scopes[0].push(d);
            }
        }
        for (h, v) in orig.local_variables.iter() {
            let name = v
                .name
                .clone()
                .unwrap_or_else(|| format!("local{}", h.index()));
            let d = self.var(
                name,
                core_type(&self.types, v.ty),
                VarKind::Local,
                Some(fid),
            );
            self.fx.locals.insert(h, d);
            self.fx.srcs.insert(d, Src::Local(h));
            let vspan = orig.local_variables.get_span(h);
            let pos = vspan.to_range().map_or(0, |r| r.start);
            // `var x = <constant>;` has no statement (naga hoists the
            // initialiser): it gets a step of its own where it is declared.
            let step = v.init.is_some().then_some(vspan);
            self.fx.pending.push((pos, d, step));
        }
        let mut pre_lets = Vec::new();
        for (&h, name) in orig.named_expressions.iter() {
            // Arguments are named too; they are declared above.
            if matches!(orig.expressions[h], Expression::FunctionArgument(_)) {
                continue;
            }
            let ty = core_resolution(&self.types, &info[h].ty);
            let d = self.var(name.clone(), ty, VarKind::Local, Some(fid));
            self.fx.lets.insert(h, d);
            self.fx.srcs.insert(d, Src::Let(h));
            // A `let` of a constant (or argument) has no statement: it is
            // in scope from where it is written, logged at entry.
            if needs_no_statement(&orig.expressions[h]) {
                let espan = orig.expressions.get_span(h);
                let pos = espan.to_range().map_or(0, |r| r.start);
                self.fx.pending.push((pos, d, Some(espan)));
                pre_lets.push((h, d));
            }
        }
        self.fx.pending.sort_by_key(|&(pos, ..)| pos);

        let mut out = Block::new();
        if is_entry {
            let p = self.probe(
                ProbeKind::InvocationStart,
                span,
                Some(Type::Vector(Scalar::Uint, 4)),
            );
            self.emit_begin(&mut cx, &mut out, p);
        }
        let p = self.probe(ProbeKind::FunctionEntry, span, None);
        self.log_step(&mut cx, &mut out, p);
        for i in 0..orig.arguments.len() {
            let arg_ty = orig.arguments[i].ty;
            let is_ptr = matches!(self.types[arg_ty].inner, TypeInner::Pointer { .. });
            let ty = if is_ptr {
                let inner = self.types[arg_ty].inner.clone();
                match self.pointee(&inner) {
                    Some(t) => t,
                    None => continue,
                }
            } else {
                arg_ty
            };
            let Some((th, cty)) = self.loggable(ty) else {
                continue;
            };
            let d = self.fx.args[i];
            let kind = if is_entry {
                ProbeKind::Input { decl: d }
            } else {
                whole(d)
            };
            let p = self.probe(kind, span, Some(cty));
            self.log_value(&mut cx, &mut out, p, th, |cx, out| {
                let a = cx.add(Expression::FunctionArgument(i as u32));
                if is_ptr {
                    cx.emit(out, Expression::Load { pointer: a })
                } else {
                    a
                }
            });
        }
        if is_entry {
            let globals: Vec<(Handle<GlobalVariable>, DeclId)> = {
                let mut g: Vec<_> = self.globals.iter().map(|(h, d)| (*h, *d)).collect();
                g.sort_by_key(|(h, _)| h.index());
                g
            };
            for (h, d) in globals {
                let gty = self.src.module.global_variables[h].ty;
                let Some((th, cty)) = self.loggable(gty) else {
                    continue;
                };
                let p = self.probe(ProbeKind::Input { decl: d }, span, Some(cty));
                self.log_value(&mut cx, &mut out, p, th, |cx, out| {
                    cx.load(out, Expression::GlobalVariable(h))
                });
            }
        }
        // Locals have their value from the start (WGSL zero-initialises,
        // constant initialisers are hoisted to function entry).
        let locals: Vec<(Handle<LocalVariable>, Handle<naga::Type>)> = orig
            .local_variables
            .iter()
            .map(|(h, v)| (h, v.ty))
            .collect();
        for (h, ty) in locals {
            let Some((th, cty)) = self.loggable(ty) else {
                continue;
            };
            let d = self.fx.locals[&h];
            let vspan = orig.local_variables.get_span(h);
            let p = self.probe(whole(d), vspan, Some(cty));
            self.log_value(&mut cx, &mut out, p, th, |cx, out| {
                cx.load(out, Expression::LocalVariable(h))
            });
        }
        for (h, d) in pre_lets {
            let Some((th, cty)) = self.payload_of(&cx, h) else {
                continue;
            };
            let espan = orig.expressions.get_span(h);
            let p = self.probe(whole(d), espan, Some(cty));
            self.log_value(&mut cx, &mut out, p, th, |_, _| h);
        }
        let body = self.block(&mut cx, &orig.body);
        out.extend_block(body);
        if is_entry && !matches!(out.last(), Some(Statement::Return { .. } | Statement::Kill)) {
            self.flush(&mut out);
        }
        cx.new.body = out;
        cx.new
    }

    fn signature(&self, f: &Function, name: &str) -> String {
        use naga::common::wgsl::TypeContext;
        let args: Vec<String> = f
            .arguments
            .iter()
            .enumerate()
            .map(|(i, a)| {
                let n = a.name.clone().unwrap_or_else(|| format!("arg{i}"));
                format!("{n}: {}", self.types.type_to_string(a.ty))
            })
            .collect();
        let ret = f
            .result
            .as_ref()
            .map(|r| format!(" -> {}", self.types.type_to_string(r.ty)))
            .unwrap_or_default();
        format!("fn {name}({}){ret}", args.join(", "))
    }

    /// The invocation's key words (`Invocation::key`), from the entry
    /// point's built-ins.
    fn invocation_keys(&mut self, cx: &mut Cx, out: &mut Block) -> [Expr; 3] {
        match self.src.module.entry_points[self.entry].stage {
            naga::ShaderStage::Vertex => {
                let v = self.builtin(cx, out, BuiltIn::VertexIndex);
                let i = self.builtin(cx, out, BuiltIn::InstanceIndex);
                let zero = lit(&mut cx.new.expressions, 0);
                [v, i, zero]
            }
            naga::ShaderStage::Compute => {
                let g = self.builtin(cx, out, BuiltIn::GlobalInvocationId);
                let mut k = [g; 3];
                for (i, k) in k.iter_mut().enumerate() {
                    *k = cx.emit(
                        out,
                        Expression::AccessIndex {
                            base: g,
                            index: i as u32,
                        },
                    );
                }
                k
            }
            _ => {
                let pos = self.builtin(cx, out, BuiltIn::Position { invariant: false });
                let mut k = [pos; 3];
                for (i, k) in k.iter_mut().take(2).enumerate() {
                    let c = cx.emit(
                        out,
                        Expression::AccessIndex {
                            base: pos,
                            index: i as u32,
                        },
                    );
                    *k = cx.emit(
                        out,
                        Expression::As {
                            expr: c,
                            kind: ScalarKind::Uint,
                            convert: Some(4),
                        },
                    );
                }
                k[2] = lit(&mut cx.new.expressions, NONE);
                k
            }
        }
    }

    /// Entry point, as it starts: record mode decides whether this
    /// invocation records and logs its start entry with its key; a hit test
    /// keeps the key; a watch finds the invocation's slot.
    fn emit_begin(&mut self, cx: &mut Cx, out: &mut Block, p: ProbeId) {
        enum Begin {
            Record(Handle<Function>, Invocation),
            Hits([Handle<GlobalVariable>; 3]),
            Watch(Handle<Function>),
        }
        let begin = match self.record.as_ref().map(|r| &r.kind) {
            None => return,
            Some(Kind::Record { rt, select }) => Begin::Record(rt.begin, *select),
            Some(Kind::Hits { rt, .. }) => Begin::Hits(rt.keys),
            Some(Kind::Watch { rt, .. }) => Begin::Watch(rt.begin),
        };
        let keys = self.invocation_keys(cx, out);
        let (begin, select) = match begin {
            Begin::Record(f, sel) => (f, sel),
            Begin::Hits(globals) => {
                for (g, k) in globals.into_iter().zip(keys) {
                    let ptr = cx.add(Expression::GlobalVariable(g));
                    out.push(
                        Statement::Store {
                            pointer: ptr,
                            value: k,
                        },
                        NSpan::UNDEFINED,
                    );
                }
                return;
            }
            Begin::Watch(f) => {
                // Fragments by pixel, vertices by index, compute invocations
                // by linear global id (as the GLSL engine's watches).
                let ep = &self.src.module.entry_points[self.entry];
                let (stage, size) = (ep.stage, ep.workgroup_size);
                let (x, y) = match stage {
                    naga::ShaderStage::Fragment => (keys[0], keys[1]),
                    naga::ShaderStage::Compute => (
                        self.linear_global_id(cx, out, keys, size),
                        lit(&mut cx.new.expressions, NONE),
                    ),
                    _ => (keys[0], lit(&mut cx.new.expressions, NONE)),
                };
                Self::call(out, f, vec![x, y]);
                return;
            }
        };
        let checks: Vec<(Expr, u32)> = match select {
            Invocation::Fragment { x, y, .. } => vec![(keys[0], x), (keys[1], y)],
            Invocation::Vertex { vertex, instance } => {
                vec![(keys[0], vertex as u32), (keys[1], instance as u32)]
            }
            Invocation::Compute { id } => {
                vec![(keys[0], id[0]), (keys[1], id[1]), (keys[2], id[2])]
            }
        };
        let mut selected = None;
        for (e, want) in checks {
            let w = lit(&mut cx.new.expressions, want);
            let eq = cx.bin(out, BinaryOperator::Equal, e, w);
            selected = Some(match selected {
                None => eq,
                Some(prev) => cx.bin(out, BinaryOperator::LogicalAnd, prev, eq),
            });
        }
        let Some(selected) = selected else { return };
        let l = lit(&mut cx.new.expressions, p);
        Self::call(out, begin, vec![l, selected, keys[0], keys[1], keys[2]]);
    }

    /// `id.x + n.x * (id.y + n.y * id.z)` for the global id `keys`, `n` the
    /// dispatch's size in invocations (`num_workgroups * size`).
    fn linear_global_id(
        &mut self,
        cx: &mut Cx,
        out: &mut Block,
        keys: [Expr; 3],
        size: [u32; 3],
    ) -> Expr {
        let groups = self.builtin(cx, out, BuiltIn::NumWorkGroups);
        let mut n = [keys[0]; 2];
        for (i, n) in n.iter_mut().enumerate() {
            let g = cx.emit(
                out,
                Expression::AccessIndex {
                    base: groups,
                    index: i as u32,
                },
            );
            let s = lit(&mut cx.new.expressions, size[i]);
            *n = cx.bin(out, BinaryOperator::Multiply, g, s);
        }
        let yz = cx.bin(out, BinaryOperator::Multiply, n[1], keys[2]);
        let yz = cx.bin(out, BinaryOperator::Add, keys[1], yz);
        let yz = cx.bin(out, BinaryOperator::Multiply, n[0], yz);
        cx.bin(out, BinaryOperator::Add, keys[0], yz)
    }

    /// The entry point's value of a built-in input (an argument or a member
    /// of one), adding an argument for it if the shader has none.
    fn builtin(&mut self, cx: &mut Cx, out: &mut Block, which: BuiltIn) -> Handle<Expression> {
        let same = |b: &Option<Binding>| match (b, which) {
            (Some(Binding::BuiltIn(BuiltIn::Position { .. })), BuiltIn::Position { .. }) => true,
            (Some(Binding::BuiltIn(b)), w) => *b == w,
            _ => false,
        };
        for (i, a) in cx.new.arguments.iter().enumerate() {
            if same(&a.binding) {
                return cx.add(Expression::FunctionArgument(i as u32));
            }
            if let TypeInner::Struct { members, .. } = &self.types[a.ty].inner {
                if let Some(m) = members.iter().position(|m| same(&m.binding)) {
                    let base = cx.add(Expression::FunctionArgument(i as u32));
                    return cx.emit(
                        out,
                        Expression::AccessIndex {
                            base,
                            index: m as u32,
                        },
                    );
                }
            }
        }
        let (name, inner) = match which {
            BuiltIn::Position { .. } => (
                "_sdbg_position",
                TypeInner::Vector {
                    size: naga::VectorSize::Quad,
                    scalar: naga::Scalar::F32,
                },
            ),
            BuiltIn::GlobalInvocationId => (
                "_sdbg_global_id",
                TypeInner::Vector {
                    size: naga::VectorSize::Tri,
                    scalar: naga::Scalar::U32,
                },
            ),
            BuiltIn::NumWorkGroups => (
                "_sdbg_num_workgroups",
                TypeInner::Vector {
                    size: naga::VectorSize::Tri,
                    scalar: naga::Scalar::U32,
                },
            ),
            BuiltIn::VertexIndex => ("_sdbg_vertex_index", TypeInner::Scalar(naga::Scalar::U32)),
            _ => ("_sdbg_instance_index", TypeInner::Scalar(naga::Scalar::U32)),
        };
        let ty = self
            .types
            .insert(naga::Type { name: None, inner }, NSpan::UNDEFINED);
        let i = cx.new.arguments.len() as u32;
        cx.new.arguments.push(FunctionArgument {
            name: Some(name.to_string()),
            ty,
            binding: Some(Binding::BuiltIn(which)),
        });
        cx.add(Expression::FunctionArgument(i))
    }

    // ---- statements -------------------------------------------------------------------

    /// Brings the variables declared before `before` into scope; those whose
    /// declaration has no statement get their step here. Returns the span of
    /// the last such step (statements inside it start no other step).
    fn declare_pending(&mut self, cx: &mut Cx, out: &mut Block, before: usize) -> Option<NSpan> {
        let mut covered = None;
        while let Some(&(pos, d, step)) = self.fx.pending.first() {
            if pos >= before {
                break;
            }
            self.fx.pending.remove(0);
            if let Some(span) = step {
                let p = self.probe(ProbeKind::Statement, span, None);
                self.log_step(cx, out, p);
                covered = Some(span);
            }
            self.declare(d);
        }
        covered
    }

    /// A `for` loop's variable is declared in its header, before the body's
    /// statements: in scope in the loop, without a step of its own (the
    /// loop's step covers the header). Variables in a loop body are never
    /// hoisted by naga, so every pending variable inside the loop is one.
    fn declare_loop_header(&mut self, loop_span: NSpan) {
        let Some(r) = loop_span.to_range() else {
            return;
        };
        let mut i = 0;
        while i < self.fx.pending.len() {
            let (pos, d, _) = self.fx.pending[i];
            let is_var = self.fx.locals.values().any(|&l| l == d);
            if is_var && pos >= r.start && pos < r.end {
                self.fx.pending.remove(i);
                self.declare(d);
            } else {
                i += 1;
            }
        }
    }

    fn declare(&mut self, d: DeclId) {
        if let Some(s) = self.fx.scopes.last_mut() {
            s.push(d);
        }
    }

    /// A nested block: its own scope.
    fn block(&mut self, cx: &mut Cx, b: &Block) -> Block {
        self.fx.scopes.push(Vec::new());
        let out = self.block_in_scope(cx, b);
        self.fx.scopes.pop();
        out
    }

    /// The statements of a block, declaring into the current scope.
    fn block_in_scope(&mut self, cx: &mut Cx, b: &Block) -> Block {
        let items: Vec<(&Statement, NSpan)> = b.span_iter().map(|(s, sp)| (s, *sp)).collect();
        let mut groups = group_steps(&items);
        // `Emit`s without a span (loads naga adds for `x += ...`) just before a
        // step belong to it: the step goes before them.
        for g in 1..groups.len() {
            if groups[g].is_none() {
                continue;
            }
            let mut k = g;
            while k > 0
                && groups[k - 1].is_none()
                && matches!(items[k - 1], (Statement::Emit(_), s) if !s.is_defined())
            {
                k -= 1;
            }
            groups.swap(k, g);
        }
        let mut out = Block::with_capacity(items.len());
        let mut covered: Option<NSpan> = None;
        for (i, (stmt, span)) in items.into_iter().enumerate() {
            let pos = groups[i]
                .and_then(|(g, _)| g.to_range())
                .or_else(|| span.to_range())
                .map(|r| r.start);
            if let Some(pos) = pos {
                if let Some(c) = self.declare_pending(cx, &mut out, pos) {
                    covered = Some(c);
                }
            }
            let inside =
                |g: NSpan, c: Option<NSpan>| match (g.to_range(), c.and_then(|c| c.to_range())) {
                    (Some(g), Some(c)) => g.start >= c.start && g.end <= c.end,
                    _ => false,
                };
            if let Some((gspan, discard)) = groups[i].filter(|(g, _)| !inside(*g, covered)) {
                let kind = if discard {
                    ProbeKind::Discard
                } else {
                    ProbeKind::Statement
                };
                let p = self.probe(kind, gspan, None);
                self.log_step(cx, &mut out, p);
            }
            self.statement(cx, stmt, span, &mut out);
        }
        out
    }

    /// Variables still pending inside a compound statement that has been
    /// walked were declared last in their block: they go out of scope with
    /// it, without a step.
    fn forget_pending_in(&mut self, span: NSpan) {
        if let Some(r) = span.to_range() {
            self.fx
                .pending
                .retain(|&(pos, ..)| pos < r.start || pos >= r.end);
        }
    }

    fn statement(&mut self, cx: &mut Cx, stmt: &Statement, span: NSpan, out: &mut Block) {
        if matches!(
            stmt,
            Statement::Block(_)
                | Statement::If { .. }
                | Statement::Switch { .. }
                | Statement::Loop { .. }
        ) {
            self.compound(cx, stmt, span, out);
            self.forget_pending_in(span);
            return;
        }
        self.simple(cx, stmt, span, out);
    }

    fn compound(&mut self, cx: &mut Cx, stmt: &Statement, span: NSpan, out: &mut Block) {
        match stmt {
            Statement::Block(b) => {
                let nb = self.block(cx, b);
                out.push(Statement::Block(nb), span);
            }
            Statement::If {
                condition,
                accept,
                reject,
            } => {
                let p = self.probe(
                    ProbeKind::Condition,
                    cx.orig.expressions.get_span(*condition),
                    Some(BOOL),
                );
                self.log_cond(cx, out, p, *condition);
                let accept = self.block(cx, accept);
                let reject = self.block(cx, reject);
                out.push(
                    Statement::If {
                        condition: *condition,
                        accept,
                        reject,
                    },
                    span,
                );
            }
            Statement::Switch { selector, cases } => {
                let cases = cases
                    .iter()
                    .map(|c| naga::SwitchCase {
                        value: c.value,
                        body: self.block(cx, &c.body),
                        fall_through: c.fall_through,
                    })
                    .collect();
                out.push(
                    Statement::Switch {
                        selector: *selector,
                        cases,
                    },
                    span,
                );
            }
            Statement::Loop {
                body,
                continuing,
                break_if,
            } => {
                // One scope for the header's variables and the body's, which
                // `continuing` (nested in the body in WGSL) also sees.
                self.fx.scopes.push(Vec::new());
                self.declare_loop_header(span);
                let p = self.probe(ProbeKind::LoopIteration, span, None);
                let mut nb = Block::new();
                self.log_step(cx, &mut nb, p);
                nb.extend_block(self.block_in_scope(cx, body));
                let mut nc = self.block(cx, continuing);
                if let Some(c) = break_if {
                    let p = self.probe(
                        ProbeKind::Condition,
                        cx.orig.expressions.get_span(*c),
                        Some(BOOL),
                    );
                    self.log_cond(cx, &mut nc, p, *c);
                }
                self.fx.scopes.pop();
                out.push(
                    Statement::Loop {
                        body: nb,
                        continuing: nc,
                        break_if: *break_if,
                    },
                    span,
                );
            }
            _ => {}
        }
    }

    fn simple(&mut self, cx: &mut Cx, stmt: &Statement, span: NSpan, out: &mut Block) {
        match stmt {
            Statement::Emit(range) => {
                out.push(Statement::Emit(range.clone()), span);
                for h in range.clone() {
                    self.named_value(cx, h, out);
                }
            }
            Statement::Return { value } => {
                let logged = value.and_then(|v| self.payload_of(cx, v).map(|t| (v, t)));
                let rspan = if span.is_defined() { span } else { self.fx.end };
                let p = self.probe(
                    ProbeKind::FunctionReturn,
                    rspan,
                    logged.as_ref().map(|(_, (_, t))| t.clone()),
                );
                match logged {
                    Some((v, (th, _))) => self.log_value(cx, out, p, th, |_, _| v),
                    None => self.log_step(cx, out, p),
                }
                if self.fx.is_entry {
                    if let Some(v) = value {
                        self.nan_check(cx, out, *v);
                    }
                    self.flush(out);
                }
                out.push(stmt.clone(), span);
            }
            Statement::Kill => {
                self.flush(out);
                out.push(stmt.clone(), span);
            }
            Statement::Store { pointer, value } => {
                out.push(stmt.clone(), span);
                self.log_store(cx, out, *pointer, Some(*value), span);
            }
            Statement::Call {
                function,
                arguments,
                result,
            } => {
                let function = match &self.record {
                    Some(r) => r.fn_map[function.index()],
                    None => *function,
                };
                out.push(
                    Statement::Call {
                        function,
                        arguments: arguments.clone(),
                        result: *result,
                    },
                    span,
                );
                if let Some(r) = result {
                    self.named_value(cx, *r, out);
                }
                // What the callee wrote through pointer arguments.
                for &a in arguments {
                    let is_ptr = matches!(
                        cx.info[a].ty.inner_with(&self.types),
                        TypeInner::Pointer { .. } | TypeInner::ValuePointer { .. }
                    );
                    if is_ptr {
                        self.log_store(cx, out, a, None, span);
                    }
                }
            }
            Statement::Atomic { result, .. } => {
                out.push(stmt.clone(), span);
                if let Some(r) = result {
                    self.named_value(cx, *r, out);
                }
            }
            // Statements whose result a `let` can name.
            Statement::WorkGroupUniformLoad { result, .. }
            | Statement::SubgroupBallot { result, .. }
            | Statement::SubgroupGather { result, .. }
            | Statement::SubgroupCollectiveOperation { result, .. } => {
                out.push(stmt.clone(), span);
                self.named_value(cx, *result, out);
            }
            _ => out.push(stmt.clone(), span),
        }
    }

    /// A `let` bound to `h` comes into scope and its value is logged.
    fn named_value(&mut self, cx: &mut Cx, h: Handle<Expression>, out: &mut Block) {
        let Some(&d) = self.fx.lets.get(&h) else {
            return;
        };
        if needs_no_statement(&cx.orig.expressions[h]) {
            return;
        }
        self.declare(d);
        if let Some((th, cty)) = self.payload_of(cx, h) {
            let p = self.probe(whole(d), cx.orig.expressions.get_span(h), Some(cty));
            self.log_value(cx, out, p, th, |_, _| h);
        }
    }

    /// Logs a write through `pointer`: `value` when the target is a constant
    /// path below a variable, else (dynamic index, or a pointer handed to a
    /// call) the whole variable read back.
    fn log_store(
        &mut self,
        cx: &mut Cx,
        out: &mut Block,
        pointer: Handle<Expression>,
        value: Option<Handle<Expression>>,
        span: NSpan,
    ) {
        let Some((root, path, exact)) = self.target(cx, pointer) else {
            return;
        };
        let (decl, root_ty) = match root {
            Root::Local(h) => (self.fx.locals[&h], cx.orig.local_variables[h].ty),
            Root::Global(g) => match self.globals.get(&g) {
                Some(&d) => (d, self.src.module.global_variables[g].ty),
                None => return,
            },
            Root::Arg(i) => {
                let inner = self.types[cx.orig.arguments[i as usize].ty].inner.clone();
                match self.pointee(&inner) {
                    Some(t) => (self.fx.args[i as usize], t),
                    None => return,
                }
            }
        };
        match (exact, value) {
            (true, Some(v)) => {
                let Some((th, cty)) = self.payload_of(cx, v) else {
                    return;
                };
                let p = self.probe(ProbeKind::Write { decl, path }, span, Some(cty));
                self.log_value(cx, out, p, th, |_, _| v);
            }
            _ => {
                let Some((th, cty)) = self.loggable(root_ty) else {
                    return;
                };
                let p = self.probe(whole(decl), span, Some(cty));
                self.log_value(cx, out, p, th, |cx, out| {
                    let e = match root {
                        Root::Local(h) => Expression::LocalVariable(h),
                        Root::Global(g) => Expression::GlobalVariable(g),
                        Root::Arg(i) => Expression::FunctionArgument(i),
                    };
                    cx.load(out, e)
                });
            }
        }
    }

    /// The variable a pointer expression points into, the constant path to
    /// the part, and whether the path is exact (no dynamic index on the way).
    fn target(&mut self, cx: &Cx, p: Handle<Expression>) -> Option<(Root, Vec<PathElem>, bool)> {
        match cx.orig.expressions[p] {
            Expression::LocalVariable(h) => Some((Root::Local(h), Vec::new(), true)),
            Expression::GlobalVariable(g) => Some((Root::Global(g), Vec::new(), true)),
            Expression::FunctionArgument(i) => {
                let ty = cx.orig.arguments[i as usize].ty;
                match self.types[ty].inner {
                    TypeInner::Pointer {
                        space: AddressSpace::Function | AddressSpace::Private,
                        ..
                    } => Some((Root::Arg(i), Vec::new(), true)),
                    _ => None,
                }
            }
            Expression::AccessIndex { base, index } => {
                let (root, mut path, exact) = self.target(cx, base)?;
                if exact {
                    let base_inner = cx.info[base].ty.inner_with(&self.types).clone();
                    let elem = match self.pointee(&base_inner).map(|t| &self.types[t].inner) {
                        Some(TypeInner::Struct { members, .. }) => PathElem::Field(
                            members
                                .get(index as usize)
                                .and_then(|m| m.name.clone())
                                .unwrap_or_else(|| format!("member{index}")),
                        ),
                        _ => PathElem::Index(index),
                    };
                    path.push(elem);
                }
                Some((root, path, exact))
            }
            Expression::Access { base, .. } => {
                let (root, path, _) = self.target(cx, base)?;
                Some((root, path, false))
            }
            _ => None,
        }
    }
}

/// naga keeps no span for an entry point: find `fn name` in the text
/// (the first one that is a whole word and not in a comment line).
fn entry_span(source: &str, name: &str) -> Option<NSpan> {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    let mut from = 0;
    while let Some(i) = source[from..].find("fn") {
        let at = from + i;
        from = at + 2;
        let before_ok = source[..at].chars().next_back().is_none_or(|c| !ident(c));
        let rest = &source[at + 2..];
        let trimmed = rest.trim_start();
        if !before_ok || trimmed.len() == rest.len() || !trimmed.starts_with(name) {
            continue;
        }
        let after = &trimmed[name.len()..];
        if after.chars().next().is_some_and(ident) {
            continue;
        }
        let line_start = source[..at].rfind('\n').map_or(0, |n| n + 1);
        if source[line_start..at].contains("//") {
            continue;
        }
        let end = at + 2 + (rest.len() - trimmed.len()) + name.len();
        return Some(NSpan::new(at as u32, end as u32));
    }
    None
}

/// Expressions that are not `Emit`ted: a `let` bound to one has no statement.
fn needs_no_statement(e: &Expression) -> bool {
    e.needs_pre_emit()
        && !matches!(
            e,
            Expression::CallResult(_)
                | Expression::AtomicResult { .. }
                | Expression::WorkGroupUniformLoadResult { .. }
                | Expression::SubgroupBallotResult
                | Expression::SubgroupOperationResult { .. }
                | Expression::RayQueryProceedResult
        )
}

/// For each statement of a block: `Some((span, is_discard))` where a step
/// (source statement) starts. A statement whose span overlaps the last
/// groups' merges them (a `return`'s span holds every `Emit` of its value,
/// however they were split); statements without a span and nested blocks
/// start none.
fn group_steps(items: &[(&Statement, NSpan)]) -> Vec<Option<(NSpan, bool)>> {
    // (first index, start, end, has discard)
    let mut groups: Vec<(usize, usize, usize, bool)> = Vec::new();
    let mut barrier = 0; // groups before this index are closed (a nested block came between)
    for (i, (stmt, span)) in items.iter().enumerate() {
        if matches!(stmt, Statement::Block(_)) {
            barrier = groups.len();
            continue;
        }
        let Some(r) = span.to_range() else { continue };
        let kill = matches!(stmt, Statement::Kill);
        let mut merged: Option<(usize, usize, usize, bool)> = None;
        while groups.len() > barrier {
            let Some(&(first, a, b, k)) = groups.last() else {
                break;
            };
            let (s, e) = merged.map_or((r.start, r.end), |m| (m.1, m.2));
            if !(s < b && e > a) {
                break;
            }
            groups.pop();
            let prev_kill = merged.is_some_and(|m| m.3);
            merged = Some((first, a.min(s), b.max(e), k || prev_kill));
        }
        let g = match merged {
            Some((first, a, b, k)) => (first, a, b, k || kill),
            None => (i, r.start, r.end, kill),
        };
        groups.push(g);
    }
    let mut out = vec![None; items.len()];
    for (first, a, b, kill) in groups {
        out[first] = Some((NSpan::new(a as u32, b as u32), kill));
    }
    out
}

/// `v` (of type `inner`, got by `get`) has a NaN or an infinity in it, for
/// `f32` scalars and vectors: the exponent bits all set (a bit test, which
/// no fast-math setting folds away).
fn bad_float(
    cx: &mut Cx,
    out: &mut Block,
    inner: &TypeInner,
    get: &mut dyn FnMut(&mut Cx, &mut Block) -> Expr,
) -> Option<Expr> {
    let size = match *inner {
        TypeInner::Scalar(naga::Scalar::F32) => None,
        TypeInner::Vector {
            size,
            scalar: naga::Scalar::F32,
        } => Some(size),
        _ => return None,
    };
    let v = get(cx, out);
    let bits = cx.emit(
        out,
        Expression::As {
            expr: v,
            kind: ScalarKind::Uint,
            convert: None,
        },
    );
    let mut mask = lit(&mut cx.new.expressions, 0x7f80_0000);
    if let Some(size) = size {
        mask = cx.emit(out, Expression::Splat { size, value: mask });
    }
    let exp = cx.bin(out, BinaryOperator::And, bits, mask);
    let all_set = cx.bin(out, BinaryOperator::Equal, exp, mask);
    Some(match size {
        None => all_set,
        Some(_) => cx.emit(
            out,
            Expression::Relational {
                fun: naga::RelationalFunction::Any,
                argument: all_set,
            },
        ),
    })
}
