"""The package's surface: what it exports, its version, kernel selection, docstrings, the type
stubs against the module (mypy's stubtest), and the enums against the C library's names."""

import inspect
import os
import pathlib
import re
import subprocess
import sys

import pytest

import inetcsum
from inetcsum import _inetcsum

REPO = pathlib.Path(__file__).resolve().parents[2]


def test_exports():
    for name in inetcsum.__all__:
        assert hasattr(inetcsum, name), name
    public = {n for n in dir(_inetcsum) if not n.startswith("_")}
    assert public <= set(inetcsum.__all__), public - set(inetcsum.__all__)


def test_version_matches_the_c_header():
    header = (REPO / "include/inetcsum.h").read_text()
    version = re.search(r'INETCSUM_VERSION_STRING "([^"]+)"', header).group(1)
    assert inetcsum.__version__ == inetcsum.version() == version


def test_kernel_selection():
    usable, built = inetcsum.impls(), inetcsum.impls_built()
    assert usable and set(usable) <= set(built) and "generic" in usable
    assert inetcsum.impl_name() == usable[0]  # the best, unless INETCSUM_IMPL says otherwise
    try:
        inetcsum.set_impl("generic")
        assert inetcsum.impl_name() == "generic"
        for name in set(built) - set(usable):  # built in, but this CPU lacks what they need
            with pytest.raises(ValueError):
                inetcsum.set_impl(name)
            assert inetcsum.impl_name() == "generic"  # and nothing changed
    finally:
        inetcsum.set_impl()
    assert inetcsum.impl_name() == usable[0]
    assert inetcsum.impl_name_at(0) == "inline"
    assert all(inetcsum.impl_name_at(n) in usable for n in (1 << 10, 1 << 16, 1 << 40))
    with pytest.raises((ValueError, OverflowError)):
        inetcsum.impl_name_at(-1)
    try:
        inetcsum.set_impl("generic")
        assert inetcsum.impl_name_at(1500) == "generic"  # a kernel chosen by name sums every size
    finally:
        inetcsum.set_impl()
    crcs = inetcsum.crc32c_impls()
    assert crcs[-1] == "table" and inetcsum.crc32c_impl_name() == crcs[0]
    try:
        for name in crcs:
            inetcsum.crc32c_set_impl(name)
            assert inetcsum.crc32c_impl_name() == name
            assert inetcsum.crc32c(b"123456789") == 0xE3069283
            assert inetcsum.crc32c(bytes(range(256)) * 8) == inetcsum.crc32c(bytes(range(256)) * 4,
                                                                           inetcsum.crc32c(bytes(range(256)) * 4))
        with pytest.raises(ValueError):
            inetcsum.crc32c_set_impl("no-such-kernel")
        assert inetcsum.crc32c_impl_name() == crcs[-1]  # and nothing changed
    finally:
        inetcsum.crc32c_set_impl()
    assert inetcsum.crc32c_impl_name() == crcs[0]


def test_environment_selects_a_kernel():
    code = "import inetcsum; print(inetcsum.impl_name())"
    env = dict(os.environ, INETCSUM_IMPL="generic")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "generic"


def test_every_function_is_documented():
    for name in inetcsum.__all__:
        obj = getattr(inetcsum, name)
        if callable(obj):
            assert obj.__doc__ and len(obj.__doc__) > 30, name
            if isinstance(obj, type(len)):  # C functions carry their signature in the docstring
                assert inspect.signature(obj), name


def test_signatures_are_introspectable():
    assert str(inspect.signature(inetcsum.partial)) == "(data, seed=0)"
    assert str(inspect.signature(inetcsum.checksum)) == "(data, /)"
    verify = inspect.signature(inetcsum.verify).parameters
    assert verify["link"].kind == inspect.Parameter.KEYWORD_ONLY


def test_enums_cover_the_c_library():
    # _register() maps every C layer and status name onto a member, so import would fail on a
    # name missing here; this checks the other direction: no member the library does not know.
    for layer in inetcsum.Layer:
        if layer != inetcsum.Layer.IPV4:
            inetcsum.l4_verify(layer.value, b"")  # a ValueError here: a name the library lacks
    assert [s.value for s in inetcsum.Status] == ["good", "bad", "partial", "absent", "illegal", "unverifiable"]
    assert inetcsum.Status.BAD.problem and not inetcsum.Status.ABSENT.problem
    assert int(inetcsum.Offload.ALL) == 0xFFFF and inetcsum.Link.ETHERNET == 1


def test_type_stubs_match_the_module():
    pytest.importorskip("mypy")
    if os.environ.get("INETCSUM_SANITIZE"):
        pytest.skip("type checks do not change with the build: the release build and the wheel's venvs run them")
    pkg_dir = pathlib.Path(inetcsum.__file__).parent
    assert (pkg_dir / "py.typed").exists() and (pkg_dir / "_inetcsum.pyi").exists()
    out = subprocess.run([sys.executable, "-m", "mypy.stubtest", "inetcsum._inetcsum"], capture_output=True,
                         text=True, cwd=pkg_dir.parent)
    assert out.returncode == 0, out.stdout + out.stderr


def test_type_checker_accepts_typical_use(tmp_path):
    pytest.importorskip("mypy")
    if os.environ.get("INETCSUM_SANITIZE"):
        pytest.skip("type checks do not change with the build: the release build and the wheel's venvs run them")
    pkg_dir = pathlib.Path(inetcsum.__file__).parent
    program = tmp_path / "use.py"
    program.write_text(
        "import inetcsum\n"
        "c: int = inetcsum.checksum(b'abc') + inetcsum.partial(bytearray(4), seed=1)\n"
        "r: inetcsum.Report = inetcsum.verify(memoryview(b''), link=inetcsum.Link.RAW)\n"
        "for check in r:\n"
        "    s: inetcsum.Status = check.status\n"
        "    n: int = check.stored\n"
        "inetcsum.offload(bytearray(60), inetcsum.Offload.TCP4 | inetcsum.Offload.IPV4)\n"
        "def judge(path: str) -> int:\n"
        "    with inetcsum.Capture(path) as cap:\n"
        "        bad = [x.frame for x in cap.verify(reassemble=True) if x.problem]\n"
        "    s = cap.summary\n"
        "    assert s is not None and s.cut is None\n"
        "    r: inetcsum.FixResult = inetcsum.fix_capture(path, path + '.fixed', udp_zero=True)\n"
        "    return len(bad) + s.problems + r.written + r.input.frames\n"
    )
    bad = tmp_path / "bad.py"
    bad.write_text("import inetcsum\ninetcsum.checksum('text')\n")
    env = dict(os.environ)
    if "site-packages" not in pkg_dir.parts:  # the build tree's; an installed one is found by its py.typed
        env["MYPYPATH"] = str(pkg_dir.parent)
    ok = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-incremental", str(program)],
                        capture_output=True, text=True, env=env, cwd=tmp_path)
    assert ok.returncode == 0, ok.stdout
    wrong = subprocess.run([sys.executable, "-m", "mypy", "--no-incremental", str(bad)], capture_output=True,
                           text=True, env=env, cwd=tmp_path)
    assert wrong.returncode == 1 and "checksum" in wrong.stdout, wrong.stdout


@pytest.mark.parametrize("page", ["README.md", "python/README.md"])
def test_readme_example_runs_and_says_true(page):
    # The three-line example must run as shown, and its comments state its results.
    block = re.search(r"```python\n(import inetcsum\n.*?)```", (REPO / page).read_text(), re.S).group(1)
    lines = block.strip().splitlines()
    assert len(lines) == 3
    env: dict = {}
    exec(lines[0], env)
    assert eval(lines[1].split("#")[0], env) == 0x442E and "0x442e" in lines[1]
    report = eval(lines[2].split("#")[0], env)
    assert [(c.layer, c.status) for c in report] == [("ipv4", "good"), ("udp", "good")]


def test_every_layer_is_named_in_the_docs():
    """The protocol lists people read name every checksum layer the library has (the JSON's layer
    values, the README's protocol table, the man page): "mh" was missing from one."""
    layers = [layer.value for layer in inetcsum.Layer]
    json_row = next(line for line in (REPO / "docs" / "json.md").read_text().splitlines() if line.startswith("| `layer` |"))
    named = set(re.findall(r"`([a-z0-9]+)`", json_row))
    assert set(layers) <= named, set(layers) - named
    # The README's "Checksums:" list and the man page's DESCRIPTION name them as people read them.
    # (the library's display names, but for the one the prose spells out)
    words = {layer.value: layer.display for layer in inetcsum.Layer}
    words["mh"] = "Mobility Header"
    readme = (REPO / "README.md").read_text()
    listed = readme[readme.index("- Checksums:"):readme.index("- `fill` writes")]
    man = (REPO / "docs" / "inetcsum.1").read_text().replace("\\-", "-")
    described = man[man.index(".SH DESCRIPTION"):man.index(".SH COMMANDS")]
    for name in layers:
        word = words.get(name, name.upper())
        assert word in listed, f"{name} ({word}) missing from the README's checksum list"
        assert word in described, f"{name} ({word}) missing from the man page's description"


def test_layers_are_the_libraries():
    """Layer has a member for each row of the C library's table of layers, with its display name:
    the command's ("UDP-Lite"), not one spelt again here."""
    displays = {layer: layer.display for layer in inetcsum.Layer}
    assert displays[inetcsum.Layer.UDPLITE] == "UDP-Lite" and displays[inetcsum.Layer.ICMPV6] == "ICMPv6"
    assert len(set(displays.values())) == len(displays) and all(displays.values())
    assert inetcsum._inetcsum._layer_row(2) == ("udp", "UDP", 2) and inetcsum._inetcsum._layer_row("sctp") == ("sctp", "SCTP", 4)
    assert [layer for layer in inetcsum.Layer if layer.width == 4] == [inetcsum.Layer.SCTP, inetcsum.Layer.FCS]
    with pytest.raises(ValueError):
        inetcsum._inetcsum._layer_row("TCP")  # the JSON names, as every layer argument takes
