//! What an editor can offer to complete: members of a value (struct fields,
//! swizzles, `length()`), keywords and built-in type names for a GLSL version.

use crate::shader::Version;
use crate::types::Type;

/// What a member is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemberKind {
    Field,
    Swizzle,
    /// `length()` of an array.
    Method,
}

/// Something that can follow `value.`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Member {
    pub name: String,
    pub ty: Type,
    pub kind: MemberKind,
}

/// The members of a value of type `ty`: the fields of a struct (or interface
/// block), the single components and the common swizzles of a vector, the
/// `length()` of an array.
pub fn members(ty: &Type) -> Vec<Member> {
    match ty {
        Type::Struct(s) => s
            .fields
            .iter()
            .map(|f| Member {
                name: f.name.clone(),
                ty: f.ty.clone(),
                kind: MemberKind::Field,
            })
            .collect(),
        Type::Vector(scalar, n) => {
            let n = *n as usize;
            let mut names: Vec<String> = Vec::new();
            for set in ["xyzw", "rgba", "stpq"] {
                names.extend(set[..n].chars().map(String::from));
            }
            for len in 2..=n {
                for set in ["xyzw", "rgba"] {
                    names.push(set[..len].to_string());
                }
            }
            if n >= 2 {
                names.push("yx".into());
            }
            names
                .into_iter()
                .map(|name| Member {
                    ty: Type::vec(*scalar, name.len() as u8),
                    name,
                    kind: MemberKind::Swizzle,
                })
                .collect()
        }
        Type::Array(..) => vec![Member {
            name: "length".into(),
            ty: crate::types::INT,
            kind: MemberKind::Method,
        }],
        _ => Vec::new(),
    }
}

/// Statement and declaration keywords and qualifiers of GLSL `version`.
pub fn keywords(version: Version) -> Vec<&'static str> {
    let mut k = vec![
        "attribute",
        "break",
        "const",
        "continue",
        "discard",
        "do",
        "else",
        "false",
        "for",
        "highp",
        "if",
        "in",
        "inout",
        "invariant",
        "lowp",
        "mediump",
        "out",
        "precision",
        "return",
        "struct",
        "true",
        "uniform",
        "varying",
        "while",
    ];
    let modern = if version.is_es() {
        version.number >= 300
    } else {
        version.number >= 130
    };
    if modern {
        k.extend([
            "case", "centroid", "default", "flat", "layout", "smooth", "switch",
        ]);
        k.retain(|w| !matches!(*w, "attribute" | "varying") || version.has_legacy_builtins());
    }
    let compute = if version.is_es() {
        version.number >= 310
    } else {
        version.number >= 430
    };
    if compute {
        k.extend([
            "buffer",
            "coherent",
            "readonly",
            "restrict",
            "shared",
            "volatile",
            "writeonly",
        ]);
    }
    if !version.is_es() && version.number >= 130 {
        k.push("noperspective");
    }
    if !version.is_es() && version.number >= 400 {
        k.extend(["patch", "sample", "subroutine"]);
    }
    k.sort_unstable();
    k
}

/// Built-in type names of GLSL `version` (scalars, vectors, matrices and the
/// common samplers).
pub fn type_names(version: Version) -> Vec<&'static str> {
    let mut t = vec![
        "void",
        "bool",
        "int",
        "float",
        "vec2",
        "vec3",
        "vec4",
        "bvec2",
        "bvec3",
        "bvec4",
        "ivec2",
        "ivec3",
        "ivec4",
        "mat2",
        "mat3",
        "mat4",
        "sampler2D",
        "samplerCube",
    ];
    let es3 = version.is_es() && version.number >= 300;
    let desktop = !version.is_es();
    if desktop || es3 {
        t.extend([
            "mat2x3",
            "mat2x4",
            "mat3x2",
            "mat3x4",
            "mat4x2",
            "mat4x3",
            "sampler3D",
            "sampler2DShadow",
        ]);
    }
    if (desktop && version.number >= 130) || es3 {
        t.extend([
            "uint",
            "uvec2",
            "uvec3",
            "uvec4",
            "sampler2DArray",
            "isampler2D",
            "usampler2D",
            "samplerCubeShadow",
            "sampler2DArrayShadow",
        ]);
    }
    if desktop {
        t.extend(["sampler1D", "sampler1DShadow"]);
    }
    if desktop && version.number >= 400 {
        t.extend([
            "double", "dvec2", "dvec3", "dvec4", "dmat2", "dmat3", "dmat4",
        ]);
    }
    if (desktop && version.number >= 420) || (version.is_es() && version.number >= 310) {
        t.extend(["image2D", "image3D", "atomic_uint"]);
    }
    t.sort_unstable();
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shader::Profile;
    use crate::types::Scalar;

    #[test]
    fn vector_members_fit_the_size() {
        let m = members(&Type::Vector(Scalar::Float, 2));
        assert!(m.iter().any(|m| m.name == "y"));
        assert!(!m.iter().any(|m| m.name == "z" || m.name == "xyz"));
        let xyz = members(&Type::Vector(Scalar::Float, 4))
            .into_iter()
            .find(|m| m.name == "xyz")
            .unwrap();
        assert_eq!(xyz.ty, Type::Vector(Scalar::Float, 3));
    }

    #[test]
    fn keywords_follow_the_version() {
        let old = Version {
            number: 100,
            profile: Profile::Es,
        };
        let new = Version {
            number: 310,
            profile: Profile::Es,
        };
        assert!(keywords(old).contains(&"varying"));
        assert!(!keywords(old).contains(&"layout"));
        assert!(!keywords(new).contains(&"varying"));
        assert!(keywords(new).contains(&"buffer"));
        assert!(!type_names(old).contains(&"uint"));
        assert!(type_names(new).contains(&"uvec3"));
    }
}
