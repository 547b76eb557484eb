// The workbench's page: the Run & explain panel, the permalink, the tabs (the Diff panel
// is diff.js).  No build step: plain modules.

import { $, Status, fillModels, getText, hideProblem, option, showProblem } from "./common.js";
import { DiffPanel } from "./diff.js";
import { Editor } from "./editor.js";
import { Job } from "./jobs.js";
import { Viewer } from "./pictures.js";

const state = {
  catalog: null,
  examples: new Map(),     // path -> kind
  loaded: { path: "", text: "" },   // the example in the editor, as loaded
  job: null,
  running: false,
  failed: false,
  lastBuiltin: "",
};

const source = new Editor($("source-editor"), { name: "litmus test or C program", placeholder: "Paste a litmus test (PPC, X86, C, ...) or a C program, or pick an example above." });
const cat = new Editor($("cat-editor"), { name: "cat model" });
const status = new Status($("status"));
const viewer = new Viewer($("pictures"), "Executions");
let diff = null;

// ----------------------------------------------------------------------------- inputs

function fillCatalog(catalog) {
  state.catalog = catalog;
  const groups = new Map();
  for (const ex of catalog.examples) {
    state.examples.set(ex.path, ex.kind);
    const folder = ex.path.split("/")[0];
    if (!groups.has(folder)) groups.set(folder, []);
    groups.get(folder).push(ex);
  }
  const select = $("example");
  for (const [folder, list] of groups) {
    const g = document.createElement("optgroup");
    g.label = folder === "programs" || folder === "tso" ? `${folder} (C programs)` : `${folder} (litmus tests)`;
    for (const ex of list) g.append(option(ex.path, ex.path.slice(folder.length + 1)));
    select.append(g);
  }
  fillModels($("model"), catalog.models);
  for (const e of catalog.engines) $("engine").append(option(e, e));
  $("timeout").value = catalog.limits.timeout;
  $("timeout").max = catalog.limits.max_timeout;
  $("memory").value = catalog.limits.memory;
  $("memory").max = catalog.limits.max_memory;
}

async function loadExample(path) {
  hideProblem($("problem"));
  if (!path) { state.loaded = { path: "", text: "" }; return; }
  const text = await getText(`/api/example?path=${encodeURIComponent(path)}`);
  state.loaded = { path, text };
  source.value = text;
  $("kind").value = state.examples.get(path) || "auto";
  updateExplain();
}

async function chooseModel() {
  const name = $("model").value;
  const custom = name === "custom";
  $("cat-box").classList.toggle("hidden", !custom);
  if (!custom) { state.lastBuiltin = name; return; }
  if (!cat.value.trim()) {
    const base = state.lastBuiltin || guessModel();
    cat.value = await getText(`/api/model?name=${encodeURIComponent(base)}`);
    $("cat-origin").textContent = `starting from ${base}`;
  }
}

// The built-in model herd would take for the text in the editor.
function guessModel() {
  const head = source.value.trimStart().split(/\s/)[0];
  return { PPC: "power", X86: "tso" }[head] || "sc";
}

// Explain takes litmus tests: not offered for a C program.
function updateExplain() {
  const auto = /^\s*#\s*(include|define)\b|\bint\s+main\s*\(/m.test(source.value) ? "program" : "litmus";
  const kind = $("kind").value === "auto" ? auto : $("kind").value;
  $("explain").disabled = state.running || kind === "program";
  $("explain").title = kind === "program" ? "explain takes a litmus test" : "Why the model forbids (or allows) the condition's state, or the state given under Limits and options";
}

function sourceFields() {
  const { path, text } = state.loaded;
  const example = $("example").value;
  if (example && example === path && source.value === text) return { example };
  return { text: source.value, kind: $("kind").value };
}

function request(task) {
  const req = { task, ...sourceFields(), model: $("model").value, engine: $("engine").value };
  if (req.model === "custom") req.cat = cat.value;
  for (const key of ["timeout", "memory", "unroll"]) if ($(key).value !== "") req[key] = Number($(key).value);
  if (task === "explain" && $("state").value.trim()) req.state = $("state").value.trim();
  return req;
}

// ----------------------------------------------------------------------------- permalink

const DEFAULTS = { task: "run", kind: "auto", engine: "auto", unroll: "4" };

export function permalink(req) {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(req)) {
    if (value === undefined || value === null || value === "") continue;
    const text = Array.isArray(value) ? value.join(",") : String(value);
    if (DEFAULTS[key] === text) continue;
    if (key === "timeout" && Number(text) === state.catalog.limits.timeout) continue;
    if (key === "memory" && Number(text) === state.catalog.limits.memory) continue;
    if (key === "kind" && req.example) continue;
    params.set(key, text);
  }
  const q = params.toString();
  return `${location.origin}${location.pathname}${q ? `?${q}` : ""}`;
}

async function applyParams(params) {
  const task = params.get("task") || "run";
  if (task === "diff") { selectTab("panel-diff"); return diff.apply(params); }
  if (params.get("example")) {
    // a '+' typed in a link reads as a space in a query: example paths have none
    let path = params.get("example");
    if (!state.examples.has(path)) path = path.replace(/ /g, "+");
    $("example").value = path;
    await loadExample(path);
  } else if (params.get("text") !== null) {
    source.value = params.get("text");
    $("kind").value = params.get("kind") || "auto";
  } else {
    return false;
  }
  const model = params.get("model") || "";
  $("model").value = [...$("model").options].some((o) => o.value === model) ? model : "";
  if (model === "custom") cat.value = params.get("cat") || "";
  await chooseModel();
  for (const key of ["engine", "timeout", "memory", "unroll", "state"]) if (params.get(key) !== null) $(key).value = params.get(key);
  return task;
}

// ----------------------------------------------------------------------------- a job

function clearResults() {
  state.failed = false;
  $("intro").classList.add("hidden");
  hideProblem($("problem"));
  source.clearMark();
  cat.clearMark();
  for (const id of ["output", "states-card", "pictures"]) $(id).classList.add("hidden");
  $("states").tBodies[0].replaceChildren();
  $("output-text").textContent = "";
  viewer.reset();
}

function busy(running) {
  state.running = running;
  $("run").disabled = running;
  $("cancel").disabled = !running;
  updateExplain();
}

// Run a job (a job still running is cancelled first: the newest question wins).
async function start(task) {
  if (state.job) await state.job.cancel();
  const req = request(task);
  history.replaceState(null, "", permalink(req));
  clearResults();
  busy(true);
  status.busy(task === "explain" ? "explaining" : "running");
  viewer.title = task === "explain" ? "Candidates" : "Executions";
  viewer.build();
  const job = new Job(req, (ev) => onEvent(task, ev));
  state.job = job;
  job.run();
}

function output(title, text) {
  $("output").classList.remove("hidden");
  $("output-title").textContent = title;
  $("output-text").textContent = text;
}

function onEvent(task, ev) {
  switch (ev.type) {
    case "job": if (ev.queued) status.busy("waiting for a free worker"); break;
    case "started": status.busy(task === "explain" ? "explaining" : "running"); break;
    case "progress": status.busy(ev.text); break;
    case "warning":
    case "error":
      if (ev.message === "cancelled") break;  // the person asked: the status says so
      state.failed = ev.type === "error";
      showProblem($("problem"), ev, { "model.cat": cat });
      if (ev.file && !ev.file.endsWith(".cat") && ev.line > 0) source.mark(ev.line, ev.col || 1);
      break;
    case "block": output(`herd's output (engine ${ev.engine})`, ev.text); break;
    case "report":
      output(task === "explain" ? "Explanation" : `GenMC's report (engine ${ev.engine})`, ev.text);
      break;
    case "states": showStates(ev); break;
    case "pictures":
      viewer.expect(ev.total);
      if (ev.total) $("pictures").classList.remove("hidden");
      break;
    case "picture": viewer.add({ state: ev.state, svg: ev.svg, caption: ev.state }); break;
    case "done": status.idle(`${state.failed ? "failed" : "done"} in ${ev.seconds.toFixed(2)} s`); break;
    case "end":
      state.job = null;
      busy(false);
      if ($("status").classList.contains("busy")) status.idle("stopped");
      break;
    default: break;
  }
  if (ev.type === "error") status.idle(ev.message === "cancelled" ? "cancelled" : "failed");
}

function showStates(ev) {
  const body = $("states").tBodies[0];
  body.replaceChildren();
  for (const s of ev.states) {
    const tr = document.createElement("tr");
    tr.className = "clickable";
    tr.title = "show the executions with this final state";
    const cells = [s.state, String(s.count), s.satisfies ? "satisfies" : "—"];
    cells.forEach((text, i) => {
      const td = document.createElement("td");
      td.textContent = text;
      if (i === 0) td.className = "state";
      if (i === 2) td.className = s.satisfies ? "yes" : "no";
      tr.append(td);
    });
    const td = document.createElement("td");
    const b = document.createElement("button");
    b.className = "link";
    b.textContent = "explain";
    b.title = "why the model allows this state";
    b.addEventListener("click", (e) => { e.stopPropagation(); $("state").value = s.state; start("explain"); });
    td.append(b);
    tr.append(td);
    tr.addEventListener("click", () => {
      for (const row of body.rows) row.classList.toggle("selected", row === tr && viewer.filter !== s.state);
      viewer.setFilter(viewer.filter === s.state ? "" : s.state);
    });
    body.append(tr);
  }
  showCondition(ev);
  $("states-card").classList.toggle("hidden", !ev.states.length);
}

// The condition and whether it was observed; when never, a way to ask why.
function showCondition(ev) {
  const box = $("condition");
  box.replaceChildren();
  if (!ev.condition) return;
  const seen = ev.states.some((s) => s.satisfies);
  const quant = ev.condition.split(/\s/)[0];
  const verdict = document.createElement("span");
  verdict.className = seen ? "sometimes" : "never";
  verdict.textContent = seen ? "observed" : "never observed";
  box.append(`Condition ${ev.condition}: `, verdict);
  if (!seen && quant !== "forall") {
    box.append(" — ");
    const why = document.createElement("button");
    why.className = "link";
    why.id = "why";
    why.textContent = "explain why the model forbids it";
    why.addEventListener("click", () => { $("state").value = ""; start("explain"); });
    box.append(why);
  }
}

// ----------------------------------------------------------------------------- the page

function selectTab(panel) {
  for (const b of document.querySelectorAll(".tabs button")) b.setAttribute("aria-selected", String(b.dataset.panel === panel));
  for (const p of document.querySelectorAll(".panel")) p.classList.toggle("hidden", p.id !== panel);
}

async function share() {
  const url = diff.visible() ? permalink(diff.request()) : permalink(request($("state").value.trim() ? "explain" : "run"));
  history.replaceState(null, "", url);
  try {
    await navigator.clipboard.writeText(url);
    $("share").textContent = "Link copied";
  } catch {
    $("share").textContent = "Link in the address bar";
  }
  setTimeout(() => { $("share").textContent = "Copy permalink"; }, 1800);
}

async function main() {
  const catalog = await (await fetch("/api/catalog")).json();
  fillCatalog(catalog);
  diff = new DiffPanel(catalog, permalink);
  $("example").addEventListener("change", () => loadExample($("example").value).catch((e) => showProblem($("problem"), { type: "error", message: e.message }, {})));
  $("model").addEventListener("change", () => chooseModel());
  source.onInput(updateExplain);
  $("kind").addEventListener("change", updateExplain);
  $("run").addEventListener("click", () => start("run"));
  $("explain").addEventListener("click", () => start("explain"));
  $("cancel").addEventListener("click", () => state.job && state.job.cancel());
  $("share").addEventListener("click", share);
  for (const b of document.querySelectorAll(".tabs button")) b.addEventListener("click", () => selectTab(b.dataset.panel));
  document.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter" && (ev.ctrlKey || ev.metaKey) && !diff.visible()) start("run");
  });
  const task = await applyParams(new URLSearchParams(location.search));
  if (task === "run" || task === "explain") start(task);
  document.body.dataset.ready = "true";
}

main().catch((e) => showProblem($("problem"), { type: "error", message: `the page cannot start: ${e.message}` }, {}));
