"""Real lm-evaluation-harness and promptfoo output, made offline by the tools themselves.

Why: the importers must read what the tools write, not what we think they
write. Both tools run here against models that need no network: lm-eval's
`local-chat-completions` model against `tests.fake_llm.FakeLLM` on
127.0.0.1 (two model names, one right on more questions than the other),
promptfoo with two Python script providers (`file://provider.py`). The slow tests
call these functions; `python -m tests.eval_tools DIR` regenerates the
shipped files (see tests/data/lm_eval/README.md and tests/data/promptfoo/README.md).

Where the tools come from: `LM_EVAL` (default: `lm_eval` on PATH) and
`PROMPTFOO` (default: `promptfoo` on PATH); `.ci/run` installs both into a
cache folder and sets them.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from tests.fake_llm import FakeLLM

#: (a, b) of the arithmetic questions: 20 of them, the same for every model.
QUESTIONS = [(a, b) for a, b in zip(range(3, 63, 3), range(41, 1, -2))]
#: per model, the questions it gets wrong (strong: 3 of 20; weak: 11 of 20, the strong model's 3 among them)
WRONG_WHEN = {"strong": lambda a, b: (a + b) % 9 == 0,
              "weak": lambda a, b: (a * b) % 7 in (1, 2, 3, 4) or (a + b) % 9 == 0}

TASK_YAML = """\
task: arith20
dataset_path: json
dataset_kwargs:
  data_files:
    test: {data}
test_split: test
output_type: generate_until
doc_to_text: "What is {{{{a}}}} + {{{{b}}}}? Answer with the number only."
doc_to_target: "{{{{answer}}}}"
generation_kwargs:
  until: ["\\n"]
  max_gen_toks: 8
  do_sample: false
metric_list:
  - metric: exact_match
    aggregation: mean
    higher_is_better: true
metadata:
  version: 1.0
"""


def offline_env(**extra: str) -> dict[str, str]:
    """The environment for the tools: no hub, no telemetry, no update checks."""
    env = dict(os.environ)
    env.update({"HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
                "HF_HUB_DISABLE_TELEMETRY": "1", "PROMPTFOO_DISABLE_TELEMETRY": "1",
                "PROMPTFOO_DISABLE_UPDATE": "1", "PROMPTFOO_DISABLE_SHARING": "1",
                "PROMPTFOO_DISABLE_REDTEAM_REMOTE_GENERATION": "1", "NO_COLOR": "1",
                "PROMPTFOO_DISABLE_WAL_MODE": "1"})
    env.update(extra)
    return env


def tool(name: str, default: str) -> str | None:
    """The command of a tool: the environment variable `name`, else `default` on PATH, else None."""
    given = os.environ.get(name)
    if given:
        return given if Path(given).exists() or shutil.which(given) else None
    return shutil.which(default)


def answerer(body: dict) -> dict:
    """The fake model: adds the two numbers, wrong on its model's questions (the answer plus one)."""
    text = " ".join(str(m.get("content", "")) for m in body.get("messages", []))
    match = re.search(r"What is (\d+) \+ (\d+)", text)
    if not match:
        return {"status": 200, "text": "?", "usage": (len(text.split()), 1)}
    a, b = int(match.group(1)), int(match.group(2))
    wrong = WRONG_WHEN.get(str(body.get("model")), WRONG_WHEN["weak"])(a, b)
    return {"status": 200, "text": str(a + b + (1 if wrong else 0)), "usage": (len(text.split()) + 4, 2)}


def write_lm_eval_task(folder: Path) -> Path:
    """The task folder: arith20.yaml and the JSON Lines dataset it reads."""
    folder.mkdir(parents=True, exist_ok=True)
    data = folder / "arith20.jsonl"
    data.write_text("".join(json.dumps({"a": a, "b": b, "answer": str(a + b)}) + "\n" for a, b in QUESTIONS))
    (folder / "arith20.yaml").write_text(TASK_YAML.format(data=data.resolve()))
    return folder


def run_lm_eval(out: Path, work: Path, models=("strong", "weak"), lm_eval: str | None = None,
                seeds=(0,)) -> list[Path]:
    """Run lm_eval once per model and seed (`--seed`) into `out`; returns the results_*.json files it wrote."""
    command = lm_eval or tool("LM_EVAL", "lm_eval")
    if command is None:
        raise FileNotFoundError("lm_eval")
    out, work = out.resolve(), work.resolve()
    tasks = write_lm_eval_task(work / "tasks")
    with FakeLLM(default=answerer) as server:
        for model in models:
            args = (f"model={model},base_url={server.base_url}/v1/chat/completions,num_concurrent=1,"
                    "max_retries=1,tokenizer_backend=None")
            for seed in seeds:
                subprocess.run([command, "--model", "local-chat-completions", "--model_args", args,
                                "--tasks", "arith20", "--include_path", str(tasks), "--apply_chat_template",
                                "--log_samples", "--output_path", str(out), "--seed", str(seed)],
                               check=True, env=offline_env(), cwd=work, capture_output=True, text=True)
    return sorted(out.rglob("results_*.json"))


PROMPTFOO_CONFIG = """\
description: arith20
prompts:
  - id: plain
    label: plain
    raw: "What is {{a}} + {{b}}? Answer with the number only."
providers:
  - id: "file://{script}"
    label: strong
    config: {quality: strong, usd_per_token: 0.00002}
  - id: "file://{script}"
    label: weak
    config: {quality: weak, usd_per_token: 0.000005}
defaultTest:
  assert:
    - type: equals
      value: "{{answer}}"
tests:
"""

#: a promptfoo Python provider: the fake model above, reporting tokens (words) and cost as a real API would.
PROVIDER = """\
import re

def call_api(prompt, options, context):
    config = options.get("config", {})
    a, b = map(int, re.findall(r"\\d+", prompt)[:2])
    if config["quality"] == "strong":
        wrong = (a + b) % 9 == 0
    else:
        wrong = (a * b) % 7 in (1, 2, 3, 4) or (a + b) % 9 == 0
    prompt_tokens = len(prompt.split()) + (40 if config["quality"] == "strong" else 4)
    usage = {"prompt": prompt_tokens, "completion": 2, "total": prompt_tokens + 2}
    return {"output": str(a + b + (1 if wrong else 0)), "tokenUsage": usage,
            "cost": usage["total"] * config["usd_per_token"]}
"""


def run_promptfoo(out: Path, work: Path, promptfoo: str | None = None, repeat: int = 2) -> Path:
    """`promptfoo eval` over the 20 questions with two Python providers; returns results.json."""
    command = promptfoo or tool("PROMPTFOO", "promptfoo")
    if command is None:
        raise FileNotFoundError("promptfoo")
    work.mkdir(parents=True, exist_ok=True)
    (work / "provider.py").write_text(PROVIDER)
    tests = "".join(f"  - vars: {{a: {a}, b: {b}, answer: '{a + b}'}}\n" for a, b in QUESTIONS)
    config = PROMPTFOO_CONFIG.replace("{script}", "provider.py") + tests
    (work / "promptfooconfig.yaml").write_text(config)
    out.parent.mkdir(parents=True, exist_ok=True)
    env = offline_env(PROMPTFOO_CONFIG_DIR=str(work / ".promptfoo"), PROMPTFOO_PYTHON=sys.executable)
    subprocess.run([command, "eval", "-c", "promptfooconfig.yaml", "-o", str(out.resolve()), "--repeat",
                    str(repeat), "--no-cache", "--no-progress-bar", "--no-table", "--max-concurrency", "1"],
                   check=False, env=env, cwd=work, capture_output=True, text=True)
    if not out.exists():  # promptfoo exits 100 when a test fails; the file is what tells success
        raise RuntimeError(f"promptfoo wrote no {out}")
    return out


def main(argv: list[str]) -> None:
    """Regenerate the shipped files: python -m tests.eval_tools tests/data (needs both tools)."""
    import tempfile

    root = Path(argv[0] if argv else "tests/data")
    with tempfile.TemporaryDirectory() as tmp:
        shutil.rmtree(root / "lm_eval" / "output", ignore_errors=True)
        run_lm_eval(root / "lm_eval" / "output", Path(tmp) / "lm", seeds=(0, 1, 2))
        run_promptfoo(root / "promptfoo" / "results.json", Path(tmp) / "pf", repeat=3)


if __name__ == "__main__":
    main(sys.argv[1:])
