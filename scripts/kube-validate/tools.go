//go:build tools

// Package tools pins the commands this module builds: kube-apiserver for the strict dry-run, and
// kube-controller-manager and kube-scheduler for the rollout check on kwok's simulated nodes (and ./etcd).
package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
)
