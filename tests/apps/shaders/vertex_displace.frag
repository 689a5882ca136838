#version 330 core
// Colours by the vertex shader's varying.
in vec3 shade;
out vec4 color;

void main() {
    color = vec4(shade, 1.0);
}
