//! Expressions over the values at the cursor, with GLSL semantics: variables
//! in scope, literals, member access and swizzles (`a.b`, `v.xy`), indexing
//! (`a[2]`, `m[1][0]`), unary `- + !`, arithmetic `* / % + -` on scalars and
//! vectors (component-wise, scalars broadcast, implicit int -> float), the
//! comparisons, and `&& || ^^`. Function calls, constructors and matrix
//! arithmetic are refused with "cannot evaluate ... yet" rather than guessed.

use shaderdbg_glsl::{Scalar, Type, Value};

/// A typed value.
#[derive(Clone, Debug, PartialEq)]
pub struct Typed {
    pub ty: Type,
    pub value: Value,
}

/// Why an expression has no value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EvalError {
    /// The expression is outside what this evaluator does.
    Unsupported(String),
    /// It does not parse, names something unknown, or mixes types wrongly.
    Invalid(String),
}

impl std::fmt::Display for EvalError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EvalError::Unsupported(m) | EvalError::Invalid(m) => f.write_str(m),
        }
    }
}

type R<T> = Result<T, EvalError>;

fn invalid<T>(m: impl Into<String>) -> R<T> {
    Err(EvalError::Invalid(m.into()))
}

/// Looks a name up: its type and value (`None`: in scope, not written yet);
/// `None` when no such variable is in scope.
pub trait Scope {
    fn lookup(&self, name: &str) -> Option<(Type, Option<Value>)>;
}

impl<F: Fn(&str) -> Option<(Type, Option<Value>)>> Scope for F {
    fn lookup(&self, name: &str) -> Option<(Type, Option<Value>)> {
        self(name)
    }
}

/// Evaluates `expr` in `scope`.
pub fn evaluate(expr: &str, scope: &dyn Scope) -> R<Typed> {
    let tokens = lex(expr)?;
    let mut p = Parser {
        tokens: &tokens,
        at: 0,
    };
    let e = p.expr(0)?;
    if p.at != tokens.len() {
        return invalid(format!("unexpected `{}`", tokens[p.at]));
    }
    eval(&e, scope)
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Ident(String),
    Lit(Type, Value),
    Punct(&'static str),
}

impl std::fmt::Display for Tok {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Tok::Ident(s) => f.write_str(s),
            Tok::Lit(_, v) => write!(f, "{v}"),
            Tok::Punct(p) => f.write_str(p),
        }
    }
}

const PUNCT: [&str; 25] = [
    "&&", "||", "^^", "<=", ">=", "==", "!=", "<<", ">>", ".", "[", "]", "(", ")", "+", "-", "*",
    "/", "%", "<", ">", "!", ",", "?", ":",
];

fn lex(s: &str) -> R<Vec<Tok>> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
        } else if c.is_ascii_alphabetic() || c == b'_' {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            let w = &s[start..i];
            out.push(match w {
                "true" => Tok::Lit(Type::Scalar(Scalar::Bool), Value::Bool(true)),
                "false" => Tok::Lit(Type::Scalar(Scalar::Bool), Value::Bool(false)),
                _ => Tok::Ident(w.to_string()),
            });
        } else if c.is_ascii_digit() || (c == b'.' && b.get(i + 1).is_some_and(u8::is_ascii_digit))
        {
            let (tok, n) = number(&s[i..])?;
            out.push(tok);
            i += n;
        } else if let Some(p) = PUNCT.iter().find(|p| s[i..].starts_with(**p)) {
            out.push(Tok::Punct(p));
            i += p.len();
        } else {
            return invalid(format!(
                "unexpected character `{}`",
                s[i..].chars().next().unwrap_or('?')
            ));
        }
    }
    Ok(out)
}

/// A numeric literal at the start of `s`: the token and its length.
fn number(s: &str) -> R<(Tok, usize)> {
    let b = s.as_bytes();
    let mut i = 0;
    let hex = s.starts_with("0x") || s.starts_with("0X");
    if hex {
        i = 2;
        while i < b.len() && b[i].is_ascii_hexdigit() {
            i += 1;
        }
    } else {
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
    }
    let mut float = false;
    if !hex && i < b.len() && b[i] == b'.' {
        float = true;
        i += 1;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
    }
    if !hex && i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        let mut j = i + 1;
        if j < b.len() && (b[j] == b'+' || b[j] == b'-') {
            j += 1;
        }
        if j < b.len() && b[j].is_ascii_digit() {
            float = true;
            i = j;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
        }
    }
    let text = &s[..i];
    let rest = &s[i..];
    let bad = || EvalError::Invalid(format!("bad number `{text}`"));
    if float || rest.starts_with("lf") || rest.starts_with("LF") || rest.starts_with(['f', 'F']) {
        let v: f64 = text.parse().map_err(|_| bad())?;
        if rest.starts_with("lf") || rest.starts_with("LF") {
            return Ok((
                Tok::Lit(Type::Scalar(Scalar::Double), Value::Double(v)),
                i + 2,
            ));
        }
        let n = i + usize::from(rest.starts_with(['f', 'F']));
        return Ok((
            Tok::Lit(Type::Scalar(Scalar::Float), Value::Float(v as f32)),
            n,
        ));
    }
    let v = if hex {
        u64::from_str_radix(&text[2..], 16)
    } else if text.len() > 1 && text.starts_with('0') {
        u64::from_str_radix(&text[1..], 8)
    } else {
        text.parse()
    }
    .map_err(|_| bad())?;
    let v = u32::try_from(v).map_err(|_| bad())?;
    if rest.starts_with(['u', 'U']) {
        Ok((Tok::Lit(Type::Scalar(Scalar::Uint), Value::Uint(v)), i + 1))
    } else {
        Ok((Tok::Lit(Type::Scalar(Scalar::Int), Value::Int(v as i32)), i))
    }
}

#[derive(Clone, Debug)]
enum Expr {
    Var(String),
    Lit(Typed),
    Member(Box<Expr>, String),
    Index(Box<Expr>, Box<Expr>),
    Unary(&'static str, Box<Expr>),
    Binary(&'static str, Box<Expr>, Box<Expr>),
}

struct Parser<'a> {
    tokens: &'a [Tok],
    at: usize,
}

fn binary_precedence(op: &str) -> Option<u8> {
    Some(match op {
        "||" => 1,
        "^^" => 2,
        "&&" => 3,
        "==" | "!=" => 4,
        "<" | ">" | "<=" | ">=" => 5,
        "+" | "-" => 7,
        "*" | "/" | "%" => 8,
        _ => return None,
    })
}

impl Parser<'_> {
    fn peek(&self) -> Option<&Tok> {
        self.tokens.get(self.at)
    }

    fn eat(&mut self, p: &str) -> bool {
        if matches!(self.peek(), Some(Tok::Punct(q)) if *q == p) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn expr(&mut self, min: u8) -> R<Expr> {
        let mut lhs = self.unary()?;
        while let Some(Tok::Punct(op)) = self.peek() {
            let op: &'static str = op;
            let Some(prec) = binary_precedence(op) else {
                if matches!(op, "?" | "<<" | ">>" | ",") {
                    return Err(EvalError::Unsupported(format!("operator `{op}`")));
                }
                break;
            };
            if prec < min {
                break;
            }
            self.at += 1;
            let rhs = self.expr(prec + 1)?;
            lhs = Expr::Binary(op, Box::new(lhs), Box::new(rhs));
        }
        Ok(lhs)
    }

    fn unary(&mut self) -> R<Expr> {
        for op in ["-", "+", "!"] {
            if self.eat(op) {
                return Ok(Expr::Unary(op, Box::new(self.unary()?)));
            }
        }
        let mut e = self.primary()?;
        loop {
            if self.eat(".") {
                match self.peek() {
                    Some(Tok::Ident(n)) => {
                        e = Expr::Member(Box::new(e), n.clone());
                        self.at += 1;
                    }
                    _ => return invalid("expected a name after `.`"),
                }
            } else if self.eat("[") {
                let i = self.expr(0)?;
                if !self.eat("]") {
                    return invalid("expected `]`");
                }
                e = Expr::Index(Box::new(e), Box::new(i));
            } else {
                return Ok(e);
            }
        }
    }

    fn primary(&mut self) -> R<Expr> {
        match self.peek().cloned() {
            Some(Tok::Ident(n)) => {
                self.at += 1;
                if matches!(self.peek(), Some(Tok::Punct("("))) {
                    return Err(EvalError::Unsupported(format!(
                        "function calls and constructors (`{n}(...)`)"
                    )));
                }
                Ok(Expr::Var(n))
            }
            Some(Tok::Lit(ty, value)) => {
                self.at += 1;
                Ok(Expr::Lit(Typed { ty, value }))
            }
            Some(Tok::Punct("(")) => {
                self.at += 1;
                let e = self.expr(0)?;
                if !self.eat(")") {
                    return invalid("expected `)`");
                }
                Ok(e)
            }
            Some(t) => invalid(format!("unexpected `{t}`")),
            None => invalid("an expression is missing"),
        }
    }
}

fn eval(e: &Expr, scope: &dyn Scope) -> R<Typed> {
    match e {
        Expr::Var(n) => match scope.lookup(n) {
            Some((ty, Some(value))) => Ok(Typed { ty, value }),
            Some((_, None)) => invalid(format!("`{n}` has no value yet at this step")),
            None => invalid(format!("no variable `{n}` in scope here")),
        },
        Expr::Lit(t) => Ok(t.clone()),
        Expr::Member(base, name) => member(eval(base, scope)?, name),
        Expr::Index(base, index) => {
            let b = eval(base, scope)?;
            let i = eval(index, scope)?;
            let i = match i.value {
                Value::Int(i) if i >= 0 => i as usize,
                Value::Uint(u) => u as usize,
                Value::Int(i) => return invalid(format!("negative index {i}")),
                _ => return invalid(format!("an index must be an integer, not {}", i.ty)),
            };
            index_of(b, i)
        }
        Expr::Unary(op, x) => unary(op, eval(x, scope)?),
        Expr::Binary(op, a, b) => binary(op, eval(a, scope)?, eval(b, scope)?),
    }
}

fn swizzle_index(c: char) -> Option<(usize, u8)> {
    for (set, chars) in ["xyzw", "rgba", "stpq"].iter().enumerate() {
        if let Some(i) = chars.find(c) {
            return Some((i, set as u8));
        }
    }
    None
}

fn member(b: Typed, name: &str) -> R<Typed> {
    match (&b.ty, &b.value) {
        (Type::Struct(st), Value::Struct(fields)) => {
            let f = st
                .fields
                .iter()
                .find(|f| f.name == name)
                .ok_or_else(|| EvalError::Invalid(format!("{} has no field `{name}`", b.ty)))?;
            let v = fields
                .iter()
                .find(|(n, _)| n == name)
                .map_or(Value::Undefined, |(_, v)| v.clone());
            Ok(Typed {
                ty: f.ty.clone(),
                value: v,
            })
        }
        (Type::Scalar(s) | Type::Vector(s, _), _) => {
            let n = b.ty.components().unwrap_or(1) as usize;
            let comps: Vec<Value> = match &b.value {
                Value::List(items) => items.clone(),
                v => vec![v.clone()],
            };
            let mut set = None;
            let mut out = Vec::new();
            for c in name.chars() {
                let (i, s) = swizzle_index(c)
                    .filter(|(i, _)| *i < n)
                    .ok_or_else(|| EvalError::Invalid(format!("no `{name}` in {}", b.ty)))?;
                if set.is_some_and(|k| k != s) {
                    return invalid(format!("`{name}` mixes swizzle sets"));
                }
                set = Some(s);
                out.push(comps.get(i).cloned().unwrap_or(Value::Undefined));
            }
            if out.is_empty() || out.len() > 4 {
                return invalid(format!("no `{name}` in {}", b.ty));
            }
            Ok(from_components(*s, out))
        }
        _ => invalid(format!("{} has no members", b.ty)),
    }
}

fn index_of(b: Typed, i: usize) -> R<Typed> {
    let elem = match &b.ty {
        Type::Vector(s, _) => Type::Scalar(*s),
        Type::Matrix { scalar, rows, .. } => Type::Vector(*scalar, *rows),
        Type::Array(e, _) => (**e).clone(),
        other => return invalid(format!("{other} cannot be indexed")),
    };
    match b.value.index(i) {
        Some(v) => Ok(Typed {
            ty: elem,
            value: v.clone(),
        }),
        None => invalid(format!("index {i} is out of range for {}", b.ty)),
    }
}

fn from_components(s: Scalar, mut items: Vec<Value>) -> Typed {
    if items.len() == 1 {
        Typed {
            ty: Type::Scalar(s),
            value: items.remove(0),
        }
    } else {
        Typed {
            ty: Type::Vector(s, items.len() as u8),
            value: Value::List(items),
        }
    }
}

/// The scalar kind and components of a scalar or vector.
fn components(t: &Typed) -> R<(Scalar, Vec<Value>)> {
    match (&t.ty, &t.value) {
        (Type::Scalar(s), v) => Ok((*s, vec![v.clone()])),
        (Type::Vector(s, _), Value::List(items)) => Ok((*s, items.clone())),
        (Type::Matrix { .. }, _) => Err(EvalError::Unsupported("matrix arithmetic".into())),
        (ty, _) => invalid(format!("{ty} is not a scalar or vector")),
    }
}

fn convert(v: &Value, to: Scalar) -> R<Value> {
    let undefined = || EvalError::Invalid("a part of the value is not written yet".into());
    Ok(match (v, to) {
        (Value::Undefined, _) => return Err(undefined()),
        (Value::Int(i), Scalar::Uint) => Value::Uint(*i as u32),
        (Value::Int(i), Scalar::Float) => Value::Float(*i as f32),
        (Value::Uint(u), Scalar::Float) => Value::Float(*u as f32),
        (Value::Float(f), Scalar::Double) => Value::Double(f64::from(*f)),
        (v, Scalar::Double) => Value::Double(v.as_f64().ok_or_else(undefined)?),
        (v, _) => v.clone(),
    })
}

fn unary(op: &str, x: Typed) -> R<Typed> {
    let (s, comps) = components(&x)?;
    if op == "!" {
        return match (s, x.ty.components(), &x.value) {
            (Scalar::Bool, Some(1), Value::Bool(b)) => Ok(bool_value(!b)),
            _ => invalid(format!("`!` needs a bool, not {}", x.ty)),
        };
    }
    if s == Scalar::Bool {
        return invalid(format!("`{op}` needs a number, not {}", x.ty));
    }
    if op == "+" {
        return Ok(x);
    }
    let out = comps
        .iter()
        .map(|c| {
            Ok(match convert(c, s)? {
                Value::Int(i) => Value::Int(i.wrapping_neg()),
                Value::Uint(u) => Value::Uint(u.wrapping_neg()),
                Value::Float(f) => Value::Float(-f),
                Value::Double(d) => Value::Double(-d),
                other => other,
            })
        })
        .collect::<R<Vec<_>>>()?;
    Ok(from_components(s, out))
}

fn bool_value(b: bool) -> Typed {
    Typed {
        ty: Type::Scalar(Scalar::Bool),
        value: Value::Bool(b),
    }
}

fn binary(op: &str, a: Typed, b: Typed) -> R<Typed> {
    if matches!(op, "&&" | "||" | "^^") {
        return match (&a.value, &b.value, &a.ty, &b.ty) {
            (
                Value::Bool(x),
                Value::Bool(y),
                Type::Scalar(Scalar::Bool),
                Type::Scalar(Scalar::Bool),
            ) => Ok(bool_value(match op {
                "&&" => *x && *y,
                "||" => *x || *y,
                _ => x != y,
            })),
            _ => invalid(format!("`{op}` needs two bools, not {} and {}", a.ty, b.ty)),
        };
    }
    let (sa, ca) = components(&a)?;
    let (sb, cb) = components(&b)?;
    let s = if sa.converts_to(sb) {
        sb
    } else if sb.converts_to(sa) {
        sa
    } else {
        return invalid(format!("`{op}` cannot mix {} and {}", a.ty, b.ty));
    };
    let ca = ca.iter().map(|v| convert(v, s)).collect::<R<Vec<_>>>()?;
    let cb = cb.iter().map(|v| convert(v, s)).collect::<R<Vec<_>>>()?;
    if matches!(op, "==" | "!=") {
        if ca.len() != cb.len() {
            return invalid(format!("`{op}` compares {} with {}", a.ty, b.ty));
        }
        let eq = ca == cb;
        return Ok(bool_value(if op == "==" { eq } else { !eq }));
    }
    if matches!(op, "<" | ">" | "<=" | ">=") {
        if ca.len() != 1 || cb.len() != 1 || s == Scalar::Bool {
            return invalid(format!(
                "`{op}` compares scalar numbers, not {} and {}",
                a.ty, b.ty
            ));
        }
        let ord = compare(&ca[0], &cb[0]);
        let r = match (op, ord) {
            (_, None) => false, // NaN
            ("<", Some(o)) => o.is_lt(),
            (">", Some(o)) => o.is_gt(),
            ("<=", Some(o)) => o.is_le(),
            (_, Some(o)) => o.is_ge(),
        };
        return Ok(bool_value(r));
    }
    if s == Scalar::Bool {
        return invalid(format!("`{op}` needs numbers, not {} and {}", a.ty, b.ty));
    }
    let n = match (ca.len(), cb.len()) {
        (x, y) if x == y => x,
        (1, y) => y,
        (x, 1) => x,
        _ => return invalid(format!("`{op}` mixes {} and {}", a.ty, b.ty)),
    };
    let at = |c: &[Value], i: usize| c[if c.len() == 1 { 0 } else { i }].clone();
    let out = (0..n)
        .map(|i| arith(op, &at(&ca, i), &at(&cb, i)))
        .collect::<R<Vec<_>>>()?;
    Ok(from_components(s, out))
}

fn compare(a: &Value, b: &Value) -> Option<std::cmp::Ordering> {
    match (a, b) {
        (Value::Int(x), Value::Int(y)) => Some(x.cmp(y)),
        (Value::Uint(x), Value::Uint(y)) => Some(x.cmp(y)),
        (Value::Float(x), Value::Float(y)) => x.partial_cmp(y),
        (Value::Double(x), Value::Double(y)) => x.partial_cmp(y),
        _ => None,
    }
}

fn arith(op: &str, a: &Value, b: &Value) -> R<Value> {
    let zero = || EvalError::Invalid("integer division by zero".into());
    Ok(match (a, b) {
        (Value::Float(x), Value::Float(y)) => Value::Float(match op {
            "+" => x + y,
            "-" => x - y,
            "*" => x * y,
            "/" => x / y,
            _ => return invalid("`%` needs integers"),
        }),
        (Value::Double(x), Value::Double(y)) => Value::Double(match op {
            "+" => x + y,
            "-" => x - y,
            "*" => x * y,
            "/" => x / y,
            _ => return invalid("`%` needs integers"),
        }),
        (Value::Int(x), Value::Int(y)) => Value::Int(match op {
            "+" => x.wrapping_add(*y),
            "-" => x.wrapping_sub(*y),
            "*" => x.wrapping_mul(*y),
            "/" => x.checked_div(*y).ok_or_else(zero)?,
            _ => x.checked_rem(*y).ok_or_else(zero)?,
        }),
        (Value::Uint(x), Value::Uint(y)) => Value::Uint(match op {
            "+" => x.wrapping_add(*y),
            "-" => x.wrapping_sub(*y),
            "*" => x.wrapping_mul(*y),
            "/" => x.checked_div(*y).ok_or_else(zero)?,
            _ => x.checked_rem(*y).ok_or_else(zero)?,
        }),
        _ => return invalid("a part of the value is not written yet"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scope(name: &str) -> Option<(Type, Option<Value>)> {
        let f = |x: f32| Value::Float(x);
        match name {
            "p" => Some((
                Type::Vector(Scalar::Float, 2),
                Some(Value::List(vec![f(1.5), f(0.25)])),
            )),
            "m" => Some((
                Type::mat(2, 2),
                Some(Value::List(vec![
                    Value::List(vec![f(1.0), f(2.0)]),
                    Value::List(vec![f(3.0), f(4.0)]),
                ])),
            )),
            "i" => Some((Type::Scalar(Scalar::Int), Some(Value::Int(3)))),
            "a" => Some((
                Type::Array(Box::new(Type::Scalar(Scalar::Int)), Some(3)),
                Some(Value::List(vec![
                    Value::Int(7),
                    Value::Int(8),
                    Value::Int(9),
                ])),
            )),
            "later" => Some((Type::Scalar(Scalar::Float), None)),
            _ => None,
        }
    }

    fn ev(e: &str) -> String {
        match evaluate(e, &scope) {
            Ok(t) => format!("{} {}", t.ty, crate::variables::format(&t.ty, &t.value)),
            Err(e) => format!("error: {e}"),
        }
    }

    #[test]
    fn paths_swizzles_and_indices() {
        assert_eq!(ev("p"), "vec2 vec2(1.5, 0.25)");
        assert_eq!(ev("p.x"), "float 1.5");
        assert_eq!(ev("p.yx"), "vec2 vec2(0.25, 1.5)");
        assert_eq!(ev("p.rrg"), "vec3 vec3(1.5, 1.5, 0.25)");
        assert_eq!(ev("m[1][0]"), "float 3.0");
        assert_eq!(ev("m[1]"), "vec2 vec2(3.0, 4.0)");
        assert_eq!(ev("a[2]"), "int 9");
        assert_eq!(ev("a[i - 1]"), "int 9");
        assert_eq!(ev("p.xz"), "error: no `xz` in vec2");
        assert_eq!(ev("a[3]"), "error: index 3 is out of range for int[3]");
        assert_eq!(ev("q"), "error: no variable `q` in scope here");
        assert_eq!(ev("later"), "error: `later` has no value yet at this step");
    }

    #[test]
    fn arithmetic_and_conditions() {
        assert_eq!(ev("p.x > 1.5"), "bool false");
        assert_eq!(ev("p.x >= 1.5 && i == 3"), "bool true");
        assert_eq!(ev("p * 2"), "vec2 vec2(3.0, 0.5)");
        assert_eq!(ev("-p + p.y"), "vec2 vec2(-1.25, 0.0)");
        assert_eq!(ev("i / 2 + i % 2"), "int 2");
        assert_eq!(ev("7u / 2u"), "uint 3u");
        assert_eq!(ev("!(1.0 < .5)"), "bool true");
        assert_eq!(ev("i / 0"), "error: integer division by zero");
        assert_eq!(
            ev("length(p)"),
            "error: function calls and constructors (`length(...)`)"
        );
        assert_eq!(ev("m * p"), "error: matrix arithmetic");
        assert_eq!(ev("p +"), "error: an expression is missing");
    }
}
