// A SharedInformer over an in-memory FakeResource on a FakeClock, for the
// informer and reflector tests.

import { SharedInformer, type InformerOptions } from '../../src/kube/informer.ts';
import type { KubeObject } from '../../src/kube/types.ts';
import { nullLogger } from '../../src/log.ts';
import { FakeClock } from './fake-clock.ts';
import type { FakeResource } from './fake-lister-watcher.ts';

/** Runs an informer named `things` over `res` until `stop` is aborted; `done` settles when it has stopped. */
export function startInformer(res: FakeResource, opts: Pick<InformerOptions<KubeObject>, 'logger' | 'transform'> = {}) {
  const clock = new FakeClock();
  const stop = new AbortController();
  const informer = new SharedInformer<KubeObject>({
    name: 'things',
    listerWatcher: res,
    clock,
    logger: nullLogger,
    random: () => 0.5,
    ...opts,
  });
  const done = informer.run(stop.signal);
  return { clock, stop, informer, done };
}

/** The names of the objects in the informer's cache, sorted. */
export const cachedNames = (i: SharedInformer<KubeObject>) =>
  i
    .list()
    .map((o) => o.metadata.name)
    .sort();
