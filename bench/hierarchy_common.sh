# Shared by the hierarchical-machine side-by-side scripts (bench/hierarchy_scotch.sh,
# bench/hierarchy_sharedmap.sh): the instances, the field's balance cap, hopmap's run
# and eval of a mapping, and the table's figures. Source it after setting HOPMAP, TMP,
# EPS and die().

# hierarchy name -> "arities (lowest first)|distances"
declare -A HIER=([4:16:16]="4x16x16|1,10,100" [4:16:64]="4x16x64|1,10,100"
  [4:8:6]="4x8x6|1,10,100")

gen_graph() { # name -> $TMP/name.edgelist
  local name=$1 f=$TMP/$1.edgelist
  [[ -f $f ]] && return
  case $name in
    rgg15) "$HOPMAP" gen random-geometric --tasks 32768 --seed 1 -o "$f" ;;
    rgg16) "$HOPMAP" gen random-geometric --tasks 65536 --seed 1 -o "$f" ;;
    rgg17) "$HOPMAP" gen random-geometric --tasks 131072 --seed 1 -o "$f" ;;
    grid2d) "$HOPMAP" gen stencil2d-5 --dims 256x256 -o "$f" ;;
    grid3d) "$HOPMAP" gen stencil3d-7 --dims 32x32x32 -o "$f" ;;
    rgg-*) "$HOPMAP" gen random-geometric --tasks "${name#rgg-}" --seed 1 -o "$f" ;;
    grid2d-*) "$HOPMAP" gen stencil2d-5 --dims "${name#grid2d-}" -o "$f" ;;
    # The field's instances (data/instances/SOURCES.md), as published: METIS files
    # written out as edge lists by hopmap's converter (same vertices, same numbering).
    inst-*) "$HOPMAP" convert "${DATA:-data}/instances/${name#inst-}.graph" -o "$f" >/dev/null ;;
    *) die "unknown graph $name" ;;
  esac
}

# The field's instances in data/instances/.
FIELD_INSTANCES=(inst-rgg_n_2_15_s0 inst-delaunay_n15 inst-4elt inst-wing inst-luxembourg.osm
  inst-PGPgiantcompo)

# select_instances MODE: sets graphs=() and hierarchies=() for quick, instances or full.
select_instances() {
  case $1 in
    quick) graphs=(rgg15 grid3d); hierarchies=(4:16:16) ;;
    instances) graphs=("${FIELD_INSTANCES[@]}"); hierarchies=(4:16:16) ;;
    full)
      graphs=(rgg15 rgg16 rgg17 grid2d grid3d "${FIELD_INSTANCES[@]}")
      hierarchies=(4:16:16 4:16:64 4:8:6)
      ;;
    *) die "unknown mode '$1' (quick, instances or full)" ;;
  esac
}

# set_hierarchy H N: machine, arities, distances, k and cap (the field's cap for unit
# loads, ceil((1 + EPS) n / k) objects, which the tables check every answer against).
# Every tool gets EPS as it is: hopmap's --imbalance rounds up to whole loads as
# Scotch's -b and SharedMap's -e do (docs/balance.md).
set_hierarchy() {
  IFS='|' read -r arities distances <<<"${HIER[$1]}"
  machine="hierarchy:$arities:distances=$distances"
  k=$(echo "$arities" | tr x '*' | bc)
  cap=$(echo "(1 + $EPS) * $2 / $k" | bc -l | awk '{c = int($1); if (c < $1) c++; print c}')
  # ONE_PER_PE=1: the plain mapping problem, one object per PE (no --balance).
  if [[ ${ONE_PER_PE:-0} == 1 ]]; then
    balance_args=()
  else
    balance_args=(--balance --imbalance "$EPS")
  fi
}

# hopmap_map GRAPH OUT: hopmap's map of the current hierarchy, balanced unless ONE_PER_PE (TIME_LIMIT, when
# set, is its budget).
hopmap_map() {
  local limit=()
  [[ -n ${TIME_LIMIT:-} ]] && limit=(--time-limit "$TIME_LIMIT")
  "$HOPMAP" map --local --machine "$machine" --graph "$1" "${balance_args[@]}" "${limit[@]}" \
    -q -o "$2"
}

# eval_mapping GRAPH MAPPING: hopmap eval's JSON of a mapping on the current hierarchy.
eval_mapping() {
  "$HOPMAP" eval --local --machine "$machine" --graph "$1" "${balance_args[@]}" --mapping "$2" \
    --format json
}

# balance_note EVAL: "yes (M)" or "NO (M > cap)", M the most objects on one PE. (awk, not
# head: head would close the pipe early, a failure under pipefail.)
balance_note() {
  local most
  most=$(jq -r '.slot_of_task[]' "$1" | sort -n | uniq -c | sort -rn | awk 'NR == 1 {print $1}')
  if [[ $most -le $cap ]]; then echo "yes ($most)"; else echo "NO ($most > $cap)"; fi
}

geo() { printf '%s\n' "$@" | awk '{s += log($1)} END {printf "%.3f", exp(s / NR)}'; }
