// A profile's `nodeSelector`: a Kubernetes LabelSelector decoded strictly
// (as Volcano's profile form does) and turned into a predicate over a Node's
// labels with metav1.LabelSelectorAsSelector's rules and messages.

import { hasLabel, labelValue } from '../../../model/label-reads.ts';
import { DecodeErrors, decodeFields, weakList, weakMapping, weakString } from './strict-decode.ts';
import { labelValueErrors, qualifiedNameErrors } from './label-syntax.ts';
import { quoteInput } from '../../../../util/input-fragment.ts';

export interface SelectorRequirement {
  readonly key: string;
  readonly operator: string;
  readonly values: readonly string[];
}

export interface NodeSelectorSpec {
  readonly matchLabels: Readonly<Record<string, string>>;
  readonly matchExpressions: readonly SelectorRequirement[];
}

type Labels = Readonly<Record<string, string>> | undefined;

export interface CompiledNodeSelector {
  matches(labels: Labels): boolean;
  /** Every label key the selector reads: a change to one of them can move a Node between profiles. */
  readonly keys: readonly string[];
}

/** Decodes `nodeSelector` at `path`; field names in the decoder's Go spelling. */
export function decodeNodeSelector(raw: Record<string, unknown>, path: string, errs: DecodeErrors): NodeSelectorSpec {
  const f = decodeFields(raw, ['MatchLabels', 'MatchExpressions'], path, errs);
  const matchLabels: Record<string, string> = {};
  const labels = weakMapping(f.MatchLabels, `${path}.MatchLabels`, errs);
  for (const [k, v] of Object.entries(labels ?? {})) matchLabels[k] = weakString(v, `${path}.MatchLabels[${k}]`, errs);
  const matchExpressions = weakList(f.MatchExpressions).flatMap((item, i) => {
    const where = `${path}.MatchExpressions[${i}]`;
    const obj = weakMapping(item, where, errs);
    if (!obj) return item === null || item === undefined ? [{ key: '', operator: '', values: [] }] : [];
    const e = decodeFields(obj, ['Key', 'Operator', 'Values'], where, errs);
    const values = weakList(e.Values).map((v, j) => weakString(v, `${where}.Values[${j}]`, errs));
    return [
      {
        key: weakString(e.Key, `${where}.Key`, errs),
        operator: weakString(e.Operator, `${where}.Operator`, errs),
        values,
      },
    ];
  });
  return { matchLabels, matchExpressions };
}

/** Go's %#v of a []string, as the requirement errors print it. */
const goStrings = (values: readonly string[]) => `[]string{${values.map((v) => quoteInput(v)).join(', ')}}`;

function requirement(r: SelectorRequirement): (labels: Labels) => boolean {
  const keyErrs = qualifiedNameErrors(r.key);
  if (keyErrs.length > 0) throw new Error(`key: Invalid value: ${quoteInput(r.key)}: ${keyErrs.join('; ')}`);
  const set = new Set(r.values);
  const valuesIn = (labels: Labels) => {
    const v = labelValue(labels, r.key);
    return v !== undefined && set.has(v);
  };
  const needValues = () => {
    if (r.values.length === 0)
      throw new Error(
        `values: Invalid value: ${goStrings(r.values)}: for 'in', 'notin' operators, values set can't be empty`,
      );
    r.values.forEach((v, i) => {
      const errs = labelValueErrors(v);
      if (errs.length > 0) throw new Error(`values[${i}]: Invalid value: ${quoteInput(v)}: ${errs.join('; ')}`);
    });
  };
  const noValues = () => {
    if (r.values.length > 0)
      throw new Error(
        `values: Invalid value: ${goStrings(r.values)}: values set must be empty for exists and does not exist`,
      );
  };
  switch (r.operator) {
    case 'In':
      needValues();
      return valuesIn;
    case 'NotIn':
      needValues();
      return (labels) => !valuesIn(labels);
    case 'Exists':
      noValues();
      return (labels) => hasLabel(labels, r.key);
    case 'DoesNotExist':
      noValues();
      return (labels) => !hasLabel(labels, r.key);
    default:
      throw new Error(`${quoteInput(r.operator)} is not a valid label selector operator`);
  }
}

/** The selector as a predicate; throws with apimachinery's message when it cannot be converted. */
export function compileNodeSelector(spec: NodeSelectorSpec): CompiledNodeSelector {
  const reqs = [
    ...Object.entries(spec.matchLabels).map(([key, value]) => requirement({ key, operator: 'In', values: [value] })),
    ...spec.matchExpressions.map(requirement),
  ];
  const keys = [...new Set([...Object.keys(spec.matchLabels), ...spec.matchExpressions.map((e) => e.key)])];
  return { matches: (labels) => reqs.every((r) => r(labels)), keys };
}
