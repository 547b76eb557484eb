// A plain text editor: a textarea with a gutter of line numbers, where an error's line
// is marked (and selected) — for litmus tests, C programs and cat models.

export class Editor {
  constructor(host, { placeholder = "", name = "" } = {}) {
    this.gutter = document.createElement("div");
    this.gutter.className = "gutter";
    this.gutter.setAttribute("aria-hidden", "true");
    this.area = document.createElement("textarea");
    this.area.spellcheck = false;
    this.area.placeholder = placeholder;
    this.area.setAttribute("aria-label", name);
    this.area.wrap = "off";
    host.append(this.gutter, this.area);
    this.bad = 0;
    this.area.addEventListener("input", () => { this.bad = 0; this.drawGutter(); });
    this.area.addEventListener("scroll", () => { this.gutter.scrollTop = this.area.scrollTop; });
    this.area.addEventListener("keydown", (ev) => {
      if (ev.key === "Tab" && !ev.shiftKey && !ev.ctrlKey && !ev.metaKey) {
        ev.preventDefault();
        document.execCommand("insertText", false, "\t");
      }
    });
    this.drawGutter();
  }

  get value() { return this.area.value; }

  set value(text) {
    this.area.value = text;
    this.bad = 0;
    this.drawGutter();
    this.area.scrollTop = 0;
  }

  onInput(fn) { this.area.addEventListener("input", fn); }

  drawGutter() {
    const n = Math.max(1, this.area.value.split("\n").length);
    this.gutter.replaceChildren();
    for (let i = 1; i <= n; i++) {
      const line = document.createElement("span");
      line.textContent = String(i);
      if (i === this.bad) line.className = "bad";
      this.gutter.append(line, document.createTextNode("\n"));
    }
    this.gutter.scrollTop = this.area.scrollTop;
  }

  // Mark line `line` (1-based) as the error's, and select it (column `col`).
  mark(line, col = 1) {
    const lines = this.area.value.split("\n");
    if (!(line >= 1 && line <= lines.length)) return;
    this.bad = line;
    this.drawGutter();
    let start = 0;
    for (let i = 0; i < line - 1; i++) start += lines[i].length + 1;
    const at = start + Math.max(0, Math.min(col - 1, lines[line - 1].length));
    this.area.focus({ preventScroll: true });
    this.area.setSelectionRange(at, start + lines[line - 1].length);
    const lineHeight = parseFloat(getComputedStyle(this.area).lineHeight) || 18;
    this.area.scrollTop = Math.max(0, (line - 4) * lineHeight);
  }

  clearMark() { if (this.bad) { this.bad = 0; this.drawGutter(); } }
}
