// The stylesheet inlined into the HTML topology view (topology-html.ts). The
// colours of a plan's change kinds and the palette the levels take theirs
// from (view-levels.ts, LEVEL_COLOURS of them) are defined here once, as CSS
// variables, so the picture, the tree list, the side panel and the legend
// cannot disagree; so is the colour of a Node with the fabric taint. The
// side panel wraps or truncates (with the full text in a tooltip), so it
// never scrolls sideways.

export const TOPOLOGY_PAGE_STYLE = `
:root {
  --create: #2e7d32; --update: #f9a825; --delete: #c62828; --held: #6a1b9a; --same: #b0bec5;
  --c0: #90caf9; --c1: #a5d6a7; --c2: #ffcc80; --c3: #ce93d8; --c4: #80cbc4; --c5: #ef9a9a; --c6: #fff59d; --c7: #bcaaa4;
  --node: #eceff1; --node-line: #b0bec5; --found: #ffd54f; --tainted: #ffab91; --tainted-line: #d84315;
  --hit: #111; --ink: #1b1f23; --muted: #5f6b76; --line: #d0d7de;
  font: 13px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--ink);
}
* { box-sizing: border-box; }
body { margin: 0; display: flex; flex-direction: column; height: 100vh; }
header { display: flex; flex-wrap: wrap; align-items: center; gap: 8px 16px; padding: 8px 12px; border-bottom: 1px solid var(--line); }
h1 { font-size: 15px; margin: 0; }
form { display: flex; gap: 4px; }
input[type=search] { width: 22em; padding: 3px 6px; font: inherit; }
#status { color: var(--muted); overflow-wrap: anywhere; }
#status.miss { color: var(--delete); }
#legend { display: flex; flex-wrap: wrap; gap: 4px 14px; margin-left: auto; }
#legend .level { font-weight: 600; }
#legend .more { color: var(--muted); margin-left: 5px; }
.swatch { display: inline-block; flex: none; width: 11px; height: 11px; margin-right: 5px; vertical-align: -1px; border-radius: 2px; }
#notes { padding: 0 12px; color: var(--held); max-height: 30vh; overflow: auto; }
#notes:empty { display: none; }
main { flex: 1; display: flex; min-height: 0; }
#picture { flex: 3; display: flex; flex-direction: column; min-width: 0; border-right: 1px solid var(--line); }
#crumbs { display: flex; align-items: center; gap: 2px; padding: 4px 8px; color: var(--muted); white-space: nowrap; overflow: hidden; }
#crumbs button { font: inherit; }
#crumbs .crumb { border: 0; background: none; color: var(--ink); padding: 1px 3px; cursor: pointer; text-decoration: underline dotted; }
#keys { margin-left: auto; padding-left: 12px; font-size: 11px; overflow: hidden; text-overflow: ellipsis; }
#icicle { flex: 1; width: 100%; display: block; }
#icicle:focus { outline: none; }
#icicle:focus-visible { outline: 2px solid var(--update); outline-offset: -2px; }
#icicle rect { stroke: #fff; stroke-width: 0.5; cursor: pointer; }
#icicle rect.nd { fill: var(--node); stroke: var(--node-line); }
#icicle rect.nd.agg { fill: #cfd8dc; }
#icicle rect.nd.tainted { fill: var(--tainted); stroke: var(--tainted-line); }
#icicle text { pointer-events: none; fill: var(--ink); }
#icicle text.name { font-size: 12px; font-weight: 600; }
#icicle text.kind { font-size: 10.5px; fill: #37474f; }
#icicle text.nd-name, #icicle text.nd-count { font-size: 10.5px; fill: #37474f; }
#icicle text.on-dark { fill: #fff; }
#icicle.searching rect { opacity: 0.25; }
#icicle.searching rect.hit { opacity: 1; stroke: var(--hit); stroke-width: 2; }
#icicle.searching rect.nd.hit { fill: var(--found); }
#icicle text.nd-name.hit { font-weight: 700; fill: var(--ink); }
#icicle rect.selected { stroke: var(--hit); stroke-width: 2; }
#tip { position: fixed; z-index: 2; max-width: 32em; padding: 5px 8px; background: #fff; border: 1px solid var(--line); border-radius: 4px;
  box-shadow: 0 3px 10px rgba(0,0,0,.15); pointer-events: none; color: var(--muted); font-size: 12px; overflow-wrap: anywhere; }
#tip .lead { color: var(--ink); font-weight: 600; }
#side { flex: 2; display: flex; flex-direction: column; min-width: 0; overflow: hidden; }
#list { flex: 1; overflow: hidden auto; padding: 4px 8px; min-height: 0; }
details { margin-left: 14px; }
#tree > details { margin-left: 0; }
summary { display: flex; align-items: baseline; min-width: 0; cursor: pointer; list-style: none; padding: 1px 2px; border-radius: 3px; white-space: nowrap; }
summary::-webkit-details-marker { display: none; }
summary::before { content: "\\25b8"; flex: none; width: 1em; color: var(--muted); }
details[open] > summary::before { content: "\\25be"; }
summary .label { flex: 0 1 auto; min-width: 0; overflow: hidden; text-overflow: ellipsis; }
summary .kind, summary .meta { flex: 0 1000 auto; min-width: 0; overflow: hidden; text-overflow: ellipsis; color: var(--muted); margin-left: 6px; }
summary .kind { flex-shrink: 100; }
summary.hit { background: #fff3bf; font-weight: 600; }
summary.selected { outline: 1px solid var(--hit); outline-offset: -1px; }
.tag { flex: none; display: inline-block; padding: 0 5px; border-radius: 8px; color: #fff; font-size: 11px; margin-left: 6px; }
.nodes { margin: 2px 0 4px 30px; color: var(--muted); white-space: normal; overflow-wrap: anywhere; }
.nodes mark { background: var(--found); color: var(--ink); font-weight: 600; }
.nodes .tainted { color: var(--tainted-line); font-weight: 600; }
#details { flex: none; max-height: 50%; overflow: hidden auto; padding: 8px 12px; border-bottom: 1px solid var(--line); background: #fafbfc; }
#details h2 { display: flex; align-items: baseline; min-width: 0; font-size: 15px; margin: 0 0 6px; }
#details h2 .label { min-width: 0; overflow-wrap: anywhere; }
#details h2 .kind { color: var(--muted); font-weight: normal; margin-left: 8px; }
#details dl { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: 2px 10px; margin: 0; }
#details dt { color: var(--muted); }
#details dd { margin: 0; overflow-wrap: anywhere; }
#details ul { margin: 4px 0 0; padding-left: 18px; overflow-wrap: anywhere; }
#details .close { float: right; }
.create { fill: var(--create); background: var(--create); }
.update { fill: var(--update); background: var(--update); }
.delete { fill: var(--delete); background: var(--delete); }
.held { fill: var(--held); background: var(--held); }
.same { fill: var(--same); background: var(--same); }
.unhealthy { fill: var(--delete); background: var(--delete); }
.swatch.tainted { background: var(--tainted); outline: 1px solid var(--tainted-line); outline-offset: -1px; }
.c0 { fill: var(--c0); background: var(--c0); } .c1 { fill: var(--c1); background: var(--c1); }
.c2 { fill: var(--c2); background: var(--c2); } .c3 { fill: var(--c3); background: var(--c3); }
.c4 { fill: var(--c4); background: var(--c4); } .c5 { fill: var(--c5); background: var(--c5); }
.c6 { fill: var(--c6); background: var(--c6); } .c7 { fill: var(--c7); background: var(--c7); }
`;
