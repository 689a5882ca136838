//! Built-in functions and variables of GLSL 1.10-4.60 and GLSL ES 1.00-3.20.
//!
//! The built-ins are data, not code: `functions.txt` lists every signature as a
//! GLSL-like prototype with generic types (`genFType radians(genFType degrees)`)
//! followed by the versions and stages it exists in, and `variables.txt` lists the
//! built-in variables and constants the same way. Both tables are compiled in and
//! parsed once, on first use; their headers describe the format. Lookups go through
//! a by-name index and filter the overloads by a [`BuiltinEnv`] (version, profile,
//! stage).
//!
//! Overload resolution is not done here: callers match argument types against the
//! returned signatures (see [`Type::converts_to`]).

mod table;

use std::fmt;
use std::sync::OnceLock;

use crate::{Api, Stage, Type, Version};

/// The dialect and pipeline stage a shader is analysed in: what decides which
/// built-ins exist.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BuiltinEnv {
    pub version: Version,
    pub stage: Stage,
    pub api: Api,
}

/// The direction of a function parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamDir {
    /// Copied in (the default).
    In,
    /// Written by the function (`out`), e.g. the integer part of `modf`.
    Out,
    /// Read and written (`inout`), e.g. the memory operand of `atomicAdd`.
    InOut,
}

/// A parameter of a built-in function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Param {
    /// The name the specification gives it (`x`, `sampler`, `P`, `bias`, ...).
    pub name: String,
    pub ty: Type,
    pub dir: ParamDir,
}

/// One overload of a built-in function, with concrete types.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Signature {
    pub name: String,
    /// The return type (`Type::Void` for none).
    pub ret: Type,
    pub params: Vec<Param>,
}

impl Signature {
    /// The signature as a GLSL prototype, e.g. `vec4 texture(sampler2D sampler, vec2 P)`
    /// or `float modf(float x, out float i)`.
    pub fn display(&self) -> String {
        self.to_string()
    }
}

impl fmt::Display for Signature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}(", self.ret, self.name)?;
        for (i, p) in self.params.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            match p.dir {
                ParamDir::In => {}
                ParamDir::Out => f.write_str("out ")?,
                ParamDir::InOut => f.write_str("inout ")?,
            }
            f.write_str(&crate::types::decl_text(&p.ty, &p.name))?;
        }
        f.write_str(")")
    }
}

/// How a built-in variable is qualified: `In` (a shader input or system
/// value; read-only), `Out` (a writable output), `InOut`, `Uniform` (a
/// built-in uniform such as `gl_DepthRange`) or `Const` (`gl_Max*`,
/// `gl_WorkGroupSize`).
pub use shaderdbg_core::probes::Storage;

/// A built-in variable or constant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Variable {
    pub name: String,
    /// The type; unsized arrays (`gl_ClipDistance`, `gl_in`) have size `None`.
    pub ty: Type,
    pub storage: Storage,
}

/// A map keyed by identifiers, for the built-in tables and the analysis's
/// private maps (looked up at every identifier and call; nothing iterates
/// them in an order that shows): FxHash's multiply-rotate instead of
/// SipHash, which is built against hostile keys and costs more than the
/// lookup here.
pub(crate) type NameMap<V> =
    std::collections::HashMap<String, V, std::hash::BuildHasherDefault<NameHasher>>;

#[derive(Default, Clone, Copy)]
pub(crate) struct NameHasher(u64);

impl NameHasher {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
}

impl std::hash::Hasher for NameHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut words = bytes.chunks_exact(8);
        for w in &mut words {
            self.add(u64::from_le_bytes(w.try_into().unwrap_or_default()));
        }
        let rest = words.remainder();
        if !rest.is_empty() {
            let mut last = [0u8; 8];
            last[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(last));
        }
    }

    fn write_u8(&mut self, b: u8) {
        self.add(u64::from(b));
    }

    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// A set of enabled extensions (of `extensions.txt`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ExtSet([u64; table::MAX_EXTENSIONS / 64]);

impl ExtSet {
    /// Enables an extension and those it implies; false if it is unknown.
    pub fn enable(&mut self, name: &str) -> bool {
        let t = &tables().extensions;
        let Some(&id) = t.index.get(name) else {
            return false;
        };
        for &i in &t.entries[id].implies {
            self.0[i / 64] |= 1 << (i % 64);
        }
        true
    }

    /// Disables an extension (not those it implied).
    pub fn disable(&mut self, name: &str) {
        if let Some(&i) = tables().extensions.index.get(name) {
            self.0[i / 64] &= !(1 << (i % 64));
        }
    }

    /// Enables every known extension (`#extension all : ...` is only for
    /// `warn` and `disable`; this is for tools that want everything).
    pub fn all() -> ExtSet {
        let mut s = ExtSet::default();
        for i in 0..tables().extensions.entries.len() {
            s.0[i / 64] |= 1 << (i % 64);
        }
        s
    }

    fn has(&self, i: usize) -> bool {
        self.0[i / 64] & (1 << (i % 64)) != 0
    }

    pub fn contains(&self, name: &str) -> bool {
        !self.is_empty()
            && tables()
                .extensions
                .index
                .get(name)
                .is_some_and(|&i| self.has(i))
    }

    pub fn is_empty(&self) -> bool {
        self.0.iter().all(|w| *w == 0)
    }

    /// Whether an enabled extension gives the compatibility profile's built-ins.
    pub fn gives_compatibility(&self) -> bool {
        let t = &tables().extensions;
        t.entries
            .iter()
            .enumerate()
            .any(|(i, e)| e.compatibility && self.has(i))
    }

    /// Whether an enabled extension lifts the built-in `name` (whether or
    /// not the tables model it).
    pub fn lifts(&self, name: &str) -> bool {
        !self.is_empty()
            && tables()
                .extensions
                .lifts
                .get(name)
                .is_some_and(|l| l.iter().any(|(i, _)| self.has(*i)))
    }
}

/// Whether argument `index` (0-based) of the built-in function `name`,
/// whose parameter there is named `param` if the tables model it, must be
/// a constant expression (`const` lines of functions.txt).
pub fn constant_argument(name: &str, index: usize, param: Option<&str>) -> bool {
    tables().const_args.get(name).is_some_and(|args| {
        args.iter().any(|a| match a {
            table::ConstArg::Index(i) => *i == index,
            table::ConstArg::Param(p) => param == Some(p.as_str()),
        })
    })
}

/// Whether some argument of the built-in function `name` must be a
/// constant expression (a `const` line of functions.txt names it).
pub fn has_constant_arguments(name: &str) -> bool {
    tables().const_args.contains_key(name)
}

/// Whether `name` is a built-in variable in some version and stage.
pub fn is_builtin_variable(name: &str) -> bool {
    tables().variable_index.contains_key(name)
}

/// Whether `name` is an extension of `extensions.txt`.
pub fn is_extension(name: &str) -> bool {
    tables().extensions.index.contains_key(name)
}

/// The type names an extension adds (for the parser).
pub fn extension_types(name: &str) -> &'static [String] {
    let t = &tables().extensions;
    t.index.get(name).map_or(&[], |&i| &t.entries[i].types)
}

/// The type names the enabled extensions add (`types` lines, implied
/// extensions included), for the parser.
pub fn enabled_extension_types(exts: &ExtSet) -> impl Iterator<Item = &'static str> + '_ {
    let t = &tables().extensions;
    t.entries
        .iter()
        .enumerate()
        .filter(move |(i, _)| exts.has(*i))
        .flat_map(|(_, e)| e.types.iter().map(String::as_str))
}

/// Whether `name` is a type an enabled extension adds.
pub fn is_extension_type(name: &str, exts: &ExtSet) -> bool {
    !exts.is_empty()
        && tables()
            .extensions
            .types
            .get(name)
            .is_some_and(|ids| ids.iter().any(|&i| exts.has(i)))
}

/// [`function_overloads`] with the built-ins the enabled extensions bring.
pub fn function_overloads_with(
    name: &str,
    env: &BuiltinEnv,
    exts: &ExtSet,
) -> Vec<&'static Signature> {
    let t = tables();
    let lifts: Vec<_> = match t.extensions.lifts.get(name) {
        Some(l) if !exts.is_empty() => l.iter().filter(|(i, _)| exts.has(*i)).collect(),
        _ => Vec::new(),
    };
    match t.function_index.get(name) {
        Some(range) => t.functions[range.clone()]
            .iter()
            .filter(|e| {
                e.avail.allows(env) || lifts.iter().any(|(_, at)| e.avail.allows_at(env, at))
            })
            .map(|e| &e.sig)
            .collect(),
        None => Vec::new(),
    }
}

/// [`variable`] with the built-ins the enabled extensions bring.
pub fn variable_with(name: &str, env: &BuiltinEnv, exts: &ExtSet) -> Option<&'static Variable> {
    if let Some(v) = variable(name, env) {
        return Some(v);
    }
    if exts.is_empty() {
        return None;
    }
    let t = tables();
    let lifts = t.extensions.lifts.get(name)?;
    let range = t.variable_index.get(name)?;
    t.variables[range.clone()]
        .iter()
        .find(|e| {
            lifts
                .iter()
                .any(|(i, at)| exts.has(*i) && e.avail.allows_at(env, at))
        })
        .map(|e| &e.var)
}

fn tables() -> &'static table::Tables {
    static TABLES: OnceLock<table::Tables> = OnceLock::new();
    TABLES.get_or_init(table::load)
}

/// All overloads of `name` available in this environment (empty if none / not a builtin there).
///
/// The signatures come in table order: by section, the float forms before the
/// double and integer ones.
pub fn function_overloads(name: &str, env: &BuiltinEnv) -> Vec<&'static Signature> {
    let t = tables();
    match t.function_index.get(name) {
        Some(range) => t.functions[range.clone()]
            .iter()
            .filter(|e| e.avail.allows(env))
            .map(|e| &e.sig)
            .collect(),
        None => Vec::new(),
    }
}

/// One-line description of a built-in function or variable.
pub fn describe(name: &str) -> Option<&'static str> {
    tables().docs.get(name).copied()
}

/// Whether `name` is a built-in function in some version and stage.
pub fn is_builtin_function(name: &str) -> bool {
    tables().function_index.contains_key(name)
}

/// The built-in variable or constant `name` as it exists in this environment.
pub fn variable(name: &str, env: &BuiltinEnv) -> Option<&'static Variable> {
    let t = tables();
    let range = t.variable_index.get(name)?;
    t.variables[range.clone()]
        .iter()
        .find(|e| e.avail.allows(env))
        .map(|e| &e.var)
}

/// Every built-in function signature available in this environment, sorted by
/// name (for completion).
pub fn functions(env: &BuiltinEnv) -> impl Iterator<Item = &'static Signature> {
    let env = *env;
    tables()
        .functions
        .iter()
        .filter(move |e| e.avail.allows(&env))
        .map(|e| &e.sig)
}

/// Every built-in variable and constant available in this environment, sorted by
/// name (for completion).
pub fn variables(env: &BuiltinEnv) -> impl Iterator<Item = &'static Variable> {
    let env = *env;
    tables()
        .variables
        .iter()
        .filter(move |e| e.avail.allows(&env))
        .map(|e| &e.var)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shader::Profile;
    use crate::types::{Scalar, FLOAT};
    use expect_test::expect;
    use std::collections::HashSet;

    const STAGES: [Stage; 6] = [
        Stage::Vertex,
        Stage::TessControl,
        Stage::TessEvaluation,
        Stage::Geometry,
        Stage::Fragment,
        Stage::Compute,
    ];

    fn env(number: u16, profile: Profile, stage: Stage) -> BuiltinEnv {
        BuiltinEnv {
            version: Version { number, profile },
            stage,
            api: Api::OpenGl,
        }
    }

    fn core(number: u16, stage: Stage) -> BuiltinEnv {
        env(number, Profile::Core, stage)
    }

    fn es(number: u16, stage: Stage) -> BuiltinEnv {
        env(number, Profile::Es, stage)
    }

    /// Every dialect a driver accepts, in every stage.
    fn all_envs() -> Vec<BuiltinEnv> {
        let mut envs = Vec::new();
        for stage in STAGES {
            for n in [
                110, 120, 130, 140, 150, 330, 400, 410, 420, 430, 440, 450, 460,
            ] {
                envs.push(env(n, Profile::Core, stage));
                envs.push(env(n, Profile::Compatibility, stage));
            }
            for n in [100, 300, 310, 320] {
                envs.push(es(n, stage));
            }
        }
        // Each of them for Vulkan too.
        let vulkan: Vec<BuiltinEnv> = envs
            .iter()
            .map(|e| BuiltinEnv {
                api: Api::Vulkan,
                ..*e
            })
            .collect();
        envs.extend(vulkan);
        envs
    }

    fn overloads(name: &str, env: &BuiltinEnv) -> Vec<String> {
        function_overloads(name, env)
            .iter()
            .map(|s| s.display())
            .collect()
    }

    /// A type from its name: `vec3`, `uimage2D`, `ivec2[4]`.
    fn ty(name: &str) -> Type {
        if let Some((elem, n)) = name.strip_suffix(']').and_then(|n| n.split_once('[')) {
            return Type::Array(Box::new(ty(elem)), n.parse().ok());
        }
        crate::types::parse_type_name(name).unwrap_or_else(|| Type::Opaque(name.to_string()))
    }

    /// The signature of `name` whose parameter types are exactly `args`.
    fn lookup(name: &str, env: &BuiltinEnv, args: &[&str]) -> Option<&'static Signature> {
        let args: Vec<Type> = args.iter().map(|a| ty(a)).collect();
        function_overloads(name, env).into_iter().find(|s| {
            s.params.len() == args.len() && s.params.iter().zip(&args).all(|(p, a)| p.ty == *a)
        })
    }

    #[test]
    fn the_whole_table_loads() {
        let t = tables();
        assert!(t.functions.len() > 1500, "{} signatures", t.functions.len());
        assert!(t.variables.len() > 150, "{} variables", t.variables.len());
        assert!(is_builtin_function("radians"));
        assert!(is_builtin_function("textureGatherOffsets"));
        assert!(!is_builtin_function("main"));
        assert!(!is_builtin_function("gl_Position"));
        // Every name has its description (the loader enforces it; spot check).
        for name in t.function_index.keys().chain(t.variable_index.keys()) {
            assert!(describe(name).is_some(), "{name}");
        }
        assert_eq!(
            describe("radians"),
            Some("Converts degrees to radians, (pi / 180) * degrees.")
        );
        assert!(describe("gl_FragCoord").is_some());
        assert_eq!(describe("no_such_thing"), None);
    }

    #[test]
    fn no_env_has_two_identical_overloads_or_variables() {
        for env in all_envs() {
            let mut seen = HashSet::new();
            for sig in functions(&env) {
                let key = (
                    &sig.name,
                    sig.params.iter().map(|p| &p.ty).collect::<Vec<_>>(),
                );
                assert!(seen.insert(key), "{env:?}: twice {}", sig.display());
            }
            let mut names = HashSet::new();
            for var in variables(&env) {
                assert!(names.insert(&var.name), "{env:?}: twice {}", var.name);
            }
        }
    }

    #[test]
    fn every_function_exists_somewhere() {
        let t = tables();
        let envs = all_envs();
        for name in t.function_index.keys() {
            assert!(
                envs.iter().any(|e| !function_overloads(name, e).is_empty()),
                "{name} exists nowhere"
            );
        }
        for name in t.variable_index.keys() {
            assert!(
                envs.iter().any(|e| variable(name, e).is_some()),
                "{name} exists nowhere"
            );
        }
    }

    #[test]
    fn extensions_lift_builtins_from_the_version_that_adopted_them() {
        let mut exts = ExtSet::default();
        assert!(!exts.enable("GL_NO_such_extension"));
        let geom150 = core(150, Stage::Geometry);
        assert!(function_overloads_with("EmitStreamVertex", &geom150, &exts).is_empty());
        assert!(exts.enable("GL_ARB_gpu_shader5"));
        assert_eq!(
            function_overloads_with("EmitStreamVertex", &geom150, &exts).len(),
            1
        );
        // Stage restrictions still apply.
        let frag150 = core(150, Stage::Fragment);
        assert!(function_overloads_with("EmitStreamVertex", &frag150, &exts).is_empty());
        assert!(variable_with("gl_SampleMaskIn", &frag150, &exts).is_some());
        // Implied extensions come along; disabling takes one back.
        let mut sub = ExtSet::default();
        sub.enable("GL_KHR_shader_subgroup_vote");
        assert!(sub.contains("GL_KHR_shader_subgroup_basic"));
        assert!(sub.lifts("gl_SubgroupInvocationID") && sub.lifts("subgroupAll"));
        sub.disable("GL_KHR_shader_subgroup_vote");
        assert!(!sub.lifts("subgroupAll"));
        assert!(is_extension("GL_ARB_compatibility"));
        let mut compat = ExtSet::default();
        compat.enable("GL_ARB_compatibility");
        assert!(compat.gives_compatibility());
        assert!(is_extension_type("rayQueryEXT", &ExtSet::all()));
    }

    #[test]
    fn texture2d_is_legacy() {
        let frag110 = core(110, Stage::Fragment);
        assert_eq!(
            overloads("texture2D", &frag110),
            [
                "vec4 texture2D(sampler2D sampler, vec2 coord)",
                "vec4 texture2D(sampler2D sampler, vec2 coord, float bias)",
            ]
        );
        // No bias outside fragment shaders.
        assert_eq!(
            overloads("texture2D", &core(110, Stage::Vertex)),
            ["vec4 texture2D(sampler2D sampler, vec2 coord)"]
        );
        assert!(lookup(
            "texture2D",
            &es(100, Stage::Fragment),
            &["sampler2D", "vec2"]
        )
        .is_some());
        assert!(function_overloads("texture2D", &core(330, Stage::Fragment)).is_empty());
        assert!(function_overloads("texture2D", &es(300, Stage::Fragment)).is_empty());
        let compat = env(330, Profile::Compatibility, Stage::Fragment);
        assert!(lookup("texture2D", &compat, &["sampler2D", "vec2"]).is_some());
        // texture2DLod: ES 1.00 vertex shaders only; desktop any stage.
        assert!(function_overloads("texture2DLod", &es(100, Stage::Fragment)).is_empty());
        assert_eq!(
            function_overloads("texture2DLod", &es(100, Stage::Vertex)).len(),
            1
        );
        assert_eq!(function_overloads("texture2DLod", &frag110).len(), 1);
    }

    #[test]
    fn texture_return_types_follow_the_sampler() {
        let frag = core(330, Stage::Fragment);
        let ret = |args: &[&str]| lookup("texture", &frag, args).unwrap().ret.clone();
        assert_eq!(ret(&["sampler2D", "vec2"]), Type::Vector(Scalar::Float, 4));
        assert_eq!(ret(&["isampler2D", "vec2"]), Type::Vector(Scalar::Int, 4));
        assert_eq!(
            ret(&["usampler2D", "vec2", "float"]),
            Type::Vector(Scalar::Uint, 4)
        );
        assert_eq!(ret(&["sampler2DShadow", "vec3"]), FLOAT);
        assert_eq!(
            lookup("texture", &frag, &["sampler2D", "vec2"])
                .unwrap()
                .display(),
            "vec4 texture(sampler2D sampler, vec2 P)"
        );
        // texture(): desktop 1.30 and ES 3.00; cube arrays from 4.00.
        assert!(function_overloads("texture", &core(120, Stage::Fragment)).is_empty());
        assert!(function_overloads("texture", &es(100, Stage::Fragment)).is_empty());
        assert!(lookup("texture", &es(300, Stage::Vertex), &["sampler2D", "vec2"]).is_some());
        assert!(lookup("texture", &frag, &["samplerCubeArray", "vec4"]).is_none());
        let frag400 = core(400, Stage::Fragment);
        assert!(lookup("texture", &frag400, &["samplerCubeArray", "vec4"]).is_some());
        // The bias form only in fragment shaders.
        let vert = core(330, Stage::Vertex);
        assert!(lookup("texture", &vert, &["sampler2D", "vec2", "float"]).is_none());
        // No 1D samplers in ES.
        assert!(lookup(
            "texture",
            &es(320, Stage::Fragment),
            &["sampler1D", "float"]
        )
        .is_none());
        let gather = lookup(
            "textureGatherOffsets",
            &frag400,
            &["sampler2D", "vec2", "ivec2[4]"],
        );
        assert_eq!(
            gather.unwrap().display(),
            "vec4 textureGatherOffsets(sampler2D sampler, vec2 P, ivec2 offsets[4])"
        );
    }

    #[test]
    fn out_and_inout_parameters() {
        let frag = core(400, Stage::Fragment);
        let modf = lookup("modf", &frag, &["vec3", "vec3"]).unwrap();
        assert_eq!(modf.params[1].dir, ParamDir::Out);
        assert_eq!(modf.display(), "vec3 modf(vec3 x, out vec3 i)");
        let frexp = lookup("frexp", &frag, &["dvec2", "ivec2"]).unwrap();
        assert_eq!(frexp.params[1].dir, ParamDir::Out);
        let umul = lookup("umulExtended", &frag, &["uint", "uint", "uint", "uint"]).unwrap();
        assert_eq!(
            umul.display(),
            "void umulExtended(uint x, uint y, out uint msb, out uint lsb)"
        );
        let comp = core(430, Stage::Compute);
        assert_eq!(
            overloads("atomicAdd", &comp),
            [
                "int atomicAdd(inout int mem, int data)",
                "uint atomicAdd(inout uint mem, uint data)",
            ]
        );
        assert!(function_overloads("modf", &core(120, Stage::Fragment)).is_empty());
    }

    #[test]
    fn image_functions_expand_over_kinds_and_prefixes() {
        let comp = es(310, Stage::Compute);
        let store = lookup("imageStore", &comp, &["uimage2D", "ivec2", "uvec4"]).unwrap();
        assert_eq!(
            store.display(),
            "void imageStore(uimage2D image, ivec2 P, uvec4 data)"
        );
        assert!(lookup("imageLoad", &comp, &["image2DMS", "ivec2", "int"]).is_none());
        let desktop = core(450, Stage::Fragment);
        assert!(lookup("imageLoad", &desktop, &["image2DMS", "ivec2", "int"]).is_some());
        // Integer atomics only on integer images; exchange also on float images.
        assert!(lookup("imageAtomicAdd", &desktop, &["image2D", "ivec2", "float"]).is_none());
        assert!(lookup("imageAtomicAdd", &desktop, &["iimage2D", "ivec2", "int"]).is_some());
        assert!(lookup(
            "imageAtomicExchange",
            &desktop,
            &["image2D", "ivec2", "float"]
        )
        .is_some());
    }

    #[test]
    fn versions_of_common_functions() {
        // Doubles: desktop 4.00 only.
        assert!(lookup("abs", &core(400, Stage::Vertex), &["dvec3"]).is_some());
        assert!(lookup("abs", &core(330, Stage::Vertex), &["dvec3"]).is_none());
        assert!(lookup("abs", &es(320, Stage::Vertex), &["double"]).is_none());
        // Integer functions: desktop 4.00, ES 3.10.
        for (env, ok) in [
            (core(330, Stage::Vertex), false),
            (core(400, Stage::Vertex), true),
            (es(300, Stage::Vertex), false),
            (es(310, Stage::Vertex), true),
        ] {
            assert_eq!(!function_overloads("bitfieldExtract", &env).is_empty(), ok);
            assert_eq!(!function_overloads("findMSB", &env).is_empty(), ok);
        }
        assert!(function_overloads("floatBitsToInt", &core(150, Stage::Vertex)).is_empty());
        assert!(!function_overloads("floatBitsToInt", &core(330, Stage::Vertex)).is_empty());
        assert!(!function_overloads("floatBitsToInt", &es(300, Stage::Vertex)).is_empty());
        // Boolean mix: 1.30 for float selection, 4.50 / ES 3.10 for int and bool values.
        assert!(lookup("mix", &core(130, Stage::Vertex), &["vec2", "vec2", "bvec2"]).is_some());
        assert!(lookup("mix", &core(440, Stage::Vertex), &["int", "int", "bool"]).is_none());
        assert!(lookup("mix", &es(310, Stage::Vertex), &["int", "int", "bool"]).is_some());
        // Non-square matrices from 1.20.
        let t = |n, m: &str| {
            lookup("transpose", &core(n, Stage::Vertex), &[m]).map(|s| s.ret.to_string())
        };
        assert_eq!(t(120, "mat2x3").as_deref(), Some("mat3x2"));
        assert_eq!(t(110, "mat2"), None);
        assert!(lookup(
            "matrixCompMult",
            &core(110, Stage::Vertex),
            &["mat3", "mat3"]
        )
        .is_some());
        assert!(lookup(
            "matrixCompMult",
            &core(110, Stage::Vertex),
            &["mat3x2", "mat3x2"]
        )
        .is_none());
        assert_eq!(
            lookup("outerProduct", &es(300, Stage::Vertex), &["vec3", "vec2"])
                .unwrap()
                .ret,
            Type::mat(2, 3)
        );
    }

    #[test]
    fn stage_restricted_functions() {
        for stage in STAGES {
            let frag_only = stage == Stage::Fragment;
            for name in ["dFdx", "dFdy", "fwidth"] {
                assert_eq!(
                    !function_overloads(name, &core(450, stage)).is_empty(),
                    frag_only,
                    "{name} in {stage}"
                );
            }
            assert_eq!(
                !function_overloads("dFdxFine", &core(450, stage)).is_empty(),
                frag_only
            );
            assert_eq!(
                !function_overloads("EmitVertex", &core(150, stage)).is_empty(),
                stage == Stage::Geometry
            );
            assert_eq!(
                !function_overloads("barrier", &core(430, stage)).is_empty(),
                matches!(stage, Stage::TessControl | Stage::Compute)
            );
        }
        // OES_standard_derivatives in ES 1.00 is accepted (see functions.txt).
        assert!(!function_overloads("dFdx", &es(100, Stage::Fragment)).is_empty());
        assert!(function_overloads("dFdxFine", &core(400, Stage::Fragment)).is_empty());
    }

    #[test]
    fn legacy_variables() {
        let frag110 = core(110, Stage::Fragment);
        let frag_color = variable("gl_FragColor", &frag110).unwrap();
        assert_eq!(frag_color.ty, Type::Vector(Scalar::Float, 4));
        assert_eq!(frag_color.storage, Storage::Out);
        assert!(variable("gl_FragColor", &es(100, Stage::Fragment)).is_some());
        assert!(variable("gl_FragColor", &core(330, Stage::Fragment)).is_none());
        assert!(variable(
            "gl_FragColor",
            &env(330, Profile::Compatibility, Stage::Fragment)
        )
        .is_some());
        assert!(variable("gl_FragColor", &es(300, Stage::Fragment)).is_none());
        assert!(variable("gl_FragColor", &core(110, Stage::Vertex)).is_none());
        let frag_data = variable("gl_FragData", &frag110).unwrap();
        assert_eq!(frag_data.ty.to_string(), "vec4[8]");
        let vert = core(120, Stage::Vertex);
        assert_eq!(variable("gl_Normal", &vert).unwrap().ty.to_string(), "vec3");
        assert_eq!(
            variable("gl_MultiTexCoord7", &vert).unwrap().storage,
            Storage::In
        );
        let mvp = variable("gl_ModelViewProjectionMatrix", &vert).unwrap();
        assert_eq!(
            (mvp.ty.to_string(), mvp.storage),
            ("mat4".to_string(), Storage::Uniform)
        );
        assert_eq!(
            variable("gl_NormalMatrix", &frag110).unwrap().ty,
            Type::mat(3, 3)
        );
        assert!(variable("gl_Vertex", &core(150, Stage::Vertex)).is_none());
        // gl_Color is an attribute in vertex shaders and a varying in fragment shaders.
        assert_eq!(variable("gl_Color", &frag110).unwrap().storage, Storage::In);
        assert_eq!(
            variable("gl_TexCoord", &vert).unwrap().storage,
            Storage::Out
        );
        assert_eq!(
            variable("gl_TexCoord", &frag110).unwrap().storage,
            Storage::In
        );
    }

    #[test]
    fn modern_variables() {
        for stage in STAGES {
            let pos = variable("gl_Position", &core(450, stage));
            let writes_position = matches!(
                stage,
                Stage::Vertex | Stage::TessEvaluation | Stage::Geometry
            );
            assert_eq!(pos.is_some(), writes_position, "{stage}");
        }
        let pos = variable("gl_Position", &es(100, Stage::Vertex)).unwrap();
        assert_eq!(
            (pos.ty.clone(), pos.storage),
            (Type::Vector(Scalar::Float, 4), Storage::Out)
        );

        let id = variable("gl_GlobalInvocationID", &core(430, Stage::Compute)).unwrap();
        assert_eq!(id.ty, Type::Vector(Scalar::Uint, 3));
        assert_eq!(id.storage, Storage::In);
        assert!(variable("gl_GlobalInvocationID", &core(420, Stage::Compute)).is_none());
        assert!(variable("gl_GlobalInvocationID", &core(430, Stage::Vertex)).is_none());
        assert!(variable("gl_GlobalInvocationID", &es(310, Stage::Compute)).is_some());
        assert_eq!(
            variable("gl_WorkGroupSize", &core(430, Stage::Compute))
                .unwrap()
                .storage,
            Storage::Const
        );

        let gl_in = variable("gl_in", &core(150, Stage::Geometry)).unwrap();
        let Type::Array(elem, None) = &gl_in.ty else {
            panic!("gl_in is {}", gl_in.ty)
        };
        let Type::Struct(per_vertex) = &**elem else {
            panic!("gl_in element is {elem}")
        };
        assert_eq!(per_vertex.name, "gl_PerVertex");
        assert_eq!(per_vertex.fields[0].name, "gl_Position");
        assert!(variable("gl_in", &core(150, Stage::Vertex)).is_none());

        let depth_range = variable("gl_DepthRange", &es(300, Stage::Fragment)).unwrap();
        assert_eq!(depth_range.ty.to_string(), "gl_DepthRangeParameters");
        assert_eq!(depth_range.storage, Storage::Uniform);

        let outer = variable("gl_TessLevelOuter", &core(400, Stage::TessControl)).unwrap();
        assert_eq!(
            (outer.ty.to_string(), outer.storage),
            ("float[4]".to_string(), Storage::Out)
        );
        let outer = variable("gl_TessLevelOuter", &core(400, Stage::TessEvaluation)).unwrap();
        assert_eq!(outer.storage, Storage::In);

        let max = variable("gl_MaxDrawBuffers", &es(100, Stage::Fragment)).unwrap();
        assert_eq!(
            (max.ty.clone(), max.storage),
            (crate::types::INT, Storage::Const)
        );
        assert!(variable("gl_PointCoord", &core(110, Stage::Fragment)).is_none());
        assert!(variable("gl_PointCoord", &core(120, Stage::Fragment)).is_some());
        assert!(variable("gl_FragDepth", &es(100, Stage::Fragment)).is_none());
        assert!(variable("gl_HelperInvocation", &es(310, Stage::Fragment)).is_some());
    }

    #[test]
    fn completion_lists_are_filtered() {
        let vert = es(100, Stage::Vertex);
        let names: HashSet<&str> = functions(&vert).map(|s| s.name.as_str()).collect();
        assert!(names.contains("texture2D") && names.contains("texture2DLod"));
        assert!(!names.contains("texture") && !names.contains("dFdx"));
        let vars: Vec<&str> = variables(&vert).map(|v| v.name.as_str()).collect();
        assert!(vars.contains(&"gl_Position") && !vars.contains(&"gl_FragColor"));
        assert!(vars.windows(2).all(|w| w[0] <= w[1]), "sorted by name");
    }

    #[test]
    fn clamp_and_mix_in_450_core() {
        let frag = core(450, Stage::Fragment);
        let listing = ["clamp", "mix"]
            .iter()
            .flat_map(|name| overloads(name, &frag))
            .collect::<Vec<_>>()
            .join("\n");
        expect![[r#"
            float clamp(float x, float minVal, float maxVal)
            vec2 clamp(vec2 x, vec2 minVal, vec2 maxVal)
            vec3 clamp(vec3 x, vec3 minVal, vec3 maxVal)
            vec4 clamp(vec4 x, vec4 minVal, vec4 maxVal)
            vec2 clamp(vec2 x, float minVal, float maxVal)
            vec3 clamp(vec3 x, float minVal, float maxVal)
            vec4 clamp(vec4 x, float minVal, float maxVal)
            double clamp(double x, double minVal, double maxVal)
            dvec2 clamp(dvec2 x, dvec2 minVal, dvec2 maxVal)
            dvec3 clamp(dvec3 x, dvec3 minVal, dvec3 maxVal)
            dvec4 clamp(dvec4 x, dvec4 minVal, dvec4 maxVal)
            dvec2 clamp(dvec2 x, double minVal, double maxVal)
            dvec3 clamp(dvec3 x, double minVal, double maxVal)
            dvec4 clamp(dvec4 x, double minVal, double maxVal)
            int clamp(int x, int minVal, int maxVal)
            ivec2 clamp(ivec2 x, ivec2 minVal, ivec2 maxVal)
            ivec3 clamp(ivec3 x, ivec3 minVal, ivec3 maxVal)
            ivec4 clamp(ivec4 x, ivec4 minVal, ivec4 maxVal)
            ivec2 clamp(ivec2 x, int minVal, int maxVal)
            ivec3 clamp(ivec3 x, int minVal, int maxVal)
            ivec4 clamp(ivec4 x, int minVal, int maxVal)
            uint clamp(uint x, uint minVal, uint maxVal)
            uvec2 clamp(uvec2 x, uvec2 minVal, uvec2 maxVal)
            uvec3 clamp(uvec3 x, uvec3 minVal, uvec3 maxVal)
            uvec4 clamp(uvec4 x, uvec4 minVal, uvec4 maxVal)
            uvec2 clamp(uvec2 x, uint minVal, uint maxVal)
            uvec3 clamp(uvec3 x, uint minVal, uint maxVal)
            uvec4 clamp(uvec4 x, uint minVal, uint maxVal)
            float mix(float x, float y, float a)
            vec2 mix(vec2 x, vec2 y, vec2 a)
            vec3 mix(vec3 x, vec3 y, vec3 a)
            vec4 mix(vec4 x, vec4 y, vec4 a)
            vec2 mix(vec2 x, vec2 y, float a)
            vec3 mix(vec3 x, vec3 y, float a)
            vec4 mix(vec4 x, vec4 y, float a)
            double mix(double x, double y, double a)
            dvec2 mix(dvec2 x, dvec2 y, dvec2 a)
            dvec3 mix(dvec3 x, dvec3 y, dvec3 a)
            dvec4 mix(dvec4 x, dvec4 y, dvec4 a)
            dvec2 mix(dvec2 x, dvec2 y, double a)
            dvec3 mix(dvec3 x, dvec3 y, double a)
            dvec4 mix(dvec4 x, dvec4 y, double a)
            float mix(float x, float y, bool a)
            vec2 mix(vec2 x, vec2 y, bvec2 a)
            vec3 mix(vec3 x, vec3 y, bvec3 a)
            vec4 mix(vec4 x, vec4 y, bvec4 a)
            double mix(double x, double y, bool a)
            dvec2 mix(dvec2 x, dvec2 y, bvec2 a)
            dvec3 mix(dvec3 x, dvec3 y, bvec3 a)
            dvec4 mix(dvec4 x, dvec4 y, bvec4 a)
            int mix(int x, int y, bool a)
            ivec2 mix(ivec2 x, ivec2 y, bvec2 a)
            ivec3 mix(ivec3 x, ivec3 y, bvec3 a)
            ivec4 mix(ivec4 x, ivec4 y, bvec4 a)
            uint mix(uint x, uint y, bool a)
            uvec2 mix(uvec2 x, uvec2 y, bvec2 a)
            uvec3 mix(uvec3 x, uvec3 y, bvec3 a)
            uvec4 mix(uvec4 x, uvec4 y, bvec4 a)
            bool mix(bool x, bool y, bool a)
            bvec2 mix(bvec2 x, bvec2 y, bvec2 a)
            bvec3 mix(bvec3 x, bvec3 y, bvec3 a)
            bvec4 mix(bvec4 x, bvec4 y, bvec4 a)"#]]
        .assert_eq(&listing);
    }
}
