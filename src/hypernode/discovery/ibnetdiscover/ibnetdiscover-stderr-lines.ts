// What infiniband-diags print on stderr, as it lands in an output captured
// with `2>&1` (knowledge-base articles, tickets, a job's log): libibmad's and
// libibumad's `ibwarn: [pid] func: …` (and `ibdebug:`, `ibpanic:`, a tool's
// `<tool>: iberror: …`), libibmad's verbose `[pid] func: …`, and
// libibnetdisc's `<file>.c:<line>; …` (`src/query_smp.c:195; umad (DR path
// …) bad status 110; Connection timed out`). ibnetdiscover walks the whole
// subnet before it prints, so these come before the topology, but a pipe may
// put them anywhere. They say nothing of the topology: the reader skips them,
// counts them, and keeps the first for the one warning that names them; any
// other line it cannot read still refuses the output.

import { quoteInput } from '../../../util/input-fragment.ts';

/** The diagnostic forms, read from the start of a line. */
const DIAGNOSTIC = /^(?:(?:[\w.-]+: )?ib(?:warn|error|panic|debug): |\[\d+\] \w+: |\S*\.c:\d+; )/;

/** The diagnostic lines of one output: how many, and the first one's line number and first few dozen bytes. */
export class StderrLines {
  count = 0;
  private firstLine = 0;
  private firstText = '';

  /** Counts bytes[start, end), line `lineNo`, when it is a diagnostic; false when it is not. */
  add(lineNo: number, bytes: Uint8Array, start: number, end: number): boolean {
    // Only lines that are no topology line get here, so making text of them costs the reader nothing.
    const text = Buffer.from(bytes.buffer, bytes.byteOffset + start, end - start).toString('utf8');
    if (!DIAGNOSTIC.test(text)) return false;
    if (this.count++ === 0) {
      this.firstLine = lineNo;
      this.firstText = quoteInput(text.trimEnd());
    }
    return true;
  }

  /** `line 3: "ibwarn: [12345] mad_rpc: _do_madrpc failed; dpor…"`, or '' when there is none. */
  first(): string {
    return this.count === 0 ? '' : `line ${this.firstLine}: ${this.firstText}`;
  }
}
