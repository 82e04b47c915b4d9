// Checks a page loaded in a frame of the width under test (check_report.py's harness page calls it
// once everything has loaded and writes the result where --dump-dom shows it): the layout at that
// width and the SVG plots. Console errors are read from Chromium's log by check_report.py. Nothing
// here writes to the console.
function triageCheckPage(win) {
  const document = win.document;
  const getComputedStyle = (el) => win.getComputedStyle(el);
  const problems = [];
  const add = (kind, text) => problems.push({kind, text});
  const describe = (el) => {
    let name = el.tagName.toLowerCase();
    if (el.id) name += "#" + el.id;
    if (el.classList && el.classList.length) name += "." + Array.from(el.classList).join(".");
    const text = (el.textContent || "").trim().replace(/\s+/g, " ").slice(0, 60);
    return text ? name + " \"" + text + "\"" : name;
  };

  // Errors the page raised before this script ran were caught by the listener injected in <head>.
  for (const e of win.__triagePageErrors || []) add("page-error", e);

  // Layout: open every <details> so collapsed content is measured too.
  document.querySelectorAll("details").forEach((d) => (d.open = true));
  const width = document.documentElement.clientWidth;
  if (document.documentElement.scrollWidth > width) {
    add("overflow", "the page is " + document.documentElement.scrollWidth + " px wide in a " + width + " px window");
  }
  const clipped = (el) => {
    for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
      if (getComputedStyle(p).overflowX !== "visible") return true;
    }
    return false;
  };
  let overflowing = 0;
  for (const el of document.body.querySelectorAll("*")) {
    if (el.closest("svg") && el.tagName.toLowerCase() !== "svg") continue;  // plots are checked below
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    const style = getComputedStyle(el);
    if (el.scrollWidth > el.clientWidth + 1 && el.clientWidth > 0 && style.overflowX === "visible" && !clipped(el)) {
      if (++overflowing <= 5) add("overflow", describe(el) + ": its content is " + el.scrollWidth + " px wide in " + el.clientWidth + " px");
      continue;
    }
    if ((r.right > width + 0.5 || r.left < -0.5) && !clipped(el)) {
      if (++overflowing <= 5) add("overflow", describe(el) + " spans " + Math.round(r.left) + ".." + Math.round(r.right) + " px");
    }
  }
  if (overflowing > 5) add("overflow", (overflowing - 5) + " more elements past the window's edge");

  // Labels a reader can read: a plot is scaled to the page, its text with it.
  const smallText = (svg, name) => {
    const box = svg.getBoundingClientRect();
    const scale = box.width / (svg.viewBox.baseVal.width || box.width);
    let smallest = Infinity;
    for (const t of svg.querySelectorAll("text")) smallest = Math.min(smallest, parseFloat(getComputedStyle(t).fontSize) * scale);
    if (smallest < 9) add("plot-text", name + ": labels drawn " + smallest.toFixed(1) + " px high (under 9 px)");
  };
  const inside = (el, box) => {
    const r = el.getBoundingClientRect();
    return r.left >= box.left - 1 && r.right <= box.right + 1 && r.top >= box.top - 1 && r.bottom <= box.bottom + 1;
  };

  // Per-layer bar charts (svg.layers): one bar per row the chart says it has, every bar and every
  // label inside the plot, the flagged layers marked, and a line for each threshold named.
  const barCharts = document.querySelectorAll("svg.layers[role=img]");
  let bars = 0;
  barCharts.forEach((svg, i) => {
    const name = "bar chart " + (i + 1) + " (" + (svg.getAttribute("aria-label") || "no label") + ")";
    const expected = Number(svg.dataset.bars), flagged = Number(svg.dataset.flagged);
    if (!Number.isInteger(expected) || !Number.isInteger(flagged)) {
      add("plot-bars", name + ": no data-bars/data-flagged counts");
      return;
    }
    const box = svg.getBoundingClientRect();
    if (box.width < 100 || box.height < 40) add("plot-bars", name + ": drawn " + Math.round(box.width) + "x" + Math.round(box.height) + " px");
    const drawn = svg.querySelectorAll("rect.bar");
    if (drawn.length !== expected) add("plot-bars", name + ": " + drawn.length + " of " + expected + " bars drawn");
    for (const bar of drawn) {
      if (!inside(bar, box)) {
        add("plot-bars", name + ": a bar at x=" + bar.getAttribute("x") + " width=" + bar.getAttribute("width") + " is outside the plot");
        break;
      }
    }
    for (const t of svg.querySelectorAll("text")) {
      if (!inside(t, box)) {
        add("plot-bars", name + ": the label " + describe(t) + " runs past the plot's edge");
        break;
      }
    }
    const marked = Array.from(svg.querySelectorAll("text.name")).filter((t) => / \(flagged\)$/.test(t.textContent)).length;
    if (marked !== Math.min(flagged, expected)) add("plot-bars", name + ": " + marked + " layers marked flagged, " + flagged + " flagged");
    const limits = (svg.getAttribute("aria-label") || "").split("offends ").length - 1;
    if (svg.querySelectorAll("path.limit").length !== limits) add("plot-bars", name + ": " + limits + " thresholds named, " + svg.querySelectorAll("path.limit").length + " drawn");
    smallText(svg, name);
    bars += drawn.length;
  });

  // Metric plots: every point the SVG says it has is drawn, inside the plot; a healthy band inside it.
  const plots = document.querySelectorAll("svg[role=img]:not(.layers)");
  let points = 0;
  plots.forEach((svg, i) => {
    const name = "plot " + (i + 1) + " (" + (svg.getAttribute("aria-label") || "no label") + ")";
    const finite = Number(svg.dataset.finite), nonfinite = Number(svg.dataset.nonfinite);
    if (!Number.isInteger(finite) || !Number.isInteger(nonfinite)) {
      add("plot-points", name + ": no data-finite/data-nonfinite counts");
      return;
    }
    const box = svg.getBoundingClientRect();
    if (box.width < 100 || box.height < 40) add("plot-points", name + ": drawn " + Math.round(box.width) + "x" + Math.round(box.height) + " px");
    const drawn = svg.querySelectorAll("circle.pt");
    const marks = svg.querySelectorAll("path.nonfinite");
    if (drawn.length !== finite) add("plot-points", name + ": " + drawn.length + " of " + finite + " finite points drawn");
    if (marks.length !== nonfinite) add("plot-points", name + ": " + marks.length + " of " + nonfinite + " non-finite marks drawn");
    if (finite >= 2 && !svg.querySelector("path.series")) add("plot-points", name + ": no line through the points");
    smallText(svg, name);
    if (svg.dataset.band) {
      const band = svg.querySelector("rect.band");
      if (!band) add("plot-points", name + ": data-band but no band drawn");
      else if (!inside(band, box)) add("plot-points", name + ": the healthy band reaches outside the plot");
    }
    // An open path is a line; filled, the browser closes it into a shape that hides the plot.
    for (const path of svg.querySelectorAll("path")) {
      const d = (path.getAttribute("d") || "").trim();
      if (!/[zZ]$/.test(d) && getComputedStyle(path).fill !== "none") {
        add("plot-lines", name + ": the line " + describe(path) + " d=\"" + d.slice(0, 40) + "\" is filled (" + getComputedStyle(path).fill + ")");
      }
    }
    for (const pt of drawn) {
      if (!(pt.getBoundingClientRect().width > 0 && inside(pt, box))) {
        add("plot-points", name + ": a point at cx=" + pt.getAttribute("cx") + " cy=" + pt.getAttribute("cy") + " is outside the plot");
        break;
      }
    }
    points += drawn.length + marks.length;
  });

  return {width, plots: plots.length, points, bar_charts: barCharts.length, bars, problems};
}
