//! The instrumenting walk. Invariant: which probes exist, and their ids, never
//! depends on the mode; the mode only decides what code is emitted at them.

use std::collections::HashMap;

use glsl_lang::ast::{self, ExprData, StatementData};
use glsl_lang::transpiler::glsl::{show_external_declaration, FormattingState};

use super::build::{self, call, stmt, uint, var};
use super::runtime::{Dialect, Runtime};
use super::{parse_expr, span_of, ExprError, InstrumentError, Mode};
use crate::analysis::{Callee, DeclId, DeclKind, Model, Storage};
use crate::builtins::{self, BuiltinEnv, ParamDir};
use crate::diagnostics::Span;
use crate::parse::Parsed;
use crate::probes::{FunctionInfo, PathElem, Probe, ProbeId, ProbeKind, ProbeTable, VarInfo};
use crate::shader::{Stage, Version};
use crate::types::{Type, BOOL};

pub struct Output {
    pub glsl: String,
    pub probes: ProbeTable,
    pub watch_words: Option<u32>,
    pub watch_type: Option<Type>,
}

/// A place a value can be logged from after a write: root variable, path, the
/// side-effect-free expression that reads it, and its type.
struct Target {
    decl: DeclId,
    path: Vec<PathElem>,
    expr: ast::Expr,
    ty: Type,
}

pub struct Walker<'a> {
    parsed: &'a Parsed,
    mode: &'a Mode,
    model: Model,
    rt: Runtime,
    probes: Vec<Probe>,
    record: bool,
    /// Hit test: probe -> (breakpoint index, condition).
    breakpoints: HashMap<ProbeId, (usize, Option<String>)>,
    seen_breakpoints: usize,
    watch_words: Option<u32>,
    watch_type: Option<Type>,
    error: Option<InstrumentError>,
    /// `Mode::HitTestNanInf`: NaN/Inf checks after output writes.
    nan_inf: bool,
    /// Checks (`_sdbg_bad(lhs)`) of the output writes of the statement being
    /// walked, emitted after it.
    nan_pending: Vec<ast::Expr>,
    /// Steps with NaN/Inf checks so far (the size of the reach counters).
    nan_slots: usize,
    /// Walking the own expressions of a statement with no single "after"
    /// (`if`/`switch`/loop conditions, `return` values): its step and
    /// reach-counter slot (given at the first check). Output writes there
    /// are checked in place, right after the write.
    nan_inline: Option<(ProbeId, Option<usize>)>,
    /// `Mode::Sanitize`: emit bounds checks (reported with
    /// `Checks::out_of_bounds`; made for shared arrays also for
    /// `Checks::uninit_shared`, which needs the index in bounds).
    oob: bool,
    /// `Checks::out_of_bounds`: check every indexing, not only shared arrays'.
    report_oob: bool,
    /// `Checks::uninit_shared` in a compute shader.
    uninit: bool,
    /// `Checks::race` in a compute shader (shared memory, barriers).
    race: bool,
    /// `Checks::race` on storage buffers (compute, fragment and vertex
    /// shaders).
    srace: bool,
    /// Shared variables (`uninit` or `race`) or storage-buffer members
    /// (`srace`) get shadows.
    shadows: bool,
    /// Storage-buffer variables never shadowed: members of `readonly`
    /// blocks and members, instances of arrays of blocks (by name).
    untracked: std::collections::HashSet<String>,
    /// Set by [`Self::expr`]'s callers when the expression is the base of
    /// a field, component or index selection (a read of part of it).
    read_part: bool,
    /// Shared variables and storage-buffer members with a shadow.
    shared: Vec<Shadowed>,
    /// After `main`: no more shadows (`main` clears the ones it knows).
    shared_frozen: bool,
    /// Statements to run before the statement being walked (shadow marks
    /// of writes whose element is not known).
    pre: Vec<ast::Statement>,
    /// The step of the statement being walked (sanitizer reports name it).
    cur_step: ProbeId,
    /// Index temporaries declared so far (`_sdbg_t{n}`).
    san_sites: u32,
    /// Set by [`Self::expression_statement`] when the statement's write is
    /// checked or shadowed.
    stmt_wrap: Option<StmtWrap>,
    /// `Checks::uninit_shared` (every stage): reads of locals declared
    /// without an initializer, and of `out` parameters, before a write.
    ulocal: bool,
    /// Those variables, each with the number of its mask (`_sdbg_m{k}`:
    /// a bit per part written, see [`part_count`]).
    locals: HashMap<DeclId, usize>,
    /// The root of the read [`Self::expr`] is rewriting under its check
    /// (not checked again as the walk reaches it).
    skip_root: Option<DeclId>,
    /// The race check: `barrier()` calls every invocation reaches (the
    /// spans of their identifiers; `uniform::uniform_barriers`), whose
    /// arrivals are not counted.
    uniform_barriers: std::collections::HashSet<(usize, usize)>,
}

/// A variable the sanitizer keeps a shadow of: a shared variable, or a
/// storage-buffer member (`storage`).
struct Shadowed {
    /// The variable, or an instance-named block's instance.
    decl: DeclId,
    /// The member of an instance-named block.
    member: Option<usize>,
    /// Elements of the outermost array (1: no array; 0: runtime-sized).
    words: u32,
    array: bool,
    storage: bool,
}

/// How an expression statement that writes is emitted when sanitizing:
/// `if (ok) { before; statement; after; } [else els;]`, or without `ok`
/// the three in a row. With `value` (a temporary and the value written),
/// `_sdbg_okN = ok; temporary = value; if (_sdbg_okN) { ... }` instead
/// of an `else`: SIMD drivers run both sides of an `if`, and the value's
/// code (its reads' checks) twice.
struct StmtWrap {
    ok: Option<ast::Expr>,
    els: Option<ast::Expr>,
    value: Option<(String, ast::Expr)>,
    before: Vec<ast::Statement>,
    after: Vec<ast::Statement>,
}

/// What [`Walker::lvalue`] found about a written place.
#[derive(Default)]
struct Place {
    /// The chain of bounds checks its indices need (`top` only).
    ok: Option<ast::Expr>,
    /// A shared variable with a shadow at its root: its number and the
    /// element written (`None`: unknown, the whole variable).
    shared: Option<(usize, Option<ast::Expr>)>,
    /// The write is to a part of the element (a field, component, inner
    /// element).
    partial: bool,
    /// The write is an atomic function's (set by the caller).
    atomic: bool,
}

impl Place {
    fn atomic() -> Place {
        Place {
            atomic: true,
            ..Place::default()
        }
    }

    /// The flags argument of the shadow helpers for this write.
    fn flags(&self) -> ast::Expr {
        var(&Runtime::access_flags(self.atomic, self.partial))
    }
}

/// The bound an index is checked against.
enum Bound {
    Const(u32),
    /// `base.length()` of a runtime-sized storage-buffer array (`base` has
    /// no side effects).
    Length(ast::Expr),
}

/// A bounds check to emit for one indexing.
struct Check {
    bound: Bound,
    signed: bool,
    elem: Type,
    /// The base is a shared array with a shadow (its number).
    shared: Option<usize>,
}

impl Bound {
    fn expr(&self) -> ast::Expr {
        match self {
            Bound::Const(n) => build::int(*n as i32),
            Bound::Length(base) => build::length(base.clone()),
        }
    }
}

impl<'a> Walker<'a> {
    pub fn run(
        parsed: &'a Parsed,
        mode: &'a Mode,
        out_version: Version,
        dialect: Dialect,
    ) -> Result<Output, InstrumentError> {
        let breakpoints = match mode {
            Mode::HitTest(bps) | Mode::HitTestNanInf(bps) => bps
                .iter()
                .enumerate()
                .map(|(i, b)| (b.probe, (i, b.condition.clone())))
                .collect(),
            _ => HashMap::new(),
        };
        let mut w = Walker {
            parsed,
            mode,
            // The enabled extensions too (their built-ins resolve).
            model: Model::for_parsed(parsed),
            rt: Runtime::new(out_version, dialect),
            probes: Vec::new(),
            record: matches!(mode, Mode::Record(_)),
            breakpoints,
            seen_breakpoints: 0,
            watch_words: None,
            watch_type: None,
            error: None,
            nan_inf: matches!(mode, Mode::HitTestNanInf(_)),
            nan_pending: Vec::new(),
            nan_inline: None,
            nan_slots: 0,
            // Uninitialized locals need places kept as places (`lvalue`).
            oob: matches!(mode, Mode::Sanitize(c) if c.out_of_bounds
            || c.uninit_shared
            || (c.race && matches!(
                parsed.stage,
                Stage::Compute | Stage::Fragment | Stage::Vertex
            ))),
            report_oob: matches!(mode, Mode::Sanitize(c) if c.out_of_bounds),
            uninit: matches!(mode, Mode::Sanitize(c) if c.uninit_shared)
                && parsed.stage == Stage::Compute,
            race: matches!(mode, Mode::Sanitize(c) if c.race) && parsed.stage == Stage::Compute,
            srace: matches!(mode, Mode::Sanitize(c) if c.race)
                && matches!(
                    parsed.stage,
                    Stage::Compute | Stage::Fragment | Stage::Vertex
                ),
            shadows: matches!(mode, Mode::Sanitize(c) if c.uninit_shared || c.race)
                && matches!(
                    parsed.stage,
                    Stage::Compute | Stage::Fragment | Stage::Vertex
                ),
            // Only the race check asks (it walks the whole shader).
            untracked: if matches!(mode, Mode::Sanitize(c) if c.race) {
                untracked_storage(parsed)
            } else {
                Default::default()
            },
            read_part: false,
            shared: Vec::new(),
            shared_frozen: false,
            pre: Vec::new(),
            cur_step: 0,
            san_sites: 0,
            stmt_wrap: None,
            ulocal: matches!(mode, Mode::Sanitize(c) if c.uninit_shared),
            locals: HashMap::new(),
            skip_root: None,
            uniform_barriers: if matches!(mode, Mode::Sanitize(c) if c.race)
                && parsed.stage == Stage::Compute
            {
                super::uniform::uniform_barriers(&parsed.tu)
            } else {
                Default::default()
            },
        };
        w.rt.set_shadow_checks(w.uninit, w.race);
        w.rt.set_epoch_wraps(!super::uniform::barriers_bounded(&parsed.tu));
        w.rt.set_storage_race(w.srace, parsed.stage);
        let mut body = String::new();
        for ext in &parsed.tu.0 {
            let ext = match &ext.content {
                ast::ExternalDeclarationData::Preprocessor(_) => continue,
                ast::ExternalDeclarationData::Declaration(d) => {
                    w.model.declaration(d, true);
                    ext.clone()
                }
                ast::ExternalDeclarationData::FunctionDefinition(def) => {
                    let def = w.function(def.clone());
                    body.push_str(&w.rt.take_pending());
                    ast::ExternalDeclarationData::FunctionDefinition(def).into()
                }
            };
            let mut ext = ext;
            parenthesize_commas(&mut ext);
            let mut state = FormattingState::default();
            let _ = show_external_declaration(&mut body, &ext, &mut state);
            if !body.ends_with('\n') {
                body.push('\n');
            }
        }
        if let Some(e) = w.error.take() {
            return Err(e);
        }
        match mode {
            Mode::HitTest(bps) | Mode::HitTestNanInf(bps) => {
                if let Some(b) = bps.iter().find(|b| {
                    !w.probes
                        .get((b.probe as usize).wrapping_sub(1))
                        .is_some_and(Probe::is_step)
                }) {
                    return Err(InstrumentError::NoSuchProbe(b.probe));
                }
            }
            Mode::Watch { probe, .. } if w.watch_words.is_none() => {
                return Err(InstrumentError::NoSuchProbe(*probe));
            }
            _ => {}
        }
        let mut glsl = format!("#version {out_version}\n");
        for e in &parsed.extensions {
            glsl.push_str(&format!("#extension {} : {}\n", e.name, e.behavior));
        }
        let hit_probes: Vec<ProbeId> = match mode {
            Mode::HitTest(bps) | Mode::HitTestNanInf(bps) => bps.iter().map(|b| b.probe).collect(),
            _ => Vec::new(),
        };
        glsl.push_str(
            &w.rt
                .prelude(mode, parsed.stage, out_version, &hit_probes, w.nan_slots),
        );
        if out_version != parsed.version {
            body = w.rename_keywords(body, out_version)?;
        }
        if super::legacy::needed(parsed.version, out_version) {
            let (decls, core) = super::legacy::to_core(&body, parsed.stage)?;
            glsl.push_str(&decls);
            body = core;
        }
        glsl.push_str(&body);
        glsl.push_str(&w.rt.epilogue(mode, parsed.stage));
        let probes = w.table();
        Ok(Output {
            glsl,
            probes,
            watch_words: w.watch_words,
            watch_type: w.watch_type,
        })
    }

    /// A shader raised to a newer version may name things with words that
    /// are keywords there (`float mat4x2;` in GLSL 1.10): they are renamed
    /// in `body`, except names other stages or the application use (inputs,
    /// outputs, uniforms, blocks and their members), which cannot be.
    fn rename_keywords(&self, body: String, to: Version) -> Result<String, InstrumentError> {
        use super::legacy::is_newer_keyword;
        let m = &self.model;
        let kept = |name: &str| {
            InstrumentError::Unsupported(format!(
                "`{name}` is a keyword of GLSL {to}: the interface variable cannot be renamed"
            ))
        };
        let mut names = std::collections::HashSet::new();
        for d in &m.decls {
            if !is_newer_keyword(&d.name) {
                continue;
            }
            match d.kind {
                DeclKind::Local | DeclKind::Param(_) => {}
                DeclKind::Global(Storage::Private | Storage::Shared | Storage::Const)
                    if !d.interface_block => {}
                _ => return Err(kept(&d.name)),
            }
            names.insert(d.name.clone());
        }
        names.extend(
            m.functions
                .iter()
                .map(|f| f.name.clone())
                .filter(|n| is_newer_keyword(n)),
        );
        for (name, st) in &m.structs {
            let block = is_block(name, m);
            for n in std::iter::once(name).chain(st.fields.iter().map(|f| &f.name)) {
                if !is_newer_keyword(n) {
                    continue;
                }
                if block {
                    return Err(kept(n));
                }
                names.insert(n.clone());
            }
        }
        if names.is_empty() {
            return Ok(body);
        }
        Ok(super::legacy::rename_keywords(&body, &names))
    }

    fn table(&self) -> ProbeTable {
        ProbeTable {
            stage: self.parsed.stage,
            probes: self.probes.clone(),
            vars: self
                .model
                .decls
                .iter()
                .map(|d| VarInfo {
                    name: d.name.clone(),
                    ty: d.ty.clone(),
                    kind: d.kind.var_kind(),
                    function: d.function,
                })
                .collect(),
            functions: self
                .model
                .functions
                .iter()
                .map(|f| FunctionInfo {
                    name: f.name.clone(),
                    signature: f.signature(),
                })
                .collect(),
        }
    }

    fn fail(&mut self, e: InstrumentError) {
        self.error.get_or_insert(e);
    }

    fn probe(&mut self, kind: ProbeKind, span: Span, payload: Option<Type>) -> ProbeId {
        let id = self.probes.len() as ProbeId + 1;
        let locals = if matches!(kind, ProbeKind::Statement | ProbeKind::Discard) {
            self.model.visible_locals()
        } else {
            Vec::new()
        };
        self.probes.push(Probe {
            id,
            kind,
            span,
            line: self.parsed.source.line_of(span.start),
            function: self.model.current_function(),
            payload,
            locals,
        });
        id
    }

    // ---- functions ----------------------------------------------------------

    fn function(&mut self, mut def: ast::FunctionDefinition) -> ast::FunctionDefinition {
        let (fid, params) = self.model.enter_function(&def);
        let is_main = def.prototype.name.as_str() == "main" && params.is_empty();
        let body_span = span_of(&def.statement);
        let mut out = Vec::new();
        if is_main {
            let p = self.probe(
                ProbeKind::InvocationStart,
                body_span,
                Some(Type::Vector(crate::Scalar::Uint, 4)),
            );
            if self.record {
                out.push(stmt(call("_sdbg_begin", vec![uint(p)])));
            }
        }
        let p = self.probe(ProbeKind::FunctionEntry, span_of(&def.prototype), None);
        self.emit_step(p, &mut out);
        for d in params {
            if matches!(self.model.decls[d].kind, DeclKind::Param(ParamDir::Out)) {
                // Undefined until the function writes it.
                out.extend(self.track_local(d));
                continue;
            }
            let span = self.model.decls[d].span;
            let t = self.var_target(d);
            self.log_write(t, span, &mut out);
        }
        if is_main {
            self.log_inputs(body_span, &mut out);
        }
        let list = std::mem::take(&mut def.statement.statement_list);
        let ends_in_return = matches!(
            list.last().map(|s| &s.content),
            Some(StatementData::Jump(j)) if matches!(j.content, ast::JumpStatementData::Return(_))
        );
        for s in list {
            self.statement(s, &mut out);
        }
        if !ends_in_return && self.model.functions[fid].ret == Type::Void {
            let end = Span::new(body_span.end.saturating_sub(1), 1);
            let p = self.probe(ProbeKind::FunctionReturn, end, None);
            self.emit_step(p, &mut out);
        }
        if is_main && !ends_in_return {
            self.emit_flush(&mut out);
        }
        if is_main && self.shadows {
            // Every shared variable and storage-buffer member declared so
            // far gets a shadow, cleared before anything else runs.
            for d in 0..self.model.decls.len() {
                self.shadow_number(d, None);
                let members = match &self.model.decls[d].ty {
                    Type::Struct(st) if self.model.decls[d].interface_block => st.fields.len(),
                    _ => 0,
                };
                for m in 0..members {
                    self.shadow_number(d, Some(m));
                }
            }
            self.shared_frozen = true;
            // The race check counts arrivals at barriers in shared words
            // of its own, with or without shared variables (the source
            // text says whether there may be barriers).
            let barriers = self.race && self.parsed.source.text.contains("barrier");
            let shared: Vec<(usize, u32)> = self
                .shared
                .iter()
                .enumerate()
                .filter(|(_, s)| !s.storage)
                .map(|(k, s)| (k, s.words))
                .collect();
            if !shared.is_empty() || barriers {
                self.rt.shadow_init(&shared);
                let init = [
                    stmt(call("_sdbg_shadow_init", Vec::new())),
                    stmt(call("memoryBarrierShared", Vec::new())),
                    stmt(call("barrier", Vec::new())),
                ];
                out.splice(0..0, init);
            }
            if self.shared.iter().any(|s| s.storage) {
                out.insert(0, stmt(call("_sdbg_sinit", Vec::new())));
            }
        }
        def.statement.statement_list = out;
        self.model.leave_function();
        def
    }

    /// Logs inputs, uniforms and built-in inputs as `main` starts.
    fn log_inputs(&mut self, span: Span, out: &mut Vec<ast::Statement>) {
        let globals: Vec<DeclId> = (0..self.model.decls.len())
            .filter(|&d| {
                let decl = &self.model.decls[d];
                matches!(decl.kind, DeclKind::Global(Storage::In | Storage::Uniform))
                    && !decl.interface_block
            })
            .collect();
        // Built-ins every raised version has. Which probes exist must not depend on
        // the output version (probe ids are the same in every mode), so look them
        // up in the newest dialect of the shader's family.
        let builtin_inputs: &[&str] = match self.parsed.stage {
            Stage::Fragment => &["gl_FragCoord", "gl_FrontFacing"],
            // By the API the shader is written for, not by the dialect it is
            // instrumented in: probe ids must not depend on the mode.
            Stage::Vertex if self.parsed.api == crate::Api::Vulkan => {
                &["gl_VertexIndex", "gl_InstanceIndex"]
            }
            Stage::Vertex => &["gl_VertexID", "gl_InstanceID"],
            Stage::Compute => &[
                "gl_GlobalInvocationID",
                "gl_LocalInvocationID",
                "gl_WorkGroupID",
            ],
            _ => &[],
        };
        let mut decls = globals;
        for name in builtin_inputs {
            if let Some(d) = self.in_output_dialect(|m| m.lookup(name)) {
                decls.push(d);
            }
        }
        for d in decls {
            let ty = self.model.decls[d].ty.clone();
            if !self.loggable(&ty) {
                continue;
            }
            let p = self.probe(ProbeKind::Input { decl: d }, span, Some(ty.clone()));
            if self.record {
                let w = self.rt.write(&ty);
                let name = self.model.decls[d].name.clone();
                out.push(stmt(call(&w, vec![uint(p), var(&name)])));
            }
        }
    }

    // ---- statements ---------------------------------------------------------

    /// Hit tests and the sanitizer: writes the invocation's hits or
    /// violations before it ends (the end of
    /// `main`, a `return` in it, a `discard` anywhere).
    fn emit_flush(&mut self, out: &mut Vec<ast::Statement>) {
        if matches!(
            self.mode,
            Mode::HitTest(_) | Mode::HitTestNanInf(_) | Mode::Sanitize(_)
        ) {
            out.push(stmt(call("_sdbg_flush", vec![])));
        }
    }

    /// Emits what the mode wants at a step: a step entry, a breakpoint test, a watch.
    fn emit_step(&mut self, p: ProbeId, out: &mut Vec<ast::Statement>) {
        // Entries and returns are logged like steps, but breakpoints and
        // watches only go on statements.
        let is_step = self.probes.get(p as usize - 1).is_some_and(Probe::is_step);
        match self.mode {
            Mode::HitTest(_) | Mode::HitTestNanInf(_) | Mode::Watch { .. } if !is_step => {}
            Mode::Record(_) => out.push(stmt(call("_sdbg_step", vec![uint(p)]))),
            Mode::HitTest(_) | Mode::HitTestNanInf(_) => {
                if let Some((k, cond)) = self.breakpoints.get(&p).cloned() {
                    self.seen_breakpoints += 1;
                    // Occurrences count every time the step is reached, so a hit's
                    // occurrence names the same step in a recording of its invocation.
                    let cond = match cond {
                        None => Some(ExprData::BoolConst(true).into()),
                        Some(text) => match self.user_expr(&text, true) {
                            Ok((e, _)) => Some(e),
                            Err(e) => {
                                self.fail(InstrumentError::Condition {
                                    condition: text,
                                    message: e.to_string(),
                                });
                                None
                            }
                        },
                    };
                    if let Some(cond) = cond {
                        out.push(stmt(call(&format!("_sdbg_hit{k}"), vec![cond])));
                    }
                }
            }
            Mode::Watch { probe, expr, .. } if *probe == p => match self.user_expr(expr, false) {
                Ok((e, ty)) => {
                    let f = self.rt.watch(&ty);
                    self.watch_words = ty.words();
                    self.watch_type = Some(ty);
                    out.push(stmt(call(&f, vec![e])));
                }
                Err(e) => self.fail(InstrumentError::Watch {
                    expr: expr.clone(),
                    message: e.to_string(),
                }),
            },
            _ => {}
        }
    }

    /// Parses and checks a breakpoint condition or watch expression in the
    /// current scope.
    fn user_expr(&mut self, text: &str, condition: bool) -> Result<(ast::Expr, Type), ExprError> {
        let e = parse_expr(text)?;
        if has_side_effects(&e) || calls_user_function(&e, &self.model) {
            return Err(ExprError::SideEffects);
        }
        let before = self.model.diagnostics.len();
        // The expression runs in the instrumented shader: built-ins resolve as
        // there, wherever the probe is.
        let ty = self.in_output_dialect(|m| m.expr_type(&e));
        if let Some(d) = self.model.diagnostics.get(before) {
            let msg = d.message.clone();
            self.model.diagnostics.truncate(before);
            return Err(ExprError::Type(msg));
        }
        if condition {
            if ty != BOOL {
                return Err(ExprError::NotBool(ty));
            }
        } else if !self.loggable(&ty) {
            return Err(ExprError::NotLoggable(ty));
        }
        Ok((e, ty))
    }

    fn statement(&mut self, s: ast::Statement, out: &mut Vec<ast::Statement>) {
        let span = span_of(&s);
        match s.content {
            StatementData::Compound(c) => {
                self.model.push_scope();
                let c = self.block(c);
                self.model.pop_scope();
                out.push(StatementData::Compound(c).into());
            }
            StatementData::CaseLabel(_) => out.push(s),
            StatementData::Expression(ref e) if e.0.is_none() => out.push(s),
            StatementData::Jump(ref j) if matches!(j.content, ast::JumpStatementData::Discard) => {
                let p = self.probe(ProbeKind::Discard, span, None);
                self.emit_step(p, out);
                self.emit_flush(out);
                out.push(s);
            }
            content => {
                let p = self.probe(ProbeKind::Statement, span, None);
                let at = out.len();
                self.emit_step(p, out);
                // Output writes of this statement (not of the statements
                // nested in it) are checked after it; only declarations and
                // expression statements, where "after" is one place.
                let simple = matches!(
                    content,
                    StatementData::Declaration(_) | StatementData::Expression(_)
                );
                let outer = std::mem::take(&mut self.nan_pending);
                let outer_inline = std::mem::replace(
                    &mut self.nan_inline,
                    (!simple && self.nan_inf).then_some((p, None)),
                );
                let outer_step = std::mem::replace(&mut self.cur_step, p);
                let outer_pre = std::mem::take(&mut self.pre);
                self.statement_body(content, span, out);
                self.cur_step = outer_step;
                let pre = std::mem::replace(&mut self.pre, outer_pre);
                out.splice(at..at, pre);
                let checks = std::mem::replace(&mut self.nan_pending, outer);
                let inline = std::mem::replace(&mut self.nan_inline, outer_inline);
                if let Some((_, Some(k))) = inline {
                    let k = ExprData::IntConst(k as i32);
                    out.insert(at, stmt(call("_sdbg_nan_reach", vec![k.into()])));
                }
                if simple && !checks.is_empty() {
                    let k = ExprData::IntConst(self.nan_slots as i32);
                    self.nan_slots += 1;
                    out.insert(at, stmt(call("_sdbg_nan_reach", vec![k.clone().into()])));
                    for c in checks {
                        out.push(stmt(call("_sdbg_nan", vec![uint(p), k.clone().into(), c])));
                    }
                }
            }
        }
    }

    fn block(&mut self, mut c: ast::CompoundStatement) -> ast::CompoundStatement {
        let list = std::mem::take(&mut c.statement_list);
        let mut out = Vec::with_capacity(list.len() * 2);
        for s in list {
            self.statement(s, &mut out);
        }
        c.statement_list = out;
        c
    }

    /// A sub-statement (branch or loop body) as a block of its own scope, with
    /// `prefix` statements at its start.
    fn sub_block(&mut self, s: ast::Statement, prefix: Vec<ast::Statement>) -> ast::Statement {
        let span = s.span;
        self.model.push_scope();
        let mut c = build::into_compound(s);
        let list = std::mem::take(&mut c.statement_list);
        let mut out = prefix;
        for s in list {
            self.statement(s, &mut out);
        }
        self.model.pop_scope();
        ast::Statement::new(
            StatementData::Compound(
                ast::CompoundStatementData {
                    statement_list: out,
                }
                .into(),
            ),
            span,
        )
    }

    fn statement_body(
        &mut self,
        content: StatementData,
        span: Span,
        out: &mut Vec<ast::Statement>,
    ) {
        match content {
            StatementData::Declaration(d) => {
                let (d, writes) = self.local_declaration(d);
                out.push(StatementData::Declaration(d).into());
                out.extend(writes);
            }
            StatementData::Expression(e) => {
                if let Some(e) = e.content.0 {
                    let (e, after) = self.expression_statement(e);
                    match self.stmt_wrap.take() {
                        Some(w) => {
                            let mut body = w.before;
                            body.push(stmt(e));
                            body.extend(w.after);
                            match w.ok {
                                Some(ok) => {
                                    let ok = match w.value {
                                        Some((temp, value)) => {
                                            let flag = self.rt.flag_temp(self.san_sites);
                                            self.san_sites += 1;
                                            let eq = ast::AssignmentOpData::Equal;
                                            out.push(stmt(assign(&flag, eq.clone(), ok)));
                                            out.push(stmt(assign(&temp, eq, value)));
                                            var(&flag)
                                        }
                                        None => ok,
                                    };
                                    let then = if body.len() == 1 {
                                        body.remove(0)
                                    } else {
                                        build::compound(body)
                                    };
                                    out.push(build::if_else(ok, then, w.els.map(stmt)));
                                }
                                None => out.extend(body),
                            }
                        }
                        None => out.push(stmt(e)),
                    }
                    out.extend(after);
                }
            }
            StatementData::Selection(sel) => {
                let sel_span = sel.span;
                let sel = sel.into_inner();
                let cond = self.expr(*sel.cond);
                let cond = Box::new(self.condition(cond));
                let rest_span = sel.rest.span;
                let rest = match sel.rest.into_inner() {
                    ast::SelectionRestStatementData::Statement(a) => {
                        ast::SelectionRestStatementData::Statement(Box::new(
                            self.sub_block(*a, Vec::new()),
                        ))
                    }
                    ast::SelectionRestStatementData::Else(a, b) => {
                        let a = self.sub_block(*a, Vec::new());
                        // Keep `else if` chains flat: a nested `if` gets its own step.
                        let b = self.sub_block(*b, Vec::new());
                        ast::SelectionRestStatementData::Else(Box::new(a), Box::new(b))
                    }
                };
                let rest = ast::SelectionRestStatement::new(rest, rest_span);
                let sel = ast::SelectionStatement::new(
                    ast::SelectionStatementData { cond, rest },
                    sel_span,
                );
                out.push(StatementData::Selection(sel).into());
            }
            StatementData::Switch(sw) => {
                let sw_span = sw.span;
                let mut sw = sw.into_inner();
                sw.head = Box::new(self.expr(*sw.head));
                self.model.push_scope();
                let mut body = Vec::new();
                for s in std::mem::take(&mut sw.body) {
                    self.statement(s, &mut body);
                }
                self.model.pop_scope();
                sw.body = body;
                out.push(StatementData::Switch(ast::SwitchStatement::new(sw, sw_span)).into());
            }
            StatementData::Iteration(it) => {
                self.model.push_scope();
                self.iteration(it, span, out);
                self.model.pop_scope();
            }
            StatementData::Jump(j) => self.jump(j, span, out),
            StatementData::Compound(_) | StatementData::CaseLabel(_) => {
                unreachable!("handled by statement()")
            }
        }
    }

    fn iteration(
        &mut self,
        mut it: ast::IterationStatement,
        span: Span,
        out: &mut Vec<ast::Statement>,
    ) {
        let iter_probe = |w: &mut Self| {
            let p = w.probe(ProbeKind::LoopIteration, span, None);
            let mut v = Vec::new();
            if w.record {
                v.push(stmt(call("_sdbg_step", vec![uint(p)])));
            }
            v
        };
        let content = match it.content {
            ast::IterationStatementData::While(cond, body) => {
                let cond = match cond.content {
                    ast::ConditionData::Expr(e) => {
                        let e = self.expr(e);
                        ast::Condition::new(ast::ConditionData::Expr(self.condition(e)), cond.span)
                    }
                    // `while (bool b = f())`: left as is, `b` is not logged.
                    other => ast::Condition::new(other, cond.span),
                };
                let prefix = iter_probe(self);
                let body = self.sub_block(*body, prefix);
                ast::IterationStatementData::While(cond, Box::new(body))
            }
            ast::IterationStatementData::DoWhile(body, cond) => {
                let prefix = iter_probe(self);
                let body = self.sub_block(*body, prefix);
                let cond = self.expr(*cond);
                ast::IterationStatementData::DoWhile(Box::new(body), Box::new(self.condition(cond)))
            }
            ast::IterationStatementData::For(init, mut rest, body) => {
                let init_span = init.span;
                let mut hoisted = None;
                let init = match init.content {
                    ast::ForInitStatementData::Expression(e) => {
                        ast::ForInitStatementData::Expression(e.map(|e| self.expr(e)))
                    }
                    ast::ForInitStatementData::Declaration(d) => {
                        let (d, writes) = self.local_declaration(*d);
                        // (Sanitizing, `writes` clears an uninitialized
                        // variable's mask.)
                        if !writes.is_empty() {
                            // `for (int i = 0; ...)` cannot log `i` in place: declare it
                            // in a block around the loop instead (same scope for the loop).
                            hoisted = Some((d, writes));
                            ast::ForInitStatementData::Expression(None)
                        } else {
                            ast::ForInitStatementData::Declaration(Box::new(d))
                        }
                    }
                };
                if let Some(c) = rest.condition.take() {
                    rest.condition = Some(match c.content {
                        ast::ConditionData::Expr(e) => {
                            let e = self.expr(e);
                            ast::Condition::new(ast::ConditionData::Expr(self.condition(e)), c.span)
                        }
                        other => ast::Condition::new(other, c.span),
                    });
                }
                if let Some(post) = rest.post_expr.take() {
                    rest.post_expr = Some(Box::new(self.expr(*post)));
                }
                let prefix = iter_probe(self);
                let body = self.sub_block(*body, prefix);
                let lp = StatementData::Iteration(
                    ast::IterationStatementData::For(
                        ast::ForInitStatement::new(init, init_span),
                        rest,
                        Box::new(body),
                    )
                    .into(),
                );
                if let Some((d, writes)) = hoisted {
                    let mut list = vec![StatementData::Declaration(d).into()];
                    list.extend(writes);
                    list.push(lp.into());
                    out.push(build::compound(list));
                } else {
                    out.push(lp.into());
                }
                return;
            }
        };
        it.content = content;
        out.push(StatementData::Iteration(it).into());
    }

    fn jump(&mut self, j: ast::JumpStatement, span: Span, out: &mut Vec<ast::Statement>) {
        let ret = self
            .model
            .current_function()
            .map(|f| self.model.functions[f].ret.clone())
            .unwrap_or(Type::Void);
        match j.content {
            ast::JumpStatementData::Return(Some(e)) => {
                let e = self.expr(*e);
                let p = self.probe(
                    ProbeKind::FunctionReturn,
                    span,
                    self.loggable(&ret).then(|| ret.clone()),
                );
                let e = if self.record && self.loggable(&ret) {
                    let f = self.rt.ret_value(&ret);
                    call(&f, vec![uint(p), e])
                } else {
                    if self.record {
                        out.push(stmt(call("_sdbg_step", vec![uint(p)])));
                    }
                    e
                };
                out.push(
                    StatementData::Jump(ast::JumpStatementData::Return(Some(Box::new(e))).into())
                        .into(),
                );
            }
            ast::JumpStatementData::Return(None) => {
                let p = self.probe(ProbeKind::FunctionReturn, span, None);
                if self.record {
                    out.push(stmt(call("_sdbg_step", vec![uint(p)])));
                }
                let in_main = self
                    .model
                    .current_function()
                    .is_some_and(|f| self.model.functions[f].name == "main");
                if in_main {
                    self.emit_flush(out);
                }
                out.push(StatementData::Jump(ast::JumpStatementData::Return(None).into()).into());
            }
            other => out.push(StatementData::Jump(ast::JumpStatement::new(other, j.span)).into()),
        }
    }

    /// A local declaration: initializers rewritten (evaluated in the scope before
    /// the names exist), then the names declared, then their initial values logged.
    fn local_declaration(
        &mut self,
        d: ast::Declaration,
    ) -> (ast::Declaration, Vec<ast::Statement>) {
        let original = d.clone();
        let mut d = d;
        let mut initialized = Vec::new();
        if let ast::DeclarationData::InitDeclaratorList(list) = &mut d.content {
            if list.head.name.is_some() {
                initialized.push(list.head.initializer.is_some());
            }
            if let Some(init) = list.head.initializer.take() {
                list.head.initializer = Some(self.initializer(init));
            }
            for tail in &mut list.tail {
                initialized.push(tail.initializer.is_some());
                if let Some(init) = tail.initializer.take() {
                    tail.initializer = Some(self.initializer(init));
                }
            }
        }
        let ids = self.model.declaration(&original, false);
        let mut writes = Vec::new();
        for (id, init) in ids.into_iter().zip(initialized) {
            if !init {
                writes.extend(self.track_local(id));
            }
            if init {
                let span = self.model.decls[id].span;
                let t = self.var_target(id);
                self.log_write(t, span, &mut writes);
            }
        }
        (d, writes)
    }

    fn initializer(&mut self, init: ast::Initializer) -> ast::Initializer {
        let span = init.span;
        let content = match init.content {
            ast::InitializerData::Simple(e) => {
                ast::InitializerData::Simple(Box::new(self.expr(*e)))
            }
            ast::InitializerData::List(items) => {
                ast::InitializerData::List(items.into_iter().map(|i| self.initializer(i)).collect())
            }
        };
        ast::Initializer::new(content, span)
    }

    /// An expression statement; top-level writes are logged by statements after it.
    fn expression_statement(&mut self, e: ast::Expr) -> (ast::Expr, Vec<ast::Statement>) {
        let span = span_of(&e);
        let mut after = Vec::new();
        let e = match e.content {
            ExprData::Assignment(lhs, op, rhs) => {
                let t = self.write_target(&lhs);
                self.nan_check(&lhs);
                if !matches!(op.content, ast::AssignmentOpData::Equal) {
                    let check = self.local_check(&lhs);
                    self.pre.extend(check);
                }
                // Marked after the statement; an index re-evaluated then
                // must read what it read before: nothing else in the
                // statement may write (a user function may write globals).
                let precise = !may_write(&rhs, &self.model);
                after.extend(self.local_mark(&lhs, precise));
                let rhs_ty = self.model.expr_type(&rhs);
                let rhs = self.expr(*rhs);
                let mut place = Place::default();
                let lhs = self.lvalue(*lhs, true, &mut place);
                let reads = !matches!(op.content, ast::AssignmentOpData::Equal);
                // Checking races, the value a plain `=` writes to a whole
                // shared element is kept (`_sdbg_val_M`) for the check.
                let val = if reads {
                    None
                } else {
                    self.value_keeper(&place)
                };
                let mut written = match &val {
                    Some(f) => call(f, vec![rhs.clone()]),
                    None => rhs.clone(),
                };
                self.wrap_statement(place, Some(rhs), reads, val.is_some());
                // Under a bounds check, a value that calls anything (its
                // reads' checks) is computed once before the `if` rather
                // than in both of its sides; one that calls nothing is not
                // computed where the check fails.
                let hoist = sized(&rhs_ty) && nameable(&rhs_ty, &self.model);
                if let Some(w) = self.stmt_wrap.as_mut().filter(|w| w.els.is_some()) {
                    if !calls(&written) {
                        w.els = None;
                    } else if hoist {
                        let temp = self.rt.value_temp(self.san_sites, &rhs_ty);
                        self.san_sites += 1;
                        w.els = None;
                        w.value = Some((temp.clone(), written));
                        written = var(&temp);
                    }
                }
                self.log_write(t, span, &mut after);
                ast::Expr::new(
                    ExprData::Assignment(Box::new(lhs), op, Box::new(written)),
                    e.span,
                )
            }
            ExprData::PostInc(a) => {
                let a = self.logged_operand(*a, span, &mut after);
                ast::Expr::new(ExprData::PostInc(Box::new(a)), e.span)
            }
            ExprData::PostDec(a) => {
                let a = self.logged_operand(*a, span, &mut after);
                ast::Expr::new(ExprData::PostDec(Box::new(a)), e.span)
            }
            ExprData::Unary(op, a) if is_inc_dec(&op) => {
                let a = self.logged_operand(*a, span, &mut after);
                ast::Expr::new(ExprData::Unary(op, Box::new(a)), e.span)
            }
            ExprData::FunCall(f, args) => {
                let (callee, _) = self.model.call(&f, &args, e.span);
                let outs = out_params(&self.model, &callee, &args);
                let targets: Vec<Option<Target>> =
                    outs.iter().map(|&i| self.write_target(&args[i])).collect();
                for &i in &outs {
                    self.nan_check(&args[i]);
                }
                // One place written by a built-in (a user function may
                // write globals an index reads; two out arguments, each
                // other's index).
                let precise = matches!(callee, Callee::Builtin(_))
                    && outs.len() == 1
                    && !args.iter().any(|a| may_write(a, &self.model));
                for &i in &outs {
                    after.extend(self.local_mark(&args[i], precise));
                }
                self.sync_call(&callee, &args);
                let atomic = is_atomic(&callee);
                let args = self.args(args, &outs, atomic);
                let args = self.image_check(&callee, args);
                let (f, args) = self.barrier_call(f, &callee, args);
                for t in targets {
                    self.log_write(t, span, &mut after);
                }
                ast::Expr::new(ExprData::FunCall(f, args), e.span)
            }
            other => self.expr(ast::Expr::new(other, e.span)),
        };
        (e, after)
    }
}

impl Walker<'_> {
    /// Runs `f` with built-ins resolved in the newest dialect of the shader's
    /// family (desktop or ES), which every raised version can use. Depends only on
    /// the shader, so probe ids stay the same whatever the output version.
    fn in_output_dialect<T>(&mut self, f: impl FnOnce(&mut Model) -> T) -> T {
        let saved = self.model.env;
        let newest = if self.parsed.version.is_es() {
            Version {
                number: 320,
                profile: crate::Profile::Es,
            }
        } else {
            Version {
                number: 460,
                profile: crate::Profile::Compatibility,
            }
        };
        self.model.env = BuiltinEnv {
            version: newest,
            stage: self.parsed.stage,
            api: self.parsed.api,
        };
        let out = f(&mut self.model);
        self.model.env = saved;
        out
    }

    /// Whether values of this type can be logged and named in generated GLSL
    /// (helpers live at global scope: anonymous and function-local structs can't).
    fn loggable(&self, ty: &Type) -> bool {
        ty.is_loggable() && nameable(ty, &self.model)
    }

    /// The operand of `++`/`--` at statement level, rewritten, its write logged after.
    fn logged_operand(
        &mut self,
        a: ast::Expr,
        span: Span,
        after: &mut Vec<ast::Statement>,
    ) -> ast::Expr {
        let t = self.write_target(&a);
        self.nan_check(&a);
        let check = self.local_check(&a);
        self.pre.extend(check);
        after.extend(self.local_mark(&a, true));
        let mut place = Place::default();
        let a = self.lvalue(a, true, &mut place);
        self.wrap_statement(place, None, true, false);
        self.log_write(t, span, after);
        a
    }

    /// `Mode::HitTestNanInf`: if `lhs` is (part of) a shader output of a float
    /// type and reading it again has no side effects, a check of its value
    /// after the statement (`_sdbg_bad(lhs)`).
    fn nan_check(&mut self, lhs: &ast::Expr) {
        if let Some(c) = self.nan_check_of(lhs) {
            self.nan_pending.push(c);
        }
    }

    /// `e` (a write whose value has type `ty`) followed, inside the
    /// expression, by the NaN/Inf check `check` of the statement being
    /// walked (`_sdbg_keep(e, _sdbg_nan_u(p, k, check))`: GLSL evaluates
    /// arguments left to right, so the check reads the written value).
    fn nan_check_inline(&mut self, e: ast::Expr, ty: &Type, check: ast::Expr) -> ast::Expr {
        let Some((p, slot)) = self.nan_inline else {
            return e;
        };
        let k = slot.unwrap_or_else(|| {
            self.nan_slots += 1;
            self.nan_slots - 1
        });
        self.nan_inline = Some((p, Some(k)));
        let keep = self.rt.keep(ty);
        let espan = e.span;
        let k = ExprData::IntConst(k as i32).into();
        ast::Expr::new(
            call(&keep, vec![e, call("_sdbg_nan_u", vec![uint(p), k, check])]).content,
            espan,
        )
    }

    /// The check [`Self::nan_check`] would emit for a write to `lhs`.
    fn nan_check_of(&mut self, lhs: &ast::Expr) -> Option<ast::Expr> {
        if !self.nan_inf || has_side_effects(lhs) {
            return None;
        }
        let mut root = lhs;
        let name = loop {
            match &root.content {
                ExprData::Variable(id) => break id.as_str(),
                ExprData::Dot(b, _) | ExprData::Bracket(b, _) => root = b,
                _ => return None,
            }
        };
        let d = self.model.lookup(name)?;
        let output = match &self.model.decls[d].kind {
            DeclKind::Global(Storage::Out) => !self.model.decls[d].interface_block,
            DeclKind::Builtin(_) => matches!(
                name,
                "gl_FragColor" | "gl_FragData" | "gl_FragDepth" | "gl_Position"
            ),
            _ => false,
        };
        if !output {
            return None;
        }
        let float = matches!(
            self.model.expr_type(lhs),
            Type::Scalar(crate::Scalar::Float) | Type::Vector(crate::Scalar::Float, 2..=4)
        );
        float.then(|| call("_sdbg_bad", vec![lhs.clone()]))
    }

    /// Wraps a condition so the recording sees its value.
    fn condition(&mut self, e: ast::Expr) -> ast::Expr {
        let p = self.probe(ProbeKind::Condition, span_of(&e), Some(BOOL));
        if self.record {
            let span = e.span;
            ast::Expr::new(call("_sdbg_cond", vec![uint(p), e]).content, span)
        } else {
            e
        }
    }

    /// Rewrites an expression so that writes inside it (nested assignments,
    /// `++`, `out` arguments) and `?:` conditions are logged, without changing its
    /// value or the order anything is evaluated in.
    fn expr(&mut self, e: ast::Expr) -> ast::Expr {
        let part = std::mem::take(&mut self.read_part);
        if self.ulocal {
            self.read_part = part;
            match self.local_read(e) {
                Ok(checked) => {
                    self.read_part = false;
                    return checked;
                }
                Err(e) => return self.expr_unchecked(e),
            }
        }
        self.expr_inner(e, part)
    }

    /// [`Self::expr`] without the uninitialized-local check at its top.
    fn expr_unchecked(&mut self, e: ast::Expr) -> ast::Expr {
        let part = std::mem::take(&mut self.read_part);
        self.expr_inner(e, part)
    }

    fn expr_inner(&mut self, e: ast::Expr, part: bool) -> ast::Expr {
        // Writes nested in expressions mark their variable before the
        // statement (where the index they write may not be known yet: the
        // whole variable; this can only hide a report).
        if self.ulocal {
            let written: Vec<&ast::Expr> = match &e.content {
                ExprData::Assignment(lhs, ..) | ExprData::PostInc(lhs) | ExprData::PostDec(lhs) => {
                    vec![lhs]
                }
                ExprData::Unary(op, a) if is_inc_dec(op) => vec![a],
                _ => Vec::new(),
            };
            let marks: Vec<ast::Statement> = written
                .into_iter()
                .filter_map(|w| self.local_mark(w, false))
                .collect();
            self.pre.extend(marks);
        }
        let span = e.span;
        let sp = crate::diagnostics::span_from_node(span);
        let node = |c| ast::Expr::new(c, span);
        match e.content {
            ExprData::Assignment(lhs, op, rhs) => {
                let t = self.write_target(&lhs);
                let inline = self.nan_inline.is_some();
                let check = if inline {
                    self.nan_check_of(&lhs)
                } else {
                    self.nan_check(&lhs);
                    None
                };
                let vty = self.model.expr_type(&lhs);
                let rhs = self.expr(*rhs);
                let lhs = self.lvalue(*lhs, false, &mut Place::default());
                let new = node(ExprData::Assignment(Box::new(lhs), op, Box::new(rhs)));
                let new = self.wrap_write(new, vty.clone(), t, sp);
                match check {
                    Some(c) => self.nan_check_inline(new, &vty, c),
                    None => new,
                }
            }
            ExprData::PostInc(a) => {
                let (t, vty) = (self.write_target(&a), self.model.expr_type(&a));
                let a = self.lvalue(*a, false, &mut Place::default());
                self.wrap_write(node(ExprData::PostInc(Box::new(a))), vty, t, sp)
            }
            ExprData::PostDec(a) => {
                let (t, vty) = (self.write_target(&a), self.model.expr_type(&a));
                let a = self.lvalue(*a, false, &mut Place::default());
                self.wrap_write(node(ExprData::PostDec(Box::new(a))), vty, t, sp)
            }
            ExprData::Unary(op, a) if is_inc_dec(&op) => {
                let (t, vty) = (self.write_target(&a), self.model.expr_type(&a));
                let a = self.lvalue(*a, false, &mut Place::default());
                self.wrap_write(node(ExprData::Unary(op, Box::new(a))), vty, t, sp)
            }
            ExprData::Unary(op, a) => node(ExprData::Unary(op, Box::new(self.expr(*a)))),
            ExprData::Binary(op, a, b) => {
                let a = self.expr(*a);
                let b = self.expr(*b);
                node(ExprData::Binary(op, Box::new(a), Box::new(b)))
            }
            ExprData::Ternary(c, a, b) => {
                let c = self.expr(*c);
                let c = self.condition(c);
                let a = self.expr(*a);
                let b = self.expr(*b);
                node(ExprData::Ternary(Box::new(c), Box::new(a), Box::new(b)))
            }
            ExprData::Bracket(a, i) => {
                let check = self.oob_check(&a, &i);
                self.read_part = true;
                let a = self.expr(*a);
                let i = self.expr(*i);
                match check {
                    Some(c) => {
                        let raced = c.shared.filter(|&k| self.raced(k));
                        let elem = c.elem.clone();
                        let read = self.checked_read(a, i, c, part);
                        let read = match raced {
                            Some(_) => self.capture_read(read, &elem),
                            None => read,
                        };
                        ast::Expr::new(read.content, span)
                    }
                    None => node(ExprData::Bracket(Box::new(a), Box::new(i))),
                }
            }
            ExprData::Dot(a, f) if self.shadows && self.member_of(&a, &f).is_some() => {
                // A read of a storage-buffer member of an instance-named
                // block: as a variable's below.
                let k = self.member_of(&a, &f).filter(|&k| !self.shared[k].array);
                let ty = k.map(|_| {
                    self.model
                        .expr_type(&node(ExprData::Dot(a.clone(), f.clone())))
                });
                let read = node(ExprData::Dot(a, f));
                match (k, ty) {
                    (Some(k), Some(ty)) if self.loggable(&ty) => {
                        let keep = self.rt.keep(&ty);
                        let fl = var(&Runtime::access_flags(false, part));
                        let check = call(&format!("_sdbg_uv{k}"), vec![uint(self.cur_step), fl]);
                        let read = call(&keep, vec![read, check]);
                        node(self.capture_read(read, &ty).content)
                    }
                    _ => read,
                }
            }
            ExprData::Dot(a, f) => {
                self.read_part = true;
                node(ExprData::Dot(Box::new(self.expr(*a)), f))
            }
            ExprData::Comma(a, b) => {
                let a = self.expr(*a);
                let b = self.expr(*b);
                node(ExprData::Comma(Box::new(a), Box::new(b)))
            }
            ExprData::FunCall(f, args) => {
                let (callee, ret) = self.model.call(&f, &args, span);
                let outs = out_params(&self.model, &callee, &args);
                for &i in &outs {
                    let mark = self.local_mark(&args[i], false);
                    self.pre.extend(mark);
                }
                let targets: Vec<Option<Target>> =
                    outs.iter().map(|&i| self.write_target(&args[i])).collect();
                self.sync_call(&callee, &args);
                let atomic = is_atomic(&callee);
                let args = self.args(args, &outs, atomic);
                let args = self.image_check(&callee, args);
                let (f, args) = self.barrier_call(f, &callee, args);
                let mut e = node(ExprData::FunCall(f, args));
                if ret != Type::Void {
                    for t in targets {
                        e = self.wrap_write(e, ret.clone(), t, sp);
                    }
                }
                e
            }
            ExprData::Variable(id) if self.shadows => {
                // A read of a shared variable (a storage-buffer member)
                // that is no array: checked after it (`_sdbg_keep(v,
                // _sdbg_uv(p, f))`).
                let k = self.shared_of(&id).filter(|&k| !self.shared[k].array);
                let ty = k.map(|k| self.model.decls[self.shared[k].decl].ty.clone());
                match (k, ty) {
                    (Some(k), Some(ty)) if self.loggable(&ty) => {
                        let keep = self.rt.keep(&ty);
                        let f = var(&Runtime::access_flags(false, part));
                        let check = call(&format!("_sdbg_uv{k}"), vec![uint(self.cur_step), f]);
                        let read = call(&keep, vec![var(id.as_str()), check]);
                        let read = if self.raced(k) {
                            self.capture_read(read, &ty)
                        } else {
                            read
                        };
                        node(read.content)
                    }
                    _ => node(ExprData::Variable(id)),
                }
            }
            other => node(other),
        }
    }

    /// Call arguments rewritten; those passed to `out`/`inout` parameters
    /// (indices `outs`) as written places.
    /// The memory argument of an atomic function (`atomic`) is an atomic
    /// write.
    fn args(&mut self, args: Vec<ast::Expr>, outs: &[usize], atomic: bool) -> Vec<ast::Expr> {
        args.into_iter()
            .enumerate()
            .map(|(k, a)| {
                if outs.contains(&k) {
                    let mut place = if atomic && k == 0 {
                        Place::atomic()
                    } else {
                        Place::default()
                    };
                    self.lvalue(a, false, &mut place)
                } else {
                    self.expr(a)
                }
            })
            .collect()
    }

    /// Rewrites a place that is written (an assignment's target, the
    /// operand of `++`/`--`, an `out` argument) as [`Self::expr`] would,
    /// keeping it a place. Sanitizing, its indices are checked: with `top`
    /// (the target of an expression statement) each index is evaluated, in
    /// order, into a temporary by the chain of checks in `ok` (the caller
    /// guards the statement with it) and the place indexes with the
    /// temporaries; elsewhere an index out of bounds is clamped to 0.
    fn lvalue(&mut self, e: ast::Expr, top: bool, place: &mut Place) -> ast::Expr {
        if !self.oob {
            return self.expr(e);
        }
        let e = self.place(e, top, false, place);
        if !top {
            // A write whose element is unknown (or a variable that is no
            // array) marks the whole variable, before the statement.
            if let Some((k, None)) = place.shared.take() {
                let args = vec![uint(self.cur_step), place.flags()];
                self.pre
                    .push(stmt(call(&format!("_sdbg_markall{k}"), args)));
            }
        }
        e
    }

    /// `part`: an outer selection writes only part of `e`.
    fn place(&mut self, e: ast::Expr, top: bool, part: bool, place: &mut Place) -> ast::Expr {
        let span = e.span;
        match e.content {
            ExprData::Variable(id) => {
                if let Some(k) = self.shared_of(&id) {
                    place.shared = Some((k, None));
                    place.partial = part;
                }
                ast::Expr::new(ExprData::Variable(id), span)
            }
            ExprData::Dot(b, f) => {
                if let Some(k) = self.member_of(&b, &f) {
                    place.shared = Some((k, None));
                    place.partial = part;
                    return ast::Expr::new(ExprData::Dot(b, f), span);
                }
                let b = self.place(*b, top, true, place);
                ast::Expr::new(ExprData::Dot(Box::new(b), f), span)
            }
            ExprData::Bracket(b, i) => {
                let check = self.oob_check(&b, &i);
                let b = self.place(*b, top, true, place);
                let i = self.expr(*i);
                let Some(c) = check else {
                    return ast::Expr::new(ExprData::Bracket(Box::new(b), Box::new(i)), span);
                };
                let p = uint(self.cur_step);
                let index = if top {
                    let t = self.index_temp(c.signed);
                    let prev = place.ok.take().unwrap_or_else(|| build::boolean(true));
                    place.ok = Some(call("_sdbg_chk", vec![prev, p, i, c.bound.expr(), var(&t)]));
                    if let Some(k) = c.shared {
                        place.shared = Some((k, Some(var(&t))));
                        place.partial = part;
                    }
                    var(&t)
                } else if let Some(k) = c.shared {
                    // Marked as the index is known, before the write.
                    place.shared = Some((k, Some(build::boolean(true))));
                    place.partial = part;
                    call(&format!("_sdbg_wm{k}"), vec![p, i, place.flags()])
                } else {
                    call("_sdbg_cl", vec![p, i, c.bound.expr()])
                };
                ast::Expr::new(ExprData::Bracket(Box::new(b), Box::new(index)), span)
            }
            other => self.expr(ast::Expr::new(other, span)),
        }
    }

    /// Sets how the expression statement writing `place` is emitted: under
    /// its bounds checks, with a read check of the element first if the
    /// statement `reads` it (`+=`, `++`), and its shadow mark after.
    /// `valued`: the statement keeps the written value's first word in
    /// `_sdbg_v` (see [`Self::value_keeper`]).
    fn wrap_statement(&mut self, place: Place, els: Option<ast::Expr>, reads: bool, valued: bool) {
        let (mut before, mut after) = (Vec::new(), Vec::new());
        let p = self.cur_step;
        if let Some((k, elem)) = &place.shared {
            let k = *k;
            let array = self.shared[k].array;
            let f = place.flags();
            let read_f = var(&Runtime::access_flags(false, place.partial));
            match elem {
                Some(i) => {
                    if reads {
                        before.push(stmt(call(
                            &format!("_sdbg_uchk{k}"),
                            vec![uint(p), i.clone(), read_f],
                        )));
                    }
                    let mark = if valued {
                        call(
                            &format!("_sdbg_markv{k}"),
                            vec![uint(p), i.clone(), f, build::boolean(true), var("_sdbg_v")],
                        )
                    } else {
                        call(&format!("_sdbg_mark{k}"), vec![uint(p), i.clone(), f])
                    };
                    after.push(stmt(mark));
                }
                None => {
                    if reads && !array {
                        before.push(stmt(call(
                            &format!("_sdbg_uchk{k}"),
                            vec![uint(p), uint(0), read_f],
                        )));
                    }
                    let mark = if valued && !array {
                        call(
                            &format!("_sdbg_markv{k}"),
                            vec![uint(p), uint(0), f, build::boolean(true), var("_sdbg_v")],
                        )
                    } else {
                        call(&format!("_sdbg_markall{k}"), vec![uint(p), f])
                    };
                    after.push(stmt(mark));
                }
            }
        }
        if place.ok.is_some() || !before.is_empty() || !after.is_empty() {
            self.stmt_wrap = Some(StmtWrap {
                value: None,
                els: place.ok.is_some().then_some(els).flatten(),
                ok: place.ok,
                before,
                after,
            });
        }
    }

    /// Checking races, for a statement's plain write of a whole element of
    /// a shared variable (or of the variable, no array): the helper that
    /// passes the written value through, keeping its first word in
    /// `_sdbg_v`, which the race check compares with another invocation's
    /// write of the element.
    fn value_keeper(&mut self, place: &Place) -> Option<String> {
        let (k, elem) = place.shared.as_ref()?;
        if place.partial || place.atomic {
            return None;
        }
        if !(self.race || self.shared[*k].storage) {
            return None;
        }
        let ty = match (elem, &self.shadowed_type(*k)) {
            (Some(_), Type::Array(e, _)) => (**e).clone(),
            (None, Type::Array(..)) => return None,
            (None, ty) => ty.clone(),
            _ => return None,
        };
        let model = &self.model;
        self.rt.value_keeper(&ty, &|t: &Type| nameable(t, model))
    }

    /// The number of the shadow of `decl` (an instance-named block's
    /// `member`) if it is a shared variable or storage-buffer member the
    /// sanitizer tracks (declaring the shadow when first asked).
    fn shadow_number(&mut self, decl: DeclId, member: Option<usize>) -> Option<usize> {
        if !self.shadows {
            return None;
        }
        let d = &self.model.decls[decl];
        let storage = match d.kind {
            DeclKind::Global(Storage::Shared)
                if member.is_none() && self.parsed.stage == Stage::Compute =>
            {
                false
            }
            DeclKind::Global(Storage::Buffer) if self.srace => true,
            _ => return None,
        };
        if let Some(k) = self
            .shared
            .iter()
            .position(|s| s.decl == decl && s.member == member)
        {
            return Some(k);
        }
        if self.shared_frozen || (storage && self.untracked.contains(&d.name)) {
            return None;
        }
        let (ty, access) = match (member, &d.ty) {
            (Some(m), Type::Struct(st)) if storage && d.interface_block => {
                let f = st.fields.get(m)?;
                (f.ty.clone(), format!("{}.{}", d.name, f.name))
            }
            (None, ty) if !d.interface_block => (ty.clone(), d.name.clone()),
            _ => return None,
        };
        let (words, array) = match ty {
            Type::Array(_, Some(n)) => (n, true),
            Type::Array(_, None) if storage => (0, true),
            Type::Array(_, None) => return None,
            _ => (1, false),
        };
        let k = self.shared.len();
        self.shared.push(Shadowed {
            decl,
            member,
            words,
            array,
            storage,
        });
        if storage {
            let code = decl as u32
                | member.map_or(0, |m| {
                    (m as u32 + 1) << crate::layout::SANITIZE_MEMBER_SHIFT
                });
            self.rt.storage_shadow(k, words, &access, code);
        } else {
            self.rt.shadow(k, words, decl);
        }
        Some(k)
    }

    /// Whether shadow `k` is checked for races.
    fn raced(&self, k: usize) -> bool {
        if self.shared[k].storage {
            self.srace
        } else {
            self.race
        }
    }

    /// A race-checked read `read` of a value of type `ty`, passed
    /// through `_sdbg_rval_M` (a race report of the read takes the value).
    fn capture_read(&mut self, read: ast::Expr, ty: &Type) -> ast::Expr {
        let model = &self.model;
        match self.rt.read_capture(ty, &|t: &Type| nameable(t, model)) {
            Some(f) => call(&f, vec![read]),
            None => read,
        }
    }

    /// The type of the variable (member) shadow `k` tracks.
    fn shadowed_type(&self, k: usize) -> Type {
        let s = &self.shared[k];
        let ty = &self.model.decls[s.decl].ty;
        match (s.member, ty) {
            (Some(m), Type::Struct(st)) => st.fields.get(m).map_or(Type::Void, |f| f.ty.clone()),
            _ => ty.clone(),
        }
    }

    /// The shadow of `base.f` when `base` names an instance-named
    /// storage block and `f` a member the sanitizer tracks.
    fn member_of(&mut self, base: &ast::Expr, f: &ast::Identifier) -> Option<usize> {
        if !self.srace {
            return None;
        }
        let ExprData::Variable(id) = &base.content else {
            return None;
        };
        let d = self.model.lookup(id.as_str())?;
        let decl = &self.model.decls[d];
        if !decl.interface_block || decl.kind != DeclKind::Global(Storage::Buffer) {
            return None;
        }
        let Type::Struct(st) = &decl.ty else {
            return None;
        };
        let m = st.fields.iter().position(|x| x.name == f.as_str())?;
        self.shadow_number(d, Some(m))
    }

    fn shared_of(&mut self, id: &ast::Identifier) -> Option<usize> {
        if !self.shadows {
            return None;
        }
        let d = self.model.lookup(id.as_str())?;
        self.shadow_number(d, None)
    }

    /// The storage race check's synchronisation (`Runtime::sync_prelude`):
    /// before a statement that calls `memoryBarrier()` or
    /// `memoryBarrierBuffer()`, `_sdbg_sfence()`; before one that calls an
    /// atomic function on memory other than a shared variable (a storage
    /// buffer, an image, an atomic counter), `_sdbg_ssync()`. Before the
    /// statement rather than at the call: taking a fence or an atomic a
    /// little early can only hide a report.
    fn sync_call(&mut self, callee: &Callee, args: &[ast::Expr]) {
        if !self.srace {
            return;
        }
        let Callee::Builtin(sig) = callee else {
            return;
        };
        let name = sig.name.as_str();
        let fence = name == "memoryBarrier" || name == "memoryBarrierBuffer";
        let atomic = name.starts_with("atomicCounter")
            || name.starts_with("imageAtomic")
            || (is_atomic(callee)
                && !args
                    .first()
                    .and_then(root_of)
                    .and_then(|n| self.model.lookup(n))
                    .is_some_and(|d| {
                        self.model.decls[d].kind == DeclKind::Global(Storage::Shared)
                    }));
        if !(fence || atomic) {
            return;
        }
        self.rt.use_sync(fence);
        let f = if fence { "_sdbg_sfence" } else { "_sdbg_ssync" };
        self.pre.push(stmt(call(f, Vec::new())));
    }

    /// The function a call names and its arguments, `barrier()` made
    /// `_sdbg_barrier(p)` when checking races (it counts the barriers the
    /// invocation passed, and the invocations that reached this one).
    fn barrier_call(
        &mut self,
        f: ast::FunIdentifier,
        callee: &Callee,
        args: Vec<ast::Expr>,
    ) -> (ast::FunIdentifier, Vec<ast::Expr>) {
        // An extension's built-in the tables do not give a signature
        // (`barrier` of GL_ARB_compute_shader in a 3.30 shader) is
        // `Callee::Unknown`: the name decides.
        let is_barrier = match callee {
            Callee::Builtin(sig) => sig.name == "barrier",
            Callee::Unknown => fun_name(&f) == Some("barrier"),
            _ => false,
        };
        if !(self.race && is_barrier) {
            return (f, args);
        }
        let sp = span_of(&f);
        let name = if self.uniform_barriers.contains(&(sp.start, sp.end)) {
            "_sdbg_ubarrier"
        } else {
            self.rt.use_counted_barrier();
            "_sdbg_barrier"
        };
        let barrier = ast::FunIdentifierData::Expr(Box::new(var(name)));
        (
            ast::FunIdentifier::new(barrier, f.span),
            vec![uint(self.cur_step)],
        )
    }

    /// `Checks::out_of_bounds`: the arguments (rewritten) of an image
    /// access (`imageLoad`, `imageStore`, `imageAtomic*`, `texelFetch`)
    /// with the coordinate passed through a check against the image's size
    /// at the level accessed (`_sdbg_ic(p, c, size, tag)`, or for a
    /// `texelFetch` with a level `_sdbg_tc(p, c, lod, levels, size, tag)`,
    /// which checks the level first). The helpers return the coordinate as
    /// it was: the access runs as the unsanitized shader's would. OpenGL
    /// defines invalid image accesses (a store or atomic has no effect, a
    /// load returns zeros) and leaves an out-of-range `texelFetch`'s value
    /// undefined without other effects, so performing it changes nothing
    /// (where skipping a load would pick one undefined value over another).
    /// Not checked: a sample index of a multisample image; an image or
    /// level argument with side effects (it would be evaluated twice);
    /// a level that is not the constant 0 in GLSL ES (no
    /// `textureQueryLevels` there).
    fn image_check(&mut self, callee: &Callee, mut args: Vec<ast::Expr>) -> Vec<ast::Expr> {
        if !self.report_oob || args.len() < 2 {
            return args;
        }
        let Callee::Builtin(sig) = callee else {
            return args;
        };
        let op: u32 = match sig.name.as_str() {
            "imageLoad" => 0,
            "imageStore" => 1,
            n if n.starts_with("imageAtomic") => 2,
            "texelFetch" => 3,
            _ => return args,
        };
        let Some(Type::Opaque(name)) = sig.params.first().map(|p| &p.ty) else {
            return args;
        };
        let base = name
            .strip_prefix(['i', 'u'])
            .filter(|b| b.starts_with("image") || b.starts_with("sampler"))
            .unwrap_or(name);
        let image = args[0].clone();
        if has_side_effects(&image) || calls_user_function(&image, &self.model) {
            return args;
        }
        let size_of = |f: &str, extra: Vec<ast::Expr>| {
            let mut a = vec![image.clone()];
            a.extend(extra);
            call(f, a)
        };
        // (components, bound expression, whether a level argument follows).
        let (dims, bound, lod) = match base {
            "image1D" | "imageBuffer" => (1, size_of("imageSize", vec![]), false),
            "image2D" | "image2DRect" | "image1DArray" | "image2DMS" => {
                (2, size_of("imageSize", vec![]), false)
            }
            "image3D" | "image2DArray" | "image2DMSArray" => {
                (3, size_of("imageSize", vec![]), false)
            }
            // A cube's third coordinate is the face; a cube array's is
            // `layer * 6 + face`.
            "imageCube" => (
                3,
                call("ivec3", vec![size_of("imageSize", vec![]), build::int(6)]),
                false,
            ),
            "imageCubeArray" => (
                3,
                ExprData::Binary(
                    ast::BinaryOpData::Mult.into(),
                    Box::new(size_of("imageSize", vec![])),
                    Box::new(call(
                        "ivec3",
                        vec![build::int(1), build::int(1), build::int(6)],
                    )),
                )
                .into(),
                false,
            ),
            "samplerBuffer" => (1, size_of("textureSize", vec![]), false),
            "sampler2DRect" | "sampler2DMS" => (2, size_of("textureSize", vec![]), false),
            "sampler2DMSArray" => (3, size_of("textureSize", vec![]), false),
            "sampler1D" => (1, ast::Expr::from(ExprData::IntConst(0)), true),
            "sampler2D" | "sampler1DArray" => (2, ExprData::IntConst(0).into(), true),
            "sampler3D" | "sampler2DArray" => (3, ExprData::IntConst(0).into(), true),
            _ => return args,
        };
        let decl = match &image.content {
            ExprData::Variable(id) => self.model.lookup(id.as_str()),
            ExprData::Bracket(b, _) => match &b.content {
                ExprData::Variable(id) => self.model.lookup(id.as_str()),
                _ => None,
            },
            _ => None,
        }
        .and_then(|d| u32::try_from(d).ok())
        .filter(|&d| d < crate::layout::SANITIZE_IMAGE_NO_DECL)
        .unwrap_or(crate::layout::SANITIZE_IMAGE_NO_DECL);
        let tag = (op << crate::layout::SANITIZE_IMAGE_OP_SHIFT)
            | (dims << crate::layout::SANITIZE_IMAGE_DIMS_SHIFT)
            | (decl << crate::layout::SANITIZE_IMAGE_DECL_SHIFT);
        let p = uint(self.cur_step);
        let coord = args[1].clone();
        let checked = if lod {
            let Some(level) = args.get(2).cloned() else {
                return args;
            };
            if has_side_effects(&level) || calls_user_function(&level, &self.model) {
                return args;
            }
            let size = size_of("textureSize", vec![level.clone()]);
            if self.parsed.version.is_es() {
                if self.model.const_int(&level) != Some(0) {
                    return args;
                }
                call("_sdbg_ic", vec![p, coord, size, uint(tag)])
            } else {
                let levels = size_of("textureQueryLevels", vec![]);
                call("_sdbg_tc", vec![p, coord, level, levels, size, uint(tag)])
            }
        } else {
            call("_sdbg_ic", vec![p, coord, bound, uint(tag)])
        };
        args[1] = checked;
        args
    }

    /// Sanitizing for uninitialized reads, `decl` (a local without an
    /// initializer, an `out` parameter) gets a mask, cleared where it is
    /// declared (the statement returned).
    fn track_local(&mut self, decl: DeclId) -> Option<ast::Statement> {
        if !self.ulocal || matches!(self.model.decls[decl].ty, Type::Opaque(_) | Type::Error) {
            return None;
        }
        let k = self.locals.len();
        self.locals.insert(decl, k);
        let mask = self.rt.local_mask(k);
        Some(stmt(assign(&mask, ast::AssignmentOpData::Equal, uint(0))))
    }

    /// The tracked local at the root of `e` (a variable, field, component
    /// or element of one) and the selection made right below it (`None`:
    /// `e` is the variable).
    fn local_chain<'e>(&mut self, e: &'e ast::Expr) -> Option<(DeclId, Option<&'e ast::Expr>)> {
        let mut first = None;
        let mut at = e;
        loop {
            match &at.content {
                ExprData::Variable(id) => {
                    let d = self.model.lookup(id.as_str())?;
                    return self.locals.contains_key(&d).then_some((d, first));
                }
                ExprData::Dot(b, _) | ExprData::Bracket(b, _) => {
                    first = Some(at);
                    at = b;
                }
                _ => return None,
            }
        }
    }

    /// The mask bits of the part of `decl` that `first` selects (see
    /// [`Self::local_chain`]). A dynamic index is re-evaluated
    /// (`_sdbg_bit(i, n)`) if it has no side effects and `dynamic`; else
    /// the bits are `fallback`'s: `None` (a read: not checked) or every
    /// bit (a write: marks the whole variable).
    fn part_bits(
        &mut self,
        decl: DeclId,
        first: Option<&ast::Expr>,
        dynamic: bool,
        write: bool,
    ) -> Option<ast::Expr> {
        let ty = self.model.decls[decl].ty.clone();
        let n = part_count(&ty);
        let all = uint(full_mask(n));
        if n == 1 {
            return Some(uint(1));
        }
        let fallback = write.then_some(all.clone());
        let Some(sel) = first else {
            return Some(all);
        };
        match &sel.content {
            ExprData::Dot(_, f) => match &ty {
                Type::Struct(st) => st
                    .fields
                    .iter()
                    .position(|x| x.name == f.as_str())
                    .map(|i| uint(1 << i))
                    .or(fallback),
                Type::Vector(..) => swizzle_bits(f.as_str()).map(uint).or(fallback),
                _ => fallback,
            },
            ExprData::Bracket(_, i) => match self.model.const_int(i) {
                Some(k) if (0..i64::from(n)).contains(&k) => Some(uint(1 << k)),
                Some(_) => Some(uint(0)),
                None if dynamic && !has_side_effects(i) && !calls_user_function(i, &self.model) => {
                    Some(call("_sdbg_bit", vec![(**i).clone(), build::int(n as i32)]))
                }
                None => fallback,
            },
            _ => fallback,
        }
    }

    /// `_sdbg_mK |= bits;` for a write to `lhs` if a tracked local is at
    /// its root (`precise`: a dynamic index may be re-evaluated after the
    /// write).
    fn local_mark(&mut self, lhs: &ast::Expr, precise: bool) -> Option<ast::Statement> {
        if !self.ulocal {
            return None;
        }
        let (decl, first) = self.local_chain(lhs)?;
        let bits = self.part_bits(decl, first, precise, true)?;
        let mask = self.rt.local_mask(self.locals[&decl]);
        Some(stmt(assign(&mask, ast::AssignmentOpData::Or, bits)))
    }

    /// The check of a read of `e` (its part of a tracked local), as a
    /// statement before the one that reads (`+=`, `++`).
    fn local_check(&mut self, e: &ast::Expr) -> Option<ast::Statement> {
        if !self.ulocal {
            return None;
        }
        self.local_check_expr(e).map(stmt)
    }

    fn local_check_expr(&mut self, e: &ast::Expr) -> Option<ast::Expr> {
        let (decl, first) = self.local_chain(e)?;
        let need = self.part_bits(decl, first, true, false)?;
        let mask = self.rt.local_mask(self.locals[&decl]);
        Some(call(
            "_sdbg_lr",
            vec![uint(self.cur_step), uint(decl as u32), var(&mask), need],
        ))
    }

    /// A read of (a part of) a tracked local, rewritten and checked after
    /// it: `_sdbg_keep_T(e, _sdbg_lr(p, decl, mask, need))`; `Err(e)` when
    /// `e` is no such read (or its type cannot be passed through).
    fn local_read(&mut self, e: ast::Expr) -> Result<ast::Expr, ast::Expr> {
        if !matches!(
            e.content,
            ExprData::Variable(_) | ExprData::Dot(..) | ExprData::Bracket(..)
        ) {
            return Err(e);
        }
        let Some((decl, _)) = self.local_chain(&e) else {
            return Err(e);
        };
        if self.skip_root == Some(decl) {
            if matches!(e.content, ExprData::Variable(_)) {
                self.skip_root = None;
            }
            return Err(e);
        }
        let ty = self.model.expr_type(&e);
        if !self.loggable(&ty) {
            return Err(e);
        }
        let Some(check) = self.local_check_expr(&e) else {
            return Err(e);
        };
        let keep = self.rt.keep(&ty);
        let span = e.span;
        let outer = self.skip_root.replace(decl);
        let inner = self.expr_unchecked(e);
        self.skip_root = outer;
        Ok(ast::Expr::new(
            call(&keep, vec![inner, check]).content,
            span,
        ))
    }

    fn index_temp(&mut self, signed: bool) -> String {
        let site = self.san_sites;
        self.san_sites += 1;
        self.rt.index_temp(site, signed)
    }

    /// A read `a[i]` (both rewritten) under check `c`: out of bounds, the
    /// element type's zero value, with the access not performed.
    fn checked_read(&mut self, a: ast::Expr, i: ast::Expr, c: Check, part: bool) -> ast::Expr {
        let p = uint(self.cur_step);
        let model = &self.model;
        let named = |t: &Type| nameable(t, model);
        match c.bound {
            Bound::Const(n) => {
                let index = match c.shared {
                    Some(k) => {
                        let f = var(&Runtime::access_flags(false, part));
                        call(&format!("_sdbg_u{k}"), vec![p, i, f])
                    }
                    None => call("_sdbg_cl", vec![p, i, build::int(n as i32)]),
                };
                let access = build::bracket(a, index);
                match self.rt.pick(&c.elem, &named) {
                    Some(f) => call(&f, vec![access]),
                    None => access,
                }
            }
            Bound::Length(_) => match self.rt.zero(&c.elem, &named) {
                // `a` has no side effects (see `oob_check`): evaluating the
                // index first changes nothing.
                Some(z) => {
                    let t = self.index_temp(c.signed);
                    let chk = call(
                        "_sdbg_chk",
                        vec![build::boolean(true), p.clone(), i, c.bound.expr(), var(&t)],
                    );
                    // A storage array with a race shadow: the read is
                    // checked where it is made (in bounds).
                    let index = match c.shared {
                        Some(k) => {
                            let f = var(&Runtime::access_flags(false, part));
                            call(&format!("_sdbg_ui{k}"), vec![p, var(&t), f])
                        }
                        None => var(&t),
                    };
                    build::ternary(chk, build::bracket(a, index), call(&z, Vec::new()))
                }
                None => {
                    let index = match c.shared {
                        Some(k) => {
                            let f = var(&Runtime::access_flags(false, part));
                            call(&format!("_sdbg_u{k}"), vec![p, i, f])
                        }
                        None => call("_sdbg_cl", vec![p, i, c.bound.expr()]),
                    };
                    build::bracket(a, index)
                }
            },
        }
    }

    /// The bounds check the sanitizer emits for `base[idx]` (originals, in
    /// the scope where they are evaluated), if any.
    fn oob_check(&mut self, base: &ast::Expr, idx: &ast::Expr) -> Option<Check> {
        if !self.oob {
            return None;
        }
        let shared = match &base.content {
            ExprData::Variable(id) => self.shared_of(id).filter(|&k| self.shared[k].array),
            ExprData::Dot(b, f) => self.member_of(b, f).filter(|&k| self.shared[k].array),
            _ => None,
        };
        if !self.report_oob && shared.is_none() {
            return None;
        }
        let signed = match self.model.expr_type(idx) {
            Type::Scalar(crate::Scalar::Int) => true,
            Type::Scalar(crate::Scalar::Uint) => false,
            _ => return None,
        };
        let (bound, elem) = match self.model.expr_type(base) {
            Type::Array(e, Some(n)) => (Bound::Const(n), *e),
            Type::Array(e, None) if self.storage_chain(base) => (Bound::Length(base.clone()), *e),
            Type::Vector(s, n) => (Bound::Const(u32::from(n)), Type::Scalar(s)),
            Type::Matrix { scalar, cols, rows } => {
                (Bound::Const(u32::from(cols)), Type::Vector(scalar, rows))
            }
            _ => return None,
        };
        if let (Bound::Const(n), Some(k), None) = (&bound, self.model.const_int(idx), shared) {
            if (0..i64::from(*n)).contains(&k) {
                return None;
            }
        }
        Some(Check {
            bound,
            signed,
            elem,
            shared,
        })
    }

    /// Whether `e` names a part of a storage-buffer variable through fields
    /// and constant indices only (so `e.length()` reads nothing else).
    fn storage_chain(&mut self, e: &ast::Expr) -> bool {
        match &e.content {
            ExprData::Variable(id) => self.model.lookup(id.as_str()).is_some_and(|d| {
                matches!(self.model.decls[d].kind, DeclKind::Global(Storage::Buffer))
            }),
            ExprData::Dot(b, _) => self.storage_chain(b),
            ExprData::Bracket(b, i) => self.model.const_int(i).is_some() && self.storage_chain(b),
            _ => false,
        }
    }

    /// `keep(e, write(p, target))`: `e`'s value, with the target logged after `e`
    /// was evaluated (GLSL evaluates arguments left to right).
    fn wrap_write(
        &mut self,
        e: ast::Expr,
        value_ty: Type,
        t: Option<Target>,
        span: Span,
    ) -> ast::Expr {
        let Some(t) = t else { return e };
        let p = self.write_probe(t.decl, t.path, span, &t.ty);
        if !self.record || !self.loggable(&value_ty) {
            return e;
        }
        let w = self.rt.write(&t.ty);
        let k = self.rt.keep(&value_ty);
        let espan = e.span;
        ast::Expr::new(
            call(&k, vec![e, call(&w, vec![uint(p), t.expr])]).content,
            espan,
        )
    }

    /// The probe of a write to `decl` at `path`, logging its new value.
    fn write_probe(&mut self, decl: DeclId, path: Vec<PathElem>, span: Span, ty: &Type) -> ProbeId {
        self.probe(ProbeKind::Write { decl, path }, span, Some(ty.clone()))
    }

    /// Logs a write as a statement of its own.
    fn log_write(&mut self, t: Option<Target>, span: Span, out: &mut Vec<ast::Statement>) {
        let Some(t) = t else { return };
        let p = self.write_probe(t.decl, t.path, span, &t.ty);
        if self.record {
            let w = self.rt.write(&t.ty);
            out.push(stmt(call(&w, vec![uint(p), t.expr])));
        }
    }

    fn var_target(&self, d: DeclId) -> Option<Target> {
        let decl = &self.model.decls[d];
        self.loggable(&decl.ty).then(|| Target {
            decl: d,
            path: Vec::new(),
            expr: var(&decl.name),
            ty: decl.ty.clone(),
        })
    }

    /// What to log after a write to `lhs`: the longest part of it reachable
    /// through fields and constant indices (a swizzle or dynamic index logs the
    /// whole vector or array).
    fn write_target(&mut self, lhs: &ast::Expr) -> Option<Target> {
        let t = self.target_path(lhs)?;
        self.loggable(&t.ty).then_some(t)
    }

    fn target_path(&mut self, e: &ast::Expr) -> Option<Target> {
        match &e.content {
            ExprData::Variable(id) => {
                let d = self.model.lookup(id.as_str())?;
                let decl = &self.model.decls[d];
                let writable = match &decl.kind {
                    DeclKind::Global(Storage::Private | Storage::Out) => !decl.interface_block,
                    DeclKind::Global(_) => false,
                    DeclKind::Local | DeclKind::Param(_) => true,
                    DeclKind::Builtin(s) => {
                        matches!(s, builtins::Storage::Out | builtins::Storage::InOut)
                    }
                };
                writable.then(|| Target {
                    decl: d,
                    path: Vec::new(),
                    expr: var(id.as_str()),
                    ty: decl.ty.clone(),
                })
            }
            ExprData::Dot(base, f) => {
                let mut t = self.target_path(base)?;
                if let Type::Struct(s) = &t.ty {
                    let field = s.fields.iter().find(|x| x.name == f.as_str())?;
                    t.ty = field.ty.clone();
                    t.path.push(PathElem::Field(f.as_str().to_string()));
                    t.expr = build::field(t.expr, f.as_str());
                }
                Some(t)
            }
            ExprData::Bracket(base, idx) => {
                let mut t = self.target_path(base)?;
                if let Type::Array(elem, n) = &t.ty {
                    let k = self
                        .model
                        .const_int(idx)
                        .and_then(|k| u32::try_from(k).ok());
                    if let Some(k) = k.filter(|k| n.is_none_or(|n| *k < n)) {
                        t.ty = (**elem).clone();
                        t.path.push(PathElem::Index(k));
                        t.expr = build::index(t.expr, k);
                    }
                }
                Some(t)
            }
            _ => None,
        }
    }
}

/// glsl-lang prints a sequence `(a, b)` that is an initializer or a call
/// argument without its parentheses (`int i = j++, 0;` declares two
/// names; `f(a, b)` passes two arguments): piglit's `fs-do-while-scope`
/// did not compile instrumented in any mode. Each such sequence becomes
/// `true ? a, b : (a, b)`, which it prints as GLSL reads it (the middle
/// operand of `?:` is a whole expression; the last one, never evaluated,
/// gets its parentheses).
fn parenthesize_commas(ext: &mut ast::ExternalDeclaration) {
    use glsl_lang::visitor::{HostMut, Visit, VisitorMut};
    fn wrap(e: &mut ast::Expr) {
        if matches!(e.content, ExprData::Comma(..)) {
            let span = e.span;
            let c = std::mem::replace(e, ExprData::BoolConst(true).into());
            *e = ast::Expr::new(
                ExprData::Ternary(
                    Box::new(ExprData::BoolConst(true).into()),
                    Box::new(c.clone()),
                    Box::new(c),
                ),
                span,
            );
        }
    }
    struct Commas;
    impl VisitorMut for Commas {
        fn visit_initializer(&mut self, i: &mut ast::Initializer) -> Visit {
            if let ast::InitializerData::Simple(e) = &mut i.content {
                wrap(e);
            }
            Visit::Children
        }
        fn visit_expr(&mut self, e: &mut ast::Expr) -> Visit {
            if let ExprData::FunCall(_, args) = &mut e.content {
                args.iter_mut().for_each(wrap);
            }
            Visit::Children
        }
    }
    ext.visit_mut(&mut Commas);
}

/// `lhs op rhs` for a generated variable.
fn assign(lhs: &str, op: ast::AssignmentOpData, rhs: ast::Expr) -> ast::Expr {
    ExprData::Assignment(Box::new(var(lhs)), op.into(), Box::new(rhs)).into()
}

/// The parts an uninitialized local's mask tracks: components of a
/// vector, columns of a matrix, elements of an array and fields of a
/// struct of at most 32 (a write to any part of one marks it); else one
/// bit for the whole variable (any write marks it: that can only hide a
/// report).
fn part_count(ty: &Type) -> u32 {
    match ty {
        Type::Vector(_, n) => u32::from(*n),
        Type::Matrix { cols, .. } => u32::from(*cols),
        Type::Array(_, Some(n)) if (1..=32).contains(n) => *n,
        Type::Struct(st) if (1..=32).contains(&st.fields.len()) => st.fields.len() as u32,
        _ => 1,
    }
}

fn full_mask(n: u32) -> u32 {
    if n >= 32 {
        u32::MAX
    } else {
        (1 << n) - 1
    }
}

/// The components a swizzle names, as mask bits.
fn swizzle_bits(s: &str) -> Option<u32> {
    s.chars().try_fold(0, |bits, c| {
        let i = ["xrs", "ygt", "zbp", "waq"]
            .iter()
            .position(|set| set.contains(c))?;
        Some(bits | 1 << i)
    })
}

/// Whether generated code at global scope can name `ty` (anonymous and
/// function-local structs cannot be named there).
fn nameable(ty: &Type, m: &Model) -> bool {
    match ty {
        Type::Struct(s) => {
            !s.name.starts_with("_anon")
                && !m.local_structs.contains(&s.name)
                && !is_block(&s.name, m)
                && s.fields.iter().all(|f| nameable(&f.ty, m))
        }
        Type::Array(e, _) => nameable(e, m),
        _ => true,
    }
}

/// Whether a temporary of type `ty` can be declared: known, a value, and
/// not runtime-sized.
fn sized(ty: &Type) -> bool {
    match ty {
        Type::Error | Type::Void | Type::Array(_, None) => false,
        Type::Opaque(name) => crate::types::is_sized_arithmetic(name),
        Type::Array(e, _) => sized(e),
        _ => true,
    }
}

/// Whether `name` names an interface block (an element of an array of
/// blocks is typed as a struct of the block's name, but a block name is not
/// a type: no value of it can be written, so none is picked or zeroed).
fn is_block(name: &str, m: &Model) -> bool {
    m.decls.iter().any(|d| {
        let mut ty = &d.ty;
        while let Type::Array(e, _) = ty {
            ty = e;
        }
        d.interface_block && matches!(ty, Type::Struct(s) if s.name == name)
    })
}

fn is_inc_dec(op: &ast::UnaryOp) -> bool {
    matches!(op.content, ast::UnaryOpData::Inc | ast::UnaryOpData::Dec)
}

/// The variable at the root of a place (`a.b[i].c`: `a`).
fn root_of(e: &ast::Expr) -> Option<&str> {
    match &e.content {
        ExprData::Variable(id) => Some(id.as_str()),
        ExprData::Dot(b, _) | ExprData::Bracket(b, _) => root_of(b),
        _ => None,
    }
}

/// Whether a call is of an atomic function on memory (`atomicAdd`, ...;
/// not the atomic counter functions, which take no shared variable).
fn is_atomic(callee: &Callee) -> bool {
    matches!(callee, Callee::Builtin(sig) if sig.name.starts_with("atomic")
        && !sig.name.starts_with("atomicCounter"))
}

/// Indices of the arguments passed to `out`/`inout` parameters.
fn out_params(model: &Model, callee: &Callee, args: &[ast::Expr]) -> Vec<usize> {
    let dirs: Vec<ParamDir> = match callee {
        Callee::User(f) => model.functions[*f].params.iter().map(|p| p.dir).collect(),
        Callee::Builtin(sig) => sig.params.iter().map(|p| p.dir).collect(),
        _ => return Vec::new(),
    };
    dirs.iter()
        .enumerate()
        .filter(|(i, d)| **d != ParamDir::In && *i < args.len())
        .map(|(i, _)| i)
        .collect()
}

/// Whether evaluating `e` may write a variable: assignments, `++`/`--`,
/// calls of the shader's functions (globals), built-ins with `out`
/// parameters.
fn may_write(e: &ast::Expr, model: &Model) -> bool {
    const OUT_BUILTINS: &[&str] = &[
        "modf",
        "frexp",
        "uaddCarry",
        "usubBorrow",
        "umulExtended",
        "imulExtended",
    ];
    fn out_builtin(e: &ast::Expr) -> bool {
        match &e.content {
            ExprData::FunCall(f, args) => {
                fun_name(f).is_some_and(|n| OUT_BUILTINS.contains(&n))
                    || args.iter().any(out_builtin)
            }
            ExprData::Unary(_, a)
            | ExprData::Dot(a, _)
            | ExprData::PostInc(a)
            | ExprData::PostDec(a) => out_builtin(a),
            ExprData::Binary(_, a, b)
            | ExprData::Comma(a, b)
            | ExprData::Bracket(a, b)
            | ExprData::Assignment(a, _, b) => out_builtin(a) || out_builtin(b),
            ExprData::Ternary(a, b, c) => out_builtin(a) || out_builtin(b) || out_builtin(c),
            _ => false,
        }
    }
    has_side_effects(e) || calls_user_function(e, model) || out_builtin(e)
}

/// Whether evaluating `e` could change state (assignments, `++`, user calls).
fn has_side_effects(e: &ast::Expr) -> bool {
    match &e.content {
        ExprData::Assignment(..) | ExprData::PostInc(_) | ExprData::PostDec(_) => true,
        ExprData::Unary(op, a) => is_inc_dec(op) || has_side_effects(a),
        ExprData::Binary(_, a, b) | ExprData::Comma(a, b) | ExprData::Bracket(a, b) => {
            has_side_effects(a) || has_side_effects(b)
        }
        ExprData::Ternary(a, b, c) => {
            has_side_effects(a) || has_side_effects(b) || has_side_effects(c)
        }
        ExprData::Dot(a, _) => has_side_effects(a),
        ExprData::FunCall(_, args) => args.iter().any(has_side_effects),
        _ => false,
    }
}

/// Whether `e` calls a function (not a constructor) or writes.
fn calls(e: &ast::Expr) -> bool {
    match &e.content {
        ExprData::FunCall(f, args) => fun_name(f).is_some() || args.iter().any(calls),
        ExprData::Assignment(..) | ExprData::PostInc(_) | ExprData::PostDec(_) => true,
        ExprData::Unary(op, a) => is_inc_dec(op) || calls(a),
        ExprData::Dot(a, _) => calls(a),
        ExprData::Binary(_, a, b) | ExprData::Comma(a, b) | ExprData::Bracket(a, b) => {
            calls(a) || calls(b)
        }
        ExprData::Ternary(a, b, c) => calls(a) || calls(b) || calls(c),
        _ => false,
    }
}

/// The name a call names, when it is a plain name (not a constructor).
fn fun_name(f: &ast::FunIdentifier) -> Option<&str> {
    match &f.content {
        ast::FunIdentifierData::Expr(fe) => match &fe.content {
            ExprData::Variable(n) => Some(n.as_str()),
            _ => None,
        },
        ast::FunIdentifierData::TypeSpecifier(_) => None,
    }
}

/// Whether `e` calls a function of the shader (which could write globals).
fn calls_user_function(e: &ast::Expr, model: &Model) -> bool {
    match &e.content {
        ExprData::FunCall(f, args) => {
            let user = match &f.content {
                ast::FunIdentifierData::Expr(fe) => {
                    matches!(&fe.content, ExprData::Variable(n) if model.functions.iter().any(|f| f.name == n.as_str()))
                }
                ast::FunIdentifierData::TypeSpecifier(_) => false,
            };
            user || args.iter().any(|a| calls_user_function(a, model))
        }
        ExprData::Unary(_, a)
        | ExprData::Dot(a, _)
        | ExprData::PostInc(a)
        | ExprData::PostDec(a) => calls_user_function(a, model),
        ExprData::Binary(_, a, b)
        | ExprData::Comma(a, b)
        | ExprData::Bracket(a, b)
        | ExprData::Assignment(a, _, b) => {
            calls_user_function(a, model) || calls_user_function(b, model)
        }
        ExprData::Ternary(a, b, c) => {
            calls_user_function(a, model)
                || calls_user_function(b, model)
                || calls_user_function(c, model)
        }
        _ => false,
    }
}

/// The storage-buffer variables the race check leaves alone, by name:
/// members of `readonly` blocks and `readonly` members, and those the
/// shader never writes (nothing writes them in a dispatch or draw of it,
/// so nothing races on them: see [`written_roots`]), and arrays of
/// blocks (not modelled).
fn untracked_storage(parsed: &Parsed) -> std::collections::HashSet<String> {
    use ast::{StorageQualifierData as S, TypeQualifierSpecData as Q};
    let has = |q: Option<&ast::TypeQualifier>, want: S| {
        q.is_some_and(|q| {
            q.qualifiers
                .iter()
                .any(|x| matches!(&x.content, Q::Storage(s) if s.content == want))
        })
    };
    let written = written_roots(parsed);
    let mut out = std::collections::HashSet::new();
    for ext in &parsed.tu.0 {
        let ast::ExternalDeclarationData::Declaration(d) = &ext.content else {
            continue;
        };
        let ast::DeclarationData::Block(b) = &d.content else {
            continue;
        };
        if !has(Some(&b.qualifier), S::Buffer) {
            continue;
        }
        let readonly = has(Some(&b.qualifier), S::ReadOnly);
        match &b.identifier {
            Some(inst)
                if inst.array_spec.is_some()
                    || readonly
                    || !written.contains(inst.ident.as_str()) =>
            {
                out.insert(inst.ident.as_str().to_string());
            }
            Some(_) => {}
            None => {
                for f in &b.fields {
                    let skip = readonly || has(f.qualifier.as_ref(), S::ReadOnly);
                    out.extend(
                        f.identifiers
                            .iter()
                            .map(|i| i.ident.as_str())
                            .filter(|n| skip || !written.contains(*n))
                            .map(str::to_string),
                    );
                }
            }
        }
    }
    out
}

/// The names at the root of every place the shader may write, wherever
/// they are declared (a local of the same name counts too: that can only
/// keep a shadow): assignment targets, `++`/`--` operands, and every
/// argument of a function call (an `out` parameter, an atomic function's
/// memory), constructors aside.
fn written_roots(parsed: &Parsed) -> std::collections::HashSet<String> {
    use glsl_lang::visitor::{Host, Visit, Visitor};
    struct Roots(std::collections::HashSet<String>);
    impl Roots {
        fn add(&mut self, e: &ast::Expr) {
            if let Some(n) = root_of(e) {
                self.0.insert(n.to_string());
            }
        }
    }
    impl Visitor for Roots {
        fn visit_expr(&mut self, e: &ast::Expr) -> Visit {
            match &e.content {
                ExprData::Assignment(lhs, _, _) => self.add(lhs),
                ExprData::PostInc(a) | ExprData::PostDec(a) => self.add(a),
                ExprData::Unary(op, a) if is_inc_dec(op) => self.add(a),
                ExprData::FunCall(f, args)
                    if !matches!(f.content, ast::FunIdentifierData::TypeSpecifier(_)) =>
                {
                    for a in args {
                        self.add(a);
                    }
                }
                _ => {}
            }
            Visit::Children
        }
    }
    let mut roots = Roots(std::collections::HashSet::new());
    parsed.tu.visit(&mut roots);
    roots.0
}
