// The grants of the opt-in RBAC components, read from the manifests an
// operator applies, for the stand-in's users in tests, the demo and the
// benchmarks: deploy/node-labels (patch on Nodes; list, watch, create, patch
// and delete on Kueue's and KAI's topologies) and deploy/node-taints (get and
// patch on Nodes).

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { PolicyRule } from './apiserver/index.ts';

/** The rules of the ClusterRoles of `deploy/<component>/rbac.yaml`. */
function componentRules(component: string): PolicyRule[] {
  return parseAllDocuments(readFileSync(join(import.meta.dirname, `../deploy/${component}/rbac.yaml`), 'utf8'))
    .map((d) => d.toJS() as { kind: string; rules?: PolicyRule[] })
    .filter((o) => o.kind === 'ClusterRole')
    .flatMap((o) => o.rules!);
}

export function nodeLabelOverlayRules(): PolicyRule[] {
  return componentRules('node-labels');
}

export function nodeTaintOverlayRules(): PolicyRule[] {
  return componentRules('node-taints');
}
