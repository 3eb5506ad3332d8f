// deploy/kubernetes: every object parses, and RBAC, Deployment and Service are
// exactly what Volcano's chart renders in standalone mode (docs/deploy.md §4),
// but for Secrets, which a Role of their own grants by name only, and which the
// patch of docs/deploy.md §4.3 extends.
// deploy/secure-endpoints: the opt-in component that alone grants the review
// rights the topology page and --secure-metrics need. deploy/infiniband: the
// opt-in component that runs the ibnetdiscover sidecar on an InfiniBand node,
// the only container that touches the HCA.

import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parse, parseAllDocuments } from 'yaml';
import { parse as parseFlags, validate } from '../../src/app/options.ts';
import { TOPOLOGY_PAGE_PATH } from '../../src/app/topology-page.ts';
import { accessReviewerRbac } from '../../testing/apiserver/index.ts';
import { CHART_ARGS, CLUSTER_ROLE_RULES, LEASE_NAME, NAMESPACE, ROLE_RULES, SECRETS_RULES } from './support/chart.ts';
import { repoRoot } from './support/releases.ts';
import { missingCommand, testNeeding } from '../support/skip.ts';

// Manifests are plain YAML trees: typed loosely on purpose.
type Obj = Record<string, any>;

const dir = join(repoRoot, 'deploy/kubernetes');
const kustomization: Obj = parse(readFileSync(join(dir, 'kustomization.yaml'), 'utf8'));
const objects: Obj[] = (kustomization.resources as string[]).flatMap((file) =>
  parseAllDocuments(readFileSync(join(dir, file), 'utf8')).map((doc) => {
    assert.equal(doc.errors, [], `${file} does not parse`);
    return doc.toJS() as Obj;
  }),
);

/** The one object of `kind` (named `name` when several share the kind). */
function find(kind: string, name?: string): Obj {
  const found = objects.filter((o) => o.kind === kind && (name === undefined || o.metadata.name === name));
  assert.is(found.length, 1, `exactly one ${kind}${name ? ` ${name}` : ''}`);
  return found[0]!;
}

const CONTROLLER = 'volcano-hypernode-controller';
const SECRETS_ROLE = 'volcano-hypernode-controller-secrets';

const deployment = find('Deployment');
const container: Obj = deployment.spec.template.spec.containers[0];
const selector = { app: 'volcano-hypernode-controller', 'app.kubernetes.io/instance': 'volcano' };

test('kustomization lists every manifest (the Namespace only as an option) and retags the container image', () => {
  const files = readdirSync(dir)
    .filter((f) => f !== 'kustomization.yaml')
    .sort();
  assert.equal([...kustomization.resources, 'namespace.yaml'].sort(), files);
  assert.match(readFileSync(join(dir, 'kustomization.yaml'), 'utf8'), /^\s*# - namespace\.yaml/m);
  assert.is(parse(readFileSync(join(dir, 'namespace.yaml'), 'utf8')).metadata.name, NAMESPACE);
  assert.is(kustomization.namespace, NAMESPACE);
  assert.equal(
    kustomization.images.map((i: Obj) => i.name),
    [container.image],
  );
});

test('ClusterRole and Role carry exactly the chart rules, Secrets only by name in a Role of their own, bound to the controller ServiceAccount', () => {
  assert.equal(find('ClusterRole').rules, CLUSTER_ROLE_RULES);
  assert.equal(find('Role', CONTROLLER).rules, ROLE_RULES);
  assert.equal(find('Role', SECRETS_ROLE).rules, SECRETS_RULES);
  const sa = find('ServiceAccount');
  assert.equal(sa.metadata, { name: CONTROLLER, namespace: NAMESPACE });
  for (const [binding, role, name] of [
    ['ClusterRoleBinding', 'ClusterRole', CONTROLLER],
    ['RoleBinding', 'Role', CONTROLLER],
    ['RoleBinding', 'Role', SECRETS_ROLE],
  ] as const) {
    const b = find(binding, name);
    assert.equal(b.subjects, [{ kind: 'ServiceAccount', name: sa.metadata.name, namespace: NAMESPACE }]);
    assert.equal(b.roleRef, {
      apiGroup: 'rbac.authorization.k8s.io',
      kind: role,
      name: find(role, name).metadata.name,
    });
  }
  // No rule anywhere in deploy/ grants Secrets without naming them.
  for (const file of rbacFiles()) {
    for (const doc of parseAllDocuments(readFileSync(file, 'utf8')).map((d) => d.toJS() as Obj)) {
      for (const rule of (doc?.rules ?? []) as Obj[]) {
        if ((rule.resources as string[] | undefined)?.some((r) => r === 'secrets' || r === '*'))
          assert.ok((rule.resourceNames as string[] | undefined)?.length, `${file}: ${JSON.stringify(rule)}`);
      }
    }
  }
});

/** Every YAML file under deploy/. */
function rbacFiles(): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name));
      else if (/\.ya?ml$/.test(e.name)) out.push(join(d, e.name));
    }
  };
  walk(join(repoRoot, 'deploy'));
  return out;
}

test('the Lease the Role grants is the one the Deployment elects with', () => {
  assert.ok(container.args.includes(`--leader-elect-resource-name=${LEASE_NAME}`));
  assert.ok(container.args.includes(`--leader-elect-resource-namespace=${NAMESPACE}`));
});

test('the Deployment passes the chart arguments, environment, ports and probes', () => {
  assert.equal(container.args, CHART_ARGS);
  assert.is(container.name, 'hypernode-controller-manager');
  assert.equal(container.env, [
    { name: 'KUBE_POD_NAMESPACE', value: NAMESPACE },
    { name: 'HELM_RELEASE_NAME', value: 'volcano' },
  ]);
  assert.equal(container.ports, [
    { name: 'healthz', containerPort: 11251, protocol: 'TCP' },
    { name: 'metrics', containerPort: 8081, protocol: 'TCP' },
  ]);
  assert.equal(container.livenessProbe, {
    httpGet: { path: '/healthz', port: 'healthz' },
    initialDelaySeconds: 5,
    periodSeconds: 10,
  });
  assert.equal(container.readinessProbe, { httpGet: { path: '/readyz', port: 'healthz' }, periodSeconds: 5 });
  const pod = deployment.spec.template.spec;
  assert.is(pod.serviceAccountName, 'volcano-hypernode-controller');
  assert.is(pod.priorityClassName, 'system-cluster-critical');
  assert.equal(deployment.spec.selector.matchLabels, selector);
  assert.equal(deployment.spec.template.metadata.labels, selector);
  assert.is(deployment.metadata.namespace, NAMESPACE);
});

test('the container has requests and limits sized from the measured figures, and the probe timings are explained', () => {
  assert.equal(container.resources, {
    requests: { cpu: '100m', memory: '128Mi' },
    limits: { cpu: '1', memory: '512Mi' },
  });
  const text = readFileSync(join(dir, 'deployment.yaml'), 'utf8');
  assert.match(text, /# Sized from scripts\/bench-controller\.ts/);
  assert.match(text, /# Probe timings are the chart's/);
});

test('the monitoring and two-replica components are offered, commented out, in the kustomization', () => {
  const text = readFileSync(join(dir, 'kustomization.yaml'), 'utf8');
  assert.match(text, /^\s*# - \.\.\/monitoring /m);
  assert.match(text, /^\s*# - \.\.\/ha /m);
  const ha: Obj = parse(readFileSync(join(repoRoot, 'deploy/ha/kustomization.yaml'), 'utf8'));
  assert.is(ha.kind, 'Component');
  const pdb: Obj = parse(readFileSync(join(repoRoot, 'deploy/ha/poddisruptionbudget.yaml'), 'utf8'));
  assert.equal(pdb.spec, { minAvailable: 1, selector: { matchLabels: selector } });
});

test('the Node label component grants patch on Nodes and list/watch/create/delete on Kueue and KAI topologies only, to the controller ServiceAccount, and is offered commented out', () => {
  assert.match(readFileSync(join(dir, 'kustomization.yaml'), 'utf8'), /^\s*# - \.\.\/node-labels /m);
  assert.is(parse(readFileSync(join(repoRoot, 'deploy/node-labels/kustomization.yaml'), 'utf8')).kind, 'Component');
  const [role, binding] = parseAllDocuments(readFileSync(join(repoRoot, 'deploy/node-labels/rbac.yaml'), 'utf8')).map(
    (d) => d.toJS() as Obj,
  );
  assert.equal(role!.rules, [
    { apiGroups: [''], resources: ['nodes'], verbs: ['patch'] },
    {
      apiGroups: ['kueue.x-k8s.io', 'kai.scheduler'],
      resources: ['topologies'],
      verbs: ['list', 'watch', 'create', 'patch', 'delete'],
    },
  ]);
  assert.equal(binding!.subjects, [
    { kind: 'ServiceAccount', name: 'volcano-hypernode-controller', namespace: NAMESPACE },
  ]);
  assert.equal(binding!.roleRef, {
    apiGroup: 'rbac.authorization.k8s.io',
    kind: 'ClusterRole',
    name: role!.metadata.name,
  });
});

test('the Node taint component grants get and patch on Nodes only, to the controller ServiceAccount, and is offered commented out', () => {
  assert.match(readFileSync(join(dir, 'kustomization.yaml'), 'utf8'), /^\s*# - \.\.\/node-taints /m);
  assert.is(parse(readFileSync(join(repoRoot, 'deploy/node-taints/kustomization.yaml'), 'utf8')).kind, 'Component');
  const [role, binding] = parseAllDocuments(readFileSync(join(repoRoot, 'deploy/node-taints/rbac.yaml'), 'utf8')).map(
    (d) => d.toJS() as Obj,
  );
  assert.equal(role!.rules, [{ apiGroups: [''], resources: ['nodes'], verbs: ['get', 'patch'] }]);
  assert.equal(binding!.subjects, [
    { kind: 'ServiceAccount', name: 'volcano-hypernode-controller', namespace: NAMESPACE },
  ]);
  assert.equal(binding!.roleRef, {
    apiGroup: 'rbac.authorization.k8s.io',
    kind: 'ClusterRole',
    name: role!.metadata.name,
  });
});

testNeeding(missingCommand('kubectl'))(
  'kubectl kustomize renders the manifests with both components: two spread replicas, a PDB, the ServiceMonitor and rules',
  () => {
    const tmp = mkdtempSync(join(tmpdir(), 'kustomize-'));
    try {
      cpSync(join(repoRoot, 'deploy'), join(tmp, 'deploy'), { recursive: true });
      const file = join(tmp, 'deploy/kubernetes/kustomization.yaml');
      writeFileSync(
        file,
        readFileSync(file, 'utf8').replace('# - ../monitoring', '- ../monitoring').replace('# - ../ha', '- ../ha'),
      );
      const r = spawnSync('kubectl', ['kustomize', join(tmp, 'deploy/kubernetes')], {
        encoding: 'utf8',
        timeout: 60_000,
      });
      assert.is(r.status, 0, r.stderr);
      const rendered = parseAllDocuments(r.stdout).map((d) => d.toJS() as Obj);
      const kinds = rendered.map((o) => o.kind).sort();
      for (const kind of ['Deployment', 'PodDisruptionBudget', 'PrometheusRule', 'ServiceMonitor', 'Service'])
        assert.ok(kinds.includes(kind), kind);
      const dep = rendered.find((o) => o.kind === 'Deployment')!;
      assert.is(dep.spec.replicas, 2);
      assert.is(
        dep.spec.template.spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0]
          .podAffinityTerm.topologyKey,
        'kubernetes.io/hostname',
      );
      assert.ok(
        rendered.every((o) => o.kind.startsWith('Cluster') || o.metadata.namespace === NAMESPACE),
        'everything in the namespace',
      );
    } finally {
      rmSync(tmp, { recursive: true });
    }
  },
);

test('the container runs restricted: non-root 1000, read-only root, no capabilities, no escalation, RuntimeDefault seccomp', () => {
  assert.equal(container.securityContext, {
    runAsNonRoot: true,
    runAsUser: 1000,
    readOnlyRootFilesystem: true,
    allowPrivilegeEscalation: false,
    capabilities: { drop: ['ALL'] },
    seccompProfile: { type: 'RuntimeDefault' },
  });
  assert.equal(deployment.spec.template.spec.securityContext.seccompProfile, { type: 'RuntimeDefault' });
});

test('the metrics Service selects the controller pods and carries the Prometheus annotations', () => {
  const svc = find('Service');
  assert.is(svc.metadata.name, 'volcano-hypernode-controller-service');
  assert.equal(svc.metadata.annotations, {
    'prometheus.io/path': '/metrics',
    'prometheus.io/port': '8081',
    'prometheus.io/scrape': 'true',
  });
  assert.equal(svc.spec.selector, selector);
  assert.equal(svc.spec.ports, [{ name: 'metrics', port: 8081, protocol: 'TCP', targetPort: 'metrics' }]);
});

test('the example discovery ConfigMap sits where the controller looks and enables the label source', () => {
  const cm = find('ConfigMap');
  assert.equal(cm.metadata, { name: 'volcano-controller-configmap', namespace: NAMESPACE });
  const conf = parse(cm.data['volcano-controller.conf']);
  assert.equal(
    conf.networkTopologyDiscovery.map((s: Obj) => [s.source, s.enabled]),
    [['label', true]],
  );
  const types = conf.networkTopologyDiscovery[0].config.networkTopologyTypes;
  assert.equal(types.rack.at(-1), { nodeLabel: 'kubernetes.io/hostname' });
});

const secureDir = join(repoRoot, 'deploy/secure-endpoints');
const secure: Obj = parse(readFileSync(join(secureDir, 'kustomization.yaml'), 'utf8'));
const secureObjects: Obj[] = (secure.resources as string[]).flatMap((file) =>
  parseAllDocuments(readFileSync(join(secureDir, file), 'utf8')).map((d) => d.toJS() as Obj),
);
/** The arguments the component's patch appends to the Deployment's. */
const secureArgs: string[] = secure.patches.flatMap((p: Obj) =>
  (parse(p.patch) as Obj[]).filter((op) => op.path === '/spec/template/spec/containers/0/args/-').map((op) => op.value),
);

test('the review rights are granted only by the opt-in secure-endpoints component, offered commented out', () => {
  const text = readFileSync(join(dir, 'kustomization.yaml'), 'utf8');
  assert.match(text, /^\s*# - \.\.\/secure-endpoints /m);
  for (const rule of [...CLUSTER_ROLE_RULES, ...ROLE_RULES] as Obj[]) {
    assert.not.ok(
      (rule.resources as string[]).some((r) => r === 'tokenreviews' || r === 'subjectaccessreviews'),
      'the base RBAC must not grant reviews',
    );
  }
  assert.is(secure.kind, 'Component');
  const roles = secureObjects.filter((o) => o.kind === 'ClusterRole');
  const delegator = roles.find((r) => r.metadata.name === 'volcano-hypernode-controller-auth-delegator')!;
  // Exactly what the stand-in's tests grant the controller for its reviews.
  assert.equal(delegator.rules, accessReviewerRbac());
  const binding = secureObjects.find((o) => o.kind === 'ClusterRoleBinding')!;
  assert.equal(binding.subjects, [
    { kind: 'ServiceAccount', name: 'volcano-hypernode-controller', namespace: NAMESPACE },
  ]);
  assert.equal(binding.roleRef, {
    apiGroup: 'rbac.authorization.k8s.io',
    kind: 'ClusterRole',
    name: delegator.metadata.name,
  });
  // The reader role is offered for binding (to Prometheus, to people); none is shipped.
  const reader = roles.find((r) => r.metadata.name === 'volcano-hypernode-controller-reader')!;
  assert.equal(reader.rules, [{ nonResourceURLs: ['/metrics', TOPOLOGY_PAGE_PATH], verbs: ['get'] }]);
  assert.is(secureObjects.filter((o) => o.kind === 'ClusterRoleBinding').length, 1, 'only the controller is bound');
});

test('the component turns on the page and secure metrics with flags the controller accepts after the chart arguments', async () => {
  assert.equal(secureArgs, ['--enable-topology-page=true', '--secure-metrics=true']);
  const parsed = parseFlags([...CHART_ARGS, ...secureArgs]);
  assert.is(parsed.kind, 'ok');
  if (parsed.kind !== 'ok') return;
  const v = await validate(parsed.options, { env: {} });
  assert.ok(v.ok, v.ok ? '' : v.problems.join('; '));
  if (v.ok) assert.equal([v.config.topologyPage, v.config.secureMetrics], [true, true]);
});

testNeeding(missingCommand('kubectl'))(
  'kubectl kustomize renders the secure-endpoints component: the flags on the container, the review rights bound',
  () => {
    const tmp = mkdtempSync(join(tmpdir(), 'kustomize-'));
    try {
      cpSync(join(repoRoot, 'deploy'), join(tmp, 'deploy'), { recursive: true });
      const file = join(tmp, 'deploy/kubernetes/kustomization.yaml');
      writeFileSync(file, readFileSync(file, 'utf8').replace('# - ../secure-endpoints', '- ../secure-endpoints'));
      const r = spawnSync('kubectl', ['kustomize', join(tmp, 'deploy/kubernetes')], {
        encoding: 'utf8',
        timeout: 60_000,
      });
      assert.is(r.status, 0, r.stderr);
      const rendered = parseAllDocuments(r.stdout).map((d) => d.toJS() as Obj);
      const dep = rendered.find((o) => o.kind === 'Deployment')!;
      assert.equal(dep.spec.template.spec.containers[0].args, [...CHART_ARGS, ...secureArgs]);
      const names = rendered
        .filter((o) => o.kind === 'ClusterRoleBinding')
        .map((o) => o.roleRef.name)
        .sort();
      assert.equal(names, ['volcano-hypernode-controller', 'volcano-hypernode-controller-auth-delegator']);
    } finally {
      rmSync(tmp, { recursive: true });
    }
  },
);

/** `kubectl kustomize` of deploy/kubernetes with the commented-out component `name` turned on, `extra` appended. */
function renderWith(name: string, extra = ''): Obj[] {
  const tmp = mkdtempSync(join(tmpdir(), 'kustomize-'));
  try {
    cpSync(join(repoRoot, 'deploy'), join(tmp, 'deploy'), { recursive: true });
    const file = join(tmp, 'deploy/kubernetes/kustomization.yaml');
    writeFileSync(file, `${readFileSync(file, 'utf8').replace(`# - ../${name}`, `- ../${name}`)}${extra}`);
    const r = spawnSync('kubectl', ['kustomize', join(tmp, 'deploy/kubernetes')], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.is(r.status, 0, r.stderr);
    return parseAllDocuments(r.stdout).map((d) => d.toJS() as Obj);
  } finally {
    rmSync(tmp, { recursive: true });
  }
}

testNeeding(missingCommand('kubectl'))(
  "the patch of docs/deploy.md §4.3 adds a Secret to the controller's by-name grant, and nothing else",
  () => {
    const doc = readFileSync(join(repoRoot, 'docs/deploy.md'), 'utf8');
    const patch = [...doc.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]!).find((y) => y.includes(SECRETS_ROLE));
    assert.ok(patch, `docs/deploy.md has a yaml block patching ${SECRETS_ROLE}`);
    const rendered = renderWith('ha', `\n${patch}`);
    const roles = rendered.filter((o) => o.kind === 'Role');
    assert.equal(roles.find((r) => r.metadata.name === SECRETS_ROLE)!.rules, [
      { ...SECRETS_RULES[0], resourceNames: ['ufm-credentials', 'lldp-snmp'] },
    ]);
    assert.equal(roles.find((r) => r.metadata.name === CONTROLLER)!.rules, ROLE_RULES);
  },
);

const ibDir = join(repoRoot, 'deploy/infiniband');

test('the infiniband component is offered commented out, and its image builds the sidecar from infiniband-diags and the writer script', () => {
  assert.match(readFileSync(join(dir, 'kustomization.yaml'), 'utf8'), /^\s*# - \.\.\/infiniband /m);
  const component: Obj = parse(readFileSync(join(ibDir, 'kustomization.yaml'), 'utf8'));
  assert.is(component.kind, 'Component');
  assert.equal(component.images, [{ name: 'ibnetdiscover', newName: 'ibnetdiscover', newTag: 'latest' }]);
  const dockerfile = readFileSync(join(ibDir, 'Dockerfile'), 'utf8');
  assert.match(dockerfile, /apt-get install -y --no-install-recommends infiniband-diags/);
  assert.match(dockerfile, /^COPY ibnetdiscover-writer\.sh /m);
});

testNeeding(missingCommand('kubectl'))(
  'kubectl kustomize renders the infiniband component: the sidecar alone privileged on an RDMA node, the controller restricted and reading the output',
  () => {
    const rendered = renderWith('infiniband');
    const dep = rendered.find((o) => o.kind === 'Deployment')!;
    const pod = dep.spec.template.spec;
    const [controller, sidecar] = pod.containers as Obj[];
    // The controller container is the chart's, restricted as before, with the output read-only.
    assert.equal(controller!.args, CHART_ARGS);
    assert.equal(controller!.securityContext, container.securityContext);
    // Room for a large fabric's output beside the caches; the requests stay the chart's sizing.
    assert.equal(controller!.resources, {
      requests: container.resources.requests,
      limits: { ...container.resources.limits, memory: '512Mi' },
    });
    assert.equal(controller!.volumeMounts, [
      { name: 'ibnetdiscover', mountPath: '/var/run/ibnetdiscover', readOnly: true },
    ]);
    // The sidecar runs the writer with ibnetdiscover's arguments, as root and privileged (the umad device).
    assert.is(sidecar!.name, 'ibnetdiscover');
    assert.is(sidecar!.image, 'ibnetdiscover:latest');
    assert.equal(sidecar!.command, ['sh', '/opt/ibnetdiscover-writer/ibnetdiscover-writer.sh']);
    assert.equal(sidecar!.args, ['-C', 'mlx5_0', '-P', '1']);
    assert.equal(sidecar!.env, [
      { name: 'OUTPUT', value: '/var/run/ibnetdiscover/fabric.txt' },
      { name: 'INTERVAL', value: '300' },
    ]);
    assert.equal(sidecar!.securityContext, { privileged: true, runAsNonRoot: false, runAsUser: 0 });
    assert.equal(pod.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms, [
      { matchExpressions: [{ key: 'feature.node.kubernetes.io/rdma.available', operator: 'In', values: ['true'] }] },
    ]);
    // The script the sidecar runs is the one in the repository, in the generated ConfigMap the volume names.
    const writer = pod.volumes.find((v: Obj) => v.name === 'ibnetdiscover-writer').configMap.name as string;
    const cm = rendered.find((o) => o.kind === 'ConfigMap' && o.metadata.name === writer)!;
    assert.is(cm.data['ibnetdiscover-writer.sh'], readFileSync(join(ibDir, 'ibnetdiscover-writer.sh'), 'utf8'));
    assert.equal(
      pod.volumes.find((v: Obj) => v.name === 'ibnetdiscover'),
      { name: 'ibnetdiscover', emptyDir: { sizeLimit: '1Gi' } },
    );
  },
);

testNeeding(missingCommand('shellcheck'))("the sidecar's writer script is clean under shellcheck", () => {
  const r = spawnSync('shellcheck', ['-s', 'sh', join(ibDir, 'ibnetdiscover-writer.sh')], { encoding: 'utf8' });
  assert.is(r.status, 0, r.stdout);
});

test.run();
