// YAML from outside measured before it is composed. The `yaml` package builds
// a node for every value and recurses for every level: a megabyte of `[[[[…`
// took ten seconds and 700 MB before it ran out of stack, and a megabyte of
// `[],[],…` fourteen seconds and 365 MB. Its lexer, the first of its stages,
// yields the source one token at a time and builds nothing; counting those
// tokens gives the nesting and the number of values, so a document past the
// bounds is refused before the parser or the composer sees it (aliases are
// bounded by the composer's own maxAliasCount). Errors name what was found and
// the limit, never the content.

import { CST, Lexer } from 'yaml';
import { type ParseBounds, refuseShape } from './bounded-json.ts';
import { runWhole, type SlicedWork } from './sliced-work.ts';

/** Tokens measured a step (sliced-work.ts): a megabyte is some 300,000 tokens and half a second. */
const TOKENS_A_STEP = 1_000;

/** What the lexer's tokens say of a document. */
export interface YamlShape {
  /**
   * Levels of block indentation and flow brackets open at once, where a value that starts a line (or follows `- `,
   * `? ` or `: `) at a deeper column opens one: the collection nesting, plus at most one (the innermost value).
   */
  readonly depth: number;
  /** Values: scalars, aliases, flow collections and sequence items, over all documents. */
  readonly values: number;
}

/**
 * Measures `text` from its tokens, TOKENS_A_STEP tokens a step; linear in its length, allocating only the tokens as
 * they pass.
 */
export function* yamlShapeSteps(text: string): SlicedWork<YamlShape> {
  /** The columns of the block nodes open at once, innermost last. */
  const columns: number[] = [];
  let column = 0;
  let flow = 0;
  let depth = 0;
  let values = 0;
  const node = () => {
    values++;
    if (flow === 0) {
      while (columns.length > 0 && columns.at(-1)! >= column) columns.pop();
      columns.push(column);
    }
    if (columns.length + flow > depth) depth = columns.length + flow;
  };
  let tokens = 0;
  for (const token of new Lexer().lex(text)) {
    if (++tokens % TOKENS_A_STEP === 0) yield;
    switch (CST.tokenType(token)) {
      case 'newline':
        column = 0;
        continue;
      case 'doc-start':
      case 'doc-end':
        columns.length = 0;
        flow = 0;
        break;
      case 'scalar': // the marker before a scalar's text: no width
      case 'alias':
        node();
        break;
      case 'seq-item-ind':
      case 'explicit-key-ind':
        node();
        break;
      case 'flow-map-start':
      case 'flow-seq-start':
        node();
        flow++;
        if (columns.length + flow > depth) depth = columns.length + flow;
        break;
      case 'flow-map-end':
      case 'flow-seq-end':
        if (flow > 0) flow--;
        break;
      default:
        break;
    }
    // Control tokens (the lexer's markers) have no width; text may span lines (quoted and block scalars).
    if (token.length === 1 && token.charCodeAt(0) < 0x20) continue;
    const newline = token.lastIndexOf('\n');
    column = newline < 0 ? column + token.length : token.length - newline - 1;
  }
  return { depth, values };
}

/** yamlShapeSteps run whole. */
const yamlShape = (text: string): YamlShape => runWhole(yamlShapeSteps(text));

/** Throws a ParseBoundsError naming the figure found and the limit when `text` is past `bounds`. */
export function checkYamlBounds(text: string, bounds: ParseBounds, what: string): void {
  refuseShape(yamlShape(text), bounds, what);
}

/** checkYamlBounds in steps. */
export function* checkYamlBoundsSteps(text: string, bounds: ParseBounds, what: string): SlicedWork<void> {
  refuseShape(yield* yamlShapeSteps(text), bounds, what);
}
