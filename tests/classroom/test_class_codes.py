"""Class codes, student ids and lecturer tokens: enough bits, the right alphabet, and hostile text refused unread."""
from __future__ import annotations

import math
import re
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lmdk.classroom import check_code, check_student, codes, new_student_id
from lmdk.errors import ClassAccessError, ParameterError

HOSTILE = ["", " ", "'; DROP TABLE lmdk_classes; --", "ABC' OR '1'='1", "ABCDE\0", "ABCDEF\0", "ＡＢＣＤＥＦ",
           "ABCDEß", "abcde\u0301f", "ABCD0O", "ABCD1I", "A" * 7, "A" * 10_000_000, "<script>", "%41BCDEF",
           "A\u200bBCDEF", None, 123456, b"ABCDEF", ["ABCDEF"]]


def test_a_code_is_six_symbols_of_an_alphabet_without_look_alikes():
    assert len(codes.ALPHABET) == 32 and len(set(codes.ALPHABET)) == 32
    assert not set("0O1I") & set(codes.ALPHABET)
    found = {codes.new_code() for _ in range(2000)}
    assert all(len(code) == 6 and set(code) <= set(codes.ALPHABET) for code in found)
    assert len(found) > 1990  # 2000 draws from 10⁹ codes: practically no repeat
    assert set("".join(found)) == set(codes.ALPHABET)  # every symbol is used


def test_a_typed_code_is_forgiven_its_case_spaces_and_dashes():
    assert check_code("abc-def") == "ABCDEF"
    assert check_code("  AbC dEf \n") == "ABCDEF"
    assert check_code("23XY99") == "23XY99"


@pytest.mark.parametrize("text", HOSTILE, ids=lambda t: repr(t)[:20])
def test_hostile_code_text_is_refused_with_the_fix_and_not_echoed(text):
    start = time.perf_counter()
    with pytest.raises(ParameterError, match="class code") as caught:
        check_code(text)
    assert time.perf_counter() - start < 0.05  # megabytes are refused unread
    assert "DROP" not in str(caught.value) and "<script>" not in str(caught.value)


@given(st.text(max_size=80))
def test_any_text_is_a_valid_code_or_a_parameter_error(text):
    try:
        code = check_code(text)
    except ParameterError:
        return
    assert len(code) == 6 and set(code) <= set(codes.ALPHABET)


def test_student_ids_carry_at_least_64_random_bits_and_pass_their_own_check():
    ids = {new_student_id() for _ in range(1000)}
    assert len(ids) == 1000
    for sid in ids:
        assert check_student(sid) == sid
        assert re.fullmatch(r"[A-Za-z0-9_-]+", sid)  # URL-safe: kept in the page's address
        assert len(sid) * 6 >= 64 and codes.STUDENT_BYTES * 8 >= 64


@pytest.mark.parametrize("text", [*HOSTILE, "a" * 15, "a" * 65, "abc def ghi jkl mno", "é" * 16, "a/b" * 6],
                         ids=lambda t: repr(t)[:20])
def test_malformed_student_ids_are_refused(text):
    with pytest.raises(ParameterError, match="student id"):
        check_student(text)


@given(st.text(max_size=80))
def test_any_text_is_a_student_id_or_a_parameter_error(text):
    try:
        assert check_student(text) == text
    except ParameterError:
        pass


def test_a_lecturer_token_has_at_least_128_bits_and_only_its_digest_matches():
    token = codes.new_token()
    assert codes.TOKEN_BYTES * 8 >= 128 and len(token) * 6 >= 128
    digest = codes.token_digest(token)
    assert digest != token and len(digest) == 64
    assert codes.token_matches(token, digest)
    for wrong in [codes.new_token(), token[:-1] + ("A" if token[-1] != "A" else "B"), token + "x", "", None,
                  digest, "x" * 1_000_000, "é" * 32, 42]:
        assert not codes.token_matches(wrong, digest)
        with pytest.raises(ClassAccessError, match="lecturer"):
            codes.check_token(wrong, digest, "ABCDEF")


def test_the_token_is_compared_in_constant_time(monkeypatch):
    calls = []
    real = codes.hmac.compare_digest

    def spy(a, b):
        calls.append((a, b))
        return real(a, b)

    monkeypatch.setattr(codes.hmac, "compare_digest", spy)
    token = codes.new_token()
    digest = codes.token_digest(token)
    assert codes.token_matches(token, digest)
    assert not codes.token_matches(codes.new_token(), digest)
    assert len(calls) == 2 and all(b == digest for _, b in calls)  # every well-formed token goes through it


def test_secrets_are_uniform_enough_to_carry_their_bits():
    # the 6 symbols of 4000 codes: each of the 32 symbols about 750 times (a biased alphabet would show)
    text = "".join(codes.new_code() for _ in range(4000))
    counts = [text.count(ch) for ch in codes.ALPHABET]
    expected = len(text) / 32
    chi2 = sum((n - expected) ** 2 / expected for n in counts)
    assert chi2 < 80  # 31 degrees of freedom: p < 1e-5 above 80
    assert math.log2(len(codes.ALPHABET)) * codes.CODE_LENGTH == 30
