// A fabric's last tree, kept with what it was built from, so that a poll whose
// output is byte for byte the last one's (a fabric that did not change: nearly
// every poll) publishes that tree again instead of grouping 10^5 cables anew.
// The tree is a function of the output, the configuration (fixed for a
// discoverer), the Node lookups its hosts made, and the link memory; so it
// stands when the output's digest is the same, every lookup still answers the
// same (a Node added, deleted or relabelled rebuilds it), and the link memory
// holds no link the last build was missing (ib: LinkMemory.unchanged).

import type { HostIndex, HostMapper } from '../fabric/host-mapping.ts';

/** A round's host index that records each answer it gives, for telling whether they still hold. */
export class NodeLookups implements HostIndex {
  private readonly hosts = new Map<string, string | undefined>();
  private readonly names = new Map<string, boolean>();

  constructor(private readonly index: HostIndex) {}

  readonly mapHost: HostMapper = (host) => {
    const node = this.index.mapHost(host);
    this.hosts.set(host, node);
    return node;
  };

  readonly isNode = (name: string): boolean => {
    const is = this.index.isNode(name);
    this.names.set(name, is);
    return is;
  };

  /** Whether a later round's index answers every lookup made as it was answered. */
  stillHold(now: HostIndex): boolean {
    for (const [host, node] of this.hosts) if (now.mapHost(host) !== node) return false;
    for (const [name, is] of this.names) if (now.isNode(name) !== is) return false;
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
  unchanged(fabric: string, digest: string, hosts: HostIndex): T | undefined {
    const last = this.byFabric.get(fabric);
    return last?.digest === digest && last.lookups.stillHold(hosts) ? last.build : undefined;
  }

  set(fabric: string, digest: string, lookups: NodeLookups, build: T): void {
    this.byFabric.set(fabric, { digest, lookups, build });
  }

  /** A build that failed, or changed the link memory without publishing, leaves nothing to stand on. */
  forget(fabric: string): void {
    this.byFabric.delete(fabric);
  }
}
