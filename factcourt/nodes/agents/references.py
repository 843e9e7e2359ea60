"""Leading pronouns and vague references in the Clerk's claims, found and resolved without a model.

A claim such as "She discovered penicillin." is checked against whatever the search finds for
"she": it must name its subject before it is verified. The rule is the one a reader applies
to encyclopedic text: a leading pronoun or "the company" refers to the subject of the nearest
earlier sentence that names one, and "that year" to the last year written before it. What the
rule cannot resolve stays marked (``unresolved``), never guessed.
"""

from __future__ import annotations

import re

# the noun is lower case: "The Band" and "This Mortal Coil" are names, not references
_EN_VAGUE_NOUN = (
    r"^(the|this|that) (?-i:company|firm|city|country|band|group|team|club|film|book|novel|album|song|"
    r"ship|building|tower|bridge|church|museum|park|island|lake|river|mountain|university|school|"
    r"organi[sz]ation|party|state|region|province|empire|kingdom|dynasty|war|battle|treaty|"
    r"show|series|game|play|painting|station|airport|festival|species|language|first book)\b"
    # "The song of Tsinghua University", "The song '3SEX'", "The company Microsoft" say which one
    r"(?!(?-i:\s+of\s+(?:the\s+)?[A-Z]|\s+['\"‘“«]|\s+[A-Z]))"
)
# "In 1843 she ...", "That year, it ...", "Later, his ...": a subject pronoun after an opening phrase
_EN_OPENING = (
    r"(?:(?:in|by|after|before|during|since|from|until|that year|the same year|the following year|"
    r"later|then|eventually|subsequently|today|also)\b[^,.]{0,30}?,?\s+)?"
)
_UNRESOLVED = {
    "en": re.compile(
        rf"^{_EN_OPENING}(it|its|he|his|she|her|they|their)\b"
        r"|^(them|this|these|those)\b(?!(?-i:\s+[A-Z]))"
        rf"|{_EN_VAGUE_NOUN}"
        r"|\b(that|the same|the following|the previous) year\b",
        re.IGNORECASE,
    ),
    "zh": re.compile(r"^(它|他|她|他们|她们|它们|该|这|此|其)|该公司|那年|当年|同年|次年"),
}

# capitalised words that open an English sentence without naming its subject
_OPENERS = frozenset(
    "a about according after also although among an and as at because before between both but by "
    "despite during each for from however i if in it its he her his like many most my no not on one "
    "other our over she since so some such that the their them then there these they this those "
    "through today under unlike we when while with yet you "
    # sentence adverbs and answers that open real chatbot answers (issue 52)
    "additionally yes no contrary furthermore moreover overall finally ultimately instead indeed "
    "generally typically therefore thus hence meanwhile currently historically traditionally notably "
    "importantly interestingly unfortunately fortunately certainly absolutely well firstly secondly "
    "lastly first second third next here sure note".split()
)
_EN_NAME = re.compile(
    r"(?:The\s+)?[A-Z][\w'’.\-]*(?:\s+(?:(?:of|de|du|la|le|von|van|der|and|&|the|for|on)\s+)?[A-Z][\w'’.\-]*)*"
)
_ZH_NAME = re.compile(
    r"^([\u3400-\u9fff·A-Za-z0-9]{2,12}?)(?=是|位于|于|在|出生|为|由|被|曾|有|拥有|成立|建|创|发|获|的|很|也|最|已|将|属于|成为|作为|包括|，|,)"
)
_ZH_PRONOUN = re.compile(r"^(他们|她们|它们|他|她|它|这|该|此|其)")
_YEAR = re.compile(r"(?<!\d)(1\d{3}|20\d{2})(?!\d)")

_EN_POSSESSIVE = re.compile(rf"^({_EN_OPENING})(its|his|her|their)\b\s*", re.IGNORECASE)
_EN_PRONOUN = re.compile(rf"^({_EN_OPENING})(it|he|she|they)\b", re.IGNORECASE)
_EN_VAGUE = re.compile(_EN_VAGUE_NOUN, re.IGNORECASE)
_EN_YEAR = re.compile(r"(\b[Ii]n\s+)?\b([Tt]hat|[Tt]he same|[Tt]he following|[Tt]he previous) year\b")
_ZH_VAGUE = re.compile(
    r"^(该|这|此)(公司|城市|国家|组织|大学|机构|乐队|团队|电影|书籍|书|作品|河流|河|山|塔|建筑|地区|项目)"
)
_ZH_YEAR = {"那年": 0, "当年": 0, "同年": 0, "次年": 1}
_EN_YEAR_SHIFT = {"that": 0, "the same": 0, "the following": 1, "the previous": -1}


# "It is important to ...", "It was not until 1920 that ...": an "it" that stands for nothing
_EN_EXPLETIVE = re.compile(
    rf"^{_EN_OPENING}it(?:'s|’s| is| was| has been| will be| would be| may be| might be| can be|"
    r" seems| remains)\s+"
    r"(?:(?:not|also|generally|widely|often|very|still|now|highly|quite)\s+)*"
    r"(?:(?:important|possible|impossible|likely|unlikely|clear|unclear|true|worth|necessary|difficult|"
    r"hard|easy|common|rare|essential|interesting|notable|crucial|vital|best|better|safe|fair|illegal|"
    r"legal|unknown|uncertain|debated|disputed|advisable)\b"
    # "It is estimated that ..." says nothing of an "it"; "It is estimated to be 4,800 years old" does
    r"|(?:known|believed|thought|said|estimated|reported|expected|recommended)\s+that\b|not until\b)",
    re.IGNORECASE,
)


def unresolved(claim: str, language: str) -> str | None:
    """The pronoun or vague reference that leaves ``claim`` not self-contained, or None."""
    if language != "zh" and _EN_EXPLETIVE.match(claim.strip()):
        return None
    found = _UNRESOLVED.get(language, _UNRESOLVED["en"]).search(claim.strip())
    return found.group(0) if found else None


def subject_of(sentence: str, language: str) -> str | None:
    """The name a sentence opens with (its subject in encyclopedic text), or None."""
    text = sentence.strip()
    if language == "zh":
        found = _ZH_NAME.match(text)
        if not found or _ZH_PRONOUN.match(found.group(1)):
            return None
        return found.group(1)
    found = _EN_NAME.match(text)
    if not found:
        return None
    name = re.sub(r"['’]s$", "", found.group(0)).rstrip(".")
    words = name.split()
    named = len(words) > 1 and words[0] in ("The", "This", "These", "Those")  # "This Mortal Coil"
    first = words[1] if named else words[0]
    return None if first.lower() in _OPENERS else name


# "The smallest ocean is the Arctic Ocean.": the name a sentence gives as its answer, last
_EN_PREDICATE_NAME = re.compile(
    r"\b(?:is|was|are|were|remains|remained|became)\s+((?:the\s+)?[A-Z][\w'’.\-]*"
    r"(?:\s+(?:(?:of|de|du|la|le|von|van|der|and|&|the|for|on)\s+)?[A-Z][\w'’.\-]*)*)"
)


def predicate_name(sentence: str) -> str | None:
    """The last name a sentence states after "is"/"was" (what an answer's first sentence names), or None."""
    for found in reversed(list(_EN_PREDICATE_NAME.finditer(sentence))):
        name = re.sub(r"['’]s$", "", found.group(1)).rstrip(".")
        words = [w for w in name.split() if w.lower() != "the"]
        if words and words[0].lower() not in _OPENERS:
            return name
    return None


def _antecedent(before: list[str], language: str) -> str | None:
    """The subject of the nearest earlier text that names one; of the nearest, else the name it ends on."""
    for distance, text in enumerate(reversed(before)):
        if name := subject_of(text, language):
            return name
        if distance == 0 and language != "zh" and (name := predicate_name(text)):
            return name
    return None


def _last_year(before: list[str]) -> int | None:
    years = [int(y) for text in before for y in _YEAR.findall(text)]
    return years[-1] if years else None


def _years(claim: str, before: list[str], language: str) -> str | None:
    """``claim`` with its relative years made absolute; None when no year was named before."""
    if language == "zh":
        if not any(word in claim for word in _ZH_YEAR):
            return claim
        if (year := _last_year(before)) is None:
            return None
        for word, shift in _ZH_YEAR.items():
            claim = claim.replace(word, f"{year + shift}年")
        return claim
    if not _EN_YEAR.search(claim):
        return claim
    if (year := _last_year(before)) is None:
        return None

    def absolute(found: re.Match[str]) -> str:
        written = f"in {year + _EN_YEAR_SHIFT[found.group(2).lower()]}"
        return written.capitalize() if found.start() == 0 else written

    return _EN_YEAR.sub(absolute, claim)


def _subject(claim: str, name: str, language: str) -> str:
    """``claim`` with its leading pronoun or vague reference replaced by ``name``."""
    if language == "zh":
        if claim.startswith("其"):
            return f"{name}的{claim[1:]}"
        found = _ZH_VAGUE.match(claim) or _ZH_PRONOUN.match(claim)
        return name + claim[found.end() :] if found else claim
    if found := _EN_POSSESSIVE.match(claim):
        return f"{found.group(1)}{_opening(name, found.group(1))}'s {claim[found.end() :]}"
    if found := _EN_PRONOUN.match(claim):
        return found.group(1) + _opening(name, found.group(1)) + claim[found.end() :]
    if found := _EN_VAGUE.match(claim):
        return _opening(name, "") + claim[found.end() :]
    return claim


def _opening(name: str, before: str) -> str:
    """``name`` as written after ``before``: capitalised where it opens the sentence ("the Arctic Ocean")."""
    return name[:1].upper() + name[1:] if not before else name


def resolve(claim: str, before: list[str], language: str) -> str | None:
    """``claim`` made self-contained from the texts ``before`` it (nearest last), or None.

    None means a reference stays that the rule cannot resolve: the caller marks the claim.
    """
    claim = claim.strip()
    if not unresolved(claim, language):
        return claim
    dated = _years(claim, before, language)
    if dated is None:
        return None
    claim = dated
    if unresolved(claim, language) and (name := _antecedent(before, language)):
        claim = _subject(claim, name, language)
    return None if unresolved(claim, language) else claim
