// Domains taken from part of a label value: a profile level may name an RE2
// pattern (Go syntax, via re2js, as every user pattern in this project) that
// must match the whole label value; its first capturing group is the domain.
// `nvidia.com/gpu.clique` = `<ClusterUUID>.<CliqueID>` gives the NVLink
// domain (one NVL72 rack) with `^(.+)\.[0-9]+$`, while the whole value is the
// partition. Volcano's label discoverer has no such field.

import { isLabelValue } from '../../../../kube/name-validation.ts';
import { compileNodeNamePattern } from '../../../model/node-name-pattern.ts';

/** value → domain, or undefined when the value does not give one (the level counts as missing). */
export type DomainOf = (value: string) => string | undefined;

/** The whole value is the domain. */
export const wholeValue: DomainOf = (value) => value;

/**
 * The domain function of `pattern`, or an error text (bad syntax, over the
 * size budget, no capturing group). A captured part that is empty or not a
 * valid label value gives no domain: it could not label the HyperNode.
 */
export function compileValuePattern(pattern: string): DomainOf | string {
  const compiled = compileNodeNamePattern(pattern);
  if (!compiled.ok) return compiled.detail;
  const re = compiled.re;
  if (re.groupCount() < 1) return 'it has no capturing group; the first group (…) is the domain';
  return (value) => {
    const m = re.matcher(value);
    if (!m.matches()) return undefined;
    const domain = m.group(1);
    return domain && isLabelValue(domain) ? domain : undefined;
  };
}
