#version 430
// Advances a grid of counters every frame. Not idempotent: a second run of
// the same dispatch would show in the counters.
layout(local_size_x = 8, local_size_y = 4) in;
layout(std430, binding = 3) buffer Cells { uint cells[]; };
uniform uint frame;
uniform uint width;

void main() {
    uvec2 id = gl_GlobalInvocationID.xy;
    uint i = id.y * width + id.x;
    uint old = cells[i];
    uint next = old * 3u + (id.x ^ id.y) + frame;
    cells[i] = next;
}
