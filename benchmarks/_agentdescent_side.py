"""Runs inside a separate virtual environment that has agentdescent==0.7.0.

Loads the same JSON Lines results as equivalent ArmResults and times
compare() + to_markdown(), and optionally separates() over all arm pairs.
Prints one JSON object.
"""
import json
import sys
import time

from agentdescent.baselines import ArmResult, compare, to_markdown

path, want_pairs = sys.argv[1], sys.argv[2] == "pairs"
results = []
with open(path) as handle:
    for line in handle:
        r = json.loads(line)
        s = r["spend"]
        results.append(ArmResult(arm=r["arm"], seed=r["seed"], width=1, rollouts=s["rollouts"], calls=s["calls"],
                                 prompt_tokens=s["tokens"], completion_tokens=0, wallclock=s["seconds"],
                                 wallclock_parallel=s["seconds"], dev_reward=r["reward"], test_reward=r["reward"]))
times = []
for _ in range(3):  # best of three, as timeit does: the least disturbed run
    start = time.perf_counter()
    comparison = compare(results, fixed="tokens")
    text = to_markdown(comparison)
    times.append(time.perf_counter() - start)
out = {"compare_markdown_s": min(times), "rows": len(results)}
if want_pairs:
    arms = sorted(comparison.arms)
    start = time.perf_counter()
    n = 0
    for i, a in enumerate(arms):
        for b in arms[i + 1:]:
            comparison.separates(a, b)
            n += 1
    out.update(separates_all_pairs_s=time.perf_counter() - start, pairs=n)
print(json.dumps(out))
