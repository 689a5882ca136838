#version 430 core
// Adds to a storage buffer bound as a range at binding 7, and sums into a
// second block that the application moves to the last storage binding with
// glShaderStorageBlockBinding.
layout(local_size_x = 16) in;
layout(std430, binding = 7) buffer Data { uint data[]; };
layout(std430, binding = 6) buffer Extra { uint base; uint total; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    uint add = i * 2u + 1u + base;
    data[i] += add;
    atomicAdd(total, add);
}
