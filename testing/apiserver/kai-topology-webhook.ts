// KAI Scheduler's validating webhook for its Topology (KAI 0.17,
// kai-scheduler/KAI-Scheduler pkg/admission/webhook/topologyhooks, registered
// as topology.admission.run.ai on create and update, failurePolicy Fail):
// within one Topology no alias may appear twice and no alias may equal a
// level's nodeLabel. The CRD's schema cannot say either, so a client that
// passes schema validation is still refused here, as by the real webhook. A
// denial is what kube-apiserver makes of the webhook's answer: 403 Forbidden,
// `admission webhook "<name>" denied the request: <its message>`.

import type { Obj } from './store.ts';

export interface ValidatingWebhook {
  /** The webhook's name, as the API server quotes it in a denial. */
  readonly name: string;
  /** Why the object is refused, or undefined when it is allowed. */
  deny(obj: Obj): string | undefined;
}

export const KAI_TOPOLOGY_WEBHOOK: ValidatingWebhook = {
  name: 'topology.admission.run.ai',
  deny(obj) {
    const levels: Array<{ nodeLabel?: string; alias?: string }> = obj.spec?.levels ?? [];
    const labels = new Set(levels.map((l) => l.nodeLabel));
    const seen = new Set<string>();
    const duplicated: string[] = [];
    const colliding: string[] = [];
    for (const { alias } of levels) {
      if (!alias) continue;
      if (seen.has(alias)) duplicated.push(alias);
      seen.add(alias);
      if (labels.has(alias)) colliding.push(alias);
    }
    // Go prints a sorted []string as [a b].
    const list = (xs: string[]) => `[${xs.sort().join(' ')}]`;
    const problems = [
      ...(duplicated.length > 0 ? [`aliases must be unique within the topology; duplicated: ${list(duplicated)}`] : []),
      ...(colliding.length > 0 ? [`an alias must not equal a nodeLabel; conflicting: ${list(colliding)}`] : []),
    ];
    return problems.length > 0 ? `invalid topology aliases: ${problems.join('; ')}` : undefined;
  },
};
