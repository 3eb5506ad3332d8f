// The SNMP walker against the stand-in agent over real UDP: a walk spanning
// many GETBULK answers returns the switch's whole LLDP-MIB and nothing beyond
// it, the varbind cap abandons an oversized walk, and an agent whose answers
// do not move forward fails the walk instead of looping it forever.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseLldpTable } from '../../../../src/hypernode/discovery/lldp/lldp-mib.ts';
import { oidAfter, snmpWalker, type WalkLimits } from '../../../../src/hypernode/discovery/lldp/snmp-walker.ts';
import { generateFatTree } from '../../../../testing/fat-tree.ts';
import { lldpSwitches, lldpVarbinds } from '../../../../testing/lldp-fabric.ts';
import { startSnmpStandIn } from '../../../../testing/snmp-stand-in.ts';
import { within } from '../../../../testing/wait.ts';

const COMMUNITY = 'walker-test';
const leaf = lldpSwitches(generateFatTree({ sus: 2, tiers: 2, nodesPerSu: 8, rails: 2 })).find((s) =>
  s.name.includes('-leaf-'),
)!;
const limits: WalkLimits = { timeoutMs: 1_000, retries: 0, maxRepetitions: 7, maxVarbinds: 10_000 };
const credentials = { version: '2c' as const, community: COMMUNITY };

async function walkLeaf(l: WalkLimits, looping = false) {
  const agents = await startSnmpStandIn([leaf], COMMUNITY, { looping });
  try {
    const [host, port] = agents.addresses[0]!.split(':');
    return await within(
      snmpWalker(credentials, l)({ host: host!, port: Number(port) }, new AbortController().signal),
      10_000,
      'the walk',
    );
  } finally {
    await agents.close();
  }
}

/** The walk's error message; fails the test when the walk succeeds. */
async function failure(l: WalkLimits, looping = false): Promise<string> {
  try {
    await walkLeaf(l, looping);
  } catch (err) {
    return (err as Error).message;
  }
  assert.unreachable('the walk succeeded');
  return '';
}

test('a walk over many GETBULK answers returns the whole LLDP-MIB and stops at its end', async () => {
  const served = lldpVarbinds(leaf);
  assert.ok(served.length > limits.maxRepetitions * 4, 'the walk needs several answers');
  const walked = await walkLeaf(limits);
  assert.equal(walked.map((v) => v.oid).sort(), served.map((v) => v.oid).sort());
  assert.equal(parseLldpTable(walked), parseLldpTable(served));
});

test('a walk with more varbinds than config.snmp.maxVarbinds is abandoned', async () => {
  assert.match(await failure({ ...limits, maxVarbinds: 20 }), /more than 20 varbinds \(config\.snmp\.maxVarbinds\)/);
});

test('an agent whose answers do not move forward fails the walk instead of looping', async () => {
  assert.match(await failure(limits, true), /the walk would loop/);
});

test('OIDs are ordered arc by arc, numerically', () => {
  assert.ok(oidAfter('1.0.8802.1.1.2.1.4.1.1.10', '1.0.8802.1.1.2.1.4.1.1.9'));
  assert.ok(!oidAfter('1.0.8802.1.1.2.1.4.1.1.9', '1.0.8802.1.1.2.1.4.1.1.10'));
  assert.ok(oidAfter('1.3.6.1.2', '1.3.6.1'));
  assert.ok(!oidAfter('1.3.6.1', '1.3.6.1'));
});

test.run();
