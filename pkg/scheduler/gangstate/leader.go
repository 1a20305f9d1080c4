// Leadership: whether this replica may write (status, events, requests) or is a standby.

package gangstate

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync/atomic"

	"k8s.io/component-base/configz"
	"k8s.io/component-base/metrics/legacyregistry"
)

// Only the leader writes. kube-scheduler runs scheduling cycles on the
// elected leader only, while a standby's informers, scheduling queue and
// PreEnqueue plugins run as well: a standby would otherwise write status,
// events, annotations and requests from its own view of gangs it does not
// schedule. A replica writes once it knows it leads: leader election is off
// in its KubeSchedulerConfiguration (as kube-scheduler publishes it on
// /configz), the leader-election gauge says it holds the lease, or it has
// run a scheduling cycle (PreFilter of either Muster plugin), which only the
// leader does. A standby taking over writes from then on.

// Leadership says whether this replica may write; one per profile, shared
// by its plugins through their State.
type Leadership struct{ leading atomic.Bool }

// Scheduling records that this replica runs scheduling cycles. Called on
// every cycle, it writes the flag only the first time; plugins built by
// hand (unit tests) have no leadership.
func (l *Leadership) Scheduling() {
	if l != nil && !l.leading.Load() {
		l.leading.Store(true)
	}
}

// Leading says whether this replica may write. Until it has scheduled, it
// asks how the scheduler runs; once it leads, it leads for good: a
// kube-scheduler that loses the lease exits.
func (l *Leadership) Leading() bool {
	if l == nil || l.leading.Load() {
		return true
	}
	elect, known := leaderElection()
	if known && (!elect || holdsLease()) {
		l.leading.Store(true)
	}
	return l.leading.Load()
}

// leaderElection reads the scheduler's leader election settings from
// /configz, where kube-scheduler publishes its configuration before it
// runs for the lease; known is false until then.
func leaderElection() (elect bool, known bool) {
	mux := http.NewServeMux()
	configz.InstallHandler(mux)
	rec := httptest.NewRecorder()
	mux.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, configz.DefaultConfigzPath, nil))
	var all struct {
		Config *struct {
			LeaderElection struct {
				LeaderElect *bool `json:"leaderElect"`
			} `json:"leaderElection"`
		} `json:"componentconfig"`
	}
	if rec.Code != http.StatusOK || json.Unmarshal(rec.Body.Bytes(), &all) != nil || all.Config == nil || all.Config.LeaderElection.LeaderElect == nil {
		return false, false
	}
	return *all.Config.LeaderElection.LeaderElect, true
}

// holdsLease says whether client-go's leader-election gauge shows this
// process holding a lease: the scheduler's, the only leader election in a
// muster-scheduler. The gauge's name label is not the lease's name but
// the elector's (kube-scheduler's options set it to "kube-scheduler"
// whatever the lease is called): matched against the lease's name, as it
// once was, a replica with a lease of its own name (the chart's) learned
// that it led only from its first scheduling cycle, and a new leader with
// nothing left to schedule wrote nothing.
func holdsLease() bool {
	families, err := legacyregistry.DefaultGatherer.Gather()
	if err != nil {
		return false
	}
	for _, f := range families {
		if f.GetName() != "leader_election_master_status" {
			continue
		}
		for _, m := range f.GetMetric() {
			if m.GetGauge().GetValue() == 1 {
				return true
			}
		}
	}
	return false
}
