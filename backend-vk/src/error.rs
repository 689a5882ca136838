//! Why the layer cannot do what debugging a submission or a module needs.
//! The texts are what the session shows (unverified breakpoints, error
//! replies, log lines): the agent turns an [`Error`] into a message only
//! where the protocol carries one.

use std::io;

use ash::vk;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A Vulkan call failed; `what` says what it was making or doing.
    #[error("{what}: {result}")]
    Vk {
        what: &'static str,
        result: vk::Result,
    },
    /// As [`Error::Vk`], with the result's name (the debug set's calls).
    #[error("{what}: {result} ({result:?})")]
    VkNamed {
        what: &'static str,
        result: vk::Result,
    },
    #[error("the device was lost (VK_ERROR_DEVICE_LOST) running it again")]
    DeviceLost,
    /// The device gave no such command.
    #[error("the device lacks {0}")]
    Lacks(&'static str),
    #[error("the loader gave no vkSetDeviceLoaderData")]
    NoLoaderData,
    /// An object the layer did not see made (created, allocated, begun).
    #[error("{0}")]
    Unseen(&'static str),
    /// No memory type fits.
    #[error("{0}")]
    NoMemory(&'static str),
    /// What the submission or module does that the layer cannot handle.
    #[error("{0}")]
    Cannot(&'static str),
    /// An error in doing part of something (`context` says which).
    #[error("{context}: {source}")]
    In {
        context: &'static str,
        #[source]
        source: Box<Error>,
    },
    #[error("screenshot at the end of frame {frame}: {source}")]
    FrameEndScreenshot {
        frame: u64,
        #[source]
        source: Box<Error>,
    },
    #[error(
        "this needs the submission to run again, and {0}: running it again would not give \
         what running it once gave"
    )]
    NotReexecutable(#[source] Box<Error>),
    #[error("its image cannot be copied: {0}")]
    NotCopyable(&'static str),
    #[error(
        "its format {} is not converted to RGBA8 (R8G8B8A8 and B8G8R8A8 are)",
        crate::screenshot::format_name(vk::Format::from_raw(*.0))
    )]
    NotRgba(i32),
    #[error(transparent)]
    NotReplayable(#[from] crate::replay::NotReplayable),
    #[error(transparent)]
    Missing(#[from] crate::replay::Missing),
    #[error("not stopped at a submission")]
    NotStopped,

    // Limits.
    #[error(
        "its pipeline layout uses all {max} descriptor sets the device can bind \
         (maxBoundDescriptorSets), and the debug buffer needs one more"
    )]
    NoFreeSet { max: u32 },
    #[error(
        "{regions} of its draws run a shader under test; the debug buffer holds the hits of \
         {fit} draws"
    )]
    TooManyDraws { regions: usize, fit: u64 },
    #[error("the debug buffer holds {holds} bytes, this needs {needs}")]
    DebugBufferTooSmall { holds: u64, needs: usize },

    // Child processes (glslang, SPIRV-Cross).
    #[error("cannot run {program}: {source}")]
    Spawn {
        program: String,
        #[source]
        source: io::Error,
    },
    #[error("{program}: {source}")]
    Wait {
        program: String,
        #[source]
        source: io::Error,
    },
    #[error("no stdin")]
    NoStdin,
    #[error("{0} (glslangValidator is Debian's glslang-tools)")]
    NoGlslang(#[source] Box<Error>),
    /// glslang's error lines.
    #[error("{0}")]
    Glslang(String),
    #[error("glslang wrote no module: {0}")]
    GlslangNoModule(#[source] io::Error),
    /// SPIRV-Cross's error output.
    #[error("spirv-cross failed: {0}")]
    SpirvCross(String),
    #[error("spirv-cross wrote non-UTF-8")]
    SpirvCrossUtf8,

    // Modules and their sources.
    #[error(transparent)]
    Spirv(#[from] crate::spirv::SpirvError),
    #[error(transparent)]
    Source(#[from] crate::source::SourceError),
    #[error(transparent)]
    Glsl(Box<shaderdbg_glsl::Diagnostic>),
    #[error(transparent)]
    GlslInstrument(Box<shaderdbg_glsl::instrument::InstrumentError>),
    #[error(transparent)]
    WgslInstrument(Box<shaderdbg_wgsl::InstrumentError>),
    #[error(transparent)]
    WgslEmit(Box<shaderdbg_wgsl::emit::EmitError>),
    #[error("the WGSL does not parse: {0}")]
    WgslParse(#[source] Box<shaderdbg_wgsl::ParseError>),
    #[error("the module's override constants: {0}")]
    Overrides(#[source] Box<naga::back::pipeline_constants::PipelineConstantError>),
    #[error("naga cannot write the module again: {0}")]
    NagaWrite(#[source] Box<naga::back::spv::Error>),
    #[error(
        "naga {v} does not write this module again from its WGSL under any of wgpu's options \
         (is the program's wgpu of another version? wgpu {v} is the one this debugger's naga \
         belongs to)",
        v = crate::wgsl::NAGA_VERSION
    )]
    NotWrittenAgain,
    /// An `#include` the module's debug information has no file for.
    #[error("{}", .0.message)]
    Include(Box<shaderdbg_glsl::Diagnostic>),
    /// Why a module cannot be debugged, as found when it was seen created.
    #[error("{0}")]
    Undebuggable(String),

    // Lines and expressions the session names.
    #[error("no statement at or after line {0}")]
    NoStatement(u32),
    #[error("no statement at or after line {line} in `{function}`")]
    NoStatementIn { line: u32, function: String },
    #[error("line {line} is in `{function}`, which entry point `{entry_point}` does not run")]
    NotRun {
        line: u32,
        function: String,
        entry_point: String,
    },
    #[error("watch expression `{0}`: it has no type here")]
    Untyped(String),
}

/// `From` for the errors kept boxed (they are large, and most results
/// here are `Ok`).
macro_rules! boxed_from {
    ($($variant:ident: $ty:ty),*) => {$(
        impl From<$ty> for Error {
            fn from(e: $ty) -> Self {
                Error::$variant(Box::new(e))
            }
        }
    )*};
}

boxed_from!(
    Glsl: shaderdbg_glsl::Diagnostic,
    GlslInstrument: shaderdbg_glsl::instrument::InstrumentError,
    WgslInstrument: shaderdbg_wgsl::InstrumentError,
    WgslEmit: shaderdbg_wgsl::emit::EmitError
);

/// `Ok` where a Vulkan call succeeded, else [`Error::Vk`] (`what` says
/// what it was making or doing).
pub fn check(result: vk::Result, what: &'static str) -> Result<(), Error> {
    if result == vk::Result::SUCCESS {
        Ok(())
    } else {
        Err(Error::Vk { what, result })
    }
}

impl Error {
    /// `self` as part of `context`.
    pub fn within(self, context: &'static str) -> Error {
        Error::In {
            context,
            source: Box::new(self),
        }
    }
}
