// The klog-style logger as main configures it from the flags: verbosity
// gating, --skip-headers, and the FATAL exit.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { EXIT_FATAL } from '../src/exit-codes.ts';
import { createLogger, logFatal, nullLogger, type Logger } from '../src/log.ts';

function capture(opts: { verbosity: number; skipHeaders?: boolean }) {
  const lines: string[] = [];
  const logger = createLogger({
    ...opts,
    sink: { write: (l) => lines.push(l) },
    now: () => new Date(Date.UTC(2026, 0, 2, 15, 4, 5, 123)),
    pid: 42,
  });
  return { logger, lines };
}

class Exited extends Error {
  constructor(readonly code: number) {
    super(`exit ${code}`);
  }
}
const exit = (code: number): never => {
  throw new Exited(code);
};

test('V(n) lines appear only up to the -v level', () => {
  const { logger, lines } = capture({ verbosity: 2 });
  logger.v(2).info('shown');
  logger.v(3).info('hidden');
  assert.equal(lines, ['I0102 15:04:05.123000      42] shown\n']);
});

test('--skip-headers leaves only the message and key/values', () => {
  const { logger, lines } = capture({ verbosity: 0, skipHeaders: true });
  logger.warn('Ignoring positional command-line arguments', { args: ['2>&1'] });
  assert.equal(lines, ['Ignoring positional command-line arguments args=["2>&1"]\n']);
});

test('logFatal writes an F line with the logger context and exits 255', () => {
  const { logger, lines } = capture({ verbosity: 0 });
  try {
    logFatal(
      logger.with({ server: 'metrics' }),
      'Prometheus HTTP server failed',
      { err: new Error('listen tcp :8081: bind: address already in use') },
      exit,
    );
    assert.unreachable('logFatal returned');
  } catch (err) {
    assert.instance(err, Exited);
    assert.is((err as Exited).code, EXIT_FATAL);
  }
  assert.equal(lines, [
    'F0102 15:04:05.123000      42] Prometheus HTTP server failed server="metrics" err="listen tcp :8081: bind: address already in use"\n',
  ]);
  assert.is(EXIT_FATAL, 255);
});

test('logFatal falls back to error() for loggers without a fatal level', () => {
  const errors: string[] = [];
  const plain: Logger = { ...nullLogger, error: (msg) => errors.push(msg) };
  assert.throws(
    () => logFatal(plain, 'boom', undefined, exit),
    (err: unknown) => err instanceof Exited && err.code === 255,
  );
  assert.equal(errors, ['boom']);
});

test('a long value is cut with its length noted, and the line stays one parseable line', () => {
  const { logger, lines } = capture({ verbosity: 0, skipHeaders: true });
  const body = 'x'.repeat(100_000);
  logger.error('Failed to list', { err: new Error(body), name: body, labels: { big: body } });
  assert.is(lines.length, 1);
  const line = lines[0]!;
  assert.ok(line.length < 8 * 1024, `${line.length} characters`);
  const values = [...line.matchAll(/ (\w+)=("(?:[^"\\]|\\.)*")/g)].map((m) => [m[1], JSON.parse(m[2]!) as string]);
  assert.equal(
    values.map(([k]) => k),
    ['err', 'name', 'labels'],
  );
  assert.ok(values[0]![1].endsWith('… (100000 bytes)'));
  assert.ok(values[1]![1].endsWith('… (100000 bytes)'));
  assert.ok(values[2]![1].startsWith('{"big":"xxx'));
  assert.ok(values[2]![1].endsWith('… (100010 bytes)'));
});

test.run();
