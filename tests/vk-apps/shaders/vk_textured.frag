#version 450
// The quad's texture (nearest texel), tinted by a colour that changes
// every frame (a uniform buffer the program writes before each submit).
layout(set = 0, binding = 0) uniform Frame {
    vec4 tint;
} frame;
layout(set = 0, binding = 1) uniform sampler2D tex;
layout(location = 0) in vec2 uv;
layout(location = 0) out vec4 color;

void main() {
    vec2 st = uv;
    vec4 texel = texture(tex, st);
    vec4 shaded = texel * frame.tint;
    color = shaded;
}
