// Resolves HyperNode member selectors to node names, with the exact semantics
// of Volcano's pkg/util/hypernode/member_selector.go (03-controller §3.1):
// exact names count even without a Node; regexes are Go RE2 (via re2js) and
// match anywhere in the name; an empty label selector selects nothing; any
// compile or conversion error yields the empty set.

import { RE2JS } from 're2js';
import type { Logger } from '../log.ts';
import type { HyperNode, LabelSelector, LabelSelectorRequirement, MemberSelector, NodeMeta } from './api/types.ts';

/** Compiled patterns are reused across status syncs; null records a compile error. */
const regexCache = new Map<string, RE2JS | null>();
/** Bounds the cache: patterns come from user objects and must not grow memory forever. */
const REGEX_CACHE_MAX_ENTRIES = 1024;

function compileRE2(pattern: string): RE2JS | null {
  const cached = regexCache.get(pattern);
  if (cached !== undefined) return cached;
  let compiled: RE2JS | null;
  try {
    compiled = RE2JS.compile(pattern);
  } catch {
    compiled = null;
  }
  if (regexCache.size >= REGEX_CACHE_MAX_ENTRIES) regexCache.clear();
  regexCache.set(pattern, compiled);
  return compiled;
}

// --- label selector syntax (apimachinery validation) ------------------------

const QUALIFIED_NAME_PART = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

export function isQualifiedName(key: string): boolean {
  const parts = key.split('/');
  let name = key;
  if (parts.length === 2) {
    const prefix = parts[0]!;
    if (prefix.length === 0 || prefix.length > 253 || !DNS1123_SUBDOMAIN.test(prefix)) return false;
    name = parts[1]!;
  } else if (parts.length !== 1) {
    return false;
  }
  return name.length > 0 && name.length <= 63 && QUALIFIED_NAME_PART.test(name);
}

export function isLabelValue(value: string): boolean {
  return value === '' || (value.length <= 63 && QUALIFIED_NAME_PART.test(value));
}

type Requirement = (labels: Record<string, string>) => boolean;

function requirement(req: LabelSelectorRequirement): Requirement | undefined {
  const { key, operator } = req;
  const values = req.values ?? [];
  if (!isQualifiedName(key) || !values.every(isLabelValue)) return undefined;
  switch (operator) {
    case 'In':
      return values.length > 0 ? (l) => key in l && values.includes(l[key]!) : undefined;
    case 'NotIn':
      return values.length > 0 ? (l) => !(key in l) || !values.includes(l[key]!) : undefined;
    case 'Exists':
      return values.length === 0 ? (l) => key in l : undefined;
    case 'DoesNotExist':
      return values.length === 0 ? (l) => !(key in l) : undefined;
    default:
      return undefined;
  }
}

/** metav1.LabelSelectorAsSelector: all requirements ANDed, or undefined on a conversion error. */
function toSelector(sel: LabelSelector): Requirement | undefined {
  const reqs: Requirement[] = [];
  for (const [key, value] of Object.entries(sel.matchLabels ?? {})) {
    const r = requirement({ key, operator: 'In', values: [value] });
    if (!r) return undefined;
    reqs.push(r);
  }
  for (const expr of sel.matchExpressions ?? []) {
    const r = requirement(expr);
    if (!r) return undefined;
    reqs.push(r);
  }
  return (labels) => reqs.every((r) => r(labels));
}

// --- resolution --------------------------------------------------------------

/** The node names one selector resolves to (Go GetMembers for a single selector). */
export function resolveMembers(selector: MemberSelector, nodes: readonly NodeMeta[], logger?: Logger): Set<string> {
  const result = new Set<string>();
  if (selector.exactMatch) {
    if (selector.exactMatch.name === '') return new Set();
    result.add(selector.exactMatch.name);
  }
  if (selector.regexMatch) {
    const re = compileRE2(selector.regexMatch.pattern);
    if (!re) {
      logger?.error('Failed to compile regular expression', { pattern: selector.regexMatch.pattern });
      return new Set();
    }
    for (const n of nodes) if (re.matcher(n.metadata.name).find()) result.add(n.metadata.name);
  }
  if (selector.labelMatch) {
    const lm = selector.labelMatch;
    const empty = Object.keys(lm.matchLabels ?? {}).length === 0 && (lm.matchExpressions ?? []).length === 0;
    if (empty) return result;
    const matches = toSelector(lm);
    if (!matches) {
      logger?.error('Failed to convert labelMatch to labelSelector', { labelMatch: lm });
      return new Set();
    }
    for (const n of nodes) if (matches(n.metadata.labels ?? {})) result.add(n.metadata.name);
  }
  return result;
}

/** status.nodeCount: distinct names all members resolve to; member `type` is ignored. */
/**
 * True when the HyperNode's count depends on which Nodes exist (a regexMatch or
 * labelMatch member); exact names count without looking at Nodes.
 */
export function dependsOnNodes(hyperNode: Pick<HyperNode, 'spec'>): boolean {
  return (hyperNode.spec.members ?? []).some((m) => Boolean(m.selector.regexMatch || m.selector.labelMatch));
}

export function nodeCount(hyperNode: Pick<HyperNode, 'spec'>, nodes: readonly NodeMeta[], logger?: Logger): number {
  const all = new Set<string>();
  for (const member of hyperNode.spec.members ?? []) {
    for (const name of resolveMembers(member.selector, nodes, logger)) all.add(name);
  }
  return all.size;
}
