#!/usr/bin/env bash
# Regenerates the code and manifests derived from Muster's API types with a
# pinned controller-gen:
#   - zz_generated.deepcopy.go in each API package (generator "object")
#   - the CustomResourceDefinitions in manifests/crds/ (generator "crd")
#
# Usage: hack/update-codegen.sh
#   CODEGEN_OUT=DIR  write everything under DIR (same relative paths) instead
#                    of into the tree; hack/verify-codegen.sh uses this.
set -euo pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${REPO_ROOT}"

# Pinned tool version: bump deliberately, then rerun this script and commit.
CONTROLLER_GEN_VERSION="${CONTROLLER_GEN_VERSION:-v0.23.0}"
TOOLS_BIN="${TOOLS_BIN:-$(go env GOPATH)/bin}"
CONTROLLER_GEN="${TOOLS_BIN}/controller-gen"

# Go packages holding API types (each gets its own zz_generated.deepcopy.go).
API_DIRS=(
  pkg/apis/scheduling/v1alpha1
  pkg/apis/autoscaling/v1
)
CRD_DIR="manifests/crds"
OUT="${CODEGEN_OUT:-}"

install_controller_gen() {
  local pkg="sigs.k8s.io/controller-tools/cmd/controller-gen@${CONTROLLER_GEN_VERSION}"
  echo "installing ${pkg} into ${TOOLS_BIN}" >&2
  mkdir -p "${TOOLS_BIN}"
  # "go install pkg@version" ignores the main module and never edits go.mod;
  # -mod=mod keeps a vendor-mode GOFLAGS out of the way. Retry without the
  # checksum database if it does not know the module.
  GOBIN="${TOOLS_BIN}" GOFLAGS=-mod=mod go install "${pkg}" ||
    GOBIN="${TOOLS_BIN}" GOFLAGS=-mod=mod GOSUMDB=off go install "${pkg}"
}

if ! [[ -x "${CONTROLLER_GEN}" ]] ||
   ! "${CONTROLLER_GEN}" --version 2>/dev/null | grep -qxF "Version: ${CONTROLLER_GEN_VERSION}"; then
  install_controller_gen
fi

for dir in "${API_DIRS[@]}"; do
  if [[ -n "${OUT}" ]]; then
    mkdir -p "${OUT}/${dir}"
    "${CONTROLLER_GEN}" object paths="./${dir}" output:object:dir="${OUT}/${dir}"
  else
    "${CONTROLLER_GEN}" object paths="./${dir}"
  fi
done

crd_out="${CRD_DIR}"
if [[ -n "${OUT}" ]]; then
  crd_out="${OUT}/${CRD_DIR}"
fi
mkdir -p "${crd_out}"
crd_paths=()
for dir in "${API_DIRS[@]}"; do
  crd_paths+=("paths=./${dir}")
done
"${CONTROLLER_GEN}" crd:crdVersions=v1 "${crd_paths[@]}" output:crd:artifacts:config="${crd_out}"
