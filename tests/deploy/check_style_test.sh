#!/usr/bin/env bash
# deploy/check-style.sh's layering rules, tried: in a copy of the tree, every rule
# of docs/architecture.md's tables is broken at once (a probe include of each
# forbidden folder in a file of each row's folder) and the check must name every
# probe; a probe of each allowed folder must pass unnamed; the edge rule (gRPC in the
# core) and the METIS rule are broken too. The copy as it is must pass.
#   check_style_test.sh SOURCE_DIR
set -euo pipefail
src=${1:?usage: check_style_test.sh SOURCE_DIR}
check=$src/deploy/check-style.sh
work=$(mktemp -d "${TMPDIR:-/tmp}/hopmap-check-style.XXXXXX")
trap 'rm -rf "$work"' EXIT
for d in core client server proto sim docs; do cp -r "$src/$d" "$work/"; done
failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

if ! out=$(bash "$check" --layering "$work" 2>&1); then
  fail "the unchanged tree does not pass:"
  echo "$out" >&2
fi

rules=$(bash "$check" --print-rules "$work")
[[ $(grep -c '^stages|' <<<"$rules") -ge 11 ]] || fail "fewer than 11 stage rules read: $rules"
[[ $(grep -c '^mapper rooms|' <<<"$rules") -ge 6 ]] || fail "fewer than 6 room rules read: $rules"
grep -q '^stages|core/balance/|[^|]*|.*\bmappers\b' <<<"$rules" ||
  fail "balance is not forbidden the mappers: $rules"
grep -q '^stages|core/metrics/|[^|]*|.*\banalysis\b' <<<"$rules" ||
  fail "metrics is not forbidden analysis: $rules"
grep -q '^stages|core/io/|[^|]*|.*\bsimulate\b' <<<"$rules" ||
  fail "io is not forbidden simulate: $rules"

# A file of the row's folder (FOLDER "core/x/*": a file of core/x itself).
file_of() {
  local folder=$1
  if [[ $folder == */\* ]]; then
    find "$work/${folder%\*}" -maxdepth 1 -name '*.h' | sort | head -1
  else
    find "$work/$folder" -name '*.h' | sort | head -1
  fi
}
probe() { echo "#include \"$1/check_style_probe.h\""; }
expected=() unexpected=()
while IFS='|' read -r table folder allowed forbidden; do
  file=$(file_of "$folder")
  [[ -n $file ]] || { fail "no header in $folder"; continue; }
  prefix=core
  [[ $table == "mapper rooms" ]] && prefix=core/mappers
  for name in $forbidden; do
    probe "$prefix/$name" >>"$file"
    expected+=("${file#"$work"/}:[0-9]+:$(probe "$prefix/$name")")
  done
  if [[ $allowed != nothing && $allowed != "every room" ]]; then
    for name in ${allowed//,/ }; do
      probe "$prefix/$name" >>"$file"
      unexpected+=("${file#"$work"/}:[0-9]+:$(probe "$prefix/$name")")
    done
  fi
done <<<"$rules"
echo '#include <grpcpp/grpcpp.h>' >>"$work/core/graph/task_graph.h"
expected+=('core/graph/task_graph.h:[0-9]+:#include <grpcpp/grpcpp.h>')
echo '#include <metis.h>' >>"$work/core/balance/construct.cc"
expected+=('core/balance/construct.cc:[0-9]+:#include <metis.h>')

if out=$(bash "$check" --layering "$work" 2>&1); then
  fail "the broken tree passes"
fi
for line in "${expected[@]}"; do
  grep -qE "^  ${line//./\\.}\$" <<<"$out" || fail "not named: $line"
done
for line in "${unexpected[@]}"; do
  grep -qE "^  ${line//./\\.}\$" <<<"$out" && fail "an allowed include is named: $line"
done
echo "${#expected[@]} broken includes named, ${#unexpected[@]} allowed ones passed"
[[ $failures -eq 0 ]] || { echo "$out" >&2; exit 1; }
