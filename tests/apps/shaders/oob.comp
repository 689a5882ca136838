#version 430
// Each invocation copies a chunk of four floats, doubled plus one; the
// loop's `<=` makes the last invocation read and write one past the ends.
layout(local_size_x = 4) in;
layout(std430, binding = 0) buffer Src { float src[]; };
layout(std430, binding = 1) buffer Dst { float dst[]; };
uniform uint frame;
const uint CHUNK = 4u;
void main() {
    uint base = gl_GlobalInvocationID.x * CHUNK;
    for (uint k = 0u; k <= CHUNK; k++) {
        float v = src[base + k];
        dst[base + k] = v * 2.0 + float(frame);
    }
}
