"""The help, the man page, the completion and the README's examples held together."""
from common import *  # noqa: F401,F403 (the command, its paths, frames, tshark)


class Examples(unittest.TestCase):
    """Every `inetcsum` example of the README and the man page runs as written, on files made here
    with the names the examples use, and ends as it should (0, or 1 where the capture holds wrong
    checksums: finding them is its job).  What cannot run here is stood in for by name: tcpreplay's
    interface (the replayed bytes go to cat), bench all (bench sizes --smoke: the same options, in
    seconds), gen's 256M (2M)."""

    STAND_INS = [("tcpreplay -i eth0 -", "cat > /dev/null"), ("tcpreplay -i eth0 wire.pcap", "test -s wire.pcap"),
                 ("/srv/captures", "captures"), ("--size 256M", "--size 2M"),
                 ("bench all --quick ", "bench sizes --smoke "), ("bench all --json", "bench sizes --smoke --json")]

    def examples(self):
        readme = read_bytes(os.path.join(os.path.dirname(MANPAGE), "..", "README.md")).decode()
        lines = []
        for block in re.findall(r"```sh\n(.*?)```", readme, re.S):
            lines += [l.split("  #")[0].strip() for l in block.splitlines() if l.startswith("inetcsum ")]
        man = read_bytes(MANPAGE).decode()
        block = man.split(".SH EXAMPLES\n.nf\n")[1].split(".fi")[0]
        lines += [l.replace("\\-", "-") for l in block.splitlines() if l.startswith("inetcsum ")]
        return lines

    def test_every_example_runs(self):
        if os.environ.get("INETCSUM_SANITIZE") or os.environ.get("INETCSUM_TEST_QUICK"):
            self.skipTest("a quick run (sanitizer and no-SIMD builds): the release build runs the examples")
        lines = self.examples()
        self.assertGreater(len(lines), 25)
        with tempfile.TemporaryDirectory() as d:
            def sh(cmd):
                return subprocess.run(["bash", "-o", "pipefail", "-c", cmd], cwd=d, capture_output=True,
                                      env={**os.environ, "PATH": os.path.dirname(CLI) + os.pathsep + os.environ["PATH"]})
            # The files the examples name.
            for name in ("capture.pcapng", "a.pcap", "b.pcapng", "in.pcap", "trace.pcap", "trace.pcapng"):
                self.assertEqual(run("gen", "--quiet", "--frames", "60", "--bad", "4", os.path.join(d, name)).returncode, 0)
            os.makedirs(os.path.join(d, "captures", "x"))
            run("gen", "--quiet", "--frames", "30", "--bad", "2", os.path.join(d, "captures", "x", "one.pcap"))
            write_bytes(os.path.join(d, "tso.pcap"), pcap(1, [tcp_over(False, bytes(range(256)) * 40)]))
            write_bytes(os.path.join(d, "frame.bin"), bytes(range(64)))
            write_bytes(os.path.join(d, "x.bin"), b"\x45" * 33)
            for name in ("before.json", "after.json"):
                self.assertEqual(run("bench", "sizes", "--smoke", "--json", os.path.join(d, name)).returncode, 0)
            ran = 0
            for line in lines:
                cmd = line
                for old, new in self.STAND_INS:
                    cmd = cmd.replace(old, new)
                if "| jq" in cmd and not shutil.which("jq"):
                    continue  # (jq is not installed here)
                if "--plot" in cmd and subprocess.run(["python3", "-c", "import matplotlib"]).returncode != 0:
                    cmd = re.sub(r" --plot \S+", "", cmd)  # (no matplotlib here: the rest of the line runs)
                res = sh(cmd)
                self.assertIn(res.returncode, (0, 1), f"{line}\n(ran: {cmd})\n{res.stderr.decode()[-2000:]}")
                self.assertNotIn(b"usage:", res.stderr, line)
                ran += 1
            self.assertGreater(ran, 20)


class Docs(unittest.TestCase):
    def help_options(self, cmd):
        out = run(cmd, "--help")
        self.assertEqual(out.returncode, 0)
        return set(re.findall(r"--[a-z0-9][a-z0-9-]*", out.stdout.decode())) - {"--help"}

    def test_man_page_and_completion_know_every_option(self):
        man = read_bytes(MANPAGE).decode()
        completion = read_bytes(COMPLETION).decode()
        # The commands: `inetcsum --help` (main.c's table) is the one source; the completion's first
        # word offers exactly those, and this test's own list agrees.
        top = run("--help").stdout.decode()
        listed = top.split("commands:\n")[1].split("\n\n")[0]
        commands = [line.split()[0] for line in listed.splitlines() if line.startswith("  ")]
        self.assertEqual(sorted(commands), sorted(COMMANDS))
        first = re.search(r'COMP_CWORD" -eq 1 \]; then\n\s*COMPREPLY=\(\$\(compgen -W "([^"]*)"', completion).group(1)
        self.assertEqual(sorted(w for w in first.split() if not w.startswith("-")), sorted(commands))
        for cmd in commands:
            self.assertIn(f".B inetcsum {cmd}", man)
            self.assertIn(f"{cmd})", completion)
            for opt in self.help_options(cmd):
                self.assertIn(opt.replace("-", "\\-"), man, f"{cmd} {opt} missing from the man page")
                self.assertRegex(completion, rf"{cmd}\)[^\n]*{re.escape(opt)}[ =\"]",
                                 f"{cmd} {opt} missing from the completion")
        # The bench experiments: the list `bench --help` prints (from the experiment registry) is
        # the one source; the completion and the man page must name each.
        help_text = run("bench", "--help").stdout.decode()
        listed = help_text.split("Experiments (all: every one, in this order):\n")[1].split("\n\n")[0]
        experiments = [line.split()[0] for line in listed.splitlines() if line.startswith("  ")]
        self.assertGreater(len(experiments), 5, help_text)
        words = re.search(r'compgen -W "([^"]*sizes[^"]*)"', completion).group(1).split()
        for name in experiments:
            self.assertIn(name, words, f"bench experiment {name} missing from the completion")
            self.assertRegex(man, rf"\.B {name}\b|\\fB{name}\\fR", f"bench experiment {name} missing from the man page")
        if shutil.which("groff"):
            res = subprocess.run(["groff", "-z", "-ww", "-man", MANPAGE], capture_output=True)
            self.assertEqual((res.returncode, res.stderr), (0, b""))

    def complete(self, *words):
        script = (f"shopt -s extglob; source {COMPLETION}; COMP_WORDS=({' '.join(words)}); "
                  f"COMP_CWORD={len(words) - 1}; _inetcsum; echo \"${{COMPREPLY[@]}}\"")
        return subprocess.run(["bash", "-c", script], capture_output=True, text=True, check=True).stdout.split()

    def test_completion(self):
        self.assertEqual(self.complete("inetcsum", "ve"), ["verify"])
        self.assertEqual(self.complete("inetcsum", "gen", "--mix", "c"), ["common"])
        self.assertIn("--in-place", self.complete("inetcsum", "fix", "--"))
        self.assertIn("sample.pcap", [os.path.basename(w) for w in self.complete("inetcsum", "verify", SAMPLE[:-4])])
