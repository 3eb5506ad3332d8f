// Reads one whole list, page by page (client-go's tools/pager ListPager with
// FullListIfExpired): `limit` items a page, following continue tokens; a
// token that expires mid-way (410 Expired: the server compacted the
// revision the list started from) restarts the list whole at the same
// resourceVersion instead of failing. Shared by the reflector (informers) and
// the one-shot reads of `plan` and the kubectl plugin.

import { nullLogger, type Logger } from '../log.ts';
import { errorMessage } from '../util/error-message.ts';
import { isGone } from './errors.ts';
import { listItems } from './list-items.ts';
import type { ObjectList } from './resource.ts';
import type { KubeObject } from './types.ts';

/** Items per list page, as client-go's reflector asks. */
export const LIST_PAGE_SIZE = 500;

/** One list request: `limit` absent = unpaged; `resourceVersion` absent = a consistent read, `0` = any cached state. */
export interface PageRequest {
  limit?: number;
  continue?: string;
  resourceVersion?: string;
}

export interface ListedPages<T> {
  readonly items: T[];
  readonly resourceVersion: string;
  /** The server answered in more than one page. */
  readonly paged: boolean;
}

export interface PagerOptions {
  /** The resource, named in errors about its answers (e.g. `nodes`). */
  readonly resource: string;
  /** '' or absent: a consistent read. */
  readonly resourceVersion?: string;
  /** Absent: one unpaged request. */
  readonly limit?: number;
  readonly logger?: Logger;
}

/** Every item of one list; `list` sends one request. */
export async function listAllPages<T extends KubeObject>(
  list: (request: PageRequest) => Promise<ObjectList<T>>,
  opts: PagerOptions,
): Promise<ListedPages<T>> {
  const { resource, limit } = opts;
  const rv = opts.resourceVersion ? { resourceVersion: opts.resourceVersion } : {};
  const items: T[] = [];
  let cont: string | undefined;
  let page: ObjectList<T>;
  let paged = false;
  do {
    try {
      page = await list(cont ? { limit: limit!, continue: cont } : { ...(limit ? { limit } : {}), ...rv });
    } catch (err) {
      if (!cont || !isGone(err)) throw err;
      (opts.logger ?? nullLogger)
        .v(2)
        .info('The list expired while paging, listing it whole', { err: errorMessage(err) });
      const whole = await list(rv);
      return { items: listItems(whole, resource), resourceVersion: whole.metadata?.resourceVersion ?? '', paged };
    }
    for (const item of listItems(page, resource)) items.push(item);
    cont = page.metadata?.continue || undefined;
    if (cont) paged = true;
  } while (cont);
  return { items, resourceVersion: page.metadata?.resourceVersion ?? '', paged };
}
