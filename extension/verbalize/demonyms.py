"""The adjective a country's people are named by ("Australian" for Australia), for
telling namesakes apart as a person would: "the Australian John Williams", not "the John
Williams who is a citizen of Australia" (blind rounds 57-62: 3 from most readers, the
most often low-rated question of those rounds).

A table, not a rule: "-ia" makes "-ian" often (Australia, India, Russia) but not always
(Saudi Arabia), and the common ones are irregular (France, the Netherlands). A country
not listed has no demonym here and its namesake keeps the clause.
"""

from __future__ import annotations

__all__ = ["demonym", "is_country_or_language"]

_DEMONYMS = {
    "Afghanistan": "Afghan", "Albania": "Albanian", "Algeria": "Algerian",
    "Argentina": "Argentine", "Armenia": "Armenian", "Australia": "Australian",
    "Austria": "Austrian", "Bangladesh": "Bangladeshi", "Belgium": "Belgian",
    "Bolivia": "Bolivian", "Bosnia and Herzegovina": "Bosnian", "Brazil": "Brazilian",
    "Bulgaria": "Bulgarian", "Cambodia": "Cambodian", "Cameroon": "Cameroonian",
    "Canada": "Canadian", "Chile": "Chilean", "China": "Chinese",
    "People's Republic of China": "Chinese", "Colombia": "Colombian",
    "Croatia": "Croatian", "Cuba": "Cuban", "Cyprus": "Cypriot", "Czech Republic": "Czech",
    "Czechoslovakia": "Czechoslovak", "Denmark": "Danish", "Ecuador": "Ecuadorian",
    "Egypt": "Egyptian", "England": "English", "Estonia": "Estonian",
    "Ethiopia": "Ethiopian", "Finland": "Finnish", "France": "French",
    "Georgia": "Georgian", "Germany": "German", "West Germany": "West German",
    "East Germany": "East German", "Ghana": "Ghanaian", "Greece": "Greek",
    "Hong Kong": "Hong Kong", "Hungary": "Hungarian", "Iceland": "Icelandic",
    "India": "Indian", "Indonesia": "Indonesian", "Iran": "Iranian", "Iraq": "Iraqi",
    "Ireland": "Irish", "Republic of Ireland": "Irish", "Israel": "Israeli",
    "Italy": "Italian", "Jamaica": "Jamaican", "Japan": "Japanese", "Jordan": "Jordanian",
    "Kenya": "Kenyan", "Latvia": "Latvian", "Lebanon": "Lebanese",
    "Lithuania": "Lithuanian", "Luxembourg": "Luxembourgish", "Malaysia": "Malaysian",
    "Mexico": "Mexican", "Mongolia": "Mongolian", "Morocco": "Moroccan",
    "Nepal": "Nepalese", "Netherlands": "Dutch", "New Zealand": "New Zealand",
    "Nigeria": "Nigerian", "North Korea": "North Korean", "Northern Ireland": "Northern Irish",
    "Norway": "Norwegian", "Pakistan": "Pakistani", "Peru": "Peruvian",
    "Philippines": "Filipino", "Poland": "Polish", "Portugal": "Portuguese",
    "Puerto Rico": "Puerto Rican", "Romania": "Romanian", "Russia": "Russian",
    "Saudi Arabia": "Saudi", "Scotland": "Scottish", "Senegal": "Senegalese",
    "Serbia": "Serbian", "Singapore": "Singaporean", "Slovakia": "Slovak",
    "Slovenia": "Slovenian", "South Africa": "South African", "South Korea": "South Korean",
    "Soviet Union": "Soviet", "Spain": "Spanish", "Sri Lanka": "Sri Lankan",
    "Sweden": "Swedish", "Switzerland": "Swiss", "Syria": "Syrian", "Taiwan": "Taiwanese",
    "Thailand": "Thai", "Tunisia": "Tunisian", "Turkey": "Turkish", "Uganda": "Ugandan",
    "Ukraine": "Ukrainian", "United Kingdom": "British", "Kingdom of Great Britain": "British",
    "United States of America": "American", "United States": "American",
    "Uruguay": "Uruguayan", "Venezuela": "Venezuelan", "Vietnam": "Vietnamese",
    "Wales": "Welsh", "Yugoslavia": "Yugoslav", "Zimbabwe": "Zimbabwean",
}


def demonym(country: str) -> str | None:
    """"Australian" for "Australia", "Dutch" for "Netherlands" (with or without "the");
    None for a name not in the table."""
    return _DEMONYMS.get(country.removeprefix("the ").removeprefix("The "))


_LANGUAGES = frozenset(_DEMONYMS.values()) | {"Mandarin Chinese", "Cantonese", "Hindi",
                                             "Arabic", "Hebrew", "Persian", "Tamil"}


def is_country_or_language(name: str) -> bool:
    """Whether ``name`` is a country of the table or a language named like its people
    ("United Kingdom", "French", "Hindi"): Netflix lists titles under such tags as well
    as under genres."""
    bare = name.removeprefix("the ").removeprefix("The ")
    return bare in _DEMONYMS or bare in _LANGUAGES
