"""inetcsum verify --json against tshark's verdicts in a shared MANIFEST.tsv (../shared/captures,
../shared/corpora/tcpdump), by the rule of the manifests' README: per frame and per layer column, the
letters outermost first; a tshark "U" (not checked) is not compared.

The figure the project holds itself to is the agreement on "judged" verdicts: every checksum tshark
judges (G, B, N, I) in a frame that is neither an IP fragment nor truncated.  A verdict tshark gives
where inetcsum reports nothing at that position is "silent": the worst kind of difference, counted
apart.  Frames inetcsum reports it could not follow are counted by reason.

Usage: agreement.py INETCSUM MANIFEST_DIR... [--min PERCENT] [--max-silent N] [--list]
  --min PERCENT    fail (exit 1) when the judged agreement is below PERCENT
  --max-silent N   fail when more than N judged verdicts are silent
  --list           print every disagreement (file, frame, column, tshark's letters, ours)
Exit 77 (skipped) when a manifest directory is missing: the shared data is not beside this checkout."""
import collections
import json
import os
import subprocess
import sys

LETTER = {"good": "G", "bad": "B", "partial": "B", "absent": "N", "illegal": "I", "unverifiable": "U"}
COLUMNS = ["ip", "tcp", "udp", "icmp", "icmpv6", "sctp", "igmp", "gre"]
LAYER_COLUMN = {"ipv4": "ip", "udplite": "udp"}  # tshark reports UDP-Lite in udp.checksum.status


def read_manifest(directory):
    """The manifest's rows, each with the capture's path on this machine."""
    with open(os.path.join(directory, "MANIFEST.tsv"), encoding="utf-8") as f:
        head = f.readline().rstrip("\n").split("\t")
        rows = [dict(zip(head, line.rstrip("\n").split("\t"))) for line in f]
    for r in rows:
        # The file column is relative to the manifest's parent folder ("captures/zeek/x.pcap").
        r["path"] = os.path.join(os.path.dirname(os.path.abspath(directory)), r["file"])
    return rows


def our_verdicts(cli, paths):
    """verify --json over the captures: ({(path, frame, column): [letters]}, {reason: frames})."""
    out = subprocess.run([cli, "verify", "--json", *paths], capture_output=True, check=False)
    if out.returncode not in (0, 1, 3):
        raise SystemExit(f"agreement: {cli} verify exited {out.returncode}: {out.stderr.decode()[-2000:]}")
    ours, unfollowed = {}, collections.Counter()
    for line in out.stdout.splitlines():
        obj = json.loads(line)
        if obj["type"] == "check":
            col = LAYER_COLUMN.get(obj["layer"], obj["layer"])
            ours.setdefault((obj["file"], obj["frame"], col), []).append(LETTER[obj["status"]])
        elif obj["type"] == "frame":
            unfollowed[obj.get("why", obj["reason"])] += 1
    return ours, unfollowed


def compare(cli, directory):
    """Counts for one manifest directory, and the disagreements found."""
    rows = read_manifest(directory)
    paths = sorted({r["path"] for r in rows})
    ours, unfollowed = our_verdicts(cli, paths)
    n = collections.Counter()
    differences = []
    for r in rows:
        judged = r["ipfrag"] == "" and r["len"] == r["caplen"]
        for col in COLUMNS:
            theirs = [v for v in r[col].split(",") if v]
            mine = ours.get((r["path"], int(r["frame"]), col), [])
            for i, v in enumerate(theirs):
                if v == "U":
                    continue
                kind = "agree" if i < len(mine) and mine[i] == v else "silent" if i >= len(mine) else "differ"
                n["all_" + kind] += 1
                if judged:
                    n["judged_" + kind] += 1
                if kind != "agree":
                    differences.append((r["file"], r["frame"], col, r[col], ",".join(mine), judged))
    return n, unfollowed, differences


def main(argv):
    args, opts = [], {"--min": None, "--max-silent": None}
    listing = False
    it = iter(argv)
    for a in it:
        if a in opts:
            opts[a] = float(next(it))
        elif a == "--list":
            listing = True
        else:
            args.append(a)
    if len(args) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    cli, dirs = args[0], args[1:]
    missing = [d for d in dirs if not os.path.isfile(os.path.join(d, "MANIFEST.tsv"))]
    if missing:
        print(f"agreement: skipped: needs the shared captures: {', '.join(missing)} has no MANIFEST.tsv "
              "(the team's shared/ folder is not beside this checkout)")
        return 77
    total, unfollowed_all = collections.Counter(), collections.Counter()
    failed = False
    for d in dirs:
        n, unfollowed, differences = compare(cli, d)
        total += n
        unfollowed_all += unfollowed
        judged = n["judged_agree"] + n["judged_differ"] + n["judged_silent"]
        print(f"{d}: judged {n['judged_agree']}/{judged} agree ({100.0 * n['judged_agree'] / max(judged, 1):.2f}%), "
              f"{n['judged_differ']} differ, {n['judged_silent']} silent; all verdicts "
              f"{n['all_agree']}/{n['all_agree'] + n['all_differ'] + n['all_silent']} agree; "
              f"frames not followed: {dict(unfollowed) or 'none'}")
        if listing:
            for file, frame, col, theirs, mine, judged_row in differences:
                note = "" if judged_row else "\t(fragment or truncated)"
                print(f"  {file}\t{frame}\t{col}\ttshark {theirs}\tinetcsum {mine or '-'}{note}")
    judged = total["judged_agree"] + total["judged_differ"] + total["judged_silent"]
    pct = 100.0 * total["judged_agree"] / max(judged, 1)
    if opts["--min"] is not None and pct < opts["--min"]:
        print(f"agreement: {pct:.2f}% of judged verdicts agree, below the floor {opts['--min']}%")
        failed = True
    if opts["--max-silent"] is not None and total["judged_silent"] > opts["--max-silent"]:
        print(f"agreement: {total['judged_silent']} judged verdicts silent, more than {opts['--max-silent']:.0f}")
        failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
