# reactive-bench: is a reactive Quarkus stack faster than an imperative one, and by how much?
# `make help` lists every target.

SHELL := bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help
MAKEFLAGS += --no-print-directory

## Tool versions (pinned, one block; each installs into .tools/bin on first use)
K6_VERSION ?= v1.8.1

## Locations (override on the command line, e.g. make test JAVA_HOME=…)
LOCALBIN := $(CURDIR)/.tools/bin
JAVA_HOME ?= $(shell scripts/find-jdk.sh)
export JAVA_HOME
K6 ?= $(LOCALBIN)/k6-$(K6_VERSION)
export K6
MVNW := cd services && ./mvnw -B -ntp
BUILD_LOG := .local/logs/build.log

##@ General

.PHONY: help
help: ## Show this help.
	@awk 'BEGIN {FS = ":.*##"; printf "Usage: make \033[36m<target>\033[0m\n"} \
	  /^[a-zA-Z0-9_-]+:.*?##/ { printf "  \033[36m%-16s\033[0m %s\n", $$1, $$2 } \
	  /^##@/ { printf "\n\033[1m%s\033[0m\n", substr($$0, 5) }' $(MAKEFILE_LIST)

##@ Run on this machine (no Docker, no Kubernetes)

.PHONY: demo
demo: build k6 ## Build, start the local stack, load v1 then v2 with k6, write results/<time>/report.html, stop.
	@scripts/demo.sh

.PHONY: up
up: build ## Start the local stack (PostgreSQL, Kafka, six services) for manual calls; see make status.
	@scripts/stack.sh up

.PHONY: down
down: ## Stop the local stack.
	@scripts/stack.sh down

.PHONY: status
status: ## Show what the local stack runs, where, and whether it is ready (logs in .local/logs).
	@scripts/stack.sh status

##@ Build and test

.PHONY: build
build: ## Build the six services (v1 and v2 of articles, authors, web-api) without running tests.
	@mkdir -p $(dir $(BUILD_LOG))
	@echo "==> Building the six services with Maven (about 1 min; log in $(BUILD_LOG))"
	@$(MVNW) install -DskipTests >$(CURDIR)/$(BUILD_LOG) 2>&1 || { tail -30 $(BUILD_LOG); exit 1; }

.PHONY: test
test: test-services test-e2e ## Run every test: contract suites of all six builds, then end-to-end on the local stack.

.PHONY: test-services
test-services: ## The contract suites of all six builds, on real PostgreSQL and Kafka (Maven).
	$(MVNW) install

.PHONY: test-e2e
test-e2e: k6 ## End-to-end on the real local stack: equal bytes, k6 smoke, SSE, the report (needs a build).
	@scripts/e2e-test.sh

.PHONY: clean
clean: down ## Stop the local stack and remove build output and local state (results/ stays).
	$(MVNW) -q clean
	rm -rf .local

##@ Tools

.PHONY: k6
k6: $(K6) ## Install k6 (pinned: K6_VERSION) into .tools/bin (built with go install; a few minutes the first time).
$(K6):
	@command -v go >/dev/null || { echo "k6 is built with Go: install Go 1.24+ (or set K6=/path/to/k6 $(K6_VERSION))"; exit 1; }
	@echo "==> Building k6 $(K6_VERSION) with go install (a few minutes the first time)"
	@mkdir -p $(LOCALBIN)
	@GOBIN=$(LOCALBIN) go install go.k6.io/k6@$(K6_VERSION)
	@mv $(LOCALBIN)/k6 $(K6)
