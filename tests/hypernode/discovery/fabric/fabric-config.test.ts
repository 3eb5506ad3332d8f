// The configuration every fabric source shares (discovery/fabric/fabric-config.ts):
// the one-fabric and list forms, fabric names, a fabric's own Secret and the
// hostMapping, nvlink and whole-number keys are decoded in one place, so ufm,
// lldp, ibnetdiscover (and graph, for the keys it has) refuse the same mistake
// in the same words, each message naming its source.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { DiscoveryEntry } from '../../../../src/hypernode/model/contracts.ts';
import { parseUfmConfig } from '../../../../src/hypernode/discovery/ufm/ufm-config.ts';
import { parseLldpConfig } from '../../../../src/hypernode/discovery/lldp/lldp-config.ts';
import { parseIbnetdiscoverConfig } from '../../../../src/hypernode/discovery/ibnetdiscover/ibnetdiscover-config.ts';
import { parseGraphConfig } from '../../../../src/hypernode/discovery/graph/graph-config.ts';

const SECRET = { secretRef: { name: 'creds', namespace: 'volcano-system' } };
const DNS_LABEL = "must be a DNS label of at most 40 characters (lowercase letters, digits, '-')";
const SECRET_REF_SHAPE = 'must be {name: <secret>, namespace: <namespace>}';
const SECRET_REF = `${SECRET_REF_SHAPE} (namespace defaults to the entry's credentials.secretRef namespace)`;

/** A fabric source, the config keys that make it read fabrics, and the keys of one of its fabrics. */
interface FabricSource {
  readonly source: string;
  readonly parse: (entry: DiscoveryEntry) => unknown;
  readonly mode: Record<string, unknown>;
  readonly item: Record<string, unknown>;
  /** Whether its entry names a Secret (ibnetdiscover refuses one). */
  readonly secret: boolean;
}

const parseUfm = (e: DiscoveryEntry) => parseUfmConfig(e, []);
const SOURCES: readonly FabricSource[] = [
  { source: 'ufm', parse: parseUfm, mode: { mode: 'fabric' }, item: { endpoint: 'https://ufm-a' }, secret: true },
  { source: 'lldp', parse: parseLldpConfig, mode: {}, item: { switches: ['10.0.0.1'] }, secret: true },
  {
    source: 'ibnetdiscover',
    parse: parseIbnetdiscoverConfig,
    mode: {},
    item: { file: '/var/run/ibnetdiscover/ib.txt' },
    secret: false,
  },
];
const GRAPH: FabricSource = {
  source: 'graph',
  parse: parseGraphConfig,
  mode: {},
  item: { file: '/var/run/ibnetdiscover/g' },
  secret: false,
};

/** What a fabric source's config holds, as far as these tests read it. */
type Parsed = { readonly fabrics?: readonly { readonly secretRef?: unknown }[] };

/** What the source makes of `config` (its mode added): the message it throws, or its config. */
function parsed(s: FabricSource, config: Record<string, unknown>, secret = s.secret): Parsed | string {
  const entry: DiscoveryEntry = { source: s.source, enabled: true, intervalMs: 60_000, maxDeletePercent: 50, config };
  const written = { ...entry, config: { ...s.mode, ...config } };
  try {
    return s.parse(secret ? { ...written, credentials: SECRET } : written) as Parsed;
  } catch (err) {
    return (err as Error).message;
  }
}

/** The message the source throws for `config`; fails the test when it accepts it. */
function refusal(s: FabricSource, config: Record<string, unknown>, secret = s.secret): string {
  const r = parsed(s, config, secret);
  if (typeof r !== 'string') assert.unreachable(`${s.source} accepted ${JSON.stringify(config)}`);
  return r as string;
}

test('every source with several fabrics refuses the same list mistakes in the same words, naming itself', () => {
  for (const s of SOURCES) {
    const p = `${s.source} source: `;
    const item = (name: string) => ({ name, ...s.item });
    const single = s.source === 'ufm' ? 'endpoint' : 'fabric';
    const both = refusal(s, { fabric: 'a', fabrics: [item('a')] });
    assert.is(both, `${p}write either config.${single} (one fabric) or config.fabrics (a list), not both`);
    const empty = refusal(s, { fabrics: [] });
    assert.ok(empty.startsWith(`${p}config.fabrics must be a non-empty list of {name, `), empty);
    const twice = refusal(s, { fabrics: [item('a'), item('a')] });
    const ownName = 'each fabric needs its own name (it prefixes and labels its HyperNodes)';
    assert.is(twice, `${p}config.fabrics[1].name "a" is used twice; ${ownName}`);
    assert.is(refusal(s, { fabrics: [item('Pod_A')] }), `${p}config.fabrics[0].name ${DNS_LABEL}, got "Pod_A"`);
    assert.is(refusal(s, { fabric: 'Pod_A', ...s.item }), `${p}config.fabric ${DNS_LABEL}, got "Pod_A"`);
    const unknown = refusal(s, { fabrics: [{ ...item('a'), colour: 'red' }] });
    assert.ok(unknown.startsWith(`${p}config.fabrics[0] has unknown keys "colour"; known: name, `), unknown);
    assert.ok(refusal(s, { fabrics: ['a'] }).startsWith(`${p}config.fabrics[0] must be a mapping`), s.source);
  }
});

test("a fabric's own secretRef: the same words from ufm and lldp, the entry's namespace by default", () => {
  for (const s of SOURCES.filter((x) => x.secret)) {
    const p = `${s.source} source: config.fabrics[0].secretRef`;
    const fabric = (secretRef: unknown) => ({ fabrics: [{ name: 'a', ...s.item, secretRef }] });
    assert.is(refusal(s, fabric('creds')), `${p} ${SECRET_REF}`);
    assert.is(refusal(s, fabric({ namespace: 'x' })), `${p} ${SECRET_REF}`);
    const noNamespace = refusal(s, fabric({ name: 'creds' }), false);
    assert.is(noNamespace, `${p}.namespace is needed when the entry has no credentials.secretRef`);
    const config = parsed(s, {
      fabrics: [
        { name: 'a', ...s.item, secretRef: { name: 'own' } },
        { name: 'b', ...s.item },
      ],
    });
    const refs = typeof config === 'string' ? config : config.fabrics?.map((f) => f.secretRef);
    assert.equal(refs, [{ name: 'own', namespace: 'volcano-system' }, SECRET.secretRef], s.source);
  }
});

test('hostMapping, nvlink and minSharedHosts are refused in the same words by every fabric source, naming it', () => {
  for (const s of [...SOURCES, GRAPH]) {
    const p = `${s.source} source: `;
    const mapping = refusal(s, { ...s.item, hostMapping: { lowercase: 'yes' } });
    assert.is(mapping, `${p}config.hostMapping.lowercase must be true or false`);
    assert.ok(refusal(s, { ...s.item, nvlink: 'rack' }).startsWith(`${p}config.nvlink `), s.source);
    if (s.source === 'ufm') continue; // it has no minSharedHosts
    const shared = refusal(s, { ...s.item, minSharedHosts: 0 });
    assert.is(shared, `${p}config.minSharedHosts must be a whole number of at least 1, got 0`);
  }
});

test.run();
