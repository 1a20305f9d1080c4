// The step log (--step-log): the cluster after each step, and where two step logs first differ.

package replay

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/dynamic"

	autoscalingv1 "github.com/muster-project/muster/pkg/apis/autoscaling/v1"
	"github.com/muster-project/muster/pkg/controlplane"
)

// stepLog writes the cluster as each step left it (--step-log): nodes with
// their taints, pods with their nodes and consume marks, ProvisioningRequests
// with their true conditions, one sorted line each, under a line naming the
// step's trace minute. Two replays of one trace and seed should write the
// same file; `diff` shows the first step where they part, and what differs.
type stepLog struct {
	w   io.Writer
	env *controlplane.Env
	dyn dynamic.Interface
}

func newStepLog(w io.Writer, env *controlplane.Env) (*stepLog, error) {
	dyn, err := dynamic.NewForConfig(env.Config)
	if err != nil {
		return nil, fmt.Errorf("--step-log: %w", err)
	}
	return &stepLog{w: w, env: env, dyn: dyn}, nil
}

// write logs the cluster after the step at minute.
func (l *stepLog) write(ctx context.Context, minute float64) error {
	nodes, err := l.env.Client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("--step-log: listing nodes: %w", err)
	}
	pods, err := l.env.Client.CoreV1().Pods(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("--step-log: listing pods: %w", err)
	}
	reqs, err := l.dyn.Resource(autoscalingv1.Resource).Namespace(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("--step-log: listing ProvisioningRequests: %w", err)
	}
	var lines []string
	for _, n := range nodes.Items {
		var taints []string
		for _, t := range n.Spec.Taints {
			// A taint's value may be a wall-time stamp (the autoscaler's):
			// its key and effect are what the scheduler acts on.
			taints = append(taints, fmt.Sprintf("%s:%s", t.Key, t.Effect))
		}
		slices.Sort(taints)
		lines = append(lines, fmt.Sprintf("node %s%s%s", n.Name, deleting(n.DeletionTimestamp), joined(" taints=", taints)))
	}
	for _, p := range pods.Items {
		where := "pending"
		if p.Spec.NodeName != "" {
			where = "on " + p.Spec.NodeName
		}
		consume := ""
		if c, ok := p.Annotations[autoscalingv1.ConsumeAnnotation]; ok {
			consume = " consumes=" + c
		}
		lines = append(lines, fmt.Sprintf("pod %s/%s %s%s%s", p.Namespace, p.Name, where, consume, deleting(p.DeletionTimestamp)))
	}
	for _, u := range reqs.Items {
		var pr autoscalingv1.ProvisioningRequest
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &pr); err != nil {
			return fmt.Errorf("--step-log: ProvisioningRequest %s/%s: %w", u.GetNamespace(), u.GetName(), err)
		}
		var conds []string
		for _, c := range pr.Status.Conditions {
			if c.Status == metav1.ConditionTrue {
				conds = append(conds, c.Type)
			}
		}
		slices.Sort(conds)
		lines = append(lines, fmt.Sprintf("request %s/%s%s%s", pr.Namespace, pr.Name, joined(" ", conds), deleting(pr.DeletionTimestamp)))
	}
	slices.Sort(lines)
	_, err = fmt.Fprintf(l.w, "== minute %.1f\n%s\n", minute, strings.Join(lines, "\n"))
	return err
}

func deleting(t *metav1.Time) string {
	if t != nil {
		return " deleting"
	}
	return ""
}

func joined(prefix string, items []string) string {
	if len(items) == 0 {
		return ""
	}
	return prefix + strings.Join(items, ",")
}

// firstStepDifference compares two step logs (--step-log) and says where
// they first part: both steps' minutes and the lines only one of them has
// there ("<" the first log's, ">" the second's), at most most of each. It
// returns "" for logs that agree.
func firstStepDifference(a, b io.Reader, most int) (string, error) {
	sa, err := readSteps(a)
	if err != nil {
		return "", err
	}
	sb, err := readSteps(b)
	if err != nil {
		return "", err
	}
	for i := range max(len(sa), len(sb)) {
		var x, y []string
		if i < len(sa) {
			x = sa[i]
		}
		if i < len(sb) {
			y = sb[i]
		}
		if slices.Equal(x, y) {
			continue
		}
		var out strings.Builder
		fmt.Fprintf(&out, "%s | %s", stepHead(x), stepHead(y))
		only := func(mark string, p, q []string) {
			n := 0
			for _, l := range p[min(1, len(p)):] {
				if slices.Contains(q, l) {
					continue
				}
				if n == most {
					fmt.Fprintf(&out, "\n  %s ...", mark)
					return
				}
				fmt.Fprintf(&out, "\n  %s %s", mark, l)
				n++
			}
		}
		only("<", x, y)
		only(">", y, x)
		return out.String(), nil
	}
	return "", nil
}

// readSteps splits a step log into steps, each its "== minute" line and
// the lines that follow it.
func readSteps(r io.Reader) ([][]string, error) {
	s := bufio.NewScanner(r)
	s.Buffer(nil, 1<<20)
	var steps [][]string
	for s.Scan() {
		line := s.Text()
		if strings.HasPrefix(line, "== minute") || len(steps) == 0 {
			steps = append(steps, nil)
		}
		steps[len(steps)-1] = append(steps[len(steps)-1], line)
	}
	return steps, s.Err()
}

func stepHead(step []string) string {
	if len(step) == 0 {
		return "(no step)"
	}
	return strings.TrimPrefix(step[0], "== ")
}
