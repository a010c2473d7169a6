"""gen's captures: the shipped sample reproduced, every frame judged by tshark when it is installed."""
from common import *  # noqa: F401,F403 (the command, its paths, frames, tshark)


class Gen(unittest.TestCase):
    SAMPLE_ARGS = ["--frames", "40", "--bad", "6", "--seed", "1"]

    def test_format_by_the_extension_before_compression(self):
        """x.pcapng.gz is a compressed pcapng (it was written as pcap: only the last extension was
        read); the compression follows the last one."""
        magic = {"pcap": b"\xd4\xc3\xb2\xa1", "pcapng": b"\x0a\x0d\x0d\x0a"}
        unpack = {"gz": lambda b: zlib.decompress(b, 31), "": bytes}
        with tempfile.TemporaryDirectory() as d:
            for name, fmt, comp in [("x.pcapng.gz", "pcapng", "gz"), ("x.pcap.gz", "pcap", "gz"),
                                    ("x.pcapng", "pcapng", ""), ("x.cap", "pcap", "")]:
                path = os.path.join(d, name)
                res = run("gen", "--quiet", "--frames", "3", path)
                self.assertEqual(res.returncode, 0, res.stderr)
                data = read_bytes(path)
                self.assertEqual(unpack[comp](data)[:4], magic[fmt], name)
                self.assertEqual(run("verify", "--quiet", path).returncode, 0, name)

    def test_sample_is_reproduced(self):
        """examples/sample.pcap is what the generator makes with the arguments the README gives."""
        with open(SAMPLE, "rb") as f:
            self.assertEqual(gen(*self.SAMPLE_ARGS, "--quiet", "-").stdout, f.read())

    def test_sample_verify_then_fix(self):
        res = gen(*self.SAMPLE_ARGS, "-")
        made_wrong = {int(line.split()[2]) for line in res.stderr.decode().splitlines() if " frame " in line}
        self.assertEqual(len(made_wrong), 6)
        out = run("verify", "--json", SAMPLE)
        self.assertEqual(out.returncode, 1)
        problems = [p for p in checks(out.stdout) if p["status"] in ("bad", "partial", "illegal")]
        self.assertEqual({p["frame"] for p in problems}, made_wrong)
        self.assertEqual(len(problems), 7)  # one inner checksum also breaks the outer one covering it
        with tempfile.TemporaryDirectory() as d:
            fixed = os.path.join(d, "fixed.pcap")
            self.assertEqual(run("fix", "--quiet", SAMPLE, fixed).returncode, 0)
            self.assertEqual(run("verify", fixed).returncode, 0)
            a, b = read_bytes(SAMPLE), read_bytes(fixed)
            self.assertEqual(len(a), len(b))
            self.assertLessEqual(sum(x != y for x, y in zip(a, b)), 2 * len(problems))
            self.assertEqual(run("fix", "--quiet", SAMPLE, "-").stdout, b)  # fix to standard output

    @staticmethod
    def unreassembled_first_fragments(path):
        """Frames tshark dissects as if whole although they are first fragments: their IPv4 header
        checksum is wrong, so neither tshark nor verify reassembles them.  tshark then follows a
        tunnel inside and judges the inner checksums over the part of the datagram present; verify
        does not look inside a first fragment (what it carries cannot be verified), so only the
        fragment's own header is compared there."""
        args = ["-n", "-r", path, *TSHARK_OPTS, "-T", "fields", "-E", "occurrence=f", "-e", "frame.number",
                "-Y", "ip.flags.mf == 1 && ip.frag_offset == 0 && ip.checksum.status == 0"]
        out = tshark(args, check=True).stdout
        return {int(x) for x in out.split()}

    def check_against_tshark(self, path):
        ours = json_verdicts(self, run("verify", "--json", path).stdout)
        theirs = tshark_verdicts(path)
        skip = self.unreassembled_first_fragments(path)
        compared = 0
        for (frame, col), letters in theirs.items():
            mine = ours.get((path, frame, col), [])
            if frame in skip:
                mine, letters = mine[:1] if col == "ip" else [], letters[:1] if col == "ip" else []
            self.assertEqual(mine, letters, f"{path} frame {frame} {col}")
            compared += len(letters)
        for (file, frame, col), letters in ours.items():
            if set(letters) == {"U"}:
                continue  # unverifiable (a fragment of a datagram never made whole): no verdict either way
            self.assertIn((frame, col), theirs, f"{path} frame {frame} {col}: tshark has no verdict")
        return compared

    def test_every_kind_agrees_with_tshark(self):
        """Generated frames, some made wrong, and their fixed copies: tshark's verdict on every
        checksum equals verify's (an outside check of the generator, verify and fix together)."""
        skip_agreement_here(self)
        if not shutil.which("tshark"):
            self.skipTest("tshark is not installed (scripts/install-deps.sh installs it)")
        with tempfile.TemporaryDirectory() as d:
            compared = 0
            for i, args in enumerate([["--mix", "all", "--frames", "1400", "--bad", "10%"],
                                      ["--mix", "all", "--frames", "280", "--frame-size", "61", "--bad", "20%",
                                       "--format", "pcapng"],
                                      ["--mix", "all", "--frames", "140", "--frame-size", "9018", "--bad", "20%"],
                                      ["--mix", "common", "--frames", "1000", "--bad", "5%", "--seed", "99"],
                                      ["--mix", "all", "--frames", "1400", "--fragment", "40%", "--bad", "15%",
                                       "--seed", "7"],
                                      ["--mix", "all", "--frames", "300", "--fragment", "100%", "--bad", "20%",
                                       "--frame-size", "1514", "--format", "pcapng", "--seed", "8"],
                                      ["--mix", "all", "--frames", "400", "--frame-size", "9018", "--mtu", "1500",
                                       "--bad", "10%", "--seed", "9"],
                                      ["--mix", "all", "--frames", "600", "--mtu", "576", "--fragment", "20%",
                                       "--bad", "10%", "--seed", "10"]]):
                path = os.path.join(d, f"g{i}.cap")
                gen("--quiet", *args, path)
                compared += self.check_against_tshark(path)
                fixed = os.path.join(d, f"f{i}.cap")
                self.assertEqual(run("fix", "--quiet", path, fixed).returncode, 0)
                compared += self.check_against_tshark(fixed)
                self.assertEqual(run("verify", fixed).returncode, 0)
            self.assertGreater(compared, 10000)

    def test_all_right_without_bad(self):
        for args in [["--mix", "all"], ["--mix", "common"], ["--frame-size", "60"], ["--frame-size", "9018"]]:
            out = run("verify", "--quiet", "-", stdin=gen("--frames", "3000", *args, "-").stdout)
            self.assertEqual(out.returncode, 0, (args, out.stdout))

    def test_counts_and_sizes(self):
        data = gen("--quiet", "--mix", "common", "--frames", "500", "--bad", "37", "-").stdout
        out = run("verify", "--json", "-", stdin=data)
        frames = {c["frame"] for c in checks(out.stdout) if c["status"] in ("bad", "partial")}
        self.assertEqual(len(frames), 37)
        data = gen("--quiet", "--size", "3M", "--frame-size", "1514", "-").stdout
        self.assertTrue(3 << 20 <= len(data) < (3 << 20) + 1514 + 16)
        self.assertEqual(gen("--quiet", "--frames", "9", "--seed", "5", "-").stdout,
                         gen("--quiet", "--frames", "9", "--seed", "5", "-").stdout)
        self.assertNotEqual(gen("--quiet", "--frames", "9", "--seed", "5", "-").stdout,
                            gen("--quiet", "--frames", "9", "--seed", "6", "-").stdout)
        for bad in [["--frames", "0", "-"], ["--bad", "5", "--size", "1M", "-"], ["--bad", "101%", "-"],
                    ["--frame-size", "59", "-"], ["--mix", "odd", "-"], ["--frames", "3", "--bad", "4", "-"],
                    ["--size", "1X", "-"], ["--mtu", "127", "-"], ["--mtu", "9001", "-"],
                    ["--mtu", "1500", "--bad", "3", "-"], []]:
            res = run("gen", *bad)
            self.assertEqual(res.returncode, 2, bad)
            self.assertEqual(res.stdout, b"", bad)

    def test_mtu_cuts_as_a_host_does(self):
        """--mtu N: each datagram longer than N leaves as fragments of at most N bytes, in order,
        every one but the last with the most data a multiple of 8 allows, and put back together
        they are the datagram gen makes without --mtu (the same seed makes the same datagrams)."""
        def records(data):  # a little-endian pcap's frames
            out, off = [], 24
            while off < len(data):
                cap = int.from_bytes(data[off + 8:off + 12], "little")
                out.append(data[off + 16:off + 16 + cap])
                off += 16 + cap
            return out

        def ip_of(frame):
            at = 12
            while frame[at:at + 2] == b"\x81\x00":
                at += 4
            return frame[at + 2:]

        def fragment(ip):  # (key, offset, more, unfragmentable part, data) or None
            if ip[0] >> 4 == 4:
                hl, total, off = (ip[0] & 15) * 4, int.from_bytes(ip[2:4], "big"), int.from_bytes(ip[6:8], "big")
                if not off & 0x3FFF:
                    return None
                return (ip[4:6], (off & 0x1FFF) * 8, bool(off & 0x2000), ip[:hl], ip[hl:total])
            total, nh, nh_at, at = 40 + int.from_bytes(ip[4:6], "big"), ip[6], 6, 40
            while nh in (0, 43, 60) and nh != 44:
                nh, nh_at, at = ip[at], at, at + (ip[at + 1] + 1) * 8
            if nh != 44:
                return None
            off = int.from_bytes(ip[at + 2:at + 4], "big")
            return (ip[at + 4:at + 8], off & ~7, bool(off & 1), ip[:at], ip[at + 8:total])

        for mtu, size in [(1500, "9018"), (1280, "4000"), (576, None), (128, "600")]:
            sized = ["--frame-size", size] if size else []
            cut = records(gen("--quiet", "--mix", "all", "--frames", "500", "--mtu", str(mtu), *sized, "-").stdout)
            whole = [ip_of(f) for f in records(gen("--quiet", "--mix", "all", "--frames", "500", *sized, "-").stdout)]
            datagrams, pending, fragmented = [], None, 0
            for f in cut:
                ip = ip_of(f)
                self.assertLessEqual(len(ip.rstrip(b"\0")) if len(f) == 60 else len(ip), mtu, (mtu, len(datagrams)))
                frag = fragment(ip)
                if frag is None:
                    self.assertIsNone(pending, (mtu, len(datagrams)))
                    datagrams.append(ip)
                    continue
                key, offset, more, head, data = frag
                if pending is None:
                    self.assertEqual(offset, 0, (mtu, len(datagrams)))
                    pending = [key, head, b""]
                self.assertEqual((key, offset), (pending[0], len(pending[2])), (mtu, len(datagrams)))
                if more:  # full: one more 8-byte unit would not fit
                    self.assertEqual(len(data) % 8, 0)
                    self.assertGreater(len(head) + (8 if ip[0] >> 4 == 6 else 0) + len(data) + 8, mtu)
                pending[2] += data
                if not more:
                    datagrams.append((pending[1], pending[2]))
                    pending, fragmented = None, fragmented + 1
            self.assertIsNone(pending)
            self.assertGreater(fragmented, 20, mtu)
            for i, got in enumerate(datagrams):
                want = whole[i]
                if isinstance(got, bytes):
                    self.assertEqual(got, want[:len(got)], (mtu, i))
                    continue
                head, payload = got
                if head[0] >> 4 == 4:  # the length, flags, offset and checksum the fragment's own
                    want_len = int.from_bytes(want[2:4], "big")
                    same = lambda h: h[:2] + h[4:6] + h[8:10] + h[12:len(head)]  # noqa: E731
                    self.assertEqual(same(head), same(want), (mtu, i))
                    self.assertGreater(want_len, mtu)
                    self.assertEqual(payload, want[len(head):want_len], (mtu, i))
                else:  # the fragment header's next header in the header before it
                    want_len = 40 + int.from_bytes(want[4:6], "big")
                    self.assertGreater(want_len, mtu)
                    self.assertEqual(payload, want[len(head):want_len], (mtu, i))
