"""`python -m benchmarks.report_bench`: how the reports of a real-sized hand-written fleet read, as a user opens them.

For each size (default 300 and 10,000 groups of `harness.real_fleet`, written to a temporary directory) it
runs `rmqplan simulate --fleet F --html PAGE --max-entries 10000000` once (10,000 groups are over the default bound
of what a hand-written fleet may hold) and prints:
- text: the report's lines and the line of its first finding (a terminal shows some 40 lines at once);
- HTML: the page's size, and in headless Chromium (`harness.browser`, 1280x900) the first contentful paint
  and the load event (ms after navigation starts, from the page's own `performance` entries), the page's height,
  and how far down the first problem's cause is (px from the top; 0 when the page has none).

Options: --sizes 300,10000, --seed N (default 7). Needs Chromium (apt-get install chromium).
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import subprocess
import sys
import tempfile
import time

# the first problem row's cause, else the first finding's: where a reader learns why
FIRST_CAUSE = ("(document.querySelector('table.problems td.why') || document.querySelector('table.findings td.msg')"
               " || {getBoundingClientRect: () => ({top: 0})}).getBoundingClientRect().top + window.scrollY")
PAINT = """(() => {
  const paint = performance.getEntriesByName('first-contentful-paint')[0];
  const nav = performance.getEntriesByType('navigation')[0];
  return {fcp: paint ? paint.startTime : null, load: nav ? nav.loadEventEnd : null,
          height: document.documentElement.scrollHeight, cause: %s};
})()""" % FIRST_CAUSE


def measure(groups: int, seed: int, tmp: str) -> dict:
    from harness.browser import Browser
    from harness.real_fleet import fleet_toml

    fleet = os.path.join(tmp, f"fleet-{groups}.toml")
    page = os.path.join(tmp, f"report-{groups}.html")
    with open(fleet, "w", encoding="utf-8") as f:
        f.write(fleet_toml(groups, seed))
    exe = os.path.join(os.path.dirname(sys.executable), "rmqplan")
    t0 = time.monotonic()
    # 10,000 groups hold more than simulate takes by default (`rmqplan.model.fleet_size`): raised, as its line says
    done = subprocess.run([exe, "simulate", "--fleet", fleet, "--html", page, "--max-entries", "10000000"],
                          capture_output=True, text=True)
    seconds = time.monotonic() - t0
    if done.returncode not in (0, 1):
        raise SystemExit(f"rmqplan simulate failed ({done.returncode}): {done.stderr[-800:]}")
    lines = done.stdout.splitlines()
    first = next((i + 1 for i, line in enumerate(lines) if re.search(r"\bPLAN\d{3}\b", line)), None)
    with Browser.start(timeout=600) as browser:
        facts = browser.open("file://" + page, timeout=600).evaluate(PAINT)
    return {"groups": groups, "seconds": seconds, "lines": len(lines), "first_finding_line": first,
            "bytes": os.path.getsize(page), **facts}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.report_bench")
    parser.add_argument("--sizes", default="300,10000")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    from benchmarks.plan_bench import load
    from harness.browser import find_chromium

    chromium = subprocess.run([find_chromium() or "chromium", "--version"], capture_output=True, text=True).stdout
    print(f"machine: {platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}, "
          f"{chromium.strip() or 'no Chromium'}; load average {load()}", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        for groups in (int(s) for s in args.sizes.split(",")):
            m = measure(groups, args.seed, tmp)
            fcp = f"{m['fcp']:,.0f} ms" if m["fcp"] is not None else "none"
            print(f"{groups:>6,} groups: simulate {m['seconds']:.1f} s; text {m['lines']:,} lines, first finding on "
                  f"line {m['first_finding_line']}; page {m['bytes'] / 1e6:.2f} MB, first contentful paint {fcp}, "
                  f"load {m['load']:,.0f} ms, {m['height']:,} px tall, first cause at {m['cause']:,.0f} px", flush=True)
    print(f"load average {load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
