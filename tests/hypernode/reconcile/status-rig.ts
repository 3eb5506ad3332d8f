// The status writer over in-memory fakes with the defaults a test rarely
// cares about: Events dropped, a throwaway metrics registry, no log, no
// `health` settings applied (so conditions are left as they are), a worker's
// throw failing the test.

import { Registry } from 'prom-client';
import { newHyperNodeMetrics } from '../../../src/hypernode/hypernode-metrics.ts';
import { StatusWriter, type StatusWriterDeps } from '../../../src/hypernode/reconcile/status-writer.ts';
import { nullLogger } from '../../../src/log.ts';
import { unexpectedWorkerError } from '../../support/worker-errors.ts';

/** The status writer over the fakes (no `health` settings applied: conditions are left alone). */
export function statusWriter(
  deps: Pick<StatusWriterDeps, 'hyperNodes' | 'nodes' | 'client' | 'clock'> & Partial<StatusWriterDeps>,
): StatusWriter {
  return new StatusWriter({
    events: { event() {} },
    regarding: () => ({ metadata: { name: 'cm', namespace: 'ns' } }),
    metrics: newHyperNodeMetrics(new Registry()),
    logger: nullLogger,
    onWorkerError: unexpectedWorkerError('hypernode-status'),
    ...deps,
  });
}
