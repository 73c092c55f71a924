#!/usr/bin/env python3
"""Counts what a browser made of a modelkit HTML report. Usage: dom_census.py DOM_FILE NET_LOG SCREENSHOT, where DOM_FILE
is chromium's --dump-dom output, NET_LOG its --log-net-log file and SCREENSHOT its --screenshot PNG. Prints JSON:
{"figures": [{"caption", "svg_title", "bars", "bar_counts", "points", "series", "markers", "table_rows"}],
"comparison_rows": N, "external": [every src/href/xlink:href value], "requests": [every URL the page asked for
(the browser's own background calls to Google's services left out)], "ink": the share of screenshot pixels that
are not white}."""
import html.parser
import json
import sys
import urllib.parse

from PIL import Image


class Census(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.figures = []
        self.external = []
        self.comparison_rows = 0
        self.stack = []  # open element names
        self.in_comparison = False
        self.text_target = None

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        classes = (attributes.get("class") or "").split()
        for name in ("src", "href", "xlink:href"):
            if name in attributes:
                self.external.append(attributes[name])
        if tag == "figure":
            self.figures.append({"caption": "", "svg_title": "", "bars": 0, "bar_counts": 0, "points": 0,
                                 "series": 0, "markers": 0, "table_rows": 0})
        figure = self.figures[-1] if self.figures and "figure" in self.stack + [tag] else None
        if figure is not None:
            if tag == "rect" and "bar" in classes:
                figure["bars"] += 1
                figure["bar_counts"] += int(attributes.get("data-count", "0"))
            if tag == "circle" and "point" in classes:
                figure["points"] += 1
            if tag == "polyline" and "series" in classes:
                figure["series"] += 1
            if tag == "line" and "marker" in classes:
                figure["markers"] += 1
            if tag == "tr" and "tbody" in self.stack:
                figure["table_rows"] += 1
            if tag == "figcaption":
                self.text_target = (figure, "caption")
            if tag == "title" and self.stack and self.stack[-1] == "svg":
                self.text_target = (figure, "svg_title")
        if tag == "table" and "comparison" in classes:
            self.in_comparison = True
        if tag == "tr" and self.in_comparison and "tbody" in self.stack:
            self.comparison_rows += 1
        if tag not in ("meta", "br", "img", "link", "input", "hr"):  # HTML's void elements have no end tag
            self.stack.append(tag)

    def handle_endtag(self, tag):
        if tag == "table":
            self.in_comparison = False
        if tag in ("figcaption", "title"):
            self.text_target = None
        if tag in self.stack:
            while self.stack and self.stack.pop() != tag:
                pass

    def handle_data(self, data):
        if self.text_target is not None:
            figure, key = self.text_target
            figure[key] += data


# Chromium calls these itself (updates, time, accounts) whatever page it shows; nothing a page asks for.
BROWSER_SERVICES = ("google.com", "googleapis.com", "gvt1.com", "gstatic.com")


def page_requests(net_log_path):
    with open(net_log_path) as f:
        log = json.load(f)
    urls = set()
    for event in log.get("events", []):
        url = event.get("params", {}).get("url")
        if not url or url.startswith(("file:", "data:", "about:", "chrome:")):
            continue
        host = urllib.parse.urlparse(url).hostname or ""
        if not any(host == s or host.endswith("." + s) for s in BROWSER_SERVICES):
            urls.add(url)
    return sorted(urls)


def ink(screenshot_path):
    image = Image.open(screenshot_path).convert("L")
    pixels = image.getdata()
    return sum(1 for p in pixels if p < 250) / max(1, len(pixels))


census = Census()
with open(sys.argv[1]) as f:
    census.feed(f.read())
print(json.dumps({"figures": census.figures, "comparison_rows": census.comparison_rows,
                  "external": census.external, "requests": page_requests(sys.argv[2]), "ink": ink(sys.argv[3])}))
