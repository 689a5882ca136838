#version 450
// Fills a storage buffer with a hash of each invocation's index and the
// frame (a push constant).
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Data {
    uint values[];
} data;
layout(push_constant) uniform Push {
    uint frame;
} push;

void main() {
    uint i = gl_GlobalInvocationID.x;
    uint v = i * 2654435761u + push.frame;
    data.values[i] = v ^ (v >> 15);
}
