// Jobs on the server: POST /api/jobs streams the job's events back as JSON lines; the
// job stops when it is done, cancelled (DELETE /api/jobs/ID) or the stream is dropped.

export class Job {
  constructor(request, onEvent) {
    this.request = request;
    this.onEvent = onEvent;
    this.id = null;
    this.abort = new AbortController();
    this.finished = false;
    this.failed = false;
  }

  async run() {
    let response;
    try {
      response = await fetch("/api/jobs", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(this.request),
        signal: this.abort.signal,
      });
    } catch (err) {
      this.finish({ type: "error", message: this.abort.signal.aborted ? "cancelled" : `the server cannot be reached (${err.message})` });
      return;
    }
    if (!response.ok) {
      let message = `the server refused the job (${response.status})`;
      try { message = (await response.json()).error || message; } catch { /* keep it */ }
      this.finish({ type: "error", message });
      return;
    }
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        let nl;
        while ((nl = buffer.indexOf("\n")) >= 0) {
          const line = buffer.slice(0, nl);
          buffer = buffer.slice(nl + 1);
          if (line.trim()) this.deliver(JSON.parse(line));
        }
      }
    } catch (err) {
      if (!this.finished) this.finish({ type: "error", message: this.abort.signal.aborted ? "cancelled" : `the stream broke (${err.message})` });
      return;
    }
    // a stream that ends without "done": its last error said why, else say so
    if (!this.finished) this.finish(this.failed ? null : { type: "error", message: "the server ended the job without a result" });
  }

  deliver(event) {
    if (this.finished) return;
    if (event.type === "job") this.id = event.id;
    if (event.type === "done") { this.finish(event); return; }
    if (event.type === "error") this.failed = true;
    this.onEvent(event);
  }

  finish(event) {
    if (this.finished) return;
    this.finished = true;
    if (event) this.onEvent(event);
    this.onEvent({ type: "end" });
  }

  async cancel() {
    if (this.finished) return;
    if (this.id) {
      try { await fetch(`/api/jobs/${encodeURIComponent(this.id)}`, { method: "DELETE" }); } catch { /* dropped below */ }
    }
    this.abort.abort();
    this.finish({ type: "error", message: "cancelled" });
  }
}
