#!/usr/bin/env python3
"""Regenerates the goal summary, tables and figures of docs/performance.md.

The benchmarks print JSON lines (``--json``, through the bench-support headers
in packages/core/benchmarks/support): one ``meta`` line per run (load average,
hardware threads, time), then one line per contender and case. ``ci/bench.sh``
runs them and stores the lines in ``docs/perf/<bench>.jsonl`` (the GPU
benchmark runs on a GPU machine through ci/gpu.sh; its lines are dropped in as
``docs/perf/cuda.jsonl``). This script turns those files into

* a table per benchmark: one row per case and contender, one column pair per
  run (thread count, rank count or GPU card): median (min-max) and the time
  ratio to the row's reference, median (min-max) over the repeats,
* a ratio bar chart per benchmark (``docs/figures/<bench>-ratios.svg``) and,
  where several thread counts ran, a scaling plot
  (``docs/figures/<bench>-scaling.svg``),
* the goal summary: for each goal of ``docs/perf/goals.json``, the latest
  run's median ratio peer time / Tessera time, and met or missed,

and writes them between the markers ``<!-- generated:<name> -->`` and
``<!-- end generated:<name> -->`` of docs/performance.md (``summary`` for the
goals), leaving the prose around them alone. Nothing between the markers is
edited by hand. Every benchmark ci/bench.sh knows, and the GPU ones, must have
its markers; one without data yet gets a block saying how to measure it. A
JSON line without a ``contender`` is a note shown under the table (its
scalar fields but the peer's command line, and the ``iterations`` and
``setup_solve_seconds`` of the distributed solvers); bench_cuda's ``device``
note names the card of its run.

    python3 ci/perf_report.py            # rewrite the generated parts and the figures
    python3 ci/perf_report.py --check    # exit 1 if they differ from the data

Writing the figures needs Debian's python3-matplotlib; --check does not.
"""
import argparse
import datetime
import json
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
BENCH_SH = ROOT / "ci" / "bench.sh"
DATA = ROOT / "docs" / "perf"
GOALS = DATA / "goals.json"
REPORT = ROOT / "docs" / "performance.md"
# Benchmarks that ci/bench.sh does not run: they need a GPU, and ci/gpu.sh
# packs and runs them on a GPU machine.
_GPU_RUN = ("`bash ci/gpu.sh pack` here and `bash .gpu/run.sh` on a GPU machine{extra}, then copy its "
            "`{name}.jsonl` into docs/perf/ and run `python3 ci/perf_report.py`")
GPU_BENCHES = {
    "cuda": _GPU_RUN.format(extra="", name="cuda"),
    "task_cuda": _GPU_RUN.format(extra="", name="task_cuda"),
    "graph_cuda": _GPU_RUN.format(extra="", name="graph_cuda"),
    "graph_jobs_cuda": _GPU_RUN.format(extra="", name="graph_jobs_cuda"),
    "fem_assembly_cuda": _GPU_RUN.format(extra="", name="fem_assembly_cuda"),
    "minitri_cuda": _GPU_RUN.format(extra="", name="minitri_cuda"),
    "sparse_cholesky_gpu": _GPU_RUN.format(extra=" with `SPARSE_BENCH=1`", name="sparse_cholesky_gpu"),
}
# A run that started with a higher 1-minute load average than this many times
# the hardware threads is flagged as taken on a busy machine.
BUSY_LOAD_PER_THREAD = 0.5
TARGET_SIGN = {">=": "≥", "<=": "≤"}


class BadData(Exception):
    pass


def read_runs(path):
    """Rows of one .jsonl file, each with the meta line of its run attached,
    and the notes (lines without a contender) in file order."""
    rows, meta, notes = [], None, []
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
            if obj["case"] == "device" and "device" in obj and meta is not None:
                meta["device"] = obj["device"]  # the card this run used (bench_cuda)
            else:
                obj["_meta"] = meta or {}
                notes.append(obj)
            continue
        for key in ("case", "contender", "threads", "unit", "median", "min", "max"):
            if key not in obj:
                raise BadData(f"{path}:{number}: missing field '{key}'")
        obj["_meta"] = meta or {}
        rows.append(obj)
    return rows, notes


def load(path):
    """read_runs, plus each row's run: ``_run_threads`` is the thread (or rank)
    count it asked for, ``_run`` that and the GPU card, the key of its column."""
    rows, notes = read_runs(path)
    # ci/bench.sh writes the requested count into the meta line; without it,
    # the first row of each case in that run (the reference contender) stands for it.
    run_threads = {}
    for r in rows:
        key = (id(r["_meta"]), r["case"])
        run_threads.setdefault(key, r["_meta"].get("threads_requested", r["threads"]))
        r["_run_threads"] = run_threads[key]
        r["_run"] = (r["_run_threads"], r["_meta"].get("device", ""))
    return rows, notes


def known_benches():
    """The benchmark names of ci/bench.sh's all=(...) list, then the GPU ones."""
    m = re.search(r"^all=\(([^)]*)\)", BENCH_SH.read_text(), re.M)
    if not m:
        raise BadData(f"{BENCH_SH}: no all=(...) list of benchmarks")
    return m.group(1).split() + list(GPU_BENCHES)


def is_mpi(bench):
    """ci/bench.sh's rule: the dist benchmarks run on ranks, not threads."""
    return bench.startswith("dist_")


def run_label(bench, run, short=False):
    """A run's name: its GPU card, or its thread (rank) count ("2 threads"; short: "2 thr")."""
    n, device = run
    if device:
        return device
    word = "rank" if is_mpi(bench) else ("thr" if short else "thread")
    return f"{n} {word}" + ("s" if n != 1 and word != "thr" else "")


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


def case_key(case):
    """A case's name without its thread or rank token (" 2T", ", 4 ranks"),
    so that the same case in several runs is one table row and one line of a
    scaling plot."""
    return re.sub(r"\s\d+T\b|, \d+ ranks\b", "", case)


def fmt(v):
    if v == 0:
        return "0"
    a = abs(v)
    if a >= 1e6:
        return f"{v:.4g}"
    if a >= 100:
        return f"{v:.0f}"
    if a >= 10:
        return f"{v:.1f}"
    if a >= 0.1:
        return f"{v:.2f}"
    return f"{v:.3g}"


def date_of(meta):
    t = meta.get("time")
    return datetime.datetime.fromtimestamp(t, datetime.timezone.utc).strftime("%Y-%m-%d") if t else "date not recorded"


def machine_of(meta):
    """The GPU card, or the CPU as the meta line records it."""
    if meta.get("device"):
        return meta["device"]
    hw = meta.get("hardware_threads")
    cpu = f"{hw} hardware threads" if hw else "hardware threads not recorded"
    text = f"{meta['cpu_model']}, {cpu}" if meta.get("cpu_model") else cpu
    # OpenBLAS's kernel set: a dense figure depends on it (bench_cholesky, tiled_cholesky).
    return text + (f", OpenBLAS {meta['blas_core']}" if meta.get("blas_core") else "")


def is_busy(meta):
    load, hw = meta.get("load_avg_1m"), meta.get("hardware_threads")
    return bool(load is not None and hw and load > BUSY_LOAD_PER_THREAD * hw)


def load_note(meta):
    load = meta.get("load_avg_1m")
    if load is None or load < 0:
        return "load not recorded"
    return f"load {load:.2f}" + (" (busy: noisy)" if is_busy(meta) else "")


def in_order(items):
    return list(dict.fromkeys(items))


def run_header(bench, run, group):
    """A run's column title: its name, date, machine (unless the name is the
    GPU card), load and repeats."""
    meta = group[0]["_meta"]
    reps = sorted({r.get("repeats", 0) for r in group})
    reps = f"{reps[0]}" if len(reps) == 1 else f"{reps[0]}-{reps[-1]}"
    machine = "" if run[1] else f"{machine_of(meta)}, "
    return f"{run_label(bench, run)}<br>{date_of(meta)}, {machine}{load_note(meta)}, {reps} repeats"


def note_text(note):
    """A case note's fields: scalars as they are, and the distributed solvers'
    iterations and setup / solve seconds. Left in the .jsonl: the peer's
    command line (long, and the same but for its thread count in every run),
    the load (in the column title) and nested detail (per-rank traffic)."""
    parts = []
    for k, v in note.items():
        if k in ("bench", "case", "command", "loadavg") or k.startswith("_"):
            continue
        if k == "iterations" and isinstance(v, dict):
            parts.append("iterations " + ", ".join(f"{c} {n}" for c, n in v.items()))
        elif k == "rows" and isinstance(v, dict):
            parts.extend(row_note_text(c, f) for c, f in v.items())
        elif k == "setup_solve_seconds" and isinstance(v, dict):
            parts.append("setup / solve s (slowest rank) "
                         + ", ".join(f"{c} {fmt(s[0])} / {fmt(s[1])}" for c, s in v.items()))
        elif isinstance(v, int):
            parts.append(f"{k} {v}")
        elif isinstance(v, float):
            parts.append(f"{k} {fmt(v)}")
        elif isinstance(v, str):
            parts.append(f"{k}: {v}")
    return "; ".join(parts)


def row_note_text(contender, f):
    """One contender's untimed figures in a sparse benchmark's case note
    (bench_cholesky: analysis, warm-up factorization, one solve, memory)."""
    if "failed" in f:
        return f"{contender}: failed: {f['failed']}"
    words = [f"analyze {fmt(f['analyze_s'])} s"] if "analyze_s" in f else []
    if "warm_factorize_s" in f:
        words.append(f"warm-up factorization {fmt(f['warm_factorize_s'])} s")
    if "solve_s" in f:
        ratio = f.get("solve_over_factorize")
        words.append(f"one solve {fmt(f['solve_s'])} s" + (f" ({fmt(ratio)} of it)" if ratio is not None else ""))
    if "gflop" in f:
        words.append(f"{fmt(f['gflop'])} GFLOP")
    if "backward_error" in f:
        words.append(f"backward error {f['backward_error']:.1e}")
    if "device_mib" in f:
        words.append(f"device {fmt(f['device_mib'])} MiB")
    for why in ("slow", "skipped"):
        if why in f:
            words.append(f"{why}: {f[why]}")
    return f"{contender}: " + ", ".join(words)


def note_run(bench, note):
    meta = note["_meta"]
    return run_label(bench, (meta.get("threads_requested", "?"), meta.get("device", "")))


def table(bench, rows, notes):
    """One row per case and contender, a column pair per run, then the case notes."""
    runs = sorted({r["_run"] for r in rows})
    by = {(case_key(r["case"]), r["contender"], r["_run"]): r for r in rows}
    titles = [run_header(bench, run, [r for r in rows if r["_run"] == run]) for run in runs]
    out = ["| case | contender | vs | " + " | ".join(f"{t} | ratio" for t in titles) + " |",
           "|---|---|---|" + "---|---|" * len(runs)]
    for key in in_order(case_key(r["case"]) for r in rows):
        in_case = [r for r in rows if case_key(r["case"]) == key]
        unit = in_case[0]["unit"]
        for i, who in enumerate(in_order(r["contender"] for r in in_case)):
            ref = next((r["reference"] for r in in_case if r["contender"] == who and "reference" in r), "")
            cells = []
            for run in runs:
                r = by.get((key, who, run))
                if r is None:
                    cells += ["", ""]
                    continue
                value = f"{fmt(r['median'])} ({fmt(r['min'])}-{fmt(r['max'])})"
                if r["unit"] != unit:
                    value += f" {r['unit']}"
                if r["threads"] != run[0] and not run[1]:
                    value += f" [ran {r['threads']}]"
                ratio = (f"{r['ratio_median']:.2f} ({r['ratio_min']:.2f}-{r['ratio_max']:.2f})"
                         if "ratio_median" in r else "")
                cells += [value, ratio]
            case = f"**{key}** · {unit}" if i == 0 else ""
            out.append(f"| {case} | {who} | {ref} | " + " | ".join(cells) + " |")
    out.append("")
    # A case's notes, one line for all its runs; said once where every run's is the same.
    by_case = {}
    for n in notes:
        if note_text(n):
            by_case.setdefault(case_key(n["case"]), []).append(n)
    for key, ns in by_case.items():
        texts = [note_text(n) for n in ns]
        if len(set(texts)) > 1:
            texts = [f"{note_run(bench, n)}: {t}" for n, t in zip(ns, texts)]
        out.append(f"- **{key}**: " + "; ".join(dict.fromkeys(texts)))
    return out + ([""] if by_case else [])


def pyplot():
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise BadData("writing the figures needs matplotlib: apt-get install python3-matplotlib") from None
    plt.rcParams["svg.hashsalt"] = "tessera"  # the same data gives the same file
    plt.rcParams["svg.fonttype"] = "none"
    return plt


def draw_ratios(plt, bench, ratio_rows):
    def short(text, n=34):
        return text if len(text) <= n else text[:n - 3] + "..."
    labels = [f"{short(r['case'])}\n{short(r['contender'])}\n{short(run_label(bench, r['_run'], short=True))}"
              for r in ratio_rows]
    med = [r["ratio_median"] for r in ratio_rows]
    lo = [r["ratio_median"] - r["ratio_min"] for r in ratio_rows]
    hi = [r["ratio_max"] - r["ratio_median"] for r in ratio_rows]
    fig, ax = plt.subplots(figsize=(min(40, max(6, 0.5 * len(ratio_rows))), 5.5))
    ax.bar(range(len(med)), med, yerr=[lo, hi], color=[bar_colour(r) for r in ratio_rows], capsize=3)
    ax.set_yscale("log")  # ratios of 0.1 and 10 are equally far from parity
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_xticks(range(len(med)), labels, fontsize=6, rotation=90)
    ax.set_ylabel("reference time / contender time")
    ax.set_title(f"{bench}: time ratio to the reference (bars: median, whiskers: min-max;\n"
                 "blue: in Tessera's favour, orange: not, grey: Tessera against Tessera)", fontsize=9)
    fig.tight_layout()
    return fig


def draw_scaling(plt, bench, rows, keys):
    counts = sorted({r["_run_threads"] for r in rows})
    cols = min(4, len(keys))
    nrows = (len(keys) + cols - 1) // cols
    fig, axes = plt.subplots(nrows, cols, figsize=(4.5 * cols, 3.8 * nrows), squeeze=False)
    for ax in axes.flat[len(keys):]:
        ax.set_visible(False)
    for ax, key in zip(axes.flat, keys):
        in_case = [r for r in rows if case_key(r["case"]) == key]
        for who in in_order(r["contender"] for r in in_case):
            pts = sorted((r["_run_threads"], r["median"]) for r in in_case if r["contender"] == who)
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=who)
        ax.set_xlabel("ranks" if is_mpi(bench) else "threads requested")
        ax.set_ylabel(in_case[0]["unit"])
        ax.set_xticks(counts)
        ax.set_title(key if len(key) <= 48 else key[:45] + "...", fontsize=9)
        ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


def figures(bench, rows, write, folder):
    """The markdown line that shows a benchmark's figures; writes them when
    write (only then is matplotlib needed)."""
    plots = []
    ratio_rows = [r for r in rows if "ratio_median" in r]
    if ratio_rows:
        plots.append(("ratios", "ratios", lambda plt: draw_ratios(plt, bench, ratio_rows)))
    keys = in_order(case_key(r["case"]) for r in rows)
    keys = [k for k in keys if len({r["_run_threads"] for r in rows if case_key(r["case"]) == k}) > 1]
    if keys:
        plots.append(("scaling", "scaling over " + ("ranks" if is_mpi(bench) else "threads"),
                      lambda plt: draw_scaling(plt, bench, rows, keys)))
    if write and plots:
        plt = pyplot()
        folder.mkdir(parents=True, exist_ok=True)
        for kind, _, draw in plots:
            fig = draw(plt)
            fig.savefig(folder / f"{bench}-{kind}.svg", metadata={"Date": None})
            plt.close(fig)
    return [" ".join(f"![{bench}: {alt}](figures/{bench}-{kind}.svg)" for kind, alt, _ in plots)] if plots else []


def marker(name, source):
    return f"<!-- generated:{name} --> <!-- from {source} by ci/perf_report.py; do not edit by hand -->"


def placeholder(bench, why="Not measured yet"):
    how = GPU_BENCHES.get(bench, f"`bash ci/bench.sh {bench}` on a quiet machine")
    return "\n".join([marker(bench, f"docs/perf/{bench}.jsonl"), f"{why}: run {how}.", "",
                      f"<!-- end generated:{bench} -->"])


def generate(bench, rows, notes, write, folder):
    if not rows:
        skipped = [n["skipped"] for n in notes if "skipped" in n]
        return placeholder(bench, f"Not measured ({skipped[0]})" if skipped else "Not measured yet")
    body = [marker(bench, f"docs/perf/{bench}.jsonl")]
    body += table(bench, rows, notes)
    body += figures(bench, rows, write, folder)
    body.append(f"<!-- end generated:{bench} -->")
    return "\n".join(body)


# ---- the goal summary -------------------------------------------------------------

def read_goals(path, benches):
    """The goals of docs/perf/goals.json, checked: each names a benchmark, a
    selector of Tessera-peer pairings, and either a target (direction and
    threshold on peer time / Tessera time) or none (reported only). A goal
    with a 'unit' is on Tessera's own median in that unit instead (1 ms per
    PageRank iteration, 100 Mtasks/s): its selector names case and
    Tessera's contender, and its 'peer' says what the figure stands
    against."""
    try:
        goals = json.loads(path.read_text())["goals"]
    except (OSError, json.JSONDecodeError, KeyError, TypeError) as e:
        raise BadData(f"{path}: not a goals file ({e})") from None
    for i, g in enumerate(goals):
        where = f"{path}: goal {i + 1} ({g.get('goal', 'no wording')})"
        for key in ("goal", "peer", "bench", "select", "source"):
            if key not in g:
                raise BadData(f"{where}: missing '{key}'")
        if g["bench"] not in benches:
            raise BadData(f"{where}: unknown benchmark '{g['bench']}'")
        if ("direction" in g) != ("threshold" in g) or g.get("direction", ">=") not in TARGET_SIGN:
            raise BadData(f"{where}: 'direction' (>= or <=) and 'threshold' go together, or neither (report only)")
        if "unit" in g and "threshold" not in g:
            raise BadData(f"{where}: a 'unit' goal (Tessera's own median in that unit) needs direction and threshold")
        keys = ("case", "tessera") if "unit" in g else ("case", "tessera", "peer")
        try:
            g["_select"] = {k: re.compile(g["select"][k]) for k in keys}
        except (KeyError, TypeError, re.error) as e:
            raise BadData(f"{where}: 'select' needs {', '.join(keys)} regular expressions ({e})") from None
        if not all(isinstance(n, int) and n > 0 for n in g.get("threads", [])):
            raise BadData(f"{where}: 'threads' is a list of thread (rank) counts")
    return goals


def pairings(rows, select):
    """(row, Tessera's name, the peer's, (median, min, max)) of each selected
    Tessera-peer pairing, as peer time / Tessera time: a row's ratio is its
    reference's time / its own, so it is inverted where the peer is the row
    and Tessera its reference."""
    for r in rows:
        if "ratio_median" not in r or not select["case"].search(case_key(r["case"])):
            continue
        own, ref = r["contender"], r["reference"]
        if select["tessera"].search(own) and select["peer"].search(ref):
            yield r, own, ref, (r["ratio_median"], r["ratio_min"], r["ratio_max"])
        elif select["peer"].search(own) and select["tessera"].search(ref):
            yield r, ref, own, tuple(1 / v if v else float("inf")
                                     for v in (r["ratio_median"], r["ratio_max"], r["ratio_min"]))


def own_figures(rows, select, unit, where):
    """(row, Tessera's name, "", (median, min, max)) of each selected row of a
    unit goal: Tessera's own figures, in the goal's unit."""
    for r in rows:
        if select["case"].search(case_key(r["case"])) and select["tessera"].search(r["contender"]):
            if r["unit"] != unit:
                raise BadData(f"{where}: the goal is in {unit}, the row '{r['case']}' / '{r['contender']}' in {r['unit']}")
            yield r, r["contender"], "", (r["median"], r["min"], r["max"])


def fmt_ratio(v):
    """Three decimals, so that a median just under its target does not print as the target."""
    return f"{v:.3f}" if v < 10 else fmt(v)


def summary(goals, data):
    """The summary table: a row per goal and thread (rank) count it names, or
    per goal without counts, each from the latest run with that count: the
    worst pairing the goal selects there, and met or missed."""
    out = ["| goal | peer | run | target | peer time / Tessera time, median (min-max) | machine | date | status |",
           "|---|---|---|---|---|---|---|---|"]
    for g in goals:
        unit = g.get("unit")
        if unit:
            found = list(own_figures(data[g["bench"]][0], g["_select"], unit, g["goal"]))
        else:
            found = list(pairings(data[g["bench"]][0], g["_select"]))
        target = f"{TARGET_SIGN[g['direction']]} {g['threshold']:g}" if "threshold" in g else "report only"
        if unit:
            target += f" {unit} (Tessera's own)"
        low = g.get("direction", ">=") == ">="
        for i, n in enumerate(g.get("threads") or [None]):
            lead = f"| {g['goal']} | {g['peer']} |" if i == 0 else "| | |"
            label = run_label(g["bench"], (n, "")) if n else "GPU" if g["bench"] in GPU_BENCHES else None
            cands = [c for c in found if n is None or c[0]["_run_threads"] == n]
            if not cands:
                out.append(f"{lead} {label or 'latest run'} | {target} | - | - | - | not measured |")
                continue
            latest = max(c[0]["_meta"].get("time", 0) for c in cands)
            cands = [c for c in cands if c[0]["_meta"].get("time", 0) == latest]
            worst = (min if low else max)(cands, key=lambda c: c[3][0])
            r, (med, lo, hi) = worst[0], worst[3]
            label = label or run_label(g["bench"], r["_run"])
            if "threshold" not in g:
                status = "report only"
            else:
                status = "met" if (med >= g["threshold"] if low else med <= g["threshold"]) else "**missed**"
            ratio = f"{fmt_ratio(med)} ({fmt_ratio(lo)}-{fmt_ratio(hi)})" + (f" {unit}" if unit else "")
            which = worst_of(cands, worst)
            busy = " (busy)" if is_busy(r["_meta"]) else ""
            out.append(f"{lead} {label} | {target} | {ratio}{', ' + which if which else ''} | "
                       f"{machine_of(r['_meta'])} | {date_of(r['_meta'])}{busy} | {status} |")
    return out


def worst_of(cands, worst):
    """What tells the worst pairing from the others of its run: its case (up
    to any parenthesis) where the goal spans several, then Tessera's
    contender where that case has several, then the peer where that
    contender has several."""
    def case(c):
        return case_key(c[0]["case"]).split(" (")[0]
    same_case = [c for c in cands if case(c) == case(worst)]
    same_tessera = [c for c in same_case if c[1] == worst[1]]
    return ", ".join(part for part, among in ((case(worst), {case(c) for c in cands}),
                                              (worst[1], {c[1] for c in same_case}),
                                              (worst[2], {c[2] for c in same_tessera})) if len(among) > 1)


# ---- main -------------------------------------------------------------------------------

def replace_block(text, name, block, report):
    pattern = re.compile(rf"<!-- generated:{re.escape(name)} -->.*?<!-- end generated:{re.escape(name)} -->", re.S)
    if not pattern.search(text):
        raise BadData(f"{report}: no '<!-- generated:{name} -->' ... '<!-- end generated:{name} -->' markers")
    return pattern.sub(lambda _: block, text)


# 700: the page is read in one sitting (issue 27). The GPU benchmarks' tables
# are on a page of their own beside it (gpu_page), with the same limit; their
# goals stay in this page's summary.
MAX_REPORT_LINES = 700


def gpu_page(report):
    """The page holding the GPU benchmarks' blocks: <report>-gpu.md beside the
    report when it exists, else the report itself."""
    page = report.with_name(report.stem + "-gpu" + report.suffix)
    return page if page.exists() else report


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="fail if docs/performance.md is not what the data gives")
    ap.add_argument("--data", type=pathlib.Path, default=DATA, help="folder of <bench>.jsonl files")
    ap.add_argument("--goals", type=pathlib.Path, default=GOALS, help="the goals file")
    ap.add_argument("--report", type=pathlib.Path, default=REPORT,
                    help="the markdown file to update (the GPU benchmarks' blocks: <report>-gpu.md if it exists)")
    args = ap.parse_args()
    report = args.report
    gpu = gpu_page(report)
    text = {page: page.read_text() for page in {report, gpu}}
    new = dict(text)
    try:
        names = in_order(known_benches() + [p.stem for p in sorted(args.data.glob("*.jsonl"))])
        data = {}
        for bench in names:
            page = gpu if bench in GPU_BENCHES else report
            path = args.data / f"{bench}.jsonl"
            data[bench] = load(path) if path.exists() else ([], [])
            block = generate(bench, *data[bench], not args.check, page.parent / "figures")
            new[page] = replace_block(new[page], bench, block, page)
            if args.check:
                for fig in re.findall(r"\]\((figures/[^)]+)\)", block):
                    if not (page.parent / fig).exists():
                        raise BadData(f"{page}: {fig} is missing; run python3 ci/perf_report.py")
        goals = read_goals(args.goals, names)
        block = "\n".join([marker("summary", "docs/perf/goals.json and docs/perf/*.jsonl")]
                          + summary(goals, data) + ["", "<!-- end generated:summary -->"])
        new[report] = replace_block(new[report], "summary", block, report)
    except BadData as e:
        print(f"perf_report: {e}", file=sys.stderr)
        return 2
    if args.check:
        for page in sorted(text):
            if new[page] != text[page]:
                print(f"perf_report: {page} differs from what {args.data}/*.jsonl and {args.goals} give; "
                      "run python3 ci/perf_report.py", file=sys.stderr)
                return 1
            # Each page is meant to be read in one sitting (issue 27):
            # analyses belong in docs/perf/history.md, not here.
            lines = new[page].count("\n")
            if page.parent == REPORT.parent and lines >= MAX_REPORT_LINES:
                print(f"perf_report: {page} has {lines} lines, the limit is {MAX_REPORT_LINES - 1}; "
                      "move prose to docs/perf/history.md", file=sys.stderr)
                return 1
        return 0
    for page in text:
        if new[page] != text[page]:
            page.write_text(new[page])
    return 0


if __name__ == "__main__":
    sys.exit(main())
