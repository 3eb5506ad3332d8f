// Resolves HyperNode member selectors to node names, with the exact semantics
// of Volcano's pkg/util/hypernode/member_selector.go: exact names count even
// without a Node; regexes are Go RE2 (via re2js) and match anywhere in the
// name; an empty label selector selects nothing; any compile or conversion
// error, or a pattern over the size budget, yields the empty set. Members
// are read as the CRD admits them: spec, members and selector may be absent.

import type { Logger } from '../../log.ts';
import type {
  HyperNode,
  LabelSelector,
  LabelSelectorRequirement,
  MemberSelector,
  MemberSpec,
  NodeMeta,
} from './hypernode-types.ts';
import { hasLabel, labelValue } from './label-reads.ts';
import { compileNodeNamePattern } from './node-name-pattern.ts';
import { isLabelValue, isQualifiedName } from '../../kube/name-validation.ts';

type Requirement = (labels: Readonly<Record<string, string>> | undefined) => boolean;

function requirement(req: LabelSelectorRequirement): Requirement | undefined {
  const { key, operator } = req;
  const values = req.values ?? [];
  if (
    typeof key !== 'string' ||
    !isQualifiedName(key) ||
    !values.every((v) => typeof v === 'string' && isLabelValue(v))
  )
    return undefined;
  // Own labels only: `constructor Exists` must not match every Node through Object.prototype.
  const valueIn = (l: Readonly<Record<string, string>> | undefined) => {
    const v = labelValue(l, key);
    return v !== undefined && values.includes(v);
  };
  switch (operator) {
    case 'In':
      return values.length > 0 ? valueIn : undefined;
    case 'NotIn':
      return values.length > 0 ? (l) => !valueIn(l) : undefined;
    case 'Exists':
      return values.length === 0 ? (l) => hasLabel(l, key) : undefined;
    case 'DoesNotExist':
      return values.length === 0 ? (l) => !hasLabel(l, key) : undefined;
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

/**
 * The members of a HyperNode read from the cluster. The CRD lets a
 * hand-made object omit `spec` and `members`; those have no members. Null
 * is handled like absent, whatever the API server returns.
 */
export function membersOf(hyperNode: Pick<HyperNode, 'spec'>): MemberSpec[] {
  const members = hyperNode.spec?.members;
  return Array.isArray(members) ? members.filter((m): m is MemberSpec => typeof m === 'object' && m !== null) : [];
}

/**
 * The node names one selector resolves to (Go GetMembers for a single
 * selector). A member without a selector (the CRD requires only `type`)
 * resolves to nothing, as Go's zero-value selector does.
 */
export function resolveMembers(
  selector: MemberSelector | undefined,
  nodes: readonly NodeMeta[],
  logger?: Logger,
): Set<string> {
  const result = new Set<string>();
  if (typeof selector !== 'object' || selector === null) return result;
  if (selector.exactMatch) {
    const name = selector.exactMatch.name;
    if (typeof name !== 'string' || name === '') return new Set();
    result.add(name);
  }
  if (selector.regexMatch) {
    const pattern = selector.regexMatch.pattern;
    const compiled = typeof pattern === 'string' ? compileNodeNamePattern(pattern) : undefined;
    if (!compiled?.ok) {
      if (compiled?.reason === 'too-large') {
        if (compiled.report)
          logger?.error('Regular expression is too large, it selects no nodes', {
            pattern: truncated(pattern),
            reason: compiled.detail,
          });
      } else if (!compiled || compiled.report) {
        logger?.error('Failed to compile regular expression', {
          pattern: truncated(String(pattern)),
          err: compiled?.detail ?? 'pattern is not a string',
        });
      }
      return new Set();
    }
    for (const n of nodes) if (compiled.re.matcher(n.metadata.name).find()) result.add(n.metadata.name);
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
    for (const n of nodes) if (matches(n.metadata.labels)) result.add(n.metadata.name);
  }
  return result;
}

/** Log lines carry at most this much of a pattern: a rejected one can be ~1 MB. */
const LOGGED_PATTERN_CHARS = 200;

function truncated(pattern: string): string {
  return pattern.length <= LOGGED_PATTERN_CHARS
    ? pattern
    : `${pattern.slice(0, LOGGED_PATTERN_CHARS)}… (${pattern.length} characters)`;
}

/**
 * True when the HyperNode's count depends on which Nodes exist (a regexMatch or
 * labelMatch member); exact names count without looking at Nodes.
 */
export function dependsOnNodes(hyperNode: Pick<HyperNode, 'spec'>): boolean {
  return membersOf(hyperNode).some((m) => Boolean(m.selector?.regexMatch || m.selector?.labelMatch));
}

/** status.nodeCount: distinct names all members resolve to; member `type` is ignored. */
export function nodeCount(hyperNode: Pick<HyperNode, 'spec'>, nodes: readonly NodeMeta[], logger?: Logger): number {
  const all = new Set<string>();
  for (const member of membersOf(hyperNode)) {
    for (const name of resolveMembers(member.selector, nodes, logger)) all.add(name);
  }
  return all.size;
}
