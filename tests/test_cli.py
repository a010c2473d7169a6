"""The inetcsum command end to end, one module per command in tests/cli/ (verify, link types,
checksum protocols, fix, gen, segment, the live interface, sum, the docs), sharing tests/cli/
common.py.  Usage: test_cli.py INETCSUM CAPTURES_DIR [TEST...] (run by ctest); TEST names a module,
a class or a test as unittest does (test_fix, test_fix.FixHabits, test_fix.Fix.test_in_place)."""
import os
import sys
import unittest

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cli")
MODULES = ["test_verify", "test_link_types", "test_protocols", "test_fix", "test_gen", "test_segment", "test_live",
           "test_sum", "test_docs"]

if __name__ == "__main__":
    sys.path.insert(0, HERE)
    import common

    common.CLI, common.CAPTURES = os.path.abspath(sys.argv[1]), sys.argv[2]
    modules = [__import__(m) for m in MODULES]
    for m in modules:  # (each module's own binding of the names it took from common)
        m.CLI, m.CAPTURES = common.CLI, common.CAPTURES
    loader = unittest.defaultTestLoader
    names = sys.argv[3:]
    suite = loader.loadTestsFromNames(names) if names else unittest.TestSuite(
        loader.loadTestsFromModule(m) for m in modules)
    result = unittest.TextTestRunner(verbosity=1).run(suite)
    for case, why in result.skipped:  # each skip by name, with what it needs
        print(f"skipped {case.id()}: {why}")
    sys.exit(0 if result.wasSuccessful() else 1)
