#!/usr/bin/env bash
# Installs the built Loom into a temporary prefix, checks that its shared library exports only
# the public API, then builds a user's project against it: with CMake's find_package(Loom), and
# with pkg-config, shared and static.
# usage: install_check.sh BUILD_DIR SOURCE_DIR [SANITIZE]  (ON: Loom was built with ASan/UBSan,
# TSAN: with ThreadSanitizer, so the user's program links their runtimes too)
set -euo pipefail
build=$1 src=$2 sanitize=${3:-OFF}
san=""
if [ "$sanitize" = ON ]; then san="-fsanitize=address,undefined"; fi
if [ "$sanitize" = TSAN ]; then san="-fsanitize=thread"; fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
cmake -S "$src/tests/install_project" -B "$tmp/user" -DCMAKE_PREFIX_PATH="$tmp/prefix" \
    -DCUDAToolkit_ROOT="${CUDAToolkit_ROOT:-/usr/local/cuda}" -DCMAKE_C_FLAGS="$san" \
    -DCMAKE_EXE_LINKER_FLAGS="$san" >/dev/null
cmake --build "$tmp/user" >/dev/null
"$tmp/user/loom_user"
lib=$(ls -d "$tmp"/prefix/lib* | head -1)
# The shared library exports the public API only (cmake/loom.map).
if command -v nm >/dev/null; then
    internal=$(nm -D --defined-only "$lib"/libloom.so | awk '{print $3}' | grep -v '^loom_[^_]' || true)
    if [ -n "$internal" ]; then
        echo "libloom.so exports names outside the public API:"; echo "$internal" | head; exit 1
    fi
fi
if command -v pkg-config >/dev/null; then
    cudalib=$(dirname "$(find "${CUDAToolkit_ROOT:-/usr/local/cuda}/" -name 'libcudart.so' | head -1)")
    flags=$(PKG_CONFIG_PATH="$lib/pkgconfig" pkg-config --cflags --libs loom)
    # shellcheck disable=SC2086
    cc $san -o "$tmp/loom_user_pc" "$src/tests/install_project/main.c" $flags -L"$cudalib" \
        -Wl,-rpath,"$lib" -Wl,-rpath,"$cudalib"
    "$tmp/loom_user_pc" | sed 's/^/pkg-config: /'
    # A static link takes the CUDA library directory from loom.pc itself (the rpath is only
    # for running it here).
    static=$(PKG_CONFIG_PATH="$lib/pkgconfig" pkg-config --static --libs-only-other --libs-only-L loom)
    libs=$(PKG_CONFIG_PATH="$lib/pkgconfig" pkg-config --static --libs-only-l loom | sed 's/-lloom//')
    # shellcheck disable=SC2086
    cc $san -o "$tmp/loom_user_static" "$src/tests/install_project/main.c" \
        $(PKG_CONFIG_PATH="$lib/pkgconfig" pkg-config --cflags loom) "$lib/libloom.a" $static $libs \
        -Wl,-rpath,"$cudalib"
    "$tmp/loom_user_static" | sed 's/^/pkg-config --static: /'
fi
