// A picture viewer: the SVG pictures of executions as they arrive, one at a time, with a
// filter by final state (or candidate) and previous/next (also the arrow keys).

const SVG_NS = "http://www.w3.org/2000/svg";

// The <svg> of Graphviz's text, made inert: no scripts, no foreign content, no handlers.
export function inertSvg(text) {
  const doc = new DOMParser().parseFromString(text, "image/svg+xml");
  const svg = doc.documentElement;
  if (!svg || svg.namespaceURI !== SVG_NS || doc.querySelector("parsererror")) return null;
  for (const bad of svg.querySelectorAll("script, foreignObject, iframe")) bad.remove();
  for (const el of [svg, ...svg.querySelectorAll("*")]) {
    for (const attr of [...el.attributes]) {
      const value = attr.value.trim().toLowerCase();
      if (attr.name.toLowerCase().startsWith("on") || value.startsWith("javascript:")) el.removeAttribute(attr.name);
    }
  }
  return document.importNode(svg, true);
}

export class Viewer {
  constructor(card, title) {
    this.card = card;
    this.title = title;
    this.items = [];
    this.filter = "";
    this.position = 0;
    this.expected = 0;
    this.build();
    card.addEventListener("keydown", (ev) => {
      if (ev.target.tagName === "SELECT") return;
      if (ev.key === "ArrowLeft") { this.step(-1); ev.preventDefault(); }
      if (ev.key === "ArrowRight") { this.step(1); ev.preventDefault(); }
    });
  }

  build() {
    const bar = document.createElement("div");
    bar.className = "viewer-bar";
    const h = document.createElement("h2");
    h.textContent = this.title;
    this.select = document.createElement("select");
    this.select.setAttribute("aria-label", "which pictures");
    this.select.addEventListener("change", () => this.setFilter(this.select.value));
    this.prev = document.createElement("button");
    this.prev.textContent = "◀ Prev";
    this.prev.addEventListener("click", () => this.step(-1));
    this.count = document.createElement("span");
    this.count.className = "count";
    this.next = document.createElement("button");
    this.next.textContent = "Next ▶";
    this.next.addEventListener("click", () => this.step(1));
    this.zoom = document.createElement("button");
    this.zoom.className = "link";
    this.zoom.textContent = "actual size";
    this.zoom.addEventListener("click", () => {
      const actual = this.frame.classList.toggle("actual");
      this.zoom.textContent = actual ? "fit width" : "actual size";
    });
    bar.append(h, this.select, this.prev, this.count, this.next, this.zoom);
    this.caption = document.createElement("div");
    this.caption.className = "viewer-caption";
    this.frame = document.createElement("div");
    this.frame.className = "picture";
    this.frame.tabIndex = 0;
    this.card.replaceChildren(bar, this.caption, this.frame);
  }

  reset(expected = 0) {
    this.items = [];
    this.filter = "";
    this.position = 0;
    this.expected = expected;
    this.redraw();
  }

  expect(total) { this.expected = total; this.redraw(); }

  add(item) {
    this.items.push(item);
    this.card.classList.remove("hidden");
    if (this.visible().length === 1) this.position = 0;
    this.redraw();
  }

  visible() { return this.filter ? this.items.filter((p) => p.state === this.filter) : this.items; }

  setFilter(state) {
    this.filter = state;
    this.position = 0;
    this.redraw();
  }

  step(delta) {
    const n = this.visible().length;
    if (!n) return;
    this.position = (this.position + delta + n) % n;
    this.redraw();
  }

  redraw() {
    // the filter's choices: every state, with how many pictures each has
    const counts = new Map();
    for (const p of this.items) counts.set(p.state, (counts.get(p.state) || 0) + 1);
    const choices = [["", `all (${this.items.length}${this.expected > this.items.length ? ` of ${this.expected}` : ""})`]];
    for (const [state, n] of counts) choices.push([state, `${state || "(no state)"} (${n})`]);
    this.select.replaceChildren(...choices.map(([value, label]) => {
      const o = document.createElement("option");
      o.value = value;
      o.textContent = label;
      return o;
    }));
    this.select.value = counts.has(this.filter) ? this.filter : "";
    const shown = this.visible();
    const n = shown.length;
    this.prev.disabled = this.next.disabled = n < 2;
    if (!n) {
      this.count.textContent = "";
      this.caption.textContent = "";
      this.frame.classList.add("empty");
      this.frame.textContent = this.expected ? "drawing…" : "no picture";
      return;
    }
    const item = shown[Math.min(this.position, n - 1)];
    this.count.textContent = `${this.position + 1} of ${n}`;
    this.caption.textContent = item.caption || item.state || "";
    this.frame.classList.remove("empty");
    if (!item.node) item.node = inertSvg(item.svg);
    if (item.node) {
      item.node.setAttribute("role", "img");
      item.node.setAttribute("aria-label", `${this.title}: ${item.caption || item.state || ""}`);
      this.frame.replaceChildren(item.node);
    } else {
      this.frame.textContent = "this picture cannot be shown";
    }
  }
}
