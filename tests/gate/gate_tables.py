"""Small tables the gate's tests write in every format: one risky, one safe."""

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
