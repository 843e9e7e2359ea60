"""Debate-SFT end to end: synthesise, train a few steps on SmolLM2-135M, serve it in llama.cpp.

The base is the project's SmolLM2 GGUF; its dequantised copy is made once, beside it (about a
minute on a free 2-core CPU), and reused after that.
"""

import asyncio
import json
import time

import pytest

pytest.importorskip("torch", reason="Debate-SFT's training needs the train extra (pip install -e '.[train]')")
pytest.importorskip("peft", reason="Debate-SFT's training needs the train extra (pip install -e '.[train]')")

from langchain_core.messages import convert_to_messages  # noqa: E402

from factcourt.bench.runner import in_part  # noqa: E402
from factcourt.bench.sft import debate_context, synth_sft  # noqa: E402
from factcourt.context.claims import ClaimsContext  # noqa: E402
from factcourt.providers.models import ask, choose  # noqa: E402
from factcourt.state.claims import ModeratorAnswer
from factcourt.training import TrainSettings, train_moderator  # noqa: E402
from tests.fakes import moderator  # noqa: E402

pytestmark = pytest.mark.integration

LABELS = ["Supported", "Refuted", "Not Enough Evidence", "Conflicting Evidence/Cherrypicking"]


def test_synthesise_train_and_serve_a_moderator(tmp_path, smollm2, scripted):
    started = time.monotonic()
    ids = [f"c{i}" for i in range(40) if in_part(f"c{i}", "dev")][:4]
    rows = [
        {
            "id": i,
            "claim": f"Claim {i}.",
            "label": False,
            "evidence": [f"About {i}."],
            "meta": {"label_4way": label},
        }
        for i, label in zip(ids, LABELS, strict=True)
    ]
    dataset, data = tmp_path / "claims.jsonl", tmp_path / "sft.jsonl"
    dataset.write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    scripted.script["ModeratorAnswer"] = [moderator("refuted", stop=True)]
    scripted.script["SftJustification"] = [{"justification": "As [E1] says."}]
    settings = {"model": "scripted", "cache": False, "rule": "adaptive", "retries": 0}
    counts = asyncio.run(synth_sft(dataset, data, debate_context(settings)))
    assert counts["written"] == 4 and counts["corrected"] == 3

    trained = train_moderator(
        data,
        str(smollm2),
        tmp_path / "moderator",
        TrainSettings(rank=4, alpha=8, lr=1e-3, batch=2, max_steps=2),
    )
    assert trained.identity["steps"] == 2 and trained.identity["trained_on"] == 4
    assert trained.adapter.is_file() and not list(trained.folder.glob(".*part*"))

    # the real llama.cpp server loads the adapter on the base and answers in the moderator's schema
    ctx = ClaimsContext.from_dict(
        {
            "model": "scripted",
            "role_models": {"moderator": str(trained.folder)},
            "cache": False,
            "max_tokens": 200,
        }
    )
    assert choose(ctx, "moderator").adapter == str(trained.adapter)
    sample = json.loads(data.read_text(encoding="utf-8").splitlines()[0])
    answer = asyncio.run(
        ask(ctx, "moderator", ModeratorAnswer, convert_to_messages(sample["messages"]), run_name="e2e")
    )
    assert answer.value is not None, answer.error
    print(f"Debate-SFT end to end: {time.monotonic() - started:.1f} s")
