"""Each failure says what is wrong, in one sentence, in the user's terms, with the right exit code."""

import json
import os

import pytest

from factcourt.cli import main
from tests.faults import one_error


def test_a_small_folder_corpus_finds_its_documents(tmp_path, capsys):
    """BM25's IDF is 0 or below for a term in half the documents or more: one or two never matched."""
    folder = tmp_path / "c"
    folder.mkdir()
    (folder / "a.txt").write_text("The Eiffel Tower is in Paris, France.", encoding="utf-8")
    claim = ["verify", "--claim", "The Eiffel Tower is in Paris.", "--model", "sim", "--json"]
    assert main([*claim, "--search", "local", "--corpus", str(folder)]) == 0
    assert [e["url"] for e in json.loads(capsys.readouterr().out)["evidence"]] == ["a.txt"]
    (folder / "b.txt").write_text("The Moon orbits the Earth.", encoding="utf-8")
    assert main([*claim, "--search", "local", "--corpus", str(folder), "--no-cache"]) == 0
    assert "a.txt" in [e["url"] for e in json.loads(capsys.readouterr().out)["evidence"]]


@pytest.mark.parametrize(
    "kind, words",
    [("latin-1", "a.txt is not UTF-8 text"), ("unreadable", "cannot read")],
)
def test_a_folder_corpus_file_that_cannot_be_read_is_bad_input(kind, words, tmp_path, capsys):
    folder = tmp_path / "c"
    folder.mkdir()
    doc = folder / "a.txt"
    doc.write_bytes("Le café est à Montréal.".encode("latin-1" if kind == "latin-1" else "utf-8"))
    if kind == "unreadable":
        doc.chmod(0)
        if os.access(doc, os.R_OK):  # root reads anything: nothing to show
            pytest.skip("running as root")
    argv = ["verify", "--claim", "Le café est à Montréal.", "--model", "sim", "--search", "local"]
    assert main([*argv, "--corpus", str(folder)]) == 2
    said = one_error(capsys.readouterr().err)
    assert words in said and "PermissionError" not in said


def test_a_link_to_nothing_in_a_folder_corpus_is_no_document(tmp_path, capsys):
    folder = tmp_path / "c"
    folder.mkdir()
    (folder / "a.txt").write_text("The Eiffel Tower is in Paris, France.", encoding="utf-8")
    (folder / "gone.txt").symlink_to(tmp_path / "nowhere")
    (folder / "notes.txt").mkdir()
    argv = ["verify", "--claim", "The Eiffel Tower is in Paris.", "--model", "sim", "--json"]
    assert main([*argv, "--search", "local", "--corpus", str(folder)]) == 0
    assert [e["url"] for e in json.loads(capsys.readouterr().out)["evidence"]] == ["a.txt"]


@pytest.mark.parametrize(
    "argv, words",
    [
        (["verify", "--claim", "Paris is in France.", "--model", "sim", "--evidence", "DIR"], "is a folder"),
        (["bench", "run", "--dataset", "DIR", "--model", "sim", "--out", "OUT"], "is a folder"),
        (["build-longqa", "--seeds", "DIR", "--model", "sim", "--out", "OUT"], "is a folder"),
    ],
    ids=["evidence", "dataset", "seeds"],
)
def test_a_folder_given_as_a_file_is_named_a_folder(argv, words, tmp_path, capsys):
    argv = [str(tmp_path) if a == "DIR" else str(tmp_path / "out") if a == "OUT" else a for a in argv]
    assert main(argv) == 2
    said = one_error(capsys.readouterr().err)
    assert f"{tmp_path} is a folder, not a file" in said and "no such" not in said


def test_an_empty_knowledge_file_names_knowledge(tmp_path, capsys):
    knowledge = tmp_path / "k.jsonl"
    knowledge.write_text("\n", encoding="utf-8")
    argv = ["detect", "-q", "Where is Paris?", "-a", "In France.", "--model", "sim"]
    assert main([*argv, "--knowledge", str(knowledge)]) == 2
    said = one_error(capsys.readouterr().err)
    assert "leave out --knowledge" in said and "--evidence" not in said


@pytest.mark.parametrize(
    "name, data, words",
    [
        ("e.json", '[\n  {"text": "fine"},\n  {"text": }\n]', "e.json:3:12: not valid JSON"),
        ("e.jsonl", '{"text": "fine"}\n{"text" "x"}\n', "e.jsonl:2:9: not valid JSON"),
    ],
)
def test_bad_json_names_its_line_and_column(name, data, words, tmp_path, capsys):
    path = tmp_path / name
    path.write_text(data, encoding="utf-8")
    assert main(["verify", "--claim", "Paris is in France.", "--model", "sim", "--evidence", str(path)]) == 2
    assert words in one_error(capsys.readouterr().err)


def test_a_file_that_is_no_pyramid_says_what_is_missing_in_one_sentence(tmp_path, capsys):
    path = tmp_path / "p.json"
    path.write_text('{"question": "Where is Paris?"}', encoding="utf-8")
    assert main(["pyramid", "--load", str(path)]) == 2
    said = one_error(capsys.readouterr().err)
    assert "p.json is not a saved pyramid" in said and "validation error" not in said
