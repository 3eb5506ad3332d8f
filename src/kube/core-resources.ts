// The core (v1) resources the controller and its subcommands read or write,
// named once so the controller, `plan` and the taint client address the same
// thing. Events have theirs beside the recorder (events.ts).

import type { ResourceDescriptor } from './resource.ts';

export const NODES: ResourceDescriptor = { group: '', version: 'v1', resource: 'nodes', namespaced: false };
export const CONFIG_MAPS: ResourceDescriptor = { group: '', version: 'v1', resource: 'configmaps', namespaced: true };
export const SECRETS: ResourceDescriptor = { group: '', version: 'v1', resource: 'secrets', namespaced: true };
