// Validation of list and watch query options, as
// apimachinery/pkg/apis/meta/internalversion/validation ValidateListOptions
// does it: a 422 for `ListOptions.meta.k8s.io ""` listing every problem.
// This server behaves as one without the WatchList feature.

import { fieldForbidden, fieldNotSupported, invalid, type FieldError } from './status.ts';

/** A list or watch request's query parameters (URLSearchParams). */
export interface Query {
  get(name: string): string | null;
}

const LIST_OPTIONS = { resource: 'listoptions', group: 'meta.k8s.io', kind: 'ListOptions' };

function listErrors(q: Query): FieldError[] {
  const errs: FieldError[] = [];
  const match = q.get('resourceVersionMatch');
  if (match) {
    if (!q.get('resourceVersion'))
      errs.push(
        fieldForbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden unless resourceVersion is provided'),
      );
    if (q.get('continue'))
      errs.push(fieldForbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
    if (match !== 'Exact' && match !== 'NotOlderThan')
      errs.push(fieldNotSupported('resourceVersionMatch', match, ['Exact', 'NotOlderThan', '']));
    if (match === 'Exact' && q.get('resourceVersion') === '0') {
      errs.push(
        fieldForbidden('resourceVersionMatch', 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'),
      );
    }
  }
  if (q.get('sendInitialEvents') !== null)
    errs.push(fieldForbidden('sendInitialEvents', 'sendInitialEvents is only supported on watch requests'));
  return errs;
}

function watchErrors(q: Query): FieldError[] {
  const errs: FieldError[] = [];
  const match = q.get('resourceVersionMatch');
  const initial = q.get('sendInitialEvents') !== null;
  if (initial) {
    if (match !== 'NotOlderThan')
      errs.push(
        fieldForbidden(
          'resourceVersionMatch',
          'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan',
        ),
      );
    errs.push(
      fieldForbidden(
        'sendInitialEvents',
        'sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled',
      ),
    );
  }
  if (match) {
    if (!initial)
      errs.push(
        fieldForbidden(
          'resourceVersionMatch',
          'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided',
        ),
      );
    if (match !== 'NotOlderThan') errs.push(fieldNotSupported('resourceVersionMatch', match, ['NotOlderThan']));
    if (q.get('continue'))
      errs.push(fieldForbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
  }
  return errs;
}

/** Throws 422 Invalid when the options of a list (or watch) request are not allowed together. */
export function validateListOptions(q: Query, watch: boolean): void {
  const errs = watch ? watchErrors(q) : listErrors(q);
  if (errs.length) throw invalid(LIST_OPTIONS, '', errs);
}
