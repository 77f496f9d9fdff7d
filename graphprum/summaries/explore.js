/* graphprum summary explorer.  Written by hand for this page: no library, no network.
 *
 * The data (one JSON document, see graphprum/summaries/explore.py) holds every
 * summary; this script draws one as a left-to-right tree (each partition under
 * its tree parent), folds the partitions that are not among the largest into
 * "+ N more" nodes, and fills the side panel when a partition is clicked.
 *
 * Hash parameters (also a test hook): #summary=p*&colour=sr&topic=1&depth=10
 * &top=40&search=/article/body&select=S12&click=S12 -- "click" dispatches real
 * click events, once the page is drawn, on each of its comma-separated targets in
 * turn: a partition (S12), a folded node (more:S12) or a side-panel link
 * (parent:S3, child:S40, piece:S7); see hookClick.
 */
"use strict";
(function () {
  const DATA = JSON.parse(document.getElementById("graphprum-data").textContent);
  const NAMES = Object.keys(DATA.summaries);
  const OV = DATA.overlay;
  const SVGNS = "http://www.w3.org/2000/svg";
  const $ = (id) => document.getElementById(id);
  const ROW = 46, NODE_H = 36, GAP = 78, PAD = 8, MAX_LABEL = 44, MAX_CROSS = 600;
  const FINER = { "label": "p", "p": "p*", "p*": "p*|c", "c": "p*|c", "p*|c": "p*", "c*": "c" };
  const fmt = (x) => Number(x).toLocaleString("en-US");
  const fmtPi = (p) => (p === 0 || p >= 0.0001 ? p.toFixed(4) : p.toExponential(2));
  const sidOf = (i) => "S" + (i + 1);

  const state = {
    name: NAMES.includes(DATA.first) ? DATA.first : NAMES[0],
    top: DATA.top, rank: OV ? "sr" : "pi", colour: OV ? "sr" : "pi", other: null,
    topic: "all", depth: 0, selected: -1, search: "", cross: true,
    revealed: {}, view: { x: 24, y: 24, s: 1 }, layout: null, matches: [],
  };

  // ------------------------------------------------------------ data access
  const cache = {};
  function S(name) {
    if (cache[name]) return cache[name];
    const d = DATA.summaries[name];
    const n = d.key.length;
    const out = Array.from({ length: n }, () => []);
    const inc = Array.from({ length: n }, () => []);
    const e = d.edges;
    for (let k = 0; k < e.src.length; k++) {
      out[e.src[k]].push([e.dst[k], e.count[k]]);
      inc[e.dst[k]].push([e.src[k], e.count[k]]);
    }
    const byCount = (a, b) => b[1] - a[1] || a[0] - b[0];
    out.forEach((l) => l.sort(byCount));
    inc.forEach((l) => l.sort(byCount));
    const kids = Array.from({ length: n }, () => []);
    const roots = [];
    for (let i = 0; i < n; i++) (d.parent[i] >= 0 ? kids[d.parent[i]] : roots).push(i);
    const count = new Map();
    for (let k = 0; k < e.src.length; k++) count.set(e.src[k] * n + e.dst[k], e.count[k]);
    let maxPi = 0, maxExt = 0;
    for (let i = 0; i < n; i++) { maxPi = Math.max(maxPi, d.pi[i]); maxExt = Math.max(maxExt, d.extent[i]); }
    return (cache[name] = { name, d, n, out, inc, kids, roots, count, maxPi, maxExt, orders: {} });
  }

  const refCache = {};
  /** Partition i of summary a -> [[partition of b, elements in both], ...], largest first. */
  function refine(a, b) {
    const key = a + "\u0000" + b;
    if (refCache[key]) return refCache[key];
    const map = Array.from({ length: S(a).n }, () => []);
    if (a === b) map.forEach((l, i) => l.push([i, S(a).d.extent[i]]));
    const r = DATA.refinements.find((x) => (x.a === a && x.b === b) || (x.a === b && x.b === a));
    if (r) {
      const A = r.a === a ? r.ai : r.bi, B = r.a === a ? r.bi : r.ai;
      for (let k = 0; k < A.length; k++) map[A[k]].push([B[k], r.n[k]]);
    }
    map.forEach((l) => l.sort((x, y) => y[1] - x[1] || x[0] - y[0]));
    return (refCache[key] = map);
  }

  const mostCache = {};
  function mostPieces(a, b) {
    const key = a + "\u0000" + b;
    if (!(key in mostCache)) mostCache[key] = refine(a, b).reduce((m, l) => Math.max(m, l.length), 0);
    return mostCache[key];
  }

  /** How summary a relates to b: "the same partition", "finer", "coarser" or "neither". */
  function relation(a, b) {
    const ab = refine(a, b).every((l) => l.length <= 1);
    const ba = refine(b, a).every((l) => l.length <= 1);
    if (ab && ba) return a + " and " + b + " are the same partition";
    if (ab) return a + " is finer than " + b + ": each " + a + " partition lies inside one " + b + " partition";
    if (ba) return a + " is coarser than " + b + ": each " + a + " partition is a union of " + b + " partitions";
    return a + " and " + b + " cross: neither refines the other";
  }

  const srCache = {};
  /** Per partition of summary `name`: relevant, retrieved (top depth) and retrieved relevant units. */
  function srCounts(name) {
    const key = name + "\u0000" + state.topic + "\u0000" + state.depth;
    if (srCache[key]) return srCache[key];
    const n = S(name).n, m = OV.member[name];
    const c = { rel: new Int32Array(n), ret: new Int32Array(n), hit: new Int32Array(n),
                relAll: 0, retAll: 0, relOut: 0, retOut: 0, maxRel: 0, maxRet: 0 };
    for (const t of OV.topics) {
      if (state.topic !== "all" && t.id !== state.topic) continue;
      const relevant = new Set(t.rel.map((x) => x[0]));
      for (const [u] of t.rel) { c.relAll++; if (m[u] >= 0) c.rel[m[u]]++; else c.relOut++; }
      const k = state.depth > 0 ? Math.min(state.depth, t.ret.length) : t.ret.length;
      for (let r = 0; r < k; r++) {
        const u = t.ret[r];
        c.retAll++;
        if (m[u] < 0) { c.retOut++; continue; }
        c.ret[m[u]]++;
        if (relevant.has(u)) c.hit[m[u]]++;
      }
    }
    for (let i = 0; i < n; i++) { c.maxRel = Math.max(c.maxRel, c.rel[i]); c.maxRet = Math.max(c.maxRet, c.ret[i]); }
    return (srCache[key] = c);
  }

  function metric(s, rank) {
    if (rank === "extent") return (i) => s.d.extent[i];
    if (rank === "sr" && OV) { const c = srCounts(s.name); return (i) => c.rel[i] + c.ret[i]; }
    return (i) => s.d.pi[i];
  }

  /** Partition indices, largest first under the current ranking (ties: SID order). */
  function rankOrder(s) {
    const key = state.rank === "sr" ? "sr\u0000" + state.topic + "\u0000" + state.depth : state.rank;
    if (s.orders[key]) return s.orders[key];
    const f = metric(s, state.rank);
    const order = Array.from({ length: s.n }, (_, i) => i);
    order.sort((a, b) => f(b) - f(a) || a - b);
    return (s.orders[key] = order);
  }

  function revealed() { return (state.revealed[state.name] ||= new Set()); }

  /** Id of sampled unit k (see encode_units in explore.py). */
  function unitId(k) {
    const U = DATA.units, tags = U.paths[U.path[k]].split("/").slice(1), pos = U.pos[k].split(".");
    return U.docs[U.doc[k]] + "#" + tags.map((t, j) => "/" + t + "[" + pos[j] + "]").join("");
  }

  // ------------------------------------------------------------ search
  function computeMatches() {
    const q = state.search.trim().toLowerCase();
    if (!q) return [];
    const s = S(state.name), hits = new Set();
    const sid = /^s(\d+)$/.exec(q);
    if (sid && +sid[1] >= 1 && +sid[1] <= s.n) hits.add(+sid[1] - 1);
    for (let i = 0; i < s.n; i++) if (s.d.key[i].toLowerCase().includes(q)) hits.add(i);
    // a label path in a summary whose keys are not label paths: through p*
    if (q.includes("/") && state.name !== "p*" && state.name !== "p*|c" && DATA.summaries["p*"]) {
      const ps = S("p*"), r = refine("p*", state.name);
      for (let j = 0; j < ps.n; j++) {
        if (ps.d.key[j].toLowerCase().includes(q)) for (const [b] of r[j]) hits.add(b);
      }
    }
    return [...hits].sort((a, b) => a - b);
  }

  // ------------------------------------------------------------ layout
  function visibleSet(s) {
    const vis = new Uint8Array(s.n);
    let order = rankOrder(s);
    const f = metric(s, state.rank);
    if (state.rank === "sr" && s.n && f(order[0]) === 0) {  // the run and qrels touch none: by π
      const pi = s.d.pi;
      order = Array.from({ length: s.n }, (_, i) => i).sort((a, b) => pi[b] - pi[a] || a - b);
    }
    for (let k = 0; k < Math.min(state.top, s.n); k++) {
      if (state.rank === "sr" && f(order[k]) === 0 && k > 0 && f(order[0]) > 0) break;  // only those they touch
      vis[order[k]] = 1;
    }
    for (const i of revealed()) vis[i] = 1;
    for (const i of state.matches.slice(0, 300)) vis[i] = 1;
    if (state.selected >= 0) vis[state.selected] = 1;
    for (let i = 0; i < s.n; i++) {
      if (!vis[i]) continue;
      for (let p = s.d.parent[i]; p >= 0 && !vis[p]; p = s.d.parent[p]) vis[p] = 1;
    }
    return vis;
  }

  const measure = document.createElement("canvas").getContext("2d");
  const FAMILY = getComputedStyle(document.body).fontFamily;
  function textWidth(text, font) { measure.font = font + " " + FAMILY; return measure.measureText(text).width; }
  const cut = (t, n) => (t.length > n ? t.slice(0, n - 1) + "…" : t);

  function line2(s, i) {
    const d = s.d;
    if (state.colour === "sr" && OV) {
      const c = srCounts(s.name);
      return sidOf(i) + " · rel " + c.rel[i] + " · ret " + c.ret[i] + (c.hit[i] ? " · both " + c.hit[i] : "");
    }
    if (state.colour === "splits" && state.other) {
      return sidOf(i) + " · " + fmt(d.extent[i]) + " el · → " + refine(s.name, state.other)[i].length + " in " + state.other;
    }
    return sidOf(i) + " · " + fmt(d.extent[i]) + " el · π " + fmtPi(d.pi[i]);
  }

  function layout(s, vis) {
    const nodes = [];
    const f = metric(s, state.rank);
    function fold(parent, hidden, depth) {
      hidden.sort((a, b) => f(b) - f(a) || a - b);
      let ext = 0;
      for (const h of hidden) ext += s.d.extent[h];
      const node = { i: -1, parent, hidden, depth, kids: [],
                     t1: "+ " + fmt(hidden.length) + " more", t2: fmt(ext) + " elements" };
      nodes.push(node);
      return node;
    }
    function build(i, depth) {
      const node = { i, depth, kids: [], t1: cut(s.d.short[i], MAX_LABEL), t2: line2(s, i) };
      nodes.push(node);
      const hidden = [];
      for (const c of s.kids[i]) (vis[c] ? node.kids.push(build(c, depth + 1)) : hidden.push(c));
      if (hidden.length) node.kids.push(fold(i, hidden, depth + 1));
      return node;
    }
    const top = [];
    const hiddenRoots = [];
    for (const r of s.roots) (vis[r] ? top.push(build(r, 0)) : hiddenRoots.push(r));
    if (hiddenRoots.length) top.push(fold(-1, hiddenRoots, 0));
    const colW = [];
    for (const nd of nodes) {
      nd.w = Math.ceil(Math.max(textWidth(nd.t1, "600 13px"), textWidth(nd.t2, "11px"))) + 2 * PAD;
      colW[nd.depth] = Math.max(colW[nd.depth] || 0, nd.w);
    }
    const colX = [0];
    for (let k = 1; k < colW.length; k++) colX[k] = colX[k - 1] + (colW[k - 1] || 0) + GAP;
    let row = 0;
    function place(nd) {
      nd.x = colX[nd.depth];
      if (!nd.kids.length) { nd.y = row++ * ROW; return; }
      nd.kids.forEach(place);
      nd.y = (nd.kids[0].y + nd.kids[nd.kids.length - 1].y) / 2;
    }
    top.forEach(place);
    const at = new Map();
    for (const nd of nodes) if (nd.i >= 0) at.set(nd.i, nd);
    const width = colW.length ? colX[colW.length - 1] + colW[colW.length - 1] : 0;
    return { nodes, top, at, width, height: Math.max(row - 1, 0) * ROW + NODE_H };
  }

  // ------------------------------------------------------------ colours
  const mix = (a, b, t) => a.map((v, k) => Math.round(v + (b[k] - v) * t));
  const rgb = (c) => "rgb(" + c.join(",") + ")";
  const BLUE = [[244, 248, 252], [33, 102, 172]];
  const GREEN = [[246, 250, 244], [35, 139, 69]];
  const PURPLE = [[250, 248, 253], [106, 81, 163]];
  // bivariate 3 x 3 (rows: relevant none/some/many, columns: retrieved none/some/many)
  const BIVAR = [["#ececec", "#f0c5a8", "#e08b5a"],
                 ["#b9d7ec", "#c3b2b4", "#b7735b"],
                 ["#5fa3d3", "#6d8ea6", "#5c4b51"]];
  const level = (v, max) => (v === 0 ? 0 : (max <= 1 || Math.log1p(v) <= Math.log1p(max) / 2 ? 1 : 2));

  function fill(s, i) {
    const d = s.d;
    if (state.colour === "sr" && OV) {
      const c = srCounts(s.name);
      return BIVAR[level(c.rel[i], c.maxRel)][level(c.ret[i], c.maxRet)];
    }
    if (state.colour === "extent") return rgb(mix(...GREEN, s.maxExt > 1 ? Math.log(d.extent[i]) / Math.log(s.maxExt) : 0));
    if (state.colour === "splits" && state.other) {
      const pieces = refine(s.name, state.other)[i].length;
      const most = mostPieces(s.name, state.other);
      return pieces <= 1 ? "#ffffff" : rgb(mix(...PURPLE, 0.15 + 0.85 * Math.log(pieces) / Math.log(Math.max(most, 2))));
    }
    return rgb(mix(...BLUE, s.maxPi > 0 ? Math.sqrt(d.pi[i] / s.maxPi) : 0));
  }

  function dark(colour) {
    const m = /rgb\((\d+),(\d+),(\d+)\)/.exec(colour) || /#(..)(..)(..)/.exec(colour);
    if (!m) return false;
    const v = m.slice(1, 4).map((x) => (colour[0] === "#" ? parseInt(x, 16) : +x));
    return 0.299 * v[0] + 0.587 * v[1] + 0.114 * v[2] < 128;
  }

  // ------------------------------------------------------------ drawing
  const scene = $("scene"), svg = $("graph");
  function el(tag, attrs, text) {
    const e = document.createElementNS(SVGNS, tag);
    for (const k in attrs || {}) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  }
  const curve = (x1, y1, x2, y2) => {
    const dx = Math.max(Math.abs(x2 - x1) / 2, 40);
    return "M" + x1 + "," + y1 + " C" + (x1 + dx) + "," + y1 + " " + (x2 - dx) + "," + y2 + " " + x2 + "," + y2;
  };
  const strokeFor = (count) => (1 + 1.7 * Math.log10(Math.max(count, 1))).toFixed(2);

  function render() {
    const s = S(state.name);
    const vis = visibleSet(s);
    const L = (state.layout = layout(s, vis));
    const gEdges = el("g"), gCross = el("g"), gNodes = el("g");
    let shown = 0, folded = 0;
    for (const nd of L.nodes) {
      for (const kid of nd.kids) {
        const x1 = nd.x + nd.w, y1 = nd.y, x2 = kid.x, y2 = kid.y;
        if (kid.i < 0) {
          gEdges.append(el("path", { class: "edge fold", d: curve(x1, y1, x2, y2), "stroke-width": 1 }));
          continue;
        }
        const c = s.count.get(nd.i * s.n + kid.i) || 0;
        gEdges.append(el("path", { class: "edge", d: curve(x1, y1, x2, y2), "stroke-width": strokeFor(c) }));
        gEdges.append(el("text", { class: "elabel", x: x2 - 6, y: y2 - 6, "text-anchor": "end" }, fmt(c)));
      }
    }
    let cross = 0, crossHidden = 0;
    if (state.cross) {
      const pairs = [];
      for (const nd of L.nodes) {
        if (nd.i < 0) continue;
        for (const [dst, c] of s.out[nd.i]) {
          if (dst === nd.i || !vis[dst] || s.d.parent[dst] === nd.i) continue;
          pairs.push([nd.i, dst, c]);
        }
      }
      pairs.sort((a, b) => b[2] - a[2]);
      crossHidden = Math.max(pairs.length - MAX_CROSS, 0);
      for (const [a, b, c] of pairs.slice(0, MAX_CROSS)) {
        const A = L.at.get(a), B = L.at.get(b);
        const hot = a === state.selected || b === state.selected;
        const p = el("path", { class: "edge cross" + (hot ? " hot" : ""), "stroke-width": strokeFor(c),
                               d: curve(A.x + A.w, A.y, B.x, B.y) });
        p.append(el("title", {}, sidOf(a) + " → " + sidOf(b) + ": " + fmt(c) + " parent–child pairs"));
        gCross.append(p);
        cross++;
      }
    }
    const matches = new Set(state.matches);
    for (const nd of L.nodes) {
      const g = el("g", { transform: "translate(" + nd.x + "," + (nd.y - NODE_H / 2) + ")" });
      let colour = "#ffffff";
      if (nd.i >= 0) {
        shown++;
        colour = fill(s, nd.i);
        g.setAttribute("class", "node" + (matches.has(nd.i) ? " match" : "") + (nd.i === state.selected ? " selected" : ""));
        g.dataset.sid = sidOf(nd.i);
        g.append(el("title", {}, sidOf(nd.i) + "  " + s.d.key[nd.i]));
      } else {
        folded++;
        g.setAttribute("class", "node other");
        g.dataset.fold = nd.parent >= 0 ? sidOf(nd.parent) : "roots";
        g.append(el("title", {}, "Click to show the " + Math.min(25, nd.hidden.length) + " largest of these partitions"));
      }
      const ink = dark(colour) ? "#ffffff" : "#1d2330";
      g.append(el("rect", { width: nd.w, height: NODE_H, rx: 5, fill: colour }));
      g.append(el("text", { class: "l1", x: PAD, y: 15, fill: ink }, nd.t1));
      g.append(el("text", { class: "l2", x: PAD, y: 29, fill: ink, "fill-opacity": 0.85 }, nd.t2));
      g.addEventListener("click", onNodeClick);
      gNodes.append(g);
    }
    scene.replaceChildren(gCross, gEdges, gNodes);
    applyView();
    legend();
    const d = s.d;
    $("status").textContent = state.name + ": " + fmt(s.n) + " partitions, " + fmt(d.edges.src.length) +
      " edges · " + fmt(shown) + " shown" + (folded ? ", " + fmt(s.n - shown) + " folded in " + folded + " “more” nodes" : "") +
      (cross ? " · " + fmt(cross) + " cross edges" : "") + (crossHidden ? " (" + fmt(crossHidden) + " weakest not drawn)" : "");
  }

  function applyView() {
    const v = state.view;
    scene.setAttribute("transform", "translate(" + v.x + "," + v.y + ") scale(" + v.s + ")");
  }

  /** The part of the drawing no overlay hides, in the svg's pixels: below
   *  the status line, above the legend. */
  function clearArea() {
    const box = svg.getBoundingClientRect();
    const top = $("status").offsetHeight + 8, bottom = $("legend").offsetHeight + 16;
    return { w: box.width, top, h: Math.max(box.height - top - bottom, NODE_H) };
  }

  function fit(readable) {
    const L = state.layout, a = clearArea();
    if (!L || !a.w) return;
    const w = L.width + 40, h = L.height + 40;
    let s = Math.min(a.w / w, a.h / h, 1.25);
    if (readable) s = Math.max(s, 0.75);
    const first = a.top + (NODE_H / 2 + 20) * s;
    let y = first + Math.max((a.h - h * s) / 2, 0);
    // too tall to show whole at a readable size: the first root in the middle of
    // the clear area (it sits halfway down its subtree), never above the drawing's top
    if (h * s > a.h && L.top.length) y = Math.min(first, a.top + a.h / 2 - L.top[0].y * s);
    state.view = { s, x: 20 * s + Math.max((a.w - w * s) / 2, 0), y };
    applyView();
  }

  /** Bring partition i into the clear area, moving the drawing as little as that
   *  takes (a node in view stays where it is, and so does what surrounds it). */
  function centreOn(i) {
    const nd = state.layout && state.layout.at.get(i);
    if (!nd) return;
    const a = clearArea(), v = state.view, m = 12;
    v.s = Math.max(v.s, 0.75);
    const shift = (lo, size, min, max) =>
      (size > max - min ? min - lo : Math.max(min - lo, 0) + Math.min(max - (lo + size), 0));
    v.x += shift(nd.x * v.s + v.x, nd.w * v.s, m, a.w - m);
    v.y += shift((nd.y - NODE_H / 2) * v.s + v.y, NODE_H * v.s, a.top + m, a.top + a.h - m);
    applyView();
  }

  /** Test hook: where the svg, the legend, the status line and every drawn
   *  partition are on the screen (left, top, right, bottom in CSS pixels). */
  function boxes() {
    const at = (e) => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom].map(Math.round); };
    const nodes = {};
    for (const g of scene.querySelectorAll("g.node[data-sid]")) nodes[g.dataset.sid] = at(g.querySelector("rect"));
    return { svg: at(svg), legend: at($("legend")), status: at($("status")), nodes };
  }

  function legend() {
    const box = $("legend");
    box.replaceChildren();
    const sw = (colour, label) => {
      const span = document.createElement("span");
      span.className = "sw";
      span.style.background = colour;
      box.append(span, document.createTextNode(label));
    };
    if (state.colour === "sr" && OV) {
      box.append(document.createTextNode("relevant ↓ / retrieved →: "));
      const names = ["none", "some", "many"];
      for (let r = 0; r < 3; r++) for (let c = 0; c < 3; c++) {
        if ((r === 0 || c === 0) || r === c) sw(BIVAR[r][c], (r ? names[r] + " rel" : "") + (r && c ? ", " : "") + (c ? names[c] + " ret" : "") + (r || c ? "" : "neither"));
      }
    } else if (state.colour === "extent") {
      sw(rgb(GREEN[0]), "1 element"); sw(rgb(GREEN[1]), fmt(S(state.name).maxExt) + " elements (log scale)");
    } else if (state.colour === "splits") {
      sw("#ffffff", "one " + state.other + " partition"); sw(rgb(PURPLE[1]), "split into the most");
    } else {
      sw(rgb(BLUE[0]), "π 0"); sw(rgb(BLUE[1]), "π " + fmtPi(S(state.name).maxPi));
    }
    box.append(document.createTextNode(" · edge label: parent–child element pairs"));
  }

  // ------------------------------------------------------------ side panel
  const panel = $("panel");
  function h(tag, attrs, ...kids) {
    const e = document.createElement(tag);
    for (const k in attrs || {}) {
      if (k === "on") e.addEventListener("click", attrs[k]);
      else if (k.startsWith("data-")) e.setAttribute(k, attrs[k]);
      else e[k] = attrs[k];
    }
    for (const kid of kids) if (kid !== null && kid !== undefined) e.append(kid);
    return e;
  }
  const add = (...kids) => panel.append(...kids.filter((k) => k !== null && k !== undefined));
  const link = (name, i) => h("a", { title: DATA.summaries[name].key[i], on: () => select(i, { centre: true, name }) }, sidOf(i));
  const shellQuote = (t) => "'" + t.replace(/'/g, "'\\''") + "'";

  function copy(text, button) {
    const done = () => { button.textContent = "copied"; setTimeout(() => (button.textContent = "copy"), 1200); };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(done, () => fallback());
    } else fallback();
    function fallback() {
      const area = h("textarea", { value: text });
      document.body.append(area);
      area.select();
      try { document.execCommand("copy"); done(); } catch (e) { /* the text stays selectable */ }
      area.remove();
    }
  }

  function unitRow(id) {
    const b = h("button", { className: "copy", title: "Copy the id" }, "copy");
    b.addEventListener("click", () => copy(id, b));
    return h("div", { className: "unit" }, h("code", {}, id), b);
  }

  function edgeTable(name, list, field, limit) {
    const s = S(name);
    const table = h("table", { "data-field": field });
    for (const [j, c] of list.slice(0, limit)) {
      table.append(h("tr", { "data-sid": sidOf(j), "data-count": String(c) },
        h("td", { className: "sid" }, link(name, j)), h("td", { className: "key" }, cut(s.d.short[j], 60)),
        h("td", { className: "num" }, fmt(c))));
    }
    const more = list.length > limit ? h("p", { className: "note" }, "… " + fmt(list.length - limit) + " more") : null;
    return [table, more];
  }

  function searchResults() {
    if (!state.search.trim()) return null;
    const s = S(state.name), m = state.matches;
    const box = h("section", { "data-field": "search" },
      h("h3", {}, fmt(m.length) + " partition" + (m.length === 1 ? "" : "s") + " match “" + state.search.trim() + "”"));
    const table = h("table");
    for (const i of m.slice(0, 12)) {
      table.append(h("tr", {}, h("td", { className: "sid" }, link(state.name, i)),
        h("td", { className: "key" }, cut(s.d.key[i], 70)), h("td", { className: "num" }, fmt(s.d.extent[i]))));
    }
    box.append(table);
    if (m.length > 12) box.append(h("p", { className: "note" }, "… " + fmt(m.length - 12) + " more, all outlined in the graph"));
    return box;
  }

  function showPanel() {
    panel.replaceChildren();
    const results = searchResults();
    if (results) panel.append(results);
    const i = state.selected;
    if (i < 0) {
      delete panel.dataset.selected;
      panel.append(h("p", { className: "hint" }, "Click a partition for its details. Drag to pan, wheel to zoom, " +
        "click a “+ N more” node to unfold it."));
      overview();
      return;
    }
    const s = S(state.name), d = s.d, name = state.name;
    panel.dataset.selected = sidOf(i);
    panel.dataset.summary = name;
    const total = DATA.elements;
    panel.append(
      h("h2", {}, sidOf(i) + " ", h("span", { className: "tag" }, "<" + d.tag[i] + ">")),
      h("div", { className: "key", "data-field": "key" }, d.key[i]),
      h("dl", {},
        h("dt", {}, "summary"), h("dd", { "data-field": "summary" }, name + " (π weight " + d.weight + ")"),
        h("dt", {}, "extent"), h("dd", { "data-field": "extent" }, fmt(d.extent[i])),
        h("dt", {}, "of all elements"), h("dd", {}, (100 * d.extent[i] / total).toFixed(2) + " %"),
        h("dt", {}, "length"), h("dd", { "data-field": "length" }, fmt(d.length[i])),
        h("dt", {}, "π"), h("dd", { "data-field": "pi", title: String(d.pi[i]) }, fmtPi(d.pi[i])),
        h("dt", {}, "tree depth"), h("dd", {}, String(d.depth[i]))));
    panel.append(h("h3", {}, "Parent partitions (" + s.inc[i].length + ")"));
    add(...(s.inc[i].length ? edgeTable(name, s.inc[i], "parents", 40) : [h("p", { className: "note" }, "none: it holds document roots")]));
    panel.append(h("h3", {}, "Child partitions (" + s.out[i].length + ")"));
    add(...(s.out[i].length ? edgeTable(name, s.out[i], "children", 40) : [h("p", { className: "note" }, "none: its elements are leaves")]));
    panel.append(h("p", { className: "note" }, "Counts: parent–child element pairs between the two partitions."));
    const samples = d.samples[i].map(unitId);
    panel.append(h("h3", {}, "Sample units (" + samples.length + " of " + fmt(d.extent[i]) + ")"));
    const list = h("div", { "data-field": "samples" });
    samples.forEach((id) => list.append(unitRow(id)));
    panel.append(list);
    if (samples.length) {
      const cmd = "graphprum" + (DATA.store ? " --store " + shellQuote(DATA.store) : "") + " show " + shellQuote(samples[0]);
      panel.append(h("p", { className: "note" }, "Look one up:"), unitRow(cmd));
    }
    refinementSection(i);
    if (OV) srSection(i);
  }

  function overview() {
    const s = S(state.name), d = s.d;
    panel.append(h("h3", {}, state.name + " summary"),
      h("p", {}, fmt(s.n) + " partitions of " + fmt(DATA.elements) + " elements in " + fmt(DATA.documents) +
        " documents; " + fmt(d.edges.src.length) + " edges; π weight " + d.weight +
        (d.stored ? "." : " (built for this page, not stored).")));
    if (state.other) panel.append(h("p", { className: "note" }, relation(state.name, state.other) + "."));
    panel.append(h("h3", {}, "Largest partitions by π"));
    const order = Array.from({ length: s.n }, (_, i) => i).sort((a, b) => d.pi[b] - d.pi[a] || a - b);
    panel.append(edgeTable(state.name, order.slice(0, 15).map((j) => [j, d.extent[j]]), "largest", 15)[0]);
    panel.append(h("p", { className: "note" }, "Right column: extent."));
    if (OV) {
      const c = srCounts(state.name);
      panel.append(h("h3", {}, "Run and qrels"),
        h("p", {}, (OV.run ? "run " + OV.run + (OV.run_tag ? " (" + OV.run_tag + ")" : "") : "no run") + "; " +
          (OV.qrels ? "qrels " + OV.qrels : "no qrels") + ". " + topicText() + ": " + fmt(c.relAll) +
          " relevant and " + fmt(c.retAll) + " retrieved units; " + fmt(c.relOut + c.retOut) +
          " of them are not elements of the store."));
    }
  }

  const topicText = () => (state.topic === "all" ? "all topics" : "topic " + state.topic) +
    (state.depth > 0 ? ", top " + state.depth : "");

  function refinementSection(i) {
    const others = NAMES.filter((n) => n !== state.name);
    if (!others.length) return;
    const pick = h("select", { "data-field": "other" });
    for (const n of others) pick.append(h("option", { value: n, selected: n === state.other }, n));
    pick.addEventListener("change", () => { state.other = pick.value; if (state.colour === "splits") render(); showPanel(); });
    panel.append(h("h3", {}, "In another summary: ", pick));
    const pieces = refine(state.name, state.other)[i];
    const d = S(state.name).d;
    panel.append(h("p", { className: "note" }, relation(state.name, state.other) + "."),
      h("p", {}, "Its " + fmt(d.extent[i]) + " elements fall in " + pieces.length + " " + state.other +
        " partition" + (pieces.length === 1 ? "" : "s") + ":"));
    const other = S(state.other);
    const table = h("table", { "data-field": "pieces" });
    for (const [j, n] of pieces.slice(0, 40)) {
      const a = h("a", { title: "Switch to " + state.other + " and select " + sidOf(j),
                         on: () => switchSummary(state.other, j) }, sidOf(j));
      table.append(h("tr", { "data-sid": sidOf(j), "data-count": String(n) },
        h("td", { className: "sid" }, a), h("td", { className: "key" }, cut(other.d.key[j], 60)),
        h("td", { className: "num" }, fmt(n) + (n < other.d.extent[j] ? " of " + fmt(other.d.extent[j]) : ""))));
    }
    panel.append(table);
    if (pieces.length > 40) panel.append(h("p", { className: "note" }, "… " + (pieces.length - 40) + " more"));
  }

  function srSection(i) {
    const c = srCounts(state.name), m = OV.member[state.name];
    panel.append(h("h3", {}, "Run and qrels (" + topicText() + ")"),
      h("dl", {},
        h("dt", {}, "relevant units"), h("dd", { "data-field": "relevant" }, fmt(c.rel[i])),
        h("dt", {}, "retrieved units"), h("dd", { "data-field": "retrieved" }, fmt(c.ret[i])),
        h("dt", {}, "retrieved and relevant"), h("dd", { "data-field": "hits" }, fmt(c.hit[i]))));
    const rows = [];
    for (const t of OV.topics) {
      if (state.topic !== "all" && t.id !== state.topic) continue;
      const rel = new Map(t.rel.map(([u, r]) => [u, r]));
      const k = state.depth > 0 ? Math.min(state.depth, t.ret.length) : t.ret.length;
      const seen = new Set();
      for (let r = 0; r < k; r++) {
        const u = t.ret[r];
        if (m[u] !== i) continue;
        seen.add(u);
        rows.push([t.id, "rank " + (r + 1), OV.units[u], rel.has(u) ? "rel " + rel.get(u) : ""]);
      }
      for (const [u, r] of t.rel) if (m[u] === i && !seen.has(u)) rows.push([t.id, "not retrieved", OV.units[u], "rel " + r]);
    }
    if (!rows.length) return;
    const table = h("table", { "data-field": "sr-units" });
    for (const [t, where, id, rel] of rows.slice(0, 30)) {
      table.append(h("tr", {}, h("td", {}, t), h("td", { className: "num" }, where),
        h("td", {}, h("code", {}, id)), h("td", { className: "num" }, rel)));
    }
    panel.append(table);
    if (rows.length > 30) panel.append(h("p", { className: "note" }, "… " + (rows.length - 30) + " more"));
  }

  // ------------------------------------------------------------ actions
  function select(i, opts) {
    opts = opts || {};
    if (opts.name && opts.name !== state.name) { switchSummary(opts.name, i); return; }
    state.selected = i;
    const known = state.layout && state.layout.at.has(i);
    if (!known) revealed().add(i);
    render();
    showPanel();
    if (opts.centre) centreOn(i);
    remember();
  }

  function switchSummary(name, selectIndex) {
    const old = state.name, sel = state.selected;
    state.name = name;
    if (selectIndex === undefined) {
      const pieces = sel >= 0 ? refine(old, name)[sel] : [];
      selectIndex = pieces.length ? pieces[0][0] : -1;
    }
    if (state.other === name || !state.other) state.other = NAMES.includes(FINER[name]) ? FINER[name] : (NAMES.find((n) => n !== name) || null);
    if (state.other === name) state.other = old;
    $("summary").value = name;
    state.matches = computeMatches();
    state.selected = selectIndex;
    if (selectIndex >= 0) revealed().add(selectIndex);
    render();
    fit(true);
    if (selectIndex >= 0) centreOn(selectIndex);
    showPanel();
    remember();
  }

  let dragged = false;
  function onNodeClick(ev) {
    if (dragged) return;
    const g = ev.currentTarget;
    if (g.dataset.sid) { select(+g.dataset.sid.slice(1) - 1); return; }
    const s = S(state.name);
    const parent = g.dataset.fold === "roots" ? -1 : +g.dataset.fold.slice(1) - 1;
    const nd = state.layout.nodes.find((n) => n.i < 0 && n.parent === parent);
    if (nd) nd.hidden.slice(0, 25).forEach((j) => revealed().add(j));
    render();
    if (parent >= 0 && s) centreOn(parent);
  }

  function remember() {
    const p = new URLSearchParams();
    p.set("summary", state.name);
    if (state.selected >= 0) p.set("select", sidOf(state.selected));
    if (state.colour !== (OV ? "sr" : "pi")) p.set("colour", state.colour);
    if (state.search) p.set("search", state.search);
    try { history.replaceState(null, "", "#" + p.toString()); } catch (e) { /* file:// in some browsers */ }
  }

  // pan and zoom
  let drag = null;
  svg.addEventListener("pointerdown", (e) => {
    drag = { x: e.clientX, y: e.clientY, vx: state.view.x, vy: state.view.y, id: e.pointerId };
    dragged = false;
  });
  svg.addEventListener("pointermove", (e) => {
    if (!drag) return;
    const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
    if (!dragged && Math.hypot(dx, dy) > 4) { dragged = true; svg.classList.add("dragging"); svg.setPointerCapture(drag.id); }
    if (dragged) { state.view.x = drag.vx + dx; state.view.y = drag.vy + dy; applyView(); }
  });
  const endDrag = () => { drag = null; svg.classList.remove("dragging"); setTimeout(() => (dragged = false), 0); };
  svg.addEventListener("pointerup", endDrag);
  svg.addEventListener("pointercancel", endDrag);
  function zoom(factor, px, py) {
    const v = state.view, s = Math.min(Math.max(v.s * factor, 0.04), 4);
    v.x = px - (px - v.x) * (s / v.s);
    v.y = py - (py - v.y) * (s / v.s);
    v.s = s;
    applyView();
  }
  svg.addEventListener("wheel", (e) => {
    e.preventDefault();
    const box = svg.getBoundingClientRect();
    zoom(Math.exp(-e.deltaY * 0.0015), e.clientX - box.left, e.clientY - box.top);
  }, { passive: false });
  const centre = () => { const b = svg.getBoundingClientRect(); return [b.width / 2, b.height / 2]; };
  $("zoomin").addEventListener("click", () => zoom(1.25, ...centre()));
  $("zoomout").addEventListener("click", () => zoom(0.8, ...centre()));
  $("fit").addEventListener("click", () => fit(false));
  document.addEventListener("keydown", (e) => {
    if (e.key === "Escape" && state.selected >= 0 && document.activeElement === document.body) {
      state.selected = -1; render(); showPanel(); remember();
    }
  });

  // ------------------------------------------------------------ controls
  function setupControls() {
    const sumSel = $("summary");
    for (const n of NAMES) {
      const d = DATA.summaries[n];
      sumSel.append(h("option", { value: n }, n + " (" + fmt(d.key.length) + ")"));
    }
    sumSel.value = state.name;
    sumSel.addEventListener("change", () => switchSummary(sumSel.value));
    const top = $("top");
    top.value = state.top;
    top.addEventListener("change", () => { state.top = Math.max(1, +top.value || 1); render(); });
    const rank = $("rank");
    if (OV) rank.append(h("option", { value: "sr" }, "relevant + retrieved"));
    rank.value = state.rank;
    rank.addEventListener("change", () => { state.rank = rank.value; render(); fit(true); });
    const colour = $("colour");
    colour.append(h("option", { value: "pi" }, "π"), h("option", { value: "extent" }, "extent"));
    if (OV) colour.append(h("option", { value: "sr" }, "relevant × retrieved"));
    if (NAMES.length > 1) colour.append(h("option", { value: "splits" }, "splits in other summary"));
    colour.value = state.colour;
    colour.addEventListener("change", () => { state.colour = colour.value; render(); showPanel(); remember(); });
    $("cross").checked = state.cross;
    $("cross").addEventListener("change", () => { state.cross = $("cross").checked; render(); });
    if (OV) {
      $("srbar").hidden = false;
      const topic = $("topic");
      topic.append(h("option", { value: "all" }, "all (" + OV.topics.length + ")"));
      for (const t of OV.topics) topic.append(h("option", { value: t.id }, t.id));
      topic.value = state.topic;
      topic.addEventListener("change", () => { state.topic = topic.value; render(); showPanel(); });
      const depth = $("depth");
      depth.value = state.depth;
      depth.addEventListener("change", () => { state.depth = Math.max(0, +depth.value || 0); render(); showPanel(); });
    }
    const search = $("search");
    search.value = state.search;
    let timer = null;
    search.addEventListener("input", () => {
      clearTimeout(timer);
      timer = setTimeout(() => { state.search = search.value; state.matches = computeMatches(); render(); showPanel(); }, 200);
    });
    search.addEventListener("keydown", (e) => {
      if (e.key !== "Enter") return;
      state.search = search.value;
      state.matches = computeMatches();
      if (state.matches.length) select(state.matches[0], { centre: true });
      else { render(); showPanel(); }
    });
    $("where").textContent = (DATA.store ? DATA.store + " · " : "") + fmt(DATA.elements) + " elements, " +
      fmt(DATA.documents) + " documents" + (OV && OV.run ? " · run " + (OV.run_tag || OV.run) : "");
  }

  /** Test hook: dispatch a real click on a node (SID), a folded node (more:SID, more:roots)
   *  or a link of the side panel (parent:SID, child:SID, piece:SID). */
  function hookClick(target) {
    const [kind, sid] = target.includes(":") ? target.split(":") : ["node", target];
    let el = null;
    if (kind === "node" && /^S\d+$/.test(sid) && +sid.slice(1) <= S(state.name).n) {
      if (!scene.querySelector('g.node[data-sid="' + sid + '"]')) { revealed().add(+sid.slice(1) - 1); render(); }
      el = scene.querySelector('g.node[data-sid="' + sid + '"]');
    } else if (kind === "more") {
      el = scene.querySelector('g.node.other[data-fold="' + sid + '"]');
    } else {
      const table = { parent: "parents", child: "children", piece: "pieces" }[kind];
      if (table) el = panel.querySelector('table[data-field="' + table + '"] tr[data-sid="' + sid + '"] a');
    }
    if (!el) return false;
    el.dispatchEvent(new MouseEvent("click", { bubbles: true }));
    return true;
  }

  // ------------------------------------------------------------ start
  function start() {
    const p = new URLSearchParams(location.hash.slice(1));
    if (NAMES.includes(p.get("summary"))) state.name = p.get("summary");
    if (["pi", "extent", "sr", "splits"].includes(p.get("colour")) && (p.get("colour") !== "sr" || OV)) state.colour = p.get("colour");
    if (OV && p.get("topic") && OV.topics.some((t) => t.id === p.get("topic"))) state.topic = p.get("topic");
    if (p.get("depth")) state.depth = Math.max(0, +p.get("depth") || 0);
    if (p.get("top")) state.top = Math.max(1, +p.get("top") || state.top);
    if (p.get("search")) state.search = p.get("search");
    state.other = NAMES.includes(FINER[state.name]) ? FINER[state.name] : (NAMES.find((n) => n !== state.name) || null);
    const parse = (sid) => (/^S\d+$/.test(sid || "") && +sid.slice(1) <= S(state.name).n ? +sid.slice(1) - 1 : -1);
    setupControls();
    state.matches = computeMatches();
    const sel = parse(p.get("select"));
    if (sel >= 0) state.selected = sel;
    render();
    fit(true);
    showPanel();
    if (sel >= 0) centreOn(sel);
    if (p.get("click")) {
      const done = [];
      for (const target of p.get("click").split(",")) {
        if (!hookClick(target)) { done.push("missing " + target); break; }
        done.push(target);
      }
      document.body.dataset.hook = "clicked " + done.join(",");
      if (state.selected >= 0) centreOn(state.selected);
      document.body.dataset.boxes = JSON.stringify(boxes());
    }
    window.addEventListener("resize", () => { if (state.selected >= 0) centreOn(state.selected); });
  }
  start();
})();
