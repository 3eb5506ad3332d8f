// What the files-and-programs, local-URL and quoted-answer tests hold secrets
// against: secret-bearing inputs made fresh for each test (a ServiceAccount
// token, a private key), and everything a reader of the controller could see
// (its log, the Events and HyperNodes in the API server, its metrics), searched
// for any piece of the secret.

import { generateKeyPairSync, randomBytes } from 'node:crypto';
import * as assert from 'uvu/assert';
import type { ApiServer } from '../../testing/apiserver/index.ts';
import type { ControllerRun } from '../support/controller-process.ts';

/** A piece this long of a secret found anywhere is a leak (a fragment of a few dozen bytes would be one too). */
const PIECE = 12;

/** A fresh token shaped like a ServiceAccount's (a JWT): header, claims and signature in base64url. */
export function fakeServiceAccountToken(): string {
  const header = Buffer.from('{"alg":"RS256","kid":"fake"}').toString('base64url');
  const claims = Buffer.from(
    JSON.stringify({ sub: 'system:serviceaccount:volcano-system:fake', nonce: randomBytes(24).toString('hex') }),
  ).toString('base64url');
  return `${header}.${claims}.${randomBytes(256).toString('base64url')}`;
}

/** A fresh PKCS#8 private key in PEM, as a key file holds it. */
export function fakePrivateKey(): string {
  return generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
}

/** The secret part of `secret` (a PEM's base64 body; all of anything else). */
function secretPart(secret: string): string {
  const pem = /-----BEGIN [A-Z ]+-----\n([\s\S]*?)\n-----END/.exec(secret);
  return pem ? pem[1]!.replace(/\s+/g, '') : secret;
}

/** The pieces of `secret` that `haystack` contains. */
export function piecesFound(secret: string, haystack: string): string[] {
  const part = secretPart(secret);
  const found: string[] = [];
  for (let i = 0; i + PIECE <= part.length; i++) {
    const piece = part.slice(i, i + PIECE);
    if (haystack.includes(piece)) found.push(piece);
  }
  return found;
}

/** Everything a reader of the controller sees: its log, Events and HyperNodes (status and conditions), metrics. */
export async function evidence(api: ApiServer, run: ControllerRun): Promise<string> {
  return [
    run.log(),
    JSON.stringify(api.store.list('events')),
    JSON.stringify(api.store.list('hypernodes')),
    await run.metrics(),
  ].join('\n');
}

/** Fails naming where a piece of `secret` shows, if one does. */
export function assertNoLeak(secret: string, haystack: string, what: string): void {
  const found = piecesFound(secret, haystack);
  if (found.length === 0) return;
  const at = haystack.indexOf(found[0]!);
  assert.unreachable(
    `${what}: ${found.length} piece(s) of the secret appear, e.g. …${haystack.slice(Math.max(0, at - 80), at + 40)}…`,
  );
}

/** The messages of the Events of `reason`. */
export function eventMessages(api: ApiServer, reason: string): string[] {
  return (api.store.list('events') as unknown as { reason: string; message: string }[])
    .filter((e) => e.reason === reason)
    .map((e) => e.message);
}
