// SPDX-License-Identifier: Apache-2.0
// The task stream: a row per track (host workers, GPU streams) with a rectangle per span on a
// shared time axis, and zooming by dragging across it.

const STREAM = {labelWidth: 200, laneHeight: 14, trackGap: 5, axisHeight: 24, minRectPx: 3,
                rightMargin: 36};

/// Maps times (µs) in `range` onto [left, left + width] pixels, and back.
function timeScale(range, left, width) {
  const span = Math.max(range.t1 - range.t0, 1e-3);
  return {t0: range.t0, t1: range.t0 + span, left, width,
          x: (t) => left + (t - range.t0) / span * width,
          t: (x) => range.t0 + (x - left) / width * span};
}

/// Vertical grid lines and their labels, as times since `origin`.
function drawTimeAxis(svg, scale, origin, gridTop, gridBottom, labelY) {
  const group = svgElement("g", {class: "axis"});
  const count = Math.max(2, Math.floor(scale.width / 110));
  const {step, ticks} = niceTicks(scale.t0 - origin, scale.t1 - origin, count);
  const format = timeTickFormat(step);
  for (const t of ticks) {
    const x = scale.x(t + origin).toFixed(1);
    group.appendChild(svgElement("line", {class: "grid", x1: x, x2: x, y1: gridTop,
                                          y2: gridBottom}));
    const label = svgElement("text", {x, y: labelY, "text-anchor": "middle"});
    label.textContent = format(t);
    group.appendChild(label);
  }
  svg.appendChild(group);
}

/// The colours of the stream, heaviest first.
function drawLegend(model, container) {
  container.replaceChildren();
  const limit = 24;
  for (const key of model.keys.slice(0, limit)) {
    const item = htmlElement("span");
    const swatch = htmlElement("span", undefined, "swatch");
    swatch.style.background = model.colors.get(key);
    const total = formatDuration(model.totals.get(key));
    item.append(swatch, document.createTextNode(`${key} (${total})`));
    container.appendChild(item);
  }
  if (model.keys.length > limit)
    container.appendChild(htmlElement("span", `… and ${model.keys.length - limit} more`));
}

/// The tooltip of one span.
function spanTooltip(span, origin) {
  const when = `${formatDuration(span.dur)} · at ${formatDuration(span.ts - origin)}`;
  const lines = [span.name, `${span.cat} · ${when}`];
  const a = span.args;
  if (a.block !== undefined)
    lines.push(`block ${a.block}`);
  if (a.kind !== undefined)
    lines.push(`kind ${a.kind}`);
  if (typeof a.bytes === "number")
    lines.push(`bytes ${formatBytes(a.bytes)}`);
  if (a.task !== undefined)
    lines.push(`task ${a.task} of plan ${a.plan ?? "?"}`);
  return lines.join("\n");
}

/// A row's stripe and its label.
function drawTrackFrame(svg, row, width, index) {
  const {track, top, height} = row;
  svg.appendChild(svgElement("rect", {x: 0, y: top - 2, width, height: height + 4,
                                      fill: index % 2 ? "#ffffff" : "#f6f8fa"}));
  const name = track.name.length > 30 ? track.name.slice(0, 29) + "…" : track.name;
  const label = svgElement("text", {x: 6, y: top + STREAM.laneHeight - 3});
  label.textContent = name;
  svg.appendChild(addTitle(label, track.name));
}

/// Adds `span`'s time, between pixels x0 and x1, to the pixel columns of its lane.
function addToColumns(columns, span, x0, x1) {
  for (let c = Math.floor(x0); c <= Math.floor(x1); ++c) {
    const share = Math.min(x1, c + 1) - Math.max(x0, c);
    if (share <= 0 && x1 > x0)
      continue;
    const column = columns.get(c) || new Map();
    column.set(span.key, (column.get(span.key) || 0) + Math.max(share, 1e-6));
    columns.set(c, column);
  }
}

/// Path data per colour for a lane's narrow spans: each pixel column takes the colour of the
/// spans that fill most of it, and runs of columns of one colour make one rectangle.
function columnPaths(columns, y, h, paths) {
  const order = [...columns.keys()].sort((a, b) => a - b);
  let run = null;
  const flush = () => {
    if (run) {
      const w = run.c1 - run.c0;
      paths.set(run.key, (paths.get(run.key) || "") + `M${run.c0} ${y}h${w}v${h}h-${w}z`);
    }
  };
  for (const c of order) {
    let key = null;
    let most = -1;
    for (const [k, weight] of columns.get(c))
      if (weight > most)
        [key, most] = [k, weight];
    if (run && run.key === key && run.c1 === c) {
      run.c1 = c + 1;
    } else {
      flush();
      run = {key, c0: c, c1: c + 1};
    }
  }
  flush();
}

/// A row's spans. Spans at least minRectPx wide are rectangles with their own tooltip. Narrower
/// ones, which a run of 100k tasks has by the thousand, are drawn per pixel column in the colour
/// that takes most of the column, as one path per colour: the page stays light whatever the
/// task count, and a column shows what mostly ran there rather than whichever span came last.
function drawTrackSpans(svg, model, row, scale) {
  const group = svgElement("g");
  const lanes = new Map();
  const narrow = new Map();
  const h = STREAM.laneHeight - 2;
  for (const span of row.track.spans) {
    const end = span.ts + span.dur;
    if (end < scale.t0 || span.ts > scale.t1)
      continue;
    const x0 = scale.x(Math.max(span.ts, scale.t0));
    const x1 = scale.x(Math.min(end, scale.t1));
    const y = row.top + span.lane * STREAM.laneHeight + 1;
    if (x1 - x0 >= STREAM.minRectPx) {
      const rect = svgElement("rect", {class: "span", x: x0.toFixed(1), y,
                                       width: (x1 - x0).toFixed(1), height: h,
                                       fill: model.colors.get(span.key)});
      group.appendChild(addTitle(rect, spanTooltip(span, model.t0)));
      continue;
    }
    if (!lanes.has(y))
      lanes.set(y, new Map());
    addToColumns(lanes.get(y), span, x0, x1);
    const n = narrow.get(span.key) || {count: 0, dur: 0};
    narrow.set(span.key, {count: n.count + 1, dur: n.dur + span.dur});
  }
  const paths = new Map();
  for (const [y, columns] of lanes)
    columnPaths(columns, y, h, paths);
  for (const [key, d] of paths) {
    const path = svgElement("path", {class: "span merged", d, fill: model.colors.get(key)});
    const n = narrow.get(key);
    addTitle(path, `${key}\n${n.count} spans under ${STREAM.minRectPx} px wide ` +
                   `(${formatDuration(n.dur)} in all), drawn per pixel in the colour that ` +
                   "takes most of it\nDrag across the stream to zoom in.");
    group.insertBefore(path, group.firstChild);
  }
  svg.appendChild(group);
}

/// Dragging across the stream zooms both charts to the time range dragged over.
function addZoom(svg, scale, top, bottom, onZoom) {
  const selection = svgElement("rect", {class: "selection", x: 0, y: top, width: 0,
                                        height: bottom - top, visibility: "hidden"});
  svg.appendChild(selection);
  const clampedX = (event) => {
    const x = event.clientX - svg.getBoundingClientRect().left;
    return Math.min(Math.max(x, scale.left), scale.left + scale.width);
  };
  let start = null;
  svg.addEventListener("pointerdown", (event) => {
    start = clampedX(event);
    svg.setPointerCapture(event.pointerId);
  });
  svg.addEventListener("pointermove", (event) => {
    if (start === null)
      return;
    const x = clampedX(event);
    selection.setAttribute("x", Math.min(x, start));
    selection.setAttribute("width", Math.abs(x - start));
    selection.setAttribute("visibility", "visible");
  });
  svg.addEventListener("pointerup", (event) => {
    if (start === null)
      return;
    const [a, b] = [start, clampedX(event)].sort((p, q) => p - q);
    start = null;
    selection.setAttribute("visibility", "hidden");
    if (b - a >= 4)
      onZoom({t0: scale.t(a), t1: scale.t(b)});
  });
}

/// The task stream of `state.range`, into #stream.
function drawStream(model, state, onZoom) {
  const container = document.getElementById("stream");
  container.replaceChildren();
  if (model.tracks.length === 0) {
    container.appendChild(htmlElement("p", "The trace has no spans.", "note"));
    return;
  }
  const width = Math.max(600, container.clientWidth || 1200);
  const scale = timeScale(state.range, STREAM.labelWidth,
                          width - STREAM.labelWidth - STREAM.rightMargin);
  const rows = [];
  let y = STREAM.axisHeight;
  for (const track of model.tracks) {
    const height = track.lanes * STREAM.laneHeight;
    rows.push({track, top: y, height});
    y += height + STREAM.trackGap;
  }
  const svg = svgElement("svg", {id: "stream-svg", width, height: y, role: "img"});
  rows.forEach((row, index) => drawTrackFrame(svg, row, width, index));
  drawTimeAxis(svg, scale, model.t0, STREAM.axisHeight - 6, y, 12);
  for (const row of rows)
    drawTrackSpans(svg, model, row, scale);
  addZoom(svg, scale, STREAM.axisHeight - 6, y, onZoom);
  container.appendChild(svg);
}
