#!/usr/bin/python3
"""Compare the dashboard's table#rounds (or #phases) cells, as dumped by headless Chromium, with
a stream file's round (phase) lines; Python 3 standard library only.

  chromium --headless --no-sandbox --disable-gpu --timeout=4000 --dump-dom http://127.0.0.1:PORT/ > dom.html
  /usr/bin/python3 tools/dashboard/check_dom.py dom.html run.jsonl [rounds|phases]

Every row shown must equal its line (formats: integers as integers, t toFixed(3), epsilon and
regret toPrecision(4), null "–"); exit status 1 on a mismatch or when no row is shown.
"""
import json
import sys
from html.parser import HTMLParser

DASH = "\u2013"


def to_precision(v, n=4):
    """JavaScript's Number.prototype.toPrecision(n)."""
    if v == 0:
        return "0." + "0" * (n - 1) if n > 1 else "0"
    mant, exp = f"{v:.{n - 1}e}".split("e")
    e = int(exp)
    if e < -6 or e >= n:
        return f"{mant}e{'+' if e >= 0 else '-'}{abs(e)}"
    return f"{v:.{max(0, n - 1 - e)}f}"


def fmt(col, v):
    if v is None:
        return DASH
    if col == "t":
        return f"{v:.3f}"
    if col in ("epsilon", "regret"):
        return to_precision(v)
    return str(v)


class Table(HTMLParser):
    def __init__(self, table, key):
        super().__init__()
        self.table, self.key = table, key
        self.inside, self.cols, self.rows, self.row, self.cell = False, [], {}, None, None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table":
            self.inside = a.get("id") == self.table
        if not self.inside:
            return
        if tag == "th" and "data-col" in a:
            self.cols.append(a["data-col"])
        elif tag == "tr" and f"data-{self.key}" in a:
            self.row = a[f"data-{self.key}"]
            self.rows[self.row] = []
        elif tag == "td" and self.row is not None:
            self.cell = ""

    def handle_endtag(self, tag):
        if tag == "table":
            self.inside = False
        elif tag == "td" and self.cell is not None:
            self.rows[self.row].append(self.cell)
            self.cell = None
        elif tag == "tr":
            self.row = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell += data


def main():
    dom, stream = sys.argv[1], sys.argv[2]
    table = sys.argv[3] if len(sys.argv) > 3 else "rounds"
    key = "round" if table == "rounds" else "phase"
    t = Table(table, key)
    with open(dom, encoding="utf-8") as f:
        t.feed(f.read())
    want = {}
    with open(stream, encoding="utf-8") as f:
        for line in f:
            d = json.loads(line)
            if d.get("type") == key and "run" not in d:
                want[str(d[key])] = [fmt(c, d.get(c)) for c in t.cols]
    bad = 0
    for r, cells in t.rows.items():
        if want.get(r) != cells:
            bad += 1
            print(f"mismatch {key} {r}: shown {cells}, stream {want.get(r)}")
    print(f"table#{table}: columns {t.cols}; {len(t.rows)} rows shown, {len(want)} in the stream, {bad} mismatches")
    sys.exit(1 if bad or not t.rows else 0)


if __name__ == "__main__":
    main()
