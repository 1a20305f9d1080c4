#!/usr/bin/env bash
# Writes the skew test's module file for one Kubernetes patch release:
# test/skew/go.mod for the oldest supported minor, test/skew/versions/1.NN.mod
# for the others (go test -modfile=...), each with its .sum. The module pins
# k8s.io/kubernetes at that release and every k8s.io staging module at the
# matching v0.NN.P (k8s.io/kubernetes requires them as v0.0.0, replaced by its
# own staging tree, which a dependent must replace itself).
#
#   hack/update-skew-modfile.sh 1.35.8 [versions/1.35.mod]
set -euo pipefail
version="${1:?usage: $0 1.NN.P [MODFILE]}"
minor="${version%.*}"
staging="v0.${version#1.}"
cd "$(dirname "$0")/../test/skew"
modfile="${2:-versions/${minor}.mod}"
export GOFLAGS=-mod=mod
# The staging modules k8s.io/kubernetes replaces, from its own go.mod.
gomod="$(go mod download -json "k8s.io/kubernetes@v${version}" | sed -n 's/.*"GoMod": "\(.*\)",/\1/p')"
mods="$(sed -n 's#^\s*\(k8s.io/[a-z0-9-]*\) => ./staging/src/.*#\1#p' "$gomod")"
{
  echo "module github.com/muster-project/muster/test/skew"
  echo
  echo "go 1.26.0"
  echo
  echo "require k8s.io/kubernetes v${version}"
  echo
  echo "replace ("
  for m in $mods; do echo "	$m => $m $staging"; done
  echo ")"
} > "$modfile"
sumfile="${modfile%.mod}.sum"
rm -f "$sumfile"
GOSUMDB="${GOSUMDB:-sum.golang.org}" go mod tidy -modfile="$modfile" || GOSUMDB=off go mod tidy -modfile="$modfile"
echo "wrote test/skew/$modfile and $sumfile for Kubernetes $version"
