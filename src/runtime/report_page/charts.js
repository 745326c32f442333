// SPDX-License-Identifier: Apache-2.0
// The summary line, the chart of memory over time and the table of time per block program.

const MEMORY_COLORS = {host: "#4e79a7", pinned: "#f28e2b", device: "#59a14f", spilled: "#e15759"};

/// The memory series with a non-zero sample: the four of runtime::Trace first, then any other.
function memorySeries(model) {
  const peaks = new Map();
  for (const sample of model.memory)
    for (const [name, value] of Object.entries(sample.values))
      peaks.set(name, Math.max(peaks.get(name) || 0, Number(value) || 0));
  const known = Object.keys(MEMORY_COLORS);
  const names = [...known.filter((n) => peaks.has(n)),
                 ...[...peaks.keys()].filter((n) => !known.includes(n)).sort()];
  return names.filter((name) => peaks.get(name) > 0)
      .map((name, i) => ({name, peak: peaks.get(name),
                          color: MEMORY_COLORS[name] || PALETTE[(i + 5) % PALETTE.length]}));
}

/// A series as a step line (a counter holds its value until the next sample). Samples less than
/// half a pixel apart share a column, drawn up to their largest value, so that a short peak
/// stays visible however many samples there are.
function stepPath(samples, name, scale, y, end) {
  const value = (sample) => Number(sample.values[name]) || 0;
  let i = 0;
  let level = 0;
  for (; i < samples.length && samples[i].ts < scale.t0; ++i)
    level = value(samples[i]);
  const columns = i > 0 ? [{x: scale.left, max: level, last: level}] : [];
  for (; i < samples.length && samples[i].ts <= scale.t1; ++i) {
    const x = scale.x(samples[i].ts);
    const v = value(samples[i]);
    const column = columns[columns.length - 1];
    if (column && x - column.x < 0.5) {
      column.max = Math.max(column.max, v);
      column.last = v;
    } else {
      columns.push({x, max: v, last: v});
    }
  }
  if (columns.length === 0)
    return "";
  const f = (n) => n.toFixed(1);
  let d = `M${f(columns[0].x)} ${f(y(columns[0].max))}V${f(y(columns[0].last))}`;
  for (const c of columns.slice(1))
    d += `H${f(c.x)}V${f(y(c.max))}V${f(y(c.last))}`;
  return d + `H${f(scale.x(Math.min(end, scale.t1)))}`;
}

/// Memory over time in `range`, into #memory, on the task stream's time axis.
function drawMemory(model, range) {
  const container = document.getElementById("memory");
  container.replaceChildren();
  const series = memorySeries(model);
  if (series.length === 0) {
    container.appendChild(htmlElement("p", "The trace has no memory samples above zero.", "note"));
    return;
  }
  const legend = htmlElement("div", undefined, "legend");
  for (const s of series) {
    const item = htmlElement("span");
    const swatch = htmlElement("span", undefined, "swatch");
    swatch.style.background = s.color;
    item.append(swatch, document.createTextNode(`${s.name} (peak ${formatBytes(s.peak)})`));
    legend.appendChild(item);
  }
  container.appendChild(legend);

  const width = Math.max(600, container.clientWidth || 1200);
  const height = 220;
  const [top, bottom] = [10, height - 24];
  const scale = timeScale(range, STREAM.labelWidth,
                          width - STREAM.labelWidth - STREAM.rightMargin);
  const peak = Math.max(...series.map((s) => s.peak));
  const {step, ticks} = niceTicks(0, peak, 4);
  const yMax = Math.max(peak, Math.ceil(peak / step) * step);
  const y = (v) => bottom - (v / yMax) * (bottom - top);
  const svg = svgElement("svg", {id: "memory-svg", width, height, role: "img"});
  const axis = svgElement("g", {class: "axis"});
  for (const v of ticks) {
    const at = y(v).toFixed(1);
    axis.appendChild(svgElement("line", {class: "grid", x1: scale.left,
                                         x2: scale.left + scale.width, y1: at, y2: at}));
    const label = svgElement("text", {x: scale.left - 6, y: y(v) + 4, "text-anchor": "end"});
    label.textContent = formatBytes(v);
    axis.appendChild(label);
  }
  svg.appendChild(axis);
  drawTimeAxis(svg, scale, model.t0, top, bottom, height - 6);
  for (const s of series) {
    const path = svgElement("path", {d: stepPath(model.memory, s.name, scale, y, model.t1),
                                     fill: "none", stroke: s.color, "stroke-width": 1.5});
    svg.appendChild(addTitle(path, `${s.name} memory, peak ${formatBytes(s.peak)}`));
  }
  container.appendChild(svg);
}

/// Spans of the given categories grouped by name, heaviest first.
function groupSpans(model, categories) {
  const groups = new Map();
  for (const track of model.tracks)
    for (const span of track.spans) {
      if (!categories.includes(span.cat))
        continue;
      let g = groups.get(span.key);
      if (!g) {
        g = {key: span.key, name: span.name, cat: span.cat, calls: 0, total: 0, bytes: 0};
        groups.set(span.key, g);
      }
      g.calls += 1;
      g.total += span.dur;
      const bytes = Number(span.args.bytes);
      if (Number.isFinite(bytes))
        g.bytes += bytes;
    }
  return [...groups.values()].sort((a, b) => b.total - a.total);
}

/// Per block program, the time its GPU kernels and copies kept the GPU busy: their spans (named
/// by args.program) merged across streams, in us. A program on a GPU reaches its rate there; its
/// host task only queues the work.
function gpuBusyByProgram(model) {
  const intervals = new Map();
  for (const track of model.tracks)
    for (const span of track.spans) {
      const program = span.args.program;
      if ((span.cat !== "kernel" && span.cat !== "copy") || typeof program !== "string")
        continue;
      if (!intervals.has(program))
        intervals.set(program, []);
      intervals.get(program).push([span.ts, span.ts + span.dur]);
    }
  const busy = new Map();
  for (const [program, list] of intervals) {
    list.sort((a, b) => a[0] - b[0]);
    let total = 0, [lo, hi] = list[0];
    for (const [a, b] of list.slice(1)) {
      if (a > hi) {
        total += hi - lo;
        [lo, hi] = [a, b];
      } else {
        hi = Math.max(hi, b);
      }
    }
    busy.set(program, total + hi - lo);
  }
  return busy;
}

/// One row of the table: the group's name with its colour, then the numbers.
function programRow(model, g, sectionTotal, copyRate) {
  const row = htmlElement("tr", undefined, "program");
  const name = htmlElement("td");
  const swatch = htmlElement("span", undefined, "swatch");
  swatch.style.background = model.colors.get(g.key);
  name.append(swatch, document.createTextNode(` ${g.name}`));
  if (g.cat !== "task")
    name.appendChild(htmlElement("span", ` (${g.cat})`, "note"));
  row.appendChild(name);
  const time = g.gpuBusy ?? g.total;
  const rate = g.bytes > 0 && time > 0 ? g.bytes / (time * 1e-6) : NaN;
  const cells = [String(g.calls), formatDuration(g.total), formatDuration(g.total / g.calls),
                 `${(100 * g.total / sectionTotal).toFixed(1)} %`,
                 g.bytes > 0 ? formatBytes(g.bytes) : "—",
                 Number.isFinite(rate) ? formatRate(rate) : "—"];
  if (copyRate > 0)
    cells.push(Number.isFinite(rate) ? `${(100 * rate / copyRate).toFixed(1)} %` : "—");
  for (const text of cells)
    row.appendChild(htmlElement("td", text, "num"));
  return row;
}

/// The table of time per block program (host tasks) and per GPU kernel or copy, into #programs.
function drawTable(model, input) {
  const table = document.getElementById("programs");
  table.replaceChildren();
  const copyRate = Number(input.copy_rate) > 0 ? Number(input.copy_rate) : 0;
  const headers = ["Program", "Calls", "Total time", "Mean time", "Share", "Bytes", "Rate"];
  if (copyRate > 0)
    headers.push("% of copy rate");
  const head = htmlElement("thead");
  const headRow = htmlElement("tr");
  headers.forEach((text, i) => headRow.appendChild(htmlElement("th", text, i ? "num" : "")));
  head.appendChild(headRow);
  table.appendChild(head);
  const sections = [["Block programs (host tasks)", ["task"]],
                    ["GPU kernels and copies", ["kernel", "copy"]]];
  let rows = 0;
  const busy = gpuBusyByProgram(model);
  for (const [title, categories] of sections) {
    const groups = groupSpans(model, categories);
    for (const g of groups)
      if (g.cat === "task" && busy.has(g.name))
        g.gpuBusy = busy.get(g.name);
    if (groups.length === 0)
      continue;
    const body = htmlElement("tbody");
    const sectionRow = htmlElement("tr", undefined, "section");
    const sectionHead = htmlElement("th", title);
    sectionHead.colSpan = headers.length;
    sectionRow.appendChild(sectionHead);
    body.appendChild(sectionRow);
    const total = groups.reduce((sum, g) => sum + g.total, 0) || 1;
    for (const g of groups)
      body.appendChild(programRow(model, g, total, copyRate));
    table.appendChild(body);
    rows += groups.length;
  }
  if (rows === 0)
    table.appendChild(htmlElement("caption", "The trace has no task, kernel or copy spans."));
  const note = document.getElementById("rate-note");
  note.textContent = "Share: of the section's time. Rate: bytes (of the values computed, or " +
                     "copied) per second of the program's time summed over its calls; for a " +
                     "program that ran on a GPU, per second of the time its kernels and copies " +
                     "kept the GPU busy (merged across streams). " +
                     (copyRate > 0 ? `Copy rate: ${formatRate(copyRate)} ` +
                                         `(${input.copy_rate_label || "copy rate"}).`
                                   : "The machine's copy rate is unknown.");
}

/// The summary under the title: wall time, task count, backend, tracks.
function drawSummary(model) {
  const summary = document.getElementById("summary");
  summary.replaceChildren();
  let tasks = 0;
  for (const track of model.tracks)
    for (const span of track.spans)
      tasks += span.cat === "task" ? 1 : 0;
  const gpuTracks = model.tracks.filter((t) => t.pid >= 100).length;
  const backend = model.other.backend || model.processNames.get(1) || "unknown";
  const stats = [["wall-time", "Wall time", formatDuration(model.t1 - model.t0)],
                 ["task-count", "Tasks", String(tasks)],
                 ["backend", "Backend", String(backend)],
                 ["host-tracks", "Host workers", String(model.tracks.length - gpuTracks)],
                 ["gpu-tracks", "GPU streams", String(gpuTracks)]];
  for (const [id, name, value] of stats) {
    const stat = htmlElement("span", name, "stat");
    const b = htmlElement("b", value);
    b.id = id;
    stat.appendChild(b);
    summary.appendChild(stat);
  }
}
