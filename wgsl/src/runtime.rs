//! The record runtime, built in naga IR: the debug buffer (the record layout
//! of `shaderdbg_core::layout`), two private globals, and the helper
//! functions probes call. Mirrors the GLSL engine's runtime word for word:
//!
//! - `_sdbg_alloc(p, n)`: if this invocation records and nothing overflowed,
//!   `atomicAdd(len, n + 2)`; if the entry does not fit in `cap`, set
//!   `overflow` and give up (so the log stops at the first entry that does not
//!   fit); else write `[p, tag]` and return where the payload goes
//!   ([`NONE`] when nothing is to be written);
//! - `_sdbg_step(p)`, `_sdbg_cond(p, c)`, `_sdbg_begin(p, selected, k0, k1, k2)`;
//! - per logged type `T`: `_sdbg_put_T(at, v)` stores `v`'s words (floats and
//!   ints as bit patterns, bools as 0/1, composites member by member in the
//!   order `Type::words` counts them) and `_sdbg_w_T(p, v)` logs one entry.
//!
//! Helpers go into a function arena before the user's functions: naga wants
//! callees before callers.

use std::collections::HashMap;

use naga::{
    AddressSpace, Arena, ArraySize, BinaryOperator, Block, Expression, Function, FunctionArgument,
    GlobalVariable, Handle, LocalVariable, Range, ResourceBinding, Scalar, ScalarKind, Span,
    Statement, StorageAccess, StructMember, Type, TypeInner, UnaryOperator, UniqueArena,
};

use crate::types::core_type;

/// "No slot": what `_sdbg_alloc` returns when nothing is to be written.
pub const NONE: u32 = u32::MAX;

/// Members of the debug buffer struct, in layout order (`layout::HEADER_WORDS` words, then data).
const LEN: u32 = 0;
const CAP: u32 = 1;
const OVERFLOW: u32 = 2;
const INVOCATIONS: u32 = 3;
const DATA: u32 = 4;

pub(crate) struct Runtime {
    pub step: Handle<Function>,
    pub cond: Handle<Function>,
    pub begin: Handle<Function>,
    writers: HashMap<Handle<Type>, Handle<Function>>,
}

impl Runtime {
    /// The entry-logging helper for values of type `ty`.
    pub fn writer(&self, ty: Handle<Type>) -> Option<Handle<Function>> {
        self.writers.get(&ty).copied()
    }
}

/// Appends `e` to `exprs`, with the `Emit` it needs (if any) at the end of `b`.
pub(crate) fn emit(
    exprs: &mut Arena<Expression>,
    b: &mut Block,
    e: Expression,
) -> Handle<Expression> {
    let pre = e.needs_pre_emit();
    let h = exprs.append(e, Span::UNDEFINED);
    if !pre {
        b.push(
            Statement::Emit(Range::new_from_bounds(h, h)),
            Span::UNDEFINED,
        );
    }
    h
}

pub(crate) fn lit(exprs: &mut Arena<Expression>, v: u32) -> Handle<Expression> {
    exprs.append(Expression::Literal(naga::Literal::U32(v)), Span::UNDEFINED)
}

/// A helper function under construction.
struct Fb {
    f: Function,
    buf: Handle<Expression>,
}

impl Fb {
    fn new(name: &str, buf: Handle<GlobalVariable>) -> Fb {
        let mut f = Function {
            name: Some(name.to_string()),
            ..Function::default()
        };
        let buf = f
            .expressions
            .append(Expression::GlobalVariable(buf), Span::UNDEFINED);
        Fb { f, buf }
    }

    /// The helper `name(args)`: its builder, an empty body and the arguments.
    fn start<const N: usize>(
        name: &str,
        buf: Handle<GlobalVariable>,
        args: [(&str, Handle<Type>); N],
    ) -> (Fb, Block, [Handle<Expression>; N]) {
        let mut fb = Fb::new(name, buf);
        let args = args.map(|(name, ty)| fb.arg(name, ty));
        (fb, Block::new(), args)
    }

    fn arg(&mut self, name: &str, ty: Handle<Type>) -> Handle<Expression> {
        let i = self.f.arguments.len() as u32;
        self.f.arguments.push(FunctionArgument {
            name: Some(name.to_string()),
            ty,
            binding: None,
        });
        self.f
            .expressions
            .append(Expression::FunctionArgument(i), Span::UNDEFINED)
    }

    fn e(&mut self, b: &mut Block, e: Expression) -> Handle<Expression> {
        emit(&mut self.f.expressions, b, e)
    }

    fn lit(&mut self, v: u32) -> Handle<Expression> {
        lit(&mut self.f.expressions, v)
    }

    fn bin(
        &mut self,
        b: &mut Block,
        op: BinaryOperator,
        left: Handle<Expression>,
        right: Handle<Expression>,
    ) -> Handle<Expression> {
        self.e(b, Expression::Binary { op, left, right })
    }

    fn member(&mut self, b: &mut Block, index: u32) -> Handle<Expression> {
        let base = self.buf;
        self.e(b, Expression::AccessIndex { base, index })
    }

    /// `data[at + k] = v`.
    fn store_word(&mut self, b: &mut Block, at: Handle<Expression>, k: u32, v: Handle<Expression>) {
        let at = if k == 0 {
            at
        } else {
            let k = self.lit(k);
            self.bin(b, BinaryOperator::Add, at, k)
        };
        let data = self.member(b, DATA);
        let pointer = self.e(
            b,
            Expression::Access {
                base: data,
                index: at,
            },
        );
        b.push(Statement::Store { pointer, value: v }, Span::UNDEFINED);
    }

    fn call(
        &mut self,
        b: &mut Block,
        function: Handle<Function>,
        arguments: Vec<Handle<Expression>>,
        returns: bool,
    ) -> Option<Handle<Expression>> {
        let result = returns.then(|| {
            self.f
                .expressions
                .append(Expression::CallResult(function), Span::UNDEFINED)
        });
        b.push(
            Statement::Call {
                function,
                arguments,
                result,
            },
            Span::UNDEFINED,
        );
        result
    }

    /// A pointer to a new local variable.
    fn local(&mut self, name: &str, ty: Handle<Type>) -> Handle<Expression> {
        let v = self.f.local_variables.append(
            LocalVariable {
                name: Some(name.to_string()),
                ty,
                init: None,
            },
            Span::UNDEFINED,
        );
        self.f
            .expressions
            .append(Expression::LocalVariable(v), Span::UNDEFINED)
    }

    /// A pointer to global `g`.
    fn global_ptr(&mut self, g: Handle<GlobalVariable>) -> Handle<Expression> {
        self.f
            .expressions
            .append(Expression::GlobalVariable(g), Span::UNDEFINED)
    }

    /// A pointer to global `g` and its value.
    fn global(
        &mut self,
        b: &mut Block,
        g: Handle<GlobalVariable>,
    ) -> (Handle<Expression>, Handle<Expression>) {
        let p = self.global_ptr(g);
        let v = self.load(b, p);
        (p, v)
    }

    fn load(&mut self, b: &mut Block, pointer: Handle<Expression>) -> Handle<Expression> {
        self.e(b, Expression::Load { pointer })
    }

    /// A pointer to the buffer's member `index` and its value.
    fn load_member(
        &mut self,
        b: &mut Block,
        index: u32,
    ) -> (Handle<Expression>, Handle<Expression>) {
        let p = self.member(b, index);
        let v = self.load(b, p);
        (p, v)
    }

    fn not(&mut self, b: &mut Block, expr: Handle<Expression>) -> Handle<Expression> {
        let op = UnaryOperator::LogicalNot;
        self.e(b, Expression::Unary { op, expr })
    }

    /// `at != NONE`: an allocated slot.
    fn not_none(&mut self, b: &mut Block, at: Handle<Expression>) -> Handle<Expression> {
        let none = self.lit(NONE);
        self.bin(b, BinaryOperator::NotEqual, at, none)
    }

    fn store(b: &mut Block, pointer: Handle<Expression>, value: Handle<Expression>) {
        b.push(Statement::Store { pointer, value }, Span::UNDEFINED);
    }

    fn if_(b: &mut Block, condition: Handle<Expression>, accept: Block) {
        b.push(
            Statement::If {
                condition,
                accept,
                reject: Block::new(),
            },
            Span::UNDEFINED,
        );
    }

    fn atomic_add(
        &mut self,
        b: &mut Block,
        pointer: Handle<Expression>,
        value: Handle<Expression>,
        u32_ty: Handle<Type>,
    ) -> Handle<Expression> {
        let r = self.f.expressions.append(
            Expression::AtomicResult {
                ty: u32_ty,
                comparison: false,
            },
            Span::UNDEFINED,
        );
        b.push(
            Statement::Atomic {
                pointer,
                fun: naga::AtomicFunction::Add,
                value,
                result: Some(r),
            },
            Span::UNDEFINED,
        );
        r
    }

    fn finish(mut self, mut body: Block, functions: &mut Arena<Function>) -> Handle<Function> {
        body.push(Statement::Return { value: None }, Span::UNDEFINED);
        self.f.body = body;
        functions.append(self.f, Span::UNDEFINED)
    }
}

fn ty(types: &mut UniqueArena<Type>, inner: TypeInner) -> Handle<Type> {
    types.insert(Type { name: None, inner }, Span::UNDEFINED)
}

struct Builder<'m> {
    types: &'m mut UniqueArena<Type>,
    functions: &'m mut Arena<Function>,
    buf: Handle<GlobalVariable>,
    u32_ty: Handle<Type>,
    /// The record log's allocator (record mode's writers only).
    alloc: Option<Handle<Function>>,
    puts: HashMap<Handle<Type>, Handle<Function>>,
}

/// Where a runtime goes: the module's types and globals, the arena its
/// helpers go into (empty: the user's functions come after), and the debug
/// buffer's `@group(group) @binding(binding)`.
pub(crate) struct Target<'m> {
    pub types: &'m mut UniqueArena<Type>,
    pub globals: &'m mut Arena<GlobalVariable>,
    pub functions: &'m mut Arena<Function>,
    pub group: u32,
    pub binding: u32,
}

/// Adds the debug buffer, the private globals and every helper (writers for
/// `payload_types`) to `target`.
pub(crate) fn build(mut target: Target, payload_types: &[Handle<Type>]) -> Runtime {
    let u32_ty = ty(target.types, TypeInner::Scalar(Scalar::U32));
    let bool_ty = ty(target.types, TypeInner::Scalar(Scalar::BOOL));
    let buf = header_buffer(&mut target, &LOG_BUFFER);
    let (types, globals, functions) = (target.types, target.globals, target.functions);
    let active = private(globals, "_sdbg_active", bool_ty);
    let tag = private(globals, "_sdbg_tag", u32_ty);

    // _sdbg_alloc(p, n) -> u32
    let alloc = {
        let (mut fb, mut b, [p, n]) = Fb::start("_sdbg_alloc", buf, [("p", u32_ty), ("n", u32_ty)]);
        fb.f.result = Some(naga::FunctionResult {
            ty: u32_ty,
            binding: None,
        });
        let none = fb.lit(NONE);
        let zero = fb.lit(0);
        let (_, is_active) = fb.global(&mut b, active);
        let inactive = fb.not(&mut b, is_active);
        let (overflowp, overflow) = fb.load_member(&mut b, OVERFLOW);
        let overflowed = fb.bin(&mut b, BinaryOperator::NotEqual, overflow, zero);
        let skip = fb.bin(&mut b, BinaryOperator::LogicalOr, inactive, overflowed);
        let give_up = || Block::from_vec(vec![Statement::Return { value: Some(none) }]);
        Fb::if_(&mut b, skip, give_up());
        let two = fb.lit(2);
        let need = fb.bin(&mut b, BinaryOperator::Add, n, two);
        let lenp = fb.member(&mut b, LEN);
        let at = fb.atomic_add(&mut b, lenp, need, u32_ty);
        let end = fb.bin(&mut b, BinaryOperator::Add, at, need);
        let (_, cap) = fb.load_member(&mut b, CAP);
        let full = fb.bin(&mut b, BinaryOperator::Greater, end, cap);
        let one = fb.lit(1);
        let mut on_full = Block::new();
        Fb::store(&mut on_full, overflowp, one);
        on_full.append(&mut give_up());
        Fb::if_(&mut b, full, on_full);
        fb.store_word(&mut b, at, 0, p);
        let (_, tagv) = fb.global(&mut b, tag);
        fb.store_word(&mut b, at, 1, tagv);
        let payload = fb.bin(&mut b, BinaryOperator::Add, at, two);
        b.push(
            Statement::Return {
                value: Some(payload),
            },
            Span::UNDEFINED,
        );
        fb.f.body = b;
        functions.append(fb.f, Span::UNDEFINED)
    };

    // _sdbg_step(p)
    let step = {
        let (mut fb, mut b, [p]) = Fb::start("_sdbg_step", buf, [("p", u32_ty)]);
        let zero = fb.lit(0);
        fb.call(&mut b, alloc, vec![p, zero], true);
        fb.finish(b, functions)
    };

    // _sdbg_cond(p, c)
    let cond = {
        let (mut fb, mut b, [p, c]) = Fb::start("_sdbg_cond", buf, [("p", u32_ty), ("c", bool_ty)]);
        let one = fb.lit(1);
        if let Some(at) = fb.call(&mut b, alloc, vec![p, one], true) {
            let ok = fb.not_none(&mut b, at);
            let mut accept = Block::new();
            let zero = fb.lit(0);
            let word = fb.e(
                &mut accept,
                Expression::Select {
                    condition: c,
                    accept: one,
                    reject: zero,
                },
            );
            fb.store_word(&mut accept, at, 0, word);
            Fb::if_(&mut b, ok, accept);
        }
        fb.finish(b, functions)
    };

    // _sdbg_begin(p, selected, k0, k1, k2)
    let begin = {
        let (mut fb, mut b, [p, selected, k0, k1, k2]) = Fb::start(
            "_sdbg_begin",
            buf,
            [
                ("p", u32_ty),
                ("selected", bool_ty),
                ("k0", u32_ty),
                ("k1", u32_ty),
                ("k2", u32_ty),
            ],
        );
        let keys = [k0, k1, k2];
        let activep = fb.global_ptr(active);
        Fb::store(&mut b, activep, selected);
        let not_selected = fb.not(&mut b, selected);
        Fb::if_(&mut b, not_selected, RETURN());
        let invp = fb.member(&mut b, INVOCATIONS);
        let one = fb.lit(1);
        let tagv = fb.atomic_add(&mut b, invp, one, u32_ty);
        let tagp = fb.global_ptr(tag);
        Fb::store(&mut b, tagp, tagv);
        let four = fb.lit(4);
        if let Some(at) = fb.call(&mut b, alloc, vec![p, four], true) {
            let ok = fb.not_none(&mut b, at);
            let mut accept = Block::new();
            for (k, key) in keys.into_iter().enumerate() {
                fb.store_word(&mut accept, at, k as u32, key);
            }
            let zero = fb.lit(0);
            fb.store_word(&mut accept, at, 3, zero);
            Fb::if_(&mut b, ok, accept);
        }
        fb.finish(b, functions)
    };

    let mut builder = Builder {
        types,
        functions,
        buf,
        u32_ty,
        alloc: Some(alloc),
        puts: HashMap::new(),
    };
    let mut writers = HashMap::new();
    for &t in payload_types {
        if let Some(w) = builder.writer(t) {
            writers.insert(t, w);
        }
    }
    Runtime {
        step,
        cond,
        begin,
        writers,
    }
}

impl Builder<'_> {
    /// `_sdbg_w_T(p, v)`; `None` for types the log cannot carry.
    fn writer(&mut self, t: Handle<Type>) -> Option<Handle<Function>> {
        let words = core_type(self.types, t).words()?;
        let put = self.put(t)?;
        let (mut fb, mut b, [p, v]) = Fb::start(
            &format!("_sdbg_w{}", t.index()),
            self.buf,
            [("p", self.u32_ty), ("v", t)],
        );
        let n = fb.lit(words);
        let at = fb.call(&mut b, self.alloc?, vec![p, n], true)?;
        let ok = fb.not_none(&mut b, at);
        let mut accept = Block::new();
        fb.call(&mut accept, put, vec![at, v], false);
        Fb::if_(&mut b, ok, accept);
        Some(fb.finish(b, self.functions))
    }

    /// `_sdbg_put_T(at, v)`: the words of `v` at `data[at..]`.
    fn put(&mut self, t: Handle<Type>) -> Option<Handle<Function>> {
        if let Some(&f) = self.puts.get(&t) {
            return Some(f);
        }
        if !core_type(self.types, t).is_loggable() {
            return None;
        }
        let inner = self.types[t].inner.clone();
        // Callees first: members' and elements' helpers.
        let parts: Vec<(Handle<Type>, u32)> = match &inner {
            TypeInner::Struct { members, .. } => members.iter().map(|m| (m.ty, 0)).collect(),
            TypeInner::Array { base, .. } => vec![(*base, 0)],
            _ => Vec::new(),
        };
        let mut part_puts = Vec::new();
        for (pt, _) in &parts {
            part_puts.push(self.put(*pt)?);
        }
        let (mut fb, mut b, [at, v]) = Fb::start(
            &format!("_sdbg_put{}", t.index()),
            self.buf,
            [("at", self.u32_ty), ("v", t)],
        );
        match inner {
            TypeInner::Scalar(s) => {
                let w = word(&mut fb, &mut b, v, s.kind);
                fb.store_word(&mut b, at, 0, w);
            }
            TypeInner::Vector { size, scalar } => {
                for i in 0..size as u32 {
                    let c = fb.e(&mut b, Expression::AccessIndex { base: v, index: i });
                    let w = word(&mut fb, &mut b, c, scalar.kind);
                    fb.store_word(&mut b, at, i, w);
                }
            }
            TypeInner::Matrix {
                columns,
                rows,
                scalar,
            } => {
                for c in 0..columns as u32 {
                    let col = fb.e(&mut b, Expression::AccessIndex { base: v, index: c });
                    for r in 0..rows as u32 {
                        let x = fb.e(
                            &mut b,
                            Expression::AccessIndex {
                                base: col,
                                index: r,
                            },
                        );
                        let w = word(&mut fb, &mut b, x, scalar.kind);
                        fb.store_word(&mut b, at, c * rows as u32 + r, w);
                    }
                }
            }
            TypeInner::Struct { members, .. } => {
                let mut off = 0;
                for (i, (m, put)) in members.iter().zip(&part_puts).enumerate() {
                    let field = fb.e(
                        &mut b,
                        Expression::AccessIndex {
                            base: v,
                            index: i as u32,
                        },
                    );
                    let k = fb.lit(off);
                    let mat = fb.bin(&mut b, BinaryOperator::Add, at, k);
                    fb.call(&mut b, *put, vec![mat, field], false);
                    off += core_type(self.types, m.ty).words()?;
                }
            }
            TypeInner::Array {
                base,
                size: ArraySize::Constant(n),
                ..
            } => {
                // A loop over a local copy: a dynamic index into a value
                // array is not allowed, and unrolling big arrays would bloat.
                let w = core_type(self.types, base).words()?;
                let copyp = fb.local("copy", t);
                let ip = fb.local("i", self.u32_ty);
                let zero = fb.lit(0);
                Fb::store(&mut b, copyp, v);
                Fb::store(&mut b, ip, zero);
                let mut body = Block::new();
                let iv = fb.load(&mut body, ip);
                let n = fb.lit(n.get());
                let done = fb.bin(&mut body, BinaryOperator::GreaterEqual, iv, n);
                Fb::if_(&mut body, done, Block::from_vec(vec![Statement::Break]));
                let ep = fb.e(
                    &mut body,
                    Expression::Access {
                        base: copyp,
                        index: iv,
                    },
                );
                let ev = fb.load(&mut body, ep);
                let wl = fb.lit(w);
                let off = fb.bin(&mut body, BinaryOperator::Multiply, iv, wl);
                let eat = fb.bin(&mut body, BinaryOperator::Add, at, off);
                fb.call(&mut body, *part_puts.first()?, vec![eat, ev], false);
                let mut continuing = Block::new();
                let iv2 = fb.load(&mut continuing, ip);
                let one = fb.lit(1);
                let next = fb.bin(&mut continuing, BinaryOperator::Add, iv2, one);
                Fb::store(&mut continuing, ip, next);
                b.push(
                    Statement::Loop {
                        body,
                        continuing,
                        break_if: None,
                    },
                    Span::UNDEFINED,
                );
            }
            _ => return None,
        }
        let f = fb.finish(b, self.functions);
        self.puts.insert(t, f);
        Some(f)
    }
}

/// The log word of a 32-bit scalar: its bit pattern, or 0/1 for a bool.
fn word(fb: &mut Fb, b: &mut Block, v: Handle<Expression>, kind: ScalarKind) -> Handle<Expression> {
    match kind {
        ScalarKind::Uint => v,
        ScalarKind::Bool => {
            let one = fb.lit(1);
            let zero = fb.lit(0);
            fb.e(
                b,
                Expression::Select {
                    condition: v,
                    accept: one,
                    reject: zero,
                },
            )
        }
        _ => fb.e(
            b,
            Expression::As {
                expr: v,
                kind: ScalarKind::Uint,
                convert: None,
            },
        ),
    }
}

// ---- hit tests ---------------------------------------------------------------

/// The hit-test runtime (the hit layout of `shaderdbg_core::layout`): per
/// breakpoint `k` two private registers, `_sdbg_occ{k}` (reaches of its
/// step) and `_sdbg_first{k}` (1 + the occurrence of the first reach where
/// the condition held, 0 for none), and the invocation's key words, set as
/// the entry point starts. Hits are written once, when the invocation ends
/// (`_sdbg_flush`): a storage write in a hot loop costs a masked atomic and
/// six stores per iteration on SIMD drivers even when nothing hits (the GLSL
/// engine measured 4x the frame against 1.2x this way).
pub(crate) struct HitRuntime {
    /// `_sdbg_hit{k}(c)`, by breakpoint index.
    pub hit: Vec<Handle<Function>>,
    /// `_sdbg_flush()`: writes the hits kept in registers.
    pub flush: Handle<Function>,
    /// `_sdbg_nan(p, bad)`: a NaN/Inf hit at step `p` if `bad` (NaN/Inf checks only).
    pub nan: Option<Handle<Function>>,
    /// The invocation's key words (private).
    pub keys: [Handle<GlobalVariable>; 3],
}

/// A storage buffer of the `layout` shape: four header words, then `data`.
struct BufferShape {
    /// `_Sdbg{name}`, the variable `_sdbg_{name}` in lower case.
    name: &'static str,
    header: [&'static str; 4],
    /// Which header words are atomic.
    atomic: [bool; 4],
    data_atomic: bool,
}

const LOG_BUFFER: BufferShape = BufferShape {
    name: "Log",
    header: ["len", "cap", "overflow", "invocations"],
    atomic: [true, false, false, true],
    data_atomic: false,
};

const HIT_BUFFER: BufferShape = BufferShape {
    name: "Hits",
    header: ["count", "cap", "pad0", "pad1"],
    atomic: [true, false, false, false],
    data_atomic: false,
};

const WATCH_BUFFER: BufferShape = BufferShape {
    name: "Watch",
    header: ["width", "height", "stride", "pad0"],
    atomic: [false; 4],
    data_atomic: true,
};

/// Adds the buffer of `shape` to `target`.
fn header_buffer(target: &mut Target, shape: &BufferShape) -> Handle<GlobalVariable> {
    let types = &mut *target.types;
    let u32_ty = ty(types, TypeInner::Scalar(Scalar::U32));
    let atomic = ty(types, TypeInner::Atomic(Scalar::U32));
    let data = ty(
        types,
        TypeInner::Array {
            base: if shape.data_atomic { atomic } else { u32_ty },
            size: ArraySize::Dynamic,
            stride: 4,
        },
    );
    let mut members: Vec<StructMember> = shape
        .header
        .iter()
        .zip(shape.atomic)
        .enumerate()
        .map(|(i, (n, a))| StructMember {
            name: Some(n.to_string()),
            ty: if a { atomic } else { u32_ty },
            binding: None,
            offset: 4 * i as u32,
        })
        .collect();
    members.push(StructMember {
        name: Some("data".to_string()),
        ty: data,
        binding: None,
        offset: 16,
    });
    let buf_ty = types.insert(
        Type {
            name: Some(format!("_Sdbg{}", shape.name)),
            inner: TypeInner::Struct { members, span: 20 },
        },
        Span::UNDEFINED,
    );
    target.globals.append(
        GlobalVariable {
            name: Some(format!("_sdbg_{}", shape.name.to_lowercase())),
            space: AddressSpace::Storage {
                access: StorageAccess::LOAD | StorageAccess::STORE,
            },
            binding: Some(ResourceBinding {
                group: target.group,
                binding: target.binding,
            }),
            ty: buf_ty,
            init: None,
            memory_decorations: Default::default(),
        },
        Span::UNDEFINED,
    )
}

fn private(
    globals: &mut Arena<GlobalVariable>,
    name: &str,
    ty: Handle<Type>,
) -> Handle<GlobalVariable> {
    globals.append(
        GlobalVariable {
            name: Some(name.to_string()),
            space: AddressSpace::Private,
            binding: None,
            ty,
            init: None,
            memory_decorations: Default::default(),
        },
        Span::UNDEFINED,
    )
}

const RETURN: fn() -> Block = || Block::from_vec(vec![Statement::Return { value: None }]);

/// Adds the hit buffer, the registers and the helpers for breakpoints at
/// `probes` (by index) to `target`.
/// `only`: the key words an invocation must have for its hits to be
/// written (`None` words match anything).
pub(crate) fn build_hits(
    mut target: Target,
    probes: &[u32],
    nan_inf: bool,
    only: Option<[Option<u32>; 3]>,
) -> HitRuntime {
    let buf = header_buffer(&mut target, &HIT_BUFFER);
    let (types, globals, functions) = (target.types, target.globals, target.functions);
    let u32_ty = ty(types, TypeInner::Scalar(Scalar::U32));
    let bool_ty = ty(types, TypeInner::Scalar(Scalar::BOOL));
    let keys = [
        private(globals, "_sdbg_key0", u32_ty),
        private(globals, "_sdbg_key1", u32_ty),
        private(globals, "_sdbg_key2", u32_ty),
    ];
    let regs: Vec<(Handle<GlobalVariable>, Handle<GlobalVariable>)> = (0..probes.len())
        .map(|k| {
            (
                private(globals, &format!("_sdbg_occ{k}"), u32_ty),
                private(globals, &format!("_sdbg_first{k}"), u32_ty),
            )
        })
        .collect();

    // _sdbg_put_hit(p, occ, tag)
    let put_hit = {
        let (mut fb, mut b, [p, occ, tag]) = Fb::start(
            "_sdbg_put_hit",
            buf,
            [("p", u32_ty), ("occ", u32_ty), ("tag", u32_ty)],
        );
        // Another invocation than the one asked for: nothing is written.
        let mut selected = None;
        for (key, want) in keys.iter().zip(only.into_iter().flatten()) {
            let Some(want) = want else { continue };
            let (_, v) = fb.global(&mut b, *key);
            let w = fb.lit(want);
            let eq = fb.bin(&mut b, BinaryOperator::Equal, v, w);
            selected = Some(match selected {
                Some(s) => fb.bin(&mut b, BinaryOperator::LogicalAnd, s, eq),
                None => eq,
            });
        }
        if let Some(s) = selected {
            let other = fb.not(&mut b, s);
            Fb::if_(&mut b, other, RETURN());
        }
        let countp = fb.member(&mut b, 0);
        let one = fb.lit(1);
        let i = fb.atomic_add(&mut b, countp, one, u32_ty);
        let (_, cap) = fb.load_member(&mut b, CAP);
        let full = fb.bin(&mut b, BinaryOperator::GreaterEqual, i, cap);
        Fb::if_(&mut b, full, RETURN());
        let n = fb.lit(shaderdbg_core::layout::HIT_RECORD_WORDS as u32);
        let at = fb.bin(&mut b, BinaryOperator::Multiply, i, n);
        fb.store_word(&mut b, at, 0, p);
        fb.store_word(&mut b, at, 1, occ);
        for (k, key) in keys.iter().enumerate() {
            let (_, v) = fb.global(&mut b, *key);
            fb.store_word(&mut b, at, 2 + k as u32, v);
        }
        fb.store_word(&mut b, at, 5, tag);
        fb.finish(b, functions)
    };

    // _sdbg_hit{k}(c)
    let hit = regs
        .iter()
        .enumerate()
        .map(|(k, &(occ, first))| {
            let (mut fb, mut b, [c]) = Fb::start(&format!("_sdbg_hit{k}"), buf, [("c", bool_ty)]);
            let (occp, occv) = fb.global(&mut b, occ);
            let (firstp, firstv) = fb.global(&mut b, first);
            let zero = fb.lit(0);
            let one = fb.lit(1);
            let none_yet = fb.bin(&mut b, BinaryOperator::Equal, firstv, zero);
            let take = fb.bin(&mut b, BinaryOperator::LogicalAnd, c, none_yet);
            let mut accept = Block::new();
            let occ1 = fb.bin(&mut accept, BinaryOperator::Add, occv, one);
            Fb::store(&mut accept, firstp, occ1);
            Fb::if_(&mut b, take, accept);
            let next = fb.bin(&mut b, BinaryOperator::Add, occv, one);
            Fb::store(&mut b, occp, next);
            fb.finish(b, functions)
        })
        .collect();

    // _sdbg_flush()
    let flush = {
        let (mut fb, mut b, []) = Fb::start("_sdbg_flush", buf, []);
        for (k, (&(_, first), &p)) in regs.iter().zip(probes).enumerate() {
            let (firstp, firstv) = fb.global(&mut b, first);
            let zero = fb.lit(0);
            let one = fb.lit(1);
            let some = fb.bin(&mut b, BinaryOperator::NotEqual, firstv, zero);
            let mut accept = Block::new();
            let occ = fb.bin(&mut accept, BinaryOperator::Subtract, firstv, one);
            let pl = fb.lit(p);
            let kl = fb.lit(k as u32);
            fb.call(&mut accept, put_hit, vec![pl, occ, kl], false);
            Fb::store(&mut accept, firstp, zero);
            Fb::if_(&mut b, some, accept);
        }
        fb.finish(b, functions)
    };

    // _sdbg_nan(p, bad)
    let nan = nan_inf.then(|| {
        let (mut fb, mut b, [p, bad]) =
            Fb::start("_sdbg_nan", buf, [("p", u32_ty), ("bad", bool_ty)]);
        let zero = fb.lit(0);
        let tag = fb.lit(shaderdbg_core::layout::HIT_TAG_NAN_INF);
        let mut accept = Block::new();
        fb.call(&mut accept, put_hit, vec![p, zero, tag], false);
        Fb::if_(&mut b, bad, accept);
        fb.finish(b, functions)
    });
    HitRuntime {
        hit,
        flush,
        nan,
        keys,
    }
}

// ---- watches -----------------------------------------------------------------

/// The watch runtime (the watch layout of `shaderdbg_core::layout`): the
/// invocation's slot (`_sdbg_slot`, private, set as the entry point starts
/// by `_sdbg_watch_begin(x, y)`; `y` = [`NONE`] for a linear index `x`),
/// and a writer made for the watched value's type once it is known.
pub(crate) struct WatchRuntime {
    buf: Handle<GlobalVariable>,
    slot: Handle<GlobalVariable>,
    u32_ty: Handle<Type>,
    pub begin: Handle<Function>,
}

pub(crate) fn build_watch(mut target: Target) -> WatchRuntime {
    let buf = header_buffer(&mut target, &WATCH_BUFFER);
    let (types, globals, functions) = (target.types, target.globals, target.functions);
    let u32_ty = ty(types, TypeInner::Scalar(Scalar::U32));
    let slot = private(globals, "_sdbg_slot", u32_ty);
    let begin = watch_begin(functions, buf, slot, u32_ty);
    WatchRuntime {
        buf,
        slot,
        u32_ty,
        begin,
    }
}

/// `_sdbg_watch_begin(x, y)`: the invocation's slot, [`NONE`] outside the buffer.
fn watch_begin(
    functions: &mut Arena<Function>,
    buf: Handle<GlobalVariable>,
    slot: Handle<GlobalVariable>,
    u32_ty: Handle<Type>,
) -> Handle<Function> {
    let (mut fb, mut b, [x, y]) = Fb::start(
        "_sdbg_watch_begin",
        buf,
        [("_sdbg_x", u32_ty), ("_sdbg_y", u32_ty)],
    );
    let slotp = fb.global_ptr(slot);
    let none = fb.lit(NONE);
    Fb::store(&mut b, slotp, none);
    let (_, w) = fb.load_member(&mut b, 0);
    let (_, h) = fb.load_member(&mut b, 1);
    let (_, stride) = fb.load_member(&mut b, 2);
    let is_2d = fb.bin(&mut b, BinaryOperator::NotEqual, y, none);
    let wide = fb.bin(&mut b, BinaryOperator::GreaterEqual, x, w);
    let off_row = fb.bin(&mut b, BinaryOperator::LogicalAnd, is_2d, wide);
    Fb::if_(&mut b, off_row, RETURN());
    let row = fb.bin(&mut b, BinaryOperator::Multiply, y, w);
    let at2 = fb.bin(&mut b, BinaryOperator::Add, row, x);
    let idx = fb.e(
        &mut b,
        Expression::Select {
            condition: is_2d,
            accept: at2,
            reject: x,
        },
    );
    let n = fb.bin(&mut b, BinaryOperator::Multiply, w, h);
    let outside = fb.bin(&mut b, BinaryOperator::GreaterEqual, idx, n);
    Fb::if_(&mut b, outside, RETURN());
    let at = fb.bin(&mut b, BinaryOperator::Multiply, idx, stride);
    Fb::store(&mut b, slotp, at);
    fb.finish(b, functions)
}

impl WatchRuntime {
    /// `_sdbg_watch_value(v)`: `v` into this invocation's slot the first time.
    pub fn writer(
        &self,
        types: &mut UniqueArena<Type>,
        functions: &mut Arena<Function>,
        t: Handle<Type>,
    ) -> Option<Handle<Function>> {
        let mut builder = Builder {
            types,
            functions,
            buf: self.buf,
            u32_ty: self.u32_ty,
            alloc: None,
            puts: HashMap::new(),
        };
        let put = builder.put(t)?;
        let (mut fb, mut b, [v]) = Fb::start("_sdbg_watch_value", self.buf, [("v", t)]);
        let (_, at) = fb.global(&mut b, self.slot);
        let none = fb.lit(NONE);
        let outside = fb.bin(&mut b, BinaryOperator::Equal, at, none);
        Fb::if_(&mut b, outside, RETURN());
        let data = fb.member(&mut b, DATA);
        let counter = fb.e(
            &mut b,
            Expression::Access {
                base: data,
                index: at,
            },
        );
        let one = fb.lit(1);
        let zero = fb.lit(0);
        let before = fb.atomic_add(&mut b, counter, one, self.u32_ty);
        let seen = fb.bin(&mut b, BinaryOperator::NotEqual, before, zero);
        Fb::if_(&mut b, seen, RETURN());
        let first = fb.bin(&mut b, BinaryOperator::Add, at, one);
        fb.call(&mut b, put, vec![first, v], false);
        Some(fb.finish(b, builder.functions))
    }
}
