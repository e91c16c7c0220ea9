"""Writes the fuzz corpus kept beside this script (run it again after changing a case).

Each file is one hostile (or borderline but valid) input. The name says what
is expected: ``ok-*`` must be accepted (exit 0, 1 or 3 by the verb's rules),
``bad-*`` must be refused with exit 2 and one line, ``any-*`` may go either
way but never with a traceback. `tests/test_fuzz.py` runs every case through
every verb that reads that kind of input.

    python3 tests/fuzz_corpus/make_corpus.py
"""
from __future__ import annotations

import gzip
import io
import json
import shutil
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


def base_lines(arms=("a", "b", "c"), seeds=5, budget=None, workload="w") -> list[dict]:
    out = []
    for i, arm in enumerate(arms):
        for s in range(seeds):
            out.append({"workload": workload, "arm": arm, "seed": s, "budget": budget or {"tokens": 1000},
                        "spend": {"tokens": 1000, "calls": 10 + i}, "reward": 0.5 + 0.05 * i + 0.01 * s})
    return out


def dumps(obj) -> str:
    return json.dumps(obj, ensure_ascii=False)


def with_line(replacement: str, at: int = 2) -> bytes:
    lines = [dumps(o) for o in base_lines()]
    lines[at] = replacement
    return ("\n".join(lines) + "\n").encode("utf-8", "surrogatepass")


def with_obj(**changes) -> bytes:
    obj = dict(base_lines()[2])
    for key, value in changes.items():
        if value is _DROP:
            obj.pop(key, None)
        else:
            obj[key] = value
    return with_line(dumps(obj))


_DROP = object()
GOOD = dumps(base_lines()[2])


def record_cases() -> dict[str, bytes]:
    c: dict[str, bytes] = {}
    lines = [dumps(o) for o in base_lines()]
    c["ok-base"] = ("\n".join(lines) + "\n").encode()
    c["ok-no-final-newline"] = "\n".join(lines).encode()
    c["ok-crlf"] = ("\r\n".join(lines) + "\r\n").encode()
    c["ok-blank-and-space-lines"] = ("\n\n   \n\t\n".join(lines) + "\n\n").encode()
    c["ok-unknown-fields"] = with_obj(future={"x": [1, {"y": None}]}, note="hi")
    # a key twice in one object: every parser keeps the last, so both readers refuse it (issue 31)
    c["bad-duplicate-json-key"] = with_line(GOOD[:-1] + ', "reward": 0.9}')
    c["bad-duplicate-json-key-nested"] = with_line(GOOD.replace('"tokens": 1000,', '"tokens": 1000, "tokens": 1,', 1))
    c["bad-duplicate-json-key-escaped"] = with_line(GOOD.replace('"arm": "a"', '"arm": "a", "\\u0061rm": "b"', 1))
    c["bad-duplicate-json-key-same-value"] = with_line(GOOD[:-1] + ', "seed": 2}')
    # names are capped at 200 characters (issue 31)
    c["bad-arm-name-201"] = with_obj(arm="x" * 201)
    c["bad-workload-name-1mb"] = with_obj(workload="w" * 1_000_000)
    c["ok-arm-name-200"] = ("\n".join(dumps(o | {"arm": o["arm"] * 200}) for o in base_lines()) + "\n").encode()
    c["ok-error-object"] = with_obj(error={"type": "ValueError", "message": "boom"}, reward=None)
    c["ok-null-reward"] = with_obj(reward=None)
    c["ok-budget-null-unit"] = ("\n".join(dumps(o | {"budget": {"tokens": 1000, "rollouts": None}})
                                          for o in base_lines()) + "\n").encode()
    c["ok-budget-null"] = ("\n".join(dumps(o | {"budget": None}) for o in base_lines()) + "\n").encode()
    c["ok-seed-min-int64"] = with_obj(seed=-2**63)
    c["ok-seed-max-int64"] = with_obj(seed=2**63 - 1)
    c["ok-reward-1e100"] = with_obj(reward=1e100)
    c["ok-reward-negative-1e100"] = with_obj(reward=-1e100)
    c["ok-spend-1e15"] = with_obj(spend={"tokens": 10**15})
    c["ok-tiny-floats"] = with_obj(reward=5e-324, spend={"tokens": 1000, "usd": 1e-300})
    c["ok-paired-surrogate-escape"] = with_line(GOOD.replace('"arm": "a"', '"arm": "\\ud83d\\ude00"'))
    c["ok-emoji-arm"] = with_obj(arm="\U0001F600")
    c["ok-nested-60"] = with_obj(params={"x": json.loads("[" * 58 + "]" * 58)})
    c["bad-long-arm-name"] = with_obj(arm="x" * 10_000)  # over the 200-character cap (issue 31)
    c["ok-arm-with-dollar-math"] = with_obj(arm="$\\frac{$")
    c["ok-arm-formula"] = with_obj(arm="=cmd|' /C calc'!A0")
    c["ok-arm-underscore"] = with_obj(arm="_hidden")
    c["ok-arm-newline"] = with_obj(arm="two\nlines")
    c["ok-arm-control-chars"] = with_obj(arm="bell\x07\x1b[31m")
    c["ok-arm-nul-escape"] = with_obj(arm="nul\u0000x")
    c["ok-arm-slash-dots"] = with_obj(arm="../../../OUTSIDE")
    c["ok-workload-slash"] = ("\n".join(dumps(o | {"workload": "../x/y"}) for o in base_lines()) + "\n").encode()
    c["ok-trace"] = with_obj(trace=[{"spend": {"tokens": 10}, "best": 0.1}, {"spend": {"tokens": 900}, "best": 0.6}])
    c["ok-trace-null-spend-unit"] = with_obj(trace=[{"spend": {"tokens": None}, "best": 0.1}])
    c["ok-trace-reward-null"] = with_obj(trace=[{"spend": {"tokens": 5}, "best": 0.1, "reward": None}])
    c["ok-partial"] = with_obj(partial=["tokens"])
    c["ok-partial-null"] = with_obj(partial=None)
    c["ok-prompt-completion-only"] = with_obj(spend={"prompt_tokens": 600, "completion_tokens": 400})
    c["ok-many-budgets"] = ("\n".join(dumps(o | {"budget": {"tokens": 1_500_000 + (o["seed"] % 2)}})
                                      for o in base_lines(seeds=6)) + "\n").encode()
    c["ok-float-budgets"] = ("\n".join(dumps(o | {"budget": {"usd": 0.1 + 0.2}}) for o in base_lines()) + "\n"
                             + "\n".join(dumps(o | {"budget": {"usd": 0.3}, "arm": o["arm"] + "2"})
                                         for o in base_lines()) + "\n").encode()
    c["ok-one-arm"] = ("\n".join(dumps(o) for o in base_lines(arms=("a",))) + "\n").encode()
    c["ok-one-seed"] = ("\n".join(dumps(o) for o in base_lines(seeds=1)) + "\n").encode()
    c["ok-schema-explicit"] = with_obj(schema="costmatch.run/1")
    c["ok-utf8-bom-free-unicode"] = with_obj(workload="w", arm="ü-ß-中")
    c["ok-zero-spend"] = ("\n".join(dumps(o | {"spend": {"tokens": 0}}) for o in base_lines()) + "\n").encode()
    c["ok-all-null-rewards"] = ("\n".join(dumps(o | {"reward": None}) for o in base_lines()) + "\n").encode()

    c["bad-empty-file"] = b""
    c["bad-only-blank-lines"] = b"\n\n  \n"
    c["bad-truncated-line"] = with_line(GOOD[:-7])
    c["bad-trailing-comma"] = with_line(GOOD[:-1] + ",}")
    c["bad-single-quotes"] = with_line(GOOD.replace('"', "'"))
    c["bad-nan-literal"] = with_line(GOOD.replace('"reward": 0.52', '"reward": NaN'))
    c["bad-infinity-literal"] = with_line(GOOD.replace('"tokens": 1000', '"tokens": Infinity', 1))
    c["bad-comment"] = with_line("// a comment")
    c["bad-array-line"] = with_line("[1, 2, 3]")
    c["bad-string-line"] = with_line('"just a string"')
    c["bad-number-line"] = with_line("42")
    c["bad-null-line"] = with_line("null")
    c["bad-empty-object"] = with_line("{}")
    c["bad-bom"] = b"\xef\xbb\xbf" + with_line(GOOD)
    c["bad-bare-cr"] = ("\r".join(lines) + "\n").encode()
    c["bad-nested-100000"] = with_line(GOOD[:-1] + ', "params": {"x": ' + "[" * 99_998 + "]" * 99_998 + "}}")
    c["bad-nested-100000-unclosed"] = with_line(GOOD[:-1] + ', "params": ' + "[" * 100_000)
    c["bad-nested-objects-5000"] = with_line(GOOD[:-1] + ', "p": ' + '{"a":' * 5000 + "1" + "}" * 5000 + "}")
    c["bad-nested-65"] = with_obj(params={"x": json.loads("[" * 63 + "]" * 63)})
    c["bad-brackets-hidden-in-strings"] = with_line(GOOD[:-1] + ', "s": "' + "]" * 2000 + '", "p": '
                                                    + "[" * 3000 + "]" * 3000 + "}")
    c["bad-latin1-arm"] = with_line(GOOD).replace(b'"arm": "a"', b'"arm": "caf\xe9"')
    c["bad-latin1-key"] = with_line(GOOD).replace(b'"reward"', b'"r\xe9ward"')
    c["bad-invalid-continuation"] = with_line(GOOD).replace(b'"arm": "a"', b'"arm": "\xc3\x28"')
    c["bad-overlong-utf8"] = with_line(GOOD).replace(b'"arm": "a"', b'"arm": "\xc0\xaf"')
    c["bad-utf16"] = ("\n".join(lines) + "\n").encode("utf-16")
    c["bad-nul-byte"] = with_line(GOOD).replace(b'"arm": "a"', b'"arm": "c\x00"')
    c["bad-lone-high-surrogate"] = with_line(GOOD.replace('"arm": "a"', '"arm": "\\ud800"'))
    c["bad-lone-low-surrogate"] = with_line(GOOD.replace('"arm": "a"', '"arm": "x\\udfffy"'))
    c["bad-surrogate-in-key"] = with_line(GOOD[:-1] + ', "\\udc00": 1}')
    c["bad-surrogate-in-params"] = with_obj(params={"k": "placeholder"}).replace(b"placeholder", b"\\ud834")
    c["bad-seed-2-63"] = with_obj(seed=2**63)
    c["bad-seed-minus-2-63-minus-1"] = with_obj(seed=-2**63 - 1)
    c["bad-seed-400-digits"] = with_line(GOOD.replace('"seed": 2', '"seed": ' + "9" * 400))
    c["bad-seed-5000-digits"] = with_line(GOOD.replace('"seed": 2', '"seed": ' + "9" * 5000))
    c["bad-seed-float"] = with_obj(seed=2.0)
    c["bad-seed-string"] = with_obj(seed="2")
    c["bad-seed-bool"] = with_obj(seed=True)
    c["bad-seed-null"] = with_obj(seed=None)
    c["bad-seed-missing"] = with_obj(seed=_DROP)
    c["bad-reward-string"] = with_obj(reward="0.5")
    c["bad-reward-bool"] = with_obj(reward=False)
    c["bad-reward-list"] = with_obj(reward=[0.5])
    c["bad-reward-1e400"] = with_line(GOOD.replace('"reward": 0.52', '"reward": 1e400'))
    c["bad-reward-1-7e308"] = with_obj(reward=1.7e308)
    c["bad-reward-400-digits"] = with_line(GOOD.replace('"reward": 0.52', '"reward": ' + "9" * 400))
    c["bad-reward-missing"] = with_obj(reward=_DROP)
    c["bad-dev-reward-string"] = with_obj(dev_reward="x")
    c["bad-spend-not-object"] = with_obj(spend=[1000])
    c["bad-spend-missing"] = with_obj(spend=_DROP)
    c["bad-spend-null"] = with_obj(spend=None)
    c["bad-spend-negative"] = with_obj(spend={"tokens": -1})
    c["bad-spend-string"] = with_obj(spend={"tokens": "1000"})
    c["bad-spend-nested"] = with_obj(spend={"tokens": {"n": 1}})
    c["bad-spend-1-7e308"] = with_obj(spend={"tokens": 1.7e308})
    c["bad-spend-1e16"] = with_obj(spend={"tokens": 1e16})
    c["bad-spend-empty-unit"] = with_obj(spend={"": 5, "tokens": 1000})
    c["bad-spend-bool"] = with_obj(spend={"tokens": True})
    c["bad-budget-list"] = with_obj(budget=[1000])
    c["bad-budget-number"] = with_obj(budget=1000)
    c["bad-budget-negative"] = with_obj(budget={"tokens": -1000})
    c["bad-budget-string"] = with_obj(budget={"tokens": "1000"})
    c["bad-budget-huge"] = with_obj(budget={"tokens": 10**20})
    c["bad-budget-empty-unit"] = with_obj(budget={"": 5})
    c["bad-params-list"] = with_obj(params=[1])
    c["bad-params-string"] = with_obj(params="p")
    c["bad-partial-string"] = with_obj(partial="tokens")
    c["bad-partial-null-entry"] = with_obj(partial=["tokens", None])
    c["bad-partial-number"] = with_obj(partial=[3])
    c["bad-trace-not-list"] = with_obj(trace={"spend": {}})
    c["bad-trace-point-without-spend"] = with_obj(trace=[{"best": 0.1}])
    c["bad-trace-spend-null"] = with_obj(trace=[{"spend": None, "best": 0.1}])
    c["bad-trace-best-string"] = with_obj(trace=[{"spend": {"tokens": 1}, "best": "x"}])
    c["bad-trace-point-number"] = with_obj(trace=[3])
    c["bad-trace-negative-spend"] = with_obj(trace=[{"spend": {"tokens": -1}, "best": 0.1}])
    c["bad-stop-reason-number"] = with_obj(stop_reason=3)
    c["bad-schema-other"] = with_obj(schema="costmatch.run/9")
    c["bad-schema-number"] = with_obj(schema=1)
    c["bad-workload-empty"] = with_obj(workload="")
    c["bad-workload-number"] = with_obj(workload=3)
    c["bad-arm-empty"] = with_obj(arm="")
    c["bad-arm-null"] = with_obj(arm=None)
    c["bad-arm-missing"] = with_obj(arm=_DROP)
    c["bad-duplicate-run"] = ("\n".join(lines + [lines[0]]) + "\n").encode()
    c["bad-binary-garbage"] = bytes(range(256)) * 4
    c["bad-error-then-garbage"] = with_line(GOOD) + b"\x00\xff\xfe garbage"
    # issue 41: other formats, and a cut last line (readers refuse it; a resumed run sets it aside as bytes)
    whole = ("\n".join(lines) + "\n").encode()
    c["bad-gzip-header"] = gzip.compress(b"")[:15]
    c["bad-gzip-of-results"] = gzip.compress(whole, mtime=0)
    c["bad-zip-of-results"] = _zipped(whole)
    c["bad-parquet-magic"] = b"PAR1" + whole
    c["bad-lines-then-binary-tail"] = whole + b"\x1f\x8b\x08\x00\x00\x00"
    c["bad-cut-last-line"] = whole + lines[0][: len(lines[0]) // 2].encode()
    c["bad-cut-inside-a-character"] = whole + (lines[0][:-3] + ', "n": "\u00e9').encode()[:-1]
    return c


def _zipped(data: bytes) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr(zipfile.ZipInfo("results.jsonl", (2026, 1, 1, 0, 0, 0)), data)
    return buffer.getvalue()


SUITE = """seeds = 2
backend = "sequential"
{top}
[arms.guess]
path = "tests.helpers:Guess"
{arm}
[arms.once]
path = "tests.helpers:Once"

[[workloads]]
name = "toy"
path = "tests.helpers:Toy"
fixed = "rollouts"
budget = {{ rollouts = 4 }}
arms = ["guess", "once"]
{workload}
"""


def suite_cases() -> dict[str, bytes]:
    c: dict[str, bytes] = {}

    def s(name, top="", arm="", workload="", replace=None):
        text = SUITE.format(top=top, arm=arm, workload=workload)
        for old, new in (replace or {}).items():
            assert old in text, old
            text = text.replace(old, new)
        c[name] = text.encode("utf-8", "surrogatepass")

    s("ok-base")
    s("ok-seeds-list", top="", workload="seeds = [3, 7, 9]")
    s("ok-tolerance-zero", top="tolerance = 0")
    s("ok-params", arm="params = { spin = 0, sleep = 0.0 }")
    s("ok-timeout", top="timeout = 30")
    s("ok-budgets-list", replace={"budget = { rollouts = 4 }": "budgets = [{ rollouts = 4 }, { rollouts = 5 }]"})
    s("ok-unicode-names", replace={"[arms.guess]": '[arms."gü€ss"]', '"guess", "once"': '"gü€ss", "once"'})
    s("ok-workload-name-slash", replace={'name = "toy"': 'name = "../toy"'})
    s("bad-tolerance-negative", top="tolerance = -1")
    s("bad-tolerance-nan", top="tolerance = nan")
    s("bad-tolerance-inf", top="tolerance = inf")
    s("bad-tolerance-string", top='tolerance = "abc"')
    s("bad-tolerance-bool", top="tolerance = true")
    s("bad-workload-tolerance", workload="tolerance = -0.5")
    s("bad-seeds-1e9", top="", workload="seeds = 1000000000")
    s("bad-seeds-zero", workload="seeds = 0")
    s("bad-seeds-negative-list", workload="seeds = [-1, 2]")
    s("bad-seeds-float", workload="seeds = 2.5")
    s("bad-seeds-string", workload='seeds = "5"')
    s("bad-seeds-bool", workload="seeds = true")
    s("bad-seeds-empty-list", workload="seeds = []")
    s("bad-seeds-dup", workload="seeds = [1, 1]")
    s("bad-jobs-zero", top="jobs = 0")
    s("bad-jobs-string", top='jobs = "2"')
    s("bad-timeout-zero", top="timeout = 0")
    s("bad-timeout-huge", top="timeout = 1e300")
    s("bad-timeout-nan", top="timeout = nan")
    s("bad-backend-unknown", replace={'backend = "sequential"': 'backend = "fork"'})
    s("bad-backend-list", replace={'backend = "sequential"': "backend = []"})
    s("bad-out-empty", top='out = ""')
    s("bad-out-number", top="out = 3")
    s("bad-name-number", top="name = 3")
    s("bad-unknown-top-key", top="colour = 'red'")
    s("bad-unknown-arm-key", arm="colour = 'red'")
    s("bad-unknown-workload-key", workload="colour = 'red'")
    s("bad-arm-name-empty", replace={"[arms.guess]": '[arms.""]', '"guess", "once"': '"", "once"'})
    s("bad-arm-name-newline", replace={"[arms.guess]": '[arms."a\\nb"]', '"guess", "once"': '"a\\nb", "once"'})
    s("bad-arm-name-long", replace={"[arms.guess]": f'[arms.{"g" * 300}]', '"guess", "once"': f'"{"g" * 300}", "once"'})
    s("bad-workload-name-empty", replace={'name = "toy"': 'name = ""'})
    s("bad-workload-name-control", replace={'name = "toy"': 'name = "t\\u0007oy"'})
    s("bad-arms-empty", replace={'arms = ["guess", "once"]': "arms = []"})
    s("bad-arms-unknown", replace={'arms = ["guess", "once"]': 'arms = ["guess", "nope"]'})
    s("bad-arms-number", replace={'arms = ["guess", "once"]': "arms = [1]"})
    s("bad-arms-twice", replace={'arms = ["guess", "once"]': 'arms = ["guess", "guess"]'})
    s("bad-path-no-colon", replace={'path = "tests.helpers:Guess"': 'path = "tests.helpers"'})
    s("bad-path-two-colons", replace={'path = "tests.helpers:Guess"': 'path = "a:b:c"'})
    s("bad-path-number", replace={'path = "tests.helpers:Guess"': "path = 3"})
    s("bad-path-missing-module", replace={'path = "tests.helpers:Guess"': 'path = "no_such_mod_xyz:Guess"'})
    s("bad-path-missing-attr", replace={'path = "tests.helpers:Guess"': 'path = "tests.helpers:Nope"'})
    s("bad-path-not-a-class", replace={'path = "tests.helpers:Guess"': 'path = "tests.helpers:os"'})
    s("bad-path-module-not-arm", replace={'path = "tests.helpers:Guess"': 'path = "tests.helpers:Toy"'})
    s("bad-incompatible-pair", replace={'path = "tests.helpers:Guess"': 'path = "arms.selection:Greedy"',
                                        'path = "tests.helpers:Toy"': 'path = "workloads.bbob:BBOB"',
                                        'fixed = "rollouts"': 'fixed = "calls"',
                                        "budget = { rollouts = 4 }": "budget = { calls = 20 }"})
    s("bad-params-wrong-name", arm="params = { nope = 1 }")
    s("bad-params-date", arm="params = { when = 1979-05-27T07:32:00Z }")
    s("bad-params-nan", arm="params = { sleep = nan }")
    s("bad-params-not-table", arm="params = 3")
    s("bad-budget-and-budgets", workload="budgets = [{ rollouts = 4 }]")
    s("bad-budgets-empty", replace={"budget = { rollouts = 4 }": "budgets = []"})
    s("bad-budget-negative", replace={"budget = { rollouts = 4 }": "budget = { rollouts = -4 }"})
    s("bad-budget-huge", replace={"budget = { rollouts = 4 }": "budget = { rollouts = 1e300 }"})
    s("bad-budget-nan", replace={"budget = { rollouts = 4 }": "budget = { rollouts = nan }"})
    s("bad-budget-string", replace={"budget = { rollouts = 4 }": 'budget = { rollouts = "4" }'})
    s("bad-budget-empty-table", replace={"budget = { rollouts = 4 }": "budget = {}"})
    s("bad-budget-unmeasured-unit", replace={"budget = { rollouts = 4 }": "budget = { rollouts = 4, widgets = 3 }"})
    s("bad-fixed-not-in-budget", replace={'fixed = "rollouts"': 'fixed = "calls"'})
    s("bad-fixed-number", replace={'fixed = "rollouts"': "fixed = 3"})
    s("bad-workload-twice", workload='\n[[workloads]]\nname = "toy"\npath = "tests.helpers:Toy"\nfixed = "rollouts"\n'
                                     'budget = { rollouts = 4 }\narms = ["guess"]\n')
    # checked as deeply as run uses them (issue 31)
    s("bad-path-not-an-arm-class", replace={'path = "tests.helpers:Guess"': 'path = "threading:Thread"'})
    s("bad-path-base-class", replace={'path = "tests.helpers:Guess"': 'path = "arms.selection:SelectionPolicy"'})
    s("bad-params-string-for-float", arm='params = { sleep = "0.5" }')
    s("bad-params-bool-for-int", arm="params = { spin = true }")
    s("ok-params-int-for-float", arm="params = { sleep = 0 }")
    s("bad-workload-name-shared-other-params",
      workload='\n[[workloads]]\nname = "toy"\npath = "tests.helpers:Toy"\nfixed = "rollouts"\n'
               'budget = { rollouts = 5 }\narms = ["guess"]\nparams = { work = 1 }\n')
    s("ok-workload-name-shared-same-params",
      workload='\n[[workloads]]\nname = "toy"\npath = "tests.helpers:Toy"\nfixed = "rollouts"\n'
               'budget = { rollouts = 5 }\narms = ["guess"]\n')
    s("bad-toml-unclosed-array", replace={'arms = ["guess", "once"]': 'arms = ["guess", "once"'})
    s("bad-toml-unclosed-table", replace={"budget = { rollouts = 4 }": "budget = { rollouts = 4"})
    s("bad-toml-repeated-arm", arm='[arms.guess]\npath = "tests.helpers:Guess"')
    s("bad-toml-bare-value", top="= 3")
    c["bad-toml-deep"] = ("a = " + "[" * 100_000 + "]" * 100_000 + "\n").encode()
    c["bad-toml-deep-tables"] = ("a = " + "{b = " * 5000 + "1" + "}" * 5000 + "\n").encode()
    c["bad-non-utf8"] = SUITE.format(top="", arm="", workload="").encode().replace(b'name = "toy"', b'name = "t\xe9"')
    c["bad-utf16"] = SUITE.format(top="", arm="", workload="").encode("utf-16")
    c["bad-empty"] = b""
    c["bad-binary"] = bytes(range(256))
    c["bad-no-workloads"] = b'[arms.guess]\npath = "tests.helpers:Guess"\n'
    c["bad-no-arms"] = b'[[workloads]]\nname = "t"\npath = "tests.helpers:Toy"\nfixed = "rollouts"\nbudget = {rollouts=1}\narms=[]\n'
    c["bad-workloads-not-array"] = b'[arms.guess]\npath = "tests.helpers:Guess"\n[workloads]\nname = "t"\n'
    c["bad-arms-not-table"] = b'arms = 3\n'
    return c


USER_MODULES = {
    "bad-user-syntax-error": "class Arm:\n    def run(self, instance, meter, rng)\n        pass\n",
    "bad-user-import-raises": "raise RuntimeError('needs an API key')\n",
    "bad-user-import-missing-dependency": "import definitely_not_installed_pkg_xyz\n",
    "bad-user-init-raises": "class Arm:\n    def __init__(self):\n        raise KeyError('k')\n    def run(self, i, m, r):\n        return 0\n",
    "bad-user-no-run": "class Arm:\n    pass\n",
    "bad-user-run-not-callable": "class Arm:\n    run = 3\n",
    "ok-user-arm": "from tests.helpers import Guess as Arm\n",
}


def main() -> None:
    for kind, cases in (("records", record_cases()), ("suites", suite_cases())):
        same = [name for name, data in cases.items() if name != "ok-base" and data == cases["ok-base"]]
        assert not same, f"cases that change nothing: {same}"
        folder = HERE / kind
        if folder.exists():
            shutil.rmtree(folder)
        folder.mkdir(parents=True)
        suffix = ".jsonl" if kind == "records" else ".toml"
        for name, data in cases.items():
            (folder / f"{name}{suffix}").write_bytes(data)
    folder = HERE / "user_modules"
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir()
    for name, text in USER_MODULES.items():
        (folder / f"{name}.py").write_text(text)
    print(f"wrote {len(record_cases())} record cases, {len(suite_cases())} suite cases, "
          f"{len(USER_MODULES)} user modules to {HERE}")


if __name__ == "__main__":
    main()
