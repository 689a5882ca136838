//! What a shader is before it is parsed: its stage and its GLSL dialect.

use std::fmt;

pub use shaderdbg_core::Stage;

/// The profile part of a `#version` line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Profile {
    /// Desktop GLSL without profile (before 1.50) or with `core` (the default from 1.50).
    Core,
    Compatibility,
    /// OpenGL ES GLSL (`100`, `300 es`, ...).
    Es,
}

/// The API a shader is written for: OpenGL (and GLES), or Vulkan
/// (`GL_KHR_vulkan_glsl`: `gl_VertexIndex` instead of `gl_VertexID`,
/// descriptor sets, push constants, specialization constants).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Api {
    #[default]
    OpenGl,
    Vulkan,
}

impl Api {
    /// The API a shader's text is written for. Nothing in the text names it
    /// (the compiler's command line does), so this looks for what only
    /// Vulkan GLSL has: its vertex built-ins, `set =`, `push_constant`,
    /// `constant_id`, subpass inputs, or the extension itself. `set =` is
    /// the weakest sign (OpenGL compilers accept `set = 0`): a shader with
    /// it that reads `gl_VertexID` or `gl_InstanceID`, which Vulkan GLSL
    /// does not have, is OpenGL's.
    pub fn of_text(text: &str) -> Api {
        const VULKAN_ONLY: [&str; 7] = [
            "gl_VertexIndex",
            "gl_InstanceIndex",
            "push_constant",
            "constant_id",
            "input_attachment_index",
            "subpassInput",
            "GL_KHR_vulkan_glsl",
        ];
        let set_qualifier = text.match_indices("set").any(|(i, _)| {
            let before = text[..i].chars().next_back();
            let after = text[i + 3..].trim_start();
            !before.is_some_and(|c| c.is_alphanumeric() || c == '_') && after.starts_with('=')
        });
        // `uniform texture2D t;`, `uniform sampler s;`: no such types in
        // OpenGL GLSL.
        let separate = text.match_indices("uniform").any(|(i, _)| {
            let rest = &text[i + "uniform".len()..];
            let after = rest.trim_start();
            let word = after
                .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .next()
                .unwrap_or("");
            let texture = word.strip_prefix(['i', 'u']).unwrap_or(word);
            // `uniform` a word of its own, then the type.
            after.len() < rest.len()
                && (SEPARATE_SAMPLERS.contains(&word) || SEPARATE_TEXTURES.contains(&texture))
        });
        let opengl_only = || {
            ["gl_VertexID", "gl_InstanceID"]
                .iter()
                .any(|w| text.contains(w))
        };
        if VULKAN_ONLY.iter().any(|w| text.contains(w))
            || separate
            || (set_qualifier && !opengl_only())
        {
            Api::Vulkan
        } else {
            Api::OpenGl
        }
    }
}

/// GL_KHR_vulkan_glsl's texture types (each also with an `i` and a `u`
/// prefix), which a sampler makes a combined sampler (`sampler2D(t, s)`).
pub const SEPARATE_TEXTURES: [&str; 11] = [
    "texture1D",
    "texture2D",
    "texture3D",
    "textureCube",
    "texture2DRect",
    "texture1DArray",
    "texture2DArray",
    "textureBuffer",
    "texture2DMS",
    "texture2DMSArray",
    "textureCubeArray",
];

/// GL_KHR_vulkan_glsl's sampler types.
pub const SEPARATE_SAMPLERS: [&str; 2] = ["sampler", "samplerShadow"];

/// A GLSL dialect: `#version` number and profile.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Version {
    pub number: u16,
    pub profile: Profile,
}

impl Version {
    /// What a shader without `#version` is: GLSL 1.10.
    pub const DEFAULT: Version = Version {
        number: 110,
        profile: Profile::Core,
    };

    pub fn is_es(self) -> bool {
        self.profile == Profile::Es
    }

    /// Whether the legacy built-ins (`gl_FragColor`, `attribute`, `texture2D`, ...) exist.
    pub fn has_legacy_builtins(self) -> bool {
        match self.profile {
            Profile::Es => self.number < 300,
            Profile::Compatibility => true,
            Profile::Core => self.number < 140,
        }
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.profile {
            Profile::Es if self.number == 100 => write!(f, "100"),
            Profile::Es => write!(f, "{} es", self.number),
            Profile::Compatibility => write!(f, "{} compatibility", self.number),
            Profile::Core if self.number >= 150 => write!(f, "{} core", self.number),
            Profile::Core => write!(f, "{}", self.number),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Api;

    #[test]
    fn the_api_is_read_from_what_only_vulkan_glsl_has() {
        let vulkan = [
            "layout(set = 1, binding = 0) uniform U { float k; };",
            "layout(set=0,binding=2) uniform sampler2D t;",
            "layout(push_constant) uniform P { mat4 m; } p;",
            "layout(constant_id = 3) const int N = 4;",
            "void main() { int i = gl_VertexIndex; }",
            "#extension GL_KHR_vulkan_glsl : require",
            "uniform sampler s; uniform texture2D t;",
            "uniform  utexture2DArray t;",
        ];
        for text in vulkan {
            assert_eq!(Api::of_text(text), Api::Vulkan, "{text}");
        }
        let opengl = [
            "layout(binding = 0) uniform U { float k; };",
            "layout(std140, offset = 16) uniform U { float k; };",
            "int reset = 1; int offset=2;",
            "void main() { int i = gl_VertexID; }",
            "uniform sampler2D sampler; uniform samplerCube texture2D;",
            // glslang's glsl.es320.subgroup.vert, an OpenGL ES shader.
            "layout(set = 0, binding = 0, std430) buffer O { uvec4 r[]; };\nvoid main() { r[gl_VertexID] = uvec4(0); }",
        ];
        for text in opengl {
            assert_eq!(Api::of_text(text), Api::OpenGl, "{text}");
        }
    }
}
