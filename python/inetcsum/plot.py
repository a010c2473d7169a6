"""Plots of an `inetcsum bench --json` run, drawn with matplotlib.

`inetcsum bench --plot FILE` runs this script as ``python3 plot.py RUN.json FILE``; it can also be
run by hand on any saved run.  One figure, with a row of panels per experiment present in the run:

- sizes: GB/s against size for every kernel and the anchors (independent calls) and ns per call
  (dependent ones), even start addresses, log-log so the small sizes and 64 KiB share one picture,
  the sizes the tables lead with (576, 1,500, 9,000 B) marked; with DPDK in the run, a third panel
  of inetcsum's time over DPDK's at each size (the README's ratio).  Size 0 has no place on a log
  axis: the panel says so rather than drop it quietly;
- copy / jitter: call-time percentiles (p0 to p99.99, and the maximum: a triangle on the top edge
  when it lies beyond twice the p99.99) of the fused copy, memcpy then sum, and memcpy alone, one
  panel per size; jitter's busy runs dashed (hollow markers) beside the idle ones;
- cold / prefetch / offload: the medians as bars, with their interquartile range.

Exit status: 0, 2 for a bad input, 3 when matplotlib is missing (the bench command then says how
to install it).
"""

import json
import math
import sys


def load_matplotlib():
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.stderr.write("plot.py: matplotlib is not installed (pip install matplotlib)\n")
        sys.exit(3)
    return plt


def figures(run, experiment, **match):
    return [
        f
        for f in run["figures"]
        if f["experiment"] == experiment and all(f.get(k) == v for k, v in match.items())
    ]


def contenders_in_order(figs):
    seen = []
    for f in figs:
        if f["contender"] not in seen:
            seen.append(f["contender"])
    return seen


def legend_outside(ax):
    """The legend beside the panel, right of its data, never over the curves."""
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0, frameon=False)


# Sized for a README (GitHub shows images about 900 px wide) and a slide: each panel 6 x 4 inches
# with its legend beside it, drawn at 160 dpi in raster formats (a two-panel sizes plot: about
# 1,900 x 640 px).
PANEL = (6.0, 4.0)
DPI = 160


# The sizes the tables lead with: marked on the size axes.
TABLE_SIZES = (576, 1500, 9000)
# Distinct colours (tab10's, not tab20's light and dark pairs), each with its own marker after ten.
MARKERS = ("o", "s", "^", "D", "v")


def size_label(size):
    return f"{size // 1024}K" if size >= 4096 and size % 1024 == 0 else str(size)


def size_axis(ax, sizes):
    """A log2 size axis labelled at the sizes measured, the tables' sizes marked."""
    ax.set_xscale("log", base=2)
    ax.set_xticks(sizes)
    ax.set_xticklabels([size_label(s) for s in sizes], fontsize=7, rotation=45)
    ax.minorticks_off()
    for s in TABLE_SIZES:
        if sizes and sizes[0] <= s <= sizes[-1]:
            ax.axvline(s, color="grey", linewidth=0.6, linestyle=":", zorder=0)
    ax.set_xlabel("bytes per call (dotted: 576, 1,500, 9,000)")


def plot_sizes(axes, run):
    import matplotlib

    palette = matplotlib.colormaps["tab10"]
    tsc_hz = run.get("machine", {}).get("tsc_hz") or 0
    for ax, metric in zip(axes, ("throughput", "latency")):
        every = figures(run, "sizes", metric=metric, variant="even")
        figs = [f for f in every if f["size"] > 0]
        sizes = sorted({f["size"] for f in figs})
        for i, name in enumerate(contenders_in_order(figs)):
            pts = sorted((f["size"], f["median"]) for f in figs if f["contender"] == name)
            if metric == "throughput" and tsc_hz:  # GB/s: bytes over the call's time
                ys = [size * tsc_hz / ticks / 1e9 if ticks > 0 else float("nan") for size, ticks in pts]
            elif tsc_hz:  # ns per call
                ys = [ticks * 1e9 / tsc_hz for _, ticks in pts]
            else:  # (a run without the TSC's frequency: ticks as measured)
                ys = [ticks for _, ticks in pts]
            style = "--" if name in ("read limit", "DPDK", "Linux") else "-"
            width = 2.5 if name == "inetcsum" else 1.2
            ax.plot([p[0] for p in pts], ys, style, marker=MARKERS[(i // 10) % len(MARKERS)], markersize=3,
                    linewidth=width, label=name, color="black" if name == "inetcsum" else palette(i % 10))
        size_axis(ax, sizes)
        ax.set_yscale("log")
        unit = ("GB/s" if metric == "throughput" else "ns per call") if tsc_hz else "TSC ticks per call"
        ax.set_ylabel(unit)
        title = f"sum, {metric} ({'independent' if metric == 'throughput' else 'dependent'} calls)"
        if any(f["size"] == 0 for f in every):
            title += "\n(0 B, a call's fixed cost: in the tables, not on a log axis)"
        ax.set_title(title, fontsize=9)
        ax.grid(True, which="both", alpha=0.3)
        legend_outside(ax)
    if len(axes) > 2:
        plot_ratio(axes[2], run)


def plot_ratio(ax, run):
    """inetcsum's time over DPDK's at each size (independent calls, even and odd start)."""
    for variant, style in (("even", "-"), ("odd", "--")):
        figs = figures(run, "sizes", metric="throughput", variant=variant)
        ours = {f["size"]: f["median"] for f in figs if f["contender"] == "inetcsum" and f["size"] > 0}
        dpdk = {f["size"]: f["median"] for f in figs if f["contender"] == "DPDK" and f["size"] > 0}
        sizes = sorted(set(ours) & set(dpdk))
        if sizes:
            ax.plot(sizes, [ours[s] / dpdk[s] for s in sizes], style, marker="o", markersize=3, color="black",
                    label=f"{variant} start")
    ax.axhline(1.0, color="grey", linewidth=0.8)
    size_axis(ax, sorted({f["size"] for f in figures(run, "sizes", contender="DPDK") if f["size"] > 0}))
    ax.set_ylabel("inetcsum's time / DPDK's (below 1: faster)")
    ax.set_title("ratio to DPDK's __rte_raw_cksum", fontsize=9)
    ax.grid(True, which="both", alpha=0.3)
    legend_outside(ax)


def nines(q):
    """Position on a 'number of nines' axis: p50 -> 0.3, p99 -> 2, p99.9 -> 3."""
    return -math.log10(max(1.0 - q, 1e-5))


def plot_distributions(axes, run, experiment):
    figs = figures(run, experiment, metric="call time")
    sizes = sorted({f["size"] for f in figs})
    colours = {}
    for ax, size in zip(axes, sizes):
        here = [f for f in figs if f["size"] == size]
        # The maxima (often a preemption, 100 us and more) would flatten the curves: the axis stops
        # at twice the highest p99.99 and a maximum beyond it is drawn on the edge, its value written.
        top = 2 * max(v for f in here for q, v in f["quantiles"] if q < 1)
        for f in here:
            pts = [(nines(q), v) for q, v in f["quantiles"] if q < 1]
            colour = colours.setdefault(f["contender"], f"C{len(colours)}")
            busy = f.get("variant") == "busy"
            label = f["contender"] + (" (busy)" if busy else "") if experiment == "jitter" else f["contender"]
            ax.plot([p[0] for p in pts], [p[1] for p in pts], "--" if busy else "-", color=colour, label=label)
            peak = f["distribution"]["max"]
            ax.plot([5.2], [min(peak, top)], ("^" if peak > top else "o"), color=colour, markersize=4,
                    fillstyle="none" if busy else "full")
        ax.set_yscale("log")
        ax.set_ylim(top=top)
        ticks = [0, 1, 2, 3, 4, 5.2]
        ax.set_xticks(ticks)
        ax.set_xticklabels(["p0", "p90", "p99", "p99.9", "p99.99", "max"], fontsize=7)
        ax.set_ylabel("ns per call")
        ax.set_title(f"{experiment}: {size} B")
        ax.grid(True, which="both", alpha=0.3)
        legend_outside(ax)


def plot_bars(ax, figs, title, unit):
    names = [f["contender"] for f in figs]
    med = [f["median"] for f in figs]
    err = [[f["median"] - f["q1"] for f in figs], [f["q3"] - f["median"] for f in figs]]
    ax.barh(range(len(figs)), med, xerr=err, color="C0")
    ax.set_yticks(range(len(figs)))
    ax.set_yticklabels(names, fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel(unit)
    ax.set_title(title)
    ax.grid(True, axis="x", alpha=0.3)


FORMATS = (".svg", ".png", ".pdf")


def check(out: str) -> int:
    """What `inetcsum bench --plot` asks before a run: can OUT be drawn here (its format, matplotlib)?"""
    if not out.lower().endswith(FORMATS):
        sys.stderr.write(f"plot.py: {out}: the name must end in .svg, .png or .pdf (the format drawn)\n")
        return 2
    load_matplotlib()
    return 0


def draw(run):
    """The run's figure (matplotlib), or None when it holds nothing to plot."""
    plt = load_matplotlib()

    rows = []
    if figures(run, "sizes"):
        rows.append(("sizes", 3 if figures(run, "sizes", contender="DPDK") else 2))
    for experiment in ("copy", "jitter"):
        n = len({f["size"] for f in figures(run, experiment, metric="call time")})
        if n:
            rows.append((experiment, n))
    bars = [e for e in ("cold", "prefetch", "offload") if figures(run, e)]
    if bars:
        rows.append(("bars", len(bars)))
    if not rows:
        return None
    columns = max(n for _, n in rows)
    fig, grid = plt.subplots(len(rows), columns, figsize=(PANEL[0] * columns, PANEL[1] * len(rows)), squeeze=False,
                             layout="constrained")
    for r, (kind, n) in enumerate(rows):
        axes = list(grid[r][:n])
        for ax in grid[r][n:]:
            ax.set_visible(False)
        if kind == "sizes":
            plot_sizes(axes, run)
        elif kind in ("copy", "jitter"):
            plot_distributions(axes, run, kind)
        else:
            for ax, exp in zip(axes, bars):
                if exp == "offload":
                    figs = [f for f in figures(run, exp) if f["size"] == 64]
                    plot_bars(ax, figs, "offload: 64-byte frames", "packets per second")
                else:
                    figs = figures(run, exp, metric="throughput")
                    plot_bars(ax, figs, f"{exp}: 1500-byte slices of cold data", "GB/s")
    m = run.get("machine", {})
    scale = run.get("settings", {}).get("scale", "?")
    fig.suptitle(
        f"inetcsum {run.get('version', '?')} bench, {m.get('cpu_model', '?')}, "
        f"TSC {m.get('tsc_hz', 0) / 1e9:.3f} GHz, kernel {m.get('kernel_chosen', '?')} ({scale} run)",
        fontsize=10,
    )
    if scale == "smoke":  # (a few calls each: the clock's steps show, and nothing should be read off it)
        fig.text(0.5, 0.5, "--smoke: checks the tool works; its figures mean nothing", ha="center", va="center",
                 fontsize=28, color="red", alpha=0.25, rotation=20)
    return fig


def main(argv):
    if len(argv) == 3 and argv[1] == "--check":
        return check(argv[2])
    if len(argv) != 3:
        sys.stderr.write("usage: plot.py RUN.json OUT.svg|.png|.pdf  (or plot.py --check OUT)\n")
        return 2
    try:
        with open(argv[1]) as f:
            run = json.load(f)
        run["figures"]
    except (OSError, ValueError, KeyError) as e:
        sys.stderr.write(f"plot.py: {argv[1]}: not an inetcsum bench run: {e}\n")
        return 2
    fig = draw(run)
    if fig is None:
        sys.stderr.write("plot.py: the run holds nothing to plot\n")
        return 2
    fig.savefig(argv[2], dpi=DPI)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
