#!/usr/bin/env bash
# hopmapd --metrics-listen, scraped by a real Prometheus server: starts hopmapd and
# Debian's prometheus on loopback (free ports, a temporary directory), makes a known
# number of Map, Evaluate and failing calls with the hopmap CLI, and asks
# Prometheus's HTTP query API for hopmap_rpcs_total: the counts must equal the calls
# made. The histograms and gauges are checked on /metrics itself. Both servers stop
# by pid at the end, also on failure.
#
# Usage: prometheus_test.sh HOPMAPD HOPMAP
set -euo pipefail
hopmapd=$1
hopmap=$2
for tool in prometheus curl jq; do
  command -v "$tool" >/dev/null || { echo "FAIL: $tool is not installed (bash deploy/install-deps.sh)"; exit 1; }
done
work=$(mktemp -d "${TMPDIR:-/tmp}/metrics_test.XXXXXX")
daemon_pid=""
prometheus_pid=""
cleanup() {
  [[ -n $prometheus_pid ]] && kill "$prometheus_pid" 2>/dev/null && wait "$prometheus_pid" 2>/dev/null
  [[ -n $daemon_pid ]] && kill "$daemon_pid" 2>/dev/null && wait "$daemon_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
fail() {
  echo "FAIL: $*"
  echo "--- hopmapd log:"; tail -20 "$work/d.log" || true
  echo "--- prometheus log:"; tail -20 "$work/p.log" 2>/dev/null || true
  exit 1
}

"$hopmapd" --listen 127.0.0.1:0 --metrics-listen 127.0.0.1:0 --threads 1 \
  >"$work/d.out" 2>"$work/d.log" &
daemon_pid=$!
address=""
metrics=""
for _ in $(seq 100); do
  address=$(sed -n 's/^hopmapd: listening on //p' "$work/d.out")
  metrics=$(sed -n 's#^hopmapd: metrics on http://\(.*\)/metrics$#\1#p' "$work/d.out")
  [[ -n $address && -n $metrics ]] && break
  kill -0 "$daemon_pid" 2>/dev/null || fail "hopmapd exited"
  sleep 0.1
done
[[ -n $address && -n $metrics ]] || fail "hopmapd did not print its addresses"
[[ $metrics == 127.0.0.1:* && $metrics != 127.0.0.1:0 ]] || fail "metrics address '$metrics'"

cat >"$work/prometheus.yml" <<YAML
global:
  scrape_interval: 1s
scrape_configs:
  - job_name: hopmapd
    static_configs:
      - targets: ['$metrics']
YAML
# A free port for Prometheus: it cannot take port 0 and say which it got, so try a
# few random ports until one binds.
web=""
for _ in $(seq 20); do
  port=$((20000 + RANDOM % 40000))
  prometheus --config.file="$work/prometheus.yml" --storage.tsdb.path="$work/data" \
    --web.listen-address="127.0.0.1:$port" >"$work/p.log" 2>&1 &
  prometheus_pid=$!
  for _ in $(seq 100); do
    if curl -sf "http://127.0.0.1:$port/-/ready" >/dev/null 2>&1; then
      web=127.0.0.1:$port
      break 2
    fi
    kill -0 "$prometheus_pid" 2>/dev/null || break
    sleep 0.1
  done
  kill "$prometheus_pid" 2>/dev/null && wait "$prometheus_pid" 2>/dev/null || true
  prometheus_pid=""
done
[[ -n $web ]] || fail "prometheus did not start on any port tried"

# The calls: 3 Maps, 2 Evaluates, 2 Maps that fail (an unknown machine).
"$hopmap" gen stencil2d-5 --dims 8x8 --wrap -o "$work/g.edgelist"
common=(--server "$address" --graph "$work/g.edgelist")
for _ in 1 2 3; do
  "$hopmap" map "${common[@]}" --machine bgp-8x8x8 --algorithm gge -q --format perm \
    -o "$work/g.perm" || fail "map failed"
done
for _ in 1 2; do
  "$hopmap" eval "${common[@]}" --machine bgp-8x8x8 --mapping "$work/g.perm" --format text \
    >/dev/null || fail "eval failed"
done
for _ in 1 2; do
  if "$hopmap" map "${common[@]}" --machine no-such-machine -q -o "$work/x.json" 2>"$work/err"; then
    fail "a map onto an unknown machine succeeded"
  fi
done

query() {  # the value of one series, or "none"
  curl -sf --get "http://$web/api/v1/query" --data-urlencode "query=$1" |
    jq -r 'if .data.result | length == 1 then .data.result[0].value[1] else "none" end'
}
declare -A expected=(
  ['hopmap_rpcs_total{method="Map",code="OK"}']=3
  ['hopmap_rpcs_total{method="Evaluate",code="OK"}']=2
  ['hopmap_rpcs_total{method="Map",code="NOT_FOUND"}']=2
)
got=""
for _ in $(seq 60); do
  ok=1
  got=""
  for series in "${!expected[@]}"; do
    value=$(query "$series")
    got+=" $series=$value"
    [[ $value == "${expected[$series]}" ]] || ok=0
  done
  [[ $ok == 1 ]] && break
  sleep 0.5
done
[[ $ok == 1 ]] || fail "Prometheus has$got; expected 3 Map OK, 2 Evaluate OK, 2 Map NOT_FOUND"
echo "Prometheus:$got"

# The rest, on the endpoint itself.
curl -sf "http://$metrics/metrics" >"$work/metrics.txt" || fail "no /metrics"
value() { awk -v name="$1" '$1 == name {print $2}' "$work/metrics.txt"; }
[[ $(value 'hopmap_rpc_seconds_count{method="Map"}') == 5 ]] || fail "rpc_seconds Map count"
[[ $(value 'hopmap_rpc_seconds_count{method="Evaluate"}') == 2 ]] || fail "rpc_seconds Evaluate count"
[[ $(value 'hopmap_solve_tasks_count') == 3 ]] || fail "solve_tasks count (3 answers)"
[[ $(value 'hopmap_solve_tasks_sum') == 192 ]] || fail "solve_tasks sum (3 x 64 tasks)"
[[ $(value 'hopmap_answer_improvement_ratio_count') == 3 ]] || fail "improvement count"
[[ $(value 'hopmap_allocation_cache_misses_total') == 1 ]] || fail "cache misses (one allocation)"
[[ $(value 'hopmap_allocation_cache_hits_total') == 4 ]] || fail "cache hits (the other 4 calls)"
[[ $(value 'hopmap_admission_rejections_total') == 0 ]] || fail "rejections"
[[ $(value 'hopmap_solves_in_flight') == 0 ]] || fail "solves in flight"
[[ $(value 'hopmap_solves_queued') == 0 ]] || fail "solves queued"
machines=$(value 'hopmap_catalog_machines')
[[ -n $machines && $machines -gt 0 ]] || fail "catalog machines '$machines'"
[[ -n $(value 'hopmap_catalog_version') ]] || fail "catalog version"
grep -q '^hopmap_etcd_watch_up' "$work/metrics.txt" && fail "etcd gauge without etcd"
echo "PASS"
