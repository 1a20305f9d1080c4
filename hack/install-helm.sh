#!/usr/bin/env bash
# Builds Helm's own binary, pinned, from the Go module proxy (no download
# site, no Docker) into TOOLS_BIN unless it is there already, and prints its
# path. test/chart runs it (make test passes it in HELM).
set -euo pipefail

HELM_VERSION="${HELM_VERSION:-v3.22.0}"
TOOLS_BIN="${TOOLS_BIN:-$(go env GOPATH)/bin}"
HELM="${TOOLS_BIN}/helm"

if ! [[ -x "${HELM}" ]] || [[ "$("${HELM}" version --template '{{.Version}}' 2>/dev/null)" != "${HELM_VERSION%.0}"* ]]; then
  pkg="helm.sh/helm/v3/cmd/helm@${HELM_VERSION}"
  echo "installing ${pkg} into ${TOOLS_BIN}" >&2
  mkdir -p "${TOOLS_BIN}"
  # "go install pkg@version" ignores the main module and never edits go.mod.
  GOBIN="${TOOLS_BIN}" GOFLAGS=-mod=mod go install "${pkg}" >&2 ||
    GOBIN="${TOOLS_BIN}" GOFLAGS=-mod=mod GOSUMDB=off go install "${pkg}" >&2
fi
echo "${HELM}"
