"""`costmatch check`: the CI gate, PASS (0), FAIL (1) or INCONCLUSIVE (3)."""
from __future__ import annotations

import argparse
import sys

from ..core.errors import InputError
from .gate_output import gate_exit, print_gate, print_history
from .history_options import add_history_arguments, resolve_reference
from .options import add_cache_arg, add_results_args, check_results_files, finite, margin, reward_range

HELP = "the CI gate: PASS (0), FAIL (1) or INCONCLUSIVE (3)"


def add_gate_arguments(p: argparse.ArgumentParser, with_range: bool = True) -> None:
    """Options the one-shot gate and the sequential gate of `run` share."""
    p.add_argument("--margin", type=margin, metavar="M",
                   help="largest tolerated loss, in reward units (0.02) or relative to the baseline's mean (2%%)")
    p.add_argument("--lower-is-better", action="store_true",
                   help="the reward is a cost (error, regret): lower is better")
    p.add_argument("--inconclusive", choices=["inconclusive", "pass", "fail"], default="inconclusive",
                   help="map INCONCLUSIVE to exit 0 (pass) or 1 (fail) for a binary gate (default: exit 3)")
    p.add_argument("--bounds", choices=["auto", "t", "betting"], default="auto",
                   help="auto (default): distribution-free bounds when rewards are bounded (0/1, or "
                        "--reward-range), otherwise skew-checked t + bootstrap-t (no verdict below 6 seeds or "
                        "against the sample's or the arms' skewness); t: Student-t bounds, on bounded rewards too and without "
                        "the skew check (more power, no guarantee against a rare loss or a skewed tail); "
                        "betting: require a reward range")
    if with_range:  # verbs that read results files have it among their shared options already
        p.add_argument("--reward-range", type=reward_range, metavar="LO,HI",
                       help="every reward lies in [LO, HI] (e.g. 0,1 for accuracy): enables distribution-free bounds")


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_results_args(p)
    add_cache_arg(p)
    p.add_argument("--baseline", required=True, metavar="ARM", help="the arm the candidate must not fall behind")
    p.add_argument("--candidate", required=True, metavar="ARM", help="the arm under test (e.g. the pull request's)")
    add_gate_arguments(p, with_range=False)
    p.add_argument("--against", metavar="FILE", help="take the baseline arm's runs from this stored results file")
    p.add_argument("--json", action="store_true", dest="as_json",
                   help="print the verdict and each group's interval as JSON")
    p.add_argument("--max-loss", type=finite("--max-loss", nonneg=True), metavar="L",
                   help="FAIL when the candidate loses more than L on any one seed (the typical-seed claim's blind "
                        "spot is a rare large loss; the worst seed's loss is always printed)")
    add_history_arguments(p)


def run(*, results, fixed, workloads, budgets, tolerance, keep_last, allow_early_stop, alpha, metric, start,
        claim=None, questions=None, confounds,
        baseline, candidate, margin, lower_is_better, inconclusive, against, as_json,
        bounds="auto", reward_range=None, no_cache=False, history=None, commit=None, branch=None, reference=None,
        reference_commit=None, reference_arm=None, reference_label=None, drift_horizon=None, max_loss=None) -> int:
    from ..analysis.gating.gate import overall, run_gate  # start-up: only when the verb runs
    from ..core.records import read_records
    from .results import results_options  # start-up: only when the verb runs

    if margin is None:
        raise InputError("check: --margin M is required (the largest tolerated loss, e.g. 0.02 or 2%)")
    if baseline == candidate:
        raise InputError(f"check: --baseline and --candidate are both {baseline!r}; name two different arms")
    check_results_files(results + ([against] if against else []))
    pinned = resolve_reference(history, reference, reference_commit, reference_arm, reference_label, drift_horizon)
    if against:
        records = read_records(results, keep_last=keep_last)
        stored = [r for r in read_records(against) if r.arm == baseline]
        if not stored:
            raise InputError(f"{against}: no runs of baseline arm {baseline!r}")
        records = [r for r in records if r.arm != baseline] + stored
        records = select_records(records, workloads, budgets)
    else:   # columns: a million runs without a Python object per run
        from ..analysis.tables.table import RunTable  # start-up: only when the verb runs
        records = RunTable.read(results, keep_last=keep_last, cache=not no_cache)
        if len(records) == 0:
            raise InputError(f"{', '.join(results)}: no runs in the results; nothing to check")
    try:   # every results option reaches the comparison the gate reads, as in compare and report
        options = results_options(tolerance=tolerance, alpha=alpha, allow_early_stop=allow_early_stop,
                                  metric=metric, start=start, workloads=workloads, budgets=budgets,
                                  confounds=confounds, reward_range=reward_range, questions=questions)
    except ValueError as exc:
        raise InputError(f"check: {exc}") from None

    def gate(anytime: bool | int = False):
        try:
            return run_gate(records, fixed, baseline, candidate, margin, lower_is_better=lower_is_better,
                            bounds=bounds, anytime=anytime, options=options, claim=claim or "mean",
                            max_loss=max_loss, shapes=_history_shapes(history, baseline, candidate, claim or "mean",
                                                                  commit, branch))
        except ValueError as exc:
            raise InputError(f"check: {exc}") from None

    outcome, comparison = gate()
    for warning in comparison.warnings:
        print(f"costmatch: warning: {warning}", file=sys.stderr)
    outcome = with_looks(results, outcome, baseline, candidate, lambda looks: gate(anytime=looks)[0])
    verdict = overall(outcome)
    recorded = None
    if history:
        recorded = _record(history, pinned, results=results, outcome=outcome, comparison=comparison,
                           baseline=baseline, candidate=candidate, fixed=fixed, margin=margin,
                           lower_is_better=lower_is_better, bounds=bounds, options=options,
                           records=records if isinstance(records, list) else None, commit=commit, branch=branch,
                           claim=claim or "mean")
    print_gate(outcome, verdict, baseline=baseline, candidate=candidate, fixed=fixed, as_json=as_json,
               skipped=comparison.skipped, history=recorded)
    if not as_json and recorded is not None:
        print_history(recorded, verdict, history)
    return gate_exit(verdict, inconclusive, drifted=recorded is not None and recorded.drifted)


def _history_shapes(history: str | None, baseline: str, candidate: str, claim: str, commit: str | None,
                    branch: str | None) -> dict | None:
    """`--history`: the shape of each group's differences its earlier commits recorded (issue 40, contract 6.40.a)."""
    if not history:
        return None
    from ..analysis.history.recording import history_shapes  # start-up: only with --history
    from ..core.git_commit import commit_info

    info = commit_info(commit, branch)
    return history_shapes(history, baseline, candidate, claim, commit=info.commit if info else None)


def _record(history: str, pinned, **gated):
    """`--history`: the lines this check appends (contract 6.40), with drift when a reference is pinned."""
    from ..analysis.history.checking import check_history  # start-up: only with --history

    recorded = check_history(history, reference=pinned, **gated)
    for warning in recorded.warnings:
        print(f"costmatch: warning: {warning}", file=sys.stderr)
    return recorded


def with_looks(results, outcome: list, baseline: str, candidate: str, rerun) -> list:
    """Gate results after the looks ledger: groups looked at before with fewer seeds are re-gated (`rerun(j)`,
    j the most earlier looks of any group: anytime-valid bounds on bounded rewards, alpha / (j (j + 1)) on
    unbounded ones) and say so; this look is recorded (see `baselines.analysis.gating.looks`)."""
    import sys

    from ..analysis.gating.looks import earlier_looks, group_key, ledger_path, looks_note, read_ledger, record_looks
    from ..core.records import budget_key

    path = ledger_path(results)
    ledger = read_ledger(path)
    keys = [group_key(r.workload, r.budget, baseline, candidate) for r in outcome]
    earlier = [earlier_looks(ledger, k, r.n) for k, r in zip(keys, outcome)]
    if any(earlier):
        again = {(r.workload, budget_key(r.budget)): r for r in rerun(max(len(s) for s in earlier))}
        for i, seen in enumerate(earlier):
            if seen:
                result = again.get((outcome[i].workload, budget_key(outcome[i].budget)), outcome[i])
                note = looks_note(seen, path)
                result.notes.append(note)
                result.earlier_looks = list(seen)
                result.reason += f"; {note}"
                outcome[i] = result
    warning = record_looks(path, ledger, [(k, r.n, r.verdict) for k, r in zip(keys, outcome) if r.n >= 2])
    if warning:
        print(f"costmatch: warning: {warning}", file=sys.stderr)
    return outcome


def select_records(records, workloads, budgets):
    """The runs of the groups chosen by --workload and --budget (all runs without filters)."""
    if workloads:
        records = [r for r in records if r.workload in workloads]
    for unit, value in budgets or ():
        records = [r for r in records if r.budget.get(unit) == value]
    if not records:
        raise InputError("check: no runs match the --workload/--budget filters")
    return records
