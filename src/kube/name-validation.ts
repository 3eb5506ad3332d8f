// Kubernetes' object-name and label syntax (apimachinery's
// pkg/util/validation): the one copy of the patterns and the yes/no checks,
// used wherever a name, label key or label value built from user input must be
// one the API server accepts.

/** DNS1123SubdomainMaxLength: the longest name most kinds of object may have, and a label key's prefix. */
export const DNS1123_SUBDOMAIN_MAX_LENGTH = 253;
/** qualifiedNameMaxLength: the longest name part of a label key. */
export const QUALIFIED_NAME_MAX_LENGTH = 63;
/** LabelValueMaxLength. */
export const LABEL_VALUE_MAX_LENGTH = 63;

/** A label key's name part, and (optional) a label value. */
export const QUALIFIED_NAME_PART = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
/** A lowercase RFC 1123 subdomain, without its length limit. */
export const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** IsDNS1123Subdomain: what the names of most kinds of object must be. */
export function isDNS1123Subdomain(name: string): boolean {
  return name.length <= DNS1123_SUBDOMAIN_MAX_LENGTH && DNS1123_SUBDOMAIN.test(name);
}

/** IsQualifiedName: a label key, `[prefix/]name`. */
export function isQualifiedName(key: string): boolean {
  const parts = key.split('/');
  let name = key;
  if (parts.length === 2) {
    const prefix = parts[0]!;
    if (prefix.length === 0 || !isDNS1123Subdomain(prefix)) return false;
    name = parts[1]!;
  } else if (parts.length !== 1) {
    return false;
  }
  return name.length > 0 && name.length <= QUALIFIED_NAME_MAX_LENGTH && QUALIFIED_NAME_PART.test(name);
}

/** IsValidLabelValue. */
export function isLabelValue(value: string): boolean {
  return value === '' || (value.length <= LABEL_VALUE_MAX_LENGTH && QUALIFIED_NAME_PART.test(value));
}

/**
 * Whether a label, annotation or taint key's prefix is one Kubernetes keeps for
 * its own components: `kubernetes.io` and `k8s.io` and their subdomains
 * (`node.kubernetes.io/unreachable` is the node lifecycle controller's).
 */
export function isKubernetesReservedKey(key: string): boolean {
  const slash = key.indexOf('/');
  if (slash < 0) return false;
  const prefix = key.slice(0, slash);
  return ['kubernetes.io', 'k8s.io'].some((p) => prefix === p || prefix.endsWith(`.${p}`));
}
