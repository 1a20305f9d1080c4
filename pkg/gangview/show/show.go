// Package show is what kubectl muster prints: the gangs it reads from the
// API (pods, PodGroups, ProvisioningRequests, nodes, events), turned into
// pkg/gangview's rows, as a table, JSON or YAML, or one gang described.
package show

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"

	autoscalingv1 "github.com/muster-project/muster/pkg/apis/autoscaling/v1"
	"github.com/muster-project/muster/pkg/gang"
	"github.com/muster-project/muster/pkg/gangview"
)

// Options is how kubectl muster prints (its flags).
type Options struct {
	Out, ErrOut   io.Writer
	AllNamespaces bool
	Output        string // "", wide, json or yaml
	Watch         bool
	Now           func() time.Time
}

var podGroupsGVR = schema.GroupVersionResource{Group: "scheduling.x-k8s.io", Version: "v1alpha1", Resource: "podgroups"}

// Clients is what kubectl muster reads the API with.
type Clients struct {
	Kube kubernetes.Interface
	Dyn  dynamic.Interface
}

// read lists what gangview needs. PodGroups and ProvisioningRequests are
// optional (their CRDs may not be installed), and so are nodes (a user may
// not be allowed to list them: the domain column stays empty).
func read(ctx context.Context, c Clients, ns string) (gangview.Objects, error) {
	var o gangview.Objects
	pods, err := c.Kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return o, fmt.Errorf("listing pods: %w", err)
	}
	o.Pods = pods.Items
	pgs, err := c.Dyn.Resource(podGroupsGVR).Namespace(ns).List(ctx, metav1.ListOptions{})
	switch {
	case err == nil:
		for i := range pgs.Items {
			pg, err := gangview.PodGroupFrom(&pgs.Items[i])
			if err != nil {
				return o, err
			}
			o.PodGroups = append(o.PodGroups, pg)
		}
	case !apierrors.IsNotFound(err):
		return o, fmt.Errorf("listing PodGroups: %w", err)
	}
	// Upstream's Workload API (scheduling.k8s.io/v1beta1), where served.
	wpgs, err := c.Kube.SchedulingV1beta1().PodGroups(ns).List(ctx, metav1.ListOptions{})
	switch {
	case err == nil:
		o.WorkloadPodGroups = wpgs.Items
		if wls, err := c.Kube.SchedulingV1beta1().Workloads(ns).List(ctx, metav1.ListOptions{}); err == nil {
			o.Workloads = wls.Items
		} else if !apierrors.IsNotFound(err) {
			return o, fmt.Errorf("listing Workloads: %w", err)
		}
	case !apierrors.IsNotFound(err):
		return o, fmt.Errorf("listing PodGroups (%s): %w", gang.WorkloadGroupVersion, err)
	}
	prs, err := c.Dyn.Resource(autoscalingv1.Resource).Namespace(ns).List(ctx, metav1.ListOptions{})
	switch {
	case err == nil:
		for i := range prs.Items {
			var pr autoscalingv1.ProvisioningRequest
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(prs.Items[i].Object, &pr); err != nil {
				return o, fmt.Errorf("ProvisioningRequest %s/%s: %w", prs.Items[i].GetNamespace(), prs.Items[i].GetName(), err)
			}
			o.Requests = append(o.Requests, pr)
		}
	case !apierrors.IsNotFound(err):
		return o, fmt.Errorf("listing ProvisioningRequests: %w", err)
	}
	if nodes, err := c.Kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{}); err == nil {
		o.Nodes = nodes.Items
	}
	return o, nil
}

// Gangs lists the gangs of namespace ns (every namespace with
// o.AllNamespaces) as a table, wide, JSON or YAML, again on each pod change
// with o.Watch: kubectl muster gangs.
func (o *Options) Gangs(ctx context.Context, c Clients, ns string) error {
	switch o.Output {
	case "", "wide", "json", "yaml":
	default:
		return fmt.Errorf("--output: %q is not one of wide, json, yaml", o.Output)
	}
	if o.AllNamespaces {
		ns = metav1.NamespaceAll
	}
	show := func() error {
		objs, err := read(ctx, c, ns)
		if err != nil {
			return err
		}
		return o.print(gangview.Build(objs, o.Now()))
	}
	if err := show(); err != nil || !o.Watch {
		return err
	}
	for {
		w, err := c.Kube.CoreV1().Pods(ns).Watch(ctx, metav1.ListOptions{})
		if err != nil {
			return fmt.Errorf("watching pods: %w", err)
		}
		changed := time.NewTimer(time.Hour)
		changed.Stop()
	events:
		for {
			select {
			case <-ctx.Done():
				w.Stop()
				return nil
			case _, ok := <-w.ResultChan():
				if !ok {
					break events // the server closed the watch: start another
				}
				changed.Reset(300 * time.Millisecond) // a burst of changes prints once
			case <-changed.C:
				fmt.Fprintln(o.Out)
				if err := show(); err != nil {
					w.Stop()
					return err
				}
			}
		}
	}
}

func (o *Options) print(rows []gangview.Row) error {
	switch o.Output {
	case "json":
		b, err := json.MarshalIndent(map[string]any{"gangs": rows}, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(o.Out, string(b))
		return err
	case "yaml":
		b, err := yaml.Marshal(map[string]any{"gangs": rows})
		if err != nil {
			return err
		}
		_, err = o.Out.Write(b)
		return err
	}
	if len(rows) == 0 {
		_, err := fmt.Fprintln(o.ErrOut, "No gangs found.")
		return err
	}
	tw := tabwriter.NewWriter(o.Out, 0, 0, 3, ' ', 0)
	head := []string{"NAME", "SOURCE", "BOUND", "MIN", "MAX", "PHASE", "WAITED", "REASON"}
	if o.AllNamespaces {
		head = append([]string{"NAMESPACE"}, head...)
	}
	if o.Output == "wide" {
		head = append(head, "DOMAIN", "REQUEST", "MESSAGE")
	}
	fmt.Fprintln(tw, strings.Join(head, "\t"))
	for _, r := range rows {
		cells := []string{r.Name, r.Source, fmt.Sprint(r.Bound), fmt.Sprint(r.Min), fmt.Sprint(r.Max), r.Phase, gangview.Age(r.Waited), r.Reason}
		if o.AllNamespaces {
			cells = append([]string{r.Namespace}, cells...)
		}
		if o.Output == "wide" {
			cells = append(cells, orNone(r.Domain), orNone(r.Request), gangview.Short(r.Message, 120))
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	return tw.Flush()
}

func orNone(s string) string {
	if s == "" {
		return "<none>"
	}
	return s
}

// Describe prints gang name of namespace ns: its members, their nodes, its
// conditions and events: kubectl muster describe gang NAME.
func (o *Options) Describe(ctx context.Context, c Clients, ns, name string) error {
	objs, err := read(ctx, c, ns)
	if err != nil {
		return err
	}
	now := o.Now()
	var row *gangview.Row
	rows := gangview.Build(objs, now)
	for i := range rows {
		if rows[i].Name == name {
			row = &rows[i]
		}
	}
	if row == nil {
		return fmt.Errorf("gang %s/%s not found: no pod labels it and no PodGroup has that name", ns, name)
	}
	out := o.Out
	fmt.Fprintf(out, "Name:       %s\nNamespace:  %s\nSource:     %s\n", row.Name, row.Namespace, row.Source)
	fmt.Fprintf(out, "Members:    %d (bound %d, min %d, max %d)\n", row.Members, row.Bound, row.Min, row.Max)
	fmt.Fprintf(out, "Phase:      %s\nReason:     %s\nMessage:    %s\n", row.Phase, row.Reason, row.Message)
	fmt.Fprintf(out, "Waited:     %s\nDomain:     %s\nRequest:    %s\n", gangview.Age(row.Waited), orNone(row.Domain), orNone(row.Request))
	for _, pg := range objs.PodGroups {
		if pg.Name != name || len(pg.Conditions) == 0 {
			continue
		}
		fmt.Fprintln(out, "Conditions:")
		tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  TYPE\tSTATUS\tREASON\tMESSAGE")
		for _, c := range pg.Conditions {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", c.Type, c.Status, c.Reason, c.Message)
		}
		tw.Flush()
	}
	fmt.Fprintln(out, "Pods:")
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  NAME\tNODE\tPHASE\tSCHEDULED")
	names := map[string]bool{}
	for _, p := range row.Pods {
		names[p.Name] = true
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", p.Name, orNone(p.Spec.NodeName), p.Status.Phase, scheduled(p))
	}
	tw.Flush()
	return describeEvents(ctx, out, c, ns, name, names, now)
}

// scheduled is a pod's PodScheduled condition in brief.
func scheduled(p *v1.Pod) string {
	for _, c := range p.Status.Conditions {
		if c.Type == v1.PodScheduled {
			if c.Status == v1.ConditionTrue {
				return "True"
			}
			return gangview.Short(c.Reason+": "+c.Message, 100)
		}
	}
	return "<none>"
}

// describeEvents prints the events about the gang's PodGroup and members,
// oldest first.
func describeEvents(ctx context.Context, out io.Writer, c Clients, ns, gangName string, pods map[string]bool, now time.Time) error {
	list, err := c.Kube.EventsV1().Events(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("listing events: %w", err)
	}
	type event struct {
		at                         time.Time
		typ, reason, object, notes string
	}
	var evs []event
	for _, e := range list.Items {
		r := e.Regarding
		if !(r.Kind == "PodGroup" && r.Name == gangName) && !(r.Kind == "Pod" && pods[r.Name]) {
			continue
		}
		at := e.EventTime.Time
		if at.IsZero() {
			at = e.DeprecatedLastTimestamp.Time
		}
		if at.IsZero() {
			at = e.CreationTimestamp.Time
		}
		evs = append(evs, event{at: at, typ: e.Type, reason: e.Reason, object: r.Kind + "/" + r.Name, notes: e.Note})
	}
	sort.SliceStable(evs, func(i, j int) bool { return evs[i].at.Before(evs[j].at) })
	if len(evs) == 0 {
		_, err := fmt.Fprintln(out, "Events:     <none>")
		return err
	}
	fmt.Fprintln(out, "Events:")
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  AGE\tTYPE\tREASON\tOBJECT\tMESSAGE")
	for _, e := range evs {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", gangview.Age(now.Sub(e.at)), e.typ, e.reason, e.object, gangview.Short(e.notes, 140))
	}
	return tw.Flush()
}
