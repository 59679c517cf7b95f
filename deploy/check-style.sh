#!/usr/bin/env bash
# The gates deploy/test.sh (and so CI) runs before it builds:
#  - clang-format (Google style, .clang-format) on every C, C++ and Charm++ source of
#    the project (not data/ or third_party/): a file that is not formatted fails;
#  - the layering rules of docs/architecture.md, "Stages and who may include whom":
#    the core never includes the service, the clients, the protocol, the simulator or
#    gRPC; each stage of the core and each room of core/mappers includes only what its
#    row of the rulebook's tables allows (this script reads those tables, so the
#    rulebook and the check cannot drift apart); METIS's header is included by its
#    adapter (core/bisection/metis_adapter.cc) only;
#  - no function over 150 lines in core/, server/ or client/ (tests and generated code
#    aside): a function says one thing, a long one is split into named steps. Universal
#    Ctags (deploy/install-deps.sh) finds each function's first and last line.
# Warnings are errors in deploy/build.sh's build (-DHOPMAP_WERROR=ON).
#
#   bash deploy/check-style.sh [--layering | --print-rules] [ROOT]
# --layering checks the layering rules only; --print-rules prints what each row of
# the tables forbids ("TABLE|FOLDER|ALLOWED|FORBIDDEN..."). tests/deploy/
# check_style_test.sh breaks every rule in a copy of the tree (ROOT) and expects
# this script to fail on each.
set -euo pipefail
only_layering=false
print_rules=false
if [[ ${1:-} == --layering ]]; then
  only_layering=true
  shift
elif [[ ${1:-} == --print-rules ]]; then
  only_layering=true
  print_rules=true
  shift
fi
cd "${1:-$(dirname "${BASH_SOURCE[0]}")/..}"
rulebook=docs/architecture.md
status=0

# The project's files: git's list in a clone, else every file under the tree (a
# source tarball, a test's copy) but the build trees and vendored folders.
if git rev-parse --is-inside-work-tree >/dev/null 2>&1 && [[ -z $(git rev-parse --show-prefix) ]]; then
  mapfile -t sources < <(git ls-files '*.cc' '*.h' '*.c' '*.C' | grep -v '^data/\|^third_party/')
else
  mapfile -t sources < <(find . \( -path ./data -o -path ./third_party -o -path './build*' \
    -o -path ./out -o -path ./deploy/k8s/validate/node_modules \) -prune -o \
    -type f \( -name '*.cc' -o -name '*.h' -o -name '*.c' -o -name '*.C' \) -print |
    sed 's#^\./##' | sort)
fi

if [[ $only_layering == false ]]; then
  if ! clang-format --dry-run --Werror "${sources[@]}" 2>"${TMPDIR:-/tmp}/check-style.$$"; then
    grep -o '^[^: ]*:[0-9]*:[0-9]*: error' "${TMPDIR:-/tmp}/check-style.$$" | cut -d: -f1 |
      sort -u | sed 's/^/  not formatted: /' >&2
    echo "check-style: run clang-format -i on the files above" >&2
    status=1
  fi
  rm -f "${TMPDIR:-/tmp}/check-style.$$"
fi

# The sources whose path matches the extended regular expression $1.
sources_matching() { printf '%s\n' "${sources[@]}" | grep -E "$1" || true; }
# The #include lines (file:line:text) of the sources matching $1 whose header
# matches $2.
includes_of() {
  local files
  mapfile -t files < <(sources_matching "$1")
  [[ ${#files[@]} -eq 0 ]] && return 0
  grep -H -n -E "^#include [\"<]($2)" "${files[@]}" || true
}
fail_with() {
  local message=$1 found=$2
  [[ -z $found ]] && return 0
  echo "check-style: $message:" >&2
  sed 's/^/  /' <<<"$found" >&2
  status=1
}

fail_with "the core includes the service, a client, the protocol, the simulator or gRPC" \
  "$(includes_of '^core/' 'server/|client/|proto/|sim/|hopmap/v1/|hopmap/sim/|grpc|simgrid')"
fail_with "metis.h is included outside the METIS adapter (core/bisection/metis_adapter.cc)" \
  "$(includes_of '.' 'metis\.h' | grep -v '^core/bisection/metis_adapter\.cc:' || true)"

# The rows of the rulebook's table that follows the line "<!-- rules: $1 -->": one
# line per row, "FOLDER|ALLOWED" (the first two cells, backticks and spaces removed).
rule_rows() {
  awk -v marker="<!-- rules: $1 -->" '
    $0 == marker { on = 1; next }
    on && /^\|/ { table = 1; print; next }
    on && table { exit }
  ' "$rulebook" | awk -F'|' '{
      folder = $2; allowed = $3
      gsub(/[` ]/, "", folder); gsub(/`/, "", allowed); gsub(/^ +| +$/, "", allowed)
      if (folder ~ /^core\//) print folder "|" allowed
    }'
}
# The forbidden folders of each row of a table, as "FOLDER|ALLOWED|FORBIDDEN...":
# among the table's folders, those the row does not allow. ALLOWED is "nothing", or
# names separated by commas (each the last component of another row's folder), or
# "every room"; FOLDER "core/x/*" is the files of core/x itself, not its rooms.
forbidden_rows() {
  local table=$1 rows
  rows=$(rule_rows "$table")
  if [[ -z $rows ]]; then
    echo "check-style: $rulebook has no table after <!-- rules: $table -->" >&2
    return 1
  fi
  local all=()
  while IFS='|' read -r folder _; do
    [[ $folder == */ ]] && all+=("$(basename "$folder")")
  done <<<"$rows"
  while IFS='|' read -r folder allowed; do
    local own name forbidden=()
    own=$(basename "${folder%/\*}")
    for name in "${all[@]}"; do
      [[ $folder != */\* && $name == "$own" ]] && continue
      [[ $allowed == "every room" ]] && continue
      if ! tr ',' '\n' <<<"$allowed" | sed 's/^ *//; s/ *$//' | grep -qx "$name"; then
        forbidden+=("$name")
      fi
    done
    echo "$folder|$allowed|${forbidden[*]}"
  done <<<"$rows"
}
# Fails on every include, by a row's files, of a folder the row forbids.
check_table() {
  local table=$1 prefix=$2 rows
  if ! rows=$(forbidden_rows "$table"); then
    status=1
    return
  fi
  while IFS='|' read -r folder allowed forbidden; do
    [[ -z $forbidden ]] && continue
    local files_re="^${folder}" alternatives
    [[ $folder == */\* ]] && files_re="^${folder%\*}[^/]+$"
    alternatives=${forbidden// /|}
    fail_with "${folder%\*} may include only: $allowed ($rulebook, $table)" \
      "$(includes_of "$files_re" "$prefix($alternatives)/")"
  done <<<"$rows"
}
if [[ ${print_rules:-false} == true ]]; then
  forbidden_rows stages | sed 's/^/stages|/'
  forbidden_rows "mapper rooms" | sed 's/^/mapper rooms|/'
  exit 0
fi
check_table stages 'core/'
check_table "mapper rooms" 'core/mappers/'

if [[ $only_layering == false ]]; then
  # No function over 150 lines (signature to closing brace) in core/, server/, client/.
  max_function_lines=150
  mapfile -t measured < <(sources_matching '^(core|server|client)/')
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
fi
if [[ $status -eq 0 ]]; then
  if [[ $only_layering == true ]]; then
    echo "check-style: the layering rules hold"
  else
    echo "check-style: formatting, layering and function lengths hold"
  fi
fi
exit "$status"
