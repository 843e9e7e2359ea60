"""Knowledge statements must rest on the fragments they cite: the gatherer may not add facts."""

from factcourt.nodes.hallucination.gather import grounded_statements, stated_by
from factcourt.state import Evidence

PAN = Evidence(
    title="Peter Pan (character)",
    text="Peter Pan is a fictional character created by Scottish novelist and playwright J. M. Barrie.",
    url="pan",
    source="local",
)
ZOO = Evidence(title="Melbourne Zoo", text="The zoo is 4 km north of the centre of Melbourne.", url="zoo")


def test_a_statement_whose_names_and_numbers_its_sources_hold_is_stated():
    assert stated_by("Peter Pan was created by the playwright J. M. Barrie.", [PAN])
    assert stated_by("Melbourne Zoo is 4 km north of the centre of Melbourne.", [ZOO]), "a title counts"


def test_a_name_or_number_the_sources_lack_is_not_stated():
    # the embedded gatherer answered the question from an unrelated fragment (HaluEval 5431, local search)
    assert not stated_by("The boy in Gary Paulsen's series 'Hatchet' is Peter Pan.", [PAN])
    assert not stated_by("The zoo is 5 km north of Melbourne.", [ZOO])
    assert not stated_by("Peter Pan was created in 1904.", [PAN])


def test_case_and_common_words_do_not_matter():
    assert stated_by("The Zoo lies 4 km north of melbourne's centre, it says.", [ZOO])
    assert stated_by("巴黎是法国的首都，有 200 万人。", [Evidence(text="巴黎有 200 万人")])
    assert not stated_by("巴黎有 300 万人。", [Evidence(text="巴黎有 200 万人")])
    assert stated_by("埃菲尔铁塔于1889年建成。", [Evidence(text="铁塔建于1889年")]), (
        "the number, not every character"
    )


def test_an_unstated_statement_gives_way_to_its_fragments_and_an_unsourced_one_to_nothing():
    statements = [
        ("Peter Pan is a fictional character.", [PAN]),
        ("The boy in Gary Paulsen's Hatchet is Peter Pan.", [PAN]),
        ("Hatchet was written in 1987.", []),
        ("The zoo is 5 km north of Melbourne.", [ZOO, PAN]),
    ]
    assert grounded_statements(statements, [PAN, ZOO]) == (
        [("Peter Pan is a fictional character.", [PAN]), (PAN.text, [PAN]), (ZOO.text, [ZOO])],
        [statement for statement, _ in statements[1:]],
    )


def test_an_unsourced_statement_that_some_fragment_states_is_kept():
    assert grounded_statements([("Melbourne Zoo is 4 km from Melbourne.", [])], [PAN, ZOO]) == (
        [("Melbourne Zoo is 4 km from Melbourne.", [])],
        [],
    )
