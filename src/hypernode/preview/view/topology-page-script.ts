// The script inlined into the HTML topology view (topology-html.ts), as text:
// it runs in the reader's browser, not here. It reads the view's data
// (topology-model.ts) from the page, draws the icicle (one <rect> per
// HyperNode, rows by depth, widths by the Nodes beneath), fills the tree list
// lazily (a row's children are built when it is first opened, so 9,300
// HyperNodes open fast), answers searches, and shows a HyperNode's details
// (and, in a plan, its field-level diff) on click. Plain ES2020, no library,
// no network; everything user-supplied goes through textContent or esc().
// It marks <html data-state="ready"> after the first drawing and
// data-searched="<query>" after each answer, for the tests and the benchmark.

export const TOPOLOGY_PAGE_SCRIPT = `
(function () {
  'use strict';
  performance.mark('view:start');
  var data = JSON.parse(document.getElementById('topology-data').textContent);
  performance.mark('view:parsed');
  var hns = data.hyperNodes;
  var count = hns.length;
  var byName = new Map();
  var nodeIn = new Map();
  var parents = new Array(count);
  var i, j;
  for (i = 0; i < count; i++) parents[i] = [];
  for (i = 0; i < count; i++) {
    var h = hns[i];
    byName.set(h.name, i);
    for (j = 0; j < h.children.length; j++) parents[h.children[j]].push(i);
    for (j = 0; j < h.nodes.length; j++) {
      var list = nodeIn.get(h.nodes[j]);
      if (list) list.push(i); else nodeIn.set(h.nodes[j], [i]);
    }
  }

  // The layout tree: a HyperNode sits under the first parent that reaches it
  // (roots first: highest tier, then name); one caught in a cycle becomes a root.
  var kids = new Array(count), depth = new Int32Array(count), below = new Int32Array(count), weight = new Float64Array(count), x0 = new Float64Array(count);
  var placed = new Uint8Array(count), roots = [];
  var order = [];
  for (i = 0; i < count; i++) { kids[i] = []; if (parents[i].length === 0) order.push(i); }
  order.sort(function (a, b) { return hns[b].tier - hns[a].tier || (hns[a].name < hns[b].name ? -1 : 1); });
  function place(root) {
    var stack = [root];
    placed[root] = 1; depth[root] = 0; roots.push(root);
    while (stack.length) {
      var p = stack.pop(), c = hns[p].children;
      for (var k = 0; k < c.length; k++) {
        if (placed[c[k]]) continue;
        placed[c[k]] = 1; depth[c[k]] = depth[p] + 1; kids[p].push(c[k]); stack.push(c[k]);
      }
    }
  }
  order.forEach(place);
  for (i = 0; i < count; i++) if (!placed[i]) place(i);
  var maxDepth = 0, total = 0;
  function measure(root) {
    var post = [], stack = [root];
    while (stack.length) { var p = stack.pop(); post.push(p); for (var k = 0; k < kids[p].length; k++) stack.push(kids[p][k]); }
    for (var q = post.length - 1; q >= 0; q--) {
      var n = post[q], h = hns[n], w = h.nodes.length;
      if (w === 0 && kids[n].length === 0) w = Math.max(1, h.nodeCount);
      for (var k2 = 0; k2 < kids[n].length; k2++) w += weight[kids[n][k2]];
      weight[n] = w;
      below[n] = depth[n];
      for (var k3 = 0; k3 < kids[n].length; k3++) if (below[kids[n][k3]] > below[n]) below[n] = below[kids[n][k3]];
      if (depth[n] > maxDepth) maxDepth = depth[n];
    }
  }
  function position(root, start) {
    var stack = [root]; x0[root] = start;
    while (stack.length) {
      var p = stack.pop(), x = x0[p] + (weight[p] - childWeight(p));
      for (var k = 0; k < kids[p].length; k++) { x0[kids[p][k]] = x; x += weight[kids[p][k]]; stack.push(kids[p][k]); }
    }
  }
  function childWeight(p) { var s = 0; for (var k = 0; k < kids[p].length; k++) s += weight[kids[p][k]]; return s; }
  roots.forEach(function (r) { measure(r); position(r, total); total += weight[r]; });
  performance.mark('view:laid-out');

  var svg = document.getElementById('icicle');
  var NS = 'http://www.w3.org/2000/svg';
  // Health: outside a plan, a HyperNode with a False condition is drawn in the unhealthy colour.
  function colourClass(h) { return data.plan ? (h.change || 'same') : h.unhealthy ? 'unhealthy' : 't' + (Math.max(0, h.tier) % 6); }
  function esc(s) { return String(s).replace(/[&<>"]/g, function (c) { return { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c]; }); }

  // Every HyperNode has its <rect>; one narrower than a pixel waits in a
  // group that is not displayed (it could not be seen, and styling and laying
  // out thousands of them is what makes a big page slow), and its parent gets
  // one hatched "fold" below it instead: a click there zooms in.
  var rectsHtml = new Array(count);
  for (i = 0; i < count; i++) rectsHtml[i] = '<rect class="hn ' + colourClass(hns[i]) + '" data-i="' + i + '"></rect>';
  svg.innerHTML = '<defs><pattern id="folded" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="3" height="6" fill="#cfd8dc"></rect></pattern></defs>' +
    '<g id="parked" display="none">' + rectsHtml.join('') + '</g><g id="rects"></g><g id="folds"></g><g id="labels"></g>';
  var parked = svg.querySelector('#parked');
  var rects = Array.prototype.slice.call(parked.children);
  var drawn = svg.querySelector('#rects');
  var folds = svg.querySelector('#folds');
  var labels = svg.querySelector('#labels');
  var shown = new Uint8Array(count);
  var view = { from: 0, to: total, focus: -1 };
  var MIN_PX = 1;
  /** Fills dark enough to need light text. */
  var DARK = { create: true, delete: true, held: true };

  function draw() {
    var width = svg.clientWidth || 800, height = svg.clientHeight || 400;
    var rowH = Math.max(14, Math.min(48, height / (maxDepth + 1)));
    var scale = width / Math.max(1e-9, view.to - view.from);
    var text = [], fold = [];
    for (var n = 0; n < count; n++) {
      var left = (x0[n] - view.from) * scale, right = (x0[n] + weight[n] - view.from) * scale;
      if (left < 0) left = 0;
      if (right > width) right = width;
      var r = rects[n], w = right - left;
      if (w < MIN_PX) {
        if (shown[n]) { parked.appendChild(r); shown[n] = 0; }
        continue;
      }
      r.setAttribute('x', left); r.setAttribute('y', depth[n] * rowH);
      r.setAttribute('width', w); r.setAttribute('height', rowH - 1);
      if (!shown[n]) { drawn.appendChild(r); shown[n] = 1; }
      var hidden = 0;
      for (var k = 0; k < kids[n].length; k++) if (weight[kids[n][k]] * scale < MIN_PX) hidden++;
      if (hidden) fold.push('<rect class="fold" data-i="' + n + '" x="' + left + '" y="' + (depth[n] + 1) * rowH + '" width="' + w + '" height="' + ((below[n] - depth[n]) * rowH - 1) + '" fill="url(#folded)"><title>' + hidden + ' HyperNodes too narrow to draw here: click to zoom in</title></rect>');
      if (w > 40) {
        var chars = Math.floor((w - 6) / 6.5), name = hns[n].name;
        text.push('<text' + (DARK[colourClass(hns[n])] ? ' class="on-dark"' : '') + ' x="' + (left + 3) + '" y="' + (depth[n] * rowH + Math.min(rowH - 4, 15)) + '">' + esc(name.length > chars ? name.slice(0, Math.max(1, chars - 1)) + '\\u2026' : name) + '</text>');
      }
    }
    folds.innerHTML = fold.join('');
    labels.innerHTML = text.join('');
  }

  function zoom(n) {
    if (n < 0) { view.from = 0; view.to = total; }
    else { view.from = x0[n]; view.to = x0[n] + weight[n]; }
    view.focus = n;
    document.getElementById('crumbs-path').textContent = n < 0 ? '' : ' \\u203a ' + pathOf(n).map(function (p) { return hns[p].name; }).join(' \\u203a ');
    draw();
  }

  function pathOf(n) {
    var path = [n];
    for (;;) { var p = layoutParent(path[0]); if (p < 0) break; path.unshift(p); }
    return path;
  }
  var lparent = new Int32Array(count).fill(-1);
  for (i = 0; i < count; i++) for (j = 0; j < kids[i].length; j++) lparent[kids[i][j]] = i;
  function layoutParent(n) { return lparent[n]; }

  // Tree list: rows are built when their parent first opens.
  var tree = document.getElementById('tree');
  var rows = new Array(count);
  function meta(h) {
    var parts = ['tier ' + h.tier + (h.tierName ? ' (' + h.tierName + ')' : '')];
    if (h.source) parts.push(h.source);
    if (h.profile) parts.push('profile ' + h.profile);
    if (h.fabric) parts.push('fabric ' + h.fabric);
    parts.push(h.nodeCount + ' nodes');
    return parts.join(' \\u00b7 ');
  }
  function row(n) {
    var h = hns[n], d = document.createElement('details'), s = document.createElement('summary');
    d.dataset.i = n; s.dataset.i = n;
    var name = document.createElement('span'); name.className = 'name'; name.textContent = h.name; s.appendChild(name);
    var m = document.createElement('span'); m.className = 'meta'; m.textContent = meta(h); s.appendChild(m);
    if (data.plan && h.change) { var t = document.createElement('span'); t.className = 'tag ' + h.change; t.textContent = h.change; s.appendChild(t); }
    d.appendChild(s);
    rows[n] = d;
    return d;
  }
  function fill(n) {
    var d = rows[n];
    if (d.dataset.filled) return;
    d.dataset.filled = '1';
    var frag = document.createDocumentFragment();
    kids[n].forEach(function (c) { frag.appendChild(row(c)); });
    var h = hns[n];
    if (h.nodes.length) {
      var div = document.createElement('div'); div.className = 'nodes';
      var first = h.nodes.slice(0, 500);
      first.forEach(function (name, k) { if (k) div.appendChild(document.createTextNode(', ')); var sp = document.createElement('span'); sp.textContent = name; sp.dataset.node = name; div.appendChild(sp); });
      if (h.nodes.length > first.length) div.appendChild(document.createTextNode(' \\u2026 and ' + (h.nodes.length - first.length) + ' more'));
      frag.appendChild(div);
    }
    d.appendChild(frag);
  }
  roots.forEach(function (r) { tree.appendChild(row(r)); });
  if (roots.length === 1) { fill(roots[0]); rows[roots[0]].open = true; }
  tree.addEventListener('click', function (e) {
    var s = e.target.closest('summary');
    if (!s) return;
    var n = Number(s.dataset.i);
    fill(n);
    select(n, false);
  });

  // Details of one HyperNode (and a plan's diff).
  var details = document.getElementById('details');
  var selected = -1;
  function select(n, fromPicture) {
    if (selected >= 0) { rects[selected].classList.remove('selected'); if (rows[selected]) rows[selected].firstChild.classList.remove('selected'); }
    selected = n;
    rects[n].classList.add('selected');
    if (rows[n]) rows[n].firstChild.classList.add('selected');
    var h = hns[n];
    details.textContent = '';
    var close = document.createElement('button'); close.textContent = '\\u00d7'; close.title = 'close';
    close.onclick = function () { details.hidden = true; };
    details.appendChild(close);
    var title = document.createElement('h2'); title.textContent = h.name; details.appendChild(title);
    var dl = document.createElement('dl');
    function field(k, v) { if (v === undefined || v === '') return; var dt = document.createElement('dt'); dt.textContent = k; var dd = document.createElement('dd'); dd.textContent = v; dl.appendChild(dt); dl.appendChild(dd); }
    if (data.plan) field('change', h.change || 'none');
    field('tier', String(h.tier) + (h.tierName ? ' (' + h.tierName + ')' : ''));
    field('source', h.source); field('profile', h.profile); field('fabric', h.fabric);
    field('nodeCount', String(h.nodeCount));
    if (h.unhealthy) field('unhealthy', h.unhealthy.join('; '));
    field('parents', parents[n].map(function (p) { return hns[p].name; }).join(', '));
    if (h.children.length) field('HyperNodes', h.children.length + ': ' + h.children.slice(0, 20).map(function (c) { return hns[c].name; }).join(', ') + (h.children.length > 20 ? ', \\u2026' : ''));
    if (h.nodes.length) field('Nodes', h.nodes.length + ': ' + h.nodes.slice(0, 20).join(', ') + (h.nodes.length > 20 ? ', \\u2026' : ''));
    details.appendChild(dl);
    if (h.diff && h.diff.length) {
      var ul = document.createElement('ul'); ul.className = 'diff';
      h.diff.forEach(function (line) { var li = document.createElement('li'); li.textContent = line; ul.appendChild(li); });
      details.appendChild(ul);
    }
    details.hidden = false;
    if (fromPicture) { reveal(n); rows[n].scrollIntoView({ block: 'nearest' }); }
  }
  function reveal(n) {
    var path = pathOf(n);
    for (var k = 0; k < path.length - 1; k++) { fill(path[k]); rows[path[k]].open = true; }
  }

  svg.addEventListener('click', function (e) {
    var n = e.target.dataset ? e.target.dataset.i : undefined;
    if (n === undefined) return;
    n = Number(n);
    select(n, true);
    zoom(kids[n].length ? n : layoutParent(n));
  });
  var hover = document.getElementById('hover');
  svg.addEventListener('mousemove', function (e) {
    var n = e.target.dataset ? e.target.dataset.i : undefined;
    hover.textContent = n === undefined ? '' : hns[n].name + ' \\u00b7 ' + meta(hns[n]);
  });
  document.getElementById('reset').addEventListener('click', function () { zoom(-1); });

  // Search: a HyperNode's path, or every HyperNode holding a Node.
  var status = document.getElementById('status');
  var hits = [];
  function clearHits() {
    hits.forEach(function (n) { rects[n].classList.remove('hit'); if (rows[n]) rows[n].firstChild.classList.remove('hit'); });
    hits = [];
    tree.querySelectorAll('mark').forEach(function (m) { m.replaceWith(document.createTextNode(m.textContent)); });
    svg.classList.remove('searching');
  }
  function ancestors(starts) {
    var seen = new Set(starts), queue = starts.slice();
    while (queue.length) { var n = queue.pop(); parents[n].forEach(function (p) { if (!seen.has(p)) { seen.add(p); queue.push(p); } }); }
    return Array.from(seen);
  }
  function search(query) {
    clearHits();
    status.className = '';
    var q = query.trim();
    if (q === '') { status.textContent = ''; zoom(-1); return; }
    var starts, what, node = null;
    if (byName.has(q)) { starts = [byName.get(q)]; what = 'HyperNode'; }
    else if (nodeIn.has(q)) { starts = nodeIn.get(q); what = 'Node'; node = q; }
    if (!starts) {
      var lower = q.toLowerCase(), near = [];
      for (var k = 0; k < count && near.length < 5; k++) if (hns[k].name.toLowerCase().indexOf(lower) >= 0) near.push(hns[k].name);
      nodeIn.forEach(function (_v, name) { if (near.length < 8 && name.toLowerCase().indexOf(lower) >= 0) near.push(name); });
      status.className = 'miss';
      status.textContent = 'No Node or HyperNode is named \\u201c' + q + '\\u201d' + (near.length ? '. Similar: ' + near.join(', ') : '.');
      zoom(-1);
      return;
    }
    hits = ancestors(starts);
    svg.classList.add('searching');
    hits.forEach(function (n) { rects[n].classList.add('hit'); });
    starts.forEach(reveal);
    hits.forEach(function (n) { if (rows[n]) rows[n].firstChild.classList.add('hit'); });
    if (node !== null) {
      starts.forEach(function (n) { fill(n); rows[n].open = true; var sp = rows[n].querySelector('[data-node="' + CSS.escape(node) + '"]'); if (sp) { var m = document.createElement('mark'); m.textContent = node; sp.textContent = ''; sp.appendChild(m); } });
    }
    var top = pathOf(starts[0])[0];
    zoom(top);
    select(starts[0], false);
    rows[starts[0]].scrollIntoView({ block: 'center' });
    status.textContent = what + ' ' + q + ': ' + (node !== null ? 'in ' + starts.length + ' HyperNode' + (starts.length === 1 ? '' : 's') + ', ' : '') + hits.length + ' highlighted: ' + pathOf(starts[0]).map(function (p) { return hns[p].name; }).reverse().join(' \\u2190 ');
  }
  document.getElementById('search').addEventListener('submit', function (e) {
    e.preventDefault();
    performance.mark('view:search');
    search(document.getElementById('q').value);
    performance.mark('view:searched');
    document.documentElement.dataset.searched = document.getElementById('q').value;
  });

  // Legend.
  var legend = document.getElementById('legend');
  function swatch(cls, label) {
    var s = document.createElement('span'); var b = document.createElement('span'); b.className = 'swatch ' + cls; s.appendChild(b);
    s.appendChild(document.createTextNode(label)); s.dataset.kind = cls; legend.appendChild(s);
  }
  if (data.plan) {
    var counts = { create: 0, update: 0, delete: 0, held: 0, same: 0 };
    hns.forEach(function (h) { counts[h.change || 'same']++; });
    [['create', 'create'], ['update', 'update'], ['delete', 'delete'], ['held', 'held delete'], ['same', 'unchanged']].forEach(function (k) { swatch(k[0], k[1] + ' ' + counts[k[0]]); });
  } else {
    var tiers = Array.from(new Set(hns.map(function (h) { return h.tier; }))).sort(function (a, b) { return b - a; });
    tiers.forEach(function (t) { swatch('t' + (Math.max(0, t) % 6), 'tier ' + t); });
  }
  var notes = document.getElementById('notes');
  data.notes.forEach(function (line) { var p = document.createElement('div'); p.textContent = line; notes.appendChild(p); });

  var pending = 0;
  window.addEventListener('resize', function () { cancelAnimationFrame(pending); pending = requestAnimationFrame(draw); });
  zoom(-1);
  performance.mark('view:drawn');
  document.documentElement.dataset.state = 'ready';
})();
`;
