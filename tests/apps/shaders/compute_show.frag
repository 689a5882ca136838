#version 430
// Shows the counters (4x4 pixels per cell) and counts fragments by counter
// value modulo 4: this fragment shader writes a storage buffer too.
layout(std430, binding = 3) readonly buffer Cells { uint cells[]; };
layout(std430, binding = 5) buffer Histogram { uint counts[4]; };
uniform uint width;
out vec4 color;

void main() {
    uvec2 cell = uvec2(gl_FragCoord.xy) / 4u;
    uint v = cells[cell.y * width + cell.x];
    atomicAdd(counts[v & 3u], 1u);
    color = vec4(float(v & 255u) / 255.0, float((v >> 8) & 255u) / 255.0, float(cell.x) / 16.0, 1.0);
}
