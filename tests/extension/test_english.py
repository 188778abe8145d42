"""The shared English helpers the templates write with (:mod:`extension.verbalize.english`,
:func:`extension.verbalize.literals.with_unit`): each rule here fixes text the grammar
gate blocked on 1,000 generated samples (issue 34): "a citizen of United States of
America", "Which olympic sport", "crewmember", "runtime 116"."""

from __future__ import annotations

import pytest

from extension.verbalize import english
from extension.verbalize.literals import with_unit
from extension.verbalize.relation_phrases import PhraseTable, relation_phrase, type_noun


@pytest.mark.parametrize("name", [
    "United States of America", "United Kingdom", "United Arab Emirates", "Philippines",
    "Netherlands", "Czech Republic", "Dominican Republic", "Republic of Ireland",
    "Cayman Islands", "British Isles", "Soviet Union", "Kingdom of France",
    "Federated States of Micronesia", "England national football team", "Gambia",
    # blind round 19: "honoured at 63rd Academy Awards", "plays in National Football League"
    "63rd Academy Awards", "90th United States Congress", "20th century", "Roman Empire",
    "Holy Roman Empire", "Ottoman Empire", "National Football League", "Central Time Zone", "2010 Winter Olympics",
    # blind rounds 41-42: "the place that lies partly in Mediterranean Sea", "Iberian Peninsula"
    "Mediterranean Sea", "Iberian Peninsula", "Pacific Ocean", "Gulf of Mexico", "Baltic Sea",
    # blind round 50: "Full Metal Jacket is about Vietnam War"
    "Vietnam War", "Cold War", "Napoleonic Wars", "Seven Years' War", "French and Indian War",
    "1982 Lebanon War", "Second Sino-Japanese War",
    # blind round 58: "Western Front", "Internal Revenue Service" (4)
    "Western Front", "Internal Revenue Service", "United States Senate", "Royal Navy",
    "Red Army", "Royal Air Force", "London Symphony Orchestra", "Wikimedia Foundation",
    "United States Military Academy",
    # round 60: "won Presidential Medal of Freedom" (4)
    "Presidential Medal of Freedom", "Academy Award for Best Actor", "Nobel Peace Prize",
    "Nobel Prize in Physics", "Grammy Award for Album of the Year", "Grammy Awards",
    # round 62: "Which place hosted 1983 NCAA Men's Division I Basketball Tournament" (3)
    "1983 NCAA Men's Division I Basketball Tournament", "2011 Sundance Film Festival",
    "2009 NFL Draft", "2004 NBA draft", "1995 Major League Baseball season",
    "2009 Tour de France", "2003 invasion of Iraq", "2012 British Academy Film Awards",
    "2009 World Championships in Athletics"])
def test_names_that_take_the(name: str) -> None:
    assert english.takes_the(name)
    assert english.mention(name) == f"the {name}"
    assert english.mention(f"the {name}") == f"the {name}"   # once only


@pytest.mark.parametrize("name", [
    "France", "United Airlines", "Republic Pictures", "Moonrise Kingdom", "Kingdom of Heaven",
    "Gabrielle Union", "Union County", "The Hague", "Republic", "Islands in the Stream",
    "Ohio", "Comoros-GB", "20th Century Fox", "3rd Rock from the Sun", "Boardwalk Empire",
    "Inland Empire", "Justice League", "Deep Blue Sea", "Mystic River", "Sea Biscuit",
    "Tess Ocean", "Danny Ocean",   # round 44: "Julia Roberts played the Tess Ocean"
    "Star Wars", "Summer Wars", "This Means War", "Charlie Wilson's War", "World War II",
    "Oh! What a Lovely War", "The Flowers of War", "Kiki's Delivery Service",
    "On Her Majesty's Secret Service", "Phillips Academy", "Pratt Institute",
    "Medal of Honor", "Turing Award", "The Prize", "A Prize of Gold", "Second Foundation",
    "Seven Nation Army", "Secret Army", "3000 Miles to Graceland", "2001: A Space Odyssey",
    "1408", "2012"])
def test_names_without_the(name: str) -> None:
    if name == "Comoros-GB":   # the locale suffix goes first; then "the Comoros"
        assert english.mention(name) == "the Comoros"
        return
    assert not english.takes_the(name)
    assert english.mention(name) == name


def test_only_the_article_mention_added_is_capitalised_at_a_sentence_start() -> None:
    assert english.sentence_start("the United Kingdom contains London") \
        == "The United Kingdom contains London"
    assert english.sentence_start("m.0xyz was directed by X") == "m.0xyz was directed by X"
    assert english.sentence_start("bell hooks wrote it") == "bell hooks wrote it"


def test_a_phrase_does_not_say_the_twice_before_what_follows() -> None:
    assert english.phrase_before("is in the genre", "the genre of Jaws") == "is in"
    assert english.phrase_before("is in the genre", "the genre that includes Jaws") == "is in"
    # blind round 23: "Which program is in the genre the genres of The Devil's Double?"
    assert english.phrase_before("is in the genre", "the genres of The Devil's Double") == "is in"
    assert english.phrase_before("includes the country", "the Republic of Ireland") \
        == "includes"
    assert english.phrase_before("has the capital", "the birthplace of X", named=False) \
        == "has the capital"            # a description keeps the noun it answers
    assert english.phrase_before("has the capital", "Vienna") == "has the capital"
    assert english.phrase_before("has the diplomatic relation", "the United Kingdom") \
        == "has the diplomatic relation"   # "France has the United Kingdom" says nothing
    assert english.phrase_before("has the capital", "the capital of X") == "has"
    assert english.phrase_before("is the home of", "the Germany national football team") \
        == "is the home of"


def test_words_of_ids_read_as_english() -> None:
    assert english.id_words("tv program") == "TV program"
    assert english.id_words("crewmember") == "crew member"
    assert english.id_words("olympic medal honor") == "Olympic medal honor"
    assert english.id_words("gdp nominal") == "GDP nominal"
    assert type_noun("media_common.netflix_genre.titles") == "genre"
    assert type_noun("olympics.olympic_sport.athletes") == "Olympic sport"
    assert type_noun("sports.pro_athlete.teams") == "professional athlete"
    assert type_noun("sports.pro_sports_team.roster") == "team"
    # Freebase repeats its domain word in some mediator types: read once
    assert type_noun("film.film_film_distributor_relationship.film") == \
        "film distributor relationship"
    assert type_noun("award.award_winning_work.awards_won") == "work"
    assert "crew member" in relation_phrase("film.film_crew_gig.crewmember")


@pytest.mark.parametrize(("noun", "expected"), [
    ("actor", "an actor"), ("film", "a film"), ("university", "a university"),
    ("union of this type", "a union of this type"), ("honoured work", "an honoured work"),
    ("NCAA tournament", "an NCAA tournament"), ("US president", "a US president"),
    ("HUD foreclosure area", "a HUD foreclosure area"), ("hour", "an hour"),
    ("European film", "a European film"), ("Olympic sport", "an Olympic sport")])
def test_the_indefinite_article_follows_the_sound(noun: str, expected: str) -> None:
    """Each case the old first-letter rule got wrong or a measured word (inflect agrees
    on all of them)."""
    assert english.article(noun) == expected


@pytest.mark.parametrize(("noun", "expected"), [
    ("campus", "campuses"), ("alias", "aliases"), ("release medium", "release media"),
    ("music", "music"), ("net worth", "net worth"), ("countries", "countries"),
    ("areas", "areas"), ("person", "people"), ("form of government", "forms of government")])
def test_plurals_of_the_measured_heads(noun: str, expected: str) -> None:
    assert english.plural(noun) == expected
    if expected not in ("music", "net worth", "countries", "areas"):
        assert english.singular(expected) == noun


def test_a_number_reads_with_the_unit_its_relation_stores_it_in() -> None:
    assert with_unit("116", "minutes") == "116 minutes"
    assert with_unit("1", "minutes") == "1 minute"
    assert with_unit("1,234.5", "minutes") == "1,234.5 minutes"
    assert with_unit("116", None) == "116"
    assert with_unit("March 1952", "minutes") == "March 1952"
    # Wikidata amounts in the unit Wikidata states for them (blind rounds 17-19 rated
    # "Denmark has an area of 42,925.46" 3: "no unit")
    table = PhraseTable()
    assert with_unit("42,925.46", table.unit("P2046")) == "42,925.46 square kilometres"
    assert with_unit("10", table.unit("P1198")) == "10 percent"
    assert with_unit("230", table.unit("P2884")) == "230 volts"


def test_a_noun_phrase_ending_in_a_participle_inflects_its_first_word() -> None:
    """Freebase property words ("medals won", "films executive produced") head on their
    first word: "a medal won", "the films executive produced", not "a medals won" or
    "executive produceds" (the grammar gate's A_NNS and spelling findings)."""
    assert english.singular("medals won") == "medal won"
    assert english.singular("awards presented") == "award presented"
    assert english.plural("film executive produced") == "films executive produced"
    assert english.plural("dog breed") == "dog breeds"   # a noun in -eed stays the head


def test_language_names_read_without_their_suffix() -> None:
    """FB15k-237 names languages "English Language", "Croatian language"; a person
    writes "English" (readers of blind round 5 listed "Persian Language" as a flaw)."""
    assert english.display_name("English Language") == "English"
    assert english.display_name("Croatian language") == "Croatian"
    assert english.display_name("Sign Language") == "Sign Language"
    assert english.display_name("American Sign Language") == "American Sign Language"
    assert english.display_name("Inventor-GB") == "Inventor"


def test_a_name_that_ends_with_the_frame_noun_takes_the_noun_s_place() -> None:
    """"Jacksonville is in the Eastern Time Zone", not "… in the time zone Eastern Time
    Zone" (blind round 10)."""
    from extension.verbalize.english import phrase_before

    assert phrase_before("is in the time zone", "Eastern Time Zone") == "is in the"
    assert phrase_before("is in the genre", "Action Film") == "is in the genre"


def test_kinds_written_as_names_read_with_their_article() -> None:
    assert english.kind_values("profession", ["Actor", "Film director"]) == \
        ["an actor", "a film director"]
    assert english.kind_values("profession", ["Actor"], many=True) == ["actors"]
    # FB15k-237 writes many kinds in title case (blind round 24 rated "has Film Producer
    # as a profession" 3); a lower-case word between capitals makes a name
    assert english.kind_values("profession", ["Film Director"]) == ["a film director"]
    assert english.kind_values("profession", ["Attorneys in the United States"]) is None
    assert english.kind_values("spoken language", ["Arabic"]) is None
    assert english.attribute_phrase("form of government",
                                    ["Constitutional monarchy", "Parliamentary system"]) == \
        "is a constitutional monarchy and has a parliamentary system"


def test_two_verb_phrases_with_one_verb_say_it_once() -> None:
    # a passive verb stays twice (round 26 rated "is spoken both in Greece and by …" 3)
    assert english.shared_verb("is spoken in Egypt", "is spoken by Armenians") is None
    # a name before a description (the demo's "Which place contains the birthplace of
    # Francis Ford Coppola and contains Ann Arbor?" was rated 3 in 11 of 14 ratings)
    assert english.shared_verb("contains the birthplace of Francis Ford Coppola",
                               "contains Ann Arbor") == \
        "contains both Ann Arbor and the birthplace of Francis Ford Coppola"
    assert english.shared_verb("has music by John Williams", "has the member X") is None
    assert english.shared_verb("stars Tom Hanks", "stars in Big") is None
    assert english.shared_verb("directed Jaws", "was born in Ohio") is None


def test_an_attribute_a_subject_has_one_of_is_its_own() -> None:
    """Blind round 30: "The United States of America has Washington, D.C. as a capital"
    rated 3 ("as a capital")."""
    assert english.attribute_phrase("capital", ["Washington, D.C."]) == \
        "has Washington, D.C. as its capital"
    assert english.attribute_phrase("spoken language", ["Arabic"]) == \
        "has Arabic as a spoken language"


def test_a_noun_used_only_in_the_plural_takes_are() -> None:
    assert english.copula("total reserves") == "are"
    assert english.copula("capital") == "is"
    assert english.copula("reserve currency") == "is"
