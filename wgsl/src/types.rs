//! naga's types in the core's type model. Only what a step log can carry
//! becomes a loggable type: 32-bit scalars (and bool) and what is built of
//! them; f16, f64 and 64-bit integers become opaque (named as WGSL does), so
//! values of those types are not logged.

use std::sync::Arc;

use naga::{ArraySize, Handle, ScalarKind, TypeInner, UniqueArena};
use shaderdbg_core::types::{Field, Scalar, StructType, Type};

/// The core type of the naga type `ty`.
pub fn core_type(types: &UniqueArena<naga::Type>, ty: Handle<naga::Type>) -> Type {
    let t = &types[ty];
    match &t.inner {
        TypeInner::Struct { members, .. } => Type::Struct(Arc::new(StructType {
            name: t.name.clone().unwrap_or_else(|| "struct".to_string()),
            fields: members
                .iter()
                .enumerate()
                .map(|(i, m)| Field {
                    name: m.name.clone().unwrap_or_else(|| format!("member{i}")),
                    ty: core_type(types, m.ty),
                })
                .collect(),
        })),
        inner => core_inner(types, inner),
    }
}

/// The core type of an expression's resolved type (a struct keeps its name
/// and members: it always has a handle).
pub fn core_resolution(types: &UniqueArena<naga::Type>, r: &naga::proc::TypeResolution) -> Type {
    match r {
        naga::proc::TypeResolution::Handle(h) => core_type(types, *h),
        naga::proc::TypeResolution::Value(inner) => core_inner(types, inner),
    }
}

/// The core type of a type without a handle (an expression's resolved type).
pub fn core_inner(types: &UniqueArena<naga::Type>, inner: &TypeInner) -> Type {
    match *inner {
        TypeInner::Scalar(s) => scalar(s).map_or_else(|| opaque(types, inner), Type::Scalar),
        TypeInner::Vector { size, scalar: s } => {
            scalar(s).map_or_else(|| opaque(types, inner), |k| Type::Vector(k, size as u8))
        }
        TypeInner::Matrix {
            columns,
            rows,
            scalar: s,
        } => match scalar(s) {
            Some(k) => Type::Matrix {
                scalar: k,
                cols: columns as u8,
                rows: rows as u8,
            },
            None => opaque(types, inner),
        },
        TypeInner::Array { base, size, .. } => {
            let n = match size {
                ArraySize::Constant(n) => Some(n.get()),
                ArraySize::Pending(_) | ArraySize::Dynamic => None,
            };
            Type::Array(Box::new(core_type(types, base)), n)
        }
        TypeInner::Struct { .. } => opaque(types, inner),
        // A pointer parameter shows as what it points at.
        TypeInner::Pointer { base, .. } => core_type(types, base),
        TypeInner::ValuePointer {
            size: None,
            scalar: s,
            ..
        } => core_inner(types, &TypeInner::Scalar(s)),
        TypeInner::ValuePointer {
            size: Some(size),
            scalar: s,
            ..
        } => core_inner(types, &TypeInner::Vector { size, scalar: s }),
        _ => opaque(types, inner),
    }
}

fn scalar(s: naga::Scalar) -> Option<Scalar> {
    match (s.kind, s.width) {
        (ScalarKind::Bool, _) => Some(Scalar::Bool),
        (ScalarKind::Sint, 4) => Some(Scalar::Int),
        (ScalarKind::Uint, 4) => Some(Scalar::Uint),
        (ScalarKind::Float, 4) => Some(Scalar::Float),
        _ => None,
    }
}

fn opaque(types: &UniqueArena<naga::Type>, inner: &TypeInner) -> Type {
    use naga::common::wgsl::TypeContext;
    let res = naga::proc::TypeResolution::Value(inner.clone());
    Type::Opaque(types.type_resolution_to_string(&res))
}

#[cfg(test)]
mod tests {
    use super::*;
    use shaderdbg_core::Language;

    #[test]
    fn wgsl_types_map_to_the_core_model() {
        let src = "struct S { a: vec3<f32>, b: array<u32, 4>, m: mat2x3<f32>, h: atomic<u32> }\n\
                   @group(0) @binding(0) var<storage, read_write> s: S;\n";
        let parsed = crate::parse::parse(src).unwrap();
        let types = &parsed.module.types;
        let (h, _) = types
            .iter()
            .find(|(_, t)| t.name.as_deref() == Some("S"))
            .unwrap();
        let Type::Struct(st) = core_type(types, h) else {
            panic!("not a struct")
        };
        let got: Vec<String> = st
            .fields
            .iter()
            .map(|f| format!("{}: {}", f.name, f.ty.display_in(Language::Wgsl)))
            .collect();
        assert_eq!(
            got,
            [
                "a: vec3<f32>",
                "b: array<u32, 4>",
                "m: mat2x3<f32>",
                "h: atomic<u32>"
            ]
        );
        assert!(!st.fields[3].ty.is_loggable());
    }
}
