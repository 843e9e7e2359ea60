"""Nothing a run writes is lost or spoiled (issue 54, items 5-7).

A torn last line of a JSONL output is dropped before the next run appends; no output path may
name an input or another output of the same run; two prompt ids never share a pyramid file.
"""

import json

import pytest

from factcourt.cli import main
from tests.faults import one_error

SIM = ["--model", "sim", "--no-cache"]


def _tear(path, cut=40):
    """Cut the last ``cut`` bytes: a writer killed in the middle of its last line."""
    data = path.read_bytes()
    path.write_bytes(data[:-cut])


def _lines(path):
    """Every line of a JSONL file, each parsed: one that does not parse fails the test."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _batch(tmp_path):
    rows = tmp_path / "b.jsonl"
    texts = ["Paris is in France.", "The Moon orbits the Earth.", "Mount Everest is in Asia."]
    rows.write_text("".join(json.dumps({"id": str(i), "text": t}) + "\n" for i, t in enumerate(texts)))
    return rows


def test_a_batch_drops_a_torn_last_line_before_it_appends(tmp_path):
    rows, out = _batch(tmp_path), tmp_path / "t.jsonl"
    argv = ["check", "--batch", str(rows), "--out", str(out), *SIM, "--search", "none", "--quiet"]
    assert main(argv) == 0
    _tear(out)
    assert main(argv) == 0
    ids = [r["id"] for r in _lines(out)]
    assert sorted(ids) == ["0", "1", "2"]


@pytest.mark.parametrize("command", ["bench run", "synth-sft", "leaderboard"])
def test_every_resumable_jsonl_drops_a_torn_last_line(command, qa_dataset, fourway_dataset, tmp_path):
    prompts = tmp_path / "p.jsonl"
    prompts.write_text(
        '{"id": "a", "prompt": "Tell me about the Eiffel Tower."}\n'
        '{"id": "b", "prompt": "Tell me about the Moon."}\n',
        encoding="utf-8",
    )
    argv, written = {
        "bench run": (
            ["bench", "run", "--methods", "single", "--evidence", "given", "--dataset", str(qa_dataset)],
            tmp_path / "d" / "predictions.jsonl",
        ),
        "synth-sft": (["synth-sft", "--dataset", str(fourway_dataset)], tmp_path / "sft.jsonl"),
        "leaderboard": (
            ["leaderboard", "--prompts", str(prompts), "--targets", "sim", "--experts", "sim"],
            tmp_path / "d" / "records.jsonl",
        ),
    }[command]
    out = written if command == "synth-sft" else written.parent
    argv = [*argv, *SIM, "--search", "none", "--out", str(out)]
    assert main(argv) in (0, 1)
    before = len(_lines(written))
    _tear(written, 20)
    assert main(argv) in (0, 1)
    assert len(_lines(written)) == before  # the torn record made again, and its fragment gone


def test_an_appended_summary_drops_a_torn_last_line(qa_dataset, tmp_path):
    results = tmp_path / "engine.jsonl"
    argv = ["bench", "engine", "--dataset", str(qa_dataset), "--part", "all", "--limit", "2", *SIM]
    argv += ["--append", str(results)]
    assert main(argv) == 0
    _tear(results)
    assert main(argv) == 0
    assert len(_lines(results)) == 1


def test_a_store_drops_only_a_torn_last_line_and_only_when_it_appends(tmp_path):
    from factcourt.store import PredictionStore

    path = tmp_path / "p.jsonl"
    path.write_text(
        '{"method": "m", "id": "1"}\n{"method": "m", "id": "2"}\n{"method": "m", "i', encoding="utf-8"
    )
    reader = PredictionStore(path)
    assert set(reader.records) == {("m", "1"), ("m", "2")}
    assert path.read_text(encoding="utf-8").endswith('"i')  # a reader writes nothing
    PredictionStore(path).append({"method": "m", "id": "3"})
    assert [r["id"] for r in _lines(path)] == ["1", "2", "3"]


# ------------------------------------------------------------------ outputs naming inputs


def _text(tmp_path):
    text = tmp_path / "e2.txt"
    text.write_text("The Eiffel Tower is in Paris.\n", encoding="utf-8")
    return text


@pytest.mark.parametrize(
    "extra, flags",
    [
        (lambda t, d: ["--out", str(t)], "--out"),
        (lambda t, d: ["--html", str(t)], "--html"),
        (lambda t, d: ["--out", str(d / "x"), "--html", str(d / "x")], "--out"),
        (lambda t, d: ["--out", str(d / "x"), "--html", str(d / "." / "x")], "--html"),
    ],
    ids=["out is the input", "html is the input", "out is html", "the same file spelt otherwise"],
)
def test_check_refuses_an_output_that_names_its_input_or_another_output(
    extra, flags, tmp_path, scripted, capsys
):
    text = _text(tmp_path)
    argv = ["check", str(text), "--model", "scripted", "--search", "none", *extra(text, tmp_path)]
    assert main(argv) == 2
    said = one_error(capsys.readouterr().err)
    assert flags in said
    assert not scripted.calls
    assert text.read_text(encoding="utf-8") == "The Eiffel Tower is in Paris.\n"


def test_verify_refuses_an_out_that_is_its_evidence(tmp_path, scripted, capsys):
    evidence = tmp_path / "ev.jsonl"
    evidence.write_text('{"text": "Paris is the capital of France."}\n', encoding="utf-8")
    argv = ["verify", "--claim", "Paris is in France.", "--evidence", str(evidence), "--out", str(evidence)]
    assert main([*argv, "--model", "scripted"]) == 2
    assert "--evidence" in one_error(capsys.readouterr().err) and not scripted.calls
    assert evidence.read_text(encoding="utf-8") == '{"text": "Paris is the capital of France."}\n'


def test_bench_run_refuses_an_html_inside_its_out_folder(qa_dataset, tmp_path, scripted, capsys):
    out = tmp_path / "d"
    argv = ["bench", "run", "--methods", "single", "--evidence", "given", "--dataset", str(qa_dataset)]
    argv += ["--model", "scripted", "--out", str(out), "--html", str(out / "predictions.jsonl")]
    assert main(argv) == 2
    said = one_error(capsys.readouterr().err)
    assert "--html" in said and "--out" in said
    assert not scripted.calls


def test_synth_sft_refuses_an_out_that_is_its_dataset(fourway_dataset, tmp_path, capsys):
    before = fourway_dataset.read_text(encoding="utf-8")
    argv = ["synth-sft", "--dataset", str(fourway_dataset), *SIM, "--out", str(fourway_dataset)]
    assert main(argv) == 2
    assert "--dataset" in one_error(capsys.readouterr().err)
    assert fourway_dataset.read_text(encoding="utf-8") == before


# ------------------------------------------------------------------ pyramid file names


def test_two_prompt_ids_never_share_a_pyramid_file(tmp_path):
    prompts = tmp_path / "p.jsonl"
    prompts.write_text(
        '{"id": "x/y", "prompt": "Tell me about the Eiffel Tower."}\n'
        '{"id": "x_y", "prompt": "Tell me about the Moon."}\n',
        encoding="utf-8",
    )
    out = tmp_path / "lb"
    argv = ["leaderboard", "--prompts", str(prompts), "--targets", "sim", "--experts", "sim"]
    assert main([*argv, *SIM, "--search", "none", "--out", str(out)]) in (0, 1)
    files = sorted((out / "pyramids").iterdir())
    assert len(files) == 2
    questions = {json.loads(f.read_text(encoding="utf-8"))["question"] for f in files}
    assert len(questions) == 2
    assert (out / "pyramids" / "x_y.json") in files  # an id that is a file name keeps its name


def test_a_whole_last_record_without_its_line_end_is_kept(tmp_path):
    from factcourt.store import PredictionStore

    path = tmp_path / "p.jsonl"
    path.write_text('{"method": "m", "id": "1"}\n{"method": "m", "id": "2"}', encoding="utf-8")
    store = PredictionStore(path)
    assert store.done("m", "2")
    store.append({"method": "m", "id": "3"})
    assert [r["id"] for r in _lines(path)] == ["1", "2", "3"]


def test_a_torn_line_cut_inside_a_character_is_dropped_too(tmp_path):
    from factcourt.store import PredictionStore

    path = tmp_path / "p.jsonl"
    whole = '{"method": "m", "id": "1", "text": "Straße"}\n'
    path.write_bytes((whole + '{"method": "m", "id": "2", "text": "Stra\u00dfe"}').encode()[:-4])
    store = PredictionStore(path)
    assert set(store.records) == {("m", "1")}
    store.append({"method": "m", "id": "2"})
    assert [r["id"] for r in _lines(path)] == ["1", "2"]


def _small_files() -> None:
    """``preexec_fn``: no file of the child may grow past 64 bytes, as on a full disk (EFBIG, no signal)."""
    import resource
    import signal

    resource.setrlimit(resource.RLIMIT_FSIZE, (64, 64))
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)


def test_a_write_cut_short_leaves_the_imported_review_decisions_whole(tmp_path, capsys):
    """reviews.json, every decision imported so far, was rewritten in place: a write cut short (a
    full disk, a kill) left half a JSON file, and every later command failed on it."""
    import subprocess
    import sys
    from pathlib import Path

    from tests.unit.test_longqa import review, review_rows

    out = tmp_path / "lq"
    seeds = Path(__file__).parent.parent / "fixtures" / "halluqa_seeds.json"
    argv = [
        "build-longqa",
        "--seeds",
        str(seeds),
        "--out",
        str(out),
        "--limit",
        "2",
        *SIM,
        "--search",
        "none",
    ]
    assert main([*argv, "--quiet"]) == 0
    first, second = sorted({row["id"] for row in review_rows(out)})
    sheet = review(out, {first: {"decision": "drop", "reason": "a duplicate"}})
    assert main(["build-longqa", "--out", str(out), "--import-review", str(sheet)]) == 0
    decided = json.loads((out / "reviews.json").read_text(encoding="utf-8"))
    sheet = review(out, {second: {"decision": "keep", "reason": ""}})
    importing = [sys.executable, "-m", "factcourt.cli", "build-longqa", "--out", str(out), "--import-review"]
    child = subprocess.run(
        [*importing, str(sheet)], preexec_fn=_small_files, capture_output=True, text=True, timeout=120
    )
    said = one_error(child.stderr)
    assert child.returncode == 2 and f"cannot write to {out / 'reviews.json'}: File too large" in said
    assert json.loads((out / "reviews.json").read_text(encoding="utf-8")) == decided
    capsys.readouterr()
    assert main(["build-longqa", "--out", str(out), "--import-review", str(sheet)]) == 0
    assert set(json.loads((out / "reviews.json").read_text(encoding="utf-8"))) == {first, second}
