// The page's own elements (topology-html.ts writes them) and the small
// pieces of markup the page builds from the view's data, always as text.

/** The element of the page with this id; the page always has it, so a missing one is a broken page. */
export function byId<T extends Element = HTMLElement>(id: string): T {
  const e = document.getElementById(id);
  if (!e) throw new Error(`the topology page has no element #${id}`);
  return e as unknown as T;
}

/** A `<span>` of class `cls` holding `text` (as text, never markup). */
export function span(cls: string, text?: string): HTMLSpanElement {
  const s = document.createElement('span');
  s.className = cls;
  if (text !== undefined) s.textContent = text;
  return s;
}

/** The `<summary>` of a tree row. */
export function summaryOf(row: HTMLDetailsElement): HTMLElement {
  return row.firstElementChild as HTMLElement;
}
