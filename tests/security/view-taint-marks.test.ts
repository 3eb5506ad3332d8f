// The fabric taint in the HTML topology view (docs/security.md §3, "The
// fabric taint"): whoever writes Nodes can edit the controller's record
// annotation and set taints of any key, but the view marks a Node as tainted
// by the controller only when its record names a taint the controller could
// have set and exactly that taint is on the Node. A record forged to name
// another writer's taint (the lifecycle controller's NoExecute one), a record
// carrying markup, our key set without a record, and a record whose taint is
// gone mark nothing; the page carries no markup of theirs. `render` in the
// built executable, as an operator runs it on `kubectl get nodes -o json`.

import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FABRIC_TAINT_ANNOTATION } from '../../src/hypernode/model/hypernode-labels.ts';
import { BINARY, BUNDLE } from '../../testing/executables.ts';
import { SAMPLE_DISCOVERY_CONFIG, sampleNodes } from '../../testing/sample-cluster.ts';
import { viewData } from '../../testing/view-page.ts';
import { cleanEnv, runCommand } from '../support/run-command.ts';

const KEY = 'topology.volcano.sh/fabric-unreachable';
const UNREACHABLE = { key: 'node.kubernetes.io/unreachable', effect: 'NoExecute', timeAdded: '2026-12-01T00:00:00Z' };

let dir = '';
test.before(() => {
  dir = mkdtempSync(join(tmpdir(), 'view-taint-marks-'));
});
test.after(() => rmSync(dir, { recursive: true, force: true }));

test('forged records and our key set by another writer mark no Node in the view of render (the executable)', () => {
  const forged: Record<string, { record?: string; taints: object[] }> = {
    // The lifecycle controller's taint, named by a forged record.
    'node-00': { record: 'node.kubernetes.io/unreachable=:NoExecute', taints: [UNREACHABLE] },
    // A record carrying markup, with a taint to match.
    'node-01': {
      record: `${KEY}=ufm.<img src=x onerror=alert(1)>:NoSchedule`,
      taints: [{ key: KEY, value: 'ufm.<img src=x onerror=alert(1)>', effect: 'NoSchedule' }],
    },
    // Our key, set by someone else, without a record.
    'node-02': { taints: [{ key: KEY, value: 'ufm.pod-a', effect: 'NoSchedule' }] },
    // A record whose taint is gone.
    'node-03': { record: `${KEY}=ufm.pod-a:NoSchedule`, taints: [] },
    // The controller's own: record and taint.
    'node-04': {
      record: `${KEY}=ufm.pod-a:NoSchedule`,
      taints: [{ key: KEY, value: 'ufm.pod-a', effect: 'NoSchedule' }],
    },
  };
  const items = sampleNodes().map((n) => {
    const f = forged[n.metadata.name];
    if (!f) return n;
    const annotations = f.record ? { [FABRIC_TAINT_ANNOTATION]: f.record } : {};
    return { ...n, metadata: { ...n.metadata, annotations }, spec: { taints: f.taints } };
  });
  writeFileSync(join(dir, 'config.yaml'), SAMPLE_DISCOVERY_CONFIG);
  writeFileSync(join(dir, 'nodes.json'), JSON.stringify({ apiVersion: 'v1', kind: 'List', items }));
  if (!existsSync(BINARY) && !existsSync(BUNDLE)) throw new Error(`${BINARY} is missing: run npm run build first`);
  const args = ['render', '--config', join(dir, 'config.yaml'), '--nodes', join(dir, 'nodes.json'), '-o', 'html'];
  const r = existsSync(BINARY)
    ? runCommand(BINARY, args, { env: cleanEnv() })
    : runCommand(process.execPath, [BUNDLE, ...args], { env: cleanEnv() });
  assert.is(r.status, 0, r.stderr);
  assert.equal(
    viewData(r.stdout).fabricTaints?.map((t) => t.node),
    ['node-04'],
    'only the Node whose record names a taint the controller could set, with that taint on it',
  );
  assert.not.match(r.stdout, '<img', 'no markup of the forged record in the page');
  assert.not.match(r.stdout, 'node.kubernetes.io/unreachable', 'nothing of the forged record in the page');
});

test.run();
