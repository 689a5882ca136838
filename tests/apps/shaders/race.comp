#version 430
// A work-group reduction of 16 floats in shared memory. Without FIXED the
// barrier between one step's writes and the next step's reads is missing:
// invocation i reads tile[i + s], which invocation i + s wrote a step
// before, with no barrier between.
layout(local_size_x = 16) in;
layout(std430, binding = 0) buffer Src { float src[]; };
layout(std430, binding = 1) buffer Dst { float dst[]; };
uniform uint frame;
shared float tile[16];
void main() {
    uint i = gl_LocalInvocationID.x;
    tile[i] = src[gl_GlobalInvocationID.x] + float(frame);
    memoryBarrierShared();
    barrier();
    for (uint s = 8u; s > 0u; s >>= 1u) {
        if (i < s) {
            float other = tile[i + s];
            tile[i] = tile[i] + other;
        }
#ifdef FIXED
        memoryBarrierShared();
        barrier();
#endif
    }
    if (i == 0u) dst[gl_WorkGroupID.x] = tile[0];
}
