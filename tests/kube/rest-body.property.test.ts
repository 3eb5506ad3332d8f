// Generated tests of the body size limits in the request layer: a response
// just under, at and just over its limit, and watch streams cut into chunks
// at arbitrary byte positions (inside multi-byte characters too). The
// transport is a stand-in that hands the client exactly those chunks.

import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { RestClient } from '../../src/kube/rest.ts';
import { BodyTooLargeError } from '../../src/util/body-too-large-error.ts';
import type { Transport } from '../../src/kube/transport.ts';
import type { KubeObject, WatchEvent } from '../../src/kube/types.ts';
import { propertyParameters } from '../support/property.ts';

/** A transport answering every request with status 200, `headers` and `body` cut at `cuts`. */
function scriptedTransport(body: Buffer, cuts: number[], headers: Record<string, string> = {}): Transport {
  const points = [...new Set(cuts.map((c) => c % (body.length + 1)))].sort((a, b) => a - b);
  const chunks: Buffer[] = [];
  let from = 0;
  for (const p of [...points, body.length]) {
    if (p > from) chunks.push(body.subarray(from, p));
    from = Math.max(from, p);
  }
  const fake = {
    host: 'stand-in',
    config: { server: 'http://stand-in' },
    credentials: async () => ({ headers: {} }),
    send: async () =>
      Object.assign(Readable.from(chunks, { objectMode: false }), {
        statusCode: 200,
        headers,
      }) as unknown as IncomingMessage,
  };
  return fake as unknown as Transport;
}

function restClient(
  transport: Transport,
  limits: { maxResponseBytes?: number; maxWatchEventBytes?: number },
): RestClient {
  return new RestClient({ transport, userAgent: 'property', qps: 1e6, burst: 1e6, maxRetries: 0, ...limits });
}

const cutsArb = fc.array(fc.nat({ max: 1 << 16 }), { maxLength: 12 });

test('a response body is accepted up to its limit and refused one byte above it, however it is chunked', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.integer({ min: 16, max: 4096 }),
      fc.integer({ min: -3, max: 3 }),
      cutsArb,
      fc.boolean(),
      async (limit, delta, cuts, withLength) => {
        const size = limit + delta;
        const body = Buffer.from(`"${'x'.repeat(size - 2)}"`);
        const headers: Record<string, string> = withLength ? { 'content-length': String(body.length) } : {};
        const rest = restClient(scriptedTransport(body, cuts, headers), { maxResponseBytes: limit });
        const outcome = await rest.request<string>({ method: 'GET', path: '/api/v1/things' }).then(
          (v) => v,
          (e: Error) => e,
        );
        if (size <= limit) assert.is(outcome, 'x'.repeat(size - 2));
        else {
          assert.instance(outcome, BodyTooLargeError);
          assert.is(
            (outcome as Error).message,
            `GET /api/v1/things: response body larger than the ${limit} bytes limit`,
          );
        }
      },
    ),
    propertyParameters(),
  );
});

/** Names with any code point, so multi-byte characters straddle chunk boundaries. */
const plain = { noNullPrototype: true } as const;
const eventArb = fc.record(
  {
    type: fc.constantFrom('ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK'),
    object: fc.record(
      {
        metadata: fc.record(
          { name: fc.string({ unit: 'binary', maxLength: 40 }), resourceVersion: fc.nat().map(String) },
          plain,
        ),
      },
      plain,
    ),
  },
  plain,
);

test('watch events arrive intact whatever the chunking; the first line over the limit ends the stream after the ones before it', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(eventArb, { minLength: 1, maxLength: 8 }),
      fc.nat(),
      fc.integer({ min: -2, max: 2 }),
      cutsArb,
      async (events, pick, delta, cuts) => {
        const lines = events.map((e) => Buffer.from(JSON.stringify(e)));
        // Put the limit right around one of the lines so both sides of the boundary are exercised.
        const limit = Math.max(1, lines[pick % lines.length]!.length + delta);
        const body = Buffer.concat(lines.flatMap((l) => [l, Buffer.from('\n')]));
        const rest = restClient(scriptedTransport(body, cuts), { maxWatchEventBytes: limit });
        const stream = await rest.watch<KubeObject>({
          method: 'GET',
          path: '/api/v1/nodes',
          query: { watch: true },
          idleTimeoutMs: 5000,
        });
        const seen: WatchEvent<KubeObject>[] = [];
        const err = await (async () => {
          for await (const ev of stream) seen.push(ev);
        })().then(
          () => undefined,
          (e: Error) => e,
        );
        const firstTooLong = lines.findIndex((l) => l.length > limit);
        const expected = firstTooLong < 0 ? events : events.slice(0, firstTooLong);
        assert.equal(seen, expected);
        if (firstTooLong < 0) assert.is(err, undefined);
        else assert.instance(err, BodyTooLargeError);
      },
    ),
    propertyParameters(),
  );
});

test.run();
