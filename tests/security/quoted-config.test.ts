// docs/security.md §1 and §6: whoever edits the discovery ConfigMap cannot
// make an Event or a log line carry a value of any size or any character.
// An error names the key and shows at most 40 bytes of the value, without
// control, bidi or zero-width characters, whatever the key and the source.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { seedConfigMap } from '../e2e/cluster.ts';
import { session } from '../e2e/session.ts';
import { eventMessages } from './leak-evidence.ts';

const s = session(test);

/** A terminal title change, a bell, a right-to-left override, then 100 KB. */
const HOSTILE = `\u001b]0;owned\u0007\u202e${'A'.repeat(100_000)}`;
const yamlString = (text: string) => JSON.stringify(text);

test('a configuration value of 100 KB with terminal escapes is named in at most 40 printable bytes, for every source', async () => {
  const { api, kubeconfig } = await s.startCluster();
  seedConfigMap(
    api,
    `networkTopologyDiscovery:
  - source: ibnetdiscover
    enabled: true
    config:
      hcas: ${yamlString(`${HOSTILE}[`)}
  - source: graph
    enabled: true
    config:
      fabric: ${yamlString(HOSTILE)}
      file: /var/run/ibnetdiscover/g.json
  - source: ufm
    enabled: true
    config:
      mode: ${yamlString(HOSTILE)}
      endpoint: https://ufm.example.com
  - source: label
    enabled: true
    config:
      networkTopologyTypes:
        rack:
          - ${yamlString(HOSTILE)}
`,
  );
  const run = s.startInProcess(kubeconfig, { verbosity: 10 });
  const messages = await s.converge(() => {
    const m = eventMessages(api, 'DiscovererFailed');
    return m.length >= 4 ? m : undefined;
  }, 'a DiscovererFailed Event for each source');
  for (const message of messages) {
    assert.ok(message.length < 1024, `${message.length} bytes`);
    assert.not.match(message, /[\p{Cc}\p{Cf}]/u, message);
    assert.not.ok(message.includes('A'.repeat(41)), message);
  }
  assert.ok(
    messages.some((m) => m.includes('config.hcas "]0;ownedAAAA') && m.includes('(100014 bytes)')) &&
      messages.some((m) => m.includes('networkTopologyTypes.rack') && m.includes('(100013 bytes)')),
    messages.join('\n'),
  );
  for (const c of ['\u001b', '\u0007', '\u202e'])
    assert.not.ok(run.log().includes(c), `${JSON.stringify(c)} in the log`);
  assert.not.ok(run.log().includes('A'.repeat(1100)));
});

test.run();
