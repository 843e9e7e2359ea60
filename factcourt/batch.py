"""Batch runs: ``check --batch`` and ``detect --batch`` over a JSONL file of rows.

Each row is checked by the same API call as a single text. Its result is appended to ``--out``
the moment it finishes, so a killed batch resumes where it stopped (rows already there are
skipped). It is also put once into the store's ``batch_results`` table under a key of the row's
content and settings: two processes on one shared store, or a Ray task run again after its
worker died, take a result already there instead of asking the models again, and none is ever
written twice. A row that fails is written nowhere: the next run tries it again.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any

from factcourt.api import ProgressHook
from factcourt.context.base import BaseContext
from factcourt.errors import ConfigError, FactcourtError, InputError, StoreError, first_line
from factcourt.handed import Handed
from factcourt.inputs import decode, strip_controls
from factcourt.metrics.cost import Prices, dollars
from factcourt.providers.cache import cache_key, lost_store, once, store
from factcourt.redact import redact
from factcourt.state.records import Result
from factcourt.store import PredictionStore

RESULTS = "batch_results"
# settings that change how fast a result comes, not what it says: a rerun may change them
HOW_IT_RUNS = (
    "retries",
    "timeout_s",
    "answer_timeout_s",
    "max_concurrency",
    "cache",
    "local_slots",
    "local_threads",
    "local_keep_alive",
    "local_wait_s",
)
USAGE = ("calls", "input_tokens", "output_tokens", "search_calls")


@dataclass(frozen=True)
class BatchRow:
    """A system's ``--batch`` rows: the text fields of a row and how one row is run."""

    fields: tuple[str, ...]
    """Text fields each row must have."""
    problem: Callable[[dict[str, str]], str | None]
    """Why a row's texts cannot be run, as the API would refuse them."""
    run: Callable[[dict[str, str], Any], Awaitable[Result]]
    """One row's result, given its texts and the context (its ``failure()``: is it a full one?)."""
    optional: tuple[str, ...] = ()
    """Text fields a row may have."""
    items: bool = False
    """Whether a row's result holds items (claims) the summary counts."""


# a system's batch kind (its command), its rows and its result model
Rows = tuple[str, BatchRow, type[Result]]
# the systems' rows, handed over by the registry: this module names no system
ROWS: Handed[Sequence[Rows]] = Handed(())


def kinds() -> list[str]:
    """The commands that take ``--batch`` rows, as the systems declare them."""
    return [kind for kind, _, _ in ROWS()]


def _rows_of(kind: str) -> tuple[BatchRow, type[Result]]:
    """The batch row and result model of command ``kind``; ConfigError for another."""
    for named, row, result in ROWS():
        if named == kind:
            return row, result
    raise ConfigError(f"unknown batch kind {kind!r}; choose from {kinds()}")


def row_of(kind: str) -> BatchRow:
    """The batch row of command ``kind``."""
    return _rows_of(kind)[0]


@dataclass(frozen=True)
class Row:
    """One row to check: its line in the file, its id and its text fields."""

    line: int
    id: str
    values: dict[str, str]
    key: str = ""
    """The result's key in the store: the row's content and every setting that changes its result."""
    base_url: str | None = None
    """The endpoint replica this row is sent to, when several are given."""


@dataclass(frozen=True)
class Rejected:
    """A line of the file that is no row, and why."""

    line: int
    id: str | None
    reason: str


@dataclass
class Batch:
    """The rows of a batch file and the lines rejected."""

    rows: list[Row] = field(default_factory=list)
    rejected: list[Rejected] = field(default_factory=list)


def read_batch(path: Path, kind: str) -> Batch:
    """The rows of a JSONL batch file; each bad line is rejected with its line number and the rest read.

    A file that cannot be read, holds NUL bytes (UTF-16 without a byte-order mark) or no row at
    all is bad input as a whole (InputError).
    """
    if path.is_dir():
        raise InputError(f"{path} is a folder, not a batch file")
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise InputError(f"no such batch file: {path}") from None
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror}") from None
    if b"\x00" in data or data.startswith((b"\xff\xfe", b"\xfe\xff")):
        lines: list[str | None] = list(decode(data, str(path)).split("\n"))  # UTF-16, or refused
    else:  # line by line: one line in another encoding is one row lost, not the file
        lines = [_utf8(raw) for raw in data.removeprefix(b"\xef\xbb\xbf").split(b"\n")]
    batch = Batch()
    first_line: dict[str, int] = {}
    torn = not data.endswith(b"\n")
    for number, text in enumerate(lines, start=1):
        if text is None:
            batch.rejected.append(Rejected(number, None, "not UTF-8 text"))
            continue
        if not text.strip():
            continue
        last = number == len(lines)
        row = _row(text.rstrip("\r"), number, kind, torn and last)
        if isinstance(row, Rejected):
            batch.rejected.append(row)
        elif row.id in first_line:
            batch.rejected.append(
                Rejected(number, row.id, f"duplicate id {row.id!r} (first on line {first_line[row.id]})")
            )
        else:
            first_line[row.id] = number
            batch.rows.append(row)
    if not batch.rows:
        if not batch.rejected:
            raise InputError(f"{path} holds no rows: one JSON object a line, e.g. {_example(kind)}")
        first = batch.rejected[0]
        raise InputError(f"{path} holds no row that can be read; line {first.line}: {first.reason}")
    return batch


def _utf8(raw: bytes) -> str | None:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _example(kind: str) -> str:
    return json.dumps({"id": "1", **{name: "..." for name in row_of(kind).fields}})


def _row(text: str, number: int, kind: str, torn: bool) -> Row | Rejected:
    """The row one line holds, or why it holds none."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        if torn:  # a writer killed in the middle of its last line
            return Rejected(number, None, "torn last line: the file ends in the middle of a row")
        return Rejected(number, None, f"not valid JSON ({exc.msg} at column {exc.colno})")
    if not isinstance(value, dict):
        return Rejected(number, None, f"not a JSON object, e.g. {_example(kind)}")
    row_id = value.get("id")
    if isinstance(row_id, bool) or not isinstance(row_id, str | int) or not str(row_id).strip():
        return Rejected(number, None, "no id: each row needs an 'id' (text or a whole number)")
    row_id = str(row_id)
    values = {}
    shape = row_of(kind)
    for name in shape.fields + shape.optional:
        found = value.get(name)
        if found is None and name in shape.optional:
            continue
        if not isinstance(found, str) or (name in shape.fields and not found.strip()):
            said = "no" if found in (None, "") or isinstance(found, str) else "a non-text"
            return Rejected(number, row_id, f"{said} {name!r}")
        values[name] = strip_controls(found)  # a terminal's escape sequence is no text to check
    if problem := shape.problem(values):
        return Rejected(number, row_id, problem)  # the same on every rerun: bad input, not a failure
    return Row(number, row_id, values)


def replica(row_id: str, replicas: list[str]) -> str | None:
    """The endpoint replica a row goes to: fixed by its id, so a resumed row meets its cache again."""
    if not replicas:
        return None
    return replicas[int(hashlib.sha256(row_id.encode("utf-8")).hexdigest(), 16) % len(replicas)]


def keyed(batch: Batch, kind: str, ctx: BaseContext, replicas: list[str]) -> list[Row]:
    """The rows with their replica and result key."""
    from factcourt.checkpoints import run_key

    defaults = type(ctx)()
    ctx = type(ctx).make(ctx, **{name: getattr(defaults, name) for name in HOW_IT_RUNS})
    urls: list[str | None] = [*replicas] or [None]
    bases = {url: run_key(f"batch-{kind}", [], _on(ctx, url)) for url in urls}
    done = []
    for row in batch.rows:
        url = replica(row.id, replicas)
        done.append(replace(row, base_url=url, key=cache_key(bases[url], row.values)))
    return done


def _on(ctx: BaseContext, base_url: str | None) -> BaseContext:
    return ctx if base_url is None else type(ctx).make(ctx, base_url=base_url)


async def settle(kind: str, row: Row, ctx: BaseContext) -> dict[str, Any]:
    """Check one row, or take its result from the store.

    The outcome is ``{"id", "result", "stored"}`` or ``{"id", "error"}``: it never raises for
    the row's own failure, so one bad row never stops a batch. A shared store that cannot be
    reached after a failure raises StoreError: no row can be settled without it.
    """
    try:
        results = await asyncio.to_thread(store, RESULTS) if ctx.cache else None
        # another process's result, finished before or meanwhile, is the one kept everywhere
        result, stored = await once(results, row.key, partial(_checked, kind, row, ctx))
    except FactcourtError as exc:
        error = str(exc)
    except Exception as exc:  # noqa: BLE001  a bug met by one row is reported with it
        error = redact(f"{type(exc).__name__}: {first_line(exc)}")[:400]
    else:
        return {"id": row.id, "result": result, "stored": stored}
    # a shared store gone away fails every row after this one: the batch stops instead
    if gone := await asyncio.to_thread(lost_store):
        raise StoreError(gone)
    return {"id": row.id, "error": error}


async def _checked(kind: str, row: Row, ctx: BaseContext) -> dict[str, Any]:
    """The row's result as JSON; a result that is no full success raises FactcourtError, saying why."""
    result = await row_of(kind).run(row.values, _on(ctx, row.base_url))
    if reason := result.failure():
        raise FactcourtError(reason)
    return result.model_dump(mode="json")


def _lost(row: Row, reason: str) -> dict[str, Any]:
    """The outcome of a row whose Ray task failed: tried again by the next run."""
    return {"id": row.id, "error": reason}


async def settle_all(
    kind: str,
    rows: list[Row],
    ctx: BaseContext,
    concurrency: int,
    on_outcome: Callable[[Row, dict[str, Any]], None],
) -> None:
    """Settle ``rows``, ``concurrency`` at a time, handing each outcome over as it comes."""
    gate = asyncio.Semaphore(concurrency)

    async def one(row: Row) -> None:
        async with gate:
            outcome = await settle(kind, row, ctx)
        on_outcome(row, outcome)

    tasks = [asyncio.ensure_future(one(row)) for row in rows]
    try:
        await asyncio.gather(*tasks)
    finally:  # a batch that stops (its store went away) leaves no row running
        for task in tasks:
            task.cancel()


async def run_batch(
    kind: str,
    path: Path,
    out_path: Path,
    ctx: BaseContext,
    *,
    concurrency: int = 4,
    replicas: list[str] | None = None,
    ray: str | None = None,
    prices: Prices = Prices(),
    progress: ProgressHook | None = None,
) -> dict[str, Any]:
    """Check every row of ``path`` not yet in ``out_path``; return the summary.

    ``ray``: the address of a Ray cluster ('auto' for the one this machine belongs to) whose
    workers settle the rows. Bad input as a whole and a row in ``out_path`` that another text or
    other settings made are refused before any call (InputError).
    """
    row_of(kind)
    if out_path.resolve() == path.resolve():
        raise ConfigError("--out names the --batch file itself: give the results another file")
    batch = read_batch(path, kind)
    rows = keyed(batch, kind, ctx, list(replicas or []))
    out = PredictionStore(out_path, key=("id",))
    if out.repeated:  # a batch stores only finished rows, once: two runs wrote at once
        raise InputError(
            f"{out_path} holds row {out.repeated[0][0]!r} more than once (two runs wrote into it at "
            "once?): keep one line of each row, or give another --out"
        )
    todo = []
    for row in rows:
        if (done := out.records.get((row.id,))) is None:
            todo.append(row)
        elif done.get("key") != row.key:
            raise InputError(
                f"{out_path} holds a result of row {row.id!r} made from another text or with other "
                "settings: give another --out"
            )
    hook = progress or (lambda event: None)
    hook({"event": "batch", "total": len(rows), "done": len(rows) - len(todo)})
    outcomes: dict[str, dict[str, Any]] = {}

    def finished(row: Row, outcome: dict[str, Any]) -> None:
        outcomes[row.id] = outcome
        if "result" in outcome:
            out.append({"id": row.id, "key": row.key, **outcome["result"]})
        hook({"event": "row", "id": row.id, "error": outcome.get("error")})

    started = time.monotonic()
    try:
        if ray is None:
            await settle_all(kind, todo, ctx, concurrency, finished)
        elif todo:
            from factcourt.fanout import cluster, fan_out

            # in this thread, blocking the loop that has nothing else to run: Ray's driver installs
            # its signal handlers only in the main thread
            with cluster(ray) as joined:
                fan_out(
                    joined, todo, partial(settle, kind, ctx=ctx), finished, _lost, concurrency=concurrency
                )
    except StoreError as exc:
        raise StoreError(
            f"the store went away during the batch ({exc}); {len(out.records)} of {len(rows)} rows are "
            f"finished in {out_path}: run the same command again once the store is back"
        ) from None
    seconds = time.monotonic() - started
    return summary(kind, rows, batch.rejected, out, outcomes, seconds, prices)


def summary(
    kind: str,
    rows: list[Row],
    rejected: list[Rejected],
    out: PredictionStore,
    outcomes: dict[str, dict[str, Any]],
    seconds: float,
    prices: Prices,
) -> dict[str, Any]:
    """What the batch holds now (every finished row in ``out``) and what this run did."""
    lines = {row.id: row.line for row in rows}
    finished = [out.records[(row.id,)] for row in rows if (row.id,) in out.records]
    verdicts: Counter[str] = Counter()
    shape, result = _rows_of(kind)
    claims = 0
    for record in finished:  # a row finished before results named their kind reads the same
        items, said = result.model_validate(record).tally()
        claims += items
        verdicts.update(said)
    usage = {k: sum(r["usage"].get(k, 0) for r in finished) for k in USAGE}
    made = [o["result"] for o in outcomes.values() if "result" in o and not o["stored"]]
    spent = {k: sum(r["usage"].get(k, 0) for r in made) for k in USAGE}
    return {
        "rows": len(rows) + len(rejected),
        "finished": len(finished),
        "claims": claims if shape.items else None,
        "verdicts": dict(verdicts.most_common()),
        "failed": [
            {"id": i, "line": lines[i], "reason": o["error"]} for i, o in outcomes.items() if "error" in o
        ],
        "rejected": [{"line": r.line, "id": r.id, "reason": r.reason} for r in rejected],
        "usage": usage,
        "cost_usd": round(dollars(usage, prices), 6),
        "this_run": {
            "rows": len(outcomes),
            "checked": len(made),
            "from_store": sum(1 for o in outcomes.values() if o.get("stored")),
            "seconds": round(seconds, 3),
            "rows_per_s": round(len(outcomes) / seconds, 3) if seconds > 0 else None,
            **spent,
            "cost_usd": round(dollars(spent, prices), 6),
        },
    }
