"""Every checksum protocol's verdicts, on made frames and the tcpdump corpus, against tshark."""
from common import *  # noqa: F401,F403 (the command, its paths, frames, tshark)


class ChecksumProtocols(unittest.TestCase):
    """The checksums tshark checks beyond the manifests' columns, on frames made here, right and
    wrong: every verdict of tshark's is ours (issue 25, item 3)."""
    HELLO = b"\x00\x01\x00\x02\x00\x69"  # a holdtime option
    FRAMES = {
        "pim-hello": pim(0, HELLO),
        "pim-hello-bad": damaged(pim(0, HELLO), 1),
        "pim-hello-v6": pim(0, HELLO, v6=True),
        "pim-hello-v6-bad": damaged(pim(0, HELLO, v6=True), 1),
        "pim-register": pim(1, b"\x00\x00\x00\x00" + ipv4_udp()),  # its inner UDP wrong
        "pim-register-v6": pim(1, b"\x00\x00\x00\x00" + ipv4_udp(), v6=True),
        "pim-register-whole": pim(1, b"\x00\x00\x00\x00" + ipv4_udp(), register_whole=True),
        "pim-register-stop-v6": pim(2, bytes(4) + bytes(4), v6=True),
        # VRRPv2 and CARP without a pseudo-header, VRRPv3 with one over either IP (RFC 3768, 5798)
        "vrrp2": over_ip(112, checksummed(b"\x21\x01\x64\x01\x00\x01\x00\x00\x0a\x00\x00\x05" + bytes(8), 6)),
        "vrrp3": over_ip(112, checksummed(b"\x31\x01\x64\x01\x00\x64\x00\x00\x0a\x00\x00\x05", 6, 112)),
        "vrrp3-v6": over_ip(112, checksummed(b"\x31\x01\x64\x01\x00\x64\x00\x00" + V6_SRC, 6, 112, v6=True), v6=True),
        "vrrp3-v6-bad": damaged(over_ip(112, checksummed(b"\x31\x01\x64\x01\x00\x64\x00\x00" + V6_SRC, 6), v6=True), 1),
        "carp": over_ip(112, checksummed(b"\x21\x01\x00\x07\x00\x01\x00\x00" + bytes(range(28)), 6)),
        "eigrp": over_ip(88, checksummed(b"\x02\x05\x00\x00" + bytes(12) + b"\x00\x00\x00\x64"
                                         + b"\x00\x01\x00\x0c\x01\x00\x01\x00\x00\x00\x00\x0f", 2)),
        "eigrp-bad": damaged(over_ip(88, checksummed(b"\x02\x05\x00\x00" + bytes(16), 2)), 3),
        # DCCP (RFC 4340 9.1): all of it, or its header and one word of data (CsCov 2)
        "dccp": over_ip(33, checksummed(b"\x04\x00\x00\x50\x04\x00\x00\x00\x05\x00\x00\x00\x00\x00\x00\x01"
                                        + b"dccp data", 6, 33)),
        "dccp-cscov": over_ip(33, checksummed(b"\x04\x00\x00\x50\x04\x02\x00\x00\x05\x00\x00\x00\x00\x00\x00\x01"
                                              + b"dccp data", 6, 33, cover=20)),
        "dccp-cscov-v6-bad": damaged(over_ip(33, checksummed(b"\x04\x00\x00\x50\x04\x02\x00\x00\x05\x00\x00\x00"
                                                             + b"\x00\x00\x00\x01" + b"dccp", 6, 33, v6=True),
                                             v6=True), 4 + 1),
        "nhrp-in-gre": ether(ipv4(47, b"\x00\x00\x20\x01" + checksummed(
            b"\x00\x01\x08\x00" + bytes(5) + b"\xff\x00\x24\x00\x00\x00\x00\x01\x03\x00\x00"
            + b"\x04\x04\x00\x00\x00\x00\x00\x01\x0a\x00\x00\x03\x0a\x00\x00\x04", 12))),
        # PGM (RFC 3208 8): an SPM, no pseudo-header; 0 means none was sent
        "pgm": over_ip(113, checksummed(PGM_SPM, 6)),
        "pgm-bad": damaged(over_ip(113, checksummed(PGM_SPM, 6)), 2),
        "pgm-none": over_ip(113, PGM_SPM),
        # IPv4's Authentication Header (RFC 4302) hides nothing: the UDP after it is checked (here wrong)
        "ah-udp": over_ip(51, b"\x11\x04\x00\x00" + b"\x00\x00\x01\x00" + b"\x00\x00\x00\x07" + bytes(12)
                          + damaged(checksummed(b"\x04\xd2\x00\x35\x00\x0d\x00\x00hello", 6, 17), 1)),
    }
    # tshark checks these without a status field: their frames are held to its "[incorrect" text
    TEXT_ONLY = {
        # OSPFv2: all but the authentication field (RFC 2328 D.4); OSPFv3 with the pseudo-header
        "ospf2": over_ip(89, checksummed(b"\x02\x01\x00\x2c\x0a\x00\x00\x03" + bytes(4) + b"\x00\x00\x00\x01"
                                         + b"secret!!" + b"\xff\xff\xff\x00\x00\x0a\x02\x01\x00\x00\x00\x28"
                                         + bytes(8), 12, skip=(16, 24))),
        "ospf3": over_ip(89, checksummed(b"\x03\x01\x00\x24\x0a\x00\x00\x03" + bytes(8) + b"\x00\x00\x00\x05"
                                         + b"\x01\x00\x00\x13\x00\x0a\x00\x28" + bytes(8), 12, 89, v6=True), v6=True),
        "rsvp": over_ip(46, checksummed(b"\x10\x14\x00\x00\x01\x00\x00\x14" + b"\x00\x0c\x16\x01" + bytes(8), 2)),
    }

    def test_against_tshark(self):
        skip_agreement_here(self)
        if not shutil.which("tshark"):
            self.skipTest("needs tshark (Debian's tshark package)")
        with tempfile.TemporaryDirectory() as d:
            for name, frame in self.FRAMES.items():
                path = os.path.join(d, name + ".pcap")
                write_bytes(path, pcap(1, [frame]))
                theirs = tshark_verdicts(path)
                ours = json_verdicts(self, run("verify", "--json", path).stdout)
                self.assertTrue(theirs, name)
                for (frame_no, col), letters in theirs.items():
                    self.assertEqual(ours.get((path, frame_no, col)), letters, f"{name} {col}")
                # fill puts every wrong one right, and tshark agrees
                fixed = os.path.join(d, name + "-fixed.pcap")
                self.assertEqual(run("fix", "--quiet", path, fixed).returncode, 0, name)
                self.assertNotIn("B", "".join("".join(v) for v in tshark_verdicts(fixed).values()), name)
            for name, frame in self.TEXT_ONLY.items():
                for wrong in (False, True):
                    path = os.path.join(d, f"{name}{'-bad' if wrong else ''}.pcap")
                    write_bytes(path, pcap(1, [damaged(frame, 1) if wrong else frame]))
                    res = run("verify", "--json", path)
                    statuses = [o["status"] for o in map(json.loads, res.stdout.splitlines()) if o["type"] == "check"]
                    text = tshark(["-n", "-r", path, "-V"]).stdout
                    self.assertEqual(statuses[-1], "bad" if wrong else "good", name)
                    self.assertEqual("[incorrect, should be" in text, wrong, f"{name}: {text}")
                    fixed = os.path.join(d, f"{name}-fixed.pcap")
                    self.assertEqual(run("fix", "--quiet", path, fixed).returncode, 0, name)
                    self.assertNotIn("[incorrect", tshark(["-n", "-r", fixed, "-V"]).stdout, name)


class CorpusProtocols(unittest.TestCase):
    """The checksum protocols the manifests have no column for, on every capture of the tcpdump
    corpus that carries one: each verdict tshark gives is ours, and fix leaves it nothing to flag."""
    PROTOCOLS = ("pim", "vrrp", "carp", "eigrp", "dccp", "nhrp", "pgm")
    # PIMv1 rides in IGMP (type 0x14): tshark calls its checksum PIM's, inetcsum the IGMP message's
    # it is (the same bytes, the same rule).
    ALSO_AS = {"pim": "igmp"}

    def test_every_verdict_on_the_corpus(self):
        skip_agreement_here(self)
        corpus = os.path.join(CAPTURES, "..", "corpora", "tcpdump")
        if not os.path.isdir(corpus):
            self.skipTest(f"needs the shared corpora: {corpus} is missing")
        if not shutil.which("tshark"):
            self.skipTest("needs tshark (Debian's tshark package)")
        with open(os.path.join(corpus, "MANIFEST.tsv")) as f:
            head = f.readline().rstrip("\n").split("\t")
            rows = [dict(zip(head, line.rstrip("\n").split("\t"))) for line in f]
        files = sorted({r["file"] for r in rows if any(p in r["protocols"].split(":") for p in self.PROTOCOLS)})
        # judged as the manifests' README says: frames neither IP fragments nor cut by the capture
        judged = {(r["file"], int(r["frame"])) for r in rows if r["ipfrag"] == "" and r["len"] == r["caplen"]}
        self.assertGreater(len(files), 30)
        compared = 0
        with tempfile.TemporaryDirectory() as d:
            for name in files:
                path = os.path.join(corpus, os.path.basename(name))
                theirs = tshark_verdicts(path)
                ours = json_verdicts(self, run("verify", "--json", path).stdout)
                for (frame, col), letters in theirs.items():
                    if col not in self.PROTOCOLS or (name, frame) not in judged:
                        continue
                    compared += 1
                    got = ours.get((path, frame, col)) or ours.get((path, frame, self.ALSO_AS.get(col)))
                    self.assertEqual(got, letters, f"{name} frame {frame} {col}")
                fixed = os.path.join(d, "fixed.pcap")
                if run("fix", "--quiet", "--unfollowed-ok", path, fixed).returncode == 0:
                    for (frame, col), letters in tshark_verdicts(fixed).items():
                        if col in self.PROTOCOLS:
                            self.assertNotIn("B", letters, f"{name} frame {frame} {col} after fix")
        self.assertGreater(compared, 600)
