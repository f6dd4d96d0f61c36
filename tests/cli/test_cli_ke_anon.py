"""``pandas-anon ke-anon``: a (k, ε)-anonymous copy of a CSV. The k-quasis of the written
file are k-anonymous (independent verifier), the ε-quasis noised within their class's
theory, every other cell written as the input wrote it, the rows shuffled unless asked not
to; the same seed writes the same file; bad options are one line."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from pandas_anon.cli.main import main

from verify import verify_anonymized


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def read_text(path) -> pd.DataFrame:
    return pd.read_csv(path, dtype=str, keep_default_na=False)


@pytest.fixture
def people(tmp_path):
    """120 people: a town code with leading zeros, sex, a height (cm) and a note written
    with odd spellings ("01", "2.0") that must survive; k-quasis town and sex."""
    rng = np.random.default_rng(0)
    n = 120
    frame = pd.DataFrame(
        {
            "town": rng.choice(["00100", "00200", "00300"], n),
            "sex": rng.choice(["F", "M"], n),
            "height": np.round(rng.normal(170, 9, n), 1),
            "note": rng.choice(["01", "2.0", "x;y"], n),
        }
    )
    path = tmp_path / "people.csv"
    frame.to_csv(path, index=False)
    return path


OPTIONS = ("--k", "5", "--eps", "1", "--qid", "town,sex,height", "--eps-quasi", "height")


def test_the_written_copy_is_k_anonymous_and_noised_per_class(capsys, people, tmp_path):
    out_path = tmp_path / "out.csv"
    code, out, err = run(
        capsys, "ke-anon", str(people), str(out_path), *OPTIONS, "--seed", "1", "--keep-order",
        "--bounds", "height=-1000:1000",  # wide: the noise is seen unclamped
    )  # fmt: skip
    assert code == 0, err
    written, given = read_text(out_path), read_text(people)
    verify_anonymized(written, ["town", "sex"], 5, 0)
    assert (written["note"] == given["note"]).all()  # as written: 01 and 2.0 kept
    assert set(written["town"]) <= {"00100", "00200", "00300", "*"} | set(
        written["town"][written["town"].str.startswith("{")]
    )
    # the noise of each class is Laplace of scale (max - min) / ε around each height
    classes = written.groupby(["town", "sex"]).ngroup()
    height = given["height"].astype(float)
    spread = height.groupby(classes).transform("max") - height.groupby(classes).transform("min")
    noise = written["height"].astype(float) - height
    assert (noise != 0).mean() > 0.9
    assert np.abs(noise).mean() == pytest.approx(spread.mean(), rel=0.35)  # E|Lap(b)| = b
    assert "(k, ε)-anonymization" in out and "linking risk" in out


def test_the_rows_are_shuffled_and_the_same_seed_writes_the_same_file(capsys, people, tmp_path):
    paths = [tmp_path / f"{name}.csv" for name in ("one", "again", "other")]
    for path, seed in zip(paths, ("7", "7", "8")):
        code, _, err = run(capsys, "ke-anon", str(people), str(path), *OPTIONS, "--seed", seed)
        assert code == 0, err
    one, again, other = (path.read_bytes() for path in paths)
    assert one == again and one != other
    written, given = read_text(paths[0]), read_text(people)
    assert not (written["note"] == given["note"]).all()  # shuffled
    assert sorted(written["note"]) == sorted(given["note"])  # the same cells, as written


def test_the_json_report_and_alpha_confidence(capsys, people, tmp_path):
    out_path = tmp_path / "out.csv"
    code, out, err = run(
        capsys, "ke-anon", str(people), str(out_path), *OPTIONS, "--seed", "2",
        "--alpha", "0.99", "--format", "json", "--drop-suppressed",
    )  # fmt: skip
    assert code == 0, err
    report = json.loads(out)
    assert report["kind"] == "ke-anon" and report["shuffled"] is True
    assert report["k_quasi"] == ["town", "sex"] and report["eps_quasi"] == ["height"]
    assert '"seed"' not in out  # the report never records the seed
    written = read_text(out_path)
    assert len(written) == 120 - report["alpha_suppressed"] - report["suppressed"]
    verify_anonymized(written, ["town", "sex"], 5, 0)


def test_secure_noise(capsys, people, tmp_path):
    code, out, err = run(
        capsys, "ke-anon", str(people), str(tmp_path / "out.csv"), *OPTIONS, "--secure"
    )
    assert code == 0, err
    assert "OpenDP" in out


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (("--eps", "0"), "eps must be a finite number above 0"),
        (("--alpha", "1.5"), "alpha must be a fraction"),
        (("--alpha", "1"), "alpha must be a confidence strictly between 0 and 1"),
        (("--seed", "1", "--secure"), "not allowed with argument --seed"),
        (("--eps-quasi", "sex"), "ε-quasi 'sex' holds"),
        (("--eps-quasi", "heigth"), "heigth"),
        (("--bounds", "height"), "expected COLUMN=LOW:HIGH (e.g. age=0:120), got 'height'"),
        (("--bounds", "height=100"), "expected COLUMN=LOW:HIGH"),
        (("--bounds", "height=250:100"), "bounds for 'height' must have low below high"),
        (("--bounds", "height=100:x"), "bounds for 'height' must be a pair (low, high)"),
        (("--bounds", "height=100:150"), "bounds for 'height' (100, 150) leave out some"),
        (("--bounds", "sex=0:1"), "bounds given for 'sex', which is not an ε-quasi"),
        (("--bounds", "height=0:300", "--bounds", "height=0:400"), "names column 'height' twice"),
    ],
)
def test_bad_options_are_one_line(capsys, people, tmp_path, options, message):
    argv = ["ke-anon", str(people), str(tmp_path / "out.csv"), "--k", "5", "--eps", "1"]
    argv += ["--qid", "town,sex,height", *options]
    code, _, err = run(capsys, *argv)
    assert code == 2
    assert message in err
    assert err.strip().splitlines()[-1].startswith("pandas-anon: error:")
    assert not (tmp_path / "out.csv").exists()


@pytest.mark.parametrize("bounds", [None, (100, 250)])
def test_written_heights_lie_in_their_domain(capsys, people, tmp_path, bounds):
    """The heights written are clamped into the domain the JSON report gives: the bounds
    given, or the default (the heights' range widened to auto's coarsest width)."""
    out_path = tmp_path / "out.csv"
    given = ("--bounds", f"height={bounds[0]}:{bounds[1]}") if bounds else ()
    code, out, err = run(
        capsys, "ke-anon", str(people), str(out_path), *OPTIONS, "--seed", "3", *given,
        "--format", "json",
    )  # fmt: skip
    assert code == 0, err
    domain = json.loads(out)["domain"]["height"]
    heights = read_text(out_path)["height"].astype(float)
    assert heights.between(domain["low"], domain["high"]).all()
    assert {domain["low"], domain["high"]} <= set(heights)  # the noise reaches both ends
    if bounds:
        assert (domain["low"], domain["high"], domain["source"]) == (*bounds, "given")
    else:
        assert domain["source"].startswith("default: observed range widened to multiples of")


def test_refuses_to_write_over_its_input(capsys, people):
    code, _, err = run(capsys, "ke-anon", str(people), str(people), *OPTIONS, "--seed", "1")
    assert code == 2 and "is the input file" in err


def test_without_qid_every_column_is_a_quasi_identifier(capsys, people, tmp_path):
    """Zero configuration: every released column is a quasi-identifier, the numeric ones
    noised and the others k-anonymous together, which ``check --qid`` confirms."""
    out_path = tmp_path / "out.csv"
    code, _, err = run(
        capsys, "ke-anon", str(people), str(out_path), "--k", "2", "--eps", "1", "--seed", "1"
    )
    assert code == 0, err
    released = pd.read_csv(out_path)
    numeric = [c for c in released.columns if pd.api.types.is_numeric_dtype(released[c])]
    k_quasis = [c for c in released.columns if c not in numeric]
    assert numeric and k_quasis
    code, _, err = run(capsys, "check", str(out_path), "--k", "2", "--qid", ",".join(k_quasis))
    assert code == 0, err
