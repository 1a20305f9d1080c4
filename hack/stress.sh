#!/usr/bin/env bash
# stress.sh: run the integration suite (test/integration) N times beside
# CPU hogs, to find tests whose verdict depends on timing. The test binary
# is built once; each run's output is kept in bin/stress/run-K.log, and the
# tests that failed are counted by name. Prints, last:
#   stress: runs N, failed tests F
# and exits non-zero when F > 0.
#
# Environment: STRESS_N (runs, default 10), STRESS_HOGS (busy processes
# beside the suite, default 2), STRESS_RUN (a -run pattern, default all),
# STRESS_P (test parallelism inside a run, default 1 per package).
set -uo pipefail
cd "$(dirname "$0")/.."
n="${STRESS_N:-10}"
hogs="${STRESS_HOGS:-2}"
pattern="${STRESS_RUN:-.}"
out="bin/stress"
mkdir -p "$out"
rm -f "$out"/run-*.log

"${GO:-go}" test -c -o "$out/integration.test" ./test/integration || exit 1

pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; }
trap cleanup EXIT
for _ in $(seq 1 "$hogs"); do
  # A busy loop on one core each: the scheduler, the API server and the
  # tests get what is left, as on a loaded CI runner.
  yes > /dev/null &
  pids+=("$!")
done

declare -A failed=()
total=0
for k in $(seq 1 "$n"); do
  log="$out/run-$k.log"
  start=$(date +%s)
  (cd test/integration && "../../$out/integration.test" -test.run "$pattern" -test.timeout 80m -test.v > "../../$log" 2>&1)
  rc=$?
  names=$(grep -E '^\s*--- FAIL: ' "$log" | sed -E 's/^\s*--- FAIL: ([^ ]+).*/\1/' | sort -u)
  if [ "$rc" -ne 0 ] && [ -z "$names" ]; then
    names="(exit-$rc-without-a-failed-test)"
  fi
  for t in $names; do
    failed[$t]=$(( ${failed[$t]:-0} + 1 ))
    total=$((total + 1))
  done
  printf 'run %d/%d: %s in %ds%s\n' "$k" "$n" "$([ "$rc" -eq 0 ] && echo pass || echo FAIL)" "$(( $(date +%s) - start ))" \
    "$([ -n "$names" ] && echo " ($(echo $names | tr ' ' ','))")"
done

for t in "${!failed[@]}"; do
  printf '  %-60s failed %d of %d runs\n' "$t" "${failed[$t]}" "$n"
done
echo "stress: runs $n, failed tests $total"
[ "$total" -eq 0 ]
