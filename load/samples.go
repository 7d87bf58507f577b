package main

import (
	"bufio"
	"io"
	"strconv"
	"sync"
	"time"
)

// The neutral per-request sample format that benchkit reads (scripts/benchkit/core/samples.py), one CSV row per request,
// written as it happens: when it was due (intended_us) and sent (start_us), in microseconds since the Unix epoch;
// latency_us from when it was due to its answer (so a late start counts); the HTTP status (0: no answer); its
// outcome (complete, degraded, shed, unavailable, error, rejected, failed, or unsent: due but never sent, with
// start and latency empty); the answer's body bytes.
const sampleHeader = "intended_us,start_us,latency_us,status,outcome,bytes\n"

type sample struct {
	intended, start time.Time
	latency         time.Duration
	status          int
	outcome         string
	bytes           int
}

// sampleWriter writes samples to a buffer that is flushed every second, so that a reader sees them within one.
type sampleWriter struct {
	mu   sync.Mutex
	out  *bufio.Writer
	line []byte
	err  error
	stop chan struct{}
	done sync.WaitGroup
}

func newSampleWriter(w io.Writer) *sampleWriter {
	s := &sampleWriter{out: bufio.NewWriterSize(w, 256<<10), stop: make(chan struct{})}
	s.out.WriteString(sampleHeader)
	s.done.Go(func() {
		ticker := time.NewTicker(time.Second)
		defer ticker.Stop()
		for {
			select {
			case <-s.stop:
				return
			case <-ticker.C:
				s.mu.Lock()
				s.flush()
				s.mu.Unlock()
			}
		}
	})
	return s
}

func (s *sampleWriter) flush() {
	if err := s.out.Flush(); err != nil && s.err == nil {
		s.err = err
	}
}

func (s *sampleWriter) write(r sample) {
	s.mu.Lock()
	defer s.mu.Unlock()
	line := strconv.AppendInt(s.line[:0], r.intended.UnixMicro(), 10)
	line = append(line, ',')
	if r.outcome != "unsent" {
		line = strconv.AppendInt(line, r.start.UnixMicro(), 10)
		line = append(line, ',')
		line = strconv.AppendInt(line, r.latency.Microseconds(), 10)
	} else {
		line = append(line, ',')
	}
	line = append(line, ',')
	line = strconv.AppendInt(line, int64(r.status), 10)
	line = append(line, ',')
	line = append(line, r.outcome...)
	line = append(line, ',')
	line = strconv.AppendInt(line, int64(r.bytes), 10)
	line = append(line, '\n')
	s.line = line
	if _, err := s.out.Write(line); err != nil && s.err == nil {
		s.err = err
	}
}

// close writes what is buffered and returns the first error any write met.
func (s *sampleWriter) close() error {
	close(s.stop)
	s.done.Wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.flush()
	return s.err
}
