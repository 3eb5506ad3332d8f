// What node descriptions say, as production fabrics write them (spec 12 §4).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { caName, switchName } from '../../../../src/hypernode/discovery/ibnetdiscover/ib-node-names.ts';

test('a switch is named by the Quantum form, else by its description, else not at all', () => {
  assert.is(switchName('MF0;LEAF-07:MQM9701/U1'), 'LEAF-07');
  assert.is(switchName('MF0;IBLEAF-3-12:MQM9700/U1'), 'IBLEAF-3-12');
  assert.is(switchName('MF0;spine-02.ib.example.com:MQM8700/U1'), 'spine-02.ib.example.com');
  assert.is(switchName(' S-leaf1 '), 'S-leaf1');
  assert.is(switchName('Quantum Mellanox Technologies'), 'Quantum Mellanox Technologies');
  assert.is(switchName(''), '');
});

test('a host HCA names its host and device; the firmware default and an empty description name none', () => {
  assert.equal(caName('node-a01 mlx5_5'), { host: 'node-a01', device: 'mlx5_5' });
  assert.equal(caName('node-a01 HCA-4'), { host: 'node-a01', device: 'HCA-4' });
  assert.equal(caName('gpu01.cluster.local   mlx5_0'), { host: 'gpu01.cluster.local', device: 'mlx5_0' });
  assert.equal(caName('ubuntu'), { host: 'ubuntu' });
  for (const firmware of [
    'MT4129 ConnectX7   Mellanox Technologies',
    'MT4123 ConnectX6   Mellanox Technologies',
    'mt4125 ConnectX6Dx',
    'Mellanox Technologies ConnectX-7',
    '',
    '   ',
  ])
    assert.is(caName(firmware), undefined, firmware);
});

test.run();
