package main

import (
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
)

// silentListener accepts connections and never answers: what a NetworkPolicy's dropped packets look like to a client
// whose connection is made (the probe counts a time-out as dropped).
func silentListener(t *testing.T) string {
	t.Helper()
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { listener.Close() })
	go func() {
		var held []net.Conn // held open, and alive: a connection collected would be closed, and read as refused
		for {
			connection, err := listener.Accept()
			if err != nil {
				for _, c := range held {
					c.Close()
				}
				return
			}
			held = append(held, connection)
		}
	}()
	return "http://" + listener.Addr().String() + "/"
}

func TestProbeCountsOnlyTimeOutsAsDropped(t *testing.T) {
	answering := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(`{"articles":[]}`))
	}))
	defer answering.Close()
	silent := silentListener(t)

	if code := probe([]string{answering.URL}, []string{silent, silent + "again"}); code != 0 {
		t.Fatalf("an answered OPEN and two silent DROPPED: exit %d, want 0", code)
	}
	// An answer, or a refusal, where a drop was expected is a hole in the policy, whichever of the URLs it is.
	if code := probe(nil, []string{silent, answering.URL}); code != exitProbe {
		t.Fatalf("a DROPPED URL that answered: exit %d, want %d", code, exitProbe)
	}
}
