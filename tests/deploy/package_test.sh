#!/usr/bin/env bash
# The Debian packages: builds them with CPack from the build tree into a temporary
# directory (as deploy/package.sh does into out/), checks which file is in which
# (hopmap: programs, runtime libraries, unit, docs; libhopmap-dev: header, .so links,
# pkg-config file), their copyright files (DEP-5, Apache-2.0), Depends and Section,
# runs lintian on each (no errors), then unpacks both into a temporary root and runs
# the packaged hopmap and hopmapd from there (hopmapd on loopback, stopped by pid),
# and builds a C program with libhopmap-dev's pkg-config file.
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
dev=$work/out/libhopmap-dev_${version}_amd64.deb
for package in "$deb" "$dev"; do
  [[ -f $package ]] || fail "no $package (cpack wrote: $(ls "$work/out"))"
done
[[ $(find "$work/out" -maxdepth 1 -name '*.deb' | wc -l) == 2 ]] ||
  fail "cpack wrote other packages: $(ls "$work/out")"

# What each holds: the files (symbolic links as PATH -> TARGET), directories left out.
list() { dpkg-deb -c "$1" | awk '$1 !~ /^d/ {$1 = $2 = $3 = $4 = $5 = ""; print}' |
  sed 's#^ *\./#/#'; }
list "$deb" >"$work/contents"
list "$dev" >"$work/dev-contents"
has() { grep -qx -- "$2" "$1" || grep -qx -- "$2 -> .*" "$1"; }
for path in /usr/bin/hopmap /usr/bin/hopmapd /usr/bin/hopmap-srun /usr/bin/hopmap-bind \
  /usr/libexec/hopmap/hopmap-prolog /usr/libexec/hopmap/hopmap-epilog \
  /usr/libexec/hopmap/hopmap-simgrid /usr/lib/hopmap/libhopmap_smpi_platform.so \
  /usr/lib/hopmap/hopmap_smpi_compute.o \
  /usr/lib/libhopmap.so.0 /usr/lib/libhopmap_mpi.so.0 /usr/lib/libhopmap_mpi_mpich.so.0 \
  /usr/lib/systemd/system/hopmapd.service /etc/hopmap/machines.json \
  /usr/share/doc/hopmap/copyright /usr/share/doc/hopmap/changelog.gz \
  /usr/share/doc/hopmap/operations.md /usr/share/doc/hopmap/README.md; do
  has "$work/contents" "$path" || fail "$path is not in hopmap"
done
# libhopmap-dev holds these and nothing else; hopmap none of them.
dev_paths=(/usr/include/hopmap.h /usr/lib/pkgconfig/hopmap.pc /usr/lib/libhopmap.so
  /usr/lib/libhopmap_mpi.so /usr/lib/libhopmap_mpi_mpich.so
  /usr/share/doc/libhopmap-dev/copyright /usr/share/doc/libhopmap-dev/changelog.gz)
for path in "${dev_paths[@]}"; do
  has "$work/dev-contents" "$path" || fail "$path is not in libhopmap-dev"
done
while read -r path; do
  [[ " ${dev_paths[*]} " == *" ${path%% -> *} "* ]] || fail "libhopmap-dev holds $path"
done <"$work/dev-contents"
for path in "${dev_paths[@]:0:5}"; do
  has "$work/contents" "$path" && fail "$path is in hopmap (libhopmap-dev's)"
done
# The .so links point at the runtime libraries hopmap holds.
for library in libhopmap libhopmap_mpi libhopmap_mpi_mpich; do
  has "$work/dev-contents" "/usr/lib/$library.so -> $library.so.0" ||
    fail "/usr/lib/$library.so is not a link to $library.so.0: $(grep "$library.so" "$work/dev-contents")"
done
grep -q '^/work\|^/tmp' "$work/contents" "$work/dev-contents" && fail "a build path is in a package"

# The copyright files: the same DEP-5 file in both, hopmap's own files under Apache-2.0.
for package in "$deb" "$dev"; do
  name=$(dpkg-deb -f "$package" Package)
  copyright=$(dpkg-deb --fsys-tarfile "$package" | tar -xO "./usr/share/doc/$name/copyright")
  [[ $copyright == "$(cat "$repo/deploy/debian/copyright")" ]] ||
    fail "$name's copyright is not deploy/debian/copyright"
done
[[ $copyright == "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/"* ]] ||
  fail "the copyright file is not DEP-5"
files=$(awk -v RS= '/^Files: \*\n/' <<<"$copyright")
[[ $files == *$'\nCopyright: '*'hopmap developers'$'\nLicense: Apache-2.0' ]] ||
  fail "the copyright file does not put hopmap's files under Apache-2.0: $files"
grep -q 'common-licenses/Apache-2.0' <<<"$copyright" || fail "the copyright file names no licence text"
cmp -s "$repo/LICENSE" /usr/share/common-licenses/Apache-2.0 ||
  fail "LICENSE is not the Apache License 2.0 (/usr/share/common-licenses/Apache-2.0)"

# The control fields.
depends=$(dpkg-deb -f "$deb" Depends)
for dependency in libc6 libgrpc++ libprotobuf libtbb adduser libprometheus-cpp-pull libsimgrid; do
  [[ $depends == *"$dependency"* ]] || fail "Depends lacks $dependency: $depends"
done
dev_depends=$(dpkg-deb -f "$dev" Depends)
[[ $dev_depends == "hopmap (= $version)" ]] || fail "libhopmap-dev Depends: $dev_depends"
[[ $(dpkg-deb -f "$deb" Section) == science && $(dpkg-deb -f "$dev" Section) == libdevel ]] ||
  fail "Section: $(dpkg-deb -f "$deb" Section), $(dpkg-deb -f "$dev" Section)"
# (Outputs are captured before they are matched: grep -q stops reading early, and
# the writer's broken pipe would fail a pipeline under pipefail.)
control=$(dpkg-deb --ctrl-tarfile "$deb" | tar -t)
grep -qx '\./postinst' <<<"$control" || fail "no postinst"
grep -qx '/etc/hopmap/machines.json' <<<"$(dpkg-deb -I "$deb" conffiles)" || fail "conffiles"
grep -q '^libhopmap 0 hopmap (>= '"$version"')$' <<<"$(dpkg-deb -I "$deb" shlibs)" ||
  fail "hopmap's shlibs: $(dpkg-deb -I "$deb" shlibs)"
dev_control=$(dpkg-deb --ctrl-tarfile "$dev" | tar -t)
grep -q 'inst\|rm\|triggers\|conffiles\|shlibs' <<<"$dev_control" &&
  fail "libhopmap-dev has maintainer scripts or shlibs: $dev_control"
unit=$(dpkg-deb --fsys-tarfile "$deb" | tar -xO ./usr/lib/systemd/system/hopmapd.service)
[[ $unit == *"ExecStart=/usr/bin/hopmapd"* && $unit == *"User=hopmap"* ]] ||
  fail "the unit does not run /usr/bin/hopmapd as hopmap"

# lintian: errors fail the test; the rest is printed.
for package in "$deb" "$dev"; do
  lintian --fail-on error "$package" >"$work/lintian.log" 2>&1 ||
    { cat "$work/lintian.log"; fail "lintian found errors in $(basename "$package")"; }
  cat "$work/lintian.log"
done

# The packaged programs, both packages unpacked into a temporary root.
root=$work/root
dpkg-deb -x "$deb" "$root"
dpkg-deb -x "$dev" "$root"
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
# The files exist before the loop reads them: the background shell opens them later,
# and sed on a missing file would end the script (set -e).
: >"$work/d.out"
: >"$work/d.log"
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
# pkg-config finds the C API where libhopmap-dev put it (the .pc file is relocatable):
# a C program built with its flags compiles against hopmap.h, links through the
# libhopmap.so link to hopmap's libhopmap.so.0, and runs.
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
needed=$(readelf -d "$work/c_api")
grep -q 'NEEDED.*\[libhopmap\.so\.0\]' <<<"$needed" || fail "the C program does not need libhopmap.so.0"
echo "PASS: $(basename "$deb"), $(wc -l <"$work/contents") files, Depends: $depends"
echo "PASS: $(basename "$dev"), $(wc -l <"$work/dev-contents") files, Depends: $dev_depends"
