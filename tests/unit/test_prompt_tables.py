"""Prompts are typed tables, one per system, read by attribute; the prompts package names no system."""

import ast
from pathlib import Path

from factcourt import prompts
from factcourt.prompts import agents, claims, claims_en, claims_zh, hallucination

ROOT = Path(__file__).resolve().parents[2]


def test_a_chinese_table_is_the_english_one_with_only_the_translated_words_replaced():
    en, zh = claims.table("en"), claims.table("zh")
    assert (
        zh.JUROR.system == claims_zh.JUROR_SYSTEM and zh.JUROR.user == en.JUROR.user == claims_en.JUROR_USER
    )
    assert zh.ROLES == en.ROLES and zh.DCV_PAPER_ROUND == en.DCV_PAPER_ROUND  # never translated
    assert agents.table("zh").CLERK.user == agents.table("en").CLERK.user
    assert agents.table("zh").LABELS["refuted_first"] == "refuted 还是 supported"


def test_a_language_without_a_table_reads_english():
    assert claims.table("fr") is claims.EN and agents.table("") is agents.EN
    assert hallucination.table("zh") is hallucination.EN  # no translation yet


def test_the_prompts_package_names_no_system():
    """It keeps the shared helpers; each node imports its own system's table."""
    tree = ast.parse((ROOT / "factcourt" / "prompts" / "__init__.py").read_text(encoding="utf-8"))
    imported = {
        node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.level == 0
    }
    assert not {m for m in imported if m.startswith("factcourt.")}


def test_a_pair_is_a_system_prompt_and_its_filled_user_prompt():
    system, user = prompts.conversation(claims.EN.QUERY, claim="C", queries="none")
    assert system.content == claims_en.QUERY_SYSTEM and "<claim>C</claim>" in user.content
