#version 450
// vk_textured.frag with its inputs pushed (VK_KHR_push_descriptor), and a
// storage buffer counting the fragments shaded per row of texels.
layout(set = 0, binding = 0) uniform Frame { vec4 tint; } frame;
layout(set = 0, binding = 1) uniform sampler2D tex;
layout(set = 0, binding = 2) buffer Counts { uint rows[8]; } counts;
layout(location = 0) in vec2 uv;
layout(location = 0) out vec4 color;

void main() {
    vec2 st = uv;
    vec4 texel = texture(tex, st);
    vec4 shaded = texel * frame.tint;
    atomicAdd(counts.rows[min(uint(st.y * 8.0), 7u)], 1u);
    color = shaded;
}
