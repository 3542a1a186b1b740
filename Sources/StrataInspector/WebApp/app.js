// The Strata inspector's web app: no framework, no build step. Every value from the
// document reaches the page through textContent or an attribute set by setAttribute on
// an element we create, never through innerHTML, so a value holding markup stays text.
"use strict";

const state = { at: null, lastSequence: null, route: null, params: new URLSearchParams() };

// el("td", {class: "number"}, "12", child): an element with attributes and children
// (strings become text nodes).
function el(tag, attributes, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes || {})) {
    if (value !== null && value !== undefined && value !== false) node.setAttribute(name, String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function svg(tag, attributes) {
  const node = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [name, value] of Object.entries(attributes || {})) node.setAttribute(name, String(value));
  return node;
}

// A hash link to a view with parameters; the time-travel save goes along.
function href(view, params) {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params || {})) {
    if (value !== null && value !== undefined && value !== "") query.set(name, value);
  }
  if (state.at !== null && !query.has("at") && ["objects", "object", "entities"].includes(view)) query.set("at", state.at);
  const text = query.toString();
  return "#/" + (view === "entities" ? "" : view) + (text ? "?" + text : "");
}

async function api(path, params) {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params || {})) {
    if (value !== null && value !== undefined && value !== "") query.set(name, value);
  }
  const response = await fetch("/api/" + path + (query.toString() ? "?" + query : ""));
  const body = await response.json();
  if (!response.ok) throw new Error(body.error || ("HTTP " + response.status));
  return body;
}

function objectLink(ref) {
  return el("a", { href: href("object", { id: ref }), class: "ref" }, ref);
}

// A value as the API writes it: null, a scalar, {ref}, {refs, count} or a composite object.
function valueNode(value) {
  if (value === null || value === undefined) return el("span", { class: "null" }, "–");
  if (typeof value === "object" && !Array.isArray(value)) {
    if (typeof value.ref === "string") return objectLink(value.ref);
    if (Array.isArray(value.refs)) {
      const list = el("span", { class: "refs" });
      value.refs.forEach((item, index) => { if (index) list.append(", "); list.append(objectLink(item.ref)); });
      if (value.count > value.refs.length) list.append(` … (${value.count} in all)`);
      if (value.count === 0) list.append(el("span", { class: "null" }, "none"));
      return list;
    }
    return el("code", {}, JSON.stringify(value));
  }
  if (Array.isArray(value)) return el("code", {}, JSON.stringify(value));
  return document.createTextNode(String(value));
}

function errorBox(error) {
  return el("div", { class: "error", role: "alert" }, error.message || String(error));
}

function kinds(list) {
  return (list || []).map((kind) => el("span", { class: "kind " + kind }, kind));
}

// MARK: Views

async function entitiesView() {
  const summary = await api("document", { at: state.at });
  const rows = summary.entities.map((entity) => el("tr", {},
    el("td", {}, entity.abstract ? el("span", {}, entity.name, " ", el("span", { class: "muted" }, "(abstract)"))
                                 : el("a", { href: href("objects", { entity: entity.name }) }, entity.name)),
    el("td", {}, entity.parent || ""),
    el("td", { class: "number" }, entity.objects === null ? "" : entity.objects.toLocaleString("en"))));
  return [el("h1", {}, "Entities"),
    el("table", { id: "entities" }, el("tr", {}, el("th", {}, "entity"), el("th", {}, "parent"), el("th", {}, "objects")), rows)];
}

// The cursor (`after`) each page of an objects table was read with, by table and offset:
// "← previous" goes back by key to a page this tab has shown, and by offset only to one it
// has not (docs/INSPECTOR.md, "What each request reads").
const pageCursors = new Map();

function cursorsOf(entity, where, sort, limit) {
  const table = [entity, where, sort, limit, state.at].join("\u001f");
  if (!pageCursors.has(table)) pageCursors.set(table, new Map());
  return pageCursors.get(table);
}

async function objectsView(params) {
  const entity = params.get("entity") || "";
  const where = params.get("where") || "";
  const sort = params.get("sort") || "";
  const offset = Number(params.get("offset") || 0);
  const limit = Number(params.get("limit") || 50);
  // The next page is sought after the last row shown (docs/INSPECTOR.md); offset is then
  // only the page's range.
  const after = params.get("after") || "";
  const form = el("form", { class: "filters", id: "predicate-form" },
    el("label", {}, "where", el("input", { name: "where", value: where, placeholder: "salary > 100000 AND lastName BEGINSWITH 'L'" })),
    el("button", { type: "submit" }, "Fetch"));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    location.hash = href("objects", { entity, where: form.elements.where.value, sort });
  });
  const parts = [el("h1", {}, entity), form];
  let page;
  try {
    page = await api("objects", { entity, where, sort, offset, limit, after, at: state.at });
  } catch (error) {
    parts.push(errorBox(error));
    return parts;
  }
  const sortKey = sort.split(":")[0];
  const descending = sort.endsWith(":desc");
  const header = el("tr", {}, el("th", {}, "object"), page.columns.map((column) => {
    const next = column.name === sortKey && !descending ? column.name + ":desc" : column.name;
    const button = el("button", { type: "button", "data-sort": column.name }, column.name,
      column.name === sortKey ? (descending ? " ▼" : " ▲") : "");
    button.addEventListener("click", () => { location.hash = href("objects", { entity, where, sort: next }); });
    return el("th", {}, column.kind === "relationship" ? el("span", {}, button, el("span", { class: "muted" }, " →")) : button);
  }));
  const rows = page.rows.map((row) => el("tr", {}, el("td", {}, objectLink(row.ref)),
    row.values.map((value) => el("td", {}, valueNode(value)))));
  const last = Math.min(page.offset + page.rows.length, page.total);
  const pager = el("div", { class: "pager" },
    el("span", { id: "page-range" }, page.total ? `${page.offset + 1}–${last} of ${page.total.toLocaleString("en")}` : "No objects match."));
  const asked = params.get("limit") || "";
  const cursors = cursorsOf(entity, where, sort, page.limit);
  if (after) cursors.set(page.offset, after);
  if (page.offset > 0) {
    const previous = Math.max(0, page.offset - page.limit);
    pager.append(el("a", { href: href("objects", { entity, where, sort, limit: asked, offset: previous, after: cursors.get(previous) || "" }), id: "previous-page" }, "← previous"));
  }
  if (page.next) pager.append(el("a", { href: href("objects", { entity, where, sort, limit: asked, offset: page.offset + page.limit, after: page.next }), id: "next-page" }, "next →"));
  parts.push(pager, el("table", { id: "objects" }, header, rows));
  return parts;
}

function changeNode(change) {
  const list = el("table", {}, change.properties.map((property) => {
    let detail;
    if (property.added.length || property.removed.length) {
      detail = el("span", {}, property.added.length ? el("span", { class: "new" }, "+ ", property.added.map((item) => [objectLink(item.ref), " "])) : "",
        property.removed.length ? el("span", { class: "old" }, "− ", property.removed.map((item) => [objectLink(item.ref), " "])) : "");
    } else {
      detail = el("span", {}, el("span", { class: "old" }, valueNode(property.old)), el("span", { class: "arrow" }, "→"),
        el("span", { class: "new" }, valueNode(property.new)));
    }
    return el("tr", {}, el("th", {}, property.key), el("td", {}, detail));
  }));
  return el("div", { class: "change " + change.kind }, el("strong", {}, change.kind, " "), objectLink(change.ref), list);
}

async function objectView(params) {
  const id = params.get("id") || "";
  const object = await api("object", { id, at: state.at });
  const attributes = el("table", { id: "attributes" }, object.attributes.map((item) =>
    el("tr", {}, el("th", {}, item.name), el("td", {}, valueNode(item.value)))));
  const relationships = el("table", { id: "relationships" }, object.relationships.map((item) =>
    el("tr", {}, el("th", {}, item.name), el("td", {}, valueNode(item.value)))));
  const history = object.history.saves.map((save) => el("div", {},
    el("p", {}, el("a", { href: href("save", { sequence: save.sequence }) }, "save " + save.sequence), " · ", save.time,
      save.author ? " · " + save.author : "", save.action ? " · " + save.action : ""),
    changeNode(save.change)));
  return [el("h1", {}, object.ref), el("p", { class: "muted" }, object.uri),
    el("h2", {}, "Attributes"), attributes,
    el("h2", {}, "Relationships"), object.relationships.length ? relationships : el("p", { class: "muted" }, "none"),
    el("h2", {}, "History"), el("p", { class: "muted" }, `Saves from ${object.history.searchedFrom} on that changed it, newest first.`),
    el("div", { id: "object-history" }, history.length ? history : el("p", { class: "muted" }, "No save in that range changed it."))];
}

function chart(data) {
  const width = 720, height = 120, gap = 2;
  const picture = svg("svg", { class: "chart", id: "timeline-chart", width, height, viewBox: `0 0 ${width} ${height}`, role: "img" });
  const buckets = data.buckets;
  if (!buckets.length) return picture;
  const most = Math.max(1, ...buckets.map((bucket) => bucket.saves));
  const step = width / buckets.length;
  buckets.forEach((bucket, index) => {
    const tall = (bucket.saves / most) * (height - 20);
    const bar = svg("rect", { class: "bar", x: index * step + gap / 2, y: height - 14 - tall, width: Math.max(1, step - gap), height: tall });
    const title = svg("title");
    title.textContent = `${bucket.saves} saves` + (bucket.lastSequence ? `, up to save ${bucket.lastSequence}` : "");
    bar.append(title);
    if (bucket.lastSequence) bar.addEventListener("click", () => { location.hash = href("timeline", { before: bucket.lastSequence + 1 }); });
    picture.append(bar);
    if (bucket.undoRedo) {
      const undoTall = (bucket.undoRedo / most) * (height - 20);
      picture.append(svg("rect", { class: "undo", x: index * step + gap / 2, y: height - 14 - undoTall, width: Math.max(1, step - gap), height: undoTall }));
    }
  });
  const start = svg("text", { x: 2, y: height - 2 }); start.textContent = data.start;
  const end = svg("text", { x: width - 2, y: height - 2, "text-anchor": "end" }); end.textContent = data.end;
  picture.append(start, end);
  return picture;
}

async function timelineView(params) {
  const filters = { author: params.get("author") || "", entity: params.get("entity") || "", kind: params.get("kind") || "", context: params.get("context") || "" };
  const form = el("form", { class: "filters", id: "timeline-filters" },
    ["author", "context", "entity", "kind"].map((name) => el("label", {}, name, el("input", { name, value: filters[name] }))),
    el("button", { type: "submit" }, "Filter"));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const values = {};
    for (const name of ["author", "context", "entity", "kind"]) values[name] = form.elements[name].value;
    location.hash = href("timeline", values);
  });
  const parts = [el("h1", {}, "Timeline"), form];
  try {
    parts.push(chart(await api("timeline/chart", { buckets: 60 })));
    const page = await api("timeline", { ...filters, before: params.get("before") || "", limit: 50 });
    const rows = page.saves.map((save) => el("tr", { "data-sequence": save.sequence },
      el("td", { class: "number" }, el("a", { href: href("save", { sequence: save.sequence }) }, save.sequence)),
      el("td", {}, save.time), el("td", {}, save.author || ""), el("td", {}, save.context || ""),
      el("td", {}, save.action), el("td", {}, kinds(save.kinds)),
      el("td", {}, save.damaged ? el("span", { class: "old damaged" }, "damaged: " + save.damaged) : summaryNode(save.summary))));
    parts.push(el("table", { id: "timeline" },
      el("tr", {}, ["save", "time", "author", "context", "action", "kind", "changes"].map((name) => el("th", {}, name))), rows));
    if (!page.saves.length) parts.push(el("p", { class: "muted" }, "No saves match."));
    if (page.before) parts.push(el("div", { class: "pager" }, el("a", { href: href("timeline", { ...filters, before: page.before }) }, "older saves →")));
  } catch (error) {
    parts.push(errorBox(error));
  }
  return parts;
}

// A save's changes in a timeline row: counts by kind and entity, or for a big save (not
// decoded for the timeline) its number of operations.
function summaryNode(summary) {
  if (!summary.summarized) return el("span", {}, `${summary.operations.toLocaleString("en")} operations`);
  return el("span", {}, `+${summary.inserted} ~${summary.updated} −${summary.deleted} `,
    el("span", { class: "muted" }, summary.entities.map((entity) => `${entity.name} ${entity.changes}`).join(", ")));
}

async function saveView(params) {
  const sequence = params.get("sequence");
  const save = await api("save", { sequence });
  const travel = el("button", { type: "button", id: "travel-here" }, "View the document as of this save");
  travel.addEventListener("click", () => travelTo(String(save.sequence)));
  return [el("h1", {}, "Save " + save.sequence),
    el("p", {}, save.time, " · ", save.author || "no author", " · ", save.context || "no context name", " · ",
      save.action || "no action name", " ", kinds(save.kinds)),
    el("p", {}, travel, " ", el("a", { href: href("compare", { from: Math.max(0, save.sequence - 1), to: save.sequence }) }, "compare with the save before")),
    el("p", { class: "muted" }, `${save.changeCount} ${save.changeCount === 1 ? "object" : "objects"} changed` + (save.changeCount > save.changes.length ? `; the first ${save.changes.length} are shown` : "")),
    el("div", { id: "changes" }, save.changes.map(changeNode))];
}

async function compareView(params) {
  const from = params.get("from") || "", to = params.get("to") || "";
  const form = el("form", { class: "filters", id: "compare-form" },
    el("label", {}, "from save", el("input", { name: "from", value: from, size: 6 })),
    el("label", {}, "to save", el("input", { name: "to", value: to, size: 6 })),
    el("button", { type: "submit" }, "Compare"));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    location.hash = href("compare", { from: form.elements.from.value, to: form.elements.to.value });
  });
  const parts = [el("h1", {}, "Compare two saves"), form];
  if (!to) return parts;
  try {
    const result = await api("compare", { from, to });
    parts.push(el("p", { id: "compare-summary" }, `Saves ${result.from + 1}–${result.to}: ${result.inserted} inserted, ${result.updated} changed, ${result.deleted} deleted.`),
      el("div", { id: "changes" }, result.changes.map(changeNode)));
  } catch (error) {
    parts.push(errorBox(error));
  }
  return parts;
}

async function undoView(params) {
  const context = params.get("context") || "";
  const undo = await api("undo", { limit: 30, context });
  // One context's stacks (the saves whose header names it), or the whole document's.
  const picker = el("select", { id: "undo-context" }, el("option", { value: "" }, "the whole document"),
    undo.contexts.map((name) => {
      const option = el("option", { value: name }, name);
      if (name === context) option.setAttribute("selected", "");
      return option;
    }));
  picker.addEventListener("change", () => { location.hash = href("undo", { context: picker.value }); });
  const rows = undo.groups.map((group) => el("tr", {},
    el("td", { class: "number" }, group.id), el("td", { class: "number" }, el("a", { href: href("save", { sequence: group.sequence }) }, group.sequence)),
    el("td", {}, group.time), el("td", {}, kinds([group.kind])), el("td", {}, group.action),
    el("td", {}, group.reverts === null ? "" : "reverts " + group.reverts), el("td", {}, group.undone ? "undone" : "")));
  return [el("h1", {}, "Undo"),
    el("p", { id: "next-undo" }, undo.canUndo ? `Undo would revert “${undo.undoActionName || "(no action name)"}”.` : "Nothing to undo."),
    el("p", { id: "next-redo" }, undo.canRedo ? `Redo would repeat “${undo.redoActionName || "(no action name)"}”.` : "Nothing to redo."),
    el("label", {}, "Stacks of ", picker),
    el("p", { class: "muted" }, context ? `As a context named “${context}” sees its stacks, rebuilt from its own saves.`
      : "As a context that restores the document's undo history (restoreUndoHistory) sees its stacks."),
    el("h2", {}, "Latest groups"),
    el("table", { id: "groups" }, el("tr", {}, ["group", "save", "time", "kind", "action", "reverts", "state"].map((name) => el("th", {}, name))), rows)];
}

function bytes(count) {
  if (count < 1024) return count + " B";
  if (count < 1048576) return (count / 1024).toFixed(1) + " KiB";
  return (count / 1048576).toFixed(1) + " MiB";
}

function compositionChart(segments) {
  const width = 720, height = 120;
  const picture = svg("svg", { class: "chart", id: "file-chart", width, height, viewBox: `0 0 ${width} ${height}`, role: "img" });
  const ordered = segments.slice().reverse();
  if (!ordered.length) return picture;
  const most = Math.max(1, ...ordered.map((segment) => segment.rawBytes));
  const step = width / ordered.length;
  ordered.forEach((segment, index) => {
    const raw = (segment.rawBytes / most) * (height - 10), stored = (segment.bytes / most) * (height - 10);
    picture.append(svg("rect", { class: "raw", x: index * step, y: height - raw, width: Math.max(1, step - 1), height: raw }));
    const bar = svg("rect", { class: segment.compacted ? "compacted" : "bar", x: index * step, y: height - stored, width: Math.max(1, step - 1), height: stored });
    const title = svg("title");
    title.textContent = `segment ${segment.sequence}: ${bytes(segment.bytes)} stored, ${bytes(segment.rawBytes)} raw` + (segment.compacted ? ", compacted" : "");
    bar.append(title);
    picture.append(bar);
  });
  return picture;
}

async function fileView() {
  const file = await api("file", { limit: 200 });
  const facts = [["file", file.path], ["size", bytes(file.fileSize)], ["format", file.formatVersion],
    ["segments", `${file.segmentCount}, ${bytes(file.segmentBytes)} stored (${bytes(file.segmentRawBytes)} raw)`],
    ["last segment", file.lastSegment], ["compacted through", file.compactedThrough],
    ["first retained", file.firstRetainedSegment], ["undo groups", file.groupCount]];
  const versions = file.modelVersions.map((version) => el("tr", {}, el("td", { class: "number" }, version.version),
    el("td", {}, version.identifier || "unversioned"), el("td", {}, version.hash), el("td", { class: "number" }, version.firstSegment),
    el("td", {}, version.migratedAt ? "migrated " + version.migratedAt + (version.custom ? " (custom stage)" : "") : "created with it")));
  const segments = file.segments.map((segment) => el("tr", {}, el("td", { class: "number" }, segment.sequence), el("td", {}, segment.time),
    el("td", { class: "number" }, bytes(segment.bytes)), el("td", { class: "number" }, bytes(segment.rawBytes)),
    el("td", { class: "number" }, segment.groups), el("td", { class: "number" }, segment.operations), el("td", {}, segment.compacted ? "compacted" : "")));
  return [el("h1", {}, "The file"),
    el("table", { id: "file-facts" }, facts.map(([name, value]) => el("tr", {}, el("th", {}, name), el("td", {}, String(value))))),
    el("h2", {}, "Model versions"),
    el("table", { id: "model-versions" }, el("tr", {}, ["version", "identifier", "hash", "from segment", ""].map((name) => el("th", {}, name))), versions),
    el("h2", {}, "Segments, newest first"),
    el("p", { class: "muted" }, "Stored (dark: folded into the snapshot by compaction) against raw size, oldest left."),
    compositionChart(file.segments),
    el("table", { id: "segments" }, el("tr", {}, ["segment", "time", "stored", "raw", "groups", "operations", ""].map((name) => el("th", {}, name))), segments)];
}

const views = { entities: entitiesView, objects: objectsView, object: objectView, timeline: timelineView,
  save: saveView, compare: compareView, undo: undoView, file: fileView };

// MARK: Routing, time travel, live updates

function parseHash() {
  const hash = location.hash.replace(/^#\/?/, "");
  const [name, query] = hash.split("?");
  return { view: views[name] ? name : "entities", params: new URLSearchParams(query || "") };
}

async function render() {
  const { view, params } = parseHash();
  const at = params.get("at");
  if (at !== null) state.at = at === "" ? null : at;
  state.route = view;
  document.getElementById("travel-at").value = state.at || "";
  for (const link of document.querySelectorAll("nav a")) link.classList.toggle("current", link.dataset.view === view);
  const banner = document.getElementById("banner");
  banner.hidden = state.at === null;
  banner.textContent = state.at === null ? "" : `Viewing the document as of save ${state.at}, read-only. “Now” returns to the present.`;
  const main = document.getElementById("view");
  let content;
  try {
    content = await views[view](params);
  } catch (error) {
    content = [errorBox(error)];
  }
  main.replaceChildren(...[content].flat());
  main.setAttribute("data-view", view);
  main.setAttribute("data-rendered-sequence", state.lastSequence === null ? "" : state.lastSequence);
}

function travelTo(at) {
  state.at = at === "" ? null : at;
  const { view, params } = parseHash();
  params.delete("at");
  if (state.at !== null) params.set("at", state.at);
  const keep = ["entities", "objects", "object"].includes(view) ? view : "entities";
  const query = keep === view ? params.toString() : (state.at !== null ? "at=" + state.at : "");
  const target = "#/" + (keep === "entities" ? "" : keep) + (query ? "?" + query : "");
  if (location.hash === target) render(); else location.hash = target;
}

function listen() {
  if (!window.EventSource) return;
  const events = new EventSource("/api/events");
  events.addEventListener("save", (event) => {
    const { lastSequence } = JSON.parse(event.data);
    const live = document.getElementById("live");
    const changed = state.lastSequence !== null && state.lastSequence !== lastSequence;
    state.lastSequence = lastSequence;
    live.textContent = "last save " + lastSequence;
    document.body.setAttribute("data-last-sequence", lastSequence);
    if (changed) {
      live.classList.add("flash");
      setTimeout(() => live.classList.remove("flash"), 1500);
      // A view of the present follows the document; a view of a past save stays as it was.
      if (state.at === null) render();
    }
  });
}

// The background preparation of time travel (docs/INSPECTOR.md, "Time travel"): shown
// beside the "As of save" box and followed once a second until it ends.
function showTravelPreparation(progress) {
  const status = document.getElementById("travel-status");
  if (!progress || progress.state !== "preparing") {
    status.textContent = progress && progress.state === "failed" ? "time travel replays from the first save: " + progress.message : "";
    return;
  }
  const percent = progress.last ? Math.floor(100 * progress.prepared / progress.last) : 0;
  status.textContent = `preparing time travel: ${percent}% (save ${progress.prepared.toLocaleString("en")} of ${progress.last.toLocaleString("en")})`;
  setTimeout(async () => {
    try { showTravelPreparation((await api("document")).timeTravel); } catch (error) { status.textContent = ""; }
  }, 1000);
}

async function start() {
  try {
    const summary = await api("document");
    showTravelPreparation(summary.timeTravel);
    document.getElementById("document-name").textContent = summary.name;
    document.title = summary.name + " · Strata inspector";
    // Damage only in the history: the document is shown read-only with this banner
    // (docs/INSPECTOR.md, "Safety").
    const damage = document.getElementById("damage-banner");
    damage.hidden = !summary.historyDamage;
    damage.textContent = summary.historyDamage ? summary.historyDamage.message : "";
  } catch (error) {
    document.getElementById("view").replaceChildren(errorBox(error));
  }
  document.getElementById("travel").addEventListener("submit", (event) => {
    event.preventDefault();
    travelTo(document.getElementById("travel-at").value.trim());
  });
  document.getElementById("travel-now").addEventListener("click", () => travelTo(""));
  window.addEventListener("hashchange", render);
  listen();
  render();
}

start();
