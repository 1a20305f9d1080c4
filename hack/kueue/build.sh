#!/usr/bin/env bash
# Builds Kueue's controller manager (sigs.k8s.io/kueue/cmd/kueue, the version
# hack/kueue/go.mod pins) into OUT/kueue and copies its CRDs into
# OUT/kueue-crds/, for muster simulate's kueue side. Usage: build.sh OUT
#
# Kueue is its own module here: it pins k8s 0.35 and controller-runtime 0.23,
# which the root module (k8s 0.37, vendored) cannot hold.
#
# One line of Kueue's main is changed: with
# internalCertManagement off it reads its metrics certificate from the fixed
# path /etc/kueue/metrics/certs (a Secret mounted in its Deployment), and
# exits if there is none. The copy built here reads the directory from
# KUEUE_METRICS_CERT_DIR instead (falling back to that path), so the
# simulator hands it throwaway certificates without writing to /etc.
set -euo pipefail
out=${1:?usage: build.sh OUT}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)
GO=${GO:-go}
cd "$here"
# go.mod and go.sum are complete: a build that would change them fails.
export GOFLAGS=-mod=readonly
dir=$("$GO" list -m -f '{{.Dir}}' sigs.k8s.io/kueue)
if [ -z "$dir" ] || [ ! -d "$dir" ]; then
	"$GO" mod download sigs.k8s.io/kueue
	dir=$("$GO" list -m -f '{{.Dir}}' sigs.k8s.io/kueue)
fi
main="$dir/cmd/kueue/main.go"
old='metricsCertPath := "/etc/kueue/metrics/certs"'
if ! grep -qF "$old" "$main"; then
	echo "build.sh: $main no longer has the line this script replaces ($old); update hack/kueue/build.sh" >&2
	exit 1
fi
# The go command does not take overlays of files in the module cache, so
# the changed main is built as a package of this module (it imports only
# Kueue's public packages).
work=$(mktemp -d "$here/main.XXXXXX")
trap 'rm -rf "$work"' EXIT
sed "s|$old|metricsCertPath := metricsCertDir()|" "$main" > "$work/main.go"
cat >> "$work/main.go" <<'GO'

// metricsCertDir is where the metrics server's tls.crt and tls.key are:
// $KUEUE_METRICS_CERT_DIR, else the path Kueue's Deployment mounts them at.
// (Added by muster's hack/kueue/build.sh.)
func metricsCertDir() string {
	if d := os.Getenv("KUEUE_METRICS_CERT_DIR"); d != "" {
		return d
	}
	return "/etc/kueue/metrics/certs"
}
GO
"$GO" build -o "$out/kueue" "./$(basename "$work")"
rm -rf "$out/kueue-crds"
mkdir -p "$out/kueue-crds"
cp "$dir"/config/components/crd/bases/*.yaml "$out/kueue-crds/"
chmod -R u+w "$out/kueue-crds"
