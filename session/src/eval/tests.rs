//! Data-driven tests: each line of a case list is an expression, evaluated in
//! a fixed scope; the snapshots hold values computed by hand (see the
//! comments beside the less obvious ones), errors included.

use std::sync::Arc;

use expect_test::{expect, Expect};
use shaderdbg_glsl::types::StructType;
use shaderdbg_glsl::{Scalar, Type, Value};

use crate::SessionError;

use super::*;

fn f(x: f32) -> Value {
    Value::Float(x)
}

fn fl(xs: &[f32]) -> Value {
    Value::List(xs.iter().map(|x| f(*x)).collect())
}

fn light() -> Arc<StructType> {
    Arc::new(StructType::new(
        "Light",
        [
            ("pos", Type::Vector(Scalar::Float, 3)),
            ("radius", Type::Scalar(Scalar::Float)),
        ],
    ))
}

fn light_value(pos: [f32; 3], radius: f32) -> Value {
    Value::Struct(vec![("pos".into(), fl(&pos)), ("radius".into(), f(radius))])
}

/// The scope of every case.
struct TestScope;

impl Scope for TestScope {
    fn lookup(&self, name: &str) -> Option<(Type, Option<Value>)> {
        let v3 = Type::Vector(Scalar::Float, 3);
        Some(match name {
            "p" => (Type::Vector(Scalar::Float, 2), Some(fl(&[1.5, 0.25]))),
            "v" => (v3, Some(fl(&[1.0, 2.0, 3.0]))),
            "w" => (
                Type::Vector(Scalar::Float, 4),
                Some(fl(&[0.5, -1.0, 2.0, 0.0])),
            ),
            "n" => (v3, Some(fl(&[0.0, 0.0, 1.0]))),
            "m" => (
                Type::mat(2, 2),
                Some(Value::List(vec![fl(&[1.0, 2.0]), fl(&[3.0, 4.0])])),
            ),
            "i" => (Type::Scalar(Scalar::Int), Some(Value::Int(3))),
            "u" => (Type::Scalar(Scalar::Uint), Some(Value::Uint(7))),
            "b" => (Type::Scalar(Scalar::Bool), Some(Value::Bool(true))),
            "d" => (Type::Scalar(Scalar::Double), Some(Value::Double(0.5))),
            "iv" => (
                Type::Vector(Scalar::Int, 2),
                Some(Value::List(vec![Value::Int(-3), Value::Int(4)])),
            ),
            "bv" => (
                Type::Vector(Scalar::Bool, 3),
                Some(Value::List(vec![
                    Value::Bool(true),
                    Value::Bool(false),
                    Value::Bool(true),
                ])),
            ),
            "a" => (
                Type::Array(Box::new(Type::Scalar(Scalar::Int)), Some(3)),
                Some(Value::List(vec![
                    Value::Int(7),
                    Value::Int(8),
                    Value::Int(9),
                ])),
            ),
            "s" => (
                Type::Struct(light()),
                Some(light_value([1.0, 2.0, 3.0], 0.5)),
            ),
            "lights" => (
                Type::Array(Box::new(Type::Struct(light())), Some(2)),
                Some(Value::List(vec![
                    light_value([1.0, 2.0, 3.0], 0.5),
                    light_value([4.0, 5.0, 6.0], 2.0),
                ])),
            ),
            "partial" => (
                Type::Vector(Scalar::Float, 2),
                Some(Value::List(vec![f(1.0), Value::Undefined])),
            ),
            "later" => (Type::Scalar(Scalar::Float), None),
            "tex" => (Type::Opaque("sampler2D".into()), None),
            "texs" => (
                Type::Array(Box::new(Type::Opaque("sampler2D".into())), Some(2)),
                None,
            ),
            _ => return None,
        })
    }

    fn struct_type(&self, name: &str) -> Option<Arc<StructType>> {
        (name == "Light").then(light)
    }

    fn is_function(&self, name: &str) -> bool {
        name == "shade"
    }
}

fn show(r: R<Typed>) -> String {
    match r {
        Ok(t) => format!("{}: {t}", t.ty),
        Err(EvalError::NeedsGpu { what }) => format!("needs GPU: {what}"),
        // glsl-lang's messages are long and not ours to pin down.
        Err(EvalError::Parse(m)) if m.starts_with("does not parse") => {
            "error: does not parse: ...".into()
        }
        Err(e @ EvalError::Unsupported(_)) => format!("unsupported: {e}"),
        Err(e) => format!("error: {e}"),
    }
}

/// Evaluates each non-empty line of `cases`.
fn check(cases: &str, want: Expect) {
    let mut out = String::new();
    for line in cases.lines().map(str::trim).filter(|l| !l.is_empty()) {
        out.push_str(&format!(
            "{line}  =>  {}\n",
            show(evaluate(line, &TestScope))
        ));
    }
    want.assert_eq(&out);
}

#[test]
fn names_literals_and_unwritten_values() {
    check(
        "
        p
        i
        u
        d
        b
        1e3
        0x1F
        .5
        2.5lf
        later
        nothing
        partial
        partial.x
        partial.y + 1.0
        tex
        ",
        expect![[r#"
            p  =>  vec2: vec2(1.5, 0.25)
            i  =>  int: 3
            u  =>  uint: 7u
            d  =>  double: 0.5lf
            b  =>  bool: true
            1e3  =>  float: 1000.0
            0x1F  =>  int: 31
            .5  =>  float: 0.5
            2.5lf  =>  double: 2.5lf
            later  =>  error: `later` has no value yet at this step
            nothing  =>  error: no variable named nothing in scope
            partial  =>  vec2: vec2(1.0, ?)
            partial.x  =>  float: 1.0
            partial.y + 1.0  =>  error: a part of the value is not written yet
            tex  =>  error: a sampler2D has no value to show; built-in functions such as texture() use it
        "#]],
    );
}

#[test]
fn swizzles_members_and_indexing() {
    check(
        "
        p.yx
        w.rgb
        w.stq
        v.zzzz
        i.x
        p.z
        p.xg
        w.xyzwx
        s.radius
        s.pos.y
        s.color
        lights[1].pos
        lights[1].pos.zy
        a[2]
        a[i - 1]
        a[u - 5u]
        a[3]
        a[-1]
        v[5]
        m[1]
        m[1][0]
        a[1.0]
        i[0]
        a.length()
        v.length()
        m.length()
        lights.length()
        i.length()
        ",
        expect![[r#"
            p.yx  =>  vec2: vec2(0.25, 1.5)
            w.rgb  =>  vec3: vec3(0.5, -1.0, 2.0)
            w.stq  =>  vec3: vec3(0.5, -1.0, 0.0)
            v.zzzz  =>  vec4: vec4(3.0, 3.0, 3.0, 3.0)
            i.x  =>  int: 3
            p.z  =>  error: vec2 has no component z
            p.xg  =>  error: `xg` mixes swizzle sets (xyzw, rgba, stpq)
            w.xyzwx  =>  error: `xyzwx`: a swizzle has 1 to 4 components
            s.radius  =>  float: 0.5
            s.pos.y  =>  float: 2.0
            s.color  =>  error: Light has no field color
            lights[1].pos  =>  vec3: vec3(4.0, 5.0, 6.0)
            lights[1].pos.zy  =>  vec2: vec2(6.0, 5.0)
            a[2]  =>  int: 9
            a[i - 1]  =>  int: 9
            a[u - 5u]  =>  int: 9
            a[3]  =>  error: index 3 out of range for int[3]
            a[-1]  =>  error: index -1 out of range for int[3]
            v[5]  =>  error: index 5 out of range for vec3
            m[1]  =>  vec2: vec2(3.0, 4.0)
            m[1][0]  =>  float: 3.0
            a[1.0]  =>  error: an index must be an int or uint, not float
            i[0]  =>  error: int cannot be indexed
            a.length()  =>  int: 3
            v.length()  =>  int: 3
            m.length()  =>  int: 2
            lights.length()  =>  int: 2
            i.length()  =>  error: int has no length()
        "#]],
    );
}

#[test]
fn arithmetic() {
    // 0.1 + 0.2 in f32 rounds to the float nearest 0.3 (f64 would show
    // 0.30000000000000004); 2^24 + 1 is not a float.
    check(
        "
        p * 2
        -p + p.y
        v / 2.0
        2.0 - v
        v * v
        v + p
        i / 2 + i % 2
        -7 / 2
        -7 % 3
        7u / 2u
        i + u
        i + 0.5
        d * 2
        d + 0.25
        2147483647 + 1
        0u - 1u
        -(-2147483647 - 1)
        i / 0
        u % 0u
        1.0 / 0.0
        -1.0 / 0.0
        0.1 + 0.2
        16777216.0 + 1.0
        true + 1
        5.0 % 2.0
        ivec2(7, -7) % 3
        +i
        -b
        ",
        expect![[r#"
            p * 2  =>  vec2: vec2(3.0, 0.5)
            -p + p.y  =>  vec2: vec2(-1.25, 0.0)
            v / 2.0  =>  vec3: vec3(0.5, 1.0, 1.5)
            2.0 - v  =>  vec3: vec3(1.0, 0.0, -1.0)
            v * v  =>  vec3: vec3(1.0, 4.0, 9.0)
            v + p  =>  error: `+` cannot take vec3 and vec2
            i / 2 + i % 2  =>  int: 2
            -7 / 2  =>  int: -3
            -7 % 3  =>  int: -1
            7u / 2u  =>  uint: 3u
            i + u  =>  uint: 10u
            i + 0.5  =>  float: 3.5
            d * 2  =>  double: 1.0lf
            d + 0.25  =>  double: 0.75lf
            2147483647 + 1  =>  int: -2147483648
            0u - 1u  =>  uint: 4294967295u
            -(-2147483647 - 1)  =>  int: -2147483648
            i / 0  =>  error: integer division by zero
            u % 0u  =>  error: integer division by zero
            1.0 / 0.0  =>  float: inf
            -1.0 / 0.0  =>  float: -inf
            0.1 + 0.2  =>  float: 0.3
            16777216.0 + 1.0  =>  float: 16777216.0
            true + 1  =>  error: `+` cannot mix bool and int
            5.0 % 2.0  =>  error: `%` needs integers, not float and float
            ivec2(7, -7) % 3  =>  ivec2: ivec2(1, -1)
            +i  =>  int: 3
            -b  =>  error: `-` needs a number, not bool
        "#]],
    );
}

#[test]
fn bitwise_and_shifts() {
    check(
        "
        6 & 3
        6 | 3
        6 ^ 3
        ~0
        ~0u
        ~1.0
        1 << 4
        -16 >> 2
        0x80000000u >> 31
        1 << 32
        iv << 1
        uvec2(1u, 2u) << ivec2(3, 4)
        1.0 << 2
        iv & 6
        ",
        expect![[r#"
            6 & 3  =>  int: 2
            6 | 3  =>  int: 7
            6 ^ 3  =>  int: 5
            ~0  =>  int: -1
            ~0u  =>  uint: 4294967295u
            ~1.0  =>  error: `~` needs an integer, not float
            1 << 4  =>  int: 16
            -16 >> 2  =>  int: -4
            0x80000000u >> 31  =>  uint: 1u
            1 << 32  =>  error: shift by 32 is out of range (0 to 31)
            iv << 1  =>  ivec2: ivec2(-6, 8)
            uvec2(1u, 2u) << ivec2(3, 4)  =>  uvec2: uvec2(8u, 32u)
            1.0 << 2  =>  error: `<<` needs integers, not float and int
            iv & 6  =>  ivec2: ivec2(4, 4)
        "#]],
    );
}

#[test]
fn comparisons_logic_ternary_comma() {
    // `^^` binds looser than `>`; `&&`/`||` short-circuit past a bad index.
    check(
        "
        p.x > 1.5
        p.x >= 1.5 && i == 3
        v == vec3(1, 2, 3)
        v != vec3(1.0, 2.0, 3.5)
        m == mat2(1, 2, 3, 4)
        s == s
        s == Light(v, 0.25)
        a == int[3](7, 8, 9)
        v < v
        1 < 2u
        0.0 / 0.0 == 0.0 / 0.0
        0.0 / 0.0 < 1.0
        i > 2 ^^ b
        !b
        !i
        i > 5 && a[10] == 0
        i < 5 || a[10] == 0
        i < 5 && a[10] == 0
        1 && true
        b ? v : w.xyz
        i == 0 ? 1.0 : 2.0
        i ? 1 : 2
        (1, 2.5)
        i = 4
        i++
        --i
        v == p
        ",
        expect![[r#"
            p.x > 1.5  =>  bool: false
            p.x >= 1.5 && i == 3  =>  bool: true
            v == vec3(1, 2, 3)  =>  bool: true
            v != vec3(1.0, 2.0, 3.5)  =>  bool: true
            m == mat2(1, 2, 3, 4)  =>  bool: true
            s == s  =>  bool: true
            s == Light(v, 0.25)  =>  bool: false
            a == int[3](7, 8, 9)  =>  bool: true
            v < v  =>  error: `<` compares two scalar numbers, not vec3 and vec3 (lessThan() compares vectors)
            1 < 2u  =>  bool: true
            0.0 / 0.0 == 0.0 / 0.0  =>  bool: false
            0.0 / 0.0 < 1.0  =>  bool: false
            i > 2 ^^ b  =>  bool: false
            !b  =>  bool: false
            !i  =>  error: `!` needs a bool, not int
            i > 5 && a[10] == 0  =>  bool: false
            i < 5 || a[10] == 0  =>  bool: true
            i < 5 && a[10] == 0  =>  error: index 10 out of range for int[3]
            1 && true  =>  error: `&&` needs two bools, not int and bool
            b ? v : w.xyz  =>  vec3: vec3(1.0, 2.0, 3.0)
            i == 0 ? 1.0 : 2.0  =>  float: 2.0
            i ? 1 : 2  =>  error: the condition of `?:` must be a bool, not int
            (1, 2.5)  =>  float: 2.5
            i = 4  =>  unsupported: expressions that change variables are not evaluated
            i++  =>  unsupported: expressions that change variables are not evaluated
            --i  =>  unsupported: expressions that change variables are not evaluated
            v == p  =>  error: `==` compares vec3 with vec2
        "#]],
    );
}

#[test]
fn matrices() {
    // m = columns (1,2), (3,4): rows [1 3; 2 4].
    // m * p = (1*1.5 + 3*0.25, 2*1.5 + 4*0.25); p * m = (p.m[0], p.m[1]).
    // m * m = [1 3; 2 4]^2 = [7 15; 10 22].
    // mat3x2(1..6) * mat2x3(1..6): columns 1*(1,2)+2*(3,4)+3*(5,6) and 4*..+5*..+6*..
    check(
        "
        m * p
        p * m
        m * m
        m * 2.0
        2 * m
        m + m
        m - 1.0
        m / m
        -m
        m * v
        mat2x3(1, 2, 3, 4, 5, 6) * vec2(1, 1)
        vec3(1, 0, 0) * mat2x3(1, 2, 3, 4, 5, 6)
        mat3x2(1, 2, 3, 4, 5, 6) * mat2x3(1, 2, 3, 4, 5, 6)
        m[0] * m
        m * mat3(1)
        m % 2.0
        ",
        expect![[r#"
            m * p  =>  vec2: vec2(2.25, 4.0)
            p * m  =>  vec2: vec2(2.0, 5.5)
            m * m  =>  mat2: mat2(vec2(7.0, 10.0), vec2(15.0, 22.0))
            m * 2.0  =>  mat2: mat2(vec2(2.0, 4.0), vec2(6.0, 8.0))
            2 * m  =>  mat2: mat2(vec2(2.0, 4.0), vec2(6.0, 8.0))
            m + m  =>  mat2: mat2(vec2(2.0, 4.0), vec2(6.0, 8.0))
            m - 1.0  =>  mat2: mat2(vec2(0.0, 1.0), vec2(2.0, 3.0))
            m / m  =>  mat2: mat2(vec2(1.0, 1.0), vec2(1.0, 1.0))
            -m  =>  mat2: mat2(vec2(-1.0, -2.0), vec2(-3.0, -4.0))
            m * v  =>  error: `*` cannot multiply mat2 by vec3: 2 columns against 3 rows
            mat2x3(1, 2, 3, 4, 5, 6) * vec2(1, 1)  =>  vec3: vec3(5.0, 7.0, 9.0)
            vec3(1, 0, 0) * mat2x3(1, 2, 3, 4, 5, 6)  =>  vec2: vec2(1.0, 4.0)
            mat3x2(1, 2, 3, 4, 5, 6) * mat2x3(1, 2, 3, 4, 5, 6)  =>  mat2: mat2(vec2(22.0, 28.0), vec2(49.0, 64.0))
            m[0] * m  =>  vec2: vec2(5.0, 11.0)
            m * mat3(1)  =>  error: `*` cannot multiply mat2 by mat3: 2 columns against 3 rows
            m % 2.0  =>  error: `%` needs integers, not mat2 and float
        "#]],
    );
}

#[test]
fn constructors() {
    check(
        "
        vec3(1)
        vec4(p, 0, 1)
        vec4(v.xy, 0, 1)
        vec2(w)
        vec4(m)
        vec3(p)
        vec2(1, 2, 3)
        ivec3(2.7, -2.7, true)
        bvec2(0, 2.5)
        uvec2(-1)
        float(i)
        int(-2.7)
        uint(i)
        bool(0.0)
        float(true)
        int(v)
        double(0.1)
        float(1, 2)
        mat2(2)
        mat2(1, 2, 3, 4)
        mat2(p, v.xy)
        mat3(m)
        mat2(mat3(5))
        mat2x3(m)
        mat2(1, 2, 3)
        mat2(m, 1.0)
        Light(v, 2)
        Light(v)
        Light(p, 1.0)
        Light(v, 2).pos.z
        float[3](1, 2.5, i)
        int[](4, 5)
        float[2](1.0)
        vec3(1)[2]
        vec2()
        sampler2D(1)
        Nope(1)
        ",
        expect![[r#"
            vec3(1)  =>  vec3: vec3(1.0, 1.0, 1.0)
            vec4(p, 0, 1)  =>  vec4: vec4(1.5, 0.25, 0.0, 1.0)
            vec4(v.xy, 0, 1)  =>  vec4: vec4(1.0, 2.0, 0.0, 1.0)
            vec2(w)  =>  vec2: vec2(0.5, -1.0)
            vec4(m)  =>  vec4: vec4(1.0, 2.0, 3.0, 4.0)
            vec3(p)  =>  error: vec3() needs 3 components, the arguments have 2
            vec2(1, 2, 3)  =>  error: vec2() has too many arguments
            ivec3(2.7, -2.7, true)  =>  ivec3: ivec3(2, -2, 1)
            bvec2(0, 2.5)  =>  bvec2: bvec2(false, true)
            uvec2(-1)  =>  uvec2: uvec2(4294967295u, 4294967295u)
            float(i)  =>  float: 3.0
            int(-2.7)  =>  int: -2
            uint(i)  =>  uint: 3u
            bool(0.0)  =>  bool: false
            float(true)  =>  float: 1.0
            int(v)  =>  int: 1
            double(0.1)  =>  double: 0.10000000149011612lf
            float(1, 2)  =>  error: float() takes one argument
            mat2(2)  =>  mat2: mat2(vec2(2.0, 0.0), vec2(0.0, 2.0))
            mat2(1, 2, 3, 4)  =>  mat2: mat2(vec2(1.0, 2.0), vec2(3.0, 4.0))
            mat2(p, v.xy)  =>  mat2: mat2(vec2(1.5, 0.25), vec2(1.0, 2.0))
            mat3(m)  =>  mat3: mat3(vec3(1.0, 2.0, 0.0), vec3(3.0, 4.0, 0.0), vec3(0.0, 0.0, 1.0))
            mat2(mat3(5))  =>  mat2: mat2(vec2(5.0, 0.0), vec2(0.0, 5.0))
            mat2x3(m)  =>  mat2x3: mat2x3(vec3(1.0, 2.0, 0.0), vec3(3.0, 4.0, 0.0))
            mat2(1, 2, 3)  =>  error: mat2() needs 4 components, the arguments have 3
            mat2(m, 1.0)  =>  error: mat2() takes a matrix only as its one argument
            Light(v, 2)  =>  Light: Light(vec3(1.0, 2.0, 3.0), 2.0)
            Light(v)  =>  error: Light() takes 2 arguments, not 1
            Light(p, 1.0)  =>  error: Light() field pos: vec2 does not convert to vec3
            Light(v, 2).pos.z  =>  float: 3.0
            float[3](1, 2.5, i)  =>  float[3]: float[3](1.0, 2.5, 3.0)
            int[](4, 5)  =>  int[2]: int[2](4, 5)
            float[2](1.0)  =>  error: float[2]() takes 2 elements, not 1
            vec3(1)[2]  =>  float: 1.0
            vec2()  =>  error: vec2() needs arguments
            sampler2D(1)  =>  error: a sampler2D cannot be constructed
            Nope(1)  =>  error: no function named Nope
        "#]],
    );
}

#[test]
fn common_functions() {
    // fract(-1.25) = -1.25 - floor(-1.25) = 0.75; mod(-1, 3) = -1 - 3 * floor(-1/3) = 2;
    // round() rounds halves to even, as Mesa does; mix(0, 10, 0.25) = 0*0.75 + 10*0.25;
    // smoothstep(0, 4, 1): t = 0.25, t*t*(3 - 2t) = 0.15625.
    check(
        "
        abs(-2.5)
        abs(iv)
        sign(w)
        sign(-5)
        floor(-1.5)
        ceil(-1.5)
        fract(-1.25)
        trunc(-1.5)
        round(2.5)
        roundEven(3.5)
        mod(-1.0, 3.0)
        mod(v, 2.0)
        min(v, 2.0)
        max(3, 7)
        min(u, 2u)
        max(p, v.yx)
        clamp(w, 0.0, 1.0)
        clamp(-5, 0, 3)
        mix(0.0, 10.0, 0.25)
        mix(v, vec3(3), 0.5)
        mix(v, w.xyz, bvec3(true, false, true))
        step(1.0, v)
        step(2.5, v)
        smoothstep(0.0, 2.0, 1.0)
        smoothstep(0.0, 4.0, 1.0)
        fma(2.0, 3.0, 1.0)
        sqrt(d)
        abs(-d)
        sign(u)
        pow(v, 2.0)
        sin(v, v)
        abs(true)
        min(v, p)
        ",
        expect![[r#"
            abs(-2.5)  =>  float: 2.5
            abs(iv)  =>  ivec2: ivec2(3, 4)
            sign(w)  =>  vec4: vec4(1.0, -1.0, 1.0, 0.0)
            sign(-5)  =>  int: -1
            floor(-1.5)  =>  float: -2.0
            ceil(-1.5)  =>  float: -1.0
            fract(-1.25)  =>  float: 0.75
            trunc(-1.5)  =>  float: -1.0
            round(2.5)  =>  float: 2.0
            roundEven(3.5)  =>  float: 4.0
            mod(-1.0, 3.0)  =>  float: 2.0
            mod(v, 2.0)  =>  vec3: vec3(1.0, 0.0, 1.0)
            min(v, 2.0)  =>  vec3: vec3(1.0, 2.0, 2.0)
            max(3, 7)  =>  int: 7
            min(u, 2u)  =>  uint: 2u
            max(p, v.yx)  =>  vec2: vec2(2.0, 1.0)
            clamp(w, 0.0, 1.0)  =>  vec4: vec4(0.5, 0.0, 1.0, 0.0)
            clamp(-5, 0, 3)  =>  int: 0
            mix(0.0, 10.0, 0.25)  =>  float: 2.5
            mix(v, vec3(3), 0.5)  =>  vec3: vec3(2.0, 2.5, 3.0)
            mix(v, w.xyz, bvec3(true, false, true))  =>  vec3: vec3(0.5, 2.0, 2.0)
            step(1.0, v)  =>  vec3: vec3(1.0, 1.0, 1.0)
            step(2.5, v)  =>  vec3: vec3(0.0, 0.0, 1.0)
            smoothstep(0.0, 2.0, 1.0)  =>  float: 0.5
            smoothstep(0.0, 4.0, 1.0)  =>  float: 0.15625
            fma(2.0, 3.0, 1.0)  =>  float: 7.0
            sqrt(d)  =>  double: 0.7071067811865476lf
            abs(-d)  =>  double: 0.5lf
            sign(u)  =>  error: no overload of sign takes (uint)
            pow(v, 2.0)  =>  error: no overload of pow takes (vec3, float)
            sin(v, v)  =>  error: no overload of sin takes (vec3, vec3)
            abs(true)  =>  error: no overload of abs takes (bool)
            min(v, p)  =>  error: no overload of min takes (vec3, vec2)
        "#]],
    );
}

#[test]
fn exponential_and_trigonometry() {
    // The f32 values nearest pi/2 (1.5707964), pi/4 (0.7853982), 3pi/4
    // (2.3561945), pi (3.1415927) and sin(1) (0.84147096).
    check(
        "
        pow(2.0, 10.0)
        exp2(3.0)
        log2(8.0)
        sqrt(16.0)
        inversesqrt(4.0)
        exp(0.0)
        log(1.0)
        sqrt(-1.0)
        sin(0.0)
        cos(0.0)
        tan(0.0)
        asin(1.0)
        acos(1.0)
        atan(1.0)
        atan(1.0, -1.0)
        atan(0.0, -1.0)
        radians(180.0)
        degrees(3.14159265)
        sin(1)
        sinh(0.0)
        cosh(0.0)
        ",
        expect![[r#"
            pow(2.0, 10.0)  =>  float: 1024.0
            exp2(3.0)  =>  float: 8.0
            log2(8.0)  =>  float: 3.0
            sqrt(16.0)  =>  float: 4.0
            inversesqrt(4.0)  =>  float: 0.5
            exp(0.0)  =>  float: 1.0
            log(1.0)  =>  float: 0.0
            sqrt(-1.0)  =>  float: NaN
            sin(0.0)  =>  float: 0.0
            cos(0.0)  =>  float: 1.0
            tan(0.0)  =>  float: 0.0
            asin(1.0)  =>  float: 1.5707964
            acos(1.0)  =>  float: 0.0
            atan(1.0)  =>  float: 0.7853982
            atan(1.0, -1.0)  =>  float: 2.3561945
            atan(0.0, -1.0)  =>  float: 3.1415927
            radians(180.0)  =>  float: 3.1415927
            degrees(3.14159265)  =>  float: 180.0
            sin(1)  =>  float: 0.84147096
            sinh(0.0)  =>  float: 0.0
            cosh(0.0)  =>  float: 1.0
        "#]],
    );
}

#[test]
fn geometric_functions() {
    // reflect((1,-1), (0,1)) = I - 2 dot(N, I) N = (1,-1) + 2 (0,1);
    // refract straight through with eta 1; grazing with eta 2 is total
    // internal reflection (k < 0): zero.
    check(
        "
        length(vec2(3, 4))
        length(-2.0)
        distance(v, vec3(1, 2, 5))
        dot(v, v)
        cross(vec3(1, 0, 0), vec3(0, 1, 0))
        normalize(vec2(3, 4))
        reflect(vec2(1, -1), vec2(0, 1))
        refract(vec2(0, -1), vec2(0, 1), 1.0)
        refract(normalize(vec2(1, -0.1)), vec2(0, 1), 2.0)
        faceforward(n, vec3(0, 0, 1), n)
        faceforward(n, vec3(0, 0, -1), n)
        length(m)
        cross(p, p)
        dot(v, p)
        refract(v, v, v)
        ",
        expect![[r#"
            length(vec2(3, 4))  =>  float: 5.0
            length(-2.0)  =>  float: 2.0
            distance(v, vec3(1, 2, 5))  =>  float: 2.0
            dot(v, v)  =>  float: 14.0
            cross(vec3(1, 0, 0), vec3(0, 1, 0))  =>  vec3: vec3(0.0, 0.0, 1.0)
            normalize(vec2(3, 4))  =>  vec2: vec2(0.6, 0.8)
            reflect(vec2(1, -1), vec2(0, 1))  =>  vec2: vec2(1.0, 1.0)
            refract(vec2(0, -1), vec2(0, 1), 1.0)  =>  vec2: vec2(0.0, -1.0)
            refract(normalize(vec2(1, -0.1)), vec2(0, 1), 2.0)  =>  vec2: vec2(0.0, 0.0)
            faceforward(n, vec3(0, 0, 1), n)  =>  vec3: vec3(-0.0, -0.0, -1.0)
            faceforward(n, vec3(0, 0, -1), n)  =>  vec3: vec3(0.0, 0.0, 1.0)
            length(m)  =>  error: no overload of length takes (mat2)
            cross(p, p)  =>  error: no overload of cross takes (vec2, vec2)
            dot(v, p)  =>  error: no overload of dot takes (vec3, vec2)
            refract(v, v, v)  =>  error: no overload of refract takes (vec3, vec3, vec3)
        "#]],
    );
}

#[test]
fn relational_classification_and_bits() {
    check(
        "
        lessThan(v, vec3(2))
        lessThanEqual(v, vec3(2))
        greaterThan(iv, ivec2(0))
        greaterThanEqual(iv, ivec2(-3, 5))
        equal(bv, bvec3(true))
        notEqual(v, v)
        lessThan(1.0, 2.0)
        lessThan(bv, bv)
        all(bv)
        any(bv)
        not(bv)
        any(b)
        isnan(0.0 / 0.0)
        isinf(vec2(1.0 / 0.0, 1.0))
        isnan(i)
        floatBitsToUint(1.0)
        floatBitsToInt(-2.0)
        intBitsToFloat(0x40000000)
        uintBitsToFloat(0x3f800000u)
        uintBitsToFloat(uvec2(0x7f800000u, 0u))
        ",
        expect![[r#"
            lessThan(v, vec3(2))  =>  bvec3: bvec3(true, false, false)
            lessThanEqual(v, vec3(2))  =>  bvec3: bvec3(true, true, false)
            greaterThan(iv, ivec2(0))  =>  bvec2: bvec2(false, true)
            greaterThanEqual(iv, ivec2(-3, 5))  =>  bvec2: bvec2(true, false)
            equal(bv, bvec3(true))  =>  bvec3: bvec3(true, false, true)
            notEqual(v, v)  =>  bvec3: bvec3(false, false, false)
            lessThan(1.0, 2.0)  =>  error: no overload of lessThan takes (float, float)
            lessThan(bv, bv)  =>  error: no overload of lessThan takes (bvec3, bvec3)
            all(bv)  =>  bool: false
            any(bv)  =>  bool: true
            not(bv)  =>  bvec3: bvec3(false, true, false)
            any(b)  =>  error: no overload of any takes (bool)
            isnan(0.0 / 0.0)  =>  bool: true
            isinf(vec2(1.0 / 0.0, 1.0))  =>  bvec2: bvec2(true, false)
            isnan(i)  =>  error: no overload of isnan takes (int)
            floatBitsToUint(1.0)  =>  uint: 1065353216u
            floatBitsToInt(-2.0)  =>  int: -1073741824
            intBitsToFloat(0x40000000)  =>  float: 2.0
            uintBitsToFloat(0x3f800000u)  =>  float: 1.0
            uintBitsToFloat(uvec2(0x7f800000u, 0u))  =>  vec2: vec2(inf, 0.0)
        "#]],
    );
}

#[test]
fn matrix_functions() {
    // det [1 3; 2 4] = -2, inverse = 1/-2 [4 -3; -2 1] = columns (-2, 1), (1.5, -0.5).
    // mat3 columns (2,0,0), (0,3,0), (1,1,4) is upper triangular: det 2*3*4.
    // outerProduct(c, r)[j][i] = c[i] * r[j].
    check(
        "
        transpose(m)
        transpose(mat2x3(1, 2, 3, 4, 5, 6))
        determinant(m)
        determinant(mat3(2, 0, 0, 0, 3, 0, 1, 1, 4))
        determinant(mat4(2))
        inverse(m)
        inverse(m) * m
        inverse(mat3(2, 0, 0, 0, 4, 0, 0, 0, 8))
        inverse(mat4(2))[3]
        matrixCompMult(m, m)
        outerProduct(vec2(1, 2), vec3(3, 4, 5))
        inverse(mat2x3(1, 2, 3, 4, 5, 6))
        determinant(v)
        matrixCompMult(m, mat3(1))
        ",
        expect![[r#"
            transpose(m)  =>  mat2: mat2(vec2(1.0, 3.0), vec2(2.0, 4.0))
            transpose(mat2x3(1, 2, 3, 4, 5, 6))  =>  mat3x2: mat3x2(vec2(1.0, 4.0), vec2(2.0, 5.0), vec2(3.0, 6.0))
            determinant(m)  =>  float: -2.0
            determinant(mat3(2, 0, 0, 0, 3, 0, 1, 1, 4))  =>  float: 24.0
            determinant(mat4(2))  =>  float: 16.0
            inverse(m)  =>  mat2: mat2(vec2(-2.0, 1.0), vec2(1.5, -0.5))
            inverse(m) * m  =>  mat2: mat2(vec2(1.0, 0.0), vec2(0.0, 1.0))
            inverse(mat3(2, 0, 0, 0, 4, 0, 0, 0, 8))  =>  mat3: mat3(vec3(0.5, 0.0, 0.0), vec3(0.0, 0.25, 0.0), vec3(0.0, 0.0, 0.125))
            inverse(mat4(2))[3]  =>  vec4: vec4(0.0, 0.0, 0.0, 0.5)
            matrixCompMult(m, m)  =>  mat2: mat2(vec2(1.0, 4.0), vec2(9.0, 16.0))
            outerProduct(vec2(1, 2), vec3(3, 4, 5))  =>  mat3x2: mat3x2(vec2(3.0, 6.0), vec2(4.0, 8.0), vec2(5.0, 10.0))
            inverse(mat2x3(1, 2, 3, 4, 5, 6))  =>  error: no overload of inverse takes (mat2x3)
            determinant(v)  =>  error: no overload of determinant takes (vec3)
            matrixCompMult(m, mat3(1))  =>  error: no overload of matrixCompMult takes (mat2, mat3)
        "#]],
    );
}

#[test]
fn gpu_only_and_refused() {
    check(
        "
        texture(tex, p)
        texture(tex, p).rgb * 2.0
        texelFetch(tex, ivec2(0), 0)
        dFdx(p.x)
        fwidth(v)
        bitfieldExtract(5, 0, 2)
        shade(p)
        nope(1)
        p +
        vec3(1
        #define X 1
        tex + 1.0
        ",
        expect![[r#"
            texture(tex, p)  =>  needs GPU: texture()
            texture(tex, p).rgb * 2.0  =>  needs GPU: texture()
            texelFetch(tex, ivec2(0), 0)  =>  needs GPU: texelFetch()
            dFdx(p.x)  =>  needs GPU: dFdx()
            fwidth(v)  =>  needs GPU: fwidth()
            bitfieldExtract(5, 0, 2)  =>  needs GPU: bitfieldExtract()
            shade(p)  =>  unsupported: shade() is a function of the shader: calls of the shader's functions are not evaluated (they could change what the shader computes)
            nope(1)  =>  error: no function named nope
            p +  =>  error: does not parse: ...
            vec3(1  =>  error: does not parse: ...
            #define X 1  =>  error: preprocessor directives are not allowed in an expression
            tex + 1.0  =>  error: `+` needs scalars, vectors or matrices, not sampler2D
        "#]],
    );
    assert_eq!(
        EvalError::NeedsGpu {
            what: "texture()".into()
        }
        .to_string(),
        "texture() needs the GPU"
    );
}

/// A fake GPU: a 4x2 watch image whose slot for pixel (1, 1) holds `value`
/// (no other invocation reached the line); records what it was asked.
fn fake_gpu(
    value: Typed,
    asked: &mut Vec<(u32, String)>,
) -> impl FnMut(u32, &str) -> Result<WatchImage, SessionError> + '_ {
    move |line, expr| {
        asked.push((line, expr.to_string()));
        let mut values = vec![None; 8];
        values[4 + 1] = Some(value.value.clone());
        Ok(WatchImage {
            expr: expr.to_string(),
            ty: value.ty.clone(),
            line,
            width: 4,
            height: 2,
            values,
            origin: Default::default(),
        })
    }
}

fn site(first_reach: bool) -> GpuSite {
    GpuSite {
        line: 12,
        slot: Slot::Pixel { x: 1, y: 1 },
        first_reach,
    }
}

#[test]
fn gpu_fallback_evaluates_the_call_at_the_invocations_slot() {
    let texel = Typed::new(Type::Vector(Scalar::Float, 4), fl(&[0.25, 0.5, 0.75, 1.0]));
    let mut asked = Vec::new();
    let mut gpu = fake_gpu(texel, &mut asked);
    // First reach of the line: the call goes as written; the rest stays on the CPU.
    let r = evaluate_with_gpu(
        "texture(tex, p * 0.5).rgb * 2.0",
        &TestScope,
        &mut gpu,
        site(true),
    );
    let mut out = show(r) + "\n";
    // A later pass through the line: arguments become their values now.
    let r = evaluate_with_gpu(
        "texture(texs[i - 2], p * 0.5)",
        &TestScope,
        &mut gpu,
        site(false),
    );
    out += &(show(r) + "\n");
    let r = evaluate_with_gpu("dFdx(p.x)", &TestScope, &mut gpu, site(false));
    out += &(show(r) + "\n");
    let r = evaluate_with_gpu("texture(tex, later)", &TestScope, &mut gpu, site(false));
    out += &(show(r) + "\n");
    drop(gpu);
    for (line, expr) in &asked {
        out += &format!("asked: line {line}: {expr}\n");
    }
    expect![[r#"
        vec3: vec3(0.5, 1.0, 1.5)
        vec4: vec4(0.25, 0.5, 0.75, 1.0)
        error: on the GPU: dFdx() is evaluated only where the invocation first reaches line 12; the cursor is at a later pass
        error: `later` has no value yet at this step
        asked: line 12: texture(tex, p * 0.5)
        asked: line 12: texture(texs[1], vec2(0.75, 0.125))
    "#]]
    .assert_eq(&out);
}

#[test]
fn gpu_fallback_errors() {
    let mut asked = Vec::new();
    let mut gpu = fake_gpu(Typed::new(Type::Scalar(Scalar::Float), f(0.5)), &mut asked);
    let mut out = String::new();
    // Pixel (0, 0) was not reached in the fake image.
    let other = GpuSite {
        slot: Slot::Pixel { x: 0, y: 0 },
        ..site(true)
    };
    out += &(show(evaluate_with_gpu("dFdx(p.x)", &TestScope, &mut gpu, other)) + "\n");
    let outside = GpuSite {
        slot: Slot::Pixel { x: 9, y: 0 },
        ..site(true)
    };
    out += &(show(evaluate_with_gpu(
        "dFdx(p.x)",
        &TestScope,
        &mut gpu,
        outside,
    )) + "\n");
    // The rest of the expression stays on the CPU.
    out += &(show(evaluate_with_gpu(
        "dFdx(p.x) * 2.0",
        &TestScope,
        &mut gpu,
        site(true),
    )) + "\n");
    let mut failing = |_: u32, _: &str| -> Result<WatchImage, SessionError> {
        Err(SessionError::Failed(
            "watch expression `dFdx(p.x)`: no such variable".into(),
        ))
    };
    out += &(show(evaluate_with_gpu(
        "dFdx(p.x)",
        &TestScope,
        &mut failing,
        site(true),
    )) + "\n");
    expect![[r#"
        error: on the GPU: the replay did not reach line 12 for this invocation
        error: on the GPU: pixel (9, 0) is outside the 4x2 watch image
        float: 1.0
        error: on the GPU: watch expression `dFdx(p.x)`: no such variable
    "#]]
    .assert_eq(&out);
}

#[test]
fn literals_read_back_exactly() {
    let cases = [
        Typed::new(Type::Scalar(Scalar::Float), f(0.1)),
        Typed::new(Type::Scalar(Scalar::Float), f(1e-10)),
        Typed::new(Type::Scalar(Scalar::Float), f(f32::INFINITY)),
        Typed::new(Type::Scalar(Scalar::Float), f(3.0)),
        Typed::new(Type::Scalar(Scalar::Int), Value::Int(i32::MIN)),
        Typed::new(Type::Scalar(Scalar::Double), Value::Double(2.0)),
        Typed::new(
            Type::mat(2, 2),
            Value::List(vec![fl(&[1.0, 2.0]), fl(&[3.0, 4.0])]),
        ),
        Typed::new(Type::Struct(light()), light_value([1.0, 2.0, 3.0], 0.5)),
    ];
    let out: Vec<String> = cases
        .iter()
        .map(|t| literal(t).unwrap_or_else(|e| e.to_string()))
        .collect();
    expect![[r#"
        0.1
        1e-10
        uintBitsToFloat(0x7f800000u)
        3.0
        (-2147483647 - 1)
        2.0lf
        mat2(1.0, 2.0, 3.0, 4.0)
        Light(vec3(1.0, 2.0, 3.0), 0.5)"#]]
    .assert_eq(&out.join("\n"));
    // Each evaluates back to the same value.
    for t in &cases[..2] {
        let text = literal(t).unwrap_or_default();
        assert_eq!(evaluate(&text, &TestScope).ok().as_ref(), Some(t), "{text}");
    }
}
