// SchedulerOption, adapting features to the cluster at start-up, and the client config from flags.

package served

import (
	"context"
	"fmt"

	"github.com/spf13/pflag"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/cmd/kube-scheduler/app"
	"k8s.io/kubernetes/cmd/kube-scheduler/app/options"
	"k8s.io/kubernetes/pkg/scheduler/framework/runtime"
)

// SchedulerOption adapts the scheduler's features to the cluster
// (AdaptFeatures with SchedulerRequirements). The scheduler command runs its
// registry options after it has parsed its flags and set up logging, and
// before it builds the scheduler, which is when this must happen; flags
// returns the command's parsed flags, from which the option reads the
// kubeconfig as kube-scheduler does.
func SchedulerOption(flags func() *pflag.FlagSet) app.Option {
	return func(runtime.Registry) error {
		cfg, err := KubeConfigFromFlags(flags())
		if err != nil {
			return err
		}
		cs, err := kubernetes.NewForConfig(cfg)
		if err != nil {
			return err
		}
		ctx := klog.NewContext(context.Background(), klog.Background().WithName("served"))
		_, err = AdaptFeatures(ctx, cs.Discovery(), cs.AuthorizationV1().SelfSubjectAccessReviews(), utilfeature.DefaultMutableFeatureGate, SchedulerRequirements)
		return err
	}
}

// KubeConfigFromFlags builds the client config kube-scheduler builds from
// the same flags: the kubeconfig of --config's clientConnection, or without
// --config the deprecated --kubeconfig flag (in-cluster when empty), and
// --master over either.
func KubeConfigFromFlags(fs *pflag.FlagSet) (*rest.Config, error) {
	value := func(name string) string {
		if f := fs.Lookup(name); f != nil {
			return f.Value.String()
		}
		return ""
	}
	kubeconfig := value("kubeconfig")
	if path := value("config"); path != "" {
		cfg, err := options.LoadConfigFromFile(klog.Background(), path)
		if err != nil {
			return nil, fmt.Errorf("reading --config %s: %w", path, err)
		}
		kubeconfig = cfg.ClientConnection.Kubeconfig
	}
	cfg, err := clientcmd.BuildConfigFromFlags(value("master"), kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("building the client config (kubeconfig %q): %w", kubeconfig, err)
	}
	return cfg, nil
}
