// SPDX-License-Identifier: Apache-2.0
// The report page's last script: draws everything, then tells a headless browser how it went.

function main() {
  const model = buildModel(loadTrace());
  const input = loadInput();
  drawSummary(model);
  drawLegend(model, document.getElementById("stream-legend"));
  const whole = {t0: model.t0, t1: model.t1};
  const state = {range: whole};
  const reset = document.getElementById("reset-zoom");
  const redraw = () => {
    drawStream(model, state, (range) => {
      state.range = range;
      reset.hidden = false;
      redraw();
    });
    drawMemory(model, state.range);
  };
  reset.addEventListener("click", () => {
    state.range = whole;
    reset.hidden = true;
    redraw();
  });
  redraw();
  drawTable(model, input);
  let pending = 0;
  window.addEventListener("resize", () => {
    clearTimeout(pending);
    pending = setTimeout(redraw, 150);
  });
}

try {
  main();
  if (!errorsElement.textContent)
    document.body.dataset.rendered = "ok";
} catch (error) {
  reportError(error && error.stack ? String(error.stack) : String(error));
}
