// Command pause is the sandbox ("pause") container of the test node's pods: it holds the pod's
// namespaces and does nothing else. Built statically from this module, so no image is pulled.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM)
	// As PID 1 it also inherits orphaned processes; the pod's containers have their own PID 1, so
	// nothing is reaped here.
	<-signals
}
