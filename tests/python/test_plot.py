"""inetcsum bench's plots (python/inetcsum/plot.py), drawn from a run the tests make up: big enough
for a README and a slide, and no legend over the data (they were 840 x 360 with the legend on the
curves)."""
import json
import os
import struct

import pytest

if os.environ.get("INETCSUM_SANITIZE"):
    # matplotlib's C++ font module throws exceptions through the preloaded ASan runtime, which
    # aborts the interpreter (asan_interceptors.cpp: real___cxa_throw); the plots hold no C of ours.
    pytest.skip("matplotlib's C++ extension cannot run under the preloaded sanitizer runtime", allow_module_level=True)

plot = pytest.importorskip("inetcsum.plot")
pytest.importorskip("matplotlib")

CONTENDERS = ["read limit", "DPDK", "Linux", "inetcsum", "avx512vnni", "avx2", "x86_64", "generic"]


def made_run():
    figs = []
    for metric in ("throughput", "latency"):
        for i, name in enumerate(CONTENDERS):
            for size in (0, 64, 256, 576, 1500, 9000, 65536):
                figs.append({"name": f"sizes/{metric}/{name}/even/{size}", "experiment": "sizes", "metric": metric,
                             "contender": name, "unit": "ticks", "variant": "even", "size": size,
                             "median": 20 + size * (0.02 + 0.01 * i)})
    return {"version": "test", "machine": {"cpu_model": "made up", "tsc_hz": 2e9, "kernel_chosen": "avx2"},
            "settings": {"scale": "smoke"}, "figures": figs}


def test_png_is_large_enough_and_legends_are_outside_the_data(tmp_path):
    run = tmp_path / "run.json"
    run.write_text(json.dumps(made_run()))
    out = tmp_path / "plot.png"
    assert plot.main(["plot.py", str(run), str(out)]) == 0
    width, height = struct.unpack(">II", out.read_bytes()[16:24])
    assert width >= 1600 and height >= 560, (width, height)
    fig = plot.draw(made_run())
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    panels = [ax for ax in fig.axes if ax.get_visible() and ax.get_legend() is not None]
    assert len(panels) == 3  # throughput, latency, and the ratio to DPDK (issue 37, item 11)
    for ax in panels:
        box, area = ax.get_legend().get_window_extent(renderer), ax.get_window_extent(renderer)
        assert box.x0 >= area.x1, "the legend lies over the data"
        labels = [t.get_text() for t in ax.get_xticklabels()]
        assert "1500" in labels and "9000" in labels and "64K" in labels, labels  # the tables' sizes
    for ax in panels[:2]:
        assert len(ax.get_legend().get_texts()) == len(CONTENDERS)
        # every contender its own colour and marker pair
        looks = {(str(line.get_color()), line.get_marker()) for line in ax.get_lines() if line.get_label() in CONTENDERS}
        assert len(looks) == len(CONTENDERS)
    throughput, latency, ratio = panels
    assert "GB/s" in throughput.get_ylabel() and "ns per call" in latency.get_ylabel()
    assert "0 B" in throughput.get_title()  # size 0 said, not dropped quietly
    inetcsum = next(line for line in throughput.get_lines() if line.get_label() == "inetcsum")
    x, y = inetcsum.get_data()
    assert abs(y[list(x).index(1500)] - 1500 * 2e9 / (20 + 1500 * 0.05) / 1e9) < 1e-9  # GB/s from ticks
    (even,) = [line for line in ratio.get_lines() if line.get_label() == "even start"]
    x, y = even.get_data()
    assert abs(y[list(x).index(1500)] - (20 + 1500 * 0.05) / (20 + 1500 * 0.03)) < 1e-9  # inetcsum over DPDK
    assert any("mean nothing" in t.get_text() for t in fig.texts)  # a smoke run says so on its face


def test_check_mode(tmp_path, capsys):
    assert plot.main(["plot.py", "--check", str(tmp_path / "x.svg")]) == 0
    assert plot.main(["plot.py", "--check", str(tmp_path / "x.txt")]) == 2
    assert "must end in .svg, .png or .pdf" in capsys.readouterr().err
