#!/usr/bin/env bash
# `cmake --install` into a temporary prefix, then builds c_api_test.c against the
# installed libhopmap with the flags pkg-config gives (as a runtime's build would)
# and runs it. Usage: installed_test.sh BUILD_DIR C_SOURCE HOPMAPD
set -euo pipefail
build=$1 source=$2 hopmapd=$3
prefix=$(mktemp -d "${TMPDIR:-/tmp}/hopmap_install.XXXXXX")
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
pc=$(dirname "$(find "$prefix" -name hopmap.pc | head -1)")
[[ -f $pc/hopmap.pc ]] || { echo "no hopmap.pc under $prefix" >&2; exit 1; }
[[ -f $prefix/include/hopmap.h ]] || { echo "no include/hopmap.h under $prefix" >&2; exit 1; }
flags=$(PKG_CONFIG_PATH=$pc pkg-config --cflags --libs hopmap)
cc -std=c11 -Wall -Wextra -Werror -o "$prefix/c_api_test" "$source" $flags \
  "-DHOPMAPD=\"$hopmapd\""
libdir=$(PKG_CONFIG_PATH=$pc pkg-config --variable=libdir hopmap)
# Only the C API is exported.
exported=$(nm -D --defined-only "$libdir/libhopmap.so" | awk '$2 == "T" {print $3}' | grep -v '^hopmap_' || true)
if [[ -n $exported ]]; then
  echo "libhopmap.so exports more than hopmap_*: $(echo "$exported" | head -5)" >&2
  exit 1
fi
LD_LIBRARY_PATH=$libdir "$prefix/c_api_test"
