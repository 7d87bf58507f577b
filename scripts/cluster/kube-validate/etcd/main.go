// Command etcd runs a single-member etcd (the embedded server of go.etcd.io/etcd/server/v3) for the
// offline kube-apiserver: no etcd binary needs to be downloaded.
//
// Usage: etcd <data directory> <client port>
package main

import (
	"fmt"
	"log"
	"net/url"
	"os"
	"os/signal"
	"syscall"

	"go.etcd.io/etcd/server/v3/embed"
)

func main() {
	if len(os.Args) != 3 {
		log.Fatalf("usage: %s <data directory> <client port>", os.Args[0])
	}
	config := embed.NewConfig()
	config.Dir = os.Args[1]
	client, err := url.Parse(fmt.Sprintf("http://127.0.0.1:%s", os.Args[2]))
	if err != nil {
		log.Fatal(err)
	}
	peer, _ := url.Parse("http://127.0.0.1:0")
	config.ListenClientUrls = []url.URL{*client}
	config.AdvertiseClientUrls = []url.URL{*client}
	config.ListenPeerUrls = []url.URL{*peer}
	config.AdvertisePeerUrls = []url.URL{*peer}
	config.InitialCluster = config.Name + "=" + peer.String()
	config.LogLevel = "error"

	server, err := embed.StartEtcd(config)
	if err != nil {
		log.Fatal(err)
	}
	defer server.Close()
	<-server.Server.ReadyNotify()
	fmt.Println("etcd ready on", client)

	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGINT, syscall.SIGTERM)
	select {
	case <-stop:
	case err := <-server.Err():
		log.Fatal(err)
	}
}
