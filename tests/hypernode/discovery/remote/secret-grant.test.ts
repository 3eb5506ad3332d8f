// What a Secret's metadata allows (src/hypernode/discovery/remote/secret-grant.ts):
// the opt-in label exactly "true", endpoints as URL origins compared after
// normalising, SNMP agents as addresses, IPv4 and IPv6 networks or host
// names, and a malformed entry refused whole, naming the entry, so a typo
// never widens or narrows what is allowed.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SecretGrant } from '../../../../src/hypernode/discovery/remote/secret-grant.ts';
import {
  ALLOWED_ENDPOINTS_ANNOTATION,
  ALLOWED_HOSTS_ANNOTATION,
  DISCOVERY_CREDENTIALS_LABEL,
} from '../../../../src/hypernode/model/hypernode-labels.ts';
import type { Secret } from '../../../../src/hypernode/model/hypernode-types.ts';

const REF = { namespace: 'volcano-system', name: 'fabric' };

function secret(annotations: Record<string, string>, label = 'true'): Secret {
  return { metadata: { ...REF, labels: { [DISCOVERY_CREDENTIALS_LABEL]: label }, annotations } };
}

const refusal = (fn: () => unknown): string => {
  try {
    fn();
  } catch (err) {
    return (err as Error).message;
  }
  return assert.unreachable('should be refused') as never;
};

test('endpoints compare as origins: scheme, host and port, default ports and case normalised', () => {
  const grant = SecretGrant.of(
    secret({ [ALLOWED_ENDPOINTS_ANNOTATION]: 'https://UFM.example.com:443, https://ufm-b.example.com:8443' }),
    REF,
    'endpoints',
    [],
  );
  grant.checkEndpoint({ url: 'https://ufm.example.com/ufmRest/resources/ports', insecureSkipVerify: false });
  grant.checkEndpoint({ url: 'ufm-b.example.com:8443', insecureSkipVerify: false });
  assert.match(
    refusal(() => grant.checkEndpoint({ url: 'https://ufm-b.example.com:9443', insecureSkipVerify: false })),
    'does not name the endpoint https://ufm-b.example.com:9443',
  );
  assert.match(
    refusal(() => grant.checkEndpoint({ url: 'http://ufm.example.com', insecureSkipVerify: false })),
    'does not name the endpoint http://ufm.example.com',
  );
});

test('the label must be exactly "true", and the annotation the source needs must be there', () => {
  for (const label of ['false', 'True', 'yes']) {
    assert.match(
      refusal(() =>
        SecretGrant.of(secret({ [ALLOWED_ENDPOINTS_ANNOTATION]: 'https://a' }, label), REF, 'endpoints', []),
      ),
      `is not labelled ${DISCOVERY_CREDENTIALS_LABEL}=true`,
    );
  }
  // An SNMP Secret names hosts, not endpoints: each source asks for its own annotation.
  assert.match(
    refusal(() => SecretGrant.of(secret({ [ALLOWED_ENDPOINTS_ANNOTATION]: 'https://a' }), REF, 'hosts', ['10.0.0.1'])),
    new RegExp(
      `names no SNMP agent in its annotation ${ALLOWED_HOSTS_ANNOTATION}, so its credentials are not sent to the SNMP agent 10.0.0.1: .*kubectl -n volcano-system annotate --overwrite secret fabric ${ALLOWED_HOSTS_ANNOTATION}=10\\.0\\.0\\.1$`,
    ),
  );
});

test('a malformed entry is refused whole, naming its position and a few bytes of it, control characters escaped', () => {
  for (const [value, position] of [
    ['https://ufm.example.com/ufmRest', 1],
    ['https://a, https://user:pw@b', 2],
    ['https://a?token=x', 1],
    ['ftp://a', 1],
    [`https://a,\u001b[31m${'x'.repeat(200)}`, 2],
  ] as const) {
    const message = refusal(() =>
      SecretGrant.of(secret({ [ALLOWED_ENDPOINTS_ANNOTATION]: value }), REF, 'endpoints', []),
    );
    assert.match(message, `entry ${position} of its annotation ${ALLOWED_ENDPOINTS_ANNOTATION}`);
    assert.match(message, 'is not a URL origin such as https://ufm.example.com:8443');
    assert.not.ok(message.includes('\u001b'), message);
    assert.ok(message.length < 400, message);
  }
  assert.match(
    refusal(() => SecretGrant.of(secret({ [ALLOWED_HOSTS_ANNOTATION]: '10.0.0.0/33' }), REF, 'hosts', [])),
    'is not an IP address, a network such as 10.0.0.0/16, or a host name',
  );
});

test('SNMP agents: addresses, IPv4 and IPv6 networks and host names, each family on its own', () => {
  const grant = SecretGrant.of(
    secret({ [ALLOWED_HOSTS_ANNOTATION]: '10.0.1.0/24 10.0.9.7,fd00:1::/64, Leaf-01.Fabric.example.com.' }),
    REF,
    'hosts',
    [],
  );
  const allowed = [
    '10.0.1.0',
    '10.0.1.255',
    '10.0.9.7',
    'fd00:1::5',
    'fd00:1:0:0:ffff::1',
    // An IPv4-mapped IPv6 address is the IPv4 address it maps: the same agent is reached.
    '::ffff:10.0.1.1',
    'leaf-01.fabric.example.com',
  ];
  const refused = [
    '10.0.2.1',
    '10.0.9.8',
    'fd00:2::1',
    '::ffff:10.0.2.1',
    'leaf-02.fabric.example.com',
    '10.0.1.1.nip.io',
  ];
  assert.equal(
    allowed.filter((h) => !grant.allowsHost(h)),
    [],
  );
  assert.equal(
    refused.filter((h) => grant.allowsHost(h)),
    [],
  );
  assert.match(
    refusal(() => grant.checkHosts(['10.0.1.4', '10.0.2.1', '10.0.2.2'])),
    `does not name the SNMP agents 10.0.2.1, 10.0.2.2 in its annotation ${ALLOWED_HOSTS_ANNOTATION}`,
  );
});

test('plain http and skipped verification each need their own consent', () => {
  const named = { [ALLOWED_ENDPOINTS_ANNOTATION]: 'http://ufm:8080,https://ufm:8443' };
  const none = SecretGrant.of(secret(named), REF, 'endpoints', []);
  assert.match(
    refusal(() => none.checkEndpoint({ url: 'http://ufm:8080', insecureSkipVerify: false })),
    'is plain http',
  );
  assert.match(
    refusal(() => none.checkEndpoint({ url: 'https://ufm:8443', insecureSkipVerify: true })),
    'turns TLS verification off',
  );
  const both = SecretGrant.of(
    secret({
      ...named,
      'topology.volcano.sh/allow-plain-http': 'true',
      'topology.volcano.sh/allow-insecure-skip-verify': 'true',
    }),
    REF,
    'endpoints',
    [],
  );
  both.checkEndpoint({ url: 'http://ufm:8080', insecureSkipVerify: false });
  both.checkEndpoint({ url: 'https://ufm:8443', insecureSkipVerify: true });
});

test.run();
