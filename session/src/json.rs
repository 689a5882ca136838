//! Values as JSON, for `--json` output and DAP.

use serde_json::{json, Value as Json};
use shaderdbg_glsl::Value;

/// A value as JSON: numbers, booleans, arrays for vectors and arrays (a
/// matrix is an array of its columns), objects for structs, `null` where a
/// part was never written. Non-finite floats, which JSON cannot carry, become
/// the strings "NaN", "Infinity", "-Infinity".
pub fn value(v: &Value) -> Json {
    match v {
        Value::Bool(b) => json!(b),
        Value::Int(i) => json!(i),
        Value::Uint(u) => json!(u),
        Value::Float(f) => float(f64::from(*f)),
        Value::Double(d) => float(*d),
        Value::List(items) => Json::Array(items.iter().map(value).collect()),
        Value::Struct(fields) => {
            Json::Object(fields.iter().map(|(n, v)| (n.clone(), value(v))).collect())
        }
        Value::Undefined => Json::Null,
    }
}

fn float(f: f64) -> Json {
    if f.is_finite() {
        json!(f)
    } else if f.is_nan() {
        json!("NaN")
    } else if f > 0.0 {
        json!("Infinity")
    } else {
        json!("-Infinity")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes() {
        let m = Value::List(vec![
            Value::List(vec![Value::Float(1.0), Value::Float(2.0)]),
            Value::List(vec![Value::Float(3.0), Value::Float(f32::NAN)]),
        ]);
        assert_eq!(value(&m).to_string(), r#"[[1.0,2.0],[3.0,"NaN"]]"#);
        let s = Value::Struct(vec![
            ("n".into(), Value::Int(-2)),
            ("on".into(), Value::Bool(true)),
            ("x".into(), Value::Undefined),
        ]);
        assert_eq!(value(&s).to_string(), r#"{"n":-2,"on":true,"x":null}"#);
    }
}
