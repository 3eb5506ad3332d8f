// Discovery documents (/api, /apis, /api/v1, /apis/<group>[/<version>]) and
// /version, enough for kubectl-style tooling and client libraries to find
// the served resources. Mirrors apiserver/pkg/endpoints/discovery.

import type { ResourceType } from './resources.ts';

const VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
/** A CRD's verbs come in the apiextensions-apiserver's own order. */
const CRD_VERBS = ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch'];

export const VERSION_INFO = {
  major: '1',
  minor: '33',
  gitVersion: 'v1.33.0',
  gitCommit: '0000000000000000000000000000000000000000',
  gitTreeState: 'clean',
  buildDate: '2025-04-23T00:00:00Z',
  goVersion: 'go1.24.2',
  compiler: 'gc',
  platform: 'linux/amd64',
};

function resourceList(groupVersion: string, types: ResourceType[]): unknown {
  const resources: unknown[] = [];
  for (const t of types) {
    resources.push({
      name: t.resource,
      singularName: t.singular,
      namespaced: t.namespaced,
      kind: t.kind,
      verbs: t.builtin ? VERBS : CRD_VERBS,
      shortNames: t.shortNames.length ? t.shortNames : undefined,
    });
    for (const sub of t.subresources) {
      resources.push({
        name: `${t.resource}/${sub}`,
        singularName: '',
        namespaced: t.namespaced,
        kind: t.kind,
        verbs: ['get', 'patch', 'update'],
      });
    }
  }
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion, resources };
}

/**
 * Kubernetes' version priority (apimachinery version.CompareKubeAwareVersionStrings): GA, then beta, then alpha, higher
 * first.
 */
function versionRank(v: string): [number, number, number] {
  const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
  if (!m) return [3, 0, 0];
  return [m[2] === undefined ? 0 : m[2] === 'beta' ? 1 : 2, -Number(m[1]), -Number(m[3] ?? 0)];
}
const byPriority = (a: string, b: string) => {
  const [x, y] = [versionRank(a), versionRank(b)];
  return x[0] - y[0] || x[1] - y[1] || x[2] - y[2] || (a < b ? -1 : a > b ? 1 : 0);
};

/**
 * A group's versions, each served by at least one of its resources (a group's kinds may be served at different
 * versions).
 */
function groupDoc(group: string, versions: readonly string[]): unknown {
  const list = [...versions].sort(byPriority).map((version) => ({ groupVersion: `${group}/${version}`, version }));
  return { kind: 'APIGroup', apiVersion: 'v1', name: group, versions: list, preferredVersion: list[0] };
}

/** The discovery document for `parts` (path segments), or undefined when the path is not a discovery path. */
export function discovery(parts: string[], types: ResourceType[], serverAddress: string): unknown {
  const core = types.filter((t) => t.group === '');
  const groups = new Map<string, Set<string>>();
  for (const t of types) if (t.group) groups.set(t.group, (groups.get(t.group) ?? new Set()).add(t.version));
  if (parts.length === 1 && parts[0] === 'api') {
    return {
      kind: 'APIVersions',
      versions: ['v1'],
      serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
    };
  }
  if (parts.length === 2 && parts[0] === 'api' && parts[1] === 'v1') return resourceList('v1', core);
  if (parts[0] !== 'apis') return undefined;
  if (parts.length === 1)
    return { kind: 'APIGroupList', apiVersion: 'v1', groups: [...groups].map(([g, v]) => groupDoc(g, [...v])) };
  const versions = groups.get(parts[1]!);
  if (!versions) return undefined;
  if (parts.length === 2) return groupDoc(parts[1]!, [...versions]);
  if (parts.length === 3 && versions.has(parts[2]!))
    return resourceList(
      `${parts[1]}/${parts[2]}`,
      types.filter((t) => t.group === parts[1] && t.version === parts[2]),
    );
  return undefined;
}
