#version 430
// Every fragment of a 16x16 full-screen draw counts itself in a storage
// buffer (binding 1), keeps the last pixel that ran, and marks its pixel.
// Without FIXED the count is a plain `+= 1u` and the last pixel a plain
// write (fragments race on both words) and the mark lands one element
// further (the last pixel's is one past the end of `seen`). With FIXED
// the first two are atomics and each mark is at its pixel. The image is
// white either way.
layout(std430, binding = 1) buffer Hits { uint count; uint last; uint seen[]; };
out vec4 color;
void main() {
    uint k = uint(gl_FragCoord.y) * 16u + uint(gl_FragCoord.x);
#ifdef FIXED
    atomicAdd(count, 1u);
    atomicMax(last, k);
    seen[k] = 1u;
#else
    count += 1u;
    last = k;
    seen[k + 1u] = 1u;
#endif
    color = vec4(1.0);
}
