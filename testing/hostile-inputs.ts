// Inputs that once made the controller do unbounded work, and the legal ones
// of the largest size it reads, for the security suite (tests/security/) and
// scripts/bench-hostile-inputs.ts: UFM answers and graph documents of nested
// or empty arrays just under their byte caps, a legacy ports answer of the
// size a 10,000-host fabric sends, names laden with terminal escapes, bidi
// overrides and zero-width characters, and a watch of /healthz that measures
// how long each probe waits while they are read.

import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { computerPorts, type UfmPortJson } from './ufm-server.ts';

export const MiB = 1024 * 1024;

/** A UFM ports answer of about `bytes`: one element, arrays nested as deep as the bytes allow (`[[[[…]]]]`). */
export function nestedArrays(bytes: number): string {
  const depth = Math.floor(bytes / 2) - 1;
  return `[${'['.repeat(depth)}${']'.repeat(depth)}]`;
}

/** A UFM ports answer of about `bytes`: one port whose member holds empty arrays, as many as the bytes allow. */
export function emptyArrays(bytes: number): string {
  const count = Math.floor((bytes - 12) / 3);
  return `[{"a":[${'[],'.repeat(count)}[]]}]`;
}

/** A graph document of about `bytes` whose switches nest as deep as the bytes allow. */
export function nestedGraph(bytes: number): string {
  const depth = Math.floor((bytes - 30) / 2);
  return `{"switches":${'['.repeat(depth)}${']'.repeat(depth)},"links":[]}`;
}

/** The same as YAML flow sequences, which only the YAML parser reads. */
export function nestedYamlGraph(bytes: number): string {
  const depth = Math.floor((bytes - 30) / 2);
  return `links: []\nswitches: ${'['.repeat(depth)}${']'.repeat(depth)}\n`;
}

/**
 * Filler a UFM 6 port object carries besides the fields the controller reads (about 1.1 KB a port in all), so a
 * generated answer has the size of a real one.
 */
const PORT_FILLER: Record<string, unknown> = {
  guid: '0x0002c90300a1b2c4',
  external_number: 1,
  module: 'N/A',
  mirror: 'N/A',
  logical_state: 'Active',
  physical_state: 'Link Up',
  severity: 'Info',
  enabled_speed: ['HDR', 'NDR'],
  supported_speed: ['SDR', 'DDR', 'QDR', 'FDR', 'EDR', 'HDR', 'NDR'],
  active_speed: 'NDR',
  enabled_width: ['1x', '2x', '4x'],
  supported_width: ['1x', '2x', '4x'],
  active_width: '4x',
  mtu: 4096,
  lid: 17,
  dname: 'HCA-1/1',
  peer: '0x0002c90300a1f000_12',
  peer_guid: '0x0002c90300a1f000',
  peer_port_dname: '12',
  peer_lid: 3,
  capabilities: ['CM', 'SM', 'Trap', 'VendorClass'],
  system_capabilities: ['Isolate', 'Upgrade', 'Reboot'],
  node_type: 'host',
  system_mirroring_template: false,
  mirroring_template: false,
  temperature: 'N/A',
  cable_info: { identifier: 'OSFP', vendor: 'Mellanox', pn: 'MMA4Z00-NS', sn: 'MT2230FT00000', rev: 'A4' },
  system_id: '0x0002c90300a1b2c4',
  additional_data: { fec_mode: 'RS-FEC', link_down_reason: 'N/A', retransmission_mode: 'no retransmission' },
};

/**
 * A legal legacy ports answer of about `bytes`: Computer ports of hosts `node<i>`, 32 hosts a leaf, each port the
 * size of a real one; and the hosts it names.
 */
export function legalPorts(bytes: number): { body: string; hosts: string[] } {
  const sample = JSON.stringify({ ...computerPorts(['node00000'], ['leaf0000'])[0], ...PORT_FILLER });
  const count = Math.max(1, Math.floor(bytes / (sample.length + 1)));
  const hosts = Array.from({ length: count }, (_, i) => `node${String(i).padStart(5, '0')}`);
  const ports: UfmPortJson[] = hosts.map((h, i) => ({
    ...computerPorts([h], [`leaf${String(Math.floor(i / 32)).padStart(4, '0')}`])[0],
    ...PORT_FILLER,
  }));
  return { body: JSON.stringify(ports), hosts };
}

/**
 * Names as a hostile host would give itself, each with what must never reach a log line, an annotation, a condition
 * or a terminal: ESC (a colour escape), OSC with BEL (a window title), a right-to-left override, a zero-width space,
 * and 300 KB of text.
 */
export const ESCAPE_LADEN_NAMES = {
  esc: 'esc\u001b[31mred',
  osc: 'osc\u001b]0;owned\u0007',
  rlo: 'rlo\u202egnp.exe',
  zwsp: 'zw\u200bsp',
  huge: `huge${'x'.repeat(300 * 1024)}`,
} as const;

/** What no text the controller writes may hold once a hostile name went through it. */
const CONTROLS_BUT_TAB_AND_LF = String.raw`\u0000-\u0008\u000b-\u001f\u007f-\u009f`;
export const UNSAFE_IN_OUTPUT = new RegExp(`[${CONTROLS_BUT_TAB_AND_LF}\u200b\u202e]|x{1000}`);

/** How /healthz answered while it was watched. */
export interface ProbeFigures {
  readonly probes: number;
  /** Probes that failed: no answer within the timeout, or an answer other than 200. */
  readonly failures: number;
  readonly maxMs: number;
  readonly p99Ms: number;
  /**
   * The longest stretch without an answer in time: from the first of a run of failed probes to the end of its last
   * (0 when none failed).
   */
  readonly longestStallMs: number;
}

/**
 * The longest stall a test of the probes allows. Kubelet probes every 10 s with a one-second timeout and restarts
 * after three failures in a row, so a stall of under 3 s fails at most one probe of any probe period of 3 s or more
 * and never restarts the container; the unbounded parses this guards against stalled the probes for minutes. How
 * short the stalls are is measured, and printed, by scripts/bench-hostile-inputs.ts.
 */
export const PROBE_STALL_LIMIT_MS = 3_000;

/**
 * Asks `url` (a /healthz) every `everyMs` with kubelet's default one-second timeout, one probe at a time, from a
 * process of its own (probe-watcher.ts), recording each probe's latency until stopped.
 */
export class ProbeWatch {
  private readonly child: ChildProcess;
  private output = '';
  private readonly exited: Promise<void>;

  constructor(
    url: string,
    everyMs = 50,
    private readonly timeoutMs = 1_000,
  ) {
    const script = join(import.meta.dirname, 'probe-watcher.ts');
    this.child = spawn(process.execPath, [script, url, String(everyMs), String(timeoutMs)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    this.child.stdout!.on('data', (d: Buffer) => (this.output += d.toString()));
    this.exited = new Promise((resolve) => this.child.on('close', () => resolve()));
  }

  /** Stops asking; the figures of the probes sent before `until` (Date.now() time; all by default). */
  async stop(until = Number.POSITIVE_INFINITY): Promise<ProbeFigures> {
    this.child.kill('SIGTERM');
    await this.exited;
    const probes = this.output
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as { sentAt: number; ms: number; status: number })
      .filter((p) => p.sentAt < until);
    const sorted = probes.map((p) => p.ms).sort((a, b) => a - b);
    const failed = (p: { ms: number; status: number }) => p.status !== 200 || p.ms >= this.timeoutMs;
    let longestStallMs = 0;
    let stallStart: number | undefined;
    for (const p of [...probes].sort((a, b) => a.sentAt - b.sentAt)) {
      if (!failed(p)) {
        stallStart = undefined;
        continue;
      }
      stallStart ??= p.sentAt;
      longestStallMs = Math.max(longestStallMs, p.sentAt + p.ms - stallStart);
    }
    return {
      probes: probes.length,
      failures: probes.filter(failed).length,
      maxMs: Math.round(sorted.at(-1) ?? 0),
      p99Ms: Math.round(sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))] ?? 0),
      longestStallMs: Math.round(longestStallMs),
    };
  }
}

/** The wall time (Date.now()) of a klog line's header, `I1206 07:23:15.599000`, in this machine's time zone. */
export function klogTime(line: string): number {
  const m = /^[IWEF](\d\d)(\d\d) (\d\d):(\d\d):(\d\d)\.(\d{3})/.exec(line);
  if (!m) throw new Error(`not a klog line: ${line.slice(0, 40)}`);
  const [month, day, h, min, sec, ms] = m.slice(1).map(Number) as [number, number, number, number, number, number];
  return new Date(new Date().getFullYear(), month - 1, day, h, min, sec, ms).getTime();
}
