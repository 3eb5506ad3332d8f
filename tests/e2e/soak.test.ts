// Two minutes of the soak (scripts/soak.ts runs it for longer): three
// replicas of the built executable, each process with its own credentials,
// against the API server and UFM stand-ins through every kind of fault once,
// in a seeded order, while Nodes are relabelled. At most one process writes
// at any time, no HyperNode goes unless the inputs say so, the end state is
// what `render` gives for the final inputs, no process exits but the ones
// the faults explain, and no log shows a bug. The summary is printed.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runSoak } from '../../testing/soak/soak-run.ts';

const SEED = Number(process.env.SOAK_SEED ?? 20260515);

test('the soak: every kind of fault once, invariants held, the end state equals render', async () => {
  const result = await runSoak({
    seed: SEED,
    // 2 zones × 4 spines × 5 racks × 20 Nodes = 800 Nodes, 50 label HyperNodes.
    shape: { zones: 2, spinesPerZone: 4, racksPerSpine: 5, nodesPerRack: 20 },
    faultPhaseMs: 0,
    gapMs: [1_500, 3_500],
    replicas: 3,
    timings: { leaseDuration: '6s', renewDeadline: '4s', retryPeriod: '500ms' },
    // Faster than the long run's 1 %, so that a few relabels land among the faults.
    relabelPercentPerMinute: 2,
    rssIntervalMs: 5_000,
    convergeDeadlineMs: 60_000,
    checkRss: false,
    progress: (line) => console.log(`  ${line}`),
  });
  console.log(result.summary);
  assert.equal(result.violations, [], `seed ${SEED}`);
});

test.run();
