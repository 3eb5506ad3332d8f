// Memory and CPU of a live process from /proc (Linux), for the soak run and the
// benchmarks that watch the controller executable from outside.

import { readFileSync } from 'node:fs';

/** USER_HZ: the unit of the CPU times in /proc/<pid>/stat on every mainstream Linux. */
const CLOCK_TICKS_PER_S = 100;

export interface ProcMemory {
  /** Resident set now, MB. */
  rssMB: number;
  /** Peak resident set since start, MB. */
  hwmMB: number;
  /** Of rssMB: anonymous memory (heaps, buffers), MB. */
  anonMB: number;
  /** Of rssMB: pages of mapped files, the executable's own code and data above all, MB. */
  fileMB: number;
}

/** VmRSS and VmHWM of a live process (Linux). */
export function procMemory(pid: number): ProcMemory {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kB = (field: string) => {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status);
    if (!m) throw new Error(`/proc/${pid}/status has no ${field} line`);
    return Number(m[1]);
  };
  return {
    rssMB: kB('VmRSS') / 1024,
    hwmMB: kB('VmHWM') / 1024,
    anonMB: kB('RssAnon') / 1024,
    fileMB: kB('RssFile') / 1024,
  };
}

/** User + system CPU time a live process has used so far, ms (10 ms resolution). */
export function procCpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the parenthesised command name, which may itself hold spaces: state is field 3, utime 14, stime 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_S) * 1000;
}
