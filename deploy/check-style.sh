#!/usr/bin/env bash
# The gates deploy/test.sh (and so CI) runs before it builds:
#  - clang-format (Google style, .clang-format) on every C, C++ and Charm++ source of
#    the project (not data/ or third_party/): a file that is not formatted fails;
#  - the layering of the core (docs/architecture.md draws it): the core never
#    includes the service, the clients, the protocol, the simulator or gRPC (server/,
#    client/, proto/, sim/, hopmap/v1/, grpc, simgrid); each stage includes only the
#    stages beneath it (core/simulate: graph, topology and metrics):
#      graph, topology, analysis, metrics  <  search  <  bisection  <  mappers
#      <  balance  <  solve, with io (the readers and writers) beside them over
#      graph, topology, analysis and metrics only; metrics never includes analysis
#      (a caller that knows the graph's pattern passes what the metrics need);
#    METIS's header is included by its adapter (core/bisection/metis_adapter.cc) only;
#    inside core/mappers, the interface (mapper.h) includes no room, the rooms
#    (baseline, grid, construct, local_search) none above them (local_search may use
#    construct), and only portfolio/ (auto and the registry) sees them all; the
#    balancers use the interface and the registry, never a room;
#  - no function over 150 lines in core/, server/ or client/ (tests and generated code
#    aside): a function says one thing, a long one is split into named steps. Universal
#    Ctags (deploy/install-deps.sh) finds each function's first and last line.
# Warnings are errors in deploy/build.sh's build (-DHOPMAP_WERROR=ON).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
status=0

# The project's files: git's list in a clone, else every file under the tree (a
# source tarball) but the build trees and vendored folders.
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t sources < <(git ls-files '*.cc' '*.h' '*.c' '*.C' | grep -v '^data/\|^third_party/')
  search() { git grep -n -E "$@" || true; }
else
  mapfile -t sources < <(find . \( -path ./data -o -path ./third_party -o -path './build*' \
    -o -path ./out -o -path ./deploy/k8s/validate/node_modules \) -prune -o \
    -type f \( -name '*.cc' -o -name '*.h' -o -name '*.c' -o -name '*.C' \) -print |
    sed 's#^\./##' | sort)
  search() {
    local pattern=$1
    shift 2  # the "--"
    grep -rn -E "$pattern" "$@" || true
  }
fi
if ! clang-format --dry-run --Werror "${sources[@]}" 2>"${TMPDIR:-/tmp}/check-style.$$"; then
  grep -o '^[^: ]*:[0-9]*:[0-9]*: error' "${TMPDIR:-/tmp}/check-style.$$" | cut -d: -f1 |
    sort -u | sed 's/^/  not formatted: /' >&2
  echo "check-style: run clang-format -i on the files above" >&2
  status=1
fi
rm -f "${TMPDIR:-/tmp}/check-style.$$"

# Lines of `files` (a git pathspec) that include a header matching `pattern`.
forbidden() {
  local what=$1 pattern=$2
  shift 2
  local found
  found=$(search "^#include [\"<]($pattern)" -- "$@")
  if [[ -n $found ]]; then
    echo "check-style: $what:" >&2
    sed 's/^/  /' <<<"$found" >&2
    status=1
  fi
}
forbidden "the core includes the service, a client, the protocol, the simulator or gRPC" \
  'server/|client/|proto/|sim/|hopmap/v1/|hopmap/sim/|grpc|simgrid' 'core/'
above='core/(search|bisection|mappers|balance|solve|simulate|io)/'
forbidden "a stage below the search machinery includes one above it" "$above" \
  'core/graph/' 'core/topology/' 'core/metrics/' 'core/analysis/' 'core/types.h'
forbidden "core/metrics includes core/analysis (callers pass what the pattern says)" \
  'core/analysis/' 'core/metrics/'
metis=$(search '^#include ["<]metis\.h' -- core/ server/ client/ proto/ sim/ bench/ tests/ |
  grep -v '^core/bisection/metis_adapter\.cc:' || true)
if [[ -n $metis ]]; then
  echo "check-style: metis.h is included outside the METIS adapter (core/bisection/metis_adapter.cc):" >&2
  sed 's/^/  /' <<<"$metis" >&2
  status=1
fi
forbidden "core/simulate includes a stage other than graph, topology and metrics" \
  'core/(analysis|search|bisection|mappers|balance|solve|io)/' 'core/simulate/'
forbidden "core/search includes a stage above it" 'core/(bisection|mappers|balance|solve|io)/' \
  'core/search/'
forbidden "core/bisection includes a stage above it" 'core/(mappers|balance|solve|io)/' \
  'core/bisection/'
forbidden "the mappers include load balancing, the request layer or io" \
  'core/(balance|solve|io)/' 'core/mappers/'
forbidden "load balancing includes the request layer, io, or a mapper's room" \
  'core/(solve|io)/|core/mappers/(baseline|grid|construct|local_search)/' 'core/balance/'
forbidden "core/io includes a solver stage" 'core/(search|bisection|mappers|balance|solve)/' \
  'core/io/'
forbidden "the mapper interface includes a room" 'core/mappers/[a-z_]+/' 'core/mappers/mapper.h' \
  'core/mappers/mapper.cc'
forbidden "a mapper room includes a room above it" 'core/mappers/(local_search|portfolio)/' \
  'core/mappers/baseline/' 'core/mappers/grid/' 'core/mappers/construct/'
forbidden "a mapper room includes another room beside it" \
  'core/mappers/(grid|construct|local_search|portfolio)/' 'core/mappers/baseline/'
forbidden "a mapper room includes another room beside it" \
  'core/mappers/(baseline|construct|local_search|portfolio)/' 'core/mappers/grid/'
forbidden "a mapper room includes another room beside it" \
  'core/mappers/(baseline|grid|local_search|portfolio)/' 'core/mappers/construct/'
forbidden "local search includes a room it does not build on" \
  'core/mappers/(baseline|grid|portfolio)/' 'core/mappers/local_search/'
# No function over 150 lines (signature to closing brace) in core/, server/, client/.
max_function_lines=150
mapfile -t measured < <(printf '%s\n' "${sources[@]}" | grep -E '^(core|server|client)/' || true)
if ! ctags --version 2>/dev/null | grep -q 'Universal Ctags'; then
  echo "check-style: universal-ctags is needed to measure functions (deploy/install-deps.sh)" >&2
  status=1
else
  long=$(ctags --languages=C,C++ --kinds-C=f --kinds-C++=f --fields=+ne --extras=-F -o - \
    "${measured[@]}" | awk -F'\t' -v max="$max_function_lines" '{
      start = ""; end = ""
      for (i = 4; i <= NF; i++) {
        if ($i ~ /^line:/) start = substr($i, 6)
        if ($i ~ /^end:/) end = substr($i, 5)
      }
      if (end != "" && end - start + 1 > max)
        printf "  %s:%s: %s is %d lines\n", $2, start, $1, end - start + 1
    }' | sort)
  if [[ -n $long ]]; then
    echo "check-style: functions over $max_function_lines lines (split them into named steps):" >&2
    echo "$long" >&2
    status=1
  fi
fi
[[ $status -eq 0 ]] && echo "check-style: formatting, layering and function lengths hold"
exit "$status"
