// The controller started in a cluster where the HyperNode CRD is not
// installed: the HyperNode list's 404 says to check the CRD, once, however
// many times the list is retried. `plan` and `kubectl hypernode` give the
// same hint.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startApiServer } from '../../testing/apiserver/index.ts';
import { startControllerInProcess } from '../support/controller-process.ts';
import { waitFor } from '../../testing/wait.ts';
import { plan } from '../../src/cmd/plan.ts';
import { kubectlHypernode } from '../../src/cmd/kubectl-hypernode.ts';

const NS = 'volcano-system';

test('without the HyperNode CRD: one log line asks whether it is installed, while the list keeps being retried', async () => {
  const api = await startApiServer({ namespaces: [NS], withoutHyperNodeCrd: true });
  const dir = mkdtempSync(join(tmpdir(), 'crd-missing-'));
  const run = startControllerInProcess({ kubeconfig: api.writeKubeconfig(dir), namespace: NS });
  try {
    // The reflector's backoff starts at 0.8 s and doubles (with jitter): three attempts within ~6 s.
    await waitFor(() => api.requests.count({ resource: 'hypernodes', verb: 'list' }) >= 3, {
      what: 'three HyperNode list attempts',
      timeoutMs: 15_000,
    });
    const hinted = run
      .log()
      .split('\n')
      .filter((l) => l.includes('is the HyperNode CRD installed?'));
    assert.equal(hinted, [
      'Failed to list resource="hypernodes" err="the server could not find the requested resource (hypernodes.topology.volcano.sh: is the HyperNode CRD installed?)"',
    ]);
  } finally {
    await run.stop();
    await api.close();
    rmSync(dir, { recursive: true });
  }
});

test('without the HyperNode CRD: plan and kubectl hypernode tree ask whether it is installed', async () => {
  const api = await startApiServer({ namespaces: [NS], withoutHyperNodeCrd: true });
  const dir = mkdtempSync(join(tmpdir(), 'crd-missing-'));
  try {
    const kubeconfig = api.writeKubeconfig(dir);
    const hint =
      /^error: the server could not find the requested resource \(hypernodes\.topology\.volcano\.sh: is the HyperNode CRD installed\?\)$/m;
    const config = join(dir, 'conf.yaml');
    writeFileSync(
      config,
      'networkTopologyDiscovery:\n  - {source: label, enabled: true, config: {networkTopologyTypes: {t: [{nodeLabel: rack}, {nodeLabel: kubernetes.io/hostname}]}}}\n',
    );
    const planned = await plan([`--kubeconfig=${kubeconfig}`, '--config', config], 'vc-hypernode-controller-manager', {
      color: false,
      env: {},
    });
    assert.is(planned.code, 1);
    assert.match(planned.stderr, hint);
    const tree = await kubectlHypernode([`--kubeconfig=${kubeconfig}`, 'tree'], { color: false, env: {} });
    assert.is(tree.code, 1);
    assert.match(tree.stderr, hint);
  } finally {
    await api.close();
    rmSync(dir, { recursive: true });
  }
});

test.run();
