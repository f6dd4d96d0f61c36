"""Small tables the gate's tests write in every format: one risky, one safe; and tables
without a header row, whose first line is a row, a person."""

import random
import string

import pandas as pd

TOWNS = ["Aosta", "Aymavilles", "Brissogne", "Cogne"]
#: 40 rows whose (anno_nascita, comune) pair repeats only for the first row (3 times): 37
#: singletons, and no column or pair is all-distinct (so no election leaves them out).
RISKY = pd.DataFrame(
    [(1950 + i % 10, TOWNS[i // 10], "MF"[i % 2]) for i in [*range(38), 0, 0]],
    columns=["anno_nascita", "comune", "sesso"],
)
#: 40 rows: each of the 8 combinations of the three columns 5 times.
SAFE = pd.DataFrame(
    [(1950 + i % 2, TOWNS[i // 2 % 2], "MF"[i // 4 % 2]) for i in range(40)],
    columns=["anno_nascita", "comune", "sesso"],
)


# -- tables without a header row ---------------------------------------------------------------

_rng = random.Random(34)


def _tax_code() -> str:
    """A code shaped as an Italian tax code: 6 capitals, 2 digits, a capital, 2 digits, a
    capital, 3 digits, a capital."""
    letters, digits = string.ascii_uppercase, string.digits
    parts = [(letters, 6), (digits, 2), (letters, 1), (digits, 2), (letters, 1), (digits, 3)]
    code = "".join("".join(_rng.choices(chars, k=n)) for chars, n in parts)
    return code + _rng.choice(letters)


#: 200 distinct tax codes, one a line.
TAX_CODES = list(dict.fromkeys(_tax_code() for _ in range(210)))[:200]
#: 200 lines of three numbers (a record number, an amount, a coordinate), none of whose
#: values can appear by chance in a report's figures.
NUMBERS = [
    f"{_rng.randint(10_000, 99_999)},{_rng.uniform(1_000, 9_999):.3f},-{_rng.uniform(10, 90):.4f}"
    for _ in range(200)
]
#: Each headerless file: its name, lines and the names the gate reads its columns with.
HEADERLESS = {
    "codes.txt": (TAX_CODES, ["column 1"]),
    "numbers.csv": (NUMBERS, ["column 1", "column 2", "column 3"]),
}
