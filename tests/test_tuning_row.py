"""This CPU's tuning row (lib/tuning.c) still beats the plan it replaces, on the machine running the
tests: `inetcsum bench row` times the public entries (the sum, then the fused copy) under both plans
where they differ, with an A/A pair for the noise, and says "row check: holds", "SLOWER", "noisy", "nothing to check" or "no row".
A row measured on an older library can make a fast kernel slow without anything else failing
(issue 35); this is the test that fails then.  Skipped, with the figures printed, on a machine too
noisy to judge.  Usage: test_tuning_row.py INETCSUM (run by ctest, in the release build only)."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

CLI = None


class TuningRow(unittest.TestCase):
    def test_row_holds(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "row.json")
            res = subprocess.run([CLI, "bench", "row", "--json", path], capture_output=True, text=True)
            self.assertEqual(res.returncode, 0, res.stderr)
            with open(path) as f:
                run = json.load(f)
        table = res.stdout.split("\n## row:", 1)[1]
        verdicts = [n for n in run["notes"] if n.startswith("row check: ")]
        self.assertEqual(len(verdicts), 1, res.stdout)
        verdict = verdicts[0]
        print(f"\n{table.strip()}", file=sys.stderr)
        figures = [f for f in run["figures"] if f["name"].startswith("row/")]
        if not verdict.startswith(("row check: no row", "row check: not run")):  # both entry points checked
            self.assertIn("### The sum (inetcsum_partial)", table)
            self.assertIn("### The copy (inetcsum_partial_copy", table)
        for f in figures:  # every class timed carries both choices and its verdict
            self.assertNotEqual(f["row_choice"], f["replaced_choice"], f)
            self.assertIn(f["verdict"].split()[0], ("holds", "SLOWER"), f)
        if verdict.startswith("row check: noisy"):
            self.skipTest(f"the machine is too noisy to judge the row: {verdict}")
        self.assertFalse(verdict.startswith("row check: SLOWER"), f"{verdict}\n{table}")
        self.assertTrue(verdict.startswith(("row check: holds", "row check: nothing to check", "row check: no row")),
                        verdict)
        self.assertEqual(verdict.startswith("row check: holds"), bool(figures), verdict)


if __name__ == "__main__":
    CLI = sys.argv.pop(1)
    unittest.main(verbosity=2)
