"""Plain-language headlines name the right winner and ratio."""
from __future__ import annotations

import pytest

from lmdk.present import headlines


def test_schemes_headline_names_the_best_protecting_scheme_and_its_ratio_to_user_level():
    mae = {"event": 1.0, "user": 1004.0, "uniform": 201.0, "skip": 1.03, "adaptive": 28.5}
    ok = {"event": False, "user": True, "uniform": True, "skip": True, "adaptive": True}
    text = headlines.schemes_headline(1.0, 1000, 200, "hours", "kWh", mae, ok)
    assert text.startswith("With ε = 1 and 200 sensitive hours out of 1,000, *Skip* keeps the typical error at 1.0 kWh")
    assert "975× better than protecting every one of the hours equally (user level)" in text
    assert "*Event level* is more accurate still but does **not** protect" in text


def test_without_user_level_or_a_more_accurate_violator_the_sentence_stays_short():
    mae = {"uniform": 201.0, "adaptive": 28.6}
    text = headlines.schemes_headline(0.1, 1000, 200, "hours", "kWh", mae, {"uniform": True, "adaptive": True})
    assert "*Adaptive* keeps the typical error at 29 kWh, and it guarantees" in text and "not" not in text


def test_when_nothing_protects_the_landmarks_the_headline_says_so():
    text = headlines.schemes_headline(1.0, 100, 5, "readings", "", {"event": 1.0}, {"event": False})
    assert "none of the chosen schemes protects" in text


def test_readable_numbers_and_words():
    assert [headlines.readable(v) for v in (1004.3, 28.14, 0.5437, 37.0, 9.98)] == ["1,000", "28", "0.54", "37", "10"]
    assert headlines.ratio(27.4) == "27×" and headlines.ratio(1.46) == "1.5×"
    assert headlines.event_word("values", 3600.0) == "hours" and headlines.event_word("trajectory", 5.0) == "locations"


def test_temporal_loss_headline_states_the_growth_over_the_uncorrelated_loss():
    text = headlines.temporal_loss_headline(1.0, "uniform", "strong", 4.975, 1.0, "hours")
    assert text.startswith("With ε = 1 and strong correlation between consecutive hours")
    assert ("up to 5.0 nats (the unit of ε) about the sensitive hours together from *Uniform* — 5.0× the 1.0 nats"
            in text)
    assert "can change by up to e^5.0 ≈ 140×" in text  # the unit, said as odds (issue 35)
    same = headlines.temporal_loss_headline(1.0, "skip", "weak", 1.0, 1.0, "hours")
    assert "no more about the sensitive hours together from *Skip* than without it" in same


def test_spatiotemporal_headline_states_the_cost_of_keeping_the_event_within_epsilon():
    text = headlines.spatiotemporal_headline(1.0, 3.2, 1500.0, 4200.0, 1.0, 0.25)
    assert "up to 3.2 nats (the unit of ε) about the sensitive event, above ε = 1" in text
    assert "4.2 km off instead of 1.5 km" in text
    calm = headlines.spatiotemporal_headline(1.0, 0.4, 800.0, 800.0, 1.0, 1.0)
    assert "already keeps the sensitive event within ε = 1" in calm and "800 m" in calm
    # within ε at the median, but PriSTE lowered α in some repetition: never "nothing to change" beside a cost
    some = headlines.spatiotemporal_headline(0.5, 0.45, 2600.0, 3300.0, 0.1, 0.0975)
    assert "nothing to change" not in some and "in a typical repetition but not in all of them" in some
    assert "3.3 km off instead of 2.6 km" in some and headlines.sentence_count(some) == 2
    assert headlines.sentence_count(text) <= 2


def test_spatiotemporal_headline_compares_with_guessing_the_maps_centre():
    beaten = headlines.spatiotemporal_headline(1.0, 3.2, 1500.0, 4200.0, 1.0, 0.25, guess_m=3000.0)
    assert "4.2 km off instead of 1.5 km (guessing the map's centre: 3.0 km) — no better than that guess" in beaten
    better = headlines.spatiotemporal_headline(1.0, 3.2, 1500.0, 2000.0, 1.0, 0.25, guess_m=3000.0)
    assert "(guessing the map's centre: 3.0 km)." in better and "no better" not in better
    fitted = headlines.spatiotemporal_headline(1.0, 3.2, 1500.0, 4200.0, 1.0, 0.25, guess_m=3000.0,
                                               guess_data_free=False)
    assert "(the centre of this map, fitted around the trace and so not a data-free guess, is 3.0 km off)" in fitted
    assert "no better" not in fitted
    assert all(headlines.sentence_count(t) <= 2 for t in (beaten, better, fitted))


def test_centre_guess_is_the_mean_distance_to_the_maps_centre():
    from lmdk.priste import Grid
    from lmdk.priste.views import centre_guess_m

    grid = Grid(3, 3, 1000.0)
    assert centre_guess_m(grid, [4, 4]) == 0.0  # the middle cell's centre is the map's centre
    assert centre_guess_m(grid, [0, 8]) == pytest.approx(1000 * 2 ** 0.5)  # two opposite corners


def test_dummies_headline_states_the_chance_and_what_stays_exposed():
    text = headlines.dummies_headline(500, 200, 0.4, "hours")
    assert text.startswith("300 ordinary hours are marked as sensitive next to the 200 real ones")
    assert "with 40 % certainty" in text and "left unmarked are known to be ordinary" in text


def test_overview_headline_names_who_protects_and_who_does_not():
    from lmdk.present.headlines import overview_headline

    text = overview_headline(1.0, 8, 3, {"event": False, "user": True, "uniform": True})
    assert text == ("With ε = 1 and 3 landmarks among 8 events, *user*, *uniform* protect the landmarks together "
                    "— *event* does **not**.")
    assert overview_headline(0.5, 8, 0, {"uniform": True}).endswith("*uniform* protects the landmarks together.")


def test_the_schemes_headline_compares_with_the_data_free_guess_and_says_what_would_help():
    """Issue 35: readings of about 1 kWh in a 0–25 kWh range; user level 12.4 kWh, adaptive 10.7, skip 8.2."""
    import numpy as np

    x = np.r_[np.zeros(50), np.full(50, 1.8)]
    guess = headlines.Guess.of(x, (0, 25), "kWh")
    assert guess.value == 12.5 and guess.mae == 11.6 and guess.range_far_wider
    mae = {"user": 12.4, "adaptive": 10.7}
    ok = {"user": True, "adaptive": True}
    text = headlines.schemes_headline(1.0, 1000, 200, "hours", "kWh", mae, ok, guess=guess)
    assert "That is **barely better** than guessing 12.5 kWh (the middle of the public range 0–25 kWh)" in text
    assert "off by 11.6 kWh" in text and "a larger ε" in text and "many users" in text
    assert text.count(". ") + 1 <= 2, text  # at most two sentences
    worse = headlines.schemes_headline(1.0, 1000, 200, "hours", "kWh", {"user": 12.4}, {"user": True}, guess=guess)
    assert "**no better**" in worse and "the public range, not the scheme, sets this error" in worse
    good = headlines.schemes_headline(1.0, 1000, 200, "hours", "kWh", {"skip": 1.16}, {"skip": True}, guess=guess)
    assert "10× better than guessing" in good and "would help" not in good


def test_the_schemes_no_better_than_the_guess_are_named():
    """Issue 35's defaults: Skip 8.2 kWh beats the guess (11.6); User level, w-event and Uniform do not."""
    guess = headlines.Guess(mae=11.6, value=12.5, range_text="0–25 kWh", range_far_wider=True)
    mae = {"event": 8.16, "user": 12.4, "w-event": 11.9, "uniform": 12.5, "skip": 8.15, "adaptive": 10.5}
    ok = {"event": False, "user": True, "w-event": False, "uniform": True, "skip": True, "adaptive": True}
    text = headlines.schemes_headline(1.0, 1000, 200, "hours", "kWh", mae, ok, guess=guess)
    assert ("*User level*, *w-event* and *Uniform* are **no better** than that guess: the public range, not the "
            "scheme, sets their error." in text)  # 0–25 kWh around readings of about 1 kWh (issue 35)
    assert headlines.sentence_count(text) == 2, text
    narrow = headlines.schemes_headline(1.0, 1000, 200, "hours", "kWh", mae, ok,
                                        guess=headlines.Guess(11.6, 12.5, "0–25 kWh", range_far_wider=False))
    assert "**no better** than that guess." in narrow and "sets their error" not in narrow


def test_sentences_are_counted_at_their_ends_not_at_decimal_points_or_abbreviations():
    said = ("##### **Event level leaks more than promised**: an attacker measured ε̂ ≥ 4.60, the promise was ε = 1. "
            "*Skip* lets an attacker find the landmarks (AUC 0.93, e.g. the positions); dummies cut it to 0.70.")
    assert headlines.sentence_count(said) == 2
    assert headlines.sentence_count("One. Two! 3 three? **Four.** Five") == 5
    assert headlines.sentence_count("##### ") == 0
