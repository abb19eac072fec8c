// The Sniff web table: draws the server's view of the game and sends the player's moves.
// Plain JavaScript, no build step. The server keeps the game; this page only shows what the
// player's seat may know and asks the server to change it (every change names the version it
// was made for, so a stale page is refused instead of playing into a position it never saw).
"use strict";

const U = 40;             // the short side of a tile on the table, in SVG units
const GAP = 2;            // space between tiles on the table
const PITCH = 2 * U + GAP; // from one row of a turned arm to the next
const HAND = 34;          // the short side of a tile in the hand, in CSS pixels
const LEAST = 0.64;       // a tile on the table is never smaller than this share of one in the hand
const READABLE = 15;      // the smallest text on the table (an end's number), in CSS pixels
const TOUCH = 48;         // the smallest side of a drop target on screen, in CSS pixels (at least 44)
const PACE = 550;         // between two tiles coming down after the player's move, in milliseconds
const SVGNS = "http://www.w3.org/2000/svg";
const $ = (id) => document.getElementById(id);

// Pip positions in a unit square, for 0..12 pips.
const C = [0.25, 0.5, 0.75];
const PIPS = [
  [], [[.5, .5]], [[.25, .25], [.75, .75]], [[.25, .25], [.5, .5], [.75, .75]],
  [[.25, .25], [.75, .25], [.25, .75], [.75, .75]],
  [[.25, .25], [.75, .25], [.5, .5], [.25, .75], [.75, .75]],
  [[.25, .25], [.25, .5], [.25, .75], [.75, .25], [.75, .5], [.75, .75]],
  [[.25, .25], [.25, .5], [.25, .75], [.5, .5], [.75, .25], [.75, .5], [.75, .75]],
  C.flatMap((x) => C.map((y) => [x, y])).filter(([x, y]) => !(x === .5 && y === .5)),
  C.flatMap((x) => C.map((y) => [x, y])),
  [.2, .4, .6, .8].flatMap((y) => [[.22, y], [.78, y]]).concat([[.5, .35], [.5, .65]]),
  [.2, .4, .6, .8].flatMap((y) => [[.22, y], [.78, y]]).concat([[.5, .25], [.5, .5], [.5, .75]]),
  [.2, .4, .6, .8].flatMap((y) => [[.22, y], [.5, y], [.78, y]]),
];

const app = {
  state: null,        // the latest view of the game from the server
  selected: null,     // "a-b" of the tile picked in the hand
  hints: null,        // action -> value, for the current version
  replay: null,       // {frames, index} while replaying a log
  busy: false,
  closed: null,       // the version whose result panel the player closed
  paced: null,        // "id:version" of the view whose new tiles last came down one by one
  pacedUntil: 0,      // when they are all down (Date.now() milliseconds)
  setup: null,        // what the new-game form offers (from the server, once)
  scale: null,        // CSS pixels per SVG unit of the last drawn layout
};
window.sniff = app;

// -- talking to the server -------------------------------------------------------------------
async function api(method, path, body) {
  const init = { method, headers: {} };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = typeof body === "string" ? body : JSON.stringify(body);
  }
  let shown = false;
  const timer = setTimeout(() => { shown = true; busy(true); }, BUSY_AFTER_MS);
  let response;
  try { response = await fetch(path, init); } finally { clearTimeout(timer); if (shown) busy(false); }
  let data = null;
  try { data = await response.json(); } catch (e) { data = { error: `the server answered ${response.status}` }; }
  if (!response.ok) {
    notice(data.error || `the server answered ${response.status}`, "error");
    if (response.status === 409 && app.state && await load(app.state.id)) {
      notice("The game had moved on since that click; the table now shows where it stands.", "info");
    }
    return null;
  }
  return data;
}

// -- waiting on the server: after a moment the page says so (the buttons that would send more wait
// too), with what the server is compiling where a first use of the search makes it wait -------
const BUSY_AFTER_MS = 400;
const waiting = { count: 0, since: 0, timer: null, text: "" };
function busy(on) {
  waiting.count += on ? 1 : -1;
  const active = waiting.count > 0;
  document.body.classList.toggle("busy", active);
  document.body.setAttribute("aria-busy", String(active));
  $("setup-start").disabled = active;
  $("setup-start").textContent = active ? "Starting…" : "Start the game";
  if (active && !waiting.timer) {
    waiting.since = Date.now();
    waiting.timer = setInterval(sayBusy, 1000);
    sayBusy();
  } else if (!active && waiting.timer) {
    clearInterval(waiting.timer);
    waiting.timer = null;
    $("setup-busy").hidden = true;
    if ($("notice").textContent === waiting.text) notice("");
  }
}
async function sayBusy() {
  let text = `Waiting for the server: ${Math.round((Date.now() - waiting.since) / 1000)} s so far…`;
  try {
    const status = await (await fetch("/api/status")).json();
    if (status.compiling) text = `The search is getting ready: ${status.progress}. The table waits for it once.`;
  } catch (e) { /* the status is a courtesy: the wait goes on regardless */ }
  if (!waiting.count) return;
  waiting.text = text;
  notice(text, "info");
  $("setup-busy").textContent = text;
  $("setup-busy").hidden = false;
}

function notice(text, kind = "info") {
  const box = $("notice");
  box.textContent = text;
  box.className = kind;
  box.hidden = !text;
}

async function load(id) {
  const data = await api("GET", `/api/games/${encodeURIComponent(id)}`);
  if (data) show(data);
  return data;
}

// A new game: with the server's options, or as chosen in the new-game form (`choice`, then
// remembered, so that the next visit offers to deal the same game).
async function newGame(choice) {
  if (choice && choice.seats) return newTable(choice);  // friends at one table
  const chosen = choice && choice.preset ? choice : undefined;
  const data = await api("POST", "/api/games", chosen);
  if (!data) return null;
  try {
    if (chosen) localStorage.setItem("sniff-last-choice", JSON.stringify(chosen));
    else localStorage.removeItem("sniff-last-choice");
  } catch (e) { /* private mode: nothing is remembered */ }
  $("welcome").hidden = true;
  history.replaceState(null, "", `/?game=${encodeURIComponent(data.id)}`);
  notice("");
  app.closed = null;
  show(data);
  return data;
}

async function change(path, extra = {}) {
  if (app.busy || !app.state) return null;
  app.busy = true;
  try {
    const data = await api("POST", `/api/games/${encodeURIComponent(app.state.id)}/${path}`,
      { version: app.state.version, ...extra });
    if (data) { notice(""); show(data); }
    return data;
  } finally { app.busy = false; }
}

const claiming = () => !!(app.state && app.state.rules.muggins_claims && $("claim").checked);
app.play = (action) => change("move", { action, claim: claiming() });

// What a scoring move does with its points: with muggins claims, unclaimed points go to the next player.
function pointsText(o, short) {
  if (!o.points) return "";
  if (!app.state.rules.muggins_claims || claiming()) return `+${o.points}`;
  const next = app.state.seats[(app.state.seat + 1) % app.state.seats.length];
  return short ? `gives ${o.points}` : `+${o.points} unclaimed: ${next ? next.name : "the next player"} takes them`;
}

// -- drawing tiles ---------------------------------------------------------------------------
function el(name, attrs = {}, parent = null) {
  const node = document.createElementNS(SVGNS, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (parent) parent.appendChild(node);
  return node;
}

function half(g, n, x, y, size) {
  const r = size * (n > 9 ? 0.075 : n > 6 ? 0.085 : 0.1);
  for (const [px, py] of PIPS[n]) {
    el("circle", { cx: x + px * size, cy: y + py * size, r, class: "pip" }, g);
  }
}

// A tile with `first` on the left (or top) and `second` on the right (or bottom).
function tile(parent, x, y, first, second, vertical, size = U, cls = "") {
  const w = vertical ? size : 2 * size, h = vertical ? 2 * size : size;
  const g = el("g", { class: `tile ${cls}`.trim(), transform: `translate(${x},${y})` }, parent);
  el("rect", { x: 0.5, y: 0.5, width: w - 1, height: h - 1, rx: size * 0.14, class: "face" }, g);
  if (vertical) {
    el("line", { x1: size * 0.12, y1: size, x2: size * 0.88, y2: size, class: "bar" }, g);
    half(g, first, 0, 0, size);
    half(g, second, 0, size, size);
  } else {
    el("line", { x1: size, y1: size * 0.12, x2: size, y2: size * 0.88, class: "bar" }, g);
    half(g, first, 0, 0, size);
    half(g, second, size, 0, size);
  }
  el("circle", { cx: w / 2, cy: h / 2, r: size * 0.05, class: "rivet" }, g);
  return g;
}

function tileBack(parent, x, y, size, vertical = true) {
  const w = vertical ? size : 2 * size, h = vertical ? 2 * size : size;
  const g = el("g", { class: "tile back", transform: `translate(${x},${y})` }, parent);
  el("rect", { x: 0.5, y: 0.5, width: w - 1, height: h - 1, rx: size * 0.14, class: "face" }, g);
  el("rect", { x: size * 0.18, y: size * 0.18, width: w - size * 0.36, height: h - size * 0.36,
               rx: size * 0.08, class: "inlay" }, g);
  return g;
}

function tileSvg(pips, size, cls = "") {
  const svg = el("svg", { width: size + 2, height: 2 * size + 2, viewBox: `-1 -1 ${size + 2} ${2 * size + 2}` });
  tile(svg, 0, 0, pips[0], pips[1], true, size, cls);
  svg.dataset.tile = key(pips);
  return svg;
}

const key = (pips) => `${pips[0]}-${pips[1]}`;

// -- the layout --------------------------------------------------------------------------------
// The line (the west arm, the lead, the east arm) runs through a pivot: the sniff once there is
// one, else the lead. From the pivot each half of the line runs outwards and, where the next tile
// would leave the table, turns: a corner tile stands across the row, and the line comes back on
// a new row beside the last one, the left half turning upwards and the right half downwards. The
// sniff's north and south arms run up and down from it and turn right and left, clear of the
// line's rows. An arm is laid in its own frame: p along its first row, away from the pivot, and q
// across it, towards the side it turns to; `toXY` places the frame on the table.

// Crosswise doubles stand across the line; the stubby sniff and in-line doubles lie along it.
function crosswise(t, stubby) {
  return t.double && !t.inline && !(t.sniff && stubby);
}

// Lays `items` ({t, near, far, cross}) from p = `start` outwards, no tile past p = `limit`, a row
// running back no nearer than p = `back`. Returns each tile's rectangle in the frame, with the
// side of its near half; the last item is a phantom where it marks an open end's next spot.
function snake(items, start, limit, back) {
  const out = [];
  let d = 1, q = 0, c = start, inRow = 0;
  items.forEach((it, i) => {
    const last = i === items.length - 1;
    const cross = it.cross && inRow > 0;   // the first tile of a turned row lies along it
    const len = cross ? U : 2 * U;
    const need = len + (last ? 0 : GAP + U);  // room after it for a corner, but after the last
    const fits = d > 0 ? c + need <= limit : c - need >= back;
    if (fits || inRow === 0) {
      const p0 = d > 0 ? c : c - len, w = cross ? 2 * U : U;
      out.push({ it, p0, p1: p0 + len, q0: q - w / 2, q1: q + w / 2, alongP: !cross, nearLow: d > 0 });
      c += d * (len + GAP);
      inRow += 1;
      return;
    }
    // the corner: across the row, its near half level with the row, its far half beyond it
    const p0 = d > 0 ? c : c - U;
    out.push({ it, p0, p1: p0 + U, q0: q - U / 2, q1: q + 3 * U / 2, alongP: false, nearLow: true, corner: true });
    q += PITCH;
    d = -d;
    c = d > 0 ? p0 : p0 + U;   // the next tile's near half lies under the corner's far half
    inRow = 0;
  });
  return out;
}

// Every tile of `layout` (and a phantom at each open end, its next spot) placed on the table, the
// pivot's centre at (0, 0): `L`, `R` the table's left and right edges, `T`, `B` its top and
// bottom, relative to the pivot.
function arrange(layout, stubby, L, R, T, B) {
  const c = layout.centre;
  const line = [
    ...[...layout.arms.west].reverse().map((t) => ({ t, a: t.outer, b: t.inner, end: null })),
    { t: c, a: c.pips[0], b: c.pips[1] },
    ...layout.arms.east.map((t) => ({ t, a: t.inner, b: t.outer })),
  ];
  let pivot = line.findIndex((x) => x.t.sniff);
  const hasSniff = pivot >= 0;
  if (!hasSniff) pivot = layout.arms.west.length;
  const p = line[pivot];
  const pcross = crosswise(p.t, stubby);
  const pw = pcross ? U : 2 * U, ph = pcross ? 2 * U : U;
  const open = Object.fromEntries(layout.ends.map((e) => [e.end, e]));
  const phantom = (end) => (open[end] && open[end].open ? [{ phantom: end, near: open[end].pip, far: open[end].pip, cross: false }] : []);
  const item = (x, near, far) => ({ t: x.t, near, far, cross: crosswise(x.t, stubby) });
  const clear = U + 2 * GAP;   // how near the sniff's column a turned row may come back
  const arms = [
    { items: [...line.slice(0, pivot).reverse().map((x) => item(x, x.b, x.a)), ...phantom("west")],
      start: pw / 2 + GAP, limit: -L, back: hasSniff ? clear : -R, toXY: (pp, qq) => [-pp, -qq] },
    { items: [...line.slice(pivot + 1).map((x) => item(x, x.a, x.b)), ...phantom("east")],
      start: pw / 2 + GAP, limit: R, back: hasSniff ? clear : L, toXY: (pp, qq) => [pp, qq] },
  ];
  if (hasSniff) {
    const column = (name) => layout.arms[name].map((t) => ({ t, near: t.inner, far: t.outer, cross: crosswise(t, stubby) }));
    arms.push({ items: [...column("north"), ...phantom("north")], start: ph / 2 + GAP, limit: -T, back: clear,
                toXY: (pp, qq) => [qq, -pp] });
    arms.push({ items: [...column("south"), ...phantom("south")], start: ph / 2 + GAP, limit: B, back: clear,
                toXY: (pp, qq) => [-qq, pp] });
  }
  const placed = [{ t: p.t, x: -pw / 2, y: -ph / 2, vertical: pcross, first: p.a, second: p.b }];
  const spots = {};
  for (const arm of arms) {
    for (const r of snake(arm.items, arm.start, arm.limit, arm.back)) {
      const [x0, y0] = arm.toXY(r.p0, r.q0), [x1, y1] = arm.toXY(r.p1, r.q1);
      const x = Math.min(x0, x1), y = Math.min(y0, y1), w = Math.abs(x1 - x0), h = Math.abs(y1 - y0);
      const vertical = h > w;
      if (r.it.phantom) {
        spots[r.it.phantom] = { x, y, w, h, vertical };
        continue;
      }
      // which half is nearer the pivot: its centre, in the frame, then on the table
      const nearP = r.alongP ? (r.nearLow ? r.p0 + U / 2 : r.p1 - U / 2) : (r.p0 + r.p1) / 2;
      const nearQ = r.alongP ? (r.q0 + r.q1) / 2 : r.q0 + U / 2;
      const [nx, ny] = arm.toXY(nearP, nearQ);
      const nearFirst = vertical ? ny < y + h / 2 : nx < x + w / 2;
      placed.push({ t: r.it.t, x, y, vertical, first: nearFirst ? r.it.near : r.it.far,
                    second: nearFirst ? r.it.far : r.it.near });
    }
  }
  const box = { minX: Infinity, maxX: -Infinity, minY: Infinity, maxY: -Infinity };
  const grow = (x, y, w, h) => {
    box.minX = Math.min(box.minX, x); box.maxX = Math.max(box.maxX, x + w);
    box.minY = Math.min(box.minY, y); box.maxY = Math.max(box.maxY, y + h);
  };
  for (const q of placed) grow(q.x, q.y, q.vertical ? U : 2 * U, q.vertical ? 2 * U : U);
  for (const s of Object.values(spots)) grow(s.x, s.y, s.w, s.h);
  return { placed, spots, box, sniff: hasSniff };
}

// The scale (CSS pixels per unit) and the pivot's place that show the whole layout largest, its
// tiles no smaller than LEAST of the hand's, in a table `widthPx` wide and, where it can be,
// `heightPx` high; the picture is then as high as it needs (`heightUnits`).
function fit(layout, stubby, widthPx, heightPx, phone) {
  const most = (phone ? 0.78 : 1.1), least = LEAST * HAND / U;
  let best = null;
  for (let s = most; ; s = Math.max(least, s * 0.93)) {
    const pad = Math.max(0.35 * U, 18 / s);
    const W = widthPx / s - 2 * pad, H = heightPx / s - 2 * pad;
    let top = null;
    // the north and south arms run as far as the table's height, or further where their turned
    // columns would otherwise run off its side
    for (const tall of [1, 1.6, 2.4, 3.5, 5]) {
      const tries = [];
      for (let k = 1; k <= 9; k++) {
        const px = -W / 2 + (k / 10) * W;                // the pivot's centre, from the table's centre
        const geo = arrange(layout, stubby, -W / 2 - px, W / 2 - px, -tall * H / 2, tall * H / 2);
        const w = geo.box.maxX - geo.box.minX, h = geo.box.maxY - geo.box.minY;
        const off = Math.abs((geo.box.minX + geo.box.maxX) / 2 + px);   // from the middle of the table
        tries.push({ s, pad, px, geo, w, h, score: h * 4 + off + (w > W + 0.5 ? 1e6 : 0) });
      }
      tries.sort((a, b) => a.score - b.score);
      if (!top || tries[0].score < top.score) top = tries[0];
      if (top.w <= W + 0.5 || !hasSniff(layout)) break;
    }
    if (!best || top.score < best.score) best = top;
    if (top.w <= W + 0.5 && top.h <= H + 0.5) { best = top; break; }
    if (s <= least) break;
  }
  return best;
}

// Whether the layout has a sniff (north and south arms that a taller table lets run longer).
const hasSniff = (layout) => [...layout.arms.west, layout.centre, ...layout.arms.east].some((t) => t.sniff);

// `px` CSS pixels in units, at scale `s` (CSS pixels per unit).
const units = (px, s) => px / s;

// `view` (the view or frame drawn) names the players; `opts.pace`: the tiles played since the
// player's last move come down one after another, PACE ms apart; `opts.hint`: the move the hint
// likes best, marked at its end.
function drawLayout(svg, layout, stubby, targets, freshFrom, view = null, opts = {}) {
  svg.replaceChildren();
  svg.style.minHeight = "";   // measured without the height a longer layout asked for before
  const phone = svg.clientWidth > 0 && svg.clientWidth < 560;
  const widthPx = svg.clientWidth || 800, heightPx = Math.max(svg.clientHeight || 300, 120);
  if (!layout.centre) {
    drawEmpty(svg, layout, targets, widthPx, heightPx, opts.hint);
    return;
  }
  const { s, pad, px, geo, w, h } = fit(layout, stubby, widthPx, heightPx, phone);
  app.scale = s;
  const lastOrder = Math.max(...geo.placed.map((q) => q.t.order));
  const marks = [];
  for (const q of [...geo.placed].sort((a, b) => a.t.order - b.t.order)) {
    const fresh = q.t.order >= freshFrom;
    const cls = [q.t.sniff ? "sniff" : "", fresh ? "fresh" : "", q.t.order === lastOrder ? "last" : "",
                 fresh && opts.pace ? "arrive" : ""];
    const g = tile(svg, q.x, q.y, q.first, q.second, q.vertical, U, cls.join(" ").trim());
    g.dataset.tile = key(q.t.pips);
    g.dataset.order = q.t.order;
    g.dataset.seat = q.t.seat;
    const delay = `${(q.t.order - freshFrom) * paceStep()}ms`;
    if (fresh && opts.pace) g.style.animationDelay = delay;
    if (fresh && view) marks.push({ q, delay });
  }
  // who played each tile since the player's last move: the mark of that player's seat, on the tile's corner
  const taken = geo.placed.map((q) => ({ x: q.x, y: q.y, w: q.vertical ? U : 2 * U, h: q.vertical ? 2 * U : U }));
  for (const { q, delay } of marks) {
    const seat = view.seats.find((x) => x.seat === q.t.seat);
    if (!seat) continue;
    const pos = seatPosition(view, seat.seat);
    const r = units(9, s);
    const g = el("g", { class: `by-mark${opts.pace ? " arrive" : ""}`, "data-seat": seat.seat, "data-pos": pos,
                        "data-tile": key(q.t.pips) }, svg);
    if (opts.pace) g.style.animationDelay = delay;
    el("circle", { cx: q.x + r * 0.6, cy: q.y + r * 0.6, r }, g);
    taken.push({ x: q.x - r * 0.4, y: q.y - r * 0.4, w: 2 * r, h: 2 * r });
    const t = el("text", { x: q.x + r * 0.6, y: q.y + r * 0.6 + units(4, s), "font-size": units(11, s) }, g);
    t.textContent = ARROWS[pos];
    const title = el("title", {}, g);
    title.textContent = `${key(q.t.pips)}: played by ${seat.name}`;
  }
  taken.push(...drawEnds(svg, layout, geo.spots, targets, s, opts.hint));
  drawStar(svg, geo.placed.find((q) => q.t.sniff), taken, s);
  // the view: the table's width at this scale, and the layout's height (at least the table's)
  const W = widthPx / s;
  const needed = h + 2 * pad;
  const H = Math.max(heightPx / s, needed);
  const cy = (geo.box.minY + geo.box.maxY) / 2;
  // a layout narrower than the table is centred on it (it is laid out the same wherever it sits)
  const cx = w + 2 * pad <= W ? (geo.box.minX + geo.box.maxX) / 2 : -px;
  svg.setAttribute("viewBox", `${cx - W / 2} ${cy - H / 2} ${W} ${H}`);
  svg.style.minHeight = needed * s > heightPx + 1 ? `${Math.ceil(needed * s)}px` : "";
  // the hint's mark, widened to be seen, is kept on the table where its end lies near the edge
  const mark = svg.querySelector(".hint-spot");
  if (mark) {
    // the box without its dashed outline, half of whose 3-unit stroke lies outside: a margin of 2
    const m = 2, g = mark.getBBox(), x0 = cx - W / 2, y0 = cy - H / 2;
    const b = { x: g.x - m, y: g.y - m, width: g.width + 2 * m, height: g.height + 2 * m };
    const H2 = Math.max(H, needed);
    const dx = b.x < x0 ? x0 - b.x : Math.min(0, x0 + W - b.x - b.width);
    const dy = b.y < y0 ? y0 - b.y : Math.min(0, y0 + H2 - b.y - b.height);
    if (dx || dy) mark.setAttribute("transform", `translate(${dx},${dy})`);
  }
}

// The sniff's star, beside the sniff where nothing on the table covers it (`taken`: the tiles, the
// ends' targets and markers, the marks of who played): above it, else at a corner, below or
// beside it (above it, over the rest, where all are taken).
function drawStar(svg, q, taken, s) {
  if (!q) return;
  const f = units(14, s), g = units(2, s) + f * 0.6;
  const x0 = q.x, y0 = q.y, x1 = q.x + (q.vertical ? U : 2 * U), y1 = q.y + (q.vertical ? 2 * U : U);
  const mx = (x0 + x1) / 2, my = (y0 + y1) / 2, left = x0 - g, right = x1 + g, top = y0 - g, bottom = y1 + g;
  const places = [[mx, top], [right, top], [left, top], [right, bottom], [left, bottom], [mx, bottom], [right, my], [left, my]];
  const half = f * 0.6;   // the glyph's box, with its line's height, about its centre
  const free = ([x, y]) => taken.every((r) => x + half <= r.x || r.x + r.w <= x - half || y + half <= r.y || r.y + r.h <= y - half);
  const [x, y] = places.find(free) || places[0];
  const star = el("text", { x, y: y + f * 0.35, class: "sniff-mark", "font-size": f }, svg);
  star.textContent = "★";
}

function drawEmpty(svg, layout, targets, widthPx, heightPx, hint) {
  const s = Math.min(1, LEAST * HAND / U * 1.6);
  app.scale = s;
  const W = widthPx / s, H = heightPx / s;
  svg.setAttribute("viewBox", `${-W / 2} ${-H / 2} ${W} ${H}`);
  svg.style.minHeight = "";
  drawEnds(svg, layout, { lead: { x: -U, y: -U / 2, w: 2 * U, h: U, vertical: false } }, targets, s, hint);
  if (!targets.length && !hint) {
    const t = el("text", { x: 0, y: 0, class: "empty-note", "font-size": units(15, s) }, svg);
    t.textContent = "the table is empty";
  }
}

// Drop targets where the picked tile may go (at least TOUCH pixels a side, placed apart), and a
// marker at every other open end: the number a tile must match there, and the end's name (placed
// apart too: the ends of turned arms may lie close together). Returns the boxes drawn.
function drawEnds(svg, layout, spots, targets, s, hint = null) {
  const least = units(TOUCH, s);
  const byEnd = {};
  const wanted = [];
  const drawn = [];
  for (const o of targets) {
    const spot = spots[o.end];
    if (!spot) continue;
    const k = byEnd[o.end] = (byEnd[o.end] || 0) + 1;
    const w = Math.max(spot.w, least), h = Math.max(spot.h, least);
    const step = (spot.vertical ? h : w) + GAP;
    const base = { x: spot.x + (spot.vertical ? 0 : (k - 1) * step), y: spot.y + (spot.vertical ? (k - 1) * step : 0),
                   w: spot.w, h: spot.h };
    wanted.push({ o, base, w, h });
  }
  for (const { o, r: { x, y, w, h } } of separate(wanted)) {
    const gives = o.points && app.state.rules.muggins_claims && !claiming();
    const hinted = hint && hint.action === o.action;
    const g = el("g", { class: `target${gives ? " gives" : ""}${hinted ? " hinted" : ""}`, "data-action": o.action,
                        "data-end": o.end, role: "button", tabindex: 0 }, svg);
    el("rect", { x, y, width: w, height: h, rx: units(6, s) }, g);
    drawn.push({ x, y, w, h });
    const label = el("text", { x: x + w / 2, y: y + h / 2 + units(5, s), "font-size": units(15, s) }, g);
    label.textContent = (o.inline ? "in line " : "") + (o.points ? pointsText(o, true) : o.end === "lead" ? "lead" : "play");
    const title = el("title", {}, g);
    title.textContent = o.text + (o.points ? `: ${pointsText(o, false)}` : "");
    g.addEventListener("click", () => app.play(o.action));
    g.addEventListener("keydown", (ev) => { if (ev.key === "Enter") app.play(o.action); });
  }
  // the hint's best placement, at its end, until its tile is picked (then its target is marked)
  const spot = hint && hint.end && spots[hint.end];
  if (spot && !targets.some((o) => o.action === hint.action)) {
    const side = Math.max(units(TOUCH, s), spot.w, spot.h);
    const cx = spot.x + spot.w / 2, cy = spot.y + spot.h / 2;
    const g = el("g", { class: "hint-spot", "data-action": hint.action, "data-end": hint.end }, svg);
    el("rect", { x: cx - side / 2, y: cy - side / 2, width: side, height: side, rx: units(8, s) }, g);
    drawn.push({ x: cx - side / 2, y: cy - side / 2, w: side, h: side });
    const label = el("text", { x: cx, y: cy + side / 2 + units(14, s), "font-size": units(13, s) }, g);
    label.textContent = `hint: ${key(hint.tile)}`;
    const title = el("title", {}, g);
    title.textContent = `the hint's best move: ${hint.text}`;
  }
  if (!layout.centre) return drawn;
  const side = Math.max(U, units(READABLE * 2.2, s));
  const markers = layout.ends.filter((e) => e.open && spots[e.end] && !byEnd[e.end])
    .map((e) => ({ e, base: spots[e.end], w: side, h: side }));
  // apart from each other and from the targets where they can be, else from each other
  const fixed = drawn.slice();
  const clear = (ps) => ps.every((m, i) => fixed.every((r) => apart(r, m.r)) && ps.slice(i + 1).every((n) => apart(m.r, n.r)));
  let placed = separate(markers, 20000, fixed);
  if (!clear(placed)) placed = separate(markers);
  for (const { e, r: { x, y } } of placed) {
    const cx = x + side / 2, cy = y + side / 2;
    const g = el("g", { class: "open-end", "data-end": e.end }, svg);
    el("rect", { x, y, width: side, height: side, rx: units(6, s) }, g);
    drawn.push({ x, y, w: side, h: side });
    const n = el("text", { x: cx, y: cy + units(READABLE * 0.36, s), class: "pip-value",
                           "font-size": units(READABLE * 1.05, s) }, g);
    n.textContent = e.pip;
    const name = el("text", { x: cx, y: cy - side / 2 + units(9, s), class: "end-name", "font-size": units(8.5, s) }, g);
    name.textContent = e.end.toUpperCase();
    const title = el("title", {}, g);
    title.textContent = `${e.end} end: a ${e.pip} plays here`;
  }
  return drawn;
}

// Places each drop target (`base`: its end's spot; `w`×`h`: its size, at least the spot's) as a
// rectangle `r` over its spot, so that no two cover each other: widened for touch, the targets of
// the sniff's four ends, which lie close together, would, and the one drawn last would take the
// other's touches. Each rectangle has nine places over its spot (centred, or flush with a side or
// a corner of it, in that order of preference); the first arrangement, target by target, where
// none overlaps (nor covers a rectangle of `fixed`) is kept. Where there is none (or the search
// runs long), all are centred.
function separate(spots, budget = 20000, fixed = []) {
  const places = (s) => {
    const xs = [s.base.x - (s.w - s.base.w) / 2, s.base.x, s.base.x + s.base.w - s.w];
    const ys = [s.base.y - (s.h - s.base.h) / 2, s.base.y, s.base.y + s.base.h - s.h];
    return ys.flatMap((y) => xs.map((x) => ({ x, y, w: s.w, h: s.h })));
  };
  const options = spots.map(places), chosen = [];
  let tries = 0;
  const place = (i) => {
    if (i === spots.length) return true;
    for (const r of options[i]) {
      if (++tries > budget) return false;
      if (chosen.every((c) => apart(c, r)) && fixed.every((c) => apart(c, r))) {
        chosen.push(r);
        if (place(i + 1)) return true;
        chosen.pop();
      }
    }
    return false;
  };
  const found = place(0);
  return spots.map((s, i) => ({ ...s, r: found ? chosen[i] : options[i][0] }));
}
const apart = (a, b) => a.x + a.w <= b.x || b.x + b.w <= a.x || a.y + a.h <= b.y || b.y + b.h <= a.y;

// -- the page ------------------------------------------------------------------------------------
function esc(text) {
  return String(text).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
}

// The seats around the table, in the order they play (clockwise from the bottom): the player
// whose view it is at the bottom, the next to play on the left, a partner opposite.
const POSITIONS = { 2: ["south", "north"], 3: ["south", "west", "east"], 4: ["south", "west", "north", "east"] };
const ARROWS = { south: "▼", west: "◀", north: "▲", east: "▶" };

// The seat drawn at the bottom: the player's own, the recording seat's in a seat's record, else
// the person's seat of a replayed game (else the first).
function bottomSeat(view) {
  if (typeof view.seat === "number" && view.seat >= 0) return view.seat;
  const own = view.seats.find((s) => s.you) || view.seats.find((s) => s.human);
  return own ? own.seat : 0;
}

function seatPosition(view, seat) {
  const n = view.seats.length;
  const order = POSITIONS[n] || POSITIONS[4];
  return order[((seat - bottomSeat(view)) % n + n) % n] || "north";
}

// The tile each seat played last in this hand (its pips), from the hand's events.
function lastTiles(view) {
  const last = {};
  for (const e of view.events) if (e.kind === "play" && e.tile) last[e.seat] = e.tile;
  return last;
}

// One chip per seat, in its place around the table: its mark (an arrow towards it, in its
// colour: the same mark tags the tiles it has just played), its name, its side's score, how many
// tiles it holds (face up in a replay) and the tile it played last.
function drawSeats(view, hands) {
  for (const slot of document.querySelectorAll("#opponents .slot")) slot.replaceChildren();
  const scoreOf = (seat) => view.sides[seat.side] ? view.sides[seat.side].score : 0;
  const target = view.rules.target;
  const last = lastTiles(view);
  for (const s of view.seats) {
    const pos = seatPosition(view, s.seat);
    const div = document.createElement("div");
    const toPlay = view.phase === "play" && view.turn === s.seat;
    div.className = `seat ${s.you ? "you" : "opponent"}${toPlay ? " to-play" : ""}`;
    div.dataset.seat = s.seat;
    div.dataset.pos = pos;
    div.title = `${s.name}${s.engine ? ` (engine: ${s.engine})` : ""}: ` +
      `${pos === "south" ? "at the bottom" : `on the ${pos === "north" ? "far side" : pos === "west" ? "left" : "right"}`}` +
      (toPlay ? ", to play" : "");
    const pct = Math.max(0, Math.min(100, (100 * scoreOf(s)) / target));
    const score = view.rules.partnership ? "" :
      `<b class="score" title="score">${scoreOf(s)}</b><span class="bar"><span style="width:${pct}%"></span></span>`;
    div.innerHTML = `<span class="mark" aria-hidden="true">${ARROWS[pos]}</span><span class="who">${esc(s.name)}</span>${score}` +
      `<span class="count muted" title="tiles in hand">${s.tiles} tile${s.tiles === 1 ? "" : "s"}</span>`;
    const open = hands ? hands[s.seat] : null;
    if (open || (!s.you && s.tiles)) {
      const size = open ? 12 : 7, shown = Math.min(s.tiles, 12);
      const svg = el("svg", { class: `tiles${open ? " open" : ""}`, width: shown * (size + 2) + 2, height: 2 * size + 2 });
      for (let i = 0; i < shown; i++) {
        if (open && open[i]) tile(svg, 1 + i * (size + 2), 1, open[i][0], open[i][1], true, size);
        else tileBack(svg, 1 + i * (size + 2), 1, size);
      }
      div.appendChild(svg);
    }
    if (last[s.seat]) {
      const t = last[s.seat];
      const played = el("svg", { class: "last-tile", width: 28, height: 15, viewBox: "-1 -1 30 16" });
      tile(played, 0, 0, t[0], t[1], false, 14);
      const title = el("title", {}, played);
      title.textContent = `${s.name} played ${key(t)} last`;
      played.dataset.tile = key(t);
      div.appendChild(played);
    }
    $(`seat-${pos}`).appendChild(div);
  }
}

// In partnerships, each side's score (the seats show it otherwise).
function drawScores(view) {
  const box = $("scores");
  box.hidden = !view.rules.partnership;
  box.innerHTML = view.sides.map((s) => `<span class="side${s.yours ? " yours" : ""}"><span class="names">` +
    `${esc(s.names.join(" & "))}</span> <b>${s.score}</b></span>`).join("");
}

// The events, a run of draws by one player as one line.
function grouped(events) {
  const out = [];
  for (const e of events) {
    const prev = out[out.length - 1];
    if (e.kind === "draw" && prev && prev.kind === "draw" && prev.seat === e.seat) {
      prev.n += 1;
      if (e.recent) prev.recent = true;
      if (prev.tiles && e.tile) prev.tiles.push(e.tile); else prev.tiles = null;
      continue;
    }
    out.push({ ...e, n: 1, tiles: e.tile ? [e.tile] : null });
  }
  for (const e of out) {
    if (e.kind === "draw" && e.n > 1) {
      const who = e.text.replace(/ draws? .*$/, "");
      const verb = /^.* draw /.test(e.text) ? "draw" : "draws";
      e.text = `${who} ${verb} ${e.n} tiles` + (e.tiles ? `: ${e.tiles.map(key).join(", ")}` : "");
    }
  }
  return out;
}

function eventItem(e) {
  const li = document.createElement("li");
  li.className = `${e.kind}${e.recent ? " recent" : ""}`;
  const scored = e.points && e.text.match(/^(.*?)\s*(\+\d+)$/);
  li.textContent = scored ? scored[1] + " " : e.text;
  if (scored) {
    const b = document.createElement("b");
    b.textContent = scored[2];
    li.appendChild(b);
  }
  return li;
}

function drawLog(events) {
  const log = $("log");
  log.replaceChildren();
  const items = grouped(events);
  for (const e of items) log.appendChild(eventItem(e));
  log.scrollTop = log.scrollHeight;
  // the latest moves, beside the table on a narrow screen
  const recent = $("recent");
  recent.replaceChildren();
  for (const e of items.filter((x) => x.kind !== "hand_end" && x.kind !== "game_end").slice(-3)) recent.appendChild(eventItem(e));
}

function drawSheet(view) {
  const sheet = $("sheet");
  const names = view.sides.map((s) => s.names.join(" & "));
  const head = `<thead><tr><th>hand</th>${names.map((n) => `<th title="${esc(n)}">${esc(n).replace(/#/g, "<wbr>#")}</th>`).join("")}</tr></thead>`;
  const signed = (n) => `${n >= 0 ? "+" : "−"}${Math.abs(n)}`;
  const rows = (view.sheet || []).map((r) => `<tr${r.over ? "" : ' class="in-play"'}><td>${r.hand}</td>` +
    r.sides.map((x) => {
      const parts = signed(x.play) + (r.over ? ` ${signed(x.end)}` : "");
      return `<td><b>${x.total}</b> <span class="muted" title="in play${r.over ? ", at the end of the hand" : " so far"}">${parts}</span></td>`;
    }).join("") + "</tr>");
  sheet.innerHTML = head + `<tbody>${rows.join("")}</tbody>`;
}

function drawCommon(view, hands) {
  $("rules").textContent = `${view.rules.name} · ${view.rules.players} players · ${view.rules.scoring} · ` +
    `to ${view.rules.target} · hand ${view.hand_number}${view.rated ? " · rated" : ""}`;
  drawSeats(view, hands);
  drawScores(view);
  $("count").textContent = view.layout.count;
  $("count-sum").replaceChildren();
  const shares = view.layout.shares;
  if (shares.length) {
    $("count-sum").append(`${view.layout.count} = `);
    shares.forEach((e, i) => {
      const part = document.createElement("span");
      part.className = "share";
      part.dataset.end = e.end;
      part.dataset.value = e.value;
      part.textContent = `${i ? " + " : ""}${e.end} ${e.value}`;
      $("count-sum").appendChild(part);
      if (e.note) $("count-sum").insertAdjacentHTML("beforeend", ` <span class="note">(${esc(e.note)})</span>`);
    });
  }
  $("boneyard").innerHTML = "";
  const by = el("svg", { width: 60, height: 44 });
  for (let i = 0; i < Math.min(3, view.boneyard.size); i++) tileBack(by, 2 + i * 6, 2 + i * 2, 18, false);
  $("boneyard").appendChild(by);
  const label = document.createElement("span");
  label.innerHTML = `boneyard <b>${view.boneyard.size}</b>` +
    (view.boneyard.drawable !== view.boneyard.size ? ` <span class="muted">(${view.boneyard.drawable} drawable)</span>` : "");
  $("boneyard").appendChild(label);
  drawLog(view.events);
  drawSheet(view);
  drawPegs(view);
  drawResult(view);
}

// A cribbage board, for rules that score a point per five: per side a track of one hole per point
// of the target, in rows of groups of five that run out and back; the front peg at the score, the
// back peg at the score before the side's last gain.
function drawPegs(view) {
  const panel = $("pegging-panel");
  const on = view.rules.points === "count_div5" && Array.isArray(view.pegs);
  panel.hidden = !on;
  if (!on) return;
  const svg = $("pegging");
  svg.replaceChildren();
  const T = Math.max(1, view.rules.target);
  const rows = Math.max(2, Math.ceil(T / 25)), perRow = Math.ceil(T / rows);
  const step = 12, gap = 6, rowH = 13, left = 20, top = 18;
  const rowW = perRow * step + (Math.ceil(perRow / 5) - 1) * gap;
  const laneH = top + rows * rowH + 12;
  const hole = (i) => {   // hole i (1..T): its row, running right on even rows and back on odd ones
    const row = Math.floor((i - 1) / perRow), k0 = (i - 1) % perRow, k = row % 2 ? perRow - 1 - k0 : k0;
    return [left + k * step + Math.floor(k / 5) * gap + step / 2, row * rowH];
  };
  const mine = bottomSeat(view);
  view.sides.forEach((side, n) => {
    const y0 = n * laneH;
    const yours = view.seats.some((x) => x.seat === mine && x.side === side.side);
    const lane = el("g", { class: `lane${yours ? " yours" : ""}`, "data-side": side.side }, svg);
    const pegs = view.pegs[n] || { front: 0, back: 0 };
    const name = el("text", { x: 2, y: y0 + 12, class: "lane-name" }, lane);
    name.textContent = `${side.names.join(" & ")}: ${pegs.front} of ${T}`;
    el("rect", { x: 0, y: y0 + top - 3, width: left + rowW + 6, height: rows * rowH + 3, rx: 7, class: "track" }, lane);
    el("circle", { cx: 9, cy: y0 + top + 4, r: 2.9, class: "hole start" }, lane);
    for (let i = 1; i <= T; i++) {
      const [x, y] = hole(i);
      el("circle", { cx: x, cy: y0 + top + 4 + y, r: i % 5 ? 2.4 : 3, class: "hole", "data-hole": i }, lane);
    }
    for (const [which, at] of [["back", pegs.back], ["front", pegs.front]]) {
      const i = Math.max(0, Math.min(T, at));
      const [x, y] = i ? hole(i) : [9, 0];
      el("circle", { cx: x, cy: y0 + top + 4 + y, r: 4.6, class: `peg ${which}`, "data-hole": i }, lane);
    }
  });
  svg.setAttribute("viewBox", `0 0 ${left + rowW + 6} ${view.sides.length * laneH}`);
}

function drawResult(view) {
  const box = $("result");
  const r = view.result;
  const closed = !!r && app.closed === resultKey(view);
  box.hidden = !r || closed;
  $("show-result").hidden = !r || !closed;
  if (!r) return;
  const title = r.winner_text !== undefined ? `Game over: ${r.winner_text}` : `Hand ${view.hand_number} is over`;
  box.innerHTML = `<h2>${esc(title)}</h2>`;
  const close = document.createElement("button");
  close.id = "result-close";
  close.type = "button";
  close.title = "close, to look at the table";
  close.setAttribute("aria-label", "close the result");
  close.textContent = "×";
  close.addEventListener("click", () => { app.closed = resultKey(view); drawResult(view); });
  box.appendChild(close);
  // what the hand gave each side, and the new scores
  if (r.scores) {
    const table = document.createElement("table");
    table.className = "hand-scores";
    table.innerHTML = `<thead><tr><th></th><th>before</th><th>in play</th><th>end of hand</th><th>now</th></tr></thead><tbody>` +
      r.scores.map((s) => `<tr><th>${esc(s.names)}</th><td>${s.before}</td><td>${s.play >= 0 ? "+" : ""}${s.play}</td>` +
        `<td>${s.end >= 0 ? "+" : ""}${s.end}</td><td><b>${s.after}</b></td></tr>`).join("") + "</tbody>";
    box.appendChild(table);
  }
  if (view.stats && !app.replay) {
    const line = document.createElement("p");
    line.id = "result-stats";
    line.className = view.stats.error ? "stats-error" : "";
    line.textContent = view.stats.error ? `Not counted in your record: ${view.stats.error}` : `Your record: ${view.stats.summary}`;
    box.appendChild(line);
  }
  if (!app.replay) {
    const button = document.createElement("button");
    const over = r.winner_text !== undefined;
    button.textContent = over ? "New game" : "Next hand";
    button.id = over ? "result-new" : "result-next";
    button.className = "primary";
    button.addEventListener("click", over ? () => newGame(app.state && app.state.setup && app.state.setup.opponent !== "server"
      ? app.state.setup : null) : () => change("next"));
    box.appendChild(button);
  }
  for (const h of r.hands) {
    const row = document.createElement("div");
    row.className = "reveal";
    row.innerHTML = `<span class="who">${esc(h.name)}</span>`;
    if (!h.tiles) row.insertAdjacentHTML("beforeend", `<span class="muted">tiles not in this record</span>`);
    else for (const t of h.tiles) row.appendChild(tileSvg(t, 14));
    if (h.tiles && !h.tiles.length) row.insertAdjacentHTML("beforeend", `<span class="muted">no tiles left</span>`);
    row.insertAdjacentHTML("beforeend", `<span class="pips">${h.pips} pips</span>`);
    box.appendChild(row);
  }
  const ul = document.createElement("ul");
  for (const line of r.lines.concat(r.note ? [r.note] : [])) {
    const li = document.createElement("li");
    li.textContent = line;
    if (line === r.note) li.className = "muted";
    ul.appendChild(li);
  }
  box.appendChild(ul);
  // where the panel scrolls (a phone), a cue at its foot says that more lies below
  const more = document.createElement("div");
  more.className = "more-below";
  more.setAttribute("aria-hidden", "true");
  more.textContent = "▾ more below: scroll";
  box.appendChild(more);
  moreBelow();
}

// Shows the result panel's cue while part of it lies below its foot.
function moreBelow() {
  const box = $("result"), more = box.querySelector(".more-below");
  if (more) more.hidden = box.hidden || box.scrollHeight - box.scrollTop - box.clientHeight <= 2;
}

const resultKey = (view) => `${view.id || "replay"}:${view.version ?? view.title}`;

function show(view) {
  const before = app.state;
  if (app.state && view.version !== app.state.version) { app.hints = null; app.selected = null; }
  if (app.state && app.state.id !== view.id) app.hints = null;
  app.state = view;
  app.replay = null;
  render();
  feelShown(before, view);
  friendsShown(view);
}

function render() {
  const view = app.state;
  if (!view) return;
  const focused = focusPlace();
  $("replay-bar").hidden = true;
  $("me").hidden = false;
  $("moves-panel").hidden = false;
  document.body.dataset.version = view.version;
  document.body.dataset.phase = view.phase;
  drawCommon(view, null);
  $("save-log").href = `/api/games/${encodeURIComponent(view.id)}/log`;
  const options = view.options;
  const mine = options.filter((o) => o.tile && app.selected === key(o.tile));
  const firstRecent = recentPlayOrder(view);
  const best = bestHint(view);
  // the moves since the player's last one come down one by one, once per version of the game
  const paceKey = `${view.id}:${view.version}`;
  const pace = app.paced !== null && app.paced !== paceKey && firstRecent !== null && paceStep() > 0;
  app.paced = paceKey;
  if (pace) app.pacedUntil = Date.now() + paceStep() * (view.layout.arms ? tilesDown(view.layout) - firstRecent : 0) + 450;
  drawLayout($("layout"), view.layout, view.rules.sniff === "stubby", mine, firstRecent ?? Infinity, view,
             { pace, hint: best });
  // the hand
  const hand = $("hand");
  hand.replaceChildren();
  for (const pips of view.hand) {
    const k = key(pips);
    const playable = options.some((o) => o.tile && key(o.tile) === k);
    const hinted = best && best.tile && key(best.tile) === k;
    const b = document.createElement("button");
    b.type = "button";
    b.className = `hand-tile${playable ? " playable" : ""}${app.selected === k ? " selected" : ""}${hinted ? " hinted" : ""}`;
    b.dataset.tile = k;
    b.title = hinted ? `${k}: the hint's best move is ${best.text}` : k;
    b.appendChild(tileSvg(pips, HAND));
    if (hinted) b.insertAdjacentHTML("beforeend", `<span class="hint-badge">hint</span>`);
    b.addEventListener("click", () => pick(k));
    hand.appendChild(b);
  }
  // status, controls and the list of moves
  const turnName = view.seats[view.turn] ? view.seats[view.turn].name : "";
  $("status").textContent = view.phase !== "play" ? "" : view.your_turn
    ? (app.selected ? `Place ${app.selected}: click a highlighted end` : "Your turn: pick a tile, then an end")
    : `${turnName} to play`;
  const scoring = mine.find((o) => o.points);
  if (scoring && view.rules.muggins_claims) {
    const warn = document.createElement("div");
    warn.className = claiming() ? "" : "claim-warning";
    warn.textContent = claiming()
      ? `"claim my points" is ticked: a scoring end gives you its points`
      : `"claim my points" is not ticked: ${pointsText(scoring, false)} (muggins)`;
    $("status").appendChild(warn);
  }
  if (view.target_note) {
    const note = document.createElement("div");
    note.id = "target-note";
    note.textContent = view.target_note;
    $("status").appendChild(note);
  }
  const draw = options.find((o) => o.draw);
  $("draw").hidden = !draw;
  $("draw").classList.toggle("hinted", !!(best && best.draw));
  $("draw").onclick = draw ? () => app.play(draw.action) : null;
  $("claim-box").hidden = !view.rules.muggins_claims;
  $("undo").disabled = !view.can_undo;
  $("undo").hidden = view.rated;
  $("hint").hidden = view.rated;
  $("hint").disabled = !view.your_turn;
  $("next-hand").hidden = view.phase !== "hand_over";
  const moves = $("moves");
  moves.replaceChildren();
  for (const o of options) {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "move" + (o.points ? " scores" : "");
    b.dataset.action = o.action;
    const value = app.hints ? app.hints[o.action] : undefined;
    const hint = value !== undefined
      ? ` <i title="the search player's expected points margin to the end of the hand">hint ${value >= 0 ? "+" : ""}${value.toFixed(1)}</i>` : "";
    const points = o.points ? ` <b title="points this move scores now">${esc(pointsText(o, true).replace(/^\+/, "scores +"))}</b>` : "";
    b.innerHTML = `<span class="text">${esc(o.text)}</span>${points}${o.domino ? " <b>domino!</b>" : ""}${hint}`;
    b.addEventListener("click", () => app.play(o.action));
    moves.appendChild(b);
  }
  if (!options.length) {
    moves.innerHTML = `<p class="muted">${view.phase === "play" ? `${esc(turnName)} is to play` : "no moves: the hand is over"}</p>`;
  }
  // the hint's summary, under the moves (so that they stay where they are)
  $("hint-note").textContent = app.hints ? app.hintText || "" : "";
  $("hint-note").hidden = !app.hints;
  // a note about the players (who plays and why) is shown once a game, when it is first drawn
  // (a reload of the page does not show it again)
  if (view.notes.length && !noted(view.id)) notice(view.notes.join(" "), "info");
  speakable(view);
  refocus(focused, view);
}

// The move the hint values most (while the hint is for this position), or null.
function bestHint(view) {
  if (!app.hints || !view.your_turn) return null;
  let best = null;
  for (const o of view.options) {
    const v = app.hints[o.action];
    if (v !== undefined && (!best || v > app.hints[best.action])) best = o;
  }
  return best;
}

const tilesDown = (layout) => (layout.centre ? 1 : 0) + Object.values(layout.arms).reduce((n, a) => n + a.length, 0);

function recentPlayOrder(view) {
  // the play order of the first tile placed since the player last moved
  const recent = view.events.filter((e) => e.kind === "play");
  const firstRecent = recent.findIndex((e) => e.recent);
  return firstRecent < 0 ? null : firstRecent;
}

function pick(k) {
  const view = app.state;
  if (!view || view.phase !== "play") return;
  if (!view.your_turn) { notice("wait: it is not your turn", "error"); return; }
  const uses = view.options.filter((o) => o.tile && key(o.tile) === k);
  if (!uses.length) {
    const ends = view.layout.ends.filter((e) => e.open).map((e) => e.pip);
    const [a, b] = k.split("-");
    notice(`${k} cannot be played now: ` + (ends.length
      ? `no open end shows a ${a === b ? a : `${a} or a ${b}`} (open ends: ${[...new Set(ends)].join(", ")})`
      : view.options.some((o) => o.tile) ? "another tile must be led" : "you must draw"), "error");
    app.selected = null;
  } else {
    notice("");
    app.selected = app.selected === k ? null : k;
  }
  render();
  focusEnds(k);
}

async function hint() {
  if (!app.state || !app.state.your_turn) return;
  $("hint").disabled = true;
  $("hint").textContent = "Thinking…";
  try {
    const data = await api("GET", `/api/games/${encodeURIComponent(app.state.id)}/hint`);
    if (data && data.version === app.state.version) {
      app.hints = Object.fromEntries(data.hints.map((h) => [h.action, h.value]));
      app.hintText = `Hint: best is ${data.hints[0].text} (expected points margin to the end of the hand ` +
        `${data.hints[0].value >= 0 ? "+" : ""}${data.hints[0].value.toFixed(1)}). "scores" is what a move ` +
        `scores now, "hint" its expected margin.`;
    }
  } finally {
    $("hint").textContent = "Hint";
    render();
  }
}

// Whether the notes of game `id` were shown already (remembered across reloads, and on this page
// where the browser keeps nothing); marks them shown.
const notedHere = new Set();
function noted(id) {
  if (notedHere.has(id)) return true;
  notedHere.add(id);
  let seen = [];
  try { seen = JSON.parse(localStorage.getItem("sniff-noted") || "[]"); } catch (e) { seen = []; }
  if (!Array.isArray(seen)) seen = [];
  if (seen.includes(id)) return true;
  try { localStorage.setItem("sniff-noted", JSON.stringify([...seen.slice(-49), id])); } catch (e) { /* private mode */ }
  return false;
}

// -- the new-game form and the help ----------------------------------------------------------
async function openSetup() {
  if (!app.setup) app.setup = await api("GET", "/api/setup");
  if (!app.setup) return;
  const form = $("setup-form");
  const was = (app.state && app.state.setup) || {};
  const preset = $("setup-preset");
  preset.replaceChildren(...app.setup.presets.map((p) => new Option(p.name, p.name)));
  preset.value = was.preset || app.setup.presets[0].name;
  const level = $("setup-opponent");
  level.replaceChildren(...app.setup.levels.map((l) => new Option(`${l.label}`, l.name)));
  level.value = was.opponent && was.opponent !== "server" ? was.opponent : app.setup.default_level;
  form.elements.players.value = String(was.players || 2);
  $("setup-partnership").checked = !!was.partnership;
  $("setup-claims").checked = !!was.muggins_claims;
  $("setup-rated").checked = !!was.rated;
  setupChanged(was.target || 0);
  friendsSetup(was);
  $("setup").showModal();
}

function setupChanged(target) {
  const form = $("setup-form");
  const p = app.setup.presets.find((x) => x.name === $("setup-preset").value) || app.setup.presets[0];
  const players = form.elements.players.value;
  $("setup-about").textContent = p.summary;
  $("setup-partnership").disabled = players !== "4";
  if (players !== "4") $("setup-partnership").checked = false;
  const l = app.setup.levels.find((x) => x.name === $("setup-opponent").value);
  $("setup-opponent-about").textContent = l ? l.about : "";
  const select = $("setup-target");
  const keep = target === undefined ? Number(select.value || 0) : target;
  select.replaceChildren(...app.setup.targets.map((t) =>
    new Option(t ? `${t} points` : `${p.targets[players]} points (the preset's)`, String(t))));
  select.value = String(app.setup.targets.includes(keep) ? keep : 0);
  loadHowTo();
}

function setupChoice() {
  if ($("setup-friends").checked) return tableChoice();
  const form = $("setup-form");
  return {
    preset: $("setup-preset").value, players: Number(form.elements.players.value),
    partnership: $("setup-partnership").checked, muggins_claims: $("setup-claims").checked,
    target: Number($("setup-target").value), opponent: $("setup-opponent").value, rated: $("setup-rated").checked,
  };
}

// How to play the preset chosen in the form, in words (loaded when its panel is open).
async function loadHowTo() {
  const choice = setupChoice();
  $("setup-how-name").textContent = `${choice.preset} (${choice.players} players)`;
  if (!$("setup-how").open) return;
  const query = new URLSearchParams({ preset: choice.preset, players: choice.players,
    partnership: choice.partnership, muggins_claims: choice.muggins_claims });
  if (app.howKey === query.toString()) return;
  app.howKey = query.toString();
  const data = await api("GET", `/api/guide?${query}`);
  if (!data || app.howKey !== query.toString()) return;
  const body = $("setup-how-body");
  body.replaceChildren();
  const about = document.createElement("p");
  about.className = "muted";
  about.textContent = data.summary;
  body.appendChild(about);
  appendSections(body, data.sections);
}

// Titled sections of plain lines (the rules and help pages), as text, never as markup.
function appendSections(body, sections) {
  for (const section of sections) {
    const h = document.createElement("h3");
    h.textContent = section.title;
    body.appendChild(h);
    for (const line of section.lines) {
      const p = document.createElement("p");
      p.textContent = line;
      body.appendChild(p);
    }
  }
}

// The player's record across finished games.
async function openStats() {
  const body = $("stats-body");
  body.replaceChildren();
  let data = null;
  try {
    const response = await fetch("/api/stats");
    data = await response.json();
    if (!response.ok) data = { error: data.error || `the server answered ${response.status}` };
  } catch (e) { data = { error: "the server cannot be reached" }; }
  if (data.error) {
    body.innerHTML = `<p class="stats-error">${esc(data.error)}</p>`;
  } else if (!data.rows.length) {
    body.innerHTML = `<p class="muted">No finished games yet: a game counts here once it is over.</p>`;
  } else {
    body.innerHTML = `<p>${data.played} played, ${data.won} won; ${data.streak} won in a row now, longest run ` +
      `${data.best_streak}.</p><table id="stats-table"><thead><tr><th>game</th><th>played</th><th>won</th>` +
      `<th>best</th><th>run</th></tr></thead><tbody>` + data.rows.map((r) => `<tr data-preset="${esc(r.preset)}">` +
      `<th>${esc(r.kind)}<br><span class="muted">vs ${esc(r.opponent)}</span></th><td>${r.played}</td>` +
      `<td>${r.won} <span class="muted">${r.share}%</span></td><td>${r.best ?? "–"}</td>` +
      `<td title="won in a row now (longest ${r.best_streak})">${r.streak}</td></tr>`).join("") + "</tbody></table>";
  }
  if (!$("stats").open) $("stats").showModal();
}

async function openHelp() {
  const body = $("help-body");
  const id = app.state && app.state.id;
  let sections = null;
  if (id) {
    const data = await api("GET", `/api/games/${encodeURIComponent(id)}/guide`);
    sections = data && data.sections;
  } else if (app.dealChoice) {  // no game yet: the rules of the game the page offers to deal
    const c = app.dealChoice;
    const data = await api("GET", `/api/guide?${new URLSearchParams({ preset: c.preset, players: c.players,
      partnership: c.partnership, muggins_claims: c.muggins_claims })}`);
    sections = data && data.sections;
  } else if (app.setup) {
    sections = app.setup.server.sections;
  }
  if (sections) {
    body.replaceChildren();
    appendSections(body, sections);
  }
  $("help").showModal();
}

// -- replay ------------------------------------------------------------------------------------
async function openReplay(file) {
  const text = await file.text();
  const data = await api("POST", "/api/replay", text);
  if (!data) return;
  app.replay = { frames: data.frames, index: 0, name: file.name, record: data.record };
  notice("");
  showFrame();
}

function showFrame() {
  const r = app.replay;
  const frame = r.frames[r.index];
  $("welcome").hidden = true;
  $("replay-bar").hidden = false;
  $("me").hidden = true;
  $("moves-panel").hidden = true;
  $("status").textContent = "";
  const slider = $("rp-slider");
  slider.max = r.frames.length - 1;
  slider.value = r.index;
  const whose = r.record ? ` · what ${r.record.name === "You" ? "you" : r.record.name} saw` : "";
  $("rp-title").textContent = `${r.name}${whose} · ${r.index + 1}/${r.frames.length} · ${frame.title}`;
  if (r.record && frame.record) $("status").textContent = frame.record.note;
  drawCommon(frame, frame.hands);  // every seat face up (a seat's record: only its own), each once
  const last = frame.events.filter((e) => e.kind === "play").findIndex((e) => e.recent);
  drawLayout($("layout"), frame.layout, frame.rules.sniff === "stubby", [], last < 0 ? Infinity : last, frame);
  speakable(frame);
}

function step(to) {
  const r = app.replay;
  if (!r) return;
  r.index = Math.max(0, Math.min(r.frames.length - 1, to));
  showFrame();
}

function redraw() {
  if (app.replay) showFrame(); else render();
}

// -- friends at one table -------------------------------------------------------------------
// A table shared by several people: the host chooses who sits in each seat (me, a friend who
// joins by a link, an agent's level). Each person's page holds the key of their own seat (its
// link), asks the server for the table every second to see the others' moves, and shows whom
// the table waits for and how long; the host's page lists the friends' links.
const POLL_MS = 1000;
const friends = { polling: false, fetchedAt: 0 };

// The seat choices of the form, one per seat in turn order (kept from `was` where it has them).
function seatChoices(was) {
  const box = $("setup-seats");
  const players = Number($("setup-form").elements.players.value);
  const partners = $("setup-partnership").checked && players === 4;
  const old = [...box.querySelectorAll("select")].map((x) => x.value);
  const given = was && Array.isArray(was.seats) && was.seats.length === players ? was.seats : null;
  box.querySelectorAll("label").forEach((x) => x.remove());
  for (let i = 0; i < players; i++) {
    const label = document.createElement("label");
    label.textContent = `Seat ${i + 1}${partners ? ` (side ${i % 2 ? "B" : "A"})` : ""}`;
    const select = document.createElement("select");
    select.dataset.seat = String(i);
    select.append(new Option("me", "me"), new Option("a friend (link)", "friend"),
      ...app.setup.levels.map((l) => new Option(`agent: ${l.label}`, l.name)));
    select.value = given ? given[i] : old[i] || (i === 0 ? "me" : $("setup-opponent").value);
    label.appendChild(select);
    box.appendChild(label);
  }
}

function friendsSetup(was) {
  $("setup-friends").checked = !!(was && was.seats);
  if (was && was.takeover_s !== undefined) $("setup-takeover").value = String(was.takeover_s);
  seatChoices(was);
  $("setup-friends-box").hidden = !$("setup-friends").checked;
}

// The table the form asks for (POST /api/tables).
function tableChoice() {
  const form = $("setup-form");
  return {
    preset: $("setup-preset").value, players: Number(form.elements.players.value),
    partnership: $("setup-partnership").checked, muggins_claims: $("setup-claims").checked,
    target: Number($("setup-target").value), rated: $("setup-rated").checked,
    seats: [...$("setup-seats").querySelectorAll("select")].map((x) => x.value),
    takeover_s: Number($("setup-takeover").value),
  };
}

async function newTable(choice) {
  const body = {};
  for (const k of ["preset", "players", "partnership", "muggins_claims", "target", "rated", "seats", "takeover_s"]) {
    if (choice[k] !== undefined) body[k] = choice[k];
  }
  const data = await api("POST", "/api/tables", body);
  if (!data) return null;
  $("welcome").hidden = true;
  history.replaceState(null, "", `/?game=${encodeURIComponent(data.id)}`);
  notice("");
  app.closed = null;
  show(data);
  return data;
}

const seconds = (s) => (s < 120 ? `${Math.floor(s)} s` : `${Math.floor(s / 60)} min ${Math.floor(s % 60)} s`);

// Whom the table waits for, and for how long (counted on from the server's last answer).
function waitingText(t) {
  const w = t.waiting;
  if (!w) return "";
  const waited = w.seconds + (Date.now() - friends.fetchedAt) / 1000;
  const who = w.for === "deal" ? "the next deal (any player may deal it)" : w.name === "You" ? "you to play" : `${w.name} to play`;
  const takeover = w.takeover_in === null ? "" : w.for === "deal"
    ? `; it is dealt in ${seconds(Math.max(0, w.takeover_in - (Date.now() - friends.fetchedAt) / 1000))}`
    : `; an agent plays for them in ${seconds(Math.max(0, w.takeover_in - (Date.now() - friends.fetchedAt) / 1000))}`;
  return `Waiting for ${who}: ${seconds(waited)}${takeover}`;
}

function drawFriends(view) {
  const box = $("friends");
  const t = view && view.table;
  box.hidden = !t || !!app.replay;
  if (!t) return;
  box.replaceChildren();
  const clock = document.createElement("p");
  clock.className = "clock";
  clock.id = "friends-clock";
  clock.textContent = waitingText(t);
  clock.hidden = !t.waiting;
  const people = document.createElement("p");
  people.className = "people";
  for (const p of t.people) {
    const span = document.createElement("span");
    const state = p.you ? "" : p.stand_in ? "away: an agent plays for them" : !p.joined ? "has not opened their link yet"
      : p.here ? "here" : "away";
    span.className = p.here || p.you ? "here" : "away";
    span.textContent = `${p.name}${state ? `: ${state}` : ""}`;
    people.appendChild(span);
  }
  box.append(clock, people);
  if (t.links.length) {
    const head = document.createElement("p");
    head.textContent = "Send each friend their own link (it opens their seat and no other):";
    box.appendChild(head);
    for (const link of t.links) {
      const row = document.createElement("div");
      row.className = "link";
      row.dataset.seat = String(link.seat);
      const name = document.createElement("span");
      name.textContent = `${link.name}${link.joined ? " ✓" : ""}`;
      const input = document.createElement("input");
      input.readOnly = true;
      input.value = location.origin + link.path;
      input.setAttribute("aria-label", `the link of ${link.name}`);
      const copy = document.createElement("button");
      copy.type = "button";
      copy.textContent = "Copy";
      copy.addEventListener("click", async () => {
        input.select();
        try { await navigator.clipboard.writeText(input.value); } catch (e) { document.execCommand("copy"); }
        copy.textContent = "Copied";
      });
      row.append(name, input, copy);
      box.appendChild(row);
    }
    if (["127.0.0.1", "localhost", "[::1]"].includes(location.hostname)) {
      const note = document.createElement("p");
      note.className = "muted";
      note.textContent = "These links name this machine's loopback address: they work here only. For friends on " +
        "other machines, start the server with --host and send the links with an address they can reach.";
      box.appendChild(note);
    }
  }
}

function friendsShown(view) {
  friends.fetchedAt = Date.now();
  drawFriends(view);
}

// Every second: the clock moves on, and the page asks the server for the table (the others'
// moves, who is here); a newer version of the game is drawn, an older answer dropped.
async function friendsTick() {
  const view = app.state;
  if (app.replay) $("friends").hidden = true;
  if (!view || !view.table || app.replay) return;
  const clock = $("friends-clock");
  if (clock && view.table.waiting) clock.textContent = waitingText(view.table);
  if (friends.polling || app.busy) return;
  friends.polling = true;
  try {
    const response = await fetch(`/api/games/${encodeURIComponent(view.id)}`);
    const data = await response.json().catch(() => null);
    if (!response.ok) {
      if (response.status === 404 || response.status === 410) {
        view.table = null;
        drawFriends(view);
        notice((data && data.error) || `the server answered ${response.status}`, "error");
      }
      return;
    }
    if (app.busy || !app.state || app.state.id !== data.id || data.version < app.state.version) return;
    if (data.version > app.state.version) show(data);
    else { app.state.table = data.table; friendsShown(app.state); }
  } catch (e) { /* the server is out of reach for a moment: the next tick asks again */ } finally {
    friends.polling = false;
  }
}
setInterval(friendsTick, POLL_MS);
$("setup-friends").addEventListener("change", () => { seatChoices(null); $("setup-friends-box").hidden = !$("setup-friends").checked; });
$("setup-players").addEventListener("change", () => seatChoices(null));
$("setup-partnership").addEventListener("change", () => seatChoices(null));
app.tableChoice = tableChoice;

// -- wiring ------------------------------------------------------------------------------------
$("new-game").addEventListener("click", openSetup);
$("deal").addEventListener("click", () => newGame(app.dealChoice || undefined));
$("welcome-choose").addEventListener("click", openSetup);
$("setup-preset").addEventListener("change", () => setupChanged());
$("setup-opponent").addEventListener("change", () => setupChanged());
$("setup-players").addEventListener("change", () => setupChanged());
$("setup-cancel").addEventListener("click", () => $("setup").close());
$("setup-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  if (await newGame(setupChoice())) $("setup").close();
});
$("setup-how").addEventListener("toggle", loadHowTo);
$("setup-partnership").addEventListener("change", () => setupChanged());
$("setup-claims").addEventListener("change", () => setupChanged());
$("setup-stats").addEventListener("click", openStats);
$("stats-open").addEventListener("click", openStats);
$("stats-close").addEventListener("click", () => $("stats").close());
$("help-open").addEventListener("click", openHelp);
$("help-close").addEventListener("click", () => $("help").close());
$("hint").addEventListener("click", hint);
$("undo").addEventListener("click", () => change("undo"));
$("next-hand").addEventListener("click", () => change("next"));
$("show-result").addEventListener("click", () => { app.closed = null; drawResult(app.replay ? app.replay.frames[app.replay.index] : app.state); });
$("claim").addEventListener("change", () => render());
$("result").addEventListener("scroll", moreBelow, { passive: true });
new ResizeObserver(moreBelow).observe($("result"));
$("replay-file").addEventListener("change", (ev) => { if (ev.target.files[0]) openReplay(ev.target.files[0]); ev.target.value = ""; });
$("rp-first").addEventListener("click", () => step(0));
$("rp-back").addEventListener("click", () => step(app.replay.index - 1));
$("rp-forward").addEventListener("click", () => step(app.replay.index + 1));
$("rp-last").addEventListener("click", () => step(Infinity));
$("rp-slider").addEventListener("input", (ev) => step(Number(ev.target.value)));
$("rp-close").addEventListener("click", () => {
  app.replay = null;
  if (app.state) render(); else { $("replay-bar").hidden = true; welcome(); }
});
document.addEventListener("keydown", (ev) => {
  if (document.querySelector("dialog[open]")) return;
  if (app.replay && ev.key === "ArrowRight") step(app.replay.index + 1);
  if (app.replay && ev.key === "ArrowLeft") step(app.replay.index - 1);
  if (!app.replay && ev.key === "Escape" && app.selected) { app.selected = null; render(); }
});
let resizing = null;
window.addEventListener("resize", () => { clearTimeout(resizing); resizing = setTimeout(redraw, 80); });
app.openReplayText = async (text, name = "log.json") => openReplay({ text: async () => text, name });
app.newGame = newGame;

// Before any game: the game to deal (the last one chosen in the form, else the server's) and the
// form to choose another. Opening the page deals nothing: the server deals when Deal is pressed.
function lastChoice() {
  try {
    const c = JSON.parse(localStorage.getItem("sniff-last-choice") || "null");
    if (c && app.setup.presets.some((p) => p.name === c.preset)) return c;
  } catch (e) { /* nothing remembered */ }
  return null;
}

async function welcome() {
  if (!app.setup) app.setup = await api("GET", "/api/setup");
  if (!app.setup) return;
  const choice = lastChoice();
  const server = app.setup.server;
  let text;
  if (choice) {
    const level = app.setup.levels.find((l) => l.name === choice.opponent);
    const p = app.setup.presets.find((x) => x.name === choice.preset);
    const target = choice.target || p.targets[String(choice.players)];
    text = `${choice.preset}, ${choice.players} players${choice.partnership ? " in partnerships" : ""}, to ${target}, ` +
      `against ${level ? level.label : choice.opponent}${choice.rated ? ", rated" : ""}`;
    $("welcome-about").textContent = p.summary;
  } else {
    text = `${server.rules}, ${server.players} players${server.partnership ? " in partnerships" : ""}, to ${server.target}, ` +
      `against ${server.opponent}${server.rated ? ", rated" : ""}`;
    $("welcome-about").textContent = server.summary;
  }
  $("welcome-game").textContent = `Deal ${text}, or choose another game.`;
  app.dealChoice = choice;
  $("me").hidden = true;
  $("moves-panel").hidden = true;
  $("welcome").hidden = false;
  showRecent($("welcome-recent"), WELCOME_RECENT);
}

// -- score you can feel: a "+N" where points score, a short sound, the pace of the others' moves --
// The sound (off unless turned on) and the pace are remembered in this browser (localStorage).
const PACES = { fast: 220, normal: PACE, off: 0 };
const POP_MS = 1700;      // how long a "+N" stays up
const feel = { sound: false, pace: "normal", audio: null };
app.felt = [];            // every "+N" shown: {points, seat, at: "play" | "hand"}, for the curious and the tests
app.sounds = 0;           // sounds played

function loadFeel() {
  try {
    feel.sound = localStorage.getItem("sniff-sound") === "on";
    const pace = localStorage.getItem("sniff-pace");
    if (pace in PACES) feel.pace = pace;
  } catch (e) { /* private mode: the defaults */ }
  $("sound").checked = feel.sound;
  $("pace").value = feel.pace;
}

function saveFeel() {
  try {
    localStorage.setItem("sniff-sound", feel.sound ? "on" : "off");
    localStorage.setItem("sniff-pace", feel.pace);
  } catch (e) { /* private mode: kept for this page only */ }
}

// Milliseconds between two tiles coming down after the player's move (0: all at once).
function paceStep() {
  return PACES[feel.pace] ?? PACE;
}

const reducedMotion = () => window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;

// A short beep made by the browser (no sound file): higher for the player's side.
function beep(ours) {
  if (!feel.sound) return;
  try {
    const Audio = window.AudioContext || window.webkitAudioContext;
    if (!Audio) return;
    feel.audio = feel.audio || new Audio();
    const ctx = feel.audio;
    if (ctx.state === "suspended") ctx.resume();
    const osc = ctx.createOscillator(), gain = ctx.createGain();
    osc.type = "sine";
    osc.frequency.value = ours ? 880 : 523;
    gain.gain.setValueAtTime(0.0001, ctx.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.18, ctx.currentTime + 0.015);
    gain.gain.exponentialRampToValueAtTime(0.0001, ctx.currentTime + 0.16);
    osc.connect(gain).connect(ctx.destination);
    osc.start();
    osc.stop(ctx.currentTime + 0.18);
    app.sounds += 1;
  } catch (e) { /* no sound here: the "+N" says it */ }
}

// A "+N" floating up from `target` (an element on the page), after `delay` ms.
function popAt(target, text, cls, delay) {
  if (!target) return;
  const r = target.getBoundingClientRect();
  if (!r.width && !r.height) return;
  const pop = document.createElement("div");
  pop.className = `score-pop ${cls}`;
  pop.textContent = text;
  pop.style.left = `${r.left + r.width / 2 + window.scrollX}px`;
  pop.style.top = `${r.top + window.scrollY}px`;
  pop.style.animationDelay = `${delay}ms`;
  $("pops").appendChild(pop);
  setTimeout(() => pop.remove(), delay + POP_MS + 100);
}

const chipOf = (seat) => document.querySelector(`#opponents .seat[data-seat="${seat}"]`);

// After a change of the game: each score since the player's last move pops up where it was made
// (on its tile and on the scorer's chip), as its tile comes down; the hand's end pops up on the
// chips of the sides it paid; the moves and scores are said in the page's live region.
function feelShown(before, view) {
  const fresh = before && before.id === view.id && before.version !== view.version;
  if (!fresh) {  // a game opened or dealt: said, not scored again
    if (!before || before.id !== view.id) announce(spokenChange(view));
    return;
  }
  const step = reducedMotion() ? 0 : paceStep();
  const first = recentPlayOrder(view);
  const mine = bottomSeat(view);
  const side = (seat) => { const s = view.seats.find((x) => x.seat === seat); return s ? s.side : -1; };
  const ourSide = side(mine);
  let order = -1, delay = 0, lastDelay = 0;
  for (const e of view.events) {
    if (e.kind === "play") order += 1;
    if (!e.recent || !(e.kind === "play" || e.kind === "muggins")) continue;
    delay = first === null || e.kind === "muggins" ? lastDelay : Math.max(0, order - first) * step;
    lastDelay = delay;
    if (!e.points) continue;
    const text = `+${e.points}`;
    if (e.kind === "play") popAt(document.querySelector(`#layout .tile[data-order="${order}"]`), text, "on-layout", delay);
    popAt(chipOf(e.seat), text, "on-chip", delay);
    app.felt.push({ points: e.points, seat: e.seat, at: "play" });
    setTimeout(() => beep(side(e.seat) === ourSide), delay);
  }
  const r = view.result;
  if (r && r.scores && !(before.result && before.version === view.version)) {
    const end = (first === null ? 0 : lastDelay) + (step ? step + 300 : 0);
    for (const s of r.scores) {
      if (!s.end) continue;
      const seats = view.seats.filter((x) => x.side === s.side);
      for (const x of seats) popAt(chipOf(x.seat), `${s.end > 0 ? "+" : "−"}${Math.abs(s.end)}`, "on-chip hand-end", end);
      app.felt.push({ points: s.end, seat: seats.length ? seats[0].seat : -1, at: "hand" });
      if (s.end > 0) setTimeout(() => beep(s.side === ourSide), end);
    }
  }
  announce(spokenChange(view));
}

// -- keyboard and screen reader --------------------------------------------------------------------
const WORDS = ["blank", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"];
const pipWord = (n) => WORDS[n] ?? String(n);
// A tile in words: "five-three", "double six".
const tileWords = (pips) => (pips[0] === pips[1] ? `double ${pipWord(pips[0])}` : `${pipWord(pips[0])}-${pipWord(pips[1])}`);
// A line of the game's log as said aloud: tiles in words, the count and the points spelled out.
const spoken = (text) => text
  .replace(/\b(\d+)[-=](\d+)\b/g, (_, a, b) => tileWords([Number(a), Number(b)]))
  .replace(/\s*\(count (\d+)\)/, ", count $1")
  .replace(/\s+\+(\d+)$/, ", scores $1");

function announce(text) {
  const box = $("announce");
  box.textContent = "";
  if (text) setTimeout(() => { box.textContent = text; }, 60);  // a change, so it is read even if it repeats
  app.announced = text;
}

// What changed since the player's last move, in words: each move (the others' too), each score,
// the hand's end, whose turn it is.
function spokenChange(view) {
  const said = grouped(view.events).filter((e) => e.recent && e.kind !== "hand_end" && e.kind !== "game_end")
    .map((e) => spoken(e.text) + ".");
  const r = view.result;
  if (r && r.winner_text !== undefined) said.push(`Game over: ${r.winner_text}.`);
  else if (r) said.push(`Hand ${view.hand_number} is over.`);
  if (r && r.scores) {
    said.push(r.scores.map((s) => `${s.names} ${s.play + s.end >= 0 ? "+" : "minus "}${Math.abs(s.play + s.end)} this hand, ` +
      `${s.after} points`).join("; ") + ".");
  } else if (view.phase === "play") {
    const turn = view.seats.find((x) => x.seat === view.turn);
    said.push(view.your_turn ? "Your turn." : `${turn ? turn.name : "the next player"} to play.`);
  }
  return said.join(" ");
}

// Names for what the table draws: the tiles in the hand, the ends where the picked tile may go,
// the open ends, the seats' chips as a line of text; the pictures themselves are hidden from
// screen readers (their words say what they show).
function speakable(view) {
  const options = view.options || [];
  document.querySelectorAll("#hand .hand-tile").forEach((b, i) => {
    const pips = b.dataset.tile.split("-").map(Number);
    const playable = view.your_turn && options.some((o) => o.tile && key(o.tile) === b.dataset.tile);
    b.setAttribute("aria-label", tileWords(pips));
    b.setAttribute("aria-pressed", String(app.selected === b.dataset.tile));
    b.setAttribute("aria-description", playable ? "playable" : "cannot be played now");
    if (i < 9) b.dataset.key = String(i + 1); else delete b.dataset.key;
    for (const part of b.querySelectorAll("svg, .hint-badge")) part.setAttribute("aria-hidden", "true");
  });
  const svg = $("layout");
  const ends = view.layout.ends.filter((e) => e.open);
  svg.setAttribute("role", "group");
  svg.setAttribute("aria-label", view.layout.centre
    ? `the layout: ${tilesDown(view.layout)} tiles, count ${view.layout.count}; open ends: ` +
      ends.map((e) => `${e.end} ${e.pip}`).join(", ")
    : "the layout: the table is empty");
  for (const part of svg.querySelectorAll(".tile, .sniff-mark, .by-mark, .empty-note")) part.setAttribute("aria-hidden", "true");
  const pipAt = Object.fromEntries(view.layout.ends.map((e) => [e.end, e.pip]));
  for (const g of svg.querySelectorAll(".target")) {
    const o = options.find((x) => String(x.action) === g.dataset.action);
    if (!o) continue;
    const where = o.end === "lead" ? "lead" : `${o.end} end, open ${pipAt[o.end]}`;
    const points = o.points ? `, ${pointsText(o, false).replace(/^\+/, "scores ")}` : "";
    g.setAttribute("aria-label", `${where}: ${tileWords(o.tile)}${o.inline ? " in line" : ""}${points}`);
    g.setAttribute("aria-keyshortcuts", "Enter");
    for (const part of g.children) part.setAttribute("aria-hidden", "true");
  }
  for (const g of svg.querySelectorAll(".open-end")) {
    g.setAttribute("role", "img");
    g.setAttribute("aria-label", `${g.dataset.end} end, open ${pipAt[g.dataset.end]}`);
  }
  const hint = svg.querySelector(".hint-spot");
  if (hint) { hint.setAttribute("role", "img"); hint.setAttribute("aria-label", hint.querySelector("title").textContent); }
  for (const chip of document.querySelectorAll("#opponents .seat")) {
    const s = view.seats.find((x) => String(x.seat) === chip.dataset.seat);
    if (!s) continue;
    const score = view.sides[s.side] ? view.sides[s.side].score : 0;
    const last = lastTiles(view)[s.seat];
    const toPlay = view.phase === "play" && view.turn === s.seat;
    for (const part of chip.children) part.setAttribute("aria-hidden", "true");
    const words = document.createElement("span");
    words.className = "sr-only";
    words.textContent = `${s.name}, ${score} point${score === 1 ? "" : "s"}, ${s.tiles} tile${s.tiles === 1 ? "" : "s"}` +
      `${toPlay ? ", to play" : ""}${last ? `, played ${tileWords(last)} last` : ""}`;
    chip.prepend(words);
  }
  $("boneyard").querySelector("svg")?.setAttribute("aria-hidden", "true");
  for (const t of document.querySelectorAll("#result .reveal svg[data-tile]")) {
    t.setAttribute("role", "img");
    t.setAttribute("aria-label", tileWords(t.dataset.tile.split("-").map(Number)));
  }
}

// Where the keyboard's focus is on the table (a tile of the hand, an end), to be found again once
// the table is drawn anew; "lost" where it fell to the page after a keyboard move.
function focusPlace() {
  const a = document.activeElement;
  if (!a || a === document.body) return app.keyboard ? { lost: true } : null;
  const tile = a.closest && a.closest("#hand .hand-tile");
  if (tile) return { tile: tile.dataset.tile };
  const target = a.closest && a.closest("#layout .target");
  if (target) return { action: target.dataset.action };
  return null;
}

function refocus(place, view) {
  if (!place) return;
  const a = document.activeElement;
  if (a && a !== document.body && document.contains(a)) return;
  const byAction = place.action && document.querySelector(`#layout .target[data-action="${place.action}"]`);
  const byTile = place.tile && document.querySelector(`#hand .hand-tile[data-tile="${place.tile}"]`);
  const next = byAction || byTile || firstTile() || (view.phase === "hand_over" && $("result-next"))
    || (view.phase === "game_over" && $("result-new"));
  if (next) next.focus();
}

const firstTile = () => document.querySelector("#hand .hand-tile.playable") || document.querySelector("#hand .hand-tile");

// After a tile is picked: the focus on the first end it may go to (where there is one).
function focusEnds(k) {
  if (app.selected !== k) return;
  const first = document.querySelector("#layout .target");
  if (first) first.focus();
}

// The next item of `items` after the one holding the focus (`by`: +1 or -1, round the end).
function cycle(items, by) {
  if (!items.length) return;
  const at = items.indexOf(document.activeElement);
  items[((at < 0 ? (by > 0 ? -1 : 0) : at) + by + items.length) % items.length].focus();
}

const typing = (el) => el && (el.isContentEditable || ["INPUT", "SELECT", "TEXTAREA"].includes(el.tagName));

function shortcuts(ev) {
  if (ev.ctrlKey || ev.metaKey || ev.altKey || document.querySelector("dialog[open]") || typing(ev.target)) return;
  const k = ev.key;
  if (k === "Tab") { app.keyboard = true; document.body.classList.add("keys"); return; }
  const done = () => { ev.preventDefault(); app.keyboard = true; document.body.classList.add("keys"); };
  if (k === "?") { done(); openHelp(); return; }
  if (k === "m") { done(); setSound(!feel.sound); return; }
  if (app.replay) {
    if (k === "n") { done(); replayNextHand(); } else if (k === "e") { done(); step(Infinity); }
    else if (k === "b") { done(); step(app.replay.index - 1); } else if (k === "Escape") { done(); $("rp-close").click(); }
    return;
  }
  if (k === "r") { done(); openReplays(); return; }
  const view = app.state;
  if (!view || !$("welcome").hidden) return;
  const target = ev.target.closest && ev.target.closest("#layout .target");
  if (/^[1-9]$/.test(k)) {
    const tile = document.querySelectorAll("#hand .hand-tile")[Number(k) - 1];
    if (tile) { done(); tile.focus(); pick(tile.dataset.tile); }
  } else if (k === " " && target) {
    done(); app.play(Number(target.dataset.action));
  } else if (k.startsWith("Arrow") && (target || ev.target.closest("#hand"))) {
    done();
    const by = k === "ArrowLeft" || k === "ArrowUp" ? -1 : 1;
    cycle([...document.querySelectorAll(target ? "#layout .target" : "#hand .hand-tile")], by);
  } else if (k === "h" && !$("hint").hidden && !$("hint").disabled) { done(); hint(); }
  else if (k === "u" && !$("undo").hidden && !$("undo").disabled) { done(); change("undo"); }
  else if (k === "d" && !$("draw").hidden) { done(); $("draw").click(); }
  else if (k === "n" && view.phase !== "play") {
    done(); (view.phase === "hand_over" ? $("next-hand") : $("result-new"))?.click();
  }
}

function setSound(on) {
  feel.sound = on;
  $("sound").checked = on;
  saveFeel();
  announce(on ? "Sound on." : "Sound off.");
  if (on) beep(true);
}

// -- one click to the past: the recent finished games, the replay's jumps --------------------------
const WELCOME_RECENT = 3;

// The newest finished games of the server's games folder into `box` (at most `most`), each with
// its Replay button; nothing is dealt or written.
async function showRecent(box, most) {
  let data = null;
  try {
    const response = await fetch("/api/recent");
    data = response.ok ? await response.json() : null;
  } catch (e) { data = null; }
  const games = data ? data.games.slice(0, most) : [];
  box.replaceChildren();
  box.hidden = !games.length && box.id === "welcome-recent";
  if (!data) { box.innerHTML = `<p class="stats-error">The list of games cannot be read now.</p>`; return; }
  if (!games.length) { box.innerHTML = `<p class="muted">No finished games yet: a game is listed here once it is over.</p>`; return; }
  if (box.id === "welcome-recent") {
    const h = document.createElement("h3");
    h.textContent = "Your recent games";
    box.appendChild(h);
  }
  const list = document.createElement("ul");
  list.className = "recent-games";
  for (const g of games) {
    const li = document.createElement("li");
    li.dataset.name = g.name;
    const when = new Date(g.date);
    const date = isNaN(when) ? g.date : when.toLocaleString([], { weekday: "short", day: "numeric", month: "short",
                                                                  hour: "2-digit", minute: "2-digit" });
    const text = document.createElement("span");
    text.className = `game${g.yours === true ? " won" : g.yours === false ? " lost" : ""}`;
    text.textContent = `${date} · ${g.preset} to ${g.target} · ${g.players.join(", ")} · ${g.result} ${g.scores.join("–")}`;
    const button = document.createElement("button");
    button.type = "button";
    button.className = "replay-one";
    button.textContent = "Replay";
    button.setAttribute("aria-label", `replay ${text.textContent}`);
    button.addEventListener("click", () => replayRecent(g.name));
    li.append(text, button);
    list.appendChild(li);
  }
  box.appendChild(list);
}

async function openReplays() {
  $("replays").showModal();
  await showRecent($("replays-list"), 20);
  const first = $("replays-list").querySelector("button") || $("replay-file-open");
  first.focus();
}

async function replayRecent(name) {
  const data = await api("GET", `/api/recent/${encodeURIComponent(name)}`);
  if (!data) return;
  if ($("replays").open) $("replays").close();
  app.replay = { frames: data.frames, index: 0, name, record: data.record };
  notice("");
  showFrame();
  $("rp-next-hand").focus();
}

// The replay's next hand: the next frame of a later hand (its deal), else the end.
function replayNextHand() {
  const r = app.replay;
  if (!r) return;
  const hand = r.frames[r.index].hand_number;
  const next = r.frames.findIndex((f, i) => i > r.index && f.hand_number !== hand);
  step(next < 0 ? Infinity : next);
}

loadFeel();
$("sound").addEventListener("change", (ev) => setSound(ev.target.checked));
$("pace").addEventListener("change", (ev) => { feel.pace = ev.target.value in PACES ? ev.target.value : "normal"; saveFeel(); });
$("replay-open").addEventListener("click", openReplays);
$("replays-close").addEventListener("click", () => $("replays").close());
$("replay-file-open").addEventListener("click", () => { $("replays").close(); $("replay-file").click(); });
$("rp-next-hand").addEventListener("click", replayNextHand);
document.addEventListener("keydown", shortcuts);
document.addEventListener("pointerdown", () => { app.keyboard = false; document.body.classList.remove("keys"); });
app.tileWords = tileWords;

(async function start() {
  const id = new URLSearchParams(location.search).get("game");
  if (id && await load(id)) return;
  if (id) {
    history.replaceState(null, "", "/");
    notice(`game ${id} is not on this server any more; deal a new one`, "error");
  }
  await welcome();
})();
