"""Debate-SFT's trained moderator: its llama.cpp adapter file, how a run finds and serves it, bad input."""

import json
from types import SimpleNamespace

import pytest

from factcourt.cli import main
from factcourt.context.claims import ClaimsContext
from factcourt.errors import ConfigError, InputError
from factcourt.providers.local_server import LocalModelServer
from factcourt.providers.models import choose, model_identity
from factcourt.providers.trained import ADAPTER, IDENTITY, trained_dir


def sample(group="correct"):
    return {
        "method": "sft",
        "id": "a",
        "group": group,
        "messages": [{"role": "user", "content": "x"}],
        "target": "{}",
    }


def moderator_folder(folder, base):
    folder.mkdir(parents=True)
    (folder / ADAPTER).write_bytes(b"GGUF")
    identity = {"base": "smollm2", "base_gguf": str(base), "data_sha256": "ab" * 32, "steps": 3}
    (folder / IDENTITY).write_text(json.dumps(identity), encoding="utf-8")
    return folder


def test_a_trained_moderator_is_chosen_by_name_or_folder_and_served_with_its_adapter(tmp_path):
    base = tmp_path / "base.gguf"
    base.write_bytes(b"GGUF base")
    folder = moderator_folder(trained_dir() / "debate-sft-tiny", base)
    for reference in ("debate-sft-tiny", str(folder), str(folder / IDENTITY)):
        ctx = ClaimsContext.from_dict({"model": "local", "role_models": {"moderator": reference}})
        choice = choose(ctx, "moderator")
        assert (choice.name, choice.endpoint, choice.weights) == ("debate-sft-tiny", "embedded", str(base))
        assert choice.adapter == str(folder / ADAPTER)
        assert not choose(ctx, "debater").adapter  # the other roles keep their model
    # its answers are cached apart from the base's, and its server is another than the base's
    assert model_identity(choice) != model_identity(choice.__class__("m", "b", "embedded", "x", str(base)))
    with_adapter = LocalModelServer(base, adapter=folder / ADAPTER)
    assert "--lora" in with_adapter._command() and with_adapter.key != LocalModelServer(base).key


def test_a_moderator_trained_from_a_hugging_face_base_says_it_cannot_be_served(tmp_path):
    folder = moderator_folder(trained_dir() / "hf-base", "")
    ctx = ClaimsContext.from_dict({"role_models": {"moderator": str(folder)}})
    with pytest.raises(ConfigError, match="no GGUF: the embedded server loads GGUF only"):
        choose(ctx, "moderator")


def test_models_lists_trained_moderators_with_their_training_identity(tmp_path, capsys):
    from factcourt.api.training import trained_moderators

    moderator_folder(trained_dir() / "debate-sft-tiny", tmp_path / "base.gguf")
    [listed] = trained_moderators()
    assert (listed["name"], listed["base"], listed["steps"]) == ("debate-sft-tiny", "smollm2", 3)


@pytest.mark.parametrize(
    ("rows", "said"),
    [
        (None, "no such SynDeC file"),
        ([{"id": "a", "claim": "c"}], "not a synth-sft sample"),
        ([sample("error")], "holds no correct sample"),
    ],
)
def test_bad_data_exits_2_with_one_sentence(tmp_path, capsys, rows, said):
    data = tmp_path / "sft.jsonl"
    if rows is not None:
        data.write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    code = main(
        ["train-moderator", "--data", str(data), "--samples", "correct", "--out", str(tmp_path / "m")]
    )
    assert code == 2 and said in " ".join(capsys.readouterr().err.split())
    assert not (tmp_path / "m" / IDENTITY).exists()


def test_an_unloadable_base_exits_2(tmp_path, capsys):
    pytest.importorskip("torch", reason="train-moderator needs the train extra")
    data = tmp_path / "sft.jsonl"
    data.write_text(json.dumps(sample()), encoding="utf-8")
    code = main(["train-moderator", "--data", str(data), "--base", str(tmp_path / "no.gguf")])
    assert code == 2 and "no such GGUF file" in capsys.readouterr().err


def test_too_little_memory_is_refused_before_loading(monkeypatch):
    from factcourt import training

    monkeypatch.setattr(training, "_available_bytes", lambda device: 1 << 30)
    with pytest.raises(ConfigError, match="too little memory to train base: it needs about 5.0 GiB"):
        training.check_memory(3 << 30, "cpu", "base")
    training.check_memory(1 << 28, "cpu", "base")


def test_samples_are_read_by_group_for_the_papers_ablations(tmp_path):
    from factcourt.training import GROUPS, read_samples

    data = tmp_path / "sft.jsonl"
    data.write_text("\n".join(json.dumps(sample(g)) for g in ("correct", "error", "error")), encoding="utf-8")
    assert len(read_samples(data, GROUPS["all"])) == 3
    assert len(read_samples(data, GROUPS["error"])) == 2  # w/o C_correct
    with pytest.raises(InputError):
        read_samples(data, ("nothing",))


def test_the_adapter_is_llama_cpps_lora_gguf_with_the_rotary_rows_of_llama_permuted(tmp_path):
    torch = pytest.importorskip("torch", reason="train-moderator needs the train extra")
    gguf = pytest.importorskip("gguf", reason="train-moderator needs the train extra")
    from factcourt.providers.trained import write_lora_gguf

    config = SimpleNamespace(
        model_type="llama", num_hidden_layers=1, num_attention_heads=2, num_key_value_heads=1
    )
    prefix = "base_model.model.model.layers.0"
    b_q = torch.arange(8 * 2, dtype=torch.float32).reshape(8, 2)
    state = {
        f"{prefix}.self_attn.q_proj.lora_A.weight": torch.ones(2, 8),
        f"{prefix}.self_attn.q_proj.lora_B.weight": b_q,
        f"{prefix}.mlp.down_proj.lora_A.weight": torch.ones(2, 16),
        f"{prefix}.mlp.down_proj.lora_B.weight": torch.zeros(8, 2),
    }
    path = tmp_path / ADAPTER
    write_lora_gguf(state, config, 16.0, path)
    reader = gguf.GGUFReader(path)
    tensors = {t.name: t for t in reader.tensors}
    assert sorted(tensors) == [
        "blk.0.attn_q.weight.lora_a",
        "blk.0.attn_q.weight.lora_b",
        "blk.0.ffn_down.weight.lora_a",
        "blk.0.ffn_down.weight.lora_b",
    ]
    fields = {f.name: f for f in reader.fields.values()}
    assert bytes(fields["general.type"].parts[-1]).decode() == "adapter"
    assert float(fields["adapter.lora.alpha"].parts[-1][0]) == 16.0
    # each head's rows interleaved as convert_hf_to_gguf.py stores q for llama's rotary embedding
    stored = torch.tensor(tensors["blk.0.attn_q.weight.lora_b"].data).reshape(8, 2)
    assert stored[:, 0].tolist() == [0, 4, 2, 6, 8, 12, 10, 14]
    assert not list(tmp_path.glob(".*part*"))  # nothing half-written left beside it
