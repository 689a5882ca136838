#version 330 core
// A grid displaced by a function of the vertex index and a uniform.
layout(location = 0) in vec2 pos;
uniform float amp;
uniform int frame;
out vec3 shade;

void main() {
    int k = (gl_VertexID * 7 + frame * 3) % 11;
    float h = amp * float(k) * 0.125;
    vec2 p = pos + vec2(h * 0.25, -h * 0.125);
    shade = vec3(h * 0.5, float(gl_VertexID % 9) * 0.125, pos.y * 0.5 + 0.5);
    gl_Position = vec4(p * 0.75, h * 0.5 - 0.25, 1.0);
}
