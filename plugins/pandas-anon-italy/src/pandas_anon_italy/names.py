"""How a written comune name is reduced to a comparable form.

The rules, applied in this order by :func:`normalize`:

1. **Accents** are removed (Unicode NFKD decomposition, combining marks dropped), so
   ``Rhêmes`` and ``RHEMES``, ``Jovençan`` and ``JOVENCAN``, ``Nabrežina`` and ``NABREZINA``
   compare equal; the text is then upper-cased (``ß`` and ``ẞ`` become ``SS``).
2. **An apostrophe after a word-final vowel is an accent** (the upper-case typewriter habit of
   writing ``È`` as ``E'``): ``ANTEY-SAINT-ANDRE'`` is ``ANTEY SAINT ANDRE``,
   ``PRE' SAINT DIDIER`` is ``PRE SAINT DIDIER``. Straight, curly and back-tick apostrophes
   count.
3. **Every other character that is not a letter or digit separates words**: apostrophes of
   elision (``VALLE D'AOSTA``), hyphens (``SAINT-RHEMY-EN-BOSSES``), dots, slashes, commas,
   brackets. Runs of separators and spaces become one space, trimmed at both ends.

:func:`key`, the form names are matched on, also drops the spaces, so ``CHAMP DE PRAZ`` finds
``Champdepraz`` and ``SANT ANGELO`` finds ``Sant'Angelo``.

Abbreviations are not expanded by :func:`normalize` (``S.`` stands for several words); the
matcher tries them only when a name does not match as written, through :func:`expansions`:

===========  =====================================================================
written      tried as
===========  =====================================================================
``S.``       ``SAN``, ``SANTA``, ``SANTO``, ``SANT``, ``SAINT`` (``S.GIULIANO``)
``SS.``      ``SANTI`` (``SS. COSMA E DAMIANO``)
``STA.``     ``SANTA`` (also written ``S.TA``)
``STO.``     ``SANTO`` (also written ``S.TO``)
``ST.``      ``SAINT``, ``SANKT`` (``ST. VINCENT`` = Saint-Vincent)
``D.``       ``DI``, ``DEL``, ``DELLA``, ``DELLO``, ``DELL``, ``DEI``, ``DEGLI``, ``DELLE``
``V.``       ``VAL``, ``VALLE`` (``MONTENERO V.COCCHIARA`` = Montenero Val Cocchiara)
``M.``       ``MONTE`` (``M. SANT'ANGELO`` = Monte Sant'Angelo)
===========  =====================================================================

The dot may be missing (``S GIULIANO``) or glued to the next word (``S.GIULIANO``); each
abbreviation is also tried as written (German names keep ``St.``: ``St. Ulrich``). Every
combination is tried (at most 1,000 per name); a name counts as matched only if a combination
is exactly (after :func:`key`) the name of a comune.

:func:`loose` is a coarser form, for the later stages (``loose`` and ``fuzzy`` in
:mod:`~pandas_anon_italy.resolve`): the words of :func:`normalize` without the particles of
:data:`PARTICLES` (prepositions, articulated or not, and conjunctions: ``CASSANO ADDA``,
``CASSANO DI ADDA`` and ``Cassano d'Adda`` are one), each abbreviation and the words it stands
for made one word (``S.``, ``SANTA``, ``SAN``, ``ST.`` and ``SAINT`` all read ``SAN``; ``V.`` and
``VALLE`` read ``VAL``), and ``J`` read as ``I`` (``BOIANO`` is Bojano).
"""

from __future__ import annotations

import itertools
import re
import unicodedata

__all__ = [
    "ABBREVIATIONS",
    "PARTICLES",
    "expansions",
    "key",
    "loose",
    "normalize",
    "strip_accents",
]

#: Abbreviation (upper case, without its dot) -> the words it is tried as, in order (and then
#: as written).
ABBREVIATIONS: dict[str, tuple[str, ...]] = {
    "S": ("SAN", "SANTA", "SANTO", "SANT", "SAINT"),
    "SS": ("SANTI",),
    "STA": ("SANTA",),
    "STO": ("SANTO",),
    "ST": ("SAINT", "SANKT"),
    "D": ("DI", "DEL", "DELLA", "DELLO", "DELL", "DEI", "DEGLI", "DELLE"),
    "V": ("VAL", "VALLE"),
    "M": ("MONTE",),
}
#: Words :func:`loose` drops: Italian prepositions, articulated or not, and conjunctions, and
#: the French and German ones of bilingual names.
PARTICLES = frozenset(
    "D DI DA DE DEL DELLO DELLA DELL DEI DEGLI DELLE "
    "IN NEL NELLO NELLA NELL NEI NEGLI NELLE "
    "SU SUL SULLO SULLA SULL SUI SUGLI SULLE "
    "A AL ALLO ALLA ALL AI AGLI ALLE CON PER E ED "
    "EN DU DES AN DER IM AM".split()
)
#: At most this many readings of one name are tried: abbreviations are expanded from the left
#: while the number of combinations stays within it (the rest are kept as written).
_MAX_READINGS = 1_000


def _canonical() -> dict[str, str]:
    """Each abbreviation and each word it stands for -> one word, for :func:`loose`: the words
    of ``S.`` (``SAINT`` among them, and so ``ST.`` and ``SANKT``) are all ``SAN``; the
    particles among them (``D.``) are dropped instead."""
    canonical: dict[str, str] = {}
    for abbreviation, expanded in ABBREVIATIONS.items():
        if abbreviation not in PARTICLES:
            target = canonical.get(expanded[0], expanded[0])
            for word in (abbreviation, *expanded):
                canonical.setdefault(word, target)
    return canonical


_CANONICAL = _canonical()

_APOSTROPHES = "'\u2019\u2018`\u00b4\u02bc"
_ACCENT_APOSTROPHE = re.compile(rf"(?<=[AEIOU])[{_APOSTROPHES}](?![A-Z0-9])")
_SEPARATORS = re.compile(r"[^A-Z0-9]+")
_SANTA = re.compile(r"\bS\.\s?T([AO])\b")  # S.TA, S.TO: one abbreviation, STA., STO.
_TOKEN = re.compile(r"([A-Z0-9]+)(\.?)")


def strip_accents(text: str) -> str:
    """``text`` without diacritics (``Vallée`` -> ``Vallee``, ``Soči`` -> ``Soci``)."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def _upper(name: object) -> str:
    text = strip_accents(str(name)).casefold().upper()  # casefold: ß and ẞ -> SS
    return _SANTA.sub(r"ST\1.", _ACCENT_APOSTROPHE.sub("", text))


def normalize(name: object) -> str:
    """The comparable form of a comune name: upper case, no accents, one space between words.

    >>> normalize("Saint-Rhémy-en-Bosses")
    'SAINT RHEMY EN BOSSES'
    >>> normalize("GRESSONEY-LA-TRINITE'")
    'GRESSONEY LA TRINITE'
    >>> normalize("Valle d’Aosta/Vallée d'Aoste")
    'VALLE D AOSTA VALLEE D AOSTE'
    """
    return _SEPARATORS.sub(" ", _upper(name)).strip()


def key(name: object) -> str:
    """:func:`normalize` without spaces: the form names are matched on."""
    return _SEPARATORS.sub("", _upper(name))


def expansions(name: object) -> list[str]:
    """The :func:`key` of every reading of ``name``'s abbreviations, or ``[]`` if it has none.

    >>> expansions("S.GIACOMO D.SCHIAVONI")[:2]
    ['SANGIACOMODISCHIAVONI', 'SANGIACOMODELSCHIAVONI']
    """
    options: list[tuple[str, ...]] = []
    readings = 1
    for word, _dot in _TOKEN.findall(_upper(name)):
        choices = (*ABBREVIATIONS[word], word) if word in ABBREVIATIONS else ()
        if choices and readings * len(choices) <= _MAX_READINGS:
            options.append(choices)
            readings *= len(choices)
        else:
            options.append((word,))
    if readings == 1:
        return []
    seen: dict[str, None] = {}
    for words in itertools.product(*options):
        seen.setdefault("".join(words), None)
    return list(seen)


def loose(name: object) -> str:
    """The words of :func:`normalize` without :data:`PARTICLES`, with each abbreviation and the
    words it stands for made one (``S.``, ``SAN``, ``SANTA``, ``SANT``, ``ST.``, ``SAINT`` are
    ``SAN``; ``V.``, ``VALLE`` are ``VAL``) and ``J`` read as ``I``: the form of the ``loose``
    and ``fuzzy`` stages.

    >>> loose("S.GIOVANNI D.TEATINO")
    'SAN GIOVANNI TEATINO'
    >>> loose("Santa Maria di Licodia"), loose("Bojano")
    ('SAN MARIA LICODIA', 'BOIANO')
    """
    return loose_normalized(normalize(name))


def loose_normalized(normalized: str) -> str:
    """:func:`loose` of a name already :func:`normalize`-d (a caller holding both forms
    normalizes once)."""
    words = normalized.split()
    return " ".join(_CANONICAL.get(w, w).replace("J", "I") for w in words if w not in PARTICLES)
