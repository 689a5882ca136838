#!/bin/sh
# Fetches glslang's test corpus (its Test/ directory, at the pinned commit the
# figures in glslang-figures.txt were taken on) outside the repository.
#
#   glsl/tests/corpus/fetch-glslang.sh [DIR]
#
# DIR defaults to $SHADERDBG_GLSLANG, else ${XDG_CACHE_HOME:-$HOME/.cache}/shaderdbg/glslang
# (where the example and the snapshot test look). GLSLANG_URL may name a
# mirror (a URL or a local git directory).
set -eu
COMMIT=90afccfbd49dff0349d86a41762e9de24e1df811 # keep equal to GLSLANG_COMMIT in measure.rs
URL=${GLSLANG_URL:-https://github.com/KhronosGroup/glslang}
DIR=${1:-${SHADERDBG_GLSLANG:-${XDG_CACHE_HOME:-$HOME/.cache}/shaderdbg/glslang}}

if [ ! -d "$DIR/.git" ]; then
    mkdir -p "$DIR"
    git -C "$DIR" init -q
    git -C "$DIR" remote add origin "$URL"
    git -C "$DIR" config core.sparseCheckout true
    echo "/Test/" > "$DIR/.git/info/sparse-checkout"
fi
git -C "$DIR" fetch -q --depth 1 --filter=blob:none origin "$COMMIT" 2>/dev/null ||
    git -C "$DIR" fetch -q --depth 1 origin "$COMMIT"
git -C "$DIR" checkout -q --force "$COMMIT"
echo "glslang $COMMIT: $DIR/Test"
