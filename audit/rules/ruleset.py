"""Variant settings a record's ``ruleset`` can change (see docs/rules.md).

Every setting has the default the rules digest fixes; records omit what they do not
change. Unknown settings are an error (a typo must not silently play another game),
except names beginning with ``x-``, which are reserved for producers.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from audit.errors import RecordError, RulesetError
from audit.rules.deal import DEFAULT_PATTERN, check_pattern

__all__ = ["DEFAULT_RULESET", "PENALTY_OPTIONS", "SETTINGS", "SEVEN_IS", "Ruleset"]

SEVEN_IS = ("single", "double")
PENALTY_OPTIONS = ("tricks", "deduct", "add")
SETTINGS = ("deal_pattern", "seven_is", "default_penalty")


@dataclass(frozen=True, slots=True)
class Ruleset:
    """The rules a sitting was played under."""

    deal_pattern: tuple[int, ...] = DEFAULT_PATTERN
    """Packet sizes from the dealer's left: (4, 4, 5), (6, 7) or thirteen 1s."""
    seven_is: str = "single"
    """Value of a game won when the losers stand at exactly 7: "single" (1) or "double" (2)."""
    default_penalty: str = "tricks"
    """Revoke penalty applied when the record names none for a revoke."""

    def game_value(self, loser_points: int) -> int:
        """Value of a game from the losers' points at the moment it is won."""
        if loser_points == 0:
            return 4
        if loser_points <= 3:
            return 3
        if loser_points <= 6:
            return 2
        if loser_points == 7:
            return 2 if self.seven_is == "double" else 1
        return 1

    def to_json(self) -> dict[str, Any]:
        return {
            "deal_pattern": list(self.deal_pattern),
            "seven_is": self.seven_is,
            "default_penalty": self.default_penalty,
        }

    @classmethod
    def from_json(
        cls, obj: Mapping[str, Any] | None, path: str = "ruleset", *, extensions: bool = True
    ) -> Ruleset:
        """The ruleset of a JSON object; an unknown setting is an error, and so is an
        ``x-`` one unless ``extensions`` (a record may carry them; a live table may not)."""
        if obj is None:
            return DEFAULT_RULESET
        for name in obj:
            if name not in SETTINGS and not (extensions and str(name).startswith("x-")):
                raise RecordError(
                    f"{path}.{name}", f"is not a ruleset setting (one of {list(SETTINGS)})"
                )
        try:
            pattern = check_pattern(obj.get("deal_pattern", DEFAULT_PATTERN))
        except RulesetError as exc:
            raise RecordError(f"{path}.deal_pattern", exc.message.split(": ", 1)[-1]) from None
        seven = obj.get("seven_is", "single")
        if seven not in SEVEN_IS:
            raise RecordError(f"{path}.seven_is", f"{seven!r} is not one of {list(SEVEN_IS)}")
        penalty = obj.get("default_penalty", "tricks")
        if penalty not in PENALTY_OPTIONS:
            raise RecordError(
                f"{path}.default_penalty", f"{penalty!r} is not one of {list(PENALTY_OPTIONS)}"
            )
        return cls(deal_pattern=pattern, seven_is=seven, default_penalty=penalty)


DEFAULT_RULESET = Ruleset()
