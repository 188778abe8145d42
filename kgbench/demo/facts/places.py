"""The places of the demo KG: countries with their capitals, regions, cities and
universities, each under its parent.
"""

from __future__ import annotations

from typing import NamedTuple


class Place(NamedTuple):
    """A country (``parent`` None), region or city; ``parent`` is the direct container."""

    key: str
    name: str
    parent: str | None
    aliases: tuple[str, ...] = ()


def places(parent: str | None, *specs: str) -> list[Place]:
    """Parse compact place specs ``"key=Name|Alias|Alias"`` all contained by ``parent``."""
    rows = []
    for spec in specs:
        key, _, names = spec.partition("=")
        name, *aliases = names.split("|")
        rows.append(Place(key, name, parent, tuple(aliases)))
    return rows


# Country key -> capital city key.
CAPITALS: dict[str, str] = {
    "us": "washington_dc", "uk": "london", "france": "paris", "germany": "berlin",
    "italy": "rome", "japan": "tokyo", "canada": "ottawa", "australia": "canberra",
    "new_zealand": "wellington", "austria": "vienna", "hungary": "budapest",
    "romania": "bucharest", "sweden": "stockholm", "egypt": "cairo",
    "mexico": "mexico_city", "lebanon": "beirut", "nigeria": "abuja", "china": "beijing",
    "tunisia": "tunis", "cuba": "havana", "india": "new_delhi", "czech": "prague",
    "moldova": "chisinau", "ukraine": "kyiv", "denmark": "copenhagen",
    "netherlands": "amsterdam", "greece": "athens",
}
COUNTRIES: list[Place] = places(
    None,
    "us=United States of America|USA|United States|US|America",
    "uk=United Kingdom|UK|Britain|Great Britain",
    "france=France", "germany=Germany", "italy=Italy", "japan=Japan", "canada=Canada",
    "australia=Australia", "new_zealand=New Zealand|NZ", "austria=Austria",
    "hungary=Hungary", "romania=Romania", "sweden=Sweden", "egypt=Egypt", "mexico=Mexico",
    "lebanon=Lebanon", "nigeria=Nigeria", "china=China|People's Republic of China",
    "tunisia=Tunisia", "cuba=Cuba", "india=India", "czech=Czech Republic|Czechia",
    "moldova=Moldova", "ukraine=Ukraine", "denmark=Denmark", "netherlands=Netherlands",
    "greece=Greece",
)
REGIONS: list[Place] = [
    *places(
        "us", "california=California|CA", "new_york_state=New York|New York State|NY",
        "texas=Texas|TX", "alabama=Alabama", "massachusetts=Massachusetts", "michigan=Michigan",
        "ohio=Ohio", "illinois=Illinois", "tennessee=Tennessee", "kentucky=Kentucky",
        "nebraska=Nebraska", "new_jersey=New Jersey|NJ", "pennsylvania=Pennsylvania",
        "oklahoma=Oklahoma", "colorado=Colorado", "minnesota=Minnesota", "maryland=Maryland",
        "connecticut=Connecticut", "wisconsin=Wisconsin", "virginia=Virginia",
        "georgia_us=Georgia", "iowa=Iowa", "indiana=Indiana", "rhode_island=Rhode Island",
        "puerto_rico=Puerto Rico",
    ),
    *places("uk", "england=England", "scotland=Scotland", "wales=Wales",
            "northern_ireland=Northern Ireland"),
    *places("canada", "ontario=Ontario", "alberta=Alberta", "nova_scotia=Nova Scotia"),
    *places("australia", "victoria=Victoria", "western_australia=Western Australia",
            "new_south_wales=New South Wales", "act=Australian Capital Territory|ACT"),
    *places("france", "ile_de_france=Île-de-France",
            "auvergne_rhone_alpes=Auvergne-Rhône-Alpes", "brittany=Brittany",
            "bourgogne=Bourgogne-Franche-Comté"),
    *places("germany", "nrw=North Rhine-Westphalia", "hesse=Hesse",
            "rhineland_palatinate=Rhineland-Palatinate"),
    *places("italy", "lazio=Lazio", "lombardy=Lombardy", "emilia_romagna=Emilia-Romagna",
            "friuli=Friuli-Venezia Giulia"),
    *places("austria", "styria=Styria"),
    *places("china", "shandong=Shandong"),
]
CITIES: list[Place] = [
    *places(
        "california", "los_angeles=Los Angeles|LA|L.A.", "san_francisco=San Francisco|SF",
        "san_diego=San Diego", "oakland=Oakland", "modesto=Modesto", "concord=Concord",
        "beverly_hills=Beverly Hills", "berkeley=Berkeley", "sacramento=Sacramento",
        "santa_monica=Santa Monica", "pasadena=Pasadena", "merced=Merced",
        "santa_ana=Santa Ana", "cupertino=Cupertino", "san_bernardino=San Bernardino",
        "palo_alto=Palo Alto", "long_beach=Long Beach",
    ),
    *places("new_york_state", "nyc=New York City|NYC|New York|Big Apple",
            "floral_park=Floral Park", "hempstead=Hempstead"),
    *places("texas", "paris_tx=Paris|Paris, Texas", "houston=Houston", "dallas=Dallas",
            "san_antonio=San Antonio", "uvalde=Uvalde", "terrell=Terrell", "austin=Austin"),
    *places("alabama", "birmingham_al=Birmingham|Birmingham, Alabama", "anniston=Anniston"),
    *places("massachusetts", "boston=Boston", "cambridge_ma=Cambridge|Cambridge, Massachusetts"),
    *places("michigan", "detroit=Detroit|Motor City", "ann_arbor=Ann Arbor"),
    *places("ohio", "cincinnati=Cincinnati", "cleveland=Cleveland", "dayton=Dayton",
            "cadiz=Cadiz", "steubenville=Steubenville"),
    *places("illinois", "chicago=Chicago|Windy City", "oak_park=Oak Park"),
    *places("tennessee", "knoxville=Knoxville", "memphis=Memphis"),
    *places("kentucky", "louisville=Louisville", "lexington=Lexington"),
    *places("nebraska", "omaha=Omaha", "grand_island=Grand Island", "lincoln=Lincoln"),
    *places("new_jersey", "newark=Newark", "englewood=Englewood", "orange=Orange",
            "neptune_city=Neptune City", "hoboken=Hoboken", "princeton=Princeton"),
    *places("pennsylvania", "philadelphia=Philadelphia|Philly", "pittsburgh=Pittsburgh",
            "indiana_pa=Indiana|Indiana, Pennsylvania", "new_castle=New Castle"),
    *places("oklahoma", "shawnee=Shawnee"),
    *places("colorado", "denver=Denver"),
    *places("minnesota", "minneapolis=Minneapolis", "new_ulm=New Ulm",
            "rochester_mn=Rochester"),
    *places("maryland", "salisbury=Salisbury"),
    *places("connecticut", "stamford=Stamford", "new_haven=New Haven"),
    *places("wisconsin", "kenosha=Kenosha", "madison=Madison"),
    *places("virginia", "petersburg=Petersburg", "wise=Wise"),
    *places("georgia_us", "augusta=Augusta", "atlanta=Atlanta"),
    *places("iowa", "cedar_rapids=Cedar Rapids"),
    *places("indiana", "indianapolis=Indianapolis", "goshen=Goshen", "fort_wayne=Fort Wayne"),
    *places("rhode_island", "providence=Providence", "pawtucket=Pawtucket"),
    *places("puerto_rico", "san_juan=San Juan"),
    *places("us", "washington_dc=Washington, D.C.|Washington|DC"),
    *places(
        "england", "london=London|London, England", "cambridge_uk=Cambridge|Cambridge, England",
        "birmingham_uk=Birmingham|Birmingham, England", "bristol=Bristol", "reading=Reading",
        "ipswich=Ipswich", "huddersfield=Huddersfield", "burnley=Burnley", "leeds=Leeds",
        "portsmouth=Portsmouth", "south_shields=South Shields", "northampton=Northampton",
        "croydon=Croydon", "ely=Ely", "nottingham=Nottingham",
    ),
    *places("wales", "cardiff=Cardiff", "port_talbot=Port Talbot",
            "haverfordwest=Haverfordwest"),
    *places("northern_ireland", "omagh=Omagh", "ballymena=Ballymena"),
    *places("scotland", "perth_uk=Perth|Perth, Scotland"),
    *places("ontario", "kapuskasing=Kapuskasing", "toronto=Toronto", "ottawa=Ottawa"),
    *places("alberta", "edmonton=Edmonton"),
    *places("nova_scotia", "halifax=Halifax"),
    *places("victoria", "melbourne=Melbourne"),
    *places("western_australia", "perth_au=Perth|Perth, Western Australia"),
    *places("new_south_wales", "sydney=Sydney"),
    *places("act", "canberra=Canberra"),
    *places("new_zealand", "wellington=Wellington", "pukerua_bay=Pukerua Bay"),
    *places("ile_de_france", "paris=Paris|Paris, France|City of Light"),
    *places("auvergne_rhone_alpes", "lyon=Lyon", "roanne=Roanne"),
    *places("brittany", "brest=Brest"),
    *places("bourgogne", "montbeliard=Montbéliard"),
    *places("germany", "berlin=Berlin"),
    *places("nrw", "dusseldorf=Düsseldorf"),
    *places("hesse", "frankfurt=Frankfurt am Main|Frankfurt"),
    *places("rhineland_palatinate", "idar_oberstein=Idar-Oberstein"),
    *places("lazio", "rome=Rome|Roma"),
    *places("lombardy", "milan=Milan|Milano"),
    *places("emilia_romagna", "rimini=Rimini"),
    *places("friuli", "trieste=Trieste"),
    *places("austria", "vienna=Vienna|Wien"),
    *places("styria", "thal=Thal"),
    *places("hungary", "budapest=Budapest"),
    *places("romania", "craiova=Craiova", "bucharest=Bucharest"),
    *places("sweden", "stockholm=Stockholm", "malmo=Malmö"),
    *places("japan", "tokyo=Tokyo"),
    *places("shandong", "qingdao=Qingdao"),
    *places("china", "beijing=Beijing|Peking"),
    *places("egypt", "alexandria=Alexandria", "cairo=Cairo"),
    *places("mexico", "chihuahua=Chihuahua", "mexico_city=Mexico City"),
    *places("lebanon", "beirut=Beirut"),
    *places("nigeria", "ibadan=Ibadan", "abuja=Abuja"),
    *places("tunisia", "tunis=Tunis"),
    *places("cuba", "havana=Havana"),
    *places("india", "darjeeling=Darjeeling", "new_delhi=New Delhi"),
    *places("czech", "caslav=Čáslav", "prague=Prague"),
    *places("moldova", "chisinau=Chișinău|Kishinev"),
    *places("ukraine", "lviv=Lviv|Lemberg", "kyiv=Kyiv|Kiev"),
    *places("denmark", "copenhagen=Copenhagen"),
    *places("netherlands", "amsterdam=Amsterdam"),
    *places("greece", "athens=Athens"),
]
# Universities are places too (Freebase types them location.location), so they
# reuse Place: ``parent`` is the city (or region) they are contained by.
UNIVERSITIES: list[Place] = [
    Place("harvard", "Harvard University", "cambridge_ma", ("Harvard",)),
    Place("cambridge_university", "University of Cambridge", "cambridge_uk",
          ("Cambridge University",)),
    Place("ucla", "University of California, Los Angeles", "los_angeles", ("UCLA",)),
    Place("usc", "University of Southern California", "los_angeles", ("USC",)),
    Place("nyu", "New York University", "nyc", ("NYU",)),
    Place("columbia", "Columbia University", "nyc"),
    Place("juilliard", "Juilliard School", "nyc", ("The Juilliard School",)),
    Place("hofstra", "Hofstra University", "hempstead"),
    Place("yale", "Yale University", "new_haven", ("Yale",)),
    Place("princeton_university", "Princeton University", "princeton", ("Princeton",)),
    Place("stanford", "Stanford University", "california", ("Stanford",)),
    Place("csulb", "California State University, Long Beach", "long_beach",
          ("CSULB", "Cal State Long Beach")),
    Place("sac_state", "California State University, Sacramento", "sacramento",
          ("Sacramento State",)),
    Place("ucl", "University College London", "london", ("UCL",)),
    Place("rca", "Royal College of Art", "london"),
    Place("risd", "Rhode Island School of Design", "providence", ("RISD",)),
    Place("gakushuin", "Gakushuin University", "tokyo"),
    Place("ut_austin", "University of Texas at Austin", "austin", ("UT Austin",)),
    Place("morehouse", "Morehouse College", "atlanta"),
    Place("uw_madison", "University of Wisconsin–Madison", "madison", ("UW–Madison",)),
    Place("umich", "University of Michigan", "ann_arbor", ("UMich",)),
]
# Lookups by key over the tables above.
PLACES: dict[str, Place] = {row.key: row for row in (*COUNTRIES, *REGIONS, *CITIES, *UNIVERSITIES)}
