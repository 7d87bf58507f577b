package main

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"
)

// The one definition of the scenarios, built into the binary so that a Job's image needs no file beside it.
//
//go:embed scenarios.json
var scenariosJSON []byte

// setting is a value of scenarios.json: a literal, or {"env": NAME, "default": VALUE}.
type setting struct {
	Env     string          `json:"env"`
	Default json.RawMessage `json:"default"`
	literal json.RawMessage
}

func (s *setting) UnmarshalJSON(data []byte) error {
	if bytes.HasPrefix(bytes.TrimSpace(data), []byte("{")) {
		type plain setting
		return json.Unmarshal(data, (*plain)(s))
	}
	s.literal = append(json.RawMessage(nil), data...)
	return nil
}

// text is the setting's value as a string: the environment's where it names a variable that is set.
func (s *setting) text(getenv func(string) string) string {
	if s == nil {
		return ""
	}
	if s.Env != "" && getenv(s.Env) != "" {
		return getenv(s.Env)
	}
	raw := s.literal
	if raw == nil {
		raw = s.Default
	}
	var str string
	if json.Unmarshal(raw, &str) == nil {
		return str
	}
	return string(raw)
}

type scenarioSpec struct {
	Model       string   `json:"model"`
	Users       *setting `json:"users"`
	Iterations  *setting `json:"iterations"`
	MaxDuration *setting `json:"maxDuration"`
	Rate        *setting `json:"rate"`
	Duration    *setting `json:"duration"`
	MaxUsers    *setting `json:"maxUsers"`
}

type completeness struct {
	Count  map[string]int `json:"count"`
	Absent []string       `json:"absent"`
}

type targetSpec struct {
	Path     string       `json:"path"`
	Complete completeness `json:"complete"`
}

type definitions struct {
	Scenarios      map[string]scenarioSpec `json:"scenarios"`
	Targets        map[string]targetSpec   `json:"targets"`
	ShedMarker     string                  `json:"shedMarker"`
	RequestTimeout string                  `json:"requestTimeout"`
}

// plan is one run, resolved: what to load, how hard, and which share of it this instance takes.
type plan struct {
	Scenario, Target, Version, BaseURL string
	Open                               bool
	Users, Iterations                  int     // closed: this instance's users, each sending Iterations requests
	Rate                               float64 // open: the whole run's arrival rate, all instances together
	MaxUsers                           int     // open: this instance's cap on requests in flight
	Duration                           time.Duration
	Shard, Shards                      int
	Timeout                            time.Duration
	paths                              []string  // the request paths, taken in turn (authors: one per author name)
	counted                            []counted // the complete answer's patterns and how often each occurs
	absent                             [][]byte  // patterns a complete answer does not hold
	shedMarker                         []byte
}

type counted struct {
	pattern []byte
	times   int
}

func names[V any](m map[string]V) string {
	keys := make([]string, 0, len(m))
	for key := range m {
		keys = append(keys, key)
	}
	sort.Strings(keys)
	return strings.Join(keys, ", ")
}

func positiveInt(name, text string) (int, error) {
	n, err := strconv.Atoi(text)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("%s must be a whole number above 0, not %q", name, text)
	}
	return n, nil
}

// share is this instance's part of total when it is split over shards: the first total%shards get one more.
func share(total, shard, shards int) int {
	n := total / shards
	if shard < total%shards {
		n++
	}
	return n
}

// resolve reads the definitions and the environment (getenv) into one instance's plan.
func resolve(raw []byte, getenv func(string) string) (*plan, error) {
	var defs definitions
	if err := json.Unmarshal(raw, &defs); err != nil {
		return nil, fmt.Errorf("scenarios.json: %w", err)
	}
	or := func(name, fallback string) string {
		if v := getenv(name); v != "" {
			return v
		}
		return fallback
	}
	p := &plan{Scenario: or("SCENARIO", "smoke"), Target: or("TARGET", "web-api"), Version: or("VERSION", "v1")}
	spec, ok := defs.Scenarios[p.Scenario]
	if !ok {
		return nil, fmt.Errorf("SCENARIO must be one of %s, not %s", names(defs.Scenarios), p.Scenario)
	}
	target, ok := defs.Targets[p.Target]
	if !ok {
		return nil, fmt.Errorf("TARGET must be one of %s, not %s", names(defs.Targets), p.Target)
	}
	version, err := strconv.Atoi(strings.TrimPrefix(p.Version, "v"))
	if err != nil || version < 0 || !strings.HasPrefix(p.Version, "v") {
		return nil, fmt.Errorf("VERSION must be v1, v2, … or the floor's v0 (services/builds.conf), not %q", p.Version)
	}
	// The local stack's ports: web-api v1 on 8080, v2 on 8090, v3 on 8100, the floor v0 on 8070 (scripts/lib.sh).
	p.BaseURL = strings.TrimSuffix(or("BASE_URL", fmt.Sprintf("http://127.0.0.1:%d", 8080+10*(version-1))), "/")
	if p.Shards, err = positiveInt("SHARD_COUNT", or("SHARD_COUNT", "1")); err != nil {
		return nil, err
	}
	// An Indexed Job gives each pod its index as JOB_COMPLETION_INDEX.
	if p.Shard, err = strconv.Atoi(or("SHARD_INDEX", or("JOB_COMPLETION_INDEX", "0"))); err != nil || p.Shard < 0 || p.Shard >= p.Shards {
		return nil, fmt.Errorf("SHARD_INDEX must be 0 to %d", p.Shards-1)
	}
	if p.Timeout, err = time.ParseDuration(or("REQUEST_TIMEOUT", defs.RequestTimeout)); err != nil {
		return nil, fmt.Errorf("REQUEST_TIMEOUT: %w", err)
	}
	switch spec.Model {
	case "closed":
		users, err := positiveInt("users", spec.Users.text(getenv))
		if err != nil {
			return nil, err
		}
		p.Users = share(users, p.Shard, p.Shards)
		if p.Iterations, err = positiveInt("iterations", spec.Iterations.text(getenv)); err != nil {
			return nil, err
		}
		if p.Duration, err = time.ParseDuration(spec.MaxDuration.text(getenv)); err != nil {
			return nil, fmt.Errorf("maxDuration: %w", err)
		}
	case "open":
		p.Open = true
		if p.Rate, err = strconv.ParseFloat(spec.Rate.text(getenv), 64); err != nil || p.Rate <= 0 {
			return nil, fmt.Errorf("RATE must be a number of requests per second above 0, not %q", spec.Rate.text(getenv))
		}
		maxUsers, err := positiveInt("MAX_USERS", spec.MaxUsers.text(getenv))
		if err != nil {
			return nil, err
		}
		p.MaxUsers = max(1, share(maxUsers, p.Shard, p.Shards))
		if p.Duration, err = time.ParseDuration(spec.Duration.text(getenv)); err != nil {
			return nil, fmt.Errorf("DURATION: %w", err)
		}
	default:
		return nil, fmt.Errorf("scenario %s: model must be closed or open, not %q", p.Scenario, spec.Model)
	}
	path := strings.ReplaceAll(target.Path, "{version}", p.Version)
	for _, author := range strings.Split(or("AUTHOR_NAMES", "Niklas Heidloff"), ",") {
		p.paths = append(p.paths, strings.ReplaceAll(path, "{author}", url.QueryEscape(author)))
		if !strings.Contains(path, "{author}") {
			break
		}
	}
	for pattern, times := range target.Complete.Count {
		p.counted = append(p.counted, counted{[]byte(pattern), times})
	}
	for _, pattern := range target.Complete.Absent {
		p.absent = append(p.absent, []byte(pattern))
	}
	p.shedMarker = []byte(defs.ShedMarker)
	return p, nil
}

// outcome names what one answer was: complete, degraded (200 but not complete: an author look-up fell back),
// shed (503 from the edge's in-flight limit), unavailable (another 503), error (another 5xx), rejected (4xx) or
// failed (no answer at all).
func (p *plan) outcome(status int, body []byte) string {
	switch {
	case status == 200 && p.isComplete(body):
		return "complete"
	case status == 200:
		return "degraded"
	case status == 503 && bytes.Contains(body, p.shedMarker):
		return "shed"
	case status == 503:
		return "unavailable"
	case status >= 500:
		return "error"
	case status >= 400:
		return "rejected"
	}
	return "failed"
}

func (p *plan) isComplete(body []byte) bool {
	for _, c := range p.counted {
		if bytes.Count(body, c.pattern) != c.times {
			return false
		}
	}
	for _, pattern := range p.absent {
		if bytes.Contains(body, pattern) {
			return false
		}
	}
	return true
}
