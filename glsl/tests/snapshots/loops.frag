#version 330 core
out vec4 color;
uniform float scale;

float twice(float v, out float sq) {
    sq = v * v;
    return 2.0 * v;
}

void main() {
    float acc = 0.0;
    float sq;
    for (int i = 0; i < 4; i++) {
        if (i == 2) continue;
        acc += twice(float(i), sq) * scale;
    }
    vec3 v = vec3(acc);
    v.y = acc > 1.0 ? sq : -sq;
    color = vec4(v, 1.0);
}
