// The Sniff web table: draws the server's view of the game and sends the player's moves.
// Plain JavaScript, no build step. The server keeps the game; this page only shows what the
// player's seat may know and asks the server to change it (every change names the version it
// was made for, so a stale page is refused instead of playing into a position it never saw).
"use strict";

const U = 40;             // the short side of a tile on the table, in SVG units
const GAP = 2;            // space between tiles on the table
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
};
const TOUCH = 48;     // the smallest side of a drop target on screen, in CSS pixels (at least 44)
window.sniff = app;

// -- talking to the server -------------------------------------------------------------------
async function api(method, path, body) {
  const init = { method, headers: {} };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = typeof body === "string" ? body : JSON.stringify(body);
  }
  const response = await fetch(path, init);
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

async function newGame() {
  const data = await api("POST", "/api/games");
  if (!data) return;
  history.replaceState(null, "", `/?game=${encodeURIComponent(data.id)}`);
  notice("");
  show(data);
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
  return svg;
}

const key = (pips) => `${pips[0]}-${pips[1]}`;

// -- the layout --------------------------------------------------------------------------------
// Crosswise doubles stand across the line; the stubby sniff and in-line doubles lie along it.
function crosswise(t, stubby) {
  return t.double && !t.inline && !(t.sniff && stubby);
}

function layoutGeometry(layout, stubby) {
  const placed = [];   // {t, x, y, vertical, first, second}
  const box = { minX: 0, maxX: 0, minY: -U, maxY: U };
  const put = (t, x, y, vertical, first, second) => {
    placed.push({ t, x, y, vertical, first, second });
    const w = vertical ? U : 2 * U, h = vertical ? 2 * U : U;
    box.minX = Math.min(box.minX, x); box.maxX = Math.max(box.maxX, x + w);
    box.minY = Math.min(box.minY, y); box.maxY = Math.max(box.maxY, y + h);
  };
  const ends = {};
  if (!layout.centre) return { placed, box: { minX: -U, maxX: U, minY: -U, maxY: U }, ends, sniffX: null };
  let sniff = null;
  const c = layout.centre;
  const cw = crosswise(c, stubby) ? U : 2 * U;
  put(c, -cw / 2, crosswise(c, stubby) ? -U : -U / 2, cw === U, c.pips[0], c.pips[1]);
  if (c.sniff) sniff = { x: 0, half: crosswise(c, stubby) ? U : U / 2 };
  for (const [name, dir] of [["west", -1], ["east", 1]]) {
    let cursor = dir * (cw / 2 + GAP);
    for (const t of layout.arms[name]) {
      const cross = crosswise(t, stubby);
      const w = cross ? U : 2 * U;
      const x = dir < 0 ? cursor - w : cursor;
      const [first, second] = dir < 0 ? [t.outer, t.inner] : [t.inner, t.outer];
      put(t, x, cross ? -U : -U / 2, cross, first, second);
      if (t.sniff) sniff = { x: x + w / 2, half: cross ? U : U / 2 };
      cursor += dir * (w + GAP);
    }
    ends[name] = { x: dir < 0 ? cursor - 2 * U : cursor, y: -U / 2, vertical: false };
  }
  if (sniff) {
    for (const [name, dir] of [["north", -1], ["south", 1]]) {
      let cursor = dir * (sniff.half + GAP);
      for (const t of layout.arms[name]) {
        const cross = crosswise(t, stubby);
        const h = cross ? U : 2 * U;
        const y = dir < 0 ? cursor - h : cursor;
        const [first, second] = dir < 0 ? [t.outer, t.inner] : [t.inner, t.outer];
        put(t, cross ? sniff.x - U : sniff.x - U / 2, y, !cross, first, second);
        cursor += dir * (h + GAP);
      }
      ends[name] = { x: sniff.x - U / 2, y: dir < 0 ? cursor - 2 * U : cursor, vertical: true };
    }
  }
  return { placed, box, ends, sniffX: sniff ? sniff.x : null };
}

// The smallest width of the view box (SVG units): narrower on a phone, so tiles stay large.
const minViewWidth = (svg) => (svg.clientWidth && svg.clientWidth < 560 ? 8 : 12) * U;

function drawLayout(svg, layout, stubby, targets, freshFrom, tries = 0, least = 0) {
  svg.replaceChildren();
  const geo = layoutGeometry(layout, stubby);
  const box = { ...geo.box };
  // SVG units per CSS pixel, estimated from the layout before the targets are added
  const viewW = Math.max(box.maxX - box.minX + 1.2 * U, minViewWidth(svg));
  const viewH = Math.max(box.maxY - box.minY + 1.2 * U, 7 * U);
  if (!least) least = TOUCH * unitsPerPx(svg, viewW, viewH);
  const grow = (x, y, w, h) => {
    box.minX = Math.min(box.minX, x); box.maxX = Math.max(box.maxX, x + w);
    box.minY = Math.min(box.minY, y); box.maxY = Math.max(box.maxY, y + h);
  };
  for (const p of geo.placed) {
    const cls = [p.t.sniff ? "sniff" : "", p.t.order >= freshFrom ? "fresh" : ""].join(" ");
    const g = tile(svg, p.x, p.y, p.first, p.second, p.vertical, U, cls);
    g.dataset.tile = key(p.t.pips);
    if (p.t.sniff) {
      const star = el("text", { x: p.x - 4, y: p.y + 9, class: "sniff-mark" }, svg);
      star.textContent = "★ sniff";
    }
  }
  // Drop targets: one per legal placement of the selected tile, at its open end, widened to
  // `least` around its spot; where widened targets would cover one another, they are placed
  // apart (see `separate`).
  const byEnd = {};
  const spots = [];
  for (const o of targets) {
    const spot = o.end === "lead" ? { x: -U, y: -U / 2, vertical: false } : geo.ends[o.end];
    if (!spot) continue;
    const k = byEnd[o.end] = (byEnd[o.end] || 0) + 1;
    const shift = (k - 1) * (spot.vertical ? 0 : 2 * U + GAP) * (o.end === "west" ? -1 : 1);
    const shiftY = (k - 1) * (spot.vertical ? 2 * U + GAP : 0) * (o.end === "north" ? -1 : 1);
    const w0 = spot.vertical ? U : 2 * U, h0 = spot.vertical ? 2 * U : U;
    const w = Math.max(w0, least), h = Math.max(h0, least);
    spots.push({ o, base: { x: spot.x + shift, y: spot.y + shiftY, w: w0, h: h0 }, w, h });
  }
  for (const { o, r: { x, y, w, h } } of separate(spots)) {
    const gives = o.points && app.state.rules.muggins_claims && !claiming();
    const g = el("g", { class: `target${gives ? " gives" : ""}`, "data-action": o.action, "data-end": o.end,
                        role: "button", tabindex: 0 }, svg);
    el("rect", { x, y, width: w, height: h, rx: 6 }, g);
    const label = el("text", { x: x + w / 2, y: y + h / 2 + 5 }, g);
    label.textContent = (o.inline ? "in line " : "") + (o.points ? pointsText(o, true) : o.end === "lead" ? "lead" : "play");
    const title = el("title", {}, g);
    title.textContent = o.text + (o.points ? `: ${pointsText(o, false)}` : "");
    g.addEventListener("click", () => app.play(o.action));
    g.addEventListener("keydown", (ev) => { if (ev.key === "Enter") app.play(o.action); });
    grow(x, y, w, h);
  }
  // Open ends that the selected tile cannot use are marked faintly.
  if (layout.centre) {
    for (const e of layout.ends) {
      const spot = geo.ends[e.end];
      if (!e.open || !spot || byEnd[e.end]) continue;
      const w = spot.vertical ? U : 2 * U, h = spot.vertical ? 2 * U : U;
      const g = el("g", { class: "open-end" }, svg);
      el("rect", { x: spot.x + (spot.vertical ? 0 : U / 2), y: spot.y + (spot.vertical ? U / 2 : 0),
                   width: U, height: U, rx: 5 }, g);
      const t = el("text", { x: spot.x + w / 2, y: spot.y + h / 2 + 5 }, g);
      t.textContent = e.pip;
      grow(spot.x, spot.y, w, h);
    }
  }
  const pad = U * 0.6;
  const w = Math.max(box.maxX - box.minX + 2 * pad, minViewWidth(svg)), h = Math.max(box.maxY - box.minY + 2 * pad, 7 * U);
  const cx = (box.minX + box.maxX) / 2, cy = (box.minY + box.maxY) / 2;
  svg.setAttribute("viewBox", `${cx - w / 2} ${cy - h / 2} ${w} ${h}`);
  // the targets widened the view, so shrank on screen: draw again with targets made for the new scale
  const needed = TOUCH * unitsPerPx(svg, w, h);
  if (targets.length && needed > least + 0.5 && tries < 4) {
    drawLayout(svg, layout, stubby, targets, freshFrom, tries + 1, needed * 1.05);
  }
}

// Places each drop target (`base`: its end's spot; `w`×`h`: its size, at least the spot's) as a
// rectangle `r` over its spot, so that no two cover each other: widened for touch, the targets of
// the sniff's four ends, which lie close together, would, and the one drawn last would take the
// other's touches. Each rectangle has nine places over its spot (centred, or flush with a side or
// a corner of it, in that order of preference); the first arrangement, target by target, where
// none overlaps is kept. Where there is none (or the search runs long), all are centred.
function separate(spots, budget = 20000) {
  const places = (s) => {
    const xs = [s.base.x - (s.w - s.base.w) / 2, s.base.x, s.base.x + s.base.w - s.w];
    const ys = [s.base.y - (s.h - s.base.h) / 2, s.base.y, s.base.y + s.base.h - s.h];
    return ys.flatMap((y) => xs.map((x) => ({ x, y, w: s.w, h: s.h })));
  };
  const apart = (a, b) => a.x + a.w <= b.x || b.x + b.w <= a.x || a.y + a.h <= b.y || b.y + b.h <= a.y;
  const options = spots.map(places), chosen = [];
  let tries = 0;
  const place = (i) => {
    if (i === spots.length) return true;
    for (const r of options[i]) {
      if (++tries > budget) return false;
      if (chosen.every((c) => apart(c, r))) {
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

// SVG units per CSS pixel for a view box of w×h units in `svg` (the box is fitted whole).
function unitsPerPx(svg, w, h) {
  return svg.clientWidth ? Math.max(w / svg.clientWidth, h / (svg.clientHeight || 1)) : 1;
}

// -- the page ------------------------------------------------------------------------------------
function scoresHtml(view) {
  const target = view.rules.target;
  return view.sides.map((s) => {
    const pct = Math.max(0, Math.min(100, (100 * s.score) / target));
    return `<div class="side ${s.yours ? "yours" : ""}"><span class="names">${esc(s.names.join(" & "))}</span>
      <span class="bar"><span style="width:${pct}%"></span></span><b>${s.score}</b></div>`;
  }).join("") + `<div class="target muted">target ${target}</div>`;
}

function esc(text) {
  return String(text).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
}

function drawOpponents(view, hands) {
  const box = $("opponents");
  box.replaceChildren();
  for (const s of view.seats) {
    if (s.you) continue;
    const div = document.createElement("div");
    div.className = "opponent" + (view.phase === "play" && view.turn === s.seat ? " to-play" : "");
    div.dataset.seat = s.seat;
    div.innerHTML = `<div class="who">${esc(s.name)} <span class="muted">· ${s.tiles} tile${s.tiles === 1 ? "" : "s"}</span></div>`;
    const size = 18;
    const open = hands ? hands[s.seat] : null;
    const svg = el("svg", { width: s.tiles * (size + 3) + 2, height: 2 * size + 2 });
    for (let i = 0; i < s.tiles; i++) {
      if (open) tile(svg, 1 + i * (size + 3), 1, open[i][0], open[i][1], true, size);
      else tileBack(svg, 1 + i * (size + 3), 1, size);
    }
    div.appendChild(svg);
    box.appendChild(div);
  }
}

function drawLog(events) {
  const log = $("log");
  log.replaceChildren();
  for (const e of events) {
    const li = document.createElement("li");
    li.className = `${e.kind}${e.recent ? " recent" : ""}`;
    const scored = e.points && e.text.match(/^(.*?)\s*(\+\d+)$/);
    li.textContent = scored ? scored[1] + " " : e.text;
    if (scored) {
      const b = document.createElement("b");
      b.textContent = scored[2];
      li.appendChild(b);
    }
    log.appendChild(li);
  }
  log.scrollTop = log.scrollHeight;
}

function drawCommon(view, hands) {
  $("rules").textContent = `${view.rules.name} · ${view.rules.players} players · ${view.rules.scoring} · ` +
    `hand ${view.hand_number}`;
  $("scores").innerHTML = scoresHtml(view);
  drawOpponents(view, hands);
  $("count").textContent = view.layout.count;
  $("count-sum").replaceChildren();
  const shares = view.layout.ends.filter((e) => e.counts);
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
  drawResult(view);
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
  for (const h of r.hands) {
    const row = document.createElement("div");
    row.className = "reveal";
    row.innerHTML = `<span class="who">${esc(h.name)}</span>`;
    for (const t of h.tiles) row.appendChild(tileSvg(t, 16));
    if (!h.tiles.length) row.insertAdjacentHTML("beforeend", `<span class="muted">no tiles left</span>`);
    row.insertAdjacentHTML("beforeend", `<span class="pips">${h.pips} pips</span>`);
    box.appendChild(row);
  }
  const ul = document.createElement("ul");
  for (const line of r.lines) {
    const li = document.createElement("li");
    li.textContent = line;
    ul.appendChild(li);
  }
  box.appendChild(ul);
  if (!app.replay) {
    const button = document.createElement("button");
    const over = r.winner_text !== undefined;
    button.textContent = over ? "New game" : "Next hand";
    button.id = over ? "result-new" : "result-next";
    button.addEventListener("click", over ? newGame : () => change("next"));
    box.appendChild(button);
  }
}

const resultKey = (view) => `${view.id || "replay"}:${view.version ?? view.title}`;

function show(view) {
  if (app.state && view.version !== app.state.version) { app.hints = null; app.selected = null; }
  if (app.state && app.state.id !== view.id) app.hints = null;
  app.state = view;
  app.replay = null;
  render();
}

function render() {
  const view = app.state;
  if (!view) return;
  $("replay-bar").hidden = true;
  $("me").hidden = false;
  document.body.dataset.version = view.version;
  document.body.dataset.phase = view.phase;
  drawCommon(view, null);
  $("save-log").href = `/api/games/${encodeURIComponent(view.id)}/log`;
  const options = view.options;
  const mine = options.filter((o) => o.tile && app.selected === key(o.tile));
  const firstRecent = recentPlayOrder(view);
  drawLayout($("layout"), view.layout, view.rules.sniff === "stubby", mine, firstRecent ?? Infinity);
  // the hand
  const hand = $("hand");
  hand.replaceChildren();
  for (const pips of view.hand) {
    const k = key(pips);
    const playable = options.some((o) => o.tile && key(o.tile) === k);
    const b = document.createElement("button");
    b.type = "button";
    b.className = `hand-tile${playable ? " playable" : ""}${app.selected === k ? " selected" : ""}`;
    b.dataset.tile = k;
    b.title = k;
    b.appendChild(tileSvg(pips, 34));
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
  $("draw").onclick = draw ? () => app.play(draw.action) : null;
  $("claim-box").hidden = !view.rules.muggins_claims;
  $("undo").disabled = !view.can_undo;
  $("undo").hidden = view.rated;
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
    b.innerHTML = `${esc(o.text)}${points}${o.domino ? " <b>domino!</b>" : ""}${hint}`;
    b.addEventListener("click", () => app.play(o.action));
    moves.appendChild(b);
  }
  for (const note of view.notes) notice(note, "info");
}

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
}

async function hint() {
  if (!app.state || !app.state.your_turn) return;
  $("hint").disabled = true;
  $("hint").textContent = "Thinking…";
  try {
    const data = await api("GET", `/api/games/${encodeURIComponent(app.state.id)}/hint`);
    if (data && data.version === app.state.version) {
      app.hints = Object.fromEntries(data.hints.map((h) => [h.action, h.value]));
      notice(`hint: best is ${data.hints[0].text} (expected points margin to the end of the hand ` +
             `${data.hints[0].value >= 0 ? "+" : ""}${data.hints[0].value.toFixed(1)}); ` +
             `"scores" is what a move scores now, "hint" its expected margin`, "info");
    }
  } finally {
    $("hint").textContent = "Hint";
    render();
  }
}

// -- replay ------------------------------------------------------------------------------------
async function openReplay(file) {
  const text = await file.text();
  const data = await api("POST", "/api/replay", text);
  if (!data) return;
  app.replay = { frames: data.frames, index: 0, name: file.name };
  notice("");
  showFrame();
}

function showFrame() {
  const r = app.replay;
  const frame = r.frames[r.index];
  $("replay-bar").hidden = false;
  $("me").hidden = true;
  $("status").textContent = "";
  const slider = $("rp-slider");
  slider.max = r.frames.length - 1;
  slider.value = r.index;
  $("rp-title").textContent = `${r.name} · ${r.index + 1}/${r.frames.length} · ${frame.title}`;
  drawCommon(frame, frame.hands);  // every seat face up, each once
  const last = frame.events.filter((e) => e.kind === "play").findIndex((e) => e.recent);
  drawLayout($("layout"), frame.layout, frame.rules.sniff === "stubby", [], last < 0 ? Infinity : last);
}

function step(to) {
  const r = app.replay;
  if (!r) return;
  r.index = Math.max(0, Math.min(r.frames.length - 1, to));
  showFrame();
}

// -- wiring ------------------------------------------------------------------------------------
$("new-game").addEventListener("click", newGame);
$("hint").addEventListener("click", hint);
$("undo").addEventListener("click", () => change("undo"));
$("next-hand").addEventListener("click", () => change("next"));
$("show-result").addEventListener("click", () => { app.closed = null; drawResult(app.replay ? app.replay.frames[app.replay.index] : app.state); });
$("claim").addEventListener("change", () => render());
$("replay-file").addEventListener("change", (ev) => { if (ev.target.files[0]) openReplay(ev.target.files[0]); ev.target.value = ""; });
$("rp-first").addEventListener("click", () => step(0));
$("rp-back").addEventListener("click", () => step(app.replay.index - 1));
$("rp-forward").addEventListener("click", () => step(app.replay.index + 1));
$("rp-last").addEventListener("click", () => step(Infinity));
$("rp-slider").addEventListener("input", (ev) => step(Number(ev.target.value)));
$("rp-close").addEventListener("click", () => { app.replay = null; render(); });
document.addEventListener("keydown", (ev) => {
  if (app.replay && ev.key === "ArrowRight") step(app.replay.index + 1);
  if (app.replay && ev.key === "ArrowLeft") step(app.replay.index - 1);
  if (!app.replay && ev.key === "Escape" && app.selected) { app.selected = null; render(); }
});
app.openReplayText = async (text, name = "log.json") => openReplay({ text: async () => text, name });

(async function start() {
  const id = new URLSearchParams(location.search).get("game");
  if (id && await load(id)) return;
  if (id) notice(`game ${id} is not on this server any more; a new game has started`, "error");
  const keep = $("notice").textContent;
  await newGame();
  if (keep) notice(keep, "error");
})();
