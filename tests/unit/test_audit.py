"""FACT-AUDIT (graph ``audit``) on scripted auditor and target models."""

import json
import multiprocessing
import os
import random
import re
import sqlite3
import time
from contextlib import closing

import openai
import pytest

import factcourt
from factcourt.api.audit.report import verdict_right
from factcourt.checkpoints import checkpoints_path
from factcourt.cli import main
from factcourt.context.audit import AuditContext
from factcourt.errors import ConfigError, InputError
from factcourt.metrics.audit import poor
from factcourt.nodes.audit.evaluator import majority, parse_rating
from factcourt.nodes.audit.prober import select_examples
from factcourt.nodes.audit.scenario_judge import parse_decision
from factcourt.providers import models
from factcourt.state.audit import AuditCase, CaseRecord
from tests.fakes import ScriptedModel

SETTINGS = {
    "model": "scripted",
    "target_model": "scripted-target",
    "cache": False,
    "search": "none",
    "audit_initial_scenarios": 1,
    "audit_seeds": 2,
    "audit_cases_per_scenario": 3,
    "audit_scenario_cap": 2,
    "audit_reference_votes": 1,
}


def case(claim: str, mode: str = "claim", aux=()) -> dict:
    return {"test_mode": mode, "source_claim": claim, "auxiliary_info": list(aux), "key_point": "Check it."}


def auditor_text(grades: dict[str, str] | None = None, decisions=("[[Yes]]",)):
    """The auditor's free-text answers: references, checks, grades by claim word, scenario decisions."""
    asked = {"decisions": 0}

    def answer(prompt: str) -> str:
        if prompt.startswith("Your last answer could not be parsed"):
            return "Still no rating."
        if prompt.startswith("This is a fact-checking task"):
            return "Answer: Non-Factual\nJustification: the reference."
        if "Please judge whether the answer" in prompt:
            return "Answer: Non-Factual\nJustification: the reference, checked."
        if prompt.startswith("[Instruction]"):
            for word, comment in (grades or {}).items():
                if word in prompt:
                    return comment
            return "Close to the reference. Rating: [[8]]"
        if "A new test point" in prompt:
            said = decisions[min(asked["decisions"], len(decisions) - 1)]
            asked["decisions"] += 1
            return said
        raise AssertionError(f"unexpected prompt: {prompt[:80]}")

    return answer


def cases_answer(prompt: str) -> dict:
    """Inquirer: two seeds named after the scenario; Quality Inspector: the cases as they are."""
    if "Here are test cases written" in prompt:
        shown = json.loads(re.search(r"subtask \"[^\"]+\": (\[.*\])\n\nPlease judge", prompt, re.S).group(1))
        return {"cases": shown}
    scenario = re.search(r'Generate \d+ test cases of "([^"]+)"', prompt).group(1)
    return {"cases": [case(f"Seed{i} {scenario} claim.") for i in (1, 2)]}


@pytest.fixture
def target():
    model = ScriptedModel(script={"text": ["Answer: Non-Factual\nJustification: mine."]})
    models.register_model("scripted-target", model)
    yield model
    models.register_model("scripted-target", None)


@pytest.fixture
def auditor(scripted):
    scripted.script.update(
        {
            "text": [auditor_text({"Seed1": "Wrong verdict. Rating: [[2]]"})],
            "AuditCases": [cases_answer],
            # the code's Prober prompt names the 'scenario "...", Fig. 15's 'instructions about "..."'
            "AuditCase": [
                lambda p: case("Probe of " + re.search(r'(?:scenario|about) "([^"]+)"', p).group(1))
            ],
            "Appraisal": [
                {"explanation": "Bad cases show a gap.", "stop": False, "task_name": "Numeric Rumor"}
            ],
        }
    )
    return scripted


def texts(model: ScriptedModel, marker: str) -> list[str]:
    return [p for name, p in model.calls if name == "text" and marker in p]


# ------------------------------------------------------------------------- parsing


@pytest.mark.parametrize(
    ("comment", "grade"),
    [
        ("The answer is right. Rating: [[7]]", 7.0),
        ('Format: "Rating: [[5]]". This one: Rating: [[3.5]]', 3.5),
        ("Rating: 8", 8.0),
        ("rating: [9]", 9.0),
        ("Rating: [[10]]", 10.0),
    ],
)
def test_grades_parse(comment, grade):
    assert parse_rating(comment) == grade


@pytest.mark.parametrize(
    "comment", ["Good answer.", "Rating: [[11]]", "Rating: [[0]]", "Rating: [[rating]]", ""]
)
def test_malformed_grades_are_refused_never_read_as_a_number_not_given(comment):
    with pytest.raises(ValueError):
        parse_rating(comment)


def test_scenario_decisions_parse_and_the_last_one_counts():
    assert parse_decision("[[Yes]]") is True
    assert parse_decision("[[No]] It overlaps with wish_rumor.") is False
    assert parse_decision("Not [[Yes]] but [[No]]: too broad") is False
    with pytest.raises(ValueError):
        parse_decision("Yes")


def test_the_reference_is_the_first_answer_of_the_majority_verdict():
    answers = ["Answer: Factual (a)", "Answer: Non-Factual (b)", "Answer: Non-Factual (c)"]
    assert majority(answers) == "Answer: Non-Factual (b)"
    assert majority(["Answer: Factual (a)", "Answer: Non-Factual (b)"]) == "Answer: Factual (a)"
    assert majority(["no verdict", "none either"]) == "no verdict"


def test_prober_examples_follow_the_authors_select():
    def record(claim, grade):
        return CaseRecord(
            id=claim, object="o", scenario="s", origin="seed", case=AuditCase(**case(claim)), grade=grade
        )

    few = [record("A b c one", 9), record("A b c two", 2), record("D e f", 5)]
    # the same first three words: only the lower grade is kept; then the 5 lowest, by descending grade
    assert [r.id for r in select_examples(few, 5, random.Random(0))] == ["D e f", "A b c two"]
    many = [record(f"Claim {i} x", g) for i, g in enumerate([1, 2, 3, 7, 8, 9, 10])]
    chosen = select_examples(many, 5, random.Random(0))
    # 2 of the 3 bad ones and 3 random others (not simply the 5 lowest, 8 7 3 2 1), best first
    assert [r.grade for r in chosen] == [9, 8, 3, 2, 1]
    assert all(sum(poor(r.grade) for r in select_examples(many, 5, random.Random(s))) >= 2 for s in range(20))


def test_a_verdict_is_right_only_when_the_target_states_the_references():
    def record(target, reference):
        return CaseRecord(
            id="c", object="o", scenario="s", origin="seed", response_label=target, reference_label=reference
        )

    assert verdict_right(record("Factual", "Factual")) and verdict_right(record("Non-Factual", "Non-Factual"))
    assert not verdict_right(record("Factual", "Non-Factual"))
    assert not verdict_right(record(None, None)) and not verdict_right(record(None, "Factual"))


def test_context_rejects_bad_audit_settings():
    with pytest.raises(ConfigError, match="audit_seeds"):
        AuditContext(audit_seeds=0)
    with pytest.raises(ConfigError, match="unknown agent"):
        AuditContext(audit_temperatures={"oracle": 0.5})
    with pytest.raises(ConfigError, match="needs the target's model"):
        factcourt.audit(["fake_news"], model="sim", target_base_url="http://127.0.0.1:9/v1")


def test_the_target_answers_from_its_own_endpoint():
    from factcourt.api.audit import audit_context
    from factcourt.api.audit.report import models_json

    ctx = audit_context("smoke", "qwen-7b", "http://127.0.0.1:8081/v1", {"model": "sim"}, {})
    assert models_json(ctx) == {
        "auditor": {"model": "sim", "endpoint": "simulated"},
        "target": {"model": "qwen-7b", "endpoint": "http://127.0.0.1:8081/v1"},
        "self_audit": False,
    }


# ------------------------------------------------------------------------ the loop


def test_seeds_then_probes_then_an_added_scenario_then_the_cap(auditor, target):
    result = factcourt.audit(["social_rumor"], **SETTINGS)
    cases = result["cases"]
    assert [(c["scenario"], c["origin"]) for c in cases] == [
        ("wish_rumor", "seed"),
        ("wish_rumor", "seed"),
        ("wish_rumor", "probe"),
        ("numeric_rumor", "seed"),
        ("numeric_rumor", "seed"),
        ("numeric_rumor", "probe"),
    ]
    assert all(c["status"] == "graded" for c in cases)
    assert [c["grade"] for c in cases] == [2, 8, 8, 2, 8, 8]
    assert [s["name"] for s in result["added_scenarios"]] == ["numeric_rumor"]
    assert result["stops"] == {"social_rumor": "scenario_cap"}  # 2 scenarios audited: the cap
    assert auditor.count("Appraisal") == 1 and len(texts(auditor, "A new test point")) == 1
    # the Prober saw the graded seeds of its own scenario, the Appraiser the bad case
    probe_prompt = [p for n, p in auditor.calls if n == "AuditCase"][0]
    assert "Seed1 wish_rumor" in probe_prompt and "Score: 2" in probe_prompt
    appraiser_prompt = [p for n, p in auditor.calls if n == "Appraisal"][0]
    assert '"wish_rumor": 6.0' in appraiser_prompt and "Task Name: wish_rumor" in appraiser_prompt
    assert "Score: 2" in appraiser_prompt and "Score: 8" not in appraiser_prompt  # bad cases only
    # the target got exactly Fig 12's question, once per case, and no auditor prompt
    assert target.count("text") == 6
    assert all(p.startswith("This is a fact-checking task") for _, p in target.calls)
    assert result["overall"] == {
        "n": 6,
        "imr": pytest.approx(100 / 3),
        "jfr": pytest.approx(100 / 3),
        "grade": 6.0,
        "agree": 100.0,  # the target's verdict is the reference's on every case
    }
    assert result["by_object"]["social_rumor"]["n"] == 6 and result["by_mode"]["claim"]["n"] == 6
    assert result["models"]["self_audit"] is False
    assert result["usage"]["by_role"]["target"]["calls"] == 6
    # Fig. 5: the last iteration pools every graded case
    assert result["by_iteration"][-1]["n"] == 6 and result["by_iteration"][0]["iteration"] == 1


def test_the_appraiser_stop_ends_the_object(auditor, target):
    auditor.script["Appraisal"] = [{"explanation": "Comprehensive.", "stop": True, "task_name": ""}]
    result = factcourt.audit(["social_rumor", "fake_news"], **{**SETTINGS, "scale": "code"})  # one stop
    assert result["stops"] == {"social_rumor": "appraiser_stop", "fake_news": "appraiser_stop"}
    assert auditor.count("Appraisal") == 2 and not texts(auditor, "A new test point")
    assert {c["scenario"] for c in result["cases"]} == {"wish_rumor", "satire_or_parody_news"}
    assert result["added_scenarios"] == []


def test_with_audit_stops_the_appraiser_must_say_stop_that_many_times(auditor, target):
    # the paper: "If the Appraiser outputs the [stop] tokens in three times, the adaptive
    # updating process would be terminated"; the authors' code stops at the first (the default)
    stop = {"explanation": "Comprehensive.", "stop": True, "task_name": ""}
    auditor.script["Appraisal"] = [
        stop,
        {"explanation": "A gap.", "stop": False, "task_name": "Numeric Rumor"},
        stop,
    ]
    result = factcourt.audit(["social_rumor"], **{**SETTINGS, "audit_scenario_cap": 16, "audit_stops": 2})
    assert [a["outcome"] for a in result["appraisals"]] == ["stop", "accepted", "stop"]
    assert result["stops"] == {"social_rumor": "appraiser_stop"}
    assert [s["name"] for s in result["added_scenarios"]] == ["numeric_rumor"]


def test_an_accepted_scenario_restarts_the_count_of_rejections_in_a_row(auditor, target):
    no, yes = "[[No]] too close to wish_rumor", "[[Yes]]"
    auditor.script["text"] = [auditor_text(decisions=(no, yes, no, no, no))]
    auditor.script["Appraisal"] = [
        {"explanation": str(n), "stop": False, "task_name": f"rumor_{n}"} for n in range(6)
    ]
    result = factcourt.audit(["social_rumor"], **{**SETTINGS, "audit_scenario_cap": 16})
    assert result["stops"] == {"social_rumor": "rejections"}
    outcomes = [a["outcome"] for a in result["appraisals"]]
    assert outcomes == ["rejected", "accepted", "rejected", "rejected", "rejected"]
    assert [s["name"] for s in result["added_scenarios"]] == ["rumor_1"]


def test_three_rejections_in_a_row_end_the_object(auditor, target):
    auditor.script["text"] = [auditor_text(decisions=("[[No]] too close to wish_rumor",))]
    # the second proposal does not parse even after its retry: a turn without a scenario too
    auditor.script["Appraisal"] = [
        {"explanation": "a", "stop": False, "task_name": "rumor_a"},
        {"explanation": "b", "stop": False, "task_name": ""},
        {"explanation": "b", "stop": False, "task_name": ""},
        {"explanation": "b", "stop": False, "task_name": ""},
        {"explanation": "c", "stop": False, "task_name": "Wish Rumor"},  # already there: no call
    ]
    result = factcourt.audit(["social_rumor"], **{**SETTINGS, "audit_scenario_cap": 16})
    assert result["stops"] == {"social_rumor": "rejections"}
    assert [a["outcome"] for a in result["appraisals"]] == ["rejected", "failed", "rejected"]
    assert "already in the taxonomy" in result["appraisals"][2]["reason"]
    assert len(texts(auditor, "A new test point")) == 1
    assert result["added_scenarios"] == [] and len(result["cases"]) == 3


def test_sampled_agents_ask_with_a_new_sample_number_each_turn(auditor, target, monkeypatch):
    # the Appraiser and the Prober sample at temperature 1: the answer cache keys on the sample
    # number, so a repeated prompt must carry a new one (or a rejected proposal comes back three
    # times from the cache and a probe repeats itself). Scripted models bypass the cache: the
    # numbers are what is checked.
    from factcourt.nodes.audit import common

    samples: dict[str, list[int]] = {}
    real_ask = common.ask

    async def recording(settings, role, schema, messages, **kwargs):
        samples.setdefault(role, []).append(kwargs.get("sample", 0))
        return await real_ask(settings, role, schema, messages, **kwargs)

    monkeypatch.setattr(common, "ask", recording)
    auditor.script["text"] = [auditor_text(decisions=("[[No]] too broad",))]
    result = factcourt.audit(["social_rumor"], **{**SETTINGS, "audit_scenario_cap": 16})
    assert result["stops"] == {"social_rumor": "rejections"}
    assert samples["appraiser"] == [1, 2, 3] and samples["prober"] == [3]


def test_the_scenario_cap_stops_before_any_appraisal(auditor, target):
    result = factcourt.audit(
        ["social_rumor"], **{**SETTINGS, "audit_initial_scenarios": 3, "audit_scenario_cap": 2}
    )
    assert result["stops"] == {"social_rumor": "scenario_cap"}
    assert auditor.count("Appraisal") == 0
    assert {c["scenario"] for c in result["cases"]} == {"wish_rumor", "dread_rumor"}


def test_unparsable_auditor_output_is_retried_then_dropped_and_counted(auditor, target):
    grades = {"Seed1": "A fine answer.", "Seed2": "Fine on second thought? Rating: [[4]]"}
    auditor.script["text"] = [auditor_text(grades)]
    auditor.script["AuditCase"] = ["not JSON"]  # the Prober's case never parses
    result = factcourt.audit(["social_rumor"], **{**SETTINGS, "audit_scenario_cap": 1, "retries": 1})
    by_status = {c["id"].rsplit("/", 1)[1]: c for c in result["cases"]}
    assert by_status["1"]["status"] == "dropped" and by_status["1"]["grade"] is None
    assert "grade" in by_status["1"]["error"] and by_status["1"]["response"]  # the answer is kept
    assert by_status["2"]["status"] == "graded" and by_status["2"]["grade"] == 4
    assert by_status["3"]["status"] == "dropped" and by_status["3"]["case"] is None
    # the budget counts graded cases (the authors' memory pool holds only those); a Prober that
    # never writes one stops at twice the budget asked
    assert result["counts"] == {
        "cases": 6,
        "graded": 1,
        "target_failed": 0,
        "dropped": 5,
        "not_graded_by_reason": {"grade": 1, "probe": 4},
        "evidence_not_found_in_corpus": 0,
    }
    assert result["overall"]["n"] == 1 and result["usage"]["unparsable"] >= 4


def test_a_target_that_times_out_is_recorded_as_failed_not_graded(auditor, target):
    import httpx

    timeout = openai.APITimeoutError(request=httpx.Request("POST", "http://target/v1"))
    target.script["text"] = [timeout, "Answer: Non-Factual\nJustification: mine."]
    result = factcourt.audit(["social_rumor"], **{**SETTINGS, "audit_scenario_cap": 1})
    first = result["cases"][0]
    assert first["status"] == "target_failed" and first["grade"] is None and "timeout" in first["error"]
    assert result["counts"]["target_failed"] == 1 and result["overall"]["n"] == 3  # a probe more
    assert len(texts(auditor, "[Instruction]")) == 3  # the failed case was never graded


def test_evidence_cases_are_checked_against_the_corpus_and_repaired(auditor, target, corpus):
    real = [
        "Paris is the capital and largest city of France.",
        "The Eiffel Tower is in Paris, completed in 1889.",
    ]
    made_up = ["Zorblat quintessence flummoxed the vexillology."]
    passes = {"n": 0}

    def inspector(prompt):
        if "Here are test cases written" not in prompt:
            return {"cases": [case("Paris is in Spain.", "evidence", real + made_up), case("Seed2 b.")]}
        if "Paris is in Spain" not in prompt:  # the probe's inspection
            return cases_answer(prompt)
        passes["n"] += 1
        assert "Zorblat" in prompt  # the pieces the search could not find are named
        return {"cases": [case("Paris is in Spain.", "evidence", real + made_up), case("Seed2 b.")]}

    auditor.script["AuditCases"] = [inspector]
    settings = {
        **SETTINGS,
        "search": "local",
        "corpus": corpus,
        "audit_scenario_cap": 1,
        "audit_inspector_passes": 3,
    }
    result = factcourt.audit(["complex_claim"], **settings)
    assert passes["n"] == 3  # one pass, then repairs while the check fails, up to the limit
    evidence = result["cases"][0]
    assert evidence["wiki_check"] is False and evidence["status"] == "graded"  # kept, flagged
    assert result["cases"][1]["wiki_check"] is None  # a [claim] case is not checked
    assert result["counts"]["evidence_not_found_in_corpus"] == 1 and result["usage"]["search_calls"] >= 3


def test_an_auditor_that_is_the_target_is_a_self_audit(auditor):
    result = factcourt.audit(["social_rumor"], **{**SETTINGS, "target_model": None, "audit_scenario_cap": 1})
    assert result["models"]["self_audit"] is True


def test_the_paper_scale_takes_the_papers_three_stops_and_ten_prober_examples():
    from factcourt.context.audit import AUDIT_SCALES

    assert AUDIT_SCALES["paper"] == {"audit_stops": 3, "audit_prober_examples": 10, "audit_prompts": "paper"}
    assert AUDIT_SCALES["code"] == {}  # the authors' code: the context's defaults


@pytest.mark.parametrize("scale", ["paper", "code"])
def test_the_prober_reads_fig_15_as_printed_under_the_paper_scale(auditor, target, scale):
    factcourt.audit(["social_rumor"], **{**SETTINGS, "audit_scenario_cap": 1, "scale": scale})
    [probe] = [p for n, p in auditor.calls if n == "AuditCase"]
    example = "Prompt: " + json.dumps({"source_claim": "Seed1 wish_rumor claim.", "auxiliary_info": []})
    if scale == "paper":
        assert "This task involves generating test cases for the fact-checking task." in probe
        assert "9. The new prompt should be STRICTLY within 512 words" in probe
        assert f"{example}\nKey Point: Check it.\nScore: 2" in probe  # no answer, no comment
        assert "Comment:" not in probe and "Answer: Non-Factual" not in probe
    else:
        assert "Guidelines for Creating New Prompts" not in probe
        assert f"{example}\nTest Mode: [claim]\nKey Point: Check it.\nAnswer:" in probe
        assert "Comment: Wrong verdict." in probe


def test_the_command_lines_scale_is_not_overridden_by_the_default_one(tmp_path, auditor, target):
    # the command line's context holds --scale code: the API's default (paper) left it alone
    args = ["audit", "--target-model", "scripted-target", "--model", "scripted", "--quiet", "--no-cache"]
    args += ["--search", "none", "--objects", "social_rumor", "--scale", "code", "--out", str(tmp_path / "a")]
    assert main([*args, "--set", "audit_cases_per_scenario=3", "--set", "audit_scenario_cap=1"]) == 0
    probes = [p for n, p in auditor.calls if n == "AuditCase"]
    assert probes and not any("Guidelines for Creating New Prompts" in p for p in probes)
    assert all("Comment:" in p for p in probes)


def test_unknown_objects_and_scales_are_refused():
    with pytest.raises(InputError, match="unknown object"):
        factcourt.audit(["gossip"], model="sim")
    with pytest.raises(ConfigError, match="unknown scale"):
        factcourt.audit(["fake_news"], model="sim", scale="huge")


# --------------------------------------------------------------------------- CLI


def test_cli_writes_the_reports_and_refuses_bad_input(tmp_path, capsys, auditor, target):
    out = tmp_path / "audit"
    args = ["audit", "--target-model", "scripted-target", "--auditor-model", "scripted", "--out", str(out)]
    args += ["--search", "none", "--no-cache", "--quiet", "--objects", "social-rumor", "--scale", "smoke"]
    assert main(args) == 0
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    cases = [json.loads(line) for line in (out / "cases.jsonl").read_text(encoding="utf-8").splitlines()]
    assert report["settings"]["audit_seeds"] == 2 and report["overall"]["n"] == len(cases) == 9
    assert all({"response", "grade", "comment", "reference"} <= set(c) for c in cases)
    assert (out / "imr_by_scenario.png").stat().st_size > 0
    markdown = (out / "report.md").read_text(encoding="utf-8")
    assert "| social_rumor | numeric_rumor * |" in markdown and "Self-audit" not in markdown
    assert "IMR" in capsys.readouterr().out
    assert main([*args[:-4], "--objects", "gossip"]) == 2
    assert "unknown object" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_:
        main([*args[:-2], "--scale", "huge"])
    assert exit_.value.code == 2


def test_runs_audit_again_with_the_next_seeds_and_report_mean_and_sd(
    tmp_path, capsys, auditor, target, monkeypatch
):
    from factcourt.nodes.audit import common

    samples: dict[int, list] = {}
    real_ask = common.ask

    async def recording(settings, role, schema, messages, **kwargs):
        if role == "prober":
            samples.setdefault(settings.audit_seed, []).append(kwargs["sample"])
        return await real_ask(settings, role, schema, messages, **kwargs)

    monkeypatch.setattr(common, "ask", recording)
    out = tmp_path / "audit"
    args = ["audit", "--target-model", "scripted-target", "--model", "scripted", "--out", str(out), "--quiet"]
    args += ["--search", "none", "--no-cache", "--objects", "social_rumor", "--scale", "smoke"]
    assert main([*args, "--runs", "2", "--set", "audit_seed=5"]) == 0
    summary = json.loads((out / "runs.json").read_text(encoding="utf-8"))
    assert [run["seed"] for run in summary["per_run"]] == [5, 6]
    for k in (1, 2):
        assert json.loads((out / f"run-{k}" / "report.json").read_text(encoding="utf-8"))["overall"]["n"] == 9
    assert summary["overall"]["runs"] == 2 and summary["overall"]["n"] == 18
    assert summary["overall"]["grade"] == {"mean": pytest.approx(6.0), "sd": 0.0}  # the same script twice
    assert "± 0.00" in (out / "runs.md").read_text(encoding="utf-8")
    assert "over 2 runs: IMR" in capsys.readouterr().out
    # a sampled agent's answers are keyed by the run's seed: run 2 never reads run 1's from the cache
    assert samples[5] == [[5, 3]] * 3 and samples[6] == [[6, 3]] * 3
    assert main([*args, "--runs", "0"]) == 2
    assert "--runs must be at least 1" in capsys.readouterr().err


RUNS_ARGS = ["audit", "--target-model", "scripted-target", "--model", "scripted", "--quiet", "--runs", "2"]
RUNS_ARGS += ["--search", "none", "--no-cache", "--objects", "social_rumor", "--scale", "smoke"]


def test_a_killed_runs_audit_goes_on_with_the_run_it_stopped_in(tmp_path, capsys, auditor, target):
    probes = {"n": 0, "crash": True}

    def probe(prompt):
        probes["n"] += 1
        if probes["crash"] and probes["n"] == 4:  # run 2's first probe: run 1 finished and written
            os._exit(9)
        return case("Probe of " + re.search(r'scenario "([^"]+)"', prompt).group(1))

    auditor.script["AuditCase"] = [probe]
    out = tmp_path / "audit"
    args = [*RUNS_ARGS, "--out", str(out)]
    crashing = multiprocessing.get_context("fork").Process(target=main, args=(args,))
    crashing.start()
    crashing.join(90)
    assert crashing.exitcode == 9 and (out / "run-1" / "report.json").exists()
    run_1 = (out / "run-1" / "report.json").read_text(encoding="utf-8")
    probes["crash"] = False
    assert main(args) == 0
    assert "run 1 of 2: finished before" in capsys.readouterr().err
    # run 1 is read back, not asked again: the target answers only the 7 of run 2's 9 cases
    # left after the crash (16 if run 1 were redone)
    assert target.count("text") == 7
    assert (out / "run-1" / "report.json").read_text(encoding="utf-8") == run_1
    summary = json.loads((out / "runs.json").read_text(encoding="utf-8"))
    assert summary["overall"]["runs"] == 2 and summary["overall"]["n"] == 18
    # other settings are another audit: run 1 is not read back for them
    assert main([*args, "--set", "audit_cases_per_scenario=2"]) == 0
    assert "finished before" not in capsys.readouterr().err


def test_a_runs_audit_in_which_a_run_graded_nothing_fails(tmp_path, capsys, auditor, target):
    answered = {"n": 0}

    def answer(prompt):
        answered["n"] += 1
        if answered["n"] > 9:  # the target dies after run 1's nine cases
            return RuntimeError("connection refused")
        return "Answer: Non-Factual\nJustification: mine."

    target.script["text"] = [answer]
    out = tmp_path / "audit"
    assert main([*RUNS_ARGS, "--out", str(out)]) == 1
    said = capsys.readouterr()
    assert "run 2 graded nothing" in said.err
    summary = json.loads((out / "runs.json").read_text(encoding="utf-8"))
    assert summary["overall"]["runs"] == 1 and summary["overall"]["imr"]["sd"] is None
    assert "over 1 run: IMR 33.33%" in said.out and "±" not in said.out  # one run has no sd


def test_a_killed_audit_resumes_and_redoes_no_graded_case(tmp_path, capsys, auditor, target):
    state = {"crash": True}

    # wish_rumor's three cases and dread_rumor's first: graded in parallel with the case the
    # target dies in, so the crash waits until each is saved (a count of writes would also count
    # other writes to the memory channel)
    graded = [f"social_rumor/wish_rumor/{n}" for n in (1, 2, 3)] + ["social_rumor/dread_rumor/1"]

    def graded_saved() -> bool:
        try:
            with closing(sqlite3.connect(checkpoints_path())) as conn:
                rows = conn.execute("SELECT value FROM writes WHERE channel = 'memory'").fetchall()
        except sqlite3.OperationalError:  # not created yet, or being written
            return False
        saved = b"".join(bytes(value) for (value,) in rows)
        return all(case_id.encode() in saved for case_id in graded)

    def target_answer(prompt):
        if "Seed2 dread_rumor" in prompt and state["crash"]:
            deadline = time.monotonic() + 30
            while not graded_saved() and time.monotonic() < deadline:
                time.sleep(0.05)
            os._exit(9 if graded_saved() else 8)  # as under kill -9
        return "Answer: Non-Factual\nJustification: mine."

    target.script["text"] = [target_answer]
    out = tmp_path / "audit"
    args = ["audit", "--target-model", "scripted-target", "--model", "scripted", "--out", str(out), "--quiet"]
    args += ["--search", "none", "--no-cache", "--objects", "social_rumor", "--scale", "smoke"]
    args += ["--set", "audit_initial_scenarios=2", "--set", "audit_scenario_cap=2"]
    crashing = multiprocessing.get_context("fork").Process(target=main, args=(args,))
    crashing.start()
    crashing.join(90)
    assert crashing.exitcode == 9, f"exit {crashing.exitcode} (8: the graded cases were never saved)"
    state["crash"] = False
    assert main(args) == 0
    cases = [json.loads(line) for line in (out / "cases.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [c["id"] for c in cases] == [
        f"social_rumor/{s}/{n}" for s in ("wish_rumor", "dread_rumor") for n in (1, 2, 3)
    ]
    # the resumed run asked the target about the case it died in and the probe, nothing graded before
    assert [p.count("Seed1") for _, p in target.calls] == [0, 0] and "Seed2 dread_rumor" in target.calls[0][1]
    inquired = [p for n, p in auditor.calls if n == "AuditCases" and "Generate" in p]
    assert not inquired  # dread_rumor's seeds were written before the crash
    assert main(args) == 0  # a finished audit is not resumed: it starts afresh
    assert target.count("text") == 8


def test_preflight_reaches_a_target_on_its_own_endpoint_without_an_openai_key(monkeypatch):
    from factcourt.api import preflight
    from factcourt.api.audit import audit_context

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    ctx = audit_context(
        "smoke", "qwen-7b", "http://127.0.0.1:8081/v1", {"model": "sim", "search": "none"}, {}
    )
    preflight(ctx)  # raised "model 'qwen-7b' needs OPENAI_API_KEY ... or a base_url" before


def test_a_scale_holds_when_the_settings_come_as_a_context():
    from factcourt.api.audit import audit_context
    from factcourt.context.audit import AUDIT_SCALES

    smoke = AUDIT_SCALES["smoke"]
    ctx = audit_context("smoke", "local", None, AuditContext(model="local", audit_seeds=1), {})
    assert ctx.audit_cases_per_scenario == smoke["audit_cases_per_scenario"]  # was the paper's 30
    assert ctx.audit_scenario_cap == smoke["audit_scenario_cap"] and ctx.audit_seeds == 1


def test_an_out_that_cannot_be_made_or_written_is_refused_before_the_audit(monkeypatch, capsys):
    def no_call(*args, **kwargs):
        raise AssertionError("the audit started before --out was checked")

    monkeypatch.setattr(models, "_prepare", no_call)
    argv = ["audit", "--target-model", "sim", "--model", "sim", "--search", "none", "--scale", "smoke"]
    assert main([*argv, "--out", "/proc/factcourt-test/audit"]) == 2
    said = " ".join(capsys.readouterr().err.split())
    assert "--out: cannot create the folder /proc/factcourt-test/audit" in said and said.count("error:") == 1
    assert main([*argv, "--out", "/proc/self"]) == 2  # a folder that takes no files
    assert "--out: cannot write in the folder /proc/self" in capsys.readouterr().err
