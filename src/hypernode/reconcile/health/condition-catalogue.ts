// The condition catalogue of docs/health.md: every reason the controller
// writes, when it is set and the shape of its message. Only the docs and
// their test read it (tests/hypernode/health/condition-catalogue.test.ts
// keeps the docs' table equal to it); the controller never imports it, so the
// shipped bundle carries no prose it does not print.

import { ALL_NODES_READY, LINKS_DOWN, LINKS_UP, NODES_CORDONED, NODES_NOT_READY, type ConditionReason } from './conditions.ts';

export interface CatalogueEntry extends ConditionReason {
  /** When it is set, in one line. */
  readonly when: string;
  /** The message's shape. */
  readonly message: string;
}

const describe = (r: ConditionReason, when: string, message: string): CatalogueEntry => Object.freeze({ ...r, when, message });

/** In the order docs/health.md lists them. */
export const HEALTH_CONDITION_CATALOGUE: readonly CatalogueEntry[] = Object.freeze([
  describe(ALL_NODES_READY, 'Every Node below the HyperNode has Ready=True.', 'Every Node is Ready.'),
  describe(
    NODES_CORDONED,
    'Every Node below is Ready and some are cordoned (spec.unschedulable): an operator decision, not a failure.',
    'Every Node is Ready; <k> cordoned: <first names>.',
  ),
  describe(
    NODES_NOT_READY,
    'A Node below is NotReady, Unknown (or never reported Ready) or gone (named as a member, no Node object).',
    '<k> of <n> Nodes not ready: <name> (NotReady | Unknown | gone), … (the first 5, then "and <m> more").',
  ),
  describe(LINKS_UP, "The source's last poll of the fabric found every link of the last good poll.", 'Every link of the last good poll is present.'),
  describe(
    LINKS_DOWN,
    "A link of a switch in the HyperNode's group is missing or down against the last good poll (within health.linkGracePeriod).",
    '<k> fabric problem(s): <switch> port <port> (link to host <host> | switch <switch> port <port> missing), … (the first 5, then "and <m> more").',
  ),
]);
