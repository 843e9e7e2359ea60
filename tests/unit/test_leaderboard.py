"""The MAD-Fact leaderboard runner and its CLI, on scripted models."""

import json
from pathlib import Path

import pytest

from factcourt.bench.leaderboard import read_prompts
from factcourt.cli import main
from factcourt.errors import InputError
from tests.fakes import ANSWERS

PROMPTS = Path(__file__).parent.parent / "fixtures" / "longform_prompts.jsonl"


def test_a_limit_takes_a_topic_balanced_sample():
    assert [p.id for p in read_prompts(PROMPTS)] == ["eiffel", "moon", "louvre", "changcheng"]
    assert [p.id for p in read_prompts(PROMPTS, limit=3)] == ["eiffel", "moon", "changcheng"]
    assert [p.id for p in read_prompts(PROMPTS, limit=4)][-1] == "louvre"


@pytest.mark.parametrize(
    "text, complaint",
    [
        ("{bad json\n", "not JSON"),
        ('{"id": "a", "prompt": ""}\n', "no prompt text"),
        ('{"id": "a", "prompt": "x"}\n{"id": "a", "prompt": "y"}\n', "twice"),
        ("\n", "holds no prompt"),
    ],
)
def test_bad_prompt_files_are_one_clear_sentence(tmp_path, text, complaint):
    path = tmp_path / "p.jsonl"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match=complaint):
        read_prompts(path)
    with pytest.raises(InputError, match="no such prompts file"):
        read_prompts(tmp_path / "missing.jsonl")


def run(tmp_path, corpus, *extra):
    return main(
        [
            "leaderboard",
            "--prompts", str(PROMPTS),
            "--targets", "expert-a,expert-b",
            "--experts", "expert-a,expert-b,expert-c",
            "--limit", "2",
            "--out", str(tmp_path / "lb"),
            "--model", "scripted",
            "--corpus", corpus,
            "--no-cache",
            "--set", "same_fact_similarity=0.3",
            *extra,
        ]
    )  # fmt: skip


def test_the_leaderboard_scores_each_answer_against_its_pyramid_and_resumes(
    tmp_path, corpus, experts, scripted, capsys
):
    # expert-b cannot answer the Moon prompt: that prompt is failed for it and left out of its mean
    experts["expert-b"].script["LongAnswer"] = [
        lambda p: RuntimeError("down") if "Moon" in p else {"answer": ANSWERS["expert-b"]}
    ]
    assert run(tmp_path, corpus) == 1
    out = tmp_path / "lb"
    summary = json.loads((out / "report.json").read_text())
    rows = {r["model"]: r for r in summary["report"]["rows"]}
    a = rows["expert-a"]
    # expert-a's claims: Paris (in the corpus), 1889 (in the corpus), 330 m (not). Eiffel prompt,
    # G = 3: weights 4, 3, 2 of golden 4 + 3 + 2 + 2 = 11. Moon prompt, without expert-b (G = 2):
    # Paris said by a and c weighs 3, the rest 2, golden 3 + 2 + 2 + 2 = 9.
    assert a["scored"] == 2 and a["answer_failed"] == 0
    precisions, recalls = (7 / 9, 5 / 7), (7 / 11, 5 / 9)
    assert a["means"]["precision"]["mean"] == pytest.approx(sum(precisions) / 2)
    assert a["means"]["recall@1.0"]["mean"] == pytest.approx(sum(recalls) / 2)
    assert a["means"]["recall@0.8"]["mean"] == pytest.approx(sum(min(1, r / 0.8) for r in recalls) / 2)
    f1s = [2 * p * r / (p + r) for p, r in zip(precisions, recalls, strict=True)]
    assert a["means"]["f1@1.0"]["mean"] == pytest.approx(sum(f1s) / 2)
    assert a["means"]["f1@64"]["mean"] == pytest.approx(2 * (2 / 3) * (2 / 64) / (2 / 3 + 2 / 64))
    b = rows["expert-b"]
    assert b["answer_failed"] == 1 and b["scored"] == 1
    # the Moon pyramid was built without expert-b: Paris said by a and c is now the top of G = 2
    moon = json.loads((out / "pyramids" / "moon.json").read_text())
    assert moon["answered"] == ["expert-a", "expert-c"] and "down" in moon["failed"]["expert-b"]
    report = (out / "report.md").read_text()
    assert "| Model | scored | Prec | R@1.0 | F1@1.0 | R@0.8 | F1@0.8 | F1@64 | F1@178 |" in report
    assert "| expert-b | 1/2 |" in report and "answer (expert only) | expert-c" in report
    assert (out / "leaderboard.png").stat().st_size > 1000
    answers = [json.loads(line) for line in (out / "answers.jsonl").read_text().splitlines()]
    assert len(answers) == 4 and any(a["error"] for a in answers)
    eiffel = next(x for x in answers if x["model"] == "expert-a" and x["id"] == "eiffel")
    assert {(c["verdict"], c["weight"]) for c in eiffel["claims"]} >= {("supported", 4.0), ("supported", 3.0)}

    # a second run finds everything stored and tries only the failed answer again (still down)
    calls = len(scripted.calls) + sum(len(m.calls) for m in experts.values())
    b_calls = len(experts["expert-b"].calls)
    assert run(tmp_path, corpus) == 1
    assert len(experts["expert-b"].calls) > b_calls, "the failed answer is asked again"
    assert (
        len(scripted.calls) + sum(len(m.calls) for m in experts.values()) - calls
        == len(experts["expert-b"].calls) - b_calls
    ), "nothing else is redone while the expert stays down"
    # a run killed mid-stage resumes from its records: drop the last score, only it is redone
    records = (out / "records.jsonl").read_text().splitlines()
    (out / "records.jsonl").write_text("\n".join(records[:-1]) + "\n" + records[-1][:20])
    assert run(tmp_path, corpus) == 1
    resumed = json.loads((out / "report.json").read_text())["report"]["rows"]
    assert [(r["model"], r["scored"], r["means"]) for r in resumed] == [
        (r["model"], r["scored"], r["means"]) for r in summary["report"]["rows"]
    ]  # the time of the redone score differs
    assert len(experts["expert-a"].calls) == 2, "answers are not asked again"


def test_an_expert_that_answers_on_the_next_run_rebuilds_the_pyramid_and_its_scores(
    tmp_path, corpus, experts, scripted
):
    down = {"Moon": True}
    experts["expert-b"].script["LongAnswer"] = [
        lambda p: RuntimeError("down") if "Moon" in p and down["Moon"] else {"answer": ANSWERS["expert-b"]}
    ]
    assert run(tmp_path, corpus) == 1
    down["Moon"] = False
    assert run(tmp_path, corpus) == 0
    out = tmp_path / "lb"
    moon = json.loads((out / "pyramids" / "moon.json").read_text())
    assert moon["answered"] == ["expert-a", "expert-b", "expert-c"] and not moon["failed"]
    rows = {r["model"]: r for r in json.loads((out / "report.json").read_text())["report"]["rows"]}
    assert rows["expert-b"]["scored"] == 2 and rows["expert-b"]["answer_failed"] == 0


def test_report_only_reports_what_is_stored_without_any_call(tmp_path, corpus, experts, scripted):
    assert run(tmp_path, corpus, "--report-only") == 0
    summary = json.loads((tmp_path / "lb" / "report.json").read_text())
    assert all(r["scored"] == 0 for r in summary["report"]["rows"]) and not scripted.calls
    assert "| expert-a | 0/2 |" in (tmp_path / "lb" / "report.md").read_text()


def test_a_folder_run_with_other_settings_is_refused_before_any_call(
    tmp_path, corpus, experts, scripted, capsys
):
    assert run(tmp_path, corpus, "--report-only") == 0
    assert run(tmp_path, corpus, "--rule", "adaptive") == 2
    err = capsys.readouterr().err
    assert "other settings (rule 'free' -> 'adaptive')" in err and "use a new --out" in err
    assert not scripted.calls and not any(m.calls for m in experts.values())


def test_the_report_says_when_a_target_is_also_an_expert(tmp_path, corpus, experts, scripted):
    run(tmp_path, corpus, "--report-only")
    report = (tmp_path / "lb" / "report.md").read_text()
    assert "expert-a is also an expert: its own claims are in the golden set" in report


@pytest.mark.parametrize(
    "args, complaint",
    [
        (["--targets", "local:llama-70b"], "unknown local model"),
        (["--targets", "a,,b"], "comma-separated"),
        (["--targets", "gpt-4o"], "needs OPENAI_API_KEY"),
        (["--targets", "local:smollm2", "--experts", "local:smollm2,local:nope"], "unknown local model"),
        (["--targets", "local:smollm2", "--prompts", "missing.jsonl"], "no such prompts file"),
    ],
)
def test_bad_input_is_exit_2_with_one_sentence(tmp_path, capsys, args, complaint):
    base = {"--prompts": str(PROMPTS), "--out": str(tmp_path / "o"), "--experts": "local:smollm2"}
    for flag, value in zip(args[::2], args[1::2], strict=True):
        base[flag] = value
    argv = ["leaderboard", *[x for kv in base.items() for x in kv]]
    if "--targets" not in base:
        argv += ["--targets", "local:smollm2"]
    with pytest.raises(SystemExit) if complaint == "comma-separated" else _nothing():
        code = main(argv)
        assert code == 2
    assert complaint in capsys.readouterr().err
    assert not (tmp_path / "o" / "records.jsonl").exists()


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_pyramid_command_builds_saves_and_loads(tmp_path, experts, capsys):
    saved = tmp_path / "p.json"
    common = ["--model", "scripted", "--search", "none", "--no-cache", "--set", "same_fact_similarity=0.3"]
    experts_arg = ["--experts", "expert-a,expert-b,expert-c"]
    assert (
        main(["pyramid", "-q", "Tell me about the Eiffel Tower.", *experts_arg, "--out", str(saved), *common])
        == 0
    )
    assert "G = 3; 4 golden claims" in capsys.readouterr().out
    assert main(["pyramid", "--load", str(saved), "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)["claims"]) == 4
    assert main(["pyramid", *experts_arg, *common]) == 2
    assert "the question is empty" in capsys.readouterr().err
