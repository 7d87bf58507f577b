package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/valyala/fasthttp"
)

// answer is a web-api answer of ten articles, complete unless an author's details are null.
func answer(complete bool) string {
	article := `{"id":1,"title":"t","authorName":"a","authorBlog":"https://b","authorTwitter":"@a"}`
	articles := strings.Repeat(article+",", 9) + article
	if !complete {
		articles = strings.Replace(articles, `"authorBlog":"https://b"`, `"authorBlog":null`, 1)
	}
	return "[" + articles + "]"
}

// stallingTarget answers at once, except that a request that arrives while the target is stalled (from stallAt for
// stall) waits until the stall is over, as a stopped process's accept queue does.
func stallingTarget(t *testing.T, stallAt *atomic.Int64, stall time.Duration) *httptest.Server {
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if from := stallAt.Load(); from != 0 {
			if end := time.Unix(0, from).Add(stall); time.Now().After(time.Unix(0, from)) && time.Now().Before(end) {
				time.Sleep(time.Until(end))
			}
		}
		if r.URL.Path == "/" {
			return
		}
		w.Write([]byte(answer(true)))
	}))
	t.Cleanup(server.Close)
	return server
}

type row struct {
	intended, start, latency time.Duration // since the run's start; latency from intended
	status                   int
	outcome                  string
	bytes                    int
}

func readSamples(t *testing.T, text string, at time.Time) []row {
	records, err := csv.NewReader(strings.NewReader(text)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(records[0], ",")+"\n" != sampleHeader {
		t.Fatalf("header %v", records[0])
	}
	micros := func(text string) time.Duration {
		if text == "" {
			return -1
		}
		n, err := strconv.ParseInt(text, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		return time.Duration(n) * time.Microsecond
	}
	var rows []row
	for _, r := range records[1:] {
		status, _ := strconv.Atoi(r[3])
		size, _ := strconv.Atoi(r[5])
		since := micros(r[0]) - time.Duration(at.UnixMicro())*time.Microsecond
		start := micros(r[1])
		if start >= 0 {
			start -= time.Duration(at.UnixMicro()) * time.Microsecond
		}
		rows = append(rows, row{since, start, micros(r[2]), status, r[4], size})
	}
	return rows
}

func planFor(t *testing.T, server *httptest.Server, env map[string]string) *plan {
	env["BASE_URL"] = server.URL
	p, err := resolve(scenariosJSON, func(name string) string { return env[name] })
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func run(t *testing.T, p *plan, at time.Time) []row {
	var out bytes.Buffer
	samples := newSampleWriter(&out)
	newGenerator(p, samples, &bytes.Buffer{}).run(context.Background(), at)
	if err := samples.close(); err != nil {
		t.Fatal(err)
	}
	return readSamples(t, out.String(), at)
}

// The coordinated-omission test: in an open run the target stalls for 1 s. Every request due during the stall
// must show the stall in its latency, counted from when it was due, also when the generator could not even send
// it on time (a cap of 5 in flight, all held by the stalled target); every request due is recorded and, the stall
// over a second before the run's end, sent.
func TestRequestsDueDuringAStallShowTheStallInTheirLatency(t *testing.T) {
	const lastMoments = 250 * time.Millisecond
	for _, inFlight := range []string{"1000", "5"} {
		t.Run("at most "+inFlight+" in flight", func(t *testing.T) {
			var stallAt atomic.Int64
			stall := time.Second
			server := stallingTarget(t, &stallAt, stall)
			p := planFor(t, server, map[string]string{"SCENARIO": "open", "RATE": "200", "DURATION": "3s",
				"MAX_USERS": inFlight})
			at := time.Now().Add(50 * time.Millisecond)
			stallFrom := 1 * time.Second
			stallAt.Store(at.Add(stallFrom).UnixNano())
			rows := run(t, p, at)
			if len(rows) != 600 {
				t.Fatalf("%d samples, want one for each of the 600 requests due", len(rows))
			}
			due := 0
			for _, r := range rows {
				// The stall ends 1 s before the run does: every request is sent, late if need be, none left unsent; but
				// for one due in the run's last moments, which a busy machine may wake too late to send before the end.
				if r.outcome == "unsent" && r.intended < 3*time.Second-lastMoments {
					t.Fatalf("due at %v, never sent: the backlog had a whole second to drain", r.intended)
				}
				if r.intended < stallFrom+10*time.Millisecond || r.intended > stallFrom+stall-10*time.Millisecond {
					continue
				}
				due++
				// It cannot have been answered before the stall ended: 10 ms for the timers' own slack.
				if atLeast := stallFrom + stall - r.intended - 10*time.Millisecond; r.latency < atLeast {
					t.Errorf("due at %v, latency %v: the stall (until %v) is hidden", r.intended, r.latency, stallFrom+stall)
				}
			}
			if due < 190 {
				t.Fatalf("%d requests due during the stall, want about 196", due)
			}
		})
	}
}

func TestAClosedRunSendsUsersTimesIterationsAndClassifiesEachAnswer(t *testing.T) {
	var calls atomic.Int64
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch n := calls.Add(1); {
		case r.URL.Path == "/":
		case n%10 == 0:
			w.Write([]byte(answer(false)))
		case n%10 == 1:
			w.WriteHeader(503)
			w.Write([]byte(`{"title":"Too many requests in flight"}`))
		default:
			w.Write([]byte(answer(true)))
		}
	}))
	defer server.Close()
	p := planFor(t, server, map[string]string{"SCENARIO": "closed", "USERS": "4", "ITERATIONS": "25"})
	rows := run(t, p, time.Now())
	counts := map[string]int{}
	for _, r := range rows {
		counts[r.outcome]++
		if r.start != r.intended {
			t.Fatalf("a closed run's request is due when it is sent: %+v", r)
		}
	}
	if len(rows) != 100 || counts["degraded"] == 0 || counts["shed"] == 0 ||
		counts["complete"]+counts["degraded"]+counts["shed"] != 100 {
		t.Fatalf("%d samples: %v", len(rows), counts)
	}
}

func TestAnInstanceTakesItsShareOfTheUsersOrOfTheSchedule(t *testing.T) {
	env := func(scenario, shard string) map[string]string {
		return map[string]string{"SCENARIO": scenario, "USERS": "5", "RATE": "100", "MAX_USERS": "10",
			"SHARD_COUNT": "2", "SHARD_INDEX": shard}
	}
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer server.Close()
	first, second := planFor(t, server, env("closed", "0")), planFor(t, server, env("closed", "1"))
	if first.Users+second.Users != 5 || first.Users != 3 {
		t.Fatalf("users %d + %d, want 3 + 2", first.Users, second.Users)
	}
	// The open model: the two instances' schedules interleave into the whole run's, each request due once.
	at := time.Now()
	due := map[time.Duration]int{}
	for _, shard := range []string{"0", "1"} {
		p := planFor(t, server, map[string]string{"SCENARIO": "open", "RATE": "100", "DURATION": "1s",
			"MAX_USERS": "10", "SHARD_COUNT": "2", "SHARD_INDEX": shard})
		for _, r := range run(t, p, at) {
			due[r.intended.Round(time.Millisecond)]++
		}
	}
	if len(due) != 100 {
		t.Fatalf("%d distinct due times, want 100 (one every 10 ms)", len(due))
	}
	for instant, n := range due {
		if n != 1 || instant%(10*time.Millisecond) != 0 {
			t.Fatalf("due at %v: %d requests", instant, n)
		}
	}
}

func TestSettingsComeFromTheEnvironmentOrTheScenariosDefaults(t *testing.T) {
	get := func(env map[string]string) func(string) string { return func(name string) string { return env[name] } }
	p, err := resolve(scenariosJSON, get(map[string]string{"SCENARIO": "closed", "VERSION": "v3"}))
	if err != nil || p.Users != 100 || p.Iterations != 300 || p.BaseURL != "http://127.0.0.1:8100" {
		t.Fatalf("%+v %v", p, err)
	}
	// the floor, v0, below the builds (scripts/lib.sh)
	if p, err = resolve(scenariosJSON, get(map[string]string{"VERSION": "v0"})); err != nil || p.BaseURL != "http://127.0.0.1:8070" {
		t.Fatalf("%+v %v", p, err)
	}
	p, _ = resolve(scenariosJSON, get(map[string]string{"SCENARIO": "warmup", "USERS": "7", "WARMUP_ITERATIONS": "9"}))
	if p.Users != 7 || p.Iterations != 9 {
		t.Fatalf("%+v", p)
	}
	p, _ = resolve(scenariosJSON, get(map[string]string{"TARGET": "authors", "AUTHOR_NAMES": "Ada Lovelace,Alan Turing"}))
	if strings.Join(p.paths, " ") != "/v1/authors?name=Ada+Lovelace /v1/authors?name=Alan+Turing" {
		t.Fatalf("%v", p.paths)
	}
	for _, bad := range []map[string]string{{"SCENARIO": "soak"}, {"TARGET": "kafka"}, {"VERSION": "2"}, {"VERSION": "v-1"},
		{"SCENARIO": "open", "RATE": "-1"}, {"SCENARIO": "closed", "USERS": "none"}, {"SHARD_COUNT": "2", "SHARD_INDEX": "2"}} {
		if _, err := resolve(scenariosJSON, get(bad)); err == nil {
			t.Errorf("%v was accepted", bad)
		}
	}
}

func TestAnUnreachableTargetIsNamedNotWaitedFor(t *testing.T) {
	p, _ := resolve(scenariosJSON, func(name string) string {
		return map[string]string{"BASE_URL": "http://127.0.0.1:1"}[name]
	})
	started := time.Now()
	err := awaitReachable(p, time.Second)
	if err == nil || !strings.Contains(err.Error(), "cannot reach http://127.0.0.1:1/ from") {
		t.Fatalf("%v", err)
	}
	if time.Since(started) > 10*time.Second {
		t.Fatalf("waited %v", time.Since(started))
	}
}

// A NetworkPolicy that drops a SYN shows as the dialer's i/o timeout or the request's; a reset or a refusal is an
// answer of the network, not a drop.
func TestAProbeCountsEitherTimeOutAsDroppedAndARefusalNot(t *testing.T) {
	if !timedOut(fasthttp.ErrTimeout) || !timedOut(fasthttp.ErrDialTimeout) {
		t.Fatal("fasthttp's own time-outs are drops")
	}
	dial := &net.OpError{Op: "dial", Net: "tcp4", Err: os.ErrDeadlineExceeded}
	if !timedOut(fmt.Errorf("error when dialing 10.96.0.1:8080: %w", dial)) {
		t.Fatal("a dial's i/o timeout is a drop")
	}
	refused := &net.OpError{Op: "dial", Net: "tcp4", Err: syscall.ECONNREFUSED}
	if timedOut(fmt.Errorf("error when dialing 10.96.0.1:8080: %w", refused)) {
		t.Fatal("a refused connection is not a drop")
	}
}
