// Describing a YAML or JSON syntax error by position and reason only. The
// parsers quote the offending source in their messages (js-yaml and yaml print
// a code frame of the surrounding lines, V8's JSON.parse an excerpt of the
// input), and the files and bodies we parse hold tokens, passwords and keys:
// whatever reaches stderr, a log line or an Event must name where the error is
// and what kind it is, never repeat the text around it.

import { safeFragment } from './input-fragment.ts';

/** Parser reasons are fixed phrases; this only guards against a parser that quotes more than a token (a tag, an alias). */
const REASON_MAX_BYTES = 80;

/**
 * `line L, column C: <reason>` (or just the reason when the parser gave no
 * position) for a syntax error from js-yaml, yaml or JSON.parse; undefined for
 * any other error. `text` is the parsed input, used to turn a JSON offset into
 * a line and column; it is never quoted.
 */
export function describeSyntaxError(err: unknown, text?: string): string | undefined {
  if (!(err instanceof Error)) return undefined;
  const e = err as Error & {
    reason?: unknown;
    mark?: { line?: unknown; column?: unknown };
    linePos?: { line: number; col: number }[];
  };
  // js-yaml's YAMLException: zero-based mark, the reason without the frame.
  if (e.name === 'YAMLException' && typeof e.reason === 'string') {
    const at =
      typeof e.mark?.line === 'number' && typeof e.mark.column === 'number'
        ? position(e.mark.line + 1, e.mark.column + 1)
        : '';
    return at + reason(e.reason);
  }
  // yaml's YAMLParseError / YAMLWarning: one-based linePos, the frame after "at line".
  if (e.name === 'YAMLParseError' || e.name === 'YAMLWarning') {
    const first = e.linePos?.[0];
    const at = first ? position(first.line, first.col) : '';
    return at + reason(e.message.split(/ at line \d+/)[0]!);
  }
  if (e instanceof SyntaxError && /JSON/.test(e.message)) return describeJsonError(e.message, text);
  return undefined;
}

/** JSON.parse that, on bad input, throws `<what> is not valid JSON: line L, column C: <reason>`. */
export function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new Error(`${what} is not valid JSON: ${describeSyntaxError(err, text) ?? 'syntax error'}`, {
      cause: quietCause(err),
    });
  }
}

/**
 * The parser's error with its message replaced by the position and reason,
 * for a `cause` chain that a panic handler or a debugger may print.
 */
export function quietCause(err: unknown, text?: string): unknown {
  const described = describeSyntaxError(err, text);
  if (described === undefined) return err;
  const quiet = new SyntaxError(described);
  quiet.stack = `SyntaxError: ${described}`;
  return quiet;
}

function position(line: number, column: number): string {
  return `line ${line}, column ${column}: `;
}

function reason(text: string): string {
  return safeFragment(text.trim(), REASON_MAX_BYTES);
}

/**
 * V8 words JSON errors as `<reason> in JSON at position N[ (line L column C)]`,
 * `Unexpected token 'x', "<excerpt>" is not valid JSON` or
 * `Unexpected end of JSON input`; only the reason and the offset are kept.
 */
function describeJsonError(message: string, text: string | undefined): string {
  const at = / in JSON at position (\d+)/.exec(message);
  if (at) {
    const offset = Number(at[1]);
    const why = reason(message.slice(0, at.index).replace(/^Unexpected token\b.*/, 'Unexpected token'));
    return text === undefined ? `offset ${offset}: ${why}` : lineAndColumn(text, offset) + why;
  }
  if (/^Unexpected end of JSON input/.test(message)) return 'unexpected end of input';
  if (/^Unexpected token\b/.test(message)) return 'unexpected token';
  return 'syntax error';
}

function lineAndColumn(text: string, offset: number): string {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return position(line, offset - lineStart + 1);
}
