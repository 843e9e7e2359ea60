"""Deterministic resolution of a claim's leading pronoun or vague reference (the Clerk's guard)."""

from factcourt.nodes.agents.references import resolve, subject_of, unresolved


def test_subject_of_an_english_sentence_is_its_leading_name():
    assert subject_of("The Eiffel Tower is a lattice tower in Paris.", "en") == "The Eiffel Tower"
    assert subject_of("Marie Curie was a physicist born in Warsaw.", "en") == "Marie Curie"
    assert subject_of("University of Tokyo was founded in 1877.", "en") == "University of Tokyo"
    assert subject_of("In 1889, the tower opened.", "en") is None
    assert subject_of("She won two Nobel Prizes.", "en") is None
    assert subject_of("the tower opened.", "en") is None


def test_subject_of_a_chinese_sentence_ends_at_its_predicate():
    assert subject_of("埃菲尔铁塔位于法国巴黎。", "zh") == "埃菲尔铁塔"
    assert subject_of("居里夫人是一位物理学家。", "zh") == "居里夫人"
    assert subject_of("她获得了两次诺贝尔奖。", "zh") is None


def test_pronouns_take_the_subject_of_the_nearest_earlier_claim():
    before = ["Marie Curie was a physicist born in Warsaw."]
    assert resolve("She won two Nobel Prizes.", before, "en") == "Marie Curie won two Nobel Prizes."
    assert resolve("Her husband was Pierre Curie.", before, "en") == "Marie Curie's husband was Pierre Curie."
    tower = ["The Eiffel Tower is in Paris.", "In 1889 it opened."]
    assert resolve("It was completed in 1889.", tower, "en") == "The Eiffel Tower was completed in 1889."
    assert resolve("Its height is 330 m.", tower, "en") == "The Eiffel Tower's height is 330 m."


def test_vague_noun_phrases_take_the_earlier_subject():
    before = ["Microsoft is an American technology company."]
    resolved = resolve("The company was founded by Bill Gates.", before, "en")
    assert resolved == "Microsoft was founded by Bill Gates."


def test_relative_years_take_the_last_year_named_before():
    before = ["The Berlin Wall fell in 1989."]
    assert resolve("That year, many governments collapsed.", before, "en") == (
        "In 1989, many governments collapsed."
    )
    assert resolve("Elections were held the following year.", before, "en") == "Elections were held in 1990."
    assert resolve("Germany reunified the same year.", before, "en") == "Germany reunified in 1989."


def test_chinese_pronouns_and_years():
    before = ["埃菲尔铁塔位于法国巴黎。"]
    assert resolve("它建成于1889年。", before, "zh") == "埃菲尔铁塔建成于1889年。"
    assert resolve("其高度为330米。", before, "zh") == "埃菲尔铁塔的高度为330米。"
    assert resolve("同年举办了世博会。", ["埃菲尔铁塔建成于1889年。"], "zh") == "1889年举办了世博会。"


def test_without_an_antecedent_the_claim_stays_unresolved():
    assert resolve("She won two Nobel Prizes.", [], "en") is None
    assert resolve("She won two Nobel Prizes.", ["In 1903, the prize was shared."], "en") is None
    assert resolve("That year, it rained.", ["The tower is tall."], "en") is None


def test_a_self_contained_claim_is_returned_unchanged():
    assert resolve("The Moon orbits the Earth.", [], "en") == "The Moon orbits the Earth."
    assert unresolved("The Moon orbits the Earth.", "en") is None
    assert unresolved("It was completed in 1889.", "en") == "It"


def test_a_pronoun_after_an_opening_phrase_is_resolved_too():
    before = ["The Chrysler Building was finished in 1930."]
    assert unresolved("That year, it became the tallest building.", "en")
    assert resolve("That year, it became the tallest building.", before, "en") == (
        "In 1930, The Chrysler Building became the tallest building."
    )
    lovelace = ["Ada Lovelace was an English mathematician."]
    assert unresolved("In 1843 she published notes.", "en") == "In 1843 she"
    assert resolve("In 1843 she published notes.", lovelace, "en") == "In 1843 Ada Lovelace published notes."
    assert resolve("Later, his work was praised.", ["Charles Babbage built engines."], "en") == (
        "Later, Charles Babbage's work was praised."
    )
    assert unresolved("In Paris, the tower is famous.", "en") is None


def test_a_name_that_begins_with_this_or_the_is_a_name_not_a_reference():
    # a band called "This Mortal Coil" was dropped as a vague "This" (issue 52)
    assert unresolved("This Mortal Coil was known for their ethereal sound.", "en") is None
    assert unresolved("These New Puritans released Hidden in 2010.", "en") is None
    assert unresolved("The Band recorded Music from Big Pink.", "en") is None
    assert unresolved("This led to the notes.", "en") == "This"
    assert unresolved("The band recorded an album.", "en") == "The band"
    assert subject_of("This Mortal Coil was known for their sound.", "en") == "This Mortal Coil"
    before = ["This Mortal Coil was known for their ethereal, haunting and atmospheric sound."]
    assert resolve("Their music was characterized by lush arrangements.", before, "en") == (
        "This Mortal Coil's music was characterized by lush arrangements."
    )


def test_an_expletive_it_refers_to_nothing_and_a_sentence_adverb_is_no_name():
    # seen in real answers (issue 52): "It is important ..." became "February's important ..."
    assert unresolved("It is important to note that the law changed in 2004.", "en") is None
    assert unresolved("It's possible that the record was broken.", "en") is None
    assert unresolved("It was not until 1920 that women voted.", "en") is None
    assert unresolved("It is a way of honoring the dead.", "en") == "It"
    assert unresolved("It is estimated that 5 million people live there.", "en") is None
    assert unresolved("In 1984, it was not illegal for students to attend.", "en") is None
    assert unresolved("It is estimated to be over 4,800 years old.", "en") == "It"
    for opener in ("Additionally", "Yes", "Contrary to popular belief", "Furthermore", "Overall"):
        assert subject_of(f"{opener}, the tower is tall.", "en") is None, opener
    assert resolve("They were popular.", ["Yes, the Beatles were a band from Liverpool."], "en") is None


def test_a_noun_that_names_its_thing_right_after_is_no_vague_reference():
    # seen in real answers (issue 52): both sentences name what "the song" is
    assert unresolved("The song of Tsinghua University is called 'Tsinghua Alma Mater'.", "en") is None
    assert unresolved("The song '3SEX' is a song by Christine and the Queens.", "en") is None
    assert unresolved("The company Microsoft was founded in 1975.", "en") is None
    assert unresolved("The song is about gender identity.", "en") == "The song"
    assert unresolved("The song of the summer was a hit.", "en") == "The song"


def test_a_pronoun_after_a_sentence_that_names_its_answer_last_takes_that_name():
    # chatbot answers name the answer in the predicate (issue 52): "The X is NAME. It ..."
    cases = {
        "The smallest ocean in the world is the Arctic Ocean.": "the Arctic Ocean",
        "The tallest mountain in the solar system is Olympus Mons, on Mars.": "Olympus Mons",
        "In 1980, the oldest justice on the United States Supreme Court was Justice William O. Douglas.": (
            "Justice William O. Douglas"
        ),
    }
    for before, name in cases.items():
        resolved = resolve("It was first described in 1879.", [before], "en")
        assert resolved == f"{name[0].upper()}{name[1:]} was first described in 1879.", before
    # the sentence's own subject still wins, and a sentence naming nothing gives nothing
    assert (
        resolve("It is tall.", ["The Eiffel Tower is a tower in Paris."], "en") == "The Eiffel Tower is tall."
    )
    assert resolve("It is tall.", ["The answer is yes."], "en") is None
