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
around them alone. Nothing between the markers is edited by hand. Every
benchmark ci/bench.sh knows must have its markers; one without data yet gets
a block saying how to measure it. A JSON line without a ``contender`` (the
graph benchmark's per-case command line) is a note shown under its case
(its ``command``, and the ``iterations`` and ``setup_solve_seconds`` of the
distributed solvers).

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
BENCH_SH = ROOT / "ci" / "bench.sh"
DATA = ROOT / "docs" / "perf"
REPORT = ROOT / "docs" / "performance.md"
# A run that started with a higher 1-minute load average than this many times
# the hardware threads is flagged as taken on a busy machine.
BUSY_LOAD_PER_THREAD = 0.5


class BadData(Exception):
    pass


def read_runs(path):
    """Rows of one .jsonl file, each with the meta line of its run attached,
    and the case notes (lines without a contender) by case."""
    rows, meta, notes = [], None, {}
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
        if "contender" not in obj:
            if "case" not in obj:
                raise BadData(f"{path}:{number}: neither a meta line, a row nor a case note")
            notes.setdefault(obj["case"], obj)
            continue
        for key in ("case", "contender", "threads", "unit", "median", "min", "max"):
            if key not in obj:
                raise BadData(f"{path}:{number}: missing field '{key}'")
        obj["_meta"] = meta or {}
        rows.append(obj)
    return rows, notes


def known_benches():
    """The benchmark names of ci/bench.sh's all=(...) list."""
    m = re.search(r"^all=\(([^)]*)\)", BENCH_SH.read_text(), re.M)
    if not m:
        raise BadData(f"{BENCH_SH}: no all=(...) list of benchmarks")
    return m.group(1).split()


def is_tessera(name):
    return name.lower().startswith("tessera")


def favours_tessera(row):
    """Whether a row's ratio (reference time / own time) is good news for
    Tessera: a peer measured against Tessera wants ratio <= 1, a Tessera
    variant measured against a peer (raw OpenMP) wants ratio >= 1."""
    r = row["ratio_median"]
    return r >= 1 if is_tessera(row["contender"]) and not is_tessera(row["reference"]) else r <= 1


def bar_colour(row):
    """Blue: good news for Tessera; orange: not; grey: two Tessera variants
    (tasks against data, the pool without its thread cache), neither side a peer."""
    if is_tessera(row["contender"]) and is_tessera(row["reference"]):
        return "#9a9a9a"
    return "#3b7dd8" if favours_tessera(row) else "#d8603b"


def scaling_key(case):
    """A case's name without its thread-count token (" 2T"), so that the
    same case at several thread counts is one line of a scaling plot."""
    return re.sub(r"\s\d+T\b", "", case)


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


def tables(bench, rows, notes):
    out = []
    for case in cases_in_order(rows):
        in_case = [r for r in rows if r["case"] == case]
        for threads in sorted({r["_run_threads"] for r in in_case}):
            group = [r for r in in_case if r["_run_threads"] == threads]
            unit = group[0]["unit"]
            out.append(f"**{case}**, {threads} thread(s) requested; {load_note(group[0]['_meta'])}; "
                       f"{group[0].get('repeats', '?')} repeats, contenders interleaved")
            out.append("")
            note = notes.get(case, {})
            if note.get("command"):
                out += [f"peer command: `{note['command']}`", ""]
            # The distributed solvers' note: iterations and the setup / solve
            # split (medians of the slowest rank) of each contender.
            if note.get("iterations"):
                out += ["iterations: " + ", ".join(f"{k} {v}" for k, v in note["iterations"].items()), ""]
            if note.get("setup_solve_seconds"):
                out += ["setup / solve, s (median of the slowest rank): "
                        + ", ".join(f"{k} {fmt(v[0])} / {fmt(v[1])}" for k, v in note["setup_solve_seconds"].items()),
                        ""]
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
        def short(text, n=34):
            return text if len(text) <= n else text[:n - 3] + "..."
        labels = [f"{short(r['case'])}\n{short(r['contender'])}\n{r['_run_threads']} thr" for r in ratio_rows]
        med = [r["ratio_median"] for r in ratio_rows]
        lo = [r["ratio_median"] - r["ratio_min"] for r in ratio_rows]
        hi = [r["ratio_max"] - r["ratio_median"] for r in ratio_rows]
        fig, ax = plt.subplots(figsize=(min(40, max(6, 0.5 * len(ratio_rows))), 5.5))
        colors = [bar_colour(r) for r in ratio_rows]
        ax.bar(range(len(med)), med, yerr=[lo, hi], color=colors, capsize=3)
        ax.set_yscale("log")  # ratios of 0.1 and 10 are equally far from parity
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_xticks(range(len(med)), labels, fontsize=6, rotation=90)
        ax.set_ylabel("reference time / contender time")
        ax.set_title(f"{bench}: time ratio to the reference (bars: median, whiskers: min-max;\n"
                     "blue: in Tessera's favour, orange: not, grey: Tessera against Tessera)", fontsize=9)
        fig.tight_layout()
        name = f"{bench}-ratios.svg"
        if write:
            fig.savefig(folder / name, metadata={"Date": None})
        plt.close(fig)
        lines += [f"![{bench}: ratios](figures/{name})", ""]

    thread_counts = sorted({r["_run_threads"] for r in rows})
    keys = list(dict.fromkeys(scaling_key(r["case"]) for r in rows))
    keys = [k for k in keys if len({r["_run_threads"] for r in rows if scaling_key(r["case"]) == k}) > 1]
    if keys:
        cols = min(4, len(keys))
        nrows = (len(keys) + cols - 1) // cols
        fig, axes = plt.subplots(nrows, cols, figsize=(4.5 * cols, 3.8 * nrows), squeeze=False)
        for ax in axes.flat[len(keys):]:
            ax.set_visible(False)
        for ax, key in zip(axes.flat, keys):
            in_case = [r for r in rows if scaling_key(r["case"]) == key]
            for who in dict.fromkeys(r["contender"] for r in in_case):
                pts = sorted((r["_run_threads"], r["median"]) for r in in_case if r["contender"] == who)
                ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=who)
            ax.set_xlabel("threads requested")
            ax.set_ylabel(in_case[0]["unit"])
            ax.set_xticks(thread_counts)
            ax.set_title(key if len(key) <= 48 else key[:45] + "...", fontsize=9)
            ax.legend(fontsize=7)
        fig.tight_layout()
        name = f"{bench}-scaling.svg"
        if write:
            fig.savefig(folder / name, metadata={"Date": None})
        plt.close(fig)
        lines += [f"![{bench}: scaling over threads](figures/{name})", ""]
    return lines


def placeholder(bench):
    return "\n".join([f"<!-- generated:{bench} -->",
                      f"<!-- by ci/perf_report.py; do not edit by hand -->", "",
                      f"Not measured yet: run `bash ci/bench.sh {bench}` on a quiet machine.", "",
                      f"<!-- end generated:{bench} -->"])


def generate(bench, path, write, folder):
    rows, notes = read_runs(path)
    # The thread count a run asked for: ci/bench.sh writes it into the meta
    # line; without it, the first row of each case in that run (the
    # reference contender) stands for it.
    run_threads = {}
    for r in rows:
        key = (id(r["_meta"]), r["case"])
        run_threads.setdefault(key, r["_meta"].get("threads_requested", r["threads"]))
        r["_run_threads"] = run_threads[key]
    body = [f"<!-- generated:{bench} -->",
            f"<!-- from docs/perf/{path.name} by ci/perf_report.py; do not edit by hand -->", ""]
    body += figures(bench, rows, write, folder)
    body += tables(bench, rows, notes)
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
        names = list(dict.fromkeys(known_benches() + [p.stem for p in sorted(args.data.glob("*.jsonl"))]))
        for bench in names:
            path = args.data / f"{bench}.jsonl"
            if path.exists():
                block = generate(bench, path, not args.check, report.parent / "figures")
            else:
                block = placeholder(bench)
            pattern = re.compile(rf"<!-- generated:{re.escape(bench)} -->.*?<!-- end generated:{re.escape(bench)} -->",
                                 re.S)
            if not pattern.search(new):
                raise BadData(f"{report}: no '<!-- generated:{bench} -->' ... '<!-- end generated:{bench} -->' "
                              f"markers for benchmark '{bench}' (ci/bench.sh knows it)")
            new = pattern.sub(lambda _: block, new)
            if args.check:
                for fig in re.findall(r"\]\((figures/[^)]+)\)", block):
                    if not (report.parent / fig).exists():
                        raise BadData(f"{report}: {fig} is missing; run python3 ci/perf_report.py")
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
