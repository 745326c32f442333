// SPDX-License-Identifier: Apache-2.0
// The report page's first script: error reporting, formatting, drawing helpers, and the model the
// other scripts draw (tracks of spans, memory samples) read from the embedded trace.
"use strict";

// Errors first, so that a failure anywhere below lands in #errors and in body's data-rendered,
// which a headless browser reads back.
const errorsElement = document.getElementById("errors");
function reportError(message) {
  errorsElement.textContent += message + "\n";
  document.body.dataset.rendered = "error: " + message;
}
window.onerror = (message, source, line, column, error) => {
  reportError(error && error.stack ? String(error.stack)
                                   : `${message} (${source}:${line}:${column})`);
};
window.addEventListener("unhandledrejection", (event) => reportError(String(event.reason)));

// SVG's namespace as the HTML parser gives it: the page spells out no URL at all, so that a test
// can check that it refers to nothing outside itself.
const SVG_NS = (() => {
  const probe = document.createElement("div");
  probe.innerHTML = "<svg></svg>";
  return probe.firstChild.namespaceURI;
})();

/// An SVG element with the given attributes.
function svgElement(name, attributes = {}) {
  const element = document.createElementNS(SVG_NS, name);
  for (const [key, value] of Object.entries(attributes))
    element.setAttribute(key, String(value));
  return element;
}

/// An HTML element whose text is `text` (never parsed as markup: trace strings come from users).
function htmlElement(name, text, className) {
  const element = document.createElement(name);
  if (text !== undefined)
    element.textContent = text;
  if (className)
    element.className = className;
  return element;
}

/// Adds an SVG <title> (the tooltip) to `element`.
function addTitle(element, text) {
  const title = svgElement("title");
  title.textContent = text;
  element.appendChild(title);
  return element;
}

// ---- Formatting

/// A duration given in microseconds.
function formatDuration(us) {
  if (!Number.isFinite(us))
    return "?";
  const a = Math.abs(us);
  if (a < 1)
    return `${(us * 1000).toPrecision(3)} ns`;
  if (a < 1000)
    return `${us.toPrecision(3)} µs`;
  if (a < 1e6)
    return `${(us / 1000).toPrecision(3)} ms`;
  return `${(us / 1e6).toPrecision(4)} s`;
}

/// Three significant digits, or as many as the integer part has.
function threeDigits(value) {
  return value < 9.995 ? value.toFixed(2) : value < 99.95 ? value.toFixed(1) : value.toFixed(0);
}

/// Bytes in decimal units, as the progress bar writes them.
function formatBytes(bytes) {
  if (!Number.isFinite(bytes) || bytes < 0)
    return "?";
  const units = ["B", "kB", "MB", "GB", "TB", "PB"];
  let unit = 0;
  while (bytes >= 999.5 && unit < units.length - 1) {
    bytes /= 1000;
    ++unit;
  }
  if (unit === 0)
    return `${Math.round(bytes)} B`;
  return `${threeDigits(bytes)} ${units[unit]}`;
}

/// A rate in bytes per second, in GB/s (MB/s below 1 GB/s).
function formatRate(bytesPerSecond) {
  if (!Number.isFinite(bytesPerSecond))
    return "?";
  const [value, unit] = bytesPerSecond >= 1e9 ? [bytesPerSecond / 1e9, "GB/s"]
                                              : [bytesPerSecond / 1e6, "MB/s"];
  return `${threeDigits(value)} ${unit}`;
}

/// Round ticks (1, 2 or 5 times a power of ten) covering [lo, hi], about `count` of them.
function niceTicks(lo, hi, count) {
  const span = hi - lo;
  if (!(span > 0) || count < 1)
    return {step: 1, ticks: [lo]};
  const raw = span / count;
  const power = Math.pow(10, Math.floor(Math.log10(raw)));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw);
  const ticks = [];
  for (let t = Math.ceil(lo / step) * step; t <= hi + step * 1e-9; t += step)
    ticks.push(t);
  return {step, ticks};
}

/// A formatter of axis times (µs since the trace began) with the unit and digits `step` needs.
function timeTickFormat(step) {
  const [scale, unit] = step >= 1e6 ? [1e6, "s"] : step >= 1000 ? [1000, "ms"] : [1, "µs"];
  const digits = Math.max(0, Math.min(6, -Math.floor(Math.log10(step / scale) + 1e-9)));
  return (t) => `${(t / scale).toFixed(digits)} ${unit}`;
}

// ---- Colours

const PALETTE = ["#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1",
                 "#ff9da7", "#9c755f", "#2f6690", "#8cd17d", "#b6992d", "#499894", "#d37295",
                 "#86bcb6", "#a0cbe8"];
const CATEGORY_COLORS = {wait: "#dcdcdc", plan: "#9e9e9e", compile: "#5d4037", other: "#bdbdbd"};

/// What a span's colour follows: its program (tasks), its name (kernels, copies) or its category.
function colorKey(category, name) {
  if (category === "task" || category === "kernel" || category === "copy")
    return `${category}: ${name}`;
  return category in CATEGORY_COLORS ? category : "other";
}

// ---- The model

/// The embedded trace's events and extra data (the format of runtime::Trace, or a bare array).
function loadTrace() {
  const parsed = JSON.parse(document.getElementById("trace").textContent);
  if (Array.isArray(parsed))
    return {events: parsed, other: {}};
  return {events: Array.isArray(parsed.traceEvents) ? parsed.traceEvents : [],
          other: parsed.otherData && typeof parsed.otherData === "object" ? parsed.otherData : {}};
}

function trackOf(tracks, pid, tid) {
  const key = `${pid}:${tid}`;
  let track = tracks.get(key);
  if (!track) {
    track = {key, pid, tid, name: "", sortIndex: 0, spans: [], lanes: 1};
    tracks.set(key, track);
  }
  return track;
}

/// Spans from "X" events, and from "B"/"E" pairs, which nest per track.
function collectSpans(events, tracks) {
  const open = new Map();
  for (const e of events) {
    if (!e || typeof e.ts !== "number")
      continue;
    const track = trackOf(tracks, e.pid, e.tid);
    const span = {ts: e.ts, dur: e.dur, name: String(e.name ?? ""), cat: String(e.cat ?? ""),
                  args: e.args && typeof e.args === "object" ? e.args : {}, lane: 0};
    if (e.ph === "X" && typeof e.dur === "number") {
      track.spans.push(span);
    } else if (e.ph === "B") {
      if (!open.has(track.key))
        open.set(track.key, []);
      open.get(track.key).push(span);
    } else if (e.ph === "E") {
      const begun = open.get(track.key)?.pop();
      if (begun) {
        begun.dur = e.ts - begun.ts;
        track.spans.push(begun);
      }
    }
  }
}

/// Gives each span of a track its nesting depth (its lane; deeper ones share the last lane).
function assignLanes(track) {
  const maxLanes = 4;
  track.spans.sort((a, b) => a.ts - b.ts || b.dur - a.dur);
  const ends = [];
  for (const span of track.spans) {
    while (ends.length && ends[ends.length - 1] <= span.ts)
      ends.pop();
    span.lane = Math.min(ends.length, maxLanes - 1);
    ends.push(span.ts + span.dur);
    track.lanes = Math.max(track.lanes, span.lane + 1);
  }
}

/// Colours by total time, so that the programs that matter get the clearest colours.
function assignColors(tracks) {
  const totals = new Map();
  for (const track of tracks)
    for (const span of track.spans) {
      span.key = colorKey(span.cat, span.name);
      totals.set(span.key, (totals.get(span.key) || 0) + span.dur);
    }
  const colors = new Map();
  const keys = [...totals.keys()].sort((a, b) => totals.get(b) - totals.get(a));
  let next = 0;
  for (const key of keys)
    colors.set(key, CATEGORY_COLORS[key] || PALETTE[next++ % PALETTE.length]);
  return {colors, totals, keys};
}

/// Everything the page draws, from the trace.
function buildModel(trace) {
  const tracks = new Map();
  const processNames = new Map();
  const memory = [];
  for (const e of trace.events) {
    if (!e || typeof e !== "object")
      continue;
    if (e.ph === "M" && e.args && e.args.name !== undefined) {
      if (e.name === "process_name")
        processNames.set(e.pid, String(e.args.name));
      else if (e.name === "thread_name")
        trackOf(tracks, e.pid, e.tid).name = String(e.args.name);
    } else if (e.ph === "M" && e.name === "thread_sort_index" && e.args) {
      trackOf(tracks, e.pid, e.tid).sortIndex = Number(e.args.sort_index) || 0;
    } else if (e.ph === "C" && e.name === "memory" && typeof e.ts === "number" && e.args) {
      memory.push({ts: e.ts, values: e.args});
    }
  }
  collectSpans(trace.events, tracks);
  const list = [...tracks.values()].filter((t) => t.spans.length > 0);
  list.sort((a, b) => a.pid - b.pid || a.sortIndex - b.sortIndex || a.tid - b.tid);
  for (const track of list) {
    assignLanes(track);
    if (!track.name)
      track.name = `${processNames.get(track.pid) || "process " + track.pid} · ` +
                   `thread ${track.tid}`;
  }
  memory.sort((a, b) => a.ts - b.ts);

  let t0 = Infinity, t1 = -Infinity;
  for (const track of list)
    for (const span of track.spans) {
      t0 = Math.min(t0, span.ts);
      t1 = Math.max(t1, span.ts + span.dur);
    }
  for (const sample of memory) {
    t0 = Math.min(t0, sample.ts);
    t1 = Math.max(t1, sample.ts);
  }
  if (!Number.isFinite(t0))
    t0 = t1 = 0;
  return {tracks: list, processNames, memory, t0, t1, other: trace.other, ...assignColors(list)};
}

/// The page's other input (copy rate and its label), written by render_report.
function loadInput() {
  return JSON.parse(document.getElementById("report-input").textContent);
}
