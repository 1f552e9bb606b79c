#!/usr/bin/env python3
"""Regenerates the measured tables and figures of docs/performance.md.

The benchmarks print JSON lines (``--json``, through the bench-support headers
in packages/core/benchmarks/support): one ``meta`` line per run (load average,
hardware threads, time), then one line per contender and case. ``ci/bench.sh``
runs them and stores the lines in ``docs/perf/<bench>.jsonl``; this script
turns those files into

* a table per benchmark case and thread count (median, min-max, and each
  contender's time ratio to the reference, median and min-max),
* a ratio bar chart per benchmark (``docs/figures/<bench>-ratios.svg``) and,
  where several thread counts ran, a scaling plot
  (``docs/figures/<bench>-scaling.svg``),

and writes them between the markers ``<!-- generated:<bench> -->`` and
``<!-- end generated:<bench> -->`` of docs/performance.md, leaving the prose
around them alone. Nothing between the markers is edited by hand.

    python3 ci/perf_report.py            # rewrite the generated parts
    python3 ci/perf_report.py --check    # exit 1 if they differ from the data

Needs Debian's python3-matplotlib for the figures (the tables do not).
"""
import argparse
import json
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
DATA = ROOT / "docs" / "perf"
REPORT = ROOT / "docs" / "performance.md"
# A run that started with a higher 1-minute load average than this many times
# the hardware threads is flagged as taken on a busy machine.
BUSY_LOAD_PER_THREAD = 0.5


class BadData(Exception):
    pass


def read_runs(path):
    """Rows of one .jsonl file, each with the meta line of its run attached."""
    rows, meta = [], None
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as e:
            raise BadData(f"{path}:{number}: not JSON: {e}") from None
        if obj.get("meta"):
            meta = obj
            continue
        for key in ("case", "contender", "threads", "unit", "median", "min", "max"):
            if key not in obj:
                raise BadData(f"{path}:{number}: missing field '{key}'")
        obj["_meta"] = meta or {}
        rows.append(obj)
    return rows


def fmt(v):
    if v == 0:
        return "0"
    a = abs(v)
    if a >= 100:
        return f"{v:.0f}"
    if a >= 10:
        return f"{v:.1f}"
    if a >= 0.1:
        return f"{v:.2f}"
    return f"{v:.3g}"


def load_note(meta):
    load, hw = meta.get("load_avg_1m"), meta.get("hardware_threads")
    if load is None or load < 0:
        return "load average not recorded"
    busy = hw and load > BUSY_LOAD_PER_THREAD * hw
    return f"load average {load:.2f} at start" + (" (busy machine: figures are noisy)" if busy else "")


def cases_in_order(rows):
    seen = []
    for r in rows:
        if r["case"] not in seen:
            seen.append(r["case"])
    return seen


def tables(bench, rows):
    out = []
    for case in cases_in_order(rows):
        in_case = [r for r in rows if r["case"] == case]
        for threads in sorted({r["_run_threads"] for r in in_case}):
            group = [r for r in in_case if r["_run_threads"] == threads]
            unit = group[0]["unit"]
            out.append(f"**{case}**, {threads} thread(s) requested; {load_note(group[0]['_meta'])}; "
                       f"{group[0].get('repeats', '?')} repeats, contenders interleaved")
            out.append("")
            out.append(f"| contender | threads ran | {unit} median (min - max) | ratio to reference, median (min - max) |")
            out.append("|---|---|---|---|")
            for r in group:
                ratio = "reference"
                if "ratio_median" in r:
                    ratio = (f"{r['ratio_median']:.2f} ({r['ratio_min']:.2f} - {r['ratio_max']:.2f}) "
                             f"= {r['reference']} / this")
                elif not any("reference" in o and o["reference"] == r["contender"] for o in group):
                    ratio = "-"
                out.append(f"| {r['contender']} | {r['threads']} | {fmt(r['median'])} "
                           f"({fmt(r['min'])} - {fmt(r['max'])}) | {ratio} |")
            out.append("")
    return out


def figures(bench, rows, write, folder):
    """Writes the figures (when write); returns the markdown lines that show them."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise BadData("matplotlib is missing: apt-get install python3-matplotlib") from None
    plt.rcParams["svg.hashsalt"] = "tessera"  # the same data gives the same file
    plt.rcParams["svg.fonttype"] = "none"
    if write:
        folder.mkdir(parents=True, exist_ok=True)
    lines = []

    ratio_rows = [r for r in rows if "ratio_median" in r]
    if ratio_rows:
        labels = [f"{r['case']}\n{r['contender']}\n{r['_run_threads']} thr" for r in ratio_rows]
        med = [r["ratio_median"] for r in ratio_rows]
        lo = [r["ratio_median"] - r["ratio_min"] for r in ratio_rows]
        hi = [r["ratio_max"] - r["ratio_median"] for r in ratio_rows]
        fig, ax = plt.subplots(figsize=(max(6, 0.9 * len(ratio_rows)), 4.2))
        colors = ["#3b7dd8" if m <= 1 else "#d8603b" for m in med]
        ax.bar(range(len(med)), med, yerr=[lo, hi], color=colors, capsize=3)
        ax.set_yscale("log")  # ratios of 0.1 and 10 are equally far from parity
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_xticks(range(len(med)), labels, fontsize=7)
        ax.set_ylabel("reference time / contender time")
        ax.set_title(f"{bench}: time ratio to the reference (bars: median, whiskers: min-max)", fontsize=9)
        fig.tight_layout()
        name = f"{bench}-ratios.svg"
        if write:
            fig.savefig(folder / name, metadata={"Date": None})
        plt.close(fig)
        lines += [f"![{bench}: ratios](figures/{name})", ""]

    thread_counts = sorted({r["_run_threads"] for r in rows})
    if len(thread_counts) > 1:
        cases = cases_in_order(rows)
        fig, axes = plt.subplots(1, len(cases), figsize=(4.5 * len(cases), 3.8), squeeze=False)
        for ax, case in zip(axes[0], cases):
            in_case = [r for r in rows if r["case"] == case]
            for who in dict.fromkeys(r["contender"] for r in in_case):
                pts = sorted((r["_run_threads"], r["median"]) for r in in_case if r["contender"] == who)
                ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=who)
            ax.set_xlabel("threads")
            ax.set_ylabel(in_case[0]["unit"])
            ax.set_xticks(thread_counts)
            ax.set_title(case, fontsize=9)
            ax.legend(fontsize=7)
        fig.tight_layout()
        name = f"{bench}-scaling.svg"
        if write:
            fig.savefig(folder / name, metadata={"Date": None})
        plt.close(fig)
        lines += [f"![{bench}: scaling over threads](figures/{name})", ""]
    return lines


def generate(bench, path, write, folder):
    rows = read_runs(path)
    # The thread count a run asked for: the reference contender's (first row
    # of each case in that run) is what the run was configured with.
    run_threads = {}
    for r in rows:
        key = (id(r["_meta"]), r["case"])
        run_threads.setdefault(key, r["threads"])
        r["_run_threads"] = run_threads[key]
    body = [f"<!-- generated:{bench} -->",
            f"<!-- from docs/perf/{path.name} by ci/perf_report.py; do not edit by hand -->", ""]
    body += figures(bench, rows, write, folder)
    body += tables(bench, rows)
    body.append(f"<!-- end generated:{bench} -->")
    return "\n".join(body)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="fail if docs/performance.md is not what the data gives")
    ap.add_argument("--data", type=pathlib.Path, default=DATA, help="folder of <bench>.jsonl files")
    ap.add_argument("--report", type=pathlib.Path, default=REPORT, help="the markdown file to update")
    args = ap.parse_args()
    report = args.report
    text = report.read_text()
    new = text
    try:
        for path in sorted(args.data.glob("*.jsonl")):
            bench = path.stem
            block = generate(bench, path, not args.check, report.parent / "figures")
            pattern = re.compile(rf"<!-- generated:{re.escape(bench)} -->.*?<!-- end generated:{re.escape(bench)} -->",
                                 re.S)
            if not pattern.search(new):
                raise BadData(f"{report}: no '<!-- generated:{bench} -->' ... '<!-- end generated:{bench} -->' "
                              f"markers for {path}")
            new = pattern.sub(lambda _: block, new)
    except BadData as e:
        print(f"perf_report: {e}", file=sys.stderr)
        return 2
    if args.check:
        if new != text:
            print(f"perf_report: {report} differs from what {args.data}/*.jsonl gives; "
                  "run python3 ci/perf_report.py", file=sys.stderr)
            return 1
        return 0
    if new != text:
        report.write_text(new)
    return 0


if __name__ == "__main__":
    sys.exit(main())
