// Running config.command with bounds, on real processes: stdout whole as it
// arrives, a
// failing run named with its exit code and stderr's end, a hung run (what
// ibnetdiscover does with no subnet behind its port) killed at the deadline
// with its children, an output past the cap killed, a missing program named,
// and stop() ending a run at once.

import { spawnSync } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runBounded } from '../../../../src/hypernode/discovery/ibnetdiscover/ibnetdiscover-run.ts';

const LIMITS = { timeoutMs: 10_000, maxOutputBytes: 2 ** 20 };
const never = new AbortController().signal;
/** A run whose stdout is not looked at. */
const ignored = () => {};
const sh = (script: string) => ['sh', '-c', script];
/** Whether a process whose command line holds `marker` is running. */
const running = (marker: string) => spawnSync('pgrep', ['-f', marker]).status === 0;

test('stdout comes back whole, in the chunks the pipe delivers, stderr beside it', async () => {
  const big = 'x'.repeat(100_000);
  const chunks: Buffer[] = [];
  const run = await runBounded(sh(`printf '%s\\n' ${big}; echo 'ibwarn: [12] a warning' >&2`), LIMITS, never, (chunk) =>
    chunks.push(chunk),
  );
  assert.ok(chunks.length > 1, 'more than one chunk: the output is handed on as it arrives');
  assert.is(Buffer.concat(chunks).toString(), `${big}\n`);
  assert.is(run.stderr, 'ibwarn: [12] a warning');
});

test('a failing run is named with its exit code and the end of its stderr', async () => {
  const script = `echo "ibwarn: [7] umad_init: can't open UMAD port (mlx5_0:1)" >&2; exit 255`;
  await runBounded(['sh', '-c', script], LIMITS, never, ignored).then(
    () => assert.unreachable(),
    (err: Error) =>
      assert.is(
        err.message,
        `sh -c "${script.replaceAll('"', '\\"')}" exited with code 255; stderr: ibwarn: [7] umad_init: can't open UMAD port (mlx5_0:1)`,
      ),
  );
});

test('a hung run is killed at the deadline, its children too, and says so', async () => {
  const marker = `hung-${process.pid}`;
  const started = Date.now();
  await runBounded(sh(`sleep 30 # ${marker}\n`), { ...LIMITS, timeoutMs: 300 }, never, ignored).then(
    () => assert.unreachable(),
    (err: Error) =>
      assert.match(
        err.message,
        /did not finish within 0\.3s \(config\.timeout\) and was killed; stderr: nothing on stderr/,
      ),
  );
  assert.ok(Date.now() - started < 5_000, 'ended at the deadline, not when sleep would');
  // A wrapper's child holding stdout open dies with the group.
  await runBounded(
    sh(`sh -c 'sleep 30 # ${marker}-child' & wait`),
    { ...LIMITS, timeoutMs: 300 },
    never,
    ignored,
  ).catch(() => {});
  assert.not.ok(running(`${marker}-child`), 'the child was killed');
});

test('an output past the cap is killed and refused', async () => {
  await runBounded(sh('yes ibnetdiscover'), { ...LIMITS, maxOutputBytes: 2 ** 20 }, never, ignored).then(
    () => assert.unreachable(),
    (err: Error) =>
      assert.is(err.message, 'sh -c "yes ibnetdiscover" printed more than 1 MiB (config.maxOutputMiB) and was killed'),
  );
});

test('a missing program is named with what to install', async () => {
  await runBounded(['/nonexistent/ibnetdiscover'], LIMITS, never, ignored).then(
    () => assert.unreachable(),
    (err: Error) =>
      assert.is(
        err.message,
        'cannot run /nonexistent/ibnetdiscover: not found (install infiniband-diags, or give --ibnetdiscover-command the full path)',
      ),
  );
});

test('stopping ends a run in flight at once', async () => {
  const stop = new AbortController();
  const run = runBounded(sh('sleep 30'), LIMITS, stop.signal, ignored);
  setTimeout(() => stop.abort(new Error('stopped')), 50);
  const started = Date.now();
  await run.then(
    () => assert.unreachable(),
    (err: Error) => assert.is(err.message, 'stopped'),
  );
  assert.ok(Date.now() - started < 5_000);
});

test.run();
