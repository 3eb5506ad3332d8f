// src/main.ts run from the sources as a child process: what lands on stdout
// and stderr, and the exit code, for each outcome of docs/design.md §3.1 and §3.4.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runCommand } from './support/run-command.ts';

function main(...args: string[]) {
  return runCommand(process.execPath, ['--import', 'tsx', 'src/main.ts', ...args]);
}

const VERSION_FROM_SOURCES = [
  'API Version: v1alpha1',
  'Version: Not provided.',
  'Git SHA: Not provided.',
  'Built At: Not provided.',
  `Go Version: node ${process.version}`,
  'Go OS/Arch: linux/amd64',
  '',
].join('\n');

test('--version prints six lines on stdout and exits 0, before validation', () => {
  for (const args of [
    ['--version'],
    ['--version', '--kube-api-qps=-1'],
    ['--version=true', '--leader-elect-lease-duration=0'],
  ]) {
    const r = main(...args);
    assert.is(r.status, 0, args.join(' '));
    assert.is(r.stdout, VERSION_FROM_SOURCES);
    assert.is(r.stderr, '');
  }
});

test('a bad flag prints the usage, then the message, on stderr and exits 2, even with --version', () => {
  const table: [string[], string][] = [
    [['--version', '--bogus'], 'unknown flag: --bogus'],
    [['-version'], 'invalid argument "ersion" for "-v, --v" flag: strconv.ParseInt: parsing "ersion": invalid syntax'],
    [['--kubeconfig'], 'flag needs an argument: --kubeconfig'],
    [
      ['--leader-elect-retry-period=5'],
      'invalid argument "5" for "--leader-elect-retry-period" flag: time: missing unit in duration "5"',
    ],
  ];
  for (const [args, message] of table) {
    const r = main(...args);
    assert.is(r.status, 2, args.join(' '));
    assert.is(r.stdout, '');
    assert.match(r.stderr, /^Usage of .*src\/main\.ts:\n/);
    assert.ok(r.stderr.endsWith(`\n${message}\n`), r.stderr.slice(-200));
    assert.ok(r.stderr.includes('      --kube-api-qps float32 '));
  }
});

test('-h and --help print the usage on stderr and exit 0', () => {
  for (const flag of ['-h', '--help']) {
    const r = main(flag, '--kube-api-qps=0');
    assert.is(r.status, 0, flag);
    assert.is(r.stdout, '');
    assert.match(r.stderr, /^Usage of .*src\/main\.ts:\n {6}--add-dir-header /);
  }
});

test('--help keeps the Go flag listing and ends with the subcommands and the kubectl plugin', () => {
  const goListing = main('--bogus').stderr.replace(/unknown flag: --bogus\n$/, '');
  const r = main('--help');
  assert.ok(r.stderr.startsWith(goListing), 'the flag listing is the one printed before a flag error');
  const tail = r.stderr.slice(goListing.length);
  assert.match(tail, /^\nSubcommands:\n {2}render {10}print the HyperNodes/);
  for (const word of ['plan', 'help [COMMAND]', 'version', 'kubectl hypernode tree|why|plan', 'kubectl-hypernode'])
    assert.ok(tail.includes(word), word);
  assert.is(main('help').stderr, r.stderr, '`help` is --help');
});

test('`help render` is `render --help`; `version` is --version', () => {
  const help = main('help', 'render');
  assert.is(help.status, 0);
  assert.is(help.stderr, main('render', '--help').stderr);
  assert.match(help.stderr, /main\.ts render:\n {6}--config string/);
  const version = main('version');
  assert.is(version.status, 0);
  assert.is(version.stdout, VERSION_FROM_SOURCES);
  const extra = main('version', '--short');
  assert.equal([extra.status, extra.stdout, extra.stderr], [2, '', 'version takes no arguments: --short\n']);
});

test('a stray word is an error naming the nearest command (exit 2); the chart’s 2>&1 and a boolean still are not', () => {
  for (const [args, near] of [
    [['rendr'], ' (did you mean "render"?)'],
    [['--kube-api-qps=5', 'pln'], ' (did you mean "plan"?)'],
    [['serve'], ''],
    [['help', 'bogus'], ''],
  ] as const) {
    const r = main(...args);
    assert.is(r.status, 2, args.join(' '));
    assert.is(r.stdout, '');
    const word = args.at(-1)!;
    assert.is(
      r.stderr,
      `unknown command "${word}" for main.ts${near}; the commands are render, plan, help, version, and a bare command line (flags only) runs the controller. Run 'main.ts --help' for usage.\n`,
    );
  }
  const r = main('--leader-elect', 'false', '--version');
  assert.is(r.status, 0);
  assert.match(r.stderr, /Ignoring positional command-line arguments args=\["false"\]/);
});

test('validation failures: all messages on stderr, one per line, exit 1', () => {
  const r = main('--kube-api-qps=0', '--leader-elect-lease-duration=5s');
  assert.is(r.status, 1);
  assert.is(r.stdout, '');
  assert.is(
    r.stderr,
    'kube-api-qps must be greater than zero\nleaderElection.leaseDuration: Invalid value: "10s": must be greater than `RenewDeadline`\n',
  );
});

test('positional arguments that are no word are ignored with one warning naming them', () => {
  const r = main('2>&1', '--version', './extra');
  assert.is(r.status, 0);
  assert.is(r.stdout, VERSION_FROM_SOURCES);
  assert.match(
    r.stderr,
    /^W\d{4} \d\d:\d\d:\d\d\.\d{6} +\d+\] Ignoring positional command-line arguments args=\["2>&1","\.\/extra"\]\n$/,
  );
});

test('-v=2 logs every flag as FLAG: --name="value"; --skip-headers drops the klog header', () => {
  const verbose = main('-v=2', '--kube_api_qps=7', '--version');
  assert.is(verbose.status, 0);
  const lines = verbose.stderr.trimEnd().split('\n');
  assert.ok(lines.length >= 30, `${lines.length} FLAG lines`);
  assert.ok(
    lines.every((l) => /^I\d{4} [\d:.]+ +\d+\] FLAG: --[a-z-]+=".*"$/.test(l)),
    verbose.stderr,
  );
  assert.ok(lines.some((l) => l.endsWith('FLAG: --kube-api-qps="7"')));
  assert.ok(lines.some((l) => l.endsWith('FLAG: --v="2"')));

  const bare = main('-v', '2', '--skip-headers', '--version');
  assert.ok(bare.stderr.split('\n').includes('FLAG: --leader-elect-resource-lock="leases"'), bare.stderr);

  assert.is(main('-v=1', '--version').stderr, '');
});

test('the run starts with one line naming version, commit, runtime and the effective configuration; no-effect klog flags are named once', () => {
  const r = main(
    '--leader-elect=false',
    '--kubeconfig=/nonexistent/kubeconfig',
    '--kube-api-qps=7',
    '--log-file=/var/log/hn.log',
    '--logtostderr=false',
    '--log-dir=/var/log',
  );
  assert.is(r.status, 1, r.stderr);
  const starts = r.stderr.split('\n').filter((l) => l.includes('] Starting vc-hypernode-controller-manager '));
  assert.is(starts.length, 1, r.stderr);
  for (const field of [
    'version="Not provided."',
    'gitCommit="Not provided."',
    `runtime="node ${process.version}"`,
    'kubeconfig="/nonexistent/kubeconfig"',
    'kubeApiQps=7',
    'leaderElection="disabled"',
    'discoveryConfigMap="volcano-system/volcano-controller-configmap key volcano-controller.conf"',
  ]) {
    assert.ok(starts[0]!.includes(field), `${field} in ${starts[0]}`);
  }
  const ignored = r.stderr.split('\n').filter((l) => l.includes('have no effect'));
  assert.equal(ignored.length, 1, r.stderr);
  assert.match(
    ignored[0]!,
    /^W.*Accepted klog flags that have no effect: logs always go to standard error, unbuffered flags=\["--log-dir=\/var\/log","--log-file=\/var\/log\/hn.log","--logtostderr=false"\]$/,
  );
  assert.not.ok(
    main('--leader-elect=false', '--kubeconfig=/nonexistent/kubeconfig', '--logtostderr').stderr.includes(
      'have no effect',
    ),
    'the default --logtostderr=true is no news',
  );
});

test('an error from the server is printed as its message on stderr, exit 1', () => {
  const r = main('--leader-elect=false', '--kubeconfig=/nonexistent/kubeconfig');
  assert.is(r.status, 1, r.stderr);
  const lastLine = r.stderr.trimEnd().split('\n').at(-1)!;
  assert.match(lastLine, /nonexistent\/kubeconfig/);
  assert.not.match(lastLine, /^\s+at /); // a message, not a stack trace
});

test.run();
