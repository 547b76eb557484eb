// The Diff panel: two models on a set of bundled litmus tests, each test's answer as it
// comes, then diff's report and the witnesses drawn.

import { $, Status, fillModels, getText, hideProblem, option, showProblem } from "./common.js";
import { Editor } from "./editor.js";
import { Job } from "./jobs.js";
import { Viewer } from "./pictures.js";

const SAME = new Set(["identical"]);

export class DiffPanel {
  constructor(catalog, permalink) {
    this.catalog = catalog;
    this.permalink = permalink;
    this.job = null;
    this.cats = { a: new Editor($("cat-a-editor"), { name: "cat model A" }), b: new Editor($("cat-b-editor"), { name: "cat model B" }) };
    this.status = new Status($("diff-status"));
    this.viewer = new Viewer($("diff-pictures"), "Witnesses");
    fillModels($("model-a"), catalog.models, { withDefault: false });
    fillModels($("model-b"), catalog.models, { withDefault: false });
    $("model-a").value = catalog.models.includes("tso") ? "tso" : catalog.models[0];
    $("model-b").value = catalog.models.includes("sc") ? "sc" : catalog.models[0];
    for (const e of catalog.engines) $("diff-engine").append(option(e, e));
    $("diff-timeout").value = catalog.limits.timeout;
    const folders = [...new Set(catalog.examples.filter((e) => e.kind === "litmus").map((e) => e.path.split("/")[0]))];
    for (const f of folders) {
      const label = document.createElement("label");
      const box = document.createElement("input");
      box.type = "checkbox";
      box.value = f;
      box.checked = f === "x86";
      const n = catalog.examples.filter((e) => e.path.startsWith(`${f}/`) && e.kind === "litmus").length;
      label.append(box, ` ${f} (${n})`);
      $("folders").append(label);
    }
    for (const side of ["a", "b"]) $(`model-${side}`).addEventListener("change", () => this.chooseModel(side));
    $("diff-run").addEventListener("click", () => this.start());
    $("diff-cancel").addEventListener("click", () => this.job && this.job.cancel());
  }

  visible() { return !$("panel-diff").classList.contains("hidden"); }

  async chooseModel(side, base = "") {
    const custom = $(`model-${side}`).value === "custom";
    $(`cat-${side}-box`).classList.toggle("hidden", !custom);
    if (custom && !this.cats[side].value.trim()) {
      this.cats[side].value = await getText(`/api/model?name=${encodeURIComponent(base || (side === "a" ? "tso" : "sc"))}`);
    }
  }

  request() {
    const req = { task: "diff", model: $("model-a").value, model_b: $("model-b").value, engine: $("diff-engine").value };
    if (req.model === "custom") req.cat = this.cats.a.value;
    if (req.model_b === "custom") req.cat_b = this.cats.b.value;
    req.tests = [...$("folders").querySelectorAll("input:checked")].map((b) => b.value);
    if ($("diff-timeout").value !== "") req.timeout = Number($("diff-timeout").value);
    return req;
  }

  async apply(params) {
    for (const [side, key] of [["a", "model"], ["b", "model_b"]]) {
      const name = params.get(key);
      if (name) $(`model-${side}`).value = name;
      if (name === "custom") this.cats[side].value = params.get(side === "a" ? "cat" : "cat_b") || "";
      await this.chooseModel(side);
    }
    if (params.get("engine")) $("diff-engine").value = params.get("engine");
    if (params.get("timeout")) $("diff-timeout").value = params.get("timeout");
    const tests = (params.get("tests") || "").split(",").filter(Boolean);
    if (tests.length) {
      for (const box of $("folders").querySelectorAll("input")) box.checked = tests.includes(box.value);
      this.start();
    }
    return "diff";
  }

  busy(running) {
    $("diff-run").disabled = running;
    $("diff-cancel").disabled = !running;
  }

  start() {
    if (this.job) return;
    const req = this.request();
    history.replaceState(null, "", this.permalink(req));
    hideProblem($("diff-problem"));
    for (const id of ["diff-rows-card", "diff-report", "diff-pictures"]) $(id).classList.add("hidden");
    $("diff-rows").tBodies[0].replaceChildren();
    this.viewer.reset();
    $("diff-progress").classList.remove("hidden");
    $("diff-progress").value = 0;
    this.busy(true);
    this.status.busy("diffing");
    this.job = new Job(req, (ev) => this.onEvent(ev));
    this.job.run();
  }

  onEvent(ev) {
    switch (ev.type) {
      case "job": if (ev.queued) this.status.busy("waiting for a free worker"); break;
      case "progress": break;
      case "warning":
      case "error":
        if (ev.message !== "cancelled") showProblem($("diff-problem"), ev, { "model.cat": this.cats.a, "model_b.cat": this.cats.b });
        if (ev.type === "error") this.status.idle(ev.message === "cancelled" ? "cancelled" : "failed");
        break;
      case "diffrow": this.row(ev); break;
      case "report":
        $("diff-report").classList.remove("hidden");
        $("diff-report").querySelector("pre").textContent = ev.text;
        break;
      case "pictures":
        this.viewer.expect(ev.total);
        if (ev.total) $("diff-pictures").classList.remove("hidden");
        break;
      case "picture": this.viewer.add({ state: ev.state, svg: ev.svg, caption: ev.state }); break;
      case "done": this.status.idle(`done in ${ev.seconds.toFixed(2)} s`); break;
      case "end":
        this.job = null;
        this.busy(false);
        $("diff-progress").classList.add("hidden");
        if ($("diff-status").classList.contains("busy")) this.status.idle("stopped");
        break;
      default: break;
    }
  }

  row(ev) {
    $("diff-rows-card").classList.remove("hidden");
    $("diff-progress").max = ev.total;
    $("diff-progress").value = ev.n;
    this.status.busy(`${ev.n} of ${ev.total} tests`);
    const tr = document.createElement("tr");
    const cls = SAME.has(ev.group) ? "group-same" : ev.group === "error" || ev.group === "noresult" ? "group-error" : "group-diff";
    for (const [text, klass] of [[String(ev.n), ""], [ev.path, "state"], [ev.heading, cls], [ev.verdicts, ""]]) {
      const td = document.createElement("td");
      td.textContent = text;
      if (klass) td.className = klass;
      tr.append(td);
    }
    $("diff-rows").tBodies[0].append(tr);
  }
}
