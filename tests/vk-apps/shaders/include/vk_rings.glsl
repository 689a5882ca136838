// The rings of vk_include.frag, in a file of their own.
float rings(vec2 p, float t) {
    float d = length(p - vec2(1.0));
    float ring = fract(d * 2.0 - t);
    return ring;
}
