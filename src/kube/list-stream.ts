// Reads a List answer item by item as its bytes arrive, handing each item to a
// transform at once: a whole list of 100,000 Nodes (~100 MB, one answer from
// the API server's watch cache) then never exists as one string or one parsed
// tree, only as the transformed items. The rest of the body (kind, metadata,
// `"items": null`) is parsed as usual. Used by rest.ts for whole lists.

import { isMapping } from '../util/is-mapping.ts';

/** Splits a streamed List body; `finish()` returns the List with `items` already transformed. */
export class ListStreamReader {
  private depth = 0;
  private inString = false;
  private escaped = false;
  /** Inside the top-level array (a List's only one: `items`). */
  private inItems = false;
  private sawItems = false;
  /** Bytes outside the items' elements: the List without its items. */
  private readonly skeleton: Buffer[] = [];
  /** The bytes of the item being read, across chunks. */
  private itemParts: Buffer[] = [];
  private itemOpen = false;
  private stray = false;
  private readonly items: unknown[] = [];

  constructor(private readonly transform: (item: unknown) => unknown) {}

  push(chunk: Buffer): void {
    let skeletonFrom = this.inItems ? -1 : 0;
    let itemFrom = this.itemOpen ? 0 : -1;
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i]!;
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (b === 0x5c) this.escaped = true;
        else if (b === 0x22) this.inString = false;
        continue;
      }
      switch (b) {
        case 0x22: // "
          this.inString = true;
          if (this.inItems && this.depth === 2 && !this.itemOpen) this.stray = true;
          break;
        case 0x7b: // {
          if (this.inItems && this.depth === 2) {
            this.itemOpen = true;
            itemFrom = i;
          }
          this.depth++;
          break;
        case 0x5b: // [
          if (this.depth === 1 && !this.sawItems) {
            this.inItems = true;
            this.sawItems = true;
            this.skeleton.push(chunk.subarray(skeletonFrom, i + 1));
            skeletonFrom = -1;
          } else if (this.inItems && this.depth === 2 && !this.itemOpen) this.stray = true;
          this.depth++;
          break;
        case 0x7d: // }
          this.depth--;
          if (this.itemOpen && this.depth === 2) {
            this.itemParts.push(chunk.subarray(itemFrom, i + 1));
            this.endItem();
            itemFrom = -1;
          }
          break;
        case 0x5d: // ]
          this.depth--;
          if (this.inItems && this.depth === 1) {
            this.inItems = false;
            skeletonFrom = i;
          }
          break;
        default:
          // Between items only commas and whitespace belong; anything else is not an object.
          if (
            this.inItems &&
            this.depth === 2 &&
            !this.itemOpen &&
            b !== 0x2c &&
            b !== 0x20 &&
            b !== 0x0a &&
            b !== 0x0d &&
            b !== 0x09
          )
            this.stray = true;
      }
    }
    if (skeletonFrom >= 0) this.skeleton.push(chunk.subarray(skeletonFrom));
    if (this.itemOpen && itemFrom >= 0) this.itemParts.push(chunk.subarray(itemFrom));
  }

  private endItem(): void {
    const text = Buffer.concat(this.itemParts).toString('utf8');
    this.itemParts = [];
    this.itemOpen = false;
    this.items.push(this.transform(JSON.parse(text)));
  }

  /** The List, items transformed; throws on a truncated body or items that are not all objects. */
  finish(): Record<string, unknown> {
    if (this.depth !== 0 || this.inString) throw new Error('the list answer ends before its JSON does (truncated)');
    if (this.stray) throw new Error('the list answer holds items that are not objects');
    const list = JSON.parse(Buffer.concat(this.skeleton).toString('utf8')) as unknown;
    if (!this.sawItems || !isMapping(list)) return list as Record<string, unknown>;
    return { ...list, items: this.items };
  }
}
