// Every fenced example of README.md and docs/*.md is run against the built
// executable, or marked as not runnable with the reason (docs/design.md,
// "Examples in the docs"). The rules go by language and marker, so an example
// added later is held to them without editing this file:
//   - yaml: every document parses; a discovery configuration (or a list of
//     entries) goes through `render` and must draw no configuration error or
//     warning; a graph document goes through `render --graph-file`;
//   - sh: every call of the executable or of `kubectl hypernode` names an
//     existing subcommand and only flags its --help lists;
//   - `<!-- example: file NAME -->`: the fence is saved as NAME for the commands
//     after it in the same file (beside the fixtures of tests/repo/docs-examples/,
//     the LLDP lab's walks as capture/ and the ibsim lab's ibnetdiscover output
//     as compute.txt);
//   - `<!-- example: run -->`: the sh fence's commands run there and succeed;
//   - `<!-- example: output of: COMMAND -->`: COMMAND's stdout is the fence;
//   - `<!-- example: not run: REASON -->`: skipped, with the reason;
//   - anything else fails, naming the fence and the marker to add.

import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseAllDocuments } from 'yaml';
import { BINARY, BUNDLE, REPO_ROOT } from '../../testing/executables.ts';
import { documentedFiles, type Fence, fencesOf, where } from './support/doc-fences.ts';

const PROGRAM = 'vc-hypernode-controller-manager';
const PLUGIN = 'kubectl-hypernode';
const FIXTURES = join(REPO_ROOT, 'tests/repo/docs-examples');
/** Walks of the LLDP lab: what the capture loop of configuration.md's LLDP example writes to capture/. */
const LLDP_CAPTURE = join(REPO_ROOT, 'tests/cmd/lldp-capture');
/**
 * What ibnetdiscover printed on the ibsim lab: the output configuration.md's InfiniBand example saves as compute.txt.
 */
const IB_CAPTURE = join(REPO_ROOT, 'tests/cmd/ibnetdiscover-capture/compute.txt');
/** What `render` says about a configuration the controller would not read as written. */
const CONFIG_PROBLEM =
  /failed to parse config|networkTopologyDiscovery\[\d+\][^\n]*\): |Ignoring unknown keys|unsupported discoverer type|has no top-level key|no source is enabled|must be a mapping|is not a Go duration/;
const COMMAND_TIMEOUT_MS = 60_000;

let bin = '';
test.before(() => {
  if (!existsSync(BINARY) && !existsSync(BUNDLE))
    throw new Error(`${BINARY} is missing: run \`node scripts/build.mjs\` first`);
  // A PATH holding the executable under both its names, as install.sh leaves it.
  bin = mkdtempSync(join(tmpdir(), 'hn-docs-bin-'));
  for (const name of [PROGRAM, PLUGIN]) {
    if (existsSync(BINARY)) symlinkSync(BINARY, join(bin, name));
    else writeFileSync(join(bin, name), `#!/bin/sh\nexec "${process.execPath}" "${BUNDLE}" "$@"\n`, { mode: 0o755 });
  }
});
test.after(() => rmSync(bin, { recursive: true, force: true }));

interface Ran {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function shell(script: string, cwd: string): Ran {
  const r = spawnSync('sh', ['-c', script], {
    cwd,
    encoding: 'utf8',
    timeout: COMMAND_TIMEOUT_MS,
    env: { PATH: `${bin}:${process.env.PATH}`, HOME: cwd, NO_COLOR: '1', LANG: 'C' },
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Flag names (long, and short letters) each command's --help lists. */
function helpFlags(cwd: string): Map<string, Set<string>> {
  const commands: [string, string][] = [
    [PROGRAM, `${PROGRAM} --help`],
    [`${PROGRAM} render`, `${PROGRAM} render --help`],
    [`${PROGRAM} plan`, `${PROGRAM} plan --help`],
    [`kubectl hypernode`, `${PLUGIN} --help`],
    [`kubectl hypernode tree`, `${PLUGIN} tree --help`],
    [`kubectl hypernode why`, `${PLUGIN} why --help`],
    [`kubectl hypernode plan`, `${PLUGIN} plan --help`],
  ];
  return new Map(
    commands.map(([name, script]) => {
      const help = shell(`${script} 2>&1`, cwd).stdout;
      return [
        name,
        new Set([...help.matchAll(/^\s+(?:-(\w), )?--([\w-]+)/gm)].flatMap((m) => [m[2]!, ...(m[1] ? [m[1]] : [])])),
      ];
    }),
  );
}

const SUBCOMMANDS: Readonly<Record<string, readonly string[]>> = {
  [PROGRAM]: ['render', 'plan', 'help', 'version'],
  'kubectl hypernode': ['tree', 'why', 'plan', 'version', 'help'],
};

/**
 * The command lines of an sh fence: `$ ` lines when there are any, else every line; continuations joined, comments
 * dropped.
 */
function commandLines(body: string): string[] {
  const joined = body.replace(/\\\n\s*/g, ' ').split('\n');
  const prompted = joined.filter((l) => l.startsWith('$ '));
  return (prompted.length > 0 ? prompted.map((l) => l.slice(2)) : joined)
    .map((l) => l.replace(/(^|\s)#.*$/, '').trim())
    .filter((l) => l !== '');
}

/** Problems with the calls of our commands in `line`: unknown subcommands and flags. */
function callProblems(line: string, flags: Map<string, Set<string>>): { calls: number; problems: string[] } {
  const problems: string[] = [];
  let calls = 0;
  for (const segment of line.split(/\|\||&&|[|;&]/)) {
    // The command is the segment's first word after variable assignments; under a runtime (`deno run -A`, `node`), its
    // script.
    const words = segment.split(/\s+/).filter((w) => w !== '' && !/^\w+=/.test(w));
    const ours = (w: string) => w === PROGRAM || w.endsWith(`/${PROGRAM}`) || w.endsWith(`${PROGRAM}.cjs`);
    const at = ['deno', 'node'].includes(words[0] ?? '')
      ? words.findIndex(ours)
      : ours(words[0] ?? '') || (words[0] === 'kubectl' && words[1] === 'hypernode')
        ? 0
        : -1;
    if (at < 0) continue;
    calls++;
    const program = words[at] === 'kubectl' ? 'kubectl hypernode' : PROGRAM;
    const args = words.slice(program === PROGRAM ? at + 1 : at + 2);
    const end = args.findIndex((w) => /^\d?>|^</.test(w));
    const own = end < 0 ? args : args.slice(0, end);
    const sub = own[0] !== undefined && !own[0].startsWith('-') ? own[0] : undefined;
    if (sub !== undefined && !SUBCOMMANDS[program]!.includes(sub)) problems.push(`${program} has no subcommand ${sub}`);
    const known = flags.get(
      sub && SUBCOMMANDS[program]!.includes(sub) && sub !== 'help' && sub !== 'version' ? `${program} ${sub}` : program,
    )!;
    for (const word of own) {
      const name = /^--?([\w-]+)/.exec(word)?.[1];
      if (
        name !== undefined &&
        !known.has(name) &&
        !(program === 'kubectl hypernode' && (name === 'kubeconfig' || name === 'context'))
      )
        problems.push(`${program}${sub ? ` ${sub}` : ''} has no flag ${word.split('=')[0]}`);
    }
  }
  return { calls, problems };
}

/** A discovery configuration as render reads it, from a YAML example, or undefined when the example is not one. */
function discoveryConfig(body: string): string | undefined {
  const first: unknown = parseAllDocuments(body)[0]?.toJS?.();
  const isEntryList =
    Array.isArray(first) &&
    first.length > 0 &&
    first.every((e) => typeof e === 'object' && e !== null && 'source' in e);
  if (isEntryList) {
    // Only the first document is the list; what follows `---` (a Secret) stays as written.
    const [list, ...rest] = body.split(/^---$/m);
    return [`networkTopologyDiscovery:\n${list!.replace(/^(?=.)/gm, '  ')}`, ...rest].join('---');
  }
  if (
    typeof first === 'object' &&
    first !== null &&
    ('networkTopologyDiscovery' in first || (first as { kind?: unknown }).kind === 'ConfigMap')
  )
    return body;
  return undefined;
}

/** The host names of a graph document, or undefined when the example is not one. */
function graphHosts(body: string): string[] | undefined {
  const doc = parseAllDocuments(body)[0]?.toJS?.() as
    | { switches?: unknown; links?: Array<{ a?: { host?: string }; b?: { host?: string } }> }
    | undefined;
  if (!doc || !Array.isArray(doc.switches) || !Array.isArray(doc.links)) return undefined;
  return [
    ...new Set(doc.links.flatMap((l) => [l.a?.host, l.b?.host]).filter((h): h is string => typeof h === 'string')),
  ];
}

const nodeList = (names: string[]) =>
  JSON.stringify({ apiVersion: 'v1', kind: 'List', items: names.map((name) => ({ metadata: { name } })) });

/** Checks one fence; returns its problems ('' entries never). */
function checkFence(f: Fence, dir: string, flags: Map<string, Set<string>>): string[] {
  const marker = f.marker;
  if (marker !== undefined) {
    const notRun = /^not run:\s*(.*)$/s.exec(marker);
    if (notRun)
      return notRun[1]!.trim().length >= 10
        ? []
        : [`${where(f)}: say why the example is not run (at least a few words)`];
    const file = /^file\s+(\S+)$/.exec(marker);
    if (file) {
      writeFileSync(join(dir, file[1]!), `${f.body}\n`);
      return /\.ya?ml$/.test(file[1]!) ? yamlProblems(f, dir) : [];
    }
    if (marker === 'run') {
      const r = shell(commandLines(f.body).join('\n'), dir);
      return r.status === 0 ? [] : [`${where(f)}: the commands exit ${r.status}: ${r.stderr.trim().slice(0, 500)}`];
    }
    const output = /^output of:\s*(.+)$/s.exec(marker);
    if (output) {
      const r = shell(output[1]!, dir);
      if (r.status !== 0) return [`${where(f)}: \`${output[1]}\` exits ${r.status}: ${r.stderr.trim().slice(0, 500)}`];
      return r.stdout.trimEnd() === f.body.trimEnd()
        ? []
        : [`${where(f)}: the output of \`${output[1]}\` differs from the example:\n${r.stdout}`];
    }
    return [`${where(f)}: unknown marker "example: ${marker}" (file NAME, run, output of: COMMAND, not run: REASON)`];
  }
  if (f.lang === 'yaml' || f.lang === 'yml') return yamlProblems(f, dir);
  if (f.lang === 'json') {
    try {
      JSON.parse(f.body);
      return [];
    } catch (err) {
      return [`${where(f)}: not JSON: ${(err as Error).message}`];
    }
  }
  if (f.lang === 'sh' || f.lang === 'bash' || f.lang === 'console') {
    const checked = commandLines(f.body).map((l) => callProblems(l, flags));
    if (checked.every((c) => c.calls === 0))
      return [
        `${where(f)}: runs none of our commands; mark it <!-- example: run --> or <!-- example: not run: REASON -->`,
      ];
    return checked.flatMap((c) => c.problems.map((p) => `${where(f)}: ${p}`));
  }
  return [
    `${where(f)}: a \`\`\`${f.lang || '(no language)'} fence needs a marker on the line before: <!-- example: output of: COMMAND --> or <!-- example: not run: REASON -->`,
  ];
}

/** YAML that parses; run through the executable when it is a discovery configuration or a graph document. */
function yamlProblems(f: Fence, dir?: string): string[] {
  const errors = parseAllDocuments(f.body).flatMap((d) => d.errors.map((e) => e.message.split('\n')[0]));
  if (errors.length > 0) return [`${where(f)}: not YAML: ${errors[0]}`];
  if (dir === undefined) return [];
  const config = discoveryConfig(f.body);
  if (config !== undefined) {
    writeFileSync(join(dir, 'example-config.yaml'), config);
    writeFileSync(join(dir, 'example-nodes.json'), nodeList([]));
    const r = shell(`${PROGRAM} render --config example-config.yaml --nodes example-nodes.json -o tree`, dir);
    const problem = CONFIG_PROBLEM.exec(r.stderr);
    return problem ? [`${where(f)}: render reports a configuration problem: ${r.stderr.trim().slice(0, 500)}`] : [];
  }
  const hosts = graphHosts(f.body);
  if (hosts !== undefined) {
    writeFileSync(join(dir, 'example-graph.yaml'), f.body);
    writeFileSync(
      join(dir, 'example-config.yaml'),
      'networkTopologyDiscovery:\n  - {source: graph, enabled: true, config: {file: /unused}}\n',
    );
    writeFileSync(join(dir, 'example-nodes.json'), nodeList(hosts));
    const r = shell(
      `${PROGRAM} render --config example-config.yaml --nodes example-nodes.json --graph-file example-graph.yaml -o tree`,
      dir,
    );
    return r.status === 0
      ? []
      : [`${where(f)}: render --graph-file refuses the graph: ${r.stderr.trim().slice(0, 500)}`];
  }
  return [];
}

for (const file of documentedFiles(REPO_ROOT)) {
  test(`${file}: every example runs, or says why it cannot`, () => {
    const dir = mkdtempSync(join(tmpdir(), 'hn-docs-'));
    try {
      if (existsSync(FIXTURES)) cpSync(FIXTURES, dir, { recursive: true });
      cpSync(LLDP_CAPTURE, join(dir, 'capture'), { recursive: true });
      cpSync(IB_CAPTURE, join(dir, 'compute.txt'));
      const flags = helpFlags(dir);
      const problems = fencesOf(REPO_ROOT, file).flatMap((f) => checkFence(f, dir, flags));
      assert.equal(problems, [], problems.join('\n'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

test('the rules catch a wrong example: a misspelled flag, a config error, an output that differs, a bare fence', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hn-docs-'));
  try {
    mkdirSync(join(dir, 'x'));
    const flags = helpFlags(dir);
    const fence = (lang: string, body: string, marker?: string): Fence => ({
      file: 'x.md',
      line: 1,
      lang,
      body,
      marker,
    });
    const config =
      'networkTopologyDiscovery:\n  - source: label\n    enabled: true\n    config: {networkTopologyTypes: {t: [{nodeLabel: rack}, {nodeLabel: kubernetes.io/hostname}]}}';
    assert.equal(checkFence(fence('sh', `${PROGRAM} render --config c.yaml --nodes n.json -o tree`), dir, flags), []);
    assert.equal(checkFence(fence('sh', `${PROGRAM} render --confg c.yaml --nodes n.json`), dir, flags), [
      `x.md:1: ${PROGRAM} render has no flag --confg`,
    ]);
    assert.equal(checkFence(fence('sh', `kubectl hypernode tre`), dir, flags), [
      'x.md:1: kubectl hypernode has no subcommand tre',
    ]);
    assert.equal(checkFence(fence('yaml', config), dir, flags), []);
    assert.match(
      checkFence(fence('yaml', config.replace('enabled', 'enable')), dir, flags).join(''),
      /render reports a configuration problem/,
    );
    assert.match(
      checkFence(fence('yaml', config.replace('source: label', 'source: Label')), dir, flags).join(''),
      /unsupported discoverer type/,
    );
    assert.equal(checkFence(fence('yaml', config, 'file c.yaml'), dir, flags), []);
    writeFileSync(join(dir, 'n.json'), nodeList([]));
    assert.equal(
      checkFence(
        fence('', 'no HyperNode', `output of: ${PROGRAM} render --config c.yaml --nodes n.json -o tree`),
        dir,
        flags,
      ).length,
      1,
    );
    assert.equal(checkFence(fence('', 'a diagram'), dir, flags).length, 1);
    assert.equal(checkFence(fence('', 'a diagram', 'not run: a drawing, not a command'), dir, flags), []);
    assert.equal(checkFence(fence('', 'a diagram', 'not run: no'), dir, flags).length, 1);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
