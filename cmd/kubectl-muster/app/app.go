// Package app is kubectl-muster's commands, a package so that tests run
// them against a real API server.
package app

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"

	autoscalingv1 "github.com/muster-project/muster/pkg/apis/autoscaling/v1"
	"github.com/muster-project/muster/pkg/gang"
	"github.com/muster-project/muster/pkg/gangview"
)

var podGroupsGVR = schema.GroupVersionResource{Group: "scheduling.x-k8s.io", Version: "v1alpha1", Resource: "podgroups"}

type options struct {
	flags         *genericclioptions.ConfigFlags
	streams       genericiooptions.IOStreams
	allNamespaces bool
	output        string
	watch         bool
	now           func() time.Time
}

// NewCommand is `kubectl muster` with its subcommands.
func NewCommand(streams genericiooptions.IOStreams) *cobra.Command {
	o := &options{flags: genericclioptions.NewConfigFlags(true), streams: streams, now: time.Now}
	root := &cobra.Command{
		Use:           "kubectl-muster",
		Short:         "Show Muster's gangs: members bound against min and max, state, wait, and why",
		SilenceUsage:  true,
		SilenceErrors: false,
		Annotations:   map[string]string{cobra.CommandDisplayNameAnnotation: "kubectl muster"},
	}
	root.SetOut(streams.Out)
	root.SetErr(streams.ErrOut)
	o.flags.AddFlags(root.PersistentFlags())

	gangs := &cobra.Command{
		Use:   "gangs",
		Short: "List gangs: from Muster's labels and from scheduler-plugins PodGroups",
		Long: `gangs lists every gang in the namespace (all namespaces with -A): its
source (podgroup or labels), members bound against min and max, phase, how
long it waited for its quorum (until its min-th member bound, or until now),
and the scheduler's reason. -o wide adds the topology domain its members
share, its ProvisioningRequest and the scheduler's message; -o json or yaml
prints every field. --watch prints the table again whenever a pod changes.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return o.runGangs(cmd.Context()) },
	}
	gangs.Flags().BoolVarP(&o.allNamespaces, "all-namespaces", "A", false, "list gangs in all namespaces")
	gangs.Flags().StringVarP(&o.output, "output", "o", "", "output format: wide, json or yaml (default: a table)")
	gangs.Flags().BoolVarP(&o.watch, "watch", "w", false, "print the table again whenever a pod changes")

	describe := &cobra.Command{
		Use:   "describe gang NAME",
		Short: "Describe one gang: its members, their nodes, its conditions and events",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 2 || args[0] != "gang" {
				return fmt.Errorf("usage: kubectl muster describe gang NAME")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error { return o.runDescribe(cmd.Context(), args[1]) },
	}
	root.AddCommand(gangs, describe)
	return root
}

type clients struct {
	kube kubernetes.Interface
	dyn  dynamic.Interface
}

func (o *options) clients() (clients, string, error) {
	cfg, err := o.flags.ToRESTConfig()
	if err != nil {
		return clients{}, "", err
	}
	ns, _, err := o.flags.ToRawKubeConfigLoader().Namespace()
	if err != nil {
		return clients{}, "", err
	}
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return clients{}, "", err
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return clients{}, "", err
	}
	return clients{kube: kube, dyn: dyn}, ns, nil
}

// read lists what gangview needs. PodGroups and ProvisioningRequests are
// optional (their CRDs may not be installed), and so are nodes (a user may
// not be allowed to list them: the domain column stays empty).
func read(ctx context.Context, c clients, ns string) (gangview.Objects, error) {
	var o gangview.Objects
	pods, err := c.kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return o, fmt.Errorf("listing pods: %w", err)
	}
	o.Pods = pods.Items
	pgs, err := c.dyn.Resource(podGroupsGVR).Namespace(ns).List(ctx, metav1.ListOptions{})
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
	wpgs, err := c.kube.SchedulingV1beta1().PodGroups(ns).List(ctx, metav1.ListOptions{})
	switch {
	case err == nil:
		o.WorkloadPodGroups = wpgs.Items
		if wls, err := c.kube.SchedulingV1beta1().Workloads(ns).List(ctx, metav1.ListOptions{}); err == nil {
			o.Workloads = wls.Items
		} else if !apierrors.IsNotFound(err) {
			return o, fmt.Errorf("listing Workloads: %w", err)
		}
	case !apierrors.IsNotFound(err):
		return o, fmt.Errorf("listing PodGroups (%s): %w", gang.WorkloadGroupVersion, err)
	}
	prs, err := c.dyn.Resource(autoscalingv1.Resource).Namespace(ns).List(ctx, metav1.ListOptions{})
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
	if nodes, err := c.kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{}); err == nil {
		o.Nodes = nodes.Items
	}
	return o, nil
}

func (o *options) runGangs(ctx context.Context) error {
	switch o.output {
	case "", "wide", "json", "yaml":
	default:
		return fmt.Errorf("--output: %q is not one of wide, json, yaml", o.output)
	}
	c, ns, err := o.clients()
	if err != nil {
		return err
	}
	if o.allNamespaces {
		ns = metav1.NamespaceAll
	}
	show := func() error {
		objs, err := read(ctx, c, ns)
		if err != nil {
			return err
		}
		return o.print(gangview.Build(objs, o.now()))
	}
	if err := show(); err != nil || !o.watch {
		return err
	}
	for {
		w, err := c.kube.CoreV1().Pods(ns).Watch(ctx, metav1.ListOptions{})
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
				fmt.Fprintln(o.streams.Out)
				if err := show(); err != nil {
					w.Stop()
					return err
				}
			}
		}
	}
}

func (o *options) print(rows []gangview.Row) error {
	switch o.output {
	case "json":
		b, err := json.MarshalIndent(map[string]any{"gangs": rows}, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(o.streams.Out, string(b))
		return err
	case "yaml":
		b, err := yaml.Marshal(map[string]any{"gangs": rows})
		if err != nil {
			return err
		}
		_, err = o.streams.Out.Write(b)
		return err
	}
	if len(rows) == 0 {
		_, err := fmt.Fprintln(o.streams.ErrOut, "No gangs found.")
		return err
	}
	tw := tabwriter.NewWriter(o.streams.Out, 0, 0, 3, ' ', 0)
	head := []string{"NAME", "SOURCE", "BOUND", "MIN", "MAX", "PHASE", "WAITED", "REASON"}
	if o.allNamespaces {
		head = append([]string{"NAMESPACE"}, head...)
	}
	if o.output == "wide" {
		head = append(head, "DOMAIN", "REQUEST", "MESSAGE")
	}
	fmt.Fprintln(tw, strings.Join(head, "\t"))
	for _, r := range rows {
		cells := []string{r.Name, r.Source, fmt.Sprint(r.Bound), fmt.Sprint(r.Min), fmt.Sprint(r.Max), r.Phase, gangview.Age(r.Waited), r.Reason}
		if o.allNamespaces {
			cells = append([]string{r.Namespace}, cells...)
		}
		if o.output == "wide" {
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

func (o *options) runDescribe(ctx context.Context, name string) error {
	c, ns, err := o.clients()
	if err != nil {
		return err
	}
	objs, err := read(ctx, c, ns)
	if err != nil {
		return err
	}
	now := o.now()
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
	out := o.streams.Out
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
func describeEvents(ctx context.Context, out io.Writer, c clients, ns, gangName string, pods map[string]bool, now time.Time) error {
	list, err := c.kube.EventsV1().Events(ns).List(ctx, metav1.ListOptions{})
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
