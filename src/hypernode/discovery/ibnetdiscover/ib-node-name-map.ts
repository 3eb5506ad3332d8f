// rdma-core's node-name-map, the file infiniband-diags read for names
// (`/etc/rdma/ib-node-name-map`, `ibnetdiscover --node-name-map FILE`): one
// node a line, `0x<node GUID> "<name>"`, the name quoted and free to hold
// spaces, `#` comments and blank lines. ibnetdiscover prints a mapped node's
// name in place of its node description, so a name here is read as its
// description would be (`gpu01 mlx5_0`: host and device; `LEAF-07`: a
// switch's name). Sites keep one beside their fabric; `config.nodeNameMap`
// reads it, and `config.hostGuids` takes its lines too (host-guids.ts).

/** Names by node GUID as 16 lower-case hex digits. */
export type NodeNames = ReadonlyMap<string, string>;

/** A line's GUID and name: the name quoted (up to the next quote) or, as rdma-core reads it, the rest of the line. */
const LINE = /^\s*0[xX]([0-9a-fA-F]{1,16})\s+(?:"([^"]*)"|([^\s"][^"]*?))\s*$/;
/** A line of this form rather than `GUID node`: its name is quoted. */
const QUOTED_NAME = /^\s*\S+\s+"/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: a name with control characters would reach logs and objects
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** Whether `line` is written in the node-name-map's form, `<GUID> "<name>"`. */
export const isNodeNameMapLine = (line: string): boolean => QUOTED_NAME.test(line);

/** A line's GUID and name; undefined for a comment or a blank line; throws saying what the line lacks. */
export function nodeNameMapLine(line: string): { readonly guid: string; readonly name: string } | undefined {
  const text = line.replace(/\r$/, '');
  if (/^\s*(#|$)/.test(text)) return undefined;
  const m = LINE.exec(text.replace(/("[^"]*")\s*#.*$/, '$1'));
  if (!m) throw new Error('is not `0x<GUID> "<name>"` (a node GUID of up to 16 hex digits, then the name in quotes)');
  const name = (m[2] ?? m[3]!).trim();
  if (name === '') throw new Error('names the GUID with an empty name');
  if (CONTROL.test(name)) throw new Error('holds a control character in its name');
  return { guid: m[1]!.toLowerCase().padStart(16, '0'), name };
}

/**
 * The names of a node-name-map (`where` names it in errors). A GUID named twice keeps its first name, as
 * infiniband-diags read it; a line that is neither a comment nor `0x<GUID> "<name>"` is refused by number.
 */
export function parseNodeNameMap(text: string, where: string): NodeNames {
  const names = new Map<string, string>();
  text.split('\n').forEach((line, i) => {
    let entry: ReturnType<typeof nodeNameMapLine>;
    try {
      entry = nodeNameMapLine(line);
    } catch (err) {
      throw new Error(`${where} line ${i + 1} ${(err as Error).message}`);
    }
    if (entry && !names.has(entry.guid)) names.set(entry.guid, entry.name);
  });
  return names;
}
