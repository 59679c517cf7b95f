#!/usr/bin/env bash
# The Debian package: builds it with CPack from the build tree into a temporary
# directory (as deploy/package.sh does into out/), checks its contents and
# Depends, runs lintian (no errors), then unpacks it into a temporary root and runs
# the packaged hopmap and hopmapd from there (hopmapd on loopback, stopped by pid).
#
# Usage: package_test.sh REPO BUILD_DIR
set -euo pipefail
repo=$1
build=$2
for tool in cpack dpkg-deb lintian curl jq; do
  command -v "$tool" >/dev/null || { echo "FAIL: $tool is not installed (bash deploy/install-deps.sh)"; exit 1; }
done
work=$(mktemp -d "${TMPDIR:-/tmp}/package_test.XXXXXX")
daemon_pid=""
cleanup() {
  [[ -n $daemon_pid ]] && kill "$daemon_pid" 2>/dev/null && wait "$daemon_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
fail() {
  echo "FAIL: $*"
  exit 1
}

(cd "$build" && cpack -G DEB -B "$work/out" >"$work/cpack.log" 2>&1) ||
  { cat "$work/cpack.log"; fail "cpack failed"; }
version=$(sed -n 's/^project(hopmap VERSION \([0-9.]*\).*/\1/p' "$repo/CMakeLists.txt")
deb=$work/out/hopmap_${version}_amd64.deb
[[ -f $deb ]] || fail "no $deb (cpack wrote: $(ls "$work/out"))"

# What it holds.
dpkg-deb -c "$deb" | awk '{print $6}' | sed 's#^\./#/#' >"$work/contents"
for path in /usr/bin/hopmap /usr/bin/hopmapd /usr/bin/hopmap-srun \
  /usr/libexec/hopmap/hopmap-prolog /usr/libexec/hopmap/hopmap-epilog \
  /usr/libexec/hopmap/hopmap-simgrid /usr/lib/hopmap/libhopmap_smpi_platform.so \
  /usr/include/hopmap.h /usr/lib/pkgconfig/hopmap.pc /usr/lib/libhopmap.so.0 \
  /usr/lib/libhopmap_mpi.so.0 /usr/lib/libhopmap_mpi_mpich.so.0 \
  /usr/lib/systemd/system/hopmapd.service /etc/hopmap/machines.json \
  /usr/share/doc/hopmap/copyright /usr/share/doc/hopmap/changelog.gz \
  /usr/share/doc/hopmap/operations.md /usr/share/doc/hopmap/README.md; do
  grep -qx -- "$path" "$work/contents" || grep -qx -- "$path -> .*" "$work/contents" ||
    { grep -q -- "^$path" "$work/contents" || fail "$path is not in the package"; }
done
grep -q '^/work\|^/tmp' "$work/contents" && fail "a build path is in the package"
depends=$(dpkg-deb -f "$deb" Depends)
for dependency in libc6 libgrpc++ libprotobuf libtbb adduser libprometheus-cpp-pull libsimgrid; do
  [[ $depends == *"$dependency"* ]] || fail "Depends lacks $dependency: $depends"
done
# (Outputs are captured before they are matched: grep -q stops reading early, and
# the writer's broken pipe would fail a pipeline under pipefail.)
control=$(dpkg-deb --ctrl-tarfile "$deb" | tar -t)
grep -qx '\./postinst' <<<"$control" || fail "no postinst"
grep -qx '/etc/hopmap/machines.json' <<<"$(dpkg-deb -I "$deb" conffiles)" || fail "conffiles"
unit=$(dpkg-deb --fsys-tarfile "$deb" | tar -xO ./usr/lib/systemd/system/hopmapd.service)
[[ $unit == *"ExecStart=/usr/bin/hopmapd"* && $unit == *"User=hopmap"* ]] ||
  fail "the unit does not run /usr/bin/hopmapd as hopmap"

# lintian: errors fail the test; the rest is printed.
lintian --fail-on error "$deb" >"$work/lintian.log" 2>&1 || { cat "$work/lintian.log"; fail "lintian found errors"; }
cat "$work/lintian.log"

# The packaged programs, unpacked into a temporary root.
root=$work/root
dpkg-deb -x "$deb" "$root"
[[ $("$root/usr/bin/hopmap" --version) == "hopmap $version" ]] || fail "hopmap --version"
algorithms=$("$root/usr/bin/hopmap" algorithms --local --format json)
jq -e '.algorithms | length > 20' <<<"$algorithms" >/dev/null || fail "hopmap algorithms"
"$root/usr/bin/hopmap" gen stencil2d-5 --dims 8x8 --wrap -o "$work/g.edgelist"
"$root/usr/bin/hopmap" map --local --machine torus:4x4x4 --graph "$work/g.edgelist" \
  --algorithm fold -q -o "$work/local.json" || fail "hopmap map --local"
# hopmap simulate finds the packaged SimGrid worker beside it (../libexec/hopmap).
simulated=$("$root/usr/bin/hopmap" simulate --local --machine torus:4x4x4 \
  --graph "$work/g.edgelist" --mapping "$work/local.json" --format json) ||
  fail "hopmap simulate --local"
jq -e '.simulations | length == 2 and .[1].time_s > 0' <<<"$simulated" >/dev/null ||
  fail "hopmap simulate gave no times: $simulated"
"$root/usr/bin/hopmapd" --listen 127.0.0.1:0 --metrics-listen 127.0.0.1:0 --threads 1 \
  --config "$root/etc/hopmap/machines.json" >"$work/d.out" 2>"$work/d.log" &
daemon_pid=$!
address=""
for _ in $(seq 100); do
  address=$(sed -n 's/^hopmapd: listening on //p' "$work/d.out")
  metrics=$(sed -n 's#^hopmapd: metrics on \(.*\)$#\1#p' "$work/d.out")
  [[ -n $address && -n $metrics ]] && break
  kill -0 "$daemon_pid" 2>/dev/null || { cat "$work/d.log"; fail "the packaged hopmapd exited"; }
  sleep 0.1
done
[[ -n $address ]] || fail "the packaged hopmapd did not listen"
"$root/usr/bin/hopmap" map --server "$address" --machine torus:4x4x4 --graph "$work/g.edgelist" \
  --algorithm fold -q -o "$work/remote.json" || fail "hopmap map --server"
[[ $(jq .hop_bytes "$work/local.json") == $(jq .hop_bytes "$work/remote.json") ]] ||
  fail "the daemon's answer differs from the local one"
curl -sf "$metrics" >"$work/metrics.txt" || fail "the packaged hopmapd serves no metrics"
grep -q '^hopmap_rpcs_total{code="OK",method="Map"} 1$' "$work/metrics.txt" ||
  fail "the packaged hopmapd's metrics do not count the Map"
# pkg-config finds the C API where the package put it (the .pc file is relocatable):
# a C program built with its flags links the packaged libhopmap and runs.
flags=$(PKG_CONFIG_PATH=$root/usr/lib/pkgconfig pkg-config --cflags --libs hopmap)
cat >"$work/c_api.c" <<'C'
#include <hopmap.h>
#include <stdio.h>
int main(void) {
  printf("%s\n", hopmap_status_name(HOPMAP_OK));
  return 0;
}
C
# shellcheck disable=SC2086  # the flags are words
cc "$work/c_api.c" -o "$work/c_api" $flags || fail "a C program does not build with: $flags"
[[ $(LD_LIBRARY_PATH=$root/usr/lib "$work/c_api") == OK ]] || fail "the C program did not run"
echo "PASS: $(basename "$deb"), $(wc -l <"$work/contents") entries, Depends: $depends"
