//go:build tools

// Package tools pins the commands this module builds, all of one Kubernetes version: kube-apiserver for
// the strict dry-run; kube-controller-manager and kube-scheduler for the rollouts; kubelet and kube-proxy
// for the real node of make test-cluster (and ./etcd, ./pause).
package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-proxy"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
	_ "k8s.io/kubernetes/cmd/kubelet"
)
