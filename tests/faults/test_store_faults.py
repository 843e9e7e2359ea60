"""A shared PostgreSQL store that goes away in the middle of a batch (issue 54: the store under faults).

The store is stopped as ``pg_ctl stop -m immediate`` stops it (no shutdown, connections cut)
while ``check --batch --store URL`` runs on the simulated model; then it comes back.
"""

import json

import pytest

from factcourt.cli import main
from tests.faults import interrupted, one_error
from tests.unit.test_batch import batch_args, results, write_rows

pytestmark = pytest.mark.integration


def test_a_store_gone_mid_batch_stops_it_in_one_sentence_and_the_rerun_finishes_it(
    tmp_path, capsys, stoppable_store
):
    store = stoppable_store
    texts = {f"r{i}": f"Thing{i} is fine. Other{i} is fine too." for i in range(12)}
    rows = write_rows(tmp_path / "b.jsonl", [{"id": i, "text": t} for i, t in texts.items()])
    out = tmp_path / "r.jsonl"
    args = batch_args(rows, out, "--model", "sim:0.1", "--concurrency", "2", "--store", store.url)
    code = interrupted(args, out, 2, lambda: store.stop(immediate=True))
    assert code == 1, "the batch went on without its store, or did not say it failed"
    said = capsys.readouterr()
    err = one_error(said.err)
    assert f"the store went away during the batch (cannot reach the store {store.url}" in err
    assert "run the same command again once the store is back" in err
    # only whole results, each once: a row cut off by the store is not written
    before = results(out)
    ids = [r["id"] for r in before]
    assert len(ids) == len(set(ids)) and 2 <= len(ids) < len(texts)
    assert f"{len(ids)} of {len(texts)} rows are finished in {out}" in err
    assert all(r["claims"] and all(c["verdict"] for c in r["claims"]) for r in before)

    store.start()
    assert main(args) == 0  # in the same process: its connections to the store are made again
    summary = json.loads(capsys.readouterr().out)
    assert summary["failed"] == []
    ids = [r["id"] for r in results(out)]
    assert sorted(ids) == sorted(texts), "a row was lost or written twice"
    assert summary["this_run"]["rows"] == len(texts) - len(before)
