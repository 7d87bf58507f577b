//go:build tools

// Package tools pins the commands this module builds: kube-apiserver (and ./etcd).
package tools

import _ "k8s.io/kubernetes/cmd/kube-apiserver"
