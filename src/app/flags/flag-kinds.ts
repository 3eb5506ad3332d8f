// The value types of our flags, each with Go's parsing, its error text and its
// String() form. Mirrors pflag's bool/int/float32/duration/string values
// (github.com/spf13/pflag), Go's flag.boolValue/uint64Value (src/flag/flag.go)
// and klog's Level, severityValue, moduleSpec and traceLocation
// (k8s.io/klog/v2 klog.go), because klog's flags are Go flags merged into the
// pflag set and keep their own error texts (`parse error` instead of
// strconv's message).

import { formatDuration, parseDuration } from '../../util/go-duration.ts';
import { formatFloat32, NumError, parseBool, parseFloat32, parseGoInt, parseUint } from './go-strconv.ts';

export interface FlagKind<T> {
  /** pflag's Value.Type(), shown in the usage text. */
  readonly typeName: string;
  /** A boolean flag: `--name` alone means true, and it never takes the next argument. */
  readonly isBool: boolean;
  /** Go's Value.Set(): throws an Error whose message is Go's error text. */
  parse(text: string): T;
  /** Go's Value.String(): used for defaults in the usage and the V(2) flag dump. */
  format(value: T): string;
  /**
   * A repeatable flag: how a later occurrence combines with the value of the
   * earlier ones. Without it a later occurrence replaces the earlier value.
   */
  accumulate?(earlier: T, later: T): T;
}

export const boolKind: FlagKind<boolean> = {
  typeName: 'bool',
  isBool: true,
  parse: parseBool,
  format: String,
};

/** pflag's int: Go integer literals (`0x64`, `0o144`, `1_000`), 64-bit. */
export const intKind: FlagKind<bigint> = {
  typeName: 'int',
  isBool: false,
  parse: (text) => parseGoInt(text, 0, 64),
  format: String,
};

export const float32Kind: FlagKind<number> = {
  typeName: 'float32',
  isBool: false,
  parse: parseFloat32,
  format: formatFloat32,
};

/** Nanoseconds, as Go's time.Duration. */
export const durationKind: FlagKind<bigint> = {
  typeName: 'duration',
  isBool: false,
  parse: parseDuration,
  format: formatDuration,
};

export const stringKind: FlagKind<string> = {
  typeName: 'string',
  isBool: false,
  parse: (text) => text,
  format: (value) => value,
};

/**
 * pflag's stringArray: every occurrence adds one value, taken verbatim (no
 * comma splitting, unlike stringSlice); String() is `[a,b]`.
 */
export const stringArrayKind: FlagKind<readonly string[]> = {
  typeName: 'stringArray',
  isBool: false,
  parse: (text) => [text],
  format: (values) => `[${values.join(',')}]`,
  accumulate: (earlier, later) => [...earlier, ...later],
};

/** Go's flag package turns strconv errors into these two texts (flag.numError). */
function goFlagError(err: unknown): Error {
  if (err instanceof NumError) return new Error(err.kind === 'invalid syntax' ? 'parse error' : 'value out of range');
  return err as Error;
}

/** A Go flag.Bool (klog's booleans): same syntax as pflag's, error text `parse error`. */
export const goBoolKind: FlagKind<boolean> = {
  ...boolKind,
  parse(text) {
    try {
      return parseBool(text);
    } catch (err) {
      throw goFlagError(err);
    }
  },
};

/** A Go flag.Uint64 (klog's log_file_max_size). */
export const goUint64Kind: FlagKind<bigint> = {
  typeName: 'uint64',
  isBool: false,
  parse(text) {
    try {
      return parseUint(text, 0, 64);
    } catch (err) {
      throw goFlagError(err);
    }
  },
  format: String,
};

/** klog.Level (-v): a decimal int32, no base prefixes. */
export const klogLevelKind: FlagKind<number> = {
  typeName: 'Level',
  isBool: false,
  parse: (text) => Number(parseGoInt(text, 10, 32)),
  format: String,
};

const SEVERITY_NAMES = ['INFO', 'WARNING', 'ERROR', 'FATAL'] as const;

/** klog's severity (stderrthreshold): a name in any case or a decimal int32; String() is the number. */
export const klogSeverityKind: FlagKind<number> = {
  typeName: 'severity',
  isBool: false,
  parse(text) {
    const byName = SEVERITY_NAMES.indexOf(text.toUpperCase() as (typeof SEVERITY_NAMES)[number]);
    return byName >= 0 ? byName : Number(parseGoInt(text, 10, 32));
  },
  format: String,
};

export interface VmodulePattern {
  readonly pattern: string;
  readonly level: number;
}

const VMODULE_SYNTAX = 'syntax error: expect comma-separated list of filename=N';

/** klog's moduleSpec (--vmodule): `pattern=N,...`; level-0 entries are dropped, as klog does. */
export const klogVmoduleKind: FlagKind<readonly VmodulePattern[]> = {
  typeName: 'moduleSpec',
  isBool: false,
  parse(text) {
    const patterns: VmodulePattern[] = [];
    for (const item of text.split(',')) {
      if (item === '') continue;
      const parts = item.split('=');
      if (parts.length !== 2 || parts[0] === '' || parts[1] === '') throw new Error(VMODULE_SYNTAX);
      let level: number;
      try {
        level = Number(parseGoInt(parts[1]!, 10, 32));
      } catch {
        throw new Error(VMODULE_SYNTAX);
      }
      if (level < 0) throw new Error('negative value for vmodule level');
      if (level > 0) patterns.push({ pattern: parts[0]!, level });
    }
    return patterns;
  },
  format: (patterns) => patterns.map((p) => `${p.pattern}=${p.level}`).join(','),
};

export interface TraceLocation {
  readonly file: string;
  readonly line: number;
}

const TRACE_SYNTAX = 'syntax error: expect file.go:234';

/** klog's traceLocation (--log-backtrace-at): `file.go:N`, or empty to unset. */
export const klogTraceLocationKind: FlagKind<TraceLocation> = {
  typeName: 'traceLocation',
  isBool: false,
  parse(text) {
    if (text === '') return { file: '', line: 0 };
    const fields = text.split(':');
    if (fields.length !== 2 || !fields[0]!.includes('.')) throw new Error(TRACE_SYNTAX);
    let line: number;
    try {
      line = Number(parseGoInt(fields[1]!, 10, 64));
    } catch {
      throw new Error(TRACE_SYNTAX);
    }
    if (line <= 0) throw new Error('negative or zero value for level');
    return { file: fields[0]!, line };
  },
  format: (location) => `${location.file}:${location.line}`,
};
