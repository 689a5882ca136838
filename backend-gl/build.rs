//! Generates the agent's GL entry points from gl.xml (crate `khronos_api`)
//! and the list of intercepted commands in `intercept.txt`.
//!
//! Output: `$OUT_DIR/gl_generated.rs`, included by `src/gl.rs`, and
//! `$OUT_DIR/hooks_generated.rs`, the hooks `intercept.txt` gives as a call
//! of a shared body (`glName -> body(args)`), included by `src/hooks.rs`.
//! See `intercept.txt` for the list's syntax and `src/gl.rs` for what the
//! generated items are.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write as _;
use std::path::PathBuf;

/// One parsed `<command>` of gl.xml.
#[derive(Clone, Debug)]
struct Command {
    name: String,
    ret: String,
    params: Vec<Param>,
    alias_of: Option<String>,
}

#[derive(Clone, Debug)]
struct Param {
    name: String,
    /// The C type as written in gl.xml, e.g. `const GLchar *const*`.
    c_type: String,
    /// The Rust type, e.g. `*const *const ::std::ffi::c_char`.
    rust: String,
}

/// One intercepted name.
struct Entry {
    name: String,
    /// The command whose hook the wrapper calls (itself for a base command).
    base: String,
}

/// A hook generated from `intercept.txt`: a call of a hand-written body
/// (`glName -> body(args)`), or the real call followed by a state record
/// (`glName => record(args)`).
struct GeneratedHook {
    name: String,
    kind: HookKind,
    body: String,
    /// The body's arguments after `orig`: parameter names of the command or
    /// Rust expressions of them (constants, `Some(start..=end)`; no commas).
    args: Vec<String>,
}

fn main() {
    println!("cargo:rerun-if-changed=intercept.txt");
    println!("cargo:rerun-if-changed=build.rs");
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap());
    let list = std::fs::read_to_string(manifest.join("intercept.txt"))
        .unwrap_or_else(|e| panic!("reading intercept.txt: {e}"));
    let xml = std::str::from_utf8(khronos_api::GL_XML).expect("gl.xml is UTF-8");
    let commands = parse_gl_xml(xml);
    let (entries, call_only, hooks) = resolve_list(&list, &commands);
    let out_dir = PathBuf::from(std::env::var_os("OUT_DIR").unwrap());
    for (file, code) in [
        ("gl_generated.rs", generate(&entries, &call_only, &commands)),
        ("hooks_generated.rs", generate_hooks(&hooks, &commands)),
    ] {
        let out = out_dir.join(file);
        std::fs::write(&out, code).unwrap_or_else(|e| panic!("writing {}: {e}", out.display()));
    }
}

fn parse_gl_xml(xml: &str) -> HashMap<String, Command> {
    let doc = roxmltree::Document::parse_with_options(
        xml,
        roxmltree::ParsingOptions {
            allow_dtd: true,
            ..Default::default()
        },
    )
    .expect("gl.xml parses");
    let mut commands = HashMap::new();
    let Some(section) = doc
        .root_element()
        .children()
        .find(|n| n.has_tag_name("commands"))
    else {
        panic!("gl.xml has no <commands>");
    };
    for cmd in section.children().filter(|n| n.has_tag_name("command")) {
        let proto = cmd
            .children()
            .find(|n| n.has_tag_name("proto"))
            .expect("<command> has <proto>");
        let (name, ret) = split_decl(proto);
        let mut params = Vec::new();
        for p in cmd.children().filter(|n| n.has_tag_name("param")) {
            let (pname, c_type) = split_decl(p);
            params.push(Param {
                name: rust_ident(&pname),
                rust: rust_type(&c_type).unwrap_or_else(|| {
                    format!("/* unsupported C type `{c_type}` */ ::std::ffi::c_void")
                }),
                c_type,
            });
        }
        let alias_of = cmd
            .children()
            .find(|n| n.has_tag_name("alias"))
            .and_then(|a| a.attribute("name"))
            .map(str::to_owned);
        commands.insert(
            name.clone(),
            Command {
                name,
                ret,
                params,
                alias_of,
            },
        );
    }
    commands
}

/// Splits a `<proto>` or `<param>` into (name, C type text without the name).
fn split_decl(node: roxmltree::Node) -> (String, String) {
    let mut name = String::new();
    let mut ty = String::new();
    for child in node.children() {
        if child.has_tag_name("name") {
            name = child.text().unwrap_or_default().to_owned();
        } else if child.is_text() || child.has_tag_name("ptype") {
            ty.push_str(child.text().unwrap_or_default());
        }
    }
    (name, ty.split_whitespace().collect::<Vec<_>>().join(" "))
}

fn rust_ident(name: &str) -> String {
    const KEYWORDS: &[&str] = &[
        "abstract", "as", "async", "await", "become", "box", "break", "const", "continue", "crate",
        "do", "dyn", "else", "enum", "extern", "false", "final", "fn", "for", "gen", "if", "impl",
        "in", "let", "loop", "macro", "match", "mod", "move", "mut", "override", "priv", "pub",
        "ref", "return", "self", "static", "struct", "super", "trait", "true", "try", "type",
        "typeof", "unsafe", "unsized", "use", "virtual", "where", "while", "yield",
    ];
    if KEYWORDS.contains(&name) {
        format!("{name}_")
    } else {
        name.to_owned()
    }
}

/// Maps a GL typedef (no pointers) to a Rust type. Linux/x86_64 and
/// aarch64: `GLhandleARB` is `unsigned int` (it is `void *` only on Apple).
fn rust_scalar(c: &str) -> Option<&'static str> {
    Some(match c {
        "GLenum" | "GLuint" | "GLbitfield" | "GLhandleARB" => "u32",
        "GLint" | "GLsizei" | "GLfixed" | "GLclampx" => "i32",
        "GLboolean" | "GLubyte" => "u8",
        "GLbyte" => "i8",
        "GLshort" => "i16",
        "GLushort" | "GLhalf" | "GLhalfARB" | "GLhalfNV" => "u16",
        "GLfloat" | "GLclampf" => "f32",
        "GLdouble" | "GLclampd" => "f64",
        "GLchar" | "GLcharARB" => "::std::ffi::c_char",
        "GLintptr" | "GLsizeiptr" | "GLintptrARB" | "GLsizeiptrARB" | "GLvdpauSurfaceNV" => "isize",
        "GLint64" | "GLint64EXT" => "i64",
        "GLuint64" | "GLuint64EXT" => "u64",
        "void" | "GLvoid" => "::std::ffi::c_void",
        // Opaque pointers and callbacks: only their ABI (a pointer) matters.
        "GLsync"
        | "GLeglImageOES"
        | "GLeglClientBufferEXT"
        | "GLDEBUGPROC"
        | "GLDEBUGPROCARB"
        | "GLDEBUGPROCKHR"
        | "GLDEBUGPROCAMD"
        | "GLVULKANPROCNV" => "*mut ::std::ffi::c_void",
        _ => return None,
    })
}

/// Maps a C type such as `const GLchar *const*` to Rust
/// (`*const *const c_char`). The constness of each pointer's *pointee*
/// decides `*const` vs `*mut`: the leading `const` for the innermost level,
/// a `const` after a `*` for the next one out.
fn rust_type(c: &str) -> Option<String> {
    let spaced = c.replace('*', " * ");
    let mut tokens = spaced.split_whitespace().peekable();
    let mut base_const = false;
    let mut base = None;
    // Base type with leading/trailing const, e.g. `const GLchar` or `GLchar const`.
    while let Some(&t) = tokens.peek() {
        match t {
            "const" => base_const = true,
            "*" => break,
            "struct" => {}
            other => {
                if base.is_some() {
                    return None;
                }
                base = Some(other);
            }
        }
        tokens.next();
    }
    let base = base?;
    // Pointer levels, innermost first; each records whether the pointer
    // itself is const (which is the pointee-constness of the next level).
    let mut levels: Vec<bool> = Vec::new();
    for t in tokens {
        match t {
            "*" => levels.push(false),
            "const" => *levels.last_mut()? = true,
            _ => return None,
        }
    }
    let scalar = rust_scalar(base)?;
    if levels.is_empty() {
        if base == "void" || base == "GLvoid" {
            return Some("()".to_owned());
        }
        return Some(scalar.to_owned());
    }
    let mut ty = scalar.to_owned();
    let mut pointee_const = base_const;
    for pointer_is_const in levels {
        ty = format!("{} {ty}", if pointee_const { "*const" } else { "*mut" });
        pointee_const = pointer_is_const;
    }
    Some(ty)
}

/// The ABI class of a Rust type, to check that an alias can be handed to
/// the base command's hook with `as` conversions.
fn abi_class(rust: &str) -> &'static str {
    if rust.starts_with('*') {
        "pointer"
    } else if rust == "f32" || rust == "f64" {
        "float"
    } else if rust == "()" {
        "void"
    } else {
        "integer"
    }
}

#[derive(Clone, Copy, PartialEq)]
enum HookKind {
    /// `-> body(args)`: `hooks::body(orig, args)` decides everything.
    Body,
    /// `=> record(args)`: `orig.call()`, then
    /// `state::record(current_context(), args)`.
    Record,
}

/// Parses `body(a, b, ...)` (the part after `->` or `=>`).
fn parse_generated_hook(name: &str, kind: HookKind, spec: &str, line_no: usize) -> GeneratedHook {
    let spec = spec.trim();
    let (body, rest) = spec
        .split_once('(')
        .unwrap_or_else(|| panic!("intercept.txt:{line_no}: `-> body(args)` expected"));
    let args = rest
        .strip_suffix(')')
        .unwrap_or_else(|| panic!("intercept.txt:{line_no}: `)` expected at the end"));
    let body = body.trim();
    if body.is_empty() || !body.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        panic!("intercept.txt:{line_no}: `{body}` is not a function name");
    }
    GeneratedHook {
        name: name.to_owned(),
        kind,
        body: body.to_owned(),
        args: args
            .split(',')
            .map(str::trim)
            .filter(|a| !a.is_empty())
            .map(str::to_owned)
            .collect(),
    }
}

fn resolve_list(
    list: &str,
    commands: &HashMap<String, Command>,
) -> (Vec<Entry>, Vec<String>, Vec<GeneratedHook>) {
    let mut section = "intercept";
    let mut listed: Vec<(String, Option<String>, usize)> = Vec::new();
    let mut call_only = Vec::new();
    let mut hooks = Vec::new();
    for (i, raw) in list.lines().enumerate() {
        let line_no = i + 1;
        let line = raw.split('#').next().unwrap().trim();
        if line.is_empty() {
            continue;
        }
        if let Some(s) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            section = match s.trim() {
                "intercept" => "intercept",
                "call" => "call",
                other => panic!("intercept.txt:{line_no}: unknown section [{other}]"),
            };
            continue;
        }
        let (line, hook) = if let Some((a, b)) = line.split_once("=>") {
            (a.trim(), Some((HookKind::Record, b)))
        } else if let Some((a, b)) = line.split_once("->") {
            (a.trim(), Some((HookKind::Body, b)))
        } else {
            (line, None)
        };
        let (name, base) = match line.split_once('=') {
            Some((a, b)) => (a.trim().to_owned(), Some(b.trim().to_owned())),
            None => (line.to_owned(), None),
        };
        if !commands.contains_key(&name) {
            panic!("intercept.txt:{line_no}: {name} is not a command in gl.xml");
        }
        if let Some((kind, spec)) = hook {
            if section == "call" || base.is_some() {
                panic!("intercept.txt:{line_no}: `->`/`=>` only on a base command in [intercept]");
            }
            hooks.push(parse_generated_hook(&name, kind, spec, line_no));
        }
        if section == "call" {
            if base.is_some() {
                panic!("intercept.txt:{line_no}: no `=` in [call]");
            }
            call_only.push(name);
        } else {
            listed.push((name, base, line_no));
        }
    }

    let listed_names: BTreeSet<&str> = listed.iter().map(|(n, _, _)| n.as_str()).collect();
    // Base of every listed name: the explicit one, else the gl.xml alias
    // target when that is listed too, else itself.
    let mut entries: BTreeMap<String, String> = BTreeMap::new();
    for (name, base, line_no) in &listed {
        let base = match base {
            Some(b) => {
                if !listed_names.contains(b.as_str()) {
                    panic!("intercept.txt:{line_no}: {b} (base of {name}) is not listed");
                }
                b.clone()
            }
            None => match &commands[name].alias_of {
                Some(a) if listed_names.contains(a.as_str()) => a.clone(),
                _ => name.clone(),
            },
        };
        entries.insert(name.clone(), base);
    }
    // Follow chains (an alias of an alias) to the base command.
    let bases: Vec<(String, String)> = entries.clone().into_iter().collect();
    for (name, mut base) in bases {
        let mut seen = 0;
        while entries[&base] != base {
            base = entries[&base].clone();
            seen += 1;
            assert!(seen < 8, "alias cycle at {name}");
        }
        entries.insert(name, base);
    }
    // Every alias gl.xml declares for a base (directly or through another
    // alias).
    let mut changed = true;
    while changed {
        changed = false;
        let mut names: Vec<&String> = commands.keys().collect();
        names.sort();
        for cname in names {
            if entries.contains_key(cname) {
                continue;
            }
            if let Some(target) = &commands[cname].alias_of {
                if let Some(base) = entries.get(target).cloned() {
                    entries.insert(cname.clone(), base);
                    changed = true;
                }
            }
        }
    }
    // Check that every alias fits its base's hook.
    let mut out = Vec::new();
    for (name, base) in entries {
        let (a, b) = (&commands[&name], &commands[&base]);
        let fits = a.params.len() == b.params.len()
            && abi_class(&rust_type(&a.ret).unwrap_or_default())
                == abi_class(&rust_type(&b.ret).unwrap_or_default())
            && a.params
                .iter()
                .zip(&b.params)
                .all(|(x, y)| abi_class(&x.rust) == abi_class(&y.rust));
        if !fits {
            panic!("{name} cannot use the hook of {base}: parameters differ");
        }
        for p in &a.params {
            if p.rust.contains("unsupported") {
                panic!(
                    "{name}: parameter {} has unsupported C type `{}`",
                    p.name, p.c_type
                );
            }
        }
        out.push(Entry { name, base });
    }
    (out, call_only, hooks)
}

fn zero_value(rust_ret: &str) -> &'static str {
    match abi_class(rust_ret) {
        "void" => "",
        "float" => " 0.0",
        "pointer" => " ::std::ptr::null_mut()",
        _ => " 0",
    }
}

fn signature(cmd: &Command) -> (String, String) {
    let params = cmd
        .params
        .iter()
        .map(|p| format!("{}: {}", p.name, p.rust))
        .collect::<Vec<_>>()
        .join(", ");
    let ret = rust_type(&cmd.ret)
        .unwrap_or_else(|| panic!("{}: unsupported return type `{}`", cmd.name, cmd.ret));
    (params, ret)
}

/// The parameter names of `cmd` as a call's arguments: `a, b, c`.
fn arg_names(cmd: &Command) -> String {
    cmd.params
        .iter()
        .map(|p| p.name.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

fn ret_suffix(ret: &str) -> String {
    if ret == "()" {
        String::new()
    } else {
        format!(" -> {ret}")
    }
}

fn generate(
    entries: &[Entry],
    call_only: &[String],
    commands: &HashMap<String, Command>,
) -> String {
    let mut all: Vec<&Command> = entries.iter().map(|e| &commands[&e.name]).collect();
    all.extend(call_only.iter().map(|n| &commands[n]));
    let mut s = String::new();
    s.push_str(
        "// @generated by backend-gl/build.rs from gl.xml and intercept.txt. Do not edit.\n\n",
    );

    // (a) C signatures.
    s.push_str("/// The exact C signature of every command (`PFN_<name>`), GL typedefs mapped to Rust.\npub mod types {\n");
    for cmd in &all {
        let (params, ret) = signature(cmd);
        let c_params = cmd
            .params
            .iter()
            .map(|p| format!("{} {}", p.c_type, p.name.trim_end_matches('_')))
            .collect::<Vec<_>>()
            .join(", ");
        let _ = writeln!(
            s,
            "    /// `{} {}({})`\n    pub type PFN_{} = unsafe extern \"C\" fn({params}){};",
            cmd.ret,
            cmd.name,
            c_params,
            cmd.name,
            ret_suffix(&ret)
        );
    }
    s.push_str("}\n\n");

    // Slots for the real functions.
    s.push_str("/// The lazily resolved real function of every command.\npub mod slots {\n");
    for cmd in &all {
        let _ = writeln!(
            s,
            "    pub static {0}: crate::resolve::RealFn = crate::resolve::RealFn::gl(c\"{0}\");",
            cmd.name
        );
    }
    s.push_str("}\n\n");

    // Callers of the real functions.
    s.push_str("/// Calls of the real functions, for the agent's own GL calls. Each resolves\n/// the function on first use; when it cannot be found, nothing is called and\n/// zero is returned.\npub mod real {\n");
    for cmd in &all {
        let (params, ret) = signature(cmd);
        let args = arg_names(cmd);
        let _ = writeln!(
            s,
            "    /// Calls the real `{name}`.\n    ///\n    /// # Safety\n    /// As for the GL command: a current context and valid pointers.\n    #[inline]\n    pub unsafe fn {name}({params}){rs} {{\n        let __p = super::slots::{name}.get();\n        if __p.is_null() {{\n            return{zero};\n        }}\n        // SAFETY: `__p` is not null and the slot only ever holds the real\n        // `{name}` (resolved by that name), whose C signature is\n        // `PFN_{name}`; the arguments are as GL requires (this function's\n        // contract).\n        unsafe {{\n            let __f = ::std::mem::transmute::<*mut ::std::ffi::c_void, super::types::PFN_{name}>(__p);\n            __f({args})\n        }}\n    }}",
            name = cmd.name,
            rs = ret_suffix(&ret),
            zero = zero_value(&ret),
        );
    }
    s.push_str("}\n\n");

    // (b) Wrappers.
    s.push_str("/// The wrappers handed to the application. Base commands are exported\n/// under their own name (interposing libGL/libOpenGL exports); aliases are\n/// only reachable through dlsym/GetProcAddress.\npub mod wrappers {\n");
    for e in entries {
        let cmd = &commands[&e.name];
        let base = &commands[&e.base];
        let (params, ret) = signature(cmd);
        let args = arg_names(cmd);
        let hook_args = cmd
            .params
            .iter()
            .zip(&base.params)
            .map(|(a, b)| {
                if a.rust == b.rust {
                    a.name.clone()
                } else {
                    format!("{} as {}", a.name, b.rust)
                }
            })
            .collect::<Vec<_>>();
        let hook_args = if hook_args.is_empty() {
            String::new()
        } else {
            format!(", {}", hook_args.join(", "))
        };
        let export = if e.name == e.base {
            "    #[cfg_attr(not(test), no_mangle)]\n"
        } else {
            ""
        };
        let _ = writeln!(
            s,
            "    /// Wrapper of `{name}`{alias}.\n    ///\n    /// # Safety\n    /// Called by the application as the GL command: a current context (or\n    /// none, where GL allows it) and arguments valid as GL requires.\n{export}    pub unsafe extern \"C\" fn {name}({params}){rs} {{\n        let __p = super::slots::{name}.get();\n        if __p.is_null() {{\n            crate::hooks::missing_real(\"{name}\");\n            return{zero};\n        }}\n        // SAFETY: `__p` is not null and the slot only ever holds the real\n        // `{name}`, whose C signature is `PFN_{name}`; it and the hook get\n        // the application's own arguments, valid for the GL call (this\n        // function's contract).\n        unsafe {{\n            let __real = ::std::mem::transmute::<*mut ::std::ffi::c_void, super::types::PFN_{name}>(__p);\n            let mut __run = || __real({args});\n            crate::hooks::dispatch(\"{name}\", &mut __run, |__orig| crate::hooks::{base}(__orig{hook_args}))\n        }}\n    }}",
            name = e.name,
            base = e.base,
            alias = if e.name == e.base {
                String::new()
            } else {
                format!(" (alias of `{}`)", e.base)
            },
            rs = ret_suffix(&ret),
            zero = zero_value(&ret),
        );
    }
    s.push_str("}\n\n");

    // (c) Lookup.
    s.push_str("/// Every intercepted name (base commands and aliases).\npub const INTERCEPTED: &[&str] = &[\n");
    for e in entries {
        let _ = writeln!(s, "    \"{}\",", e.name);
    }
    s.push_str("];\n\n");
    s.push_str("/// Every intercepted name with the base command whose hook it calls.\npub const BASE_OF: &[(&str, &str)] = &[\n");
    for e in entries {
        let _ = writeln!(s, "    (\"{}\", \"{}\"),", e.name, e.base);
    }
    s.push_str("];\n\n");
    s.push_str("/// The wrapper and the real-function slot of an intercepted command.\npub fn intercepted(name: &[u8]) -> Option<(*const ::std::ffi::c_void, &'static crate::resolve::RealFn)> {\n    Some(match name {\n");
    for e in entries {
        let _ = writeln!(
            s,
            "        b\"{0}\" => (wrappers::{0} as types::PFN_{0} as *const ::std::ffi::c_void, &slots::{0}),",
            e.name
        );
    }
    s.push_str("        _ => return None,\n    })\n}\n");
    s
}

/// The hooks given as `glName -> body(args)`: `hooks::glName(orig, params..)`
/// calls `body(orig, args..)`. A parameter the arguments do not name is
/// ignored (`_name`); a pointer parameter is passed with `.cast()` (the body
/// decides the pointee) and makes the hook an `unsafe fn` whose body is an
/// `unsafe fn` too. The hooks given as `glName => record(args)` call the
/// real command, then `state::record(current_context(), args..)`: commands
/// whose only interest to the agent is what they changed (no pointers).
fn generate_hooks(hooks: &[GeneratedHook], commands: &HashMap<String, Command>) -> String {
    let mut s = String::new();
    s.push_str(
        "// @generated by backend-gl/build.rs from intercept.txt (`glName -> body(args)`,\n// `glName => record(args)`). Do not edit.\n",
    );
    for h in hooks {
        let cmd = &commands[&h.name];
        let ret = rust_type(&cmd.ret)
            .unwrap_or_else(|| panic!("{}: unsupported return type `{}`", cmd.name, cmd.ret));
        let is_param = |a: &str| cmd.params.iter().any(|p| p.name == a);
        let params = cmd
            .params
            .iter()
            .map(|p| {
                // A parameter is used when an argument names it, alone or
                // in an expression (`Some(start..=end)`).
                let used = h.args.iter().any(|a| {
                    a.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                        .any(|w| w == p.name)
                });
                format!(", {}{}: {}", if used { "" } else { "_" }, p.name, p.rust)
            })
            .collect::<String>();
        let pointers = cmd
            .params
            .iter()
            .any(|p| p.rust.starts_with('*') && h.args.contains(&p.name));
        let args = h
            .args
            .iter()
            .map(|a| {
                let pointer = cmd
                    .params
                    .iter()
                    .any(|p| p.name == *a && p.rust.starts_with('*'));
                if pointer {
                    format!(", {a}.cast()")
                } else {
                    format!(", {a}")
                }
            })
            .collect::<String>();
        let c_params = cmd
            .params
            .iter()
            .map(|p| p.name.trim_end_matches('_'))
            .collect::<Vec<_>>()
            .join(", ");
        let shown = h.args.join(", ");
        let (name, body) = (&h.name, &h.body);
        // GL decides how many parameters a command has.
        let allow = if cmd.params.len() + 1 > 7 {
            "#[allow(clippy::too_many_arguments)]\n"
        } else {
            ""
        };
        let _ = match (h.kind, pointers) {
            (HookKind::Record, _) => {
                if pointers || ret != "()" {
                    panic!("{name}: `=>` records commands without pointers or results");
                }
                writeln!(
                    s,
                    "\n/// `{name}({c_params})`: the real call, then\n/// [`state::{body}`](crate::state::{body})`(context, {shown})` (generated from\n/// `intercept.txt`).\n{allow}pub(crate) fn {name}(orig: &mut Original<'_, ()>{params}) {{\n    orig.call();\n    crate::state::{body}(current_context(){args})\n}}",
                )
            }
            (HookKind::Body, true) => writeln!(
                s,
                "\n/// `{name}({c_params})`: [`{body}`]`(orig, {shown})` (generated from\n/// `intercept.txt`).\n///\n/// # Safety\n/// The arguments are the application's, valid for the GL call as GL\n/// requires of them.\n{allow}pub(crate) unsafe fn {name}(orig: &mut Original<'_, {ret}>{params}) {{\n    // SAFETY: the application's arguments, passed on as they came (this\n    // function's contract is the body's).\n    unsafe {{ {body}(orig{args}) }}\n}}",
            ),
            (HookKind::Body, false) => writeln!(
                s,
                "\n/// `{name}({c_params})`: [`{body}`]`(orig, {shown})` (generated from\n/// `intercept.txt`).\n{allow}pub(crate) fn {name}(orig: &mut Original<'_, {ret}>{params}) {{\n    {body}(orig{args})\n}}",
            ),
        };
        for a in &h.args {
            let ident = a.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && a.starts_with(|c: char| c.is_ascii_lowercase());
            if ident && !is_param(a) {
                panic!("{}: `{a}` is not one of its parameters", h.name);
            }
        }
    }
    s
}
