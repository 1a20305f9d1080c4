#!/usr/bin/env bash
# stress.sh: run the integration suite (test/integration) N times beside
# CPU hogs, to find tests whose verdict depends on timing. The test binary
# is built once. A run splits the suite into shards, each a process of its
# own (its own etcd, API servers and schedulers: the tests share nothing
# across processes), run side by side; the tests are spread over the shards
# by their durations in the previous stress logs, longest first. Each
# shard's output is kept in bin/stress/run-K-S.log, and the tests that
# failed are counted by name. Prints, last:
#   stress: runs N, failed tests F
# and exits non-zero when F > 0.
#
# Environment: STRESS_N (runs, default 10), STRESS_HOGS (busy processes
# beside the suite, default 2), STRESS_RUN (a pattern of top-level tests,
# default all), STRESS_SHARDS (processes per run, default 3; 1 runs the
# suite in one process, as make test does).
set -uo pipefail
cd "$(dirname "$0")/.."
n="${STRESS_N:-10}"
hogs="${STRESS_HOGS:-2}"
pattern="${STRESS_RUN:-.}"
shards="${STRESS_SHARDS:-3}"
out="bin/stress"
bin="$out/integration.test"
mkdir -p "$out"

"${GO:-go}" test -c -o "$bin" ./test/integration || exit 1

# Durations from the previous logs (a test not seen there counts 10 s), then
# the logs go.
known=$(cat "$out"/run-*.log 2>/dev/null | sed -nE 's/^--- (PASS|FAIL): ([^ ]+) \(([0-9.]+)s\)$/\2 \3/p')
rm -f "$out"/run-*.log
tests=$(cd test/integration && "../../$bin" -test.list "$pattern" | grep -E '^(Test|Example)' || true)
if [ -z "$tests" ]; then
  echo "stress: no test matches STRESS_RUN=$pattern" >&2
  exit 1
fi
# plan: one line per shard, "S ^(TestA|TestB)$"; longest test first onto the
# least loaded shard.
plan=$(awk -v shards="$shards" '
  FNR == NR { if ($2 > dur[$1]) dur[$1] = $2; next }
  { d = ($1 in dur) ? dur[$1] : 10; print d, $1 }' <(echo "$known") <(echo "$tests") |
  sort -k1,1nr -k2 | awk -v shards="$shards" '
  { best = 0; for (s = 1; s < shards; s++) if (load[s] < load[best]) best = s
    load[best] += $1; names[best] = names[best] (names[best] == "" ? "" : "|") $2 }
  END { for (s = 0; s < shards; s++) if (names[s] != "") {
      printf "%d ^(%s)$\n", s + 1, names[s]
      printf "stress: shard %d, about %ds: %s\n", s + 1, load[s], names[s] > "/dev/stderr" } }')

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
  start=$(date +%s)
  shard_pids=()
  while read -r s run; do
    (cd test/integration && exec "../../$bin" -test.run "$run" -test.timeout 80m -test.v > "../../$out/run-$k-$s.log" 2>&1) &
    shard_pids+=("$s:$!")
  done <<< "$plan"
  names=""
  ok=1
  for sp in "${shard_pids[@]}"; do
    s="${sp%%:*}"
    wait "${sp#*:}"
    rc=$?
    log="$out/run-$k-$s.log"
    shard_names=$(grep -E '^\s*--- FAIL: ' "$log" | sed -E 's/^\s*--- FAIL: ([^ ]+).*/\1/' | sort -u)
    if [ "$rc" -ne 0 ] && [ -z "$shard_names" ]; then
      shard_names="(shard-$s-exit-$rc-without-a-failed-test)"
    fi
    [ "$rc" -eq 0 ] || ok=0
    names="$names $shard_names"
  done
  names=$(echo $names)
  for t in $names; do
    failed[$t]=$(( ${failed[$t]:-0} + 1 ))
    total=$((total + 1))
  done
  printf 'run %d/%d: %s in %ds%s\n' "$k" "$n" "$([ "$ok" -eq 1 ] && echo pass || echo FAIL)" "$(( $(date +%s) - start ))" \
    "$([ -n "$names" ] && echo " ($(echo $names | tr ' ' ','))")"
done

for t in "${!failed[@]}"; do
  printf '  %-60s failed %d of %d runs\n' "$t" "${failed[$t]}" "$n"
done
echo "stress: runs $n, failed tests $total"
[ "$total" -eq 0 ]
