"""The demo KG's small vocabularies (genders, genres, languages, degrees, professions)
and its schema: property and type labels, mediator (CVT) types, film roles.
"""

from __future__ import annotations

from kgbench.demo.facts.terms import ALIAS, DESCRIPTION, MEDIATOR, NAME, TOPIC_TYPE, TYPE

GENDERS = {"m": "Male", "f": "Female"}
GENRES = {
    "crime": "Crime", "drama": "Drama", "thriller": "Thriller", "horror": "Horror",
    "scifi": "Science Fiction", "adventure": "Adventure", "action": "Action", "war": "War",
    "romance": "Romance", "comedy": "Comedy", "western": "Western", "fantasy": "Fantasy",
    "animation": "Animation", "biographical": "Biographical", "musical": "Musical",
    "mystery": "Mystery", "sports": "Sports", "family": "Family",
}
LANGUAGES = {
    "english": "English", "french": "French", "german": "German", "italian": "Italian",
    "japanese": "Japanese",
}
DEGREES = {
    "ba": "Bachelor of Arts", "bs": "Bachelor of Science", "bfa": "Bachelor of Fine Arts",
    "mfa": "Master of Fine Arts",
}
PROFESSIONS = {
    # Derived from the film tables (see ROLES); listed first so descriptions read
    # "Film director, actor and ..." in a stable order.
    "director": "Film director", "actor": "Actor", "composer": "Composer",
    # Given explicitly in the people table.
    "screenwriter": "Screenwriter", "producer": "Film producer", "editor": "Film editor",
    "singer": "Singer", "musician": "Musician", "guitarist": "Guitarist", "rapper": "Rapper",
    "politician": "Politician", "journalist": "Journalist",
    "businessperson": "Businessperson",
}
# Small entity sets as (key prefix, key -> name table, Freebase type).  The
# prefix keeps their keys apart from place/person/film keys ("gender:m").
VOCABULARIES: tuple[tuple[str, dict[str, str], str], ...] = (
    ("gender", GENDERS, "people.gender"),
    ("profession", PROFESSIONS, "people.profession"),
    ("genre", GENRES, "film.film_genre"),
    ("language", LANGUAGES, "language.human_language"),
    ("degree", DEGREES, "education.educational_degree"),
)
PROPERTY_LABELS = {
    NAME: "Name", TYPE: "Type", ALIAS: "Also known as", DESCRIPTION: "Description",
    MEDIATOR: "Mediator",
    "film.film.directed_by": "Directed by", "film.director.film": "Films directed",
    "film.film.initial_release_date": "Initial release date",
    "film.film.runtime": "Runtime", "film.film_cut.runtime": "Runtime",
    "film.film_cut.film": "Film", "film.film.country": "Country of origin",
    "film.film.language": "Languages", "film.film.genre": "Genres",
    "film.film_genre.films_in_this_genre": "Films in this genre",
    "film.film.music": "Music", "film.music_contributor.film": "Film music credits",
    "film.film.starring": "Performances", "film.actor.film": "Film performances",
    "film.performance.actor": "Actor", "film.performance.character": "Character",
    "film.performance.film": "Film",
    "film.film_character.portrayed_in_films": "Portrayed in films",
    "film.film.sequel": "Sequel", "film.film.prequel": "Prequel",
    "people.person.place_of_birth": "Place of birth",
    "location.location.people_born_here": "People born here",
    "people.person.date_of_birth": "Date of birth",
    "people.person.nationality": "Country of nationality",
    "people.person.gender": "Gender", "people.person.profession": "Profession",
    "people.person.spouse_s": "Spouse (or domestic partner)",
    "people.marriage.spouse": "Spouse", "people.marriage.from": "From",
    "people.person.education": "Education",
    "education.education.institution": "Institution",
    "education.education.student": "Student", "education.education.degree": "Degree",
    "education.educational_institution.students_graduates": "Students/Graduates",
    "location.location.containedby": "Contained by",
    "location.location.contains": "Contains", "location.country.capital": "Capital",
}
TYPE_LABELS = {
    "type.type": "Type", "type.property": "Property", TOPIC_TYPE: "Topic",
    "film.film": "Film", "film.director": "Film director", "film.actor": "Film actor",
    "film.music_contributor": "Film music contributor", "music.composer": "Composer",
    "film.film_character": "Film character", "film.film_genre": "Film genre",
    "film.performance": "Film performance", "film.film_cut": "Film cut",
    "people.person": "Person", "people.profession": "Profession",
    "people.gender": "Gender", "people.marriage": "Marriage",
    "location.location": "Location", "location.country": "Country",
    "location.administrative_division": "Administrative Division",
    "location.citytown": "City/Town/Village",
    "education.educational_institution": "Educational Institution",
    "education.university": "College/University", "education.education": "Education",
    "education.educational_degree": "Educational Degree",
    "language.human_language": "Human Language",
}
# CVT types: Freebase marks them with freebase.type_hints.mediator "true"; their
# instances are nameless nodes that only exist to tie several facts together.
MEDIATOR_TYPES = ("film.performance", "film.film_cut", "people.marriage", "education.education")
# Film roles a person can have, with the Freebase types and profession they imply.
ROLES = {
    "director": ("film.director",),
    "actor": ("film.actor",),
    "composer": ("music.composer", "film.music_contributor"),
}
