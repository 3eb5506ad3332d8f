// The fabric taint's client (src/app/node-taint-client.ts) and the taint
// list it writes, while another writer adds and removes taints of the same
// Node: first against answers recorded from a real kube-apiserver
// (testing/apiserver/real-api/: the full Node GET, with the not-ready taint
// admission put on it, and the 409 Conflict of a stale write), served in the
// order a real server gives them; then against the API server stand-in,
// whose 409 for a Node is the recorded Conflict of a stale write with the
// resource named as a real server names a core one. Either way our write
// meets the other writer's change, is refused, reads the Node again and
// keeps every taint the other writer left.

import { createServer, type IncomingMessage } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { nodeTaints } from '../../src/app/node-taint-client.ts';
import { isConflict } from '../../src/kube/errors.ts';
import { buildClientConfig } from '../../src/kube/config.ts';
import { RestClient } from '../../src/kube/rest.ts';
import { Transport } from '../../src/kube/transport.ts';
import { nullLogger } from '../../src/log.ts';
import type { NodeTaintClient } from '../../src/hypernode/model/contracts.ts';
import type { FabricTaint } from '../../src/hypernode/reconcile/health/fabric-taints.ts';
import { taintListChange } from '../../src/hypernode/reconcile/health/taint-patch.ts';
import { startApiServer } from '../../testing/apiserver/index.ts';
import { LoopbackServer } from '../../testing/loopback-server.ts';
import { loadRecording } from '../testing/apiserver/real-api-replay.ts';

const OURS: FabricTaint = { key: 'topology.volcano.sh/fabric-unreachable', value: 'ufm.pod-a', effect: 'NoSchedule' };
const MAINTENANCE = { key: 'example.com/maintenance', effect: 'NoSchedule' };

const recorded = (file: string, id: string) => {
  const c = loadRecording(file).cases.find((x) => x.id === id);
  if (!c?.response) throw new Error(`no recorded answer ${file} ${id}`);
  return c.response;
};
/** The recorded full Node (node-1, tainted node.kubernetes.io/not-ready by admission) at resourceVersion `rv`. */
function recordedNode(rv: string, change: (taints: object[]) => object[] = (t) => t): Record<string, unknown> {
  const body = structuredClone(recorded('node-get.json', 'node-full').body) as {
    metadata: Record<string, unknown>;
    spec: { taints: object[] };
  };
  body.metadata.resourceVersion = rv;
  body.metadata.uid = '0b8c7a6e-1d2f-4e3a-9b5c-6d7e8f901234';
  body.spec.taints = change(body.spec.taints);
  return body;
}
/**
 * The recorded Conflict of a stale write (a HyperNode's), as a real server words it for a Node:
 * apimachinery's NewConflict names the resource `nodes`, whose core group leaves details.group out.
 */
function recordedNodeConflict(name: string): Record<string, unknown> {
  const body = structuredClone(recorded('hypernode-writes.json', 'update-stale-rv').body) as {
    message: string;
    details: Record<string, string>;
  };
  body.message = body.message.replace('hypernodes.topology.volcano.sh "hn-valid"', `nodes "${name}"`);
  body.details = { name, kind: 'nodes' };
  return body;
}

const readBody = (req: IncomingMessage) =>
  new Promise<string>((resolve) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (text += c));
    req.on('end', () => resolve(text));
  });

/** Our write, as the taint writer makes it: read, change, write against the version read; on 409 read again. */
async function taintOnce(client: NodeTaintClient, node: string, want: FabricTaint | undefined): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    const read = (await client.get(node))!;
    const change = taintListChange(read, want);
    if (!change) return attempt;
    try {
      await client.setTaints(node, change);
      return attempt;
    } catch (err) {
      if (!isConflict(err) || attempt >= 5) throw err;
    }
  }
}

test('against recorded answers: our write made on the first read meets the recorded Conflict, reads again and keeps the other writer’s taints', async () => {
  // The other writer came between our read and our write: it removed not-ready and added a maintenance taint.
  const answers = [
    { status: 200, body: recordedNode('101') },
    { status: 409, body: recordedNodeConflict('node-1') },
    { status: 200, body: recordedNode('102', () => [MAINTENANCE]) },
    { status: 200, body: recordedNode('103', () => [MAINTENANCE, OURS]) },
  ];
  const requests: { method: string; path: string; contentType?: string; body?: unknown }[] = [];
  const server = new LoopbackServer(
    createServer(async (req, res) => {
      const text = await readBody(req);
      requests.push({
        method: req.method!,
        path: req.url!,
        ...(req.headers['content-type'] ? { contentType: req.headers['content-type'] } : {}),
        ...(text ? { body: JSON.parse(text) } : {}),
      });
      const a = answers.shift()!;
      res.writeHead(a.status, { 'content-type': 'application/json' }).end(`${JSON.stringify(a.body)}\n`);
    }),
  );
  await server.listen();
  const transport = new Transport({
    server: `http://127.0.0.1:${server.port}`,
    tls: { rejectUnauthorized: true },
    credentials: async () => ({ headers: {} }),
  });
  try {
    const client = nodeTaints(new RestClient({ transport, userAgent: 't', qps: 1000, burst: 1000 }));
    assert.is(await taintOnce(client, 'node-1', OURS), 2);
    const ours = { key: OURS.key, value: OURS.value, effect: OURS.effect };
    assert.equal(requests, [
      { method: 'GET', path: '/api/v1/nodes/node-1' },
      {
        method: 'PATCH',
        path: '/api/v1/nodes/node-1',
        contentType: 'application/merge-patch+json',
        body: {
          metadata: {
            resourceVersion: '101',
            annotations: { 'topology.volcano.sh/fabric-taint': `${OURS.key}=ufm.pod-a:NoSchedule` },
          },
          spec: { taints: [{ key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' }, ours] },
        },
      },
      { method: 'GET', path: '/api/v1/nodes/node-1' },
      {
        method: 'PATCH',
        path: '/api/v1/nodes/node-1',
        contentType: 'application/merge-patch+json',
        body: {
          metadata: {
            resourceVersion: '102',
            annotations: { 'topology.volcano.sh/fabric-taint': `${OURS.key}=ufm.pod-a:NoSchedule` },
          },
          spec: { taints: [MAINTENANCE, ours] },
        },
      },
    ]);
  } finally {
    transport.close();
    await server.close();
  }
});

test('against the stand-in: a stale Node write is the recorded Conflict; our taint comes and goes around another writer, whose taints all stay', async () => {
  const api = await startApiServer();
  const dir = mkdtempSync(join(tmpdir(), 'node-taint-client-'));
  const transport = new Transport(buildClientConfig({ master: '', kubeconfig: api.writeKubeconfig(dir) }, nullLogger));
  try {
    const client = nodeTaints(new RestClient({ transport, userAgent: 't', qps: 1000, burst: 1000 }));
    api.store.create({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1' }, spec: { taints: [MAINTENANCE] } });
    const first = (await client.get('node-1'))!;
    const other = api.store.get('nodes', 'node-1')!;
    api.store.update({
      ...other,
      spec: { taints: [MAINTENANCE, { key: 'example.com/drain', effect: 'PreferNoSchedule' }] },
    });
    const stale = await client.setTaints('node-1', taintListChange(first, OURS)!).then(
      () => undefined,
      (err: unknown) => err,
    );
    assert.ok(isConflict(stale), 'refused: written against the version read before the other writer');
    const answered = api.requests.all({ verb: 'patch', resource: 'nodes' })[0]!;
    assert.is(answered.code, 409);
    assert.is((stale as Error).message, recordedNodeConflict('node-1').message as string);

    assert.is(await taintOnce(client, 'node-1', OURS), 1);
    const taints = () => (api.store.get('nodes', 'node-1') as { spec: { taints?: object[] } }).spec.taints;
    assert.equal(taints(), [MAINTENANCE, { key: 'example.com/drain', effect: 'PreferNoSchedule' }, OURS]);
    assert.is(await taintOnce(client, 'node-1', undefined), 1);
    assert.equal(taints(), [MAINTENANCE, { key: 'example.com/drain', effect: 'PreferNoSchedule' }]);
    assert.is(await client.get('node-missing'), undefined, 'a Node that is gone reads as none');
  } finally {
    transport.close();
    await api.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
