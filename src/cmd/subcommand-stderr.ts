// What `render` and `plan` write on stderr, in the order things happened: the
// log lines of the discovery code they run (klog text without headers), then
// one `warning: …` line a warning, and when the run fails a last `error: …`
// line, with nothing on stdout. The warnings of a failed run are written
// too: they often say why it failed (a neighbour refused, a Node left out).
// Both may name what the cluster or a fabric holds: escaped for the terminal
// (model/fabric-names.ts).

import { createLogger, type Logger } from '../log.ts';
import { errorMessage } from '../util/error-message.ts';
import { PreviewError } from '../hypernode/preview/preview.ts';
import type { SubcommandResult } from './subcommand-flags.ts';
import { terminalText } from '../hypernode/model/fabric-names.ts';

export class SubcommandStderr {
  private written = '';
  /** Every level it is given, written here; wrap it (warningsOnly) to keep progress lines out. */
  readonly logger: Logger = createLogger({
    verbosity: 0,
    skipHeaders: true,
    sink: { write: (line) => (this.written += line.endsWith('\n') ? line : `${line}\n`) },
  });

  /** Everything so far, for a run that succeeds. */
  text(): string {
    return this.written;
  }

  /**
   * What the command is about to do that the operator should see first
   * (plan's Secrets and where they go): handed to `now` at once when given
   * (and then not repeated), else written here.
   */
  notes(notes: readonly string[], now?: (text: string) => void): void {
    for (const note of notes) {
      if (now) now(`note: ${note}\n`);
      else this.written += `note: ${note}\n`;
    }
  }

  warnings(warnings: readonly string[]): void {
    for (const warning of warnings) this.written += `warning: ${terminalText(warning)}\n`;
  }

  /** The run failed with `err`: what was written so far and the reason. */
  failure(code: number, err: unknown): SubcommandResult {
    if (err instanceof PreviewError) this.warnings(err.warnings);
    return { code, stdout: '', stderr: `${this.written}error: ${terminalText(errorMessage(err))}\n` };
  }
}
