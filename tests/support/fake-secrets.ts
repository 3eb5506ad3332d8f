// Secrets in memory for discoverer tests: `data` values are given as plain
// text and stored base64-encoded, as the API serves them; a Secret is put as
// an operator writes one for discovery (testing/discovery-secret.ts), labelled
// and naming what it allows; a missing Secret is the API's 404, and every get
// is counted. The controller's namespace is volcano-system, as by default.

import type { SecretClient } from '../../src/hypernode/model/contracts.ts';
import type { Secret } from '../../src/hypernode/model/hypernode-types.ts';
import { ApiError } from '../../src/kube/errors.ts';
import { discoverySecret, type SecretAllows } from '../../testing/discovery-secret.ts';

export class FakeSecrets implements SecretClient {
  readonly namespace = 'volcano-system';
  /** `namespace/name` → Secret. */
  readonly store = new Map<string, Secret>();
  gets = 0;
  put(ns: string, name: string, data: Record<string, string>, allows: SecretAllows): void {
    this.store.set(`${ns}/${name}`, discoverySecret(ns, name, data, allows));
  }
  async get(ns: string, name: string): Promise<Secret> {
    this.gets++;
    const s = this.store.get(`${ns}/${name}`);
    if (!s) throw new ApiError(`secrets "${name}" not found`, 404, 'NotFound');
    return s;
  }
}
