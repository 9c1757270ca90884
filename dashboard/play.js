// eddy's player page: plays a download at its offline URL (play.html?download=ID) or any URL
// through eddy (play.html?url=URL), in a plain <video>. Browsers that play HLS natively (Safari;
// Chromium, as Debian's 156 does) pick the audio and subtitle renditions of the download's playlist
// themselves. The media comes from eddy's proxy listener, another origin than this page: a
// <video> may play cross-origin media without CORS, so nothing here reads the media's bytes.
// Built into the binary as it is, as the dashboard is.
"use strict";

const token = new URLSearchParams(location.hash.slice(1)).get("token");
const auth = token ? { Authorization: "Bearer " + token } : {};
const query = new URLSearchParams(location.search);
const video = document.getElementById("video");

function setStatus(text, state) {
  const s = document.getElementById("status");
  s.textContent = text;
  s.dataset.state = state || "";
  s.className = "status" + (state === "playing" ? " live" : "");
}

async function api(path) {
  const r = await fetch(path, { headers: auth });
  const body = await r.json().catch(() => ({}));
  if (!r.ok) throw new Error(path + ": " + (body.error || r.status));
  return body;
}

// Where eddy's proxy listener is, for a URL that names the origin rather than eddy: the URL-prefix
// form (eddy's own base, then the URL), which eddy fetches when the host is allowed.
async function throughEddy(url) {
  const cache = await api("/api/cache");
  const base = (cache.proxy_url || "").replace(/\/$/, "");
  if (!base || url.startsWith(base + "/")) return url;
  return base + "/" + url;
}

function play(src, title) {
  document.getElementById("title").textContent = title || src;
  document.getElementById("source").textContent = src;
  document.getElementById("url").value = src;
  video.src = src;
  setStatus("loading", "loading");
  // Browsers refuse to start sound without a gesture (autoplay policy): start muted then, as
  // players do, and let the controls unmute.
  video.play().catch(() => { video.muted = true; return video.play(); }).catch(() => setStatus("press play", "paused"));
}

video.addEventListener("playing", () => setStatus("playing", "playing"));
video.addEventListener("pause", () => setStatus("paused", "paused"));
video.addEventListener("error", () => {
  const e = video.error;
  setStatus("media error " + (e ? e.code + (e.message ? ": " + e.message : "") : ""), "error");
});

document.getElementById("home").href = "/" + location.hash;
document.getElementById("open").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  try {
    play(await throughEddy(document.getElementById("url").value.trim()));
  } catch (e) {
    setStatus(String(e.message || e), "error");
  }
});

(async () => {
  try {
    if (query.get("download")) {
      const d = await api("/api/downloads/" + encodeURIComponent(query.get("download")));
      if (!d.offline_url) throw new Error("this download has no offline URL yet (" + d.state + ")");
      play(d.offline_url, d.title || d.url);
    } else if (query.get("url")) {
      play(await throughEddy(query.get("url")));
    }
  } catch (e) {
    setStatus(String(e.message || e), "error");
  }
})();
