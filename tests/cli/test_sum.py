"""sum against a plain Python reference and sha256sum's habits; impls."""
from common import *  # noqa: F401,F403 (the command, its paths, frames, tshark)


class Sum(unittest.TestCase):
    def test_against_reference(self):
        rng = random.Random(7)
        with tempfile.TemporaryDirectory() as d:
            for n in [0, 1, 2, 3, 20, 1499, 1500, 70001, 3 << 20]:
                data = bytes(rng.getrandbits(8) for _ in range(min(n, 4096))) * (n // 4096 + 1)
                data = data[:n]
                p = os.path.join(d, "f")
                write_bytes(p, data)
                want = f"{(~ones_sum(data)) & 0xFFFF:04x}  {p}\n".encode()
                self.assertEqual(run("sum", p).stdout, want)
                self.assertEqual(run("sum", "-", stdin=data).stdout, want.replace(p.encode(), b"-"))
                off, length, seed = n // 3, n // 2 + 1, rng.getrandbits(16)
                part = data[off: off + length]
                s = ones_sum(part) + seed
                while s >> 16:
                    s = (s & 0xFFFF) + (s >> 16)
                res = run("sum", "--offset", str(off), "--length", str(length), "--seed", hex(seed), p)
                self.assertEqual(res.stdout, f"{(~s) & 0xFFFF:04x}  {p}\n".encode())
                printed = run("sum", "--partial", p).stdout.split()[0].decode()
                self.assertEqual(printed.endswith(":odd"), n % 2 == 1, printed)
                partial = int(printed.removesuffix(":odd"), 16)
                self.assertEqual(ones_sum(partial.to_bytes(4, "big")) or 0, ones_sum(data))

    def test_chaining_is_exact_for_any_split(self):
        """--partial of the bytes before, given back as --seed, gives the sum of the whole for any
        split point: after an odd number of bytes the value carries ':odd' and the next byte pairs
        with the last one (it was lost before: odd splits gave a wrong sum in silence)."""
        rng = random.Random(11)
        data = bytes(rng.getrandbits(8) for _ in range(301))
        with tempfile.TemporaryDirectory() as d:
            whole = os.path.join(d, "whole")
            write_bytes(whole, data)
            want_sum = run("sum", whole).stdout.split()[0]
            want_partial = run("sum", "--partial", whole).stdout.split()[0]
            for k in [0, 1, 2, 3, 20, 41, 150, 151, 299, 300, 301]:
                a, b = os.path.join(d, "a"), os.path.join(d, "b")
                write_bytes(a, data[:k])
                write_bytes(b, data[k:])
                seed = "0x" + run("sum", "--partial", a).stdout.split()[0].decode()
                self.assertEqual(run("sum", "--seed", seed, b).stdout.split()[0], want_sum, (k, seed))
                self.assertEqual(run("sum", "--partial", "--seed", seed, b).stdout.split()[0], want_partial, k)
                # Three pieces, through two seeds.
                m = k + (len(data) - k) // 2
                write_bytes(b, data[k:m])
                c = os.path.join(d, "c")
                write_bytes(c, data[m:])
                seed2 = "0x" + run("sum", "--partial", "--seed", seed, b).stdout.split()[0].decode()
                self.assertEqual(run("sum", "--seed", seed2, c).stdout.split()[0], want_sum, (k, m))
            # A --check list of odd --partial sums checks, parity included.
            sums = os.path.join(d, "SUMS")
            write_bytes(sums, run("sum", "--partial", whole).stdout)
            self.assertEqual(run("sum", "-c", sums).returncode, 0)
            write_bytes(sums, read_bytes(sums).replace(b":odd", b""))
            self.assertEqual(run("sum", "-c", "--quiet", sums).stdout, f"{whole}: FAILED\n".encode())
            res = run("sum", "--seed", "0x1234:even", whole)
            self.assertEqual(res.returncode, 2)
            self.assertIn(b"only ':odd' may follow", res.stderr)

    def test_sha256sum_habits(self):
        with tempfile.TemporaryDirectory() as d:
            names = ["plain", "back\\slash", "new\nline", "sp ace"]
            for i, n in enumerate(names):
                write_bytes(os.path.join(d, n), bytes(range(i, i + 40)))
            res = subprocess.run([CLI, "sum", *names], cwd=d, capture_output=True)
            self.assertEqual(res.returncode, 0)
            lines = res.stdout.decode().split("\n")[:-1]
            self.assertEqual(len(lines), 4)  # one line per file, whatever its name holds
            self.assertTrue(lines[1].startswith("\\") and lines[1].endswith("back\\\\slash"), lines[1])
            self.assertTrue(lines[2].startswith("\\") and lines[2].endswith("new\\nline"), lines[2])
            write_bytes(os.path.join(d, "SUMS"), res.stdout)
            res = subprocess.run([CLI, "sum", "-c", "SUMS"], cwd=d, capture_output=True)
            self.assertEqual(res.returncode, 0, res.stderr)
            self.assertEqual(res.stdout.count(b": OK\n"), 4)
            write_bytes(os.path.join(d, "plain"), b"changed")
            res = subprocess.run([CLI, "sum", "--check", "--quiet", "SUMS"], cwd=d, capture_output=True)
            self.assertEqual((res.returncode, res.stdout), (1, b"plain: FAILED\n"))
            self.assertIn(b"1 computed checksum did NOT match", res.stderr)
            write_bytes(os.path.join(d, "BAD"), b"not a line\n")
            res = subprocess.run([CLI, "sum", "-c", "BAD"], cwd=d, capture_output=True)
            self.assertEqual(res.returncode, 1)  # (sha256sum's: no checksum line found)
            write_bytes(os.path.join(d, "MIX"), res.stdout + b"0000  missing\nzz\n")
            res = subprocess.run([CLI, "sum", "-c", "--status", "MIX"], cwd=d, capture_output=True)
            # A listed file that cannot be read fails the check with 1, as sha256sum -c; it is still
            # named, as sha256sum --status names it.
            self.assertEqual((res.returncode, res.stdout), (1, b""))
            self.assertIn(b"missing", res.stderr)
            if shutil.which("sha256sum"):
                write_bytes(os.path.join(d, "SHA"), b"0" * 64 + b"  missing\n")
                theirs = subprocess.run(["sha256sum", "-c", "--status", "SHA"], cwd=d, capture_output=True)
                self.assertEqual(res.returncode, theirs.returncode)
            # No file: standard input; --offset past the end is an error, not ffff.
            self.assertEqual(run("sum", stdin=b"abc").stdout, run("sum", "-", stdin=b"abc").stdout)
            res = run("sum", "--offset", "10", "-", stdin=b"abc")
            self.assertEqual(res.returncode, 2)
            self.assertIn(b"past its end", res.stderr)

    def test_numbers_as_printed(self):
        """--seed takes a --partial value as it prints it (8 hex digits, ':odd'), and numbers with a
        leading zero are decimal, not octal (issue 37, item 1)."""
        data = bytes(range(7, 107))
        with tempfile.TemporaryDirectory() as d:
            a, b, whole = os.path.join(d, "a"), os.path.join(d, "b"), os.path.join(d, "whole")
            write_bytes(a, data[:33])
            write_bytes(b, data[33:])
            write_bytes(whole, data)
            printed = run("sum", "--partial", a).stdout.split()[0].decode()
            self.assertRegex(printed, r"^[0-9a-f]{8}:odd$")
            res = run("sum", "--seed", printed, b)
            self.assertEqual(res.returncode, 0, res.stderr)
            self.assertEqual(res.stdout.split()[0], run("sum", whole).stdout.split()[0])
            self.assertEqual(run("sum", "--offset", "010", whole).stdout, run("sum", "--offset", "10", whole).stdout)
            self.assertNotEqual(run("sum", "--offset", "010", whole).stdout, run("sum", "--offset", "8", whole).stdout)
            self.assertEqual(run("sum", "--seed", "010", whole).stdout, run("sum", "--seed", "10", whole).stdout)
            self.assertEqual(run("sum", "--seed", "0x10", whole).stdout, run("sum", "--seed", "16", whole).stdout)
            for bad in ("-1", "0x", "1e3", " 5"):
                self.assertEqual(run("sum", "--offset", bad, whole).returncode, 2, bad)

    def test_sha256sum_statuses_and_forms(self):
        """sha256sum's exit statuses (a missing FILE or a directory: 1; an empty or missing LIST:
        1), CR LF lists, --ignore-missing, --tag and -z, each held to sha256sum where it is here
        (issue 37, item 9)."""
        with tempfile.TemporaryDirectory() as d:
            for name, data in (("a", b"abc"), ("new\nline", b"xyz!"), ("sp ace", b"")):
                write_bytes(os.path.join(d, name), data)
            ours = lambda *args, **kw: subprocess.run([CLI, "sum", *args], cwd=d, capture_output=True, **kw)
            theirs = lambda *args: subprocess.run(["sha256sum", *args], cwd=d, capture_output=True)
            have_sha = shutil.which("sha256sum") is not None
            cases = [["missing"], [d], ["-c", os.devnull], ["-c", "nolist"]]
            for args in cases:
                self.assertEqual(ours(*args).returncode, 1, args)
                if have_sha:
                    self.assertEqual(theirs(*args).returncode, 1, args)
            plain = ours("a", "sp ace").stdout
            write_bytes(os.path.join(d, "CRLF"), plain.replace(b"\n", b"\r\n"))
            res = ours("-c", "CRLF")
            self.assertEqual((res.returncode, res.stdout), (0, b"a: OK\nsp ace: OK\n"), res.stderr)
            # --ignore-missing: skipped, not failed; nothing verified at all is 1
            write_bytes(os.path.join(d, "SOME"), plain + b"0000  missing\n")
            self.assertEqual(ours("-c", "SOME").returncode, 1)
            res = ours("-c", "--ignore-missing", "SOME")
            self.assertEqual((res.returncode, res.stdout), (0, b"a: OK\nsp ace: OK\n"))
            write_bytes(os.path.join(d, "NONE"), b"0000  missing\n")
            res = ours("-c", "--ignore-missing", "NONE")
            self.assertEqual(res.returncode, 1)
            self.assertIn(b"no file was verified", res.stderr)
            # --tag lines, plain and partial, checked again; a name with ") = " in it too
            write_bytes(os.path.join(d, "odd) = name"), b"12345")
            tagged = ours("--tag", "a", "odd) = name").stdout + ours("--tag", "--partial", "a").stdout
            self.assertRegex(tagged.split(b"\n")[0], rb"^INETCSUM \(a\) = [0-9a-f]{4}$")
            self.assertRegex(tagged.split(b"\n")[2], rb"^INETCSUM-PARTIAL \(a\) = [0-9a-f]{8}:odd$")
            write_bytes(os.path.join(d, "TAGS"), tagged)
            res = ours("-c", "TAGS")
            self.assertEqual((res.returncode, res.stdout), (0, b"a: OK\nodd) = name: OK\na: OK\n"), res.stderr)
            # -z: NUL after each line, the name as it is; --check -z reads such a list
            zero = ours("-z", "a", "new\nline").stdout
            self.assertEqual(zero.count(b"\0"), 2)
            self.assertIn(b"  new\nline\0", zero)
            write_bytes(os.path.join(d, "ZERO"), zero)
            res = ours("-c", "-z", "ZERO")
            self.assertEqual(res.returncode, 0, res.stderr)
            self.assertIn(b"a: OK\n", res.stdout)
            if have_sha:
                self.assertEqual(theirs("-z", "a").stdout[64:], zero[4:zero.index(b"\0") + 1])

    def test_impls(self):
        out = run("impls")
        self.assertEqual(out.returncode, 0)
        self.assertIn(b"in use", out.stdout)
        self.assertRegex(out.stdout, rb"kernel by size: inline scalar code below \d+ B")
        # A kernel chosen by name sums every size past the inline code.
        forced = subprocess.run([CLI, "impls"], capture_output=True, env={**os.environ, "INETCSUM_IMPL": "generic"})
        self.assertRegex(forced.stdout, rb"inline scalar code below \d+ B, generic from there")


class StartUp(unittest.TestCase):
    """A command run once per file from a script (sum, verify) must start fast: the benchmark's
    libraries (DPDK, libxdp, libbpf, jansson) stay in its own program, inetcsum-bench, and libpcap
    is loaded only for a live filter.  Linked in, they cost 6.5 ms of every run's 7.8 (Zen 3
    guest; 1.3 ms without)."""

    def test_only_the_codecs_are_loaded(self):
        if not shutil.which("ldd"):
            self.skipTest("needs ldd")
        res = subprocess.run(["ldd", CLI], capture_output=True, text=True)
        if res.returncode != 0:
            self.skipTest(f"ldd cannot read the command: {res.stderr.strip()}")
        loaded = [line.split()[0] for line in res.stdout.splitlines() if line.strip()]
        for heavy in ("librte_", "libxdp", "libbpf", "libjansson", "libpcap", "libdbus", "libsystemd"):
            self.assertFalse([name for name in loaded if name.startswith(heavy)], f"{heavy} in {loaded}")

    def test_bench_runs_its_own_program(self):
        res = run("bench", "--help")
        if b"this build has no benchmark" in res.stderr:
            self.skipTest("this build has no benchmark (jansson)")
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertTrue(res.stdout.startswith(b"usage: inetcsum bench EXPERIMENT..."))
        res = run("bench", "--no-such-option")
        self.assertEqual(res.returncode, 2)
        self.assertIn(b"inetcsum bench: unrecognized option '--no-such-option'", res.stderr)
        # A command without its benchmark's program beside it (a copy alone) says where it looked.
        with tempfile.TemporaryDirectory() as d:
            alone = os.path.join(d, "inetcsum")
            shutil.copy(CLI, alone)
            res = subprocess.run([alone, "bench", "--help"], capture_output=True)
            if res.returncode == 0:
                return  # (this build is installed: the copy found the program where the install put it)
            self.assertEqual(res.returncode, 2)
            self.assertIn(f"{d}/inetcsum-bench".encode(), res.stderr)
            self.assertIn(b"is not where this command looks for it", res.stderr)
