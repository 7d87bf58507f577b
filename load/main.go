// loadgen: the project's load generator. It runs one scenario of scenarios.json against one service of a build and
// writes every request's outcome as a sample (samples.go); benchkit computes every figure from those samples.
//
//	loadgen [run]     the scenario the environment names (SCENARIO, TARGET, VERSION, BASE_URL, USERS, ITERATIONS,
//	                  RATE, DURATION, MAX_USERS, …: scenarios.json); SAMPLES_FILE is where the samples go
//	                  ("-": into the log at the end, gzip and base64 between markers, for a Kubernetes Job)
//	loadgen probe     can this pod reach each URL of OPEN, and is it kept from each of DROPPED (make test-cluster)
//	loadgen calibrate a fixed CPU-bound task, timed: tells a slower node from a slower build (make bench)
//	loadgen version
//
// Several instances share one run: SHARD_COUNT of them (an Indexed Job's pods, SHARD_INDEX or JOB_COMPLETION_INDEX
// each), each taking its share of the users or of the arrival rate, all starting at START_AT (Unix seconds).
package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/valyala/fasthttp"
)

// Set at link time by the Makefile (-X main.version=…).
var version = "dev"

// Between these lines a Job's log carries its samples (SAMPLES_FILE=-).
const (
	samplesBegin = "----- load samples (gzip, base64) -----"
	samplesEnd   = "----- end of load samples -----"
)

// Exit codes besides 0: the settings are wrong (2), the target never answered (3), a probe found a URL that
// answered otherwise than it should (4).
const (
	exitSettings    = 2
	exitUnreachable = 3
	exitProbe       = 4
)

func main() {
	command := "run"
	if len(os.Args) > 1 {
		command = os.Args[1]
	}
	switch command {
	case "run":
		os.Exit(runScenario(os.Getenv))
	case "probe":
		os.Exit(probe(strings.Fields(os.Getenv("OPEN")), strings.Fields(os.Getenv("DROPPED"))))
	case "calibrate":
		fmt.Printf("calibration-ms %d\n", calibrate().Milliseconds())
	case "version":
		fmt.Printf("loadgen %s (fasthttp)\n", version)
	default:
		fmt.Fprintf(os.Stderr, "usage: loadgen [run|probe|calibrate|version], not %q\n", command)
		os.Exit(exitSettings)
	}
}

func runScenario(getenv func(string) string) int {
	p, err := resolve(scenariosJSON, getenv)
	if err != nil {
		fmt.Fprintln(os.Stderr, "loadgen:", err)
		return exitSettings
	}
	target := getenv("SAMPLES_FILE")
	if target == "" {
		target = fmt.Sprintf("samples-%s-%s.csv", p.Version, p.Scenario)
	}
	var file *os.File
	if target == "-" { // kept aside until the end, then printed into the log
		file, err = os.CreateTemp("", "samples-*.csv")
		if err == nil {
			defer os.Remove(file.Name())
		}
	} else {
		file, err = os.Create(target)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "loadgen: the samples' file:", err)
		return exitSettings
	}
	defer file.Close()
	if err := awaitReachable(p, reachSeconds(getenv)); err != nil {
		fmt.Fprintln(os.Stderr, "loadgen:", err)
		return exitUnreachable
	}
	at := time.Now()
	if startAt := getenv("START_AT"); startAt != "" {
		seconds, err := strconv.ParseFloat(startAt, 64)
		if err != nil {
			fmt.Fprintf(os.Stderr, "loadgen: START_AT must be Unix seconds, not %q\n", startAt)
			return exitSettings
		}
		at = time.Unix(0, int64(seconds*1e9))
		time.Sleep(time.Until(at))
		fmt.Printf("shard %d of %d: started %.1f ms after START_AT\n", p.Shard, p.Shards,
			float64(time.Since(at).Microseconds())/1000)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	samples := newSampleWriter(file)
	g := newGenerator(p, samples, os.Stdout)
	fmt.Println(describe(p))
	g.run(ctx, at)
	if err := samples.close(); err != nil {
		fmt.Fprintln(os.Stderr, "loadgen: writing the samples:", err)
		return 1
	}
	fmt.Printf("%s %s: done in %.1f s, %s\n", p.Version, p.Scenario, time.Since(at).Seconds(), g.counts())
	if target == "-" {
		return printSamples(file)
	}
	return 0
}

func describe(p *plan) string {
	shard := ""
	if p.Shards > 1 {
		shard = fmt.Sprintf(" (shard %d of %d)", p.Shard, p.Shards)
	}
	if p.Open {
		return fmt.Sprintf("%s %s: %g requests/s for %s, at most %d in flight, against %s%s", p.Version, p.Scenario,
			p.Rate/float64(p.Shards), p.Duration, p.MaxUsers, p.BaseURL, shard)
	}
	return fmt.Sprintf("%s %s: %d users x %d requests against %s%s", p.Version, p.Scenario, p.Users, p.Iterations,
		p.BaseURL, shard)
}

func reachSeconds(getenv func(string) string) time.Duration {
	if seconds, err := strconv.Atoi(getenv("REACH_SECONDS")); err == nil {
		return time.Duration(seconds) * time.Second
	}
	return 30 * time.Second
}

// awaitReachable: before any load, the target's API port must answer at all (any status: the services' health is on
// a management port of its own, which a NetworkPolicy opens to monitoring alone). A Service whose NetworkPolicy does
// not admit this pod drops its SYNs silently, and every request would wait out its time-out: stop at once instead,
// saying what could not be reached and why.
func awaitReachable(p *plan, within time.Duration) error {
	url := p.BaseURL + "/"
	deadline := time.Now().Add(within)
	for {
		status, _, err := fasthttp.GetTimeout(nil, url, 5*time.Second)
		if err == nil && status > 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("cannot reach %s from this load generator within %s (%v): is the service up, and does "+
				"a NetworkPolicy admit this pod's labels?", url, within, err)
		}
		time.Sleep(time.Second)
	}
}

// printSamples puts the samples into the log, compressed: a Job has no file to collect.
func printSamples(file *os.File) int {
	var packed bytes.Buffer
	zip := gzip.NewWriter(&packed)
	if _, err := file.Seek(0, io.SeekStart); err != nil {
		fmt.Fprintln(os.Stderr, "loadgen:", err)
		return 1
	}
	if _, err := io.Copy(zip, file); err != nil || zip.Close() != nil {
		fmt.Fprintln(os.Stderr, "loadgen: packing the samples:", err)
		return 1
	}
	text := base64.StdEncoding.EncodeToString(packed.Bytes())
	var out strings.Builder
	out.WriteString(samplesBegin + "\n")
	for len(text) > 0 {
		n := min(len(text), 120)
		out.WriteString(text[:n] + "\n")
		text = text[n:]
	}
	out.WriteString(samplesEnd + "\n")
	_, err := os.Stdout.WriteString(out.String())
	if err != nil {
		return 1
	}
	return 0
}

// probe: every URL in open must answer 200, and web-api's fan-out completely (an author's blog null means web-api
// did not reach authors), at least once within a minute (a build's first answers after its start may be degraded
// while its JVMs are cold). Every URL in dropped must get no answer at all, neither a response nor a reset, only a
// time-out: what a NetworkPolicy enforced by the network plugin does to a packet it does not admit.
// timedOut: no answer at all, whichever side gave up waiting: the request's deadline, or the dial's (a SYN the network
// drops times the connection out before the request's own deadline, reported as the dialer's i/o timeout).
func timedOut(err error) bool {
	var network net.Error
	return errors.Is(err, fasthttp.ErrTimeout) || errors.Is(err, fasthttp.ErrDialTimeout) ||
		(errors.As(err, &network) && network.Timeout())
}

func probe(open, dropped []string) int {
	var failures []string
	for _, url := range open {
		deadline := time.Now().Add(time.Minute)
		problem := answerProblem(url)
		for problem != "" && time.Now().Before(deadline) {
			time.Sleep(time.Second)
			problem = answerProblem(url)
		}
		fmt.Printf("open    %s: %s\n", url, or(problem, "answered"))
		if problem != "" {
			failures = append(failures, url+" "+problem)
		}
	}
	// A dropped request is known only when its time-out has passed: all of them wait out the same 3 s at once.
	notDropped := make([]string, len(dropped))
	var waiting sync.WaitGroup
	for i, url := range dropped {
		waiting.Add(1)
		go func() {
			defer waiting.Done()
			status, _, err := fasthttp.GetTimeout(nil, url, 3*time.Second)
			fmt.Printf("dropped %s: %s\n", url, or(errorText(err), strconv.Itoa(status)))
			if !timedOut(err) {
				notDropped[i] = fmt.Sprintf("%s was not dropped: %d %s", url, status, errorText(err))
			}
		}()
	}
	waiting.Wait()
	for _, failure := range notDropped {
		if failure != "" {
			failures = append(failures, failure)
		}
	}
	if len(failures) > 0 {
		fmt.Println("probe failed: " + strings.Join(failures, "; "))
		return exitProbe
	}
	return 0
}

func answerProblem(url string) string {
	status, body, err := fasthttp.GetTimeout(nil, url, 20*time.Second)
	switch {
	case err != nil:
		return "no answer: " + err.Error()
	case status != 200:
		return fmt.Sprintf("answered %d", status)
	case bytes.Contains(body, []byte(`"authorBlog":null`)):
		return "answered without an author"
	}
	return ""
}

func errorText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func or(text, fallback string) string {
	if text == "" {
		return fallback
	}
	return text
}

// calibrate: SHA-256 over the same 16 MiB, 128 times (about 1-2 s), in one goroutine.
func calibrate() time.Duration {
	data := make([]byte, 16<<20)
	started := time.Now()
	digest := sha256.New()
	for range 128 {
		digest.Reset()
		digest.Write(data)
		digest.Sum(nil)
	}
	return time.Since(started)
}
