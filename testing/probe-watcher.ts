// Asks a /healthz every EVERY_MS with a timeout of TIMEOUT_MS, one probe at a
// time, and prints each as a JSON line {sentAt, ms, status} (status 0: no
// answer in time) until it is stopped with SIGTERM. A process of its own, as
// kubelet is: a probe measured from the process that also serves the inputs
// (a 45 MiB answer written at once) would time that process's stalls too.
// Started by ProbeWatch (hostile-inputs.ts); imports nothing, so the pinned
// Node runs it as it is.
//
// Usage: node testing/probe-watcher.ts URL EVERY_MS TIMEOUT_MS

const [url, every, timeout] = process.argv.slice(2);
const everyMs = Number(every);
const timeoutMs = Number(timeout);
let stopped = false;
process.on('SIGTERM', () => {
  stopped = true;
});

while (!stopped) {
  const sentAt = Date.now();
  const started = performance.now();
  let status = 0;
  try {
    const res = await fetch(url!, { signal: AbortSignal.timeout(timeoutMs) });
    await res.arrayBuffer();
    status = res.status;
  } catch {
    // no answer in time
  }
  const ms = performance.now() - started;
  process.stdout.write(`${JSON.stringify({ sentAt, ms, status })}\n`);
  if (ms < everyMs) await new Promise((r) => setTimeout(r, everyMs - ms));
}
