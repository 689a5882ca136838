#version 430
// Writes an image (the agent saves and restores it around debug dispatches).
layout(local_size_x = 8, local_size_y = 8) in;
layout(rgba8, binding = 0) writeonly uniform image2D img;
uniform uint frame;

void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    vec4 c = vec4(vec2(p) / 16.0, float(frame) * 0.25, 1.0);
    imageStore(img, p, c);
}
