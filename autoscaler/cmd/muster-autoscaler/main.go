// Command muster-autoscaler is the upstream cluster-autoscaler core (same
// flags: --nodes, --scan-interval, --expander, --scale-down-*, ...) linked
// with Muster's Azure agent-pool cloud provider, and only it. It follows
// upstream's main.go of the pinned cluster-autoscaler version; the
// differences are marked "Muster:".
package main

import (
	ctx "context"
	goflag "flag"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/pflag"

	"k8s.io/autoscaler/cluster-autoscaler/config/flags"
	"k8s.io/autoscaler/cluster-autoscaler/core/scaleup/orchestrator"
	"k8s.io/autoscaler/cluster-autoscaler/debuggingsnapshot"
	"k8s.io/autoscaler/cluster-autoscaler/loop"
	"k8s.io/autoscaler/cluster-autoscaler/simulator/clustersnapshot"
	"k8s.io/autoscaler/cluster-autoscaler/simulator/clustersnapshot/predicate"
	"k8s.io/autoscaler/cluster-autoscaler/simulator/clustersnapshot/store"
	"k8s.io/autoscaler/cluster-autoscaler/simulator/framework"
	"k8s.io/autoscaler/cluster-autoscaler/simulator/scheduling"
	"k8s.io/kubernetes/pkg/features"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/server/mux"
	"k8s.io/apiserver/pkg/server/routes"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	cloudBuilder "k8s.io/autoscaler/cluster-autoscaler/cloudprovider/builder"
	ca_context "k8s.io/autoscaler/cluster-autoscaler/context"
	"k8s.io/autoscaler/cluster-autoscaler/core"
	"k8s.io/autoscaler/cluster-autoscaler/core/podlistprocessor"
	"k8s.io/autoscaler/cluster-autoscaler/metrics"
	"k8s.io/autoscaler/cluster-autoscaler/observers/loopstart"
	ca_processors "k8s.io/autoscaler/cluster-autoscaler/processors"
	"k8s.io/autoscaler/cluster-autoscaler/processors/nodegroupset"
	"k8s.io/autoscaler/cluster-autoscaler/processors/nodeinfosprovider"
	"k8s.io/autoscaler/cluster-autoscaler/processors/podinjection"
	podinjectionbackoff "k8s.io/autoscaler/cluster-autoscaler/processors/podinjection/backoff"
	"k8s.io/autoscaler/cluster-autoscaler/processors/pods"
	"k8s.io/autoscaler/cluster-autoscaler/processors/scaledowncandidates"
	"k8s.io/autoscaler/cluster-autoscaler/processors/scaledowncandidates/emptycandidates"
	"k8s.io/autoscaler/cluster-autoscaler/processors/scaledowncandidates/previouscandidates"
	"k8s.io/autoscaler/cluster-autoscaler/processors/status"
	"k8s.io/autoscaler/cluster-autoscaler/simulator/drainability/rules"
	"k8s.io/autoscaler/cluster-autoscaler/simulator/options"
	"k8s.io/autoscaler/cluster-autoscaler/utils/backoff"
	kube_util "k8s.io/autoscaler/cluster-autoscaler/utils/kubernetes"
	"k8s.io/autoscaler/cluster-autoscaler/version"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	kube_flag "k8s.io/component-base/cli/flag"
	componentbaseconfig "k8s.io/component-base/config"
	componentopts "k8s.io/component-base/config/options"
	"k8s.io/component-base/logs"
	logsapi "k8s.io/component-base/logs/api/v1"
	_ "k8s.io/component-base/logs/json/register"
	"k8s.io/component-base/metrics/legacyregistry"
	"k8s.io/klog/v2"

	"github.com/muster-project/muster/autoscaler/armlocal"
	"github.com/muster-project/muster/autoscaler/cloudprovider/agentpool"
	"github.com/muster-project/muster/autoscaler/provreq"
	provreqapi "github.com/muster-project/muster/autoscaler/provreq/apis/v1"
	"github.com/muster-project/muster/autoscaler/scaledownorder"
	"github.com/muster-project/muster/autoscaler/upcoming"
)

// Muster's flags.
var (
	musterProvisioningRequests = pflag.Bool("muster-provisioning-requests", true,
		"Serve ProvisioningRequests (autoscaling.x-k8s.io/v1, class best-effort-atomic-scale-up.autoscaling.x-k8s.io) with Muster's consumer; --enable-provisioning-requests means the same")
	musterWithdrawUnneeded = pflag.Bool("muster-withdraw-unneeded-nodes", true,
		"Delete instances of a scale-up that are still being created once no pending pod needs them (their pods went to capacity that freed up meanwhile); upstream waits for --max-node-provision-time")
	provreqBookingTTL = pflag.Duration("muster-provisioning-request-booking-ttl", 10*time.Minute,
		"How long capacity stays booked for a Provisioned ProvisioningRequest whose pods have not all bound; then BookingExpired")
	clockURL = pflag.String("clock-url", "",
		"Take each loop's current time from the clock this URL serves (GET: the time in RFC 3339), e.g. muster simulate's trace clock, until POST "+clockPath+" on --run-on-request-address sets it: from then on the time is pushed there; empty: wall time")
	runOnRequestAddress = pflag.String("run-on-request-address", "",
		"Run no loop of its own: serve POST "+runOncePath+" (plain HTTP, loopback only) on this address, e.g. 127.0.0.1:0, which runs exactly one loop and answers once it has finished; empty: loop on --scan-interval")
	writeRunURL = pflag.String("write-run-url", "",
		"Once --run-on-request-address listens, write its "+runOncePath+" URL to this path (atomically)")
)

// provisioningRequestsEnabled combines --muster-provisioning-requests and
// upstream's --enable-provisioning-requests.
func provisioningRequestsEnabled(upstream bool) (bool, error) {
	explicitOff := !*musterProvisioningRequests && pflag.CommandLine.Changed("muster-provisioning-requests")
	if upstream && explicitOff {
		return false, fmt.Errorf("--enable-provisioning-requests=true contradicts --muster-provisioning-requests=false: Muster's consumer is what serves ProvisioningRequests in this build")
	}
	return upstream || *musterProvisioningRequests, nil
}

func registerSignalHandlers(autoscaler core.Autoscaler) {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, os.Kill, syscall.SIGTERM, syscall.SIGQUIT)
	klog.V(1).Info("Registered cleanup signal handler")

	go func() {
		<-sigs
		klog.V(1).Info("Received signal, attempting cleanup")
		autoscaler.ExitCleanUp()
		klog.V(1).Info("Cleaned up, exiting...")
		klog.Flush()
		os.Exit(0)
	}()
}

func buildAutoscaler(context ctx.Context, debuggingSnapshotter debuggingsnapshot.DebuggingSnapshotter, now func() time.Time) (_ core.Autoscaler, _ *loop.LoopTrigger, awaitRequests func(ctx.Context, int64, time.Duration) bool, _ error) {
	// Get AutoscalingOptions from flags.
	autoscalingOptions := flags.AutoscalingOptions()

	// Muster: contradictory ProvisioningRequest flags stop start-up first.
	provreqEnabled, err := provisioningRequestsEnabled(autoscalingOptions.ProvisioningRequestEnabled)
	if err != nil {
		return nil, nil, nil, err
	}

	// Muster: the Azure agent-pool provider is the only one; it is built here
	// and handed to the core, which then never calls upstream's builder.
	if name := autoscalingOptions.CloudProviderName; name != agentpool.ProviderName && name != cloudBuilder.DefaultCloudProvider {
		return nil, nil, nil, fmt.Errorf("--cloud-provider=%s: this build runs only %s", name, agentpool.ProviderName)
	}
	autoscalingOptions.CloudProviderName = agentpool.ProviderName
	cloudConfig, err := agentpool.LoadConfig(autoscalingOptions.CloudConfig)
	if err != nil {
		return nil, nil, nil, err
	}
	kubeClient := kube_util.CreateKubeClient(autoscalingOptions.KubeClientOpts)

	// Informer transform to trim ManagedFields for memory efficiency.
	trim := func(obj interface{}) (interface{}, error) {
		if accessor, err := meta.Accessor(obj); err == nil {
			accessor.SetManagedFields(nil)
		}
		return obj, nil
	}
	informerFactory := informers.NewSharedInformerFactoryWithOptions(kubeClient, 0, informers.WithTransform(trim))

	// Muster: the provider asks the informers' caches whether a node runs
	// pods before a failed all-or-nothing scale-up removes it.
	cloudProvider, err := agentpool.New(cloudConfig, agentpool.Options{
		NodeGroupSpecs:     autoscalingOptions.NodeGroups,
		AutoDiscoverySpecs: autoscalingOptions.NodeGroupAutoDiscovery,
		NodeInUse: agentpool.NodeInUseFromListers(informerFactory.Core().V1().Nodes().Lister(),
			informerFactory.Core().V1().Pods().Lister()),
	}, ca_context.NewResourceLimiterFromAutoscalingOptions(autoscalingOptions))
	if err != nil {
		return nil, nil, nil, fmt.Errorf("building the %s cloud provider: %w", agentpool.ProviderName, err)
	}

	fwHandle, err := framework.NewHandle(informerFactory, autoscalingOptions.SchedulerConfig, autoscalingOptions.DynamicResourceAllocationEnabled)
	if err != nil {
		return nil, nil, nil, err
	}
	deleteOptions := options.NewNodeDeleteOptions(autoscalingOptions)
	drainabilityRules := rules.Default(deleteOptions)

	var snapshotStore clustersnapshot.ClusterSnapshotStore = store.NewDeltaSnapshotStore(autoscalingOptions.ClusterSnapshotParallelism)
	opts := core.AutoscalerOptions{
		AutoscalingOptions:   autoscalingOptions,
		FrameworkHandle:      fwHandle,
		ClusterSnapshot:      predicate.NewPredicateSnapshot(snapshotStore, fwHandle, autoscalingOptions.DynamicResourceAllocationEnabled),
		KubeClient:           kubeClient,
		InformerFactory:      informerFactory,
		DebuggingSnapshotter: debuggingSnapshotter,
		DeleteOptions:        deleteOptions,
		DrainabilityRules:    drainabilityRules,
		ScaleUpOrchestrator:  orchestrator.New(),
		CloudProvider:        cloudProvider,
		// Upstream's exponential node-group backoff, except after a
		// scale-up Azure throttled or failed with 5xx: that pool waits
		// only until Azure takes calls again.
		Backoff: cloudProvider.Backoff(backoff.NewIdBasedExponentialBackoff(autoscalingOptions.InitialNodeGroupBackoffDuration,
			autoscalingOptions.MaxNodeGroupBackoffDuration, autoscalingOptions.NodeGroupBackoffResetTimeout)),
	}

	opts.Processors = ca_processors.DefaultProcessors(autoscalingOptions)
	opts.Processors.TemplateNodeInfoProvider = nodeinfosprovider.NewDefaultTemplateNodeInfoProvider(&autoscalingOptions.NodeInfoCacheExpireTime, autoscalingOptions.ForceDaemonSets)
	podListProcessor := podlistprocessor.NewDefaultPodListProcessor(scheduling.ScheduleAnywhere)
	// Muster: once the pending pods are packed onto existing and upcoming
	// nodes, upcoming nodes left with nothing are withdrawn while still
	// being created (package upcoming).
	if *musterWithdrawUnneeded {
		podListProcessor = pods.NewCombinedPodListProcessor([]pods.PodListProcessor{podListProcessor, upcoming.Withdrawer{}})
	}

	// Muster: ProvisioningRequests (class best-effort-atomic-scale-up) are
	// served by Muster's own consumer (package provreq), which imitates
	// upstream's: the pinned core's provisioning-request packages need the
	// autoscaling.x-k8s.io/v1 API module at the same commit, which the module
	// proxy does not serve. --enable-provisioning-requests means the same as
	// --muster-provisioning-requests.
	var provreqInjector *provreq.Injector
	if provreqEnabled {
		if autoscalingOptions.CheckCapacityProcessorInstance != "" {
			klog.InfoS("--check-capacity-processor-instance is ignored: this build serves only the best-effort-atomic-scale-up class")
		}
		dyn, err := dynamic.NewForConfig(kube_util.GetKubeConfig(autoscalingOptions.KubeClientOpts))
		if err != nil {
			return nil, nil, nil, fmt.Errorf("ProvisioningRequest client: %w", err)
		}
		// PodTemplates come from an informer of their own, started but not
		// waited for: until it has synced (for instance while RBAC does not
		// allow watching PodTemplates) templates are read from the API, and
		// start-up does not block on it.
		templateInformers := informers.NewSharedInformerFactoryWithOptions(kubeClient, 0, informers.WithTransform(trim))
		templates := templateInformers.Core().V1().PodTemplates()
		client := provreq.NewClient(dyn, templates.Lister(), kubeClient).WithTemplatesSynced(templates.Informer().HasSynced)
		templateInformers.Start(context.Done())
		// Requests too are watched, not listed at every loop; like the
		// templates, not waited for at start-up (the CRD may be missing).
		if err := client.WatchRequests(context); err != nil {
			return nil, nil, nil, fmt.Errorf("watching ProvisioningRequests: %w", err)
		}
		awaitRequests = client.AwaitRequests
		prOpts := provreq.Options{
			Now:            now, // the loops' clock: request conditions are timed on it
			InitialBackoff: autoscalingOptions.ProvisioningRequestInitialBackoffTime,
			MaxBackoff:     autoscalingOptions.ProvisioningRequestMaxBackoffTime,
			BookingTTL:     *provreqBookingTTL,
			// Bookings count from when their nodes registered, and at
			// the latest from when they were due.
			MaxNodeProvisionTime: autoscalingOptions.NodeGroupDefaults.MaxNodeProvisionTime,
		}
		booking := provreq.NewBooking(client, prOpts)
		provreqInjector = provreq.NewInjector(client, prOpts)
		// Filter, booking and the room gangs count on first: the default
		// processors then neither pack ordinary pods into that capacity nor
		// see a request's real pods, and scale-down sees it used; the
		// injector last, so that the request's pods reach the scale-up
		// orchestrator, which checks existing capacity itself. The
		// recheck flags never-fits failures whose pools changed since.
		podListProcessor = pods.NewCombinedPodListProcessor([]pods.PodListProcessor{provreq.PodsFilter{}, booking, provreq.NewGangRoom(client), provreq.NewNeverFitsRecheck(client), podListProcessor, provreqInjector})
		opts.ScaleUpOrchestrator = provreq.NewOrchestratorOn(client, now)
		opts.LoopStartNotifier = loopstart.NewObserversList([]loopstart.Observer{booking})
		opts.Processors.ScaleUpEnforcer = provreq.ScaleUpEnforcer{}
		klog.InfoS("ProvisioningRequests enabled", "class", provreqapi.ProvisioningClassBestEffortAtomicScaleUp, "bookingTTL", prOpts.BookingTTL)
	}

	if autoscalingOptions.ProactiveScaleupEnabled {
		podInjectionBackoffRegistry := podinjectionbackoff.NewFakePodControllerRegistry()

		podInjectionPodListProcessor := podinjection.NewPodInjectionPodListProcessor(podInjectionBackoffRegistry)
		enforceInjectedPodsLimitProcessor := podinjection.NewEnforceInjectedPodsLimitProcessor(autoscalingOptions.PodInjectionLimit)

		podListProcessor = pods.NewCombinedPodListProcessor([]pods.PodListProcessor{podInjectionPodListProcessor, podListProcessor, enforceInjectedPodsLimitProcessor})

		// FakePodsScaleUpStatusProcessor processor needs to be the first processor in ScaleUpStatusProcessor before the default processor
		// As it filters out fake pods from Scale Up status so that we don't emit events.
		opts.Processors.ScaleUpStatusProcessor = status.NewCombinedScaleUpStatusProcessor([]status.ScaleUpStatusProcessor{podinjection.NewFakePodsScaleUpStatusProcessor(podInjectionBackoffRegistry), opts.Processors.ScaleUpStatusProcessor})
	}

	opts.Processors.PodListProcessor = podListProcessor
	sdCandidatesSorting := previouscandidates.NewPreviousCandidates()
	scaleDownCandidatesComparers := []scaledowncandidates.CandidatesComparer{
		emptycandidates.NewEmptySortingProcessor(emptycandidates.NewNodeInfoGetter(opts.ClusterSnapshot), deleteOptions, drainabilityRules),
		sdCandidatesSorting,
		// Muster: ties go by name, not by map order (scaledownorder).
		scaledownorder.ByName{},
	}
	opts.Processors.ScaleDownCandidatesNotifier.Register(sdCandidatesSorting)

	cp := scaledowncandidates.NewCombinedScaleDownCandidatesProcessor()
	cp.Register(scaledowncandidates.NewScaleDownCandidatesSortingProcessor(scaleDownCandidatesComparers))

	if autoscalingOptions.ScaleDownDelayTypeLocal {
		sdp := scaledowncandidates.NewScaleDownCandidatesDelayProcessor()
		cp.Register(sdp)
		opts.Processors.ScaleStateNotifier.Register(sdp)

	}
	opts.Processors.ScaleDownNodeProcessor = cp
	opts.Processors.ScaleDownSetProcessor = scaledownorder.Set{Next: opts.Processors.ScaleDownSetProcessor}

	var nodeInfoComparator nodegroupset.NodeInfoComparator
	if len(autoscalingOptions.BalancingLabels) > 0 {
		nodeInfoComparator = nodegroupset.CreateLabelNodeInfoComparator(autoscalingOptions.BalancingLabels)
	} else {
		// Muster: nodes carry Azure's per-pool labels, which must not keep
		// otherwise identical pools from being balanced.
		nodeInfoComparatorBuilder := nodegroupset.CreateAzureNodeInfoComparator
		nodeInfoComparator = nodeInfoComparatorBuilder(autoscalingOptions.BalancingExtraIgnoredLabels, autoscalingOptions.NodeGroupSetRatios)
	}

	opts.Processors.NodeGroupSetProcessor = &nodegroupset.BalancingNodeGroupSetProcessor{
		Comparator: nodeInfoComparator,
	}

	// These metrics should be published only once.
	metrics.UpdateCPULimitsCores(autoscalingOptions.MinCoresTotal, autoscalingOptions.MaxCoresTotal)
	metrics.UpdateMemoryLimitsBytes(autoscalingOptions.MinMemoryTotal, autoscalingOptions.MaxMemoryTotal)

	// Initialize metrics.
	metrics.InitMetrics()

	// Create autoscaler.
	autoscaler, err := core.NewAutoscaler(opts, informerFactory)
	if err != nil {
		return nil, nil, nil, err
	}

	// Start informers. This must come after fully constructing the autoscaler because
	// additional informers might have been registered in the factory during NewAutoscaler.
	stop := make(chan struct{})
	informerFactory.Start(stop)

	klog.Info("Initializing resource informers, blocking until caches are synced")
	informersSynced := informerFactory.WaitForCacheSync(stop)
	for _, synced := range informersSynced {
		if !synced {
			return nil, nil, nil, fmt.Errorf("unable to start and sync resource informers")
		}
	}

	podObserver := loop.StartPodObserver(context, kube_util.CreateKubeClient(autoscalingOptions.KubeClientOpts))

	// A ProvisioningRequestPodsInjector is used as provisioningRequestProcessingTimesGetter here to obtain the last time a
	// ProvisioningRequest was processed. This is because the ProvisioningRequestPodsInjector in addition to injecting pods
	// also marks the ProvisioningRequest as accepted or failed.
	var prTimes interface{ LastProvisioningRequestProcessTime() time.Time }
	if provreqInjector != nil {
		prTimes = provreqInjector
	}
	trigger := loop.NewLoopTrigger(autoscaler, prTimes, podObserver, autoscalingOptions.ScanInterval)

	return autoscaler, trigger, awaitRequests, nil
}

func run(healthCheck *metrics.HealthCheck, debuggingSnapshotter debuggingsnapshot.DebuggingSnapshotter) {
	autoscalingOpts := flags.AutoscalingOptions()

	metrics.RegisterAll(autoscalingOpts.EmitPerNodeGroupMetrics)
	context, cancel := ctx.WithCancel(ctx.Background())
	defer cancel()

	// Muster: a simulator's trace clock, when given, is each loop's current
	// time; it and the run-on-request flags are checked before the
	// autoscaler is built, which waits for the informers.
	now := time.Now
	var setClock http.HandlerFunc
	if *clockURL != "" {
		clock, err := armlocal.NewURLClock(context, *clockURL)
		if err != nil {
			klog.Fatalf("--clock-url: %v", err)
		}
		now, setClock = clock.Now, clock.ServeSet
		klog.InfoS("Loops take their current time from a clock URL", "url", *clockURL, "now", now())
	}
	if err := checkRunOnRequest(*runOnRequestAddress, *writeRunURL); err != nil {
		klog.Fatalf("%v", err)
	}

	autoscaler, trigger, awaitRequests, err := buildAutoscaler(context, debuggingSnapshotter, now)
	if err != nil {
		klog.Fatalf("Failed to create autoscaler: %v", err)
	}

	// Register signal handlers for graceful shutdown.
	registerSignalHandlers(autoscaler)

	// Start updating health check endpoint.
	healthCheck.StartMonitoring()

	// Start components running in background.
	if err := autoscaler.Start(); err != nil {
		klog.Fatalf("Failed to autoscaler background components: %v", err)
	}

	// Muster: a simulator stepping its trace clock runs each loop itself.
	if *runOnRequestAddress != "" {
		_, errc, err := serveRunOnce(context, *runOnRequestAddress, *writeRunURL, now, setClock, awaitRequests, func(t time.Time) {
			loop.RunAutoscalerOnce(autoscaler, healthCheck, t)
			awaitDeletions(autoscaler, deletionsTimeout)
		})
		if err != nil {
			klog.Fatalf("Failed to serve loops on request: %v", err)
		}
		klog.Fatalf("Stopped serving loops on request: %v", <-errc)
	}

	// Autoscale ad infinitum.
	if autoscalingOpts.FrequentLoopsEnabled {
		// We need to have two timestamps because the scaleUp activity alternates between processing ProvisioningRequests,
		// so we need to pass the older timestamp (previousRun) to trigger.Wait to run immediately if only one of the activities is productive.
		lastRun := now()
		previousRun := now()
		for {
			trigger.Wait(previousRun)
			previousRun, lastRun = lastRun, now()
			loop.RunAutoscalerOnce(autoscaler, healthCheck, lastRun)
		}
	} else {
		for {
			time.Sleep(autoscalingOpts.ScanInterval)
			loop.RunAutoscalerOnce(autoscaler, healthCheck, now())
		}
	}
}

func main() {
	klog.InitFlags(nil)

	featureGate := utilfeature.DefaultMutableFeatureGate
	loggingConfig := logsapi.NewLoggingConfiguration()

	if err := logsapi.AddFeatureGates(featureGate); err != nil {
		klog.Fatalf("Failed to add logging feature flags: %v", err)
	}

	leaderElection := leaderElectionConfiguration()
	// Must be called before kube_flag.InitFlags() to ensure leader election flags are parsed and available.
	componentopts.BindLeaderElectionFlags(&leaderElection, pflag.CommandLine)

	logsapi.AddFlags(loggingConfig, pflag.CommandLine)
	featureGate.AddFlag(pflag.CommandLine)
	serving := newServingOptions()
	serving.addFlags(pflag.CommandLine)
	if f := goflag.CommandLine.Lookup("address"); f != nil {
		// This host only, unless --address says otherwise.
		f.DefValue = defaultPlainAddress
		_ = f.Value.Set(defaultPlainAddress)
		f.Usage = "The plain HTTP address for metrics and health (empty: none; see --secure-port for the authenticated endpoint)."
	}
	kube_flag.InitFlags()

	autoscalingOpts := flags.AutoscalingOptions()

	// If the DRA flag is passed, we need to set the DRA feature gate as well. The selection of scheduler plugins for the default
	// scheduling profile depends on feature gates, and the DRA plugin is only included if the DRA feature gate is enabled. The DRA
	// plugin itself also checks the DRA feature gate and doesn't do anything if it's not enabled.
	if autoscalingOpts.DynamicResourceAllocationEnabled && !featureGate.Enabled(features.DynamicResourceAllocation) {
		if err := featureGate.SetFromMap(map[string]bool{string(features.DynamicResourceAllocation): true}); err != nil {
			klog.Fatalf("couldn't enable the DRA feature gate: %v", err)
		}
	}

	logs.InitLogs()
	if err := logsapi.ValidateAndApply(loggingConfig, featureGate); err != nil {
		klog.Fatalf("Failed to validate and apply logging configuration: %v", err)
	}

	healthCheck := metrics.NewHealthCheck(autoscalingOpts.MaxInactivityTime, autoscalingOpts.MaxFailingTime)

	klog.V(1).Infof("Cluster Autoscaler %s", version.ClusterAutoscalerVersion)

	debuggingSnapshotter := debuggingsnapshot.NewDebuggingSnapshotter(autoscalingOpts.DebuggingSnapshotEnabled)

	go func() {
		pathRecorderMux := mux.NewPathRecorderMux("cluster-autoscaler")
		defaultMetricsHandler := legacyregistry.Handler().ServeHTTP
		pathRecorderMux.HandleFunc("/metrics", func(w http.ResponseWriter, req *http.Request) {
			defaultMetricsHandler(w, req)
		})
		if autoscalingOpts.DebuggingSnapshotEnabled {
			pathRecorderMux.HandleFunc("/snapshotz", debuggingSnapshotter.ResponseHandler)
		}
		pathRecorderMux.HandleFunc("/health-check", healthCheck.ServeHTTP)
		if autoscalingOpts.EnableProfiling {
			routes.Profiling{}.Install(pathRecorderMux)
		}
		if serving.enabled() {
			if err := serving.start(pathRecorderMux, make(chan struct{})); err != nil {
				klog.Fatalf("Failed to start the secure endpoint: %v", err)
			}
		}
		if autoscalingOpts.Address == "" {
			return // the secure endpoint only
		}
		err := http.ListenAndServe(autoscalingOpts.Address, pathRecorderMux)
		klog.Fatalf("Failed to start metrics: %v", err)
	}()

	if !leaderElection.LeaderElect {
		run(healthCheck, debuggingSnapshotter)
	} else {
		id, err := os.Hostname()
		if err != nil {
			klog.Fatalf("Unable to get hostname: %v", err)
		}

		kubeClient := kube_util.CreateKubeClient(autoscalingOpts.KubeClientOpts)

		// Validate that the client is ok.
		_, err = kubeClient.CoreV1().Nodes().List(ctx.TODO(), metav1.ListOptions{})
		if err != nil {
			klog.Fatalf("Failed to get nodes from apiserver: %v", err)
		}

		lock, err := resourcelock.New(
			leaderElection.ResourceLock,
			autoscalingOpts.ConfigNamespace,
			leaderElection.ResourceName,
			kubeClient.CoreV1(),
			kubeClient.CoordinationV1(),
			resourcelock.ResourceLockConfig{
				Identity:      id,
				EventRecorder: kube_util.CreateEventRecorder(kubeClient, autoscalingOpts.RecordDuplicatedEvents),
			},
		)
		if err != nil {
			klog.Fatalf("Unable to create leader election lock: %v", err)
		}

		leaderelection.RunOrDie(ctx.TODO(), leaderelection.LeaderElectionConfig{
			Lock:            lock,
			LeaseDuration:   leaderElection.LeaseDuration.Duration,
			RenewDeadline:   leaderElection.RenewDeadline.Duration,
			RetryPeriod:     leaderElection.RetryPeriod.Duration,
			ReleaseOnCancel: true,
			Callbacks: leaderelection.LeaderCallbacks{
				OnStartedLeading: func(_ ctx.Context) {
					// Since we are committing a suicide after losing
					// mastership, we can safely ignore the argument.
					run(healthCheck, debuggingSnapshotter)
				},
				OnStoppedLeading: func() {
					klog.Fatalf("lost master")
				},
			},
		})
	}
}

func leaderElectionConfiguration() componentbaseconfig.LeaderElectionConfiguration {
	return componentbaseconfig.LeaderElectionConfiguration{
		LeaderElect:   true,
		LeaseDuration: metav1.Duration{Duration: defaultLeaseDuration},
		RenewDeadline: metav1.Duration{Duration: defaultRenewDeadline},
		RetryPeriod:   metav1.Duration{Duration: defaultRetryPeriod},
		ResourceLock:  resourcelock.LeasesResourceLock,
		ResourceName:  "cluster-autoscaler",
	}
}

const (
	defaultLeaseDuration = 15 * time.Second
	defaultRenewDeadline = 10 * time.Second
	defaultRetryPeriod   = 2 * time.Second
)
