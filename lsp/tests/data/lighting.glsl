// Lighting helpers, included after the uniforms they use.
float shade(Light l, vec3 p) {
    return gain * l.radius / max(length(l.pos - p), 0.001);
}
