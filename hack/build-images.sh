#!/usr/bin/env bash
# Builds the muster-scheduler and muster-autoscaler images without a Docker
# engine: static binaries per platform (reproducible flags), then
# hack/image (go-containerregistry) assembles each image as an OCI archive
# under images/ and checks it (user, entrypoint, CA bundle, the host
# platform's binary run with --help).
#
#   IMAGE_PLATFORMS  os/arch list (default linux/amd64,linux/arm64)
#   IMAGE_BASE       base image reference pinned by digest (default
#                    distroless/static:nonroot), or "offline": a base
#                    assembled from the host's CA bundle (needs no registry).
#                    A registry base is resolved first (hack/image
#                    base-check), so an unreachable registry fails the
#                    build in seconds rather than after the compiles.
#   IMAGE_BASE_TIMEOUT  time allowed for that (default 20s)
#   IMAGE_TAG        tag recorded in the archives (default latest)
#   IMAGE_REPRO=1    assemble each image twice and fail if the digests differ
set -euo pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${REPO_ROOT}"

PLATFORMS="${IMAGE_PLATFORMS:-linux/amd64,linux/arm64}"
BASE="${IMAGE_BASE:-}"
TAG="${IMAGE_TAG:-latest}"
OUT="${REPO_ROOT}/images"
BIN="${REPO_ROOT}/bin/images"
export SOURCE_DATE_EPOCH="${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || echo 0)}"
REVISION="$(git rev-parse HEAD 2>/dev/null || echo unknown)"
# -trimpath, no VCS stamp and an empty build ID make the binaries depend on
# the source and the Go version only.
GOBUILD=(go build -trimpath -buildvcs=false -ldflags='-s -w -buildid=')

mkdir -p "${OUT}" "${BIN}"
echo "building hack/image" >&2
(cd hack/image && GOFLAGS=-mod=mod go build -o "${BIN}/image" .)

base_args=()
[[ -n "${BASE}" ]] && base_args=(--base "${BASE}")
# Before any binary is compiled (about 25 minutes for both platforms on 2
# cores): a base that cannot be pulled would only fail the build after.
if [[ "${BASE}" != offline ]]; then
  echo "checking base image ${BASE:-(default, distroless/static:nonroot)}" >&2
  if ! "${BIN}/image" base-check "${base_args[@]}" --platforms "${PLATFORMS}" --timeout "${IMAGE_BASE_TIMEOUT:-20s}"; then
    echo "build-images.sh: the base image cannot be used (nothing was built); set IMAGE_BASE=offline to assemble a base from the host's CA bundle (no registry needed), or IMAGE_BASE=<ref pinned by digest> for a base you can reach" >&2
    exit 1
  fi
fi

scheduler_bins=() autoscaler_bins=()
IFS=, read -ra plats <<<"${PLATFORMS}"
for plat in "${plats[@]}"; do
  os="${plat%/*}" arch="${plat#*/}"
  dir="${BIN}/${os}_${arch}"
  echo "building binaries for ${plat}" >&2
  CGO_ENABLED=0 GOOS="${os}" GOARCH="${arch}" GOFLAGS=-mod=vendor "${GOBUILD[@]}" -o "${dir}/muster-scheduler" ./cmd/muster-scheduler
  (cd autoscaler && CGO_ENABLED=0 GOOS="${os}" GOARCH="${arch}" GOFLAGS="-mod=mod -tags=kwok" "${GOBUILD[@]}" -o "${dir}/muster-autoscaler" ./cmd/muster-autoscaler)
  scheduler_bins+=(--binary "${plat}=${dir}/muster-scheduler")
  autoscaler_bins+=(--binary "${plat}=${dir}/muster-autoscaler")
done

labels=(--label "org.opencontainers.image.source=https://github.com/muster-project/muster"
        --label "org.opencontainers.image.revision=${REVISION}")

for image in muster-scheduler muster-autoscaler; do
  bins=("${scheduler_bins[@]}")
  [[ "${image}" == muster-autoscaler ]] && bins=("${autoscaler_bins[@]}")
  "${BIN}/image" build --name "${image}" --tag "${TAG}" "${base_args[@]}" "${labels[@]}" "${bins[@]}" --out "${OUT}/${image}.tar"
  if [[ "${IMAGE_REPRO:-0}" == 1 ]]; then
    "${BIN}/image" build --name "${image}" --tag "${TAG}" "${base_args[@]}" "${labels[@]}" "${bins[@]}" --out "${OUT}/${image}.again.tar" >/dev/null
    if ! cmp -s "${OUT}/${image}.tar" "${OUT}/${image}.again.tar"; then
      echo "FAIL ${image}: two builds of the same binaries gave different archives" >&2
      exit 1
    fi
    rm -f "${OUT}/${image}.again.tar"
    echo "reproducible: ${image} (two builds, same archive)"
  fi
  "${BIN}/image" check --archive "${OUT}/${image}.tar" --entrypoint "/${image}" --platforms "${PLATFORMS}"
done
