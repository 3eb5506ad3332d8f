// The pflag spelling rules and parse-error messages of pflag, against the
// real flag table.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parse, usage, type Options } from '../../src/app/options.ts';

function ok(argv: string[]) {
  const result = parse(argv);
  if (result.kind !== 'ok') throw new Error(`expected ${JSON.stringify(argv)} to parse, got ${JSON.stringify(result)}`);
  return result;
}

function options(argv: string[]): Options {
  return ok(argv).options;
}

function parseError(argv: string[]): string {
  const result = parse(argv);
  if (result.kind !== 'error') throw new Error(`expected ${JSON.stringify(argv)} to fail, got ${result.kind}`);
  return result.message;
}

test('defaults are the ones Volcano and klog set', () => {
  assert.equal(options([]), {
    master: '',
    kubeconfig: '',
    kubeApiQps: 50,
    kubeApiBurst: 100,
    version: false,
    healthzAddress: ':11251',
    enableHealthz: false,
    enableMetrics: false,
    listenAddress: ':8081',
    dryRun: false,
    enableTopologyPage: false,
    secureMetrics: false,
    tokenAudiences: ['vc-hypernode-controller-manager'],
    ibnetdiscoverCommand: 'ibnetdiscover',
    allowFileDirs: ['/var/run/ibnetdiscover'],
    allowUrlCidrs: [],
    leaderElection: {
      leaderElect: true,
      leaseDurationMs: 15_000,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 2_000,
      resourceLock: 'leases',
      resourceName: 'vc-hypernode-controller-manager',
      resourceNamespace: 'volcano-system',
    },
    log: { verbosity: 0, skipHeaders: false, logFlushFrequencyMs: 5_000 },
  });
});

test('the resolved options are frozen all the way down', () => {
  const o = options([]);
  assert.ok(Object.isFrozen(o));
  assert.ok(Object.isFrozen(o.leaderElection));
  assert.ok(Object.isFrozen(o.log));
});

test('every Volcano and leader-election flag reaches its option', () => {
  const o = options([
    '--master=https://api:6443',
    '--kubeconfig',
    '/etc/kube/config',
    '--kube-api-qps=12.5',
    '--kube-api-burst=0x20',
    '--enable-healthz',
    '--healthz-address=127.0.0.1:9000',
    '--enable-metrics=true',
    '--listen-address=:9100',
    '--leader-elect=false',
    '--leader-elect-lease-duration=1m',
    '--leader-elect-renew-deadline=30s',
    '--leader-elect-retry-period=1.5s',
    '--leader-elect-resource-lock=leases',
    '--leader-elect-resource-name=my-release-hypernode-controller-manager',
    '--leader-elect-resource-namespace=kube-system',
    '--skip-headers',
    '--log-flush-frequency=250ms',
  ]);
  assert.is(o.master, 'https://api:6443');
  assert.is(o.kubeconfig, '/etc/kube/config');
  assert.is(o.kubeApiQps, 12.5);
  assert.is(o.kubeApiBurst, 32);
  assert.is(o.enableHealthz, true);
  assert.is(o.healthzAddress, '127.0.0.1:9000');
  assert.is(o.enableMetrics, true);
  assert.is(o.listenAddress, ':9100');
  assert.equal(o.leaderElection, {
    leaderElect: false,
    leaseDurationMs: 60_000,
    renewDeadlineMs: 30_000,
    retryPeriodMs: 1_500,
    resourceLock: 'leases',
    resourceName: 'my-release-hypernode-controller-manager',
    resourceNamespace: 'kube-system',
  });
  assert.equal(o.log, { verbosity: 0, skipHeaders: true, logFlushFrequencyMs: 250 });
});

test('long flags take `--name=value` and `--name value`', () => {
  assert.is(options(['--kubeconfig=/a']).kubeconfig, '/a');
  assert.is(options(['--kubeconfig', '/a']).kubeconfig, '/a');
  // The value may itself look like a flag or be empty.
  assert.is(options(['--kubeconfig', '--version']).kubeconfig, '--version');
  assert.is(options(['--master=']).master, '');
  assert.is(options(['--master=a=b']).master, 'a=b');
});

test('a boolean alone is true, `=false` turns it off, and `--name false` leaves `false` as a positional', () => {
  assert.is(options(['--enable-healthz']).enableHealthz, true);
  assert.is(options(['--leader-elect=false']).leaderElection.leaderElect, false);
  assert.is(options(['--leader-elect=F']).leaderElection.leaderElect, false);
  const spaced = ok(['--leader-elect', 'false']);
  assert.is(spaced.options.leaderElection.leaderElect, true);
  assert.equal(spaced.positionals, ['false']);
});

test('verbosity: -v=4, -v 4, -v4 and --v=4 all set 4', () => {
  for (const argv of [['-v=4'], ['-v', '4'], ['-v4'], ['--v=4'], ['--v', '4']]) {
    assert.is(options(argv).log.verbosity, 4, argv.join(' '));
  }
});

test('underscores in names are dashes: --kube_api_qps, --log_dir, --skip_headers', () => {
  assert.is(options(['--kube_api_qps=5']).kubeApiQps, 5);
  assert.is(options(['--skip_headers']).log.skipHeaders, true);
  assert.is(options(['--leader_elect_resource_name=x']).leaderElection.resourceName, 'x');
  const flags = ok(['--log_dir=/var/log', '--log_file_max_size=10']).flags;
  assert.equal(
    flags.find((f) => f.name === 'log-dir'),
    { name: 'log-dir', value: '/var/log' },
  );
  assert.equal(
    flags.find((f) => f.name === 'log-file-max-size'),
    { name: 'log-file-max-size', value: '10' },
  );
});

test('every klog flag is accepted under its canonical and underscore spellings', () => {
  const klog = [
    '--vmodule=foo=2,bar*=3',
    '--logtostderr=false',
    '--alsologtostderr',
    '--alsologtostderrthreshold=WARNING',
    '--stderrthreshold=error',
    '--legacy-stderr-threshold-behavior=true',
    '--log-dir=/tmp',
    '--log-file=/tmp/x.log',
    '--log-file-max-size=0',
    '--one-output',
    '--skip-headers',
    '--skip-log-headers',
    '--add-dir-header',
    '--log-backtrace-at=main.go:42',
    '--log-flush-frequency=1s',
  ];
  ok(klog);
  ok(klog.map((arg) => arg.replace(/^--([^=]*)/, (_, name: string) => `--${name.replaceAll('-', '_')}`)));
});

test('positionals anywhere are kept aside and ignored, including Helm\'s "2>&1", "-" and ""', () => {
  const r = ok(['2>&1', '--kube-api-qps=7', 'extra', '-', '', '--enable-metrics']);
  assert.equal(r.positionals, ['2>&1', 'extra', '-', '']);
  assert.is(r.options.kubeApiQps, 7);
  assert.is(r.options.enableMetrics, true);
});

test('`--` ends flag parsing: everything after it is positional', () => {
  const r = ok(['--kube-api-qps=7', '--', '--kube-api-qps=8', '--bogus']);
  assert.is(r.options.kubeApiQps, 7);
  assert.equal(r.positionals, ['--kube-api-qps=8', '--bogus']);
});

test('a repeated flag: the last occurrence wins', () => {
  assert.is(options(['--kube-api-burst=1', '--kube-api-burst', '2', '--kube_api_burst=3']).kubeApiBurst, 3);
  assert.is(options(['-v=1', '--v=5', '-v2']).log.verbosity, 2);
});

test('-h, --help (even as --help=x) and -h among letters ask for help', () => {
  for (const argv of [['-h'], ['--help'], ['--help=false'], ['--kube-api-qps=1', '-h', '--bogus'], ['-hv']]) {
    assert.is(parse(argv).kind, 'help', argv.join(' '));
  }
});

test('parse errors have pflag texts', () => {
  const table: [string[], string][] = [
    [['--foo'], 'unknown flag: --foo'],
    [['--foo=bar'], 'unknown flag: --foo'],
    [['--he_lp'], 'unknown flag: --he_lp'],
    [['--h'], 'unknown flag: --h'],
    [['-x'], "unknown shorthand flag: 'x' in -x"],
    [['-xyz'], "unknown shorthand flag: 'x' in -xyz"],
    [['-kubeconfig=x'], "unknown shorthand flag: 'k' in -kubeconfig=x"],
    [['--kubeconfig'], 'flag needs an argument: --kubeconfig'],
    [['--v'], 'flag needs an argument: --v'],
    [['-v'], "flag needs an argument: 'v' in -v"],
    [['---x'], 'bad flag syntax: ---x'],
    [['--=x'], 'bad flag syntax: --=x'],
    [
      ['--kube-api-qps=abc'],
      'invalid argument "abc" for "--kube-api-qps" flag: strconv.ParseFloat: parsing "abc": invalid syntax',
    ],
    [
      ['--kube-api-qps=1e39'],
      'invalid argument "1e39" for "--kube-api-qps" flag: strconv.ParseFloat: parsing "1e39": value out of range',
    ],
    [
      ['--kube-api-burst=1.5'],
      'invalid argument "1.5" for "--kube-api-burst" flag: strconv.ParseInt: parsing "1.5": invalid syntax',
    ],
    [
      ['--enable-healthz=yes'],
      'invalid argument "yes" for "--enable-healthz" flag: strconv.ParseBool: parsing "yes": invalid syntax',
    ],
    [
      ['--leader-elect-lease-duration=5'],
      'invalid argument "5" for "--leader-elect-lease-duration" flag: time: missing unit in duration "5"',
    ],
    [
      ['--leader-elect-retry-period', 'abc'],
      'invalid argument "abc" for "--leader-elect-retry-period" flag: time: invalid duration "abc"',
    ],
    [
      ['--log-flush-frequency=1d'],
      'invalid argument "1d" for "--log-flush-frequency" flag: time: unknown unit "d" in duration "1d"',
    ],
    [['-v=abc'], 'invalid argument "abc" for "-v, --v" flag: strconv.ParseInt: parsing "abc": invalid syntax'],
    [['--v=0x10'], 'invalid argument "0x10" for "-v, --v" flag: strconv.ParseInt: parsing "0x10": invalid syntax'],
    [['-v='], 'invalid argument "=" for "-v, --v" flag: strconv.ParseInt: parsing "=": invalid syntax'],
    // `-version` is -v with the value "ersion".
    [['-version'], 'invalid argument "ersion" for "-v, --v" flag: strconv.ParseInt: parsing "ersion": invalid syntax'],
    // klog's booleans and sizes are Go flags: their errors are Go's flag package texts.
    [['--logtostderr=yes'], 'invalid argument "yes" for "--logtostderr" flag: parse error'],
    [['--log-file-max-size=-1'], 'invalid argument "-1" for "--log-file-max-size" flag: parse error'],
    [
      ['--log-file-max-size=18446744073709551616'],
      'invalid argument "18446744073709551616" for "--log-file-max-size" flag: value out of range',
    ],
    [
      ['--stderrthreshold=LOUD'],
      'invalid argument "LOUD" for "--stderrthreshold" flag: strconv.ParseInt: parsing "LOUD": invalid syntax',
    ],
    [
      ['--vmodule=foo'],
      'invalid argument "foo" for "--vmodule" flag: syntax error: expect comma-separated list of filename=N',
    ],
    [['--vmodule=foo=-1'], 'invalid argument "foo=-1" for "--vmodule" flag: negative value for vmodule level'],
    [
      ['--log-backtrace-at=main:1'],
      'invalid argument "main:1" for "--log-backtrace-at" flag: syntax error: expect file.go:234',
    ],
    [
      ['--log-backtrace-at=main.go:0'],
      'invalid argument "main.go:0" for "--log-backtrace-at" flag: negative or zero value for level',
    ],
    // The value is quoted with Go's %q.
    [
      ['--kube-api-qps=a"b'],
      'invalid argument "a\\"b" for "--kube-api-qps" flag: strconv.ParseFloat: parsing "a\\"b": invalid syntax',
    ],
  ];
  for (const [argv, want] of table) assert.is(parseError(argv), want, argv.join(' '));
});

test('parsing stops at the first error, even after --version', () => {
  assert.is(parseError(['--version', '--bogus', '--kube-api-qps=x']), 'unknown flag: --bogus');
});

test('the V(2) dump lists every flag once, sorted, in Go String() form', () => {
  const flags = ok([
    '--kube-api-qps=1e6',
    '--leader-elect-retry-period=1500ms',
    '--vmodule=a=0,b=2',
    '--stderrthreshold=WARNING',
  ]).flags;
  const names = flags.map((f) => f.name);
  assert.equal(names, [...names].sort());
  assert.is(new Set(names).size, names.length);
  const value = (name: string) => flags.find((f) => f.name === name)?.value;
  assert.is(value('kube-api-qps'), '1e+06');
  assert.is(value('leader-elect-retry-period'), '1.5s');
  assert.is(value('vmodule'), 'b=2');
  assert.is(value('stderrthreshold'), '1');
  assert.is(value('leader-elect'), 'true');
  assert.is(value('v'), '0');
});

test('usage starts with `Usage of <argv0>:` and lists every flag sorted, with types and defaults', () => {
  const text = usage('/usr/local/bin/vc-hypernode-controller-manager');
  const [flagPart, envPart] = text.split('\n\n');
  const lines = flagPart!.split('\n');
  assert.is(lines[0], 'Usage of /usr/local/bin/vc-hypernode-controller-manager:');
  const names = lines.slice(1).map((l) => /--([a-z-]+)/.exec(l)![1]!);
  assert.equal(names, [...names].sort());
  assert.ok(names.includes('leader-elect-resource-namespace'));
  assert.ok(names.includes('log-flush-frequency'));
  assert.match(text, /^ {2}-v, --v Level +Log verbosity/m);
  assert.match(
    text,
    /--kube-api-qps float32 +QPS to use while talking with the Kubernetes API server\. \(default 50\)$/m,
  );
  assert.match(text, /--healthz-address string +The address on which to serve health checks\. \(default ":11251"\)$/m);
  assert.match(text, /--leader-elect-lease-duration duration +.*\(default 15s\)$/m);
  assert.match(text, /--leader-elect +Run leader election.*\(default true\)$/m);
  assert.match(text, /--enable-healthz +Enable the health check endpoint\.$/m);
  // After pflag's flag list, one blank line, then the environment the controller reads.
  assert.equal(
    envPart!
      .trimEnd()
      .split('\n')
      .map((l) => l.split(/ {2,}/).filter(Boolean)[0]),
    ['Environment variables:', 'KUBE_POD_NAMESPACE', 'HELM_RELEASE_NAME'],
  );
  assert.ok(text.endsWith('(default "volcano").\n'));
});

test.run();
