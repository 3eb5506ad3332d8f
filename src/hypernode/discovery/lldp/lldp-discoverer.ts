// The lldp source (`source: lldp`). Ethernet/RoCE fabrics have no fabric
// manager to ask, but every switch serves its LLDP neighbours over SNMP: this
// source walks them, makes each fabric's graph (lldp-fabric-graph.ts) and hands it to
// the fabric layer, as every fabric source does. No Go counterpart: Volcano
// lists RoCE discovery as unsupported. A switch that stops answering never
// deletes a HyperNode: its last table stands in for a while, then its fabric
// keeps what it has (docs/configuration.md, `lldp`).

import type { PollRun } from '../poll-loop.ts';
import { PollingDiscoverer } from '../polling-discoverer.ts';
import { errorMessage, wrapError } from '../../../util/error-message.ts';
import { compareBytes } from '../../../util/compare-bytes.ts';
import { mapBounded } from '../../../util/slots.ts';
import type { DiscovererFactory, DiscovererOptions, DiscoveryEntry, Snapshot } from '../../model/contracts.ts';
import { CLEARTEXT_CREDENTIALS, CREDENTIALS_WITHHELD, SWITCH_UNREACHABLE } from '../../event-reasons.ts';
import { LLDP_FABRIC_LABEL, LLDP_SOURCE } from '../../model/hypernode-labels.ts';
import { FabricRound } from '../fabric/fabric-round.ts';
import { listProblems, MiscablingReport } from '../fabric/miscabling-report.ts';
import { LinkMemory } from '../fabric/link-memory.ts';
import { runInSlices, type SlicedWork } from '../../../util/sliced-work.ts';
import type { HostIndex } from '../fabric/host-mapping.ts';
import { UnmappedHostReport } from '../fabric/unmapped-hosts.ts';
import { inNetworks } from '../../../util/ip-networks.ts';
import type { SecretGrant } from '../remote/secret-grant.ts';
import { LastReported } from '../../../util/reported-once.ts';
import { parseLldpConfig, SNMP_PORT, type LldpConfig, type LldpCrawl, type LldpFabric } from './lldp-config.ts';
import { describeChassis } from './lldp-ids.ts';
import { nodeByMac } from './host-macs.ts';
import { lldpFabricGraph, switchId, type LldpIdentity, type PolledSwitch } from './lldp-fabric-graph.ts';
import { parseLldpTable, type LldpTable, type MibVarbind } from './lldp-mib.ts';
import { readSnmpCredentials, type GrantedSnmpCredentials } from './snmp-credentials.ts';
import { formatAddress, snmpWalker, type SwitchAddress, type SwitchWalker } from './snmp-walker.ts';

/** A whole walk of one switch may take this many request timeouts (with their retries) before it is abandoned. */
export const WALK_DEADLINE_REQUESTS = 20;

/** Knobs tests, benchmarks and offline previews set; production uses the defaults. */
export interface LldpTuning {
  retryBaseMs?: number;
  /** Replaces SNMP: a fabric's switches are these captured walks; no Secret is read and no switch is contacted. */
  captured?: (fabric: string) => Promise<readonly CapturedWalk[]>;
  /**
   * Replaces the SNMP walker (no Secret is read, so no credential exists to
   * withhold: a crawl walks every neighbour it would otherwise ask the
   * Secret about); the switch list and its failures are handled as with SNMP.
   */
  walker?: SwitchWalker;
}

/** One switch's walk read from somewhere else than SNMP; `address` names it in reports. */
export interface CapturedWalk {
  readonly address: string;
  readonly varbinds: readonly MibVarbind[];
}

interface SwitchState {
  readonly table: LldpTable;
  readonly at: number;
}

/** One switch's walk this poll, by the address it was walked at. */
interface PolledWalk {
  readonly address: string;
  readonly result: WalkResult;
  /** Learned from a neighbour's LLDP by the crawl, not listed in the configuration. */
  readonly learned?: true;
}

/** A walker and, when SNMP credentials were read, what their Secret lets them reach. */
interface FabricWalker {
  readonly walk: SwitchWalker;
  readonly grant?: SecretGrant;
}

/** A neighbour the crawl would walk but the Secret does not name. */
interface Withheld {
  readonly host: string;
  /** Who it says it is and where it was seen, for the report. */
  readonly seen: string;
}

/** A switch's walk this run: a table, or why there is none. */
type WalkResult = { readonly table: LldpTable } | { readonly error: string; readonly garbage: boolean };

class LldpDiscoverer extends PollingDiscoverer {
  private readonly unmapped: UnmappedHostReport;
  /** Links of the last good poll, kept through the grace period (fabric health). */
  private readonly memory: LinkMemory;
  /** Each fabric's last published HyperNodes, kept while it fails. */
  private readonly fabricRound: FabricRound;
  /** Per fabric, per switch address: its last good table. */
  private readonly lastTables = new Map<string, Map<string, SwitchState>>();
  /** Switches currently reported as silent (fabric/address), so each is reported once per episode. */
  private readonly silent = new Set<string>();
  /** Per fabric, the crawled neighbours last reported as withheld from the credentials. */
  private readonly withheld = new LastReported();
  /**
   * Per fabric, the switches whose rows lacked a chassis id at the last poll (their gauge goes back to 0 when fixed).
   */
  private readonly incompleteSwitches = new Map<string, Set<string>>();
  private readonly miscabling: MiscablingReport;

  constructor(
    entry: DiscoveryEntry,
    opts: DiscovererOptions,
    private readonly config: LldpConfig,
    private readonly tuning: LldpTuning,
  ) {
    super(entry, opts, {
      source: LLDP_SOURCE,
      title: 'LLDP',
      stoppedMessage: 'LLDP fabric discovery stopped, closing output channel',
      retryBaseMs: tuning.retryBaseMs,
      nvlink: config.nvlink,
    });
    this.memory = new LinkMemory(LLDP_SOURCE, opts);
    this.miscabling = new MiscablingReport(
      opts.problems,
      'neighbour(s), link(s) or switch table(s) join no group and merge no domains',
    );
    this.unmapped = new UnmappedHostReport(
      LLDP_SOURCE,
      opts.problems,
      opts.metrics,
      "add a switch to the fabric's switches; map a host by config.hostMapping, or by its chassis or port MAC in config.hostMacs",
    );
    this.fabricRound = new FabricRound({
      nodes: opts.nodes,
      hostMapping: config.hostMapping,
      hyperNodes: opts.hyperNodes,
      problems: opts.problems,
      source: LLDP_SOURCE,
      fabricLabel: LLDP_FABRIC_LABEL,
      kind: 'LLDP',
      nvlink: this.nvlink,
    });
  }

  protected announce(): void {
    if (this.config.version === '2c' && !this.tuning.captured && !this.tuning.walker) {
      this.opts.problems.warning(
        CLEARTEXT_CREDENTIALS.reason,
        `WARNING: SNMPv2c sends the community in clear text on every poll of every switch; use config.snmp.version "3" (authPriv)`,
      );
    }
    for (const f of this.config.fabrics) {
      this.logger.info('Starting LLDP fabric discovery', {
        fabric: f.name,
        switches: f.switches.length,
        seeds: f.crawl?.seeds.length ?? 0,
        snmp: this.config.version,
        interval: `${this.intervalMs}ms`,
      });
    }
  }

  /** Every fabric in turn; a failed fabric contributes its last HyperNodes. Ok when all succeeded. */
  protected async runOnce(): Promise<PollRun> {
    return this.fabricRound.run(
      this.config.fabrics.map((f) => f.name),
      (i, hosts) => this.discoverFabric(this.config.fabrics[i]!, hosts),
      this.stopping.signal,
    );
  }

  protected override rebuild(): SlicedWork<Snapshot | undefined> {
    return this.fabricRound.rebuild();
  }

  /** The fabric's walker; its Secret must name every listed switch and seed. */
  private async walker(fabric: LldpFabric): Promise<FabricWalker> {
    if (this.tuning.walker) return { walk: this.tuning.walker };
    const listed = [...fabric.switches, ...(fabric.crawl?.seeds ?? [])].map((a) => a.host);
    let granted: GrantedSnmpCredentials;
    try {
      granted = await readSnmpCredentials(
        this.opts.secrets,
        fabric.secretRef!,
        this.config.version,
        listed,
        this.stopping.signal,
      );
    } catch (err) {
      throw wrapError('failed to get SNMP credentials from secret', err);
    }
    return { walk: snmpWalker(granted.credentials, this.config.limits), grant: granted.grant };
  }

  /** Every switch of the fabric, walked (at most `concurrency` at once) or read from its capture. */
  private async poll(fabric: LldpFabric, identity: LldpIdentity): Promise<PolledWalk[]> {
    if (this.tuning.captured)
      return (await this.tuning.captured(fabric.name)).map((c) => ({ address: c.address, result: parsed(c.varbinds) }));
    const { walk, grant } = await this.walker(fabric);
    const walkAll = (targets: readonly SwitchAddress[]) =>
      mapBounded(targets, this.config.concurrency, async (target) => ({
        address: formatAddress(target),
        result: await this.walkOne(walk, target),
      }));
    return fabric.crawl ? this.crawl(fabric, fabric.crawl, identity, walkAll, grant) : walkAll(fabric.switches);
  }

  /**
   * Breadth-first from the listed switches and the seeds: each walked switch's
   * neighbours that are bridges or routers and no Node are walked next at their first
   * management address in the allow-list (a silent switch's last table stands
   * in), when the fabric's Secret names that address too: anything cabled to a
   * switch can announce any capability and address, so only the Secret's
   * owner can say an address is a switch's (docs/security.md §3). The others
   * are reported, not walked. Finding more than maxSwitches fails the fabric:
   * part of a fabric would delete the rest's HyperNodes.
   */
  private async crawl(
    fabric: LldpFabric,
    crawl: LldpCrawl,
    identity: LldpIdentity,
    walkAll: (targets: readonly SwitchAddress[]) => Promise<PolledWalk[]>,
    grant: SecretGrant | undefined,
  ): Promise<PolledWalk[]> {
    const seen = new Set<string>();
    let frontier: SwitchAddress[] = [];
    const visit = (target: SwitchAddress): boolean => {
      const key = formatAddress(target);
      if (seen.has(key)) return true;
      if (seen.size >= crawl.maxSwitches) return false;
      seen.add(key);
      frontier.push(target);
      return true;
    };
    for (const target of [...fabric.switches, ...crawl.seeds]) visit(target);
    const listed = new Set(seen);
    const results: PolledWalk[] = [];
    const beyond = new Set<string>();
    const withheld = new Map<string, Withheld>();
    while (frontier.length > 0) {
      const walked = await walkAll(frontier);
      frontier = [];
      for (const w of walked) {
        results.push(listed.has(w.address) ? w : { ...w, learned: true });
        const table = 'table' in w.result ? w.result.table : this.lastTables.get(fabric.name)?.get(w.address)?.table;
        for (const n of table?.neighbours ?? []) {
          // Kubernetes nodes announce Router or Bridge too: a neighbour that is a Node is never walked.
          const host =
            n.networkDevice && identity.nodeOf(n) === undefined
              ? n.managementAddresses.find((a) => inNetworks(a, crawl.allow))
              : undefined;
          if (host === undefined || seen.has(formatAddress({ host, port: SNMP_PORT }))) continue;
          if (grant && !grant.allowsHost(host)) {
            const name = n.sysName
              ? JSON.stringify(n.sysName)
              : n.chassisKey
                ? describeChassis(n.chassisKey)
                : 'no name';
            withheld.set(host, { host, seen: `${host} (${name}, seen by ${table!.sysName || w.address})` });
            continue;
          }
          if (!visit({ host, port: SNMP_PORT })) beyond.add(host);
        }
      }
    }
    if (grant) this.reportWithheld(fabric, grant, [...withheld.values()]);
    if (beyond.size > 0) {
      throw new Error(
        `the crawl from config.seeds found more than maxSwitches (${crawl.maxSwitches}) switches; ${beyond.size} more management addresses were not walked, so the fabric publishes nothing new: raise maxSwitches or narrow allow`,
      );
    }
    return results;
  }

  /** Names the neighbours the Secret kept the credentials from, once per distinct list. */
  private reportWithheld(fabric: LldpFabric, grant: SecretGrant, withheld: readonly Withheld[]): void {
    const sorted = [...withheld].sort((a, b) => compareBytes(a.host, b.host));
    if (!this.withheld.isNew(sorted.map((w) => w.host).join(','), fabric.name) || sorted.length === 0) return;
    this.opts.problems.warning(
      CREDENTIALS_WITHHELD.reason,
      `fabric ${fabric.name}: ${sorted.length} neighbour(s) learned from LLDP announce a management address inside config.allow that the fabric's Secret does not name, so they are not walked (its credentials stay with the switches it names): ${listProblems(sorted.map((w) => w.seen))}. ${grant.hostsRefusal(sorted.map((w) => w.host))}`,
    );
  }

  private async walkOne(walk: SwitchWalker, target: SwitchAddress): Promise<WalkResult> {
    const { limits } = this.config;
    const deadline = AbortSignal.timeout(WALK_DEADLINE_REQUESTS * limits.timeoutMs * (limits.retries + 1));
    let varbinds: Awaited<ReturnType<SwitchWalker>>;
    try {
      varbinds = await walk(target, AbortSignal.any([this.stopping.signal, deadline]));
    } catch (err) {
      return {
        error:
          deadline.aborted && !this.stopping.signal.aborted
            ? `the walk took longer than ${WALK_DEADLINE_REQUESTS} request timeouts`
            : errorMessage(err),
        garbage: false,
      };
    }
    return parsed(varbinds);
  }

  private async discoverFabric(fabric: LldpFabric, hosts: HostIndex): Promise<Snapshot> {
    const started = this.opts.clock.now();
    const identity = this.identity(hosts);
    const results = await this.poll(fabric, identity);
    if (this.stopping.signal.aborted) throw new Error('stopped');
    const now = this.opts.clock.now();
    let last = this.lastTables.get(fabric.name);
    if (!last) this.lastTables.set(fabric.name, (last = new Map()));
    const polled: PolledSwitch[] = [];
    const garbage: Failure[] = [];
    const lost: Failure[] = [];
    /** The last tables of the lost switches, to mark their HyperNodes (fabric health). */
    const lostTables: LldpTable[] = [];
    const newlySilent: Failure[] = [];
    /** Crawled neighbours that never answered with a table: left out, so a host posing as one cannot fail the fabric. */
    const newlyMissing: Failure[] = [];
    let missing = 0;
    for (const { address, result, learned } of results) {
      const key = `${fabric.name}/${address}`;
      if ('table' in result) {
        last.set(address, { table: result.table, at: now });
        polled.push({ address, table: result.table });
        if (this.silent.delete(key)) this.logger.info('Switch answers again', { fabric: fabric.name, switch: address });
        continue;
      }
      if (learned && !last.has(address)) {
        missing++;
        if (!this.silent.has(key)) {
          this.silent.add(key);
          newlyMissing.push({ who: address, error: result.error });
        }
        continue;
      }
      if (result.garbage) {
        garbage.push({ who: address, error: result.error });
        continue;
      }
      const kept = last.get(address);
      if (kept && now - kept.at <= this.config.staleAfterMs) {
        polled.push({ address, table: kept.table });
        if (!this.silent.has(key)) {
          this.silent.add(key);
          newlySilent.push({
            who: `${address} (${kept.table.sysName || describeChassis(kept.table.chassisKey)}, table from ${Math.round((now - kept.at) / 1000)}s ago)`,
            error: result.error,
          });
        }
        continue;
      }
      lost.push({
        who: kept
          ? `${address} (${kept.table.sysName || describeChassis(kept.table.chassisKey)}, table older than config.staleAfter)`
          : address,
        error: result.error,
      });
      if (kept) lostTables.push(kept.table);
    }
    if (newlySilent.length > 0) {
      // One Event per poll naming every switch that fell silent in it: a fabric-wide outage is one Event, not hundreds.
      this.opts.problems.warning(
        SWITCH_UNREACHABLE.reason,
        `fabric ${fabric.name}: ${newlySilent.length} switch(es) did not answer; each one's last LLDP table stands in for it for up to config.staleAfter (${Math.round(this.config.staleAfterMs / 1000)}s): ${byError(newlySilent)}`,
      );
    }
    if (newlyMissing.length > 0) {
      this.opts.problems.warning(
        SWITCH_UNREACHABLE.reason,
        `fabric ${fabric.name}: ${newlyMissing.length} neighbour(s) the crawl found from LLDP did not answer with an LLDP-MIB and have never answered since the source started; they are left out of the fabric (list a switch in config.switches to have its silence hold the fabric instead): ${byError(newlyMissing)}`,
      );
    }
    const answered = results.filter((r) => 'table' in r.result).length;
    const poll = {
      answered,
      stale: polled.length - answered,
      unreachable: garbage.length + lost.length + missing,
      links: 0,
      hosts: 0,
      durationSeconds: (now - started) / 1000,
    };
    this.logger.v(3).info('Polled LLDP fabric', {
      fabric: fabric.name,
      switches: results.length,
      answered,
      stale: poll.stale,
      unreachable: poll.unreachable,
      durationMs: now - started,
    });
    if (poll.unreachable > 0) this.opts.metrics?.fabricPolled(LLDP_SOURCE, fabric.name, poll);
    if (garbage.length > 0)
      throw new Error(`${garbage.length} switch walk(s) are not a usable LLDP-MIB: ${byError(garbage)}`);
    if (lost.length > 0) {
      const silent = lostTables.map((t) => ({ id: switchId(t), name: t.sysName || switchId(t) }));
      this.memory.silent(fabric.name, silent, 'not answering SNMP for longer than config.staleAfter');
      throw new Error(
        `${lost.length} of ${results.length} switches did not answer and have no recent table: ${byError(lost)}`,
      );
    }
    const { graph, problems, unidentified } = lldpFabricGraph(polled, identity);
    // Grouped in slices (sliced-work.ts): the probes and the Lease are served meanwhile.
    const steps = this.memory.hyperNodesSteps({
      graph,
      fabric: fabric.name,
      source: LLDP_SOURCE,
      labels: { [LLDP_FABRIC_LABEL]: fabric.name },
      // The graph's hosts are already Node names (lldp-fabric-graph.ts identifies them).
      mapHost: (node) => node,
      minSharedHosts: this.config.minSharedHosts,
      logger: this.logger,
    });
    const tree = await runInSlices(steps, this.stopping.signal);
    // The duration of a fabric that yields HyperNodes covers the walks and the snapshot built from them.
    const durationSeconds = (this.opts.clock.now() - started) / 1000;
    this.opts.metrics?.fabricPolled(LLDP_SOURCE, fabric.name, {
      ...poll,
      links: graph.links.length,
      hosts: graph.hosts.length,
      durationSeconds,
    });
    const incomplete = polled.filter((p) => p.table.incompleteRows > 0);
    this.countIncompleteRows(fabric.name, incomplete);
    this.miscabling.report(fabric.name, [
      ...incomplete.map(incompleteRowsProblem),
      ...problems,
      ...tree.problems.map((p) => p.message),
    ]);
    this.unmapped.reportUnmapped(
      fabric.name,
      unidentified,
      'LLDP neighbours that are neither a polled switch nor a Node are left out',
    );
    if (graph.hosts.length === 0) {
      const rows = polled.reduce((a, p) => a + p.table.neighbours.length, 0);
      throw new Error(
        unidentified.length > 0
          ? `no neighbour of the fabric's ${graph.switches.length} switches is a Kubernetes Node (${unidentified.length} of ${rows} neighbours are neither a polled switch nor a Node, named in the FabricMiscabled warning): check config.hostMapping, or map chassis or port MACs with config.hostMacs`
          : `no switch of the fabric reports a neighbour other than the fabric's switches (${graph.switches.length} switches, ${rows} neighbours): do the hosts run lldpd or enable NIC LLDP?`,
      );
    }
    if (tree.snapshot.length === 0)
      throw new Error(
        `none of the ${tree.hostCount} hosts the switches report is a Kubernetes Node; check config.hostMapping`,
      );
    return tree.snapshot;
  }

  /**
   * A neighbour's Node: its chassis or port MAC in config.hostMacs (when that Node exists), else its system name
   * through config.hostMapping.
   */
  private identity({ mapHost, isNode }: HostIndex): LldpIdentity {
    const { hostMacs, managementPorts } = this.config;
    return {
      managementPort: (names) =>
        managementPorts !== undefined && names.some((name) => name !== '' && managementPorts.matches(name)),
      nodeOf: (n) => {
        const byMac = nodeByMac(hostMacs, n);
        if (byMac !== undefined && isNode(byMac)) return byMac;
        return n.sysName === '' ? undefined : mapHost(n.sysName);
      },
    };
  }

  /**
   * Sets the incomplete-row gauge of the switches that have such rows, and
   * back to 0 for those that had some at the last poll: a series per switch
   * only where there is something to see, not one per switch of the fabric.
   */
  private countIncompleteRows(fabric: string, incomplete: readonly PolledSwitch[]): void {
    const before = this.incompleteSwitches.get(fabric) ?? new Set<string>();
    const now = new Set(incomplete.map((p) => p.address));
    for (const address of before) if (!now.has(address)) this.opts.metrics?.incompleteLldpRows?.(fabric, address, 0);
    for (const p of incomplete) this.opts.metrics?.incompleteLldpRows?.(fabric, p.address, p.table.incompleteRows);
    this.incompleteSwitches.set(fabric, now);
  }
}

/** Names the switch whose walk holds rows that cannot say who the neighbour is by chassis. */
function incompleteRowsProblem(p: PolledSwitch): string {
  return `switch ${p.table.sysName || describeChassis(p.table.chassisKey)} (${p.address}): ${p.table.incompleteRows} of ${p.table.neighbours.length} LLDP rows lack lldpRemChassisIdSubtype/lldpRemChassisId, so those neighbours are identified by system name only (the agent omits the column; serve it if it can)`;
}

/** One switch that failed this poll, and why. */
interface Failure {
  readonly who: string;
  readonly error: string;
}

/** A walk's table, or why it is garbage. */
function parsed(varbinds: readonly MibVarbind[]): WalkResult {
  try {
    return { table: parseLldpTable(varbinds) };
  } catch (err) {
    return { error: errorMessage(err), garbage: true };
  }
}

/** Failures grouped by their error, so a wrong key on every switch reads as one cause with the switches it hit. */
function byError(failures: readonly Failure[]): string {
  const groups = new Map<string, string[]>();
  for (const f of failures) {
    const who = groups.get(f.error);
    if (who) who.push(f.who);
    else groups.set(f.error, [f.who]);
  }
  return [...groups].map(([error, who]) => `${error}: ${listProblems(who)}`).join('; ');
}

/** Builds LLDP discoverers; `tuning` replaces SNMP (captures, tests) or shortens retries. */
export function createLldpDiscovererFactory(tuning: LldpTuning = {}): DiscovererFactory {
  return async (entry, opts) => {
    const config = parseLldpConfig(entry);
    opts.logger.with({ source: LLDP_SOURCE }).info('LLDP discoverer initialized', {
      fabrics: config.fabrics.map((f) => f.name).join(','),
      snmp: config.version,
    });
    return new LldpDiscoverer(entry, opts, config, tuning);
  };
}

export const lldpDiscovererFactory: DiscovererFactory = createLldpDiscovererFactory();
