import crypto from 'k6/crypto';

/*
 * The calibration job of make bench on Kubernetes: a fixed CPU-bound task (SHA-256 over the same 16 MiB, 128 times, about 2 s)
 * in a pod of its own on the node, timed by itself, so that a report can tell a slower build from a slower node.
 * Prints "calibration-ms N". (The local stack times a job of the same kind on the harness's host: calibration.py.)
 */
export const options = { vus: 1, iterations: 1 };

export default function () {
  const data = new ArrayBuffer(16 << 20);
  const started = Date.now();
  for (let i = 0; i < 128; i++) crypto.sha256(data, 'hex');
  console.log(`calibration-ms ${Date.now() - started}`);
}
