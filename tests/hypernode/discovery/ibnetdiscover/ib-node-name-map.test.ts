// rdma-core's node-name-map as sites keep it (tests/cmd/ibnetdiscover-capture/
// ib-node-name-map): `0x<GUID> "<name>"` lines, names with spaces, comments
// and blank lines, read as infiniband-diags read it; and `config.hostGuids`
// taking its lines beside `GUID node` and ibnetdiscover's `H-<guid> node`.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseHostGuids } from '../../../../src/hypernode/discovery/ibnetdiscover/host-guids.ts';
import { parseNodeNameMap } from '../../../../src/hypernode/discovery/ibnetdiscover/ib-node-name-map.ts';

const SITE_MAP = readFileSync(
  join(import.meta.dirname, '..', '..', '..', 'cmd', 'ibnetdiscover-capture', 'ib-node-name-map'),
  'utf8',
);

test("a site's node-name-map: names by node GUID, spaces kept, comments and blank lines passed over", () => {
  const names = parseNodeNameMap(SITE_MAP, 'the map');
  assert.is(names.size, 7);
  assert.is(names.get('b83fd203002f1a00'), 'IB-LEAF-SU1-R1');
  // A comment after the quoted name is no part of it.
  assert.is(names.get('5c25730300e6767e'), 'gpu006 mlx5_1');
});

test('the forms infiniband-diags take: short and upper-case GUIDs, an unquoted name, CRLF; the first name of a GUID stays', () => {
  const names = parseNodeNameMap(
    '0x2C5EAB0300B87B40 "LEAF 07"\r\n  0x100008   gpu002 mlx5_1\r\n\t# indented comment\n0x2c5eab0300b87b40 "LEAF-08"\n',
    'the map',
  );
  assert.equal(
    [...names],
    [
      ['2c5eab0300b87b40', 'LEAF 07'],
      ['0000000000100008', 'gpu002 mlx5_1'],
    ],
  );
});

test('a line that is no `0x<GUID> "<name>"` is refused by its number, without quoting the file', () => {
  for (const [line, why] of [
    ['e09d7303007a4bd8 "gpu01"', 'is not `0x<GUID> "<name>"`'],
    ['0xe09d7303007a4bd8a "gpu01"', 'is not `0x<GUID> "<name>"`'],
    ['0xe09d7303007a4bd8', 'is not `0x<GUID> "<name>"`'],
    ['0xe09d7303007a4bd8 ""', 'names the GUID with an empty name'],
    ['0xe09d7303007a4bd8 "gpu01\u001b[2J"', 'holds a control character in its name'],
  ]) {
    assert.throws(
      () => parseNodeNameMap(`# map\n0x1 "a"\n${line}\n`, 'config.nodeNameMap /etc/rdma/ib-node-name-map'),
      (err: Error) =>
        err.message.startsWith(`config.nodeNameMap /etc/rdma/ib-node-name-map line 3 ${why}`) &&
        !err.message.includes('gpu01'),
      line,
    );
  }
});

test("hostGuids takes `GUID node`, `H-<guid> node` and the node-name-map's lines, each line number kept for errors", () => {
  const { nodes, names } = parseHostGuids(
    [
      '0xe09d7303007a4bd8 gpu01           # GUID node',
      'H-e09d7303007a4bd0 gpu02           # as ibnetdiscover names a CA',
      '0xe09d7303007a4bc8 "gpu03 mlx5_0"  # the node-name-map',
      '0x2c5eab0300b87b40 "LEAF 07"',
    ].join('\n'),
    'config.hostGuids',
  );
  assert.equal(
    [...nodes],
    [
      ['e09d7303007a4bd8', 'gpu01'],
      ['e09d7303007a4bd0', 'gpu02'],
    ],
  );
  assert.equal(
    [...names],
    [
      ['e09d7303007a4bc8', 'gpu03 mlx5_0'],
      ['2c5eab0300b87b40', 'LEAF 07'],
    ],
  );
  assert.throws(
    () => parseHostGuids('0x1 gpu01\n0x2 "gpu02"\nH-zz gpu03\n', 'config.hostGuids'),
    /config\.hostGuids line 3 .* is not "GUID node"/,
  );
  assert.throws(
    () => parseHostGuids('0x1 gpu01\n0x2 ""\n', 'config.hostGuids'),
    /^config\.hostGuids line 2 names the GUID with an empty name$/,
  );
});

test.run();
