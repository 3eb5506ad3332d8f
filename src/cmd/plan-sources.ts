// How `plan` runs each fabric source: on what the operator gave it, never on
// what the cluster's configuration asks of the operator's machine
// (docs/security.md §7). A source with a capture (--ufm-capture,
// --lldp-capture, --graph-file, --ibnetdiscover-capture) reads it. Without
// one, and without --use-cluster-credentials, it is planned from the
// HyperNodes it has in the cluster (publishedTopology). With the flag, ufm,
// lldp and a graph URL or ConfigMap are asked live as the controller asks
// them, with the Secrets of the controller's namespace, after plan has said
// which Secrets go where. ibnetdiscover's command and the files a
// configuration names are never run or read by plan.

import type { DiscoveryConfig } from '../hypernode/config/loader.ts';
import type { InputPolicy } from '../hypernode/model/input-policy.ts';
import { enabledSources, entryOf, sourceEntry } from '../hypernode/config/loader.ts';
import { createGraphDiscovererFactory, graphDiscovererFactory } from '../hypernode/discovery/graph/graph-discoverer.ts';
import { describeLocation, parseGraphConfig } from '../hypernode/discovery/graph/graph-config.ts';
import { createIbnetdiscoverDiscovererFactory } from '../hypernode/discovery/ibnetdiscover/ibnetdiscover-discoverer.ts';
import { createLldpDiscovererFactory, lldpDiscovererFactory } from '../hypernode/discovery/lldp/lldp-discoverer.ts';
import { parseLldpConfig } from '../hypernode/discovery/lldp/lldp-config.ts';
import { builtinDiscoverers, newDiscovererRegistry, type DiscovererRegistry } from '../hypernode/discovery/registry.ts';
import type { SecretRef } from '../hypernode/discovery/remote/secret-grant.ts';
import { urlOrigin } from '../hypernode/discovery/remote/secret-grant.ts';
import { createUfmDiscovererFactory, ufmDiscovererFactory } from '../hypernode/discovery/ufm/ufm-discoverer.ts';
import { parseUfmConfig } from '../hypernode/discovery/ufm/ufm-config.ts';
import type { ConfigMapReader, DiscovererFactory, DiscoveryEntry, SecretClient } from '../hypernode/model/contracts.ts';
import type { HyperNode } from '../hypernode/model/hypernode-types.ts';
import {
  GRAPH_SOURCE,
  IBNETDISCOVER_SOURCE,
  isOwnedBy,
  LLDP_SOURCE,
  UFM_SOURCE,
} from '../hypernode/model/hypernode-labels.ts';
import { publishedTopology } from '../hypernode/preview/published-topology.ts';
import { firstFew } from '../util/first-few.ts';
import type { CaptureDirs } from './capture-dirs.ts';
import { graphFileReader } from './graph-file.ts';
import { capturedOutputs } from './ibnetdiscover-capture.ts';
import { captureWalks, type LldpCaptures } from './lldp-capture.ts';
import { captureReader, type UfmCaptures } from './ufm-capture.ts';

export const USE_CLUSTER_CREDENTIALS_FLAG = 'use-cluster-credentials';

/** What the operator gave `plan` for the fabric sources. */
export interface PlanFabricInputs {
  readonly ufmCaptures?: UfmCaptures;
  readonly lldpCaptures?: LldpCaptures;
  /** '' when not given. */
  readonly graphFile: string;
  readonly ibnetdiscoverCaptures?: CaptureDirs;
  /** --use-cluster-credentials: ask ufm, lldp and a graph URL or ConfigMap live. */
  readonly live: boolean;
}

/** Where a source's answer comes from in this plan. */
type Way = 'capture' | 'live' | 'published';

/** How `source` (entry `entry`) runs; a graph read from a file is never asked live. */
function wayOf(source: string, entry: DiscoveryEntry | undefined, inputs: PlanFabricInputs): Way {
  if (source === UFM_SOURCE) return inputs.ufmCaptures ? 'capture' : inputs.live ? 'live' : 'published';
  if (source === LLDP_SOURCE) return inputs.lldpCaptures ? 'capture' : inputs.live ? 'live' : 'published';
  if (source === GRAPH_SOURCE) {
    if (inputs.graphFile !== '') return 'capture';
    return inputs.live && entry?.config.file === undefined ? 'live' : 'published';
  }
  if (source === IBNETDISCOVER_SOURCE) return inputs.ibnetdiscoverCaptures ? 'capture' : 'published';
  return 'live';
}

const refused = (what: string) => () => Promise.reject(new Error(`plan does not ${what}`));

/** The discoverers of `plan`: each fabric source on its capture, live (with the flag), or as published. */
export function planRegistry(inputs: PlanFabricInputs): DiscovererRegistry {
  const ufm = inputs.ufmCaptures
    ? createUfmDiscovererFactory({ readResourceBody: captureReader(inputs.ufmCaptures) })
    : inputs.live
      ? ufmDiscovererFactory
      : publishedTopology(UFM_SOURCE, createUfmDiscovererFactory({ readResourceBody: refused('ask UFM') }));
  const lldp = inputs.lldpCaptures
    ? createLldpDiscovererFactory({ captured: captureWalks(inputs.lldpCaptures) })
    : inputs.live
      ? lldpDiscovererFactory
      : publishedTopology(LLDP_SOURCE, createLldpDiscovererFactory({ captured: refused('walk switches') }));
  const graphPublished = publishedTopology(
    GRAPH_SOURCE,
    createGraphDiscovererFactory({ readGraph: refused('read the fabric graph') }),
  );
  const graph: DiscovererFactory =
    inputs.graphFile !== ''
      ? createGraphDiscovererFactory({ readGraph: graphFileReader(inputs.graphFile) })
      : (entry, opts) =>
          (wayOf(GRAPH_SOURCE, entry, inputs) === 'live' ? graphDiscovererFactory : graphPublished)(entry, opts);
  // ibnetdiscover's command never runs here, not even behind a flag: its output comes from a capture or the cluster.
  const ibnetdiscover = inputs.ibnetdiscoverCaptures
    ? createIbnetdiscoverDiscovererFactory({ readOutput: capturedOutputs(inputs.ibnetdiscoverCaptures) })
    : publishedTopology(
        IBNETDISCOVER_SOURCE,
        createIbnetdiscoverDiscovererFactory({ readOutput: refused('run ibnetdiscover or read config.file') }),
      );
  return newDiscovererRegistry({
    ...Object.fromEntries(builtinDiscoverers),
    [UFM_SOURCE]: ufm,
    [LLDP_SOURCE]: lldp,
    [GRAPH_SOURCE]: graph,
    [IBNETDISCOVER_SOURCE]: ibnetdiscover,
  });
}

/** What a published source's warning tells the operator to pass instead. */
const INSTEAD: Readonly<Record<string, (namespace: string) => string>> = {
  [UFM_SOURCE]: (ns) =>
    `pass --ufm-capture DIR, or --${USE_CLUSTER_CREDENTIALS_FLAG} to ask UFM with the Secrets of ${ns}`,
  [LLDP_SOURCE]: (ns) =>
    `pass --lldp-capture DIR, or --${USE_CLUSTER_CREDENTIALS_FLAG} to walk the switches with the Secrets of ${ns}`,
  [GRAPH_SOURCE]: (ns) =>
    `pass --graph-file F, or (for a config.url or config.configMap) --${USE_CLUSTER_CREDENTIALS_FLAG} to read it with the Secrets of ${ns}; plan never reads a config.file, a path on the controller's host`,
  [IBNETDISCOVER_SOURCE]: () =>
    "pass --ibnetdiscover-capture FABRIC=FILE; plan never runs ibnetdiscover and never reads a config.file, a path on the controller's host",
};

/** One warning per enabled fabric source planned from the cluster, saying so and what to pass instead. */
export function publishedWarnings(
  config: DiscoveryConfig,
  existing: readonly HyperNode[],
  inputs: PlanFabricInputs,
  namespace: string,
): string[] {
  const out: string[] = [];
  for (const source of new Set(enabledSources(config))) {
    const instead = INSTEAD[source];
    if (!instead || wayOf(source, entryOf(sourceEntry(config, source)), inputs) !== 'published') continue;
    const count = existing.filter((hn) => isOwnedBy(hn, source)).length;
    out.push(
      `source "${source}" is planned from the ${count} HyperNode(s) it has in the cluster, as the running controller published them, so it shows no change of its own: plan asks no fabric and reads no Secret unless told to; ${instead(namespace)}`,
    );
  }
  return out;
}

/** One Secret a live source reads, and where its credentials go. */
interface CredentialUse {
  readonly secret?: SecretRef;
  readonly to: string;
  readonly source: string;
  readonly fabric?: string;
}

/** What the live sources will read and contact; a source whose entry is broken is left to fail on its own. */
function credentialUses(config: DiscoveryConfig, inputs: PlanFabricInputs, policy: InputPolicy): CredentialUse[] {
  const uses: CredentialUse[] = [];
  for (const source of new Set(enabledSources(config))) {
    const entry = entryOf(sourceEntry(config, source));
    if (!entry || wayOf(source, entry, inputs) !== 'live') continue;
    try {
      if (source === UFM_SOURCE) {
        for (const f of parseUfmConfig(entry, [], policy).fabrics)
          uses.push({ secret: f.secretRef, to: urlOrigin(f.endpoint), source, fabric: f.name });
      } else if (source === LLDP_SOURCE) {
        for (const f of parseLldpConfig(entry).fabrics) {
          const listed = [...f.switches, ...(f.crawl?.seeds ?? [])].map((a) => a.host);
          const crawl = f.crawl
            ? ` and, crawling, the neighbours inside ${firstFew(
                f.crawl.allow.map((n) => n.text),
                4,
              )} that the Secret names`
            : '';
          uses.push({
            secret: f.secretRef,
            to: `the SNMP agents ${firstFew([...new Set(listed)], 8)}${crawl}`,
            source,
            fabric: f.name,
          });
        }
      } else if (source === GRAPH_SOURCE) {
        const g = parseGraphConfig(entry, policy);
        const to = g.location.kind === 'url' ? urlOrigin(g.location.url) : describeLocation(g.location);
        uses.push({ secret: g.secretRef, to, source });
      }
    } catch {
      // The source fails with this error when it runs; nothing of it is read.
    }
  }
  return uses;
}

/**
 * The lines plan prints before it reads any Secret: each Secret and where its
 * credentials go, each endpoint asked without one; and the Secret client that
 * reads only those Secrets, of the controller's namespace.
 */
export function liveReads(
  config: DiscoveryConfig,
  inputs: PlanFabricInputs,
  secrets: SecretClient,
  policy: InputPolicy,
): { readonly lines: string[]; readonly secrets: SecretClient } {
  const uses = credentialUses(config, inputs, policy);
  const lines = uses.map((u) => {
    const who = `source "${u.source}"${u.fabric ? `, fabric ${u.fabric}` : ''}`;
    if (!u.secret) return `plan asks ${u.to} without credentials (${who})`;
    const name = `${u.secret.namespace}/${u.secret.name}`;
    if (u.secret.namespace !== secrets.namespace)
      return `plan refuses Secret ${name}, outside the controller's namespace ${secrets.namespace} (${who})`;
    return `plan reads Secret ${name} and sends its credentials to ${u.to}, if the Secret allows it (${who})`;
  });
  const listed = new Set(uses.flatMap((u) => (u.secret ? [`${u.secret.namespace}/${u.secret.name}`] : [])));
  return {
    lines,
    secrets: {
      namespace: secrets.namespace,
      get: (namespace, name, signal) =>
        listed.has(`${namespace}/${name}`)
          ? secrets.get(namespace, name, signal)
          : Promise.reject(
              new Error(`plan did not list Secret ${namespace}/${name} before running, so it is not read`),
            ),
    },
  };
}

/** The ConfigMaps a graph source may read in a plan: those of the controller's namespace, as the controller's Role allows. */
export function ownNamespaceConfigMaps(reader: ConfigMapReader, namespace: string): ConfigMapReader {
  return {
    get: (ns, name, signal) =>
      ns === namespace
        ? reader.get(ns, name, signal)
        : Promise.reject(
            new Error(`plan reads ConfigMaps of the controller's namespace ${namespace} only, not ${ns}/${name}`),
          ),
  };
}
