// Secrets in memory for discoverer tests: `data` values are given as plain
// text and stored base64-encoded, as the API serves them; a missing Secret
// is the API's 404, and every get is counted.

import type { SecretClient } from '../../src/hypernode/model/contracts.ts';
import type { Secret } from '../../src/hypernode/model/hypernode-types.ts';
import { ApiError } from '../../src/kube/errors.ts';

const b64 = (s: string) => Buffer.from(s).toString('base64');

export class FakeSecrets implements SecretClient {
  /** `namespace/name` → Secret. */
  readonly store = new Map<string, Secret>();
  gets = 0;
  put(ns: string, name: string, data: Record<string, string>): void {
    this.store.set(`${ns}/${name}`, {
      metadata: { name, namespace: ns },
      data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, b64(v)])),
    });
  }
  async get(ns: string, name: string): Promise<Secret> {
    this.gets++;
    const s = this.store.get(`${ns}/${name}`);
    if (!s) throw new ApiError(`secrets "${name}" not found`, 404, 'NotFound');
    return s;
  }
}
