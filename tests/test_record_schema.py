"""Every field costmatch writes is in the record schema, with its meaning and unit (issue 43).

Why: the contract described record fields in twelve subsections and missed
seven that the tool writes (`workload_params` on every demo record,
`parallel_seconds`, `source`, ...), because nothing failed when a writer
grew a field. baselines/data/record.schema.json is the one definition; this
test writes what the tool writes (a small demo run, a replay run, one import
of each format) and validates every record against it with unknown fields
refused. The failure names the field, where it came from, and where in the
schema to add it.
"""
from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from baselines.cli.doc_blocks import REGENERATE
from baselines.cli.options import BUILTIN_SUITES, DEFAULT_SUITE
from baselines.cli.reference_schema import SCHEMA_FILE, load_schema
from baselines.importers import IMPORTERS, import_records

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data"

#: The shipped suites made small: every arm and workload, one seed, budgets a tenth of a second of CPU.
SMALL = {
    "demo": (DEFAULT_SUITE, {"seeds = 10": "seeds = 1", "seeds = 5": "seeds = 1", "tokens = 1500000": "tokens = 60000",
                             "rollouts = 80": "rollouts = 6", "calls = 500": "calls = 30"}),
    "replay": (BUILTIN_SUITES / "replay-aime2025.toml",
               {"seeds = 10": "seeds = 1", "calls = 30": "calls = 5", "2761680": "40000", "2314440": "30000"}),
}


def _run_small(name: str, folder: Path) -> list[dict]:
    from baselines.running.runner import run_suite
    from baselines.running.suite import load_suite

    source, edits = SMALL[name]
    text = source.read_text(encoding="utf-8")
    for old, new in edits.items():
        assert old in text, f"{source} no longer has {old!r}: update SMALL in {__file__}"
        text = text.replace(old, new)
    suite = folder / f"{name}.toml"
    suite.write_text(text, encoding="utf-8")
    outcome = run_suite(load_suite(suite), folder / name, jobs=1, backend="sequential")
    assert all(r.error is None for r in outcome.records), [r.error for r in outcome.records if r.error]
    return [json.loads(line) for line in (folder / name / "results.jsonl").read_text(encoding="utf-8").splitlines()]


def _failed_cells(folder: Path) -> list[dict]:
    """The record of a cell whose arm raised: `error` as an object, no reward (the Python API's writer)."""
    from baselines import Budget, run

    records = run("tests.helpers:Toy", arms={"crash": "tests.helpers:Crash", "guess": "tests.helpers:Guess"},
                  budget=Budget(rollouts=3), seeds=1, backend="sequential", out=str(folder / "api"), plots=False)
    assert any(r.error is not None for r in records)
    return [json.loads(line) for line in (folder / "api" / "results.jsonl").read_text(encoding="utf-8").splitlines()]


def _imports(folder: Path) -> dict[str, list[dict]]:
    csv = folder / "runs.csv"
    csv.write_text("policy,s,acc,tok,budget_tok,problem\na,1,0.5,100,100,p1\nb,1,0.7,,100,p1\n", encoding="utf-8")
    inputs = {
        "agentdescent": [[path] for path in sorted((DATA / "agentdescent").glob("*.json"))],
        "csv": [[csv]],
        "inspect": [[DATA / "inspect" / "arith.eval"]],
        "lm-eval": [[DATA / "lm_eval" / "output"]],
        "promptfoo": [[DATA / "promptfoo" / "results.json"]],
    }
    assert set(inputs) == set(IMPORTERS), f"add an input of each new import format to {__file__}"
    options = {"csv": {"mapping": "arm=policy,seed=s,reward=acc,tokens=tok,budget.tokens=budget_tok,instance=problem"}}
    return {fmt: [r.to_json() for files in groups for r in import_records(fmt, files, **options.get(fmt, {}))]
            for fmt, groups in inputs.items()}


@pytest.fixture(scope="module")
def written(tmp_path_factory) -> dict[str, list[dict]]:
    """source -> the records it wrote, made once for this module (about 1 s of CPU)."""
    folder = tmp_path_factory.mktemp("schema")
    return {"costmatch run (demo suite)": _run_small("demo", folder),
            "costmatch run (replay-aime2025)": _run_small("replay", folder),
            "run() with an arm that raises": _failed_cells(folder), **{
                f"costmatch import {fmt}": records for fmt, records in _imports(folder).items()}}


def problems(records: list[dict], source: str, schema: dict) -> list[str]:
    """One line per distinct schema violation: the field, the source and a record's identity, and the fix."""
    validator = jsonschema.Draft202012Validator(schema)
    found: dict[str, str] = {}
    for record in records:
        who = f"{source}, workload {record.get('workload')!r} arm {record.get('arm')!r} seed {record.get('seed')!r}"
        for error in validator.iter_errors(record):
            place = "/".join(str(p) for p in error.absolute_path)
            if error.validator == "additionalProperties":
                known = set(error.schema.get("properties", {}))
                where = "/".join(str(p) for p in error.schema_path)[:-len("/additionalProperties")] or "the top level"
                for name in sorted(set(error.instance) - known):
                    field = f"{place}.{name}" if place else name
                    found.setdefault(field, (
                        f"record field {field!r} is written ({who}: {json.dumps(error.instance[name])[:80]}) but is "
                        f"not in {SCHEMA_FILE.relative_to(ROOT)}: add it under \"properties\" of {where} (type, "
                        f"meaning, unit), then run `{REGENERATE}` so docs/contract.md's field table lists it"))
            else:
                found.setdefault(f"{place}:{error.message}", (
                    f"record field {place or '(the record)'!r} ({who}) breaks the schema: {error.message[:200]}; "
                    f"fix the writer or the field's definition in {SCHEMA_FILE.relative_to(ROOT)}"))
    return list(found.values())


def test_the_schema_is_a_valid_json_schema_that_refuses_unknown_fields():
    schema = load_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["additionalProperties"] is False
    assert all(node.get("description") for node in schema["properties"].values() if "$ref" not in node)


@pytest.mark.parametrize("source", ["costmatch run (demo suite)", "costmatch run (replay-aime2025)",
                                    "run() with an arm that raises",
                                    *(f"costmatch import {fmt}" for fmt in sorted(IMPORTERS))])
def test_every_record_the_tool_writes_fits_the_schema(written, source):
    records = written[source]
    assert records, f"{source} wrote no records"
    found = problems(records, source, load_schema())
    assert not found, "\n".join(found)


def test_the_issue_s_fields_are_defined(written):
    """The fields issue 43 found undescribed are written and defined."""
    keys = {key for records in written.values() for record in records for key in record}
    for field in ("workload_params", "parallel_seconds", "oracle_reward", "source", "dev_reward", "params", "tests"):
        assert field in keys and field in load_schema()["properties"], field


def test_a_field_written_but_not_in_the_schema_fails_naming_it_and_where_to_add_it(written):
    schema = load_schema()
    del schema["properties"]["workload_params"]
    del schema["properties"]["provenance"]["properties"]["backend"]
    found = problems(written["costmatch run (demo suite)"], "costmatch run (demo suite)", schema)
    assert len(found) == 2, found
    assert found[0].startswith("record field 'workload_params' is written (costmatch run (demo suite), workload ")
    assert 'add it under "properties" of the top level' in found[0] and REGENERATE in found[0]
    assert found[1].startswith("record field 'provenance.backend' is written")
    assert 'add it under "properties" of properties/provenance' in found[1]
