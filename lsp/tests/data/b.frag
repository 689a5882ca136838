#version 330 core
#extension GL_GOOGLE_include_directive : require
struct Light { vec3 pos; float radius; };
uniform float gain;
uniform Light light;
#include "common.glsl"
out vec4 color;
void main() { color = vec4(gain + shade(light, vec3(1.0))); }
