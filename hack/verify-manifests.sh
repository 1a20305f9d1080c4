#!/usr/bin/env bash
# Renders every kustomization under manifests/ with a pinned kustomize, so a
# broken reference, generator or patch fails here rather than at deploy time.
set -euo pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${REPO_ROOT}"

# Pinned tool version (v5.8.3 needs go >= 1.27).
KUSTOMIZE_VERSION="${KUSTOMIZE_VERSION:-v5.8.2}"
TOOLS_BIN="${TOOLS_BIN:-$(go env GOPATH)/bin}"
KUSTOMIZE="${TOOLS_BIN}/kustomize"

install_kustomize() {
  local pkg="sigs.k8s.io/kustomize/kustomize/v5@${KUSTOMIZE_VERSION}"
  echo "installing ${pkg} into ${TOOLS_BIN}" >&2
  mkdir -p "${TOOLS_BIN}"
  # "go install pkg@version" ignores the main module and never edits go.mod.
  GOBIN="${TOOLS_BIN}" GOFLAGS=-mod=mod go install "${pkg}" ||
    GOBIN="${TOOLS_BIN}" GOFLAGS=-mod=mod GOSUMDB=off go install "${pkg}"
}

if ! [[ -x "${KUSTOMIZE}" ]] ||
   [[ "$("${KUSTOMIZE}" version 2>/dev/null)" != "${KUSTOMIZE_VERSION}" ]]; then
  install_kustomize
fi

status=0
while IFS= read -r kfile; do
  dir="$(dirname "${kfile}")"
  if out="$("${KUSTOMIZE}" build "${dir}" 2>&1)"; then
    echo "ok   ${dir} ($(grep -c '^kind:' <<<"${out}") objects)"
  else
    echo "FAIL ${dir}:" >&2
    echo "${out}" >&2
    status=1
  fi
done < <(find manifests -name kustomization.yaml | sort)

exit "${status}"
