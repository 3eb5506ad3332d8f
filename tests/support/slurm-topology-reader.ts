// Reads Slurm topology files back for the tests, checking the format's rules
// on the way: hostlist expressions (`n[01-03,7],m`), topology.conf lines of
// `Key=Value` pairs with the tree plugin's or the block plugin's keys, and
// topology.yaml's list of topologies with exactly one plugin each. Written
// from the Slurm manual pages, not from Slurm's parser.

import { parse as parseYaml } from 'yaml';

export interface ReadTopology {
  /** Switch name → its child switches and nodes, expanded and sorted. */
  readonly switches: Map<string, { switches: string[]; nodes: string[] }>;
  /** Block name → its nodes, expanded and sorted, in file order (the order Slurm joins blocks in). */
  readonly blocks: Map<string, string[]>;
  /** BlockSizes / block_sizes; empty when not written. */
  readonly blockSizes: number[];
}

/** Top-level commas only: `a[1,2],b` → `a[1,2]`, `b`. */
function splitTopLevel(expr: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < expr.length; i++) {
    const c = expr[i];
    if (c === '[') depth++;
    else if (c === ']') depth--;
    else if (c === ',' && depth === 0) {
      out.push(expr.slice(start, i));
      start = i + 1;
    }
    if (depth < 0 || depth > 1) throw new Error(`unbalanced or nested brackets in ${JSON.stringify(expr)}`);
  }
  if (depth !== 0) throw new Error(`unbalanced brackets in ${JSON.stringify(expr)}`);
  out.push(expr.slice(start));
  return out;
}

/** Every name a hostlist expression stands for, in order; throws on anything malformed. */
export function expandHostlist(expr: string): string[] {
  const names: string[] = [];
  for (const item of splitTopLevel(expr)) {
    if (item === '' || /\s/.test(item)) throw new Error(`empty or blank item in hostlist ${JSON.stringify(expr)}`);
    const m = /^([^[\]]*)\[([^\]]+)\]([^[\]]*)$/.exec(item);
    if (!m) {
      if (/[[\]]/.test(item)) throw new Error(`malformed hostlist item ${JSON.stringify(item)}`);
      names.push(item);
      continue;
    }
    const [, prefix, body, suffix] = m;
    for (const range of body!.split(',')) {
      const r = /^(\d+)(?:-(\d+))?$/.exec(range);
      if (!r) throw new Error(`malformed range ${JSON.stringify(range)} in ${JSON.stringify(item)}`);
      const lo = Number(r[1]);
      const hi = r[2] === undefined ? lo : Number(r[2]);
      if (hi < lo) throw new Error(`descending range ${range}`);
      for (let n = lo; n <= hi; n++) names.push(`${prefix}${String(n).padStart(r[1]!.length, '0')}${suffix}`);
    }
  }
  return names;
}

const sorted = (names: string[]) => [...names].sort();

function unique(map: Map<string, unknown>, name: string, what: string): void {
  if (map.has(name)) throw new Error(`${what} ${name} is defined twice`);
}

/**
 * The block plugin's rules on BlockSizes (topology.conf(5)): whole numbers,
 * each the previous one times a power of two, and no block smaller than the
 * first (the planning base block size).
 */
function checkBlockSizes(sizes: number[], blocks: Map<string, string[]>): void {
  if (sizes.length === 0) return;
  for (const s of sizes)
    if (!Number.isSafeInteger(s) || s < 1)
      throw new Error(`BlockSizes ${sizes.join(',')}: ${s} is not a positive whole number`);
  for (let i = 1; i < sizes.length; i++) {
    const ratio = sizes[i]! / sizes[i - 1]!;
    if (!Number.isInteger(ratio) || ratio < 2 || (ratio & (ratio - 1)) !== 0)
      throw new Error(`BlockSizes ${sizes.join(',')}: ${sizes[i]} is not a power of two times ${sizes[i - 1]}`);
  }
  for (const [name, nodes] of blocks)
    if (nodes.length < sizes[0]!)
      throw new Error(`block ${name} has ${nodes.length} nodes, fewer than the base block size ${sizes[0]}`);
}

/** topology.conf of either plugin; a file mixing SwitchName and BlockName lines is refused. */
export function readTopologyConf(text: string): ReadTopology {
  const switches = new Map<string, { switches: string[]; nodes: string[] }>();
  const blocks = new Map<string, string[]>();
  let blockSizes: number[] | undefined;
  for (const raw of text.split('\n')) {
    const line = raw.replace(/#.*$/, '').trim();
    if (line === '') continue;
    const pairs = line.split(/\s+/).map((tok) => {
      const eq = tok.indexOf('=');
      if (eq <= 0 || eq === tok.length - 1)
        throw new Error(`not Key=Value: ${JSON.stringify(tok)} in ${JSON.stringify(line)}`);
      return [tok.slice(0, eq).toLowerCase(), tok.slice(eq + 1)] as const;
    });
    const fields = new Map(pairs);
    if (fields.size !== pairs.length) throw new Error(`a key repeats in ${JSON.stringify(line)}`);
    const [first] = pairs[0]!;
    if (first === 'switchname') {
      for (const k of fields.keys())
        if (!['switchname', 'switches', 'nodes', 'linkspeed'].includes(k))
          throw new Error(`unknown key ${k} on a switch line`);
      const name = fields.get('switchname')!;
      unique(switches, name, 'switch');
      switches.set(name, {
        switches: sorted(fields.has('switches') ? expandHostlist(fields.get('switches')!) : []),
        nodes: sorted(fields.has('nodes') ? expandHostlist(fields.get('nodes')!) : []),
      });
    } else if (first === 'blockname') {
      for (const k of fields.keys())
        if (!['blockname', 'nodes'].includes(k)) throw new Error(`unknown key ${k} on a block line`);
      const name = fields.get('blockname')!;
      unique(blocks, name, 'block');
      if (!fields.has('nodes')) throw new Error(`block ${name} has no Nodes=`);
      blocks.set(name, sorted(expandHostlist(fields.get('nodes')!)));
    } else if (first === 'blocksizes') {
      if (fields.size !== 1 || blockSizes !== undefined)
        throw new Error(`BlockSizes must stand alone, once: ${JSON.stringify(line)}`);
      blockSizes = fields.get('blocksizes')!.split(',').map(Number);
    } else {
      throw new Error(`a line must start with SwitchName=, BlockName= or BlockSizes=: ${JSON.stringify(line)}`);
    }
  }
  if (switches.size > 0 && (blocks.size > 0 || blockSizes))
    throw new Error('one topology.conf holds the lines of one plugin only');
  checkBlockSizes(blockSizes ?? [], blocks);
  return { switches, blocks, blockSizes: blockSizes ?? [] };
}

/** topology.yaml: the switches of its tree topologies and the blocks of its block topologies. */
export function readTopologyYaml(
  text: string,
): ReadTopology & { topologies: string[]; clusterDefault: string | undefined } {
  const doc = parseYaml(text) as unknown;
  if (!Array.isArray(doc)) throw new Error('topology.yaml must be a list of topologies');
  const switches = new Map<string, { switches: string[]; nodes: string[] }>();
  const blocks = new Map<string, string[]>();
  let blockSizes: number[] = [];
  const topologies: string[] = [];
  let clusterDefault: string | undefined;
  for (const t of doc as Record<string, unknown>[]) {
    const keys = Object.keys(t);
    if (keys[0] !== 'topology' || typeof t.topology !== 'string')
      throw new Error('topology must be the first attribute');
    if (topologies.includes(t.topology)) throw new Error(`topology ${t.topology} is defined twice`);
    topologies.push(t.topology);
    for (const k of keys)
      if (!['topology', 'cluster_default', 'tree', 'block', 'flat'].includes(k))
        throw new Error(`unknown attribute ${k}`);
    const plugins = keys.filter((k) => ['tree', 'block', 'flat'].includes(k));
    if (plugins.length !== 1) throw new Error(`topology ${t.topology} must define exactly one of tree, block, flat`);
    if (t.cluster_default === true && clusterDefault === undefined) clusterDefault = t.topology;
    if (t.tree) {
      for (const s of (t.tree as { switches: Record<string, unknown>[] }).switches) {
        for (const k of Object.keys(s))
          if (!['switch', 'children', 'nodes'].includes(k)) throw new Error(`unknown switch attribute ${k}`);
        const name = s.switch as string;
        unique(switches, name, 'switch');
        switches.set(name, {
          switches: sorted(s.children ? expandHostlist(s.children as string) : []),
          nodes: sorted(s.nodes ? expandHostlist(s.nodes as string) : []),
        });
      }
    }
    if (t.block) {
      for (const k of Object.keys(t.block))
        if (!['blocks', 'block_sizes'].includes(k)) throw new Error(`unknown block attribute ${k}`);
      const block = t.block as { blocks: Record<string, unknown>[]; block_sizes?: unknown };
      if (block.block_sizes !== undefined) {
        if (!Array.isArray(block.block_sizes)) throw new Error('block_sizes must be a list');
        blockSizes = block.block_sizes as number[];
      }
      for (const b of block.blocks) {
        const name = b.block as string;
        if (!name) throw new Error('a block needs a name');
        unique(blocks, name, 'block');
        blocks.set(name, sorted(expandHostlist(b.nodes as string)));
      }
    }
  }
  checkBlockSizes(blockSizes, blocks);
  return { switches, blocks, blockSizes, topologies, clusterDefault };
}

/** A switch as `scontrol show topology` reports it. */
export interface LoadedSwitch {
  /** Child switches, expanded and sorted. */
  readonly switches: string[];
  /** Every node under the switch at any depth (Slurm aggregates them), expanded and sorted. */
  readonly nodes: string[];
}

/** `scontrol show topology` of the tree plugin: one `SwitchName=… Level=… Nodes=… Switches=…` line per switch. */
export function readScontrolTopology(text: string): Map<string, LoadedSwitch> {
  const out = new Map<string, LoadedSwitch>();
  for (const line of text.split('\n').map((l) => l.trim())) {
    if (line === '') continue;
    const fields = new Map(
      line.split(/\s+/).map((tok) => {
        const eq = tok.indexOf('=');
        return [tok.slice(0, eq), tok.slice(eq + 1)] as const;
      }),
    );
    const name = fields.get('SwitchName');
    if (name === undefined) throw new Error(`not a switch line: ${JSON.stringify(line)}`);
    unique(out, name, 'switch');
    const list = (key: string) => {
      const v = fields.get(key);
      return sorted(v === undefined || v === '' || v === '(null)' ? [] : expandHostlist(v));
    };
    out.set(name, { switches: list('Switches'), nodes: list('Nodes') });
  }
  return out;
}
