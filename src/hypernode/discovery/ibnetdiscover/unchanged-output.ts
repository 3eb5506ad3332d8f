// A fabric's last tree, kept with what it was built from, so that a poll whose
// output is byte for byte the last one's (a fabric that did not change: nearly
// every poll) publishes that tree again instead of grouping 10^5 cables anew.
// The tree is a function of the output, the configuration (fixed for a
// discoverer), the Node lookups its hosts made, and the link memory; so it
// stands when the output's digest is the same, every lookup still answers the
// same (a Node added, deleted or relabelled rebuilds it), and the link memory
// holds no link the last build was missing (ib: FabricMemory.unchanged).

import type { HostMapper } from '../fabric/host-mapping.ts';

/** The Node lookups one build made, each answer recorded, for telling whether they still hold. */
export class NodeLookups {
  private readonly hosts = new Map<string, string | undefined>();
  private readonly names = new Map<string, boolean>();

  constructor(
    private readonly mapHost: HostMapper,
    private readonly isNodeNow: (name: string) => boolean,
  ) {}

  readonly nodeOf: HostMapper = (host) => {
    const node = this.mapHost(host);
    this.hosts.set(host, node);
    return node;
  };

  readonly isNode = (name: string): boolean => {
    const is = this.isNodeNow(name);
    this.names.set(name, is);
    return is;
  };

  /** Whether `mapHost` and `isNode` (over the Nodes now) answer every lookup made as it was answered. */
  stillHold(mapHost: HostMapper, isNode: (name: string) => boolean): boolean {
    for (const [host, node] of this.hosts) if (mapHost(host) !== node) return false;
    for (const [name, is] of this.names) if (isNode(name) !== is) return false;
    return true;
  }
}

interface LastBuild<T> {
  readonly digest: string;
  readonly lookups: NodeLookups;
  readonly build: T;
}

/** Per fabric, the last good build and what it was built from. */
export class LastBuilds<T> {
  private readonly byFabric = new Map<string, LastBuild<T>>();

  /** The fabric's last build, when its output had `digest` and its lookups still hold. */
  unchanged(fabric: string, digest: string, mapHost: HostMapper, isNode: (name: string) => boolean): T | undefined {
    const last = this.byFabric.get(fabric);
    return last?.digest === digest && last.lookups.stillHold(mapHost, isNode) ? last.build : undefined;
  }

  set(fabric: string, digest: string, lookups: NodeLookups, build: T): void {
    this.byFabric.set(fabric, { digest, lookups, build });
  }

  /** A build that failed, or changed the link memory without publishing, leaves nothing to stand on. */
  forget(fabric: string): void {
    this.byFabric.delete(fabric);
  }
}
