// What the writer of an InfiniBand file a site keeps (a capture with stderr in
// it, ibdiagnet's copy, a node-name-map) can make the shipped executable say:
// a line of such a file may hold a secret or terminal escapes, so a warning or
// an error names the line by number, and a warning quotes at most 40 bytes of
// it, with no control character. Run on the built executable (`render`), as an operator
// runs it on a capture from a ticket.

import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BINARY, REPO_ROOT } from '../../testing/executables.ts';
import { scratchDir } from '../cmd/scratch-dir.ts';

const COMPUTE = readFileSync(join(REPO_ROOT, 'tests/cmd/ibnetdiscover-capture/compute.txt'), 'utf8');
/** A secret as it would sit in a file: far longer than any quote, its end unmistakable. */
const TOKEN = `eyJhbGciOiJSUzI1NiIsImtpZCI6IjEifQ.${'A'.repeat(400)}.SECRET-TAIL-7f3a`;
/** Terminal escapes: a window title (OSC … BEL) and a screen clear (CSI). */
const ESCAPES = '\u001b]0;owned\u0007\u001b[2J';

const scratch = scratchDir('hn-sec-ib-');

/** `render` of the built executable with `config` (under the entry's `config:`) and `capture` as the only fabric's output. */
function render(config: string, capture: string): { code: number | null; stderr: string; stdout: string } {
  const conf = scratch.write(
    'conf.yaml',
    `networkTopologyDiscovery:\n  - source: ibnetdiscover\n    enabled: true\n    config:\n      fabric: compute\n${config}`,
  );
  const nodes = scratch.nodesFile(['gpu001', 'gpu002', 'gpu003', 'gpu004', 'gpu005', 'gpu006']);
  const file = scratch.write('capture.txt', capture);
  const r = spawnSync(BINARY, ['render', '--config', conf, '--nodes', nodes, '--ibnetdiscover-capture', file], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: r.status, stderr: r.stderr, stdout: r.stdout };
}

/** Asserts that `text` holds no part of the token past its first few dozen bytes, and no control character. */
function leaksNothing(text: string): void {
  assert.not.match(text, 'SECRET-TAIL');
  assert.not.match(text, 'A'.repeat(60));
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what must not get through
  assert.not.match(text.replaceAll('\n', ''), /[\u0000-\u001f\u007f]/);
}

test('a diagnostic line holding a token and terminal escapes is skipped and warned of with 40 bytes of it at most, no escape', () => {
  const r = render('', `ibwarn: [4242] mad_rpc: ${ESCAPES}${TOKEN}\n${COMPUTE}`);
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, 'compute-leaf-');
  const warning = r.stderr.split('\n').find((l) => l.includes('Skipped diagnostic lines in the InfiniBand output'));
  assert.ok(warning, r.stderr);
  const quoted = /count=1 first="line 1: \\"(.*)…\\" \(\d+ bytes\)"$/.exec(warning!)?.[1];
  assert.ok(quoted?.startsWith('ibwarn: [4242] mad_rpc: ]0;owned[2JeyJhb'), warning);
  assert.ok(Buffer.byteLength(quoted!) <= 40, quoted);
  leaksNothing(r.stderr);
});

test('a saved output whose stray line holds a token is refused naming the line by number, quoting none of it', () => {
  const r = render('', `${COMPUTE}${ESCAPES}password=${TOKEN}\n`);
  assert.is(r.code, 1, r.stderr);
  assert.match(r.stderr, /the ibnetdiscover output is not usable: line \d+ is neither/);
  assert.not.match(r.stderr, 'password=');
  leaksNothing(r.stderr);
});

test('a nodeNameMap pointed at a file that is no map is refused by line number, quoting none of it', () => {
  const secret = scratch.write('token', `${TOKEN}\n`);
  const r = render(`      nodeNameMap: ${secret}\n`, COMPUTE);
  assert.is(r.code, 1, r.stderr);
  assert.match(r.stderr, `config.nodeNameMap ${secret} line 1 is not \`0x<GUID> "<name>"\``);
  assert.not.match(r.stderr, 'eyJhbGci');
  leaksNothing(r.stderr);
});

test('a node-name-map cannot give a node a name with terminal escapes: the line is refused by number', () => {
  const map = scratch.write('ib-node-name-map', `0x0000000000200002 "LEAF${ESCAPES}"\n`);
  const r = render(`      nodeNameMap: ${map}\n`, COMPUTE);
  assert.is(r.code, 1, r.stderr);
  assert.match(r.stderr, `config.nodeNameMap ${map} line 1 holds a control character in its name`);
  assert.equal(r.stdout, '');
  leaksNothing(r.stderr);
});

test.run();
