// Members stranded below min: the policy, the verdict, and the stranded-since annotation.

package gang

import (
	"fmt"
	"time"
)

// StrandedPolicy says what becomes of members stranded below min.
type StrandedPolicy string

const (
	// StrandedEvict evicts a gang's bound members once they have stood
	// below min for the gang's timeout.
	StrandedEvict StrandedPolicy = "Evict"
	// StrandedKeep leaves them bound; the gang's status reports them.
	StrandedKeep StrandedPolicy = "Keep"
)

// Stranded says whether a gang's bound members are stranded: some but fewer
// than min are bound and none has finished or failed. Such members hold GPUs
// under half a gang: it happens when a bind fails, a node goes between
// Permit and Bind, a Permit timer fires as the quorum completes, or a member
// of a running gang is lost. Members that finished or failed are the
// training operator's business, not the scheduler's.
func (s Spec) Stranded(bound, succeeded, failed int) bool {
	return bound > 0 && bound < int(s.MinMember) && succeeded == 0 && failed == 0
}

// StrandedVerdict decides for members stranded since since: the rest of the
// quorum may still join within the gang's timeout (left > 0), after which
// they are evicted, with msg saying why.
func (s Spec) StrandedVerdict(bound int, since, now time.Time) (evict bool, left time.Duration, msg string) {
	left = s.Timeout - now.Sub(since)
	if left > 0 {
		return false, left, ""
	}
	return true, 0, fmt.Sprintf("gang %s had %d of min %d members bound since %s, past its timeout of %s, and the rest did not join: they were evicted so that their GPUs do not sit idle under a partial gang",
		s.Key, bound, s.MinMember, FormatStrandedSince(since), s.Timeout)
}

// StrandedSinceAnnotation records on a gang's bound members when they fell
// below min. A scheduler that takes over (a restart, a new leader) reads it
// and keeps the gang's timeout running instead of starting it again, so a
// failover never stretches how long GPUs sit under a partial gang.
const StrandedSinceAnnotation = "muster.dev/stranded-since"

// strandedLayout keeps milliseconds: the timeout is counted from the same
// instant by every scheduler that reads it.
const strandedLayout = "2006-01-02T15:04:05.000Z07:00"

// FormatStrandedSince renders t for StrandedSinceAnnotation.
func FormatStrandedSince(t time.Time) string { return t.UTC().Format(strandedLayout) }

// StrandedSince returns the earliest time recorded in values (the members'
// StrandedSinceAnnotation), ignoring empty and unparsable ones, and no later
// than now; ok is false when none is recorded.
func StrandedSince(values []string, now time.Time) (since time.Time, ok bool) {
	for _, v := range values {
		t, err := time.Parse(time.RFC3339Nano, v)
		if v == "" || err != nil {
			continue
		}
		if !ok || t.Before(since) {
			since, ok = t, true
		}
	}
	if ok && since.After(now) {
		since = now
	}
	return since, ok
}
