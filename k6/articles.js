import http from 'k6/http';
import { check, sleep } from 'k6';
import exec from 'k6/execution';
import { Counter, Trend } from 'k6/metrics';

/*
 * Loads GET /vN/articles on web-api: ten articles, each merged with its author (one articles call and
 * five author calls behind every request). The same script runs locally and in a Kubernetes Job.
 *
 * SCENARIO picks the load model:
 *   smoke   a few requests, for the tests
 *   warmup  the JIT warm-up that precedes every measured run, the same for every build; not measured
 *   closed  the original 2020 study: 100 VUs x 300 iterations, no think time (30,000 requests)
 *   open    constant arrival rate: requests keep coming however slow the answers are, so latency is
 *           not hidden by coordinated omission; requests k6 could not start count as dropped_iterations
 *   steady  a modest constant arrival rate (RATE, default 50/s) for the fault-injection suite, which
 *           reads each request's outcome over time from k6's CSV output (request_outcomes)
 *
 * Environment: VERSION (v1, v2, v3: services/builds.conf), BASE_URL, TARGET (web-api|articles|authors), AUTHOR_NAMES, SCENARIO, VUS,
 * ITERATIONS, WARMUP_ITERATIONS, RATE, DURATION, MAX_VUS, MAX_DURATION, SUMMARY_FILE, REACH_SECONDS (how long setup()
 * waits for the target to answer at all before it stops the run, default 30).
 */

const VERSION = __ENV.VERSION || 'v1';
// The local stack's ports: web-api v1 on 8080, v2 on 8090, v3 on 8100 (scripts/lib.sh)
const BASE_URL = __ENV.BASE_URL || `http://127.0.0.1:${8080 + 10 * (Number(VERSION.slice(1)) - 1)}`;
const SCENARIO = __ENV.SCENARIO || 'smoke';
const number = (name, fallback) => (__ENV[name] ? Number(__ENV[name]) : fallback);

const SCENARIOS = {
  smoke: { executor: 'per-vu-iterations', vus: 2, iterations: 10, maxDuration: '1m' },
  // The same number of requests for both builds (not the same time: that would warm the faster one more).
  warmup: {
    executor: 'per-vu-iterations',
    vus: number('VUS', 100),
    iterations: number('WARMUP_ITERATIONS', 900),
    maxDuration: __ENV.MAX_DURATION || '30m',
  },
  closed: {
    executor: 'per-vu-iterations',
    vus: number('VUS', 100),
    iterations: number('ITERATIONS', 300),
    maxDuration: __ENV.MAX_DURATION || '30m', // k6's default is 10m: a slow build must not be cut short
  },
  open: {
    executor: 'constant-arrival-rate',
    rate: number('RATE', 800),
    timeUnit: '1s',
    duration: __ENV.DURATION || '60s',
    preAllocatedVUs: number('VUS', 100),
    maxVUs: number('MAX_VUS', 1000),
  },
  steady: {
    executor: 'constant-arrival-rate',
    rate: number('RATE', 50),
    timeUnit: '1s',
    duration: __ENV.DURATION || '30s',
    preAllocatedVUs: number('VUS', 20),
    maxVUs: number('MAX_VUS', 200),
  },
};
if (!SCENARIOS[SCENARIO]) {
  throw new Error(`SCENARIO must be one of ${Object.keys(SCENARIOS).join(', ')}, not ${SCENARIO}`);
}

// Answers where an author look-up fell back (null details for an author that exists): counted apart,
// so that a fast fallback never passes for a successful answer.
const degradedResponses = new Counter('degraded_responses');
const responseBytes = new Trend('response_bytes');
// One sample per request, tagged with what the client got: complete, degraded (200 with null author
// details), shed (turned away by the in-flight limit), unavailable (other 503), error (other 5xx),
// rejected (4xx) or failed (no answer).
const requestOutcomes = new Counter('request_outcomes');
const OUTCOMES = ['complete', 'degraded', 'shed', 'unavailable', 'error', 'rejected', 'failed'];

export const options = {
  scenarios: { [SCENARIO]: { ...SCENARIOS[SCENARIO], tags: { version: VERSION } } },
  // On the scenario's own requests: setup()'s reachability probe is no part of the load.
  thresholds: {
    [`http_req_failed{scenario:${SCENARIO}}`]: ['rate<0.01'],
    // Always true: it puts the scenario's own latencies into the summary, for the report.
    [`http_req_duration{scenario:${SCENARIO}}`]: ['max>=0'],
    checks: ['rate>0.99'],
    degraded_responses: SCENARIO === 'smoke' ? ['count==0'] : ['count>=0'],
    // Always true: a threshold on each outcome puts its count into the summary, for the report.
    ...Object.fromEntries(OUTCOMES.map((o) => [`request_outcomes{outcome:${o}}`, ['count>=0']])),
  },
  summaryTrendStats: ['avg', 'min', 'med', 'p(90)', 'p(95)', 'p(99)', 'max'],
  discardResponseBodies: false,
};

// What one request asks for and what makes its answer complete, per TARGET: web-api (the fan-out, what
// the benchmark is about), or one hop alone, articles' newest ten or authors by name (round-robin over
// AUTHOR_NAMES), so that a report can tell data access from the fan-out.
const AUTHOR_NAMES = (__ENV.AUTHOR_NAMES || 'Niklas Heidloff').split(',');
const TARGETS = {
  'web-api': {
    url: () => `${BASE_URL}/${VERSION}/articles`,
    complete: (body) => Array.isArray(body) && body.length === 10 &&
      body.every((a) => a.authorBlog !== null && a.authorTwitter !== null),
  },
  articles: {
    url: () => `${BASE_URL}/${VERSION}/articles`,
    complete: (body) => Array.isArray(body) && body.length === 10,
  },
  authors: {
    url: () => `${BASE_URL}/${VERSION}/authors?name=${encodeURIComponent(AUTHOR_NAMES[__ITER % AUTHOR_NAMES.length])}`,
    complete: (body) => body !== null && typeof body.name === 'string' && body.blog !== null,
  },
};
const TARGET = TARGETS[__ENV.TARGET || 'web-api'];
if (!TARGET) throw new Error(`TARGET must be one of ${Object.keys(TARGETS).join(', ')}`);

// Before any load, the target must answer at all (any HTTP status of its health endpoint will do). A Service whose
// NetworkPolicy does not admit this pod drops its SYNs silently, and every VU would wait out its time-outs (a Job
// its whole deadline): stop at once instead, saying what could not be reached and why.
export function setup() {
  const url = `${BASE_URL}/q/health/ready`;
  const deadline = Date.now() + 1000 * number('REACH_SECONDS', 30);
  let answer;
  do {
    answer = http.get(url, { timeout: '5s', tags: { name: 'reachability probe' } });
    if (answer.status !== 0) return;
    sleep(1);
  } while (Date.now() < deadline);
  exec.test.abort(`cannot reach ${url} from this load generator within ${number('REACH_SECONDS', 30)} s ` +
    `(${answer.error}): is the service up, and does a NetworkPolicy admit this pod's labels?`);
}

export default function () {
  const response = http.get(TARGET.url());
  let body = null;
  try {
    body = response.json();
  } catch (notJson) {
    body = null;
  }
  const complete = response.status === 200 && TARGET.complete(body);
  check(response, {
    'status is 200': (r) => r.status === 200,
    'complete answer': () => complete,
  });
  requestOutcomes.add(1, { outcome: outcome(response, complete) });
  if (response.status === 200) {
    if (complete) {
      responseBytes.add(response.body.length); // the equal-work check compares complete answers only
    } else {
      degradedResponses.add(1);
    }
  }
}

function outcome(response, complete) {
  if (response.status === 200) return complete ? 'complete' : 'degraded';
  if (response.status === 503) return /Too many requests in flight/.test(response.body) ? 'shed' : 'unavailable';
  if (response.status >= 500) return 'error';
  if (response.status >= 400) return 'rejected';
  return 'failed';
}

// SUMMARY_FILE=- puts the JSON into the log between markers: a Kubernetes Job has no file to collect.
export const SUMMARY_BEGIN = '----- k6 summary json -----';
export const SUMMARY_END = '----- end of k6 summary json -----';

export function handleSummary(data) {
  const file = __ENV.SUMMARY_FILE || `summary-${VERSION}-${SCENARIO}.json`;
  const json = JSON.stringify(data, null, 2);
  if (file === '-') {
    return { stdout: `${textSummary(data)}${SUMMARY_BEGIN}\n${json}\n${SUMMARY_END}\n` };
  }
  return { [file]: json, stdout: textSummary(data) };
}

// A few lines for the console; the JSON file holds everything (jslib's textSummary is a remote import).
function textSummary(data) {
  const m = data.metrics;
  const value = (metric, stat) => (m[metric] ? m[metric].values[stat] : 0);
  const ms = (stat) => `${value('http_req_duration', stat).toFixed(1)} ms`;
  return [
    `${VERSION} ${SCENARIO}: ${value('http_reqs', 'count')} requests, ${value('http_reqs', 'rate').toFixed(1)} req/s`,
    `  latency avg ${ms('avg')}, p50 ${ms('med')}, p95 ${ms('p(95)')}, p99 ${ms('p(99)')}, max ${ms('max')}`,
    `  failed ${(100 * value('http_req_failed', 'rate')).toFixed(2)} %, checks ${(100 * value('checks', 'rate')).toFixed(2)} %,` +
      ` degraded ${value('degraded_responses', 'count')}, dropped ${value('dropped_iterations', 'count')}`,
    '',
  ].join('\n');
}
