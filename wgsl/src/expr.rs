//! User expressions (breakpoint conditions, watches) in the scope of a step.
//!
//! naga's WGSL front end does the parsing and type checking: the module's
//! own source is parsed again with one function appended,
//!
//! ```wgsl
//! fn _sdbg_user_expr(x: f32, p: vec2<f32>) {
//! let _sdbg_v =
//! <expression>
//! ;
//! }
//! ```
//!
//! whose parameters are the variables in scope at the step that the text
//! names (by value: locals are loaded, `let`s and arguments passed). Module
//! scope (constants, globals, structs, user types) is there because the
//! module is. The expression's value type comes from naga's validator; the
//! function gets it as its result, is moved into the instrumented module
//! (types imported, constants and globals matched by name) and is called at
//! the step with the values. Chosen over a parser of our own: WGSL's whole
//! expression grammar, abstract numerics, conversions and built-ins are
//! naga's already, and errors come with naga's spans (mapped to the
//! expression's column). Anything that is not a pure expression is refused
//! (the shader's results must not change). A watch may call the shader's
//! functions that are pure themselves (they write only their own locals,
//! do not discard, synchronise or use atomics; [`pure_function`]): the
//! calls go to the instrumented module's copies ([`Calls::To`]). A
//! breakpoint condition may not (the called function's breakpoints would
//! count hits from evaluating the condition).

use std::collections::HashMap;

use naga::common::wgsl::TypeContext;
use naga::{
    Expression, Function, FunctionResult, GlobalVariable, Handle, Module, Span, Statement, Type,
    TypeInner, UniqueArena,
};

use crate::parse::{error_chain, validator};

const FUNCTION: &str = "_sdbg_user_expr";
const VALUE: &str = "_sdbg_v";

/// Why a user expression (breakpoint condition, watch) cannot be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ExprError {
    /// It does not parse, or does not type-check in the scope of its step;
    /// `column` is 1-based, in characters of the expression.
    #[error("column {column}: {message}")]
    Invalid { column: u32, message: String },
    #[error("must be an expression without side effects (no calls of the shader's functions, no atomics)")]
    SideEffects,
    #[error("calls `{0}`, which has side effects (it writes memory other than its locals, discards, synchronises or uses atomics)")]
    ImpureCall(String),
    /// A watch that calls a function containing its own line (WGSL has no
    /// recursion).
    #[error("calls a function that contains the line it is evaluated at")]
    Recursive,
    #[error("must be a bool, not {0}")]
    NotBool(String),
    #[error("values of type {0} cannot be captured")]
    NotLoggable(String),
    #[error("`{0}` is a resource this entry point does not use")]
    UnusedGlobal(String),
}

/// What a user expression may call of the shader's functions.
#[derive(Clone, Copy)]
pub(crate) enum Calls<'a> {
    /// Nothing (breakpoint conditions).
    Refused,
    /// Its pure functions: the instrumented module's handle of each of the
    /// module's functions, by index.
    To(&'a [Handle<Function>]),
}

/// A compiled user expression: a function of the values of `params` (their
/// positions in the parameter list the caller gave) returning `ty`.
pub(crate) struct Compiled {
    pub function: Function,
    pub ty: Handle<Type>,
    /// Indices into the caller's candidate list, in argument order.
    pub params: Vec<usize>,
}

/// Identifiers the text mentions (to pass only the variables it names).
pub(crate) fn identifiers(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in text
        .char_indices()
        .chain(std::iter::once((text.len(), ' ')))
    {
        let ident = c.is_alphanumeric() || c == '_';
        match (start, ident) {
            (None, true) => start = Some(i),
            (Some(s), false) => {
                let word = &text[s..i];
                if !word.starts_with(|c: char| c.is_ascii_digit()) {
                    out.push(word);
                }
                start = None;
            }
            _ => {}
        }
    }
    out
}

/// The column (1-based, characters) of byte `offset` of the wrapper, where
/// the expression starts at byte `start`.
pub(crate) fn column(text: &str, start: usize, offset: usize) -> u32 {
    let rel = offset.saturating_sub(start).min(text.len());
    let rel = (0..=rel)
        .rev()
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(0);
    text[..rel].chars().count() as u32 + 1
}

/// Compiles `text` in the scope given by `candidates` (name and value type
/// in `types`, innermost last) against the module parsed from `source`.
/// `used` says whether the entry point uses a global.
pub(crate) fn compile(
    source: &str,
    module: &Module,
    types: &mut UniqueArena<Type>,
    used: &dyn Fn(Handle<GlobalVariable>) -> bool,
    candidates: &[(String, Handle<Type>)],
    text: &str,
    calls: Calls,
) -> Result<Compiled, ExprError> {
    if let Some(i) = text.find([';', '{', '}']) {
        return Err(ExprError::Invalid {
            column: column(text, 0, i),
            message: format!("`{}` cannot be part of an expression", &text[i..i + 1]),
        });
    }
    let named = identifiers(text);
    // The innermost declaration of each name the text mentions.
    let mut params: Vec<usize> = Vec::new();
    for (i, (name, _)) in candidates.iter().enumerate().rev() {
        if named.contains(&name.as_str()) && !params.iter().any(|&j| candidates[j].0 == *name) {
            params.push(i);
        }
    }
    params.sort_unstable();
    let list: Vec<String> = params
        .iter()
        .map(|&i| {
            let (name, ty) = &candidates[i];
            format!("{name}: {}", types.type_to_string(*ty))
        })
        .collect();
    let mut wrapper = source.to_string();
    if !wrapper.ends_with('\n') {
        wrapper.push('\n');
    }
    wrapper.push_str(&format!(
        "fn {FUNCTION}({}) {{\nlet {VALUE} =\n",
        list.join(", ")
    ));
    let start = wrapper.len();
    wrapper.push_str(text);
    wrapper.push_str("\n;\n}\n");
    let invalid = |offset: usize, message: String| ExprError::Invalid {
        column: column(text, start, offset),
        message,
    };
    let parsed = naga::front::wgsl::parse_str(&wrapper).map_err(|e| {
        let offset = e.location(&wrapper).map_or(start, |l| l.offset as usize);
        invalid(offset, e.message().to_string())
    })?;
    let info = validator().validate(&parsed).map_err(|e| {
        let offset = e
            .spans()
            .map(|(s, _)| *s)
            .filter(Span::is_defined)
            .filter_map(|s| s.to_range())
            .map(|r| r.start)
            .filter(|&o| o >= start)
            .last()
            .unwrap_or(start);
        invalid(offset, error_chain(e.as_inner()))
    })?;
    let (fh, f) = parsed
        .functions
        .iter()
        .find(|(_, f)| f.name.as_deref() == Some(FUNCTION))
        .ok_or_else(|| invalid(start, "not an expression".to_string()))?;
    check_pure(&parsed, &f.body, f, calls)?;
    // The resources the called functions read must be bound for this entry point.
    let mut called = Vec::new();
    calls_in(&parsed, &f.body, &mut called);
    for h in &called {
        for (_, e) in parsed.functions[*h].expressions.iter() {
            if let Expression::GlobalVariable(g) = e {
                let name = &parsed.global_variables[*g].name;
                if !by_name(&module.global_variables, name, |k| &k.name).is_some_and(used) {
                    return Err(ExprError::UnusedGlobal(name.clone().unwrap_or_default()));
                }
            }
        }
    }
    // A function of the wrapper is the module's of the same name.
    let callee = |h: Handle<Function>| -> Result<Handle<Function>, ExprError> {
        let Calls::To(map) = calls else {
            return Err(ExprError::SideEffects);
        };
        let name = &parsed.functions[h].name;
        by_name(&module.functions, name, |k| &k.name)
            .and_then(|o| map.get(o.index()).copied())
            .ok_or_else(|| invalid(start, format!("function {name:?} not found")))
    };
    let value = f
        .named_expressions
        .iter()
        .find(|(_, n)| n.as_str() == VALUE)
        .map(|(h, _)| *h)
        .ok_or_else(|| invalid(start, "not an expression".to_string()))?;
    let mut im = Importer {
        from: &parsed.types,
        to: types,
        memo: HashMap::new(),
    };
    let ty = match &info[fh][value].ty {
        naga::proc::TypeResolution::Handle(h) => im.ty(*h),
        naga::proc::TypeResolution::Value(inner) => {
            let inner = im.inner(inner);
            im.to.insert(Type { name: None, inner }, Span::UNDEFINED)
        }
    };
    let mut new = f.clone();
    new.name = Some(FUNCTION.to_string());
    for a in &mut new.arguments {
        a.ty = im.ty(a.ty);
        // Output names are the shader's: its variables keep theirs.
        a.name = a.name.as_ref().map(|n| format!("_sdbg_{n}"));
    }
    for (_, l) in new.local_variables.iter_mut() {
        l.ty = im.ty(l.ty);
    }
    for (_, e) in new.expressions.iter_mut() {
        match e {
            Expression::Constant(c) => {
                let name = &parsed.constants[*c].name;
                *c = by_name(&module.constants, name, |k| &k.name)
                    .ok_or_else(|| invalid(start, format!("constant {name:?} not found")))?;
            }
            Expression::Override(o) => {
                let name = &parsed.overrides[*o].name;
                *o = by_name(&module.overrides, name, |k| &k.name)
                    .ok_or_else(|| invalid(start, format!("override {name:?} not found")))?;
            }
            Expression::GlobalVariable(g) => {
                let name = parsed.global_variables[*g].name.clone();
                let h = by_name(&module.global_variables, &name, |k| &k.name)
                    .ok_or_else(|| invalid(start, format!("global {name:?} not found")))?;
                if !used(h) {
                    return Err(ExprError::UnusedGlobal(name.unwrap_or_default()));
                }
                *g = h;
            }
            Expression::ZeroValue(t) | Expression::Compose { ty: t, .. } => *t = im.ty(*t),
            Expression::CallResult(h) => *h = callee(*h)?,
            Expression::AtomicResult { .. }
            | Expression::WorkGroupUniformLoadResult { .. }
            | Expression::SubgroupOperationResult { .. } => return Err(ExprError::SideEffects),
            _ => {}
        }
    }
    let mut body = naga::Block::new();
    for (s, sp) in f.body.span_iter() {
        if !matches!(s, Statement::Return { .. }) {
            body.push(s.clone(), *sp);
        }
    }
    remap_calls(&mut body, &callee)?;
    body.push(Statement::Return { value: Some(value) }, Span::UNDEFINED);
    new.body = body;
    new.result = Some(FunctionResult { ty, binding: None });
    new.named_expressions.clear();
    Ok(Compiled {
        function: new,
        ty,
        params,
    })
}

/// That the expression's block only evaluates (naga lowers `&&` and `||`
/// to an `if` storing into a local of the function) and calls only pure
/// functions, where `calls` allows calls.
fn check_pure(
    module: &Module,
    b: &naga::Block,
    f: &Function,
    calls: Calls,
) -> Result<(), ExprError> {
    for s in b.iter() {
        match s {
            Statement::Emit(_) | Statement::Return { value: None } => {}
            Statement::Block(b) => check_pure(module, b, f, calls)?,
            Statement::If { accept, reject, .. } => {
                check_pure(module, accept, f, calls)?;
                check_pure(module, reject, f, calls)?;
            }
            Statement::Store { pointer, .. }
                if matches!(f.expressions[*pointer], Expression::LocalVariable(_)) => {}
            Statement::Call { function, .. } if matches!(calls, Calls::To(_)) => {
                if !pure_function(module, *function, 0) {
                    let name = module.functions[*function].name.clone();
                    return Err(ExprError::ImpureCall(name.unwrap_or_default()));
                }
            }
            _ => return Err(ExprError::SideEffects),
        }
    }
    Ok(())
}

/// Whether calling `h` changes nothing but the caller's function memory it
/// is given pointers to: it writes only function memory, does not
/// discard, synchronise, use atomics or subgroup operations (whose results
/// depend on where they are called), and calls only such functions.
pub(crate) fn pure_function(module: &Module, h: Handle<Function>, depth: u32) -> bool {
    let f = &module.functions[h];
    // Function memory: a local, or what a `ptr<function>` argument points to.
    let local = |mut e: Handle<Expression>| loop {
        match f.expressions[e] {
            Expression::LocalVariable(_) => return true,
            Expression::FunctionArgument(i) => {
                return f.arguments.get(i as usize).is_some_and(|a| {
                    matches!(
                        module.types[a.ty].inner,
                        TypeInner::Pointer {
                            space: naga::AddressSpace::Function,
                            ..
                        }
                    )
                })
            }
            Expression::Access { base, .. } | Expression::AccessIndex { base, .. } => e = base,
            _ => return false,
        }
    };
    fn block(b: &naga::Block, ok: &mut dyn FnMut(&Statement) -> bool) -> bool {
        b.iter().all(|s| {
            ok(s)
                && match s {
                    Statement::Block(b) => block(b, ok),
                    Statement::If { accept, reject, .. } => block(accept, ok) && block(reject, ok),
                    Statement::Switch { cases, .. } => cases.iter().all(|c| block(&c.body, ok)),
                    Statement::Loop {
                        body, continuing, ..
                    } => block(body, ok) && block(continuing, ok),
                    _ => true,
                }
        })
    }
    // WGSL has no recursion: the call graph is at most as deep as the module is long.
    depth <= module.functions.len() as u32
        && block(&f.body, &mut |s| match s {
            Statement::Emit(_)
            | Statement::Block(_)
            | Statement::If { .. }
            | Statement::Switch { .. }
            | Statement::Loop { .. }
            | Statement::Break
            | Statement::Continue
            | Statement::Return { .. } => true,
            Statement::Store { pointer, .. } => local(*pointer),
            Statement::Call { function, .. } => pure_function(module, *function, depth + 1),
            _ => false,
        })
}

/// Every function `b` calls, directly or not, once each.
fn calls_in(module: &Module, b: &naga::Block, out: &mut Vec<Handle<Function>>) {
    for s in b.iter() {
        match s {
            Statement::Call { function, .. } if !out.contains(function) => {
                out.push(*function);
                calls_in(module, &module.functions[*function].body, out);
            }
            Statement::Block(b) => calls_in(module, b, out),
            Statement::If { accept, reject, .. } => {
                calls_in(module, accept, out);
                calls_in(module, reject, out);
            }
            Statement::Switch { cases, .. } => {
                for c in cases {
                    calls_in(module, &c.body, out);
                }
            }
            Statement::Loop {
                body, continuing, ..
            } => {
                calls_in(module, body, out);
                calls_in(module, continuing, out);
            }
            _ => {}
        }
    }
}

/// Points the calls of `b` at `callee`'s handles.
fn remap_calls(
    b: &mut naga::Block,
    callee: &dyn Fn(Handle<Function>) -> Result<Handle<Function>, ExprError>,
) -> Result<(), ExprError> {
    for (s, _) in b.span_iter_mut() {
        match s {
            Statement::Call { function, .. } => *function = callee(*function)?,
            Statement::Block(b) => remap_calls(b, callee)?,
            Statement::If { accept, reject, .. } => {
                remap_calls(accept, callee)?;
                remap_calls(reject, callee)?;
            }
            _ => {}
        }
    }
    Ok(())
}

/// Copies types of another arena (the re-parsed module's) into ours.
struct Importer<'a> {
    from: &'a UniqueArena<Type>,
    to: &'a mut UniqueArena<Type>,
    memo: HashMap<Handle<Type>, Handle<Type>>,
}

impl Importer<'_> {
    fn ty(&mut self, h: Handle<Type>) -> Handle<Type> {
        if let Some(&t) = self.memo.get(&h) {
            return t;
        }
        let inner = self.inner(&self.from[h].inner.clone());
        let t = self.to.insert(
            Type {
                name: self.from[h].name.clone(),
                inner,
            },
            Span::UNDEFINED,
        );
        self.memo.insert(h, t);
        t
    }

    fn inner(&mut self, inner: &TypeInner) -> TypeInner {
        let mut inner = inner.clone();
        match &mut inner {
            TypeInner::Pointer { base, .. }
            | TypeInner::Array { base, .. }
            | TypeInner::BindingArray { base, .. } => *base = self.ty(*base),
            TypeInner::Struct { members, .. } => {
                for m in members {
                    m.ty = self.ty(m.ty);
                }
            }
            _ => {}
        }
        inner
    }
}

/// The item of `arena` named `name` (nothing matches no name).
fn by_name<T>(
    arena: &naga::Arena<T>,
    name: &Option<String>,
    name_of: impl Fn(&T) -> &Option<String>,
) -> Option<naga::Handle<T>> {
    let name = name.as_ref()?;
    arena
        .iter()
        .find(|(_, k)| name_of(k).as_ref() == Some(name))
        .map(|(h, _)| h)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_skip_numbers() {
        assert_eq!(identifiers("p.x > 2.0 && n_1 == 3u"), ["p", "x", "n_1"]);
    }
}
