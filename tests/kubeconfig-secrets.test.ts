// A kubeconfig with a syntax error next to a token and a password, given to
// the program from the sources and to what we ship (the single executable and
// the bundle; scripts/test.mjs builds them first): stderr names the file, line
// and reason, exits 1, and quotes neither secret.

import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { repoRoot, runCommand } from './support/run-command.ts';
import { KUBECONFIG_WITH_SYNTAX_ERROR, SECRETS } from './support/secret-kubeconfig.ts';

const SEA = join(repoRoot, 'dist/vc-hypernode-controller-manager');
const BUNDLE = join(repoRoot, 'dist/vc-hypernode-controller-manager.cjs');

const programs: { name: string; command: () => [string, string[]] }[] = [
  { name: 'the sources', command: () => [process.execPath, ['--import', 'tsx', 'src/main.ts']] },
  { name: 'the single executable', command: () => [SEA, []] },
  { name: 'the bundle on Node', command: () => [process.execPath, [BUNDLE]] },
];

for (const { name, command } of programs) {
  test(`${name}: a broken kubeconfig is reported by file, line and reason, without its secrets`, () => {
    const [cmd, args] = command();
    assert.ok(
      existsSync(cmd) && args.every((a) => !a.startsWith('/') || existsSync(a)),
      `${cmd} ${args.join(' ')} missing: run node scripts/build.mjs`,
    );
    const dir = mkdtempSync(join(tmpdir(), 'kubeconfig-secrets-'));
    try {
      const file = join(dir, 'kubeconfig');
      writeFileSync(file, KUBECONFIG_WITH_SYNTAX_ERROR);
      const r = runCommand(cmd, [...args, `--kubeconfig=${file}`, '-v=10']);
      assert.is(r.status, 1);
      assert.is(r.stdout, '');
      assert.ok(
        r.stderr.endsWith(
          `error loading config file "${file}": line 11, column 15: Nested mappings are not allowed in compact mappings\n`,
        ),
        r.stderr.slice(-300),
      );
      assert.not.match(r.stderr, SECRETS);
    } finally {
      rmSync(dir, { recursive: true });
    }
  });
}

test.run();
