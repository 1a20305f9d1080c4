#!/usr/bin/env bash
# gotest.sh: `go test "$@"`, its whole output streamed as usual and kept in a
# log; if it fails, the failing tests and their messages are printed again at
# the end. The in-process API servers log a great deal after a test fails, so
# without this the last lines of a CI log never name what broke.
set -uo pipefail
log="$(mktemp "${TMPDIR:-/tmp}/muster-gotest.XXXXXX")"
trap 'rm -f "$log"' EXIT
"${GO:-go}" test "$@" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
if [ "$rc" -ne 0 ]; then
  echo
  echo "=== go test $* failed (exit $rc); the failures again:"
  # A failed test's own lines follow its "--- FAIL" line, indented; klog's
  # lines (I/W/E + date) are not the test's and are left out.
  awk '
    /^(--- FAIL|panic:|FAIL|fatal error:|ok  )/ { show = ($0 !~ /^ok  /); if (show) print; next }
    /^=== RUN|^--- PASS|^--- SKIP|^PASS$/ { show = 0; next }
    show && /^[ \t]/ && $0 !~ /^[ \t]*[IWEF][0-9]{4} / { print }
  ' "$log" | head -n 300
fi
exit "$rc"
