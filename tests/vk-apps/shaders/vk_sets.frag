#version 450
// One input per descriptor set: set 0 a uniform buffer, set 1 a storage
// buffer (a palette), set 2 a texture, read per 8x8 cell of the target.
layout(set = 0, binding = 0) uniform Params {
    vec4 scale;
    int frame;
} params;
layout(set = 1, binding = 0) readonly buffer Palette {
    vec4 colors[];
} palette;
layout(set = 2, binding = 0) uniform sampler2D tex;
layout(location = 0) out vec4 color;

void main() {
    ivec2 cell = ivec2(gl_FragCoord.xy) / 8;
    vec4 base = palette.colors[(cell.x + cell.y + params.frame) % 4];
    vec4 texel = texelFetch(tex, cell % 8, 0);
    vec4 mixed = base * params.scale + texel;
    color = fract(mixed);
}
