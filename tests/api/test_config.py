"""The service's settings from the environment: the analysis's first judged card and its
seen-hand test."""

from __future__ import annotations

import pytest

from api.config import ConfigError, load_config


def test_the_analysis_judges_from_the_12th_card_unless_told() -> None:
    assert load_config(environ={}).analysis_from_card == 12
    assert load_config(environ={"FAIRPLAY_ANALYSIS_FROM_CARD": "8"}).analysis_from_card == 8


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("0", "analysis_from_card must be a card from 1 to 51"),
        ("52", "analysis_from_card must be a card from 1 to 51"),
        ("twelve", "analysis_from_card: 'twelve' is not an integer"),
    ],
)
def test_a_first_card_out_of_the_hand_is_refused_naming_the_setting(
    value: str, message: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        load_config(environ={"FAIRPLAY_ANALYSIS_FROM_CARD": value})
    assert caught.value.message == message
    assert caught.value.details == {"field": "analysis_from_card"}


def test_the_seen_hand_test_is_off_unless_told_and_a_bad_count_is_named() -> None:
    assert load_config(environ={}).analysis_seen_draws == 0
    told = load_config(environ={"FAIRPLAY_ANALYSIS_SEEN_DRAWS": "15"})
    assert told.analysis_seen_draws == 15
    for value, message in (
        ("-1", "analysis_seen_draws must be 0 to 1000 deals"),
        ("many", "analysis_seen_draws: 'many' is not an integer"),
    ):
        with pytest.raises(ConfigError) as caught:
            load_config(environ={"FAIRPLAY_ANALYSIS_SEEN_DRAWS": value})
        assert caught.value.message == message
        assert caught.value.details == {"field": "analysis_seen_draws"}
