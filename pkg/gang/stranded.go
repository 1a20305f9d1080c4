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
	return true, 0, fmt.Sprintf("gang %s had %d of min %d members bound for %s, its timeout, and the rest did not join: they were evicted so that their GPUs do not sit idle under a partial gang",
		s.Key, bound, s.MinMember, s.Timeout)
}
