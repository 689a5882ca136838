#version 430 core
// Reads a uniform block (binding 2) and a texture (unit 3).
layout(std140, binding = 2) uniform Params { vec4 tint; };
uniform sampler2D tex;
out vec4 color;

void main() {
    vec2 p = gl_FragCoord.xy / 64.0;
    vec4 s = texture(tex, p);
    color = vec4(p, s.r, 1.0) * tint;
}
