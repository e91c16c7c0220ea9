"""Suites are checked completely before any cell runs, and import only what they name.

Issue 18 items 5 and 8, issue 12 item 4 and the TOML part of item 6, issue 14
item 4 (protocol and compatibility checks), issue 13 item 2 (protocols in the core).
"""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from baselines.cli import main
from baselines.core.errors import InputError
from baselines.running.suite import MAX_SEEDS, load_suite

ROOT = Path(__file__).resolve().parents[1]

TOY = """
seeds = 2
backend = "sequential"
{top}

[arms.guess]
path = "tests.helpers:Guess"
{arm}

[[workloads]]
name = "toy"
path = "tests.helpers:Toy"
fixed = "rollouts"
budget = {{ rollouts = 5 }}
arms = ["guess"]
{workload}
"""


def toy_suite(tmp_path: Path, top: str = "", arm: str = "", workload: str = "", name="suite.toml") -> Path:
    path = tmp_path / name
    path.write_text(TOY.format(top=top, arm=arm, workload=workload))
    return path


def _refused(tmp_path, capsys, path: Path, words: str) -> str:
    """plan and run both exit 2 with one line naming the problem, and run starts no cell."""
    out = tmp_path / "out"
    for argv in (["plan", str(path)], ["run", str(path), "--out", str(out), "--quiet", "--no-plots"]):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith("costmatch: "), err
        assert words in err, err
        assert "Traceback" not in err
    assert not (out / "results.jsonl").exists()
    return err


def test_the_toy_suite_is_accepted(tmp_path, capsys):
    assert main(["plan", str(toy_suite(tmp_path))]) == 0
    assert "2 cells" in capsys.readouterr().out


@pytest.mark.parametrize("top, arm, workload, words", [
    ("tolerance = -1", "", "", "'tolerance' must be a finite non-negative number like 0.1, got -1"),
    ("tolerance = nan", "", "", "'tolerance' must be a finite non-negative number like 0.1, got nan"),
    ('tolerance = "abc"', "", "", "'tolerance' must be a finite non-negative number like 0.1, got 'abc'"),
    ("", "", "tolerance = inf", "'tolerance' must be a finite non-negative number"),
    ("", "", "seeds = 1000000000", f"above the limit of {MAX_SEEDS:,} seeds"),
    ("", "", "seeds = [-1]", "seed -1 is outside 0..2^63-1"),
    ("", "", "seeds = [1, 1]", "lists a seed twice"),
    ("timeout = 1e300", "", "", "'timeout' must be a positive number of seconds up to"),
    ('out = ""', "", "", "'out' must be a directory path"),
    ("jobs = 0", "", "", "'jobs' must be at least 1"),
    ("", "params = { when = 1979-05-27 }", "", "that JSON can hold"),
    ("", "params = { spin = nan }", "", "no nan/inf"),
    ("", "params = { spin = " + "[" * 70 + "]" * 70 + " }", "", "nested deeper than 62 levels"),
], ids=lambda v: v if isinstance(v, str) and len(v) < 40 else None)
def test_bad_values_are_refused_by_plan_and_before_run(tmp_path, capsys, top, arm, workload, words):
    _refused(tmp_path, capsys, toy_suite(tmp_path, top, arm, workload), words)


def _edited(tmp_path, old: str, new: str) -> Path:
    path = toy_suite(tmp_path)
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))
    return path


@pytest.mark.parametrize("old, new, words", [
    ("[arms.guess]", '[arms.""]', 'an arm name must be 1 to 200 printable characters'),
    ("[arms.guess]", '[arms."a\\nb"]', "no control characters"),
    ('name = "toy"', 'name = ""', "a workload name must be 1 to 200 printable characters"),
    ('arms = ["guess"]', "arms = []", "no arms; list at least one arm name"),
    ('arms = ["guess"]', 'arms = ["nope"]', "unknown arm 'nope'; defined arms: guess"),
    ('path = "tests.helpers:Guess"', 'path = "tests.helpers"', "must look like 'package.module:ClassName'"),
    ('path = "tests.helpers:Guess"', 'path = "a:b:c"', "must look like 'package.module:ClassName'"),
    ('path = "tests.helpers:Guess"', 'path = "tests.helpers:NoSuch"', "has no 'NoSuch'"),
    ('path = "tests.helpers:Guess"', 'path = "tests.helpers:ROOT_CONSTANT_THAT_IS_NOT_THERE"', "has no"),
    ('backend = "sequential"', "backend = []", "'backend' is []; choose one of"),
    ('backend = "sequential"', 'backend = "fork"', "'backend' is 'fork'; choose one of"),
    ("budget = { rollouts = 5 }", "budget = { rollouts = 1e16 }", "above the largest allowance"),
    ("budget = { rollouts = 5 }", "budget = { rollouts = -5 }", "must be non-negative"),
])
def test_bad_names_and_paths_are_refused(tmp_path, capsys, old, new, words):
    _refused(tmp_path, capsys, _edited(tmp_path, old, new), words)


def test_non_utf8_suite_names_the_line(tmp_path, capsys):
    path = toy_suite(tmp_path)
    path.write_bytes(path.read_bytes().replace(b'name = "toy"', b'name = "t\xe9"'))
    _refused(tmp_path, capsys, path, "not UTF-8 text (byte 0xe9); save the suite as UTF-8")


def test_deep_toml_is_one_line(tmp_path, capsys):
    path = tmp_path / "deep.toml"
    path.write_text("a = " + "[" * 100_000 + "]" * 100_000 + "\n")
    _refused(tmp_path, capsys, path, "not valid TOML")


def test_toml_syntax_errors_carry_tomls_line_and_column_and_no_guess(tmp_path, capsys):
    path = _edited(tmp_path, "budget = {{ rollouts = 5 }}".replace("{{", "{").replace("}}", "}"),
                   "budget = { rollouts = 5")
    line = next(i for i, text in enumerate(path.read_text().splitlines(), 1) if "budget = " in text)
    err = _refused(tmp_path, capsys, path, f"{path}:{line}:")
    assert "not valid TOML:" in err and "repeated arm" not in err


def test_an_unclosed_array_gets_tomls_own_words(tmp_path, capsys):
    err = _refused(tmp_path, capsys, _edited(tmp_path, 'arms = ["guess"]', 'arms = ["guess"'),
                   "not valid TOML: Unclosed array")
    assert "repeated arm" not in err


def test_a_repeated_arm_table_is_reported_by_toml(tmp_path, capsys):
    path = toy_suite(tmp_path, arm='[arms.guess]\npath = "tests.helpers:Guess"')
    _refused(tmp_path, capsys, path, "not valid TOML: Cannot declare ('arms', 'guess') twice")


# -- user modules: errors with file and line; protocols; compatibility ---------------------
def _user_suite(tmp_path, module_text: str, arm_path="userarm:Arm", work_path="tests.helpers:Toy",
                arm_params="", work_extra="") -> Path:
    (tmp_path / "userarm.py").write_text(textwrap.dedent(module_text))
    path = tmp_path / "suite.toml"
    path.write_text(TOY.format(top="", arm=arm_params, workload=work_extra)
                    .replace('path = "tests.helpers:Guess"', f'path = "{arm_path}"')
                    .replace('path = "tests.helpers:Toy"', f'path = "{work_path}"'))
    return path


def test_a_syntax_error_in_a_user_module_names_file_and_line(tmp_path, capsys):
    path = _user_suite(tmp_path, "class Arm:\n    def run(self, instance, meter, rng)\n        pass\n")
    _refused(tmp_path, capsys, path, f"cannot import 'userarm': {tmp_path / 'userarm.py'}:2: SyntaxError")


def test_a_user_module_that_raises_on_import_names_file_and_line(tmp_path, capsys):
    path = _user_suite(tmp_path, "x = 1\nraise RuntimeError('no key set\\nsecond line')\n")
    _refused(tmp_path, capsys, path, f"importing 'userarm' raised RuntimeError at {tmp_path / 'userarm.py'}:2: "
                                     "no key set")


def test_a_constructor_that_raises_is_one_line(tmp_path, capsys):
    path = _user_suite(tmp_path, """
        class Arm:
            def __init__(self):
                raise KeyError("missing")
            def run(self, instance, meter, rng):
                return 0
    """)
    _refused(tmp_path, capsys, path, "KeyError at")


@pytest.mark.parametrize("module_text, arm_path, work_path, words", [
    ("class Arm:\n    pass\n", "userarm:Arm", "tests.helpers:Toy", "Arm has no run(instance, meter, rng) method"),
    ("class W:\n    measures = ('calls',)\n    def instance(self, seed): return seed\n",
     "tests.helpers:Guess", "userarm:W", "W has no score(instance, choice) method"),
    ("class W:\n    def instance(self, seed): return seed\n    def score(self, i, c): return 0\n",
     "tests.helpers:Guess", "userarm:W", "W.measures must be a tuple of unit names"),
    ("class W:\n    measures = 'calls'\n    def instance(self, seed): return seed\n    def score(self, i, c): return 0\n",
     "tests.helpers:Guess", "userarm:W", "W.measures must be a tuple of unit names"),
    ("class Arm:\n    workloads = 'toy'\n    def run(self, i, m, r): return 0\n",
     "userarm:Arm", "tests.helpers:Toy", "Arm.workloads must be a tuple of workload kinds"),
    ("FUNC = 3\n", "userarm:FUNC", "tests.helpers:Toy", "3 is not a class"),
])
def test_classes_that_break_the_protocols_are_refused_before_any_cell(tmp_path, capsys, module_text, arm_path,
                                                                       work_path, words):
    path = _user_suite(tmp_path, module_text, arm_path, work_path)
    path.write_text(path.read_text().replace("budget = { rollouts = 5 }", "budget = { calls = 5 }")
                    .replace('fixed = "rollouts"', 'fixed = "calls"'))
    _refused(tmp_path, capsys, path, words)


TOY_KIND = """
from tests.helpers import Toy, Guess

class KindToy(Toy):
    kind = "toy"

class PickyToy(Toy):
    def accepts(self, arm):
        return not isinstance(arm, Guess)

class BrokenToy(Toy):
    def accepts(self, arm):
        raise ValueError("cannot decide")

class ToyOnly(Guess):
    workloads = ("toy",)

class SimOnly(Guess):
    workloads = ("search-sim",)
"""


@pytest.mark.parametrize("arm_path, work_path, words", [
    ("userarm:SimOnly", "userarm:KindToy", "arm 'guess' cannot run on workload 'toy': SimOnly runs on search-sim, not on toy"),
    ("tests.helpers:Guess", "userarm:PickyToy", "arm 'guess' cannot run on workload 'toy': PickyToy.accepts refuses Guess"),
    ("tests.helpers:Guess", "userarm:BrokenToy", "ValueError at"),
])
def test_incompatible_pairs_are_suite_errors_naming_both(tmp_path, capsys, arm_path, work_path, words):
    _refused(tmp_path, capsys, _user_suite(tmp_path, TOY_KIND, arm_path, work_path), words)


@pytest.mark.parametrize("arm_path, work_path", [
    ("userarm:ToyOnly", "userarm:KindToy"),      # declared and matching
    ("userarm:SimOnly", "tests.helpers:Toy"),    # the workload declares no kind: nothing to check
    ("tests.helpers:Guess", "userarm:KindToy"),  # the arm declares nothing
])
def test_declared_or_undeclared_compatible_pairs_pass(tmp_path, capsys, arm_path, work_path):
    assert main(["plan", str(_user_suite(tmp_path, TOY_KIND, arm_path, work_path))]) == 0


def test_a_search_sim_policy_on_bbob_is_refused(tmp_path, capsys):
    path = tmp_path / "suite.toml"
    path.write_text(textwrap.dedent("""
        [arms.greedy]
        path = "arms.selection:Greedy"
        [arms.cma]
        path = "arms.optimizers:CMAES"
        [[workloads]]
        name = "bbob"
        path = "workloads.bbob:BBOB"
        fixed = "calls"
        budget = { calls = 50 }
        arms = ["cma", "greedy"]
    """))
    _refused(tmp_path, capsys, path, "arm 'greedy' cannot run on workload 'bbob': Greedy runs on search-sim, not on bbob")


def test_the_built_in_suite_declares_compatible_pairs():
    suite = load_suite(ROOT / "baselines" / "data" / "default-suite.toml")
    assert len(suite.cells()) == 185


def test_protocols_live_in_the_core_and_are_re_exported():
    import arms.base
    import workloads.base
    from baselines.core import protocols

    assert arms.base.ArmOutput is protocols.ArmOutput and arms.base.Arm is protocols.Arm
    assert workloads.base.Workload is protocols.Workload
    from arms.selection import Greedy
    from workloads.bbob import BBOB
    from workloads.search_sim import SearchSim
    assert isinstance(Greedy(), protocols.Arm) and isinstance(SearchSim(), protocols.Workload)
    assert protocols.incompatibility(BBOB(), Greedy()) is not None
    assert protocols.incompatibility(SearchSim(), Greedy()) is None


# -- imports only from where the suite says (issue 18 item 5, issue 12 item 4) ---------------
SHADOW = "import pathlib\npathlib.Path({marker!r}).write_text('imported')\nraise ImportError('shadow module ran')\n"


def test_folders_named_like_builtin_packages_beside_a_suite_do_not_shadow(tmp_path, capsys):
    for package in ("workloads", "arms", "baselines"):
        (tmp_path / package).mkdir()
        (tmp_path / package / "__init__.py").write_text(SHADOW.format(marker=str(tmp_path / f"{package}.ran")))
    path = tmp_path / "suite.toml"
    path.write_text(textwrap.dedent("""
        seeds = 1
        [arms.greedy]
        path = "arms.selection:Greedy"
        [[workloads]]
        name = "sim"
        path = "workloads.search_sim:SearchSim"
        fixed = "rollouts"
        budget = { rollouts = 3 }
        arms = ["greedy"]
    """))
    assert main(["plan", str(path)]) == 0, capsys.readouterr().err
    assert not list(tmp_path.glob("*.ran"))


def test_loading_a_suite_leaves_sys_path_and_pythonpath_alone(tmp_path, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", os.environ.get("PYTHONPATH", ""))
    before_path, before_env = list(sys.path), os.environ["PYTHONPATH"]
    load_suite(_user_suite(tmp_path, "from tests.helpers import Guess as Arm\n"))
    assert sys.path == before_path and os.environ["PYTHONPATH"] == before_env


def test_a_module_beside_the_suite_imports_like_a_project_but_never_before_an_installed_one(tmp_path):
    """Issue 39: `import helper_beside` from an arm needed a package; the suite's folder is now searched for any
    top-level module, after the standard library and site-packages (a json.py there never runs)."""
    (tmp_path / "helper_beside.py").write_text("X = 1\n")
    (tmp_path / "json.py").write_text("raise SystemExit('the shadow json.py ran')\n")
    load_suite(_user_suite(tmp_path, "from tests.helpers import Guess as Arm\n"))
    assert __import__("helper_beside").X == 1
    import json
    assert not str(json.__file__).startswith(str(tmp_path))
    sys.modules.pop("helper_beside", None)


def _costmatch_command() -> list[str]:
    # -P: Python itself must not put the working directory first (the console script does not either)
    return [sys.executable, "-P", "-m", "baselines.cli"]


@pytest.mark.slow
@pytest.mark.process
def test_shadow_modules_beside_the_suite_and_in_the_cwd_never_run(tmp_path):
    """A real `run` with loky workers: joblib/zlib/cloudpickle files in both places stay unimported,
    and the suite's own modules import in the workers without any PYTHONPATH entry."""
    suite_dir, cwd = tmp_path / "suite", tmp_path / "cwd"
    suite_dir.mkdir()
    cwd.mkdir()
    for folder in (suite_dir, cwd):
        for name in ("joblib", "zlib", "cloudpickle", "numpy"):
            (folder / f"{name}.py").write_text(SHADOW.format(marker=str(tmp_path / f"{folder.name}-{name}.ran")))
    (suite_dir / "mywork.py").write_text(textwrap.dedent("""
        import os
        import numpy as np

        class Work:
            measures = ("calls", "seconds", "rollouts")
            def instance(self, seed):
                return seed
            def score(self, instance, choice):
                return float(choice)

        class Arm:
            def run(self, instance, meter, rng):
                path = os.environ.get("PYTHONPATH", "")
                choice = 1.0 if path == os.environ.get("EXPECTED_PYTHONPATH") else 0.0
                meter.progress(choice, choice=choice)
                meter.rollouts(1)
                return choice
    """))
    suite = suite_dir / "suite.toml"
    suite.write_text(textwrap.dedent("""
        seeds = 4
        jobs = 2
        backend = "loky"
        [arms.mine]
        path = "mywork:Arm"
        [[workloads]]
        name = "mine"
        path = "mywork:Work"
        fixed = "rollouts"
        budget = { rollouts = 3 }
        arms = ["mine"]
    """))
    env = dict(os.environ, PYTHONPATH=str(ROOT), EXPECTED_PYTHONPATH=str(ROOT))
    proc = subprocess.run(_costmatch_command() + ["run", str(suite), "--out", str(tmp_path / "out"), "--quiet",
                                                  "--no-plots"], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert not list(tmp_path.glob("*.ran")), list(tmp_path.glob("*.ran"))
    from baselines.core.records import read_records
    records = read_records(tmp_path / "out" / "results.jsonl")
    assert len(records) == 4 and all(r.reward == 1.0 for r in records)


@pytest.mark.parametrize("drop, words", [
    ('fixed = "rollouts"\n', "missing 'fixed'; add fixed = \"rollouts\" (the unit the arms are matched in"),
    ('name = "toy"\n', "missing 'name'; add name = \"my-task\""),
    ('arms = ["guess"]\n', "missing 'arms'; add arms = [\"NAME\", ...]"),
])
def test_a_missing_workload_key_says_what_to_add(tmp_path, capsys, drop, words):
    """A workload entry without a required key names the fix (before: "missing 'fixed'" and nothing else)."""
    path = toy_suite(tmp_path)
    text = path.read_text()
    assert drop in text
    path.write_text(text.replace(drop, ""))
    _refused(tmp_path, capsys, path, words)


def test_a_misspelt_class_in_a_path_is_named_with_the_module_s_classes(tmp_path, capsys):
    """path = "tests.helpers:Gues": the line names the close class and the module's classes (before: "module
    'tests.helpers' has no 'Gues'" and no fix)."""
    path = toy_suite(tmp_path)
    path.write_text(path.read_text().replace('"tests.helpers:Guess"', '"tests.helpers:Gues"', 1))
    err = _refused(tmp_path, capsys, path, "arms.guess.path: module 'tests.helpers' has no 'Gues' "
                                           "(did you mean 'Guess'?); its classes: ")
    assert err.rstrip().endswith("write the path as module:Class")
