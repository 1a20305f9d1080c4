// Integration test of kubectl muster: both gang sources listed in the scheduler's own words with their requests, and describe showing a gang's pods and events.

package integration

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/muster-project/muster/cmd/kubectl-muster/app"
	"github.com/muster-project/muster/pkg/controlplane"
	"github.com/muster-project/muster/pkg/gang"
	"github.com/muster-project/muster/pkg/topology"
)

// kubectlMuster runs kubectl muster with args against the test API server
// and returns what it printed.
func kubectlMuster(t *testing.T, env *controlplane.Env, args ...string) string {
	t.Helper()
	kc, err := env.Kubeconfig()
	if err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	cmd := app.NewCommand(genericiooptions.IOStreams{Out: &out, ErrOut: &errOut})
	cmd.SetArgs(append([]string{"--kubeconfig", kc, "--namespace", ns}, args...))
	if err := cmd.Execute(); err != nil {
		t.Fatalf("kubectl muster %v: %v; stderr %s", args, err, errOut.String())
	}
	return out.String()
}

// kubectl muster lists both gang sources with the scheduler's own words: a
// PodGroup gang that bound in one placement group, and a CRD-free gang too
// large for the cluster, with its request for nodes; describe shows a
// gang's pods and events.
func TestKubectlMusterGangs(t *testing.T) {
	ctx, env, _ := setup(t, controlplane.GangArgs{BackoffSeconds: 1})
	for _, n := range []string{"a0", "a1"} {
		if err := controlplane.CreateNode(ctx, env.Client, controlplane.GPUNode(n, 8, topology.PlacementGroupLabel, "pg-a")); err != nil {
			t.Fatal(err)
		}
	}
	createPodGroup(t, env, 2, 0, 0, "train")
	if err := controlplane.CreatePods(ctx, env.Client, controlplane.PodGroupMembers(ns, "train", 2, 8)...); err != nil {
		t.Fatal(err)
	}
	waitBound(t, env, gang.PodGroupLabel, "train", 2)
	topoGang(t, ctx, env, "big", 3, 8, 3, 3)
	waitProvReqs(t, ctx, env, "big", "for 3 members", oneRequestFor(3))
	waitCondition(t, ctx, env, "train", gang.ReasonAtMax, "2 of max 2 members placed")

	var table string
	waitFor(t, "both gangs listed with the scheduler's reasons", func() bool {
		table = kubectlMuster(t, env, "gangs", "-o", "wide")
		return strings.Contains(table, gang.ReasonAtMax) && strings.Contains(table, gang.ReasonUnschedulable)
	})
	lines := strings.Split(strings.TrimSpace(table), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "NAME") {
		t.Fatalf("table:\n%s\nwant a header and two gangs", table)
	}
	row := func(name string) string {
		for _, l := range lines[1:] {
			if strings.HasPrefix(l, name+" ") {
				return l
			}
		}
		return ""
	}
	for name, wants := range map[string][]string{
		"big":   {" labels ", " 0 ", " 3 ", " Pending ", " Unschedulable ", " <none> ", "muster-big-", "(3 pods, Pending)", "needs 3 members x 8 GPUs"},
		"train": {" podgroup ", " 2 ", " Scheduling ", " AtMax ", " placement-group=pg-a ", "2 of max 2 members placed"},
	} {
		r := row(name)
		for _, w := range wants {
			if !strings.Contains(r, w) {
				t.Errorf("%s's row lacks %q; table:\n%s", name, w, table)
			}
		}
	}

	var doc struct {
		Gangs []struct {
			Name, Source, Phase, Reason, Message string
			Bound                                int
		}
	}
	if err := json.Unmarshal([]byte(kubectlMuster(t, env, "gangs", "-o", "json")), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Gangs) != 2 || doc.Gangs[0].Name != "big" || !strings.Contains(doc.Gangs[0].Message, "gang team-a/big") {
		t.Errorf("json: %+v", doc.Gangs)
	}

	desc := kubectlMuster(t, env, "describe", "gang", "train")
	for _, want := range []string{"Name:       train", "Source:     podgroup", "Members:    2 (bound 2, min 2, max 2)", "Scheduled", "train-0", "a0", "Events:"} {
		if !strings.Contains(desc, want) {
			t.Errorf("describe gang train lacks %q:\n%s", want, desc)
		}
	}
}
