"""The mutation-testing script's own rules (benchmarks/mutation.py): its module table still names real files,
equivalent mutants are matched by the line they write, and the score leaves equivalents out."""
from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "mutation.py"


@pytest.fixture(scope="module")
def mutation():
    spec = importlib.util.spec_from_file_location("mutation_script", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module      # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_every_decision_module_and_its_tests_exist(mutation):
    """A module moved or a test file renamed must fail here, not silently drop out of the mutation run."""
    root = SCRIPT.parent.parent
    for name, tests in mutation.MODULES.items():
        assert (root / mutation.module_path(name)).is_file()
        for test in tests:
            assert (root / test).is_file(), f"{name}: {test} does not exist"


def test_judging_tests_add_the_stem_files_without_cross_matching(mutation, tmp_path, monkeypatch):
    """`test_mutants_gate__x.py` judges gate.py only; gate_bounds.py's own files stay its own."""
    (tmp_path / "tests").mkdir()
    for name in ["test_mutants_gate__b.py", "test_mutants_gate__a.py", "test_mutants_gate_bounds__c.py",
                 "test_mutants_gatex.py"]:
        (tmp_path / "tests" / name).write_text("")
    monkeypatch.setattr(mutation, "ROOT", tmp_path)
    monkeypatch.setattr(mutation, "MODULES", {"gate.py": ["tests/test_gate.py"], "gate_bounds.py": []})
    assert mutation.judging_tests("gate.py") == ["tests/test_gate.py", "tests/test_mutants_gate__a.py",
                                                 "tests/test_mutants_gate__b.py"]
    assert mutation.judging_tests("gate_bounds.py") == ["tests/test_mutants_gate_bounds__c.py"]


DIFF = """# x: survived
--- baselines/analysis/statistics/alpha.py
+++ baselines/analysis/statistics/alpha.py
@@ -1,3 +1,3 @@
 def f(p):
-    return min(1.0, p)
+    return min(2.0, p)
"""


def test_an_equivalent_mutant_is_matched_by_its_module_and_written_line(mutation):
    assert mutation.mutated_lines(DIFF) == ["return min(2.0, p)"]
    entries = [{"module": "baselines/analysis/alpha.py", "line": "return min(2.0, p)", "reason": "p <= 1 always"}]
    assert mutation.equivalence_reason("baselines/analysis/statistics/alpha.py", DIFF, entries) == "p <= 1 always"
    assert mutation.equivalence_reason("baselines/analysis/statistics/gate.py", DIFF, entries) is None
    other = [{"module": "alpha.py", "line": "return min(1.5, p)", "reason": "r"}]
    assert mutation.equivalence_reason("baselines/analysis/statistics/alpha.py", DIFF, other) is None


def test_a_listed_line_no_survivor_wrote_is_reported_as_stale(mutation):
    """A test that now kills the mutant, or code that moved, leaves its entry excusing nothing."""
    entries = [{"module": "baselines/analysis/alpha.py", "line": "return min(2.0, p)", "reason": "p <= 1 always"},
               {"module": "alpha.py", "line": "  return min(1.5, p) ", "reason": "gone"},
               {"module": "gate.py", "line": "return 0", "reason": "another module's"}]
    path = "baselines/analysis/statistics/alpha.py"
    assert mutation.unmatched_entries(path, entries, [DIFF]) == ["return min(1.5, p)"]
    assert mutation.unmatched_entries(path, entries, []) == ["return min(2.0, p)", "return min(1.5, p)"]
    result = mutation.ModuleResult(path, counts={"killed": 1}, unmatched=["return min(1.5, p)"])
    text = mutation.report([result])
    assert f"## Listed lines of `{path}` no survivor wrote (stale: remove them)" in text
    assert "- `return min(1.5, p)`" in text
    assert "no survivor wrote" not in mutation.report([mutation.ModuleResult(path, counts={"killed": 1})])


def test_the_listed_equivalents_each_give_a_reason(mutation, tmp_path):
    for entry in mutation.load_equivalents():
        assert entry["reason"].strip() and entry["line"].strip()
        assert entry["module"] in {mutation.module_path(name) for name in mutation.MODULES}
    bad = tmp_path / "eq.toml"
    bad.write_text('[[equivalent]]\nmodule = "alpha.py"\nline = "x"\n')
    with pytest.raises(SystemExit, match="needs module, line and reason"):
        mutation.load_equivalents(bad)


def test_the_score_counts_timeouts_as_kills_untested_as_not_and_leaves_equivalents_out(mutation):
    r = mutation.ModuleResult("m.py", counts={"killed": 7, "timeout": 1, "survived": 3, "no tests": 4},
                              survivors=[("a", ""), ("b", "")], equivalent=[("c", "reason")])
    assert r.killed == 8 and r.untested == 4 and r.score == pytest.approx(8 / 14)
    text = mutation.report([r])
    assert "| `m.py` | 15 | 8 | 2 | 1 | 4 | 57.1% |" in text and "8 of 14 non-equivalent" in text
    assert mutation.ModuleResult("n.py").score is None


#: modules whose every non-equivalent mutant the default tests kill: a new survivor there fails this test
GUARDED = ["exact_paired.py", "clustered.py"]


@pytest.mark.slow
@pytest.mark.process
@pytest.mark.timeout(3300)   # the script's own limit is 3,000 s; the default 300 s cut it on a loaded machine
def test_no_unlisted_mutant_survives_in_the_guarded_decision_modules(tmp_path, mutation):
    """The habit, not a one-off: a change to a guarded module that its tests no longer pin fails here, with the
    survivor's diff in the report (kill it with a test, or list it as equivalent with a reason)."""
    import shutil

    if shutil.which("mutmut") is None:
        pytest.skip("mutmut is not installed (it is in the test extra: pip install -e '.[test]')")
    out = tmp_path / "report.md"
    done = subprocess.run([sys.executable, str(SCRIPT), "--modules", *GUARDED, "--strict", "--out", str(out),
                           "--log", str(tmp_path / "log.txt")], cwd=tmp_path, capture_output=True, text=True,
                          timeout=3000)
    assert done.returncode == 0, done.stdout + done.stderr + (out.read_text() if out.exists() else "")
    counts = re.findall(r"^\S+\.py: \d+ killed, (\d+) survived, \d+ equivalent, (\d+) without tests",
                        done.stdout, re.M)
    assert counts == [("0", "0")] * len(GUARDED), done.stdout


TABLE = """| module | mutants | killed | survived | equivalent | untested | score |
|---|---|---|---|---|---|---|
| `statistics/alpha.py` | 65 | 63 | 0 | 2 | 0 | **100%** (at 655dd1b, 2026-12-04 20:11 UTC: `...`) |
| `gating/gate.py` | 1409 | 1380 | 0 | 29 | 0 | **100%** (at 54c4911, 2026-12-03; 1408 / ... at 0123abc before) |
| `core/json_line.py` | 230 | 221 | 0 | 9 | 0 | **100%** (no commit named) |
"""


def test_the_score_table_gives_each_module_the_commit_its_row_was_measured_at(mutation, monkeypatch):
    monkeypatch.setattr(mutation, "MODULES", {"alpha.py": [], "gate.py": [], "json_line.py": [], "budget.py": []})
    assert mutation.measured_at(TABLE) == {"alpha.py": "655dd1b", "gate.py": "54c4911", "json_line.py": None,
                                           "budget.py": None}
    moved = {("54c4911", mutation.module_path("gate.py"))}
    again = mutation.changed_since_measured(TABLE, lambda commit, path: (commit, path) in moved)
    assert again == (["gate.py", "json_line.py", "budget.py"], [])   # moved, no commit named, no row
    shallow = mutation.changed_since_measured(TABLE, lambda commit, path: None if commit == "655dd1b" else False)
    assert shallow == (["json_line.py", "budget.py"], ["alpha.py"])


def test_every_decision_module_has_a_row_naming_the_commit_it_was_measured_at(mutation):
    """So the slow test below can tell which scores are stale: a row without a commit is mutated every time."""
    rows = mutation.measured_at(mutation.SCORE_TABLE.read_text())
    assert [name for name, commit in rows.items() if commit is None] == []


def test_a_commit_with_only_comments_changed_is_not_a_change_and_an_unknown_commit_is_unknown(mutation):
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=mutation.ROOT, capture_output=True, text=True).stdout.strip()
    if not head:
        pytest.skip("not a git checkout")
    path = mutation.module_path("alpha.py")
    assert mutation.git_changed(head, path) is (subprocess.run(["git", "diff", "--quiet", "HEAD", "--", path],
                                                                 cwd=mutation.ROOT).returncode != 0)
    assert mutation.git_changed("0" * 40, path) is None   # not in this checkout


@pytest.mark.slow
@pytest.mark.process
@pytest.mark.timeout(3300)
def test_no_unlisted_mutant_survives_in_a_module_changed_since_its_score_was_measured(tmp_path, mutation):
    """The decision modules whose code moved after the commit their row names (the guarded ones run above):
    a change that its tests no longer pin fails here until it is killed or listed and the row re-measured."""
    import shutil
    if shutil.which("mutmut") is None:
        pytest.skip("mutmut is not installed (it is in the test extra: pip install -e '.[test]')")
    out = tmp_path / "report.md"
    done = subprocess.run([sys.executable, str(SCRIPT), "--since-measured", "--skip", *GUARDED, "--strict",
                           "--out", str(out), "--log", str(tmp_path / "log.txt")], cwd=tmp_path,
                          capture_output=True, text=True, timeout=3000)
    assert done.returncode == 0, done.stdout + done.stderr + (out.read_text() if out.exists() else "")


def test_caching_decorators_are_dropped_so_their_functions_are_mutated(mutation):
    """mutmut skips decorated functions: the copy loses its lru_cache lines (values unchanged), and what is
    still decorated is named in the report rather than counted silently as covered."""
    source = (
        "import functools\nfrom functools import lru_cache, cache\n\n"
        "@functools.lru_cache(maxsize=64)\ndef a(n):\n    return n + 1\n\n"
        "@lru_cache(maxsize=None)  # why\ndef b(n):\n    return n * 2\n\n"
        "@cache\ndef c(n):\n    return n - 1\n\n"
        "class K:\n    @property\n    def p(self):\n        return 1\n\n"
        "    @staticmethod\n    def s():\n        return 2\n\n"
        "def lru_cache_user(x):  # @lru_cache in a comment stays\n    return x\n")
    plain, names = mutation.uncache(source)
    assert names == ["a", "b", "c"]
    assert "@" not in plain.split("class K")[0] and "@property" in plain and "@staticmethod" in plain
    assert "# @lru_cache in a comment stays" in plain
    namespace: dict = {}
    exec(compile(plain, "m.py", "exec"), namespace)
    assert (namespace["a"](1), namespace["b"](2), namespace["c"](3)) == (2, 4, 2)
    assert not hasattr(namespace["a"], "cache_clear")
    assert mutation.still_decorated(plain) == ["p (@property)"]
    kept, none = mutation.uncache("def f():\n    return 1\n")
    assert (kept, none) == ("def f():\n    return 1\n", [])


def test_the_report_names_uncached_and_unmutated_functions(mutation):
    result = mutation.ModuleResult("baselines/x.py", counts={"killed": 3})
    result.uncached, result.not_mutated = ["ni_pvalue"], ["untied (@property)"]
    text = mutation.report([result])
    assert "mutated without their cache: ni_pvalue" in text
    assert "not mutated (mutmut skips decorated functions): untied (@property)" in text


PROPERTIES = (
    "import functools\n\n"
    "class K:\n"
    "    def __init__(self, a, b):\n        self.a, self.b = a, b\n\n"
    "    @property\n    def total(self) -> int:\n        \"\"\"a + b\"\"\"\n        return self.a + self.b\n\n"
    "    @property  # why\n    def ratio(self):\n        return self.a / self.b if self.b else float('inf')\n"
    "    @property\n    def both(self):\n        return self.total, self.ratio\n\n"
    "    @both.setter\n    def both(self, value):\n        self.a, self.b = value\n\n"
    "    @property\n    @functools.wraps(len)\n    def stacked(self):\n        return 0\n\n"
    "    class Inner:\n        @property\n        def deep(self):\n            return 3\n\n"
    "    @staticmethod\n    def s():\n        return 2\n\n"
    "    @property\n    def last(self): return self.a * 10")


def test_properties_become_plain_methods_with_the_same_getter(mutation):
    """mutmut skips a `@property`'d getter: the copy defines it undecorated and applies `property` after it, so
    the class holds the same property (values, docstring) and every line keeps its number."""
    plain, names = mutation.unproperty(PROPERTIES)
    assert names == ["total", "ratio", "both", "last"]
    assert "    total = property(total)\n" in plain and "    ratio = property(ratio)\n" in plain
    changed = [(i + 1, a, b) for i, (a, b) in enumerate(zip(PROPERTIES.splitlines(), plain.splitlines())) if a != b]
    assert changed == [(7, "    @property", ""), (11, "", "    total = property(total)"), (12, "    @property  # why", ""),
                       # `ratio` has no blank line after it: its assignment takes `both`'s emptied decorator line
                       (15, "    @property", "    ratio = property(ratio)"), (18, "", "    both = property(both)"),
                       (37, "    @property", "")]
    # nor has `last`, at the end: the one line added
    assert plain.splitlines()[37:] == ["    def last(self): return self.a * 10", "    last = property(last)"]
    before: dict = {}
    after: dict = {}
    exec(compile(PROPERTIES, "m.py", "exec"), before)
    exec(compile(plain, "m.py", "exec"), after)
    for k in (before["K"](3, 4), after["K"](3, 4)):
        assert (k.total, k.ratio, k.both, k.last, k.stacked, k.Inner().deep) == (7, 0.75, (7, 0.75), 30, 0, 3)
        k.both = (1, 0)
        assert (k.total, k.ratio) == (1, float("inf"))
    assert isinstance(vars(after["K"])["total"], property) and after["K"].total.__doc__ == "a + b"
    with pytest.raises(AttributeError):
        after["K"](1, 2).total = 5                    # still read-only
    # what mutmut still skips: the setter (decorated), the stacked decorators and the nested class's property
    assert mutation.still_decorated(plain) == ["both (@both.setter)", "stacked (@property, @functools.wraps(len))",
                                               "deep (@property)"]
    assert mutation.unproperty("def f():\n    return 1\n") == ("def f():\n    return 1\n", [])


def test_mutmut_mutates_the_plain_getters_and_their_mutants_run_through_the_property(mutation, monkeypatch):
    """Not just undecorated: mutmut 3.8.1 makes mutants of them, named after the property
    (`xǁKǁtotal__mutmut_1`), and a mutant under test answers through the property."""
    pytest.importorskip("mutmut")
    from mutmut.mutation import file_mutation, pragma_handling

    # the pattern list is mutmut's only configuration read here (its config wants a project to mutate)
    monkeypatch.setattr(pragma_handling, "get_lines_ignored_by_pattern", lambda source: set())
    skipped = file_mutation.mutate_file_contents("m.py", PROPERTIES).mutant_names
    assert not [n for n in skipped if any(f"ǁKǁ{p}_" in n for p in ("total", "ratio", "last"))]
    plain, _ = mutation.unproperty(PROPERTIES)
    mutated = file_mutation.mutate_file_contents("m.py", plain)
    ours = {n.split("__mutmut_")[0] for n in mutated.mutant_names} - {"xǁKǁ__init__", "xǁKǁs"}
    assert ours == {"xǁKǁtotal", "xǁKǁratio", "xǁKǁlast"}    # `both`'s getter returns a tuple mutmut leaves alone
    namespace = {"__name__": "m"}
    exec(compile(mutated.code, "m.py", "exec"), namespace)
    monkeypatch.delenv("MUTANT_UNDER_TEST", raising=False)
    assert namespace["K"](3, 4).total == 7
    changed = {}
    for name in mutated.mutant_names:
        if name.startswith("xǁKǁtotal"):
            monkeypatch.setenv("MUTANT_UNDER_TEST", f"m.{name}")
            changed[name] = namespace["K"](3, 4).total
    assert changed and all(value != 7 for value in changed.values()), changed


#: the properties of the decision modules, by module: each is mutated from now on
DECISION_PROPERTIES = {"budget.py": ("Budget", "units"), "meter.py": ("Meter", "has_choice"),
                       "governor.py": ("Governor", "active"), "over_budget.py": ("OverBudget", "worst_share"),
                       "clustered.py": ("ItemPairing", "items"), "typical_seed.py": ("SignCounts", "untied")}


@pytest.mark.parametrize("name", sorted(DECISION_PROPERTIES))
def test_the_decision_modules_properties_are_mutated_with_unchanged_code(mutation, name):
    """The copy's class holds a property whose getter is the checkout's, bytecode and line numbers alike, and
    nothing in the module is left for the report's 'not mutated' list."""
    import importlib

    path = mutation.module_path(name)
    source, _ = mutation.uncache((SCRIPT.parent.parent / path).read_text())
    plain, names = mutation.unproperty(source)
    cls, prop = DECISION_PROPERTIES[name]
    assert names == [prop] and mutation.still_decorated(plain) == []
    assert len(plain.splitlines()) == len(source.splitlines())
    dotted = path.removesuffix(".py").replace("/", ".")
    real = getattr(importlib.import_module(dotted), cls)
    namespace = {"__name__": dotted, "__package__": dotted.rpartition(".")[0]}
    exec(compile(plain, path, "exec"), namespace)
    old, new = vars(real)[prop], vars(namespace[cls])[prop]
    assert isinstance(new, property) and new.fset is None and new.__doc__ == old.__doc__
    code_old, code_new = old.fget.__code__, new.fget.__code__
    assert (code_new.co_code, code_new.co_consts, code_new.co_names) == \
        (code_old.co_code, code_old.co_consts, code_old.co_names)
    # a decorated def starts at its decorator: the body's lines are the same ones
    assert code_new.co_firstlineno == code_old.co_firstlineno + 1
    assert [line for *_, line in code_new.co_lines()][1:] == [line for *_, line in code_old.co_lines()][1:]


def test_the_report_names_the_properties_mutated_as_plain_methods(mutation):
    result = mutation.ModuleResult("baselines/x.py", counts={"killed": 3}, unpropertied=["items"])
    text = mutation.report([result])
    assert "properties mutated as plain methods (`name = property(name)` after the def): items" in text
    assert "not mutated" not in text
