#version 450
// A quad over the middle half of the target: two triangles from the vertex
// index alone, with texture coordinates 0..1 across it (0 at the top left).
layout(location = 0) out vec2 uv;

const vec2 corners[6] = vec2[6](
    vec2(0.0, 0.0), vec2(1.0, 0.0), vec2(0.0, 1.0),
    vec2(0.0, 1.0), vec2(1.0, 0.0), vec2(1.0, 1.0));

void main() {
    uv = corners[gl_VertexIndex];
    gl_Position = vec4(uv - 0.5, 0.0, 1.0);
}
