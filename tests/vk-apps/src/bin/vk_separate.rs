//! `vk_separate [FRAMES] [SIZE] [plain|nonsemantic]`: `vk_textured` with
//! its fragment shader in HLSL (`shaders/vk_separate.frag.hlsl`, compiled
//! by `glslangValidator -D`) sampling a texture with a sampler of its own
//! (a `SAMPLED_IMAGE` and a `SAMPLER` descriptor, as HLSL has them): the
//! layer decompiles its module without debug information to Vulkan GLSL's
//! separate `texture2D` and `sampler`. Prints `frame N checksum HEX` for
//! FRAMES (default 3) frames of SIZE x SIZE (default 64).

fn main() -> anyhow::Result<()> {
    shaderdbg_vk_test_apps::textured_with("vk_separate.frag.hlsl", true)
}
