// Package controlplane runs a real control plane in-process: an embedded
// etcd, kube-apiserver built from the upstream app (apiserver.go), Muster's
// CRDs, and muster-scheduler (or the default scheduler) built from the
// upstream kube-scheduler app. Nodes are plain Node objects; pods are
// bound, not run. muster demo, simulate, chaos and the placement report,
// muster-bench and the integration tests run on it; it imports no test
// package, so the shipped commands do not carry the testing package
// (test/harness keeps what only tests need).
package controlplane

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	v1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/component-base/configz"
	logsapi "k8s.io/component-base/logs/api/v1"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/cmd/kube-scheduler/app"
	"k8s.io/kubernetes/cmd/kube-scheduler/app/options"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/kubernetes/pkg/scheduler"
	schedframework "k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/utils/clock"
	"sigs.k8s.io/scheduler-plugins/pkg/generated/clientset/versioned"
	"sigs.k8s.io/yaml"

	"github.com/muster-project/muster/manifests"
	"github.com/muster-project/muster/pkg/scheduler/plugins"
)

func init() {
	// Several servers in one process would each re-apply logging settings:
	// that is allowed as long as they do not change them.
	logsapi.ReapplyHandling = logsapi.ReapplyHandlingIgnoreUnchanged
}

// Env is a running control plane.
type Env struct {
	Config    *rest.Config
	Client    kubernetes.Interface
	PodGroups versioned.Interface
	dir       string
	workloads bool
	// gatesMu guards gatesOff and every change of the process's Workload
	// API gates; gatesOff counts the WorkloadGatesOff spells in progress,
	// during which the gates stay off.
	gatesMu  sync.Mutex
	gatesOff int
	// etcd and etcdPrefix are the API server's storage (revisions.go).
	etcd       *clientv3.Client
	etcdPrefix string
}

// WorkloadAPI says whether the control plane serves upstream's Workload API
// (Options.WorkloadAPI).
func (e *Env) WorkloadAPI() bool { return e.workloads }

// WorkloadGatesOff turns the process's Workload API features off until
// restore is called, so that a scheduler StartScheduler runs meanwhile runs
// as muster-scheduler ships. One process holds the API server and the
// scheduler, and they read one set of gates: with GenericWorkload on, the
// framework moves every unschedulable pod back to the queue on each pod
// added (addPodToSchedulingQueue), which a muster-scheduler process, whose
// gate is off, never does; a 512-member gang made the scheduler run each
// waiting member's PreEnqueue and Filter about once per member added. For
// measurements only: while the gates are off the API server drops
// spec.schedulingGroup from pods it admits, so nothing may write
// upstream's PodGroups or pods that name them meanwhile.
func (e *Env) WorkloadGatesOff() (restore func() error, err error) {
	e.gatesMu.Lock()
	defer e.gatesMu.Unlock()
	if err := setWorkloadGates(false); err != nil {
		return nil, err
	}
	e.gatesOff++
	var once sync.Once
	return func() (err error) {
		once.Do(func() {
			e.gatesMu.Lock()
			defer e.gatesMu.Unlock()
			e.gatesOff--
			err = setWorkloadGates(e.workloadGates())
		})
		return err
	}, nil
}

// workloadGates is whether the control plane's Workload API features are
// on now (callers hold gatesMu).
func (e *Env) workloadGates() bool { return e.workloads && e.gatesOff == 0 }

func setWorkloadGates(on bool) error {
	return utilfeature.DefaultMutableFeatureGate.SetFromMap(map[string]bool{
		string(features.GenericWorkload): on, string(features.TopologyAwareWorkloadScheduling): on,
	})
}

// Options change what Start brings up.
type Options struct {
	// WorkloadAPI serves upstream's scheduling.k8s.io/v1beta1 Workload and
	// PodGroup, with the GenericWorkload and TopologyAwareWorkloadScheduling
	// features on. Schedulers get them as their binaries ship:
	// StartKubeScheduler with them on (the default profile then has
	// GangScheduling), StartScheduler with them off, as muster-scheduler runs.
	WorkloadAPI bool
}

// WorkloadFeatureGates are the feature gates (in --feature-gates form) the
// control plane turns on with Options.WorkloadAPI, and an upstream
// kube-scheduler process needs for the default profile's GangScheduling.
const WorkloadFeatureGates = "GenericWorkload=true,TopologyAwareWorkloadScheduling=true"

// Start brings up etcd (once per process), a kube-apiserver with its own
// storage prefix, and installs Muster's CRDs. Everything stops with tb's
// cleanup. It leaves upstream's Workload API off (StartWith turns it on):
// with the API on, the in-process scheduler sees GenericWorkload on while
// it runs, which the real muster-scheduler never does (see startScheduler).
func Start(tb TB) (*Env, error) { return StartWith(tb, Options{}) }

// StartWith is Start with options.
func StartWith(tb TB, o Options) (*Env, error) {
	url, err := startEtcd()
	if err != nil {
		return nil, err
	}
	var flags []string
	if o.WorkloadAPI {
		flags = append(flags, "--runtime-config=scheduling.k8s.io/v1beta1=true", "--feature-gates="+WorkloadFeatureGates)
	}
	srv, err := startAPIServer(tb, url, flags)
	if err != nil {
		return nil, fmt.Errorf("starting kube-apiserver: %w", err)
	}
	tb.Cleanup(srv.stop)
	cfg := rest.CopyConfig(srv.config)
	cfg.QPS, cfg.Burst = 5000, 5000
	env := &Env{Config: cfg, dir: tb.TempDir(), workloads: o.WorkloadAPI, etcd: srv.etcd, etcdPrefix: srv.prefix}
	if env.Client, err = kubernetes.NewForConfig(cfg); err != nil {
		return nil, err
	}
	jsonCfg := rest.CopyConfig(cfg)
	jsonCfg.ContentType = "application/json"
	if env.PodGroups, err = versioned.NewForConfig(jsonCfg); err != nil {
		return nil, err
	}
	if err := env.installCRDs(context.Background()); err != nil {
		return nil, err
	}
	return env, nil
}

func (e *Env) installCRDs(ctx context.Context) error {
	crds, err := manifests.CRDs()
	if err != nil {
		return err
	}
	for _, raw := range crds {
		if err := e.InstallCRD(ctx, raw); err != nil {
			return err
		}
	}
	return nil
}

// InstallCRD creates a CustomResourceDefinition from its manifest and waits
// until it is established and in discovery.
func (e *Env) InstallCRD(ctx context.Context, manifest []byte) error {
	cs, err := apiextensionsclient.NewForConfig(e.Config)
	if err != nil {
		return err
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.UnmarshalStrict(manifest, crd); err != nil {
		return fmt.Errorf("decoding CRD: %w", err)
	}
	if _, err := cs.ApiextensionsV1().CustomResourceDefinitions().Create(ctx, crd, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating CRD %s: %w", crd.Name, err)
	}
	err = wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		got, err := cs.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, crd.Name, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		for _, c := range got.Status.Conditions {
			if c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue {
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		return fmt.Errorf("CRD %s not established: %w", crd.Name, err)
	}
	// Established is not served yet: discovery learns of a CRD a little
	// later, and a scheduler that looks before then runs without
	// PodGroups (a flaky test, found on a loaded CI machine).
	err = wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		for _, v := range crd.Spec.Versions {
			if !v.Served {
				continue
			}
			list, err := cs.Discovery().ServerResourcesForGroupVersion(crd.Spec.Group + "/" + v.Name)
			if err != nil || !slices.ContainsFunc(list.APIResources, func(r metav1.APIResource) bool { return r.Name == crd.Spec.Names.Plural }) {
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		return fmt.Errorf("CRD %s not in discovery: %w", crd.Name, err)
	}
	return nil
}

// Kubeconfig writes a kubeconfig file for the API server and returns its path.
func (e *Env) Kubeconfig() (string, error) {
	path := filepath.Join(e.dir, "kubeconfig")
	if _, err := os.Stat(path); err == nil {
		return path, nil
	}
	c := e.Config
	kc := clientcmdapi.NewConfig()
	kc.Clusters["local"] = &clientcmdapi.Cluster{Server: c.Host, CertificateAuthorityData: c.CAData, CertificateAuthority: c.CAFile, TLSServerName: c.ServerName, InsecureSkipTLSVerify: c.Insecure}
	kc.AuthInfos["admin"] = &clientcmdapi.AuthInfo{Token: c.BearerToken, TokenFile: c.BearerTokenFile,
		ClientCertificateData: c.CertData, ClientCertificate: c.CertFile, ClientKeyData: c.KeyData, ClientKey: c.KeyFile}
	kc.Contexts["local"] = &clientcmdapi.Context{Cluster: "local", AuthInfo: "admin"}
	kc.CurrentContext = "local"
	return path, clientcmd.WriteToFile(*kc, path)
}

// KubeconfigAs writes a kubeconfig that acts as user (impersonation), so a
// component runs under the identity policies name, such as a service
// account, while the test API server authorizes everything.
func (e *Env) KubeconfigAs(user string) (string, error) {
	admin, err := e.Kubeconfig()
	if err != nil {
		return "", err
	}
	kc, err := clientcmd.LoadFromFile(admin)
	if err != nil {
		return "", err
	}
	kc.AuthInfos["admin"].Impersonate = user
	path := filepath.Join(e.dir, fmt.Sprintf("kubeconfig-as-%d", time.Now().UnixNano()))
	return path, clientcmd.WriteToFile(*kc, path)
}

// Scheduler is a running scheduler.
type Scheduler struct {
	cancel      context.CancelFunc
	done        chan error
	controllers chan struct{} // closed when Muster's writers have returned
	once        sync.Once
	sched       *scheduler.Scheduler
	gate        *stepGate
	muster      *plugins.Muster // the plugins registered, and what they owe
}

// Stop stops the scheduler and waits for it and Muster's writers to exit;
// it may be called again.
func (s *Scheduler) Stop() {
	s.once.Do(func() {
		s.cancel()
		<-s.done
		<-s.controllers
		configz.Delete("componentconfig")
	})
}

// StartScheduler runs a scheduler with Muster's plugins registered, configured
// by the KubeSchedulerConfiguration text config (see Config), with the
// feature gates muster-scheduler runs with.
func (e *Env) StartScheduler(ctx context.Context, config string) (*Scheduler, error) {
	return e.startScheduler(ctx, config, false, plugins.New())
}

// StartSchedulerOn is StartScheduler with Muster's plugins on clock c
// (plugins.NewOn): muster simulate's trace clock. extra registers more
// plugins beside them (a test's).
func (e *Env) StartSchedulerOn(ctx context.Context, config string, c clock.WithDelayedExecution, extra ...app.Option) (*Scheduler, error) {
	return e.startScheduler(ctx, config, false, plugins.NewOn(c), extra...)
}

// StartKubeScheduler is StartScheduler with kube-scheduler's feature gates:
// the control plane's (GenericWorkload and TopologyAwareWorkloadScheduling
// on when it serves the Workload API), for upstream's gang scheduling.
func (e *Env) StartKubeScheduler(ctx context.Context, config string) (*Scheduler, error) {
	return e.startScheduler(ctx, config, true, plugins.New())
}

// StartSteppedKubeScheduler is StartSteppedScheduler with kube-scheduler's
// feature gates (StartKubeScheduler): on a control plane that serves the
// Workload API, the default profile then runs upstream's GangScheduling
// beside the stepped plugins, so that `muster simulate`'s upstream side
// replays as deterministically as its default side.
func (e *Env) StartSteppedKubeScheduler(ctx context.Context, config string, c clock.WithDelayedExecution) (*Scheduler, error) {
	s, err := e.startScheduler(ctx, stepped(config), true, plugins.NewOn(c))
	if err == nil {
		s.gate.serial.Store(true)
	}
	return s, err
}

func (e *Env) startScheduler(ctx context.Context, config string, kube bool, muster *plugins.Muster, extra ...app.Option) (*Scheduler, error) {
	path := filepath.Join(e.dir, fmt.Sprintf("scheduler-%d.yaml", time.Now().UnixNano()))
	if err := os.WriteFile(path, []byte(config), 0o600); err != nil {
		return nil, err
	}
	e.gatesMu.Lock()
	defer e.gatesMu.Unlock()
	// The muster-scheduler binary's feature defaults (its main sets them).
	if err := plugins.SetFeatureDefaults(); err != nil {
		return nil, err
	}
	// Feature gates are the process's, and the in-process API server reads
	// GenericWorkload when pods and PodGroups are written (with it off, it
	// drops spec.schedulingGroup). The scheduler reads the gates while it is
	// built, so it is built with its own and the control plane's are put
	// back for the API server once it is. One read remains at run time: with
	// the gate back on, the framework's pod-add handler moves every
	// unschedulable pod whose hints accept it back to the queue on each pod
	// added, which a real muster-scheduler (gate off) never does; so only
	// tests of the Workload API turn it on, and measurements hold it off
	// (WorkloadGatesOff).
	if kube {
		if err := setWorkloadGates(e.workloadGates()); err != nil {
			return nil, err
		}
	}
	defer func() {
		if err := setWorkloadGates(e.workloadGates()); err != nil {
			panic(fmt.Sprintf("restoring the control plane's feature gates: %v", err))
		}
	}()
	opts := options.NewOptions()
	opts.ConfigFile = path
	opts.SecureServing.BindPort = 0
	ctx, cancel := context.WithCancel(ctx)
	gate := &stepGate{gated: map[types.UID]*v1.Pod{}, groups: kube && e.workloads, attempted: map[types.UID]struct{}{}}
	registry := append(append(muster.Options(), extra...), app.WithPlugin(StepGateName, gate.factory), app.WithPlugin(SteppedPreemptionName, newSteppedPreemption),
		app.WithPlugin(SteppedPrioritySortName, gate.releases.factory))
	cc, sched, err := app.Setup(ctx, opts, registry...)
	if err != nil {
		cancel()
		configz.Delete("componentconfig") // so that the next scheduler can register
		return nil, err
	}
	s := &Scheduler{cancel: cancel, done: make(chan error, 1), controllers: make(chan struct{}), sched: sched, gate: gate, muster: muster}
	s.tieScoresByName()
	pop := sched.NextEntity
	sched.NextEntity = func(logger klog.Logger) (schedframework.QueuedEntityInfo, error) {
		s.beforePop(ctx)
		entity, err := pop(logger)
		if entity != nil {
			var pods []*v1.Pod
			entity.ForEachPodInfo(func(p *schedframework.QueuedPodInfo) bool { pods = append(pods, p.Pod); return true })
			gate.popped(pods)
		}
		return entity, err
	}
	go func() { muster.RunControllers(ctx); close(s.controllers) }()
	go func() { s.done <- app.Run(ctx, cc, sched) }()
	return s, nil
}
