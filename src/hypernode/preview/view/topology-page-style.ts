// The stylesheet inlined into the HTML topology view (topology-html.ts). The
// colours of a plan's change kinds are defined here once, as CSS variables,
// so the picture, the tree list and the legend cannot disagree.

export const TOPOLOGY_PAGE_STYLE = `
:root {
  --create: #2e7d32; --update: #f9a825; --delete: #c62828; --held: #6a1b9a; --same: #b0bec5;
  --t0: #90caf9; --t1: #a5d6a7; --t2: #ffcc80; --t3: #ce93d8; --t4: #80cbc4; --t5: #ef9a9a;
  --hit: #111; --ink: #1b1f23; --muted: #5f6b76; --line: #d0d7de;
  font: 13px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--ink);
}
* { box-sizing: border-box; }
body { margin: 0; display: flex; flex-direction: column; height: 100vh; }
header { display: flex; flex-wrap: wrap; align-items: center; gap: 8px 16px; padding: 8px 12px; border-bottom: 1px solid var(--line); }
h1 { font-size: 15px; margin: 0; }
form { display: flex; gap: 4px; }
input[type=search] { width: 22em; padding: 3px 6px; font: inherit; }
#status { color: var(--muted); }
#status.miss { color: var(--delete); }
#legend { display: flex; gap: 10px; margin-left: auto; }
.swatch { display: inline-block; width: 11px; height: 11px; margin-right: 4px; vertical-align: -1px; border-radius: 2px; }
#notes { padding: 0 12px; color: var(--held); max-height: 30vh; overflow: auto; }
#notes:empty { display: none; }
main { flex: 1; display: flex; min-height: 0; }
#picture { flex: 3; display: flex; flex-direction: column; min-width: 0; border-right: 1px solid var(--line); }
#crumbs { padding: 4px 8px; color: var(--muted); white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
#icicle { flex: 1; width: 100%; display: block; }
#icicle rect { stroke: #fff; stroke-width: 0.5; cursor: pointer; }
#icicle text { font-size: 11px; pointer-events: none; fill: var(--ink); }
#icicle text.on-dark { fill: #fff; }
#hover { margin-left: 1.5em; color: var(--ink); }
#icicle.searching rect { opacity: 0.25; }
#icicle.searching rect.hit { opacity: 1; stroke: var(--hit); stroke-width: 2; }
#icicle rect.selected { stroke: var(--hit); stroke-width: 2; }
#list { flex: 2; overflow: auto; padding: 4px 8px; min-width: 0; }
details { margin-left: 14px; }
#tree > details { margin-left: 0; }
summary { cursor: pointer; white-space: nowrap; padding: 1px 2px; border-radius: 3px; }
summary.hit { background: #fff3bf; font-weight: 600; }
summary.selected { outline: 1px solid var(--hit); }
.meta { color: var(--muted); margin-left: 6px; }
.tag { display: inline-block; padding: 0 5px; border-radius: 8px; color: #fff; font-size: 11px; margin-left: 6px; }
.nodes { margin: 2px 0 4px 30px; color: var(--muted); white-space: normal; }
.nodes mark { background: #fff3bf; color: var(--ink); font-weight: 600; }
#details { position: fixed; right: 12px; bottom: 12px; width: 30em; max-height: 45vh; overflow: auto; background: #fff;
  border: 1px solid var(--line); border-radius: 6px; box-shadow: 0 4px 16px rgba(0,0,0,.15); padding: 8px 12px; }
#details h2 { font-size: 14px; margin: 0 0 6px; word-break: break-all; }
#details dl { display: grid; grid-template-columns: max-content 1fr; gap: 2px 10px; margin: 0; }
#details dt { color: var(--muted); }
#details dd { margin: 0; word-break: break-all; }
#details ul { margin: 4px 0 0; padding-left: 18px; }
#details button { float: right; }
.create { fill: var(--create); background: var(--create); }
.update { fill: var(--update); background: var(--update); }
.delete { fill: var(--delete); background: var(--delete); }
.held { fill: var(--held); background: var(--held); }
.same { fill: var(--same); background: var(--same); }
.unhealthy { fill: var(--delete); background: var(--delete); }
.t0 { fill: var(--t0); background: var(--t0); } .t1 { fill: var(--t1); background: var(--t1); }
.t2 { fill: var(--t2); background: var(--t2); } .t3 { fill: var(--t3); background: var(--t3); }
.t4 { fill: var(--t4); background: var(--t4); } .t5 { fill: var(--t5); background: var(--t5); }
`;
