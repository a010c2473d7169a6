"""segment end to end: TSO/GRO super-packets split as Linux splits them, tshark's verdicts on them."""
from common import *  # noqa: F401,F403 (the command, its paths, frames, tshark)


class Segment(unittest.TestCase):
    def test_big_tcp_and_tso(self):
        """Super-packets whose IP length is 0 (TSO, BIG TCP over 64 KB, the jumbo hop-by-hop header
        Linux 5.19-6.2 showed captures) are verified and segmented into frames every checksum of
        which is right, as tshark says too (issue 25, item 4)."""
        data = random.Random(25).randbytes(80000)
        frames = {"tso-ipv4": (tcp_over(False, data[:2000]), 2000), "big-ipv4": (tcp_over(False, data), len(data)),
                  "big-ipv6": (tcp_over(True, data), len(data)),
                  "big-ipv6-jumbo": (tcp_over(True, data, jumbo_hbh=True), len(data))}
        with tempfile.TemporaryDirectory() as d:
            for name, (frame, payload) in frames.items():
                src, out = os.path.join(d, name + ".pcap"), os.path.join(d, name + "-out.pcap")
                write_bytes(src, pcap(1, [frame]))
                res = run("verify", src)
                self.assertEqual(res.returncode, 0, f"{name}: {res.stdout}")
                res = run("segment", "--quiet", src, out)
                self.assertEqual(res.returncode, 0, f"{name}: {res.stderr}")
                res = run("verify", "--json", out)
                self.assertEqual(res.returncode, 0, name)
                summary = json.loads(res.stdout.splitlines()[-1])
                mss = 1460 if "ipv4" in name else 1440  # MTU 1500 less the IP and TCP headers
                n = (payload + mss - 1) // mss
                self.assertEqual(summary["frames"], n, name)
                self.assertEqual(summary["statuses"], {"good": n * (2 if "ipv4" in name else 1)}, name)
                if shutil.which("tshark"):
                    self.assertNotIn("B", "".join("".join(v) for v in tshark_verdicts(out).values()), name)

    def test_json_says_what_was_split(self):
        """segment --json (issue 37): a "segmented" record per super-packet with the OUT frames it
        became, "over_mtu" for one left, fix's records for the other frames' checksums, a summary
        whose counts match the text's and OUT's frames."""
        data = random.Random(37).randbytes(5000)
        big = tcp_over(False, data)
        small = bytearray(ether(ipv4_udp()))  # its UDP checksum wrong: fixed, and said so
        cut = tcp_over(False, data)[:3000]  # a super-packet the capture cut: left over the MTU
        with tempfile.TemporaryDirectory() as d:
            src, out = os.path.join(d, "in.pcap"), os.path.join(d, "out.pcap")
            write_bytes(src, pcap(1, [bytes(small), big]) + (3).to_bytes(4, "little") + bytes(4)
                        + len(cut).to_bytes(4, "little") + len(big).to_bytes(4, "little") + cut)
            res = run("segment", "--json", src, out)
            self.assertEqual(res.returncode, 1, res.stderr)  # (the cut one is left over the MTU)
            records = [json.loads(x) for x in res.stdout.splitlines()]
            kinds = [o["type"] for o in records]
            self.assertEqual(kinds[-1], "summary")
            (seg,) = [o for o in records if o["type"] == "segmented"]
            n = (len(data) + 1459) // 1460
            self.assertEqual((seg["frame"], seg["proto"], seg["segments"], seg["segment_size"], seg["out_frames"]),
                             (2, "tcp", n, 1460, [2, 1 + n]))
            (over,) = [o for o in records if o["type"] == "over_mtu"]
            self.assertEqual((over["frame"], over["why"]), (3, "cut by the capture (its payload is not all there)"))
            (written,) = [o for o in records if o["type"] == "written"]
            self.assertEqual((written["frame"], written["layer"], written["was"]), (1, "udp", "bad"))
            summary = records[-1]
            self.assertEqual((summary["frames"], summary["frames_out"], summary["split"], summary["segments"],
                              summary["written"], summary["over_mtu"], summary["out"]),
                             (3, 2 + n, {"tcp": 1, "udp": 0}, n, 1, 1, out))
            self.assertEqual(json.loads(run("verify", "--json", out).stdout.splitlines()[-1])["frames"], 2 + n)
            self.assertIn(b"cannot be '-' too", run("segment", "--json", src, "-").stderr)

    def test_shared_big_tcp_captures(self):
        """The BIG TCP and TSO captures of tcpdump's tests, segmented: tshark passes every frame."""
        corpus = os.path.join(CAPTURES, "..", "corpora", "tcpdump")
        if not os.path.isdir(corpus):
            self.skipTest(f"needs the shared corpora: {corpus} is missing")
        with tempfile.TemporaryDirectory() as d:
            for name in ("bigtcp-ipv4.pcap", "bigtcp-ipv6.pcap", "bigtcp-ipv6-hbh.pcap", "ipv4_tcp_http_xml_tso.pcap",
                         "bigtcp-ipv4-vxlan-ipv6.pcap", "bigtcp-ipv6-geneve-ipv4.pcap"):
                out = os.path.join(d, name)
                res = run("segment", "--quiet", os.path.join(corpus, name), out)
                self.assertEqual(res.returncode, 0, f"{name}: {res.stderr}")
                self.assertEqual(run("verify", out).returncode, 0, name)
                if shutil.which("tshark"):
                    verdicts = tshark_verdicts(out)
                    self.assertTrue(verdicts, name)
                    self.assertNotIn("B", "".join("".join(v) for v in verdicts.values()), name)

    def test_synthetic_super_packets(self):
        scapy_or_skip(self)
        from scapy.layers.inet import ICMP, IP, TCP, UDP
        from scapy.layers.inet6 import IPv6
        from scapy.layers.l2 import Ether
        from scapy.utils import PcapNgWriter, rdpcap, wrpcap
        eth = Ether(src="02:00:00:00:00:01", dst="02:00:00:00:00:02")
        data = random.Random(5).randbytes(30000)
        tcp = eth / IP(src="10.0.0.1", dst="10.0.0.2", id=100, flags="DF") / TCP(
            sport=1000, dport=2000, seq=5, flags="FPAC", options=[("Timestamp", (1, 2))]) / data
        udp6 = eth / IPv6(src="fd00::1", dst="fd00::2") / UDP(sport=3, dport=4) / data[:9000]
        ping = eth / IP(src="10.0.0.1", dst="10.0.0.2") / ICMP() / data[:3000]
        small = eth / IP(src="10.0.0.1", dst="10.0.0.2") / UDP(sport=5, dport=6, chksum=0x1234) / b"hello"
        with tempfile.TemporaryDirectory() as d:
            for fmt in ("pcap", "pcapng"):
                src, out = os.path.join(d, f"in.{fmt}"), os.path.join(d, f"out.{fmt}")
                frames = [tcp, udp6, ping, small]
                if fmt == "pcap":
                    wrpcap(src, frames)
                else:
                    with PcapNgWriter(src) as w:
                        for f in frames:
                            w.write(f)
                res = run("segment", "--udp-size", "1000", src, out)
                self.assertEqual(res.returncode, 1, res.stderr)  # the ICMP frame is left over the MTU
                self.assertRegex(res.stderr, rb"frame 3: 3042 bytes, over the MTU of 1500: neither TCP nor UDP")
                self.assertIn(b"1 TCP and 1 UDP super-packets split into", res.stderr)
                self.assertEqual(read_bytes(out)[:4], read_bytes(src)[:4])  # IN's format
                got = rdpcap(out)
                sizes = [len(p) for p in got]
                self.assertEqual(len(got), 21 + 9 + 1 + 1)  # 30000 / 1448 = 21, 9000 / 1000 = 9
                self.assertTrue(all(n <= 1514 for n in sizes[:30]), sizes)
                self.assertEqual(tcp_stream(got, 2000), data)
                seqs = [p[TCP].seq for p in got[:21]]
                self.assertEqual(seqs, [5 + 1448 * i for i in range(21)])
                self.assertEqual([p[IP].id for p in got[:21]], list(range(100, 121)))
                flags = [str(p[TCP].flags) for p in got[:21]]
                self.assertEqual((flags[0], flags[1], flags[-1]), ("AC", "A", "FPA"))
                self.assertEqual([len(p[UDP].payload) for p in got[21:30]], [1000] * 9)
                self.assertEqual(bytes(got[30]), bytes(ping))  # left as it was
                self.assertEqual(run("verify", out).returncode, 0)
                self.assertEqual(tshark_bad(self, out) or set(), set())
            # Without --udp-size: datagrams as large as the MTU allows, and a word saying so.
            res = run("segment", "--quiet", src, out)
            self.assertEqual(res.returncode, 1)
            res = run("segment", src, out)
            self.assertIn(b"--udp-size gives it", res.stderr)
            self.assertEqual([len(p[UDP].payload) for p in rdpcap(out)[21:28]], [1452] * 6 + [9000 - 6 * 1452])
            self.assertEqual(run("segment", "--mtu", "20", src, out).returncode, 2)
            self.assertEqual(run("segment", src).returncode, 2)

    def test_real_tso_traffic(self):
        """tcpdump on a veth with TSO on captures 64 KB frames; segment makes them what the wire
        carried; tcpreplay can then send them through a veth with MTU 1500 (not before)."""
        scapy_or_skip(self)
        for tool in ("ip", "tcpdump", "tcpreplay"):
            if not shutil.which(tool):
                self.skipTest(f"{tool} is not installed (scripts/install-deps.sh installs it)")
        if os.geteuid() != 0:
            self.skipTest("needs root: network namespaces and veth devices")
        from scapy.utils import rdpcap
        tag = f"{os.getpid() % 100000}"
        ns = [f"icss{tag}", f"icsr{tag}"]
        sh = lambda *a: subprocess.run(a, check=True, capture_output=True)  # noqa: E731
        data = random.Random(3).randbytes(1 << 20)
        try:
            for n in ns:
                sh("ip", "netns", "add", n)
            sh("ip", "link", "add", f"vs{tag}", "netns", ns[0], "type", "veth", "peer", "name", f"vr{tag}", "netns", ns[1])
            for n, dev, addr in ((ns[0], f"vs{tag}", "10.66.0.1"), (ns[1], f"vr{tag}", "10.66.0.2")):
                sh("ip", "-n", n, "addr", "add", f"{addr}/24", "dev", dev)
                sh("ip", "-n", n, "link", "set", dev, "up")
            with tempfile.TemporaryDirectory() as d:
                src, out = os.path.join(d, "tso.pcap"), os.path.join(d, "wire.pcap")
                dump = subprocess.Popen(["ip", "netns", "exec", ns[0], "tcpdump", "-i", f"vs{tag}", "-s", "0", "-U",
                                         "-B", "65536", "-w", src, "tcp"], stderr=subprocess.PIPE)
                dump.stderr.readline()  # "listening on ..."
                server = subprocess.Popen(["ip", "netns", "exec", ns[1], sys.executable, "-c",
                                           "import socket; s=socket.socket(); s.bind(('10.66.0.2', 7001)); s.listen(1);"
                                           "print('ready', flush=True); c, _ = s.accept()\n"
                                           "while c.recv(1 << 20): pass"], stdout=subprocess.PIPE)
                server.stdout.readline()
                subprocess.run(["ip", "netns", "exec", ns[0], sys.executable, "-c",
                                "import socket, sys; s = socket.create_connection(('10.66.0.2', 7001));"
                                "s.sendall(sys.stdin.buffer.read()); s.close()"], input=data, check=True)
                server.wait(timeout=30)
                server.stdout.close()
                time.sleep(1)  # tcpdump's last packets, still in the kernel's buffer
                dump.terminate()
                _, err = dump.communicate(timeout=10)
                if not re.search(rb"\b0 packets dropped by kernel", err):
                    self.skipTest(f"tcpdump dropped packets on this loaded machine: {err.decode()!r}")
                before = rdpcap(src)
                self.assertGreater(max(len(p) for p in before), 1514 * 4)  # TSO was on: super-packets
                res = run("segment", src, out)
                self.assertEqual(res.returncode, 0, res.stderr)
                after = rdpcap(out)
                self.assertTrue(all(len(p) <= 1514 for p in after))
                self.assertEqual(tcp_stream(after, 7001), data)
                self.assertEqual(run("verify", out).returncode, 0)
                self.assertEqual(tshark_bad(self, out) or set(), set())
                # tcpreplay through a veth of MTU 1500: the capture fails, the segmented one goes.
                replay = lambda path: subprocess.run(  # noqa: E731
                    ["ip", "netns", "exec", ns[0], "tcpreplay", "-i", f"vs{tag}", "-t", path], capture_output=True,
                    text=True)
                refused = replay(src)
                self.assertRegex(refused.stdout + refused.stderr, r"Failed packets:\s+[1-9]|Message too long")
                ok = replay(out)
                self.assertEqual(ok.returncode, 0, ok.stderr)
                self.assertRegex(ok.stdout, r"Failed packets:\s+0\b")
                self.assertRegex(ok.stdout, rf"Successful packets:\s+{len(after)}\b")
        finally:
            for n in ns:
                subprocess.run(["ip", "netns", "del", n], capture_output=True)
