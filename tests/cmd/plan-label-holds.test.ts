// `plan` and `kubectl hypernode why` with the label memory (docs/health.md,
// "Label memory"): a tray whose NVLink clique is missing stays in its domain
// in the plan, as a restarted controller keeps it (no HyperNode change), and
// the plan lists it with its missing key, the time its grace period ends (the
// one its TopologyLabelsPresent condition records) and where it moves then,
// counts it in its summary and exits 2; `why` says the tray is kept there by
// the label memory and until when, with the label missing on the Node.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { kubectlHypernode } from '../../src/cmd/kubectl-hypernode.ts';
import { plan } from '../../src/cmd/plan.ts';
import type { PlannedLabelHold } from '../../src/hypernode/preview/cluster-plan.ts';
import { memberNames } from '../../testing/hypernode-members.ts';
import { NS, hyperNodes, node, seedConfigMap, setNodeLabels } from '../e2e/cluster.ts';
import { heldOn, settled } from '../e2e/label-blink.ts';
import { session } from '../e2e/session.ts';
import { startControllerInProcess } from '../support/controller-process.ts';
import { plannerKubeconfig, readerKubeconfig } from './reader-kubeconfig.ts';

const s = session(test);
let dir = '';
test.before.each(() => void (dir = mkdtempSync(join(tmpdir(), 'hn-plan-holds-'))));
test.after.each(() => rmSync(dir, { recursive: true, force: true }));

const ENV = { KUBE_POD_NAMESPACE: NS, HELM_RELEASE_NAME: 'volcano' };
const CLIQUE = 'nvidia.com/gpu.clique';
const CONF = `networkTopologyDiscovery:
  - source: label
    enabled: true
    config:
      networkTopologyTypes:
        gb200: {preset: topograph, nvlink: domain}
`;

test('a tray without its clique: plan keeps it in its domain, lists when and where it moves, exits 2; why says it is kept there until then', async () => {
  const { api, kubeconfig } = await s.startCluster();
  for (let i = 0; i < 4; i++)
    api.store.create(
      node(`tray-${i}`, {
        [CLIQUE]: '7b968a6d-c8aa-45e1-9e07-e1e51be99c31.1',
        'fabric.topograph.run/tier-0': 'S-1',
        'fabric.topograph.run/tier-1': 'P-1',
      }),
    );
  seedConfigMap(api, CONF);
  s.controller = startControllerInProcess({ kubeconfig, namespace: NS });
  await settled(s, api, 'label');
  const holder = (name: string) => hyperNodes(api, 'label').find((hn) => memberNames(hn).includes(name))!.metadata.name;
  const domain = holder('tray-0');
  const leaf = holder(domain);
  setNodeLabels(api, 'tray-0', { [CLIQUE]: undefined });
  const held = await s.converge(() => heldOn(api, 'tray-0'), 'tray-0 held');
  const until = /tray-0 \([^)]*\) until (\S+Z)/.exec(
    held.status!.conditions!.find((c) => c.type === 'TopologyLabelsPresent')!.message,
  )![1]!;
  assert.is(await s.controller.stop(), 0);
  s.controller = undefined;

  const planner = plannerKubeconfig(api, dir, { secrets: false, fileName: 'planner.yaml' });
  const text = await plan([`--kubeconfig=${planner}`], 'x', { color: false, env: ENV });
  assert.is(text.code, 2, text.stderr);
  assert.match(
    text.stdout,
    `Nodes kept in place while labels that place them are missing (health.labelGracePeriod):\n  ~ tray-0 (source "label"): ${CLIQUE} missing since `,
  );
  assert.match(text.stdout, `; kept in ${domain} until ${until}, then moves to ${leaf}\n`);
  assert.match(
    text.stdout,
    'Plan: 0 to create, 0 to update, 0 to delete. 1 Nodes kept in place move when their label grace periods end.',
  );
  const json = await plan([`--kubeconfig=${planner}`, '-o', 'json'], 'x', { color: false, env: ENV });
  const data = JSON.parse(json.stdout) as {
    changes: unknown[];
    labelHolds: PlannedLabelHold[];
    summary: { labelHolds: number };
  };
  assert.equal(data.changes, [], 'nothing moves now');
  assert.equal(
    data.labelHolds.map(({ since: _, ...h }) => h),
    [{ source: 'label', node: 'tray-0', keys: [CLIQUE], until, from: [domain], to: [leaf] }],
  );
  assert.is(data.summary.labelHolds, 1);

  const why = await kubectlHypernode([`--kubeconfig=${readerKubeconfig(api, dir)}`, 'why', 'tray-0'], {
    color: false,
    env: {},
  });
  assert.is(why.code, 0, why.stderr);
  assert.match(why.stdout, `  ${domain}  tier 1 (nvl-domain), source label\n`);
  assert.match(why.stdout, `label ${CLIQUE}=7b968a6d-c8aa-45e1-9e07-e1e51be99c31 (missing on the Node)`);
  assert.match(
    why.stdout,
    `kept here by the label memory while a label that places it is missing, until ${until} (health.labelGracePeriod); then it moves, unless the label comes back`,
  );
});

test.run();
