# Sourced by the scripts that build vendored sources (deploy/charm/build-charm.sh,
# deploy/slurm/build-slurm.sh); needs die().
#
# vendored_tarball DIR GLOB: the one tarball in DIR matching GLOB, checked against
# DIR/SHA256SUMS. Sets TARBALL (its path), TARBALL_NAME (its file name) and
# TARBALL_SHA256; dies naming the problem (no tarball or several, no SHA256SUMS, no
# line for it, a different hash).
vendored_tarball() {
  local dir=$1 glob=$2 expected
  local matches=()
  shopt -s nullglob
  # shellcheck disable=SC2206  # GLOB is meant to expand here
  matches=("$dir"/$glob)
  shopt -u nullglob
  [[ ${#matches[@]} -eq 1 ]] || die "expected one $glob in $dir, found ${#matches[@]}"
  TARBALL=${matches[0]}
  TARBALL_NAME=$(basename "$TARBALL")
  [[ -f $dir/SHA256SUMS ]] || die "$dir/SHA256SUMS is missing"
  expected=$(awk -v f="$TARBALL_NAME" '$2 == f || $2 == "*" f {print $1}' "$dir/SHA256SUMS")
  [[ -n $expected ]] || die "$dir/SHA256SUMS has no line for $TARBALL_NAME"
  TARBALL_SHA256=$(sha256sum "$TARBALL" | cut -d' ' -f1)
  [[ $TARBALL_SHA256 == "$expected" ]] ||
    die "$TARBALL: SHA-256 $TARBALL_SHA256, SHA256SUMS says $expected"
}
