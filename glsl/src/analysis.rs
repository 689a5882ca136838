//! The semantic model: scopes, declarations, every identifier resolved, the type
//! of every expression, user functions and structs, diagnostics with spans.
//!
//! [`Model`] is a scope-tracking walker rather than a side table keyed by node:
//! macro expansion can give several nodes the same span, so instrumentation walks
//! the tree itself and asks the model about names and types at the point it is at.

use std::collections::HashMap;
use std::sync::Arc;

use glsl_lang::ast::{self, ExprData, StatementData};

use crate::builtins::{self, BuiltinEnv, ExtSet, NameMap, ParamDir};
use crate::diagnostics::{Diagnostic, DiagnosticKind, Span};
use crate::parse::Parsed;
use crate::shader::Profile;
use crate::types::{
    self, parse_type_name, Field, GlslScalar, GlslType, Scalar, StructType, Type, BOOL, INT,
};

/// Storage of a global or block member (and, as `builtins::Storage`, of a
/// built-in variable): the debug core's.
pub use shaderdbg_core::probes::Storage;
use shaderdbg_core::probes::VarKind;
pub use shaderdbg_core::probes::{DeclId, FunctionId};

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DeclKind {
    Global(Storage),
    Local,
    Param(ParamDir),
    /// A built-in variable (`gl_FragCoord`, `gl_FragColor`, ...).
    Builtin(builtins::Storage),
}

/// A declared variable.
#[derive(Clone, Debug)]
pub struct Decl {
    pub name: String,
    pub ty: Type,
    pub kind: DeclKind,
    pub span: Span,
    /// The function whose body (or parameter list) declares it.
    pub function: Option<FunctionId>,
    /// Value of a `const` scalar integer, for array sizes.
    pub const_int: Option<i64>,
    /// The instance name of an interface block (not a value that can be copied).
    pub interface_block: bool,
}

impl DeclKind {
    /// The debug core's kind of variable.
    pub fn var_kind(&self) -> VarKind {
        match *self {
            DeclKind::Global(s) => VarKind::Global(s),
            DeclKind::Local => VarKind::Local,
            DeclKind::Param(_) => VarKind::Param,
            DeclKind::Builtin(s) => VarKind::Builtin(s),
        }
    }
}

impl Decl {
    pub fn is_global(&self) -> bool {
        matches!(self.kind, DeclKind::Global(_) | DeclKind::Builtin(_))
    }
}

#[derive(Clone, Debug)]
pub struct FunctionParam {
    pub name: String,
    pub ty: Type,
    pub dir: ParamDir,
}

/// A user function (one overload).
#[derive(Clone, Debug)]
pub struct Function {
    pub name: String,
    pub ret: Type,
    pub params: Vec<FunctionParam>,
    pub span: Span,
    pub defined: bool,
}

impl Function {
    pub fn signature(&self) -> String {
        let params: Vec<String> = self
            .params
            .iter()
            .map(|p| {
                let dir = match p.dir {
                    ParamDir::In => "",
                    ParamDir::Out => "out ",
                    ParamDir::InOut => "inout ",
                };
                format!("{dir}{} {}", p.ty, p.name)
            })
            .collect();
        format!("{} {}({})", self.ret, self.name, params.join(", "))
    }
}

/// What a function call resolved to.
#[derive(Clone, Debug, PartialEq)]
pub enum Callee {
    User(FunctionId),
    Builtin(&'static builtins::Signature),
    Constructor(Type),
    /// `array.length()`.
    Length,
    Unknown,
}

/// A `.field` selection on a value of struct type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldRef {
    /// The field name's span.
    pub span: Span,
    /// The struct's (or interface block's) type name.
    pub owner: String,
    pub field: String,
}

/// A set of declarations (hashed as [`NameMap`]'s keys are).
type IdSet = std::collections::HashSet<DeclId, std::hash::BuildHasherDefault<builtins::NameHasher>>;

/// The semantic model of one shader, built by walking it.
pub struct Model {
    pub env: BuiltinEnv,
    pub decls: Vec<Decl>,
    pub functions: Vec<Function>,
    pub structs: HashMap<String, Arc<StructType>>,
    /// Structs declared inside a function body.
    pub local_structs: std::collections::HashSet<String>,
    /// The blocks of GL_EXT_buffer_reference by name: their members once
    /// defined (`None` while only forward-declared). A value of one is a
    /// reference, [`Type::Opaque`] by the block's name, through which the
    /// members read.
    pub buffer_references: HashMap<String, Option<Arc<StructType>>>,
    /// The members read through a buffer reference, by their name's span:
    /// writable whatever holds the reference.
    reference_members: std::collections::HashSet<Span>,
    pub diagnostics: Vec<Diagnostic>,
    /// Every identifier use with the declaration it resolved to.
    pub references: Vec<(Span, DeclId)>,
    /// Every `.field` selection on a struct (or named interface block) value:
    /// the field name's span, the struct's name and the field's name. The
    /// base may be any expression (an array element, a call's result, ...).
    pub field_references: Vec<FieldRef>,
    functions_by_name: NameMap<Vec<FunctionId>>,
    builtin_decls: NameMap<DeclId>,
    scopes: Vec<NameMap<DeclId>>,
    current_function: Option<FunctionId>,
    /// The extensions the shader enables (`#extension`), with what they imply.
    pub extensions: ExtSet,
    /// Built-in variables found only through [`Model::legacy_env`] (warned
    /// about at their first use).
    deprecated: IdSet,
    /// Variables declared `const` (globals and locals).
    const_decls: IdSet,
    /// Inputs (true) and outputs with an explicit location: the variables
    /// there, with their component range, scalar type and qualifiers.
    #[allow(clippy::type_complexity)]
    locations: HashMap<(bool, i64, i64), Vec<(String, (i64, i64), Scalar, Vec<String>)>>,
    /// Types given a default precision by a `precision` statement so far.
    default_precisions: std::collections::HashSet<String>,
    /// Whether a compute shader has declared its work group size so far.
    work_group_size_declared: bool,
    /// The name and argument types of the call being resolved.
    call_args: Option<(String, Vec<Type>)>,
    /// How many explicit array sizes `const_int` could not evaluate (a
    /// declaration that saw one has a size, though its type says none).
    unevaluated_sizes: usize,
    /// Variables whose declaration has such a size.
    sized_decls: IdSet,
    /// How many loops and switches enclose the statement being analysed.
    loops: usize,
    switches: usize,
    /// Built-in overloads already resolved.
    builtin_calls: BuiltinCalls,
}

/// The built-in overload each (name, argument types) resolved to, for the
/// environment and extensions they were resolved in: a shader calls the
/// same few built-ins with the same types over and over, and resolving one
/// filters the tables and tries every overload.
#[derive(Default)]
struct BuiltinCalls {
    /// What the entries hold for (emptied when it changes).
    env: Option<(BuiltinEnv, ExtSet)>,
    by_name: NameMap<Vec<(Vec<Type>, &'static builtins::Signature)>>,
}

impl BuiltinCalls {
    /// Argument-type lists kept per name at most (a name called with more
    /// is resolved each time beyond them).
    const PER_NAME: usize = 16;

    fn get(
        &mut self,
        name: &str,
        args: &[Type],
        env: BuiltinEnv,
        exts: ExtSet,
    ) -> Option<&'static builtins::Signature> {
        if self.env != Some((env, exts)) {
            self.by_name.clear();
            self.env = Some((env, exts));
            return None;
        }
        let known = self.by_name.get(name)?;
        known.iter().find(|(a, _)| a == args).map(|(_, sig)| *sig)
    }

    /// Records what `get` (just before, with the same environment) did
    /// not know.
    fn insert(&mut self, name: &str, args: &[Type], sig: &'static builtins::Signature) {
        let known = self.by_name.entry(name.to_string()).or_default();
        if known.len() < Self::PER_NAME {
            known.push((args.to_vec(), sig));
        }
    }
}

impl Model {
    pub fn new(env: BuiltinEnv) -> Model {
        Model {
            env,
            decls: Vec::new(),
            functions: Vec::new(),
            structs: HashMap::new(),
            local_structs: Default::default(),
            buffer_references: HashMap::new(),
            reference_members: Default::default(),
            diagnostics: Vec::new(),
            references: Vec::new(),
            field_references: Vec::new(),
            functions_by_name: NameMap::default(),
            builtin_decls: NameMap::default(),
            scopes: vec![NameMap::default()],
            current_function: None,
            extensions: ExtSet::default(),
            deprecated: Default::default(),
            const_decls: Default::default(),
            unevaluated_sizes: 0,
            call_args: None,
            work_group_size_declared: false,
            default_precisions: Default::default(),
            locations: HashMap::new(),
            sized_decls: Default::default(),
            loops: 0,
            switches: 0,
            builtin_calls: BuiltinCalls::default(),
        }
    }

    /// An empty model for a parsed shader: its version, stage and API, the
    /// extensions its `#extension` lines enable (diagnostics for those that
    /// do not exist or are misused), GLSL 1.40's implied
    /// GL_ARB_compatibility. Nothing of its body is walked yet.
    pub fn for_parsed(parsed: &Parsed) -> Model {
        let mut m = Model::new(BuiltinEnv {
            version: parsed.version,
            stage: parsed.stage,
            api: parsed.api,
        });
        m.implied_extensions(parsed);
        for e in &parsed.extensions {
            m.extension_directive(e);
        }
        m
    }

    /// GLSL 1.40's GL_ARB_compatibility: drivers that expose it (Mesa, the
    /// proprietary ones) give 1.40 shaders the compatibility built-ins.
    fn implied_extensions(&mut self, parsed: &Parsed) {
        if !parsed.version.is_es() && parsed.version.number == 140 {
            self.extensions.enable("GL_ARB_compatibility");
        }
        self.apply_compatibility();
    }

    fn apply_compatibility(&mut self) {
        if self.extensions.gives_compatibility() && self.env.version.profile == Profile::Core {
            self.env.version.profile = Profile::Compatibility;
        }
    }

    /// Applies one `#extension` line (GLSL §3.3).
    fn extension_directive(&mut self, e: &crate::parse::Extension) {
        let known = builtins::is_extension(&e.name);
        let behavior = e.behavior.as_str();
        let error = |m: &mut Model, msg: String| {
            m.diagnostics.push(Diagnostic::error(e.span, msg));
        };
        if e.name == "all" {
            match behavior {
                "disable" => self.extensions = ExtSet::default(),
                "warn" => {}
                _ => error(
                    self,
                    format!("`#extension all : {behavior}`: `all` can only be `warn` or `disable`"),
                ),
            }
            return;
        }
        match (known, behavior) {
            (true, "disable") => self.extensions.disable(&e.name),
            (true, _) => {
                self.extensions.enable(&e.name);
                self.apply_compatibility();
            }
            (false, "require") => error(self, format!("extension `{}` is not supported", e.name)),
            (false, "disable") => {}
            (false, _) => self.diagnostics.push(Diagnostic::warning(
                e.span,
                format!("extension `{}` is not supported (ignored)", e.name),
            )),
        }
    }

    /// Analyses a whole shader.
    /// Each `#extension` line counts from where it stands (one may
    /// `disable` what an earlier one enabled).
    pub fn analyze(parsed: &Parsed) -> Model {
        let mut m = Model::new(BuiltinEnv {
            version: parsed.version,
            stage: parsed.stage,
            api: parsed.api,
        });
        m.implied_extensions(parsed);
        m.check_version_line(parsed);
        let mut pending = parsed.extensions.iter().peekable();
        for ext in &parsed.tu.0 {
            let start = crate::diagnostics::span_from_node(ext.span).start;
            while let Some(e) = pending.next_if(|e| e.span.start < start) {
                m.extension_directive(e);
            }
            m.external(ext);
        }
        for e in pending {
            m.extension_directive(e);
        }
        m.attributes(parsed);
        m
    }

    /// Attribute lists (`[[unroll]]`), which the parser keeps apart: each
    /// needs an extension that has them, enabled before it;
    /// `dependency_length` a positive length; a function not both `inline`
    /// and `noinline` (glslang's rules; a length that is not a literal and
    /// attributes differing between a prototype and its definition are not
    /// checked).
    fn attributes(&mut self, parsed: &Parsed) {
        const EXTENSIONS: [&str; 5] = [
            "GL_EXT_control_flow_attributes",
            "GL_EXT_control_flow_attributes2",
            "GL_EXT_function_control_attributes",
            "GL_EXT_subgroup_uniform_control_flow",
            "GL_EXT_maximal_reconvergence",
        ];
        for a in &parsed.attributes {
            let enabled = parsed.extensions.iter().any(|e| {
                e.span.start < a.span.start
                    && e.behavior != "disable"
                    && EXTENSIONS.contains(&e.name.as_str())
            });
            if !enabled {
                self.diagnostics.push(Diagnostic::error(
                    a.span,
                    format!("`{}` needs `#extension {}`", a.text, EXTENSIONS[0]),
                ));
            }
            let inner = a.text.trim_start_matches("[[").trim_end_matches("]]");
            let items: Vec<&str> = inner.split(',').map(str::trim).collect();
            if items.contains(&"inline") && items.contains(&"noinline") {
                self.diagnostics.push(Diagnostic::error(
                    a.span,
                    "`inline` and `noinline` are incompatible function attributes",
                ));
            }
            for &item in &items {
                let Some(arg) = item
                    .strip_prefix("dependency_length")
                    .map(str::trim_start)
                    .and_then(|r| r.strip_prefix('('))
                    .and_then(|r| r.strip_suffix(')'))
                else {
                    continue;
                };
                if arg.trim().parse::<i64>().is_ok_and(|n| n <= 0) {
                    self.diagnostics.push(Diagnostic::error(
                        a.span,
                        format!("`{item}`: the length must be positive"),
                    ));
                }
            }
        }
    }

    /// GLSL ES 3.00 and later want `#version` on the first line, with
    /// nothing before it, not even a comment or an empty line. glslang,
    /// ANGLE (WebGL) and Mali's compiler reject such a shader, but Mesa
    /// compiles it: a warning, so that a shader a driver runs is still
    /// debugged, and the portability problem is still shown.
    fn check_version_line(&mut self, parsed: &Parsed) {
        let v = parsed.version;
        let Some(at) = parsed.version_at else { return };
        let before = parsed.source.text.get(..at).unwrap_or_default();
        if v.is_es() && v.number >= 300 && before.contains('\n') {
            self.diagnostics.push(Diagnostic::warning(
                Span::new(at, "#version".len()),
                format!(
                    "`#version {v}` must be on the first line of the shader \
                     (Mesa accepts it; glslang, ANGLE and WebGL reject it)"
                ),
            ));
        }
    }

    pub fn errors(&self) -> impl Iterator<Item = &Diagnostic> {
        self.diagnostics
            .iter()
            .filter(|d| d.severity == crate::diagnostics::Severity::Error)
    }

    fn error(&mut self, span: Option<ast::NodeSpan>, msg: impl Into<String>) {
        self.error_of(span, msg, DiagnosticKind::Other);
    }

    fn error_of(
        &mut self,
        span: Option<ast::NodeSpan>,
        msg: impl Into<String>,
        kind: DiagnosticKind,
    ) {
        self.diagnostics
            .push(Diagnostic::error(crate::diagnostics::span_from_node(span), msg).with_kind(kind));
    }

    /// An error about values of `types` (an editor reading a piece of a
    /// shader leaves out those about struct types it stood in for).
    fn type_error(&mut self, span: Option<ast::NodeSpan>, msg: impl Into<String>, types: &[&Type]) {
        fn structs(t: &Type, out: &mut Vec<String>) {
            match t {
                Type::Struct(s) if !out.contains(&s.name) => out.push(s.name.clone()),
                Type::Array(e, _) => structs(e, out),
                _ => {}
            }
        }
        let mut names = Vec::new();
        for t in types {
            structs(t, &mut names);
        }
        self.error_of(span, msg, DiagnosticKind::Types(names));
    }

    // ---- scopes -------------------------------------------------------------

    pub fn push_scope(&mut self) {
        self.scopes.push(NameMap::default());
    }

    pub fn pop_scope(&mut self) {
        if self.scopes.len() > 1 {
            self.scopes.pop();
        }
    }

    pub fn current_function(&self) -> Option<FunctionId> {
        self.current_function
    }

    /// Variables visible here that belong to functions (locals and parameters),
    /// innermost last; shadowed names are left out.
    pub fn visible_locals(&self) -> Vec<DeclId> {
        let mut seen = std::collections::HashSet::new();
        let mut out = Vec::new();
        for scope in self.scopes.iter().skip(1).rev() {
            let mut ids: Vec<DeclId> = scope.values().copied().collect();
            ids.sort_unstable();
            for id in ids.into_iter().rev() {
                if seen.insert(self.decls[id].name.clone()) {
                    out.push(id);
                }
            }
        }
        out.reverse();
        out.sort_unstable();
        out
    }

    pub fn declare(&mut self, name: &str, ty: Type, kind: DeclKind, span: Span) -> DeclId {
        let id = self.decls.len();
        self.decls.push(Decl {
            name: name.to_string(),
            ty,
            kind,
            span,
            function: self.current_function,
            const_int: None,
            interface_block: false,
        });
        if let Some(scope) = self.scopes.last_mut() {
            scope.insert(name.to_string(), id);
        }
        id
    }

    /// Resolves a variable name in the current scope (built-ins last).
    pub fn lookup(&mut self, name: &str) -> Option<DeclId> {
        for scope in self.scopes.iter().rev() {
            if let Some(&id) = scope.get(name) {
                return Some(id);
            }
        }
        if let Some(&id) = self.builtin_decls.get(name) {
            return Some(id);
        }
        let found = builtins::variable_with(name, &self.env, &self.extensions);
        let legacy = (found.is_none() && matches!(name, "gl_FragColor" | "gl_FragData"))
            .then(|| self.legacy_env())
            .flatten()
            .and_then(|env| builtins::variable_with(name, &env, &self.extensions));
        let Some(var) = found.or(legacy) else {
            // A built-in an enabled extension brings that the tables do not
            // model: known, of unknown type (no errors follow from it).
            if !self.extensions.lifts(name) {
                return None;
            }
            let id = self.decls.len();
            self.decls.push(Decl {
                name: name.to_string(),
                ty: Type::Error,
                kind: DeclKind::Builtin(builtins::Storage::InOut),
                span: Span::default(),
                function: None,
                const_int: None,
                interface_block: false,
            });
            self.builtin_decls.insert(name.to_string(), id);
            return Some(id);
        };
        let id = self.decls.len();
        self.decls.push(Decl {
            name: name.to_string(),
            ty: var.ty.clone(),
            kind: DeclKind::Builtin(var.storage),
            span: Span::default(),
            function: None,
            const_int: None,
            interface_block: false,
        });
        self.builtin_decls.insert(name.to_string(), id);
        if legacy.is_some() {
            self.deprecated.insert(id);
        }
        Some(id)
    }

    /// The implicit conversions this shader's version and extensions allow.
    pub fn conversions(&self) -> Conversions {
        let v = self.env.version;
        let ext = |n: &str| !self.extensions.is_empty() && self.extensions.contains(n);
        if v.is_es() {
            let on = ext("GL_EXT_shader_implicit_conversions");
            return Conversions {
                to_float: on,
                to_uint: on,
                to_double: false,
            };
        }
        let gpu5 = v.number >= 400 || ext("GL_ARB_gpu_shader5") || ext("GL_NV_gpu_shader5");
        Conversions {
            to_float: v.number >= 120,
            to_uint: gpu5,
            to_double: gpu5 || ext("GL_ARB_gpu_shader_fp64"),
        }
    }

    /// Where a core-profile shader of GLSL 1.40 to 4.10 still finds
    /// `gl_FragColor`, `gl_FragData` and the deprecated texture lookups
    /// (`texture2D`, `shadow2D`, ...): Mesa relegates them to the
    /// compatibility profile only from 4.20, glslang warns, so using one is
    /// a warning here, not an error.
    fn legacy_env(&self) -> Option<BuiltinEnv> {
        let v = self.env.version;
        (v.profile == Profile::Core && (140..=410).contains(&v.number)).then_some(BuiltinEnv {
            version: crate::Version {
                profile: Profile::Compatibility,
                ..v
            },
            ..self.env
        })
    }

    fn deprecated_warning(&mut self, span: Option<ast::NodeSpan>, name: &str) {
        let msg = format!(
            "`{name}` is not in the core profile of GLSL {} (removed in 1.40; drivers still accept it up to 4.10)",
            self.env.version.number
        );
        self.diagnostics.push(Diagnostic::warning(
            crate::diagnostics::span_from_node(span),
            msg,
        ));
    }

    // ---- types --------------------------------------------------------------

    /// The type a type specifier denotes (registering an inline struct).
    pub fn type_of_specifier(&mut self, ts: &ast::TypeSpecifier) -> Type {
        let base = self.type_of_non_array(&ts.ty);
        self.apply_array(base, ts.array_specifier.as_ref())
    }

    fn type_of_non_array(&mut self, t: &ast::TypeSpecifierNonArray) -> Type {
        use ast::TypeSpecifierNonArrayData as T;
        match &t.content {
            T::Struct(s) => self.declare_struct(s),
            T::TypeName(name) if self.buffer_references.contains_key(name.as_str()) => {
                Type::Opaque(name.as_str().to_string())
            }
            T::TypeName(name) => match self.structs.get(name.as_str()) {
                Some(s) => Type::Struct(s.clone()),
                None => match parse_type_name(name.as_str()) {
                    Some(t) => t,
                    None if builtins::is_extension_type(name.as_str(), &self.extensions) => {
                        Type::Opaque(name.as_str().to_string())
                    }
                    None => {
                        self.error(t.span, format!("unknown type `{}`", name.as_str()));
                        Type::Error
                    }
                },
            },
            other => crate::syntax::basic_type(other).unwrap_or_else(|| {
                let s = crate::syntax::type_specifier_name(other);
                parse_type_name(&s).unwrap_or(Type::Opaque(s))
            }),
        }
    }

    fn declare_struct(&mut self, s: &ast::StructSpecifier) -> Type {
        if let Some(n) = s.name.as_ref().filter(|n| n.as_str().starts_with("gl_")) {
            self.reserved_name(n.span, n.as_str());
        }
        let mut fields = Vec::new();
        for f in &s.fields {
            let base = self.type_of_specifier(&f.ty);
            for id in &f.identifiers {
                let ty = self.apply_array(base.clone(), id.array_spec.as_ref());
                fields.push(Field {
                    name: id.ident.as_str().to_string(),
                    ty,
                });
            }
        }
        let name = s.name.as_ref().map_or_else(
            || format!("_anon{}", self.structs.len()),
            |n| n.as_str().to_string(),
        );
        let st = Arc::new(StructType {
            name: name.clone(),
            fields,
        });
        if self.current_function.is_some() {
            self.local_structs.insert(name.clone());
        }
        self.structs.insert(name, st.clone());
        Type::Struct(st)
    }

    /// Wraps `base` in the array dimensions of `spec` (outermost first).
    pub fn apply_array(&mut self, base: Type, spec: Option<&ast::ArraySpecifier>) -> Type {
        let Some(spec) = spec else { return base };
        let mut ty = base;
        for dim in spec.dimensions.iter().rev() {
            let n = match &dim.content {
                ast::ArraySpecifierDimensionData::Unsized => None,
                ast::ArraySpecifierDimensionData::ExplicitlySized(e) => {
                    let t = self.expr_type(e);
                    let n = self.const_int(e);
                    if !t.is_error() && !matches!(t, Type::Scalar(Scalar::Int | Scalar::Uint)) {
                        self.type_error(
                            e.span,
                            format!("an array size must be an int or uint constant, not {t}"),
                            &[&t],
                        );
                    } else if !self.is_const_expr(e) {
                        self.error(
                            e.span,
                            "an array size must be a constant integer expression",
                        );
                    } else if n.is_some_and(|n| n <= 0) {
                        self.error(e.span, "an array size must be greater than zero");
                    }
                    if n.is_none() {
                        self.unevaluated_sizes += 1;
                    }
                    n.and_then(|n| u32::try_from(n).ok())
                }
            };
            ty = Type::Array(Box::new(ty), n);
        }
        ty
    }

    /// Evaluates a constant integer expression (literals, `const` ints, arithmetic).
    pub fn const_int(&mut self, e: &ast::Expr) -> Option<i64> {
        match &e.content {
            ExprData::IntConst(i) => Some(i64::from(*i)),
            ExprData::UIntConst(u) => Some(i64::from(*u)),
            ExprData::Variable(id) if literal_name(id.as_str()) => {
                crate::syntax::extended_literal(id.as_str()).and_then(|l| l.value)
            }
            ExprData::Variable(id) => {
                let d = self.lookup(id.as_str())?;
                if let Some(v) = self.decls[d].const_int {
                    return Some(v);
                }
                // Implementation limits used as array sizes.
                match id.as_str() {
                    "gl_MaxDrawBuffers" => Some(8),
                    "gl_MaxClipDistances" => Some(8),
                    "gl_MaxTextureCoords" => Some(8),
                    _ => None,
                }
            }
            ExprData::Binary(op, a, b) => {
                let (a, b) = (self.const_int(a)?, self.const_int(b)?);
                use ast::BinaryOpData as B;
                match op.content {
                    B::Add => a.checked_add(b),
                    B::Sub => a.checked_sub(b),
                    B::Mult => a.checked_mul(b),
                    B::Div => a.checked_div(b),
                    B::Mod => a.checked_rem(b),
                    B::LShift => a.checked_shl(u32::try_from(b).ok()?),
                    B::RShift => a.checked_shr(u32::try_from(b).ok()?),
                    _ => None,
                }
            }
            ExprData::Unary(op, a) if op.content == ast::UnaryOpData::Minus => {
                self.const_int(a).map(|v| -v)
            }
            ExprData::FunCall(f, args)
                if args.len() == 1
                    && matches!(f.content, ast::FunIdentifierData::TypeSpecifier(_)) =>
            {
                self.const_int(&args[0])
            }
            _ => None,
        }
    }

    // ---- declarations -------------------------------------------------------

    pub fn external(&mut self, ext: &ast::ExternalDeclaration) {
        match &ext.content {
            ast::ExternalDeclarationData::Preprocessor(_) => {}
            ast::ExternalDeclarationData::Declaration(d) => {
                self.declaration(d, true);
            }
            ast::ExternalDeclarationData::FunctionDefinition(def) => self.function_definition(def),
        }
    }

    /// Registers a function prototype; returns its id (an existing one if the
    /// same signature was declared before).
    pub fn function_prototype(
        &mut self,
        proto: &ast::FunctionPrototype,
        defined: bool,
    ) -> FunctionId {
        let ret = self.type_of_specifier(&proto.ty.ty);
        let mut params = Vec::new();
        for p in &proto.parameters {
            let (qual, ty, name) = match &p.content {
                ast::FunctionParameterDeclarationData::Named(q, d) => {
                    let base = self.type_of_specifier(&d.ty);
                    let ty = self.apply_array(base, d.ident.array_spec.as_ref());
                    (q, ty, d.ident.ident.as_str().to_string())
                }
                ast::FunctionParameterDeclarationData::Unnamed(q, t) => {
                    (q, self.type_of_specifier(t), String::new())
                }
            };
            if ty == Type::Void {
                continue;
            }
            params.push(FunctionParam {
                name,
                ty,
                dir: param_dir(qual.as_ref()),
            });
        }
        let name = proto.name.as_str().to_string();
        let existing = self.functions_by_name.get(&name).and_then(|ids| {
            ids.iter().copied().find(|&id| {
                let f = &self.functions[id];
                f.params.len() == params.len()
                    && f.params.iter().zip(&params).all(|(a, b)| a.ty == b.ty)
            })
        });
        if name.starts_with("gl_") {
            self.reserved_name(proto.name.span, &name);
        }
        if name == "main" && defined {
            if ret != Type::Void {
                self.error(proto.ty.span, "`main` must return void");
            }
            if !params.is_empty() {
                self.error(proto.span, "`main` takes no parameters");
            }
        }
        if let Some(id) = existing {
            if self.functions[id].ret != ret && !ret.is_error() {
                self.error(
                    proto.span,
                    format!(
                        "`{name}` was declared returning {}; overloads must differ in their parameters",
                        self.functions[id].ret
                    ),
                );
            }
            if defined {
                if self.functions[id].defined {
                    self.error(proto.span, format!("function `{name}` is already defined"));
                }
                let f = &mut self.functions[id];
                f.defined = true;
                f.params = params;
                f.span = crate::diagnostics::span_from_node(proto.span);
            }
            return id;
        }
        let id = self.functions.len();
        self.functions.push(Function {
            name: name.clone(),
            ret,
            params,
            span: crate::diagnostics::span_from_node(proto.span),
            defined,
        });
        self.functions_by_name.entry(name).or_default().push(id);
        id
    }

    /// Enters a function body: a new scope with the parameters declared.
    /// Returns the function and the parameters' declarations.
    pub fn enter_function(&mut self, def: &ast::FunctionDefinition) -> (FunctionId, Vec<DeclId>) {
        let id = self.function_prototype(&def.prototype, true);
        self.current_function = Some(id);
        self.push_scope();
        let mut decls = Vec::new();
        let params = self.functions[id].params.clone();
        for (p, ast_p) in params.iter().zip(&def.prototype.parameters) {
            if p.name.is_empty() {
                continue;
            }
            let d = self.declare(
                &p.name,
                p.ty.clone(),
                DeclKind::Param(p.dir),
                crate::diagnostics::span_from_node(ast_p.span),
            );
            decls.push(d);
        }
        (id, decls)
    }

    pub fn leave_function(&mut self) {
        self.pop_scope();
        self.current_function = None;
    }

    fn function_definition(&mut self, def: &ast::FunctionDefinition) {
        self.enter_function(def);
        // The body shares the parameters' scope (GLSL §4.2.2).
        for s in &def.statement.statement_list {
            self.statement(s);
        }
        self.leave_function();
    }

    /// Declares what a declaration declares; returns the variables it declared.
    pub fn declaration(&mut self, d: &ast::Declaration, global: bool) -> Vec<DeclId> {
        match &d.content {
            ast::DeclarationData::FunctionPrototype(p) => {
                self.function_prototype(p, false);
                Vec::new()
            }
            ast::DeclarationData::InitDeclaratorList(list) => {
                self.init_declarator_list(list, global)
            }
            ast::DeclarationData::Block(b) => self.block(b),
            ast::DeclarationData::TypeOnly(q) => {
                self.check_qualifiers(q, None, global, true);
                Vec::new()
            }
            ast::DeclarationData::Precision(_, ts) => {
                let t = self.type_of_specifier(ts);
                let name = match &t {
                    Type::Scalar(Scalar::Float) => "float".to_string(),
                    Type::Opaque(n) => n.clone(),
                    _ => String::new(),
                };
                self.default_precisions.insert(name);
                Vec::new()
            }
            ast::DeclarationData::Invariant(_) => Vec::new(),
        }
    }

    fn init_declarator_list(
        &mut self,
        list: &ast::InitDeclaratorList,
        global: bool,
    ) -> Vec<DeclId> {
        let head = &list.head;
        if crate::parse::is_qualifier_redeclaration(&head.ty.ty) {
            // `layout(constant_id = 2) gl_EnableOpacityMicromapEXT;`: new
            // qualifiers on names already declared, which stay as they are.
            // Only `invariant`, `precise` and a specialization constant's id
            // can be added (glslang's addQualifierToExisting); a
            // `buffer_reference` layout forward-declares a block instead.
            let specs = head.ty.qualifier.iter().flat_map(|q| q.qualifiers.iter());
            let layout_ids = || {
                head.ty
                    .qualifier
                    .iter()
                    .flat_map(|q| q.qualifiers.iter())
                    .flat_map(|s| match &s.content {
                        ast::TypeQualifierSpecData::Layout(l) => l.ids.iter().collect(),
                        _ => Vec::new(),
                    })
            };
            let id_named = |i: &ast::LayoutQualifierSpec, n: &str| matches!(&i.content, ast::LayoutQualifierSpecData::Identifier(id, _) if id.as_str().eq_ignore_ascii_case(n));
            if layout_ids().any(|i| id_named(i, "buffer_reference")) {
                self.forward_buffer_references(list);
                return Vec::new();
            }
            let addable = specs.into_iter().all(|s| {
                matches!(
                    &s.content,
                    ast::TypeQualifierSpecData::Invariant
                        | ast::TypeQualifierSpecData::Precise
                        | ast::TypeQualifierSpecData::Layout(_)
                )
            }) && layout_ids().all(|i| id_named(i, "constant_id"));
            let names = head
                .name
                .iter()
                .chain(list.tail.iter().map(|t| &t.ident.ident));
            for name in names {
                match self.lookup(name.as_str()) {
                    Some(_) if !addable => self.error(
                        name.span,
                        format!(
                            "only `invariant`, `precise` or `layout(constant_id = ...)` can qualify the existing `{}` anew",
                            name.as_str()
                        ),
                    ),
                    Some(d) => self
                        .references
                        .push((crate::diagnostics::span_from_node(name.span), d)),
                    None => self.error_of(
                        name.span,
                        format!("undeclared identifier `{}`", name.as_str()),
                        DiagnosticKind::Undeclared(name.as_str().to_string()),
                    ),
                }
            }
            return Vec::new();
        }
        let sizes_before = self.unevaluated_sizes;
        let base = self.type_of_specifier(&head.ty.ty);
        let mut storage = storage_of(head.ty.qualifier.as_ref());
        if is_varying(head.ty.qualifier.as_ref()) && self.env.stage != crate::Stage::Fragment {
            storage = Storage::Out;
        }
        let kind = if global {
            DeclKind::Global(storage)
        } else {
            DeclKind::Local
        };
        self.check_interface_qualifiers(head.ty.qualifier.as_ref(), &base, storage, head.ty.span);
        self.check_reference_storage(&base, storage, head.ty.span);
        if head.name.is_some() {
            self.check_precision(head.ty.qualifier.as_ref(), &base, head.ty.span);
        }
        if let Some(q) = &head.ty.qualifier {
            self.check_qualifiers(q, head.name.as_ref().map(|n| n.as_str()), global, false);
            if let (Some(name), true) = (&head.name, global) {
                self.check_location(q, name, &base, head.array_specifier.as_ref(), storage);
            }
        }
        if let (Some(name), true) = (&head.name, global) {
            let q = head.ty.qualifier.as_ref();
            self.check_subpass_input(q, name, &base, head.array_specifier.is_some());
        }
        let mut out = Vec::new();
        // (An initializer may size the inner dimensions too.)
        if head.initializer.is_none() {
            self.check_inner_unsized(head.ty.ty.array_specifier.as_ref());
            self.check_inner_unsized(head.array_specifier.as_ref());
        }
        for tail in list.tail.iter().filter(|t| t.initializer.is_none()) {
            self.check_inner_unsized(tail.ident.array_spec.as_ref());
        }
        let type_array = head.ty.ty.array_specifier.as_ref();
        let heads = head
            .name
            .iter()
            .map(|n| (n, head.array_specifier.as_ref(), head.initializer.is_none()));
        let tails = list.tail.iter().map(|t| {
            (
                &t.ident.ident,
                t.ident.array_spec.as_ref(),
                t.initializer.is_none(),
            )
        });
        for (name, array, no_init) in heads.chain(tails) {
            if no_init && outer_unsized(array, type_array) {
                self.check_es_unsized(name, storage);
            }
        }
        if let Some(name) = &head.name {
            let ty = self.apply_array(base.clone(), head.array_specifier.as_ref());
            out.push(self.declare_with_init(
                name,
                ty,
                kind.clone(),
                head.initializer.as_ref(),
                storage,
            ));
        }
        for tail in &list.tail {
            let ty = self.apply_array(base.clone(), tail.ident.array_spec.as_ref());
            out.push(self.declare_with_init(
                &tail.ident.ident,
                ty,
                kind.clone(),
                tail.initializer.as_ref(),
                storage,
            ));
        }
        if self.unevaluated_sizes > sizes_before {
            self.sized_decls.extend(out.iter().copied());
        }
        out
    }

    /// Whether `name` is a built-in variable here (which a shader may redeclare).
    fn is_builtin_variable(&self, name: &str) -> bool {
        // Any stage's: extensions bring built-ins to more stages than the
        // tables list (`gl_Layer` in vertex shaders, ...). That covers what
        // `variable_with` finds here or in the legacy environment (it finds
        // only names of the tables' index).
        builtins::is_builtin_variable(name) || self.extensions.lifts(name)
    }

    fn reserved_name(&mut self, span: Option<ast::NodeSpan>, name: &str) {
        self.error(
            span,
            format!("`{name}`: names starting with `gl_` are reserved for built-ins"),
        );
    }

    /// Qualifier rules (GLSL §4.3-4.5): what may qualify a local variable,
    /// `patch`/`centroid`/`sample` and interpolation qualifiers where the
    /// stage has no interpolation, layout identifiers of another stage, depth
    /// layouts on anything but `gl_FragDepth`, work group sizes below 1.
    /// `name` is the declared variable's (None for blocks and defaults).
    fn check_qualifiers(
        &mut self,
        q: &ast::TypeQualifier,
        name: Option<&str>,
        global: bool,
        standalone: bool,
    ) {
        use crate::Stage as S;
        use ast::StorageQualifierData as Q;
        let stage = self.env.stage;
        let storage = storage_of(Some(q));
        let es = self.env.version.is_es();
        // Vertex inputs and fragment outputs are not interpolated.
        let not_interpolated = match (stage, storage) {
            (S::Vertex, Storage::In) => Some("vertex shader inputs"),
            (S::Fragment, Storage::Out) => Some("fragment shader outputs"),
            _ => None,
        };
        for spec in &q.qualifiers {
            match &spec.content {
                ast::TypeQualifierSpecData::Storage(st) => {
                    let word = match st.content {
                        Q::In => "in",
                        Q::Out => "out",
                        Q::Uniform => "uniform",
                        Q::Buffer => "buffer",
                        Q::Shared => "shared",
                        Q::Attribute => "attribute",
                        Q::Varying => "varying",
                        Q::Patch => "patch",
                        Q::Centroid => "centroid",
                        Q::Sample => "sample",
                        _ => continue,
                    };
                    match st.content {
                        Q::Patch | Q::Centroid | Q::Sample if !global => self.error(
                            spec.span,
                            format!("`{word}` qualifies shader inputs and outputs, not local variables"),
                        ),
                        _ if !global && !matches!(st.content, Q::Patch | Q::Centroid | Q::Sample) => {
                            self.error(
                                spec.span,
                                format!("`{word}` variables must be declared outside functions"),
                            )
                        }
                        Q::Patch
                            if !matches!(
                                (stage, storage),
                                (S::TessControl, Storage::Out) | (S::TessEvaluation, Storage::In)
                            ) =>
                        {
                            self.error(
                                spec.span,
                                "`patch` qualifies tessellation control outputs and tessellation evaluation inputs only",
                            )
                        }
                        Q::Centroid | Q::Sample => {
                            if let Some(what) = not_interpolated {
                                self.error(spec.span, format!("`{word}` cannot qualify {what}"));
                            }
                        }
                        Q::Shared if stage != S::Compute => self.error(
                            spec.span,
                            format!("`shared` variables exist in compute shaders only, not in {stage} shaders"),
                        ),
                        _ => {}
                    }
                }
                ast::TypeQualifierSpecData::Interpolation(i) if global => {
                    if let Some(what) = not_interpolated {
                        self.error(
                            spec.span,
                            format!("interpolation qualifiers cannot qualify {what}"),
                        );
                    }
                    const NOPERSPECTIVE_ES: &str = "GL_NV_shader_noperspective_interpolation";
                    if es
                        && i.content == ast::InterpolationQualifierData::NoPerspective
                        && !self.extensions.contains(NOPERSPECTIVE_ES)
                    {
                        self.error(
                            spec.span,
                            format!("`noperspective` needs {NOPERSPECTIVE_ES} in GLSL ES"),
                        );
                    }
                }
                ast::TypeQualifierSpecData::Layout(l) => {
                    for id in &l.ids {
                        let ast::LayoutQualifierSpecData::Identifier(ident, value) = &id.content
                        else {
                            continue;
                        };
                        // Desktop layout identifiers are case-insensitive.
                        let lname = if es {
                            ident.as_str().to_string()
                        } else {
                            ident.as_str().to_ascii_lowercase()
                        };
                        if let Some(stages) = layout_stages(&lname) {
                            if !stages.contains(&stage) {
                                self.error(
                                    id.span,
                                    format!(
                                        "`{}` is not a layout qualifier of {stage} shaders",
                                        ident.as_str()
                                    ),
                                );
                            }
                        }
                        if !standalone && STANDALONE_LAYOUTS.contains(&lname.as_str()) {
                            self.error(
                                id.span,
                                format!(
                                    "`{}` can only be in a declaration of its own (`layout({}) in;`)",
                                    ident.as_str(),
                                    ident.as_str()
                                ),
                            );
                        }
                        if standalone && stage == S::Compute && lname.starts_with("local_size_") {
                            self.work_group_size_declared = true;
                        }
                        if let Some(needs) = self.layout_needs(&lname, storage) {
                            self.error(id.span, format!("`{}` needs {needs}", ident.as_str()));
                        }
                        if lname.starts_with("depth_") && name.is_some_and(|n| n != "gl_FragDepth")
                        {
                            self.error(
                                id.span,
                                format!("`{}` applies to gl_FragDepth only", ident.as_str()),
                            );
                        }
                        if lname.starts_with("local_size_") && !lname.ends_with("_id") {
                            if let Some(n) = value.as_deref().and_then(|v| self.const_int(v)) {
                                if n < 1 {
                                    self.error(
                                        id.span,
                                        format!("`{}` must be at least 1", ident.as_str()),
                                    );
                                }
                            }
                        }
                    }
                }
                _ => {}
            }
        }
    }

    /// Shader inputs and outputs that share a location (GLSL §4.4.1): their
    /// components must not overlap, and they must have the same basic type
    /// and the same interpolation and auxiliary qualifiers. Also: no
    /// transform feedback offset on an array without a size.
    fn check_location(
        &mut self,
        q: &ast::TypeQualifier,
        name: &ast::Identifier,
        base: &Type,
        array: Option<&ast::ArraySpecifier>,
        storage: Storage,
    ) {
        let no_size = array.is_some_and(|a| {
            a.dimensions
                .first()
                .is_some_and(|d| d.content == ast::ArraySpecifierDimensionData::Unsized)
        });
        let int_value = |m: &mut Model, id: &str| -> Option<i64> {
            q.qualifiers
                .iter()
                .find_map(|spec| match &spec.content {
                    ast::TypeQualifierSpecData::Layout(l) => {
                        l.ids.iter().find_map(|i| match &i.content {
                            ast::LayoutQualifierSpecData::Identifier(n, Some(v))
                                if n.as_str().eq_ignore_ascii_case(id) =>
                            {
                                Some(v.as_ref().clone())
                            }
                            _ => None,
                        })
                    }
                    _ => None,
                })
                .and_then(|e| m.const_int(&e))
        };
        let has_xfb_offset = has_layout_id(q, "xfb_offset");
        if has_xfb_offset && no_size {
            self.error(
                name.span,
                format!(
                    "`{}`: an array without a size cannot be captured by transform feedback",
                    name.as_str()
                ),
            );
        }
        // Vertex inputs may alias (GLSL §4.4.1.1).
        let vertex_input = self.env.stage == crate::Stage::Vertex && storage == Storage::In;
        if !matches!(storage, Storage::In | Storage::Out)
            || name.as_str().starts_with("gl_")
            || vertex_input
        {
            return;
        }
        let Some(location) = int_value(self, "location") else {
            return;
        };
        let component = int_value(self, "component").unwrap_or(0);
        // Per-vertex arrays of the geometry and tessellation stages: the element.
        let per_vertex = matches!(
            self.env.stage,
            crate::Stage::Geometry | crate::Stage::TessControl | crate::Stage::TessEvaluation
        );
        if array.is_some() && !per_vertex {
            return;
        }
        let elem = base;
        let (scalar, count) = match elem {
            Type::Scalar(s) => (*s, 1),
            Type::Vector(s, n) => (*s, i64::from(*n)),
            _ => return,
        };
        let width = if scalar == Scalar::Double { 2 } else { 1 };
        let range = (component, component + count * width);
        // Interpolation and auxiliary qualifiers, as written.
        let mut quals: Vec<String> = q
            .qualifiers
            .iter()
            .filter_map(|spec| match &spec.content {
                ast::TypeQualifierSpecData::Interpolation(i) => Some(format!("{:?}", i.content)),
                ast::TypeQualifierSpecData::Storage(st)
                    if matches!(
                        st.content,
                        ast::StorageQualifierData::Centroid
                            | ast::StorageQualifierData::Sample
                            | ast::StorageQualifierData::Patch
                    ) =>
                {
                    Some(format!("{:?}", st.content))
                }
                _ => None,
            })
            .collect();
        quals.sort();
        // Fragment outputs of another `index` (dual-source blending) are
        // other places.
        let index = int_value(self, "index").unwrap_or(0);
        let key = (storage == Storage::In, location, index);
        let others = self.locations.entry(key).or_default().clone();
        for (other, (lo, hi), other_scalar, other_quals) in &others {
            if range.0 < *hi && *lo < range.1 {
                self.error(
                    name.span,
                    format!(
                        "`{}` uses location {location} where `{other}` is (components overlap)",
                        name.as_str()
                    ),
                );
                return;
            }
            // int and uint count as one type here (GLSL 4.60 §4.4.1.2).
            let basic = |s: Scalar| if s == Scalar::Uint { Scalar::Int } else { s };
            if basic(*other_scalar) != basic(scalar) || *other_quals != quals {
                self.error(
                    name.span,
                    format!(
                        "`{}` shares location {location} with `{other}`: they must have the same basic type and interpolation",
                        name.as_str()
                    ),
                );
                return;
            }
        }
        self.locations.entry(key).or_default().push((
            name.as_str().to_string(),
            range,
            scalar,
            quals,
        ));
    }

    /// `gl_` names of blocks: only the built-in blocks (`gl_PerVertex`,
    /// `gl_in`, `gl_out`, ...) may be redeclared, with their own members.
    fn check_block_names(&mut self, b: &ast::Block) {
        const BUILTIN_BLOCKS: [&str; 2] = ["gl_PerVertex", "gl_PerFragment"];
        let builtin_block = BUILTIN_BLOCKS.contains(&b.name.as_str());
        if b.name.as_str().starts_with("gl_") && !builtin_block {
            self.reserved_name(b.name.span, b.name.as_str());
        }
        if let Some(inst) = &b.identifier {
            let n = inst.ident.as_str();
            if n.starts_with("gl_") && !(builtin_block && self.is_builtin_variable(n)) {
                self.reserved_name(inst.ident.span, n);
            }
        }
        if !builtin_block {
            for f in &b.fields {
                for id in &f.identifiers {
                    if id.ident.as_str().starts_with("gl_") {
                        self.reserved_name(id.ident.span, id.ident.as_str());
                    }
                }
            }
        }
    }

    /// `offset` on block members is GLSL 4.40 (GL_ARB_enhanced_layouts).
    fn check_member_offsets(&mut self, b: &ast::Block) {
        let v = self.env.version;
        if self.env.api == crate::Api::Vulkan
            || v.is_es()
            || v.number >= 440
            || self.extensions.contains("GL_ARB_enhanced_layouts")
        {
            return;
        }
        for f in &b.fields {
            for spec in f.qualifier.iter().flat_map(|q| &q.qualifiers) {
                let ast::TypeQualifierSpecData::Layout(l) = &spec.content else {
                    continue;
                };
                for id in &l.ids {
                    if let ast::LayoutQualifierSpecData::Identifier(i, _) = &id.content {
                        if i.as_str().eq_ignore_ascii_case("offset") {
                            self.error(
                                id.span,
                                "`offset` on a block member needs GLSL 4.40 or GL_ARB_enhanced_layouts",
                            );
                        }
                    }
                }
            }
        }
    }

    /// What a layout identifier (lower case) needs that this shader lacks
    /// (version or extension), if anything. Vulkan GLSL has them all.
    fn layout_needs(&self, lname: &str, storage: Storage) -> Option<String> {
        let v = self.env.version;
        if self.env.api == crate::Api::Vulkan {
            return None;
        }
        let ext = |names: &[&str]| names.iter().any(|n| self.extensions.contains(n));
        if v.is_es() {
            // GLSL ES 3.00 has `location` on vertex inputs and fragment
            // outputs only (§4.3.8.1-2); 3.10 brings the others, `binding`,
            // `offset` and `std430` (GLSL ES 3.10 §4.4).
            if v.number != 300 {
                return None;
            }
            const SSO: &str = "GL_EXT_separate_shader_objects";
            let (stage, sso) = (self.env.stage, ext(&[SSO]));
            let or_ext = match (lname, storage) {
                ("location", Storage::In) if stage != crate::Stage::Vertex && !sso => Some(SSO),
                ("location", Storage::Out) if stage != crate::Stage::Fragment && !sso => Some(SSO),
                ("location", Storage::Uniform) | ("binding" | "offset" | "std430", _) => None,
                _ => return None,
            };
            return Some(match or_ext {
                Some(e) => format!("GLSL ES 3.10 or {e}"),
                None => "GLSL ES 3.10".to_string(),
            });
        }
        let (min, exts): (u16, &[&str]) = match lname {
            "binding" => (
                420,
                &[
                    "GL_ARB_shading_language_420pack",
                    "GL_ARB_shader_storage_buffer_object",
                    "GL_ARB_shader_atomic_counters",
                    "GL_ARB_shader_image_load_store",
                    "GL_ARB_bindless_texture",
                ],
            ),
            "component" | "xfb_buffer" | "xfb_offset" | "xfb_stride" | "align" => {
                (440, &["GL_ARB_enhanced_layouts"])
            }
            "std430" => (430, &["GL_ARB_shader_storage_buffer_object"]),
            "location" if storage == Storage::Uniform => {
                (430, &["GL_ARB_explicit_uniform_location"])
            }
            "location" => (
                330,
                &[
                    "GL_ARB_explicit_attrib_location",
                    "GL_ARB_separate_shader_objects",
                    "GL_ARB_enhanced_layouts",
                ],
            ),
            _ => return None,
        };
        (v.number < min && !ext(exts)).then(|| {
            let names: Vec<&str> = exts.to_vec();
            format!(
                "GLSL {}.{:02} or {}",
                min / 100,
                min % 100,
                names.join(" or ")
            )
        })
    }

    /// GLSL ES: a type without a default precision (float in fragment
    /// shaders; samplers other than sampler2D/samplerCube, images) needs a
    /// precision qualifier or a `precision` statement before (GLSL ES 3.20
    /// §4.7.4).
    fn check_precision(
        &mut self,
        q: Option<&ast::TypeQualifier>,
        ty: &Type,
        span: Option<ast::NodeSpan>,
    ) {
        if !self.env.version.is_es() {
            return;
        }
        let has_precision = q.is_some_and(|q| {
            q.qualifiers
                .iter()
                .any(|s| matches!(s.content, ast::TypeQualifierSpecData::Precision(_)))
        });
        if has_precision {
            return;
        }
        let mut t = ty;
        while let Type::Array(e, _) = t {
            t = e;
        }
        let needs = match t {
            Type::Scalar(Scalar::Float) | Type::Vector(Scalar::Float, _) | Type::Matrix { .. } => {
                (self.env.stage == crate::Stage::Fragment).then(|| "float".to_string())
            }
            Type::Opaque(n)
                if (n.contains("sampler") || n.contains("image"))
                    && !matches!(
                        n.as_str(),
                        "sampler2D" | "samplerCube" | "samplerExternalOES"
                    ) =>
            {
                Some(n.clone())
            }
            _ => None,
        };
        if let Some(name) = needs.filter(|n| !self.default_precisions.contains(n)) {
            self.error(
                span,
                format!("`{name}` has no default precision here: give it one (`precision mediump {name};`) or qualify the declaration"),
            );
        }
    }

    /// A subpass input (GL_KHR_vulkan_glsl) is a fragment shader's, names
    /// its attachment with `input_attachment_index` (optional for a single
    /// one with GL_EXT_optional_input_attachment_index), and does not mix
    /// with GL_EXT_shader_tile_image, as glslang has them.
    fn check_subpass_input(
        &mut self,
        q: Option<&ast::TypeQualifier>,
        name: &ast::Identifier,
        base: &Type,
        array: bool,
    ) {
        let Type::Opaque(ty) = base else { return };
        if !ty
            .trim_start_matches(['i', 'u'])
            .starts_with("subpassInput")
        {
            return;
        }
        let span = name.span;
        if self.env.stage != crate::Stage::Fragment {
            self.error(span, format!("`{ty}` is only for fragment shaders"));
        } else if self.extensions.contains("GL_EXT_shader_tile_image") {
            self.error(
                span,
                format!("`{ty}` cannot be used with GL_EXT_shader_tile_image enabled"),
            );
        } else if !q.is_some_and(|q| has_layout_id(q, "input_attachment_index"))
            && (array
                || !self
                    .extensions
                    .contains("GL_EXT_optional_input_attachment_index"))
        {
            self.error(
                span,
                format!(
                    "`{}`: a subpass input needs an input_attachment_index layout qualifier",
                    name.as_str()
                ),
            );
        }
    }

    /// Only the outermost dimension of a declared array may be unsized
    /// (array constructors may leave them all to their arguments).
    fn check_inner_unsized(&mut self, spec: Option<&ast::ArraySpecifier>) {
        let Some(spec) = spec else { return };
        if spec
            .dimensions
            .iter()
            .skip(1)
            .any(|d| d.content == ast::ArraySpecifierDimensionData::Unsized)
        {
            self.error(
                spec.span,
                "only the outermost dimension of an array of arrays can be left unsized",
            );
        }
    }

    /// GLSL ES wants array sizes (GLSL ES 3.20 §4.1.9): a variable declared
    /// without one (and without an initializer that gives it) is an error,
    /// except the per-vertex inputs and outputs of the geometry and
    /// tessellation stages (sized by the primitive or the patch).
    fn check_es_unsized(&mut self, name: &ast::Identifier, storage: Storage) {
        use crate::Stage as S;
        let per_vertex = match storage {
            Storage::In => matches!(
                self.env.stage,
                S::Geometry | S::TessControl | S::TessEvaluation
            ),
            Storage::Out => self.env.stage == S::TessControl,
            _ => false,
        };
        // Descriptor arrays sized at run time: GL_EXT_nonuniform_qualifier.
        let runtime_descriptors = self.extensions.contains("GL_EXT_nonuniform_qualifier");
        if self.env.version.is_es()
            && !per_vertex
            && !runtime_descriptors
            && !name.as_str().starts_with("gl_")
        {
            self.error(
                name.span,
                format!("`{}`: GLSL ES needs the size of this array", name.as_str()),
            );
        }
    }

    /// Rules on what a global's storage qualifier allows: `attribute` and
    /// `varying` are gone from the core profile of 4.20 and from ES 3.00;
    /// shader inputs and outputs cannot be (or contain) bool.
    fn check_interface_qualifiers(
        &mut self,
        q: Option<&ast::TypeQualifier>,
        ty: &Type,
        storage: Storage,
        span: Option<ast::NodeSpan>,
    ) {
        let v = self.env.version;
        let removed =
            (v.is_es() && v.number >= 300) || (v.profile == Profile::Core && v.number >= 420);
        for spec in q.map(|q| q.qualifiers.as_slice()).unwrap_or_default() {
            if let ast::TypeQualifierSpecData::Storage(st) = &spec.content {
                let word = match st.content {
                    ast::StorageQualifierData::Attribute => "attribute",
                    ast::StorageQualifierData::Varying => "varying",
                    _ => continue,
                };
                if removed {
                    self.error(
                        spec.span,
                        format!("`{word}` does not exist in GLSL {v}; use `in`/`out`"),
                    );
                }
            }
        }
        if matches!(storage, Storage::In | Storage::Out) && contains_bool(ty) {
            let word = if storage == Storage::In {
                "input"
            } else {
                "output"
            };
            self.type_error(
                span,
                format!("a shader {word} cannot be or contain bool ({ty})"),
                &[ty],
            );
        }
    }

    fn declare_with_init(
        &mut self,
        name: &ast::Identifier,
        mut ty: Type,
        kind: DeclKind,
        init: Option<&ast::Initializer>,
        storage: Storage,
    ) -> DeclId {
        let mut const_int = None;
        if storage == Storage::Const {
            match init {
                None => self.error(
                    name.span,
                    format!("the constant `{}` needs an initializer", name.as_str()),
                ),
                Some(ast::Initializer {
                    content: ast::InitializerData::Simple(e),
                    ..
                }) => {
                    // GLSL 4.20 lets a `const` local take any value (a
                    // read-only variable); before, and in ES, it must be constant.
                    let v = self.env.version;
                    let strict = v.is_es()
                        || (v.number < 420
                            && !self.extensions.contains("GL_ARB_shading_language_420pack"))
                        || self.current_function.is_none();
                    if strict && !self.is_const_expr(e) {
                        self.error(
                            e.span,
                            format!(
                                "the initializer of the constant `{}` is not a constant expression",
                                name.as_str()
                            ),
                        );
                    }
                }
                Some(_) => {}
            }
        }
        if let Some(init) = init {
            let init_ty = self.initializer_type(init, &ty);
            // `float a[] = float[](...)` takes its size from the initializer.
            if let (Type::Array(_, None), Type::Array(_, Some(_))) = (&ty, &init_ty) {
                ty = init_ty.clone();
            }
            if !self.conversions().ty(&init_ty, &ty) {
                self.type_error(
                    init.span,
                    format!(
                        "cannot initialize `{}` of type {ty} with a value of type {init_ty}",
                        name.as_str()
                    ),
                    &[&ty, &init_ty],
                );
            }
            if storage == Storage::Const && ty.scalar().is_some_and(Scalar::is_integer) {
                if let ast::InitializerData::Simple(e) = &init.content {
                    const_int = self.const_int(e);
                }
            }
        }
        if name.as_str().starts_with("gl_") && !self.is_builtin_variable(name.as_str()) {
            self.reserved_name(name.span, name.as_str());
        }
        if let Some(scope) = self.scopes.last() {
            // Built-ins may be redeclared (`gl_FragCoord` with a layout, ...).
            if scope.contains_key(name.as_str()) && !name.as_str().starts_with("gl_") {
                let prev = scope[name.as_str()];
                // An array declared without a size may be redeclared with one.
                let sizes = matches!(
                    (&self.decls[prev].ty, &ty),
                    (Type::Array(a, None), Type::Array(b, Some(_))) if a == b
                );
                if self.decls[prev].function == self.current_function && !sizes {
                    self.error(
                        name.span,
                        format!("`{}` is already declared in this scope", name.as_str()),
                    );
                }
            }
        }
        let id = self.declare(
            name.as_str(),
            ty,
            kind,
            crate::diagnostics::span_from_node(name.span),
        );
        self.decls[id].const_int = const_int;
        if storage == Storage::Const {
            self.const_decls.insert(id);
        }
        id
    }

    fn initializer_type(&mut self, init: &ast::Initializer, expected: &Type) -> Type {
        match &init.content {
            ast::InitializerData::Simple(e) => self.expr_type(e),
            ast::InitializerData::List(items) => {
                if items.is_empty() && !self.extensions.contains("GL_EXT_null_initializer") {
                    self.error(init.span, "an initializer list cannot be empty");
                }
                for i in items {
                    self.initializer_type(i, &Type::Error);
                }
                expected.clone()
            }
        }
    }

    fn block(&mut self, b: &ast::Block) -> Vec<DeclId> {
        let sizes_before = self.unevaluated_sizes;
        let ids = self.block_decls(b);
        if self.unevaluated_sizes > sizes_before {
            self.sized_decls.extend(ids.iter().copied());
        }
        ids
    }

    fn block_decls(&mut self, b: &ast::Block) -> Vec<DeclId> {
        let reference = is_buffer_reference(&b.qualifier);
        if reference {
            // Its members may be references to it (`Node next;`).
            self.buffer_references
                .entry(b.name.as_str().to_string())
                .or_insert(None);
        }
        self.check_qualifiers(&b.qualifier, None, true, false);
        self.check_member_offsets(b);
        let storage = storage_of(Some(&b.qualifier));
        let mut fields = Vec::new();
        for (i, f) in b.fields.iter().enumerate() {
            // Only a buffer's last member can be sized at run time.
            let runtime_sized = storage == Storage::Buffer && i + 1 == b.fields.len();
            for id in &f.identifiers {
                if !runtime_sized
                    && outer_unsized(id.array_spec.as_ref(), f.ty.array_specifier.as_ref())
                {
                    self.check_es_unsized(&id.ident, Storage::Private);
                }
            }
            let base = self.type_of_specifier(&f.ty);
            if matches!(storage, Storage::In | Storage::Out) && contains_bool(&base) {
                let word = if storage == Storage::In {
                    "input"
                } else {
                    "output"
                };
                self.type_error(
                    f.ty.span,
                    format!("a shader {word} block cannot contain bool ({base})"),
                    &[&base],
                );
            }
            for id in &f.identifiers {
                let ty = self.apply_array(base.clone(), id.array_spec.as_ref());
                fields.push((id.ident.clone(), ty));
            }
        }
        self.check_block_names(b);
        if reference {
            self.define_buffer_reference(b, &fields);
        }
        match &b.identifier {
            // Its members are read through references only.
            None if reference => Vec::new(),
            Some(inst) => {
                if outer_unsized(inst.array_spec.as_ref(), None) {
                    self.check_es_unsized(&inst.ident, storage);
                }
                let st = Type::Struct(Arc::new(block_struct(b.name.as_str(), &fields)));
                let ty = self.apply_array(st, inst.array_spec.as_ref());
                let id = self.declare(
                    inst.ident.as_str(),
                    ty,
                    DeclKind::Global(storage),
                    crate::diagnostics::span_from_node(inst.span),
                );
                self.decls[id].interface_block = true;
                vec![id]
            }
            None => fields
                .into_iter()
                .map(|(n, t)| {
                    self.declare(
                        n.as_str(),
                        t,
                        DeclKind::Global(storage),
                        crate::diagnostics::span_from_node(n.span),
                    )
                })
                .collect(),
        }
    }

    /// `layout(buffer_reference) buffer Node;`: `Node` is a type from here on.
    fn forward_buffer_references(&mut self, list: &ast::InitDeclaratorList) {
        let names = list
            .head
            .name
            .iter()
            .chain(list.tail.iter().map(|t| &t.ident.ident));
        for name in names {
            self.buffer_references
                .entry(name.as_str().to_string())
                .or_insert(None);
        }
    }

    /// A GL_EXT_buffer_reference block's members, read through its references.
    fn define_buffer_reference(&mut self, b: &ast::Block, fields: &[(ast::Identifier, Type)]) {
        let name = b.name.as_str().to_string();
        if let Some(Some(_)) = self.buffer_references.get(&name) {
            self.error(
                b.name.span,
                format!("buffer reference `{name}` is already defined"),
            );
            return;
        }
        let st = block_struct(&name, fields);
        self.buffer_references.insert(name, Some(Arc::new(st)));
    }

    /// `node.member`: a member of the block `node` references.
    fn buffer_reference_member(&mut self, block: &str, field: &ast::Identifier) -> Type {
        match self.buffer_references.get(block).cloned().flatten() {
            Some(st) => {
                if field.span.is_some() {
                    self.reference_members
                        .insert(crate::diagnostics::span_from_node(field.span));
                }
                self.field_type(&Type::Struct(st), field)
            }
            None => {
                self.error(
                    field.span,
                    format!("buffer reference `{block}` is declared but not defined: it has no member `{}`", field.as_str()),
                );
                Type::Error
            }
        }
    }

    /// `Node(addr)`: a reference from an address (`uint64_t` or `uvec2`)
    /// or from another reference.
    fn buffer_reference_constructor(
        &mut self,
        name: &str,
        args: &[Type],
        span: Option<ast::NodeSpan>,
    ) -> (Callee, Type) {
        let ty = Type::Opaque(name.to_string());
        let fits = |t: &Type| match t {
            Type::Opaque(n) => n == "uint64_t" || self.buffer_references.contains_key(n),
            Type::Vector(Scalar::Uint, 2) | Type::Error => true,
            _ => false,
        };
        match args {
            [Type::Vector(..)] => self.needs_reference_uvec2(span),
            [a] if fits(a) => {}
            [a] => {
                let msg = format!("cannot make a `{name}` reference from a value of type {a}: it takes a uint64_t or uvec2 address or another reference");
                self.type_error(span, msg, &[a]);
            }
            _ => self.error(
                span,
                format!(
                    "`{name}(...)` takes one argument (an address), not {}",
                    args.len()
                ),
            ),
        }
        (Callee::Unknown, ty)
    }

    /// Whether `t` is a buffer reference or holds one (an array, a struct).
    fn is_buffer_reference(&self, t: &Type) -> bool {
        match t {
            Type::Opaque(n) => self.buffer_references.contains_key(n),
            Type::Array(e, _) => self.is_buffer_reference(e),
            Type::Struct(s) => s.fields.iter().any(|f| self.is_buffer_reference(&f.ty)),
            _ => false,
        }
    }

    /// A variable holding buffer references is not `const`, nor a shader
    /// input or output (glslang: pass the address instead).
    fn check_reference_storage(
        &mut self,
        base: &Type,
        storage: Storage,
        span: Option<ast::NodeSpan>,
    ) {
        if !self.is_buffer_reference(base) {
            return;
        }
        let msg = match storage {
            Storage::Const => "a buffer reference cannot be `const`",
            Storage::In | Storage::Out => "a shader input or output cannot hold a buffer reference: pass its address (uint64_t or uvec2) instead",
            _ => return,
        };
        self.type_error(span, msg, &[base]);
    }

    /// Arithmetic on references needs GL_EXT_buffer_reference2.
    fn needs_reference2(&mut self, span: Option<ast::NodeSpan>) {
        if !self.extensions.contains("GL_EXT_buffer_reference2") {
            self.error(
                span,
                "arithmetic on a buffer reference needs GL_EXT_buffer_reference2",
            );
        }
    }

    /// A reference to or from a uvec2 address needs GL_EXT_buffer_reference_uvec2.
    fn needs_reference_uvec2(&mut self, span: Option<ast::NodeSpan>) {
        if !self.extensions.contains("GL_EXT_buffer_reference_uvec2") {
            self.error(
                span,
                "a buffer reference to or from a uvec2 needs GL_EXT_buffer_reference_uvec2",
            );
        }
    }

    /// A binary operator with a buffer reference: `node + n` and `node - n`
    /// (a reference `n` blocks on), `a - b` (the blocks between, int64_t),
    /// with GL_EXT_buffer_reference2; `None` for anything else, and an
    /// error of its own for `==` and `!=`.
    fn reference_arithmetic(
        &mut self,
        op: &ast::BinaryOpData,
        a: &Type,
        b: &Type,
        span: Option<ast::NodeSpan>,
    ) -> Option<Type> {
        use ast::BinaryOpData as B;
        let integer = |t: &Type| match t {
            Type::Scalar(s) => s.is_integer(),
            Type::Opaque(n) => {
                crate::types::is_sized_arithmetic(n) && n.contains("int") && !n.contains("vec")
            }
            _ => false,
        };
        let reference =
            |t: &Type| matches!(t, Type::Opaque(n) if self.buffer_references.contains_key(n));
        let (ra, rb) = (reference(a), reference(b));
        let result = match op {
            B::Add | B::Sub if ra && integer(b) => a.clone(),
            B::Add if rb && integer(a) => b.clone(),
            B::Sub if ra && a == b => Type::Opaque("int64_t".to_string()),
            B::Equal | B::NonEqual => {
                let msg = format!(
                    "buffer references do not compare: compare their addresses (`uint64_t(a) {} uint64_t(b)`)",
                    crate::syntax::binary_op_symbol(op)
                );
                self.type_error(span, msg, &[a, b]);
                return Some(Type::Error);
            }
            _ => return None,
        };
        self.needs_reference2(span);
        Some(result)
    }

    // ---- statements ---------------------------------------------------------

    pub fn statement(&mut self, s: &ast::Statement) {
        match &s.content {
            StatementData::Declaration(d) => {
                self.declaration(d, false);
            }
            StatementData::Expression(e) => {
                if let Some(e) = &e.0 {
                    self.expr_type(e);
                }
            }
            StatementData::Selection(sel) => {
                self.condition(&sel.cond);
                match &sel.rest.content {
                    ast::SelectionRestStatementData::Statement(s) => self.scoped_statement(s),
                    ast::SelectionRestStatementData::Else(a, b) => {
                        self.scoped_statement(a);
                        self.scoped_statement(b);
                    }
                }
            }
            StatementData::Switch(sw) => {
                let t = self.expr_type(&sw.head);
                if !matches!(t, Type::Scalar(Scalar::Int | Scalar::Uint) | Type::Error) {
                    self.type_error(
                        sw.head.span,
                        format!("switch expression must be int or uint, not {t}"),
                        &[&t],
                    );
                }
                self.push_scope();
                self.switches += 1;
                for s in &sw.body {
                    self.statement(s);
                }
                self.switches -= 1;
                self.pop_scope();
            }
            StatementData::CaseLabel(c) => {
                if let ast::CaseLabelData::Case(e) = &c.content {
                    self.expr_type(e);
                }
            }
            StatementData::Iteration(it) => {
                self.push_scope();
                self.loops += 1;
                match &it.content {
                    ast::IterationStatementData::While(cond, body) => {
                        self.loop_condition(cond);
                        self.scoped_statement(body);
                    }
                    ast::IterationStatementData::DoWhile(body, cond) => {
                        self.scoped_statement(body);
                        self.condition(cond);
                    }
                    ast::IterationStatementData::For(init, rest, body) => {
                        self.for_init(init);
                        if let Some(c) = &rest.condition {
                            self.loop_condition(c);
                        }
                        if let Some(e) = &rest.post_expr {
                            self.expr_type(e);
                        }
                        self.scoped_statement(body);
                    }
                }
                self.loops -= 1;
                self.pop_scope();
            }
            StatementData::Jump(j) => {
                use ast::JumpStatementData as J;
                match &j.content {
                    J::Break if self.loops == 0 && self.switches == 0 => {
                        self.error(j.span, "`break` outside a loop or switch")
                    }
                    J::Continue if self.loops == 0 => {
                        self.error(j.span, "`continue` outside a loop")
                    }
                    J::Discard if self.env.stage != crate::Stage::Fragment => self.error(
                        j.span,
                        format!(
                            "`discard` is only allowed in fragment shaders, not in {} shaders",
                            self.env.stage
                        ),
                    ),
                    J::Return(None) => {
                        let ret = self.current_function.map(|f| self.functions[f].ret.clone());
                        if let Some(ret) = ret.filter(|r| *r != Type::Void && !r.is_error()) {
                            self.error(
                                j.span,
                                format!("`return` without a value in a function returning {ret}"),
                            );
                        }
                    }
                    _ => {}
                }
                if let ast::JumpStatementData::Return(Some(e)) = &j.content {
                    let t = self.expr_type(e);
                    if let Some(f) = self.current_function {
                        let ret = self.functions[f].ret.clone();
                        if ret == Type::Void && !t.is_error() {
                            self.error(e.span, "a void function cannot return a value");
                        } else if !self.conversions().ty(&t, &ret) {
                            self.type_error(
                                e.span,
                                format!("cannot return {t} from a function returning {ret}"),
                                &[&t, &ret],
                            );
                        }
                    }
                }
            }
            StatementData::Compound(c) => {
                self.push_scope();
                for s in &c.statement_list {
                    self.statement(s);
                }
                self.pop_scope();
            }
        }
    }

    fn scoped_statement(&mut self, s: &ast::Statement) {
        self.push_scope();
        self.statement(s);
        self.pop_scope();
    }

    fn condition(&mut self, e: &ast::Expr) {
        let t = self.expr_type(e);
        if !matches!(t, Type::Scalar(Scalar::Bool) | Type::Error) {
            self.type_error(e.span, format!("condition must be bool, not {t}"), &[&t]);
        }
    }

    /// The init statement of a `for` (its declarations go in the current scope).
    pub(crate) fn for_init(&mut self, init: &ast::ForInitStatement) {
        match &init.content {
            ast::ForInitStatementData::Expression(Some(e)) => {
                self.expr_type(e);
            }
            ast::ForInitStatementData::Expression(None) => {}
            ast::ForInitStatementData::Declaration(d) => {
                self.declaration(d, false);
            }
        }
    }

    fn loop_condition(&mut self, c: &ast::Condition) {
        match &c.content {
            ast::ConditionData::Expr(e) => self.condition(e),
            ast::ConditionData::Assignment(ty, name, init) => {
                let ty = self.type_of_specifier(&ty.ty);
                self.declare_with_init(name, ty, DeclKind::Local, Some(init), Storage::Private);
            }
        }
    }

    // ---- expressions --------------------------------------------------------

    /// The type of an expression in the current scope (recording references and
    /// diagnostics on the way).
    pub fn expr_type(&mut self, e: &ast::Expr) -> Type {
        match &e.content {
            ExprData::Variable(id) if id.as_str().starts_with('"') => {
                // A string: only GL_EXT_debug_printf has them, as formats.
                if !self.extensions.contains("GL_EXT_debug_printf") {
                    self.error(id.span, "a string needs `#extension GL_EXT_debug_printf`");
                }
                if let Some(bad) = bad_escape(id.as_str()) {
                    self.error(
                        id.span,
                        format!("invalid escape sequence `{bad}` in the string"),
                    );
                }
                Type::Opaque("string".into())
            }
            ExprData::Variable(id) if literal_name(id.as_str()) => {
                crate::syntax::extended_literal(id.as_str()).map_or(Type::Error, |l| l.ty)
            }
            ExprData::Variable(id) => match self.lookup(id.as_str()) {
                Some(d) => {
                    if self.deprecated.remove(&d) {
                        self.deprecated_warning(id.span, id.as_str());
                    }
                    if id.as_str() == "gl_WorkGroupSize"
                        && self.env.stage == crate::Stage::Compute
                        && !self.work_group_size_declared
                        && self.current_function.is_some()
                    {
                        self.error(
                            id.span,
                            "`gl_WorkGroupSize` is read before `layout(local_size_x = ...) in;` declares it",
                        );
                    }
                    self.references
                        .push((crate::diagnostics::span_from_node(id.span), d));
                    self.decls[d].ty.clone()
                }
                None => {
                    self.error_of(
                        id.span,
                        format!("undeclared identifier `{}`", id.as_str()),
                        DiagnosticKind::Undeclared(id.as_str().to_string()),
                    );
                    Type::Error
                }
            },
            ExprData::IntConst(_) => INT,
            ExprData::UIntConst(_) => types::UINT,
            ExprData::BoolConst(_) => BOOL,
            ExprData::FloatConst(_) => types::FLOAT,
            ExprData::DoubleConst(_) => Type::Scalar(Scalar::Double),
            ExprData::Unary(op, a) => {
                let t = self.expr_type(a);
                if matches!(op.content, ast::UnaryOpData::Inc | ast::UnaryOpData::Dec) {
                    self.check_lvalue(a, "`++`/`--`");
                }
                match op.content {
                    ast::UnaryOpData::Not => {
                        if !matches!(t, Type::Scalar(Scalar::Bool) | Type::Error) {
                            self.type_error(e.span, format!("`!` needs a bool, not {t}"), &[&t]);
                        }
                        BOOL
                    }
                    _ => t,
                }
            }
            ExprData::Binary(op, a, b) => {
                let (ta, tb) = (self.expr_type(a), self.expr_type(b));
                self.binary_type(&op.content, ta, tb, e.span)
            }
            ExprData::Ternary(c, a, b) => {
                self.condition(c);
                let (ta, tb) = (self.expr_type(a), self.expr_type(b));
                let conv = self.conversions();
                if conv.ty(&ta, &tb) {
                    tb
                } else if conv.ty(&tb, &ta) {
                    ta
                } else {
                    self.type_error(
                        e.span,
                        format!("`?:` branches have different types {ta} and {tb}"),
                        &[&ta, &tb],
                    );
                    Type::Error
                }
            }
            ExprData::Assignment(lhs, op, rhs) => {
                let (tl, tr) = (self.expr_type(lhs), self.expr_type(rhs));
                self.check_lvalue(lhs, "an assignment");
                if op.content == ast::AssignmentOpData::Equal {
                    if !self.conversions().ty(&tr, &tl) {
                        self.type_error(e.span, format!("cannot assign {tr} to {tl}"), &[&tr, &tl]);
                    }
                } else {
                    self.binary_type(&assign_binop(&op.content), tl.clone(), tr, e.span);
                }
                tl
            }
            ExprData::Bracket(base, idx) => {
                let tb = self.expr_type(base);
                let ti = self.expr_type(idx);
                if !matches!(ti, Type::Scalar(Scalar::Int | Scalar::Uint) | Type::Error) {
                    self.type_error(
                        idx.span,
                        format!("index must be int or uint, not {ti}"),
                        &[&ti],
                    );
                }
                self.check_index(base, &tb, idx);
                match tb {
                    Type::Array(elem, _) => *elem,
                    // `node[i]`: the i-th block after `node` (GL_EXT_buffer_reference2).
                    Type::Opaque(n) if self.buffer_references.contains_key(&n) => {
                        self.needs_reference2(e.span);
                        Type::Opaque(n)
                    }
                    Type::Vector(s, _) => Type::Scalar(s),
                    Type::Matrix { scalar, rows, .. } => Type::Vector(scalar, rows),
                    Type::Error => Type::Error,
                    other => {
                        self.type_error(
                            e.span,
                            format!("cannot index a value of type {other}"),
                            &[&other],
                        );
                        Type::Error
                    }
                }
            }
            ExprData::FunCall(f, args) => {
                let (callee, t) = self.call(f, args, e.span);
                let dirs: Vec<ParamDir> = match &callee {
                    Callee::User(id) => self.functions[*id].params.iter().map(|p| p.dir).collect(),
                    Callee::Builtin(sig) => sig.params.iter().map(|p| p.dir).collect(),
                    _ => Vec::new(),
                };
                for (arg, dir) in args.iter().zip(dirs) {
                    if dir != ParamDir::In {
                        self.check_lvalue(arg, "an `out` argument");
                    }
                }
                t
            }
            ExprData::Dot(base, field) => {
                let tb = self.expr_type(base);
                self.field_type(&tb, field)
            }
            ExprData::PostInc(a) | ExprData::PostDec(a) => {
                let t = self.expr_type(a);
                self.check_lvalue(a, "`++`/`--`");
                t
            }
            ExprData::Comma(a, b) => {
                self.expr_type(a);
                self.expr_type(b)
            }
        }
    }

    /// Reports an error if `e` cannot be written (GLSL §5.8: constants,
    /// uniforms, inputs, values that are not variables). `what` is the
    /// write (`an assignment`, ...).
    fn check_lvalue(&mut self, e: &ast::Expr, what: &str) {
        if let Some(why) = self.not_an_lvalue(e) {
            self.error(
                e.span,
                format!("{what} needs a variable it can write, and this is {why}"),
            );
        }
    }

    /// Constant indices in range (GLSL §5.7, §5.9); arrays declared without
    /// a size indexed only with constants, outside buffers (§4.1.9).
    fn check_index(&mut self, base: &ast::Expr, tb: &Type, idx: &ast::Expr) {
        let n = self.const_int(idx);
        let size = match tb {
            Type::Array(_, n) => n.map(i64::from),
            Type::Vector(_, n) => Some(i64::from(*n)),
            Type::Matrix { cols, .. } => Some(i64::from(*cols)),
            _ => return,
        };
        match (n, size) {
            (Some(i), _) if i < 0 => self.error(idx.span, format!("index {i} is negative")),
            (Some(i), Some(size)) if i >= size => self.error(
                idx.span,
                format!("index {i} is out of range: {tb} has {size} elements"),
            ),
            (None, None) if !self.is_const_expr(idx) && self.unsized_needs_constant_index(base) => {
                self.error(
                    idx.span,
                    "an array declared without a size can only be indexed with a constant (give it a size)",
                )
            }
            _ => {}
        }
    }

    /// Whether the unsized array `e` (or the variable it is part of) can
    /// only be indexed with constants: not the last member of a buffer, a
    /// built-in, a per-vertex input or output of the geometry and
    /// tessellation stages, or a descriptor array (Vulkan,
    /// GL_EXT_nonuniform_qualifier).
    fn unsized_needs_constant_index(&mut self, e: &ast::Expr) -> bool {
        if self.env.api == crate::Api::Vulkan
            || self.extensions.contains("GL_EXT_nonuniform_qualifier")
        {
            return false;
        }
        let mut root = e;
        while let ExprData::Bracket(b, _) | ExprData::Dot(b, _) = &root.content {
            root = b;
        }
        let ExprData::Variable(id) = &root.content else {
            return false;
        };
        let Some(d) = self.lookup(id.as_str()) else {
            return false;
        };
        let per_vertex = matches!(
            self.env.stage,
            crate::Stage::Geometry | crate::Stage::TessControl | crate::Stage::TessEvaluation
        );
        if self.sized_decls.contains(&d) {
            return false;
        }
        match self.decls[d].kind {
            DeclKind::Global(Storage::Buffer | Storage::Shared) | DeclKind::Builtin(_) => false,
            DeclKind::Global(Storage::In | Storage::Out) if per_vertex => false,
            _ => true,
        }
    }

    /// Why `e` is not writable, or None (also when unsure).
    fn not_an_lvalue(&mut self, e: &ast::Expr) -> Option<String> {
        match &e.content {
            ExprData::Variable(id) if literal_name(id.as_str()) => Some("a literal".to_string()),
            ExprData::Variable(id) => {
                let d = self.lookup(id.as_str())?;
                let name = id.as_str();
                match self.decls[d].kind {
                    DeclKind::Global(Storage::Const) | DeclKind::Builtin(Storage::Const) => {
                        Some(format!("the constant `{name}`"))
                    }
                    _ if self.const_decls.contains(&d) => Some(format!("the constant `{name}`")),
                    DeclKind::Global(Storage::Uniform) | DeclKind::Builtin(Storage::Uniform) => {
                        Some(format!("the uniform `{name}`"))
                    }
                    DeclKind::Global(Storage::In) | DeclKind::Builtin(Storage::In) => {
                        Some(format!("the input `{name}`"))
                    }
                    _ => None,
                }
            }
            // (`node.v = x;` writes where `node` points, not `node`.)
            ExprData::Dot(_, f)
                if f.span.is_some()
                    && self
                        .reference_members
                        .contains(&crate::diagnostics::span_from_node(f.span)) =>
            {
                None
            }
            ExprData::Bracket(base, _) | ExprData::Dot(base, _) => self.not_an_lvalue(base),
            ExprData::IntConst(_)
            | ExprData::UIntConst(_)
            | ExprData::BoolConst(_)
            | ExprData::FloatConst(_)
            | ExprData::DoubleConst(_) => Some("a literal".to_string()),
            ExprData::FunCall(..) => Some("a call's result".to_string()),
            ExprData::Binary(..)
            | ExprData::Unary(..)
            | ExprData::Ternary(..)
            | ExprData::Assignment(..)
            | ExprData::PostInc(_)
            | ExprData::PostDec(_)
            | ExprData::Comma(..) => Some("a computed value".to_string()),
        }
    }

    /// Whether `e` is a constant expression (GLSL §4.3.3); true when unsure.
    fn is_const_expr(&mut self, e: &ast::Expr) -> bool {
        match &e.content {
            ExprData::Variable(id) => match self.lookup(id.as_str()) {
                Some(d) => {
                    matches!(
                        self.decls[d].kind,
                        DeclKind::Global(Storage::Const) | DeclKind::Builtin(Storage::Const)
                    ) || self.const_decls.contains(&d)
                        || self.decls[d].ty.is_error()
                }
                None => true,
            },
            ExprData::IntConst(_)
            | ExprData::UIntConst(_)
            | ExprData::BoolConst(_)
            | ExprData::FloatConst(_)
            | ExprData::DoubleConst(_) => true,
            ExprData::Unary(op, a) => {
                !matches!(op.content, ast::UnaryOpData::Inc | ast::UnaryOpData::Dec)
                    && self.is_const_expr(a)
            }
            ExprData::Binary(_, a, b) | ExprData::Bracket(a, b) => {
                self.is_const_expr(a) && self.is_const_expr(b)
            }
            ExprData::Ternary(c, a, b) => {
                self.is_const_expr(c) && self.is_const_expr(a) && self.is_const_expr(b)
            }
            ExprData::Dot(base, _) => self.is_const_expr(base),
            ExprData::FunCall(f, args) => {
                let user = match &f.content {
                    ast::FunIdentifierData::Expr(fe) => match &fe.content {
                        // `a.length()` of a sized array is constant.
                        ExprData::Dot(_, m) if m.as_str() == "length" => return true,
                        ExprData::Variable(n) => self.functions_by_name.contains_key(n.as_str()),
                        _ => false,
                    },
                    ast::FunIdentifierData::TypeSpecifier(ts) => match &ts.ty.content {
                        ast::TypeSpecifierNonArrayData::TypeName(n) => {
                            !self.structs.contains_key(n.as_str())
                                && self.functions_by_name.contains_key(n.as_str())
                        }
                        _ => false,
                    },
                };
                !user && args.iter().all(|a| self.is_const_expr(a))
            }
            ExprData::Assignment(..)
            | ExprData::PostInc(_)
            | ExprData::PostDec(_)
            | ExprData::Comma(..) => false,
        }
    }

    fn field_type(&mut self, base: &Type, field: &ast::Identifier) -> Type {
        let name = field.as_str();
        match base {
            Type::Struct(s) => match s.fields.iter().find(|f| f.name == name) {
                Some(f) => {
                    self.field_references.push(FieldRef {
                        span: crate::diagnostics::span_from_node(field.span),
                        owner: s.name.clone(),
                        field: name.to_string(),
                    });
                    f.ty.clone()
                }
                None => {
                    let msg = format!("{} has no field `{name}`", s.name);
                    self.type_error(field.span, msg, &[base]);
                    Type::Error
                }
            },
            Type::Vector(s, n) => match swizzle_indices(name, *n) {
                Some(idx) => Type::vec(*s, idx.len() as u8),
                None => {
                    self.error(field.span, format!("invalid swizzle `{name}` on {base}"));
                    Type::Error
                }
            },
            Type::Scalar(s) => match swizzle_indices(name, 1) {
                Some(idx) => Type::vec(*s, idx.len() as u8),
                None => {
                    self.error(field.span, format!("invalid swizzle `{name}` on {base}"));
                    Type::Error
                }
            },
            Type::Error => Type::Error,
            Type::Opaque(n) if self.buffer_references.contains_key(n) => {
                self.buffer_reference_member(n, field)
            }
            // Sized vectors (`u16vec3.y`) swizzle as vectors do.
            Type::Opaque(n) if crate::types::is_sized_arithmetic(n) => {
                let count = crate::types::sized_swizzle(n, 1).map_or(0, |(c, _)| c);
                match swizzle_indices(name, count) {
                    Some(idx) => crate::types::sized_swizzle(n, idx.len() as u8)
                        .map_or(Type::Error, |(_, t)| t),
                    None => {
                        self.error(field.span, format!("invalid swizzle `{name}` on {base}"));
                        Type::Error
                    }
                }
            }
            other => {
                self.type_error(
                    field.span,
                    format!("{other} has no field `{name}`"),
                    &[other],
                );
                Type::Error
            }
        }
    }

    /// Resolves a call and returns what it calls and its type.
    pub fn call(
        &mut self,
        f: &ast::FunIdentifier,
        args: &[ast::Expr],
        span: Option<ast::NodeSpan>,
    ) -> (Callee, Type) {
        self.call_args = None;
        let (callee, ty) = self.resolve_call(f, args, span);
        let Some((name, arg_types)) = self.call_args.take() else {
            return (callee, ty);
        };
        if name.starts_with("subgroup") && !matches!(callee, Callee::User(_)) {
            // Subgroup operations on 8-, 16- and 64-bit types need their
            // GL_EXT_shader_subgroup_extended_types_* extension.
            for (t, a) in arg_types.iter().zip(args) {
                let parts = sized_arithmetic(t)
                    .then(|| crate::types::arithmetic_parts(t))
                    .flatten();
                let need = match parts {
                    Some(('i' | 'u', 8, _)) => Some("GL_EXT_shader_subgroup_extended_types_int8"),
                    Some(('i' | 'u', 16, _)) => Some("GL_EXT_shader_subgroup_extended_types_int16"),
                    Some(('i' | 'u', 64, _)) => Some("GL_EXT_shader_subgroup_extended_types_int64"),
                    Some(('f', 16, _)) => Some("GL_EXT_shader_subgroup_extended_types_float16"),
                    _ => None,
                };
                if let Some(ext) = need.filter(|e| !self.extensions.contains(e)) {
                    self.error(a.span, format!("`{name}` on {t} needs `#extension {ext}`"));
                }
            }
        }
        match &callee {
            Callee::Constructor(t) => self.check_constructor(t, &arg_types, span),
            Callee::Builtin(_) | Callee::Unknown if builtins::has_constant_arguments(&name) => {
                let sig = match &callee {
                    Callee::Builtin(sig) => Some(*sig),
                    _ => None,
                };
                let non_const_offsets = name.contains("Offset")
                    && self.extensions.contains("GL_EXT_texture_offset_non_const");
                // GL_NV_gpu_shader5 lets these take offsets computed at run
                // time (not the Grad ones, nor `comp`), as glslang has it.
                let nv_offsets = self.extensions.contains("GL_NV_gpu_shader5")
                    && matches!(
                        name.as_str(),
                        "textureGatherOffsets"
                            | "textureOffset"
                            | "texelFetchOffset"
                            | "textureProjOffset"
                            | "textureLodOffset"
                            | "textureProjLodOffset"
                    );
                for (i, arg) in args.iter().enumerate() {
                    let param = sig.and_then(|s| s.params.get(i)).map(|p| p.name.as_str());
                    let run_time_offset = nv_offsets && matches!(param, Some("offset" | "offsets"));
                    if builtins::constant_argument(&name, i, param)
                        && !non_const_offsets
                        && !run_time_offset
                        && !self.is_const_expr(arg)
                    {
                        self.error(
                            arg.span,
                            format!(
                                "argument {} of `{name}` must be a constant expression",
                                i + 1
                            ),
                        );
                    }
                }
            }
            _ => {}
        }
        if matches!(callee, Callee::Builtin(_)) && ATOMIC_MEMORY_FUNCTIONS.contains(&name.as_str())
        {
            if let Some(mem) = args.first() {
                self.check_atomic_memory(&name, mem);
            }
        }
        (callee, ty)
    }

    /// The memory operand of an atomic memory function is in a buffer or
    /// shared variable (GLSL §8.11). Not judged where buffer references
    /// exist (GL_EXT_buffer_reference: any variable may hold one).
    fn check_atomic_memory(&mut self, name: &str, mem: &ast::Expr) {
        if ["", "2", "_uvec2"].iter().any(|s| {
            self.extensions
                .contains(&format!("GL_EXT_buffer_reference{s}"))
        }) {
            return;
        }
        let mut root = mem;
        while let ExprData::Bracket(b, _) | ExprData::Dot(b, _) = &root.content {
            root = b;
        }
        let ExprData::Variable(id) = &root.content else {
            return;
        };
        let Some(d) = self.lookup(id.as_str()) else {
            return;
        };
        if let DeclKind::Global(storage) = self.decls[d].kind {
            if !matches!(storage, Storage::Buffer | Storage::Shared) {
                self.error(
                    mem.span,
                    format!(
                        "`{name}` works on buffer and shared variables only, not on `{}`",
                        id.as_str()
                    ),
                );
            }
        }
    }

    /// Whether samplers and images convert to and from handles
    /// (GL_ARB_bindless_texture, GL_NV_bindless_texture).
    fn bindless(&self) -> bool {
        self.extensions.contains("GL_ARB_bindless_texture")
            || self.extensions.contains("GL_NV_bindless_texture")
    }

    /// The argument count and kinds a constructor takes (GLSL §5.4).
    fn check_constructor(&mut self, ty: &Type, args: &[Type], span: Option<ast::NodeSpan>) {
        let unmodelled = |t: &Type| matches!(t, Type::Opaque(n) if builtins::is_extension_type(n, &ExtSet::all()));
        if args.iter().any(|t| t.is_error() || unmodelled(t)) || ty.is_error() {
            return;
        }
        let size = |t: &Type| -> Option<u32> {
            match t {
                Type::Scalar(_) => Some(1),
                Type::Vector(_, n) => Some(u32::from(*n)),
                Type::Matrix { cols, rows, .. } => Some(u32::from(*cols) * u32::from(*rows)),
                _ => None,
            }
        };
        match ty {
            Type::Scalar(_) | Type::Vector(..) | Type::Matrix { .. } => {
                let Some(need) = size(ty) else { return };
                if args.is_empty() {
                    self.error(span, format!("`{ty}(...)` needs arguments"));
                    return;
                }
                // A bindless handle from a sampler or image (`uvec2(s)`).
                if args.len() == 1 && matches!(args[0], Type::Opaque(_)) && self.bindless() {
                    return;
                }
                // A buffer reference's address (`uvec2(node)`).
                if let [Type::Opaque(n)] = args {
                    if self.buffer_references.contains_key(n)
                        && *ty == Type::Vector(Scalar::Uint, 2)
                    {
                        self.needs_reference_uvec2(span);
                        return;
                    }
                }
                if let Some(bad) = args.iter().find(|a| size(a).is_none()) {
                    let msg = format!("cannot construct {ty} from a value of type {bad}");
                    self.type_error(span, msg, &[bad]);
                    return;
                }
                let matrix_arg = args.iter().any(|a| matches!(a, Type::Matrix { .. }));
                if args.len() == 1 {
                    // One scalar fills; one matrix makes any matrix; one
                    // vector or matrix must have enough components.
                    let a = &args[0];
                    let enough = size(a).is_some_and(|n| n >= need);
                    let fills = matches!(a, Type::Scalar(_))
                        || (matches!(ty, Type::Matrix { .. }) && matches!(a, Type::Matrix { .. }));
                    if !fills && !enough {
                        self.error(
                            span,
                            format!(
                                "not enough data for `{ty}(...)`: {} of {need} components",
                                size(a).unwrap_or(0)
                            ),
                        );
                    }
                    return;
                }
                if matrix_arg && matches!(ty, Type::Matrix { .. }) {
                    self.error(
                        span,
                        format!("a matrix argument to `{ty}(...)` must be its only argument"),
                    );
                    return;
                }
                let mut have = 0;
                for (i, a) in args.iter().enumerate() {
                    if have >= need {
                        self.error(
                            span,
                            format!(
                                "too many arguments to `{ty}(...)`: argument {} is not used",
                                i + 1
                            ),
                        );
                        return;
                    }
                    have += size(a).unwrap_or(0);
                }
                if have < need {
                    self.error(
                        span,
                        format!("not enough data for `{ty}(...)`: {have} of {need} components"),
                    );
                }
            }
            Type::Struct(st) if args.len() != st.fields.len() => {
                self.error(
                    span,
                    format!(
                        "`{}(...)` takes {} arguments, one per field, not {}",
                        st.name,
                        st.fields.len(),
                        args.len()
                    ),
                );
            }
            Type::Array(_, Some(n)) if args.len() as u32 != *n => {
                self.error(
                    span,
                    format!("`{ty}(...)` takes {n} arguments, not {}", args.len()),
                );
            }
            _ => {}
        }
    }

    fn resolve_call(
        &mut self,
        f: &ast::FunIdentifier,
        args: &[ast::Expr],
        span: Option<ast::NodeSpan>,
    ) -> (Callee, Type) {
        // `a.length()` parses as a call of the expression `a.length`.
        if let ast::FunIdentifierData::Expr(fe) = &f.content {
            if let ExprData::Dot(base, m) = &fe.content {
                if m.as_str() == "length" {
                    let t = self.expr_type(base);
                    if matches!(t, Type::Array(_, None)) && self.unsized_needs_constant_index(base)
                    {
                        self.error(
                            span,
                            "`length()` of an array declared without a size (give it one)",
                        );
                    }
                    return (Callee::Length, INT);
                }
            }
        }
        let arg_types: Vec<Type> = args.iter().map(|a| self.expr_type(a)).collect();
        // Some built-in function names (`texture2D`, ...) are also type names to
        // glsl-lang (Vulkan GLSL); a call of an opaque "type" is a function call.
        let name: String = match &f.content {
            ast::FunIdentifierData::TypeSpecifier(ts) => {
                let base_name = match &ts.ty.content {
                    ast::TypeSpecifierNonArrayData::TypeName(n) => Some(n.as_str().to_string()),
                    _ => None,
                };
                let known = base_name.as_deref().is_none_or(|n| {
                    self.structs.contains_key(n)
                        || self.buffer_references.contains_key(n)
                        || parse_type_name(n).is_some()
                });
                let before = self.diagnostics.len();
                let mut ty = self.type_of_specifier(ts);
                match (&ty, base_name) {
                    // A sampler or image from a handle (GL_ARB_bindless_texture).
                    (Type::Opaque(n), _)
                        if (n.contains("sampler") || n.contains("image")) && self.bindless() =>
                    {
                        self.diagnostics.truncate(before);
                        self.call_args = None;
                        return (Callee::Constructor(ty.clone()), ty);
                    }
                    (Type::Opaque(n), _) if ts.array_specifier.is_none() => {
                        self.diagnostics.truncate(before);
                        n.clone()
                    }
                    // An array of a sized type (`int16_t[](1s, 2s)`): its
                    // elements are not checked.
                    (_, Some(n))
                        if ts.array_specifier.is_some()
                            && types::is_sized_arithmetic(&n)
                            && builtins::is_extension_type(&n, &self.extensions) =>
                    {
                        self.diagnostics.truncate(before);
                        self.call_args = None;
                        let dims = ts
                            .array_specifier
                            .as_ref()
                            .map_or(0, |a| a.dimensions.len());
                        let ty = match dims {
                            1 => Type::Array(Box::new(Type::Opaque(n)), Some(args.len() as u32)),
                            _ => Type::Error,
                        };
                        return (Callee::Unknown, ty);
                    }
                    (_, Some(n)) if !known => {
                        self.diagnostics.truncate(before);
                        n
                    }
                    _ => {
                        if let Type::Array(elem, None) = ty {
                            ty = Type::Array(elem, Some(args.len() as u32));
                        }
                        self.call_args = Some((String::new(), arg_types));
                        return (Callee::Constructor(ty.clone()), ty);
                    }
                }
            }
            ast::FunIdentifierData::Expr(fe) => {
                let ExprData::Variable(name) = &fe.content else {
                    self.error(span, "this expression cannot be called");
                    return (Callee::Unknown, Type::Error);
                };
                name.as_str().to_string()
            }
        };
        let r = self.resolve_named(&name, &arg_types, span);
        self.call_args = Some((name, arg_types));
        r
    }

    /// GL_KHR_vulkan_glsl's separate textures and samplers: a combined
    /// sampler made of a texture and a sampler (`sampler2D(t, s)`,
    /// `sampler2DShadow(t, sShadow)`), and the lookups of
    /// GL_EXT_samplerless_texture_functions on a texture (`texelFetch(t,
    /// p, 0)`), typed as on the combined sampler of the texture's kind.
    /// `None`: not such a call.
    fn separate_sampling(
        &mut self,
        name: &str,
        arg_types: &[Type],
        span: Option<ast::NodeSpan>,
    ) -> Option<(Callee, Type)> {
        // `itexture2DArray` -> (`i`, `2DArray`).
        let texture = |t: &Type| match t {
            Type::Opaque(n) => {
                let (prefix, rest) = match n.strip_prefix(['i', 'u']) {
                    Some(rest) => (&n[..1], rest),
                    None => ("", n.as_str()),
                };
                let kind = rest.strip_prefix("texture")?;
                crate::shader::SEPARATE_TEXTURES
                    .contains(&rest)
                    .then(|| (prefix.to_string(), kind.to_string()))
            }
            _ => None,
        };
        let combined_type = || {
            name.trim_start_matches(['i', 'u']).starts_with("sampler")
                && parse_type_name(name).is_some_and(|t| matches!(t, Type::Opaque(_)))
        };
        let Some((prefix, kind)) = arg_types.first().and_then(texture) else {
            // A combined sampler of something else than a texture (and, in
            // OpenGL GLSL, of anything: `sampler2D` is no function there).
            if combined_type() && arg_types.iter().any(|t| matches!(t, Type::Opaque(_))) {
                let given: Vec<String> = arg_types.iter().map(Type::to_string).collect();
                let msg = format!(
                    "`{name}` is made of a texture and a sampler, not ({})",
                    given.join(", ")
                );
                self.error(span, msg);
                return Some((Callee::Unknown, Type::Error));
            }
            return None;
        };
        let combined = format!("{prefix}sampler{kind}");
        const SAMPLERLESS: [&str; 5] = [
            "texelFetch",
            "texelFetchOffset",
            "textureSize",
            "textureQueryLevels",
            "textureSamples",
        ];
        if SAMPLERLESS.contains(&name) {
            if !self
                .extensions
                .contains("GL_EXT_samplerless_texture_functions")
            {
                self.error(
                    span,
                    format!(
                        "`{name}` on a {} needs `#extension GL_EXT_samplerless_texture_functions`",
                        arg_types[0]
                    ),
                );
                return Some((Callee::Unknown, Type::Error));
            }
            let mut as_sampled = arg_types.to_vec();
            as_sampled[0] = Type::Opaque(combined);
            return Some(self.resolve_named(name, &as_sampled, span));
        }
        if name != combined && name != format!("{combined}Shadow") {
            if combined_type() {
                let msg = format!("`{name}` cannot be made of a {}", arg_types[0]);
                self.error(span, msg);
                return Some((Callee::Unknown, Type::Error));
            }
            return None;
        }
        let sampler = |t: &Type| matches!(t, Type::Opaque(n) if crate::shader::SEPARATE_SAMPLERS.contains(&n.as_str()));
        if arg_types.len() != 2 || !sampler(&arg_types[1]) {
            let msg = format!("`{name}` takes a texture{kind} and a sampler");
            self.error(span, msg);
            return Some((Callee::Unknown, Type::Error));
        }
        Some((Callee::Unknown, Type::Opaque(name.to_string())))
    }

    /// A built-in function on explicitly sized types (`abs(i16vec2)`,
    /// `dFdx(f16vec2)`, `clamp(uint8_t, ...)`): glslang has an overload for
    /// every width, the tables the 32-bit ones. Resolved on each sized
    /// argument's 32-bit stand-in of its kind and size (`ivec2`, `vec2`,
    /// `uint`; 64-bit floats: doubles), with no conversion; where the result is an argument's
    /// stand-in it is that argument's type, and a float result of a float
    /// argument's (`length(f16vec3)`) has its width. Not modelled further
    /// (`Callee::Unknown`). `None`: no sized argument, or no overload.
    fn sized_builtin(&mut self, name: &str, arg_types: &[Type]) -> Option<(Callee, Type)> {
        let sized = |t: &Type| matches!(t, Type::Opaque(n) if types::is_sized_arithmetic(n));
        let first = arg_types.iter().find(|t| sized(t))?;
        let stand_in = |t: &Type| -> Type {
            let Some((kind, bits, n)) = types::arithmetic_parts(t).filter(|_| sized(t)) else {
                return t.clone();
            };
            let scalar = match (kind, bits) {
                ('i', _) => Scalar::Int,
                ('u', _) => Scalar::Uint,
                ('f', 64) => Scalar::Double,
                _ => Scalar::Float,
            };
            match n {
                1 => Type::Scalar(scalar),
                n => Type::Vector(scalar, n),
            }
        };
        let widened: Vec<Type> = arg_types.iter().map(stand_in).collect();
        let builtin = builtins::function_overloads_with(name, &self.env, &self.extensions);
        // Exactly: a conversion of the stand-in need not be one of the type.
        let sig = *builtin
            .iter()
            .find(|s| s.params.iter().map(|p| &p.ty).eq(widened.iter()))?;
        let ret =
            match (0..arg_types.len()).find(|&i| sized(&arg_types[i]) && widened[i] == sig.ret) {
                Some(i) => arg_types[i].clone(),
                None => match (
                    types::arithmetic_parts(first),
                    types::arithmetic_parts(&sig.ret),
                ) {
                    (Some(('f', bits, _)), Some(('f', 32, n))) if bits != 32 => {
                        types::sized_type('f', bits, n)
                    }
                    _ => sig.ret.clone(),
                },
            };
        Some((Callee::Unknown, ret))
    }

    /// Resolves a call of `name` (a function or a type) with arguments of
    /// `arg_types`.
    fn resolve_named(
        &mut self,
        name: &str,
        arg_types: &[Type],
        span: Option<ast::NodeSpan>,
    ) -> (Callee, Type) {
        {
            {
                if let Some(r) = self.separate_sampling(name, arg_types, span) {
                    return r;
                }
                if let Some(s) = self.structs.get(name) {
                    let ty = Type::Struct(s.clone());
                    return (Callee::Constructor(ty.clone()), ty);
                }
                if self.buffer_references.contains_key(name) {
                    return self.buffer_reference_constructor(name, arg_types, span);
                }
                if let Some(ty) = parse_type_name(name).filter(|t| !matches!(t, Type::Opaque(_))) {
                    return (Callee::Constructor(ty.clone()), ty);
                }
                if builtins::is_extension_type(name, &self.extensions) {
                    // A constructor of an extension's type (`int8_t(x)`,
                    // `accelerationStructureEXT(addr)`): its arguments are
                    // not checked; a sized arithmetic type is that type.
                    let ty = match types::is_sized_arithmetic(name) {
                        true => Type::Opaque(name.to_string()),
                        false => Type::Error,
                    };
                    return (Callee::Unknown, ty);
                }
                if arg_types.iter().any(Type::is_error) {
                    return (Callee::Unknown, Type::Error);
                }
                let conv = self.conversions();
                if let Some(ids) = self.functions_by_name.get(name) {
                    let functions = &self.functions;
                    let cands = ids
                        .iter()
                        .map(|&id| (id, functions[id].params.iter().map(|p| &p.ty)));
                    if let Some(id) = best_overload(arg_types, cands, conv) {
                        return (Callee::User(id), self.functions[id].ret.clone());
                    }
                }
                if let Some(sig) =
                    self.builtin_calls
                        .get(name, arg_types, self.env, self.extensions)
                {
                    return (Callee::Builtin(sig), sig.ret.clone());
                }
                if let Some(r) = self.sized_builtin(name, arg_types) {
                    return r;
                }
                let builtin = builtins::function_overloads_with(name, &self.env, &self.extensions);
                if builtin.is_empty() && self.extensions.lifts(name) {
                    // An extension's function the tables do not model.
                    return (Callee::Unknown, Type::Error);
                }
                let cands = builtin.iter().map(|s| (*s, s.params.iter().map(|p| &p.ty)));
                if let Some(sig) = best_overload(arg_types, cands, conv) {
                    self.builtin_calls.insert(name, arg_types, sig);
                    return (Callee::Builtin(sig), sig.ret.clone());
                }
                if builtin.is_empty() {
                    let deprecated_lookup =
                        name.starts_with("texture") || name.starts_with("shadow");
                    if let Some(env) = self.legacy_env().filter(|_| deprecated_lookup) {
                        let legacy =
                            builtins::function_overloads_with(name, &env, &self.extensions);
                        let cands = legacy.iter().map(|s| (*s, s.params.iter().map(|p| &p.ty)));
                        if let Some(sig) = best_overload(arg_types, cands, conv) {
                            self.deprecated_warning(span, name);
                            return (Callee::Builtin(sig), sig.ret.clone());
                        }
                    }
                }
                let args: Vec<String> = arg_types.iter().map(Type::to_string).collect();
                let known = self.functions_by_name.contains_key(name) || !builtin.is_empty();
                if known {
                    let msg = format!("no overload of `{name}` takes ({})", args.join(", "));
                    let types: Vec<&Type> = arg_types.iter().collect();
                    self.type_error(span, msg, &types);
                } else if builtins::is_builtin_function(name) {
                    let msg = format!(
                        "`{name}` is not available in GLSL {} {} shaders",
                        self.env.version, self.env.stage
                    );
                    self.error(span, msg);
                } else {
                    let msg = format!("undeclared function `{name}`");
                    self.error_of(span, msg, DiagnosticKind::Undeclared(name.to_string()));
                }
                (Callee::Unknown, Type::Error)
            }
        }
    }

    fn binary_type(
        &mut self,
        op: &ast::BinaryOpData,
        a: Type,
        b: Type,
        span: Option<ast::NodeSpan>,
    ) -> Type {
        use ast::BinaryOpData as B;
        let references = self.is_buffer_reference(&a) || self.is_buffer_reference(&b);
        let conv = self.conversions();
        let unmodelled = !references && (sized_arithmetic(&a) || sized_arithmetic(&b));
        if a.is_error() || b.is_error() || unmodelled {
            return match op {
                B::Or
                | B::Xor
                | B::And
                | B::Equal
                | B::NonEqual
                | B::Lt
                | B::Gt
                | B::Lte
                | B::Gte => BOOL,
                // The sized operand's type, the likelier result (int64_t + int).
                _ if unmodelled && sized_arithmetic(&a) => a,
                _ if unmodelled => b,
                _ => Type::Error,
            };
        }
        let result = match op {
            _ if references => self.reference_arithmetic(op, &a, &b, span),
            B::Or | B::Xor | B::And => (a == BOOL && b == BOOL).then_some(BOOL),
            B::Equal | B::NonEqual => (conv.ty(&a, &b) || conv.ty(&b, &a)).then_some(BOOL),
            B::Lt | B::Gt | B::Lte | B::Gte => match (&a, &b) {
                (Type::Scalar(x), Type::Scalar(y))
                    if x.is_numeric()
                        && y.is_numeric()
                        && (conv.scalar(*x, *y) || conv.scalar(*y, *x)) =>
                {
                    Some(BOOL)
                }
                _ => None,
            },
            B::LShift | B::RShift => a
                .scalar()
                .filter(|s| s.is_integer())
                .and(b.scalar().filter(|s| s.is_integer()))
                .map(|_| a.clone()),
            B::Mult => arithmetic(&a, &b, true, conv),
            B::Add | B::Sub | B::Div => arithmetic(&a, &b, false, conv),
            B::Mod | B::BitAnd | B::BitOr | B::BitXor => {
                let ints = a.scalar().is_some_and(Scalar::is_integer)
                    && b.scalar().is_some_and(Scalar::is_integer);
                if ints {
                    arithmetic(&a, &b, false, conv)
                } else {
                    None
                }
            }
        };
        result.unwrap_or_else(|| {
            self.type_error(
                span,
                format!(
                    "operator `{}` cannot be applied to {a} and {b}",
                    crate::syntax::binary_op_symbol(op)
                ),
                &[&a, &b],
            );
            Type::Error
        })
    }
}

/// The implicit conversions a version allows (GLSL §4.1.10): none in GLSL
/// 1.10 and GLSL ES; int and uint to float from 1.20 (uint exists from
/// 1.30); int to uint and anything to double from 4.00 (or with
/// GL_ARB_gpu_shader5 / GL_ARB_gpu_shader_fp64;
/// GL_EXT_shader_implicit_conversions in ES).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Conversions {
    to_float: bool,
    to_uint: bool,
    to_double: bool,
}

impl Conversions {
    /// Every conversion of GLSL 4.60.
    pub const ALL: Conversions = Conversions {
        to_float: true,
        to_uint: true,
        to_double: true,
    };

    pub fn scalar(self, from: Scalar, to: Scalar) -> bool {
        if from == to {
            return true;
        }
        from.converts_to(to)
            && match to {
                Scalar::Float => self.to_float,
                Scalar::Uint => self.to_uint,
                Scalar::Double => self.to_double,
                _ => false,
            }
    }

    /// Whether a value of type `from` is accepted where `to` is expected.
    pub fn ty(self, from: &Type, to: &Type) -> bool {
        // The sized types of extensions (`int64_t`, `f16vec2`) have their
        // own rules (arrays of them: only the same type).
        if from.is_error() || to.is_error() {
            return true;
        }
        if let Some(ok) = crate::types::sized_converts(from, to) {
            return ok;
        }
        if sized_arithmetic(from) || sized_arithmetic(to) {
            return from == to || matches!(to, Type::Array(_, None));
        }
        if !from.converts_to(to) {
            return false;
        }
        match (from.scalar(), to.scalar()) {
            (Some(a), Some(b))
                if matches!(
                    from,
                    Type::Scalar(_) | Type::Vector(..) | Type::Matrix { .. }
                ) =>
            {
                self.scalar(a, b)
            }
            _ => true,
        }
    }
}

/// Whether `q` has the layout identifier `id` (any case, with or without
/// a value).
/// A block's members as a struct named as the block.
fn block_struct(name: &str, fields: &[(ast::Identifier, Type)]) -> StructType {
    StructType {
        name: name.to_string(),
        fields: fields
            .iter()
            .map(|(n, t)| Field {
                name: n.as_str().to_string(),
                ty: t.clone(),
            })
            .collect(),
    }
}

/// Whether a block's qualifiers make it a GL_EXT_buffer_reference block.
fn is_buffer_reference(q: &ast::TypeQualifier) -> bool {
    has_layout_id(q, "buffer_reference")
}

fn has_layout_id(q: &ast::TypeQualifier, id: &str) -> bool {
    q.qualifiers.iter().any(|spec| match &spec.content {
        ast::TypeQualifierSpecData::Layout(l) => l.ids.iter().any(|i| {
            matches!(&i.content, ast::LayoutQualifierSpecData::Identifier(n, _) if n.as_str().eq_ignore_ascii_case(id))
        }),
        _ => false,
    })
}

/// Whether the outermost dimension of a declaration is unsized: that of
/// the name's array specifier (`a[]`), or else of the type's (`float[] a`).
fn outer_unsized(name: Option<&ast::ArraySpecifier>, ty: Option<&ast::ArraySpecifier>) -> bool {
    name.or(ty)
        .and_then(|a| a.dimensions.first())
        .is_some_and(|d| d.content == ast::ArraySpecifierDimensionData::Unsized)
}

/// The built-ins whose first argument is the memory they operate on
/// atomically (GLSL §8.11, GL_KHR_memory_scope_semantics).
const ATOMIC_MEMORY_FUNCTIONS: [&str; 10] = [
    "atomicAdd",
    "atomicMin",
    "atomicMax",
    "atomicAnd",
    "atomicOr",
    "atomicXor",
    "atomicExchange",
    "atomicCompSwap",
    "atomicLoad",
    "atomicStore",
];

/// Whether a `Variable`'s name is a literal's text (`parse` puts the
/// literals glsl-lang's lexer rejects there: [`crate::syntax::ExtendedLiteral`]).
/// The first escape sequence of a string literal (quotes included) that
/// C's rules, which glslang follows, do not have: `\x` without a hex digit,
/// a letter or digit (`\8`, `\q`) that is none.
fn bad_escape(lit: &str) -> Option<String> {
    let mut chars = lit.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            continue;
        }
        let Some(e) = chars.next() else { break };
        let ok = match e {
            '\'' | '"' | '?' | '\\' | 'a' | 'b' | 'f' | 'n' | 'r' | 't' | 'v' => true,
            '0'..='7' => true,
            'x' => chars.peek().is_some_and(char::is_ascii_hexdigit),
            _ => false,
        };
        if !ok {
            return Some(format!("\\{e}"));
        }
    }
    None
}

pub fn literal_name(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_digit() || c == '.' || c == '"')
}

/// Whether `t` is (an array of) an explicitly sized arithmetic type of an
/// extension (`int64_t`, `f16vec2`), which the analysis does not model.
fn sized_arithmetic(t: &Type) -> bool {
    let mut t = t;
    while let Type::Array(e, _) = t {
        t = e;
    }
    matches!(t, Type::Opaque(n) if crate::types::is_sized_arithmetic(n))
}

/// Layout identifiers that only a declaration of their own (`layout(...)
/// in;`) may carry.
const STANDALONE_LAYOUTS: [&str; 23] = [
    "vertices",
    "quads",
    "isolines",
    "triangles",
    "equal_spacing",
    "fractional_even_spacing",
    "fractional_odd_spacing",
    "cw",
    "ccw",
    "point_mode",
    "points",
    "lines",
    "lines_adjacency",
    "triangles_adjacency",
    "line_strip",
    "triangle_strip",
    "max_vertices",
    "invocations",
    "local_size_x",
    "local_size_y",
    "local_size_z",
    "early_fragment_tests",
    "local_size_variable",
];

/// The stages a stage-specific layout identifier (lower case) exists in;
/// None for those of every stage (or unknown here).
fn layout_stages(name: &str) -> Option<&'static [crate::Stage]> {
    use crate::Stage as S;
    Some(match name {
        "vertices" => &[S::TessControl],
        "quads"
        | "isolines"
        | "equal_spacing"
        | "fractional_even_spacing"
        | "fractional_odd_spacing"
        | "cw"
        | "ccw"
        | "point_mode" => &[S::TessEvaluation],
        "triangles" => &[S::Geometry, S::TessEvaluation],
        "points"
        | "lines"
        | "lines_adjacency"
        | "triangles_adjacency"
        | "line_strip"
        | "triangle_strip"
        | "max_vertices"
        | "invocations"
        | "stream" => &[S::Geometry],
        "local_size_x" | "local_size_y" | "local_size_z" => &[S::Compute],
        "origin_upper_left"
        | "pixel_center_integer"
        | "early_fragment_tests"
        | "depth_any"
        | "depth_greater"
        | "depth_less"
        | "depth_unchanged"
        | "index" => &[S::Fragment],
        _ => return None,
    })
}

/// Whether a type is or contains bool.
fn contains_bool(t: &Type) -> bool {
    match t {
        Type::Scalar(Scalar::Bool) | Type::Vector(Scalar::Bool, _) => true,
        Type::Array(e, _) => contains_bool(e),
        Type::Struct(s) => s.fields.iter().any(|f| contains_bool(&f.ty)),
        _ => false,
    }
}

/// Result type of `a op b` for arithmetic operators (GLSL §5.9).
fn arithmetic(a: &Type, b: &Type, mult: bool, conv: Conversions) -> Option<Type> {
    let (sa, sb) = (a.scalar()?, b.scalar()?);
    if !sa.is_numeric() || !sb.is_numeric() {
        return None;
    }
    let s = if conv.scalar(sa, sb) {
        sb
    } else if conv.scalar(sb, sa) {
        sa
    } else {
        return None;
    };
    match (a, b) {
        (Type::Scalar(_), other) | (other, Type::Scalar(_)) => Some(other.with_scalar(s)),
        (Type::Vector(_, n), Type::Vector(_, m)) if n == m => Some(Type::Vector(s, *n)),
        (
            Type::Matrix {
                cols: c1, rows: r1, ..
            },
            Type::Matrix {
                cols: c2, rows: r2, ..
            },
        ) => {
            if mult {
                (c1 == r2).then_some(Type::Matrix {
                    scalar: s,
                    cols: *c2,
                    rows: *r1,
                })
            } else {
                (c1 == c2 && r1 == r2).then(|| a.with_scalar(s))
            }
        }
        (Type::Matrix { cols, rows, .. }, Type::Vector(_, n)) if mult && cols == n => {
            Some(Type::Vector(s, *rows))
        }
        (Type::Vector(_, n), Type::Matrix { cols, rows, .. }) if mult && rows == n => {
            Some(Type::Vector(s, *cols))
        }
        _ => None,
    }
}

/// Picks the overload that matches exactly, else the one needing the fewest
/// implicit conversions.
fn best_overload<'t, T, P>(
    args: &[Type],
    cands: impl IntoIterator<Item = (T, P)>,
    conv: Conversions,
) -> Option<T>
where
    P: ExactSizeIterator<Item = &'t Type>,
{
    let mut best: Option<(usize, T)> = None;
    for (c, params) in cands {
        if params.len() != args.len() {
            continue;
        }
        let mut conversions = 0;
        let ok = args.iter().zip(params).all(|(a, p)| {
            if a == p {
                true
            } else if conv.ty(a, p) {
                conversions += 1;
                true
            } else {
                false
            }
        });
        if ok && best.as_ref().is_none_or(|(n, _)| conversions < *n) {
            best = Some((conversions, c));
        }
    }
    best.map(|(_, c)| c)
}

/// Component indices of a swizzle (`xyz`, `rgba`, `stpq`), or None if invalid.
pub fn swizzle_indices(s: &str, components: u8) -> Option<Vec<u8>> {
    crate::syntax::swizzle(s, components).ok()
}

fn param_dir(q: Option<&ast::TypeQualifier>) -> ParamDir {
    let mut dir = ParamDir::In;
    for spec in q.map(|q| q.qualifiers.as_slice()).unwrap_or_default() {
        if let ast::TypeQualifierSpecData::Storage(s) = &spec.content {
            match s.content {
                ast::StorageQualifierData::Out => dir = ParamDir::Out,
                ast::StorageQualifierData::InOut => dir = ParamDir::InOut,
                _ => {}
            }
        }
    }
    dir
}

/// The storage a declaration's qualifiers give it.
pub fn storage_of(q: Option<&ast::TypeQualifier>) -> Storage {
    let mut storage = Storage::Private;
    for spec in q.map(|q| q.qualifiers.as_slice()).unwrap_or_default() {
        if let ast::TypeQualifierSpecData::Storage(s) = &spec.content {
            use ast::StorageQualifierData as S;
            storage = match s.content {
                S::Const => Storage::Const,
                S::In | S::Attribute => Storage::In,
                S::Varying => Storage::In, // `varying` is an output in vertex shaders; callers check the stage
                S::Out => Storage::Out,
                S::Uniform => Storage::Uniform,
                S::Buffer => Storage::Buffer,
                S::Shared => Storage::Shared,
                _ => storage,
            };
        }
    }
    storage
}

/// Whether a declaration uses `varying` (an output of vertex shaders).
pub fn is_varying(q: Option<&ast::TypeQualifier>) -> bool {
    q.is_some_and(|q| {
        q.qualifiers.iter().any(|s| {
            matches!(&s.content, ast::TypeQualifierSpecData::Storage(s) if s.content == ast::StorageQualifierData::Varying)
        })
    })
}

pub fn assign_binop(op: &ast::AssignmentOpData) -> ast::BinaryOpData {
    use ast::AssignmentOpData as A;
    use ast::BinaryOpData as B;
    match op {
        A::Equal | A::Add => B::Add,
        A::Mult => B::Mult,
        A::Div => B::Div,
        A::Mod => B::Mod,
        A::Sub => B::Sub,
        A::LShift => B::LShift,
        A::RShift => B::RShift,
        A::And => B::BitAnd,
        A::Xor => B::BitXor,
        A::Or => B::BitOr,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::parse;
    use crate::Stage;
    use expect_test::{expect, Expect};

    #[test]
    fn diagnostics_carry_their_kind() {
        let src = "#version 330 core\nstruct L { float r; };\nout vec4 o;\nvoid main() { L l; o = vec4(x); foo(); float f = l; l.q; }\n";
        let parsed = parse(&[src], Stage::Fragment, None).expect("parses");
        let kinds: Vec<DiagnosticKind> = Model::analyze(&parsed)
            .diagnostics
            .into_iter()
            .map(|d| d.kind)
            .collect();
        assert_eq!(
            kinds,
            [
                DiagnosticKind::Undeclared("x".into()),
                DiagnosticKind::Undeclared("foo".into()),
                DiagnosticKind::Types(vec!["L".into()]),
                DiagnosticKind::Types(vec!["L".into()]),
            ]
        );
    }

    fn check(src: &str, stage: Stage, want: Expect) {
        let parsed = parse(&[src], stage, None).expect("parses");
        let model = Model::analyze(&parsed);
        let out: Vec<String> = model
            .diagnostics
            .iter()
            .map(|d| {
                let l = parsed.source.locate(d.span.start);
                format!("{}:{}: {}", l.line, l.column, d.message)
            })
            .collect();
        want.assert_eq(&out.join("\n"));
    }

    #[test]
    fn clean_shaders_have_no_diagnostics() {
        check(
            r#"#version 330 core
struct Light { vec3 pos; float radius[2]; };
uniform Light lights[4];
uniform mat4 mvp;
uniform sampler2D tex;
in vec2 uv;
out vec4 color;
const int N = 2;
float falloff(in float d, out float k, inout vec3 acc) {
    k = d * 2.0;
    acc += vec3(k);
    return clamp(1.0 - d, 0.0, 1.0);
}
void main() {
    vec3 acc = vec3(0);
    float k;
    float arr[N * 2];
    for (int i = 0; i < 4; i++) {
        float d = length(lights[i].pos.xy - uv) / lights[i].radius[1];
        if (d > 1.0) continue;
        acc += falloff(d, k, acc) * texture(tex, uv).rgb;
        arr[i] = k;
    }
    mat3 m = mat3(mvp);
    vec3 v = m * acc;
    color = vec4(v, 1) * (uv.x > 0.5 ? 1.0 : 0.5);
    color.rg = uv.yx;
    int n = arr.length();
}
"#,
            Stage::Fragment,
            expect![""],
        );
    }

    /// The sized types of GL_EXT_shader_explicit_arithmetic_types convert
    /// as glslang has them (not at all before: every use was an error), and
    /// the literals glsl-lang's lexer rejects have their types.
    #[test]
    fn sized_types_and_extended_literals() {
        check(
            "#version 450\n#extension GL_EXT_shader_explicit_arithmetic_types : enable\nint64_t f(int16_t a, int32_t b) { return a + b; }\nvoid main() {\n    int16_t s = 1S;\n    int64_t ok = f(s, 2) + 0xFFFFFFFF;\n    int64_t bad = f(s, 3L);\n    int narrow = 4L;\n    float16_t h = 1.0;\n    float16_t h2 = 0.5hf;\n    1L = ok;\n}\n",
            Stage::Fragment,
            expect![[r#"
                7:19: no overload of `f` takes (int16_t, int64_t)
                8:18: cannot initialize `narrow` of type int with a value of type int64_t
                9:19: cannot initialize `h` of type float16_t with a value of type float
                11:5: an assignment needs a variable it can write, and this is a literal"#]],
        );
    }

    /// Statement and function attributes (hidden from glsl-lang by the
    /// parser) follow glslang's rules: an extension that has them, a
    /// positive `dependency_length`, not `inline` and `noinline` at once.
    #[test]
    fn attributes_need_their_extension_and_valid_arguments() {
        check(
            "#version 450\nvoid f() { [[unroll]] for (int i = 0; i < 2; i++) {} }\n#extension GL_EXT_control_flow_attributes : enable\n#extension GL_EXT_function_control_attributes : enable\n[[inline, noinline]] int g() { return 1; }\n[[noinline]] int h() { return 2; }\nvoid main() {\n    [[dependency_length(0), unroll]] for (int i = 0; i < 2; i++) {}\n    [[dependency_length(4)]] while (false) {}\n    [[ flatten ]] if (g() > h()) {}\n}\n",
            Stage::Fragment,
            expect![[r#"
                2:12: `[[unroll]]` needs `#extension GL_EXT_control_flow_attributes`
                5:1: `inline` and `noinline` are incompatible function attributes
                8:5: `dependency_length(0)`: the length must be positive"#]],
        );
    }

    /// Vulkan GLSL's separate textures and samplers: combined samplers are
    /// made of a texture of their kind and a sampler; lookups without a
    /// sampler need GL_EXT_samplerless_texture_functions.
    #[test]
    fn separate_textures_and_samplers() {
        check(
            "#version 450\nlayout(set = 0, binding = 0) uniform texture2D t;\nlayout(set = 0, binding = 1) uniform itexture3D t3;\nlayout(set = 0, binding = 2) uniform sampler s;\nlayout(set = 0, binding = 3) uniform samplerShadow ss;\nlayout(location = 0) out vec4 o;\nvoid main() {\n    vec4 c = texture(sampler2D(t, s), vec2(0.5));\n    float d = texture(sampler2DShadow(t, ss), vec3(0.5));\n    ivec4 i = texture(isampler3D(t3, s), vec3(0.5));\n    vec4 bad = texture(sampler3D(t, s), vec3(0.5));\n    vec4 worse = texture(sampler2D(t, t), vec2(0.5));\n    vec4 f = texelFetch(t, ivec2(0), 0);\n    vec4 g = texture(sampler2D(s, s), vec2(0.5));\n    o = c + d + vec4(i) + bad + worse + f + g;\n}\n",
            Stage::Fragment,
            expect![[r#"
                11:24: `sampler3D` cannot be made of a texture2D
                12:26: `sampler2D` takes a texture2D and a sampler
                13:14: `texelFetch` on a texture2D needs `#extension GL_EXT_samplerless_texture_functions`
                14:22: `sampler2D` is made of a texture and a sampler, not (sampler, sampler)"#]],
        );
    }

    /// GL_EXT_buffer_reference: a block's members read (and written)
    /// through references, its own type among them; references made from
    /// addresses and back. What glslang rejects: a `const` or input
    /// reference, comparing references, arithmetic without
    /// GL_EXT_buffer_reference2, uvec2 addresses without
    /// GL_EXT_buffer_reference_uvec2, a member of a forward declaration
    /// only, a reference from a float.
    #[test]
    fn buffer_references() {
        check(
            "#version 460\n#extension GL_EXT_buffer_reference : require\n#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require\nlayout(buffer_reference) buffer Node;\nlayout(buffer_reference) buffer Later;\nlayout(buffer_reference, std430) buffer Node { vec4 v; Node next[2]; int n; };\nlayout(push_constant) uniform P { Node head; } pc;\nlayout(location = 0) flat in Node input_ref;\nlayout(location = 0) out vec4 o;\nint count(Node n) { return n.n; }\nvoid main() {\n    Node n = pc.head;\n    pc.head.next[1].v = n.next[0].v;\n    n = Node(uint64_t(n) + 16ul);\n    const Node c = n;\n    bool same = n == c;\n    Node after = n + 1;\n    Node other = n[1];\n    uvec2 addr = uvec2(n);\n    Later l = Later(n);\n    float f = l.x + Node(1.5).v.x;\n    o = n.v + n.next[1].next[0].v * float(count(n)) + n.w;\n}\n",
            Stage::Fragment,
            expect![[r#"
                8:1: a shader input or output cannot hold a buffer reference: pass its address (uint64_t or uvec2) instead
                15:5: a buffer reference cannot be `const`
                16:17: buffer references do not compare: compare their addresses (`uint64_t(a) == uint64_t(b)`)
                17:18: arithmetic on a buffer reference needs GL_EXT_buffer_reference2
                18:18: arithmetic on a buffer reference needs GL_EXT_buffer_reference2
                19:18: a buffer reference to or from a uvec2 needs GL_EXT_buffer_reference_uvec2
                21:17: buffer reference `Later` is declared but not defined: it has no member `x`
                21:21: cannot make a `Node` reference from a value of type float: it takes a uint64_t or uvec2 address or another reference
                22:57: Node has no field `w`"#]],
        );
        check(
            "#version 460\n#extension GL_EXT_buffer_reference2 : require\nlayout(buffer_reference) buffer T { int x; };\nvoid main() {\n    T a = T(uvec2(0));\n    T b = a + 2;\n    b -= 1;\n    b[3].x = int(b - a);\n}\n",
            Stage::Fragment,
            expect![[r#"
                5:11: a buffer reference to or from a uvec2 needs GL_EXT_buffer_reference_uvec2"#]],
        );
    }

    /// Built-in functions take the sized types of their kind, and return
    /// them (as glslang has an overload for every width); AMD's half-float
    /// extension brings float16_t. (`abs` of an unsigned: glslang converts
    /// to int, this analysis to float; an error either way.)
    #[test]
    fn built_ins_on_sized_types() {
        check(
            "#version 450\n#extension GL_EXT_shader_explicit_arithmetic_types : enable\n#extension GL_AMD_gpu_shader_half_float : enable\nlayout(location = 0) in vec2 uv;\nconst int16_t k[3] = int16_t[](1s, 2s, 3s);\nvoid main() {\n    i16vec2 a = abs(i16vec2(uv));\n    f16vec2 d = dFdx(f16vec2(uv));\n    uint8_t c = clamp(uint8_t(1), uint8_t(0), uint8_t(2));\n    float16_t l = length(f16vec3(1.0));\n    f16vec2 wrong = length(d);\n    int16_t n = abs(uint16_t(3));\n}\n",
            Stage::Fragment,
            expect![[r#"
                11:21: cannot initialize `wrong` of type f16vec2 with a value of type float16_t
                12:17: cannot initialize `n` of type int16_t with a value of type float"#]],
        );
    }

    /// Strings are GL_EXT_debug_printf's formats: an error without it, and
    /// of a type nothing else takes.
    #[test]
    fn strings_are_debug_printf_formats() {
        check(
            "#version 450\nvoid f() { debugPrintfEXT(\"early\"); }\n#extension GL_EXT_debug_printf : enable\nvoid main() {\n    debugPrintfEXT(\"x = %f, \\\"é\\\"\\x41\\101\\t\", 1.0);\n    float s = \"1.0\";\n    debugPrintfEXT(\"\\xZ\");\n    debugPrintfEXT(\"\\8\");\n}\n",
            Stage::Fragment,
            expect![[r#"
                2:27: a string needs `#extension GL_EXT_debug_printf`
                2:12: undeclared function `debugPrintfEXT`
                6:15: cannot initialize `s` of type float with a value of type string
                7:20: invalid escape sequence `\x` in the string
                8:20: invalid escape sequence `\8` in the string"#]],
        );
    }

    /// Sized vectors swizzle; subgroup operations on them need the
    /// extended-types extension of their width.
    #[test]
    fn sized_vectors_swizzle_and_subgroups_need_their_extension() {
        check(
            "#version 450\n#extension GL_KHR_shader_subgroup_arithmetic : enable\n#extension GL_EXT_shader_explicit_arithmetic_types : enable\n#extension GL_EXT_shader_subgroup_extended_types_int16 : enable\nlayout(local_size_x = 8) in;\nlayout(std430, binding = 0) buffer B { i8vec4 a; i16vec4 b; };\nvoid main() {\n    int16_t s = b.y;\n    b.xy = subgroupAdd(b.zw);\n    a.x = subgroupAdd(a.x);\n    a.xr = a.xy;\n}\n",
            Stage::Compute,
            expect![[r#"
                10:23: `subgroupAdd` on int8_t needs `#extension GL_EXT_shader_subgroup_extended_types_int8`
                11:7: invalid swizzle `xr` on i8vec4"#]],
        );
    }

    /// `type_qualifier identifier_list;` (glsl-lang's grammar has only
    /// `invariant name;`): names must exist, and only some qualifiers can
    /// be added to them.
    #[test]
    fn qualifiers_added_to_existing_names() {
        check(
            "#version 450\nout float extra;\ninvariant gl_Position, gl_PointSize;\nprecise extra;\ncentroid gl_Position;\nprecise nowhere, extra;\nvoid main() { extra = 1.0; }\n",
            Stage::Vertex,
            expect![[r#"
                5:10: only `invariant`, `precise` or `layout(constant_id = ...)` can qualify the existing `gl_Position` anew
                6:9: undeclared identifier `nowhere`"#]],
        );
    }

    #[test]
    fn legacy_shader_has_no_diagnostics() {
        check(
            "attribute vec4 pos;\nvarying vec2 uv;\nuniform mat4 mvp;\nvoid main() {\n uv = pos.xy;\n gl_Position = mvp * pos;\n}\n",
            Stage::Vertex,
            expect![""],
        );
        check(
            "precision mediump float;\nvarying vec2 uv;\nuniform sampler2D s;\nvoid main() {\n gl_FragColor = texture2D(s, uv) * 2.0;\n}\n",
            Stage::Fragment,
            expect![""],
        );
    }

    #[test]
    fn errors_point_at_the_problem() {
        check(
            r#"#version 330 core
out vec4 color;
void main() {
    vec3 a = vec3(1.0);
    float b = a;
    color = vec4(undefinedThing);
    color.xq = vec2(1.0);
    color = a * mat2(1.0);
    int x = 1;
    int x = 2;
    if (x) {}
    foo(1);
}
"#,
            Stage::Fragment,
            expect![[r#"
                5:15: cannot initialize `b` of type float with a value of type vec3
                6:18: undeclared identifier `undefinedThing`
                7:11: invalid swizzle `xq` on vec4
                8:13: operator `*` cannot be applied to vec3 and mat2
                10:9: `x` is already declared in this scope
                11:9: condition must be bool, not int
                12:5: undeclared function `foo`"#]],
        );
    }

    #[test]
    fn version_gated_builtins() {
        check(
            "#version 330 core\nout vec4 o;\nvoid main() { gl_FragColor = vec4(1); }\n",
            Stage::Fragment,
            expect!["3:15: `gl_FragColor` is not in the core profile of GLSL 330 (removed in 1.40; drivers still accept it up to 4.10)"],
        );
        check(
            "#version 420 core\nuniform sampler2D s;\nvoid main() { gl_FragColor = texture2D(s, vec2(0)); }\n",
            Stage::Fragment,
            expect![[r#"
                3:15: undeclared identifier `gl_FragColor`
                3:30: `texture2D` is not available in GLSL 420 core fragment shaders"#]],
        );
        // GLSL 1.40 has them (GL_ARB_compatibility, which drivers expose).
        check(
            "#version 140\nuniform sampler2D s;\nvoid main() { gl_FragColor = texture2D(s, gl_TexCoord[0].xy) * gl_Color; }\n",
            Stage::Fragment,
            expect![""],
        );
    }

    /// Extensions are data (`builtins/extensions.txt`): what `#extension`
    /// enables comes into scope, unknown ones are errors only when required.
    #[test]
    fn extensions_bring_their_builtins() {
        let geom = "layout(points) in;\nlayout(points, max_vertices = 1) out;\nvoid main() { EmitStreamVertex(0); }\n";
        check(
            &format!("#version 150 core\n{geom}"),
            Stage::Geometry,
            expect!["4:15: `EmitStreamVertex` is not available in GLSL 150 core geometry shaders"],
        );
        check(
            &format!("#version 150 core\n#extension GL_ARB_gpu_shader5 : require\n{geom}"),
            Stage::Geometry,
            expect![""],
        );
        check(
            "#version 140\n#extension GL_ARB_texture_multisample : enable\nuniform isampler2DMS s;\nout vec4 o;\nvoid main() { o = vec4(texelFetch(s, ivec2(0), 1)) + vec4(textureSize(s), 0, 0); }\n",
            Stage::Fragment,
            expect![""],
        );
        // Each line counts from where it stands.
        check(
            "#version 150 core\nlayout(points) in;\nlayout(points, max_vertices = 1) out;\nvoid a() { EmitStreamVertex(0); }\n#extension GL_ARB_gpu_shader5 : enable\nvoid b() { EmitStreamVertex(0); }\n#extension GL_ARB_gpu_shader5 : disable\nvoid main() { EmitStreamVertex(0); }\n",
            Stage::Geometry,
            expect![[r#"
                4:12: `EmitStreamVertex` is not available in GLSL 150 core geometry shaders
                8:15: `EmitStreamVertex` is not available in GLSL 150 core geometry shaders"#]],
        );
        // Built-ins the tables do not model yet are accepted, untyped.
        check(
            "#version 450\n#extension GL_KHR_shader_subgroup_ballot : enable\nlayout(local_size_x = 64) in;\nbuffer B { uvec4 b[]; };\nvoid main() { b[gl_SubgroupInvocationID] = subgroupBallot(true); }\n",
            Stage::Compute,
            expect![""],
        );
        check(
            "#version 460\n#extension GL_EXT_ray_query : enable\nlayout(local_size_x = 1) in;\nuniform accelerationStructureEXT tlas;\nvoid main() { rayQueryEXT q; rayQueryInitializeEXT(q, tlas, gl_RayFlagsNoneEXT, 0xFF, vec3(0), 0.0, vec3(1), 1.0); }\n",
            Stage::Compute,
            expect![""],
        );
        check(
            "#version 450\n#extension GL_NO_such_thing : require\n#extension GL_NO_other : enable\n#extension all : warn\nvoid main() {}\n",
            Stage::Fragment,
            expect![[r#"
                2:1: extension `GL_NO_such_thing` is not supported
                3:1: extension `GL_NO_other` is not supported (ignored)"#]],
        );
    }

    /// A built-in called again with other argument types resolves to
    /// another overload (resolutions are remembered per argument types).
    #[test]
    fn repeated_builtin_calls_resolve_per_argument_types() {
        check(
            "#version 450\nout vec4 o;\nvoid main() {\n  float a = abs(-1.0);\n  int b = abs(-1);\n  int c = abs(-1.0);\n  float d = abs(-1);\n  ivec2 e = abs(vec2(1.0));\n  o = vec4(a, b, c, d) + vec4(e, abs(ivec2(1)));\n}\n",
            Stage::Fragment,
            expect![[r#"
                6:11: cannot initialize `c` of type int with a value of type float
                8:13: cannot initialize `e` of type ivec2 with a value of type vec2"#]],
        );
    }

    /// GLSL 1.10 and GLSL ES have no implicit conversions; 1.20 converts
    /// int to float, 4.00 also int to uint and to double.
    #[test]
    fn implicit_conversions_follow_the_version() {
        let body = "void main() { float f = 1; uint u = 1; double d = 1.0; f = f + 1; }\n";
        check(
            &format!(
                "#version 110\n{}",
                "void main() { float f = 1; f = f + 1; }\n"
            ),
            Stage::Fragment,
            expect![[r#"
                2:25: cannot initialize `f` of type float with a value of type int
                2:32: operator `+` cannot be applied to float and int"#]],
        );
        check(
            &format!("#version 330\n{body}"),
            Stage::Fragment,
            expect![[r#"
                2:37: cannot initialize `u` of type uint with a value of type int
                2:51: cannot initialize `d` of type double with a value of type float"#]],
        );
        check(
            &format!("#version 400\n{body}"),
            Stage::Fragment,
            expect![""],
        );
        check(
            "#version 300 es\nprecision highp float;\nvoid main() { float f = 1; f = f * 2; }\n",
            Stage::Fragment,
            expect![[r#"
                3:25: cannot initialize `f` of type float with a value of type int
                3:32: operator `*` cannot be applied to float and int"#]],
        );
    }

    /// Writes to what cannot be written (GLSL §5.8).
    #[test]
    fn writes_need_a_writable_variable() {
        check(
            r#"#version 330 core
const float k = 1.0;
uniform vec4 u;
in vec2 uv;
out vec4 o;
void twice(inout float x) { x *= 2.0; }
void main() {
    const int n = 2;
    k = 2.0;
    u.x = 1.0;
    uv[0] += 1.0;
    n++;
    gl_FragCoord = vec4(0);
    twice(u.y);
    sin(1.0) = 2.0;
    float f = 1.0;
    f = 2.0;
    o.xy = uv;
    twice(f);
    twice(o.z);
}
"#,
            Stage::Fragment,
            expect![[r#"
                9:5: an assignment needs a variable it can write, and this is the constant `k`
                10:5: an assignment needs a variable it can write, and this is the uniform `u`
                11:5: an assignment needs a variable it can write, and this is the input `uv`
                12:5: `++`/`--` needs a variable it can write, and this is the constant `n`
                13:5: an assignment needs a variable it can write, and this is the input `gl_FragCoord`
                14:11: an `out` argument needs a variable it can write, and this is the uniform `u`
                15:5: an assignment needs a variable it can write, and this is a call's result"#]],
        );
    }

    /// Declarations, control flow and functions (GLSL §4-6).
    #[test]
    fn semantic_rules_of_declarations_and_statements() {
        check(
            r#"#version 330 core
uniform int count;
float a[count];
float b[0];
const float c;
const float d = sin(float(count));
float g;
float g;
in bool flag;
attribute vec4 p;
int f(int x) { if (x > 0) return; return x; }
float f(int y) { return 1.0; }
void v() { return 1; }
void main() {
    break;
    for (int i = 0; i < 2; i++) { if (i == 1) break; continue; }
    switch (count) { case 0: break; }
    continue;
    discard;
    const int n = 3;
    float ok[n + 1];
}
"#,
            Stage::Fragment,
            expect![[r#"
                3:9: an array size must be a constant integer expression
                4:9: an array size must be greater than zero
                5:13: the constant `c` needs an initializer
                6:17: the initializer of the constant `d` is not a constant expression
                8:7: `g` is already declared in this scope
                9:1: a shader input cannot be or contain bool (bool)
                11:27: `return` without a value in a function returning int
                12:1: `f` was declared returning int; overloads must differ in their parameters
                12:1: function `f` is already defined
                12:25: cannot return float from a function returning int
                13:19: a void function cannot return a value
                15:5: `break` outside a loop or switch
                18:5: `continue` outside a loop"#]],
        );
        check(
            "#version 330 core\nvoid main() { discard; }\nint main(int x) { return 0; }\n",
            Stage::Vertex,
            expect![[r#"
                2:15: `discard` is only allowed in fragment shaders, not in vertex shaders
                3:1: `main` must return void
                3:1: `main` takes no parameters"#]],
        );
        // 4.20 allows a `const` local with any initializer; ES 3 does not.
        check(
            "#version 420 core\nuniform float u;\nout vec4 o;\nvoid main() { const float k = u; o = vec4(k); }\n",
            Stage::Fragment,
            expect![""],
        );
        check(
            "#version 300 es\nprecision highp float;\nuniform float u;\nin float varying_x;\nout vec4 o;\nvoid main() { const float k = u; o = vec4(k); }\n",
            Stage::Fragment,
            expect!["6:31: the initializer of the constant `k` is not a constant expression"],
        );
    }

    /// Indexing (GLSL §4.1.9, §5.7), initializer lists, reserved names.
    #[test]
    fn indices_initializers_and_reserved_names() {
        check(
            r#"#version 430 core
uniform float u[];
uniform float sized[gl_MaxDrawBuffers];
layout(std430) buffer B { float last[]; };
float gl_mine;
struct gl_S { float x; };
void gl_f() {}
out vec4 gl_FragColor;
float inner[2][];
void main() {
    vec3 v = vec3(0);
    mat2 m = mat2(1.0);
    float a[3] = float[3](1.0, 2.0, 3.0);
    int i = 1;
    float x = v[3] + v[-1] + m[2][0] + a[3] + a[i] + v[i];
    x += u[i] + u[1] + sized[i] + last[i];
    int n = u.length() + last.length();
    float e[2] = {};
    float ok[2] = {1.0, 2.0};
}
"#,
            Stage::Fragment,
            expect![[r#"
                5:7: `gl_mine`: names starting with `gl_` are reserved for built-ins
                6:8: `gl_S`: names starting with `gl_` are reserved for built-ins
                7:6: `gl_f`: names starting with `gl_` are reserved for built-ins
                9:12: only the outermost dimension of an array of arrays can be left unsized
                15:17: index 3 is out of range: vec3 has 3 elements
                15:24: index -1 is negative
                15:32: index 2 is out of range: mat2 has 2 elements
                15:42: index 3 is out of range: float[3] has 3 elements
                16:12: an array declared without a size can only be indexed with a constant (give it a size)
                17:13: `length()` of an array declared without a size (give it one)
                18:18: an initializer list cannot be empty"#]],
        );
    }

    /// Qualifiers: where they may stand, layout identifiers of other
    /// stages or later versions (GLSL §4.3-4.4).
    #[test]
    fn qualifier_rules() {
        check(
            r#"#version 400 core
layout(vertices = 4) out;
layout(quads) in;
patch in vec4 pin;
patch out vec4 pout;
layout(binding = 1) uniform sampler2D s;
layout(location = 1) out vec4 o[];
layout(std140) uniform U { layout(offset = 0) vec4 a; };
void main() {
    shared float sh;
    uniform float un;
    const float ok = 1.0;
}
"#,
            Stage::TessControl,
            expect![[r#"
                3:8: `quads` is not a layout qualifier of tessellation control shaders
                4:1: `patch` qualifies tessellation control outputs and tessellation evaluation inputs only
                6:8: `binding` needs GLSL 4.20 or GL_ARB_shading_language_420pack or GL_ARB_shader_storage_buffer_object or GL_ARB_shader_atomic_counters or GL_ARB_shader_image_load_store or GL_ARB_bindless_texture
                8:35: `offset` on a block member needs GLSL 4.40 or GL_ARB_enhanced_layouts
                10:5: `shared` variables must be declared outside functions
                11:5: `uniform` variables must be declared outside functions"#]],
        );
        check(
            "#version 330 core\nflat in vec4 v;\nsample out vec4 o;\nlayout(depth_less) in float d;\nlayout(LOCATION = 0) out vec4 o2;\nvoid main() {}\n",
            Stage::Fragment,
            expect![[r#"
                3:1: `sample` cannot qualify fragment shader outputs
                4:8: `depth_less` applies to gl_FragDepth only"#]],
        );
        check(
            "#version 450\nlayout(triangles, equal_spacing) in;\nlayout(cw) in vec4 x;\nvoid main() {}\n",
            Stage::TessEvaluation,
            expect!["3:8: `cw` can only be in a declaration of its own (`layout(cw) in;`)"],
        );
        check(
            "#version 450\nvoid f() { uvec3 a = gl_WorkGroupSize; }\nlayout(local_size_x = 0) in;\nvoid main() { uvec3 b = gl_WorkGroupSize; }\n",
            Stage::Compute,
            expect![[r#"
                2:22: `gl_WorkGroupSize` is read before `layout(local_size_x = ...) in;` declares it
                3:8: `local_size_x` must be at least 1"#]],
        );
    }

    /// GLSL ES: float in fragment shaders and most samplers need a precision.
    #[test]
    fn es_default_precision() {
        check(
            "#version 300 es\nuniform highp sampler3D a;\nuniform sampler2DArray b;\nuniform sampler2D c;\nin vec2 uv;\nprecision mediump float;\nin vec2 uv2;\nout vec4 o;\nvoid main() { float f = 1.0; o = vec4(uv + uv2, f, 1.0); }\n",
            Stage::Fragment,
            expect![[r#"
                3:1: `sampler2DArray` has no default precision here: give it one (`precision mediump sampler2DArray;`) or qualify the declaration
                5:1: `float` has no default precision here: give it one (`precision mediump float;`) or qualify the declaration"#]],
        );
        check(
            "#version 300 es\nin vec4 p;\nvoid main() { float f = 1.0; gl_Position = p * f; }\n",
            Stage::Vertex,
            expect![""],
        );
    }

    /// Locations shared by inputs or outputs (GLSL §4.4.1), transform
    /// feedback of unsized arrays, `gl_` names in blocks.
    #[test]
    fn locations_and_block_names() {
        check(
            r#"#version 450
layout(location = 0, component = 0) flat in uint u;
layout(location = 0, component = 1) flat in int i;
layout(location = 1, component = 0) in float f;
layout(location = 1, component = 2) flat in float g;
layout(location = 2) in vec4 full;
layout(location = 2, component = 3) in float over;
layout(location = 3, component = 0) in double d;
layout(location = 3, component = 2) in float e;
in gl_mine { int a; } blk;
in Mine { int gl_a; } gl_inst;
out vec4 o;
void main() {}
"#,
            Stage::Fragment,
            expect![[r#"
                5:51: `g` shares location 1 with `f`: they must have the same basic type and interpolation
                7:46: `over` uses location 2 where `full` is (components overlap)
                9:46: `e` shares location 3 with `d`: they must have the same basic type and interpolation
                10:4: `gl_mine`: names starting with `gl_` are reserved for built-ins
                11:23: `gl_inst`: names starting with `gl_` are reserved for built-ins
                11:15: `gl_a`: names starting with `gl_` are reserved for built-ins"#]],
        );
        check(
            "#version 450\nlayout(xfb_offset = 0) out vec4 xs[];\nvoid main() {}\n",
            Stage::Vertex,
            expect!["2:33: `xs`: an array without a size cannot be captured by transform feedback"],
        );
    }

    /// Constructors take the data they need (GLSL §5.4); some built-in
    /// arguments must be constant.
    #[test]
    fn constructors_and_constant_arguments() {
        check(
            r#"#version 450
struct S { float a; int b; };
uniform sampler2D t;
in vec3 v;
out vec4 o;
void main() {
    vec4 ok = vec4(v, 1.0) + vec4(1.0) + vec4(mat2(1.0)) + vec4(v.xy, v.xy);
    mat3 m = mat3(mat4(1.0)) + mat3(v, v, v);
    vec4 few = vec4(v);
    vec2 extra = vec2(1.0, 2.0, 3.0);
    mat2 mixed = mat2(mat2(1.0), 1.0);
    S s1 = S(1.0, 2);
    S s2 = S(1.0);
    float a[2] = float[2](1.0, 2.0, 3.0);
    vec4 b = vec4(s1);
    int i = 1;
    o = textureOffset(t, v.xy, ivec2(1)) + textureOffset(t, v.xy, ivec2(i));
}
"#,
            Stage::Fragment,
            expect![[r#"
                9:16: not enough data for `vec4(...)`: 3 of 4 components
                10:18: too many arguments to `vec2(...)`: argument 3 is not used
                11:18: a matrix argument to `mat2(...)` must be its only argument
                13:12: `S(...)` takes 2 arguments, one per field, not 1
                14:18: `float[2](...)` takes 2 arguments, not 3
                15:14: cannot construct vec4 from a value of type S
                17:67: argument 3 of `textureOffset` must be a constant expression"#]],
        );
    }

    /// GLSL ES rules of glslang's ES tests (versionsClean.frag,
    /// 300layout.frag, glsl.es300.layoutOffset.error.vert,
    /// nvShaderNoperspectiveInterpolation.frag, atomicAdd.comp,
    /// 310implicitSizeArrayError.vert, 310runtimeArray.vert).
    #[test]
    fn subpass_inputs_name_their_attachment_in_fragment_shaders() {
        let frag = |decl: &str| {
            format!(
                "#version 460\n{decl}\nlayout(location = 0) out vec4 o;\nvoid main() {{ o = vec4(0.0); }}\n"
            )
        };
        check(
            &frag(
                "layout(set = 0, binding = 0, input_attachment_index = 0) uniform subpassInput a;",
            ),
            Stage::Fragment,
            expect![""],
        );
        check(
            &frag("layout(set = 0, binding = 0) uniform subpassInput a;"),
            Stage::Fragment,
            expect!["2:51: `a`: a subpass input needs an input_attachment_index layout qualifier"],
        );
        check(
            &frag("#extension GL_EXT_optional_input_attachment_index : enable\nlayout(set = 0, binding = 0) uniform usubpassInputMS a[];"),
            Stage::Fragment,
            expect!["3:54: `a`: a subpass input needs an input_attachment_index layout qualifier"],
        );
        check(
            &frag("#extension GL_EXT_optional_input_attachment_index : enable\nlayout(set = 0, binding = 0) uniform subpassInput a;"),
            Stage::Fragment,
            expect![""],
        );
        check(
            "#version 460\nlayout(set = 0, binding = 0, input_attachment_index = 0) uniform subpassInput a;\nvoid main() {}\n",
            Stage::Vertex,
            expect!["2:79: `subpassInput` is only for fragment shaders"],
        );
    }

    #[test]
    fn es_versions_layouts_qualifiers_and_array_sizes() {
        // Mesa compiles it: a warning, never an error that stops debugging.
        let late = "// a comment\n#version 300 es\nvoid main() {}\n";
        let parsed = parse(&[late], Stage::Vertex, None).expect("parses");
        assert_eq!(Model::analyze(&parsed).errors().count(), 0);
        check(
            "// a comment\n#version 300 es\nvoid main() {}\n",
            Stage::Vertex,
            expect!["2:1: `#version 300 es` must be on the first line of the shader (Mesa accepts it; glslang, ANGLE and WebGL reject it)"],
        );
        check(
            "// ES 1.00 allows it\n#version 100\nvoid main() {}\n",
            Stage::Vertex,
            expect![""],
        );
        check(
            r#"#version 300 es
precision mediump float;
layout(location = 2) in vec4 color;
layout(binding = 0) uniform sampler2D s;
layout(location = 0) out vec4 o;
layout(location = 1) uniform float u;
layout(std140, binding = 1) uniform U { vec4 k; };
noperspective in vec4 a;
#extension GL_NV_shader_noperspective_interpolation : enable
noperspective in vec4 b;
void main() { o = color + a + b; }
"#,
            Stage::Fragment,
            expect![[r#"
                3:8: `location` needs GLSL ES 3.10 or GL_EXT_separate_shader_objects
                4:8: `binding` needs GLSL ES 3.10
                6:8: `location` needs GLSL ES 3.10
                7:16: `binding` needs GLSL ES 3.10
                8:1: `noperspective` needs GL_NV_shader_noperspective_interpolation in GLSL ES"#]],
        );
        check(
            "#version 300 es\n#extension GL_EXT_separate_shader_objects : enable\nlayout(location = 0) out vec4 v;\nlayout(location = 0) in vec4 p;\nvoid main() { v = p; }\n",
            Stage::Vertex,
            expect![""],
        );
        check(
            "#version 300 es\nlayout(location = 0) out vec4 v;\nvoid main() {}\n",
            Stage::Vertex,
            expect!["2:8: `location` needs GLSL ES 3.10 or GL_EXT_separate_shader_objects"],
        );
        check(
            r#"#version 310 es
layout(local_size_x = 1) in;
buffer B { int x; int y[3]; } b;
shared int sh;
int z;
void main() { atomicAdd(b.x, 1); atomicAdd(b.y[1], 1); atomicAdd(sh, 1); atomicAdd(z, 1); }
"#,
            Stage::Compute,
            expect!["6:84: `atomicAdd` works on buffer and shared variables only, not on `z`"],
        );
        check(
            "#version 310 es\nshared vec4 s;\nvoid main() {}\n",
            Stage::Vertex,
            expect!["2:1: `shared` variables exist in compute shaders only, not in vertex shaders"],
        );
        check(
            r#"#version 310 es
layout(binding = 0) uniform U { highp int a[]; } u;
buffer B { float f[]; } b[];
buffer C { float g[]; float last[]; };
float arr[] = float[](1.0, 2.0);
void main() {}
"#,
            Stage::Vertex,
            expect![[r#"
                2:43: `a`: GLSL ES needs the size of this array
                3:25: `b`: GLSL ES needs the size of this array
                4:18: `g`: GLSL ES needs the size of this array"#]],
        );
        check(
            "#version 320 es\nlayout(triangles) in;\nlayout(points, max_vertices = 1) out;\nin highp vec4 v[];\nvoid main() {}\n",
            Stage::Geometry,
            expect![""],
        );
    }

    /// Vulkan GLSL has `gl_VertexIndex` where OpenGL has `gl_VertexID`; the
    /// API is read from the text (here: a push-constant block).
    #[test]
    fn vertex_builtins_follow_the_api() {
        let vulkan = "#version 450\nlayout(push_constant) uniform P { float k; } p;\n";
        check(
            &format!("{vulkan}void main() {{ gl_Position = vec4(gl_VertexIndex + gl_InstanceIndex); }}\n"),
            Stage::Vertex,
            expect![""],
        );
        check(
            &format!("{vulkan}void main() {{ gl_Position = vec4(gl_VertexID); }}\n"),
            Stage::Vertex,
            expect!["3:34: undeclared identifier `gl_VertexID`"],
        );
        check(
            "#version 450\nvoid main() { gl_Position = vec4(gl_VertexID + gl_InstanceID); }\n",
            Stage::Vertex,
            expect![""],
        );
    }

    #[test]
    fn swizzles() {
        assert_eq!(swizzle_indices("xyz", 3), Some(vec![0, 1, 2]));
        assert_eq!(swizzle_indices("rgba", 3), None);
        assert_eq!(swizzle_indices("xg", 4), None);
        assert_eq!(swizzle_indices("stp", 4), Some(vec![0, 1, 2]));
    }
}
