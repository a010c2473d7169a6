"""Every Python example in README.md and python/README.md, as written there: each passes `mypy
--strict` (with the few names it takes from its surroundings declared), and the capture example
runs on a capture holding what real ones hold (a wrong checksum, a frame not followed): it once
died on the first frame that had no checksum, and claimed a file cut short was ok.  The blocks are
read from the READMEs, not copied here; test_readme_examples.py and test_api.py run the other
blocks."""
from __future__ import annotations

import contextlib
import gzip
import importlib.util
import io
import os
import pathlib
import re
import subprocess
import sys
from typing import Dict, List

import pytest
from scapy.layers.inet import IP, TCP
from scapy.layers.l2 import Ether
from scapy.packet import Raw
from scapy.utils import wrpcapng

import inetcsum

REPO = pathlib.Path(__file__).resolve().parents[2]
PAGES = ["README.md", "python/README.md"]

# What a block takes from the program around it, declared for the type checker, by a line of the
# block that needs it.
# Inline mypy settings for blocks that call into libraries without full types (dask's Client is
# untyped: its call, not ours, would fail --strict).
MYPY_FILE_SETTINGS: Dict[str, str] = {
    "from dask.distributed": '# mypy: disable-error-code="no-untyped-call"\n',
}

SURROUNDINGS: Dict[str, str] = {
    "os.read(tap": "import os\nimport socket\ntap: int = 3\nsock: socket.socket = socket.socket()\n"
                   "def encrypt(b: bytes) -> bytes: return b\n",
}


def python_blocks(page: str) -> List[str]:
    """The page's ```python blocks, unindented as a reader copies them."""
    text = (REPO / page).read_text()
    out = []
    for m in re.finditer(r"^( *)```python\n(.*?)^ *```", text, re.S | re.M):
        indent = len(m.group(1))
        out.append("\n".join(line[indent:] for line in m.group(2).splitlines()) + "\n")
    return out


def test_every_block_is_found():
    blocks = [b for page in PAGES for b in python_blocks(page)]
    assert len(blocks) == 5, [b.splitlines()[0] for b in blocks]


def test_every_block_passes_mypy_strict(tmp_path):
    pytest.importorskip("mypy")
    if os.environ.get("INETCSUM_SANITIZE"):
        pytest.skip("type checks do not change with the build: the release build and the wheel's venvs run them")
    files = []
    for page in PAGES:
        for i, block in enumerate(python_blocks(page)):
            if "from dask" in block and not importlib.util.find_spec("distributed"):
                continue  # (dask is the optional extra: without it, nothing to check against)
            prelude = ("".join(v for k, v in MYPY_FILE_SETTINGS.items() if k in block) + "import inetcsum\n"
                       + "".join(v for k, v in SURROUNDINGS.items() if k in block))
            f = tmp_path / f"{page.replace('/', '_').replace('.', '_')}_{i}.py"
            f.write_text(prelude + block)
            files.append(str(f))
    env = dict(os.environ)
    pkg_dir = pathlib.Path(inetcsum.__file__).parent
    if "site-packages" not in pkg_dir.parts:  # the build tree's; an installed one is found by its py.typed
        env["MYPYPATH"] = str(pkg_dir.parent)
    out = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-incremental", *files], capture_output=True,
                         text=True, env=env, cwd=tmp_path)
    assert out.returncode == 0, out.stdout + out.stderr


def test_capture_example_runs_as_shown(tmp_path, monkeypatch):
    block = next(b for b in python_blocks("python/README.md") if "inetcsum.Capture(" in b)
    eth = Ether(src="02:00:00:00:00:01", dst="02:00:00:00:00:02")
    frames = [eth / IP(src="10.0.0.1", dst="10.0.0.2") / TCP(sport=1000, dport=80) / Raw(b"ok"),
              eth / IP(src="10.0.0.1", dst="10.0.0.2") / TCP(sport=1001, dport=80, chksum=0x1234) / Raw(b"bad"),
              Ether(src="02:00:00:00:00:01", dst="02:00:00:00:00:02", type=0x88B5) / Raw(b"local experimental")]
    plain = tmp_path / "t.pcapng"
    wrpcapng(str(plain), frames)
    (tmp_path / "t.pcapng.gz").write_bytes(gzip.compress(plain.read_bytes()))
    monkeypatch.chdir(tmp_path)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(block, {"inetcsum": inetcsum})
    lines = printed.getvalue().splitlines()
    assert lines == ["2 tcp bad None", "3 EtherType 0x88b5 not followed", "2 0", "1 False"], lines
    # fix_capture wrote what it said: the TCP checksum right, the unfollowed frame left as it is.
    with inetcsum.Capture("fixed.pcapng") as cap:
        items = list(cap.verify())
    assert [x.frame for x in items if x.problem] == [3] and cap.summary is not None and cap.summary.problems == 1
