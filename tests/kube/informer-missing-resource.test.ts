// An informer whose resource the API server does not serve (a CRD that was
// never installed): the 404 is explained with the resource's full name and
// the caller's hint, logged once however often the list is retried, and the
// informer syncs as soon as the resource appears.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { realClock, type Clock } from '../../src/kube/clock.ts';
import { buildClientConfig } from '../../src/kube/config.ts';
import { resourceInformer } from '../../src/kube/informer.ts';
import { resourceClient } from '../../src/kube/resource.ts';
import { RestClient } from '../../src/kube/rest.ts';
import { Transport } from '../../src/kube/transport.ts';
import type { KubeObject } from '../../src/kube/types.ts';
import { nullLogger } from '../../src/log.ts';
import { startApiServer } from '../../testing/apiserver/index.ts';
import { waitFor } from '../../testing/wait.ts';
import { capturingLogger } from '../support/capturing-logger.ts';

/** Real time, but every backoff pause is 10 ms, so retries come quickly. */
const quickBackoff: Clock = { now: realClock.now, sleep: (_ms, signal) => realClock.sleep(10, signal) };

test('a resource the server does not serve: one error naming it with the hint, retries at V(4), synced once it is installed', async () => {
  const api = await startApiServer({ withoutHyperNodeCrd: true });
  const dir = mkdtempSync(join(tmpdir(), 'informer-missing-'));
  const transport = new Transport(buildClientConfig({ master: '', kubeconfig: api.writeKubeconfig(dir) }, nullLogger));
  const { logger, lines } = capturingLogger({ headers: true });
  const rest = new RestClient({ transport, userAgent: 'informer-test', qps: 1000, burst: 1000 });
  const informer = resourceInformer<KubeObject>(
    resourceClient(rest, {
      group: 'topology.volcano.sh',
      version: 'v1alpha1',
      resource: 'hypernodes',
      namespaced: false,
    }),
    {
      clock: quickBackoff,
      logger,
      missingHint: 'is the example CRD installed?',
    },
  );
  const stop = new AbortController();
  const run = informer.run(stop.signal);
  try {
    await waitFor(() => api.requests.count({ resource: 'hypernodes', verb: 'list' }) >= 5, {
      what: 'five list attempts',
    });
    const expected =
      'the server could not find the requested resource (hypernodes.topology.volcano.sh: is the example CRD installed?)';
    // klog lines: severity letter first, the message after `] `.
    const attempts = lines.filter((l) => l.includes('] Failed to list '));
    const severities = attempts.map((l) => l[0]).join('');
    assert.match(severities, /^EI{3,}$/, 'the first attempt is an error, the same failure again only V(4) info');
    for (const l of attempts)
      assert.ok(l.endsWith(`] Failed to list resource="hypernodes" err=${JSON.stringify(expected)}`), l);
    assert.not.ok(informer.hasSynced());

    api.installHyperNodeCrd();
    await waitFor(() => informer.hasSynced(), { what: 'the informer to sync once the CRD is installed' });
  } finally {
    stop.abort();
    await run;
    transport.close();
    await api.close();
    rmSync(dir, { recursive: true });
  }
});

test.run();
