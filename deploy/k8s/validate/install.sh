#!/usr/bin/env bash
# Installs the manifest checker's npm packages (kubernetes-models: the Kubernetes API's
# JSON schemas; yaml) into deploy/k8s/validate/node_modules, exactly as
# package-lock.json pins them. Node.js and npm come from Debian if missing.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
command -v node >/dev/null || bash ../../install-deps.sh nodejs
command -v npm >/dev/null || bash ../../install-deps.sh npm
if cmp -s package-lock.json node_modules/.hopmap-installed 2>/dev/null; then
  exit 0  # already installed as pinned
fi
npm ci --no-audit --no-fund --loglevel=error
cp package-lock.json node_modules/.hopmap-installed
