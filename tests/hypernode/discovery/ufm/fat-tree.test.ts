// The generated fat trees match the published DGX SuperPOD counts, and the
// UFM stand-in serves them in UFM's shapes on both authentication prefixes.

import { TEST_INPUT_POLICY } from '../../../support/input-policy.ts';
import { UrlAddressPolicy } from '../../../../src/hypernode/discovery/remote/allowed-addresses.ts';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { generateFatTree } from '../../../../testing/fat-tree.ts';
import { TEST_CA, UfmServer } from '../../../../testing/ufm-server.ts';
import { HttpGetClient } from '../../../../src/hypernode/discovery/remote/http-client.ts';

const count = (tree: ReturnType<typeof generateFatTree>, type: string) =>
  tree.systems.filter((s) => s.type === type).length;

for (const [sus, hosts, switches, links] of [
  [2, 64, 24, 1024],
  [8, 256, 96, 4096],
  [16, 512, 320, 12288],
] as const) {
  test(`a ${sus}-SU fabric has the reference architecture's counts`, () => {
    const tree = generateFatTree({ sus });
    assert.is(count(tree, 'host'), hosts);
    assert.is(count(tree, 'switch'), switches);
    assert.is(tree.links.length, links);
    assert.is(tree.ports.length, 2 * links);
    assert.is(tree.tiers, sus <= 8 ? 2 : 3);
    // Every link names ports that exist, and every port belongs to a system's port list.
    const portNames = new Set(tree.ports.map((p) => p.name));
    for (const l of tree.links)
      assert.ok(portNames.has(l.source_port_name) && portNames.has(l.destination_port_name), String(l.name));
    const systemPorts = new Set(tree.systems.flatMap((s) => s.ports as string[]));
    for (const name of portNames) assert.ok(systemPorts.has(name as string), String(name));
  });
}

test('a down host port is listed as Down with N/A peers and has no link', () => {
  const tree = generateFatTree({ sus: 1, downHostPorts: ['su01-n03/2'] });
  const down = tree.ports.filter((p) => p.logical_state !== 'Active');
  assert.is(down.length, 2);
  const host = down.find((p) => p.system_name === 'su01-n03')!;
  assert.is(host.peer_node_name, 'N/A');
  assert.not.ok(tree.links.some((l) => l.name === `${host.name}:` || String(l.name).includes(String(host.name))));
});

test('the stand-in serves ports, brief ports, links (bare and enveloped) and systems; tokens on /ufmRestV3', async () => {
  const server = await new UfmServer().start();
  try {
    const fabric = generateFatTree({ sus: 1, nodesPerSu: 2, rails: 2, site: 'pod-a' });
    server.answer = { kind: 'fabric', fabric, linksEnvelope: true };
    const client = new HttpGetClient({
      insecureSkipVerify: false,
      ca: TEST_CA,
      addresses: new UrlAddressPolicy(TEST_INPUT_POLICY.urlCidrs),
    });
    const basic = `Basic ${Buffer.from('admin:secret').toString('base64')}`;
    const get = async (path: string, auth = basic) => client.get(server.endpoint() + path, auth);
    const ports = JSON.parse((await get('/ufmRest/resources/ports')).body);
    assert.is(ports.length, fabric.ports.length);
    assert.is(ports[0].site_name, 'pod-a');
    const brief = JSON.parse((await get('/ufmRest/resources/ports?brief=true')).body);
    assert.equal(Object.keys(brief[0]).sort(), ['logical_state', 'name', 'path', 'physical_state']);
    assert.is(JSON.parse((await get('/ufmRest/resources/links')).body).data.length, fabric.links.length);
    assert.is(
      JSON.parse((await get('/ufmRestV3/resources/systems', 'Basic ufm-access-token')).body).length,
      fabric.systems.length,
    );
    assert.is((await get('/ufmRestV3/resources/systems')).status, 401);
    server.tokens.clear();
    assert.is((await get('/ufmRestV3/resources/systems', 'Basic ufm-access-token')).status, 401);
  } finally {
    await server.close();
  }
});

test.run();
