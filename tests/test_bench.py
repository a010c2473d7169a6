"""`inetcsum bench` end to end: a smoke run of every experiment (its tables, and a --json holding
every figure a run promises, each summary consistent with its samples), --impl, compare on runs
whose answer is known, --plot through matplotlib (when installed) and its message when it is not,
and the usage errors.  Usage: test_bench.py INETCSUM (run by ctest)."""
import importlib.util
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import unittest

CLI = None
SIZES = [0, 8, 20, 40, 64, 128, 256, 576, 1500, 4096, 9000, 65536]
COPY_SIZES = [32, 1024, 1500, 9000]
COPY_KERNEL_SIZES = [32, 64, 128, 256, 576, 1500, 2048, 4096, 9000, 65536]
WAYS = ["inetcsum copy", "memcpy+inetcsum", "memcpy"]
EXPERIMENTS = ["sizes", "sweep", "row", "copy", "jitter", "cold", "prefetch", "offload", "crc32c", "packet", "dram", "gso", "capture",
               "dpdk", "xsk"]
CRC_SIZES = [12, 64, 100, 128, 200, 256, 576, 1500, 4096, 9000, 65536]


def run(*args, env=None):
    return subprocess.run([CLI, *args], capture_output=True, text=True, env=env)


def usable_kernels():
    out = run("impls").stdout.split("crc32c kernels", 1)[0]  # the sum's kernels, not CRC32c's
    return [line.split()[0] for line in out.splitlines() if "runs on this CPU" in line]


class SmokeRun(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.TemporaryDirectory()
        cls.json_path = os.path.join(cls.dir.name, "a.json")
        cls.res = run("bench", "all", "--smoke", "--json", cls.json_path)
        with open(cls.json_path) as f:
            cls.run_json = json.load(f)
        cls.figures = {f["name"]: f for f in cls.run_json["figures"]}

    @classmethod
    def tearDownClass(cls):
        cls.dir.cleanup()

    def test_exit_and_tables(self):
        self.assertEqual(self.res.returncode, 0, self.res.stderr)
        for e in EXPERIMENTS:
            self.assertIn(f"\n## {e}:", self.res.stdout)
        for size in SIZES:
            # four sizes tables, the preferred-kernel table from 64 B, six copy distribution tables,
            # two copy-kernel tables and the preferred copy kernel, the crc32c table
            self.assertEqual(self.res.stdout.count(f"\n| {size} |"),
                             4 + (size >= 64) + (size in COPY_SIZES) * 6 + (size in COPY_KERNEL_SIZES) * 3
                             + (size in CRC_SIZES),
                             f"rows for {size} bytes")

    def test_sweep(self):
        """Every range's row, every sampled size's ratio in the JSON with who was best there; the
        Linux-algorithm contender among the alternatives on x86-64."""
        section = self.res.stdout.split("\n## sweep:", 1)[1].split("\n## ", 1)[0]
        rows = re.findall(r"^\| (\d+)-(\d+) \| (\d+) \| (\d+) \| ([\d.]+) \| ([\d.]+) \| (\d+) B (even|odd) \| (\S+) \|"
                          r"(?: ([\d.]+) \| ([\d.]+) \|)?(?: ([\d.]+) \| ([\d.]+) \|)?$", section, re.M)
        self.assertGreaterEqual(len(rows), 5, section)
        inlined = "inlined: median ratio" in section  # the header's vector path, with AVX2 or AVX-512BW
        o2 = "-O2: median ratio" in section  # ... and the same caller built with -O2
        self.assertEqual(o2, inlined)
        for lo, hi, n, slower, median, worst, at, _parity, best, inl_median, inl_worst, o2_median, o2_worst in rows:
            self.assertLessEqual(int(slower), int(n))
            self.assertLessEqual(float(median), float(worst))
            self.assertTrue(int(lo) <= int(at) <= int(hi))
            self.assertEqual(bool(inl_median), inlined)
            self.assertEqual(bool(o2_median), o2)
            if inlined:
                self.assertLessEqual(float(inl_median), float(inl_worst))
                self.assertLessEqual(float(o2_median), float(o2_worst))
        if inlined:
            self.assertIn("sweep/throughput ratio to the best alternative/inetcsum inlined/even/65536", self.figures)
            self.assertIn("sweep/throughput ratio to the best alternative/inetcsum inlined -O2/even/65536", self.figures)
        sweep = [f for f in self.figures.values() if f["name"].startswith("sweep/")]
        self.assertIn("sweep/throughput ratio to the best alternative/inetcsum/odd/1", self.figures)
        self.assertIn("sweep/throughput ratio to the best alternative/inetcsum/even/65536", self.figures)
        self.assertTrue(all(f["best"] and f["best_ticks"] > 0 for f in sweep))
        if platform.machine() == "x86_64":
            self.assertIn("Linux", section.split("Alternatives: ", 1)[1].split(".", 1)[0])

    def test_capture(self):
        """The four ways timed, with fix's ratio to cp and fix in place's to verify, in JSON too."""
        section = self.res.stdout.split("\n## capture:", 1)[1].split("\n## ", 1)[0]
        for way in ["cp (copy_file_range)", "fix, every checksum wrong", "verify, 1% wrong", "fix in place, 1% wrong"]:
            self.assertRegex(section, re.escape(f"| {way} | ") + r"[\d.]+~? \| [\d.]+ \|")
            self.assertTrue(any(f.startswith(f"capture/seconds/{way}/") for f in self.figures), way)
        self.assertRegex(section, r"\| fix, every checksum wrong \| [\d.]+~? \| [\d.]+ \| [\d.]+ \| cp \|")
        self.assertTrue(any(f.startswith("capture/time ratio to verify/fix in place") for f in self.figures))

    def test_tuning_data(self):
        """bench/tuning_data.py keeps the sweep as a machine's CSV and reads a row back from it."""
        script = os.path.join(os.path.dirname(__file__), "..", "bench", "tuning_data.py")
        env = dict(os.environ, INETCSUM_TUNING_DATA=os.path.join(self.dir.name, "tuning"))
        added = subprocess.run([sys.executable, script, "add", self.json_path], capture_output=True, text=True, env=env)
        self.assertEqual(added.returncode, 0, added.stderr)
        with open(added.stdout.strip()) as f:
            text = f.read()
        self.assertTrue(text.startswith("# cpu: "), text[:200])
        self.assertIn("\nsize,parity,", text)
        self.assertIn("\n1,odd,", text)
        again = subprocess.run([sys.executable, script, "add", self.json_path], capture_output=True, text=True, env=env)
        self.assertEqual(again.returncode, 0, again.stderr)
        self.assertTrue(again.stdout.strip().endswith("-2.csv"), again.stdout)  # the first run is kept
        with open(added.stdout.strip()) as f:
            self.assertEqual(f.read(), text)
        summary = subprocess.run([sys.executable, script, "summary"], capture_output=True, text=True, env=env)
        self.assertEqual(summary.returncode, 0, summary.stderr)
        self.assertRegex(summary.stdout, r'row: steps \{\{0, "[a-z0-9_]+"\}.*\}, inline_below (65|128|256)')
        self.assertRegex(text, r"# run: .* \(source [0-9a-z-]+\)")  # the library a row is measured with
        # rate: a row on every run kept; the best-first kernel from 64 B can only be as fast as the
        # best or slower, and the run's own row (summary's) is within the 3% summary allows.
        best_first = self.run_json["machine"]["kernel_chosen"]
        rated = subprocess.run([sys.executable, script, "rate", f'{{{{0, "{best_first}"}}}}', "65"], capture_output=True,
                               text=True, env=env)
        self.assertEqual(rated.returncode, 0, rated.stderr)
        lines = [line for line in rated.stdout.splitlines() if line.startswith("| ") and ".csv" in line]
        self.assertEqual(len(lines), 2, rated.stdout)
        self.assertTrue(all(float(line.split("|")[2]) >= 1.0 for line in lines), rated.stdout)
        bad = subprocess.run([sys.executable, script, "rate", "{{64, \"x\"}}", "64"], capture_output=True, text=True,
                             env=env)
        self.assertNotEqual(bad.returncode, 0)
        self.assertIn("ascending sizes from 0", bad.stderr)

    def test_copy_kernels_and_copy_steps(self):
        usable = usable_kernels()
        for variant in ["aligned", "src+1"]:
            for size in COPY_KERNEL_SIZES:
                for way in ["memcpy", "memcpy+inetcsum", "inetcsum copy"] + usable:
                    self.assertIn(f"copy/ticks/{way}/{variant}/{size}", self.figures)
                self.assertIn(f"copy/ticks ratio to memcpy/inetcsum copy/{variant}/{size}", self.figures)
        section = self.res.stdout.split("### Preferred copy kernel per size", 1)[1].split("This machine's", 1)[0]
        rows = re.findall(r"^\| (\d+) \| (\S+) \| [\d.]+ \| (\S+) \|", section, re.M)
        self.assertEqual([int(r[0]) for r in rows], COPY_KERNEL_SIZES)
        for _, fastest, in_use in rows:
            self.assertIn(fastest, usable)
            self.assertIn(in_use, usable + ["inline"])
        line = re.search(r"^This machine's tuning row copy steps \(lib/tuning.c\): (.*)$", self.res.stdout, re.M)
        steps = re.findall(r'\{(\d+), "([^"]+)"\}', line.group(1))
        kernel_rows = [r for r in rows if r[2] != "inline"]
        self.assertEqual((int(steps[0][0]), steps[0][1]), (0, kernel_rows[0][1]))

    def test_crc32c_packet_dram(self):
        crcs = run("impls").stdout.split("crc32c kernels, best first:", 1)[1]
        crc_usable = [line.split()[0] for line in crcs.splitlines() if "runs on this CPU" in line]
        self.assertIn("table", crc_usable)
        # The header's inline path, where the anchors' flags give it SSE4.2 (x86 with -march=native)
        inlined = "| inetcsum inlined |" in self.res.stdout.split("## crc32c:", 1)[1].split("\n## ", 1)[0]
        for size in CRC_SIZES:
            for way in ["inetcsum_crc32c"] + crc_usable + (["inetcsum inlined"] if inlined else []):
                self.assertIn(f"crc32c/throughput/{way}/{size}", self.figures)
        has_dpdk = self.run_json["machine"]["dpdk"] != "no DPDK"
        for frame in ["IPv4/TCP", "IPv4/UDP", "IPv6/TCP", "IPv6/UDP"]:
            for size in [74 if frame == "IPv6/TCP" else 64, 576, 1500, 9000]:
                for way in ["verify", "fill", "offload", "sums", "verify, general walk"] + (
                        ["DPDK verify", "DPDK fill"] if has_dpdk else []):
                    self.assertIn(f"packet/time per packet/{way}/{frame}/{size}", self.figures)
        dram = [f for f in self.run_json["figures"] if f["experiment"] == "dram"]
        self.assertTrue({"inetcsum", "memcpy", "inetcsum copy"} <= {f["contender"] for f in dram})
        for f in dram:
            self.assertEqual(f["unit"], "GB/s")
            self.assertGreater(f["median"], 0.1)

    def test_preferred_kernels_and_tuning_row(self):
        usable = usable_kernels()
        section = self.res.stdout.split("### Preferred kernel per size", 1)[1].split("This machine's tuning row", 1)[0]
        rows = re.findall(r"^\| (\d+) \| (\S+) \| [\d.]+ \| (\S+) \| [\d.]+ \| (\S+) \|", section, re.M)
        self.assertEqual([int(r[0]) for r in rows], [n for n in SIZES if n >= 64])
        for size, fastest, _, in_use in rows:
            self.assertIn(fastest, usable)
            self.assertIn(in_use, usable + ["inline"])
        line = re.search(r"^This machine's tuning row steps \(lib/tuning.c\): (.*)$", self.res.stdout, re.M)
        self.assertIsNotNone(line)
        steps = re.findall(r'\{(\d+), "([^"]+)"\}', line.group(1))
        self.assertTrue(steps)
        self.assertEqual(int(steps[0][0]), 0)
        froms = [int(f) for f, _ in steps]
        self.assertEqual(froms, sorted(set(froms)))
        for f, kernel in steps:
            self.assertEqual(int(f) & (int(f) - 1), 0, f)  # powers of two (or 0)
            self.assertIn(kernel, usable)
        kernel_rows = [r for r in rows if r[3] != "inline"]
        self.assertEqual(steps[0][1], kernel_rows[0][1])  # the first step: the smallest kernel-summed size's fastest

    def test_machine_and_settings(self):
        j = self.run_json
        self.assertEqual((j["tool"], j["schema"]), ("inetcsum bench", 1))
        self.assertEqual(f"inetcsum {j['version']}", run("--version").stdout.strip())
        m = j["machine"]
        for key in ["cpu_model", "cpu_flags", "os_release", "compiler", "read_limit_isa", "dpdk"]:
            self.assertTrue(m[key], key)
        self.assertGreater(m["tsc_hz"], 1e8)
        self.assertEqual(m["kernels_usable"], usable_kernels())
        self.assertEqual(m["kernel_chosen"], usable_kernels()[0])
        s = j["settings"]
        self.assertEqual((s["experiments"], s["scale"], s["trials"]), (EXPERIMENTS, "smoke", 3))
        self.assertEqual(j["noise"]["figures"], len(j["figures"]))

    def test_every_figure_summarises_its_samples(self):
        for f in self.run_json["figures"]:
            x = f["samples"]
            self.assertEqual(x, sorted(x), f["name"])
            self.assertAlmostEqual(f["median"], statistics.median(x), delta=1e-6 * abs(f["median"]) + 1e-9)
            # The JSON keeps 8 significant digits of each sample: the mean agrees to that relative to
            # the samples' size (a difference of two times, such as an overhead, can average to ~0).
            scale = max(abs(f["mean"]), max(abs(v) for v in x))
            self.assertAlmostEqual(f["mean"], statistics.fmean(x), delta=1e-6 * scale + 1e-9)
            self.assertEqual((f["min"], f["max"]), (x[0], x[-1]))
            self.assertLessEqual(f["q1"], f["median"])
            self.assertLessEqual(f["median"], f["q3"])
            # A difference of two times may be below 0: an overhead, or the time a step adds ("added
            # by", bench dpdk: a few ns against the run's noise; -9 ns seen in a no-SIMD build).
            if not f["metric"].startswith("overhead") and not f["contender"].startswith("added by"):
                self.assertGreaterEqual(f["min"], 0, f["name"])

    def test_sizes_has_every_kernel_size_and_alignment(self):
        contenders = ["read limit", "inetcsum"] + usable_kernels()
        if self.run_json["machine"]["dpdk"] != "no DPDK":
            contenders.append("DPDK")
        for metric in ["throughput", "latency"]:
            for variant in ["even", "odd"]:
                for size in SIZES:
                    for c in contenders:
                        f = self.figures[f"sizes/{metric}/{c}/{variant}/{size}"]
                        self.assertEqual(len(f["samples"]), 3)
                        self.assertEqual((f["unit"], f["size"]), ("ticks", size))
                        self.assertGreater(f["median"], 0)
                    self.assertIn(f"sizes/{metric} ratio to read limit/inetcsum/{variant}/{size}", self.figures)

    def test_copy_and_jitter_distributions(self):
        for exp, loads in [("copy", ["idle"]), ("jitter", ["idle", "busy"])]:
            for load in loads:
                for size in COPY_SIZES:
                    for way in WAYS:
                        f = self.figures[f"{exp}/call time/{way}/{load}/{size}"]
                        self.assertEqual((f["unit"], f["calls"], len(f["samples"])), ("ns", 2000, 20))
                        d = f["distribution"]
                        order = [d["min"], d["p50"], d["p99"], d["p99.9"], d["max"]]
                        self.assertEqual(order, sorted(order), f["name"])
                        self.assertLessEqual(d["min"], d["avg"])
                        self.assertLessEqual(d["avg"], d["max"])
                        q = f["quantiles"]
                        self.assertEqual([p for p, _ in q], sorted(p for p, _ in q))
                        self.assertEqual([v for _, v in q], sorted(v for _, v in q))
                        self.assertEqual((q[0][1], q[-1][1]), (d["min"], d["max"]))

    def test_cold_prefetch_offload(self):
        cold = [f for f in self.run_json["figures"] if f["experiment"] == "cold" and f["unit"] == "GB/s"]
        self.assertGreaterEqual(len(cold), 3)
        self.assertTrue(all(f["median"] > 0.01 for f in cold))
        prefetch = [f for f in self.run_json["figures"] if f["experiment"] == "prefetch"]
        self.assertEqual(len(prefetch), 8)
        self.assertIn("walk, prefetch 5 x 64 B ahead", [f["contender"] for f in prefetch])
        for size in [64, 576, 1500]:
            for way in ["IPv4 header in software", "IPv4 header by the device", "nothing offloaded"]:
                f = self.figures[f"offload/packets per second/{way}/{size}"]
                self.assertEqual((f["unit"], len(f["samples"])), ("pps", 3))
                self.assertGreater(f["median"], 1e4)
        verdicts = self.res.stdout.count("Difference at 95.0% confidence") + self.res.stdout.count("No difference proven")
        self.assertEqual(verdicts, 3, "a ministat verdict per frame size")

    def test_compare_with_itself_finds_nothing(self):
        res = run("bench", "compare", self.json_path, self.json_path)
        self.assertEqual(res.returncode, 0, res.stderr)
        n = len(self.run_json["figures"])
        self.assertIn(f"{n} figures compared: 0 better in B, 0 worse, {n} without a proven difference", res.stdout)


def figure(name, unit, samples, contender="c"):
    s = sorted(samples)
    return {"name": name, "experiment": name.split("/")[0], "metric": "m", "contender": contender, "unit": unit,
            "samples": s, "median": statistics.median(s)}


def write_run(path, figures, cpu="CPU A"):
    with open(path, "w") as f:
        json.dump({"tool": "inetcsum bench", "schema": 1, "version": "0", "settings": {},
                   "machine": {"cpu_model": cpu, "kernel_chosen": "avx2"}, "figures": figures}, f)


class Compare(unittest.TestCase):
    def test_known_answers(self):
        """Ticks that doubled are worse, GB/s that doubled better, a shift inside the noise no
        difference; figures in one run only are counted, not judged."""
        with tempfile.TemporaryDirectory() as d:
            a, b = os.path.join(d, "a.json"), os.path.join(d, "b.json")
            write_run(a, [figure("x/slower", "ticks", [10, 11, 12, 10, 11]),
                          figure("x/faster", "GB/s", [1.0, 1.1, 1.2]),
                          figure("x/same", "pps", [5, 6, 7]),
                          figure("x/more", "pps", [5, 6, 7]),
                          figure("x/gone", "ns", [1, 2])])
            write_run(b, [figure("x/slower", "ticks", [20, 21, 22, 20, 21]),
                          figure("x/faster", "GB/s", [2.0, 2.1, 2.2]),
                          figure("x/same", "pps", [5.1, 6.1, 6.9]),
                          figure("x/more", "pps", [10, 11, 12]),
                          figure("x/new", "ns", [1, 2])], cpu="CPU B")
            res = run("bench", "compare", a, b)
            self.assertEqual(res.returncode, 0, res.stderr)
            out = res.stdout
            self.assertRegex(out, r"\| x/slower \| ticks \| 10\.8 \| 20\.8 \| \+92\.59% \+/- [0-9.]+% \| worse \|")
            self.assertRegex(out, r"\| x/faster \| GB/s \| 1\.1 \| 2\.1 \| \+90\.91% \+/- [0-9.]+% \| better \|")
            self.assertRegex(out, r"\| x/more \| pps \| 6 \| 11 \| \+83\.33% \+/- [0-9.]+% \| better \|")
            self.assertNotIn("x/same", out)
            self.assertIn("differ in CPU or kernel", out)
            self.assertIn("4 figures compared: 2 better in B, 1 worse, 1 without a proven difference; "
                          "1 only in A, 1 only in B.", out)
            res = run("bench", "compare", "--all", a, b)
            self.assertRegex(res.stdout, r"\| x/same \| pps \| 6 \| 6\.033 \| \+0\.56% \+/- [0-9.]+% \| no difference \|")
            # A lower confidence narrows the interval: at 50% the GB/s difference stays, the ticks too.
            res = run("bench", "compare", "--confidence", "50", a, b)
            self.assertIn("Student's t at 50.0% confidence", res.stdout)
            self.assertIn("2 better in B, 1 worse", res.stdout)

    def test_reference_contenders_that_moved_are_named(self):
        """DPDK's and memcpy's code is the same in both runs: when their figures move, the machine
        moved, and compare says so with the figures; steady references say nothing."""
        with tempfile.TemporaryDirectory() as d:
            a, b, c = (os.path.join(d, f"{x}.json") for x in "abc")
            write_run(a, [figure("s/DPDK/64", "ticks", [10, 10.2, 9.9], "DPDK"),
                          figure("s/memcpy/64", "GB/s", [20, 20.5, 19.5], "memcpy"),
                          figure("s/inetcsum/64", "ticks", [8, 8.1, 7.9], "inetcsum")])
            write_run(b, [figure("s/DPDK/64", "ticks", [13, 13.1, 12.9], "DPDK"),
                          figure("s/memcpy/64", "GB/s", [15, 15.2, 14.8], "memcpy"),
                          figure("s/inetcsum/64", "ticks", [10, 10.1, 9.9], "inetcsum")])
            write_run(c, [figure("s/DPDK/64", "ticks", [10.1, 10.2, 10], "DPDK"),
                          figure("s/memcpy/64", "GB/s", [20.2, 20.4, 19.9], "memcpy"),
                          figure("s/inetcsum/64", "ticks", [10, 10.1, 9.9], "inetcsum")])
            res = run("bench", "compare", a, b)
            self.assertEqual(res.returncode, 0, res.stderr)
            self.assertRegex(res.stdout, r"Warning: the reference contenders, whose code is the same in both runs, "
                                         r"moved: .*DPDK 1\.30x \(1 figures\), memcpy 1\.33x \(1 figures\)")
            res = run("bench", "compare", a, c)
            self.assertNotIn("Warning", res.stdout)
            self.assertIn("| s/inetcsum/64 | ticks |", res.stdout)

    def test_real_runs_of_two_kernels(self):
        """The best kernel against the portable one, each made the library's by --impl: compare
        must find the portable one worse where it is several times slower."""
        best = usable_kernels()[0]
        if best == "generic":
            self.skipTest("only the generic kernel runs here")
        # A preempted trial can widen one interval past a 6x difference, and on a shared virtual
        # machine a whole smoke run can be disturbed (a CI run, this test alone on the machine, saw
        # the best kernel take 964 ticks at 9000 B against generic's 868): two sizes of three, and
        # a fresh pair of runs, up to three, before calling it a failure.
        for attempt in range(3):
            with tempfile.TemporaryDirectory() as d:
                paths = [os.path.join(d, f"{k}.json") for k in (best, "generic")]
                for k, p in zip((best, "generic"), paths):
                    res = run("bench", "sizes", "--smoke", "--trials", "7", "--impl", k, "--json", p)
                    self.assertEqual(res.returncode, 0, res.stderr)
                res = run("bench", "compare", "--all", *paths)
                self.assertEqual(res.returncode, 0, res.stderr)
            worse = [size for size in [4096, 9000, 65536]
                     if re.search(rf"\| sizes/throughput/inetcsum/even/{size} \| ticks \| .* \| worse \|", res.stdout)]
            if len(worse) >= 2:
                break
        self.assertGreaterEqual(len(worse), 2, res.stdout)

    def test_bad_files(self):
        with tempfile.TemporaryDirectory() as d:
            junk, other = os.path.join(d, "junk.json"), os.path.join(d, "other.json")
            with open(junk, "w") as f:
                f.write("{not json")
            with open(other, "w") as f:
                json.dump({"a": 1}, f)
            for args in [(junk, junk), (other, other), (os.path.join(d, "missing.json"), other)]:
                res = run("bench", "compare", *args)
                self.assertEqual(res.returncode, 2, args)
                self.assertEqual(len(res.stderr.splitlines()), 1, res.stderr)
                self.assertNotIn("line -1", res.stderr)  # (jansson's line for a file it could not open)
                self.assertIn(os.path.basename(args[0]), res.stderr)


class Options(unittest.TestCase):
    def test_outputs_checked_before_the_run(self):
        """A --json or --plot path that cannot be written is refused before any experiment runs
        (it used to fail with a traceback after the whole run)."""
        with tempfile.TemporaryDirectory() as d:
            for args, said in [(["--json", os.path.join(d, "no", "x.json")], "cannot write in"),
                               (["--json", d], "is a directory"),
                               (["--plot", os.path.join(d, "no", "x.png")], "cannot write in"),
                               (["--plot", os.path.join(d, "x.txt")], "cannot be drawn")]:
                res = run("bench", "sizes", *args)
                self.assertEqual(res.returncode, 2, args)
                self.assertEqual(res.stdout, "", args)  # no experiment ran
                self.assertIn(said, res.stderr)
                self.assertIn(args[0], res.stderr)
    def test_usage_errors(self):
        for args in [[], ["nosuch"], ["sizes", "--impl", "nosuch"], ["sizes", "--trials", "1"],
                     ["sizes", "--cpu", "x"], ["compare", "one.json"], ["compare", "--confidence", "120", "a", "b"],
                     ["sweep", "--starts", "64"], ["sweep", "--starts", "1,1"], ["sweep", "--starts", "x"],
                     ["sweep", "--starts", "0,"], ["sweep", "--starts", "0,1,2,3,4,5,6,7,8"]]:
            res = run("bench", *args)
            self.assertEqual(res.returncode, 2, args)
            self.assertTrue(res.stderr.startswith("inetcsum: bench"), res.stderr)
        res = run("bench", "--help")
        self.assertEqual(res.returncode, 0)
        for e in EXPERIMENTS:
            self.assertIn(f"\n  {e} ", res.stdout)

    def test_starts(self):
        """--starts packet times the sums where packets' TCP/UDP sums start too (34 and 54 bytes past
        a 64-byte boundary), keeps the starts in the settings and adds the by-start table; sizes
        takes the starts too."""
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "s.json")
            res = run("bench", "sweep", "row", "--smoke", "--starts", "packet", "--json", path)
            self.assertEqual(res.returncode, 0, res.stderr)
            with open(path) as f:
                j = json.load(f)
            self.assertEqual(j["settings"]["starts"], ["even", "odd", "+34", "+54"])
            variants = {f["variant"] for f in j["figures"] if f["name"].startswith("sweep/")}
            self.assertEqual(variants, {"even", "odd", "+34", "+54"})
            self.assertIn("starts even, odd, +34, +54 (bytes past a 64-byte boundary)", res.stdout)
            self.assertIn("The exported call's median ratio by start:\n\n| sizes (B) | even | odd | +34 | +54 |",
                          res.stdout)
            res = run("bench", "sweep", "--smoke", "--starts", "54", "--json", path)
            self.assertEqual(res.returncode, 0, res.stderr)
            with open(path) as f:
                j = json.load(f)
            self.assertEqual({f["variant"] for f in j["figures"] if f["name"].startswith("sweep/")}, {"+54"})
            self.assertNotIn("by start", res.stdout)
            res = run("bench", "sizes", "--smoke", "--starts", "0,34", "--json", path)
            self.assertEqual(res.returncode, 0, res.stderr)
            with open(path) as f:
                j = json.load(f)
            self.assertEqual({f["variant"] for f in j["figures"] if f["name"].startswith("sizes/")}, {"even", "+34"})
            self.assertIn("### Throughput: independent calls, start 34 bytes past a 64-byte boundary", res.stdout)
            self.assertIn("### Latency: dependent calls, even start address", res.stdout)

    def test_impl_times_that_kernel_only(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "g.json")
            res = run("bench", "sizes", "--smoke", "--impl", "generic", "--json", path)
            self.assertEqual(res.returncode, 0, res.stderr)
            with open(path) as f:
                j = json.load(f)
            self.assertEqual(j["machine"]["kernel_chosen"], "generic")
            self.assertEqual(j["settings"]["impl"], "generic")
            contenders = {f["contender"] for f in j["figures"]}
            self.assertEqual(contenders - {"read limit", "DPDK", "Linux", "VPP"}, {"inetcsum", "generic"})

    @unittest.skipUnless(importlib.util.find_spec("matplotlib"), "matplotlib is not installed")
    def test_plot(self):
        with tempfile.TemporaryDirectory() as d:
            svg = os.path.join(d, "run.svg")
            res = run("bench", "sizes", "offload", "--smoke", "--plot", svg)
            self.assertEqual(res.returncode, 0, res.stderr)
            with open(svg) as f:
                self.assertIn("<svg", f.read(2000))
            self.assertEqual([n for n in os.listdir(d)], ["run.svg"])

    def test_plot_without_matplotlib_says_how_to_get_it(self):
        with tempfile.TemporaryDirectory() as d:
            fake = os.path.join(d, "plot.py")
            with open(fake, "w") as f:
                f.write("import sys\nsys.exit(3)\n")
            env = dict(os.environ, INETCSUM_PLOT_SCRIPT=fake)
            res = run("bench", "offload", "--smoke", "--plot", os.path.join(d, "x.svg"), env=env)
            self.assertEqual(res.returncode, 2)
            self.assertIn("pip install matplotlib", res.stderr)


if __name__ == "__main__":
    CLI = sys.argv[1]
    unittest.main(argv=sys.argv[:1], verbosity=1)
