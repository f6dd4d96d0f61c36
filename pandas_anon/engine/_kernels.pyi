"""Types of the compiled kernels (``_kernels.c``); :mod:`pandas_anon.engine.hashing` calls them."""

import numpy as np

TABULATED_COLUMNS: int

def group(
    words: np.ndarray,
    n_words: int,
    n: int,
    counts: np.ndarray,
    first: np.ndarray,
    sums: np.ndarray,
    inverse: np.ndarray | None = ...,
    /,
) -> int: ...
def rollup(
    words: np.ndarray,
    n_words: int,
    n: int,
    fields: np.ndarray,
    n_fields: int,
    tables: np.ndarray,
    offsets: np.ndarray,
    counts: np.ndarray,
    out: np.ndarray,
    sums: np.ndarray,
    /,
) -> int: ...
def texts_size(
    offsets: np.ndarray,
    data: object,
    start: int,
    n_texts: int,
    codes: np.ndarray,
    rows: np.ndarray | None,
    counts: np.ndarray | None = None,
    /,
) -> int: ...
def take_texts(
    offsets: np.ndarray,
    data: object,
    start: int,
    n_texts: int,
    codes: np.ndarray,
    rows: np.ndarray | None,
    out_offsets: np.ndarray,
    out_data: object,
    /,
) -> int: ...
def use_pool() -> object: ...
def restore_handler(previous: object, /) -> None: ...
def release_pool() -> int: ...
def pool_state() -> tuple[int, int]: ...
def set_pool_limit(limit: int, /) -> None: ...
def tabulate_rows(
    columns: list[tuple], n: int, dense_limit: int, key_limit: int, /
) -> tuple | None: ...
def spread_gather(
    n_released: int,
    lx: np.ndarray,
    ly: np.ndarray,
    w: np.ndarray,
    y_start: np.ndarray,
    y_values: np.ndarray,
    n_queries: int,
    qx: np.ndarray,
    qy: np.ndarray,
    x_start: np.ndarray,
    x_labels: np.ndarray,
    x_share: np.ndarray,
    n_x_labels: int,
    n_y_values: int,
    block: int,
    out: np.ndarray,
    /,
) -> None: ...
def step_groups(
    words: np.ndarray,
    n_words: int,
    n: int,
    entries: np.ndarray,
    m: int,
    n_moved: int,
    word: int,
    up: np.ndarray | None,
    rows: np.ndarray,
    min_rows: int,
    out: np.ndarray,
    /,
) -> int: ...
