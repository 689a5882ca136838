// The README's `other.vert` (`shaderdbg glsl check shader.frag other.vert`).
#version 330 core
layout(location = 0) in vec2 pos;
out vec2 uv;
void main() {
    uv = pos * 0.5 + 0.5;
    gl_Position = vec4(pos, 0.0, 1.0);
}
