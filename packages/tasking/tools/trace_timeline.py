#!/usr/bin/python3
"""Draws a TESSERA_TRACE file as a timeline picture (SVG or PNG).

One row per thread (the trace's tid), slices as boxes (nested slices, such
as tasks run inline inside another task, one lane lower), respawned runs
hatched, flow arrows from each task to the task that waited on it (solid)
and from each run of a respawned task to its next run (dashed). This is a
stand-in for a screenshot of Perfetto (ui.perfetto.dev) or chrome://tracing,
which draw the same file interactively; it needs only matplotlib:

  /usr/bin/python3 packages/tasking/tools/trace_timeline.py trace.json out.svg
      [--all]            also show kernel and region slices outside the tasks' time span
      [--from US --to US]  window in microseconds of the trace's clock
      [--title TEXT]
"""
import argparse
import json
import sys
import zlib

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import FancyArrowPatch, Patch, Rectangle  # noqa: E402


def load(path):
    with open(path) as f:
        doc = json.load(f)
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    slices, flows = [], {}
    for e in events:
        ph = e.get("ph")
        if ph == "X":
            slices.append({"name": e["name"], "cat": e.get("cat", ""), "tid": e["tid"],
                           "start": float(e["ts"]), "end": float(e["ts"]) + float(e.get("dur", 0)),
                           "args": e.get("args", {})})
        elif ph in ("s", "f"):
            flows.setdefault(e["id"], {})[ph] = e
    return slices, flows


def is_task(s):
    return s["cat"].split(",")[0] == "task"


def assign_lanes(slices):
    """Depth of each slice on its thread (0: outermost)."""
    by_tid = {}
    for s in slices:
        by_tid.setdefault(s["tid"], []).append(s)
    for row in by_tid.values():
        row.sort(key=lambda s: (s["start"], -(s["end"] - s["start"])))
        stack = []
        for s in row:
            while stack and stack[-1]["end"] <= s["start"]:
                stack.pop()
            s["lane"] = len(stack)
            stack.append(s)
    return sorted(by_tid)


def enclosing(slices, tid, ts):
    best = None
    for s in slices:
        if s["tid"] == tid and s["start"] <= ts <= s["end"]:
            if best is None or s["end"] - s["start"] < best["end"] - best["start"]:
                best = s
    return best


def color_of(name):
    palette = plt.get_cmap("tab10").colors
    return palette[zlib.crc32(name.encode()) % len(palette)]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("trace")
    ap.add_argument("out")
    ap.add_argument("--all", action="store_true")
    ap.add_argument("--from", dest="t0", type=float)
    ap.add_argument("--to", dest="t1", type=float)
    ap.add_argument("--title", default=None)
    a = ap.parse_args()

    slices, flows = load(a.trace)
    tasks = [s for s in slices if is_task(s)]
    if not tasks and not a.all:
        sys.exit(f"{a.trace}: no task slices (was the scheduler made while the trace was recorded?)")
    span = slices if a.all else tasks
    t0 = a.t0 if a.t0 is not None else min(s["start"] for s in span)
    t1 = a.t1 if a.t1 is not None else max(s["end"] for s in span)
    pad = 0.01 * (t1 - t0)
    shown = [s for s in slices if s["end"] >= t0 and s["start"] <= t1]
    tids = assign_lanes(shown)
    lanes = max(s["lane"] for s in shown) + 1
    row_h = 1.0
    lane_h = 0.8 / lanes
    y_of_row = {tid: i for i, tid in enumerate(tids)}

    def y(s):  # top of the slice's box
        return y_of_row[s["tid"]] * row_h + 0.1 + s["lane"] * lane_h

    fig, ax = plt.subplots(figsize=(11, 1.2 + 1.3 * len(tids)))
    names = {}
    for s in shown:
        x0, x1 = max(s["start"], t0 - pad), min(s["end"], t1 + pad)
        respawn = "respawn" in s["cat"].split(",")
        face = color_of(s["name"]) if is_task(s) else (0.85, 0.85, 0.85)
        ax.add_patch(Rectangle((x0, y(s)), max(x1 - x0, 1e-9), lane_h * 0.9, facecolor=face,
                               edgecolor="black", linewidth=0.3, hatch="////" if respawn else None))
        if is_task(s):
            names.setdefault(s["name"], face)
        if (x1 - x0) > 0.06 * (t1 - t0):
            label = s["name"] if is_task(s) else s["name"].split(" [")[0]
            ax.text((x0 + x1) / 2, y(s) + lane_h * 0.45, label, ha="center", va="center", fontsize=7, clip_on=True)

    n_dep = n_resp = 0
    for fid, ends in flows.items():
        if "s" not in ends or "f" not in ends:
            continue
        s, f = ends["s"], ends["f"]
        a_sl = enclosing(shown, s["tid"], float(s["ts"]))
        b_sl = enclosing(shown, f["tid"], float(f["ts"]))
        if a_sl is None or b_sl is None:
            continue
        respawn = s.get("name") == "respawn"
        n_resp += respawn
        n_dep += not respawn
        arrow = FancyArrowPatch((float(s["ts"]), y(a_sl) + lane_h * 0.45), (float(f["ts"]), y(b_sl) + lane_h * 0.45),
                                arrowstyle="-|>", mutation_scale=6, linewidth=0.6,
                                linestyle="--" if respawn else "-",
                                color=(0.45, 0.45, 0.45) if respawn else (0.1, 0.1, 0.1),
                                connectionstyle="arc3,rad=0.15", zorder=3)
        ax.add_patch(arrow)

    ax.set_xlim(t0 - pad, t1 + pad)
    ax.set_ylim(len(tids) * row_h, 0)
    ax.set_yticks([y_of_row[t] * row_h + 0.5 for t in tids])
    ax.set_yticklabels([f"thread {t}" for t in tids])
    ax.set_xlabel("time [µs] (trace clock)")
    ax.set_title(a.title or f"{a.trace}: {len(tasks)} task slices, {n_dep} dependence and {n_resp} respawn arrows",
                 fontsize=9)
    handles = [Patch(facecolor=c, edgecolor="black", label=n) for n, c in sorted(names.items())]
    handles.append(Patch(facecolor="white", edgecolor="black", hatch="////", label="respawned run"))
    handles.append(Patch(facecolor=(0.85, 0.85, 0.85), edgecolor="black", label="kernel / region"))
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.25 if len(tids) < 3 else -0.12),
              ncol=min(len(handles), 6), fontsize=7, frameon=False)
    fig.tight_layout()
    fig.savefig(a.out, dpi=110, metadata={"Date": None} if a.out.endswith(".svg") else None)
    print(f"wrote {a.out}: {len(shown)} slices on {len(tids)} threads, {n_dep} dependence and {n_resp} respawn arrows")


if __name__ == "__main__":
    main()
