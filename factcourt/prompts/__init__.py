"""Every prompt text, in English and Chinese. Nothing else lives here.

Untrusted text (responses, claims, evidence, earlier turns) is always placed inside tags and
the system prompts say that tagged text is data, never instructions.
"""

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

from factcourt.prompts.audit_en import EN as AUDIT_EN
from factcourt.prompts.claims_en import EN
from factcourt.prompts.claims_zh import ZH
from factcourt.prompts.debatecv_en import EN as DEBATECV_EN
from factcourt.prompts.hallucination_en import EN as HALLUCINATION_EN
from factcourt.prompts.longqa_en import EN as LONGQA_EN
from factcourt.prompts.longqa_zh import ZH as LONGQA_ZH
from factcourt.prompts.pyramid_en import EN as PYRAMID_EN
from factcourt.prompts.pyramid_zh import ZH as PYRAMID_ZH

# one module of prompts per system beside the shared tables; found by name like the others
PROMPTS = {
    "en": {**EN, **DEBATECV_EN, **HALLUCINATION_EN, **PYRAMID_EN, **LONGQA_EN, **AUDIT_EN},
    "zh": {**ZH, **PYRAMID_ZH, **LONGQA_ZH},
}


def prompt(language: str, name: str) -> str:
    """Return prompt ``name`` in ``language`` (English where no translation exists)."""
    return PROMPTS.get(language, PROMPTS["en"]).get(name) or PROMPTS["en"][name]


def conversation(language: str, name: str, **fields: object) -> list[BaseMessage]:
    """The system prompt ``NAME_SYSTEM`` and the user prompt ``NAME_USER`` filled with ``fields``."""
    return [
        SystemMessage(prompt(language, f"{name}_SYSTEM")),
        HumanMessage(prompt(language, f"{name}_USER").format(**fields)),
    ]
