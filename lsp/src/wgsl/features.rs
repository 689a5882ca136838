//! The WGSL requests past hover and definition: references, highlights,
//! rename, completion, signature help, semantic tokens and inline values.
//! Names come from the declaration scanner (so they work on text naga
//! rejects), types from the last module naga accepted (members, swizzles,
//! signatures).

use tower_lsp_server::gen_lsp_types::*;

use super::{after_attribute, builtins, tokens, Kind, Tok, View};

/// WGSL keywords: never a name, offered by completion.
const KEYWORDS: &[&str] = &[
    "alias",
    "break",
    "case",
    "const",
    "const_assert",
    "continue",
    "continuing",
    "default",
    "diagnostic",
    "discard",
    "else",
    "enable",
    "false",
    "fn",
    "for",
    "if",
    "let",
    "loop",
    "override",
    "requires",
    "return",
    "struct",
    "switch",
    "true",
    "var",
    "while",
];

/// Predeclared types and their common aliases.
const TYPES: &[&str] = &[
    "bool",
    "i32",
    "u32",
    "f32",
    "f16",
    "vec2",
    "vec3",
    "vec4",
    "vec2f",
    "vec3f",
    "vec4f",
    "vec2i",
    "vec3i",
    "vec4i",
    "vec2u",
    "vec3u",
    "vec4u",
    "mat2x2",
    "mat2x3",
    "mat2x4",
    "mat3x2",
    "mat3x3",
    "mat3x4",
    "mat4x2",
    "mat4x3",
    "mat4x4",
    "mat2x2f",
    "mat3x3f",
    "mat4x4f",
    "array",
    "atomic",
    "ptr",
    "sampler",
    "sampler_comparison",
    "texture_1d",
    "texture_2d",
    "texture_2d_array",
    "texture_3d",
    "texture_cube",
    "texture_cube_array",
    "texture_multisampled_2d",
    "texture_depth_2d",
    "texture_depth_2d_array",
    "texture_depth_cube",
    "texture_depth_cube_array",
    "texture_depth_multisampled_2d",
    "texture_storage_1d",
    "texture_storage_2d",
    "texture_storage_2d_array",
    "texture_storage_3d",
];

/// The built-in functions of the WGSL specification (section 17).
pub(super) const BUILTIN_FUNCTIONS: &[&str] = &[
    "abs",
    "acos",
    "acosh",
    "all",
    "any",
    "arrayLength",
    "asin",
    "asinh",
    "atan",
    "atan2",
    "atanh",
    "atomicAdd",
    "atomicAnd",
    "atomicCompareExchangeWeak",
    "atomicExchange",
    "atomicLoad",
    "atomicMax",
    "atomicMin",
    "atomicOr",
    "atomicStore",
    "atomicSub",
    "atomicXor",
    "bitcast",
    "ceil",
    "clamp",
    "cos",
    "cosh",
    "countLeadingZeros",
    "countOneBits",
    "countTrailingZeros",
    "cross",
    "degrees",
    "determinant",
    "distance",
    "dot",
    "dot4I8Packed",
    "dot4U8Packed",
    "dpdx",
    "dpdxCoarse",
    "dpdxFine",
    "dpdy",
    "dpdyCoarse",
    "dpdyFine",
    "exp",
    "exp2",
    "extractBits",
    "faceForward",
    "firstLeadingBit",
    "firstTrailingBit",
    "floor",
    "fma",
    "fract",
    "frexp",
    "fwidth",
    "fwidthCoarse",
    "fwidthFine",
    "insertBits",
    "inverseSqrt",
    "ldexp",
    "length",
    "log",
    "log2",
    "max",
    "min",
    "mix",
    "modf",
    "normalize",
    "pack2x16float",
    "pack2x16snorm",
    "pack2x16unorm",
    "pack4x8snorm",
    "pack4x8unorm",
    "pow",
    "quantizeToF16",
    "radians",
    "reflect",
    "refract",
    "reverseBits",
    "round",
    "saturate",
    "select",
    "sign",
    "sin",
    "sinh",
    "smoothstep",
    "sqrt",
    "step",
    "storageBarrier",
    "tan",
    "tanh",
    "textureBarrier",
    "textureDimensions",
    "textureGather",
    "textureGatherCompare",
    "textureLoad",
    "textureNumLayers",
    "textureNumLevels",
    "textureNumSamples",
    "textureSample",
    "textureSampleBaseClampToEdge",
    "textureSampleBias",
    "textureSampleCompare",
    "textureSampleCompareLevel",
    "textureSampleGrad",
    "textureSampleLevel",
    "textureStore",
    "transpose",
    "trunc",
    "unpack2x16float",
    "unpack2x16snorm",
    "unpack2x16unorm",
    "unpack4x8snorm",
    "unpack4x8unorm",
    "workgroupBarrier",
    "workgroupUniformLoad",
];

/// Semantic token modifiers, as bits of the server's legend
/// (`glsl::features::TOKEN_MODIFIERS`).
const DECLARATION: u32 = 1;
const READONLY: u32 = 2;
const DEFAULT_LIBRARY: u32 = 4;
const GLOBAL: u32 = 8;

/// Why a rename is refused.
#[derive(Debug, thiserror::Error)]
pub enum RenameError {
    #[error("`{0}` is not a WGSL identifier")]
    NotAnIdentifier(String),
    #[error("`{0}` is a WGSL keyword or predeclared name")]
    Reserved(String),
    #[error("there is no declared name here to rename")]
    NothingHere,
}

impl View<'_> {
    /// The identifiers of the text that are names (outside comments and
    /// attributes), with their spans, in order.
    fn names(&self) -> Vec<(usize, usize)> {
        let toks = tokens(self.text);
        let mut out = Vec::new();
        let mut i = 0;
        while i < toks.len() {
            match toks[i] {
                // `@attr` and `@attr(args)`: not names of the program.
                (Tok::Punct(b'@'), _) => {
                    i = after_attribute(&toks, i);
                    continue;
                }
                (Tok::Ident(w), off) if !KEYWORDS.contains(&w) => out.push((off, off + w.len())),
                _ => {}
            }
            i += 1;
        }
        out
    }

    /// The names among `spans` that refer to a declaration, with its index
    /// (resolving is a walk over the declarations: only the names a
    /// request can use are resolved).
    fn occurrences(
        &self,
        spans: impl IntoIterator<Item = (usize, usize)>,
    ) -> Vec<((usize, usize), usize)> {
        spans
            .into_iter()
            .filter_map(|span| {
                let (i, s) = self.resolve(span.0)?;
                (s == span).then_some((span, i))
            })
            .collect()
    }

    /// The occurrences of the declaration named at `offset`.
    fn uses_of_name_at(&self, offset: usize) -> Option<(usize, Vec<(usize, usize)>)> {
        let (target, _) = self.resolve_with_naga(offset)?;
        let name = self.decls[target].name.as_str();
        let same_text = self
            .names()
            .into_iter()
            .filter(|s| &self.text[s.0..s.1] == name);
        let mut spans: Vec<(usize, usize)> = self
            .occurrences(same_text)
            .into_iter()
            .filter(|(_, i)| *i == target)
            .map(|(s, _)| s)
            .collect();
        // A member: also every access naga lowered, whatever the receiver
        // (the text types only names, members and indexing).
        let d = &self.decls[target];
        if let (Kind::Member, Some(owner), Some(types)) = (d.kind, d.parent, self.types) {
            if let Some(uses) = types.member_uses(self.text, &self.decls[owner].name, name) {
                spans.extend(uses.iter().filter(|s| s.1 <= self.text.len()));
                spans.sort_unstable();
                spans.dedup();
            }
        }
        Some((target, spans))
    }

    /// Whether the name ending at `end` is written there: `x = ...`,
    /// `x += ...` and the other compound assignments, `x++`, `x--`, also
    /// through members and elements (`x.y[2] += 1.0` writes `x`, as for
    /// GLSL).
    fn written_at(&self, end: usize) -> bool {
        let mut rest = self.text[end..].trim_start();
        loop {
            if let Some(r) = rest.strip_prefix('.') {
                let r = r.trim_start();
                let name = r
                    .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .unwrap_or(r.len());
                if name == 0 {
                    return false;
                }
                rest = r[name..].trim_start();
            } else if rest.starts_with('[') {
                let mut depth = 0;
                let mut close = None;
                for (i, c) in rest.char_indices() {
                    match c {
                        '[' => depth += 1,
                        ']' => {
                            depth -= 1;
                            if depth == 0 {
                                close = Some(i);
                                break;
                            }
                        }
                        ';' | '{' | '}' => return false,
                        _ => {}
                    }
                }
                let Some(close) = close else {
                    return false;
                };
                rest = rest[close + 1..].trim_start();
            } else {
                break;
            }
        }
        if rest.starts_with("++") || rest.starts_with("--") {
            return true;
        }
        let compound = ["<<=", ">>=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^="];
        compound.iter().any(|op| rest.starts_with(op))
            || (rest.starts_with('=') && !rest.starts_with("=="))
    }

    pub fn references(&self, offset: usize, include_declaration: bool) -> Vec<Location> {
        let Some((target, spans)) = self.uses_of_name_at(offset) else {
            return Vec::new();
        };
        let decl = self.decls[target].name_span;
        spans
            .into_iter()
            .filter(|s| include_declaration || *s != decl)
            .map(|s| Location {
                uri: self.uri.clone(),
                range: self.range(s),
            })
            .collect()
    }

    pub fn highlights(&self, offset: usize) -> Vec<DocumentHighlight> {
        let Some((target, spans)) = self.uses_of_name_at(offset) else {
            return Vec::new();
        };
        let decl = self.decls[target].name_span;
        spans
            .into_iter()
            .map(|s| {
                let write = s == decl || self.written_at(s.1);
                DocumentHighlight {
                    range: self.range(s),
                    kind: Some(if write {
                        DocumentHighlightKind::Write
                    } else {
                        DocumentHighlightKind::Read
                    }),
                }
            })
            .collect()
    }

    /// The range of the name a rename at `offset` would change.
    pub fn prepare_rename(&self, offset: usize) -> Option<Range> {
        let (_, span) = self.resolve(offset)?;
        Some(self.range(span))
    }

    /// Every occurrence of the name at `offset` renamed to `new_name`.
    pub fn rename(&self, offset: usize, new_name: &str) -> Result<Vec<TextEdit>, RenameError> {
        let ident = new_name
            .chars()
            .next()
            .is_some_and(|c| c.is_alphabetic() || c == '_')
            && new_name.chars().all(|c| c.is_alphanumeric() || c == '_')
            && new_name != "_"
            && !new_name.starts_with("__");
        if !ident {
            return Err(RenameError::NotAnIdentifier(new_name.into()));
        }
        let reserved = [KEYWORDS, TYPES, BUILTIN_FUNCTIONS];
        if reserved.iter().any(|list| list.contains(&new_name)) {
            return Err(RenameError::Reserved(new_name.into()));
        }
        let (_, spans) = self
            .uses_of_name_at(offset)
            .ok_or(RenameError::NothingHere)?;
        Ok(spans
            .into_iter()
            .map(|s| TextEdit {
                range: self.range(s),
                new_text: new_name.to_string(),
            })
            .collect())
    }

    /// The function whose text contains `offset`.
    fn function_at(&self, offset: usize) -> Option<usize> {
        self.decls
            .iter()
            .position(|d| d.kind == Kind::Function && d.span.0 <= offset && offset < d.span.1)
    }

    /// Whether declaration `i` can be named at `offset`, which lies in
    /// function `here` ([`Self::function_at`]).
    fn visible_at(&self, i: usize, offset: usize, here: Option<usize>) -> bool {
        let d = &self.decls[i];
        match d.function {
            None => d.kind != Kind::Member,
            Some(f) => {
                Some(f) == here
                    && d.scope.0 <= offset
                    && offset <= d.scope.1
                    && d.name_span.1 <= offset
            }
        }
    }

    pub fn completion(&self, offset: usize) -> Vec<CompletionItem> {
        let offset = offset.min(self.text.len());
        let before = &self.text[..offset];
        let word_start = name_start(before);
        let head = before[..word_start].trim_end();
        if let Some(dot) = head.strip_suffix('.') {
            return self.member_completions(dot.len());
        }
        let mut items: Vec<CompletionItem> = Vec::new();
        // Inner declarations first, so that they shadow outer ones.
        let here = self.function_at(offset);
        let mut visible: Vec<usize> = (0..self.decls.len())
            .filter(|&i| self.visible_at(i, offset, here))
            .collect();
        visible.sort_by_key(|&i| std::cmp::Reverse(self.decls[i].scope.0));
        for i in visible {
            let d = &self.decls[i];
            if items.iter().any(|it| it.label == d.name) {
                continue;
            }
            let kind = match d.kind {
                Kind::Function => CompletionItemKind::Function,
                Kind::Struct | Kind::Alias => CompletionItemKind::Struct,
                Kind::Const | Kind::Override => CompletionItemKind::Constant,
                Kind::Member => CompletionItemKind::Field,
                Kind::Var | Kind::Let | Kind::Param => CompletionItemKind::Variable,
            };
            items.push(item(&d.name, kind, self.type_of(d)));
        }
        // Built-in functions with their first overload's signature (and
        // how many more there are) and description.
        for n in BUILTIN_FUNCTIONS {
            if items.iter().any(|it| it.label == *n) {
                continue;
            }
            let Some((f, o)) = builtins::function(n).and_then(|f| Some((f, f.overloads.first()?)))
            else {
                items.push(item(
                    n,
                    CompletionItemKind::Function,
                    Some("built-in function".into()),
                ));
                continue;
            };
            let mut detail = o.label.clone();
            if f.overloads.len() > 1 {
                detail.push_str(&format!(" (+{} overloads)", f.overloads.len() - 1));
            }
            let mut it = item(n, CompletionItemKind::Function, Some(detail));
            if !o.doc.is_empty() {
                it.documentation = Some(Documentation::String(paragraphs(&o.doc)));
            }
            items.push(it);
        }
        let builtins = [
            (TYPES, CompletionItemKind::Struct, "predeclared type"),
            (KEYWORDS, CompletionItemKind::Keyword, "keyword"),
        ];
        for (names, kind, detail) in builtins {
            for n in names {
                if !items.iter().any(|it| it.label == *n) {
                    items.push(item(n, kind, Some(detail.to_string())));
                }
            }
        }
        items
    }

    /// The members (struct) or components (vector) of the expression that
    /// ends at `end`, before a `.`.
    fn member_completions(&self, end: usize) -> Vec<CompletionItem> {
        let Some(ty) = self.type_before(end).or_else(|| self.naga_type_before(end)) else {
            return Vec::new();
        };
        let ty = pointee(&ty);
        if let Some(members) = self.types.and_then(|t| t.structs.get(ty)) {
            return members
                .iter()
                .map(|(n, t)| item(n, CompletionItemKind::Field, Some(t.clone())))
                .collect();
        }
        let Some((n, scalar)) = vector(ty) else {
            return Vec::new();
        };
        ["xyzw", "rgba"]
            .iter()
            .flat_map(|set| set.chars().take(n))
            .map(|c| {
                item(
                    &c.to_string(),
                    CompletionItemKind::Field,
                    Some(scalar.into()),
                )
            })
            .collect()
    }

    /// The type (naga's WGSL spelling) of the expression ending at `end`: a
    /// name, a member of one, an element of one (`a[i].b[j]`).
    pub(super) fn type_before(&self, end: usize) -> Option<String> {
        let text = self.text[..end].trim_end();
        if let Some(inner) = text.strip_suffix(']') {
            // Back to the matching `[`.
            let mut depth = 1;
            let mut open = None;
            for (i, c) in inner.char_indices().rev() {
                match c {
                    ']' => depth += 1,
                    '[' => {
                        depth -= 1;
                        if depth == 0 {
                            open = Some(i);
                            break;
                        }
                    }
                    _ => {}
                }
            }
            return element(&self.type_before(open?)?);
        }
        let start = name_start(text);
        let name = &text[start..];
        if name.is_empty() {
            return None;
        }
        let head = text[..start].trim_end();
        match head.strip_suffix('.') {
            Some(parent) => {
                let parent = self.type_before(parent.len())?;
                let parent = pointee(&parent);
                if let Some(members) = self.types?.structs.get(parent) {
                    return members
                        .iter()
                        .find(|(n, _)| n == name)
                        .map(|(_, t)| t.clone());
                }
                // A swizzle.
                let (_, scalar) = vector(parent)?;
                Some(match name.len() {
                    1 => scalar.to_string(),
                    n => format!("vec{n}<{scalar}>"),
                })
            }
            None => {
                let (i, _) = self.resolve(start)?;
                self.type_of(&self.decls[i])
            }
        }
    }

    /// The type of the expression ending at `end` (before a `.`) as naga
    /// resolves it, for what [`Self::type_before`] cannot read from the
    /// text: calls, constructors, parenthesised expressions. The locals in
    /// scope there are given naga's types from the last module it accepted.
    pub(super) fn naga_type_before(&self, end: usize) -> Option<String> {
        let types = self.types?;
        let start = receiver_start(self.text, end)?;
        let expr = self.text[start..end].trim();
        let f = self.function_at(start)?;
        let known = types.locals.get(&self.decls[f].name);
        let mut locals: Vec<(String, String)> = Vec::new();
        // Innermost first: a shadowing declaration wins.
        for i in (0..self.decls.len()).rev() {
            let d = &self.decls[i];
            let local = matches!(d.kind, Kind::Var | Kind::Let | Kind::Param);
            if d.function != Some(f) || !local || !self.visible_at(i, start, Some(f)) {
                continue;
            }
            if locals.iter().any(|(n, _)| *n == d.name) {
                continue;
            }
            if let Some(t) = known.and_then(|k| k.get(&d.name)) {
                locals.push((d.name.clone(), t.clone()));
            }
        }
        types.type_of_expression(&locals, expr)
    }

    pub fn signature_help(&self, offset: usize) -> Option<SignatureHelp> {
        let before = &self.text[..offset.min(self.text.len())];
        // The innermost unclosed `(` and the commas at its level.
        let mut depth = 0i32;
        let mut commas = 0u32;
        let mut open = None;
        for (i, c) in before.char_indices().rev() {
            match c {
                ')' | ']' => depth += 1,
                '(' | '[' if depth > 0 => depth -= 1,
                '(' => {
                    open = Some(i);
                    break;
                }
                '[' | ';' | '{' | '}' => return None,
                ',' if depth == 0 => commas += 1,
                _ => {}
            }
        }
        let open = open?;
        let mut callee = before[..open].trim_end();
        // `bitcast<f32>(`: the name before the template list.
        if let Some(inner) = callee.strip_suffix('>') {
            let mut depth = 1;
            for (i, c) in inner.char_indices().rev() {
                match c {
                    '>' => depth += 1,
                    '<' => depth -= 1,
                    _ => {}
                }
                if depth == 0 {
                    callee = inner[..i].trim_end();
                    break;
                }
            }
        }
        let start = name_start(callee);
        // A declaration of the shader's shadows the built-in of that name.
        let Some((i, _)) = self.resolve(start) else {
            let f = builtins::function(&callee[start..])?;
            return Some(self.builtin_signature_help(f, open + 1, offset, commas));
        };
        let d = &self.decls[i];
        if d.kind != Kind::Function {
            return None;
        }
        let label = self.type_of(d)?;
        let params = label
            .split_once('(')
            .and_then(|(_, rest)| rest.rsplit_once(')'))
            .map(|(p, _)| p)
            .unwrap_or_default();
        let parameters: Vec<ParameterInformation> = split_top_level(params)
            .into_iter()
            .filter(|p| !p.is_empty())
            .map(|p| ParameterInformation {
                label: ParameterInformationLabel::String(p.to_string()),
                documentation: None,
            })
            .collect();
        Some(SignatureHelp {
            signatures: vec![SignatureInformation {
                label,
                documentation: None,
                parameters: Some(parameters),
                active_parameter: Some(ActiveParameter::Int(commas)),
            }],
            active_signature: Some(0),
            active_parameter: Some(ActiveParameter::Int(commas)),
        })
    }

    /// Signature help in a call of built-in function `f` whose arguments
    /// start at `args_start`: every overload, the one the arguments typed
    /// so far fit active, the parameter the cursor is in active.
    fn builtin_signature_help(
        &self,
        f: &builtins::Function,
        args_start: usize,
        offset: usize,
        commas: u32,
    ) -> SignatureHelp {
        let args_text = &self.text[args_start..offset.min(self.text.len())];
        let mut known = Vec::new();
        let mut at = args_start;
        let pieces = split_arguments(args_text);
        // Every argument before the one being typed.
        for piece in pieces.iter().take(pieces.len().saturating_sub(1)) {
            let start = at + self.text[at..].find(piece).unwrap_or(0);
            known.push(self.argument_type(piece, start + piece.len()));
            at = start + piece.len();
            at += self.text[at..].find(',').map_or(0, |c| c + 1);
        }
        let active = builtins::choose(f, commas as usize, &known);
        let signatures = f
            .overloads
            .iter()
            .map(|o| {
                let mut doc = o.doc.clone();
                if !o.parameterization.is_empty() {
                    doc.push_str(&format!("\n\nWhere {}", o.parameterization));
                }
                SignatureInformation {
                    label: o.label.clone(),
                    documentation: (!doc.is_empty()).then_some(Documentation::String(doc)),
                    parameters: Some(
                        o.params
                            .iter()
                            .zip(&o.param_decls)
                            .map(|(&(s, e), (name, _))| ParameterInformation {
                                label: ParameterInformationLabel::Tuple((
                                    utf16_len(&o.label[..s]),
                                    utf16_len(&o.label[..e]),
                                )),
                                documentation: f
                                    .param_docs
                                    .get(name)
                                    .map(|d| Documentation::String(d.clone())),
                            })
                            .collect(),
                    ),
                    active_parameter: Some(ActiveParameter::Int(commas)),
                }
            })
            .collect();
        SignatureHelp {
            signatures,
            active_signature: Some(active as u32),
            active_parameter: Some(ActiveParameter::Int(commas)),
        }
    }

    /// The type of a call's argument `arg` that ends at `end`, where it can
    /// be known from the text: a literal, a constructor, a name, a member,
    /// an element.
    fn argument_type(&self, arg: &str, end: usize) -> Option<String> {
        let arg = arg.trim();
        if let Some(t) = builtins::type_of_literal_or_constructor(arg) {
            return Some(t);
        }
        let path = arg.starts_with(|c: char| c.is_alphabetic() || c == '_')
            && arg
                .chars()
                .all(|c| c.is_alphanumeric() || matches!(c, '_' | '.' | '[' | ']'));
        if !path {
            return None;
        }
        self.type_before(end)
    }

    /// Names as semantic tokens (the server's legend): declared names by
    /// what they declare, calls of built-in functions as default-library
    /// functions.
    pub fn semantic_tokens(&self) -> Vec<SemanticToken> {
        // Member accesses naga lowered, for members the text does not
        // resolve (`f().pos` where two structs have a `pos`).
        let members: std::collections::HashSet<(usize, usize)> = self
            .types
            .map(|t| t.all_member_uses(self.text).collect())
            .unwrap_or_default();
        let tokens = self.names().into_iter().filter_map(|span| {
            let (token_type, modifiers) = match self.resolve(span.0) {
                Some((i, s)) if s == span => self.class_of(i, span),
                _ if members.contains(&span) => (4, 0),
                _ => {
                    let name = &self.text[span.0..span.1];
                    let call = self.text[span.1..].trim_start().starts_with('(');
                    (call && BUILTIN_FUNCTIONS.contains(&name)).then_some((2, DEFAULT_LIBRARY))?
                }
            };
            Some((span.0, span.1, token_type, modifiers))
        });
        self.lines.semantic_tokens(self.text, tokens)
    }

    /// The semantic token type and modifiers of declaration `i` named at `span`.
    fn class_of(&self, i: usize, span: (usize, usize)) -> (u32, u32) {
        let d = &self.decls[i];
        let token_type = match d.kind {
            Kind::Param => 1,
            Kind::Function => 2,
            Kind::Struct | Kind::Alias => 3,
            Kind::Member => 4,
            Kind::Var | Kind::Let | Kind::Const | Kind::Override => 0,
        };
        let mut modifiers = 0;
        if d.name_span == span {
            modifiers |= DECLARATION;
        }
        if matches!(
            d.kind,
            Kind::Const | Kind::Override | Kind::Let | Kind::Param
        ) {
            modifiers |= READONLY;
        }
        if d.function.is_none() && matches!(d.kind, Kind::Var | Kind::Const | Kind::Override) {
            modifiers |= GLOBAL;
        }
        (token_type, modifiers)
    }

    /// For the editor's stopped location: the parameters of the function
    /// around the stop and the writes in it (declarations with a value,
    /// assignments) of variables visible at the stop, on the lines of
    /// `range` up to the stopped line. The debugger looks their values up
    /// by name.
    pub fn inline_values(&self, range: Range, stopped: Position) -> Vec<InlineValue> {
        let (s, e) = (
            self.lines.offset_clamped(self.text, range.start),
            self.lines.offset_clamped(self.text, range.end),
        );
        let Some(stop) = self.lines.offset(self.text, stopped) else {
            return Vec::new();
        };
        let Some(f) = self.function_at(stop) else {
            return Vec::new();
        };
        let stop_line_end = self.lines.line_end(self.text, self.lines.line_of(stop));
        let body = self.decls[f].span;
        let mut out: Vec<InlineValue> = Vec::new();
        let shown = |span: &(usize, usize)| {
            span.0 >= body.0.max(s) && span.1 <= e && span.0 <= stop_line_end
        };
        let in_view = self.names().into_iter().filter(shown);
        for (span, i) in self.occurrences(in_view) {
            let d = &self.decls[i];
            let variable = match d.function {
                Some(_) => matches!(d.kind, Kind::Var | Kind::Let | Kind::Param),
                None => d.kind == Kind::Var,
            };
            let visible = d.function.is_none() || self.visible_at(i, stop, Some(f));
            let written = span == d.name_span || self.written_at(span.1);
            if variable && visible && written {
                out.push(InlineValue::VariableLookup(InlineValueVariableLookup {
                    range: self.range(span),
                    variable_name: Some(d.name.clone()),
                    case_sensitive_lookup: true,
                }));
            }
        }
        out
    }
}

/// The arguments of a call, split at the commas outside parentheses and
/// brackets (as signature help counts them), trimmed.
fn split_arguments(s: &str) -> Vec<&str> {
    split_outside(s, ['(', '['], [')', ']'])
}

/// `s` split at the commas outside the brackets that `open` opens and
/// `close` closes, trimmed.
fn split_outside(s: &str, open: [char; 2], close: [char; 2]) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (i, c) in s.char_indices() {
        if open.contains(&c) {
            depth += 1;
        } else if close.contains(&c) {
            depth -= 1;
        } else if c == ',' && depth == 0 {
            out.push(s[start..i].trim());
            start = i + 1;
        }
    }
    out.push(s[start..].trim());
    out
}

fn utf16_len(s: &str) -> u32 {
    s.encode_utf16().count() as u32
}

/// Where the name that `text` ends with starts (`text.len()` if it ends
/// with no name character).
fn name_start(text: &str) -> usize {
    text.char_indices()
        .rev()
        .take_while(|(_, c)| c.is_alphanumeric() || *c == '_')
        .last()
        .map_or(text.len(), |(i, _)| i)
}

fn item(label: &str, kind: CompletionItemKind, detail: Option<String>) -> CompletionItem {
    CompletionItem {
        label: label.to_string(),
        kind: Some(kind),
        detail,
        ..Default::default()
    }
}

/// A built-in's description as paragraphs (`builtins.txt` separates them
/// with `; ` after a sentence's period).
pub(super) fn paragraphs(doc: &str) -> String {
    doc.replace(".; ", ".\n\n")
}

/// The type a pointer type points to (`ptr<function, Light>` -> `Light`),
/// or the type itself: members are reached through pointers.
pub(super) fn pointee(ty: &str) -> &str {
    ty.strip_prefix("ptr<")
        .and_then(|t| t.strip_suffix('>'))
        .and_then(|inner| split_top_level(inner).get(1).copied())
        .unwrap_or(ty)
}

/// Where the expression that ends at `end` (before a `.`) starts: names,
/// calls (`f(x)`, `vec3<f32>(1.0)`), parenthesised expressions and
/// indexing, joined by `.`. `None` when no expression ends there.
fn receiver_start(text: &str, end: usize) -> Option<usize> {
    let b = text.as_bytes();
    let skip_space = |mut i: usize| {
        while i > 0 && b[i - 1].is_ascii_whitespace() {
            i -= 1;
        }
        i
    };
    // The `(` or `[` that opens the group whose closing byte is at `close`.
    let open_of = |close: usize| {
        let mut depth = 0i32;
        for i in (0..=close).rev() {
            match b[i] {
                b')' | b']' => depth += 1,
                b'(' | b'[' => {
                    depth -= 1;
                    if depth == 0 {
                        return Some(i);
                    }
                }
                b';' | b'{' | b'}' => return None,
                _ => {}
            }
        }
        None
    };
    let mut i = skip_space(end);
    loop {
        let part_end = i;
        let mut call = false;
        let mut first_open = i;
        while i > 0 && matches!(b[i - 1], b')' | b']') {
            call = b[i - 1] == b')';
            first_open = open_of(i - 1)?;
            i = skip_space(first_open);
        }
        // The template list of a constructor or call: `vec3<f32>(`.
        if call && i > 0 && b[i - 1] == b'>' {
            let mut depth = 0i32;
            let mut j = i;
            while j > 0 {
                j -= 1;
                match b[j] {
                    b'>' => depth += 1,
                    b'<' => depth -= 1,
                    b';' | b'{' | b'}' | b'(' | b')' => return None,
                    _ => {}
                }
                if depth == 0 {
                    break;
                }
            }
            i = skip_space(j);
        }
        let name = name_start(&text[..i]);
        // `return (a + b).x`: a keyword before a group is not a callee.
        i = if KEYWORDS.contains(&&text[name..i]) {
            first_open
        } else {
            name
        };
        if i == part_end {
            return None;
        }
        let before = skip_space(i);
        if before > 0 && b[before - 1] == b'.' {
            i = skip_space(before - 1);
            continue;
        }
        return Some(i);
    }
}

/// `vec3<f32>` -> (3, "f32"); the short aliases too (`vec3f`).
fn vector(ty: &str) -> Option<(usize, &str)> {
    let rest = ty.strip_prefix("vec")?;
    let n = rest.chars().next()?.to_digit(10)? as usize;
    let scalar = match &rest[1..] {
        "f" => "f32",
        "i" => "i32",
        "u" => "u32",
        "h" => "f16",
        generic => generic.strip_prefix('<')?.strip_suffix('>')?,
    };
    (2..=4).contains(&n).then_some((n, scalar))
}

/// The type of an element of `ty`: of an array, a vector's scalar, a
/// matrix's column.
fn element(ty: &str) -> Option<String> {
    if let Some(inner) = ty.strip_prefix("array<").and_then(|t| t.strip_suffix('>')) {
        return split_top_level(inner).first().map(|s| s.to_string());
    }
    if let Some((_, scalar)) = vector(ty) {
        return Some(scalar.to_string());
    }
    let rest = ty.strip_prefix("mat")?;
    let rows = rest.chars().nth(2)?;
    let scalar = rest.get(3..)?.strip_prefix('<')?.strip_suffix('>')?;
    Some(format!("vec{rows}<{scalar}>"))
}

/// `a: f32, b: array<f32, 4>` -> ["a: f32", "b: array<f32, 4>"].
pub(super) fn split_top_level(s: &str) -> Vec<&str> {
    split_outside(s, ['<', '('], ['>', ')'])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_start_after_any_character() {
        assert_eq!(name_start("a + bcd"), 4);
        assert_eq!(name_start("x\u{2014}uv"), 4);
        assert_eq!(name_start("light."), 6);
        assert_eq!(name_start("abc"), 0);
        assert_eq!(name_start(""), 0);
    }

    #[test]
    fn receivers_before_a_dot() {
        fn receiver(text: &str) -> Option<&str> {
            let end = text.len() - 1;
            receiver_start(text, end).map(|s| text[s..end].trim_end())
        }
        assert_eq!(receiver("    acc += light.pos."), Some("light.pos"));
        assert_eq!(
            receiver("let a = get(k, f(1)).m[2]."),
            Some("get(k, f(1)).m[2]")
        );
        assert_eq!(receiver("x = vec3<f32>(1.0) ."), Some("vec3<f32>(1.0)"));
        assert_eq!(receiver("return (a + b).xy."), Some("(a + b).xy"));
        assert_eq!(receiver("return (*p).pos."), Some("(*p).pos"));
        assert_eq!(receiver("a + b)."), None);
        assert_eq!(receiver("{ ."), None);
        assert_eq!(pointee("ptr<function, Light>"), "Light");
        assert_eq!(pointee("ptr<storage, array<f32>, read>"), "array<f32>");
        assert_eq!(pointee("vec2<f32>"), "vec2<f32>");
    }

    #[test]
    fn element_and_component_types() {
        assert_eq!(vector("vec3<f32>"), Some((3, "f32")));
        assert_eq!(vector("vec2u"), Some((2, "u32")));
        assert_eq!(vector("vec5<f32>"), None);
        assert_eq!(vector("f32"), None);
        assert_eq!(element("array<Light, 4>").as_deref(), Some("Light"));
        assert_eq!(element("array<vec2<f32>>").as_deref(), Some("vec2<f32>"));
        assert_eq!(element("mat4x3<f32>").as_deref(), Some("vec3<f32>"));
        assert_eq!(element("vec4<i32>").as_deref(), Some("i32"));
        assert_eq!(element("Light"), None);
        assert_eq!(
            split_top_level("a: f32, b: array<f32, 4>, c: vec2<f32>"),
            ["a: f32", "b: array<f32, 4>", "c: vec2<f32>"]
        );
    }
}
