"""verify -i: a live interface read on a veth pair in a network namespace (root only)."""
from common import *  # noqa: F401,F403 (the command, its paths, frames, tshark)


class LiveInterface(unittest.TestCase):
    """verify -i (issue 37): a veth pair between two network namespaces, the kernel's own UDP as
    input.  With TX checksum offload on, the kernel leaves the UDP checksum to the device
    (TP_STATUS_CSUMNOTREADY): offload pending, never a problem; off, it is complete and good; a
    frame sent wrong through a packet socket is bad.  The filter is tcpdump's (libpcap's)."""

    def setUp(self):
        if os.geteuid() != 0 or not shutil.which("ip"):
            self.skipTest("network namespaces and a packet socket need root and iproute2")
        if not shutil.which("ethtool"):
            self.skipTest("ethtool sets the veth's TX checksum offload")
        tag = str(os.getpid() % 100000)
        self.a, self.b = "icsa" + tag, "icsb" + tag
        self.addCleanup(lambda: [subprocess.run(["ip", "netns", "del", n], capture_output=True) for n in (self.a, self.b)])
        for cmd in (["ip", "netns", "add", self.a], ["ip", "netns", "add", self.b],
                    ["ip", "-n", self.a, "link", "add", "va", "type", "veth", "peer", "name", "vb", "netns", self.b],
                    ["ip", "-n", self.a, "addr", "add", "10.9.0.1/24", "dev", "va"],
                    ["ip", "-n", self.b, "addr", "add", "10.9.0.2/24", "dev", "vb"],
                    ["ip", "-n", self.a, "link", "set", "va", "up"], ["ip", "-n", self.b, "link", "set", "vb", "up"]):
            if subprocess.run(cmd, capture_output=True).returncode != 0:
                self.skipTest(f"{' '.join(cmd)} failed here")

    def capture(self, ns, iface, *args, send=(("udp",),)):
        """Runs verify -i in ns while the senders run in namespace a; its result."""
        proc = subprocess.Popen(["ip", "netns", "exec", ns, CLI, "verify", "-i", iface, "--duration", "8", *args],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        time.sleep(0.7)  # (the ring is up well before)
        for what in send:
            subprocess.run(["ip", "netns", "exec", self.a, sys.executable, "-c", LIVE_SENDER, *what], check=True)
        out, err = proc.communicate(timeout=30)
        return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)

    def test_offload_pending_is_no_problem(self):
        subprocess.run(["ip", "netns", "exec", self.a, "ethtool", "-K", "va", "tx", "on"], capture_output=True)
        res = self.capture(self.a, "va", "-c", "3", "--json", "udp", "port", "9999")
        self.assertEqual(res.returncode, 0, res.stderr)
        objs = [json.loads(x) for x in res.stdout.splitlines()]
        udp = [o for o in objs if o["type"] == "check" and o["layer"] == "udp"]
        self.assertEqual([(o["status"], o["flags"]) for o in udp], [("partial", ["device"])] * 3)
        summary = objs[-1]
        self.assertEqual((summary["frames"], summary["problems"], summary["pending"]), (3, 0, 3))
        self.assertIn(b"3 left to the device on transmit (offload pending", res.stderr)

    def test_complete_checksums_and_a_wrong_one(self):
        subprocess.run(["ip", "netns", "exec", self.a, "ethtool", "-K", "va", "tx", "off"], capture_output=True)
        with tempfile.TemporaryDirectory() as d:
            kept = os.path.join(d, "kept.pcap")
            res = self.capture(self.b, "vb", "-c", "4", "-w", kept, "udp", "port", "9999",
                               send=(("udp",), ("raw", "va")))
            self.assertEqual(res.returncode, 1, res.stderr)  # the wrong one
            self.assertIn(b"vb: frame 4 UDP 0x4242, should be", res.stdout)
            self.assertIn(b"vb: 4 frames, 8 checksums, 7 good, 1 bad", res.stdout)  # (7777 filtered out)
            offline = run("verify", kept)
            self.assertEqual(offline.returncode, 1)
            self.assertIn(b"frame 4 UDP 0x4242, should be", offline.stdout)
            self.assertIn(b"4 frames, 8 checksums, 7 good, 1 bad", offline.stdout)

    def test_errors_say_why(self):
        res = subprocess.run(["ip", "netns", "exec", self.a, CLI, "verify", "-i", "nosuch0"], capture_output=True)
        self.assertEqual(res.returncode, 2)
        self.assertIn(b"nosuch0: no such interface", res.stderr)
        res = subprocess.run(["ip", "netns", "exec", self.a, CLI, "verify", "-i", "va", "udp", "port"],
                             capture_output=True)
        self.assertEqual(res.returncode, 2)
        self.assertIn(b"the filter 'udp port' does not compile", res.stderr)
        # libpcap is loaded when a filter is first compiled (capture/CMakeLists.txt): one that cannot
        # be loaded is said, not a crash (a file that is no library, first in the loader's path).
        # (Where the build linked libpcap instead, the filter compiles: nothing to see.)
        if b"libpcap" not in subprocess.run(["ldd", CLI], capture_output=True).stdout:
            with tempfile.TemporaryDirectory() as d:
                for name in ("libpcap.so.0.8", "libpcap.so.1"):
                    write_bytes(os.path.join(d, name), b"not a library")
                res = subprocess.run(["ip", "netns", "exec", self.a, "env", f"LD_LIBRARY_PATH={d}", CLI, "verify", "-i",
                                      "va", "--duration", "2", "udp"], capture_output=True)
            self.assertEqual(res.returncode, 2)
            self.assertIn(b"va: filters need libpcap, which could not be loaded: ", res.stderr)
        res = run("verify", "-c", "3", "x.pcap")
        self.assertEqual(res.returncode, 2)
        self.assertIn(b"-c, --duration and -w go with -i IFACE", res.stderr)
