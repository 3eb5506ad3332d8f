// deploy/monitoring: the ServiceMonitor finds the metrics Service, the alert
// rules pass `promtool check rules` and their unit tests (`promtool test
// rules`, skipped visibly without promtool), every alert carries a summary and
// a runbook link to a heading of docs/troubleshooting.md, and every query of
// the rules and of the Grafana dashboard names a metric the controller exports.

import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parse, stringify } from 'yaml';
import { exportedFamilies, isExportedSeries } from './support/metric-families.ts';
import { missingCommand, testNeeding } from '../support/skip.ts';
import { repoRoot } from './support/releases.ts';

// Manifests are plain YAML trees: typed loosely on purpose.
type Obj = Record<string, any>;

const dir = join(repoRoot, 'deploy/monitoring');
const read = (file: string) => readFileSync(join(dir, file), 'utf8');
const kustomization: Obj = parse(read('kustomization.yaml'));
const rule: Obj = parse(read('prometheusrule.yaml'));
const monitor: Obj = parse(read('servicemonitor.yaml'));
const dashboard: Obj = JSON.parse(read('grafana-dashboard.json'));
const alerts: Obj[] = rule.spec.groups.flatMap((g: Obj) => g.rules);
const withPromtool = testNeeding(missingCommand('promtool', 'prometheus'));

/** The metric names a PromQL expression selects (functions, keywords, labels and ranges left out). */
function metricNames(expr: string): string[] {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  const keywords = new Set(['and', 'or', 'unless', 'bool', 'offset', 'inf', 'nan']);
  const names: string[] = [];
  for (const m of stripped.matchAll(/[a-zA-Z_:][a-zA-Z0-9_:]*/g)) {
    const after = stripped.slice(m.index + m[0].length).trimStart();
    if (after.startsWith('(') || keywords.has(m[0].toLowerCase())) continue;
    names.push(m[0]);
  }
  return names;
}

function assertExported(expr: string, where: string): void {
  const families = exportedFamilies();
  const names = metricNames(expr);
  assert.ok(names.length > 0, `${where}: no metric in ${expr}`);
  for (const name of names)
    assert.ok(isExportedSeries(families, name), `${where}: ${name} is not a metric the controller exports`);
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to dashes. */
function anchors(markdown: string): Set<string> {
  const headings = markdown.split('\n').filter((l) => /^#{1,6} /.test(l));
  return new Set(
    headings.map((h) =>
      h
        .replace(/^#+ /, '')
        .trim()
        .toLowerCase()
        .replace(/[^\p{L}\p{N} _-]/gu, '')
        .replace(/ /g, '-'),
    ),
  );
}

test('the metric name extraction sees selectors and skips functions, keywords, labels and ranges', () => {
  assert.equal(metricNames('sum by (source) (rate(a_total{job="x"}[5m])) > 0 unless on (pod) b == 0 and time() - c'), [
    'a_total',
    'b',
    'c',
  ]);
  assert.equal(metricNames('histogram_quantile(0.9, sum by (le) (rate(d_bucket[$__rate_interval])))'), ['d_bucket']);
});

test('the component lists its objects; the ServiceMonitor selects the metrics Service of deploy/kubernetes by its labels and port', () => {
  assert.is(kustomization.kind, 'Component');
  assert.equal(kustomization.resources, ['servicemonitor.yaml', 'prometheusrule.yaml']);
  const svc: Obj = parse(readFileSync(join(repoRoot, 'deploy/kubernetes/service.yaml'), 'utf8'));
  for (const [k, v] of Object.entries(monitor.spec.selector.matchLabels))
    assert.is(svc.metadata.labels?.[k], v, `Service label ${k}`);
  assert.ok(monitor.spec.namespaceSelector.matchNames.includes(svc.metadata.namespace));
  assert.equal(
    monitor.spec.endpoints.map((e: Obj) => [e.port, e.path]),
    [['metrics', '/metrics']],
  );
  assert.ok(svc.spec.ports.some((p: Obj) => p.name === 'metrics'));
  const job = monitor.spec.endpoints[0].relabelings.find((r: Obj) => r.targetLabel === 'job').replacement;
  for (const a of alerts) assert.ok(a.expr.includes(`job="${job}"`), `${a.alert} selects job ${job}`);
});

test('every alert has a summary, a description, a severity and a runbook link to a heading of docs/troubleshooting.md', () => {
  const headings = anchors(readFileSync(join(repoRoot, 'docs/troubleshooting.md'), 'utf8'));
  assert.equal(alerts.map((a) => a.alert).sort(), [
    'HyperNodeControllerNoLeader',
    'HyperNodeDeletesHeld',
    'HyperNodeDiscovererNotRunning',
    'HyperNodeDiscoveryFailing',
    'HyperNodeFabricSwitchesSilent',
    'HyperNodeFabricTaintsHeld',
    'HyperNodeLeaseFlapping',
    'HyperNodeNodesUncovered',
    'HyperNodeReconcileFailing',
    'HyperNodeTopologyNotRefreshed',
    'HyperNodeUnhealthy',
    'HyperNodeWorkerErrors',
    'HyperNodeWorkqueueStuck',
    'HyperNodeWritesNeverSettle',
  ]);
  for (const a of alerts) {
    assert.ok(a.annotations.summary && a.annotations.description, a.alert);
    assert.ok(['warning', 'critical'].includes(a.labels.severity), a.alert);
    const [file, anchor] = String(a.annotations.runbook_url).split('#');
    assert.is(file, 'docs/troubleshooting.md', a.alert);
    assert.ok(
      headings.has(anchor!),
      `${a.alert}: no heading #${anchor} in docs/troubleshooting.md (${[...headings].join(', ')})`,
    );
  }
});

test('every alert expression names only metrics the controller exports', () => {
  for (const a of alerts) assertExported(a.expr, a.alert);
});

test('the Grafana dashboard parses, has unique panel ids, and every query names metrics the controller exports', () => {
  assert.ok(dashboard.title && dashboard.uid);
  const panels: Obj[] = dashboard.panels;
  assert.is(new Set(panels.map((p) => p.id)).size, panels.length);
  const targets = panels.flatMap((p) =>
    (p.targets ?? []).map((t: Obj) => ({ panel: p.title, expr: t.expr as string })),
  );
  assert.ok(targets.length >= 15, `${targets.length} queries`);
  for (const t of targets) assertExported(t.expr, `panel "${t.panel}"`);
  const all = targets.map((t) => t.expr).join('\n');
  for (const family of [
    'hypernode_discovery_last_success_timestamp_seconds',
    'hypernode_api_writes_total',
    'rest_client_rate_limiter_duration_seconds_bucket',
    'workqueue_depth',
    'leader_election_master_status',
    'process_resident_memory_bytes',
    'hypernode_unhealthy_hypernodes',
    'hypernode_fabric_tainted_nodes',
    'hypernode_fabric_taints_held',
    'hypernode_worker_errors_total',
  ]) {
    assert.ok(all.includes(family), `the dashboard shows ${family}`);
  }
});

/** The rule groups as a plain Prometheus rule file, beside a copy of the unit tests. */
function ruleFiles(): { dir: string; cleanup(): void } {
  const tmp = mkdtempSync(join(tmpdir(), 'promtool-'));
  writeFileSync(join(tmp, 'rules.yaml'), stringify({ groups: rule.spec.groups }));
  copyFileSync(join(repoRoot, 'tests/deploy/monitoring/alerts.promtest.yaml'), join(tmp, 'alerts.promtest.yaml'));
  return { dir: tmp, cleanup: () => rmSync(tmp, { recursive: true }) };
}

withPromtool('promtool check rules accepts the rules', () => {
  const files = ruleFiles();
  try {
    const r = spawnSync('promtool', ['check', 'rules', 'rules.yaml'], { cwd: files.dir, encoding: 'utf8' });
    assert.is(r.status, 0, r.stdout + r.stderr);
    assert.match(r.stdout, new RegExp(`SUCCESS: ${alerts.length} rules found`));
  } finally {
    files.cleanup();
  }
});

withPromtool(
  'promtool test rules: each alert fires when it should, for the leader only, and not for a healthy source',
  () => {
    const files = ruleFiles();
    try {
      const r = spawnSync('promtool', ['test', 'rules', 'alerts.promtest.yaml'], { cwd: files.dir, encoding: 'utf8' });
      assert.is(r.status, 0, r.stdout + r.stderr);
      // Every alert is exercised by the unit tests.
      const tested = new Set(
        [...read('../../tests/deploy/monitoring/alerts.promtest.yaml').matchAll(/alertname: (\w+)/g)].map((m) => m[1]),
      );
      for (const a of alerts) assert.ok(tested.has(a.alert), `${a.alert} has a unit test`);
    } finally {
      files.cleanup();
    }
  },
);

test.run();
