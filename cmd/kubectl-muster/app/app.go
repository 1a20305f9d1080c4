// Package app is kubectl-muster's commands and flags, a package so that
// tests run them against a real API server; what they print is
// pkg/gangview/show's.
package app

import (
	"fmt"
	"time"

	"github.com/muster-project/muster/pkg/gangview/show"
	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
)

type options struct {
	flags *genericclioptions.ConfigFlags
	show  show.Options
}

// NewCommand is `kubectl muster` with its subcommands.
func NewCommand(streams genericiooptions.IOStreams) *cobra.Command {
	o := &options{flags: genericclioptions.NewConfigFlags(true), show: show.Options{Out: streams.Out, ErrOut: streams.ErrOut, Now: time.Now}}
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
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, ns, err := o.clients()
			if err != nil {
				return err
			}
			return o.show.Gangs(cmd.Context(), c, ns)
		},
	}
	gangs.Flags().BoolVarP(&o.show.AllNamespaces, "all-namespaces", "A", false, "list gangs in all namespaces")
	gangs.Flags().StringVarP(&o.show.Output, "output", "o", "", "output format: wide, json or yaml (default: a table)")
	gangs.Flags().BoolVarP(&o.show.Watch, "watch", "w", false, "print the table again whenever a pod changes")

	describe := &cobra.Command{
		Use:   "describe gang NAME",
		Short: "Describe one gang: its members, their nodes, its conditions and events",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 2 || args[0] != "gang" {
				return fmt.Errorf("usage: kubectl muster describe gang NAME")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			c, ns, err := o.clients()
			if err != nil {
				return err
			}
			return o.show.Describe(cmd.Context(), c, ns, args[1])
		},
	}
	root.AddCommand(gangs, describe)
	return root
}

// clients builds the API clients and the namespace from the kubeconfig flags.
func (o *options) clients() (show.Clients, string, error) {
	cfg, err := o.flags.ToRESTConfig()
	if err != nil {
		return show.Clients{}, "", err
	}
	ns, _, err := o.flags.ToRawKubeConfigLoader().Namespace()
	if err != nil {
		return show.Clients{}, "", err
	}
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return show.Clients{}, "", err
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return show.Clients{}, "", err
	}
	return show.Clients{Kube: kube, Dyn: dyn}, ns, nil
}
