#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Checks a chunked HTML report in headless Chromium: its scripts ran without error and drew the
task stream, and a screenshot of it is a picture rather than a blank page.

    check_report.py REPORT.html SCREENSHOT.png [--expect ID=TEXT]... [--expect-text TEXT]...

--expect ID=TEXT: the element with that id contains TEXT once the scripts ran; --expect-text
TEXT: the page's text does. Exits 0 when every check passes, 1 (with what failed) when one does,
77 (skipped) when no Chromium is installed (scripts/setup installs it). CHUNKED_CHROMIUM names
the browser to use.
"""

import argparse
import os
import pathlib
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib
from html.parser import HTMLParser

SKIP = 77
BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
        "track", "wbr"}


def find_browser():
    named = os.environ.get("CHUNKED_CHROMIUM")
    for name in ([named] if named else []) + list(BROWSERS):
        path = shutil.which(name)
        if path:
            return path
    return None


def run_browser(browser, profile, arguments, timeout=90):
    # A profile of its own per run: runs in parallel (ctest -j) would otherwise share one.
    command = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
               "--disable-dev-shm-usage", f"--user-data-dir={profile}"] + arguments
    try:
        return subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        sys.exit(f"check_report: {os.path.basename(browser)} did not finish in {timeout} s")


class Dom(HTMLParser):
    """What the checks read from the dumped DOM: body's attributes, each id's text, the spans
    drawn in the task stream, and the whole text outside scripts and styles."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.body = None
        self.open = []      # [tag, id] of the elements the parser is inside
        self.texts = {}     # id -> text
        self.spans = 0      # elements of class "span" inside svg#stream-svg
        self.text = []

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag == "body":
            self.body = attributes
        in_stream = any(i == "stream-svg" for _, i in self.open)
        if in_stream and "span" in (attributes.get("class") or "").split():
            self.spans += 1
        if tag not in VOID:
            self.open.append([tag, attributes.get("id")])
            if attributes.get("id"):
                self.texts.setdefault(attributes["id"], "")

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in VOID and self.open and self.open[-1][0] == tag:
            self.open.pop()

    def handle_endtag(self, tag):
        for i in range(len(self.open) - 1, -1, -1):
            if self.open[i][0] == tag:
                del self.open[i:]
                break

    def handle_data(self, data):
        for _, element_id in self.open:
            if element_id:
                self.texts[element_id] += data
        if not any(tag in ("script", "style", "title") for tag, _ in self.open):
            self.text.append(data)


def png_colours(path):
    """The number of distinct colours among the pixels of an 8-bit RGB or RGBA PNG (None for
    other kinds), and the share of pixels that are not white."""
    data = pathlib.Path(path).read_bytes()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        return None, None
    at, idat, header = 8, b"", None
    while at < len(data):
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        body = data[at + 8:at + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        at += 12 + length
    width, height, depth, colour_type, _, _, interlace = header
    if depth != 8 or colour_type not in (2, 6) or interlace:
        return None, None
    channels = 3 if colour_type == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * channels
    previous = bytearray(stride)
    colours, coloured = set(), 0
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        for x in range(stride):
            a = line[x - channels] if x >= channels else 0
            b = previous[x]
            c = previous[x - channels] if x >= channels else 0
            if kind == 1:
                line[x] = (line[x] + a) & 0xFF
            elif kind == 2:
                line[x] = (line[x] + b) & 0xFF
            elif kind == 3:
                line[x] = (line[x] + (a + b) // 2) & 0xFF
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
        for x in range(0, stride, channels * 4):  # every fourth pixel is plenty
            pixel = bytes(line[x:x + 3])
            colours.add(pixel)
            coloured += pixel != b"\xff\xff\xff"
        previous = line
    return len(colours), coloured / max(1, height * ((width + 3) // 4))


def check_dom(browser, profile, url, expects, expect_texts):
    result = run_browser(browser, profile, ["--dump-dom", url])
    if result.returncode != 0 or "<body" not in result.stdout:
        return [f"--dump-dom failed (exit {result.returncode}): {result.stderr[-2000:]}"]
    dom = Dom()
    dom.feed(result.stdout)
    problems = []
    rendered = (dom.body or {}).get("data-rendered")
    if rendered != "ok":
        problems.append(f'body data-rendered is {rendered!r}, not "ok"')
    if dom.texts.get("errors", "").strip():
        problems.append("#errors holds:\n" + dom.texts["errors"].strip())
    if "stream-svg" not in dom.texts:
        problems.append("no svg#stream-svg: the task stream was not drawn")
    elif dom.spans == 0:
        problems.append("the task stream has no spans (no rect or path of class span)")
    for expect in expects:
        element_id, _, text = expect.partition("=")
        if element_id not in dom.texts:
            problems.append(f"no element with id {element_id!r}")
        elif text not in dom.texts[element_id]:
            problems.append(f"#{element_id} is {dom.texts[element_id].strip()[:200]!r}, "
                            f"without {text!r}")
    page_text = "".join(dom.text)
    for text in expect_texts:
        if text not in page_text:
            problems.append(f"the page does not show {text!r}")
    print(f"check_report: DOM rendered={rendered!r}, {dom.spans} spans in the task stream")
    return problems


def check_screenshot(browser, profile, url, png):
    png = os.path.abspath(png)
    if os.path.exists(png):
        os.remove(png)
    result = run_browser(browser, profile, ["--hide-scrollbars", f"--screenshot={png}",
                                            "--window-size=1400,1000", url])
    if not os.path.exists(png):
        return [f"--screenshot wrote no {png} (exit {result.returncode}): {result.stderr[-2000:]}"]
    size = os.path.getsize(png)
    problems = [] if size > 8000 else [f"the screenshot is {size} bytes: a blank page?"]
    colours, coloured = png_colours(png)
    if colours is None:
        print(f"check_report: screenshot {png}, {size} bytes (not 8-bit RGB: colours not read)")
        return problems
    print(f"check_report: screenshot {png}, {size} bytes, {colours} colours, "
          f"{100 * coloured:.1f} % of pixels not white")
    if colours < 8:
        problems.append(f"the screenshot has only {colours} colours")
    if coloured < 0.02:
        problems.append(f"only {100 * coloured:.2f} % of the screenshot is not white")
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("html")
    parser.add_argument("png")
    parser.add_argument("--expect", action="append", default=[], metavar="ID=TEXT")
    parser.add_argument("--expect-text", action="append", default=[], metavar="TEXT")
    args = parser.parse_args()
    browser = find_browser()
    if browser is None:
        print(f"check_report: skipped: none of {', '.join(BROWSERS)} is installed "
              "(scripts/setup installs chromium)")
        return SKIP
    if not os.path.isfile(args.html):
        print(f"check_report: no report at {args.html}", file=sys.stderr)
        return 1
    url = pathlib.Path(args.html).resolve().as_uri()
    with tempfile.TemporaryDirectory(prefix="chunked-report-") as profile:
        problems = check_dom(browser, profile, url, args.expect, args.expect_text)
        problems += check_screenshot(browser, profile, url, args.png)
    for problem in problems:
        print(f"check_report: FAILED: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
