"""Option types and checks shared by the verbs: parsed once, at the boundary.

Why here: a percentage, a unit name or an output path means the same thing on
every verb, and a mistake in one must read the same way everywhere: one line
naming the option, what was given and the fix, exit code 2. Nothing in this
module imports pandas, scipy or matplotlib, so `--help` answers at once.
"""
from __future__ import annotations

import argparse
import math
import os
import stat
from pathlib import Path

from ..analysis.statistics.alpha import check_alpha
from ..core.errors import InputError
from ..core.fileio import OutputError, ensure_dir
from ..core.input_files import check_input
from ..core.suggest import did_you_mean
from ..core.units import UNIT_ALIASES, canonical_unit  # noqa: F401 - UNIT_ALIASES: listed by `costmatch list`

EXIT_OK, EXIT_NEGATIVE, EXIT_USAGE, EXIT_INCONCLUSIVE, EXIT_INTERRUPTED = 0, 1, 2, 3, 130
#: `check --reference`: the base gate did not FAIL but the candidate drifted beyond the margin from the reference
EXIT_DRIFT = 4

#: The suite `run` and `plan` use when none is named and the folder has no costmatch-suite.toml.
DEFAULT_SUITE = Path(__file__).resolve().parent.parent / "data" / "default-suite.toml"
#: What `costmatch init` writes; a bare `costmatch run` in that folder runs it.
LOCAL_SUITE = "costmatch-suite.toml"


def default_suite() -> Path:
    """./costmatch-suite.toml when present (a folder made by `costmatch init`), else the built-in demo."""
    local = Path(LOCAL_SUITE)
    if os.path.lexists(local) and not local.is_file():   # a FIFO or a folder of that name: said, not skipped
        check_input(local, "suite")
    return local if local.is_file() else DEFAULT_SUITE


#: Suites that ship with the package, run by name (`costmatch run replay-aime2025`).
BUILTIN_SUITES = DEFAULT_SUITE.parent / "suites"


def builtin_suites() -> list[str]:
    """The names of the shipped suites."""
    return sorted(p.stem for p in BUILTIN_SUITES.glob("*.toml"))


def suite_path(given: str | None) -> Path:
    """The suite a verb runs: the file given, else a shipped suite of that name, else the default.

    A file of that name in the working folder always wins over a shipped suite.
    """
    if given is None:
        return default_suite()
    path = Path(given)
    if not path.exists() and path.suffix != ".toml" and (BUILTIN_SUITES / f"{given}.toml").is_file():
        return BUILTIN_SUITES / f"{given}.toml"
    return path



class Parser(argparse.ArgumentParser):
    """argparse that reports usage errors as one line naming the verb, with exit code 2."""

    def error(self, message: str):  # noqa: D102 - argparse hook
        verb = self.prog.removeprefix("costmatch").strip()
        raise InputError(f"{verb + ': ' if verb else ''}{message} (see costmatch {verb + ' ' if verb else ''}--help)")

    def _get_values(self, action, arg_strings):  # noqa: D102 - argparse hook, before any type conversion
        # an empty value is a mistake, never "not given": `--address ''` started a local cluster and
        # `init ''` wrote into the working folder (issue 31)
        if action.nargs not in (argparse.PARSER, argparse.REMAINDER) and any(
                isinstance(text, str) and not text.strip() for text in arg_strings):
            name = "/".join(action.option_strings) or action.metavar or action.dest
            self.error(f"{name}: an empty value; give one (or leave the option out)")
        return super()._get_values(action, arg_strings)


def unit(text: str) -> str:
    """A unit name, with common aliases (dollars -> usd, token -> tokens) mapped to the contract's."""
    name = text.strip()
    if not name:
        raise argparse.ArgumentTypeError("a unit name is empty; use rollouts, calls, tokens, usd, seconds, ...")
    return canonical_unit(name)


def fraction_or_percent(option: str, *, upper: float | None = None):
    """A parser for numbers written as 0.1 or 10%: the one percent rule of every option."""
    def parse(text: str) -> float:
        try:
            value = float(text[:-1]) / 100 if text.endswith("%") else float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{option} must be a number like 0.1 or 10%, got {text!r}") from None
        if not math.isfinite(value) or value < 0 or (upper is not None and value >= upper):
            limit = f" and below {upper:g}" if upper is not None else ""
            raise argparse.ArgumentTypeError(f"{option} must be finite, non-negative{limit}, got {text!r}")
        return value
    return parse


def margin(text: str) -> str:
    """The gate's margin: kept as text because `2%` is relative to the baseline, `0.02` absolute."""
    fraction_or_percent("--margin")(text)
    return text


def alpha(text: str) -> float:
    try:
        value: object = float(text)
    except ValueError:
        value = text  # not a number: the check below says so
    try:
        return check_alpha(value, "--alpha")
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def finite(option: str, *, positive: bool = False, nonneg: bool = False):
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{option} must be a number, got {text!r}") from None
        if not math.isfinite(value) or (positive and value <= 0) or (nonneg and value < 0):
            need = "positive" if positive else "non-negative" if nonneg else "finite"
            raise argparse.ArgumentTypeError(f"{option} must be a {need} finite number, got {text!r}")
        return value
    return parse


def positive_int(option: str):
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{option} must be a whole number, got {text!r}") from None
        if value < 1:
            raise argparse.ArgumentTypeError(f"{option} must be at least 1, got {text!r}")
        return value
    return parse


def budget_filter(text: str) -> tuple[str, float]:
    """`--budget tokens=1500000`: one unit and its exact allowance."""
    name, sep, value = text.partition("=")
    try:
        number = float(value)
    except ValueError:
        number = math.nan
    if not sep or not name.strip() or not math.isfinite(number):
        raise argparse.ArgumentTypeError(f"--budget must be UNIT=VALUE like tokens=1500000, got {text!r}")
    return unit(name), number


def add_results_args(p: argparse.ArgumentParser, fixed_required: bool = False) -> None:
    """The options every verb that reads results files shares."""
    p.add_argument("results", nargs="+", metavar="RESULTS", help="JSON Lines results files")
    p.add_argument("--fixed", type=unit, required=fixed_required, metavar="UNIT",
                   help="the unit the arms were matched in (rollouts, calls, tokens, usd, seconds or a custom "
                        "unit); default: the unit each group's budget names")
    p.add_argument("--workload", action="append", metavar="NAME", dest="workloads",
                   help="only the groups of this workload (repeatable)")
    p.add_argument("--budget", action="append", type=budget_filter, metavar="UNIT=VALUE", dest="budgets",
                   help="only the groups whose budget gives UNIT exactly VALUE (repeatable)")
    p.add_argument("--tolerance", type=fraction_or_percent("--tolerance"), default=0.1, metavar="T",
                   help="allowed relative drift, e.g. 0.1 or 10%% (default 0.1)")
    p.add_argument("--keep-last", action="store_true",
                   help="when a run identity appears twice, keep the later line instead of failing")
    p.add_argument("--allow-early-stop", action="store_true",
                   help="accept under-spend of runs that stopped on their own as a note, not a break")
    p.add_argument("--alpha", type=alpha, default=0.05, help="significance level (default 0.05)")
    p.add_argument("--metric", default="reward",
                   help="what to compare: reward (default), dev_reward, auc, reward@25%%, reward@50%%, reward@100%%")
    p.add_argument("--start", type=finite("--start"), default=0.0,
                   help="anytime metrics: the score before a run's first trace point (default 0)")
    p.add_argument("--reward-range", type=reward_range, metavar="LO,HI",
                   help="every reward lies in [LO, HI] (e.g. 0,1 for accuracy): printed means and intervals stay "
                        "inside it and bounded-reward statistics apply (a range the records declare wins)")
    p.add_argument("--claim", choices=["auto", "typical", "mean", "both"], default=None,
                   help="the claim pair verdicts make: typical (wins on more seeds than it loses, exact sign test, "
                        "any reward shape), mean (difference of means), both (Holm over pairs x claims); default "
                        "auto: typical, or mean paired by question where every pair's runs carry items "
                        "(check: mean)")
    p.add_argument("--questions", choices=["population", "these"], default=None,
                   help="what an item-paired verdict is about when the same question ids recur across seeds: "
                        "population (default: the questions are a sample; two-way seed x question clustered t, "
                        "Cameron, Gelbach & Miller 2011) or these (these questions only; seed-clustered t)")
    p.add_argument("--confounds", type=unit_list, metavar="UNIT,...",
                   help="units checked for confounds (default: every reported unit except seconds, whose "
                        "differences on simulators measure the machine); 'none' for no confound checks")


def add_cache_arg(p: argparse.ArgumentParser) -> None:
    """`--no-cache`, for the verbs that read results files as columns (and so through their sidecars)."""
    p.add_argument("--no-cache", action="store_true",
                   help="parse every results file whole, neither reading nor writing its column sidecar "
                        "(.NAME.costmatch-cache.arrow beside it); the same as COSTMATCH_CACHE=off")


def reward_range(text: str) -> tuple[float, float]:
    """`--reward-range 0,1`: two finite numbers LO < HI."""
    parts = text.split(",")
    try:
        lo, hi = (float(x) for x in parts)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--reward-range must be LO,HI with finite LO < HI, got {text!r}") from None
    if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
        raise argparse.ArgumentTypeError(f"--reward-range must be LO,HI with finite LO < HI, got {text!r}")
    return lo, hi


def unit_list(text: str) -> list[str]:
    """A comma-separated list of units; `none` is the empty list."""
    if text.strip().lower() == "none":
        return []
    return [unit(part) for part in text.split(",") if part.strip()]


def check_results_files(paths: list[str]) -> None:
    """Before any reading: every results path is a file (or a pipe) and none is given twice.

    Why twice is an error: `compare out/*.jsonl out/results.jsonl` read one
    file two times and then reported every run as a duplicate of itself.
    Pipes (`cat r.jsonl | costmatch compare /dev/stdin`, `<(...)`) are read
    once, as they stream; each verb reads its results files once.
    """
    seen: dict[tuple[int, int], str] = {}
    for path in paths:
        p = Path(path)
        if p.is_dir():
            raise InputError(f"{path}: is a folder; pass the results.jsonl inside it")
        try:
            info = p.stat()
        except OSError:
            raise InputError(f"{path}: no such results file; pass the results.jsonl that `costmatch run` wrote") \
                from None
        if not (stat.S_ISREG(info.st_mode) or stat.S_ISFIFO(info.st_mode)):
            raise InputError(f"{path}: is a device, not a results file; pass a results.jsonl (or pipe one in)")
        key = (info.st_dev, info.st_ino)
        if key in seen:
            also = "" if seen[key] == path else f" (also as {seen[key]})"
            raise InputError(f"{path}: is given twice{also}; pass each results file once")
        seen[key] = path


def output_file(path: str, what: str) -> Path:
    """Check before any work that `path` can take a file: its folder exists and it is not a folder."""
    out = Path(path)
    if out.is_dir():
        raise OutputError(f"{out}: the {what} is a folder; give a file name such as {out / 'out.txt'}")
    parent = out.parent
    if not parent.exists():
        raise OutputError(f"{out}: the folder {parent} does not exist; create it first or choose another path")
    if not parent.is_dir():
        raise OutputError(f"{out}: {parent} is a file, not a folder; choose a path inside a folder")
    return out


def output_dir(path: str, what: str) -> Path:
    return ensure_dir(path, what)


def planned_dir(path: str, what: str) -> Path:
    """An output folder checked but not made: the writer makes it, so a refused command leaves no folder (issue 31)."""
    if not str(path).strip():
        raise InputError(f"the {what} is an empty path; give a folder path")
    planned = Path(path)
    if planned.exists() and not planned.is_dir():
        raise InputError(f"{planned}: the {what} is a file, not a folder; give a folder path")
    return planned


def suggest(word: str, choices: list[str]) -> str:
    """`did_you_mean` with the looser cutoff verbs have always had (short words), as "; did you mean 'x'?"."""
    hint = did_you_mean(word, choices, cutoff=0.5)
    return f"; {hint.strip()[1:-1]}" if hint else ""
