// klog-style lines on stderr, one per call, written synchronously. Plain on
// purpose: severities are four letters and verbosity one number, so no
// logging library is needed. Unlike klog no caller `file:line` is printed:
// finding it costs a stack trace per line, and operators grep the message
// and its key=value pairs.

import { truncateText } from './util/truncate.ts';
import { EXIT_FATAL } from './exit-codes.ts';

export type KV = Record<string, unknown>;

export interface Logger {
  info(msg: string, kv?: KV): void;
  warn(msg: string, kv?: KV): void;
  error(msg: string, kv?: KV): void;
  /** A logger whose info() only prints when `level` <= the configured verbosity. */
  v(level: number): Pick<Logger, 'info'>;
  /** True when V(level) lines are printed. */
  enabled(level: number): boolean;
  /** A logger that adds `kv` to every line. */
  with(kv: KV): Logger;
}

export interface LogSink {
  write(line: string): void;
}

export interface LoggerOptions {
  verbosity: number;
  /** Omit the `I0102 15:04:05.000000 pid]` header (--skip-headers). */
  skipHeaders?: boolean;
  sink?: LogSink;
  now?: () => Date;
  pid?: number;
}

const SEVERITY = { info: 'I', warn: 'W', error: 'E', fatal: 'F' } as const;
type Severity = keyof typeof SEVERITY;

function pad(n: number, width: number): string {
  return String(n).padStart(width, '0');
}

export function formatHeader(sev: Severity, d: Date, pid: number): string {
  const micros = d.getUTCMilliseconds() * 1000;
  return (
    `${SEVERITY[sev]}${pad(d.getUTCMonth() + 1, 2)}${pad(d.getUTCDate(), 2)} ` +
    `${pad(d.getUTCHours(), 2)}:${pad(d.getUTCMinutes(), 2)}:${pad(d.getUTCSeconds(), 2)}.${pad(micros, 6)} ` +
    `${String(pid).padStart(7, ' ')}]`
  );
}

/** Renders key/value pairs the way klog's text logger does: strings quoted, errors by message. */
export function formatKV(kv: KV): string {
  let out = '';
  for (const [k, v] of Object.entries(kv)) {
    if (v === undefined) continue;
    out += ` ${k}=${formatValue(v)}`;
  }
  return out;
}

/**
 * Values are often foreign (API server messages, object names and labels,
 * UFM answers): each is cut at this many bytes, with its full length noted,
 * so one bad value cannot flood the log.
 */
export const LOG_VALUE_MAX_BYTES = 2048;

function formatValue(v: unknown): string {
  if (v instanceof Error) return JSON.stringify(truncateText(v.message, LOG_VALUE_MAX_BYTES));
  if (typeof v === 'string') return JSON.stringify(truncateText(v, LOG_VALUE_MAX_BYTES));
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  if (v === null) return 'null';
  let json: string | undefined;
  try {
    json = JSON.stringify(v);
  } catch {
    return JSON.stringify(truncateText(String(v), LOG_VALUE_MAX_BYTES));
  }
  if (json === undefined) return JSON.stringify(String(v));
  // A cut structure is no longer JSON: quote it as a string so the line stays parseable.
  const cut = truncateText(json, LOG_VALUE_MAX_BYTES);
  return cut === json ? json : JSON.stringify(cut);
}

const stderrSink: LogSink = { write: (line) => process.stderr.write(line) };

/** Where and how lines are written; shared by a logger and everything derived with with(). */
interface LineWriter {
  readonly skipHeaders: boolean;
  readonly sink: LogSink;
  readonly now: () => Date;
  readonly pid: number;
}

function writeLine(out: LineWriter, sev: Severity, msg: string, kv: KV | undefined): void {
  const head = out.skipHeaders ? '' : formatHeader(sev, out.now(), out.pid) + ' ';
  out.sink.write(`${head}${msg}${kv ? formatKV(kv) : ''}\n`);
}

class KlogLogger implements Logger {
  constructor(
    private readonly out: LineWriter,
    private readonly verbosity: number,
    private readonly ctx: KV,
  ) {}
  info(msg: string, kv?: KV): void {
    writeLine(this.out, 'info', msg, this.merge(kv));
  }
  warn(msg: string, kv?: KV): void {
    writeLine(this.out, 'warn', msg, this.merge(kv));
  }
  error(msg: string, kv?: KV): void {
    writeLine(this.out, 'error', msg, this.merge(kv));
  }
  fatal(msg: string, kv?: KV): void {
    writeLine(this.out, 'fatal', msg, this.merge(kv));
  }
  v(level: number): Pick<Logger, 'info'> {
    return this.enabled(level) ? this : silent;
  }
  enabled(level: number): boolean {
    return level <= this.verbosity;
  }
  with(kv: KV): Logger {
    return new KlogLogger(this.out, this.verbosity, { ...this.ctx, ...kv });
  }
  private merge(kv?: KV): KV | undefined {
    if (Object.keys(this.ctx).length === 0) return kv;
    return { ...this.ctx, ...kv };
  }
}

const silent: Pick<Logger, 'info'> = { info() {} };

export function createLogger(opts: LoggerOptions): Logger {
  const out: LineWriter = {
    skipHeaders: opts.skipHeaders ?? false,
    sink: opts.sink ?? stderrSink,
    now: opts.now ?? (() => new Date()),
    pid: opts.pid ?? process.pid,
  };
  return new KlogLogger(out, opts.verbosity, {});
}

/**
 * klog.Fatal: logs `msg` at FATAL severity (an `F` line; a logger without a
 * fatal level prints it as an error) and ends the process with status 255.
 * Why 255: the Go binary starts its metrics server in the background, so a
 * bind failure there cannot be returned from its run function (which would
 * exit 1); it is a klog.Fatal, and klog exits 255. Keeping the status lets
 * supervisors and alerts that tell the two failures apart work with either
 * binary. Only the metrics server ends this way: the health listener is bound
 * before the start goes on, and its error exits 1 (docs/design.md §3.4).
 */
export function logFatal(logger: Logger, msg: string, kv?: KV, exit: (code: number) => never = process.exit): never {
  // Checked by shape, not class: the server is bundled separately and may hold its own copy of this module.
  const withFatal = logger as Logger & { fatal?: Logger['error'] };
  if (typeof withFatal.fatal === 'function') withFatal.fatal(msg, kv);
  else logger.error(msg, kv);
  return exit(EXIT_FATAL);
}

/** A logger that discards everything; for tests and libraries used without a program. */
export const nullLogger: Logger = {
  info() {},
  warn() {},
  error() {},
  v: () => silent,
  enabled: () => false,
  with: () => nullLogger,
};
