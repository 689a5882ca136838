#version 430
// Each work group of 8 scales 8 floats of a storage buffer and writes them
// to the output. Without FIXED every work group writes the same 8 output
// elements (dst[i], not dst[global id]): two work groups write each
// element, with different values, and nothing orders them.
layout(local_size_x = 8) in;
layout(std430, binding = 0) buffer Src { float src[]; };
layout(std430, binding = 1) buffer Dst { float dst[]; };
uniform uint frame;
void main() {
    uint i = gl_LocalInvocationID.x;
    float v = src[gl_GlobalInvocationID.x] * 2.0 + float(frame);
#ifdef FIXED
    dst[gl_GlobalInvocationID.x] = v;
#else
    dst[i] = v;
#endif
}
