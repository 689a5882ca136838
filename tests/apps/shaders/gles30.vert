#version 300 es
// GLSL ES 3.00 in an OpenGL ES 3.0 context.
layout(location = 0) in vec2 pos;
uniform float zoom;
out vec2 uv;

void main() {
    vec2 z = pos * zoom;
    uv = z;
    gl_Position = vec4(pos, 0.0, 1.0);
}
