#!/usr/bin/env bash
# deploy/k8s checked by deploy/k8s/validate (the Kubernetes API's JSON schemas from
# kubernetes-models, and the rules that make the objects work together for hopmapd);
# copies broken on purpose must be refused, each with its reason; and hopmapd must
# start on the catalog the ConfigMap carries and serve its machine.
#
# Usage: k8s_test.sh REPO HOPMAPD HOPMAP
set -euo pipefail
repo=$1
hopmapd=$2
hopmap=$3
validate=$repo/deploy/k8s/validate
[[ -d $validate/node_modules/kubernetes-models ]] || {
  echo "FAIL: the checker's npm packages are missing: bash deploy/k8s/validate/install.sh"
  exit 1
}
work=$(mktemp -d "${TMPDIR:-/tmp}/k8s_test.XXXXXX")
daemon=""
trap '[[ -n $daemon ]] && kill "$daemon" 2>/dev/null; rm -rf "$work"' EXIT

node "$validate/validate.mjs" "$repo/deploy/k8s" --catalog-out "$work/catalog.json" ||
  { echo "FAIL: deploy/k8s does not validate"; exit 1; }

# Broken copies: each must fail, naming what is wrong.
expect_refused() {
  local what=$1 file=$2 from=$3 to=$4 message=$5
  rm -rf "$work/bad" && mkdir "$work/bad" && cp "$repo"/deploy/k8s/*.yaml "$work/bad/"
  sed -i "s#$from#$to#" "$work/bad/$file"
  if node "$validate/validate.mjs" "$work/bad" >"$work/bad.out" 2>&1; then
    echo "FAIL: $what passed the checker"
    exit 1
  fi
  grep -q -- "$message" "$work/bad.out" || {
    echo "FAIL: $what: expected '$message', got:"
    cat "$work/bad.out"
    exit 1
  }
}
expect_refused "a replica count that is not a number" deployment.yaml "replicas: 3" \
  "replicas: three" "/spec/replicas must be integer"
expect_refused "a probe that is not gRPC" deployment.yaml "            grpc:" \
  "            tcpSocket:" "readinessProbe must be a grpc probe"
expect_refused "a Service that is not headless" service.yaml "clusterIP: None" \
  "clusterIP: 10.0.0.10" "clusterIP must be None"
expect_refused "a budget that selects nothing" pdb.yaml "      app.kubernetes.io/name: hopmapd" \
  "      app: other" "does not select the Deployment's pods"
expect_refused "no cpu request" deployment.yaml 'cpu: "2"' 'ephemeral-storage: 1Gi' \
  "resources.requests needs cpu and memory"
expect_refused "a catalog that is not etcd" deployment.yaml "--catalog=etcd://etcd:2379/hopmap" \
  "--catalog=/var/lib/hopmap" "is not etcd://HOST:PORT/PREFIX"
expect_refused "a config key the ConfigMap lacks" configmap.yaml "  catalog.json: |" \
  "  machines.json: |" "is not a key of a ConfigMap mounted there"

# hopmapd starts on the ConfigMap's catalog and serves its machine.
"$hopmapd" --listen 127.0.0.1:0 --config "$work/catalog.json" >"$work/d.out" 2>"$work/d.log" &
daemon=$!
address=""
for _ in $(seq 100); do
  address=$(sed -n 's/^hopmapd: listening on //p' "$work/d.out")
  [[ -n $address ]] && break
  kill -0 "$daemon" 2>/dev/null || { cat "$work/d.log"; echo "FAIL: hopmapd refused the catalog"; exit 1; }
  sleep 0.1
done
[[ -n $address ]] || { echo "FAIL: hopmapd did not start"; exit 1; }
"$hopmap" machines --server "$address" >"$work/machines.txt"
grep -q '^site-torus ' "$work/machines.txt" || {
  cat "$work/machines.txt"
  echo "FAIL: hopmapd does not serve the ConfigMap's machine"
  exit 1
}
echo "ok: deploy/k8s validates, 7 broken copies refused, hopmapd serves the ConfigMap's catalog"
