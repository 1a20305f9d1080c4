#!/usr/bin/env bash
# Runs the skew test (test/skew) once per Kubernetes minor version given, each
# against that version's kube-apiserver, and prints a table: one row per
# version, one column per check (pass, FAIL, skip, or - when an earlier
# check failed). Exits non-zero if any check failed.
#
#   hack/test-skew.sh 1.34 1.35 1.36 1.37
#
# The oldest supported version is test/skew/go.mod; the others are
# test/skew/versions/1.NN.mod (hack/update-skew-modfile.sh writes them).
# Logs: bin/skew/<version>/ (go test output and each process's log).
set -uo pipefail
cd "$(dirname "$0")/.."
root="$(pwd)"
oldest="$(sed -n 's/^require k8s.io\/kubernetes v\(1\.[0-9]*\)\..*/\1/p; s/^\tk8s.io\/kubernetes v\(1\.[0-9]*\)\..*/\1/p' test/skew/go.mod | head -1)"
[ $# -gt 0 ] || set -- "$oldest"
failed=0
declare -A result
checks=()
for v in "$@"; do
  modfile=go.mod
  [ "$v" = "$oldest" ] || modfile="versions/$v.mod"
  if [ ! -f "test/skew/$modfile" ]; then
    echo "test-skew: no module file for Kubernetes $v (test/skew/$modfile); write it with hack/update-skew-modfile.sh $v.P" >&2
    exit 2
  fi
  logs="$root/bin/skew/$v"
  rm -rf "$logs" && mkdir -p "$logs"
  echo "=== test-skew: Kubernetes $v (test/skew/$modfile)"
  (cd test/skew && GOFLAGS=-mod=mod SKEW_VERSION="$v" SKEW_MODFILE="$modfile" SKEW_LOG_DIR="$logs" \
    "${GO:-go}" test -modfile="$modfile" -count=1 -timeout 20m -v . ) > "$logs/go-test.log" 2>&1
  rc=$?
  grep -E '^\s*(--- (PASS|FAIL|SKIP)|ok|FAIL|PASS)|skew_test.go' "$logs/go-test.log" | grep -v '^\s*[IWE][0-9]\{4\} ' | head -40
  [ $rc -eq 0 ] || failed=1
  while read -r status name; do
    check="${name#TestMusterOnThisAPIServer/}"
    [ "$check" = "$name" ] && continue
    [[ " ${checks[*]} " == *" $check "* ]] || checks+=("$check")
    result["$v/$check"]="$status"
  done < <(sed -n 's/^\s*--- \(PASS\|FAIL\|SKIP\): \(TestMusterOnThisAPIServer[^ ]*\).*/\1 \2/p' "$logs/go-test.log")
  if [ $rc -ne 0 ] && ! grep -q -- '--- FAIL: TestMusterOnThisAPIServer/' "$logs/go-test.log"; then
    result["$v/setup"]=FAIL
  fi
done
echo
printf '%-8s' version
for c in setup "${checks[@]}"; do printf ' | %s' "$c"; done
echo
for v in "$@"; do
  printf '%-8s' "$v"
  printf ' | %s' "${result[$v/setup]:-pass}"
  for c in "${checks[@]}"; do
    s="${result[$v/$c]:--}"
    case "$s" in PASS) s=pass;; SKIP) s=skip;; esac
    printf ' | %s' "$s"
  done
  echo
done
exit $failed
