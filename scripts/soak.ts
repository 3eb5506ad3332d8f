// The soak: three replicas of the built executable against the API server
// and UFM stand-ins for a long run (30 minutes by default) through a seeded
// schedule of faults (watch cuts, 5xx and 429 bursts, API server restarts
// with and without data loss, a leader killed or frozen past its lease, UFM
// answering 500, garbage or nothing, configuration reloads valid and broken,
// a rack emptied) while 1 % of the Nodes are relabelled a minute. It checks
// that at most one process writes at any time, that no HyperNode is deleted
// unless the inputs say so, that the end state equals `render`'s within 60 s
// of the last fault, that RSS ends within 10 % of RSS after warm-up and that
// no log shows a bug; it prints a summary and exits 1 on any violation.
//
// Run with: node --import tsx scripts/soak.ts [--minutes=30] [--seed=N] [--racks-per-spine=10]
// (build dist/ first: node scripts/build.mjs). The same run, two minutes
// long, is tests/e2e/soak.test.ts.

import { parseArgs } from 'node:util';
import { runSoak } from '../testing/soak/soak-run.ts';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '30' },
    seed: { type: 'string', default: String(Date.now() % 1_000_000) },
    'racks-per-spine': { type: 'string', default: '10' },
  },
});

const minutes = Number(values.minutes);
const seed = Number(values.seed);
const racksPerSpine = Number(values['racks-per-spine']);
if (!(minutes > 0) || !Number.isInteger(seed) || !(racksPerSpine >= 2)) {
  console.error('usage: scripts/soak.ts [--minutes=M > 0] [--seed=INTEGER] [--racks-per-spine=N >= 2]');
  process.exit(2);
}

const result = await runSoak({
  seed,
  // 2 zones × 5 spines × N racks × 20 Nodes: 2,000 Nodes by default.
  shape: { zones: 2, spinesPerZone: 5, racksPerSpine, nodesPerRack: 20 },
  faultPhaseMs: minutes * 60_000,
  gapMs: [5_000, 20_000],
  replicas: 3,
  timings: { leaseDuration: '6s', renewDeadline: '4s', retryPeriod: '500ms' },
  relabelPercentPerMinute: 1,
  rssIntervalMs: 30_000,
  convergeDeadlineMs: 60_000,
  checkRss: true,
  progress: (line) => console.log(line),
});
console.log(`\n${result.summary}`);
for (const v of result.violations) console.log(`VIOLATION: ${v}`);
process.exit(result.violations.length === 0 ? 0 : 1);
