// One round of a label discoverer under a fake clock, for the discoverer
// tests: let the trigger debounce elapse and take what it offers.

import { TRIGGER_DEBOUNCE_MS } from '../../../src/hypernode/discovery/label/label-discoverer.ts';
import type { Discoverer, Snapshot } from '../../../src/hypernode/model/contracts.ts';
import type { Channel } from '../../../src/util/channel.ts';
import { type FakeClock, settle } from '../../kube/fake-clock.ts';

/** After the debounce: the snapshot offered (acknowledged), or 'none'. */
export async function round(rig: { clock: FakeClock; ch: Channel<Snapshot>; d: Discoverer }): Promise<Snapshot | 'none'> {
  await rig.clock.advance(TRIGGER_DEBOUNCE_MS);
  const ac = new AbortController();
  let got: Snapshot | 'none' = 'none';
  const p = rig.ch.recv(ac.signal).then(
    (r) => void (got = r.done ? 'none' : r.value),
    () => {},
  );
  await settle();
  ac.abort();
  await p;
  if (got !== 'none') rig.d.resultSynced();
  return got;
}
