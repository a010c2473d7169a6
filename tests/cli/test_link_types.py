"""verify and fix across link types and encapsulations, each held to tshark's verdicts on frames
made right and wrong."""
from common import *  # noqa: F401,F403 (the command, its paths, frames, tshark)


class LinkTypes(unittest.TestCase):
    """Every link type and encapsulation a wrong UDP checksum may come in is decoded; an unknown
    link type is said so."""
    FRAMES = {
        "ipoib": (242, bytes(40) + b"\x08\x00\x00\x00" + ipv4_udp()),
        "ipnet": (226, b"\x02\x02\x00\x00" + (45).to_bytes(4, "big") + bytes(16) + ipv4_udp()),
        "arcnet-1201": (129, b"\x01\x02\x00\x00\xd4\x00\x00\x00" + ipv4_udp()),
        "arcnet-1051": (129, b"\x01\x02\x00\x00\xf0" + ipv4_udp()),
        "frelay-nlpid": (107, b"\x18\x41\x03\xcc" + ipv4_udp()),
        "frelay-snap": (107, b"\x18\x41\x03\x00\x80\x00\x00\x00\x08\x00" + ipv4_udp()),
        "frelay-cisco": (107, b"\x18\x41\x08\x00" + ipv4_udp()),
        "frelay-ppp": (107, b"\x18\x41\x03\xcf\x00\x21" + ipv4_udp()),  # RFC 1973
        "frelay-bridged": (107, b"\x18\x41\x03\x00\x80\x00\x80\xc2\x00\x07" + ether(ipv4_udp())),  # RFC 2427 5.1
        "juniper": (178, b"MGC\x00" + ether(ipv4_udp())),
        "juniper-ext": (178, b"MGC\x80\x00\x03\x01\x01\x07" + ether(ipv4_udp())),
        "juniper-no-l2": (178, b"MGC\x02\x02\x00\x00\x00" + ipv4_udp()),
        "pktap": (258, pktap(ether(ipv4_udp()))),
        "pktap-user2": (149, pktap(ether(ipv4_udp()))),
        "radiotap": (127, radiotap(ipv4_udp())),
        "radiotap-fcs-qos": (127, radiotap(ipv4_udp(), fcs=True, qos=True)),
        "ether-fcs": (0x24000001, ether(ipv4_udp()) + zlib.crc32(ether(ipv4_udp())).to_bytes(4, "little")),
        # Issue 36: 802.11 without radiotap (105), PPI (192) before Ethernet or 802.11, FDDI (10)
        # with LLC/SNAP, and 802.11 frames in Aruba's GRE (protocol 0x8200).
        "ieee802-11": (105, radiotap(ipv4_udp())[8:]),
        "ppp-cisco-hdlc": (9, b"\x0f\x00\x08\x00" + ipv4_udp()),  # Cisco HDLC under LINKTYPE_PPP
        # 802.1ah PBB (an I-TAG, the customer's addresses), PBB in PBB, and Cisco FabricPath (its
        # tag, the customer's frame, FabricPath's FCS after it)
        "pbb": (1, ether(b"\x00\x00\x01\x00" + bytes(12) + b"\x08\x00" + ipv4_udp(), ethertype=b"\x88\xe7")),
        "pbb-in-pbb": (1, ether(b"\x00\x00\x01\x00" + bytes(12) + b"\x88\xe7" + b"\x00\x00\x02\x00" + bytes(12)
                                + b"\x08\x00" + ipv4_udp(), ethertype=b"\x88\xe7")),
        "fabricpath": (1, ether(b"\x00\x3f" + ether(ipv4_udp()) + b"\x01\x02\x03\x04", ethertype=b"\x89\x03")),
        # AYIYA forwarding a packet (16-byte identity, 20-byte signature; IPv4 in it here), and
        # CAPWAP data carrying an 802.3 frame and a native 802.11 one
        "ayiya": (1, ether(ipv4_udp(b"\x41\x52\x21\x04" + bytes(4) + bytes(16) + bytes(20) + ipv4_udp(), bad=False,
                                    dport=5072))),
        # GTP as tshark reads it on each of its ports: GTPv0's 20-byte header and GTP''s 6-byte one
        # on 3386 (GTP' version 2 there too), GTPv0 on GTP-U's port, a GTPv1 T-PDU on GTP-C's
        "gtpv0": (1, ether(ipv4_udp(gtp_header(0x1e, 20, ipv4_udp()) + ipv4_udp(), bad=False, dport=3386))),
        "gtp-prime": (1, ether(ipv4_udp(gtp_header(0x0f, 6, ipv4_udp()) + ipv4_udp(), bad=False, dport=3386))),
        "gtp-prime-v2": (1, ether(ipv4_udp(gtp_header(0x4e, 6, ipv4_udp()) + ipv4_udp(), bad=False, dport=3386))),
        "gtpv0-on-2152": (1, ether(ipv4_udp(gtp_header(0x10, 20, ipv4_udp()) + ipv4_udp(), bad=False, dport=2152))),
        "gtpv1-on-2123": (1, ether(ipv4_udp(gtp_header(0x30, 8, ipv4_udp()) + ipv4_udp(), bad=False, dport=2123))),
        "capwap-802-3": (1, ether(ipv4_udp(b"\x00\x10\x02\x00" + bytes(4) + ether(ipv4_udp()), bad=False, dport=5247))),

        "ieee802-11-qos": (105, radiotap(ipv4_udp(), qos=True)[8:]),
        # 802.11 A-MSDUs: subframes side by side, the last one's UDP wrong; IPv6 in one; behind
        # radiotap with its header padding (tshark decodes each subframe's packet)
        "ieee802-11-amsdu": (105, amsdu([(b"\x08\x00", ipv4_udp(b"first", bad=False, dport=40000)),
                                         (b"\x86\xdd", ipv6(58, checksummed(b"\x80\x00\x00\x00\x00\x01\x00\x01x", 2,
                                                                            proto=58, v6=True))),
                                         (b"\x08\x00", ipv4_udp(b"third", dport=40000))])),
        "radiotap-amsdu-datapad": (127, b"\x00\x00\x09\x00\x02\x00\x00\x00\x20"
                                   + amsdu([(b"\x08\x00", ipv4_udp(b"one", bad=False, dport=40000)),
                                            (b"\x08\x00", ipv4_udp(b"two!", dport=40000))], datapad=True)),
        "ppi-ether": (192, b"\x00\x00\x08\x00\x01\x00\x00\x00" + ether(ipv4_udp())),
        "ppi-802-11": (192, b"\x00\x00\x08\x00\x69\x00\x00\x00" + radiotap(ipv4_udp())[8:]),
        "fddi": (10, b"\x50" + b"\x02\x00\x00\x00\x00\x02" + b"\x02\x00\x00\x00\x00\x01"
                 + b"\xaa\xaa\x03\x00\x00\x00\x08\x00" + ipv4_udp()),
        "gre-aruba-802-11": (1, ether(ipv4(47, b"\x00\x00\x82\x00" + radiotap(ipv4_udp())[8:]))),
        # Encapsulations that carry IP (issue 25): MPLS after PPP and in UDP, GRE's Cisco MetaData
        # and WCCP, MACsec without encryption, Arista's timestamps, NSH alone and in VXLAN-GPE,
        # and IPv6's next header 143 (Ethernet).
        "ppp-mpls": (9, b"\xff\x03\x02\x81" + MPLS_BOTTOM + ipv4_udp()),
        "mpls-in-udp": (1, ether(ipv4_udp(MPLS_BOTTOM + ipv4_udp(), bad=False, dport=6635))),
        "gre-cisco-metadata": (1, ether(ipv4(47, b"\x00\x00\x89\x09" + b"\x08\x00\x01\x01\x00\x01\x00\x00"
                                             + ipv4_udp()))),
        "gre-key-wccp": (1, ether(ipv4(47, b"\x20\x00\x88\x3e\x00\x00\x00\x28" + b"\x05\x59\x00\x48" + ipv4_udp()))),
        "macsec": (1, ether(b"\x20\x00\x00\x00\x00\x07" + b"\x02\x00\x00\x00\x00\x01\x00\x01" + b"\x08\x00"
                            + ipv4_udp() + bytes(range(16)), ethertype=b"\x88\xe5")),
        "arista": (1, ether(b"\x00\x01\x00\x10" + bytes(range(8)) + b"\x08\x00" + ipv4_udp(), ethertype=b"\xd2\x8b")),
        "nsh": (1, ether(b"\x00\x06\x01\x01" + b"\x00\x00\x01\xff" + bytes(16) + ipv4_udp(), ethertype=b"\x89\x4f")),
        "vxlan-gpe": (1, ether(ipv4_udp(b"\x0c\x00\x00\x01" + b"\x00\x00\x07\x00" + ipv4_udp(), bad=False,
                                        dport=4790))),
        "ipv6-ethernet": (1, ether(ipv6(143, ether(ipv4_udp())), ethertype=b"\x86\xdd")),
        "nflog-le": (239, nflog(ipv4_udp())),
        "nflog-be": (239, nflog(ipv4_udp(), little=False)),
        "raw-12": (12, ipv4_udp()),
        "raw-14": (14, ipv4_udp()),
        "raw-ipv4": (228, ipv4_udp()),
        "ppp-hdlc": (50, b"\xff\x03\x00\x21" + ipv4_udp()),
        "ppp-hdlc-cisco": (50, b"\x0f\x00\x08\x00" + ipv4_udp()),
        "cisco-hdlc": (104, b"\x0f\x00\x08\x00" + ipv4_udp()),
    }

    def test_each_link_type(self):
        with tempfile.TemporaryDirectory() as d:
            for name, (link, frame) in self.FRAMES.items():
                path = os.path.join(d, name + ".pcap")
                write_bytes(path, pcap(link, [frame]))
                res = run("verify", path)
                self.assertEqual(res.returncode, 1, f"{name}: {res.stdout} {res.stderr}")
                self.assertRegex(res.stdout, rb"frame 1 (inner )?UDP 0x[0-9a-f]{4}, should be", name)
                good = os.path.join(d, name + "-good.pcap")
                self.assertIn(run("fix", "--quiet", path, good).returncode, (0,), name)
                self.assertEqual(run("verify", good).returncode, 0, name)
                # tshark reads NFLOG's TLVs in its own host's order only, 14 only as OpenBSD's, and
                # 149 as PKTAP only where its user link types say so.
                if shutil.which("tshark") and name not in ("raw-14", "nflog-be", "pktap-user2"):
                    # (an outer UDP, where there is one, is right; the innermost is wrong), and every
                    # verdict of tshark's is ours
                    theirs = tshark_verdicts(path)
                    self.assertEqual(theirs.get((1, "udp"), [])[-1:], ["B"], f"{name}: tshark")
                    ours = json_verdicts(self, run("verify", "--json", path).stdout)
                    for (frame, col), letters in theirs.items():
                        self.assertEqual(ours.get((path, frame, col)), letters, f"{name} {col}")

    def test_fcs(self):
        """A capture whose link type says frames end with an FCS: each is checked (CRC-32), and fix
        puts it right after the checksums it changes inside (issue 25, item 2)."""
        good = ether(ipv4_udp(bad=False))
        good += zlib.crc32(good).to_bytes(4, "little")
        wrong_fcs = good[:-1] + bytes([good[-1] ^ 0xFF])
        wrong_udp = ether(ipv4_udp())
        wrong_udp += zlib.crc32(wrong_udp).to_bytes(4, "little")  # the FCS right over a wrong UDP checksum
        cut = good[:-2]
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "fcs.pcap")
            frames = [good, wrong_fcs, wrong_udp]
            write_bytes(path, pcap(0x24000001, frames) + pcap(0x24000001, [cut])[24:-len(cut)-16]
                        + (4).to_bytes(4, "little") + bytes(4) + len(cut).to_bytes(4, "little")
                        + len(good).to_bytes(4, "little") + cut)
            res = run("verify", "--json", path)
            checks = [json.loads(x) for x in res.stdout.splitlines()]
            fcs = [(o["frame"], o["status"], o["stored"]) for o in checks if o.get("layer") == "fcs"]
            self.assertEqual([(f, s) for f, s, _ in fcs], [(1, "good"), (2, "bad"), (3, "good"), (4, "unverifiable")])
            self.assertEqual(fcs[0][2], "0x" + good[-4:].hex())  # the field's bytes as they lie
            fixed = os.path.join(d, "fixed.pcap")
            self.assertEqual(run("fix", "--quiet", path, fixed).returncode, 0)  # (the cut frame: unverifiable, no problem)
            res = run("verify", "--json", fixed)
            statuses = [(o["frame"], o["layer"], o["status"]) for o in map(json.loads, res.stdout.splitlines())
                        if o["type"] == "check"]
            self.assertNotIn("bad", [s for _, _, s in statuses], statuses)
            out = read_bytes(fixed)
            self.assertEqual(out[24 + 16:24 + 16 + len(good)], good)  # frame 1 untouched
            if shutil.which("tshark"):
                text = tshark(["-n", "-r", fixed, "-o", "eth.check_fcs:TRUE", "-T", "fields", "-e", "eth.fcs.status"]).stdout.split()
                self.assertEqual(text[:3], ["1", "1", "1"], text)

    def test_unknown_link_type_is_not_clean(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "unknown.pcap")
            write_bytes(path, pcap(147, [ipv4_udp()]))
            res = run("verify", path)
            self.assertEqual(res.returncode, 1, res.stdout)
            self.assertIn(b"1 frame not followed (link type 147 not decoded: 1)", res.stdout)
            # A number the walk does not follow: named, a problem unless allowed; one known to carry
            # nothing checkable (LLDP, ARP) ends the frame quietly (docs/exit-status.md).
            unfollowed = os.path.join(d, "unfollowed.pcap")
            write_bytes(unfollowed, pcap(1, [ether(ipv4_udp(bad=False), ethertype=b"\x88\xb5"),
                                             ether(ipv4(253, bytes(24)))]))
            res = run("verify", unfollowed)
            self.assertEqual(res.returncode, 1, res.stdout)
            self.assertIn(b"frame 1: EtherType 0x88b5 not followed, so what it carries was not checked", res.stdout)
            self.assertIn(b"frame 2: IP protocol 253 not followed", res.stdout)
            self.assertIn(b"2 frames not followed (EtherType 0x88b5 not followed: 1, IP protocol 253 not followed: 1)",
                          res.stdout)
            res = run("verify", "--unfollowed-ok", unfollowed)
            self.assertEqual(res.returncode, 0, res.stdout)
            self.assertIn(b"allowed, not counted as problems", res.stdout)
            self.assertNotIn(b"so what it carries", res.stdout)
            frames = [json.loads(x) for x in run("verify", "--json", unfollowed).stdout.splitlines()]
            self.assertEqual([(o["frame"], o["why"], o["offset"]) for o in frames if o["type"] == "frame"],
                             [(1, "EtherType 0x88b5 not followed", 14), (2, "IP protocol 253 not followed", 34)])
            self.assertEqual(frames[-1]["unfollowed"], 2)
            out = os.path.join(d, "out.pcap")
            self.assertEqual(run("fix", "--quiet", unfollowed, out).returncode, 1)
            self.assertEqual(run("fix", "--quiet", "--unfollowed-ok", unfollowed, out).returncode, 0)
            quiet = os.path.join(d, "leaves.pcap")
            write_bytes(quiet, pcap(1, [ether(bytes(28), ethertype=b"\x88\xcc"), ether(bytes(28), ethertype=b"\x08\x06"),
                                        ether(ipv4(50, bytes(24)))]))  # LLDP, ARP, ESP
            res = run("verify", quiet)
            self.assertEqual(res.returncode, 0, res.stdout)
            self.assertNotIn(b"not followed", res.stdout)
            # Numbers and forms of the link layers: a Frame Relay NLPID, an EtherType inside an
            # A-MSDU's second subframe (its first still checked); a Frame Relay CLNP packet (no IP
            # in it) ends quietly.
            named = os.path.join(d, "named.pcap")
            write_bytes(named, pcap(107, [b"\x18\x41\x03\xb0" + bytes(20), b"\x18\x41\x03\x81" + bytes(20)]))
            write_bytes(named + "2", pcap(105, [amsdu([(b"\x08\x00", ipv4_udp(dport=40000)),
                                                       (b"\x88\xb5", bytes(20))])]))
            frames = [json.loads(x) for x in run("verify", "--json", named, named + "2").stdout.splitlines()]
            self.assertEqual([(o["frame"], o["why"], o["offset"]) for o in frames if o["type"] == "frame"],
                             [(1, "Frame Relay NLPID 0xb0 not followed", 3),
                              (1, "EtherType 0x88b5 not followed", 26 + 4 * ((14 + 8 + len(ipv4_udp()) + 3) // 4) + 14 + 8)])
            self.assertEqual([o["status"] for o in frames if o["type"] == "check" and o["layer"] == "udp"], ["bad"])
            # An A-MSDU subframe whose length runs past the frame: malformed, named, at its start.
            long_sub = os.path.join(d, "amsdu-long.pcap")
            write_bytes(long_sub, pcap(105, [amsdu([(b"\x08\x00", ipv4_udp(dport=40000))])[:-3]]))
            frames = [json.loads(x) for x in run("verify", "--json", long_sub).stdout.splitlines()]
            self.assertEqual([(o["reason"], o["why"], o["offset"]) for o in frames if o["type"] == "frame"],
                             [("malformed", f"802.11 A-MSDU subframe length {8 + len(ipv4_udp())} runs past the frame",
                               26)])
            contradicting = os.path.join(d, "v6-in-v4.pcap")  # ethertype IPv4, version 6
            write_bytes(contradicting, pcap(1, [bytes(12) + b"\x08\x00" + b"\x60" + ipv4_udp()[1:]]))
            res = run("verify", contradicting)
            self.assertEqual(res.returncode, 1, res.stdout)
            self.assertIn(b"frame 1 malformed", res.stdout)

    def test_conflicting_fragment_overlaps(self):
        """Fragments that overlap with different bytes, IPv6 and IPv4 (issue 36): the datagram is
        malformed, its waiting checksum unverifiable (judged over no choice of bytes), fix writes
        nothing into it; the same overlap with the same bytes reassembles and is judged.  tshark
        marks the conflict on the same frame (and judges over its own choice)."""
        scapy_or_skip(self)
        from scapy.all import IP, UDP, Ether, IPv6, IPv6ExtHdrFragment, Raw, wrpcap
        ether = Ether(src="02:00:00:00:00:01", dst="02:00:00:00:00:02")  # (both given: no ARP lookup)

        def frags(v6, conflict):
            ip = (lambda **k: IPv6(src="2001:db8::1", dst="2001:db8::2", nh=44)) if v6 else \
                (lambda **k: IP(src="10.0.0.1", dst="10.0.0.2", id=9, proto=17, **k))
            whole = (IPv6(src="2001:db8::1", dst="2001:db8::2") if v6 else IP(src="10.0.0.1", dst="10.0.0.2")) \
                / UDP(sport=1000, dport=2000) / Raw(b"A" * 40)
            u = bytearray(bytes(whole[UDP]))
            u[6] ^= 0x55  # a wrong UDP checksum: what fix would write
            mid = bytearray(u[16:40])
            if conflict:
                mid[0] ^= 0xFF  # payload byte 16 given twice, differently
            out = []
            for offset, more, data in ((0, 1, u[:24]), (2, 1, mid), (5, 0, u[40:])):
                if v6:
                    out.append(ether / ip() / IPv6ExtHdrFragment(nh=17, offset=offset, m=more, id=7) / Raw(bytes(data)))
                else:
                    out.append(ether / ip(flags="MF" if more else 0, frag=offset) / Raw(bytes(data)))
            return out

        with tempfile.TemporaryDirectory() as d:
            for v6 in (True, False):
                for conflict in (True, False):
                    path = os.path.join(d, f"v{6 if v6 else 4}-{conflict}.pcap")
                    wrpcap(path, frags(v6, conflict))
                    res = run("verify", path)
                    self.assertEqual(res.returncode, 1, res.stdout)  # malformed, or the wrong checksum
                    records = [json.loads(x) for x in run("verify", "--json", path).stdout.splitlines()]
                    udp = [o for o in records if o["type"] == "check" and o["layer"] == "udp"]
                    self.assertEqual(len(udp), 1, records)
                    out = os.path.join(d, "out.pcap")
                    run("fix", "--quiet", path, out)
                    if conflict:
                        self.assertIn(f"frame 3 malformed: IPv{6 if v6 else 4} fragments overlap with different bytes "
                                      "at payload byte 16".encode(), res.stdout)
                        self.assertEqual((udp[0]["status"], udp[0]["flags"], udp[0]["datagram"]),
                                         ("unverifiable", ["fragment", "malformed"], {"frames": [1, 2, 3]}))
                        self.assertEqual(read_bytes(out), read_bytes(path))  # nothing written into it
                    else:
                        self.assertEqual(udp[0]["status"], "bad")
                        self.assertNotEqual(read_bytes(out), read_bytes(path))  # the checksum put right
                    if shutil.which("tshark"):
                        field = "ipv6.fragment.overlap.conflict" if v6 else "ip.fragment.overlap.conflict"
                        marked = tshark(["-r", path, "-T", "fields", "-e", "frame.number", "-e", field]).stdout.split()
                        self.assertEqual("3" in marked and marked[marked.index("3") + 1:][:1] == ["1"], conflict,
                                         marked)

    def test_capwap_native_80211(self):
        """CAPWAP data with T set carries 802.11 in its native format (RFC 5416), frame control as on
        the air; tshark by default swaps its bytes (capwap.swap_fc, for Cisco's controllers), and
        agrees once told not to."""
        frame = ether(ipv4_udp(b"\x00\x10\x03\x00" + bytes(4) + radiotap(ipv4_udp())[8:], bad=False, dport=5247))
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "capwap.pcap")
            write_bytes(path, pcap(1, [frame]))
            res = run("verify", path)
            self.assertIn(b"frame 1 inner UDP 0x", res.stdout)
            if shutil.which("tshark"):
                out = tshark(["-r", path, "-o", "udp.check_checksum:TRUE", "-o", "capwap.swap_fc:FALSE", "-T", "fields", "-e",
                              "udp.checksum.status"])
                self.assertEqual(out.stdout.split(), ["1,0"], out.stderr)

    def test_pppoe_length_named_wrong(self):
        """A PPPoE length that disagrees with the IP packet the frame holds (issue 36): the frame is
        malformed, a problem, its PPPoE header named in the text and the JSON, its checksums judged by
        the IP length; tshark flags the same frames' PPPoE length ("Possible bad payload length")."""
        packet = ipv4_udp(bad=False)
        session = lambda length: b"\x11\x00\x00\x01" + length.to_bytes(2, "big") + b"\x00\x21" + packet
        frames = [ether(session(len(packet) + 2), ethertype=b"\x88\x64"),
                  ether(session(len(packet) // 2), ethertype=b"\x88\x64"),
                  ether(session(1400), ethertype=b"\x88\x64")]
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "pppoe.pcap")
            write_bytes(path, pcap(1, frames))
            res = run("verify", path)
            self.assertEqual(res.returncode, 1, res.stdout)
            self.assertIn(f"frame 2 malformed: PPPoE length {len(packet) // 2} disagrees with the IP packet it "
                          "carries; checked by the IP header's length".encode(), res.stdout)
            self.assertIn(b"frame 3 malformed: PPPoE length 1400", res.stdout)
            self.assertIn(b"6 checksums, 6 good; 2 malformed frames, with the reason given", res.stdout)
            records = [json.loads(x) for x in run("verify", "--json", path).stdout.splitlines()]
            self.assertEqual([(o["frame"], o["reason"], o["offset"]) for o in records if o["type"] == "frame"],
                             [(2, "malformed", 14), (3, "malformed", 14)])
            if shutil.which("tshark"):
                out = tshark(["-r", path, "-T", "fields", "-e", "frame.number", "-e", "_ws.expert.message"]).stdout
                flagged = {int(line.split("\t")[0]) for line in out.splitlines() if "bad payload length" in line}
                self.assertEqual(flagged, {2, 3}, out)
