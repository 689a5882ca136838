//! `vk_textured [FRAMES] [SIZE] [plain|nonsemantic]`: a textured quad over
//! the middle half of a SIZE x SIZE (default 64) image, offscreen
//! (`shaders/vk_textured.{vert,frag}`): an 8x8 RGBA8 texture
//! (`shaderdbg_vk_test_apps::texture_rgba`, uploaded through a staging buffer in a submission of
//! its own before the first frame) sampled at the nearest texel, tinted by
//! a uniform buffer (`tint = (1, 0.5 + 0.25 frame, 0.25, 1)`, written
//! before each submit). The command buffer is recorded once and submitted
//! every frame. Prints `frame N checksum HEX` for FRAMES (default 3) frames.

fn main() -> anyhow::Result<()> {
    shaderdbg_vk_test_apps::textured_with("vk_textured.frag", false)
}
