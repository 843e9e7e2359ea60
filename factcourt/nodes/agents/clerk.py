"""The Clerk (MAD-Fact): split a long-form response into atomic, check-worthy claims."""

from __future__ import annotations

import asyncio
import difflib
import re
from collections.abc import Iterable
from dataclasses import dataclass

import pysbd

from factcourt.context.base import BaseContext
from factcourt.nodes.agents.references import resolve, subject_of, unresolved
from factcourt.nodes.helpers import fence
from factcourt.prompts import conversation
from factcourt.prompts.agents import table
from factcourt.providers.models import ask
from factcourt.state.records import (
    Claim,
    ClerkDropReason,
    ClerkOutput,
    DroppedSentence,
    ResolvedClaims,
    Usage,
)

MAX_RESPONSE_CHARS = 100_000
CHUNK_CHARS = 1200
# The Clerk writes a claim or two a sentence: 13 list lines overran its 512 tokens, 9 did not
CHUNK_SENTENCES = 8


def response_problem(text: str) -> str | None:
    """Why a response cannot be checked, or None."""
    if not text or not text.strip():
        return "the text to check is empty"
    if len(text) > MAX_RESPONSE_CHARS:
        return (
            f"the text has {len(text):,} characters; the limit is {MAX_RESPONSE_CHARS:,}: "
            "split it and check the parts"
        )
    return None


@dataclass(frozen=True)
class Sentence:
    """A sentence of the response and where it stands there."""

    text: str
    start: int
    end: int


def sentences_of(text: str) -> list[Sentence]:
    """Sentences of English or Chinese text with their spans; a line break ends one too (list items).

    pysbd's rules: "Richard N. Haass", "Dr. Smith", "3.5 million" end no sentence. The Clerk
    names sentences by their numbers here, so a sentence cut at an initial would be two.
    """
    segmenter = pysbd.Segmenter(language="en", clean=False)  # its English rules end 。！？ too
    found = []
    for line in re.finditer(r"[^\n]+", text):
        cursor = line.start()
        for piece in (p.strip() for p in segmenter.segment(line.group())):
            if not piece:
                continue
            if (start := text.find(piece, cursor, line.end())) < 0:
                break  # pysbd changed the text: the rest of the line stays one sentence
            found.append(Sentence(piece, start, start + len(piece)))
            cursor = start + len(piece)
        if rest := text[cursor : line.end()].strip():  # never lose what pysbd did not give back
            start = text.index(rest, cursor)
            found.append(Sentence(rest, start, start + len(rest)))
    return found


def chunk(sentences: list[Sentence], limit: int = CHUNK_CHARS) -> list[list[Sentence]]:
    """Group whole sentences into chunks of at most ``limit`` characters and ``CHUNK_SENTENCES``.

    A longer sentence stays whole, so no sentence is cut or dropped.
    """
    chunks: list[list[Sentence]] = []
    for sentence in sentences:
        if chunks and sentence.end - chunks[-1][0].start <= limit and len(chunks[-1]) < CHUNK_SENTENCES:
            chunks[-1].append(sentence)
        else:
            chunks.append([sentence])
    return chunks


def same_sentence(a: str, b: str) -> bool:
    """Whether two sentences are the same up to case, spacing and small edits."""
    a, b = " ".join(a.split()).lower(), " ".join(b.split()).lower()
    return bool(a and b) and (a in b or b in a or difflib.SequenceMatcher(None, a, b).ratio() > 0.7)


def _content(text: str) -> set[str]:
    """Words of three or more letters, lower-cased, and every CJK character."""
    latin = {w for w in re.findall(r"[^\W\d_]{3,}", text.lower()) if not re.search(r"[\u3400-\u9fff]", w)}
    return latin | set(re.findall(r"[\u3400-\u9fff]", text))


def states_its_sentence(claim: str, sentence: str) -> bool:
    """Whether a claim shares a content word with the sentence it was taken from.

    A small Clerk sometimes fills the claim field with a label ("True") instead of the claim.
    """
    said = _content(sentence)
    return not said or bool(_content(claim) & said)


# what opens a sentence that states no fact of the world: the writer, the reader, a greeting
_NOT_A_FACT = re.compile(
    r"^\W*(i|i'm|i am|i'd|in my (opinion|view)|personally|you|your|please|let me|let's|as an ai|"
    r"sure|yes|no|okay|ok|hello|hi|thanks|thank you|overall|ultimately|remember)\b",
    re.IGNORECASE,
)


def holds_a_fact(sentence: str) -> bool:
    """Whether a sentence names something (a capitalised word past its first) or holds a number.

    The test of a sentence the Clerk dropped: "7. Sir Ranulph Fiennes - Explorer." and "They won
    in 2015." hold facts to check; "Sure!", "I think it is lovely." and advice to the reader do not.
    """
    body = re.sub(r"^\W*\d+[.)]\s+", "", sentence.strip())  # a list item's number is no fact
    if _NOT_A_FACT.match(body):
        return False
    words = body.split()
    return bool(re.search(r"\d", body)) or any(w[:1].isupper() for w in words[1:])


@dataclass
class Drafted:
    """A claim as taken from the Clerk: the sentence it comes from, and the claim (resolved in place)."""

    sentence: Sentence
    claim: str


def numbered(sentences: list[Sentence], numbers: Iterable[int] | None = None) -> str:
    """Sentences as the Clerk reads them, one per line: "[3] The sentence." (fenced)."""
    numbers = range(1, len(sentences) + 1) if numbers is None else numbers
    return "\n".join(f"[{n}] {fence(sentences[n - 1].text)}" for n in numbers)


def source_of(number: int, claim: str, sentences: list[str]) -> int | None:
    """The number of the sentence a claim comes from, or None when none can be told.

    The Clerk's number when that sentence shares a word with the claim (a resolved pronoun
    shares words with the sentence before, so the most shared words would mislead); else the
    sentence sharing the most, as a small model sometimes numbers wrong. A claim sharing no
    word with any (a label such as "True") keeps the Clerk's number when that is a sentence.
    """
    named, said = 1 <= number <= len(sentences), _content(claim)
    if named and said & _content(sentences[number - 1]):  # never a wordless line ("---") by default
        return number
    overlap = {n: len(said & _content(s)) for n, s in enumerate(sentences, 1)}
    best = max(overlap, key=overlap.__getitem__, default=None)
    if best is not None and overlap[best]:
        return best
    return number if named else None


def _take(
    output: ClerkOutput,
    sentences: list[Sentence],
    asked: set[int],
    claims: list[Drafted],
    drops: dict[int, ClerkDropReason],
) -> set[int]:
    """Add the Clerk's claims and drops of the sentences ``asked``; the numbers it named of them.

    Asked again about the sentences it skipped, a small Clerk often answers for all of them:
    what it says again of the others would be checked twice in other words.
    """
    texts, named = [s.text for s in sentences], set()
    for item in output.claims:
        if (number := source_of(item.sentence, item.claim, texts)) in asked:
            claims.append(Drafted(sentences[number - 1], item.claim))
            named.add(number)
    for drop in output.dropped:
        if drop.sentence in asked:
            drops.setdefault(drop.sentence, drop.reason)
            named.add(drop.sentence)
    return named


async def _clerk(
    ctx: BaseContext,
    language: str,
    question: str,
    text: str,
    sentences: list[Sentence],
    name: str,
    *,
    halve: bool = True,
) -> tuple[list[Drafted], list[DroppedSentence], Usage]:
    """Ask the Clerk about a chunk's sentences: the claims, the drops and the usage.

    The Clerk reads the sentences numbered and names each claim's sentence by its number.
    Sentences it skipped are asked again (with the whole chunk as context, so their pronouns can
    be resolved), then kept whole as claims, so no sentence disappears silently (small local
    models skip list items). A sentence that yielded a claim is checked, not dropped.
    An answer cut at max_tokens would be cut again if asked again: each half of the chunk is
    asked on its own instead (its pronouns are resolved later with the whole chunk); a half cut
    again keeps its sentences whole as claims, so a Clerk that loops costs three calls. A chunk
    the Clerk failed on otherwise is one dropped part with the reason.
    """
    response = numbered(sentences)
    messages = conversation(table(language).CLERK, question=question, response=response)
    answer = await ask(ctx, "clerk", ClerkOutput, messages, run_name=name, tags=["clerk"], retry_cut=False)
    usage, output = answer.usage, answer.value
    if output is None and answer.cut:
        if not (halve and len(sentences) > 1):
            return [Drafted(s, s.text) for s in sentences], [], usage
        half = len(sentences) // 2
        halves = await asyncio.gather(
            *(
                _clerk(ctx, language, question, text, part, f"{name}, half {i + 1}", halve=False)
                for i, part in enumerate((sentences[:half], sentences[half:]))
            )
        )
        drafted, dropped, spent = (first + second for first, second in zip(*halves, strict=True))
        return drafted, dropped, usage + spent
    if output is None:
        part = text[sentences[0].start : sentences[-1].end]
        return [], [DroppedSentence(sentence=part, reason="clerk_failed", error=answer.error)], usage
    claims: list[Drafted] = []
    drops: dict[int, ClerkDropReason] = {}
    named = _take(output, sentences, set(range(1, len(sentences) + 1)), claims, drops)
    if missing := [n for n in range(1, len(sentences) + 1) if n not in named]:
        again = await ask(
            ctx,
            "clerk",
            ClerkOutput,
            conversation(
                table(language).CLERK_AGAIN,
                question=question,
                response=response,
                sentences=numbered(sentences, missing),
            ),
            run_name=f"{name} (skipped sentences)",
            tags=["clerk"],
        )
        usage += again.usage
        if again.value is not None:
            named |= _take(again.value, sentences, set(missing), claims, drops)
        claims += [Drafted(sentences[n - 1], sentences[n - 1].text) for n in missing if n not in named]
    claimed = {c.sentence for c in claims}
    # a small Clerk drops facts as "opinion" ("They both won the world championship in 2015"):
    # a dropped sentence that names something or holds a number is checked whole
    claims += [
        Drafted(sentences[n - 1], sentences[n - 1].text)
        for n in sorted(drops)
        if sentences[n - 1] not in claimed and holds_a_fact(sentences[n - 1].text)
    ]
    claimed = {c.sentence for c in claims}
    dropped = [
        DroppedSentence(sentence=sentences[n - 1].text, reason=reason)
        for n, reason in sorted(drops.items())
        if sentences[n - 1] not in claimed
    ]
    return claims, dropped, usage


async def _resolve(
    ctx: BaseContext, language: str, question: str, part: str, vague: list[Drafted], name: str
) -> Usage:
    """Rewrite claims with unresolved references in place; keep a rewrite only when it resolves.

    A rewrite must name a subject the text itself names: a small model otherwise guesses one.
    """
    answer = await ask(
        ctx,
        "clerk",
        ResolvedClaims,
        conversation(
            table(language).CLERK_RESOLVE,
            question=question,
            response=fence(part),
            claims="\n".join(f"{i + 1}. {fence(c.claim)}" for i, c in enumerate(vague)),
        ),
        run_name=f"{name} (resolve references)",
        tags=["clerk"],
    )
    rewrites = answer.value.claims if answer.value else []
    for claim, rewrite in zip(vague, rewrites, strict=False):
        if rewrite.strip() and not unresolved(rewrite, language) and _named_in(rewrite, part, language):
            claim.claim = rewrite.strip()
    return answer.usage


def _named_in(rewrite: str, text: str, language: str) -> bool:
    """Whether the subject ``rewrite`` opens with is written in ``text``."""
    name = subject_of(rewrite, language)
    return name is not None and name.lower() in text.lower()


def _resolve_in_order(items: list[Drafted], sentences: list[Sentence], language: str) -> None:
    """Resolve leading references by rule, in reading order, in place.

    Each claim reads the sentences before its own and the claims already resolved, so a
    pronoun at the start of a later chunk still finds the subject named in an earlier one.
    """
    done: list[str] = []
    for item in items:
        before = [s.text for s in sentences if s.end <= item.sentence.start]
        resolved = resolve(item.claim, before + done, language)
        if resolved is not None:
            item.claim = resolved
        done.append(item.claim)


async def split_claims(
    ctx: BaseContext, response: str, question: str, language: str, *, max_claims: int
) -> tuple[list[Claim], list[DroppedSentence], Usage]:
    """The Clerk's claims of ``response`` (each with its source span), the dropped sentences and the usage.

    Asked chunk by chunk; claims past ``max_claims`` are dropped as ``over_limit``.
    """
    question = fence(question)
    sentences = sentences_of(response)
    parts = chunk(sentences)
    answers = await asyncio.gather(
        *(
            _clerk(ctx, language, question, response, part, f"clerk chunk {i + 1}")
            for i, part in enumerate(parts)
        )
    )
    usage, items, dropped, chunk_of = Usage(), [], [], {}
    for number, (drafted, drops, spent) in enumerate(answers):
        usage += spent
        dropped += drops
        for item in drafted:
            if not states_its_sentence(item.claim, item.sentence.text):
                # the sentence itself is a claim of the response; the label is nothing to check
                item.claim = item.sentence.text
            items.append(item)
            chunk_of[id(item)] = number
    _resolve_in_order(items, sentences, language)
    for number, part in enumerate(parts):
        if vague := [i for i in items if chunk_of[id(i)] == number and unresolved(i.claim, language)]:
            text = response[part[0].start : part[-1].end]
            usage += await _resolve(ctx, language, question, text, vague, f"clerk chunk {number + 1}")
    claims: list[Claim] = []
    seen = set()
    for item in items:
        key = " ".join(item.claim.lower().split())
        if not key or key in seen:
            continue
        seen.add(key)
        if not any(ch.isalnum() for ch in key):  # a stray backtick or bullet is no claim
            dropped.append(DroppedSentence(sentence=item.claim, reason="not_verifiable"))
        elif len(claims) >= max_claims:
            dropped.append(DroppedSentence(sentence=item.claim, reason="over_limit"))
        else:
            # a reference left unresolved is never guessed: the claim is checked with the sentence
            # before in view and marked, since a sentence skipped looks checked to the reader
            reference = unresolved(item.claim, language) or ""
            claims.append(
                Claim(
                    id=f"c{len(claims) + 1}",
                    text=item.claim.strip(),
                    sentence=item.sentence.text,
                    span=(item.sentence.start, item.sentence.end),
                    unresolved=reference,
                    context=_sentence_before(item.sentence, sentences) if reference else "",
                )
            )
    return claims, dropped, usage


def _sentence_before(sentence: Sentence, sentences: list[Sentence]) -> str:
    """The text of the last sentence that ends before ``sentence`` starts, or ''."""
    return next((s.text for s in reversed(sentences) if s.end <= sentence.start), "")
