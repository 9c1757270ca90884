// eddy's dashboard: one server-sent event stream (/api/events, read with fetch so that a bearer
// token can go with it: put it in the address as #token=...), rendered into plain DOM. No
// framework, no build step: this file is built into the binary as it is.
"use strict";

const token = new URLSearchParams(location.hash.slice(1)).get("token");
const auth = token ? { Authorization: "Bearer " + token } : {};

function size(n) {
  const units = ["B", "KB", "MB", "GB", "TB"];
  let v = n, i = 0;
  while (v >= 1000 && i < units.length - 1) { v /= 1000; i++; }
  return i === 0 ? n + " B" : v.toFixed(1) + " " + units[i];
}

function pct(part, whole) { return whole > 0 ? Math.min(100, (100 * part) / whole) : 0; }

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") e.className = v;
    else if (k === "style") e.style.cssText = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const c of children) if (c !== null && c !== undefined) e.append(c);
  return e;
}

function bar(done, total, kind, title) {
  const value = pct(done, total);
  return el("div", { class: "bar " + kind, "data-value": value.toFixed(2), title: title },
    el("div", { class: "fill", style: "width:" + value + "%" }));
}

async function call(method, path) {
  const r = await fetch(path, { method: method, headers: auth });
  const body = await r.json().catch(() => ({}));
  if (!r.ok) setStatus(method + " " + path + ": " + (body.error || r.status));
  return body;
}

function setStatus(text, live) {
  const s = document.getElementById("status");
  s.textContent = text;
  s.className = "status" + (live ? " live" : "");
}

function renderCache(c) {
  document.getElementById("cache-used").style.width = pct(c.bytes, c.max_bytes || c.bytes) + "%";
  document.getElementById("cache-pinned").style.width = pct(c.pinned_bytes, c.max_bytes || c.bytes) + "%";
  document.getElementById("cache-text").textContent =
    size(c.bytes) + (c.max_bytes ? " of " + size(c.max_bytes) : " (no limit)") + ", " + size(c.pinned_bytes) + " pinned";
  const w = c.windows;
  document.getElementById("ratios").textContent =
    "hit ratio " + ["5m", "1h", "24h"].map((k) => k + " " + (100 * w[k].hit_ratio).toFixed(1) + "%").join(", ") +
    "; origin bytes saved in the last hour: " + size(w["1h"].origin_bytes_saved);
  const svg = document.getElementById("chart");
  const max = Math.max(1, ...c.series.map((m) => m.bytes_served));
  const bw = 600 / c.series.length;
  svg.replaceChildren();
  c.series.forEach((m, i) => {
    const hc = (110 * m.bytes_from_cache) / max, ho = (110 * (m.bytes_served - m.bytes_from_cache)) / max;
    const x = i * bw + 1, w = Math.max(1, bw - 2);
    for (const [cls, y, h] of [["fromcache", 120 - hc, hc], ["fromorigin", 120 - hc - ho, ho]]) {
      if (h <= 0) continue;
      const r = document.createElementNS("http://www.w3.org/2000/svg", "rect");
      r.setAttribute("class", cls);
      r.setAttribute("x", x); r.setAttribute("y", y); r.setAttribute("width", w); r.setAttribute("height", h);
      svg.append(r);
    }
  });
}

// Artwork, read once per download with the token (an <img src> could not send it) and shown as
// a data: URL (the page's policy allows images from 'self' and data: only).
const artworks = new Map();
function artwork(d) {
  const img = el("img", { class: "artwork", alt: "" });
  if (!d.artwork) return null;
  const known = artworks.get(d.id);
  if (typeof known === "string") { img.src = known; return img; }
  if (!known) {
    artworks.set(d.id, fetch(d.artwork, { headers: auth }).then((r) => r.ok ? r.blob() : null).then((b) => b && new Promise((ok) => {
      const reader = new FileReader();
      reader.onload = () => ok(reader.result);
      reader.readAsDataURL(b);
    })).then((url) => {
      artworks.set(d.id, url || "");
      for (const i of document.querySelectorAll('.download[data-id="' + d.id + '"] img.artwork')) if (url) i.src = url;
    }));
  }
  return img;
}

function renderDownloads(list) {
  const box = document.getElementById("downloads");
  if (!list.length) return box.replaceChildren(el("p", { class: "empty" }, "No downloads."));
  box.replaceChildren(...list.map((d) => {
    const active = ["running", "queued", "scheduled", "waiting-for-origin", "waiting-for-space"].includes(d.state);
    const grid = el("div", { class: "renditions" });
    for (const r of d.renditions) {
      const label = [r.type, r.language, r.name].filter(Boolean).join(" ");
      grid.append(
        el("span", { class: "label" }, label),
        bar(r.bytes_done, r.bytes_expected, "bytes", size(r.bytes_done) + " of " + size(r.bytes_expected)),
        bar(r.media_seconds_done, r.media_seconds_total, "media", r.media_seconds_done.toFixed(0) + " s of " + r.media_seconds_total.toFixed(0) + " s"),
        el("span", { class: "numbers" }, size(r.bytes_done) + ", " + r.media_seconds_done.toFixed(0) + "/" + r.media_seconds_total.toFixed(0) + " s"));
    }
    return el("div", { class: "download", "data-id": d.id, "data-state": d.state, "data-bytes-done": d.bytes_done },
      el("div", { class: "row" },
        artwork(d),
        el("span", { class: "title" }, d.title || d.url),
        el("span", { class: "state " + d.state }, d.state),
        d.window ? el("span", { class: "window" }, "window " + d.window +
          (d.next_start ? ", next " + new Date(d.next_start * 1000).toLocaleString() : "")) : null,
        d.rate_limit ? el("span", { class: "cap" }, "cap " + size(d.rate_limit) + "/s") : null,
        el("span", { class: "numbers" }, size(d.bytes_done) + (d.rate > 0 ? " at " + size(d.rate) + "/s" : "")),
        d.offline_url ? el("a", { class: "play", href: "/play.html?download=" + encodeURIComponent(d.id) + location.hash,
          title: "play " + (d.playable_offline ? "from the cache, offline" : "what is held so far, the rest through eddy") }, "Play") : null,
        active ? el("button", { class: "pause", onclick: () => call("POST", "/api/downloads/" + d.id + "/pause") }, "Pause") : null,
        ["paused", "failed"].includes(d.state) ? el("button", { class: "resume", onclick: () => call("POST", "/api/downloads/" + d.id + "/resume") }, "Resume") : null,
        el("button", { class: "delete danger", onclick: () => call("DELETE", "/api/downloads/" + d.id) }, "Delete")),
      bar(d.bytes_done, d.bytes_expected, "bytes total", "all renditions"),
      grid);
  }));
}

function renderResources(list) {
  const box = document.getElementById("resources");
  if (!list.length) return box.replaceChildren(el("p", { class: "empty" }, "Nothing cached yet."));
  box.replaceChildren(...list.map((r) => {
    const length = r.length || (r.ranges.length ? r.ranges[r.ranges.length - 1][1] : 0);
    const map = el("div", { class: "rangemap", title: r.ranges.length + " cached ranges, " + r.holes.length + " holes" });
    for (const [a, b] of r.ranges) map.append(el("div", { class: "seg", style: "left:" + pct(a, length) + "%;width:" + pct(b - a, length) + "%" }));
    return el("div", { class: "resource", "data-key": r.key },
      el("div", { class: "row" },
        el("span", { class: "key" }, r.url),
        el("span", { class: "numbers" }, size(r.cached_bytes) + " of " + (r.length === null ? "?" : size(r.length)) + (r.pinned ? ", pinned" : "")),
        r.pinned ? null : el("button", { class: "purge danger", onclick: () => call("DELETE", "/api/resources/" + encodeURIComponent(r.key)) }, "Purge")),
      map);
  }));
}

function renderFills(list) {
  document.querySelector("#fills tbody").replaceChildren(...list.map((f) =>
    el("tr", {}, el("td", { class: "url" }, f.url), el("td", {}, size(f.bytes)), el("td", {}, size(f.rate) + "/s"), el("td", {}, String(f.waiting)))));
}

function render(s) {
  renderCache(s.cache);
  renderDownloads(s.downloads);
  renderResources(s.resources);
  renderFills(s.fills);
}

async function follow() {
  for (;;) {
    try {
      const r = await fetch("/api/events", { headers: auth });
      if (!r.ok) { setStatus("the admin API answered " + r.status + (r.status === 401 ? ": add #token=... to the address" : "")); }
      else {
        setStatus("live", true);
        const reader = r.body.getReader();
        const decoder = new TextDecoder();
        let buffer = "";
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += decoder.decode(value, { stream: true });
          let end;
          while ((end = buffer.indexOf("\n\n")) >= 0) {
            const event = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const data = event.split("\n").filter((l) => l.startsWith("data: ")).map((l) => l.slice(6)).join("\n");
            if (data) render(JSON.parse(data));
          }
        }
      }
    } catch (e) {
      // eddy restarting or the network gone: try again below.
    }
    setStatus("reconnecting");
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

follow();
