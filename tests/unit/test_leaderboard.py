"""The MAD-Fact leaderboard runner and its CLI, on scripted models."""

import json
from pathlib import Path

import pytest

from factcourt.api.pyramid.leaderboard import Leaderboard, build_report, markdown, read_prompts
from factcourt.cli import main
from factcourt.context.pyramid import LeaderboardContext
from factcourt.errors import ConfigError, InputError
from factcourt.nodes.agents.clerk import numbered, sentences_of
from factcourt.providers import models
from factcourt.providers.simulated import rule_answer, tagged
from tests.fakes import ANSWERS, ScriptedModel, same_fact_by_key

PROMPTS = Path(__file__).parent.parent / "fixtures" / "longform_prompts.jsonl"


def test_a_limit_takes_a_topic_balanced_sample():
    assert [p.id for p in read_prompts(PROMPTS)] == ["eiffel", "moon", "louvre", "changcheng"]
    assert [p.id for p in read_prompts(PROMPTS, limit=3)] == ["eiffel", "moon", "changcheng"]
    assert [p.id for p in read_prompts(PROMPTS, limit=4)][-1] == "louvre"


@pytest.mark.parametrize(
    "text, complaint",
    [
        ("{bad json\n", r"p.jsonl:1:2: not valid JSON"),
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
    assert summary["report"]["ranked_by"] == {"score": "f1@1.0", "prompts": 1}  # Eiffel only
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


@pytest.fixture
def outsider(experts):
    """A target that is no expert: one claim on the pyramid, one off it and not in the corpus."""
    answer = "The Eiffel Tower is in Paris. The Louvre holds the Mona Lisa painting."
    model = ScriptedModel(script={"LongAnswer": [{"answer": answer}]})
    models.register_model("outsider", model)
    yield model
    models.register_model("outsider", None)


def test_a_claim_off_the_pyramid_weighs_unmatched_weight_in_precision(tmp_path, corpus, outsider):
    assert run(tmp_path, corpus, "--targets", "outsider") == 0
    summary = json.loads((tmp_path / "lb" / "report.json").read_text())
    (row,) = summary["report"]["rows"]
    # Paris (golden, said by all three experts: 4) supported; the Louvre claim (off it: 1) not
    assert row["means"]["precision"] == {"mean": pytest.approx(4 / 5), "n": 2, "undefined": 0}
    assert row["means"]["recall@1.0"]["mean"] == pytest.approx(4 / 11)
    answers = [json.loads(line) for line in (tmp_path / "lb" / "answers.jsonl").read_text().splitlines()]
    louvre = next(c for c in answers[0]["claims"] if "Louvre" in c["text"])
    assert (louvre["golden"], louvre["weight"], louvre["verdict"]) == (None, 1.0, "refuted")


def test_claims_over_max_claims_are_counted_per_answer_and_in_the_report(tmp_path, corpus, experts):
    # expert-a states three facts, expert-b two: only expert-a loses one per answer
    assert run(tmp_path, corpus, "--set", "max_claims=2") == 0
    out = tmp_path / "lb"
    rows = {r["model"]: r for r in json.loads((out / "report.json").read_text())["report"]["rows"]}
    assert rows["expert-a"]["over_max_claims"] == {"claims": 2, "answers": 2}
    assert rows["expert-b"]["over_max_claims"] == {"claims": 0, "answers": 0}
    answers = [json.loads(line) for line in (out / "answers.jsonl").read_text().splitlines()]
    assert {(a["model"], a["over_max_claims"]) for a in answers} == {("expert-a", 1), ("expert-b", 0)}
    report = (out / "report.md").read_text()
    assert "expert-a: 2 claims in 2 answers were over max_claims (2) and not checked" in report
    assert "expert-b:" not in report


def stored(tmp_path, f1s: dict[str, dict[str, float | None]]) -> Leaderboard:
    """A leaderboard with its records stored: each target's F1@1.0 per prompt id, None for a failed check."""
    prompts = read_prompts(PROMPTS)
    lb = Leaderboard(prompts, list(f1s), LeaderboardContext(), tmp_path)
    for model, by_prompt in f1s.items():
        for p in prompts:
            f1 = by_prompt[p.id]
            lb.store.append({"method": f"answer:{model}", "id": p.id, "text": "an answer", "error": None})
            error = "no claim could be checked" if f1 is None else None
            lb.store.append(
                {"method": f"check:{model}", "id": p.id, "claims": [], "dropped": [], "error": error}
            )
            if f1 is not None:
                record = {"scores": {"f1@1.0": f1}, "claims": [], "error": None}
                lb.store.append({"method": f"score:{model}", "id": p.id, **record})
    return lb


def every_prompt(f1: float | None) -> dict[str, float | None]:
    return dict.fromkeys(["eiffel", "moon", "louvre", "changcheng"], f1)


def test_rows_are_ranked_best_first_whatever_the_order_of_the_targets(tmp_path):
    lb = stored(
        tmp_path,
        {
            "weak": every_prompt(0.2),
            "silent": every_prompt(None),
            "best": every_prompt(0.9),
            "middle": every_prompt(0.5),
        },
    )
    # 'silent' has no score at all: it goes last instead of leaving no prompt common to every target
    assert [r["model"] for r in build_report(lb)["rows"]] == ["best", "middle", "weak", "silent"]


def test_the_ranking_compares_every_model_on_the_same_prompts(tmp_path):
    # 'dodger' fails the hard prompt that pulls 'steady' down: by its own mean it would rank first
    steady = every_prompt(0.5) | {"changcheng": 0.1}
    dodger = every_prompt(0.45) | {"changcheng": None}
    report = build_report(stored(tmp_path, {"dodger": dodger, "steady": steady}))
    rows = {r["model"]: r for r in report["rows"]}
    assert [r["model"] for r in report["rows"]] == ["steady", "dodger"]
    assert report["ranked_by"] == {"score": "f1@1.0", "prompts": 3}
    assert rows["steady"]["ranked"]["mean"] == pytest.approx(0.5)
    assert rows["dodger"]["ranked"]["mean"] == pytest.approx(0.45)
    # each model's own means, over the prompts scored for it, are still shown with their n
    assert rows["dodger"]["means"]["f1@1.0"] == {"mean": pytest.approx(0.45), "n": 3, "undefined": 0}
    assert rows["steady"]["means"]["f1@1.0"] == {"mean": pytest.approx(0.4), "n": 4, "undefined": 0}
    settings = {"prompts_file": "p.jsonl", "prompts": 4, "experts": ["e"], "checker": "c"}
    text = markdown(report, settings | {"protocol": "jury", "rule": "free"})
    assert "Ranked by F1@1.0 over the 3 prompts scored for every model" in text
    assert "| dodger | 3/4 |" in text


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
    err = " ".join(capsys.readouterr().err.split())
    assert "rule 'free' -> 'adaptive'" in err and "use a new --out" in err
    assert not scripted.calls and not any(m.calls for m in experts.values())


@pytest.mark.parametrize(
    ("change", "said"),
    [
        (["--set", "gammas=[1.0,0.5]"], "gammas [1.0, 0.8] -> [1.0, 0.5]"),
        (["--set", "f1_ks=[10]"], "f1_ks [64, 178] -> [10]"),
        (["--set", "max_claims=5"], "max_claims 60 -> 5"),
        (["--set", "same_fact_candidates=1"], "same_fact_candidates 3 -> 1"),
        (["--role-model", "clerk=expert-c"], "clerk 'scripted' -> 'expert-c'"),
        (["--role-model", "matcher=expert-c"], "matcher 'scripted' -> 'expert-c'"),
        (["--role-model", "moderator=expert-c"], "moderator 'scripted' -> 'expert-c'"),
    ],
)
def test_a_resume_with_other_scoring_settings_or_role_models_is_refused(
    tmp_path, corpus, experts, scripted, capsys, change, said
):
    assert run(tmp_path, corpus, "--report-only") == 0
    assert run(tmp_path, corpus, *change) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert f"other settings ({said})" in err and "use a new --out" in err
    assert not scripted.calls and not any(m.calls for m in experts.values())


def test_a_folder_whose_settings_predate_a_stored_setting_is_refused(tmp_path, corpus, experts, capsys):
    assert run(tmp_path, corpus, "--report-only") == 0
    path = tmp_path / "lb" / "settings.json"
    path.write_text(json.dumps({k: v for k, v in json.loads(path.read_text()).items() if k != "gammas"}))
    assert run(tmp_path, corpus, "--report-only") == 2
    assert "gammas (not recorded) -> [1.0, 0.8]" in " ".join(capsys.readouterr().err.split())


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


def test_a_prompts_file_that_is_not_text_is_one_clear_sentence(tmp_path):
    path = tmp_path / "bin.dat"
    path.write_bytes(b"\x7fELF\x02\x01\x01\x00\xff\xfe\x00\x00")
    with pytest.raises(InputError, match="not UTF-8|NUL bytes"):
        read_prompts(path)


def _rows(tmp_path):
    return {
        r["model"]: r for r in json.loads((tmp_path / "lb" / "report.json").read_text())["report"]["rows"]
    }


def test_a_claim_that_could_not_be_checked_fails_the_check_and_is_checked_again(
    tmp_path, corpus, experts, scripted
):
    assert run(tmp_path, corpus) == 0
    good = _rows(tmp_path)["expert-a"]["means"]["recall@1.0"]["mean"]
    schema = "Label"  # the checker's verdict on a claim
    assert any(name == schema and "1889" in prompt for name, prompt in scripted.calls)
    (tmp_path / "lb2").mkdir()
    scripted.script[schema] = [
        lambda p: TimeoutError("juror timed out") if "1889" in tagged(p, "claim") else rule_answer(schema, p)
    ]
    assert run(tmp_path / "lb2", corpus) == 1  # one claim unchecked: the answer is failed, not scored lower
    assert _rows(tmp_path / "lb2")["expert-a"]["check_failed"] >= 1
    del scripted.script[schema]
    assert run(tmp_path / "lb2", corpus) == 0  # checked again, and scored as if nothing failed
    assert _rows(tmp_path / "lb2")["expert-a"]["means"]["recall@1.0"]["mean"] == pytest.approx(good)


def test_a_matcher_failure_while_scoring_fails_the_score_and_it_is_scored_again(
    tmp_path, corpus, experts, scripted
):
    assert run(tmp_path, corpus) == 0
    good = _rows(tmp_path)["expert-a"]["means"]["recall@1.0"]["mean"]
    out = tmp_path / "lb"
    kept = [x for x in (out / "records.jsonl").read_text().splitlines() if '"method": "score:' not in x]
    (out / "records.jsonl").write_text("\n".join(kept) + "\n")  # killed before the scores
    scripted.script["SameFact"] = [TimeoutError("matcher timed out")]
    assert run(tmp_path, corpus) == 1
    scripted.script["SameFact"] = [same_fact_by_key]
    assert run(tmp_path, corpus) == 0
    assert _rows(tmp_path)["expert-a"]["means"]["recall@1.0"]["mean"] == pytest.approx(good)


def test_a_pyramid_merged_while_the_matcher_failed_is_built_again(tmp_path, corpus, experts, scripted):
    scripted.script["SameFact"] = [TimeoutError("matcher timed out")]
    assert run(tmp_path, corpus) == 1
    scripted.script["SameFact"] = [same_fact_by_key]
    assert run(tmp_path, corpus) == 0
    eiffel = json.loads((tmp_path / "lb" / "pyramids" / "eiffel.json").read_text())
    assert not eiffel["notes"] and sorted(g["weight"] for g in eiffel["claims"]) == [2, 2, 3, 4]


def test_another_prompts_file_under_the_same_ids_is_refused(tmp_path, corpus, experts, scripted, capsys):
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    first.write_text('{"prompt": "Tell me about the Eiffel Tower."}\n')
    second.write_text('{"prompt": "Tell me about the Great Wall of China."}\n')
    argv = [
        "leaderboard",
        "--targets",
        "expert-a",
        "--experts",
        "expert-a,expert-b",
        "--out",
        str(tmp_path / "o"),
    ]
    argv += ["--model", "scripted", "--corpus", corpus, "--no-cache", "--set", "same_fact_similarity=0.3"]
    assert main([*argv, "--prompts", str(first)]) == 0
    asked = len(experts["expert-a"].calls)
    assert main([*argv, "--prompts", str(second)]) == 2
    assert "line-1" in capsys.readouterr().err and len(experts["expert-a"].calls) == asked


@pytest.mark.parametrize(
    ("change", "said"),
    [(["--set", "temperature=0.9"], "temperature 0.0 -> 0.9"), (["--set", "top_k=1"], "top_k 3 -> 1")],
)
def test_a_resume_with_another_temperature_or_top_k_is_refused(
    tmp_path, corpus, experts, scripted, capsys, change, said
):
    assert run(tmp_path, corpus, "--report-only") == 0
    assert run(tmp_path, corpus, *change, "--report-only") == 2
    assert said in " ".join(capsys.readouterr().err.split())


def test_an_expert_named_twice_is_refused():
    with pytest.raises(ConfigError, match="named twice"):
        LeaderboardContext(experts=["expert-a", "expert-a", "expert-b"])


def test_an_expert_that_fails_makes_the_leaderboard_exit_1(tmp_path, corpus, experts, scripted):
    experts["expert-c"].script["LongAnswer"] = [RuntimeError("down")]
    assert run(tmp_path, corpus) == 1
    assert (
        json.loads((tmp_path / "lb" / "report.json").read_text())["report"]["pyramids"]["short_of_experts"]
        == 2
    )


@pytest.mark.parametrize("limit", ["0", "-1"])
def test_a_limit_below_one_is_refused(tmp_path, corpus, experts, scripted, capsys, limit):
    assert run(tmp_path, corpus, "--limit", limit) == 2
    assert "--limit must be at least 1" in capsys.readouterr().err


def test_the_clerk_splits_each_answer_once_when_its_model_is_also_an_expert(
    tmp_path, corpus, experts, scripted, outsider
):
    assert run(tmp_path, corpus, "--targets", "expert-a,outsider") == 0
    clerk = [p for name, p in scripted.calls if name == "ClerkOutput"]

    def splits(answer: str) -> int:  # the Clerk reads an answer as numbered sentences
        return sum(1 for p in clerk if numbered(sentences_of(answer)) in p)

    # expert-a's answers are split once, for the pyramid, as those of expert-c, which is no target
    assert splits(ANSWERS["expert-a"]) == splits(ANSWERS["expert-c"]) > 0
    assert splits(outsider.script["LongAnswer"][0]["answer"]) > 0  # no expert: its check splits it
    records = [json.loads(line) for line in (tmp_path / "lb" / "records.jsonl").read_text().splitlines()]
    checks = {r["method"]: r for r in records if r["method"].startswith("check:")}
    assert "clerk" not in checks["check:expert-a"]["usage"]["by_role"]
    assert "clerk" in checks["check:outsider"]["usage"]["by_role"]
