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
