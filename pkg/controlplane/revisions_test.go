// Tests of the storage revision and WrittenSince on a running control plane.

package controlplane

import (
	"context"
	"fmt"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// WrittenSince sees exactly the writes to the resources it is asked about,
// creations, changes and deletions alike, and none to others.
func TestWrittenSince(t *testing.T) {
	ctx := context.Background()
	env, err := Start(t)
	if err != nil {
		t.Fatal(err)
	}
	if err := CreateNamespace(ctx, env.Client, "w"); err != nil {
		t.Fatal(err)
	}
	if err := CreateNode(ctx, env.Client, GPUNode("n1", 8)); err != nil {
		t.Fatal(err)
	}
	pods := env.Client.CoreV1().Pods("w")
	pod := Member{Namespace: "w", Name: "p", GPUs: 1}.Pod()
	if _, err := pods.Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	both := []string{StoredPods, StoredNodes}
	for _, tc := range []struct {
		name  string
		write func() error
		want  bool
	}{
		{"nothing", func() error { return nil }, false},
		{"a ConfigMap", func() error {
			_, err := env.Client.CoreV1().ConfigMaps("w").Create(ctx, &v1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c"}}, metav1.CreateOptions{})
			return err
		}, false},
		{"a pod's annotation", func() error {
			_, err := pods.Patch(ctx, "p", "application/merge-patch+json", []byte(`{"metadata":{"annotations":{"a":"b"}}}`), metav1.PatchOptions{})
			return err
		}, true},
		{"a node's label", func() error {
			_, err := env.Client.CoreV1().Nodes().Patch(ctx, "n1", "application/merge-patch+json", []byte(`{"metadata":{"labels":{"a":"b"}}}`), metav1.PatchOptions{})
			return err
		}, true},
		{"a new pod", func() error {
			_, err := pods.Create(ctx, Member{Namespace: "w", Name: "q", GPUs: 1}.Pod(), metav1.CreateOptions{})
			return err
		}, true},
		{"a pod deleted", func() error { return pods.Delete(ctx, "q", metav1.DeleteOptions{GracePeriodSeconds: new(int64)}) }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rev, err := env.Revision(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if err := tc.write(); err != nil {
				t.Fatal(err)
			}
			got, err := env.WrittenSince(ctx, rev, both...)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("WrittenSince(pods, nodes) = %v, want %v", got, tc.want)
			}
			// The ProvisioningRequests alone saw none of it.
			if got, err := env.WrittenSince(ctx, rev, StoredProvisioningRequests); err != nil || got {
				t.Errorf("WrittenSince(provisioningrequests) = %v, %v; want false", got, err)
			}
		})
	}
}

// StoredNodesAndPods reads what a list through the API server returns,
// resourceVersions included (Caught compares nodes by them), and so does a
// StoredReader that read before some of the writes (it decodes only what
// was written since): a pod changed, one deleted and created again under
// its name, one deleted for good, a node changed and one added.
func TestStoredNodesAndPods(t *testing.T) {
	ctx := context.Background()
	env, err := Start(t)
	if err != nil {
		t.Fatal(err)
	}
	if err := CreateNamespace(ctx, env.Client, "s"); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"n1", "n2"} {
		if err := CreateNode(ctx, env.Client, GPUNode(n, 8)); err != nil {
			t.Fatal(err)
		}
	}
	pods := env.Client.CoreV1().Pods("s")
	create := func(name string) {
		t.Helper()
		if _, err := pods.Create(ctx, Member{Namespace: "s", Name: name, GPUs: 1}.Pod(), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{"p", "q", "r", "s"} {
		create(p)
	}
	reader := env.NewStoredReader()
	key := func(o metav1.Object) string {
		return o.GetNamespace() + "/" + o.GetName() + "@" + o.GetResourceVersion()
	}
	keys := func(nodes []v1.Node, pods []v1.Pod) (out []string) {
		for i := range nodes {
			out = append(out, key(&nodes[i]))
		}
		for i := range pods {
			out = append(out, key(&pods[i]))
		}
		return out
	}
	if _, _, err := reader.NodesAndPods(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := pods.Patch(ctx, "p", "application/merge-patch+json", []byte(`{"metadata":{"annotations":{"a":"b"}}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"q", "s"} {
		if err := pods.Delete(ctx, p, metav1.DeleteOptions{GracePeriodSeconds: new(int64)}); err != nil {
			t.Fatal(err)
		}
	}
	create("s")
	if _, err := env.Client.CoreV1().Nodes().Patch(ctx, "n2", "application/merge-patch+json", []byte(`{"metadata":{"labels":{"l":"m"}}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := CreateNode(ctx, env.Client, GPUNode("n3", 8)); err != nil {
		t.Fatal(err)
	}
	listedNodes, err := env.Client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	listedPods, err := pods.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := keys(listedNodes.Items, listedPods.Items)
	freshNodes, freshPods, err := env.StoredNodesAndPods(ctx)
	if err != nil {
		t.Fatal(err)
	}
	readNodes, readPods, err := reader.NodesAndPods(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for name, got := range map[string][]string{"StoredNodesAndPods": keys(freshNodes, freshPods), "a StoredReader's second read": keys(readNodes, readPods)} {
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: stored %v, listed %v", name, got, want)
		}
	}
	for _, read := range [][]v1.Pod{freshPods, readPods} {
		for i := range read {
			if read[i].Name == "p" && read[i].Annotations["a"] != "b" {
				t.Errorf("stored pod p has annotations %v, want a=b", read[i].Annotations)
			}
		}
	}
	for _, n := range readNodes {
		if n.Name == "n2" && n.Labels["l"] != "m" {
			t.Errorf("a StoredReader's node n2 has labels %v, want l=m", n.Labels)
		}
	}
}
