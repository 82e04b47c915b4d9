#!/usr/bin/env python3
"""Checks HTML pages in headless Chromium at a phone's and a desktop's width.

  check_report.py --chromium PATH [--widths 375,1280] [--min-plots N] [--min-bar-charts N] [--screenshots DIR]
                  [--expect KIND,...] PAGE.html...

For each page and width, Chromium loads the page in a frame of that width inside a harness page that
runs check_page.js and writes what it finds into the DOM, read back through --dump-dom. Problems, by kind:
  console      a message on the page's console (the report runs no script of its own, so any is wrong)
  page-error   an uncaught error or a resource that failed to load
  overflow     the page, or an element not inside a scrolling box, reaches past the window's edge
  plot-points  an SVG plot does not draw every point its data-finite/data-nonfinite counts promise
  plot-lines   a plot's line (an open path) is filled, which hides the plot behind a shape
  plot-text    a plot's labels are drawn under 9 px high (the plot shrinks with a narrow page)
  plot-bars    a per-layer bar chart (svg.layers) does not draw one bar per layer it counts, a bar or a
               label reaches past the plot, its flagged layers are not all marked, or a threshold its
               caption names has no line
  viewport     the window did not have the width asked for (the checks above would mean nothing)
With --screenshots, each page is also captured as it is, at each width, as
DIR/<page>-<width>.png. Exit status: 0 when no page has a problem; 1 otherwise, each problem printed.
With --expect, the run is a test of this checker on pages known to be broken: exit 0 only when every
listed kind was reported. Exit 77 (a skip for CTest) when no Chromium was given.
"""
import argparse
import html
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
RESULT = re.compile(r'<pre id="triage-browser-check"[^>]*>([^<]*)</pre>', re.S)
CONSOLE = re.compile(r':CONSOLE[:(]\d+\)?\] (.*)')
# Installed before anything else in <head>: uncaught errors and failed loads, kept for check_page.js.
ERROR_LISTENER = ('<script>window.__triagePageErrors=[];addEventListener("error",function(e){'
                  'window.__triagePageErrors.push(e.message||("failed to load "+(e.target.src||e.target.href)))},true);'
                  '</script>')


def chromium(binary, profile, args, timeout=120):
    cmd = [binary, '--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--hide-scrollbars',
           '--user-data-dir=' + profile, '--enable-logging=stderr', '--v=0'] + args
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)


def harness(page, width, workdir):
    """A page holding `page` in a frame `width` px wide (Chromium's headless window is at least 500 px
    wide, a frame can be narrower) and the check, run when everything has loaded. The frame's srcdoc
    shares the harness's origin, so the check can read it; an error listener goes first in its <head>."""
    with open(page, encoding='utf-8') as f:
        text = f.read()
    with open(os.path.join(HERE, 'check_page.js'), encoding='utf-8') as f:
        script = f.read()
    head = text.find('<head>')
    text = text[:head + 6] + ERROR_LISTENER + text[head + 6:] if head >= 0 else ERROR_LISTENER + text
    out = os.path.join(workdir, 'check-%d-%s' % (width, os.path.basename(page)))
    with open(out, 'w', encoding='utf-8') as f:
        f.write('<!DOCTYPE html><html><head><meta charset="utf-8"><style>body{margin:0}iframe{border:0;display:block}'
                '</style></head><body><iframe id="page" style="width:%dpx;height:900px" srcdoc="%s"></iframe>'
                '<script>\n%s\naddEventListener("load", function () {\n'
                '  var out = document.createElement("pre");\n  out.id = "triage-browser-check";\n'
                '  out.textContent = JSON.stringify(triageCheckPage(document.getElementById("page").contentWindow));\n'
                '  document.body.appendChild(out);\n});\n</script></body></html>\n'
                % (width, html.escape(text, quote=True), script))
    return out


def check(binary, page, width, workdir):
    """Returns (problems, plots, points, bar charts) for page at width."""
    url = 'file://' + harness(page, width, workdir)
    run = chromium(binary, os.path.join(workdir, 'profile'), ['--window-size=%d,1000' % (max(width, 500) + 20), '--dump-dom', url])
    problems = [('console', m.group(1).strip()) for m in map(CONSOLE.search, run.stderr.splitlines()) if m]
    found = RESULT.findall(run.stdout)  # the last: the script's own text names the element too
    if not found:
        tail = '\n'.join(run.stderr.splitlines()[-5:])
        return problems + [('page-error', 'the check did not run (chromium exited %d): %s' % (run.returncode, tail))], 0, 0, 0
    result = json.loads(html.unescape(found[-1]))
    if result['width'] != width:
        problems.append(('viewport', 'the window was %d px wide, not %d' % (result['width'], width)))
    problems += [(p['kind'], p['text']) for p in result['problems']]
    return problems, result['plots'], result['points'], result['bar_charts']


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--chromium', default='')
    ap.add_argument('--widths', default='375,1280')
    ap.add_argument('--min-plots', type=int, default=0, help='fewer plots over all pages is a problem')
    ap.add_argument('--min-bar-charts', type=int, default=0, help='fewer per-layer bar charts over all pages is a problem')
    ap.add_argument('--screenshots', metavar='DIR')
    ap.add_argument('--expect', default='', help='kinds of problem that must be reported (broken pages)')
    ap.add_argument('pages', nargs='+')
    args = ap.parse_args()
    if not args.chromium or not os.access(args.chromium, os.X_OK):
        print('SKIPPED: no Chromium (cmake found none when it configured this build). Install Debian\'s '
              '`chromium` (.ci/setup does) and re-run cmake to check the HTML report in a browser.')
        return 77
    widths = [int(w) for w in args.widths.split(',')]
    reported = []
    plots = points = bar_charts = 0
    with tempfile.TemporaryDirectory() as workdir:
        for page in args.pages:
            for width in widths:
                problems, n_plots, n_points, n_bars = check(args.chromium, page, width, workdir)
                print('%s at %d px: %d plots, %d points, %d bar charts, %d problems'
                      % (page, width, n_plots, n_points, n_bars, len(problems)))
                for kind, text in problems:
                    print('  %s: %s' % (kind, text))
                reported += [kind for kind, _ in problems]
                if width == widths[0]:
                    plots += n_plots
                    bar_charts += n_bars
                points += n_points
                if args.screenshots:
                    name = os.path.splitext(os.path.basename(page))[0]
                    shot = os.path.join(os.path.abspath(args.screenshots), '%s-%d.png' % (name, width))
                    run = chromium(args.chromium, os.path.join(workdir, 'profile'),
                                   ['--window-size=%d,%d' % (width, 1400 if width < 800 else 1000),
                                    '--screenshot=' + shot, 'file://' + os.path.abspath(page)])
                    if run.returncode != 0 or not os.path.exists(shot):
                        print('  screenshot: chromium exited %d without %s' % (run.returncode, shot))
                        reported.append('screenshot')
    if plots < args.min_plots:
        print('plot-points: %d plots on the pages, expected at least %d' % (plots, args.min_plots))
        reported.append('plot-points')
    if bar_charts < args.min_bar_charts:
        print('plot-bars: %d bar charts on the pages, expected at least %d' % (bar_charts, args.min_bar_charts))
        reported.append('plot-bars')
    if args.expect:
        missed = [k for k in args.expect.split(',') if k not in reported]
        if missed:
            print('FAIL: the checker did not report: ' + ', '.join(missed))
            return 1
        print('every expected kind of problem was reported')
        return 0
    return 1 if reported else 0


if __name__ == '__main__':
    sys.exit(main())
