//! Generates `$OUT_DIR/replay_generated.rs`, included by `src/replay/mod.rs`:
//! the layer's replay buffer for every `vkCmd*` command of the Vulkan
//! registry (`vk.xml`, from Debian's `libvulkan-dev`, or the file named by
//! `SHADERDBG_VK_XML`). Generated, like the GL agent's entry points from
//! `gl.xml`, because the commands are many and mechanical and must never
//! drift from the registry.
//!
//! For each command: a hook with the command's C signature (pointers as
//! untyped pointers: the registry, not ash, is the source of the types)
//! that calls down the chain and then records a deep copy of its
//! arguments; an argument struct; and the call that replays it into
//! another command buffer. For each structure reachable from a command
//! (also through `pNext` chains, by `structextends`): a fix-up that, given
//! a byte copy of the structure in the replay arena, copies what its
//! pointers point to (arrays by their `len`, strings, `pNext` chains by
//! `sType`) and repoints them. What cannot be copied faithfully (a `len`
//! the generator cannot evaluate, a pointer whose validity depends on
//! another member, a `pNext` structure the registry does not describe)
//! makes the recording "not replayable" with that reason: it is never
//! replayed with something missing.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write as _;
use std::path::PathBuf;

const DEFAULT_XML: &str = "/usr/share/vulkan/registry/vk.xml";

/// Commands not generated: their arguments are not plain data (nested
/// arrays of pointers, host pointers whose size the registry does not give)
/// or they need a platform or provisional extension. A program that uses
/// them still works; its command buffers are marked not replayable.
const OPAQUE_COMMANDS: &[&str] = &[];

/// Structure members that are pointers whose validity depends on other
/// members (`noautovalidity`), with the Rust condition (over `s`, the
/// structure) under which the registry's valid usage says they are valid;
/// otherwise the copy holds null. Helpers are in `src/replay/mod.rs`.
const FOLLOWED_NOAUTOVALIDITY: &[(&str, &str, &str)] = &[
    ("VkRenderPassBeginInfo", "pClearValues", "true"),
    ("VkCommandBufferBeginInfo", "pInheritanceInfo", "true"),
    ("VkGraphicsPipelineCreateInfo", "pStages", "true"),
    ("VkGraphicsPipelineCreateInfo", "pVertexInputState", "true"),
    (
        "VkGraphicsPipelineCreateInfo",
        "pInputAssemblyState",
        "true",
    ),
    (
        "VkGraphicsPipelineCreateInfo",
        "pRasterizationState",
        "true",
    ),
    ("VkGraphicsPipelineCreateInfo", "pDynamicState", "true"),
    // Ignored when the viewports and scissors are dynamic state, which the
    // structure cannot see: followed when non-null (programs pass null then).
    ("VkPipelineViewportStateCreateInfo", "pViewports", "true"),
    ("VkPipelineViewportStateCreateInfo", "pScissors", "true"),
    // Dynamic rendering's attachment formats (ignored only by pipeline
    // libraries that have no fragment output).
    (
        "VkPipelineRenderingCreateInfo",
        "pColorAttachmentFormats",
        "true",
    ),
    (
        "VkGraphicsPipelineCreateInfo",
        "pTessellationState",
        "has_tessellation(s.p_stages, s.stage_count)",
    ),
    (
        "VkGraphicsPipelineCreateInfo",
        "pViewportState",
        "!discards(s.p_rasterization_state)",
    ),
    (
        "VkGraphicsPipelineCreateInfo",
        "pMultisampleState",
        "!discards(s.p_rasterization_state)",
    ),
    (
        "VkGraphicsPipelineCreateInfo",
        "pDepthStencilState",
        "!discards(s.p_rasterization_state)",
    ),
    (
        "VkGraphicsPipelineCreateInfo",
        "pColorBlendState",
        "!discards(s.p_rasterization_state)",
    ),
    // Immutable samplers: read for sampler descriptors only.
    (
        "VkDescriptorSetLayoutBinding",
        "pImmutableSamplers",
        "samples(s.descriptor_type)",
    ),
    // A descriptor write (push descriptors) reads one of its arrays, as its
    // type says (the registry's valid usage of `VkWriteDescriptorSet`).
    (
        "VkWriteDescriptorSet",
        "pImageInfo",
        "writes_images(s.descriptor_type)",
    ),
    (
        "VkWriteDescriptorSet",
        "pBufferInfo",
        "writes_buffers(s.descriptor_type)",
    ),
    (
        "VkWriteDescriptorSet",
        "pTexelBufferView",
        "writes_texel_buffers(s.descriptor_type)",
    ),
];

/// Extra roots: structures the layer copies outside a `vkCmd*` command.
const ROOT_STRUCTS: &[&str] = &[
    "VkCommandBufferBeginInfo",
    "VkGraphicsPipelineCreateInfo",
    "VkComputePipelineCreateInfo",
    "VkPipelineLayoutCreateInfo",
    "VkDescriptorSetLayoutCreateInfo",
    // Its chain is copied to enable the debug features (src/features.rs).
    "VkDeviceCreateInfo",
];

#[derive(Clone, Debug)]
struct Decl {
    ty: String,
    name: String,
    /// Number of `*`.
    ptr: usize,
    /// `const` before the type (the outermost pointee is const).
    is_const: bool,
    /// `[N]` after the name.
    array: Option<String>,
    len: Option<String>,
    altlen: Option<String>,
    noauto: bool,
    values: Option<String>,
}

#[derive(Debug)]
struct Struct {
    members: Vec<Decl>,
    union: bool,
    extends: Vec<String>,
}

fn decl(node: roxmltree::Node) -> Decl {
    // `[const] <type>T</type> [const][*[*]] <name>n</name>[[N]]`: the text
    // before the type, between type and name, and after the name.
    let (mut before, mut middle, mut after) = (String::new(), String::new(), String::new());
    let (mut ty, mut name) = (String::new(), String::new());
    for c in node.children() {
        let text = c.text().unwrap_or("");
        match c.tag_name().name() {
            "type" => ty = text.to_string(),
            "name" => name = text.to_string(),
            "comment" => {}
            _ if name.is_empty() && ty.is_empty() => before.push_str(text),
            _ if name.is_empty() => middle.push_str(text),
            _ => after.push_str(text),
        }
    }
    let array = after
        .find('[')
        .map(|i| after[i + 1..].split(']').next().unwrap_or("").to_string());
    Decl {
        ty,
        name,
        ptr: middle.matches('*').count(),
        is_const: before.contains("const"),
        array,
        len: node.attribute("len").map(str::to_string),
        altlen: node.attribute("altlen").map(str::to_string),
        noauto: node.attribute("noautovalidity") == Some("true"),
        values: node.attribute("values").map(str::to_string),
    }
}

fn for_vulkan(node: roxmltree::Node) -> bool {
    node.attribute("api")
        .is_none_or(|a| a.split(',').any(|a| a == "vulkan"))
}

/// `node`'s `tag` children that are for Vulkan (see [`for_vulkan`]).
fn vulkan_children<'a, 'i>(
    node: roxmltree::Node<'a, 'i>,
    tag: &'static str,
) -> impl Iterator<Item = roxmltree::Node<'a, 'i>> {
    node.children()
        .filter(move |c| c.has_tag_name(tag) && for_vulkan(*c))
}

/// The registry's `tag` elements for Vulkan, in its `section`.
fn vulkan_entries<'a, 'i>(
    root: roxmltree::Node<'a, 'i>,
    section: &'static str,
    tag: &'static str,
) -> impl Iterator<Item = roxmltree::Node<'a, 'i>> {
    let section = root
        .children()
        .find(|n| n.has_tag_name(section))
        .expect(section);
    vulkan_children(section, tag)
}

/// ash's name of a registry member: snake case, `type` as `ty`.
fn field(name: &str) -> String {
    let mut s = String::new();
    let mut prev_lower = false;
    for ch in name.chars() {
        if ch.is_ascii_uppercase() {
            if prev_lower {
                s.push('_');
            }
            s.push(ch.to_ascii_lowercase());
            prev_lower = false;
        } else {
            s.push(ch);
            prev_lower = ch.is_ascii_lowercase() || ch.is_ascii_digit();
        }
    }
    if s == "type" {
        "ty".into()
    } else {
        s
    }
}

/// The Rust type of a registry type used by value.
fn scalar(ty: &str) -> String {
    match ty {
        "void" => "c_void".into(),
        "char" => "c_char".into(),
        "float" => "f32".into(),
        "double" => "f64".into(),
        "int8_t" => "i8".into(),
        "uint8_t" => "u8".into(),
        "int16_t" => "i16".into(),
        "uint16_t" => "u16".into(),
        "int32_t" => "i32".into(),
        "uint32_t" => "u32".into(),
        "int64_t" => "i64".into(),
        "uint64_t" => "u64".into(),
        "size_t" => "usize".into(),
        "int" => "c_int".into(),
        _ => match ty.strip_prefix("Vk") {
            Some(rest) => format!("vk::{}", rest.replace("FlagBits", "Flags")),
            None => ty.to_string(),
        },
    }
}

struct Registry {
    structs: HashMap<String, Struct>,
    /// Type aliases, alias -> target.
    aliases: HashMap<String, String>,
    commands: BTreeMap<String, Vec<Decl>>,
    /// Command aliases, target -> aliases.
    command_aliases: BTreeMap<String, Vec<String>>,
}

fn parse(xml: &str) -> Registry {
    let doc = roxmltree::Document::parse(xml).expect("vk.xml parses");
    let root = doc.root_element();
    // What a plain Vulkan implementation can expose: core features and
    // extensions that are neither disabled, provisional nor for a platform.
    let mut allowed_cmds = BTreeSet::new();
    let mut allowed_types = BTreeSet::new();
    let mut take = |node: roxmltree::Node| {
        for req in vulkan_children(node, "require") {
            for item in req.children() {
                let Some(name) = item.attribute("name") else {
                    continue;
                };
                match item.tag_name().name() {
                    "command" => {
                        allowed_cmds.insert(name.to_string());
                    }
                    "type" => {
                        allowed_types.insert(name.to_string());
                    }
                    _ => {}
                }
            }
        }
    };
    for node in root.children() {
        match node.tag_name().name() {
            "feature" if for_vulkan(node) => take(node),
            "extensions" => {
                for ext in node.children().filter(|e| e.has_tag_name("extension")) {
                    let supported = ext.attribute("supported").unwrap_or("");
                    if !supported.split(',').any(|s| s == "vulkan")
                        || ext.attribute("provisional") == Some("true")
                        || ext.attribute("platform").is_some()
                    {
                        continue;
                    }
                    take(ext);
                }
            }
            _ => {}
        }
    }

    let mut structs = HashMap::new();
    let mut aliases = HashMap::new();
    for t in vulkan_entries(root, "types", "type") {
        let cat = t.attribute("category").unwrap_or("");
        if cat != "struct" && cat != "union" {
            continue;
        }
        let Some(name) = t.attribute("name") else {
            continue;
        };
        if let Some(target) = t.attribute("alias") {
            aliases.insert(name.to_string(), target.to_string());
            continue;
        }
        let members = vulkan_children(t, "member").map(decl).collect();
        let extends = t
            .attribute("structextends")
            .map(|s| s.split(',').map(str::to_string).collect())
            .unwrap_or_default();
        structs.insert(
            name.to_string(),
            Struct {
                members,
                union: cat == "union",
                extends,
            },
        );
    }
    // Structures required by an allowed feature or extension, and what
    // they contain.
    let mut keep: BTreeSet<String> = allowed_types
        .iter()
        .map(|t| aliases.get(t).cloned().unwrap_or_else(|| t.clone()))
        .filter(|t| structs.contains_key(t))
        .collect();
    let mut todo: Vec<String> = keep.iter().cloned().collect();
    while let Some(t) = todo.pop() {
        for m in &structs[&t].members {
            if structs.contains_key(&m.ty) && keep.insert(m.ty.clone()) {
                todo.push(m.ty.clone());
            }
        }
    }
    structs.retain(|k, _| keep.contains(k));

    let mut commands = BTreeMap::new();
    let mut command_aliases: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for c in vulkan_entries(root, "commands", "command") {
        if let (Some(name), Some(target)) = (c.attribute("name"), c.attribute("alias")) {
            if name.starts_with("vkCmd") && allowed_cmds.contains(name) {
                command_aliases
                    .entry(target.to_string())
                    .or_default()
                    .push(name.to_string());
            }
            continue;
        }
        let Some(proto) = c.children().find(|p| p.has_tag_name("proto")) else {
            continue;
        };
        let name = decl(proto).name;
        if !name.starts_with("vkCmd") {
            continue;
        }
        let params: Vec<Decl> = vulkan_children(c, "param").map(decl).collect();
        commands.insert(name, params);
    }
    // A command is kept if it or one of its aliases is allowed.
    commands.retain(|name, _| {
        allowed_cmds.contains(name)
            || command_aliases
                .get(name)
                .is_some_and(|a| a.iter().any(|a| allowed_cmds.contains(a)))
    });
    command_aliases.retain(|t, _| commands.contains_key(t));
    Registry {
        structs,
        aliases,
        commands,
        command_aliases,
    }
}

/// Rust expression for a `len`/`altlen` over the fields reachable as
/// `{prefix}name` (struct members) or `name` (command parameters), or why
/// not.
fn len_expr(len: &str, prefix: &str) -> Result<String, String> {
    if len.contains(',') || len.contains('[') {
        return Err(format!("a nested length `{len}`"));
    }
    let mut out = String::new();
    let mut ident = String::new();
    let flush = |ident: &mut String, out: &mut String| {
        if ident.is_empty() {
            return;
        }
        if ident.chars().all(|c| c.is_ascii_digit()) {
            let _ = write!(out, "{ident}usize");
        } else {
            let _ = write!(out, "count({prefix}{})", field(ident));
        }
        ident.clear();
    };
    let mut chars = len.chars().peekable();
    while let Some(ch) = chars.next() {
        if ch.is_ascii_alphanumeric() || ch == '_' {
            ident.push(ch);
        } else if ch == '-' && chars.peek() == Some(&'>') {
            return Err(format!("a length through a pointer `{len}`"));
        } else if "+-*/() ".contains(ch) {
            flush(&mut ident, &mut out);
            out.push(ch);
        } else {
            return Err(format!("a length `{len}`"));
        }
    }
    flush(&mut ident, &mut out);
    Ok(out)
}

struct Gen<'r> {
    reg: &'r Registry,
    /// Structures that need a fix-up (they contain pointers), by name.
    fixups: BTreeSet<String>,
    /// Structures that may appear in a `pNext` chain of a reachable one.
    chained: BTreeSet<String>,
    out: String,
}

impl Gen<'_> {
    fn resolve<'a>(&'a self, ty: &'a str) -> &'a str {
        self.reg.aliases.get(ty).map(String::as_str).unwrap_or(ty)
    }

    /// Marks every structure reachable from `ty` (members, pointees and
    /// `pNext` extensions).
    fn reach(&mut self, ty: &str, seen: &mut BTreeSet<String>) {
        let ty = self.resolve(ty).to_string();
        if !self.reg.structs.contains_key(&ty) || !seen.insert(ty.clone()) {
            return;
        }
        let s = &self.reg.structs[&ty];
        let members: Vec<String> = s.members.iter().map(|m| m.ty.clone()).collect();
        let has_next = s.members.iter().any(|m| m.name == "pNext");
        for m in members {
            self.reach(&m, seen);
        }
        if has_next {
            let ext: Vec<String> = self
                .reg
                .structs
                .iter()
                .filter(|(_, e)| e.extends.iter().any(|x| self.resolve(x) == ty))
                .map(|(n, _)| n.clone())
                .collect();
            for e in ext {
                self.chained.insert(e.clone());
                self.reach(&e, seen);
            }
        }
    }

    /// Whether a structure contains pointers (directly or in members).
    fn has_pointers(&self, ty: &str, depth: usize) -> bool {
        let Some(s) = self.reg.structs.get(self.resolve(ty)) else {
            return false;
        };
        if s.union || depth > 16 {
            return false;
        }
        s.members
            .iter()
            .any(|m| m.ptr > 0 || (m.array.is_none() && self.has_pointers(&m.ty, depth + 1)))
    }

    /// The code that deep-copies the pointee of pointer `place` (an lvalue
    /// of a raw pointer) declared by `d`, `count` elements.
    /// `follow`: a `noautovalidity` pointer may be followed when non-null.
    fn copy_pointee(
        &self,
        owner: &str,
        d: &Decl,
        place: &str,
        count: Option<&str>,
        follow: bool,
    ) -> Result<String, String> {
        if d.ptr > 1 {
            return Err(format!("`{}` is a pointer to pointers", d.name));
        }
        if d.name == "pNext" {
            // Chains are walked by sType, whatever their validity rules.
            return Ok(format!(
                "{place} = copy_chain(a, {place}.cast())?.cast_mut().cast();\n"
            ));
        }
        let condition = FOLLOWED_NOAUTOVALIDITY
            .iter()
            .find(|(o, m, _)| d.noauto && *o == owner && *m == d.name)
            .map(|(_, _, c)| *c);
        if d.noauto && !follow && condition.is_none() {
            return Err(format!(
                "`{owner}::{}` is valid only for some values of another member",
                d.name
            ));
        }
        if let Some(c) = condition.filter(|c| *c != "true") {
            let mut plain = d.clone();
            plain.noauto = false;
            let copy = self.copy_pointee(owner, &plain, place, count, follow)?;
            return Ok(format!(
                "if {c} {{\n{copy}}} else {{\n    {place} = std::ptr::null();\n}}\n"
            ));
        }
        let ty = self.resolve(&d.ty).to_string();
        if d.ty == "char" && d.len.as_deref().is_some_and(|l| l == "null-terminated") {
            return Ok(format!("{place} = a.copy_cstr({place}.cast()).cast();\n"));
        }
        if ty.starts_with("StdVideo") {
            return Err(format!("`{}` points to a video codec structure", d.name));
        }
        let (size, align) = if ty == "void" {
            ("1usize".to_string(), "1usize".to_string())
        } else {
            let t = scalar(&ty);
            (format!("size_of::<{t}>()"), format!("align_of::<{t}>()"))
        };
        let n = match count {
            Some(n) => n.to_string(),
            None if ty == "void" => {
                return Err(format!("`{}` points to data of no stated size", d.name))
            }
            None => "1usize".to_string(),
        };
        let mut s = format!(
            "if !{place}.is_null() {{\n    let n: usize = {n};\n    let q = a.copy({place}.cast(), n * {size}, {align});\n"
        );
        if self.fixups.contains(&ty) {
            let _ = writeln!(
                s,
                "    for i in 0..n {{ fix_{ty}(a, q.cast_mut().add(i * {size}))?; }}"
            );
        }
        let _ = writeln!(s, "    {place} = q.cast_mut().cast();\n}}");
        Ok(s)
    }

    fn fixup(&mut self, name: &str) {
        let s = &self.reg.structs[name];
        let mut body = String::new();
        let mut unsupported = None;
        for m in &s.members {
            let f = field(&m.name);
            if m.ptr == 0 {
                if m.array.is_none() && self.fixups.contains(self.resolve(&m.ty)) {
                    let ty = self.resolve(&m.ty);
                    let _ = writeln!(body, "fix_{ty}(a, std::ptr::addr_of_mut!(s.{f}).cast())?;");
                }
                continue;
            }
            let count = match m.altlen.as_deref().or(m.len.as_deref()) {
                None => None,
                Some("null-terminated") => None,
                Some(l) => match len_expr(l, "s.") {
                    Ok(e) => Some(e),
                    Err(e) => {
                        unsupported.get_or_insert(format!("{name}: {e}"));
                        continue;
                    }
                },
            };
            match self.copy_pointee(name, m, &format!("s.{f}"), count.as_deref(), false) {
                Ok(code) => body.push_str(&code),
                Err(e) => {
                    unsupported.get_or_insert(format!("{name}: {e}"));
                }
            }
        }
        let _ = writeln!(
            self.out,
            "#[allow(non_snake_case, unused_variables, clippy::all)]\npub(crate) unsafe fn fix_{name}(a: &mut Arena, p: *mut u8) -> Result<(), NotReplayable> {{"
        );
        if let Some(why) = unsupported {
            let _ = writeln!(self.out, "    Err(NotReplayable({why:?}))\n}}\n");
            return;
        }
        let rust = scalar(name);
        let _ = writeln!(
            self.out,
            "    // SAFETY: `p` is this layer's byte copy of a `{name}`; its pointers are the application's, valid for the command being recorded.\n    unsafe {{\n    let s = &mut *p.cast::<{rust}>();\n{body}    }}\n    Ok(())\n}}\n"
        );
    }

    fn run(mut self) -> String {
        let mut seen = BTreeSet::new();
        let roots: Vec<String> = self
            .reg
            .commands
            .values()
            .flat_map(|p| p.iter().map(|d| d.ty.clone()))
            .chain(ROOT_STRUCTS.iter().map(|s| s.to_string()))
            .collect();
        for r in roots {
            self.reach(&r, &mut seen);
        }
        self.fixups = seen
            .iter()
            .filter(|s| self.has_pointers(s, 0))
            .cloned()
            .collect();
        self.out
            .push_str("// Generated by build.rs from vk.xml: do not edit.\n\n");
        let fixups: Vec<String> = self.fixups.iter().cloned().collect();
        for s in &fixups {
            self.fixup(s);
        }
        // pNext chains by sType.
        let mut arms = String::new();
        for s in &self.chained {
            let Some(st) = self.reg.structs[s]
                .members
                .iter()
                .find(|m| m.name == "sType")
                .and_then(|m| m.values.clone())
            else {
                continue;
            };
            let variant = st.trim_start_matches("VK_STRUCTURE_TYPE_");
            let rust = scalar(s);
            let fix = if self.fixups.contains(s) {
                format!("Some(fix_{s} as Fix)")
            } else {
                "None".into()
            };
            let _ = writeln!(
                arms,
                "        vk::StructureType::{variant} => (size_of::<{rust}>(), align_of::<{rust}>(), {fix}),"
            );
        }
        let _ = writeln!(
            self.out,
            "/// The size, alignment and fix-up of a structure that may sit in a `pNext` chain, by its `sType`.\npub(super) fn chained(s_type: vk::StructureType) -> Option<(usize, usize, Option<Fix>)> {{\n    Some(match s_type {{\n{arms}        _ => return None,\n    }})\n}}\n"
        );
        self.commands();
        self.out
    }

    fn commands(&mut self) {
        let mut variants = String::new();
        let mut table = String::new();
        let mut load = String::new();
        let mut hooks = String::new();
        let mut lookup = String::new();
        let mut replay = String::new();
        let mut names = String::new();
        let mut works = String::new();
        for (name, params) in &self.reg.commands {
            let short = name.trim_start_matches("vk");
            let opaque = OPAQUE_COMMANDS.contains(&name.as_str());
            // C signature with untyped pointers.
            let sig: Vec<String> = params
                .iter()
                .map(|p| {
                    if p.array.is_some() || p.ptr > 0 {
                        let m = if p.is_const && p.ptr <= 1 {
                            "const"
                        } else {
                            "mut"
                        };
                        format!("*{m} c_void")
                    } else {
                        scalar(&p.ty)
                    }
                })
                .collect();
            let args: Vec<String> = params.iter().map(|p| field(&p.name)).collect();
            let typed: Vec<String> = args
                .iter()
                .zip(&sig)
                .map(|(a, t)| format!("{a}: {t}"))
                .collect();
            let fn_ty = format!("unsafe extern \"system\" fn({})", sig.join(", "));
            let _ = writeln!(table, "    pub {short}: Option<{fn_ty}>,");
            let mut all_names = vec![name.clone()];
            all_names.extend(
                self.reg
                    .command_aliases
                    .get(name)
                    .cloned()
                    .unwrap_or_default(),
            );
            let lookups: Vec<String> = all_names.iter().map(|n| format!("get(c\"{n}\")")).collect();
            let _ = writeln!(
                load,
                "            // SAFETY: looked up by name: the pointer has this command's signature.\n            {short}: unsafe {{ typed({}) }},",
                lookups.join(".or_else(|| ")
                    + &")".repeat(all_names.len() - 1)
            );
            for n in &all_names {
                let _ = writeln!(
                    lookup,
                    "        b\"{n}\" => Some({short} as {fn_ty} as *const ()),"
                );
            }
            // The recorded copy of the arguments after the command buffer.
            let mut fields = String::new();
            let mut copy = String::new();
            let mut unsupported: Option<String> = if opaque {
                Some(format!("{name} is not recorded"))
            } else {
                None
            };
            for (p, (a, t)) in params.iter().zip(args.iter().zip(&sig)).skip(1) {
                let _ = writeln!(fields, "    pub {a}: {t},");
                if p.ptr == 0 && p.array.is_none() {
                    continue;
                }
                if p.array.is_some() {
                    let n = p.array.clone().unwrap_or_default();
                    let t = scalar(&p.ty);
                    let _ = writeln!(
                        copy,
                        "    if !{a}.is_null() {{ {a} = a.copy({a}.cast(), {n} * size_of::<{t}>(), align_of::<{t}>()).cast_mut().cast(); }}"
                    );
                    continue;
                }
                let count = match p.altlen.as_deref().or(p.len.as_deref()) {
                    None | Some("null-terminated") => None,
                    Some(l) => match len_expr(l, "") {
                        Ok(e) => Some(e),
                        Err(e) => {
                            unsupported.get_or_insert(format!("{name}: {e}"));
                            continue;
                        }
                    },
                };
                if p.ptr == 1 && !p.is_const {
                    unsupported
                        .get_or_insert(format!("{name}: `{}` is written by the command", p.name));
                    continue;
                }
                // A parameter marked `noautovalidity` is null or valid, except
                // arrays laid out with a `stride` parameter.
                let follow = !params.iter().any(|q| q.name == "stride");
                match self.copy_pointee(name, p, a, count.as_deref(), follow) {
                    Ok(code) => copy.push_str(&code),
                    Err(e) => {
                        unsupported.get_or_insert(format!("{name}: {e}"));
                    }
                }
            }
            let cb = &args[0];
            let rest: Vec<String> = args.iter().skip(1).cloned().collect();
            let record = match &unsupported {
                Some(why) => format!("            Err(NotReplayable({why:?}))"),
                None => format!(
                    "            #[allow(unused_mut)]\n            let ({}) = ({});\n            // SAFETY: the arguments the application passed, valid during this call.\n            unsafe {{\n{copy}            }}\n            Ok(Cmd::{short}({short}Args {{ {} }}))",
                    rest.iter().map(|r| format!("mut {r}")).collect::<Vec<_>>().join(", ")
                        + if rest.len() == 1 { "," } else { "" },
                    rest.join(", ") + if rest.len() == 1 { "," } else { "" },
                    rest.join(", ")
                ),
            };
            let record = if rest.is_empty() {
                format!("            Ok(Cmd::{short}({short}Args {{}}))")
            } else {
                record
            };
            let _ = writeln!(
                hooks,
                "#[allow(non_snake_case, clippy::too_many_arguments, clippy::all)]\nunsafe extern \"system\" fn {short}({}) {{\n    let Some(device) = dispatch::device({cb}) else {{ return }};\n    let Some(next) = device.replay.next.{short} else {{ return }};\n    // SAFETY: the application's arguments, down the chain.\n    unsafe {{ next({}) }};\n    device.replay.record({cb}, |a| {{\n        let _ = &a;\n{record}\n    }});\n}}\n",
                typed.join(", "),
                args.join(", ")
            );
            let _ = writeln!(variants, "    {short}({short}Args),");
            let _ = writeln!(
                self.out,
                "#[allow(non_snake_case, dead_code)]\n#[derive(Clone, Copy)]\npub struct {short}Args {{\n{fields}}}\n"
            );
            let uses: Vec<String> = rest.iter().map(|r| format!("a.{r}")).collect();
            let _ = writeln!(
                replay,
                "        Cmd::{short}(a) => {{ let Some(f) = next.{short} else {{ return Err(Missing(\"{name}\")) }}; let _ = &a; f(cb{}{}) }}",
                if uses.is_empty() { "" } else { ", " },
                uses.join(", ")
            );
            let _ = writeln!(names, "            Cmd::{short}(_) => \"{name}\",");
            let work = if name.starts_with("vkCmdDraw") {
                Some("GRAPHICS")
            } else if name.starts_with("vkCmdDispatch") {
                Some("COMPUTE")
            } else {
                None
            };
            if let Some(point) = work {
                let _ = writeln!(
                    works,
                    "            Cmd::{short}(_) => Some(vk::PipelineBindPoint::{point}),"
                );
            }
        }
        let _ = writeln!(
            self.out,
            "/// One recorded command with its arguments (pointers into the recording's arena).\n#[derive(Clone, Copy)]\npub enum Cmd {{\n{variants}}}\n\nimpl Cmd {{\n    pub fn name(&self) -> &'static str {{\n        match self {{\n{names}        }}\n    }}\n\n    /// The bind point whose pipeline a draw or dispatch runs (none for other commands).\n    pub fn work(&self) -> Option<vk::PipelineBindPoint> {{\n        match self {{\n{works}            _ => None,\n        }}\n    }}\n}}\n"
        );
        let _ = writeln!(
            self.out,
            "/// The next layer's `vkCmd*` entry points of one device.\n#[allow(non_snake_case)]\n#[derive(Default)]\npub struct CmdNext {{\n{table}}}\n\nimpl CmdNext {{\n    /// # Safety\n    /// `get` answers as the next layer's `vkGetDeviceProcAddr` for one device.\n    pub unsafe fn load(get: impl Fn(&CStr) -> vk::PFN_vkVoidFunction) -> Self {{\n        CmdNext {{\n{load}        }}\n    }}\n}}\n"
        );
        let _ = writeln!(
            self.out,
            "/// This layer's hook of a `vkCmd*` command, as an untyped pointer.\npub fn hook(name: &[u8]) -> Option<*const ()> {{\n    match name {{\n{lookup}        _ => None,\n    }}\n}}\n\n{hooks}"
        );
        let _ = writeln!(
            self.out,
            "/// Calls `cmd` on `cb` through the next layer.\n///\n/// # Safety\n/// `cmd`'s pointers are valid (its recording is alive); `cb` is recording.\npub unsafe fn replay_one(next: &CmdNext, cb: vk::CommandBuffer, cmd: &Cmd) -> Result<(), Missing> {{\n    // SAFETY: per this function's contract.\n    unsafe {{\n    match *cmd {{\n{replay}    }}\n    }}\n    Ok(())\n}}\n"
        );
    }
}

fn main() {
    println!("cargo:rerun-if-env-changed=SHADERDBG_VK_XML");
    println!("cargo:rerun-if-changed=build.rs");
    let path = std::env::var("SHADERDBG_VK_XML").unwrap_or_else(|_| DEFAULT_XML.into());
    println!("cargo:rerun-if-changed={path}");
    let xml = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "reading the Vulkan registry {path}: {e}\n\
             install Debian's libvulkan-dev (`cargo xtask setup` does) or set SHADERDBG_VK_XML"
        )
    });
    let reg = parse(&xml);
    let gen = Gen {
        reg: &reg,
        fixups: BTreeSet::new(),
        chained: BTreeSet::new(),
        out: String::new(),
    };
    let code = gen.run();
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR")).join("replay_generated.rs");
    std::fs::write(&out, code).expect("writing the generated replay code");
}
