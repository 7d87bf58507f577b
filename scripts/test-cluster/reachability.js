// make test-cluster's probe of the node's network, run in a k6 pod: every URL in OPEN (space-separated) must
// answer 200, and web-api's fan-out completely (an author's blog null means web-api did not reach authors), at
// least once within a minute: a build's first answers after its start may be degraded while its JVMs are cold
// (web-api gives a look-up 1 s), but only a reachable authors ever makes one complete. Every URL in DROPPED must
// get no answer at all, neither a response nor a reset, only k6's time-out (error code 1050): what a
// NetworkPolicy enforced by Calico does to a packet it does not admit.
// Aborts (exit code 108) naming each URL that did otherwise.
import http from 'k6/http';
import exec from 'k6/execution';
import { sleep } from 'k6';

const urls = (name) => (__ENV[name] || '').split(' ').filter((url) => url);
const REQUEST_TIMEOUT_ERROR = 1050;
const OPEN_WITHIN_SECONDS = 60;

function problemOf(response) {
  if (response.status !== 200) return `answered ${response.status} ${response.error}`;
  if (/"authorBlog":null/.test(response.body)) return 'answered without an author';
  return null;
}

export default function () {
  const failures = [];
  for (const url of urls('OPEN')) {
    const deadline = Date.now() + 1000 * OPEN_WITHIN_SECONDS;
    let problem = problemOf(http.get(url, { timeout: '20s' }));
    while (problem !== null && Date.now() < deadline) {
      sleep(1);
      problem = problemOf(http.get(url, { timeout: '20s' }));
    }
    console.log(`open    ${url}: ${problem || 'answered'}`);
    if (problem !== null) failures.push(`${url} ${problem}`);
  }
  for (const url of urls('DROPPED')) {
    const response = http.get(url, { timeout: '3s' });
    console.log(`dropped ${url}: ${response.status || response.error}`);
    if (response.error_code !== REQUEST_TIMEOUT_ERROR) {
      failures.push(`${url} was not dropped: ${response.status} ${response.error}`);
    }
  }
  if (failures.length > 0) exec.test.abort(failures.join('; '));
}
