# reactive-bench: is a reactive Quarkus stack faster than an imperative one, and by how much?
# `make help` lists every target.

SHELL := bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help
MAKEFLAGS += --no-print-directory

## Tool versions and locations (one block; override on the command line, e.g. make test JAVA_HOME=…)
JAVA_HOME ?= $(shell scripts/find-jdk.sh)
export JAVA_HOME
MVNW := cd services && ./mvnw -B -ntp

##@ General

.PHONY: help
help: ## Show this help.
	@awk 'BEGIN {FS = ":.*##"; printf "Usage: make \033[36m<target>\033[0m\n"} \
	  /^[a-zA-Z0-9_-]+:.*?##/ { printf "  \033[36m%-16s\033[0m %s\n", $$1, $$2 } \
	  /^##@/ { printf "\n\033[1m%s\033[0m\n", substr($$0, 5) }' $(MAKEFILE_LIST)

##@ Build and test

.PHONY: build
build: ## Build the six services (v1 and v2 of articles, authors, web-api) without running tests.
	$(MVNW) -q install -DskipTests
	@echo "Built: services/*/v{1,2}/target/quarkus-app/quarkus-run.jar"

.PHONY: test
test: ## Run every test: the contract suites of all six builds on real PostgreSQL and Kafka.
	$(MVNW) verify

.PHONY: clean
clean: ## Remove build output.
	$(MVNW) -q clean
