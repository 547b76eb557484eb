// Small helpers shared by the workbench's panels.

export const $ = (id) => document.getElementById(id);

export function option(value, label) {
  const o = document.createElement("option");
  o.value = value;
  o.textContent = label;
  return o;
}

// The model choices: herd's default, the built-in models, a cat file to edit.
export function fillModels(select, models, { withDefault = true } = {}) {
  select.replaceChildren();
  if (withDefault) select.append(option("", "default for the test"));
  for (const m of models) select.append(option(m, m));
  select.append(option("custom", "custom cat model…"));
}

export async function getText(url) {
  const r = await fetch(url);
  if (!r.ok) {
    let message = `${r.status}`;
    try { message = (await r.json()).error || message; } catch { /* keep it */ }
    throw new Error(message);
  }
  return r.text();
}

// A status line with a clock while a job runs.
export class Status {
  constructor(el) { this.el = el; this.timer = null; this.text = ""; this.t0 = 0; }
  busy(text) {
    this.text = text;
    if (!this.timer) {
      this.t0 = performance.now();
      this.timer = setInterval(() => this.draw(), 500);
    }
    this.el.classList.add("busy");
    this.draw();
  }
  draw() {
    const s = ((performance.now() - this.t0) / 1000).toFixed(0);
    this.el.textContent = `${this.text} — ${s} s`;
  }
  idle(text) {
    clearInterval(this.timer);
    this.timer = null;
    this.el.classList.remove("busy");
    this.el.textContent = text;
  }
}

// Show a problem (the command line's error or warning line); `editors` maps a file name
// to the editor holding that file, whose line the problem points at is then marked.
export function showProblem(box, event, editors) {
  box.classList.remove("hidden");
  box.classList.toggle("warning", event.type === "warning");
  box.textContent = event.message;
  const editor = event.file && editors[event.file];
  if (editor && event.line > 0) editor.mark(event.line, event.col || 1);
}

export function hideProblem(box) {
  box.classList.add("hidden");
  box.textContent = "";
}
