//! `vk_es [FRAMES] [SIZE] [source|nonsemantic|plain]`: `vk_triangle` with
//! its fragment shader in GLSL ES 3.10 (`shaders/vk_es.frag`: medium
//! precision, a loop with `[[unroll]]`). Prints `frame N checksum HEX` for
//! FRAMES (default 3) frames of SIZE x SIZE (default 64).

fn main() -> anyhow::Result<()> {
    shaderdbg_vk_test_apps::triangle_with("vk_es.frag")
}
