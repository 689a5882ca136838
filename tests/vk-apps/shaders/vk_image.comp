#version 450
// Updates a storage image in place: each texel becomes three times what
// it held plus its position and the frame (a push constant), so running
// the dispatch twice gives another image than running it once.
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0, r32ui) uniform uimage2D img;
layout(push_constant) uniform Push {
    uint frame;
} push;

void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    uint old = push.frame == 0u ? 0u : imageLoad(img, p).x;
    uint v = old * 3u + uint(p.x + p.y * 16) + push.frame;
    imageStore(img, p, uvec4(v));
}
