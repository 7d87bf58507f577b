// CoreDNS with the plugins the test node's Corefile uses (node.sh) and no other: CoreDNS's documented way to build it
// with a chosen set of plugins, a main of one's own that imports them. Its stock build links every plugin it ships
// (the clouds' DNS services, etcd, DNSSEC, …): twice the packages to compile on a fresh machine, for nothing the node
// serves. A plugin the Corefile names that is not imported here makes CoreDNS refuse to start, naming it.
package main

import (
	"github.com/coredns/coredns/coremain"
	_ "github.com/coredns/coredns/plugin/bind"
	_ "github.com/coredns/coredns/plugin/cache"
	_ "github.com/coredns/coredns/plugin/errors"
	_ "github.com/coredns/coredns/plugin/kubernetes"
)

func main() {
	coremain.Run()
}
