// The grants of the opt-in deploy/node-labels component (patch on Nodes; list,
// watch, create, patch and delete on Kueue's and KAI's topologies), read from the manifest
// an operator applies, for the stand-in's users in tests and the demo.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { PolicyRule } from './apiserver/index.ts';

export function nodeLabelOverlayRules(): PolicyRule[] {
  return parseAllDocuments(readFileSync(join(import.meta.dirname, '../deploy/node-labels/rbac.yaml'), 'utf8'))
    .map((d) => d.toJS() as { kind: string; rules?: PolicyRule[] })
    .filter((o) => o.kind === 'ClusterRole')
    .flatMap((o) => o.rules!);
}
