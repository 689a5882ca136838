#version 330 core
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

struct Light {
    vec3 pos;
    float radius;
};

uniform Light lights[2];
uniform sampler2D tex;
in vec2 uv;
out vec4 color;

float falloff(float d, float r) {
    return clamp(1.0 - d / r, 0.0, 1.0);
}

void main() {
    vec3 acc = vec3(0.0);
    for (int i = 0; i < 2; i++) {
        float d = length(lights[i].pos.xy - uv);
        acc += vec3(falloff(d, lights[i].radius));
    }
    float l = luminance(acc);
    float fx = gl_FragCoord.x;
    color = vec4(acc * l, fx) * texture(tex, uv);
}
