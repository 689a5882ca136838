//! `vk_hlsl [FRAMES] [SIZE] [plain|nonsemantic]`: `vk_triangle` with its
//! fragment shader written in HLSL (`shaders/vk_hlsl.frag.hlsl`, compiled
//! by `glslangValidator -D`), a language the debugger does not instrument:
//! with debug information its SPIR-V carries HLSL. Prints `frame N
//! checksum HEX` for FRAMES (default 3) frames of SIZE x SIZE (default 64).

fn main() -> anyhow::Result<()> {
    shaderdbg_vk_test_apps::triangle_with("vk_hlsl.frag.hlsl")
}
