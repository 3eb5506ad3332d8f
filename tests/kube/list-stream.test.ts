// A List body read item by item as its bytes arrive: whatever the chunk
// boundaries, the result equals parsing the whole body (with each item
// transformed); `items: null`, items before metadata (CRD lists), strings
// holding braces, brackets, quotes and non-ASCII text all survive; a
// truncated body and non-object items are errors.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ListStreamReader } from '../../src/kube/list-stream.ts';

function read(body: string, cut: number[], transform: (x: any) => unknown = (x) => x): Record<string, unknown> {
  const bytes = Buffer.from(body);
  const reader = new ListStreamReader(transform);
  let from = 0;
  for (const at of [...cut, bytes.length]) {
    reader.push(bytes.subarray(from, Math.min(at, bytes.length)));
    from = Math.min(at, bytes.length);
  }
  return reader.finish();
}

const cuts = (n: number) => [[], [1], [n >> 1], Array.from({ length: n }, (_, i) => i + 1), [7, 8, 9, 40, 41, 77]];

const tricky = {
  kind: 'PartialObjectMetadataList',
  apiVersion: 'meta.k8s.io/v1',
  metadata: { resourceVersion: '42', continue: '' },
  items: [
    {
      kind: 'PartialObjectMetadata',
      metadata: { name: 'a', labels: { 'x/y': '}{][,"\\' }, managedFields: [{ f: { '.': {} } }] },
    },
    { metadata: { name: 'ü-名', annotations: { note: 'say "[hi]"' } } },
  ],
};

test('any chunking gives the parsed List, each item transformed as it is read', () => {
  const body = `${JSON.stringify(tricky)}\n`;
  const drop = (x: any) => ({ metadata: { name: x.metadata.name } });
  for (const cut of cuts(Buffer.byteLength(body))) {
    assert.equal(read(body, cut), tricky);
    assert.equal(read(body, cut, drop), {
      ...tricky,
      items: [{ metadata: { name: 'a' } }, { metadata: { name: 'ü-名' } }],
    });
  }
});

test('items before metadata (CRD lists), an empty array and items: null keep their meaning', () => {
  const crd =
    '{"apiVersion":"topology.volcano.sh/v1alpha1","items":[{"metadata":{"name":"hn"}}],"kind":"HyperNodeList","metadata":{"continue":"","resourceVersion":"9"}}';
  assert.equal(read(crd, [30]), JSON.parse(crd));
  assert.equal(read('{"kind":"NodeList","metadata":{},"items":[]}', []), { kind: 'NodeList', metadata: {}, items: [] });
  assert.equal(read('{"kind":"PartialObjectMetadataList","metadata":{},"items":null}', [20]), {
    kind: 'PartialObjectMetadataList',
    metadata: {},
    items: null,
  });
});

test('a truncated body and items that are not objects are errors', () => {
  const body = JSON.stringify(tricky);
  assert.throws(() => read(body.slice(0, -3), [10]), /truncated/);
  assert.throws(() => read('{"kind":"NodeList","items":["a",{"metadata":{"name":"b"}}]}', []), /not objects/);
  assert.throws(() => read('{"kind":"NodeList","items":[1]}', []), /not objects/);
});

test.run();
