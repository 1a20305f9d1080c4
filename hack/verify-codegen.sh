#!/usr/bin/env bash
# Fails if the generated deepcopy code or CRDs are stale: regenerates them into
# a temp dir with hack/update-codegen.sh and diffs against the tree.
set -euo pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${REPO_ROOT}"

TMP="$(mktemp -d)"
trap 'rm -rf "${TMP}"' EXIT

CODEGEN_OUT="${TMP}" "${REPO_ROOT}/hack/update-codegen.sh"

status=0
# Every generated deepcopy file must match.
while IFS= read -r gen; do
  rel="${gen#"${TMP}/"}"
  if ! diff -u "${rel}" "${gen}"; then
    status=1
  fi
done < <(find "${TMP}" -name 'zz_generated.deepcopy.go' | sort)

# The CRD directory must match exactly (no stale, missing or extra files),
# ignoring the kustomization that lists them.
if ! diff -ru -x kustomization.yaml manifests/crds "${TMP}/manifests/crds"; then
  status=1
fi

if [[ "${status}" -ne 0 ]]; then
  echo "generated files are out of date: run hack/update-codegen.sh" >&2
  exit 1
fi
echo "generated code and CRDs are up to date"
