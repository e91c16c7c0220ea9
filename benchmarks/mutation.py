"""Mutation testing of the decision modules: which faithful small changes to a rule does the default suite miss?

A green suite says the code does what the tests check; a surviving mutant says where a rule could break
with every test still green (issue 44 found four such rules by hand). This runs mutmut (3.x) on each
decision module against that module's own default tests, in a throw-away copy of the tree (the checkout
gets no `mutants/` folder), and writes a report: per module, killed / survived / equivalent, the score
killed / (killed + survived + untested), equivalents left out, and every survivor's diff.

Equivalent mutants (a change that cannot alter behaviour) are listed in `mutation_equivalent.toml`
beside this file, each with its module, the mutated line as mutmut writes it, and a one-line reason;
they are matched by that line, not by mutmut's numbering, so the list survives edits elsewhere.

    python benchmarks/mutation.py                          # every decision module (tens of minutes)
    python benchmarks/mutation.py --modules clustered.py   # one module
    python benchmarks/mutation.py --changed-since main~3   # the decision modules a change touched

Needs `pip install mutmut==3.8.1` (in the test extra). Exits 1 when a module's score is below
`--min-score` (default 0.9) or a survivor is not listed as equivalent and `--strict` is given.
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EQUIVALENT_FILE = Path(__file__).with_name("mutation_equivalent.toml")
EQUIVALENT_DIR = Path(__file__).with_name("mutation_equivalent")

#: decision module (file name, found once under baselines/) -> the default tests that judge it
MODULES: dict[str, list[str]] = {
    "budget.py": ["tests/test_budget.py", "tests/test_budget_rule.py", "tests/test_meter.py",
                  "tests/test_mutation_budget.py"],
    "meter.py": ["tests/test_meter.py", "tests/test_budget_rule.py", "tests/test_governor.py",
                 "tests/test_mutation_meter.py"],
    "governor.py": ["tests/test_governor.py", "tests/test_mutation_meter.py", "tests/test_budget_rule.py"],
    "over_budget.py": ["tests/test_over_budget.py", "tests/test_mutation_spend_checks.py"],
    "claims.py": ["tests/test_claims.py", "tests/test_mutation_pair_verdict.py", "tests/test_questions_population.py",
                  "tests/test_typical_seed.py"],
    "json_line.py": ["tests/test_records.py", "tests/test_reader_rules.py", "tests/test_repeated_keys.py",
                     "tests/test_mutation_json_line.py"],
    "spend_checks.py": ["tests/test_compare.py", "tests/test_mutation_misses.py",
                        "tests/test_mutation_spend_checks.py"],
    "alpha.py": ["tests/test_alpha.py", "tests/test_compare.py", "tests/test_mutation_alpha.py"],
    "exact_paired.py": ["tests/test_gate_decides.py", "tests/test_exact_values.py", "tests/test_mutation_misses.py"],
    "clustered.py": ["tests/test_gate_decides.py", "tests/test_items.py", "tests/test_mutation_misses.py",
                     "tests/test_questions_population.py"],
    "gate_bounds.py": ["tests/test_gate_decides.py", "tests/test_skew_gate.py", "tests/test_mutation_misses.py",
                       "tests/test_skew_rewards.py", "tests/test_mutation_gate_bounds.py"],
    "gate.py": ["tests/test_gate.py", "tests/test_gate_decides.py", "tests/test_check_options.py",
                "tests/test_mutation_misses.py", "tests/test_claims.py", "tests/test_pooled_shape.py",
                "tests/test_questions_population.py", "tests/test_mutation_gate.py"],
    "typical_gate.py": ["tests/test_claims.py", "tests/test_typical_calibration.py", "tests/test_mutation_gate.py",
                        "tests/test_history.py"],
    "pooled_shape.py": ["tests/test_pooled_shape.py", "tests/test_history.py", "tests/test_history_sim.py"],
    "sequential.py": ["tests/test_gate_decides.py", "tests/test_mutation_gate_bounds.py", "tests/test_gate.py"],
    "looks.py": ["tests/test_gate_decides.py", "tests/test_mutation_gate.py", "tests/test_skew_gate.py"],
    "pair_verdict.py": ["tests/test_stats.py", "tests/test_compare.py", "tests/test_exact_values.py",
                        "tests/test_mutation_pair_verdict.py", "tests/test_discordant_share.py",
                        "tests/test_mean_mde_notes.py", "tests/test_pair_verdict_rules.py"],
    "sign_flip.py": ["tests/test_stats.py", "tests/test_exact_values.py", "tests/test_mutation_sign_flip.py"],
    "student_t.py": ["tests/test_stats.py", "tests/test_mutation_gate_bounds.py", "tests/test_mutation_pair_verdict.py"],
    "stats.py": ["tests/test_stats.py", "tests/test_exact_values.py", "tests/test_pair_verdict_rules.py"],
    "arm_intervals.py": ["tests/test_arm_intervals.py", "tests/test_skew_gate.py", "tests/test_cold_path.py"],
    "pair_interval.py": ["tests/test_stats.py", "tests/test_cold_path.py", "tests/test_mean_power.py"],
    "lm_eval.py": ["tests/test_importers_eval_tools.py", "tests/test_importers_fuzz.py",
                   "tests/test_mutation_misses.py", "tests/test_mutation_lm_eval.py"],
    # resume: an in-process file that calls its rules directly (the runner tests start processes: slow per mutant)
    "resume.py": ["tests/test_mutation_resume.py"],
    "typical_seed.py": ["tests/test_typical_seed.py", "tests/test_typical_search.py",
                        "tests/test_typical_calibration.py", "tests/test_cold_path.py"],
    "records.py": ["tests/test_records.py", "tests/test_reader_rules.py", "tests/test_repeated_keys.py",
                   "tests/test_items.py", "tests/test_out_of_range.py", "tests/test_bounded_names.py"],
    "betting.py": ["tests/test_mutation_gate_bounds.py", "tests/test_arm_intervals.py"],
    # importers: not test_importers.py for common.py (its inspect log test takes ~15 s and reaches common's helpers)
    "common.py": ["tests/test_importer_types.py", "tests/test_importers_fuzz.py", "tests/test_importers_eval_tools.py"],
    "agentdescent.py": ["tests/test_importers.py", "tests/test_importer_types.py", "tests/test_importers_fuzz.py"],
    "promptfoo.py": ["tests/test_importer_types.py", "tests/test_importers_fuzz.py", "tests/test_importers_eval_tools.py"],
    "csv_table.py": ["tests/test_importer_types.py", "tests/test_importers_fuzz.py", "tests/test_importers_eval_tools.py"],
    "reward_range.py": ["tests/test_out_of_range.py", "tests/test_exact_values.py", "tests/test_reader_rules.py"],
    "question_claim.py": ["tests/test_questions_population.py", "tests/test_questions.py", "tests/test_items.py"],
    # inspect: not test_importers.py (it writes each log with inspect_ai's mockllm, ~15 s per mutant); these read
    # the kept tests/data/inspect/arith.eval and JSON variants of it in-process
    "inspect_log.py": ["tests/test_mutants_inspect_log__logs.py", "tests/test_mutants_inspect_log__arms.py",
                       "tests/test_mutants_inspect_log__spend.py", "tests/test_mutants_inspect_log__scores.py",
                       "tests/test_mutants_inspect_log__files.py", "tests/test_hostile_archives.py"],
}

#: what the fork server imports before forking a worker per mutant: third-party libraries only
PRELOAD = ["numpy", "scipy.stats", "scipy.special", "scipy.optimize", "pandas", "pyarrow", "orjson", "tabulate",
           "matplotlib", "matplotlib.pyplot", "hypothesis", "joblib", "tqdm", "jsonschema", "pytest"]

PYTEST_ARGS = ["-p", "no:cacheprovider", "-q", "-x"]

STATUS = re.compile(r"^\s*(?P<name>\S+): (?P<status>[a-z ]+)$")


@dataclass
class ModuleResult:
    path: str
    counts: dict[str, int] = field(default_factory=dict)
    survivors: list[tuple[str, str]] = field(default_factory=list)      # (mutant name, diff)
    equivalent: list[tuple[str, str]] = field(default_factory=list)     # (mutant name, reason)
    uncached: list[str] = field(default_factory=list)                   # functions mutated without their cache
    unpropertied: list[str] = field(default_factory=list)               # properties mutated as plain methods
    not_mutated: list[str] = field(default_factory=list)                # decorated functions mutmut skips
    unmatched: list[str] = field(default_factory=list)                  # listed lines no survivor wrote

    @property
    def killed(self) -> int:
        return self.counts.get("killed", 0) + self.counts.get("timeout", 0)

    @property
    def untested(self) -> int:
        return self.counts.get("no tests", 0)

    @property
    def score(self) -> float | None:
        """Killed over every non-equivalent mutant: one that no listed test reaches is not killed either."""
        judged = self.killed + len(self.survivors) + self.untested
        return self.killed / judged if judged else None


def judging_tests(name: str) -> list[str]:
    """MODULES' tests plus every `tests/test_mutants_<stem>__*.py` (so helpers killing one module's survivors
    in separate files never edit this table at once). The double underscore keeps gate's files apart from
    gate_bounds'."""
    stem = Path(name).stem
    extra = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "tests").glob(f"test_mutants_{stem}__*.py"))
    return [*MODULES[name], *(t for t in extra if t not in MODULES[name])]


def module_path(name: str) -> str:
    """The one file called `name` under baselines/ (module homes move; their names stay)."""
    found = sorted(p for p in (ROOT / "baselines").rglob(name) if "__pycache__" not in p.parts)
    if len(found) != 1:
        raise SystemExit(f"mutation: {name!r} names {len(found)} files under baselines/; fix MODULES")
    return found[0].relative_to(ROOT).as_posix()


def mutated_lines(diff: str) -> list[str]:
    """The lines a mutant writes (the diff's '+' lines, stripped): what an equivalence entry names."""
    return [line[1:].strip() for line in diff.splitlines() if line.startswith("+") and not line.startswith("+++")]


def equivalent_files() -> list[Path]:
    """The shared list plus one file per module under mutation_equivalent/ (one owner per file, no merge fights)."""
    return [EQUIVALENT_FILE, *sorted(EQUIVALENT_DIR.glob("*.toml"))]


def load_equivalents(path: Path | None = None) -> list[dict]:
    entries: list[dict] = []
    for one in [path] if path is not None else equivalent_files():
        if not one.exists():
            continue
        found = tomllib.loads(one.read_text()).get("equivalent", [])
        for i, entry in enumerate(found):
            if not {"module", "line", "reason"} <= set(entry):
                raise SystemExit(f"mutation: {one.name}: entry {i + 1} needs module, line and reason")
        entries += found
    return entries


def equivalence_reason(module: str, diff: str, entries: list[dict]) -> str | None:
    lines = mutated_lines(diff)
    for entry in entries:
        if Path(entry["module"]).name == Path(module).name and entry["line"].strip() in lines:
            return entry["reason"]
    return None


def unmatched_entries(module: str, entries: list[dict], survivor_diffs: list[str]) -> list[str]:
    """The module's listed lines that no surviving mutant wrote this run: the code moved or a test now kills
    that mutant, so its reason excuses nothing and should go (a stale list reads as argued equivalence)."""
    written = {line for diff in survivor_diffs for line in mutated_lines(diff)}
    return [entry["line"].strip() for entry in entries
            if Path(entry["module"]).name == Path(module).name and entry["line"].strip() not in written]


def copy_tree(dest: Path) -> None:
    """The tracked files as they are in the working tree (edits included), without git or caches."""
    files = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, check=True, capture_output=True).stdout
    for rel in filter(None, files.decode().split("\0")):
        src = ROOT / rel
        if src.is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / rel)


#: a caching decorator alone on its line: dropped in the copy, so mutmut mutates the function under it
CACHE_DECORATOR = re.compile(r"^[ \t]*@(?:functools\.)?(?:lru_cache|cache)(?:\([^)]*\))?[ \t]*(?:#.*)?\n", re.M)


def uncache(source: str) -> tuple[str, list[str]]:
    """`source` without its caching decorators, and the functions they were on.

    mutmut 3.8.1 does not mutate a decorated function (its trampoline would sit under the decorator), so
    a module's `lru_cache`d rules (exact_paired.ni_pvalue, typical_seed.critical_wins, student_t.mde_factor
    ...) scored 100% without one mutant of theirs being tried. A cache changes speed, never a value:
    the copy drops it and the rule is mutated like any other; the tests then run uncached (slower)."""
    names = [re.search(r"def (\w+)", source[m.end():]).group(1) for m in CACHE_DECORATOR.finditer(source)]
    return CACHE_DECORATOR.sub("", source), names


def unproperty(source: str) -> tuple[str, list[str]]:
    """`source` with each plain `@property` of a top-level class applied after its def, and their names.

    mutmut 3.8.1 skips decorated functions (a `property` object would also break its trampoline), so
    `budget.units`, `clustered.items`, ... were never mutated. Each becomes the undecorated
    `def name(self)` followed by `name = property(name)`: the class holds the same property (one getter,
    its docstring), while mutmut sees a plain method, mutates it and names its mutants after it
    (`...xǁBudgetǁunits__mutmut_1`). Every line keeps its number: the decorator line is left blank and the
    assignment takes the blank line after the body (a line is inserted only when there is none). Only a
    lone `@property` on a method of a module-level class: mutmut mutates no nested class, and any other
    decorator (`@x.setter`, stacked ones) stays as it is and is reported as not mutated."""
    import ast
    lines = source.splitlines(keepends=True)
    found: list[tuple[int, int, int, str]] = []     # (decorator line, last body line, indent, name), 0-based
    for cls in ast.parse(source).body:
        if not isinstance(cls, ast.ClassDef):
            continue
        for node in cls.body:
            if (isinstance(node, ast.FunctionDef) and len(node.decorator_list) == 1
                    and isinstance(node.decorator_list[0], ast.Name) and node.decorator_list[0].id == "property"
                    and re.fullmatch(r"[ \t]*@property[ \t]*(?:#.*)?\n?", lines[node.decorator_list[0].lineno - 1])):
                found.append((node.decorator_list[0].lineno - 1, node.end_lineno - 1, node.col_offset, node.name))
    for at, end, indent, name in reversed(found):   # from the bottom, so earlier line numbers stay put
        assignment = f"{' ' * indent}{name} = property({name})\n"
        after = end + 1
        if after < len(lines) and not lines[after].strip():
            lines[after] = assignment
        else:
            if not lines[end].endswith("\n"):
                lines[end] += "\n"
            lines.insert(after, assignment)
        lines[at] = "\n"
    return "".join(lines), [name for *_, name in found]


def still_decorated(source: str) -> list[str]:
    """Functions mutmut still leaves alone after `uncache` and `unproperty`: any other decorator (a setter,
    a property on a nested class, ...)."""
    import ast
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.decorator_list:
            names = [ast.unparse(d) for d in node.decorator_list]
            if names not in (["staticmethod"], ["classmethod"]):
                out.append(f"{node.name} (@{', @'.join(names)})")
    return out


FRESH_CACHES = '''\
"""pytest plugin for mutation runs: empty every lru_cache of costmatch's packages when a session starts.

mutmut's fork mode forks each mutant's worker from the process that ran the unmutated suite; a cache
filled there answers for the mutant, which then "survives" without its code ever running."""
import functools
import sys


def pytest_sessionstart(session):
    for name, module in list(sys.modules.items()):
        if module is None or name.split(".")[0] not in ("baselines", "reports", "arms", "workloads"):
            continue
        for value in list(vars(module).values()):
            if isinstance(value, functools._lru_cache_wrapper):
                value.cache_clear()
'''


def isolation_config(work: Path, isolation: str) -> str:
    """mutmut's isolation settings, and what they need in the copy.

    `fork` (fast): workers fork from the process that ran the suite for stats, with every lru_cache of
    ours emptied at each session start (tests/_mutmut_fresh_caches.py, a plugin written into the copy).
    `forkserver` (slow, for a second opinion): workers fork from a clean server that preloads third-party
    libraries only, so even values computed at import come from the mutant."""
    if isolation == "fork":
        (work / "tests" / "_mutmut_fresh_caches.py").write_text(FRESH_CACHES)
        return 'process_isolation = "fork"\n'
    (work / "mutmut-preload.txt").write_text("\n".join(PRELOAD) + "\n")
    return ('process_isolation = "forkserver"\nforkserver_warmup = "import"\n'
            f'preload_modules_file = "{work / "mutmut-preload.txt"}"\n')


def configure(work: Path, path: str, tests: list[str], isolation: str = "fork") -> None:
    pyproject = work / "pyproject.toml"
    text = re.sub(r"\n\[tool\.mutmut\][^\[]*", "\n", pyproject.read_text())
    quoted = lambda xs: "[" + ", ".join(f'"{x}"' for x in xs) + "]"  # noqa: E731
    text += ("\n[tool.mutmut]\n"
             'source_paths = ["baselines", "reports", "arms", "workloads"]\n'
             # what tests read besides the packages (mutmut copies only those and tests/ into mutants/)
             'also_copy = ["benchmarks", "docs", "README.md"]\n'
             f"only_mutate = {quoted([path])}\n"
             f"pytest_add_cli_args = {quoted(PYTEST_ARGS + (['-p', 'tests._mutmut_fresh_caches'] if isolation == 'fork' else []))}\n"
             f"pytest_add_cli_args_test_selection = {quoted(tests)}\n"
             f"{isolation_config(work, isolation)}")
    pyproject.write_text(text)


def run_group(command: list[str], cwd: Path, out) -> None:
    """Run mutmut in its own process group and end the whole group on any exit: its fork server and
    workers outlive a plain kill of the parent and would go on loading the machine."""
    proc = subprocess.Popen(command, cwd=cwd, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        proc.wait()
    finally:
        try:  # the group's leftovers (fork server, workers), also after a normal end
            os.killpg(proc.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass


def run_module(name: str, entries: list[dict], children: int, log: Path, isolation: str = "fork",
               uncached_caches: bool = True, plain_properties: bool = True) -> ModuleResult:
    path = module_path(name)
    result = ModuleResult(path)
    with tempfile.TemporaryDirectory(prefix="costmatch-mutation-") as tmp:
        work = Path(tmp)
        copy_tree(work)
        if uncached_caches:
            source, result.uncached = uncache((work / path).read_text())
            (work / path).write_text(source)
        if plain_properties:
            source, result.unpropertied = unproperty((work / path).read_text())
            (work / path).write_text(source)
        result.not_mutated = still_decorated((work / path).read_text())
        configure(work, path, judging_tests(name), isolation)
        with log.open("a") as out:
            out.write(f"\n=== {path}\n")
            out.flush()
            run_group(["mutmut", "run", "--max-children", str(children)], work, out)
        listing = subprocess.run(["mutmut", "results", "--all", "true"], cwd=work, capture_output=True,
                                 text=True, check=False).stdout
        survivor_diffs = []
        for line in listing.splitlines():
            match = STATUS.match(line)
            if not match:
                continue
            status = match["status"].strip()
            result.counts[status] = result.counts.get(status, 0) + 1
            if status == "survived":
                diff = subprocess.run(["mutmut", "show", match["name"]], cwd=work, capture_output=True,
                                      text=True, check=False).stdout
                survivor_diffs.append(diff)
                reason = equivalence_reason(path, diff, entries)
                if reason:
                    result.equivalent.append((match["name"], reason))
                else:
                    result.survivors.append((match["name"], diff))
        result.unmatched = unmatched_entries(path, entries, survivor_diffs)
    if not result.counts:
        raise SystemExit(f"mutation: {path}: mutmut ran no mutant (its clean test run failed?); see {log}")
    return result


def report(results: list[ModuleResult]) -> str:
    rows = ["| module | mutants | killed | survived | equivalent | no tests | score |", "|---|---|---|---|---|---|---|"]
    for r in results:
        total = sum(r.counts.values())
        score = "—" if r.score is None else f"{r.score:.1%}"
        rows.append(f"| `{r.path}` | {total} | {r.killed} | {len(r.survivors)} | {len(r.equivalent)} | "
                    f"{r.counts.get('no tests', 0)} | {score} |")
    killed = sum(r.killed for r in results)
    judged = killed + sum(len(r.survivors) + r.untested for r in results)
    overall = f"{killed / judged:.1%}" if judged else "—"
    out = ["# Mutation report", "", f"Overall: {killed} of {judged} non-equivalent mutants killed ({overall}).",
           "Score = killed / (killed + survived + no tests), equivalents left out; 'no tests' are mutants in code no listed",
           "test reaches: nothing would notice them either.",
           "", *rows, ""]
    for r in results:
        if r.survivors:
            out += [f"## Survivors in `{r.path}`", ""]
            for name, diff in r.survivors:
                out += [f"### {name}", "", "```diff", diff.strip(), "```", ""]
    for r in results:   # what the score covers beyond the plain functions, and what it does not
        if r.uncached or r.unpropertied or r.not_mutated:
            out += [f"## Decorated functions in `{r.path}`", ""]
            if r.uncached:
                out.append(f"- mutated without their cache: {', '.join(r.uncached)}")
            if r.unpropertied:
                out.append(f"- properties mutated as plain methods (`name = property(name)` after the def): "
                           f"{', '.join(r.unpropertied)}")
            if r.not_mutated:
                out.append(f"- not mutated (mutmut skips decorated functions): {', '.join(r.not_mutated)}")
            out.append("")
    for r in results:   # which mutants the list excused: a line matched in two places shows here
        if r.equivalent:
            out += [f"## Listed equivalent in `{r.path}`", "", *[f"- `{name}`: {reason}" for name, reason in r.equivalent], ""]
        if r.unmatched:
            out += [f"## Listed lines of `{r.path}` no survivor wrote (stale: remove them)", "",
                    *[f"- `{line}`" for line in r.unmatched], ""]
    return "\n".join(out)


def changed_modules(rev: str) -> list[str]:
    names = subprocess.run(["git", "diff", "--name-only", rev], cwd=ROOT, check=True, capture_output=True,
                           text=True).stdout.split()
    return sorted({Path(n).name for n in names if n.startswith("baselines/")} & set(MODULES))


SCORE_TABLE = ROOT / "tests" / "README.md"
SCORE_ROW = re.compile(r"^\| `(?:[\w/]+/)?(\w+\.py)` \|.*?\(at ([0-9a-f]{7,40})\b", re.M)


def measured_at(table: str) -> dict[str, str | None]:
    """Each decision module's row in the score table -> the commit it was measured at (None: the row names none).

    A module missing from the table is listed too (None): it has no score anyone measured."""
    found = {name: commit for name, commit in SCORE_ROW.findall(table)}
    return {name: found.get(name) for name in MODULES}


def changed_since_measured(table: str, changed) -> tuple[list[str], list[str]]:
    """(the decision modules whose code moved after their row's commit or whose row names none, those whose
    commit this checkout does not have): `changed(commit, path)` is True, False or None (unknown commit).
    The first are the ones to mutate again: their score is not this code's."""
    again, unknown = [], []
    for name, commit in measured_at(table).items():
        moved = True if commit is None else changed(commit, module_path(name))
        (again if moved else unknown if moved is None else []).append(name)
    return again, unknown


def git_changed(commit: str, path: str) -> bool | None:
    """Whether `path`'s code (its syntax tree: comments do not count) differs between `commit` and the
    working tree; None when this checkout does not have `commit` (a shallow clone)."""
    import ast
    done = subprocess.run(["git", "show", f"{commit}:{path}"], cwd=ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        known = subprocess.run(["git", "cat-file", "-e", f"{commit}^{{commit}}"], cwd=ROOT, capture_output=True)
        return True if known.returncode == 0 else None   # known commit without the file: the module moved in
    return ast.dump(ast.parse(done.stdout)) != ast.dump(ast.parse((ROOT / path).read_text()))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--modules", nargs="*", help="file names from MODULES (default: all)")
    parser.add_argument("--changed-since", metavar="REV", help="only the decision modules changed since REV")
    parser.add_argument("--since-measured", action="store_true",
                        help="only the decision modules changed since the commit their tests/README.md row names")
    parser.add_argument("--skip", nargs="*", default=[], help="file names left out (with --since-measured)")
    parser.add_argument("--out", type=Path, default=Path("mutation-report.md"))
    parser.add_argument("--log", type=Path, default=Path("mutation-log.txt"))
    parser.add_argument("--children", type=int, default=2, help="mutants tested at once (default 2)")
    parser.add_argument("--isolation", choices=["fork", "forkserver"], default="fork",
                        help="fork: fast, caches emptied per mutant (default); forkserver: slow, clean imports")
    parser.add_argument("--keep-caches", action="store_true",
                        help="leave lru_cache/cache decorators in place (their functions are then not mutated)")
    parser.add_argument("--keep-properties", action="store_true",
                        help="leave @property decorators in place (their getters are then not mutated)")
    parser.add_argument("--min-score", type=float, default=0.9)
    parser.add_argument("--strict", action="store_true",
                        help="exit 1 on any survivor not listed as equivalent, or any mutant no test reaches")
    args = parser.parse_args(argv)
    # a plain kill (SIGTERM) ends this script through `finally`, so run_group ends mutmut's group too
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    if shutil.which("mutmut") is None:
        print("mutation: mutmut is not installed: python3 -m pip install mutmut==3.8.1", file=sys.stderr)
        return 2
    if args.since_measured:
        again, unknown = changed_since_measured(SCORE_TABLE.read_text(), git_changed)
        if unknown:
            print(f"mutation: {len(unknown)} rows name a commit this checkout does not have (a shallow clone?); "
                  f"not run: {', '.join(unknown)}")
        names = [n for n in again if n not in args.skip]
        if not names:
            print("mutation: every decision module's code is what its row in tests/README.md measured")
            return 0
    else:
        names = changed_modules(args.changed_since) if args.changed_since else (args.modules or list(MODULES))
    unknown = [n for n in names if n not in MODULES]
    if unknown:
        print(f"mutation: not a decision module: {', '.join(unknown)} (known: {', '.join(MODULES)})", file=sys.stderr)
        return 2
    entries = load_equivalents()
    args.log.write_text("")
    results = []
    for name in names:
        results.append(run_module(name, entries, args.children, args.log, args.isolation, not args.keep_caches,
                                  not args.keep_properties))
        r = results[-1]
        print(f"{r.path}: {r.killed} killed, {len(r.survivors)} survived, {len(r.equivalent)} equivalent, "
              f"{r.counts.get('no tests', 0)} without tests", flush=True)
    args.out.write_text(report(results))
    print(f"report: {args.out}")
    low = [r.path for r in results if r.score is not None and r.score < args.min_score]
    if low or (args.strict and any(r.survivors or r.untested for r in results)):
        print(f"mutation: below {args.min_score:.0%} or unlisted survivors in: {', '.join(low) or 'see report'}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
