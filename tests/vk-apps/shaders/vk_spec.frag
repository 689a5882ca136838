#version 450
// Bands whose slope and count are specialization constants: the program
// sets them to other values than these defaults.
layout(constant_id = 0) const float GAIN = 1.0;
layout(constant_id = 1) const int BANDS = 2;
layout(push_constant) uniform Frame {
    float t;
} frame;
layout(location = 0) out vec4 color;

void main() {
    float gain = GAIN;
    int bands = BANDS;
    vec2 p = gl_FragCoord.xy / 64.0;
    float wave = fract(p.x * gain + frame.t);
    int band = int(p.y * float(bands));
    float level = wave * float(band + 1) / float(bands);
    color = vec4(level, wave, float(band) / float(bands), 1.0);
}
