// Loaded into the controller with --import by a benchmark that measures its
// event-loop stalls (event-loop-stalls.ts): a timer every TICK_MS notes each
// turn that came more than MIN_STALL_MS late, with its end on the monotonic
// clock V8's CPU profile uses, and the list is written to $STALL_LOG when the
// process exits. A late timer is what a Lease renewal or a /healthz answer
// waits for: the stall is the thread busy without a turn of the event loop.

import { writeFileSync } from 'node:fs';

const TICK_MS = 5;
const MIN_STALL_MS = 50;
const log = process.env.STALL_LOG;
const stalls = [];
let last = process.hrtime.bigint();

function tick() {
  const now = process.hrtime.bigint();
  const ms = Number(now - last) / 1e6 - TICK_MS;
  if (ms > MIN_STALL_MS) stalls.push({ endUs: Number(now / 1000n), endWall: Date.now(), ms });
  last = now;
  setTimeout(tick, TICK_MS).unref();
}
setTimeout(tick, TICK_MS).unref();
if (log) process.on('exit', () => writeFileSync(log, JSON.stringify(stalls)));
