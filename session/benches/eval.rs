//! Expression evaluation benchmarks: `cargo bench -p shaderdbg-session --bench eval`.
//!
//! Plain `Instant` loops; each figure is the median of N runs. The scope is
//! a stop's worth of names (60 variables: locals, inputs, uniforms,
//! built-ins, a struct array) looked up the way `StopScope` does (innermost
//! local first). What a front end adds on top (the variables at the cursor
//! folded from the trace) is measured by the engine bench (`variables_at`).
//!
//! - hover: a plain variable (target: under 2 ms);
//! - a 10-term expression with swizzles, a constructor, built-ins, a matrix
//!   product and a comparison.

use std::sync::Arc;

use shaderdbg_glsl::types::StructType;
use shaderdbg_glsl::{Scalar, Type, Value};
use shaderdbg_session::eval::{evaluate, Scope};
use shaderdbg_test_support::bench::median;

struct Var {
    name: String,
    ty: Type,
    value: Option<Value>,
    local: bool,
}

struct Vars(Vec<Var>);

impl Scope for Vars {
    fn lookup(&self, name: &str) -> Option<(Type, Option<Value>)> {
        let locals = self.0.iter().filter(|v| v.local).rev();
        let others = self.0.iter().filter(|v| !v.local);
        locals
            .chain(others)
            .find(|v| v.name == name)
            .map(|v| (v.ty.clone(), v.value.clone()))
    }
}

fn vars() -> Vars {
    let f = |x: f32| Value::Float(x);
    let vec = |n: usize, x: f32| Value::List((0..n).map(|i| f(x + i as f32)).collect());
    let mut out = Vec::new();
    for i in 0..50 {
        let (ty, value) = match i % 5 {
            0 => (Type::Scalar(Scalar::Float), f(i as f32 * 0.5)),
            1 => (Type::Vector(Scalar::Float, 2), vec(2, i as f32)),
            2 => (Type::Vector(Scalar::Float, 3), vec(3, i as f32)),
            3 => (Type::Vector(Scalar::Float, 4), vec(4, i as f32)),
            _ => (Type::Scalar(Scalar::Int), Value::Int(i)),
        };
        out.push(Var {
            name: format!("v{i}"),
            ty,
            value: Some(value),
            local: i < 30,
        });
    }
    let light = Arc::new(StructType::new(
        "Light",
        [
            ("pos", Type::Vector(Scalar::Float, 3)),
            ("radius", Type::Scalar(Scalar::Float)),
        ],
    ));
    let lights = (0..8)
        .map(|i| {
            Value::Struct(vec![
                ("pos".into(), vec(3, i as f32)),
                ("radius".into(), f(1.0 + i as f32)),
            ])
        })
        .collect();
    let named = [
        ("uv", Type::Vector(Scalar::Float, 2), vec(2, 0.25), true),
        ("col", Type::Vector(Scalar::Float, 3), vec(3, 0.5), true),
        ("t", Type::Scalar(Scalar::Float), f(1.5), true),
        (
            "model",
            Type::mat(3, 3),
            Value::List(vec![vec(3, 1.0), vec(3, 2.0), vec(3, 3.0)]),
            false,
        ),
        (
            "lights",
            Type::Array(Box::new(Type::Struct(light)), Some(8)),
            Value::List(lights),
            false,
        ),
        (
            "gl_FragCoord",
            Type::Vector(Scalar::Float, 4),
            vec(4, 100.5),
            false,
        ),
    ];
    for (name, ty, value, local) in named {
        out.push(Var {
            name: name.into(),
            ty,
            value: Some(value),
            local,
        });
    }
    Vars(out)
}

fn main() {
    let runs = 201;
    let scope = vars();
    let hover = "col";
    let ten = "length(model * vec3(uv, 1.0)) + dot(col, lights[3].pos) * t \
               - clamp(v7.x, 0.0, 1.0) + mix(v12.y, v13.z, 0.5) + abs(gl_FragCoord.x) > 2.0";
    for (what, expr, target) in [
        ("hover (a plain variable)", hover, " (target < 2 ms)"),
        ("10-term expression", ten, ""),
    ] {
        if let Err(e) = evaluate(expr, &scope) {
            eprintln!("{what}: {e}");
            std::process::exit(1);
        }
        let t = median(runs, || evaluate(expr, &scope));
        // A bench's output is its report (this is a binary, not the library).
        println!(
            "evaluate {what}: {:.1} µs median of {runs}{target}",
            t.as_secs_f64() * 1e6
        );
    }
}
