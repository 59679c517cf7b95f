#!/usr/bin/env bash
# The gates deploy/test.sh (and so CI) runs before it builds:
#  - clang-format (Google style, .clang-format) on every C, C++ and Charm++ source of
#    the project (not data/ or third_party/): a file that is not formatted fails;
#  - the layering of the core: it never includes the service, the clients, the
#    protocol or gRPC (server/, client/, proto/, hopmap/v1/, grpc); the stages below
#    the mappers (graph, topology, metrics, analysis) and the mappers never include
#    the load balancing (core/balance/).
# Not yet checked: core/io including core/mappers and core/balance (the report and
# its JSON still live in core/io; issue 33 moves them to a request layer).
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
forbidden "the core includes the service, a client, the protocol or gRPC" \
  'server/|client/|proto/|hopmap/v1/|grpc' 'core/'
forbidden "a stage below load balancing includes core/balance" \
  'core/balance/' 'core/graph/' 'core/topology/' 'core/metrics/' 'core/analysis/' \
  'core/mappers/'
[[ $status -eq 0 ]] && echo "check-style: formatting and layering hold"
exit "$status"
