"""How one sample's text writes the names its facts show to be a team or a sport.

Readers of blind rounds 47-56 rated "Dallas Cowboys has Navy Blue as a color" and
"Los Angeles Lakers, which plays Basketball, had the player Lamar Odom" 3: a team named by
its city and a plural nickname takes "the" and a plural verb ("The Dallas Cowboys have
…", "the Los Angeles Lakers, which play basketball"), and a sport is a common noun.
Neither can be told from the name alone ("Reservoir Dogs" is a film, "Arctic Monkeys" a
band), so the sample's facts decide: a name is a team's when a team relation
(:data:`_TEAM_SUBJECT`, :data:`_TEAM_OBJECT`) has it at that end, a sport's likewise.

:func:`name_forms` finds the forms; within :func:`extension.verbalize.english.names_written_as`
every :func:`~extension.verbalize.english.mention` writes them, and :func:`agreed` gives
the verbs after a plural team their plural and a sport at a sentence's start its
capital, once the text is written (the templates that put a verb after a subject are
many; the subject's number is known only here).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from extension.core.samples import Triple
from extension.verbalize import english

_TEAM_SUBJECT = re.compile(r"sports\.sports_team\.")
"""Freebase relations whose subject is a team (``sports.sports_team.colors``)."""
_TEAM_OBJECT = re.compile(r"(?:^|\.)(?:teams?|P54)$")
"""Relations whose object is a team (``sports.sport.teams``,
``sports.sports_team_roster.team``; Wikidata's "member of sports team")."""
_SPORT_SUBJECT = re.compile(r"sports\.sport\.|people\.cause_of_death\.")
_SPORT_OBJECT = re.compile(r"(?:^|\.)(?:sports?|sports_played(?:_professionally)?|P641"
                           r"|cause_of_death)$")
"""Relations whose object is a sport (``sports.sports_team.sport``,
``olympics.olympic_games.sports``; Wikidata's "sport") or a cause of death ("died of
tuberculosis": blind round 58 rated "died of Tuberculosis" 4), common nouns alike."""

_SPORT_AND_CAUSE_WORDS = frozenset("""
    football basketball baseball tennis golf cricket rugby hockey ice boxing soccer
    volleyball handball wrestling swimming cycling track field athletics archery biathlon
    canoe sprint rowing sailing shooting sport speed skating road rhythmic artistic
    gymnastics and dressage fencing judo karate weightlifting diving triathlon equestrian auto
    racing motor college softball lacrosse badminton squash table water polo beach figure
    alpine skiing ski snowboarding surfing climbing bowling darts snooker billiards
    curling luge bobsleigh skeleton netball marathon canoeing kayaking
    cancer tumor arrest disease hemorrhage failure overdose anemia assassination bladder
    brain breast cardiac cardiovascular cerebral cholera cirrhosis diabetes mellitus drug
    esophageal fever firearm heart hepatitis infectious leukemia liver lung lymphoma
    murder myocardial infarction natural causes ovarian pancreatic pneumonia prostate
    pulmonary embolism renal respiratory sepsis stroke syphilis terrorism traffic
    collision tuberculosis suicide accident attack aneurysm asthma emphysema influenza
    kidney malaria meningitis leukaemia colorectal skin stomach throat colon""".split())
"""Words of the sports and causes of death written in lower case: a name all of whose
words are here ("ice hockey", "lung cancer", "natural causes"). Others keep their
capitals: "Formula One", "Muay Thai", "Hodgkin lymphoma", "Down syndrome"."""
_INSTRUMENT_SUBJECT = re.compile(r"music\.instrument\.")
_INSTRUMENT_OBJECT = re.compile(r"^music\.(?:group_member\.instruments_played"
                                r"|track_contribution\.role|group_membership\.role)$")
"""Relations whose object is an instrument: "the double bass", as a person writes it
(blind round 58: "Double bass and Guitar are played by …", 3)."""

COMMON_PLAYED = frozenset(
    "guitar bass piano drums drum violin viola cello keyboard keyboards organ saxophone "
    "trumpet trombone flute clarinet oboe bassoon harmonica banjo mandolin ukulele harp "
    "synthesizer percussion vocals accordion tuba horn double slide electric acoustic "
    "rhythm lead steel electronic baritone tenor alto soprano upright grand pipe lute sitar "
    "xylophone marimba vibraphone tambourine bagpipes backing "
    "football basketball baseball tennis golf cricket rugby "
    "hockey boxing soccer volleyball handball wrestling swimming cycling".split())
"""First words of instruments and sports that are common nouns: written lower-case
("plays the double bass", "plays football"). Others keep their capital: a brand ("plays
the Mellotron", which a spelling check flags lower-case), "American football"."""

_GENRE_SUBJECT = re.compile(r"music\.genre\.")
_GENRE_OBJECT = re.compile(r"^music\.(?:artist\.genre|genre\.(?:parent_genre|subgenre))$")
"""Relations whose object is a music genre, written as a common noun like a sport ("is
known for funk", not "performs in the genre Funk")."""

_GENRE_WORDS = frozenset("""
    acid acoustic adult alternative ambient and art avant-garde ballad ballet band baroque
    bass beat big blues bluegrass bossa chamber classic classical college comedy
    contemporary cool country dance dark death disco doom dream drone drum dub easy
    electric electronic experimental extreme film folk free freestyle funk fusion game
    garage glam gospel gothic groove grunge hard hardcore heartland heavy hip hit hop house
    improvisation indie industrial instrumental jam jazz jump listening lounge math
    melodic metal music musical new noise old opera operatic political pop popular post
    power progressive psychedelic punk quiet radio rap reggae revival rhythm rock roll
    roots score shock ska skate sludge smooth soft song soul southern space speed stoner
    storm surf swamp swing symphonic technical techno teen theatre thrash time
    traditional trance trip urban video vocal wave world worship""".split())
"""Words of the music genres written in lower case: a genre all of whose words are
ordinary English ("progressive rock", "rhythm and blues"). Coined names ("Breakbeat",
"Krautrock") and those named after a place ("Chicago blues") keep their capital (the
grammar gate's speller flags "breakbeat", "chicago")."""

_TOPIC_SUBJECT = re.compile(r"film\.film_subject\.")
_TOPIC_OBJECT = re.compile(r"^film\.film\.subjects$")
_TOPIC_WORDS = frozenset("""
    aviation racism television time travel tragedy bisexuality terrorism law pedophilia
    feminism prison mathematics piracy psychiatry cancer artificial intelligence social
    issues religion assassination journalism politics science medicine education marriage
    slavery poverty immigration gambling drug addiction alcoholism espionage kidnapping
    murder revenge friendship adolescence ageing aging homosexuality adultery divorce
    corruption capitalism climate change nuclear war computer hacking mental illness
    baseball basketball football boxing golf tennis hockey surfing skateboarding cycling
    chess dance music photography fashion advertising architecture""".split())
"""Words of the topics of films written as common nouns ("Confessions of a Dangerous Mind
is about television": blind round 63 rated "is about Television" 3 from both readers);
people, wars, places and movements keep their capitals ("World War II", "Nazism")."""

_MEDAL_OBJECT = re.compile(r"\.olympic_medal_honor\.medal$")
_MEDAL = re.compile(r"(Gold|Silver|Bronze) [Mm]edal")
"""An Olympic medal, the object of the relations read "won" and "awarded": "The 1896
Summer Olympics awarded silver medals" (blind round 61 rated "awarded medals of the
kind Silver medal" 3)."""


def medal_form(name: str) -> str | None:
    """"silver medals" for "Silver medal"; None for another name."""
    found = _MEDAL.fullmatch(name)
    return None if found is None else f"{found.group(1).lower()} medals"


_SINGULAR_NICKNAMES = frozenset({
    "Thunder", "Heat", "Jazz", "Magic", "Lightning", "Wild", "Avalanche", "Fire", "Galaxy",
    "Crew", "Revolution", "Union", "Sky", "Storm", "Fever", "Mercury", "Dynamo", "Whale",
    "Impact"})
"""Nicknames that are not plural but take "the" like the plural ones ("the Utah Jazz",
"the Oklahoma City Thunder"); the verb after them stays singular."""

_CITY_AND_NICKNAME = re.compile(r"""
    (?:[A-Z][\w.'&-]*\ )+                       # the city or region: Los Angeles, St. Louis
    (?P<nickname>(?:Red\ |White\ )?Sox|[A-Z][a-z]+|\d+ers)   # the San Francisco 49ers
    (?:\ of\ [A-Z][\w ]+)?                      # the Los Angeles Angels of Anaheim
""", re.VERBOSE)
_CLUB_WORDS = re.compile(r"\b(?:F\.C\.|FC|A\.F\.C\.|SC|C\.F\.|Club|Juniors|Boys|national|Wanderers|"
                         r"Rovers|Ladies|Athletic|Albion|Hotspur|"
                         r"men's|women's|Men's|Women's|football|basketball|team)\b|\d(?!\d*ers$)|'s\b")
"""Names of clubs and programmes written without "the" ("Boca Juniors", "Newell's Old
Boys", "Arsenal F.C.", "Kentucky Wildcats men's basketball"; national teams take it by
:func:`extension.verbalize.english.takes_the`)."""


def team_form(name: str) -> tuple[str, bool] | None:
    """``name`` as text writes a team's name and whether its verb is plural, when it is a
    city and a nickname: ("the Dallas Cowboys", True), ("the Utah Jazz", False); None for
    a name written as it is ("Sporting Kansas City", "Nagoya Grampus", "Celtic F.C.").
    Of FB15k-237's 330 team names, 93 take "the" so."""
    found = _CITY_AND_NICKNAME.fullmatch(name)
    if found is None or _CLUB_WORDS.search(name):
        return None
    nickname = found.group("nickname")
    if nickname in _SINGULAR_NICKNAMES:
        return f"the {name}", False
    if nickname.endswith("Sox") or (nickname.endswith("s") and not nickname.endswith(("ss", "us"))):
        return f"the {name}", True
    return None


def common_form(name: str, words: frozenset[str]) -> str | None:
    """A name as a common noun in lower case ("basketball", "ice hockey", "progressive
    rock") when every word of it is one of ``words``; None otherwise ("American
    football", "Breakbeat", "Chicago blues")."""
    if not (english.PLAIN_NOUN.fullmatch(name) or english.TITLED_KIND.fullmatch(name)):
        return None
    lowered = name.lower()
    return lowered if set(re.split(r"[ -]", lowered)) <= words else None


def sport_form(name: str) -> str | None:
    """A sport's or a cause of death's name as a common noun ("basketball", "lung
    cancer"); None where it keeps its capitals."""
    return common_form(name, _SPORT_AND_CAUSE_WORDS)


def instrument_form(name: str) -> str | None:
    """An instrument as a common noun with its article ("the double bass"); None for a
    brand or other name ("Mellotron")."""
    if not english.PLAIN_NOUN.fullmatch(name) or name.split(" ")[0].lower() not in COMMON_PLAYED:
        return None
    lowered = f"{name[0].lower()}{name[1:]}"
    # "plays percussion", "sings vocals": no article (blind round 65's sheet: "played
    # Lute, Percussion and Harmonica")
    return lowered if lowered in _NO_ARTICLE else f"the {lowered}"


_NO_ARTICLE = frozenset({"percussion", "vocals", "backing vocals", "lead vocals"})


@dataclass(frozen=True)
class NameForms:
    """One sample's name forms: display name -> as written, and the written forms that
    take a plural verb or are lower-case."""

    written: dict[str, str] = field(default_factory=dict)
    plural: frozenset[str] = frozenset()
    lowered: frozenset[str] = frozenset()


def name_forms(triples: Iterable[Triple]) -> NameForms:
    """The forms the facts ``triples`` call for (see the module's text)."""
    written: dict[str, str] = {}
    plural: set[str] = set()
    lowered: set[str] = set()

    def team(name: str | None) -> None:
        shown = english.display_name(name)
        if shown and shown not in written and (form := team_form(shown)):
            written[shown] = form[0]
            if form[1]:
                plural.add(form[0])

    def common(shown: str | None, form: str | None, genre: bool = False) -> None:
        if shown and form and shown not in written:
            written[shown] = form
            lowered.add(form)
            if not genre and _PLURAL_NOUN.search(form):   # "The drums are played by …"
                plural.add(form)

    def sport(name: str | None, genre: bool = False) -> None:
        shown = english.display_name(name)
        common(shown, shown and common_form(shown, _GENRE_WORDS if genre
                                              else _SPORT_AND_CAUSE_WORDS), genre)

    def instrument(name: str | None) -> None:
        shown = english.display_name(name)
        common(shown, shown and instrument_form(shown))

    for t in triples:
        if _INSTRUMENT_SUBJECT.match(t.p):
            instrument(t.s_name)
        if not t.literal and _INSTRUMENT_OBJECT.match(t.p):
            instrument(t.o_name)
        if _TEAM_SUBJECT.match(t.p):
            team(t.s_name)
        if _SPORT_SUBJECT.match(t.p):
            sport(t.s_name)
        if not t.literal and _TEAM_OBJECT.search(t.p):
            team(t.o_name)
        if not t.literal and _SPORT_OBJECT.search(t.p):
            sport(t.o_name)
        if _GENRE_SUBJECT.match(t.p):
            sport(t.s_name, genre=True)
        if not t.literal and _GENRE_OBJECT.match(t.p):
            sport(t.o_name, genre=True)
        if _TOPIC_SUBJECT.match(t.p):
            topic = english.display_name(t.s_name)
            common(topic, topic and common_form(topic, _TOPIC_WORDS), genre=True)
        if not t.literal and _TOPIC_OBJECT.match(t.p):
            topic = english.display_name(t.o_name)
            common(topic, topic and common_form(topic, _TOPIC_WORDS), genre=True)
        if not t.literal and _MEDAL_OBJECT.search(t.p):
            shown = english.display_name(t.o_name)
            common(shown, shown and medal_form(shown), genre=True)   # "medals" is an object
    return NameForms(written, frozenset(plural), frozenset(lowered))


def sample_name_forms(original: Iterable[Triple], edited: Iterable[Triple]) -> NameForms:
    """The forms of one sample: those its unedited subgraph calls for, and for a name
    only its edited subgraph holds, those the edited facts call for. A name of the
    question is written the same for all four labels of it (an edit that adds a team
    fact must not change the question's text: the label would show)."""
    base = name_forms(original)
    seen = {english.display_name(n) for t in original for n in (t.s_name, t.o_name) if n}
    more = name_forms(edited)
    added = {k: v for k, v in more.written.items() if k not in seen}
    return NameForms({**base.written, **added},
                     base.plural | (more.plural & set(added.values())),
                     base.lowered | (more.lowered & set(added.values())))


_PLURAL_NOUN = re.compile(r"(?<![sui])(?<!ic)s$")
"""A lower-cased instrument, sport or cause of death in the plural ("drums", "natural
causes"; not "athletics", "tuberculosis", "diabetes mellitus"). A genre stays singular
("the blues")."""

_SENTENCE_START = r"(?:^|(?<=\] )|(?<=[.!?] ))"
_SUBJECT_BEFORE = r"(?:^|(?<=\] )|(?<=[.!?] )|(?<=\bwhere )|(?<=\bthat ))"


def agreed(text: str, forms: NameForms) -> str:
    """``text`` with a plural team's verbs in the plural ("The Dallas Cowboys have …",
    "the Los Angeles Lakers, which play …", "Where are the Dallas Cowboys based?") and
    a lower-case sport capitalised where a sentence starts with it."""
    for form in forms.plural:
        name = f"(?:{re.escape(form)}|{re.escape(english.capitalized(form))})"
        text = re.sub(rf"{_SUBJECT_BEFORE}({name}) (\w+)\b",
                      lambda m: f"{m.group(1)} {_plural_verb(m.group(2))}", text)
        # the verbs the subject shares: "… have Navy Blue as a color and have Royal blue
        # …", up to a clause of its own (", who …", ", which …")
        text = re.sub(rf"{_SENTENCE_START}{name} [^.?!,]*",
                      lambda m: re.sub(r"\band (is|was|has|does|plays)\b",
                                       lambda v: f"and {english.agree(v.group(1), True)}",
                                       m.group(0)), text)
        text = re.sub(rf"({name}, which) (\w+)\b",
                      lambda m: f"{m.group(1)} {_plural_verb(m.group(2))}", text)
        # "The New England Patriots, which play American football, play in …"
        text = re.sub(rf"{_SUBJECT_BEFORE}({name}, which [^,.?!]+,) (\w+)\b",
                      lambda m: f"{m.group(1)} {_plural_verb(m.group(2))}", text)
        if text.endswith("?"):   # "Where are the Dallas Cowboys based?", "What do … play?"
            # (not "Who is the Chicago Bulls head coach?", "Which league has the Dallas
            # Cowboys as a team?": the team is not the verb's subject there)
            text = re.sub(rf"\b(is|was) ({name})(?= (?:\w+ed|born|known)\b)|\b(does) ({name})(?= [a-z]+\?)",
                          lambda m: f"{english.agree(m.group(1) or m.group(3), True)} "
                                    f"{m.group(2) or m.group(4)}", text)
    for form in forms.lowered:
        text = re.sub(rf"{_SENTENCE_START}{re.escape(form)}\b",
                      lambda m: english.capitalized(m.group(0)), text)
    return text


def _plural_verb(word: str) -> str:
    """A verb after a plural subject ("has" -> "have", "plays" -> "play"); any other word
    (a possessive's noun, an adverb) as it is."""
    return english.agree(word, True) if word.islower() else word
