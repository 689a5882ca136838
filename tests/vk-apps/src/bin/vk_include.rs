//! `vk_include [FRAMES] [SIZE] [plain|nonsemantic]`: `vk_triangle` with a
//! fragment shader that `#include`s its rings
//! (`shaders/vk_include.frag` and `shaders/include/vk_rings.glsl`; with
//! `-g` the SPIR-V records both files, one `OpSource` each, with `-gVS` one
//! `DebugSource` each). Prints `frame N checksum HEX` for FRAMES (default
//! 3) frames of SIZE x SIZE (default 64), the same as `vk_triangle`'s.

fn main() -> anyhow::Result<()> {
    shaderdbg_vk_test_apps::triangle_with("vk_include.frag")
}
