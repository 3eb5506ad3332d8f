// The operator's bounds as tests set them: the stand-ins listen on 127.0.0.1
// and the fixtures are written under the system's temporary directory, both of
// which the executable refuses by default (src/hypernode/model/input-policy.ts).

import { tmpdir } from 'node:os';
import { DEFAULT_INPUT_POLICY, type InputPolicy } from '../../src/hypernode/model/input-policy.ts';

/** The default policy, with files under the temporary directory and URLs to 127.0.0.1 allowed. */
export const TEST_INPUT_POLICY: InputPolicy = Object.freeze({
  ...DEFAULT_INPUT_POLICY,
  fileDirs: Object.freeze([...DEFAULT_INPUT_POLICY.fileDirs!, tmpdir()]),
  urlCidrs: Object.freeze(['127.0.0.1/32']),
});

/** The executable's flags for the same bounds. */
export const TEST_INPUT_FLAGS: readonly string[] = Object.freeze([
  `--allow-file-dir=${tmpdir()}`,
  '--allow-file-dir=/var/run/ibnetdiscover',
  '--allow-url-cidr=127.0.0.1/32',
]);
