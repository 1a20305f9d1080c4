// Tests of leadership: a replica leads once client-go's gauge says it holds the lease, whatever the lease is called, and without leader election once the configuration is published.

package gangstate

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	componentbaseconfig "k8s.io/component-base/config/v1alpha1"
	"k8s.io/component-base/configz"
	k8smetrics "k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/legacyregistry"
	schedconfig "k8s.io/kube-scheduler/config/v1"
	"k8s.io/utils/ptr"
)

// publish sets the configuration kube-scheduler publishes on /configz, with
// leader election on or off, on a lease not named after the elector.
func publish(t *testing.T, cfg *configz.Config, elect bool) {
	t.Helper()
	if err := cfg.Set(&schedconfig.KubeSchedulerConfiguration{
		TypeMeta:       metav1.TypeMeta{APIVersion: schedconfig.SchemeGroupVersion.String(), Kind: "KubeSchedulerConfiguration"},
		LeaderElection: componentbaseconfig.LeaderElectionConfiguration{LeaderElect: ptr.To(elect), ResourceName: "muster-scheduler"},
	}); err != nil {
		t.Fatal(err)
	}
}

// A replica with leader election on leads once client-go's leader-election
// gauge says it holds the lease, whatever the lease is called: the gauge's
// name label is the elector's ("kube-scheduler" in kube-scheduler), not the
// lease's. Matched against the lease's name, a new leader with nothing to
// schedule never learned it led, and wrote nothing (TestOnlyTheLeaderWrites
// in stress: "waiting for the new leader's safe-to-evict mark").
func TestLeadingOnceTheGaugeSaysTheLeaseIsHeld(t *testing.T) {
	cfg, err := configz.New("componentconfig")
	if err != nil {
		t.Fatal(err)
	}
	defer configz.Delete("componentconfig")
	publish(t, cfg, true)
	// client-go's gauge, as component-base registers it once a leader
	// election starts.
	gauge := k8smetrics.NewGaugeVec(&k8smetrics.GaugeOpts{Name: "leader_election_master_status", StabilityLevel: k8smetrics.ALPHA}, []string{"name"})
	legacyregistry.MustRegister(gauge)

	var l Leadership
	if l.Leading() {
		t.Fatal("a replica running for the lease leads before it holds it")
	}
	gauge.WithLabelValues("kube-scheduler").Set(0)
	if l.Leading() {
		t.Fatal("a standby leads")
	}
	gauge.WithLabelValues("kube-scheduler").Set(1)
	if !l.Leading() {
		t.Fatal("the replica holding the lease (muster-scheduler, elector kube-scheduler) does not lead")
	}
}

// Without leader election a replica leads; before kube-scheduler has
// published its configuration, it does not know, and does not.
func TestLeadingWithoutLeaderElection(t *testing.T) {
	var l Leadership
	if l.Leading() {
		t.Fatal("a replica leads before its scheduler published its configuration")
	}
	cfg, err := configz.New("componentconfig")
	if err != nil {
		t.Fatal(err)
	}
	defer configz.Delete("componentconfig")
	publish(t, cfg, false)
	if !l.Leading() {
		t.Fatal("a replica without leader election does not lead")
	}
	var sched Leadership
	sched.Scheduling()
	if !sched.Leading() {
		t.Fatal("a replica that ran a scheduling cycle does not lead")
	}
}
