package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/valyala/fasthttp"
)

// generator sends a plan's requests and records each one's outcome where it happens.
type generator struct {
	plan    *plan
	client  *fasthttp.Client
	samples *sampleWriter
	log     io.Writer
	sent    atomic.Int64 // requests sent so far
	notDone atomic.Int64 // answers that were not complete (degraded, shed, errors, none)
	unsent  atomic.Int64 // open model: requests due that were never sent
	path    atomic.Uint64
}

func newGenerator(p *plan, samples *sampleWriter, log io.Writer) *generator {
	conns := p.Users
	if p.Open {
		conns = p.MaxUsers
	}
	return &generator{plan: p, samples: samples, log: log, client: &fasthttp.Client{
		MaxConnsPerHost:               conns,
		MaxConnWaitTimeout:            p.Timeout,
		ReadBufferSize:                16 << 10,
		DisablePathNormalizing:        true,
		NoDefaultUserAgentHeader:      false,
		DisableHeaderNamesNormalizing: true,
	}}
}

// request sends one request whose intended start was `intended` (zero: now, as in the closed model) and records it.
func (g *generator) request(intended time.Time) {
	p := g.plan
	req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(resp)
	req.SetRequestURI(p.BaseURL + p.paths[int(g.path.Add(1)-1)%len(p.paths)])
	start := time.Now()
	if intended.IsZero() {
		intended = start
	}
	g.sent.Add(1)
	status, body := 0, []byte(nil)
	if err := g.client.DoTimeout(req, resp, p.Timeout); err == nil {
		status, body = resp.StatusCode(), resp.Body()
	}
	answered := time.Now()
	outcome := p.outcome(status, body)
	if outcome != "complete" {
		g.notDone.Add(1)
	}
	g.samples.write(sample{intended: intended, start: start, latency: answered.Sub(intended), status: status,
		outcome: outcome, bytes: len(body)})
}

// run carries out the plan from `at` on, until it is done or ctx is cancelled (then no new request starts, and
// the ones in flight finish).
func (g *generator) run(ctx context.Context, at time.Time) {
	var workers sync.WaitGroup
	stopProgress := g.progress(at)
	defer stopProgress()
	if g.plan.Open {
		g.open(ctx, at, &workers)
	} else {
		g.closed(ctx, at, &workers)
	}
	workers.Wait()
}

// closed: each user sends its next request as soon as the last one answered, Iterations times, and starts
// none after the scenario's longest duration.
func (g *generator) closed(ctx context.Context, at time.Time, workers *sync.WaitGroup) {
	deadline := at.Add(g.plan.Duration)
	for range g.plan.Users {
		workers.Go(func() {
			for range g.plan.Iterations {
				if ctx.Err() != nil || time.Now().After(deadline) {
					return
				}
				g.request(time.Time{})
			}
		})
	}
}

// open: request j of the whole run (all instances together) is due at j/Rate seconds after `at`; this instance
// takes every Shards-th one, starting at its index, so that the instances' schedules merge into one. Up to
// MaxUsers requests are in flight at once: when all are busy, the next due request goes out as soon as one
// answers, late, and its latency still counts from when it was due. A request due before the end that could not
// be sent by then is recorded as unsent.
func (g *generator) open(ctx context.Context, at time.Time, workers *sync.WaitGroup) {
	p := g.plan
	total := int64(math.Ceil(p.Rate * p.Duration.Seconds())) // requests due in the whole run
	mine := int64(share(int(total), p.Shard, p.Shards))
	end := at.Add(p.Duration)
	var next atomic.Int64
	interval := float64(time.Second) / p.Rate
	for range p.MaxUsers {
		workers.Go(func() {
			timer := time.NewTimer(time.Hour)
			defer timer.Stop()
			for {
				k := next.Add(1) - 1
				if k >= mine {
					return
				}
				due := at.Add(time.Duration(float64(int64(p.Shard)+k*int64(p.Shards)) * interval))
				if wait := time.Until(due); wait > 0 {
					timer.Reset(wait)
					select {
					case <-timer.C:
					case <-ctx.Done():
						return // stopped: this request and every later one were not due yet
					}
				}
				if now := time.Now(); now.After(end) || ctx.Err() != nil {
					g.unsent.Add(1)
					g.samples.write(sample{intended: due, outcome: "unsent"})
					continue
				}
				g.request(due)
			}
		})
	}
}

// progress prints one line every 10 s while the run lasts; the returned function stops it.
func (g *generator) progress(at time.Time) func() {
	done := make(chan struct{})
	go func() {
		ticker := time.NewTicker(10 * time.Second)
		defer ticker.Stop()
		for {
			select {
			case <-done:
				return
			case now := <-ticker.C:
				fmt.Fprintf(g.log, "… %s %s: %.0f s, %s\n", g.plan.Version, g.plan.Scenario, now.Sub(at).Seconds(), g.counts())
			}
		}
	}()
	return func() { close(done) }
}

func (g *generator) counts() string {
	text := fmt.Sprintf("%d sent, %d not complete", g.sent.Load(), g.notDone.Load())
	if g.plan.Open {
		text += fmt.Sprintf(", %d unsent", g.unsent.Load())
	}
	return text
}
