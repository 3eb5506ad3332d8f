// The arguments a ConfigMap may give ibnetdiscover: an allowlist read as
// getopt_long reads it and written again canonically; everything else is
// refused naming the argument and why (the controller-level attacks are in
// tests/security/files-and-programs.test.ts).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { checkIbnetdiscoverArgs } from '../../../../src/hypernode/discovery/ibnetdiscover/ibnetdiscover-args.ts';

const fail = (message: string): never => {
  throw new Error(message);
};
const check = (...words: string[]) => checkIbnetdiscoverArgs(words, 'config.command', fail);

test('allowed options in every form getopt reads become one canonical list; the node-name map is kept apart', () => {
  assert.equal(check('-sf', '-Cmlx5_0', '--Port=1', '-t', '500', '--outstanding_smps', '8', '--full'), {
    args: ['-s', '-f', '-C', 'mlx5_0', '-P', '1', '-t', '500', '-o', '8', '-f'],
  });
  assert.equal(check('--Ca', 'HCA-1', '--node-name-map=/var/run/ibnetdiscover/map'), {
    args: ['-C', 'HCA-1'],
    nodeNameMap: '/var/run/ibnetdiscover/map',
  });
});

test('file options, output files, format flags, abbreviations and anything off the list are refused naming them', () => {
  const cases: [string[], string][] = [
    [['--cache', '/tmp/x'], 'config.command passes --cache, which writes its scan to a file'],
    [['--load-cache', '/tmp/x'], 'config.command passes --load-cache, which reads a saved scan instead of the fabric'],
    [['--diff', '/tmp/x'], 'config.command passes --diff, which reads a saved scan to compare'],
    [['--config=/etc/shadow'], 'config.command passes --config, which reads a configuration file'],
    [['-sz', '/etc/shadow'], 'config.command passes -z, which reads a configuration file'],
    [['/tmp/topology.out'], 'config.command passes "/tmp/topology.out", which is not an option'],
    [['-C', 'mlx5_0', '--', 'x'], 'config.command passes "--", which ends the options'],
    [['--cach', '/tmp/x'], 'config.command passes "--cach", which is not an argument this source passes on'],
    [['-y', '0x1'], 'config.command passes "-y", which is not an argument this source passes on'],
    [['-V'], 'config.command passes "-V", which is not an argument'],
    [['-p'], 'config.command asks for the ports report (-p)'],
    [['--Router_list'], 'config.command asks for a node list (--Router_list)'],
    [['-C'], 'config.command: -C needs a value (an HCA name such as mlx5_0)'],
    [['-C', 'mlx5_0;reboot'], 'config.command: -C "mlx5_0;reboot" is not an HCA name such as mlx5_0'],
    [['--Port=one'], 'config.command: --Port "one" is not a port number such as 1'],
    [['--show=yes'], 'config.command: --show takes no value'],
  ];
  for (const [words, message] of cases)
    assert.throws(
      () => check(...words),
      (err: Error) => err.message.startsWith(message),
      `${words.join(' ')}: ${message}`,
    );
});

test.run();
