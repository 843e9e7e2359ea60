"""The first pass's calibration: fitted on dev parts by `bench calibrate`, stored per model and prompt."""

import json

from factcourt.bench.runner import in_part
from factcourt.cli import main
from tests.fakes import with_logprobs

# raw readings that lean to 'refuted' whatever the truth: TRUE claims read 0.40, FALSE ones 0.10
IDS = [f"c{i}" for i in range(200) if in_part(f"c{i}", "dev")][:12]
ROWS = [
    {
        "id": i,
        "claim": f"Claim {n} is {'true' if n % 2 == 0 else 'false'}.",
        "label": n % 2 == 0,
        "evidence": ["x"],
    }
    for n, i in enumerate(IDS)
]


def leaning(prompt):
    p = 0.4 if " is true." in prompt else 0.1
    return with_logprobs({"verdict": "refuted"}, {"supported": p, "refuted": 1 - p})


def test_calibrate_fits_stores_and_every_later_run_reads_the_fit(scripted, tmp_path, capsys):
    data = tmp_path / "claims.jsonl"
    data.write_text("\n".join(json.dumps(r) for r in ROWS), encoding="utf-8")
    scripted.script["Label"] = [leaning]
    argv = ["bench", "calibrate", "--dataset", f"{data}:given", "--model", "scripted", "--limit", "12"]
    assert main([*argv, "--out", str(tmp_path / "cal"), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["model"] == "registered:scripted" and report["datasets"][0]["raw_accuracy"] == 0.5
    assert set(report["slopes"]) == {"given"}  # the one kind of evidence it was read over
    claim = ["verify", "--claim", "Claim 0 is true.", "--model", "scripted", "--search", "none", "--json"]
    assert main([*claim, "--no-cache"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["p_true_raw"] == 0.4 and result["p_true"] > 0.5 and result["verdict"] == "supported"
    assert main([*claim, "--no-cache", "--set", "calibration=off"]) == 0
    raw = json.loads(capsys.readouterr().out)
    assert raw["p_true"] == 0.4 and raw["verdict"] == "refuted"


def test_a_fit_for_another_prompt_or_model_is_not_used(scripted, tmp_path, capsys, monkeypatch):
    from factcourt.context.claims import ClaimsContext
    from factcourt.nodes.claims.label_reading import calibration_of, label_prompt_key
    from factcourt.providers import calibration

    ctx = ClaimsContext(model="scripted")
    fit = calibration.Calibration(a=1.0, b=3.0, model="registered:scripted", prompt="another")
    calibration.save(fit, "two")
    assert calibration_of(ctx) is None
    other = calibration.Calibration(a=1.0, b=3.0, model="registered:other", prompt=label_prompt_key())
    calibration.save(other, "two")
    assert calibration_of(ctx) is None
    ours = calibration.Calibration(a=1.0, b=3.0, model="registered:scripted", prompt=label_prompt_key())
    calibration.save(ours, "two")
    assert calibration_of(ctx).b == 3.0
    assert calibration_of(ClaimsContext(model="scripted", calibration="off")) is None


def test_the_embedded_default_ships_a_fit_for_its_label_prompt():
    from factcourt.context.claims import ClaimsContext
    from factcourt.nodes.claims.label_reading import calibration_of

    fit = calibration_of(ClaimsContext())  # found in the package, not in the (empty) user cache
    assert fit is not None and fit.model.startswith("local:") and sum(fit.fitted_on.values()) >= 80
    # chosen leaving one dataset out (#53): a moved boundary cost SciFact and COVID-Fact items, so
    # the verdict stays the raw reading's and only how sure it is gets scaled, most over search
    assert fit.form == "slope" and fit.b == 0.0
    assert 0.5 < fit.apply(0.9, "searched") < fit.apply(0.9, "given") < 0.9 and fit.apply(0.1) < 0.5


def test_a_slope_per_evidence_kind_scales_the_confidence_and_never_moves_the_verdict():
    from factcourt.providers.calibration import Calibration, evidence_kind, leaning

    fit = Calibration(a=0.5, b=1.0, model="m", prompt="p", slopes={"given": 1.0, "searched": 0.0})
    assert [evidence_kind(s) for s in ("given", "local", "tavily", "auto", "none")] == [
        "given",
        "searched",
        "searched",
        "searched",
        None,
    ]
    for raw in (0.02, 0.1, 0.2, 0.5, 0.9):
        pooled = fit.apply(raw)
        assert leaning(raw, fit) == (pooled >= 0.5)
        # the same side of the boundary (raw log-odds -2) over either kind
        assert (fit.apply(raw, "given") >= 0.5) == (pooled >= 0.5)
        assert fit.apply(raw, "searched") == 0.5  # readings over searched evidence said nothing
    assert fit.apply(0.1, None) == fit.apply(0.1) and fit.apply(0.1, "other") == fit.apply(0.1)
    assert not leaning(0.4, None) and leaning(0.5, None)


def test_a_flat_slope_shows_an_even_confidence_and_keeps_the_pooled_verdict(scripted, monkeypatch):
    import asyncio

    from factcourt.context.claims import ClaimsContext
    from factcourt.nodes.claims import label_reading
    from factcourt.providers.calibration import Calibration
    from factcourt.state.records import Evidence

    fit = Calibration(a=1.0, b=-1.0, model="registered:scripted", prompt="p", slopes={"given": 0.0})
    monkeypatch.setattr(label_reading, "calibration_of", lambda ctx: fit)
    scripted.script["Label"] = [with_logprobs({"verdict": "supported"}, {"supported": 0.6, "refuted": 0.4})]
    ctx = ClaimsContext(model="scripted", search="given", cache=False)
    turn, _ = asyncio.run(
        label_reading.decide_by_labels(ctx, "C.", [Evidence(text="x")], language="en", run_name="t", tags=[])
    )
    # raw log-odds 0.41 is below the boundary 1.0: refuted, shown at an even 0.5
    assert turn.verdict == "refuted" and turn.probabilities == {"supported": 0.5, "refuted": 0.5}


def test_calibrate_on_an_endpoint_that_fails_exits_1_and_names_the_failure(scripted, tmp_path, capsys):
    data = tmp_path / "claims.jsonl"
    data.write_text("\n".join(json.dumps(r) for r in ROWS), encoding="utf-8")
    scripted.script["Label"] = [TimeoutError("the endpoint timed out")]
    argv = ["bench", "calibrate", "--dataset", f"{data}:given", "--model", "scripted", "--limit", "12"]
    assert main([*argv, "--out", str(tmp_path / "cal"), "--set", "retries=0"]) == 1
    said = " ".join(capsys.readouterr().err.split())
    assert "12 of the readings" in said and "timed out" in said and "logprobs" not in said


def test_leave_one_dataset_out_judges_each_form_by_its_worst_left_out_set():
    from factcourt.bench.calibrate import FORMS, best_form, leave_one_out

    # two sets lean "refuted" (true claims read .3), one does not: a boundary fitted on the two
    # hurts the third, so the worst fold keeps the raw reading's boundary
    leaning = [(0.3, True, 2000)] * 10 + [(0.1, False, 2000)] * 10
    level = [(0.7, True, 300)] * 10 + [(0.2, False, 300)] * 8 + [(0.4, False, 300)] * 2
    forms = leave_one_out({"web-a": leaning, "web-b": leaning, "short": level})
    assert set(forms) == set(FORMS) and all(len(rows) == 3 for rows in forms.values())
    platt = {row["dataset"]: row for row in forms["platt"]}
    assert platt["short"]["lost"] > 0  # the fit of the leaning sets says "supported" at .4
    assert {row["vs_raw"] for row in forms["raw"]} == {0.0}
    assert best_form(forms) in ("length", "raw", "slope")
    chosen = {row["dataset"]: row["vs_raw"] for row in forms[best_form(forms)]}
    assert min(chosen.values()) >= min(r["vs_raw"] for r in forms["platt"])


def test_a_tie_on_the_verdicts_goes_to_the_form_whose_worst_set_is_best_calibrated():
    from factcourt.bench.calibrate import best_form

    row = {"vs_raw": 0.0, "won": 0, "lost": 0}
    forms = {
        "raw": [{**row, "ece": 0.30}, {**row, "ece": 0.25}],
        "slope": [{**row, "ece": 0.12}, {**row, "ece": 0.15}],
        "platt": [{**row, "vs_raw": 0.2, "ece": 0.1}, {**row, "vs_raw": -0.1, "ece": 0.1}],
        "length": [{**row, "vs_raw": 0.3, "ece": 0.1}, {**row, "vs_raw": -0.2, "ece": 0.1}],
    }
    assert best_form(forms) == "slope"


def test_the_stored_fit_keeps_the_raw_verdict_when_the_worst_left_out_set_says_so(scripted, tmp_path):
    import asyncio

    from factcourt.bench.calibrate import run_calibrate
    from factcourt.bench.context import BenchContext
    from factcourt.providers.calibration import Calibration
    from factcourt.providers.calibration import leaning as calibrated_leaning

    # two sets whose true claims read .3, one whose false claims read .4: a boundary that helps
    # the two hurts the third, so the fit stored keeps the raw verdict and only scales confidence
    def reading(prompt):
        if "short" in prompt:
            p = 0.7 if " is true." in prompt else 0.4
        else:
            p = 0.3 if " is true." in prompt else 0.05
        return with_logprobs({"verdict": "refuted"}, {"supported": p, "refuted": 1 - p})

    scripted.script["Label"] = [reading]
    specs = []
    for name, text in (("web-a", "web"), ("web-b", "web"), ("short", "short")):
        rows = [{**r, "evidence": [f"{text} evidence"]} for r in ROWS]
        path = tmp_path / name / "claims.jsonl"
        path.parent.mkdir()
        path.write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
        specs.append((path, "given"))
    base = BenchContext(model="scripted", cache=False)
    report = asyncio.run(
        run_calibrate(
            specs,
            lambda evidence: BenchContext.make(base, search=evidence),
            tmp_path / "out",
            limit=12,
            folder=tmp_path / "fits",
        )
    )
    assert report["best_form"] in ("raw", "slope") and report["form"] == report["best_form"]
    assert report["b"] == 0.0
    stored = json.loads(next((tmp_path / "fits").glob("*.json")).read_text())
    fit = Calibration(**stored)
    assert [calibrated_leaning(p, fit) for p in (0.3, 0.49, 0.5, 0.7)] == [False, False, True, True]
