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
      resources.push({ name: `${t.resource}/${sub}`, singularName: '', namespaced: t.namespaced, kind: t.kind, verbs: ['get', 'patch', 'update'] });
    }
  }
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion, resources };
}

function groupDoc(group: string, version: string): unknown {
  const gv = { groupVersion: `${group}/${version}`, version };
  return { kind: 'APIGroup', apiVersion: 'v1', name: group, versions: [gv], preferredVersion: gv };
}

/** The discovery document for `parts` (path segments), or undefined when the path is not a discovery path. */
export function discovery(parts: string[], types: ResourceType[], serverAddress: string): unknown {
  const core = types.filter((t) => t.group === '');
  const groups = [...new Set(types.filter((t) => t.group).map((t) => `${t.group}/${t.version}`))].map((gv) => gv.split('/') as [string, string]);
  if (parts.length === 1 && parts[0] === 'api') {
    return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }] };
  }
  if (parts.length === 2 && parts[0] === 'api' && parts[1] === 'v1') return resourceList('v1', core);
  if (parts[0] !== 'apis') return undefined;
  if (parts.length === 1) return { kind: 'APIGroupList', apiVersion: 'v1', groups: groups.map(([g, v]) => groupDoc(g, v)) };
  const match = groups.find(([g]) => g === parts[1]);
  if (!match) return undefined;
  if (parts.length === 2) return groupDoc(match[0], match[1]);
  if (parts.length === 3 && parts[2] === match[1])
    return resourceList(
      `${match[0]}/${match[1]}`,
      types.filter((t) => t.group === match[0]),
    );
  return undefined;
}
