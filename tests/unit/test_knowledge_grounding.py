"""Knowledge statements must rest on the fragments they cite: the gatherer may not add facts."""

from factcourt.nodes.agents.gatherer import grounded_statements, stated_by
from factcourt.state.records import Evidence

PAN = Evidence(
    title="Peter Pan (character)",
    text="Peter Pan is a fictional character created by Scottish novelist and playwright J. M. Barrie.",
    url="pan",
    source="local",
)
ZOO = Evidence(title="Melbourne Zoo", text="The zoo is 4 km north of the centre of Melbourne.", url="zoo")
HECTARES = Evidence(text="The zoo: 1,000 animals on 4 hectares.")


def test_a_statement_whose_names_and_numbers_its_sources_hold_is_stated():
    assert stated_by("Peter Pan was created by the playwright J. M. Barrie.", [PAN])
    assert stated_by("Melbourne Zoo is 4 km north of the centre of Melbourne.", [ZOO]), "a title counts"


def test_a_name_or_number_the_sources_lack_is_not_stated():
    # the embedded gatherer answered the question from an unrelated fragment (HaluEval 5431, local search)
    assert not stated_by("The boy in Gary Paulsen's series 'Hatchet' is Peter Pan.", [PAN])
    assert not stated_by("The zoo is 5 km north of Melbourne.", [ZOO])
    assert not stated_by("Peter Pan was created in 1904.", [PAN])


def test_case_accents_and_common_words_do_not_matter():
    assert stated_by("The Zoo lies 4 km north of melbourne's centre, it says.", [ZOO])
    assert stated_by(
        "Zürich and İstanbul lie 1,000 km apart.", [Evidence(text="zurich and istanbul: 1000 km")]
    )


def test_numbers_are_compared_whole():
    assert not stated_by("The zoo covers 1.4 hectares.", [HECTARES])
    assert stated_by("The zoo has 1000 animals.", [HECTARES])


def test_in_chinese_only_numbers_and_latin_names_are_checked():
    # Chinese names have no capitals to find them by: "巴黎是德国的首都" passes against "法国" too
    assert stated_by("巴黎是法国的首都，有 200 万人。", [Evidence(text="巴黎有 200 万人")])
    assert not stated_by("巴黎有 300 万人。", [Evidence(text="巴黎有 200 万人")])
    assert stated_by("埃菲尔铁塔于1889年建成。", [Evidence(text="铁塔建于1889年")]), (
        "the number, not each character"
    )
    assert stated_by("苹果公司由Steve Jobs创立", [Evidence(text="苹果公司由 Steve Jobs 创立")])


def test_an_unstated_statement_gives_way_to_its_fragments_after_the_stated_ones():
    statements = [
        ("The boy in Gary Paulsen's Hatchet is Peter Pan.", [PAN]),
        ("Hatchet was written in 1987.", []),
        ("The zoo is 5 km north of Melbourne.", [ZOO, PAN]),
        ("Peter Pan is a fictional character.", [PAN]),
        (ZOO.text, [ZOO]),
    ]
    assert grounded_statements(statements, [PAN, ZOO]) == (
        [("Peter Pan is a fictional character.", [PAN]), (ZOO.text, [ZOO]), (PAN.text, [PAN])],
        [statement for statement, _ in statements[:3]],
    ), "stated ones first, no text twice, an unsourced unstated one dropped"


def test_an_unsourced_statement_must_be_stated_by_one_fragment():
    kept = "Melbourne Zoo is 4 km from Melbourne."
    assert grounded_statements([(kept, [])], [PAN, ZOO]) == ([(kept, [])], [])
    mixed = "Peter Pan lives in Melbourne Zoo."  # each name is in some fragment, not both in one
    assert grounded_statements([(mixed, [])], [PAN, ZOO]) == ([], [mixed])
