// Validate (Go's CheckOptionOrDie and our additions, docs/differences-from-go.md item 8): every
// message, its order, the leader-election aggregation and address checks; and
// the frozen configuration it resolves when there is nothing to report.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { systemResolver, type ResolverDeps } from '../../src/app/flags/tcp-address.ts';
import { parse, validate, type ResolvedOptions, type Validation } from '../../src/app/options.ts';

/** A resolver with a fixed host table; unknown names fail as getaddrinfo does. */
const fakeResolver: ResolverDeps = {
  async lookupHost(host) {
    const table: Record<string, { address: string; family: number }[]> = {
      'api.example.test': [{ address: '10.0.0.7', family: 4 }],
      'dual.example.test': [
        { address: 'fd00::7', family: 6 },
        { address: '10.0.0.8', family: 4 },
      ],
    };
    const found = table[host];
    if (found) return found;
    throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  },
  lookupService: (name) => ({ http: 80, https: 443 })[name],
};

function validated(
  argv: string[],
  resolver: ResolverDeps = fakeResolver,
  env: Record<string, string> = {},
): Promise<Validation> {
  const result = parse(argv);
  if (result.kind !== 'ok') throw new Error(`${JSON.stringify(argv)} did not parse: ${JSON.stringify(result)}`);
  return validate(result.options, { env, resolver });
}

async function problems(argv: string[], resolver: ResolverDeps = fakeResolver): Promise<readonly string[]> {
  const validation = await validated(argv, resolver);
  return validation.ok ? [] : validation.problems;
}

async function resolved(argv: string[], env: Record<string, string> = {}): Promise<ResolvedOptions> {
  const validation = await validated(argv, fakeResolver, env);
  if (!validation.ok) throw new Error(`${argv.join(' ')} did not validate: ${validation.problems.join('; ')}`);
  return validation.config;
}

const renewNotLess = (renew: string) =>
  `leaderElection.leaseDuration: Invalid value: "${renew}": must be greater than \`RenewDeadline\``;

test('the defaults validate', async () => {
  assert.equal(await problems([]), []);
  assert.equal(await problems(['--enable-healthz', '--enable-metrics']), []);
});

test("the Helm chart's arguments parse and validate; its literal 2>&1 is a positional", async () => {
  const argv = [
    '--logtostderr',
    '--enable-healthz=true',
    '--enable-metrics=true',
    '--leader-elect=true',
    '--leader-elect-resource-namespace=volcano-system',
    '--leader-elect-resource-name=volcano-hypernode-controller-manager',
    '--kube-api-qps=50',
    '--kube-api-burst=100',
    '-v=4',
    '2>&1',
  ];
  const result = parse(argv);
  if (result.kind !== 'ok') throw new Error(JSON.stringify(result));
  assert.equal(result.positionals, ['2>&1']);
  assert.is(result.options.log.verbosity, 4);
  assert.ok((await validate(result.options, { resolver: systemResolver })).ok);
});

test("zero QPS and a lease shorter than the renew deadline: both messages, in Go's order", async () => {
  assert.equal(await problems(['--kube-api-qps=0', '--leader-elect-lease-duration=5s']), [
    'kube-api-qps must be greater than zero',
    'leaderElection.leaseDuration: Invalid value: "10s": must be greater than `RenewDeadline`',
  ]);
});

test('QPS and burst must be positive; NaN QPS is rejected too (unlike Go)', async () => {
  const table: [string[], string[]][] = [
    [['--kube-api-qps=-1'], ['kube-api-qps must be greater than zero']],
    [['--kube-api-qps=NaN'], ['kube-api-qps must be greater than zero']],
    [['--kube-api-qps=0.001'], []],
    [['--kube-api-qps=+Inf'], []],
    [['--kube-api-burst=0'], ['kube-api-burst must be greater than zero']],
    [['--kube-api-burst=-5'], ['kube-api-burst must be greater than zero']],
    [
      ['--kube-api-qps=0', '--kube-api-burst=0'],
      ['kube-api-qps must be greater than zero', 'kube-api-burst must be greater than zero'],
    ],
  ];
  for (const [argv, want] of table) assert.equal(await problems(argv), want, argv.join(' '));
});

test('leader-election field errors: one alone, several aggregated as [a, b] in check order', async () => {
  const table: [string[], string[]][] = [
    [
      ['--leader-elect-lease-duration=0'],
      ['[leaderElection.leaseDuration: Invalid value: "0s": must be greater than zero, ' + renewNotLess('10s') + ']'],
    ],
    [
      ['--leader-elect-renew-deadline=0'],
      ['leaderElection.renewDeadline: Invalid value: "0s": must be greater than zero'],
    ],
    [
      ['--leader-elect-retry-period=-2s'],
      ['leaderElection.retryPeriod: Invalid value: "-2s": must be greater than zero'],
    ],
    [['--leader-elect-lease-duration=10s'], [renewNotLess('10s')]],
    [['--leader-elect-lease-duration=1m', '--leader-elect-renew-deadline=1m30s'], [renewNotLess('1m30s')]],
    [['--leader-elect-resource-lock='], ['leaderElection.resourceLock: Required value']],
    [['--leader-elect-resource-namespace='], ['leaderElection.resourceNamespace: Required value']],
    [['--leader-elect-resource-name='], ['leaderElection.resourceName: Required value']],
    [
      ['--leader-elect-resource-name=', '--leader-elect-resource-lock=', '--leader-elect-resource-namespace='],
      [
        '[leaderElection.resourceLock: Required value, leaderElection.resourceNamespace: Required value, leaderElection.resourceName: Required value]',
      ],
    ],
    [
      ['--leader-elect-lease-duration=-1s', '--leader-elect-renew-deadline=0', '--leader-elect-retry-period=0'],
      [
        '[leaderElection.leaseDuration: Invalid value: "-1s": must be greater than zero, ' +
          'leaderElection.renewDeadline: Invalid value: "0s": must be greater than zero, ' +
          'leaderElection.retryPeriod: Invalid value: "0s": must be greater than zero, ' +
          renewNotLess('0s') +
          ']',
      ],
    ],
  ];
  for (const [argv, want] of table) assert.equal(await problems(argv), want, argv.join(' '));
});

test('durations in messages use Go Duration.String()', async () => {
  const table: [string, string][] = [
    ['1h', '1h0m0s'],
    ['90s', '1m30s'],
    ['1500ms', '1.5s'],
    ['0.0005s', '500µs'],
    ['3ns', '3ns'],
  ];
  for (const [flagValue, rendered] of table) {
    assert.equal(
      await problems([
        `--leader-elect-renew-deadline=${flagValue}`,
        '--leader-elect-lease-duration=1ns',
        '--leader-elect-retry-period=1ns',
      ]),
      [renewNotLess(rendered)],
      flagValue,
    );
  }
});

test('with --leader-elect=false no leader-election setting is checked', async () => {
  const argv = [
    '--leader-elect=false',
    '--leader-elect-lease-duration=0',
    '--leader-elect-renew-deadline=-1s',
    '--leader-elect-retry-period=0',
    '--leader-elect-resource-lock=configmaps',
    '--leader-elect-resource-name=',
    '--leader-elect-resource-namespace=',
  ];
  assert.equal(await problems(argv), []);
});

test('a lock type other than leases is reported up front with client-go reasons', async () => {
  const table: [string, string][] = [
    ['endpoints', 'endpoints lock is removed, migrate to leases'],
    ['configmaps', 'configmaps lock is removed, migrate to leases'],
    ['endpointsleases', 'endpointsleases lock is removed, migrate to leases'],
    ['configmapsleases', 'configmapsleases lock is removed, migrated to leases'],
    ['Leases', 'Invalid lock-type Leases'],
    ['toString', 'Invalid lock-type toString'],
  ];
  for (const [lock, reason] of table) {
    assert.equal(
      await problems([`--leader-elect-resource-lock=${lock}`]),
      [`couldn't create resource lock: ${reason}`],
      lock,
    );
  }
});

test('a renew deadline not above 1.2 x the retry period is reported up front', async () => {
  const jitter = 'failed to create leader elector: renewDeadline must be greater than retryPeriod*JitterFactor';
  assert.equal(await problems(['--leader-elect-retry-period=8s']), []); // 10s > 9.6s
  assert.equal(await problems(['--leader-elect-retry-period=9s']), [jitter]); // 10s <= 10.8s
  assert.equal(await problems(['--leader-elect-renew-deadline=12s', '--leader-elect-retry-period=10s']), [jitter]); // equal to 1.2 x
  assert.equal(await problems(['--leader-elect-renew-deadline=12000000001ns', '--leader-elect-retry-period=10s']), []);
  assert.equal(await problems(['--leader-elect-retry-period=8s', '--leader-elect=false']), []);
});

test('--log-flush-frequency must be positive (Go would panic at start-up)', async () => {
  assert.equal(await problems(['--log-flush-frequency=0']), ['log-flush-frequency must be greater than zero']);
  assert.equal(await problems(['--log-flush-frequency=-1s']), ['log-flush-frequency must be greater than zero']);
  assert.equal(await problems(['--log-flush-frequency=1ns']), []);
});

test('addresses are only resolved for enabled endpoints', async () => {
  assert.equal(await problems(['--healthz-address=bad', '--listen-address=also bad']), []);
  assert.equal(await problems(['--enable-healthz', '--healthz-address=bad', '--listen-address=also bad']), [
    'invalid healthz-address: address bad: missing port in address',
  ]);
  assert.equal(await problems(['--enable-metrics', '--healthz-address=bad', '--listen-address=127.0.0.1']), [
    'invalid listen-address: address 127.0.0.1: missing port in address',
  ]);
});

test('address failures carry the contractual prefix and Go resolver text', async () => {
  const table: [string, string][] = [
    ['bad-address:port', 'address tcp/port: unknown port'],
    ['127.0.0.1', 'address 127.0.0.1: missing port in address'],
    [':70000', 'address 70000: invalid port'],
    [':-1', 'address -1: invalid port'],
    ['nohost.invalid:80', 'lookup nohost.invalid: no such host'],
    ['::1:80', 'address ::1:80: too many colons in address'],
    ['[::1]', 'address [::1]: missing port in address'],
    ['[::1:80', "address [::1:80: missing ']' in address"],
  ];
  for (const [address, why] of table) {
    assert.equal(
      await problems(['--enable-healthz', `--healthz-address=${address}`]),
      [`invalid healthz-address: ${why}`],
      address,
    );
    assert.equal(
      await problems(['--enable-metrics', `--listen-address=${address}`]),
      [`invalid listen-address: ${why}`],
      address,
    );
  }
});

test('valid addresses: empty, wildcard, IPs, bracketed IPv6, names and service ports', async () => {
  for (const address of [
    '',
    ':0',
    ':11251',
    '0.0.0.0:1',
    '127.0.0.1:8080',
    '[::1]:8080',
    '[::]:80',
    'api.example.test:https',
    ':HTTP',
    ':+80',
  ]) {
    assert.equal(await problems(['--enable-healthz', `--healthz-address=${address}`]), [], address);
  }
});

test('healthz and metrics messages keep their order even when both fail', async () => {
  assert.equal(
    await problems([
      '--enable-healthz',
      '--enable-metrics',
      '--healthz-address=nohost.invalid:80',
      '--listen-address=x',
      '--kube-api-burst=0',
    ]),
    [
      'kube-api-burst must be greater than zero',
      'invalid healthz-address: lookup nohost.invalid: no such host',
      'invalid listen-address: address x: missing port in address',
    ],
  );
});

test('both endpoints on one port conflict when either listens everywhere or both name the same IP', async () => {
  const conflict = 'healthz-address and listen-address must be different when both endpoints are enabled';
  const table: [string, string, boolean][] = [
    [':8080', ':8080', true],
    [':8080', '127.0.0.1:8080', true],
    ['0.0.0.0:8080', '127.0.0.1:8080', true],
    ['[::]:8080', '127.0.0.1:8080', true],
    ['127.0.0.1:8080', '127.0.0.1:8080', true],
    ['127.0.0.1:8080', '[::ffff:127.0.0.1]:8080', true],
    ['[::1]:8080', '[0:0::1]:8080', true],
    ['api.example.test:8080', '10.0.0.7:8080', true],
    ['dual.example.test:8080', '10.0.0.8:8080', true],
    [':http', ':80', true],
    ['127.0.0.1:8080', '127.0.0.2:8080', false],
    [':8080', ':8081', false],
    ['[::1]:8080', '127.0.0.1:8080', false],
  ];
  for (const [healthz, metrics, conflicts] of table) {
    const got = await problems([
      '--enable-healthz',
      '--enable-metrics',
      `--healthz-address=${healthz}`,
      `--listen-address=${metrics}`,
    ]);
    assert.equal(got, conflicts ? [conflict] : [], `${healthz} vs ${metrics}`);
  }
  // Only checked when both are enabled and valid.
  assert.equal(await problems(['--enable-healthz', '--healthz-address=:8080', '--listen-address=:8080']), []);
  assert.equal(
    await problems(['--enable-healthz', '--enable-metrics', '--healthz-address=:8080', '--listen-address=8080']),
    ['invalid listen-address: address 8080: missing port in address'],
  );
});

test('all checks run and report in Go order, our additions last', async () => {
  assert.equal(
    await problems([
      '--kube-api-qps=0',
      '--kube-api-burst=0',
      '--enable-healthz',
      '--enable-metrics',
      '--healthz-address=:9000',
      '--listen-address=:9000',
      '--leader-elect-lease-duration=5s',
      '--leader-elect-resource-lock=endpoints',
      '--log-flush-frequency=0',
    ]),
    [
      'kube-api-qps must be greater than zero',
      'kube-api-burst must be greater than zero',
      'healthz-address and listen-address must be different when both endpoints are enabled',
      renewNotLess('10s'),
      "couldn't create resource lock: endpoints lock is removed, migrate to leases",
      'log-flush-frequency must be greater than zero',
    ],
  );
});

test('the system resolver looks names up (localhost) and fails unknown ones', async () => {
  assert.equal(await problems(['--enable-healthz', '--healthz-address=localhost:8080'], systemResolver), []);
  const [message] = await problems(['--enable-healthz', '--healthz-address=nohost.invalid:8080'], systemResolver);
  assert.match(message!, /^invalid healthz-address: lookup nohost\.invalid: /);
});

test('the defaults resolve to the configuration the server runs with, deep-frozen', async () => {
  const config = await resolved([]);
  assert.equal(config, {
    master: '',
    kubeconfig: '',
    kubeApiQps: 50,
    kubeApiBurst: 100,
    healthz: undefined,
    metrics: undefined,
    dryRun: false,
    topologyPage: false,
    secureMetrics: false,
    tokenAudiences: ['vc-hypernode-controller-manager'],
    leaderElection: {
      leaseDurationMs: 15_000,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 2_000,
      resourceName: 'vc-hypernode-controller-manager',
      resourceNamespace: 'volcano-system',
    },
    configMap: { namespace: 'volcano-system', name: 'volcano-controller-configmap', key: 'volcano-controller.conf' },
    inputPolicy: { ibnetdiscoverCommand: ['ibnetdiscover'], fileDirs: ['/var/run/ibnetdiscover'], urlCidrs: [] },
  });
  assert.ok(Object.isFrozen(config) && Object.isFrozen(config.leaderElection) && Object.isFrozen(config.configMap));
  assert.ok(Object.isFrozen(config.inputPolicy.fileDirs));
});

test('enabled endpoints resolve to the IP and port they bind, keeping the text as given', async () => {
  const config = await resolved([
    '--enable-healthz',
    '--enable-metrics',
    '--healthz-address=api.example.test:HTTPS',
    '--listen-address=[::1]:8080',
  ]);
  assert.equal(config.healthz, { ip: '10.0.0.7', port: 443, text: 'api.example.test:HTTPS' });
  assert.equal(config.metrics, { ip: '::1', port: 8080, text: '[::1]:8080' });
  assert.ok(Object.isFrozen(config.healthz) && Object.isFrozen(config.metrics));
  assert.equal((await resolved(['--enable-healthz'])).healthz, { ip: undefined, port: 11251, text: ':11251' });
});

test("an empty address is net/http's :http: port 80 is what binds, so it is what conflicts", async () => {
  assert.equal((await resolved(['--enable-healthz', '--healthz-address='])).healthz, {
    ip: undefined,
    port: 80,
    text: ':http',
  });
  assert.equal(
    await problems(['--enable-healthz', '--enable-metrics', '--healthz-address=', '--listen-address=127.0.0.1:80']),
    ['healthz-address and listen-address must be different when both endpoints are enabled'],
  );
});

test('with --leader-elect=false there are no leader-election settings; --dry-run is carried', async () => {
  const config = await resolved([
    '--leader-elect=false',
    '--leader-elect-lease-duration=0',
    '--dry-run',
    '--master=https://api:6443',
    '--kube-api-qps=7.5',
  ]);
  assert.is(config.leaderElection, undefined);
  assert.is(config.dryRun, true);
  assert.is(config.master, 'https://api:6443');
  assert.is(config.kubeApiQps, 7.5);
});

test('the discovery ConfigMap location comes from KUBE_POD_NAMESPACE and HELM_RELEASE_NAME', async () => {
  const config = await resolved([], { KUBE_POD_NAMESPACE: 'ops', HELM_RELEASE_NAME: 'vc' });
  assert.equal(config.configMap, { namespace: 'ops', name: 'vc-controller-configmap', key: 'volcano-controller.conf' });
});

test('--enable-topology-page and --secure-metrics need the metrics listener they are served on', async () => {
  assert.equal(await problems(['--enable-topology-page', '--secure-metrics']), [
    'enable-topology-page requires enable-metrics: the page is served on the metrics listener (--listen-address)',
    'secure-metrics requires enable-metrics: there is no /metrics endpoint to protect',
  ]);
  // As deploy/secure-endpoints appends them: after the chart's literal `2>&1` (pflag reads flags after positionals).
  const config = await resolved(['--enable-metrics', '2>&1', '--enable-topology-page=true', '--secure-metrics=true']);
  assert.is(config.topologyPage, true);
  assert.is(config.secureMetrics, true);
  const plain = await resolved(['--enable-metrics']);
  assert.is(plain.topologyPage, false);
  assert.is(plain.secureMetrics, false);
});

test("--token-audience replaces the controller's own audience, repeated for several; an empty one is refused", async () => {
  assert.equal((await resolved([])).tokenAudiences, ['vc-hypernode-controller-manager']);
  assert.equal((await resolved(['--token-audience=a', '--token-audience', 'b'])).tokenAudiences, ['a', 'b']);
  assert.equal(await problems(['--token-audience=']), [
    'token-audience must not be empty: name the audience the tokens are issued for',
  ]);
});

test("the ibnetdiscover program, the file directories and the local URL networks are the operator's flags", async () => {
  const config = await resolved([
    '--ibnetdiscover-command=timeout 600  /usr/sbin/ibnetdiscover',
    '--allow-file-dir=/etc/fabric-graph/',
    '--allow-file-dir=/var/run/ibnetdiscover',
    '--allow-url-cidr=127.0.0.1/32',
    '--allow-url-cidr=fd00::/8',
  ]);
  assert.equal(config.inputPolicy, {
    ibnetdiscoverCommand: ['timeout', '600', '/usr/sbin/ibnetdiscover'],
    fileDirs: ['/etc/fabric-graph', '/var/run/ibnetdiscover'],
    urlCidrs: ['127.0.0.1/32', 'fd00::/8'],
  });
  // An empty value allows no directory at all.
  assert.equal((await resolved(['--allow-file-dir='])).inputPolicy.fileDirs, []);
  assert.equal(
    await problems([
      '--ibnetdiscover-command= ',
      '--allow-file-dir=relative/dir',
      '--allow-file-dir=/var/../etc',
      '--allow-url-cidr=127.0.0.1/33',
      '--allow-url-cidr=localhost',
    ]),
    [
      'ibnetdiscover-command must name a program, e.g. ibnetdiscover or /usr/sbin/ibnetdiscover',
      'invalid allow-file-dir "relative/dir": want an absolute directory without ".."',
      'invalid allow-file-dir "/var/../etc": want an absolute directory without ".."',
      'invalid allow-url-cidr "127.0.0.1/33": want a network such as 127.0.0.1/32 or fd00::/8',
      'invalid allow-url-cidr "localhost": want a network such as 127.0.0.1/32 or fd00::/8',
    ],
  );
});

test.run();
