# Muster — developer entry points. Everything builds from vendor/; nothing is
# downloaded except by `make vendor` and the codegen/manifest tools.

GO        ?= go
GOFLAGS   ?= -mod=vendor
export GOFLAGS
BIN       := bin
PKGS      := ./...
TEST_P    ?= 2

.PHONY: kube-scheduler kueue stress test-skew bench-perf bench-perf-short bench-scale etcd simulate-spot simulate-repeat simulate-day simulate-replay-test image-autoscaler images images-ci all build test chart demo bench bench-go bench-topology placement-report simulate simulate-random chaos soak vendor verify fmt vet codegen verify-codegen verify-manifests contract image clean

all: build

## build: the scheduler, the muster / muster-bench tools and the kubectl-muster
## plugin into bin/, and the autoscaler (nested module autoscaler/) into
## autoscaler/bin/
build:
	$(GO) build -o $(BIN)/ ./cmd/muster-scheduler ./cmd/muster ./cmd/muster-bench ./cmd/kubectl-muster
	$(MAKE) -C autoscaler build

## test: every unit and integration test (real kube-apiserver in-process), of
## the scheduler and of the autoscaler's nested module; the Helm chart's tests
## use Helm's binary, built once from the module proxy (hack/install-helm.sh)
test:
	HELM="$$(hack/install-helm.sh)" GO=$(GO) hack/gotest.sh -p $(TEST_P) -timeout 80m $(PKGS)
	cd hack/image && GOFLAGS=-mod=mod GO=$(GO) ../gotest.sh ./...
	$(MAKE) -C autoscaler test TEST_P=$(TEST_P)
	$(MAKE) bench-perf-short
	$(MAKE) test-skew VERSIONS="$(SKEW_CI_VERSIONS)"

## test-skew: the shipped muster-scheduler (shipped profile and RBAC) and the
## real muster-autoscaler against the kube-apiserver of each Kubernetes minor
## in VERSIONS (test/skew; one module file per version), then a table of
## version by check; logs in bin/skew/VERSION/. make test runs the oldest
## supported version and the newest.
VERSIONS         ?= 1.34 1.35 1.36 1.37
SKEW_CI_VERSIONS ?= 1.34 1.37
test-skew:
	GO=$(GO) hack/test-skew.sh $(VERSIONS)

## demo: the embedded default — API server, GPU nodes, muster-scheduler, a burst of gangs
demo:
	$(GO) run ./cmd/muster demo

## bench: plain pods vs gangs of 8, 64, 512 and mixed launcher+worker gangs of
## 1..64 on 1000 nodes, medians of 3 runs, as a table: pods/s, the share of
## the time spent creating pods, pods/s with the pods created before the
## scheduler starts, latencies, and where the pods' time went (the
## scheduler's metrics)
bench:
	$(GO) run ./cmd/muster-bench --nodes 1000 --pods 2000 --runs 3

## bench-go: the same scenarios as Go benchmarks
bench-go:
	cd test/bench && $(GO) test -run '^$$' -bench Throughput -benchtime=1x -timeout 30m .

## bench-perf: upstream's own benchmark (test/integration/scheduler_perf) on
## its gang and topology-aware workloads at 5000 nodes, under upstream's
## plugins and under Muster's (test/perf); a table of its SchedulingThroughput.
## scheduler_perf starts an etcd from PATH per workload: hack/etcd is one.
## PERF_LABELS picks workloads (e.g. performance,scale: 200 gangs, 10000 pods).
PERF_LABELS ?= performance,-short,-scale
# PERF_FLAGS and PERF_OUT let bench-perf-short reuse the recipe.
PERF_FLAGS  ?= -timeout 150m
PERF_OUT    ?= bench
bench-perf: etcd
	@mkdir -p $(BIN)/perf
	cd test/perf && PATH="$(CURDIR)/$(BIN):$$PATH" $(GO) test -run '^$$' -bench PerfScheduling -benchtime=1x $(PERF_FLAGS) \
		-perf-scheduling-label-filter=$(PERF_LABELS) -data-items-dir=$(CURDIR)/$(BIN)/perf . > $(CURDIR)/$(BIN)/perf/$(PERF_OUT).out 2>&1 \
		|| { grep -E -A20 '^(--- FAIL|FAIL|panic)' $(CURDIR)/$(BIN)/perf/$(PERF_OUT).out | head -100; exit 1; }
	$(GO) run ./hack/perftable < $(BIN)/perf/$(PERF_OUT).out

## bench-perf-short: bench-perf's 10-node workloads, upstream's and Muster's
## plugins each (part of make test)
bench-perf-short:
	$(MAKE) bench-perf PERF_LABELS=performance PERF_FLAGS="-short -timeout 20m" PERF_OUT=short

## kueue: Kueue's controller manager (sigs.k8s.io/kueue, pinned by the nested
## module hack/kueue, downloaded from the module proxy) into bin/kueue and its
## CRDs into bin/kueue-crds, for muster simulate's kueue side
kueue:
	GO=$(GO) hack/kueue/build.sh $(BIN)

## etcd: a single-member etcd from the vendored server, for scheduler_perf
etcd:
	$(GO) build -o $(BIN)/etcd ./hack/etcd

## simulate: the whole stack (API server, scheduler, armlocal with its node
## agent, muster-autoscaler) replays a bursty trace on each side (Muster,
## upstream's gang scheduling, the default scheduler, Kueue) against the oracle;
## report on stdout, GPUs paid for and used in simulate.svg
simulate:
	$(MAKE) -C autoscaler build
	$(MAKE) kueue
	$(GO) run ./cmd/muster simulate

## simulate-repeat: make simulate three times on each side, each figure as
## median (min–max) over the replays (about 2 minutes)
simulate-repeat:
	$(MAKE) -C autoscaler build
	$(MAKE) kueue
	$(GO) run ./cmd/muster simulate --repeat 3 --seed 1

## simulate-day: a day of the default trace's load (the trace again every
## hour for 24 hours) on every side, each stopped at the day's end (the load
## exceeds the pools: its backlog would take hours more to drain)
simulate-day:
	$(MAKE) -C autoscaler build
	$(MAKE) kueue
	$(GO) run ./cmd/muster simulate --trace-for 24h --until horizon --chart simulate-day.svg

## simulate-replay-test: the stepped replay's repeat test alone (part of make test: a mixed trace
## three times, the third beside a CPU hog; about 2 minutes)
simulate-replay-test:
	$(GO) test ./pkg/simulate/replay -run TestSteppedReplayRepeats -count=1 -v -timeout 30m

## simulate-spot: a spot pool beside the regular ones, elastic jobs that opt
## in: Muster with spot, Muster without, and the baseline (about 7 minutes)
simulate-spot:
	$(MAKE) -C autoscaler build
	$(MAKE) kueue
	$(GO) run ./cmd/muster simulate --pools pkg/simulate/pools.spot.example.yaml --trace pkg/simulate/spot.trace --seed 1

## simulate-random: ten generated bursty traces of mixed, competing jobs, every side (about 20 minutes)
simulate-random:
	$(MAKE) -C autoscaler build
	$(MAKE) kueue
	$(GO) run ./cmd/muster simulate --random 10 --seed 1

## chaos: twenty generated traces on the whole stack (two elected
## muster-scheduler processes, armlocal, muster-autoscaler) while faults
## strike at random: fails naming the seeds that broke an invariant (CI runs
## one short seed of it, TestChaosShort, within make test)
chaos: build
	$(GO) run ./cmd/muster chaos --seeds 20 --seed 1 --scheduler-bin $(BIN)/muster-scheduler

## soak: 10000 gangs of four kinds created and deleted against the real
## scheduler; fails if any plugin state outlives its gang, logs the heap
## (CI runs 120 gangs of it within make test)
soak:
	MUSTER_SOAK_GANGS=10000 $(GO) test -count=1 -timeout 60m -v -run TestStateIsPrunedWhenGangsGo ./test/integration/ > soak.log 2>&1; \
	rc=$$?; grep -E 'soak_test|^(---|ok|FAIL|PASS)' soak.log; exit $$rc

## stress: the integration suite STRESS_N times (default 10) beside two CPU
## hogs, each run in STRESS_SHARDS processes side by side (default 3); prints
## "stress: runs N, failed tests F" and fails unless F is 0 (logs in
## bin/stress/)
STRESS_N ?= 10
stress:
	STRESS_N=$(STRESS_N) GO=$(GO) hack/stress.sh

## placement-report: Muster vs LeastAllocated vs MostAllocated on a fixed GPU trace
placement-report:
	$(GO) run ./cmd/muster placement-report

## bench-topology: a 512-member gang on 5000 nodes through MusterTopology
bench-topology:
	$(GO) test ./pkg/scheduler/plugins/gputopology -run '^$$' -bench Gang512 -benchtime=5x -benchmem

## bench-scale: the scale grid: 3000 pending pods in 10, 100 and 1000 waiting
## gangs (a launcher and workers, two priorities) at 500, 1000, 2000 and 5000
## nodes, scheduled by a muster-scheduler process and by upstream's
## kube-scheduler (hack/kube-scheduler, GenericWorkload on, gangs as v1beta1
## PodGroups), each started once the pods exist: pods/s, gang p99, CPU per
## pod and peak RSS of each, a table and bench-scale.svg (pods/s against
## cluster size); then both at 5000 nodes with 10 000 pending pods in 200
## gangs of 50; then the hot paths (capacity plan, MusterTopology's
## PreFilter/Filter/Score/Reserve) with -benchmem
bench-scale: build kube-scheduler
	$(BIN)/muster-bench --scale --grid-nodes 500,1000,2000,5000 --gangs 10,100,1000 --pods 3000 \
		--scheduler-binary $(BIN)/muster-scheduler --upstream-binary $(BIN)/kube-scheduler --svg bench-scale.svg
	$(BIN)/muster-bench --scale --grid-nodes 5000 --gangs 200 --pods 10000 \
		--scheduler-binary $(BIN)/muster-scheduler --upstream-binary $(BIN)/kube-scheduler --svg ""
	$(GO) test ./pkg/capacity ./pkg/scheduler/plugins/gputopology -run '^$$' -bench 'MakePlan|Gang512' -benchtime=5x -benchmem

## kube-scheduler: upstream's kube-scheduler from the vendored k8s.io/kubernetes
## (no Muster plugin), the upstream side of make bench-scale
kube-scheduler:
	$(GO) build -o $(BIN)/kube-scheduler ./hack/kube-scheduler

## vendor: refresh vendor/ from go.mod (needs the module proxy)
vendor:
	GOFLAGS= $(GO) mod tidy
	GOFLAGS= $(GO) mod vendor

## verify: gofmt, go vet (which also fails on a vendor/ out of sync with go.mod),
## for both modules
verify: fmt vet
	$(MAKE) -C autoscaler verify

fmt:
	@out=$$(gofmt -l cmd pkg test manifests hack); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet $(PKGS)
	cd hack/image && GOFLAGS=-mod=mod $(GO) vet ./...
	cd test/skew && GOFLAGS=-mod=mod $(GO) vet ./...

## codegen: regenerate deepcopy and CRDs with the pinned controller-gen
codegen:
	hack/update-codegen.sh

verify-codegen:
	hack/verify-codegen.sh

## contract: copy pkg/contract into the autoscaler module (hack/gen-contract.sh);
## pkg/contract's tests fail when the copy is stale
contract:
	hack/gen-contract.sh

verify-manifests:
	hack/verify-manifests.sh

## chart: lint the Helm chart and print what it renders with its defaults
chart:
	HELM="$$(hack/install-helm.sh)" && "$$HELM" lint --strict manifests/charts/muster && \
	  "$$HELM" template muster manifests/charts/muster --namespace muster-system --kube-version 1.37.0

## images: the muster-scheduler and muster-autoscaler images as OCI archives in
## images/, for linux/amd64 and linux/arm64, without a Docker engine
## (hack/build-images.sh; IMAGE_BASE=offline needs no registry)
images:
	hack/build-images.sh

## images-ci: what CI builds: both images for linux/amd64 on the offline base,
## assembled twice (same archive), checked, each binary run with --help
images-ci:
	IMAGE_PLATFORMS=linux/amd64 IMAGE_BASE=offline IMAGE_REPRO=1 hack/build-images.sh

## image: the muster-scheduler container image (needs a Docker engine)
image:
	docker build -t muster-scheduler:latest .

## image-autoscaler: the muster-autoscaler image (needs a Docker engine)
image-autoscaler:
	$(MAKE) -C autoscaler image

clean:
	rm -rf $(BIN)
