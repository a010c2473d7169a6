#!/usr/bin/env python3
"""The tuning data: `inetcsum bench sweep` runs kept per machine, and the tuning rows they call for.

    bench/tuning_data.py add RUN.json        # RUN.json from `inetcsum bench sweep --json RUN.json`
    bench/tuning_data.py summary             # every machine kept: what its row should say
    bench/tuning_data.py rate STEPS INLINE_BELOW [MATCH]
                                             # a row on every machine kept (or those whose file
                                             # name contains MATCH): its time over the best per class

`add` writes bench/tuning-data/<cpu>-<date>.csv (<cpu>-<date>-2.csv and on for more runs that day): a comment header naming the machine (CPU model,
family and model numbers, TSC, compiler, the kernel and row the run used), then one line per size
and start parity with every contender's median TSC ticks per call.  Nothing else is kept, so a
file is a few hundred kilobytes and the next machine's run adds to the folder, not to a table by
hand.

`summary` reads every file and prints, per machine and per size class (the powers of two the
dispatcher chooses by), the fastest of the library's kernels and its inline code, by how much, and
the row that follows: where a kernel overtakes the inline code (a row's inline_below, 65..256 B; 64 B is inline on every CPU)
and which kernel each class from there should use (its steps), as lib/tuning.c spells them.  A
kernel replaces the one before only when 3% faster over the class (noise between runs).

`rate` takes a row as summary prints it, e.g. rate '{{0, "avx512vnni"}}' 65, and prints per run
its time over the best of the library's ways per class, and its worst: how the default rows for
CPUs without one of their own (lib/tuning.c) are chosen and checked."""
import csv
import json
import os
import re
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.environ.get("INETCSUM_TUNING_DATA") or os.path.join(HERE, "tuning-data")  # (tests use their own)
ANCHORS = {"inetcsum", "inetcsum inlined", "inetcsum inlined -O2", "read limit", "DPDK", "Linux", "VPP"}  # not kernels a row may name
MARGIN = 1.03


def add(run_path: str) -> str:
    with open(run_path) as f:
        run = json.load(f)
    figs = [x for x in run["figures"] if x["name"].startswith("sweep/") and "ticks" in x]
    if not figs:
        sys.exit(f"tuning_data: {run_path} has no sweep figures (run `inetcsum bench sweep --json FILE`)")
    m = run["machine"]
    names = sorted({k for x in figs for k in x["ticks"]})
    date = run["settings"].get("date", "")[:10]
    model = re.sub(r"\((R|TM|tm|r)\)", "", m["cpu_model"])
    slug = re.sub(r"[^a-z0-9]+", "-", f"{model} f{m['cpu_family']} m{m['cpu_model_number']}".lower()).strip("-")
    os.makedirs(DATA, exist_ok=True)
    # A second run of the same machine on the same day gets a file of its own (-2, -3, ...): a run
    # kept is never overwritten, the figures of an earlier build are what its rows were read from.
    for n in range(1, 1000):
        path = os.path.join(DATA, f"{slug}-{date}{'' if n == 1 else f'-{n}'}.csv")
        try:
            out = open(path, "x", newline="")
            break
        except FileExistsError:
            continue
    else:
        sys.exit(f"tuning_data: {DATA} holds 999 runs of {slug} on {date} already")
    with out:
        out.write(f"# cpu: {m['cpu_model']} (family {m['cpu_family']} model {m['cpu_model_number']}), "
                  f"{m['cpus_online']} CPUs, TSC {m['tsc_hz'] / 1e9:.3f} GHz, {m['os']} {m['os_release']}\n")
        out.write(f"# build: compiler {m['compiler']}, {m.get('dpdk', 'no DPDK')}, best-first kernel {m['kernel_chosen']}, "
                  f"tuning row {m.get('tuning_row') or 'none'}\n")
        out.write(f"# run: {date}, inetcsum {run.get('version', '?')} (source {m.get('source', 'unknown')}), "
                  f"{run['settings']['trials']} trials, median TSC ticks per call (independent calls)\n")
        w = csv.writer(out)
        w.writerow(["size", "parity"] + names)
        for x in sorted(figs, key=lambda x: (x["size"], x["variant"])):
            w.writerow([x["size"], x["variant"]] + [f"{x['ticks'].get(n, float('nan')):.2f}" for n in names])
    return path


def load(path: str):
    with open(path) as f:
        header = [line[2:].rstrip() for line in f if line.startswith("# ")]
    with open(path) as f:
        rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
    return header, rows


def classes(rows):
    """{class start: {contender: mean ticks over the class's sizes and parities}}"""
    by = {}
    for r in rows:
        size = int(r["size"])
        c = 1 << (size.bit_length() - 1)
        for k, v in r.items():
            if k not in ("size", "parity") and v != "nan":
                by.setdefault(c, {}).setdefault(k, []).append(float(v))
    return {c: {k: statistics.mean(v) for k, v in d.items()} for c, d in sorted(by.items())}


def summary() -> None:
    files = sorted(f for f in os.listdir(DATA) if f.endswith(".csv")) if os.path.isdir(DATA) else []
    if not files:
        sys.exit(f"tuning_data: nothing in {DATA} yet (add a run first)")
    for name in files:
        header, rows = load(os.path.join(DATA, name))
        print(f"## {name}\n" + "".join(f"   {h}\n" for h in header))
        cls = classes(rows)
        inline_below, steps, current = None, [], None
        print("| sizes (B) | fastest | ticks | runner-up x | inline x | inetcsum x | inlined x |")
        print("|---|---|---|---|---|---|---|")
        for c, t in cls.items():
            kernels = {k: v for k, v in t.items() if k not in ANCHORS}
            order = sorted(kernels, key=kernels.get)
            best = order[0]
            runner = kernels[order[1]] / kernels[best] if len(order) > 1 else float("nan")
            print(f"| {c}-{2 * c - 1} | {best} | {kernels[best]:.1f} | {runner:.2f} | "
                  f"{t.get('inline', float('nan')) / kernels[best]:.2f} | {t.get('inetcsum', float('nan')) / kernels[best]:.2f} | "
                  f"{t.get('inetcsum inlined', float('nan')) / kernels[best]:.2f} |")
            vector = {k: v for k, v in kernels.items() if k != "inline"}
            vbest = min(vector, key=vector.get)
            if inline_below is None and c >= 64 and (c >= 256 or vector[vbest] * MARGIN < t.get("inline", float("inf"))):
                inline_below = max(min(c, 256), 65)  # (64 B: inline on every CPU)
            if inline_below is not None and 2 * c - 1 >= inline_below:  # (a class partly kernel's)
                if current is None or vector[vbest] * MARGIN < vector.get(current, float("inf")):
                    current = vbest
                    steps.append((0 if not steps else c, vbest))
        row = ", ".join(f'{{{a}, "{k}"}}' for a, k in steps)
        print(f"\nrow: steps {{{row}}}, inline_below {inline_below}\n")
        print("(kernels timed here are called directly; through the public entry each call also pays its jump,\n"
              " 0.5-0.7 ticks on the Zen 5 guest: where the inline code and a kernel are within 10%, settle\n"
              " inline_below with `inetcsum bench row` on the machine.)\n")


def parse_row(steps_text: str, inline_below: str):
    """'{{0, "a"}, {128, "b"}}' and '65' (as summary prints a row) -> (65, [(0, "a"), (128, "b")])"""
    steps = [(int(a), k) for a, k in re.findall(r'\{\s*(\d+)\s*,\s*"([^"]+)"\s*\}', steps_text)]
    if not steps or steps[0][0] != 0 or any(b[0] <= a[0] for a, b in zip(steps, steps[1:])):
        sys.exit(f"tuning_data: steps {steps_text!r}: ascending sizes from 0, as {{{{0, \"avx512vnni\"}}}}")
    return int(inline_below), steps


def rate(steps_text: str, inline_below: str, only: str = "") -> None:
    """Per kept run (or those whose name contains `only`) and size class from 32 B: the row's
    choice, its time over the best of the library's ways (inline code and kernels) there, and the
    worst class from 64 B (below, the inline code runs whatever a row says).  How a default row is chosen: the one whose worst is lowest on every machine."""
    ib, steps = parse_row(steps_text, inline_below)
    files = sorted(f for f in os.listdir(DATA) if f.endswith(".csv") and only in f) if os.path.isdir(DATA) else []
    if not files:
        sys.exit(f"tuning_data: no runs in {DATA}" + (f" matching {only!r}" if only else ""))
    print(f"row: steps {steps_text}, inline_below {ib}\n")
    print("| run | worst | at | " + " | ".join(f"{c} B" for c in (32, 64, 128, 256, 512, 1024, 2048, 4096)) + " |")
    print("|---|---|---|" + "---|" * 8)
    for name in files:
        _, rows = load(os.path.join(DATA, name))
        ratios = {}
        for c, t in classes(rows).items():
            if c < 32:
                continue
            kernels = {k: v for k, v in t.items() if k not in ANCHORS}
            pick = "inline" if 2 * c - 1 < ib else [k for a, k in steps if a <= c][-1]
            if pick not in kernels:
                sys.exit(f"tuning_data: {name} has no figures for {pick}")
            ratios[c] = kernels[pick] / min(kernels.values())
        worst = max((c for c in ratios if c >= 64), key=ratios.get)  # below 64 B no row chooses
        cells = " | ".join(f"{ratios[c]:.2f}" if c in ratios else "" for c in (32, 64, 128, 256, 512, 1024, 2048, 4096))
        print(f"| {name} | {ratios[worst]:.2f} | {worst}-{2 * worst - 1} B | {cells} |")


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "add":
        print(add(sys.argv[2]))
    elif len(sys.argv) == 2 and sys.argv[1] == "summary":
        summary()
    elif len(sys.argv) in (4, 5) and sys.argv[1] == "rate":
        rate(*sys.argv[2:])
    else:
        sys.exit(__doc__.split("\n\n")[1])


if __name__ == "__main__":
    main()
