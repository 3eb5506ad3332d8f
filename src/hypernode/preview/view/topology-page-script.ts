// The script inlined into the HTML topology view (topology-html.ts), as text:
// it runs in the reader's browser, not here. It reads the view's data
// (topology-model.ts) from the page and draws the icicle: one <rect> per
// HyperNode, rows by depth, widths by the Nodes beneath, each labelled with
// what formed its domain and its tierName, and below each HyperNode that
// holds Nodes a row of those Nodes (one cell each, or one cell with their
// count where a Node would be narrower than a few pixels). It fills the tree
// list lazily (a row's children are built when it is first opened, so 9,300
// HyperNodes open fast), answers searches, shows a HyperNode's details (and,
// in a plan, its field-level diff) in the side panel, names what the pointer
// is over in a tooltip, and moves and zooms with the keyboard. Plain ES2020,
// no library, no network; everything user-supplied goes through textContent
// or esc(). It marks <html data-state="ready"> after the first drawing and
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

  // Words for people: a HyperNode is called by what formed its domain (a
  // label value, a switch) and its level, the tierName's last segment
  // (volcano.sh/hypernode → hypernode); its full name is in the tooltip and
  // the side panel.
  var levels = new Map();
  data.levels.forEach(function (l) { levels.set(l.tierName, l); });
  function levelOf(h) { return levels.get(h.tierName !== undefined ? h.tierName : 'tier ' + h.tier); }
  function shortName(tierName) { var s = tierName.lastIndexOf('/'); return s >= 0 && s < tierName.length - 1 ? tierName.slice(s + 1) : tierName; }
  function kindOf(n) { return shortName(levelOf(hns[n]).tierName); }
  function labelOf(n) { return hns[n].domain !== undefined ? hns[n].domain : hns[n].name; }
  function called(n) { return labelOf(n) + ' (' + kindOf(n) + ')'; }
  function formedBy(h) {
    if (h.domain === undefined) return '';
    return h.domainLabel !== undefined ? 'label ' + h.domainLabel + '=' + h.domain : 'switch ' + h.domain;
  }
  function plural(k, word) { return k + ' ' + word + (k === 1 ? '' : 's'); }

  // The layout tree: a HyperNode sits under the first parent that reaches it
  // (roots first: highest tier, then label); one caught in a cycle becomes a
  // root. Siblings stand in the order of their labels, numbers by value
  // (rack-2 before rack-10), ties by name.
  var kids = new Array(count), depth = new Int32Array(count), below = new Int32Array(count), weight = new Float64Array(count), x0 = new Float64Array(count);
  var placed = new Uint8Array(count), roots = [];
  var order = [];
  var collate = new Intl.Collator('en', { numeric: true }).compare;
  function byLabel(a, b) { return collate(labelOf(a), labelOf(b)) || a - b; }
  for (i = 0; i < count; i++) { kids[i] = []; if (parents[i].length === 0) order.push(i); }
  order.sort(function (a, b) { return hns[b].tier - hns[a].tier || byLabel(a, b); });
  function place(root) {
    var stack = [root];
    placed[root] = 1; depth[root] = 0; roots.push(root);
    while (stack.length) {
      var p = stack.pop(), c = hns[p].children.slice().sort(byLabel);
      for (var k = 0; k < c.length; k++) {
        if (placed[c[k]]) continue;
        placed[c[k]] = 1; depth[c[k]] = depth[p] + 1; kids[p].push(c[k]); stack.push(c[k]);
      }
    }
  }
  order.forEach(place);
  for (i = 0; i < count; i++) if (!placed[i]) place(i);
  // below[n]: the deepest row n's subtree fills, its Nodes' row included.
  var maxRow = 0, total = 0;
  function measure(root) {
    var post = [], stack = [root];
    while (stack.length) { var p = stack.pop(); post.push(p); for (var k = 0; k < kids[p].length; k++) stack.push(kids[p][k]); }
    for (var q = post.length - 1; q >= 0; q--) {
      var n = post[q], h = hns[n], w = h.nodes.length;
      if (w === 0 && kids[n].length === 0) w = Math.max(1, h.nodeCount);
      for (var k2 = 0; k2 < kids[n].length; k2++) w += weight[kids[n][k2]];
      weight[n] = w;
      below[n] = h.nodes.length ? depth[n] + 1 : depth[n];
      for (var k3 = 0; k3 < kids[n].length; k3++) if (below[kids[n][k3]] > below[n]) below[n] = below[kids[n][k3]];
      if (below[n] > maxRow) maxRow = below[n];
    }
  }
  // A HyperNode's own Nodes come first in its span, then its children.
  function position(root, start) {
    var stack = [root]; x0[root] = start;
    while (stack.length) {
      var p = stack.pop(), x = x0[p] + (weight[p] - childWeight(p));
      for (var k = 0; k < kids[p].length; k++) { x0[kids[p][k]] = x; x += weight[kids[p][k]]; stack.push(kids[p][k]); }
    }
  }
  function childWeight(p) { var s = 0; for (var k = 0; k < kids[p].length; k++) s += weight[kids[p][k]]; return s; }
  roots.forEach(function (r) { measure(r); position(r, total); total += weight[r]; });
  var lparent = new Int32Array(count).fill(-1);
  for (i = 0; i < count; i++) for (j = 0; j < kids[i].length; j++) lparent[kids[i][j]] = i;
  function layoutParent(n) { return lparent[n]; }
  function pathOf(n) {
    var path = [n];
    for (;;) { var p = layoutParent(path[0]); if (p < 0) break; path.unshift(p); }
    return path;
  }
  performance.mark('view:laid-out');

  var svg = document.getElementById('icicle');
  // Health: outside a plan, a HyperNode with a False condition is drawn in the unhealthy colour.
  function colourClass(h) { return data.plan ? (h.change || 'same') : h.unhealthy ? 'unhealthy' : 'c' + levelOf(h).colour; }
  function esc(s) { return String(s).replace(/[&<>"]/g, function (c) { return { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c]; }); }
  function fit(s, chars) { return s.length > chars ? s.slice(0, Math.max(1, chars - 1)) + '\\u2026' : s; }

  // Every HyperNode has its <rect>; one narrower than a pixel waits in a
  // group that is not displayed (it could not be seen, and styling and laying
  // out thousands of them is what makes a big page slow), and its parent gets
  // one hatched "fold" below it instead: a click there zooms in. Nodes and
  // text are drawn afresh for what is in view.
  var rectsHtml = new Array(count);
  for (i = 0; i < count; i++) rectsHtml[i] = '<rect class="hn ' + colourClass(hns[i]) + '" data-i="' + i + '"></rect>';
  svg.innerHTML = '<defs><pattern id="folded" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="3" height="6" fill="#cfd8dc"></rect></pattern></defs>' +
    '<g id="parked" display="none">' + rectsHtml.join('') + '</g><g id="rects"></g><g id="node-row"></g><g id="folds"></g><g id="labels"></g>';
  var parked = svg.querySelector('#parked');
  var rects = Array.prototype.slice.call(parked.children);
  var drawn = svg.querySelector('#rects');
  var nodeRow = svg.querySelector('#node-row');
  var folds = svg.querySelector('#folds');
  var labels = svg.querySelector('#labels');
  var shown = new Uint8Array(count);
  var view = { from: 0, to: total, focus: -1 };
  /** Narrower than this a HyperNode is not drawn; a Node gets no cell of its own. */
  var MIN_PX = 1, NODE_PX = 4;
  var MIN_ROW = 18, MAX_ROW = 128;
  /** Fills dark enough to need light text. */
  var DARK = { create: true, delete: true, held: true };
  /** The Node searched for and the HyperNodes holding it directly, for the Node row. */
  var found = { node: null, holders: new Set() };

  function draw() {
    var width = svg.clientWidth || 800, height = svg.clientHeight || 400;
    var rowH = Math.max(MIN_ROW, Math.min(MAX_ROW, Math.floor(height / (maxRow + 1))));
    var scale = width / Math.max(1e-9, view.to - view.from);
    var text = [], fold = [], cells = [];
    for (var n = 0; n < count; n++) {
      var left = (x0[n] - view.from) * scale, right = (x0[n] + weight[n] - view.from) * scale;
      if (left < 0) left = 0;
      if (right > width) right = width;
      var r = rects[n], w = right - left;
      if (w < MIN_PX) {
        if (shown[n]) { parked.appendChild(r); shown[n] = 0; }
        continue;
      }
      var y = depth[n] * rowH;
      r.setAttribute('x', left); r.setAttribute('y', y);
      r.setAttribute('width', w); r.setAttribute('height', rowH - 1);
      if (!shown[n]) { drawn.appendChild(r); shown[n] = 1; }
      var hidden = 0;
      for (var k = 0; k < kids[n].length; k++) if (weight[kids[n][k]] * scale < MIN_PX) hidden++;
      if (hidden) {
        // Over the children's part of n's span: its own Nodes, on the left, stay in view.
        var fl = Math.min(right, Math.max(left, (x0[n] + hns[n].nodes.length - view.from) * scale));
        fold.push('<rect class="fold" data-i="' + n + '" data-fold="' + hidden + '" x="' + fl + '" y="' + (depth[n] + 1) * rowH + '" width="' + (right - fl) + '" height="' + ((below[n] - depth[n]) * rowH - 1) + '" fill="url(#folded)"></rect>');
      }
      if (hns[n].nodes.length) nodeCells(n, scale, width, y + rowH, rowH, cells, text);
      cellText(n, left, y, w, rowH, text);
    }
    folds.innerHTML = fold.join('');
    nodeRow.innerHTML = cells.join('');
    labels.innerHTML = text.join('');
  }

  /**
   * A HyperNode's label: what formed it, then its level and the Nodes beneath
   * when the row has room for a second line; turned upright where not even a
   * few characters fit across, left out where neither way fits (the tooltip
   * has it).
   */
  var FEW = 4;
  function cellText(n, left, y, w, rowH, text) {
    var dark = DARK[colourClass(hns[n])] ? ' on-dark' : '';
    var two = rowH >= 36, beneath = plural(weight[n], 'Node');
    var first = two ? labelOf(n) : labelOf(n) + ' \\u00b7 ' + kindOf(n), chars = Math.floor((w - 8) / 7.2);
    if (chars < Math.min(FEW, first.length)) {
      // Narrow but tall (a zone among thirty): the label turned upright.
      if (w >= 14 && rowH >= 48) text.push('<text class="name' + dark + '" data-i="' + n + '" transform="translate(' + (left + w / 2 + 4) + ',' + (y + rowH - 6) + ') rotate(-90)">' + esc(fit(labelOf(n), Math.floor((rowH - 10) / 7.2))) + '</text>');
      return;
    }
    text.push('<text class="name' + dark + '" data-i="' + n + '" x="' + (left + 4) + '" y="' + (y + Math.min(rowH - 5, 16)) + '">' + esc(fit(first, chars)) + '</text>');
    var small = Math.floor((w - 8) / 6), second = kindOf(n) + ' \\u00b7 ' + beneath;
    if (two && small >= Math.min(FEW, kindOf(n).length)) text.push('<text class="kind' + dark + '" x="' + (left + 4) + '" y="' + (y + 31) + '">' + esc(fit(second.length <= small ? second : kindOf(n), small)) + '</text>');
  }

  /**
   * The row of n's Nodes at y: a cell per Node where a Node gets NODE_PX or
   * more (named, upright or turned, where the name fits), else one cell
   * holding their count. Only what is in view is drawn.
   */
  function nodeCells(n, scale, width, y, rowH, cells, text) {
    var names = hns[n].nodes, nx = (x0[n] - view.from) * scale;
    var hitCls = found.holders.has(n) ? ' hit' : '';
    if (scale < NODE_PX) {
      var l = Math.max(0, nx), r = Math.min(width, nx + names.length * scale);
      if (r - l < MIN_PX) return;
      cells.push('<rect class="nd agg' + hitCls + '" data-h="' + n + '" x="' + l + '" y="' + y + '" width="' + (r - l) + '" height="' + (rowH - 1) + '"></rect>');
      var what = r - l > 64 ? plural(names.length, 'Node') : String(names.length);
      if (r - l > what.length * 7 + 6) text.push('<text class="nd-count" x="' + (l + 3) + '" y="' + (y + Math.min(rowH - 5, 15)) + '">' + what + '</text>');
      return;
    }
    var from = Math.max(0, Math.floor(-nx / scale)), to = Math.min(names.length, Math.ceil((width - nx) / scale));
    var turned = scale >= 11 && rowH >= 40;
    for (var k = from; k < to; k++) {
      var left = nx + k * scale, name = names[k];
      var hit = name === found.node ? ' hit' : '';
      cells.push('<rect class="nd' + hit + '" data-node="' + esc(name) + '" data-h="' + n + '" x="' + left + '" y="' + y + '" width="' + scale + '" height="' + (rowH - 1) + '"></rect>');
      if (turned) text.push('<text class="nd-name' + hit + '" transform="translate(' + (left + scale / 2 + 4) + ',' + (y + rowH - 5) + ') rotate(-90)">' + esc(fit(name, Math.floor((rowH - 8) / 6.2))) + '</text>');
      else if (scale > name.length * 6.2 + 6) text.push('<text class="nd-name' + hit + '" x="' + (left + 3) + '" y="' + (y + Math.min(rowH - 5, 15)) + '">' + esc(name) + '</text>');
    }
  }

  // Zoom: the picture spans one HyperNode (its ancestors as full-width bars
  // above it), or the whole topology; the crumbs lead back up.
  var crumbs = document.getElementById('crumbs-path');
  function zoom(n) {
    if (n < 0) { view.from = 0; view.to = total; }
    else { view.from = x0[n]; view.to = x0[n] + weight[n]; }
    view.focus = n;
    crumbs.textContent = '';
    if (n >= 0) pathOf(n).forEach(function (p) {
      crumbs.appendChild(document.createTextNode(' \\u203a '));
      var b = document.createElement('button'); b.type = 'button'; b.className = 'crumb'; b.dataset.i = p;
      b.textContent = called(p); b.title = hns[p].name; crumbs.appendChild(b);
    });
    draw();
  }
  crumbs.addEventListener('click', function (e) { var b = e.target.closest('button'); if (b) zoom(Number(b.dataset.i)); });
  document.getElementById('reset').addEventListener('click', function () { zoom(-1); });
  function zoomOut() { if (view.focus >= 0) zoom(layoutParent(view.focus)); }

  // Tree list: rows are built when their parent first opens.
  var tree = document.getElementById('tree');
  var rows = new Array(count);
  function meta(h) {
    var parts = ['tier ' + h.tier + (h.tierName ? ' (' + h.tierName + ')' : '')];
    if (h.source) parts.push(h.source);
    if (h.profile) parts.push('profile ' + h.profile);
    if (h.fabric) parts.push('fabric ' + h.fabric);
    parts.push('nodeCount ' + h.nodeCount);
    return parts.join(' \\u00b7 ');
  }
  function span(cls, text) { var s = document.createElement('span'); s.className = cls; if (text !== undefined) s.textContent = text; return s; }
  function row(n) {
    var h = hns[n], d = document.createElement('details'), s = document.createElement('summary');
    d.dataset.i = n; s.dataset.i = n;
    s.title = h.name + '\\n' + meta(h);
    s.appendChild(span('swatch ' + colourClass(h)));
    s.appendChild(span('label', labelOf(n)));
    s.appendChild(span('kind', kindOf(n)));
    s.appendChild(span('meta', plural(weight[n], 'Node')));
    if (data.plan && h.change) s.appendChild(span('tag ' + h.change, h.change));
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
  if (roots.length <= 4) roots.forEach(function (r) { fill(r); rows[r].open = true; });
  tree.addEventListener('click', function (e) {
    var s = e.target.closest('summary');
    if (!s) return;
    var n = Number(s.dataset.i);
    fill(n);
    select(n, false);
    bringIntoView(n);
  });

  // Details of one HyperNode (and a plan's diff), at the top of the side panel.
  var details = document.getElementById('details');
  var selected = -1;
  function select(n, fromPicture) {
    if (selected >= 0) { rects[selected].classList.remove('selected'); if (rows[selected]) rows[selected].firstChild.classList.remove('selected'); }
    selected = n;
    rects[n].classList.add('selected');
    if (rows[n]) rows[n].firstChild.classList.add('selected');
    var h = hns[n];
    details.textContent = '';
    var close = document.createElement('button'); close.type = 'button'; close.textContent = '\\u00d7'; close.title = 'close'; close.className = 'close';
    close.onclick = function () { details.hidden = true; };
    details.appendChild(close);
    var title = document.createElement('h2');
    title.appendChild(span('swatch ' + colourClass(h))); title.appendChild(span('label', labelOf(n))); title.appendChild(span('kind', kindOf(n)));
    details.appendChild(title);
    var dl = document.createElement('dl');
    function field(k, v) { if (v === undefined || v === '') return; var dt = document.createElement('dt'); dt.textContent = k; var dd = document.createElement('dd'); dd.textContent = v; dl.appendChild(dt); dl.appendChild(dd); }
    field('name', h.name);
    if (data.plan) field('change', h.change || 'none');
    field('tier', String(h.tier) + (h.tierName ? ' (' + h.tierName + ')' : ''));
    field('formed by', formedBy(h));
    field('source', h.source); field('profile', h.profile); field('fabric', h.fabric);
    field('Nodes beneath', weight[n] + ' (nodeCount ' + h.nodeCount + ')');
    if (h.unhealthy) field('unhealthy', h.unhealthy.join('; '));
    field('path', pathOf(n).map(called).join(' \\u203a '));
    if (parents[n].length > 1) field('parents', parents[n].map(function (p) { return called(p) + ' ' + hns[p].name; }).join(', '));
    if (h.children.length) field('HyperNodes', h.children.length + ': ' + h.children.slice(0, 20).map(called).join(', ') + (h.children.length > 20 ? ', \\u2026' : ''));
    if (h.nodes.length) field('Nodes', h.nodes.length + ': ' + h.nodes.slice(0, 20).join(', ') + (h.nodes.length > 20 ? ', \\u2026' : ''));
    details.appendChild(dl);
    if (h.diff && h.diff.length) {
      var ul = document.createElement('ul'); ul.className = 'diff';
      h.diff.forEach(function (line) { var li = document.createElement('li'); li.textContent = line; ul.appendChild(li); });
      details.appendChild(ul);
    }
    details.hidden = false;
    if (fromPicture) { reveal(n); rows[n].firstChild.scrollIntoView({ block: 'nearest' }); }
  }
  function reveal(n) {
    var path = pathOf(n);
    for (var k = 0; k < path.length - 1; k++) { fill(path[k]); rows[path[k]].open = true; }
  }

  svg.addEventListener('click', function (e) {
    var t = e.target.dataset || {};
    if (t.node !== undefined) { ask(t.node); return; }
    var n = t.i !== undefined ? Number(t.i) : t.h !== undefined ? Number(t.h) : -1;
    if (n < 0) return;
    select(n, true);
    zoom(kids[n].length ? n : layoutParent(n));
  });

  // The tooltip: what the pointer is over, in full.
  var tip = document.getElementById('tip');
  function tipLines(t) {
    if (t.node !== undefined) return ['Node ' + t.node, 'in ' + pathOf(Number(t.h)).map(called).reverse().join(' \\u2190 '), 'click: find it'];
    if (t.fold !== undefined) return [t.fold + ' HyperNodes too narrow to draw here', 'click: zoom into ' + called(Number(t.i))];
    if (t.h !== undefined) { var ns = hns[Number(t.h)].nodes; return [plural(ns.length, 'Node') + ' of ' + called(Number(t.h)), ns[0] + ' \\u2026 ' + ns[ns.length - 1], 'click: zoom in to see each']; }
    var n = Number(t.i), h = hns[n], lines = [called(n), h.name, meta(h)];
    if (h.domain !== undefined) lines.push(formedBy(h));
    lines.push(plural(weight[n], 'Node') + ' beneath' + (h.children.length ? ', ' + plural(h.children.length, 'HyperNode') + ' below it' : ''));
    if (data.plan) lines.push('change: ' + (h.change || 'none'));
    return lines;
  }
  svg.addEventListener('mousemove', function (e) {
    var t = e.target.dataset;
    if (!t || (t.i === undefined && t.h === undefined)) { tip.hidden = true; return; }
    tip.textContent = '';
    tipLines(t).forEach(function (line, k) { var d = document.createElement('div'); if (k === 0) d.className = 'lead'; d.textContent = line; tip.appendChild(d); });
    tip.hidden = false;
    var x = e.clientX + 14, y = e.clientY + 16;
    if (x + tip.offsetWidth > window.innerWidth - 4) x = Math.max(4, e.clientX - tip.offsetWidth - 10);
    if (y + tip.offsetHeight > window.innerHeight - 4) y = Math.max(4, e.clientY - tip.offsetHeight - 10);
    tip.style.left = x + 'px'; tip.style.top = y + 'px';
  });
  svg.addEventListener('mouseleave', function () { tip.hidden = true; });

  // Keyboard, on the picture: arrows move the selection (up to the parent,
  // down to the first child, sideways along the row), Enter zooms into it,
  // Escape zooms back out, Home shows the whole topology.
  var byRow = null;
  function neighbour(n, step) {
    if (!byRow) {
      byRow = [];
      for (var k = 0; k < count; k++) (byRow[depth[k]] || (byRow[depth[k]] = [])).push(k);
      byRow.forEach(function (r) { r.sort(function (a, b) { return x0[a] - x0[b]; }); });
    }
    var r = byRow[depth[n]], at = r.indexOf(n) + step;
    return at >= 0 && at < r.length ? r[at] : -1;
  }
  /** Zooms the picture, if it must, so that n is drawn: to its parent, else to n itself. */
  function bringIntoView(n) {
    if (!shown[n]) zoom(layoutParent(n));
    if (!shown[n]) zoom(n);
  }
  function moveTo(n) {
    if (n < 0) return;
    select(n, true);
    bringIntoView(n);
    status.className = '';
    status.textContent = called(n) + ': ' + hns[n].name;
  }
  svg.addEventListener('keydown', function (e) {
    var n = selected;
    if (e.key === 'Escape') { tip.hidden = true; zoomOut(); }
    else if (e.key === 'Home') zoom(-1);
    else if (n < 0 && e.key.indexOf('Arrow') === 0) moveTo(view.focus >= 0 ? view.focus : roots[0]);
    else if (e.key === 'ArrowUp') moveTo(layoutParent(n));
    else if (e.key === 'ArrowDown') moveTo(kids[n].length ? kids[n][0] : -1);
    else if (e.key === 'ArrowLeft') moveTo(neighbour(n, -1));
    else if (e.key === 'ArrowRight') moveTo(neighbour(n, 1));
    else if (e.key === 'Enter' && n >= 0) zoom(kids[n].length || hns[n].nodes.length ? n : layoutParent(n));
    else return;
    e.preventDefault();
  });

  // Search: a HyperNode's path, or every HyperNode holding a Node and the Node in its row.
  var status = document.getElementById('status');
  var hits = [];
  function clearHits() {
    hits.forEach(function (n) { rects[n].classList.remove('hit'); if (rows[n]) rows[n].firstChild.classList.remove('hit'); });
    hits = [];
    found.node = null; found.holders = new Set();
    tree.querySelectorAll('mark').forEach(function (m) { m.replaceWith(document.createTextNode(m.textContent)); });
    svg.classList.remove('searching');
  }
  function ancestors(starts) {
    var seen = new Set(starts), queue = starts.slice();
    while (queue.length) { var n = queue.pop(); parents[n].forEach(function (p) { if (!seen.has(p)) { seen.add(p); queue.push(p); } }); }
    return Array.from(seen);
  }
  /** The highest HyperNode on n's path at whose zoom each of n's Nodes gets a cell of its own (else n). */
  function nodeZoom(n) {
    var width = svg.clientWidth || 800, path = pathOf(n);
    for (var k = 0; k < path.length; k++) if (weight[path[k]] * NODE_PX <= width) return path[k];
    return n;
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
      found.node = node; found.holders = new Set(starts);
      starts.forEach(function (n) { fill(n); rows[n].open = true; var sp = rows[n].querySelector('[data-node="' + CSS.escape(node) + '"]'); if (sp) { var m = document.createElement('mark'); m.textContent = node; sp.textContent = ''; sp.appendChild(m); } });
    }
    zoom(node !== null ? nodeZoom(starts[0]) : pathOf(starts[0])[0]);
    select(starts[0], false);
    rows[starts[0]].firstChild.scrollIntoView({ block: 'center' });
    var path = pathOf(starts[0]).map(called).reverse();
    if (node !== null) path.unshift(node);
    status.textContent = what + ' ' + q + ': ' + (node !== null ? 'in ' + plural(starts.length, 'HyperNode') + ', ' : '') + hits.length + ' highlighted: ' + path.join(' \\u2190 ');
  }
  function ask(query) {
    document.getElementById('q').value = query;
    performance.mark('view:search');
    search(query);
    performance.mark('view:searched');
    document.documentElement.dataset.searched = query;
  }
  document.getElementById('search').addEventListener('submit', function (e) {
    e.preventDefault();
    ask(document.getElementById('q').value);
  });

  // Legend: the levels by tierName in their colours, or a plan's change kinds with their counts.
  var legend = document.getElementById('legend');
  function swatch(cls, name, more, title) {
    var s = span('entry'); s.appendChild(span('swatch ' + cls)); s.appendChild(span('level', name));
    if (more) s.appendChild(span('more', more));
    s.dataset.kind = cls; s.title = title; legend.appendChild(s);
  }
  if (data.plan) {
    var counts = { create: 0, update: 0, delete: 0, held: 0, same: 0 };
    hns.forEach(function (h) { counts[h.change || 'same']++; });
    [['create', 'create'], ['update', 'update'], ['delete', 'delete'], ['held', 'held delete'], ['same', 'unchanged']].forEach(function (k) { swatch(k[0], k[1] + ' ' + counts[k[0]], '', k[1]); });
  } else {
    data.levels.forEach(function (l) {
      var more = [];
      if (shortName(l.tierName) !== l.tierName) more.push(l.tierName);
      var keys = l.labelKeys.filter(function (k) { return k !== l.tierName; });
      if (keys.length) more.push('label ' + keys.join(', '));
      more.push('tier ' + l.tiers.join(', '));
      swatch('c' + l.colour, shortName(l.tierName), more.join(' \\u00b7 '), 'tierName ' + l.tierName + (l.labelKeys.length ? ', from the Node label ' + l.labelKeys.join(', ') : '') + ', tier ' + l.tiers.join(', '));
    });
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
